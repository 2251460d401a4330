//go:build tools

// Package tools pins the Kueue controller's main package so that this module
// (go.mod, go.sum) can build it: operator.sh runs
// `go build -o kueue-controller sigs.k8s.io/kueue/cmd/kueue`.
package tools

import _ "sigs.k8s.io/kueue/cmd/kueue"
