//go:build tools

// Package tools pins Argo Workflows' workflow-controller in this module so that operator.sh can build it
// with `go build github.com/argoproj/argo-workflows/v3/cmd/workflow-controller`.
package tools

import _ "github.com/argoproj/argo-workflows/v3/cmd/workflow-controller"
