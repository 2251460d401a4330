//! The native fast path: expressions of a jq subset answered directly from
//! the borrowed `serde_json::Value`, without converting the input into
//! jaq's values or running the interpreter.
//!
//! The subset is what definitions mostly are, each part giving one output:
//! plain paths of object keys (`.a.b`, `."a-b"`, `.["a"]`,
//! `.metadata.labels["example.com/role"]`, each step optionally with `?`),
//! `.`, literals (numbers, strings, `true`, `false`, `null`, `[]`, `{}`),
//! alternatives (`//`), comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`),
//! arithmetic (`+`, `-`, `*`, `/`, `%`), `and`, `or`, `| not`, pipes and
//! `if ... then ... elif ... else ... end`. That covers most pod selector
//! keys, instance ids, replica keys, template paths, defaults and status
//! matchers of the catalog (the share is measured by
//! `most_catalog_expressions_take_the_fast_path`).
//!
//! The fast path answers only what it can answer exactly as jaq would: a
//! path whose every step meets an object or `null` gives the value found
//! (or `null`); anything else (indexing a string, an array, a number: an
//! error or, with `?`, no output; arithmetic on the wrong types) leaves the
//! whole expression to jaq ([`Fast::run`] returns `None`), so errors keep
//! jaq's wording. Comparisons, arithmetic and truthiness are jaq's own (the
//! engine's metered `W` operations on the operands converted as jaq
//! converts them), and outputs are built as the jaq path builds them
//! (numbers through the same conversions). Everything is charged to the
//! same call's meters: a step per node of the expression and per path key,
//! operands converted and outputs copied as any conversion or copy,
//! outputs' sizes to `maxOutputBytes` by the rules of
//! [`super::to_json_values`].

use super::EvalError;
use super::format;
use super::value::{BudgetGuard, Caps, W};
use crate::Limits;
use crate::budget::Meter;
use jaq_core::ValT;
use jaq_core::load::lex::StrPart;
use jaq_core::load::parse::{BinaryOp, Term};
use jaq_core::ops::{Cmp, Math};
use jaq_core::path::Part;
use jaq_json::Val;
use serde_json::Value;

/// An expression the fast path evaluates.
#[derive(Debug, Clone)]
pub(crate) struct Fast {
    node: Node,
    /// One output whatever the input ([`Node::single`]).
    single: bool,
}

/// A term of the subset; each gives exactly one output (or defers to jaq).
#[derive(Debug, Clone)]
enum Node {
    /// The object keys of a plain path from `.`.
    Path(Vec<String>),
    /// A path from `.` that iterates (`.spec.replicatedJobs[].name`): many
    /// outputs.
    Iter(Vec<Step>),
    /// A number, string, boolean or `null` literal.
    Lit(Lit),
    /// `l // r`
    Alt(Box<Node>, Box<Node>),
    /// `l <op> r`
    Cmp(Box<Node>, Cmp, Box<Node>),
    /// `l and r` (`stop` false) and `l or r` (`stop` true).
    Logic(Box<Node>, bool, Box<Node>),
    /// `x | not`
    Not(Box<Node>),
    /// `.`
    Id,
    /// `l | r`
    Pipe(Box<Node>, Box<Node>),
    /// `if c then t elif c2 then t2 ... else e end` (no `else`: `.`).
    If(Vec<(Node, Node)>, Option<Box<Node>>),
    /// `l + r`, `l - r`, `l * r`, `l / r`, `l % r`
    Math(Box<Node>, Math, Box<Node>),
}

impl Node {
    /// Nodes of the term: the steps one evaluation costs at most.
    fn size(&self) -> u64 {
        match self {
            Node::Path(keys) => 1 + keys.len() as u64,
            Node::Iter(steps) => 1 + steps.len() as u64,
            Node::Lit(_) | Node::Id => 1,
            Node::Alt(l, r)
            | Node::Cmp(l, _, r)
            | Node::Logic(l, _, r)
            | Node::Pipe(l, r)
            | Node::Math(l, _, r) => 1 + l.size() + r.size(),
            Node::Not(x) => 1 + x.size(),
            Node::If(branches, otherwise) => {
                1 + branches
                    .iter()
                    .map(|(c, t)| c.size() + t.size())
                    .sum::<u64>()
                    + otherwise.as_ref().map_or(0, |e| e.size())
            }
        }
    }
}

/// A step of an iterating path.
#[derive(Debug, Clone)]
enum Step {
    /// `.key`
    Key(String),
    /// `[]`: every element of an array, every value of an object (in
    /// jaq's order: keys sorted).
    Each,
}

/// A literal, kept as text where jaq's value of it is not `Send` (`Rc`),
/// and made as jaq makes it when evaluated.
#[derive(Debug, Clone)]
enum Lit {
    Null,
    Bool(bool),
    /// A number's text, and whether it is negated.
    Num(String, bool),
    Str(String),
    /// `[]`
    EmptyArr,
    /// `{}`
    EmptyObj,
}

impl Lit {
    /// The literal, checked when the expression is classified.
    fn new_num(text: &str, negated: bool) -> Option<Lit> {
        let lit = Lit::Num(text.to_string(), negated);
        lit.val()?;
        Some(lit)
    }

    fn val(&self) -> Option<Val> {
        Some(match self {
            Lit::Null => Val::Null,
            Lit::Bool(b) => Val::Bool(*b),
            Lit::Num(text, false) => Val::from_num(text).ok()?,
            Lit::Num(text, true) => (-Val::from_num(text).ok()?).ok()?,
            Lit::Str(s) => Val::utf8_str(s.clone()),
            Lit::EmptyArr => Val::Arr(Default::default()),
            Lit::EmptyObj => Val::obj(Default::default()),
        })
    }
}

impl Node {
    /// True when the term gives one output on any input it answers.
    fn single(&self) -> bool {
        match self {
            Node::Iter(_) => false,
            Node::Path(_) | Node::Lit(_) | Node::Id => true,
            Node::Alt(l, r)
            | Node::Cmp(l, _, r)
            | Node::Logic(l, _, r)
            | Node::Pipe(l, r)
            | Node::Math(l, _, r) => l.single() && r.single(),
            Node::Not(x) => x.single(),
            Node::If(branches, otherwise) => {
                branches.iter().all(|(c, t)| c.single() && t.single())
                    && otherwise.as_ref().is_none_or(|e| e.single())
            }
        }
    }
}

/// An intermediate output (and the input of what follows a pipe): a value
/// of the input, or one the expression made.
#[derive(Clone)]
enum Out<'a> {
    Json(&'a Value),
    Made(Val),
}

impl Out<'_> {
    /// jq's truthiness: everything but `null` and `false` is true.
    fn truthy(&self) -> bool {
        match self {
            Out::Json(v) => !matches!(v, Value::Null | Value::Bool(false)),
            Out::Made(v) => !matches!(v, Val::Null | Val::Bool(false)),
        }
    }
}

/// Why an evaluation stopped: jaq must answer, or a meter ran out.
enum Stop {
    Jaq,
    Limit(EvalError),
}

impl Fast {
    /// The fast form of `code`, if it is in the subset. `code` has passed
    /// [`super::check_expression`] (which classifies it too, from the tree
    /// it parsed: [`super::check::check_and_classify`]).
    #[cfg(test)]
    pub(crate) fn classify(code: &str) -> Option<Fast> {
        let tokens = super::check::lex(code).ok()?;
        let term = super::check::parse_term(code, &tokens).ok()?;
        Self::from_term(code, &term)
    }

    /// The fast form of `code` from its syntax tree, if it is in the subset.
    pub(crate) fn from_term(code: &str, term: &Term<&str>) -> Option<Fast> {
        // Cheap refusals first: most expressions that are not in the subset
        // are seen to be so from their text.
        if !may_be_in_subset(code) {
            return None;
        }
        let node = node(term)?;
        Some(Fast {
            single: node.single(),
            node,
        })
    }

    /// The keys of the path, when the expression is a plain path.
    #[cfg(test)]
    pub(crate) fn keys(&self) -> Option<&[String]> {
        match &self.node {
            Node::Path(keys) => Some(keys),
            _ => None,
        }
    }

    /// Run on `input`: `Some` with the outputs (or a limit error) when the
    /// fast path can answer exactly, `None` when jaq must.
    pub(crate) fn run(
        &self,
        input: &Value,
        limits: &Limits,
    ) -> Option<Result<Vec<Value>, EvalError>> {
        let limits = &limits.effective();
        let guard = BudgetGuard::enter(limits, caps(limits));
        if let Err(m) = Meter::Steps.take(self.node.size()) {
            return Some(Err(limit(m)));
        }
        let outs = if self.single {
            eval(&self.node, &Out::Json(input), &guard).map(|o| vec![o])
        } else {
            let mut outs = Vec::new();
            eval_all(&self.node, &Out::Json(input), &guard, &mut outs).map(|()| outs)
        };
        let outs = match outs {
            Ok(outs) => outs,
            Err(Stop::Jaq) => return None,
            Err(Stop::Limit(e)) => return Some(Err(e)),
        };
        if outs.len() > limits.max_outputs {
            return Some(Err(EvalError::Limit {
                limit: "maxOutputs",
                message: format!(
                    "the expression produced more than {} outputs",
                    limits.max_outputs
                ),
            }));
        }
        let mut values = Vec::with_capacity(outs.len());
        for out in outs {
            let v = match out {
                Out::Json(v) => output(v, limits),
                Out::Made(v) => {
                    super::to_json_values(&[W { v, d: 0 }], limits).map(|mut v| v.remove(0))
                }
            };
            match v {
                Ok(v) => values.push(v),
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok(values))
    }
}

/// Evaluate a term that may give many outputs on `input`, in jaq's order,
/// appending them to `out`.
fn eval_all<'a>(
    node: &Node,
    input: &Out<'a>,
    guard: &BudgetGuard,
    out: &mut Vec<Out<'a>>,
) -> Result<(), Stop> {
    if node.single() {
        out.push(eval(node, input, guard)?);
        return Ok(());
    }
    let all = |n: &Node, i: &Out<'a>| -> Result<Vec<Out<'a>>, Stop> {
        let mut v = Vec::new();
        eval_all(n, i, guard, &mut v)?;
        Ok(v)
    };
    match node {
        Node::Iter(steps) => {
            let v = match input {
                Out::Json(v) => *v,
                Out::Made(Val::Null) => &Value::Null,
                Out::Made(_) => return Err(Stop::Jaq),
            };
            walk(v, steps, out)?;
        }
        Node::Pipe(l, r) => {
            for x in all(l, input)? {
                eval_all(r, &x, guard, out)?;
            }
        }
        Node::Alt(l, r) => {
            let before = out.len();
            out.extend(all(l, input)?.into_iter().filter(Out::truthy));
            if out.len() == before {
                eval_all(r, input, guard, out)?;
            }
        }
        Node::Logic(l, stop, r) => {
            for x in all(l, input)? {
                if x.truthy() == *stop {
                    out.push(Out::Made(Val::Bool(*stop)));
                } else {
                    for y in all(r, input)? {
                        out.push(Out::Made(Val::Bool(y.truthy())));
                    }
                }
            }
        }
        Node::Not(x) => {
            for x in all(x, input)? {
                out.push(Out::Made(Val::Bool(!x.truthy())));
            }
        }
        Node::If(branches, otherwise) => {
            eval_if(branches, otherwise.as_deref(), input, guard, out)?;
        }
        // jaq's cartesian product: for each output of the left side, every
        // output of the right side.
        Node::Cmp(l, op, r) => {
            for x in all(l, input)? {
                for y in all(r, input)? {
                    let b = op.run(&operand(x.clone())?, &operand(y)?);
                    breached(guard)?;
                    out.push(Out::Made(Val::Bool(b)));
                }
            }
        }
        Node::Math(l, op, r) => {
            for x in all(l, input)? {
                for y in all(r, input)? {
                    let v = op.run(operand(x.clone())?, operand(y)?);
                    breached(guard)?;
                    out.push(Out::Made(v.map_err(|_| Stop::Jaq)?.v));
                }
            }
        }
        Node::Path(_) | Node::Lit(_) | Node::Id => out.push(eval(node, input, guard)?),
    }
    Ok(())
}

/// `if` with many outputs: each output of the first condition chooses its
/// branch; the rest of the chain is the `else` of the first.
fn eval_if<'a>(
    branches: &[(Node, Node)],
    otherwise: Option<&Node>,
    input: &Out<'a>,
    guard: &BudgetGuard,
    out: &mut Vec<Out<'a>>,
) -> Result<(), Stop> {
    let Some(((c, t), rest)) = branches.split_first() else {
        match otherwise {
            Some(e) => eval_all(e, input, guard, out)?,
            None => out.push(input.clone()),
        }
        return Ok(());
    };
    let mut conds = Vec::new();
    eval_all(c, input, guard, &mut conds)?;
    for cond in conds {
        if cond.truthy() {
            eval_all(t, input, guard, out)?;
        } else {
            eval_if(rest, otherwise, input, guard, out)?;
        }
    }
    Ok(())
}

/// The values at an iterating path: a step per element iterated.
fn walk<'a>(v: &'a Value, steps: &[Step], out: &mut Vec<Out<'a>>) -> Result<(), Stop> {
    let Some((step, rest)) = steps.split_first() else {
        out.push(Out::Json(v));
        return Ok(());
    };
    match step {
        Step::Key(k) => match v {
            Value::Object(m) => walk(m.get(k).unwrap_or(&Value::Null), rest, out),
            Value::Null => walk(&Value::Null, rest, out),
            _ => Err(Stop::Jaq),
        },
        Step::Each => {
            let n = match v {
                Value::Array(a) => a.len(),
                Value::Object(o) => o.len(),
                // Iterating anything else is jaq's error (or, with `?`,
                // no output).
                _ => return Err(Stop::Jaq),
            };
            Meter::Steps
                .take(n as u64)
                .map_err(|m| Stop::Limit(limit(m)))?;
            match v {
                Value::Array(a) => a.iter().try_for_each(|x| walk(x, rest, out)),
                Value::Object(o) => o.values().try_for_each(|x| walk(x, rest, out)),
                _ => Err(Stop::Jaq),
            }
        }
    }
}

/// Evaluate a term on `input`.
fn eval<'a>(node: &Node, input: &Out<'a>, guard: &BudgetGuard) -> Result<Out<'a>, Stop> {
    Ok(match node {
        Node::Id => input.clone(),
        Node::Iter(_) => return Err(Stop::Jaq),
        Node::Path(keys) => {
            let mut v = match input {
                Out::Json(v) => *v,
                Out::Made(Val::Null) => &Value::Null,
                Out::Made(_) => return Err(Stop::Jaq),
            };
            for k in keys {
                v = match v {
                    Value::Object(m) => m.get(k).unwrap_or(&Value::Null),
                    Value::Null => &Value::Null,
                    _ => return Err(Stop::Jaq),
                };
            }
            Out::Json(v)
        }
        Node::Lit(lit) => Out::Made(lit.val().ok_or(Stop::Jaq)?),
        Node::Alt(l, r) => {
            let l = eval(l, input, guard)?;
            if l.truthy() {
                l
            } else {
                eval(r, input, guard)?
            }
        }
        Node::Logic(l, stop, r) => {
            if eval(l, input, guard)?.truthy() == *stop {
                Out::Made(Val::Bool(*stop))
            } else {
                Out::Made(Val::Bool(eval(r, input, guard)?.truthy()))
            }
        }
        Node::Not(x) => Out::Made(Val::Bool(!eval(x, input, guard)?.truthy())),
        Node::Pipe(l, r) => {
            let l = eval(l, input, guard)?;
            eval(r, &l, guard)?
        }
        Node::If(branches, otherwise) => {
            for (c, t) in branches {
                if eval(c, input, guard)?.truthy() {
                    return eval(t, input, guard);
                }
            }
            match otherwise {
                Some(e) => eval(e, input, guard)?,
                None => input.clone(),
            }
        }
        Node::Cmp(l, op, r) => {
            // jaq runs the right side first (its cartesian product), which
            // only matters for errors: those are jaq's to give anyway.
            let r = eval(r, input, guard)?;
            let l = eval(l, input, guard)?;
            let (l, r) = (operand(l)?, operand(r)?);
            let b = op.run(&l, &r);
            breached(guard)?;
            Out::Made(Val::Bool(b))
        }
        Node::Math(l, op, r) => {
            let r = eval(r, input, guard)?;
            let l = eval(l, input, guard)?;
            let (l, r) = (operand(l)?, operand(r)?);
            let v = op.run(l, r);
            breached(guard)?;
            // A type error (adding a string to a number) is jaq's to give.
            Out::Made(v.map_err(|_| Stop::Jaq)?.v)
        }
    })
}

/// The limit error of a breach recorded during a value operation.
fn breached(guard: &BudgetGuard) -> Result<(), Stop> {
    match guard.breach() {
        Some((limit, message)) => Err(Stop::Limit(EvalError::Limit { limit, message })),
        None => Ok(()),
    }
}

/// An operand of a comparison as jaq's value: a value of the input is
/// converted as the input would be (charged as a conversion).
fn operand(o: Out<'_>) -> Result<W, Stop> {
    match o {
        Out::Made(v) => Ok(W { v, d: 0 }),
        Out::Json(v) => {
            if v.is_array() || v.is_object() {
                crate::budget::copy_of(v).map_err(|e| Stop::Limit(from_error(e)))?;
            }
            let (v, d) = format::from_value(v);
            Ok(W { v, d })
        }
    }
}

/// The caps of an evaluation under `limits`, as [`super::Program::run_w`]
/// sets them.
fn caps(limits: &Limits) -> Caps {
    Caps {
        max_string: limits.max_string_bytes,
        max_collection: limits.max_collection_len,
        max_depth: u32::try_from(limits.max_depth).unwrap_or(u32::MAX),
        max_output_bytes: limits.max_output_bytes,
    }
}

/// False when `code` is plainly outside the subset (a variable, a comma,
/// an object or a format, `[` that does not open a quoted key, a function
/// call): a refusal without lexing. Text in
/// string literals may make it refuse what is in the subset; that only
/// leaves the expression to jaq.
fn may_be_in_subset(code: &str) -> bool {
    let b = code.as_bytes();
    if code.contains(['$', ',', '@', ';']) || code.contains("\\(") {
        return false;
    }
    b.iter().enumerate().all(|(i, c)| match c {
        b'[' => matches!(b.get(i + 1), Some(b'"' | b']')),
        b'{' => b.get(i + 1) == Some(&b'}'),
        b'(' => !(i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')),
        _ => true,
    })
}

/// The subset's form of a term, `None` for anything outside it.
fn node(term: &Term<&str>) -> Option<Node> {
    Some(match term {
        Term::Path(..) => {
            let mut steps = Vec::new();
            path_steps(term, &mut steps)?;
            if steps.iter().all(|s| matches!(s, Step::Key(_))) {
                Node::Path(
                    steps
                        .into_iter()
                        .filter_map(|s| match s {
                            Step::Key(k) => Some(k),
                            Step::Each => None,
                        })
                        .collect(),
                )
            } else {
                Node::Iter(steps)
            }
        }
        Term::Num(n) => Node::Lit(Lit::new_num(n, false)?),
        Term::Neg(x) => match &**x {
            Term::Num(n) => Node::Lit(Lit::new_num(n, true)?),
            _ => return None,
        },
        Term::Str(None, _) => Node::Lit(Lit::Str(literal(term)?)),
        Term::Call("null", args) if args.is_empty() => Node::Lit(Lit::Null),
        Term::Call("true", args) if args.is_empty() => Node::Lit(Lit::Bool(true)),
        Term::Call("false", args) if args.is_empty() => Node::Lit(Lit::Bool(false)),
        Term::Arr(None) => Node::Lit(Lit::EmptyArr),
        Term::Obj(entries) if entries.is_empty() => Node::Lit(Lit::EmptyObj),
        Term::Id => Node::Id,
        Term::IfThenElse(branches, otherwise) => Node::If(
            branches
                .iter()
                .map(|(c, t)| Some((node(c)?, node(t)?)))
                .collect::<Option<_>>()?,
            match otherwise {
                Some(e) => Some(Box::new(node(e)?)),
                None => None,
            },
        ),
        Term::BinOp(l, op, r) => {
            let (l, r) = (Box::new(node(l)?), r);
            match op {
                BinaryOp::Alt => Node::Alt(l, Box::new(node(r)?)),
                BinaryOp::And => Node::Logic(l, false, Box::new(node(r)?)),
                BinaryOp::Or => Node::Logic(l, true, Box::new(node(r)?)),
                BinaryOp::Cmp(op) => Node::Cmp(l, *op, Box::new(node(r)?)),
                BinaryOp::Math(op) => Node::Math(l, *op, Box::new(node(r)?)),
                BinaryOp::Pipe(None) => match &**r {
                    Term::Call("not", args) if args.is_empty() => Node::Not(l),
                    r => Node::Pipe(l, Box::new(node(r)?)),
                },
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// The text of a string literal without interpolation.
fn literal(term: &Term<&str>) -> Option<String> {
    let Term::Str(None, parts) = term else {
        return None;
    };
    let mut s = String::new();
    for p in parts {
        match p {
            StrPart::Str(t) => s.push_str(t),
            StrPart::Char(c) => s.push(*c),
            StrPart::Term(_) => return None,
        }
    }
    Some(s)
}

/// The steps of a path of object keys and iterations from `.`, appended to
/// `steps`; `None` for any other term.
fn path_steps(term: &Term<&str>, steps: &mut Vec<Step>) -> Option<()> {
    let Term::Path(base, path) = term else {
        return None;
    };
    match &**base {
        Term::Id => {}
        inner @ Term::Path(..) => path_steps(inner, steps)?,
        _ => return None,
    }
    for (part, _optional) in &path.0 {
        // `?` only changes what an error does; errors are jaq's to give.
        steps.push(match part {
            Part::Index(key @ Term::Str(None, _)) => Step::Key(literal(key)?),
            Part::Range(None, None) => Step::Each,
            _ => return None,
        });
    }
    Some(())
}

/// A limit error of the engine's as the evaluation's.
fn from_error(e: crate::Error) -> EvalError {
    match e.0.limit.as_deref() {
        Some("maxMemoryBytes") => limit(Meter::Memory),
        _ => limit(Meter::Steps),
    }
}

fn limit(m: Meter) -> EvalError {
    EvalError::Limit {
        limit: m.limit(),
        message: m.message(),
    }
}

/// The output `v` as the jaq path would give it: its size drawn from the
/// call's `maxOutputBytes` (and the cap of one value), its copy charged,
/// then built with numbers converted as jaq's values convert them.
fn output(v: &Value, limits: &Limits) -> Result<Value, EvalError> {
    let left = Meter::Output.left();
    let cap = usize::try_from(left)
        .unwrap_or(usize::MAX)
        .min(limits.effective().max_output_bytes);
    let Some(size) = output_size(v, cap) else {
        Meter::Output.exhaust();
        return Err(EvalError::Limit {
            limit: "maxOutputBytes",
            message: Meter::Output.message(),
        });
    };
    Meter::Output.take(size as u64).map_err(limit)?;
    crate::budget::copy_of(v).map_err(from_error)?;
    Ok(normalized(v))
}

/// The bytes [`format::to_value`] spends on `v`, or `None` past `cap`
/// (counted without recursion, stopping at the cap).
fn output_size(v: &Value, cap: usize) -> Option<usize> {
    let mut size = 0usize;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        size += match v {
            Value::Null => 4,
            Value::Bool(_) => 5,
            Value::Number(_) => 8,
            Value::String(s) => s.len() + 2,
            Value::Array(a) => {
                stack.extend(a.iter());
                2 + a.len()
            }
            Value::Object(o) => {
                stack.extend(o.values());
                2 + o.keys().map(|k| k.len() + 4).sum::<usize>()
            }
        };
        if size > cap {
            return None;
        }
    }
    Some(size)
}

/// A copy of `v` with its numbers as jaq's round trip gives them (`1.0` is
/// `1`, as gojq prints it). Recursion is bounded by the input's depth,
/// which [`super::Input::new`] checked against `maxDepth`.
fn normalized(v: &Value) -> Value {
    match v {
        Value::Number(n) => format::num_to_value(&format::json_num(n)),
        Value::Array(a) => Value::Array(a.iter().map(normalized).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, x)| (k.clone(), normalized(x))).collect())
        }
        other => other.clone(),
    }
}
