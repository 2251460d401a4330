//go:build tools

// Package tools pins the KServe controller manager in this module so that operator.sh can build it
// with `go build github.com/kserve/kserve/cmd/manager`.
package tools

import _ "github.com/kserve/kserve/cmd/manager"
