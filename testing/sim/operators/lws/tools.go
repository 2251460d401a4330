//go:build tools

// Package tools pins the LeaderWorkerSet operator (main package
// sigs.k8s.io/lws/cmd) in this module so that operator.sh can build it with
// `go build sigs.k8s.io/lws/cmd`.
package tools

import _ "sigs.k8s.io/lws/cmd"
