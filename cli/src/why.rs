//! `why`: the engine's diagnosis of one workload, from a file (with its
//! pods, events and related objects) or from the cluster.
//!
//! The first line names the workload, its status and the first finding:
//! what a user asks first. Then every finding, ranked, with its evidence
//! and what to do when that is clear.

use serde_json::Value;
use workload_lens::{Diagnosis, Engine, Limits};

use crate::failure::Failure;
use crate::input::{InputPath, read_text};
use crate::output::{self, Format, columns};

/// How the times of the evidence are written: relative to now (live), or
/// as the cluster wrote them (files, whose times are in the past).
#[derive(Debug, Clone, Copy)]
pub enum Times {
    /// `5m ago`, from this time (seconds since the epoch).
    #[cfg_attr(not(feature = "cluster"), allow(dead_code))]
    Ago(i64),
    /// As written.
    Absolute,
}

/// The diagnosis as text (human), JSON or YAML.
pub fn print(d: &Diagnosis, times: Times, format: Format) -> Result<String, Failure> {
    match format {
        Format::Human => Ok(render(d, times)),
        Format::Json => output::json(d),
        Format::Yaml => output::yaml(d),
    }
}

/// The first line: the workload, its status and the first finding.
pub fn headline(d: &Diagnosis) -> String {
    let statuses: Vec<&str> = d.statuses.iter().map(|s| s.as_str()).collect();
    let status = if statuses.is_empty() {
        "without a status".to_string()
    } else {
        statuses.join(", ")
    };
    let who = format!("{}/{}", d.workload.kind, d.workload.name);
    match d.findings.first() {
        Some(f) => format!("{who} is {status}: {}", f.message),
        None => format!("{who} is {status}: nothing wrong is shown by its pods, events or status"),
    }
}

fn render(d: &Diagnosis, times: Times) -> String {
    let mut out = output::escape(&headline(d)).into_owned();
    out.push('\n');
    for (i, f) in d.findings.iter().enumerate() {
        out.push('\n');
        let severity = match f.severity {
            workload_lens::FindingSeverity::Blocking => "blocking",
            workload_lens::FindingSeverity::Warning => "warning",
            workload_lens::FindingSeverity::Info => "info",
        };
        out.push_str(&format!("{}. {} ({severity})\n", i + 1, f.code.as_str()));
        out.push_str(&format!("   {}\n", output::escape(&f.message)));
        if let Some(a) = &f.action {
            out.push_str(&format!("   To do: {}\n", output::escape(a)));
        }
        if !f.evidence.is_empty() {
            out.push_str("   Evidence:\n");
            let rows: Vec<Vec<String>> = f
                .evidence
                .iter()
                .map(|e| {
                    vec![
                        e.object.clone(),
                        e.field.clone(),
                        e.text.clone(),
                        when(e.time.as_deref(), times),
                    ]
                })
                .collect();
            for line in columns(&rows, 3).lines() {
                out.push_str("     ");
                out.push_str(line.trim_end());
                out.push('\n');
            }
            if f.more_evidence > 0 {
                out.push_str(&format!("     ... and {} more\n", f.more_evidence));
            }
        }
    }
    out
}

fn when(t: Option<&str>, times: Times) -> String {
    match (t, times) {
        (None, _) => String::new(),
        (Some(t), Times::Absolute) => t.to_string(),
        #[cfg(feature = "cluster")]
        (Some(t), Times::Ago(now)) => format!("{} ago", crate::cluster::age(Some(t), now)),
        #[cfg(not(feature = "cluster"))]
        (Some(t), Times::Ago(_)) => t.to_string(),
    }
}

/// The inputs of file mode.
pub struct FileInputs {
    /// The workload (one object).
    pub file: InputPath,
    /// Its pods and their owners (`--pods`).
    pub pods: Option<InputPath>,
    /// Events (`--events`).
    pub events: Option<InputPath>,
    /// Related objects: Kueue Workloads, gang schedulers' PodGroups and
    /// PodGangs (`--related`).
    pub related: Option<InputPath>,
}

/// `why FILE`: the one object of the file, diagnosed with what is given.
pub fn run_file(
    inputs: &FileInputs,
    definitions: &[InputPath],
    format: Format,
    limits: &Limits,
) -> Result<String, Failure> {
    crate::input::check_single_stdin(
        definitions
            .iter()
            .chain(std::iter::once(&inputs.file))
            .chain(inputs.pods.iter())
            .chain(inputs.events.iter())
            .chain(inputs.related.iter()),
    )?;
    let engine: Engine = crate::input::engine(definitions, limits)?;
    // One command, one budget (docs/reliability.md, whole-call budgets).
    let _call = engine.call();
    let text = read_text(&inputs.file, limits)?;
    let objects = engine
        .read_objects(&text)
        .map_err(|e| Failure::engine(&e).context(&inputs.file.display()))?;
    let [object] = objects.as_slice() else {
        return Err(Failure::usage(format!(
            "why diagnoses one workload: {} holds {} objects",
            inputs.file.display(),
            objects.len()
        )));
    };
    let read = |p: &Option<InputPath>, flag: &str| -> Result<Vec<Value>, Failure> {
        let Some(p) = p else { return Ok(Vec::new()) };
        let text = read_text(p, limits).map_err(|f| f.context(flag))?;
        engine
            .read_objects(&text)
            .map_err(|e| Failure::engine(&e).context(&format!("{flag} {}", p.display())))
    };
    let pods = read(&inputs.pods, "--pods")?;
    let events = read(&inputs.events, "--events")?;
    let related = read(&inputs.related, "--related")?;
    let d = engine
        .diagnose(object, &pods, &events, &related)
        .map_err(|e| Failure::engine(&e))?;
    print(&d, Times::Absolute, format)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_line_names_the_first_finding() {
        let d: Diagnosis = {
            let engine = Engine::new().unwrap();
            let job = json!({"apiVersion": "batch/v1", "kind": "Job",
                "metadata": {"name": "big", "namespace": "ml", "uid": "j"},
                "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
                "status": {"active": 1}});
            let pod = json!({"metadata": {"name": "big-1", "namespace": "ml", "uid": "p",
                    "labels": {"batch.kubernetes.io/job-name": "big"},
                    "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "big", "uid": "j", "controller": true}]},
                "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                    "reason": "Unschedulable", "message": "0/4 nodes are available: 4 Insufficient nvidia.com/gpu."}]}});
            engine.diagnose(&job, &[pod], &[], &[]).unwrap()
        };
        let text = render(&d, Times::Absolute);
        let first = text.lines().next().unwrap();
        assert_eq!(
            first,
            "Job/big is Running: the scheduler cannot place pod big-1: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu."
        );
        assert!(text.contains("1. unschedulable (blocking)"), "{text}");
        assert!(
            text.contains("   To do: no node has enough free GPUs"),
            "{text}"
        );
        assert!(text.contains("     Pod/big-1   status.conditions[PodScheduled]   PodScheduled=False Unschedulable"), "{text}");
    }
}
