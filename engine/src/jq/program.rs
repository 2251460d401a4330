//! A compiled program ([`Program`]) and what it runs on ([`Input`]): the
//! checked expression compiled by jaq with the standard definitions it can
//! reach, and its native form for the fast path where it has one.

use super::check::{self, ExprMode, JqIssue};
use super::eval::{EvalError, to_json_values};
use super::value::{BudgetGuard, Caps, D, W};
use super::{fast, format, natives};
use crate::Limits;
use jaq_core::load::parse::Def;
use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

/// A compiled jq program.
pub(crate) struct Program {
    filter: jaq_core::Filter<D>,
    code: String,
    /// The native form of the expression, when it is in the fast path's
    /// subset ([`fast`]).
    fast: Option<fast::Fast>,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program").field("code", &self.code).finish()
    }
}

/// An object to evaluate expressions on: the JSON value itself (which the
/// fast path reads directly) and, converted on first need and then kept,
/// jaq's form of it (sorted keys, depth known).
pub(crate) struct Input<'a> {
    json: &'a Value,
    /// Nodes and string bytes of `json`, for the charge of converting it.
    nodes: u64,
    bytes: usize,
    /// How deep `json` nests (at most `maxDepth`).
    depth: usize,
    val: std::cell::OnceCell<W>,
}

impl<'a> Input<'a> {
    /// An input for `v`; fails when it nests deeper than `limits.maxDepth`.
    /// Measuring it (one walk, without recursion) costs a step per
    /// [`crate::budget::NODES_PER_STEP`] nodes; converting it for jaq is
    /// charged when an expression first needs it ([`Input::val`]).
    pub(crate) fn new(v: &'a Value, limits: &Limits) -> Result<Input<'a>, EvalError> {
        let limits = &limits.effective();
        crate::budget::Meter::Steps
            .take(1)
            .map_err(|m| Self::spent(&m))?;
        let (depth, nodes, bytes) = crate::budget::json_shape(v, limits.max_depth);
        Self::measured(v, depth, nodes, bytes, limits)
    }

    /// An input for `v`, the part of a JSON text its expressions read (see
    /// [`super::reads`]), as the whole text's value would be: charged
    /// and checked by the whole value's `shape`, read with the text, and
    /// converted for jaq with the whole value's depth, so that every
    /// expression and budget ends as it would on the whole value.
    pub(crate) fn of_text(
        v: &'a Value,
        shape: crate::source::TextShape,
        limits: &Limits,
    ) -> Result<Input<'a>, EvalError> {
        let limits = &limits.effective();
        crate::budget::Meter::Steps
            .take(1)
            .map_err(|m| Self::spent(&m))?;
        Self::measured(v, shape.depth, shape.nodes, shape.bytes, limits)
    }

    fn spent(m: &crate::budget::Meter) -> EvalError {
        EvalError::Limit {
            limit: m.limit(),
            message: format!("{}, before reading an object for evaluation", m.message()),
        }
    }

    /// [`Input::new`] once `v` is measured.
    fn measured(
        v: &'a Value,
        depth: usize,
        nodes: u64,
        bytes: usize,
        limits: &Limits,
    ) -> Result<Input<'a>, EvalError> {
        let spent = |m: crate::budget::Meter| Self::spent(&m);
        if depth > limits.max_depth {
            return Err(EvalError::Limit {
                limit: "maxDepth",
                message: format!(
                    "the input nests deeper than the limit of {} levels",
                    limits.max_depth
                ),
            });
        }
        crate::budget::Meter::Steps
            .take(nodes / crate::budget::NODES_PER_STEP)
            .map_err(spent)?;
        Ok(Input {
            json: v,
            nodes,
            bytes,
            depth,
            val: std::cell::OnceCell::new(),
        })
    }

    /// The JSON value.
    pub(crate) fn json(&self) -> &'a Value {
        self.json
    }

    /// jaq's form of the value, converted on the first call. A node costs
    /// a step (each one allocates), a string a step per 64 bytes, charged
    /// before the conversion is done: a call whose budget is spent converts
    /// nothing more. A call that converts a big object again and again (an
    /// action per write, an operation per document) pays for each time.
    fn val(&self) -> Result<&W, EvalError> {
        if let Some(w) = self.val.get() {
            return Ok(w);
        }
        let nodes = self.nodes;
        crate::budget::Meter::Steps
            .take(
                nodes.saturating_mul(crate::budget::STEPS_PER_BUILT_NODE)
                    + crate::budget::byte_steps(self.bytes),
            )
            .map_err(|m| EvalError::Limit {
                limit: m.limit(),
                message: format!(
                    "{}, reading an object of {nodes} nodes for evaluation",
                    m.message()
                ),
            })?;
        let (val, d) = format::from_value(self.json);
        // The depth of the whole value where only its read part is held
        // (the same for a value held whole).
        let d = d.max(u32::try_from(self.depth).unwrap_or(u32::MAX));
        Ok(self.val.get_or_init(|| W { v: val, d }))
    }
}

/// The standard definitions, parsed once.
pub(super) fn prelude() -> &'static Vec<Def<&'static str>> {
    static PRELUDE: OnceLock<Vec<Def<&'static str>>> = OnceLock::new();
    PRELUDE.get_or_init(|| {
        let ours: Vec<Def<&'static str>> =
            jaq_core::load::parse(natives::DEFS, |p| p.defs()).unwrap_or_default();
        jaq_core::defs()
            .chain(jaq_std::defs())
            .chain(ours)
            .collect()
    })
}

/// Identifier-like words of a text (`name`, `@format`, `_private`).
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '@'))
        .filter(|w| !w.is_empty())
}

/// For each standard definition, the words its body mentions (read from
/// its debug form: an over-approximation of the definitions it calls).
struct PreludeIndex {
    /// For each standard definition, the words its body mentions (read from
    /// its debug form: an over-approximation of the definitions it calls).
    mentions: Vec<Vec<String>>,
    /// The standard definitions of each name.
    by_name: HashMap<&'static str, Vec<usize>>,
}

fn prelude_index() -> &'static PreludeIndex {
    static INDEX: OnceLock<PreludeIndex> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mentions = prelude()
            .iter()
            .map(|d| {
                let body = format!("{:?}", d.body);
                let mut w: Vec<String> = words(&body).map(str::to_string).collect();
                w.sort();
                w.dedup();
                w
            })
            .collect();
        let mut by_name: HashMap<&'static str, Vec<usize>> = HashMap::new();
        for (i, d) in prelude().iter().enumerate() {
            by_name.entry(d.name).or_default().push(i);
        }
        PreludeIndex { mentions, by_name }
    })
}

/// The standard definitions an expression can reach: those named by a word
/// of the expression, and transitively by their bodies, with every word
/// met on the way (the names of the natives it can reach). Compiling with
/// these instead of the whole library (~200 definitions, ~250 natives)
/// makes a definition's compile an order of magnitude faster.
/// Over-approximate by construction; should it ever miss one,
/// [`Program::compile`] falls back to the whole library. Each word is
/// looked up once.
pub(super) fn reachable_prelude(code: &str) -> (Vec<Def<&'static str>>, HashSet<&str>) {
    let defs = prelude();
    let index = prelude_index();
    let mut want: HashSet<&str> = HashSet::new();
    let mut queue: Vec<&str> = words(code).collect();
    let mut taken = vec![false; defs.len()];
    while let Some(word) = queue.pop() {
        if !want.insert(word) {
            continue;
        }
        for &i in index.by_name.get(word).into_iter().flatten() {
            if !taken[i] {
                taken[i] = true;
                queue.extend(index.mentions[i].iter().map(String::as_str));
            }
        }
    }
    let defs = defs
        .iter()
        .zip(taken)
        .filter(|(_, t)| *t)
        .map(|(d, _)| d.clone())
        .collect();
    (defs, want)
}

#[cfg(test)]
impl Program {
    /// A program of a built filter, without a fast form (for the tests that
    /// compare builds).
    pub(super) fn without_fast(code: &str, filter: jaq_core::Filter<D>) -> Program {
        Program {
            filter,
            code: code.to_string(),
            fast: None,
        }
    }
}

impl Program {
    /// Check and compile an expression. `globals` are variable names
    /// (with `$`) the program may use; values are passed to [`Program::run`].
    pub(crate) fn compile(
        code: &str,
        mode: ExprMode,
        globals: &[&str],
        limits: &Limits,
    ) -> Result<Program, JqIssue> {
        let limits = &limits.effective();
        let fast = check::check_then(code, mode, limits, |term| fast::Fast::from_term(code, term))?;
        let (defs, want) = reachable_prelude(code);
        let filter = match Self::build(code, globals, defs, natives::funs_named(&want)) {
            Ok(f) => f,
            Err(_) => Self::build(code, globals, prelude().clone(), natives::funs())?,
        };
        #[cfg(test)]
        COMPILED.with(|c| {
            let (n, f) = c.get();
            c.set((n + 1, f + u32::from(fast.is_some())))
        });
        #[cfg(test)]
        if fast.is_none() && std::env::var_os("PRINT_SLOW").is_some() {
            eprintln!("SLOW {code}");
        }
        Ok(Program {
            filter,
            code: code.to_string(),
            fast,
        })
    }

    /// Load and compile `code` with the given standard definitions.
    pub(super) fn build(
        code: &str,
        globals: &[&str],
        defs: Vec<Def<&'static str>>,
        funs: Vec<jaq_core::native::Fun<D>>,
    ) -> Result<jaq_core::Filter<D>, JqIssue> {
        let arena = Arena::default();
        let loader = Loader::new(defs);
        let modules = loader
            .load(&arena, File { code, path: () })
            .map_err(|errs| {
                let msg = errs
                    .into_iter()
                    .next()
                    .map(|(_, e)| format!("{e:?}"))
                    .unwrap_or_else(|| "cannot parse expression".into());
                JqIssue::syntax(msg, None)
            })?;
        let filter = Compiler::default()
            .with_funs(funs)
            .with_global_vars(globals.iter().copied())
            .compile(modules)
            .map_err(|errs| {
                let first = errs
                    .into_iter()
                    .next()
                    .and_then(|(_, e)| e.into_iter().next());
                match first {
                    Some((name, undef)) => {
                        let message = match undef {
                            jaq_core::compile::Undefined::Var => format!(
                                "variable {name} is not defined (no variables are given; bind one with '... as {name}')"
                            ),
                            jaq_core::compile::Undefined::Filter(0) => format!(
                                "function {name}/0 is not defined (to read a field, write .{name}; for the text, quote it: \"{name}\")"
                            ),
                            jaq_core::compile::Undefined::Filter(arity) => format!(
                                "function {name}/{arity} is not defined (jq's builtins and the expression's own defs can be called)"
                            ),
                            jaq_core::compile::Undefined::Label => format!(
                                "label {name} is not defined (break needs an enclosing 'label {name} | ...')"
                            ),
                            _ => format!("{name} is not defined"),
                        };
                        let start = (name.as_ptr() as usize).wrapping_sub(code.as_ptr() as usize);
                        let span = (start <= code.len()).then(|| [start, start + name.len()]);
                        JqIssue::undefined(message, span)
                    }
                    None => JqIssue::syntax("cannot compile expression".into(), None),
                }
            })?;
        Ok(filter)
    }

    /// Record in `reads` the parts of an input the expression reads
    /// ([`super::reads`]), from its fast form; `false` when that cannot
    /// be told (no fast form, one the analysis cannot follow, or one
    /// past `bounds`).
    pub(crate) fn reads(
        &self,
        reads: &mut super::reads::Reads,
        bounds: &mut super::reads::Bounds,
    ) -> bool {
        self.fast.as_ref().is_some_and(|f| f.reads(reads, bounds))
    }

    /// The source text.
    pub(crate) fn code(&self) -> &str {
        &self.code
    }

    /// Run on an input, returning every output (at most `maxOutputs`).
    pub(crate) fn run_w(
        &self,
        input: &Input,
        globals: Vec<W>,
        limits: &Limits,
    ) -> Result<Vec<W>, EvalError> {
        let limits = &limits.effective();
        let caps = Caps {
            max_string: limits.max_string_bytes,
            max_collection: limits.max_collection_len,
            max_depth: u32::try_from(limits.max_depth).unwrap_or(u32::MAX),
            max_output_bytes: limits.max_output_bytes,
        };
        let guard = BudgetGuard::enter(limits, caps);
        let val = input.val()?.clone();
        let ctx = Ctx::<D>::new(&self.filter.lut, Vars::new(globals));
        let mut outputs = Vec::new();
        let iter = self.filter.id.run((ctx, val));
        for r in iter {
            if let Some((limit, message)) = guard.breach() {
                return Err(EvalError::Limit { limit, message });
            }
            match r {
                Ok(v) => {
                    if outputs.len() >= limits.max_outputs {
                        return Err(EvalError::Limit {
                            limit: "maxOutputs",
                            message: format!(
                                "the expression produced more than {} outputs",
                                limits.max_outputs
                            ),
                        });
                    }
                    outputs.push(v);
                }
                Err(exn) => {
                    return Err(match exn.get_err() {
                        Ok(e) => EvalError::Runtime(error_text(&e)),
                        Err(_) => EvalError::Runtime("unexpected control flow".into()),
                    });
                }
            }
        }
        if let Some((limit, message)) = guard.breach() {
            return Err(EvalError::Limit { limit, message });
        }
        Ok(outputs)
    }

    /// Note, where hand-offs are being recorded, that the expression has
    /// a fast form which left this run to jaq.
    fn handed_to_jaq(&self) {
        if self.fast.is_some() && FAST_PATH.with(std::cell::Cell::get) {
            HANDOFFS.with(|h| {
                if let Some(list) = h.borrow_mut().as_mut() {
                    list.push(self.code().to_string());
                }
            });
        }
    }

    /// The fast form, when it is to be tried (it is on, and outputs are
    /// allowed at all).
    fn fast(&self, limits: &Limits) -> Option<&fast::Fast> {
        self.fast
            .as_ref()
            .filter(|_| FAST_PATH.with(std::cell::Cell::get) && limits.max_outputs > 0)
    }

    /// Run and convert every output to JSON.
    pub(crate) fn run(&self, input: &Input, limits: &Limits) -> Result<Vec<Value>, EvalError> {
        self.run_few(input, limits).map(super::eval::Outs::into_vec)
    }

    /// [`Program::run`], the outputs held as [`super::eval::Outs`] (one without
    /// an allocation of its own).
    pub(crate) fn run_few(
        &self,
        input: &Input,
        limits: &Limits,
    ) -> Result<super::eval::Outs<Value>, EvalError> {
        if let Some(r) = self
            .fast(limits)
            .and_then(|f| f.run_few(input.json(), input.depth, limits))
        {
            return r;
        }
        self.handed_to_jaq();
        let outs = self.run_w(input, Vec::new(), limits)?;
        to_json_values(&outs, limits).map(super::eval::Outs::from_vec)
    }

    /// [`Program::run`], with the outputs the fast path finds in the input
    /// unchanged borrowed from it (charged as their copies would be).
    pub(crate) fn run_borrowed<'a>(
        &'a self,
        input: &Input<'a>,
        limits: &Limits,
    ) -> Result<super::eval::Outs<std::borrow::Cow<'a, Value>>, EvalError> {
        if let Some(r) = self
            .fast(limits)
            .and_then(|f| f.run_borrowed(input.json(), input.depth, limits))
        {
            return r;
        }
        self.handed_to_jaq();
        let outs = self.run_w(input, Vec::new(), limits)?;
        Ok(to_json_values(&outs, limits)?
            .into_iter()
            .map(std::borrow::Cow::Owned)
            .collect())
    }
}

thread_local! {
    /// Whether [`Program::run`] takes the fast path where it can (tests
    /// turn it off to compare the two paths).
    static FAST_PATH: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

#[cfg(test)]
thread_local! {
    /// Programs compiled on this thread, and how many of them have a fast
    /// form (for the test that measures the catalog's share).
    pub(crate) static COMPILED: std::cell::Cell<(u32, u32)> = const { std::cell::Cell::new((0, 0)) };
}

thread_local! {
    /// The expressions with a fast form whose run the fast path left to
    /// jaq, while [`record_handoffs`] records them on this thread.
    static HANDOFFS: std::cell::RefCell<Option<Vec<String>>> = const { std::cell::RefCell::new(None) };
}

/// Run `f`, and list every run of an expression with a fast form that the
/// fast path left to jaq during it, on this thread (for the test that
/// keeps the catalog's fixtures off jaq).
pub(crate) fn record_handoffs<T>(f: impl FnOnce() -> T) -> (T, Vec<String>) {
    let before = HANDOFFS.with(|h| h.replace(Some(Vec::new())));
    let out = f();
    let list = HANDOFFS.with(|h| h.replace(before)).unwrap_or_default();
    (out, list)
}

/// Turn the fast path on or off on this thread (for the tests that compare
/// it with jaq); returns the previous setting.
pub(crate) fn set_fast_path(on: bool) -> bool {
    FAST_PATH.with(|c| c.replace(on))
}

/// Run `f` with the fast path on or off on this thread (for the tests that
/// compare the fast path with jaq).
#[cfg(test)]
pub(crate) fn with_fast_path<T>(on: bool, f: impl FnOnce() -> T) -> T {
    let before = set_fast_path(on);
    let out = f();
    set_fast_path(before);
    out
}

/// The text of a jq error: a string raised by `error("...")` is shown as is,
/// other values as compact JSON.
fn error_text(e: &jaq_core::Error<W>) -> String {
    let v = e.clone().into_val();
    match &v.v {
        jaq_json::Val::TStr(b) | jaq_json::Val::BStr(b) => String::from_utf8_lossy(b).into_owned(),
        other => format::to_json_limited(other, 4096).unwrap_or_else(|_| "error".into()),
    }
}
