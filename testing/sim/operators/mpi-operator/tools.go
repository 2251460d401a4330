//go:build tools

// Package tools pins the Kubeflow MPI operator (MPIJob v2beta1) in this module so that operator.sh can build it
// with `go build github.com/kubeflow/mpi-operator/cmd/mpi-operator`.
package tools

import _ "github.com/kubeflow/mpi-operator/cmd/mpi-operator"
