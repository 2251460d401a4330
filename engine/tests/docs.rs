//! The documentation stays true: every definition on the format page
//! compiles, and the limits table lists the real defaults.

use workload_lens::{CompiledDefinition, Limits};

fn yaml_blocks(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    for line in md.lines() {
        match (&mut cur, line.trim_start()) {
            (None, l) if l.starts_with("```yaml") => cur = Some(String::new()),
            (Some(_), l) if l.starts_with("```") => out.extend(cur.take()),
            (Some(b), _) => {
                b.push_str(line);
                b.push('\n');
            }
            _ => {}
        }
    }
    out
}

#[test]
fn definition_format_examples_compile() {
    let md = include_str!("../../docs/definition-format.md");
    let defs: Vec<_> = yaml_blocks(md)
        .into_iter()
        .filter(|b| b.contains("kind: Karta"))
        .collect();
    assert!(!defs.is_empty());
    for d in defs {
        let c = CompiledDefinition::from_text(&d, Limits::default())
            .unwrap_or_else(|e| panic!("{e}\n{d}"));
        assert!(c.warnings().is_empty(), "{:?}", c.warnings());
    }
}

#[test]
fn reliability_lists_every_limit_with_its_default() {
    let md = include_str!("../../docs/reliability.md");
    let defaults = serde_json::to_value(Limits::default()).unwrap();
    for (name, value) in defaults.as_object().unwrap() {
        let row = format!("| `{name}` | {value} |");
        assert!(md.contains(&row), "docs/reliability.md lacks the row {row}");
    }
}
