//go:build tools

// Package tools pins the JobSet operator (sigs.k8s.io/jobset, main package at
// the module root) in this module so that operator.sh can build it with
// `go build sigs.k8s.io/jobset`.
package tools

import _ "sigs.k8s.io/jobset"
