//! No import loops between the files of the workspace's crates.
//!
//! Each crate's files stand in layers: a file uses the files below it, never
//! one above. This test reads the sources (`engine/src`, `cli/src`,
//! `conformance/src`), builds the graph of which file uses which (every
//! `use` and every path that starts with `crate::`, `super::`, `self::` or a
//! child module's name, followed through re-exports to the file that
//! defines the name, so a facade `mod.rs` or the crate root that only hands
//! names on ties nothing), and fails naming the files of every loop and the
//! paths that tie them. Self-contained: no tool, no network, no parser
//! crate; a small lexer that skips comments, strings and characters.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The crates checked, as folders of the workspace holding `src/`.
const CRATES: &[&str] = &["engine", "cli", "conformance"];

#[test]
fn no_import_loops_between_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut report = String::new();
    for name in CRATES {
        let src = root.join(name).join("src");
        let files = read_crate(&src);
        assert!(!files.is_empty(), "no sources under {}", src.display());
        let place = format!("{name}/src");
        for lp in loops(&files) {
            report.push_str(&format!("{place}: {}\n", describe(&lp)));
        }
    }
    assert!(
        report.is_empty(),
        "import loops between files (each file must use only files below it; \
         move what both sides need into a module below them):\n{report}"
    );
}

/// Every `.rs` file of a crate's `src/`, as (path relative to `src`, text).
/// Where the crate has a library, `main.rs` is a crate of its own (it only
/// uses the library) and is left out.
fn read_crate(src: &Path) -> Vec<(String, String)> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<(String, String)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, base, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(base).unwrap_or(&p);
                let rel = rel.to_string_lossy().replace('\\', "/");
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                out.push((rel, text));
            }
        }
    }
    let mut out = Vec::new();
    walk(src, src, &mut out);
    if out.iter().any(|(p, _)| p == "lib.rs") {
        out.retain(|(p, _)| p != "main.rs" && !p.starts_with("bin/"));
    }
    out.sort();
    out
}

/// One loop: its files, and for each edge inside it the paths that tie it.
struct Loop {
    files: Vec<String>,
    ties: Vec<(String, String, Vec<String>)>,
}

fn describe(lp: &Loop) -> String {
    let mut s = format!("{} files: {}", lp.files.len(), lp.files.join(", "));
    for (from, to, names) in &lp.ties {
        s.push_str(&format!("\n    {from} -> {to}: {}", names.join(", ")));
    }
    s
}

// ---------------------------------------------------------------------------
// Lexing: identifiers and punctuation, without comments, strings, chars.

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Path,
    Punct(char),
}

fn lex(text: &str) -> Vec<Tok> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let ident_start = |ch: char| ch == '_' || ch.is_alphabetic();
    let ident_char = |ch: char| ch == '_' || ch.is_alphanumeric();
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied();
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == '"' {
            i = skip_string(&c, i + 1);
        } else if (ch == 'r' || ch == 'b' || ch == 'c')
            && let Some(end) = raw_or_prefixed_string(&c, i)
        {
            i = end;
        } else if ch == '\'' {
            // A character literal, or a lifetime / label (skipped too).
            if next == Some('\\') {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < c.len() && ident_char(c[i]) {
                    i += 1;
                }
            }
        } else if ident_start(ch) {
            let start = i;
            while i < c.len() && ident_char(c[i]) {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            out.push(Tok::Ident(word.trim_start_matches("r#").to_string()));
        } else if ch.is_ascii_digit() {
            while i < c.len() && (ident_char(c[i]) || c[i] == '.') {
                // `1..2` is a range, not a number.
                if c[i] == '.' && c.get(i + 1) == Some(&'.') {
                    break;
                }
                i += 1;
            }
        } else if ch == ':' && next == Some(':') {
            out.push(Tok::Path);
            i += 2;
        } else {
            out.push(Tok::Punct(ch));
            i += 1;
        }
    }
    out
}

/// Past the closing quote of a string whose opening quote is before `i`.
fn skip_string(c: &[char], mut i: usize) -> usize {
    while i < c.len() {
        match c[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// Past a `r"..."`, `r#"..."#`, `b"..."`, `br#"..."#`, `c"..."` or `b'x'`
/// literal starting at `i`, if one starts there.
fn raw_or_prefixed_string(c: &[char], i: usize) -> Option<usize> {
    if i > 0 && (c[i - 1] == '_' || c[i - 1].is_alphanumeric()) {
        return None;
    }
    let mut j = i;
    if c[j] == 'b' || c[j] == 'c' {
        j += 1;
        if c.get(j) == Some(&'\'') {
            let mut k = j + 1;
            while k < c.len() && c[k] != '\'' {
                k += if c[k] == '\\' { 2 } else { 1 };
            }
            return Some(k + 1);
        }
    }
    if c.get(j) == Some(&'r') {
        j += 1;
        let mut hashes = 0;
        while c.get(j) == Some(&'#') {
            hashes += 1;
            j += 1;
        }
        if c.get(j) != Some(&'"') {
            return None;
        }
        j += 1;
        while j < c.len() {
            if c[j] == '"' && (1..=hashes).all(|h| c.get(j + h) == Some(&'#')) {
                return Some(j + 1 + hashes);
            }
            j += 1;
        }
        return Some(j);
    }
    if j > i && c.get(j) == Some(&'"') {
        return Some(skip_string(c, j + 1));
    }
    None
}

// ---------------------------------------------------------------------------
// Reading modules: items, `use` declarations and paths.

/// A module (a file, or a `mod name { ... }` inside one).
#[derive(Default)]
struct Module {
    file: usize,
    /// Names defined at module level (functions, types, constants, macros,
    /// child modules).
    items: BTreeSet<String>,
    /// Names brought in by `use`: name -> the path it stands for.
    imports: BTreeMap<String, Vec<String>>,
    /// Modules whose every name is brought in (`use path::*`).
    globs: Vec<Vec<String>>,
}

/// A path one file names, with the module it is named in.
struct Reference {
    file: usize,
    scope: Vec<String>,
    path: Vec<String>,
    glob: bool,
}

/// The module path of a file relative to `src/`: `lib.rs` and `main.rs`
/// are the root, `a/mod.rs` is `a`, `a/b.rs` is `a::b`.
fn module_of(rel: &str) -> Vec<String> {
    let stem = rel.strip_suffix(".rs").unwrap_or(rel);
    let mut parts: Vec<String> = stem.split('/').map(str::to_string).collect();
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
        return Vec::new();
    }
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

const ITEM_KEYWORDS: &[&str] = &[
    "fn", "struct", "enum", "const", "static", "type", "trait", "union", "mod",
];

/// Read every file: its modules (the file's own and those inside it) and the
/// paths it names.
fn read_modules(files: &[(String, String)]) -> (BTreeMap<Vec<String>, Module>, Vec<Reference>) {
    let mut modules: BTreeMap<Vec<String>, Module> = BTreeMap::new();
    let mut refs = Vec::new();
    for (fi, (rel, text)) in files.iter().enumerate() {
        let toks = lex(text);
        let base = module_of(rel);
        // (module path, brace depth at which its items stand)
        let mut scopes: Vec<(Vec<String>, usize)> = vec![(base.clone(), 0)];
        modules.entry(base).or_default().file = fi;
        let mut depth = 0usize;
        let mut i = 0;
        while i < toks.len() {
            let (scope, scope_depth) = scopes.last().cloned().unwrap_or_default();
            match &toks[i] {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth = depth.saturating_sub(1);
                    if scopes.len() > 1 && depth < scopes.last().map_or(0, |s| s.1) {
                        scopes.pop();
                    }
                }
                Tok::Ident(kw) if kw == "use" => {
                    let end = (i..toks.len())
                        .find(|&j| toks[j] == Tok::Punct(';'))
                        .unwrap_or(toks.len());
                    let mut trees = Vec::new();
                    use_tree(&toks[i + 1..end], &mut Vec::new(), &mut trees);
                    for (path, alias) in trees {
                        let glob = alias.is_none();
                        let m = modules.entry(scope.clone()).or_default();
                        if depth == scope_depth {
                            match &alias {
                                Some(name) => {
                                    m.imports.insert(name.clone(), path.clone());
                                }
                                None => m.globs.push(path.clone()),
                            }
                        }
                        refs.push(Reference {
                            file: fi,
                            scope: scope.clone(),
                            path,
                            glob,
                        });
                    }
                    i = end;
                }
                Tok::Ident(kw) if ITEM_KEYWORDS.contains(&kw.as_str()) || kw == "macro_rules" => {
                    let name_at = if kw == "macro_rules" { i + 2 } else { i + 1 };
                    if let Some(Tok::Ident(name)) = toks.get(name_at) {
                        if depth == scope_depth {
                            modules
                                .entry(scope.clone())
                                .or_default()
                                .items
                                .insert(name.clone());
                        }
                        if kw == "mod" && toks.get(name_at + 1) == Some(&Tok::Punct('{')) {
                            let mut inner = scope.clone();
                            inner.push(name.clone());
                            modules.entry(inner.clone()).or_default().file = fi;
                            depth += 1;
                            scopes.push((inner, depth));
                            i = name_at + 2;
                            continue;
                        }
                    }
                }
                Tok::Ident(first) if toks.get(i + 1) == Some(&Tok::Path) => {
                    // A path in code: `a::b::c`, unless it continues one.
                    let continues = i > 0 && toks[i - 1] == Tok::Path;
                    let mut path = vec![first.clone()];
                    let mut j = i + 1;
                    while toks.get(j) == Some(&Tok::Path) {
                        match toks.get(j + 1) {
                            Some(Tok::Ident(s)) => path.push(s.clone()),
                            _ => break,
                        }
                        j += 2;
                    }
                    if !continues {
                        refs.push(Reference {
                            file: fi,
                            scope: scope.clone(),
                            path,
                            glob: false,
                        });
                    }
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
    (modules, refs)
}

/// The paths of a `use` tree (`a::{b, c::{self, d as e}, f::*}`), each with
/// the name it binds (`None` for a glob).
fn use_tree(toks: &[Tok], prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, Option<String>)>) {
    let mut i = 0;
    let start = prefix.len();
    // Leading `::` (`use ::std::...`) names an external crate.
    if toks.first() == Some(&Tok::Path) {
        return;
    }
    while i < toks.len() {
        match &toks[i] {
            Tok::Ident(s) if s == "as" => {
                if let Some(Tok::Ident(alias)) = toks.get(i + 1)
                    && let Some(last) = out.last_mut()
                {
                    last.1 = Some(alias.clone());
                }
                i += 2;
            }
            Tok::Ident(s) if s == "self" && !prefix.is_empty() && i == 0 => {
                let name = prefix.last().cloned();
                out.push((prefix.clone(), name));
                i += 1;
            }
            Tok::Ident(s) => {
                prefix.push(s.clone());
                if toks.get(i + 1) != Some(&Tok::Path) {
                    out.push((prefix.clone(), Some(s.clone())));
                    prefix.truncate(start);
                }
                i += 1;
            }
            Tok::Path => i += 1,
            Tok::Punct('*') => {
                out.push((prefix.clone(), None));
                prefix.truncate(start);
                i += 1;
            }
            Tok::Punct('{') => {
                // The group's items, split at its top-level commas.
                let mut depth = 0;
                let mut j = i;
                let mut item_start = i + 1;
                while j < toks.len() {
                    match toks[j] {
                        Tok::Punct('{') => depth += 1,
                        Tok::Punct('}') => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        Tok::Punct(',') if depth == 1 => {
                            use_tree(&toks[item_start..j], prefix, out);
                            item_start = j + 1;
                        }
                        _ => {}
                    }
                    j += 1;
                }
                use_tree(&toks[item_start..j.min(toks.len())], prefix, out);
                prefix.truncate(start);
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    prefix.truncate(start);
}

/// `path` as named in module `scope`, from the crate root; `None` for a
/// path into another crate (or a local name that is not a module).
fn absolute(
    scope: &[String],
    path: &[String],
    modules: &BTreeMap<Vec<String>, Module>,
) -> Option<Vec<String>> {
    let first = path.first()?;
    let mut out: Vec<String>;
    let mut rest = &path[1..];
    match first.as_str() {
        "crate" => out = Vec::new(),
        "self" => out = scope.to_vec(),
        "super" => {
            out = scope.to_vec();
            out.pop();
            while rest.first().is_some_and(|s| s == "super") {
                out.pop();
                rest = &rest[1..];
            }
        }
        _ => {
            // A child module of the scope, or a name the scope imported.
            let mut child = scope.to_vec();
            child.push(first.clone());
            if modules.contains_key(&child) {
                out = child;
            } else if let Some(target) = modules.get(scope).and_then(|m| m.imports.get(first)) {
                if target.first() == Some(first) && target.len() == 1 {
                    return None;
                }
                let mut full = absolute(scope, target, modules)?;
                full.extend(rest.iter().cloned());
                return Some(full);
            } else {
                return None;
            }
        }
    }
    out.extend(rest.iter().cloned());
    Some(out)
}

/// The file that defines what the absolute `path` names, following
/// re-exports (`use`, `pub use`, globs). `depth` bounds the search.
fn defining_file(
    path: &[String],
    modules: &BTreeMap<Vec<String>, Module>,
    depth: usize,
) -> Option<usize> {
    // The longest prefix of the path that is a module.
    let n = (0..=path.len())
        .rev()
        .find(|&n| modules.contains_key(&path[..n]))?;
    let module = &modules[&path[..n]];
    let Some(name) = path.get(n) else {
        return Some(module.file);
    };
    if module.items.contains(name) || depth == 0 {
        return Some(module.file);
    }
    let scope = &path[..n];
    if let Some(target) = module.imports.get(name) {
        // A re-export: the name is defined where it points (another
        // crate's name, such as `std`'s: here).
        return match absolute(scope, target, modules) {
            Some(t) => {
                let mut full = t;
                full.extend(path[n + 1..].iter().cloned());
                defining_file(&full, modules, depth - 1)
            }
            None => Some(module.file),
        };
    }
    for glob in &module.globs {
        if let Some(g) = absolute(scope, glob, modules)
            && let Some(m) = modules.get(&g)
            && (m.items.contains(name) || m.imports.contains_key(name))
        {
            let mut full = g;
            full.extend(path[n..].iter().cloned());
            return defining_file(&full, modules, depth - 1);
        }
    }
    Some(module.file)
}

/// Every loop of files of one crate (a strongly connected component of the
/// graph of uses, of more than one file).
fn loops(files: &[(String, String)]) -> Vec<Loop> {
    let (modules, refs) = read_modules(files);
    // from -> to -> the paths named
    let mut edges: BTreeMap<usize, BTreeMap<usize, BTreeSet<String>>> = BTreeMap::new();
    for r in &refs {
        let Some(abs) = absolute(&r.scope, &r.path, &modules) else {
            continue;
        };
        let Some(to) = defining_file(&abs, &modules, 16) else {
            continue;
        };
        if to != r.file {
            edges
                .entry(r.file)
                .or_default()
                .entry(to)
                .or_default()
                .insert(r.path.join("::") + if r.glob { "::*" } else { "" });
        }
    }
    let graph: Vec<Vec<usize>> = (0..files.len())
        .map(|f| {
            edges
                .get(&f)
                .map(|e| e.keys().copied().collect())
                .unwrap_or_default()
        })
        .collect();
    strongly_connected(&graph)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let set: BTreeSet<usize> = c.iter().copied().collect();
            let mut ties = Vec::new();
            for &from in &set {
                for (&to, names) in edges.get(&from).into_iter().flatten() {
                    if set.contains(&to) {
                        ties.push((
                            files[from].0.clone(),
                            files[to].0.clone(),
                            names.iter().cloned().collect(),
                        ));
                    }
                }
            }
            Loop {
                files: set.iter().map(|&f| files[f].0.clone()).collect(),
                ties,
            }
        })
        .collect()
}

/// Tarjan's strongly connected components.
fn strongly_connected(graph: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'g> {
        graph: &'g [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &s.graph[v] {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            component.sort_unstable();
            s.out.push(component);
        }
    }
    let n = graph.len();
    let mut s = State {
        graph,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

// ---------------------------------------------------------------------------
// The detector itself, on small made-up crates.

fn krate(files: &[(&str, &str)]) -> Vec<(String, String)> {
    files
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect()
}

fn loop_files(files: &[(&str, &str)]) -> Vec<Vec<String>> {
    loops(&krate(files)).into_iter().map(|l| l.files).collect()
}

#[test]
fn a_loop_is_found_and_named() {
    let files = [
        ("lib.rs", "mod a;\nmod b;\nmod c;\npub use a::A;\n"),
        ("a.rs", "use crate::b::B;\npub struct A(B);\n"),
        ("b.rs", "pub struct B;\nfn f() -> crate::c::C { todo!() }\n"),
        ("c.rs", "pub struct C(super::A);\n"),
    ];
    let found = loops(&krate(&files));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].files, ["a.rs", "b.rs", "c.rs"]);
    let text = describe(&found[0]);
    // `super::A` names the root's re-export: the loop is through a.rs.
    assert!(text.contains("c.rs -> a.rs: super::A"), "{text}");
    assert!(text.contains("a.rs -> b.rs: crate::b::B"), "{text}");
}

#[test]
fn layers_without_a_loop_pass() {
    // A facade `mod.rs` that hands its children's names on, used from a
    // child: no loop (the name is defined in the sibling).
    let files = [
        ("lib.rs", "mod feature;\nmod low;\npub use feature::High;\n"),
        ("low.rs", "pub(crate) struct Low;\n"),
        (
            "feature/mod.rs",
            "mod high;\nmod part;\npub use high::*;\npub(crate) use part::{Part as P};\n",
        ),
        (
            "feature/part.rs",
            "pub(crate) struct Part(crate::low::Low);\n",
        ),
        (
            "feature/high.rs",
            "use crate::feature::P;\npub struct High(P, crate::low::Low);\n",
        ),
    ];
    assert!(loop_files(&files).is_empty());
}

#[test]
fn uses_inside_modules_of_a_file_and_text_are_read_right() {
    let files = [
        ("lib.rs", "mod a;\nmod b;\n"),
        // `super` inside `mod tests` is `a` itself; comments, strings and
        // characters name nothing.
        (
            "a.rs",
            "pub fn f() {}\n// crate::b::g\n/* crate::b::g */\nconst S: &str = \"crate::b::g\";\n\
             const C: char = '\"'; fn x<'a>(_: &'a str) {}\n\
             #[cfg(test)] mod tests { use super::*; }\n",
        ),
        ("b.rs", "pub fn g() { crate::a::f() }\n"),
    ];
    assert!(loop_files(&files).is_empty());
    // The same with a real use in a.rs: a loop.
    let files = [
        ("lib.rs", "mod a;\nmod b;\n"),
        (
            "a.rs",
            "pub fn f() {}\nmod inner { pub fn h() { crate::b::g() } }\n",
        ),
        ("b.rs", "pub fn g() { crate::a::f() }\n"),
    ];
    assert_eq!(loop_files(&files), [["a.rs", "b.rs"]]);
}
