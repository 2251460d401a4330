//go:build tools

// Package tools pins the agent-sandbox controller in this module so that
// operator.sh can build it with `go build sigs.k8s.io/agent-sandbox/cmd/agent-sandbox-controller`.
package tools

import _ "sigs.k8s.io/agent-sandbox/cmd/agent-sandbox-controller"
