//! `workload-lens describe`: resolve workloads offline and show them.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;
use workload_lens::resolved::{Component, Instance, TreeNode};
use workload_lens::resources::ResourceSummary;
use workload_lens::{ErrorCode, Limits, Resolved};

use crate::failure::{Failure, error_message};
use crate::input::{self, InputPath, check_single_stdin, object_gvk, object_label, read_text};
use crate::output::{self, Format, bytes, columns, cpu, warn};

/// Run `describe`; returns the text for stdout.
pub fn run(
    file: &InputPath,
    definitions: &[InputPath],
    format: Format,
    limits: &Limits,
) -> Result<String, Failure> {
    check_single_stdin(definitions.iter().chain(std::iter::once(file)))?;
    let set = input::definition_set(definitions, limits)?;
    let name = file.display();
    let text = read_text(file, limits)?;
    let docs = input::parse(&text, &name, limits)?;
    let (objects, several) = input::objects(docs);
    if objects.is_empty() {
        return Err(Failure::usage(format!(
            "{name}: no Kubernetes object found in the input"
        )));
    }
    let labelled = several || objects.len() > 1;
    let mut resolved = Vec::with_capacity(objects.len());
    let mut human = String::new();
    for (n, obj) in objects.iter().enumerate() {
        match set.resolve(&obj.value) {
            Ok(r) => {
                for w in &r.warnings {
                    warn(&format!("{}/{}: {w}", r.workload.kind, r.workload.name));
                }
                if format == Format::Human {
                    if !human.is_empty() {
                        human.push('\n');
                    }
                    human.push_str(&render(&r));
                }
                resolved.push(r);
            }
            Err(e) => {
                let mut f = Failure::engine(&e);
                if labelled {
                    f = f.context(&object_label(&obj.value, n + 1));
                }
                f.stdout = match format {
                    Format::Human => Some(human).filter(|h| !h.is_empty()),
                    _ if e.code == ErrorCode::NoDefinition => {
                        let report = json!({
                            "error": ErrorCode::NoDefinition.as_str(),
                            "gvk": object_gvk(&obj.value).to_string(),
                            "message": error_message(&e),
                        });
                        Some(if format == Format::Json {
                            output::json(&report)?
                        } else {
                            output::yaml(&report)?
                        })
                    }
                    _ => None,
                };
                return Err(f);
            }
        }
    }
    match (format, resolved.as_slice()) {
        (Format::Human, _) => Ok(human),
        (Format::Json, [one]) if !labelled => output::json(one),
        (Format::Json, all) => output::json(all),
        (Format::Yaml, all) => output::yaml_documents(all),
    }
}

/// The human description of one resolved workload.
pub fn render(r: &Resolved) -> String {
    let mut out = String::new();
    let mut header = vec![format!("{}/{}", r.workload.kind, r.workload.name)];
    if let Some(ns) = &r.workload.namespace {
        header.push(format!("namespace: {ns}"));
    }
    header.push(format!(
        "definition: {} ({})",
        r.definition.name, r.definition.origin
    ));
    out.push_str(&header.join("   "));
    out.push_str("\n(file mode: no live pods)\n\n");

    let comps: BTreeMap<&str, &Component> =
        r.components.iter().map(|c| (c.name.as_str(), c)).collect();
    let mut rows = Vec::new();
    tree_rows(&r.tree, &comps, "", None, &mut rows);
    out.push_str(&columns(&rows, 3));

    if let Some(status) = &r.status {
        out.push_str("\nStatus: ");
        out.push_str(&status.matched_statuses.join(","));
        if let Some(phase) = &status.phase {
            out.push_str(&format!(" (phase: {phase})"));
        }
        out.push('\n');
    }

    out.push_str("\nResources:\n");
    out.push_str(&resources_table(r));
    out
}

/// Cells of a pod-bearing instance in the tree: replicas (or `absent`) and
/// GPUs (omitted when zero).
fn instance_cells(i: &Instance) -> Vec<String> {
    let mut cells = vec![if i.present {
        format!("replicas: {}", i.desired_replicas)
    } else {
        "absent".to_string()
    }];
    cells.push(if i.resources.gpu > 0 {
        format!("gpu: {}", i.resources.gpu)
    } else {
        String::new()
    });
    cells
}

/// Rows of the component tree. `last` is `None` for the root, else whether
/// the node is the last of its siblings.
fn tree_rows(
    node: &TreeNode,
    comps: &BTreeMap<&str, &Component>,
    prefix: &str,
    last: Option<bool>,
    rows: &mut Vec<Vec<String>>,
) {
    let (label, child_prefix) = match last {
        None => (node.component.clone(), String::new()),
        Some(true) => (
            format!("{prefix}`-- {}", node.component),
            format!("{prefix}    "),
        ),
        Some(false) => (
            format!("{prefix}|-- {}", node.component),
            format!("{prefix}|   "),
        ),
    };
    let comp = comps.get(node.component.as_str()).copied();
    let mut row = vec![label];
    let instances: &[Instance] = comp.map(|c| c.instances.as_slice()).unwrap_or_default();
    let multi = comp.is_some_and(|c| c.multi_instance);
    let pods = comp.is_some_and(|c| c.has_pod_definition);
    if !multi
        && pods
        && let Some(i) = instances.first()
    {
        row.extend(instance_cells(i));
    }
    rows.push(row);

    let shown_instances: &[Instance] = if multi { instances } else { &[] };
    let total = shown_instances.len() + node.children.len();
    let mut n = 0;
    for inst in shown_instances {
        n += 1;
        let connector = if n == total { "`-- " } else { "|-- " };
        let mut row = vec![format!("{child_prefix}{connector}{}", instance_name(inst))];
        if pods {
            row.extend(instance_cells(inst));
        }
        rows.push(row);
    }
    for child in &node.children {
        n += 1;
        tree_rows(child, comps, &child_prefix, Some(n == total), rows);
    }
}

fn instance_name(i: &Instance) -> &str {
    if i.id.is_empty() { "\"\"" } else { &i.id }
}

/// One row of the resources table before naming.
struct ResourceRow<'a> {
    component: &'a str,
    instance: Option<&'a str>,
    present: bool,
    replicas: u64,
    resources: &'a ResourceSummary,
}

fn resources_table(r: &Resolved) -> String {
    let mut rows: Vec<ResourceRow<'_>> = Vec::new();
    for c in r.components.iter().filter(|c| c.has_pod_definition) {
        for i in &c.instances {
            rows.push(ResourceRow {
                component: &c.name,
                instance: (c.multi_instance && !i.id.is_empty()).then_some(i.id.as_str()),
                present: i.present,
                replicas: i.desired_replicas,
                resources: &i.resources,
            });
        }
    }
    // Row names: the instance id for multi-instance components, else the
    // component name; `component/instance` where names would collide.
    let short: Vec<String> = rows
        .iter()
        .map(|row| row.instance.unwrap_or(row.component).to_string())
        .collect();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &short {
        *counts.entry(s.as_str()).or_default() += 1;
    }
    let names: Vec<String> = rows
        .iter()
        .zip(&short)
        .map(|(row, s)| match row.instance {
            Some(i) if counts.get(s.as_str()).copied().unwrap_or(0) > 1 => {
                format!("{}/{i}", row.component)
            }
            _ => s.clone(),
        })
        .collect();

    let totals = &r.totals.resources;
    let extended: BTreeSet<&str> = rows
        .iter()
        .map(|row| row.resources)
        .chain(std::iter::once(totals))
        .flat_map(|res| res.extended.iter())
        .filter(|(_, q)| !q.is_zero())
        .map(|(k, _)| k.as_str())
        .collect();
    let ephemeral = rows
        .iter()
        .any(|row| row.resources.ephemeral_storage_bytes > 0)
        || totals.ephemeral_storage_bytes > 0;

    let mut header: Vec<String> = ["COMPONENT", "REPLICAS", "GPU", "CPU", "MEMORY"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if ephemeral {
        header.push("EPHEMERAL-STORAGE".into());
    }
    header.extend(extended.iter().map(|k| k.to_uppercase()));

    let cells = |name: String, replicas: String, res: &ResourceSummary| {
        let mut row = vec![
            name,
            replicas,
            res.gpu.to_string(),
            cpu(res.cpu_millis),
            bytes(res.memory_bytes),
        ];
        if ephemeral {
            row.push(bytes(res.ephemeral_storage_bytes));
        }
        for k in &extended {
            row.push(
                res.extended
                    .get(*k)
                    .map(|q| q.to_canonical_string())
                    .unwrap_or_else(|| "0".into()),
            );
        }
        row
    };
    let mut table = vec![header];
    for (row, name) in rows.iter().zip(names) {
        let replicas = if row.present {
            row.replicas.to_string()
        } else {
            "absent".into()
        };
        table.push(cells(name, replicas, row.resources));
    }
    table.push(cells("TOTAL".into(), r.totals.pods.to_string(), totals));
    columns(&table, 3)
}
