//! The maps for the next engineer (`ARCHITECTURE.md`, `CONTRIBUTING.md`)
//! name files, folders and commands: every one of them must exist, so the
//! maps cannot drift from the tree.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The repository paths a document names: words (in backticks, code
/// blocks or prose) that start with a top-level folder of the repository or
/// are a top-level file, without placeholders (`<name>`) or globs.
fn named_paths(text: &str, tops: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split(|c: char| {
        c.is_whitespace() || matches!(c, '`' | '(' | ')' | ',' | ';' | '|' | '"' | '\'')
    }) {
        let word = word.trim_end_matches(['.', ':']);
        if word.is_empty() || word.contains('<') || word.contains('*') || word.contains("::") {
            continue;
        }
        let first = word.split('/').next().unwrap_or_default();
        let is_top_file =
            !word.contains('/') && tops.iter().any(|t| t == word) && word.contains('.');
        let in_top_dir = word.contains('/') && tops.iter().any(|t| t == first);
        if is_top_file || in_top_dir {
            out.push(word.to_string());
        }
    }
    out.sort();
    out.dedup();
    out
}

fn tops() -> Vec<String> {
    std::fs::read_dir(root())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "target" && !n.starts_with('.'))
        .collect()
}

fn check(doc: &str) {
    let text = std::fs::read_to_string(root().join(doc)).unwrap();
    let named = named_paths(&text, &tops());
    assert!(
        named.len() > 20,
        "{doc} names only {} paths: {named:?}",
        named.len()
    );
    let missing: Vec<&String> = named
        .iter()
        .filter(|p| !Path::new(&root().join(p.as_str())).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "{doc} names paths that do not exist: {missing:?}"
    );
}

#[test]
fn architecture_names_only_what_exists() {
    check("ARCHITECTURE.md");
}

#[test]
fn contributing_names_only_what_exists() {
    check("CONTRIBUTING.md");
}

#[test]
fn the_check_finds_paths_and_skips_placeholders() {
    let tops = vec!["engine".to_string(), "README.md".to_string()];
    let text = "See `engine/src/lib.rs`, engine/src/gone.rs and `definitions/<name>.yaml`; \
                README.md. Not engine::Engine, not src/x.rs.";
    assert_eq!(
        named_paths(text, &tops),
        ["README.md", "engine/src/gone.rs", "engine/src/lib.rs"]
    );
    let missing = named_paths(text, &tops)
        .into_iter()
        .filter(|p| !root().join(p).exists())
        .collect::<Vec<_>>();
    assert_eq!(missing, ["engine/src/gone.rs"], "a missing path is found");
}
