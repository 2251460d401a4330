//go:build tools

// Package tools pins the Kubeflow training-operator's main package in this module so that operator.sh can build it
// with `go build github.com/kubeflow/training-operator/cmd/training-operator.v1`.
package tools

import _ "github.com/kubeflow/training-operator/cmd/training-operator.v1"
