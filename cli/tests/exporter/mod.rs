//! `workload-lens serve` run as a user runs it, for the live and sim
//! suites: started on a free port with a kubeconfig, scraped over HTTP,
//! and checked against what `get -A -o json` says of the same cluster.

// Each suite that includes this module uses part of it.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A running exporter; stopped when dropped.
pub struct Exporter {
    child: Child,
    pub addr: String,
}

/// One sample of the exposition.
#[derive(Debug, Clone)]
pub struct Sample {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

impl Exporter {
    /// Start `serve` with `kubeconfig` and `args`, and wait (at most 60 s)
    /// for `/readyz` to answer 200.
    pub fn start(kubeconfig: &Path, args: &[&str]) -> Exporter {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let addr = format!("127.0.0.1:{port}");
        let child = Command::new(env!("CARGO_BIN_EXE_workload-lens"))
            .env_remove("KUBECONFIG")
            .args(["serve", "--listen", &addr, "--kubeconfig"])
            .arg(kubeconfig)
            .args(["--debounce-ms", "50"])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start workload-lens serve");
        let mut e = Exporter { child, addr };
        e.wait_for(Duration::from_secs(60), "/readyz 200", |e| {
            e.get("/readyz", None).0 == 200
        });
        e
    }

    /// GET a path: (status, body). Status 0 when nothing answers.
    pub fn get(&self, path: &str, accept: Option<&str>) -> (u16, String) {
        http_get(&self.addr, path, accept)
    }

    /// The samples of one scrape (classic text format).
    pub fn scrape(&self) -> Vec<Sample> {
        let (status, body) = self.get("/metrics", None);
        assert_eq!(status, 200, "{body}");
        parse(&body)
    }

    /// Poll until `done` holds (panics with `what` after `limit`).
    pub fn wait_for(&mut self, limit: Duration, what: &str, done: impl Fn(&Exporter) -> bool) {
        let start = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("workload-lens serve exited ({status}) while waiting for {what}");
            }
            if done(self) {
                return;
            }
            assert!(
                start.elapsed() < limit,
                "workload-lens serve: no {what} after {limit:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn http_get(addr: &str, path: &str, accept: Option<&str>) -> (u16, String) {
    let Ok(mut s) = TcpStream::connect(addr) else {
        return (0, String::new());
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
    let accept = accept
        .map(|a| format!("Accept: {a}\r\n"))
        .unwrap_or_default();
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{accept}Connection: close\r\n\r\n");
    if s.write_all(req.as_bytes()).is_err() {
        return (0, String::new());
    }
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return (0, String::new());
    };
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    (status, body)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// Read the classic text format: `name{k="v",...} value` lines.
pub fn parse(text: &str) -> Vec<Sample> {
    let mut out = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (series, value) = line.rsplit_once(' ').expect("a sample line");
        let (name, labels) = match series.split_once('{') {
            Some((n, rest)) => (n, rest.strip_suffix('}').expect("closing brace")),
            None => (series, ""),
        };
        let mut map = BTreeMap::new();
        let mut rest = labels;
        while let Some((k, v)) = rest.split_once("=\"") {
            // Values are escaped (\\, \", \n): find the closing quote.
            let mut end = 0;
            let bytes = v.as_bytes();
            let mut value = String::new();
            while end < bytes.len() && bytes[end] != b'"' {
                if bytes[end] == b'\\' && end + 1 < bytes.len() {
                    value.push(match bytes[end + 1] {
                        b'n' => '\n',
                        c => c as char,
                    });
                    end += 2;
                } else {
                    let ch = v[end..].chars().next().unwrap();
                    value.push(ch);
                    end += ch.len_utf8();
                }
            }
            map.insert(k.trim_start_matches(',').to_string(), value);
            rest = &v[(end + 1).min(v.len())..];
        }
        out.push(Sample {
            name: name.to_string(),
            labels: map,
            value: value.parse().expect("a number"),
        });
    }
    out
}

/// A workload's key in the series: (namespace, kind, name).
pub type Key = (String, String, String);

/// The samples of `name` by workload.
pub fn by_workload(samples: &[Sample], name: &str) -> BTreeMap<Key, f64> {
    samples
        .iter()
        .filter(|s| s.name == name)
        .map(|s| {
            let l = |k: &str| s.labels.get(k).cloned().unwrap_or_default();
            ((l("namespace"), l("kind"), l("workload")), s.value)
        })
        .collect()
}

/// Every workload of `rows` (`get -A -o json`'s items) in `namespaces`
/// reads the same in the exposition: desired pods, GPUs, the pods that
/// exist, ready and placed, statuses, reason, owner state; and the
/// exposition has no other workload there. Returns how many were checked.
pub fn check_against_rows(samples: &[Sample], rows: &[Value], namespaces: &[&str]) -> usize {
    let in_scope = |ns: &str| namespaces.contains(&ns);
    let key = |r: &Value| -> Key {
        let t = |k: &str| r[k].as_str().unwrap_or_default().to_string();
        (t("namespace"), t("kind"), t("name"))
    };
    let info = by_workload(samples, "workload_lens_workload_info");
    let want: Vec<&Value> = rows
        .iter()
        .filter(|r| in_scope(r["namespace"].as_str().unwrap_or_default()))
        .collect();
    let have: Vec<&Key> = info.keys().filter(|k| in_scope(&k.0)).collect();
    let want_keys: Vec<Key> = want.iter().map(|r| key(r)).collect();
    assert_eq!(
        have.into_iter().cloned().collect::<Vec<_>>(),
        {
            let mut w = want_keys.clone();
            w.sort();
            w
        },
        "the exporter's workloads are get's"
    );
    let series = |n: &str| by_workload(samples, n);
    let (desired, gpus, pods, ready, placed) = (
        series("workload_lens_workload_pods_desired"),
        series("workload_lens_workload_gpus_requested"),
        series("workload_lens_workload_pods"),
        series("workload_lens_workload_pods_ready"),
        series("workload_lens_workload_gpus_placed"),
    );
    for r in &want {
        let k = key(r);
        if r.get("error").is_some() {
            assert!(!desired.contains_key(&k), "{k:?} did not resolve");
            continue;
        }
        let n = |v: &Value| v.as_f64().unwrap_or(0.0);
        assert_eq!(desired.get(&k), Some(&n(&r["pods"])), "{k:?} desired pods");
        assert_eq!(gpus.get(&k), Some(&n(&r["gpus"])), "{k:?} GPUs");
        let live = &r["live"];
        assert_eq!(pods.get(&k), Some(&n(&live["pods"])), "{k:?} pods");
        assert_eq!(ready.get(&k), Some(&n(&live["ready"])), "{k:?} ready");
        assert_eq!(
            placed.get(&k),
            Some(&(n(&live["gpus"]) - n(&live["pendingGpus"]))),
            "{k:?} placed GPUs"
        );
        let statuses: Vec<String> = samples
            .iter()
            .filter(|s| s.name == "workload_lens_workload_status")
            .filter(|s| {
                (
                    s.labels["namespace"].clone(),
                    s.labels["kind"].clone(),
                    s.labels["workload"].clone(),
                ) == k
            })
            .map(|s| s.labels["status"].clone())
            .collect();
        let mut want_statuses: Vec<String> = r["statuses"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        want_statuses.sort();
        let mut statuses = statuses;
        statuses.sort();
        assert_eq!(statuses, want_statuses, "{k:?} statuses");
        let reason = samples.iter().find(|s| {
            s.name == "workload_lens_workload_reason"
                && s.labels["namespace"] == k.0
                && s.labels["kind"] == k.1
                && s.labels["workload"] == k.2
        });
        assert_eq!(
            reason.map(|s| s.labels["reason"].as_str()),
            r["reason"].as_str(),
            "{k:?} reason"
        );
        let owner = samples.iter().find(|s| {
            s.name == "workload_lens_workload_owner_missing"
                && s.labels["namespace"] == k.0
                && s.labels["workload"] == k.2
                && s.labels["kind"] == k.1
        });
        assert_eq!(
            owner.map(|s| s.labels["state"].as_str()),
            r["owner"]["state"].as_str(),
            "{k:?} owner"
        );
    }
    want.len()
}

/// The value of the one sample of `name` with these labels.
pub fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    samples
        .iter()
        .find(|s| {
            s.name == name
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .map(|s| s.value)
}
