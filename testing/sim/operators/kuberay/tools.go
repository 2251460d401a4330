//go:build tools

// Package tools pins the KubeRay operator's main package (the root of the
// ray-operator module) so that this module (go.mod, go.sum) can build it:
// operator.sh runs `go build -o kuberay-controller github.com/ray-project/kuberay/ray-operator`.
package tools

import _ "github.com/ray-project/kuberay/ray-operator"
