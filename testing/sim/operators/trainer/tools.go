//go:build tools

// Package tools pins the Kubeflow Trainer v2 controller manager in this module so that operator.sh can build it
// with `go build github.com/kubeflow/trainer/v2/cmd/trainer-controller-manager`.
package tools

import _ "github.com/kubeflow/trainer/v2/cmd/trainer-controller-manager"
