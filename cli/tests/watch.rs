//! `get --watch` against a small HTTP server written here (no
//! kube-apiserver needed): a server that ends every watch at once makes the
//! CLI list again, and those lists go through `Cluster::run` like every
//! other request, so `WORKLOAD_LENS_RECORD` records them.
#![cfg(feature = "cluster")]

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const LIST: &str = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets?limit=500";

/// The answer of the server to `path`: discovery of one group with
/// JobSets, an empty JobSet list (its resourceVersion the number of lists
/// asked so far), a watch that ends at once (after the events of `watched`,
/// JSON lines), else 404.
fn answer(path: &str, lists: &AtomicUsize, watched: &str) -> (u16, String) {
    let ok = |v: Value| (200, v.to_string());
    match path {
        "/api/v1" => ok(json!({"kind": "APIResourceList", "groupVersion": "v1", "resources": []})),
        "/apis" => ok(json!({"kind": "APIGroupList", "groups": [
            {"name": "jobset.x-k8s.io", "versions": [{"version": "v1alpha2"}],
             "preferredVersion": {"version": "v1alpha2"}}]})),
        "/apis/jobset.x-k8s.io/v1alpha2" => ok(json!({"resources": [
            {"name": "jobsets", "singularName": "jobset", "namespaced": true, "kind": "JobSet"}]})),
        LIST => {
            let n = lists.fetch_add(1, Ordering::SeqCst) + 1;
            ok(
                json!({"kind": "JobSetList", "metadata": {"resourceVersion": n.to_string()}, "items": []}),
            )
        }
        // The watch ends before any event, as when the server times it out.
        p if p.contains("watch=1") => (200, watched.to_string()),
        _ => (
            404,
            json!({"kind": "Status", "message": "not found", "code": 404}).to_string(),
        ),
    }
}

/// Serve one connection: requests without bodies (GETs), one after the
/// other, until the client closes it.
fn serve(stream: TcpStream, lists: Arc<AtomicUsize>, watched: &str) {
    let mut out = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut first = String::new();
        if reader.read_line(&mut first).unwrap_or(0) == 0 {
            return;
        }
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            if header == "\r\n" {
                break;
            }
        }
        let path = first.split_whitespace().nth(1).unwrap_or("").to_string();
        let (status, body) = answer(&path, &lists, watched);
        let head = format!(
            "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        if out
            .write_all(head.as_bytes())
            .and_then(|_| out.write_all(body.as_bytes()))
            .is_err()
        {
            return;
        }
    }
}

/// The paths of the requests recorded in `file` (JSON lines `{path, reply}`).
fn recorded(file: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["path"].as_str().map(str::to_string))
        .collect()
}

/// Start the server; its port and the count of lists it answered.
fn server(watched: &'static str) -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let lists = Arc::new(AtomicUsize::new(0));
    {
        let lists = lists.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let lists = lists.clone();
                std::thread::spawn(move || serve(stream, lists, watched));
            }
        });
    }
    (port, lists)
}

/// A kubeconfig for the server on `port`, namespace ml.
fn kubeconfig(dir: &std::path::Path, port: u16) -> std::path::PathBuf {
    let kubeconfig = dir.join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: \
             http://127.0.0.1:{port}\nusers:\n- name: u\n  user: {{}}\ncontexts:\n- name: fake\n  \
             context:\n    cluster: fake\n    user: u\n    namespace: ml\ncurrent-context: fake\n"
        ),
    )
    .unwrap();
    kubeconfig
}

#[test]
fn the_lists_of_a_watch_that_starts_again_are_recorded() {
    let (port, lists) = server("");
    let tmp = tempfile::tempdir().unwrap();
    let kubeconfig = kubeconfig(tmp.path(), port);
    let record = tmp.path().join("record.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_workload-lens"))
        .args(["get", "jobsets", "--watch", "--kubeconfig"])
        .arg(&kubeconfig)
        .env_remove("KUBECONFIG")
        .env("WORKLOAD_LENS_RECORD", &record)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The first list, then one per watch ended: three lists are two relists.
    let deadline = Instant::now() + Duration::from_secs(60);
    while lists.load(Ordering::SeqCst) < 3 && Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("get --watch ended: {status}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    let served = lists.load(Ordering::SeqCst);
    assert!(served >= 3, "the server was asked for {served} lists");
    let paths = recorded(&record);
    let count = |p: &str| paths.iter().filter(|r| *r == p).count();
    // Every list the server answered is recorded (the last may have been
    // answered as the CLI was stopped, before it was recorded).
    assert!(
        count(LIST) + 1 >= served && count(LIST) >= 2,
        "{served} lists served, recorded: {paths:#?}"
    );
    // A relist starts from the served resources kept: discovery once.
    assert_eq!(count("/apis"), 1, "{paths:#?}");
}

/// One ADDED event of a JobSet with a long name (2 GPUs), as the watch
/// after the empty list sees it each time.
const ADDED: &str = concat!(
    r#"{"type":"ADDED","object":{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","#,
    r#""metadata":{"name":"a-rather-long-jobset-name","namespace":"ml","uid":"u1","#,
    r#""resourceVersion":"5","creationTimestamp":"2026-01-01T00:00:00Z"},"#,
    r#""spec":{"replicatedJobs":[{"name":"w","replicas":2,"template":{"spec":{"parallelism":1,"#,
    r#""completions":1,"template":{"spec":{"containers":[{"name":"c","image":"i","#,
    r#""resources":{"limits":{"nvidia.com/gpu":"1"}}}]}}}}}]}}}"#,
    "\n"
);

/// Run `get jobsets --watch ARGS` against a server whose watches end after
/// the ADDED event, until it has listed 3 times (the first list and two
/// relists); its stdout and stderr.
fn watch_run(args: &[&str]) -> (String, String) {
    let (port, lists) = server(ADDED);
    let tmp = tempfile::tempdir().unwrap();
    let kubeconfig = kubeconfig(tmp.path(), port);
    let (out, err) = (tmp.path().join("out"), tmp.path().join("err"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_workload-lens"))
        .args(["get", "jobsets", "--watch", "--kubeconfig"])
        .arg(&kubeconfig)
        .args(args)
        .env_remove("KUBECONFIG")
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while lists.load(Ordering::SeqCst) < 3 && Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("get --watch ended: {status}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // The event after the last relist is handled (and printed nothing).
    std::thread::sleep(Duration::from_millis(300));
    let _ = child.kill();
    let _ = child.wait();
    (
        std::fs::read_to_string(out).unwrap(),
        std::fs::read_to_string(err).unwrap(),
    )
}

/// Issue 32: a watch that starts from an empty list prints the header with
/// the first row, aligned; the warning about the cluster's definitions is
/// printed once, however many times the watch lists again, and
/// `--no-cluster-definitions` silences it.
#[test]
fn a_watch_from_an_empty_list_is_aligned_and_warns_once() {
    let (out, err) = watch_run(&[]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(
        lines[0],
        "NAME                        PHASE          READY   PODS   GPUS   AGE"
    );
    // A row of the watch has no READY (the watch follows the workloads).
    assert!(
        lines[1].starts_with("a-rather-long-jobset-name   Initializing   -       2      2      "),
        "{out}"
    );
    let warned = |e: &str| e.matches("no definitions in the cluster").count();
    assert_eq!(warned(&err), 1, "{err}");
    assert!(err.contains("No workloads found in namespace ml."), "{err}");
    let (out, err) = watch_run(&["--no-cluster-definitions", "--no-headers"]);
    assert!(
        out.starts_with("a-rather-long-jobset-name   Initializing"),
        "{out}"
    );
    assert_eq!(out.lines().count(), 1, "{out}");
    assert_eq!(warned(&err), 0, "{err}");
}

/// `-o json` stays JSON under --watch: one `{type, object}` event per line;
/// `-o name` one name per line.
#[test]
fn json_stays_json_under_watch() {
    let (out, _) = watch_run(&["-o", "json"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "{out}");
    let v: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(v["type"], "ADDED");
    assert_eq!(v["object"]["name"], "a-rather-long-jobset-name");
    assert_eq!(v["object"]["gpus"], 2);
    let (out, _) = watch_run(&["-o", "name"]);
    assert_eq!(out, "jobset.jobset.x-k8s.io/a-rather-long-jobset-name\n");
}
