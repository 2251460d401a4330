// Command kcm is kube-controller-manager v1.37.2 (k8s.io/kubernetes'
// cmd/kube-controller-manager/app), built from this module so that its
// version matches kapi's exactly. testing/sim/start.sh runs it against kapi.
package main

import (
	"os"
	_ "time/tzdata" // CronJob time zones without the host's zoneinfo

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // --logging-format=json
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics
	_ "k8s.io/component-base/metrics/prometheus/version"  // build info metric
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() {
	os.Exit(cli.Run(app.NewControllerManagerCommand()))
}
