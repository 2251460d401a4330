#!/usr/bin/env python3
"""test_sim.py [DIR | --kubeconfig FILE]: the simulated cluster's own test.
Checks the real controllers, scheduler and every kwok outcome of
stages.yaml in namespace simtest. Run through test.sh (which makes the venv);
exit status 0 when every check passed.

  DIR (default target/sim/test): starts a sim of its own there (start.sh DIR
      --nodes 2 --gpus-per-node 8) and stops it again (also on failure).
  --kubeconfig FILE: uses a sim that already runs (start.sh, any node count,
      8 GPUs a node or more, operators or not), as scripts/sim.sh does;
      a leftover namespace simtest of an earlier run is deleted first (and
      waited for); after the checks its deletion is requested, not waited
      for (the namespace controller takes ~10 s; kwok removes the pods, and
      so frees their GPUs, at once).
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from kube import Kube, wait  # noqa: E402

NS = "simtest"
A = "sim.workload-lens.dev/"
T0 = time.monotonic()


def log(msg: str) -> None:
    print(f"test_sim [{time.monotonic() - T0:5.1f}s] {msg}", flush=True)


def container(gpus: int = 1, name: str = "main") -> dict:
    c = {"name": name, "image": f"registry.example/{name}:1"}
    if gpus:
        c["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    return c


def pod(name: str, annotations: dict | None = None, restart: str = "Never", gpus: int = 1, init: bool = False) -> dict:
    spec = {"restartPolicy": restart, "containers": [container(gpus)], "terminationGracePeriodSeconds": 30}
    if init:
        spec["initContainers"] = [container(0, "setup"), container(0, "warmup")]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NS, "annotations": annotations or {}},
        "spec": spec,
    }


def job(name: str, annotations: dict | None = None, backoff: int = 0, parallelism: int = 1) -> dict:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "backoffLimit": backoff,
            "parallelism": parallelism,
            "completions": parallelism,
            "template": {
                "metadata": {"annotations": annotations or {}},
                "spec": {"restartPolicy": "Never", "containers": [container(1)]},
            },
        },
    }


class Checks:
    def __init__(self, kube: Kube):
        self.k = kube
        self.failed: list[str] = []

    def check(self, name: str, fn, timeout: float = 30.0):
        t = time.monotonic()
        try:
            wait(name, fn, timeout)
            log(f"ok   {name} ({time.monotonic() - t:.1f} s)")
        except Exception as e:  # noqa: BLE001
            self.failed.append(name)
            log(f"FAIL {name}: {e}")

    def pod(self, name: str) -> dict:
        return self.k.get("v1", "Pod", name, NS) or {}

    def pods(self, selector: str) -> list[dict]:
        return self.k.list("v1", "Pod", NS, selector)

    def cond(self, obj: dict, typ: str) -> str | None:
        for c in (obj.get("status") or {}).get("conditions") or []:
            if c["type"] == typ:
                return c["status"]
        return None

    def cs(self, name: str, init: bool = False) -> dict:
        key = "initContainerStatuses" if init else "containerStatuses"
        return ((self.pod(name).get("status") or {}).get(key) or [{}])[0]


def run(kube: Kube) -> list[str]:
    c = Checks(kube)
    k = kube
    k.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
    wait("ServiceAccount simtest/default", lambda: k.get("v1", "ServiceAccount", "default", NS), 30)

    deploy = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": NS},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [container(1)]}},
        },
    }
    objs = [
        deploy,
        pod("gpu16", gpus=16),
        job("ok", {A + "outcome": "succeed", A + "run-seconds": "1"}),
        job("bad", {A + "outcome": "fail", A + "exit-code": "3"}),
        job("long", parallelism=2),
        pod("crash", {A + "outcome": "crashloop", A + "backoff-seconds": "1"}, restart="Always", gpus=0),
        pod("oom", {A + "outcome": "oom"}, gpus=0),
        pod("oom-always", {A + "outcome": "oom", A + "backoff-seconds": "1"}, restart="Always", gpus=0),
        pod("pull", {A + "outcome": "image-pull-error"}, gpus=0),
        pod("init-never", {A + "outcome": "init-fail"}, gpus=0, init=True),
        pod("init-always", {A + "outcome": "init-fail"}, restart="Always", gpus=0, init=True),
        pod("later", gpus=0, init=True),
        pod("slow-stop", {A + "terminate-seconds": "3"}, gpus=0),
    ]
    for o in objs:
        k.apply(o)
    log(f"applied {len(objs)} objects in namespace {NS}")

    def deploy_ready():
        rs = [r for r in k.list("apps/v1", "ReplicaSet", NS) if r["metadata"].get("ownerReferences", [{}])[0].get("name") == "web"]
        ps = c.pods("app=web")
        return rs and len(ps) == 2 and all(p["status"].get("phase") == "Running" and c.cond(p, "Ready") == "True" and p["status"].get("podIP") for p in ps)

    c.check("Deployment web: a ReplicaSet and 2 Running Ready GPU pods", deploy_ready)
    c.check("Deployment web: availableReplicas 2", lambda: (k.get("apps/v1", "Deployment", "web", NS)["status"].get("availableReplicas") == 2))

    def insufficient():
        evs = k.list("v1", "Event", NS)
        return any(e["involvedObject"]["name"] == "gpu16" and e["reason"] == "FailedScheduling" and "Insufficient nvidia.com/gpu" in e.get("message", "") for e in evs)

    c.check("pod gpu16 (16 GPUs): FailedScheduling 'Insufficient nvidia.com/gpu'", insufficient)
    c.check("pod gpu16 stays Pending, unscheduled", lambda: c.pod("gpu16")["status"].get("phase") == "Pending" and not c.pod("gpu16")["spec"].get("nodeName"))

    def job_cond(name, typ):
        j = k.get("batch/v1", "Job", name, NS) or {}
        return c.cond(j, typ) == "True"

    c.check("Job ok (outcome succeed, run-seconds 1): Complete", lambda: job_cond("ok", "Complete"))
    c.check(
        "Job ok: pod Succeeded, exit 0 Completed",
        lambda: any(
            p["status"].get("phase") == "Succeeded" and p["status"]["containerStatuses"][0]["state"]["terminated"]["reason"] == "Completed"
            for p in c.pods("job-name=ok")
        ),
    )
    c.check("Job bad (outcome fail, backoffLimit 0): Failed", lambda: job_cond("bad", "Failed"))
    c.check(
        "Job bad: pod Failed, exit code 3 (exit-code), reason Error",
        lambda: any(
            p["status"].get("phase") == "Failed" and p["status"]["containerStatuses"][0]["state"]["terminated"] == {**p["status"]["containerStatuses"][0]["state"]["terminated"], "exitCode": 3, "reason": "Error"}
            for p in c.pods("job-name=bad")
        ),
    )

    def crashloop(name, reason, restarts):
        s = c.cs(name)
        p = c.pod(name)
        return (
            p["status"].get("phase") == "Running"
            and c.cond(p, "Ready") == "False"
            and s.get("restartCount", 0) >= restarts
            and (s.get("lastState") or {}).get("terminated", {}).get("reason") == reason
            and (s.get("state", {}).get("waiting", {}).get("reason") == "CrashLoopBackOff" or restarts > 1)
        )

    c.check("pod crash (crashloop): CrashLoopBackOff, lastState exit 1 Error, Running not Ready", lambda: crashloop("crash", "Error", 1) and c.cs("crash")["lastState"]["terminated"]["exitCode"] == 1)
    c.check("pod crash: restartCount grows to 3 (backoff-seconds 1: 1 s, 2 s)", lambda: crashloop("crash", "Error", 3), timeout=20)
    c.check(
        "pod oom (Never): Failed, OOMKilled exit 137",
        lambda: c.pod("oom")["status"].get("phase") == "Failed" and c.cs("oom")["state"].get("terminated", {}).get("exitCode") == 137 and c.cs("oom")["state"]["terminated"]["reason"] == "OOMKilled",
    )
    c.check("pod oom-always (Always): crash loop with lastState OOMKilled 137", lambda: crashloop("oom-always", "OOMKilled", 1) and c.cs("oom-always")["lastState"]["terminated"]["exitCode"] == 137)
    c.check(
        "pod pull (image-pull-error): scheduled, Pending, ErrImagePull then ImagePullBackOff",
        lambda: c.pod("pull")["spec"].get("nodeName") and c.pod("pull")["status"].get("phase") == "Pending" and c.cs("pull").get("state", {}).get("waiting", {}).get("reason") == "ImagePullBackOff",
        timeout=15,
    )
    c.check(
        "pod init-never (init-fail, Never): Failed, init container exit 1 Error, Initialized False",
        lambda: c.pod("init-never")["status"].get("phase") == "Failed"
        and c.cs("init-never", init=True)["state"].get("terminated", {}).get("reason") == "Error"
        and c.cond(c.pod("init-never"), "Initialized") == "False",
    )
    c.check(
        "pod init-always (init-fail, Always): Pending, init container CrashLoopBackOff",
        lambda: c.pod("init-always")["status"].get("phase") == "Pending" and c.cs("init-always", init=True).get("state", {}).get("waiting", {}).get("reason") == "CrashLoopBackOff",
    )

    c.check("pod later: Running Ready, init containers Completed", lambda: c.cond(c.pod("later"), "Ready") == "True" and c.cs("later", init=True)["state"]["terminated"]["reason"] == "Completed")
    k.merge_patch("v1", "Pod", "later", {"metadata": {"annotations": {A + "outcome": "fail"}}}, NS)
    c.check("pod later: outcome fail patched on while Running -> Failed, exit 1", lambda: c.pod("later")["status"].get("phase") == "Failed" and c.cs("later")["state"]["terminated"]["exitCode"] == 1)

    c.check("pod slow-stop Running", lambda: c.pod("slow-stop")["status"].get("phase") == "Running")
    t = time.monotonic()
    k.delete("v1", "Pod", "slow-stop", NS)
    time.sleep(1)
    if not (c.pod("slow-stop").get("metadata") or {}).get("deletionTimestamp"):
        c.failed.append("slow-stop terminating")
        log("FAIL pod slow-stop (terminate-seconds 3) should still be Terminating 1 s after the delete")
    c.check("pod slow-stop (terminate-seconds 3): gone 3 s after the delete", lambda: not c.pod("slow-stop"), timeout=10)
    gone = time.monotonic() - t
    if gone < 2.5:
        c.failed.append("slow-stop too fast")
        log(f"FAIL pod slow-stop went away after {gone:.1f} s, before terminate-seconds")

    c.check("Job long (default outcome): 2 Running pods", lambda: len([p for p in c.pods("job-name=long") if p["status"].get("phase") == "Running"]) == 2)
    k.delete("batch/v1", "Job", "long", NS)
    c.check("Job long deleted: its pods are removed (garbage collector)", lambda: not c.pods("job-name=long"))

    nodes = len(k.list("v1", "Node"))
    c.check(f"node Leases in kube-node-lease (kwok): one for each of the {nodes} nodes", lambda: nodes and len(k.list("coordination.k8s.io/v1", "Lease", "kube-node-lease")) == nodes)
    return c.failed


def delete_namespace(kube: Kube, wait_gone: bool) -> None:
    """Deletes namespace simtest (no body: see the smoke tests); waits until
    it is gone if wait_gone."""
    ns = kube.get("v1", "Namespace", NS)
    if ns is None:
        return
    if not ns["metadata"].get("deletionTimestamp"):
        kube.call("DELETE", kube.path("v1", "Namespace", name=NS))
    if wait_gone:
        wait(f"namespace {NS} of an earlier run to be gone", lambda: kube.get("v1", "Namespace", NS) is None, 60)


def shared(kubeconfig: str) -> list[str]:
    kube = Kube(kubeconfig)
    log(f"using the running sim of {kubeconfig}")
    delete_namespace(kube, wait_gone=True)
    failed = run(kube)
    delete_namespace(kube, wait_gone=False)
    log(f"namespace {NS}: deletion requested")
    return failed


def own(d: pathlib.Path) -> list[str]:
    log(f"starting the sim in {d} (2 nodes x 8 GPUs)")
    try:
        kubeconfig = subprocess.run(
            ["bash", str(HERE / "start.sh"), str(d), "--nodes", "2", "--gpus-per-node", "8"],
            check=True,
            stdout=subprocess.PIPE,
            text=True,
        ).stdout.strip()
        log("sim started")
        failed = run(Kube(kubeconfig))
    finally:
        subprocess.run(["bash", str(HERE / "stop.sh"), str(d)], check=False)
        log("sim stopped")
    return failed


def main(argv: list[str]) -> int:
    if argv[:1] == ["--kubeconfig"]:
        if len(argv) != 2:
            print("usage: test_sim.py [DIR | --kubeconfig FILE]", file=sys.stderr)
            return 2
        failed = shared(argv[1])
    elif len(argv) <= 1 and not (argv and argv[0].startswith("-")):
        failed = own(pathlib.Path(argv[0]) if argv else ROOT / "target" / "sim" / "test")
    else:
        print("usage: test_sim.py [DIR | --kubeconfig FILE]", file=sys.stderr)
        return 2
    if failed:
        log(f"{len(failed)} check(s) failed: {', '.join(failed)}")
        return 1
    log("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
