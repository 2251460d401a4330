//! The native fast path: expressions of a jq subset answered directly from
//! the borrowed `serde_json::Value`, without converting the input into
//! jaq's values or running the interpreter.
//!
//! The subset is what definitions mostly are:
//! - paths from `.`, from a variable or from any term of the subset, of
//!   object keys (`.a.b`, `."a-b"`, `.["a"]`, `$c.dataNode`), array
//!   indices (`.[0]`, `.[-1]`) and iterations (`.[]`), each step
//!   optionally with `?`;
//! - `.`, literals (numbers, strings, `true`, `false`, `null`, `[]`,
//!   `{}`), `[f]`, `f, g`, `empty`;
//! - alternatives (`//`), comparisons, arithmetic, `and`, `or`, `not`,
//!   pipes, `if ... then ... elif ... else ... end`;
//! - variables: `f as $x | g` and `$x`;
//! - object construction (`{a: f, (k): v, $x, b}`, as jaq's sum of
//!   one-entry objects); an object the expression makes (so also a sum of
//!   objects, `map_values(f)` and `from_entries`) is a list of members by
//!   key that holds the input's values it takes borrowed, built as jaq's
//!   value only where an operation needs one, and written to JSON
//!   directly (keys in jq's order, as jaq writes it);
//! - `select(f)`, `map(f)`, `any`, `all`, `any(f)`, `all(f)`,
//!   `any(xs[]; f)`, `all(xs[]; f)`, `first`, `last`, `length`, `add`,
//!   `max`, `min`, `type`, `ascii_downcase`, `ascii_upcase`, `floor`,
//!   `ceil`, `tonumber`, `tostring`, `ltrimstr`, `rtrimstr`, `startswith`,
//!   `endswith`, `split/1`, `to_entries`, `from_entries`, `with_entries(f)`,
//!   `map_values(f)`;
//! - regular expressions: `test`, `capture`, and `sub`/`gsub` whose
//!   replacement is a string literal (jaq-std's definitions over the same
//!   metered native);
//! - an object of literal keys and scalar values (`{"k": (1 / 1024)}`) is
//!   built once, when the expression is compiled ([`fold`]);
//! - `sort`, `unique`, `group_by(f)` (jaq-std's natives), `fromjson`,
//!   negation;
//! - `f?` of a term with one output whose error can only be `fromjson`'s
//!   or `tonumber`'s (the engine's natives, which jaq runs too), and
//!   `f? // g`: the error is caught where it is raised ([`Kind::Try`],
//!   [`Stop::Error`]; Argo's `withParam: '{{...}}'` read with `fromjson?`);
//!   any other `f?` and `try f catch g` are read as `f`: where `f` raises
//!   an error the fast path cannot answer, so jaq runs the expression and
//!   catches as it does;
//! - definitions with `$` parameters (`def c($t): ...; c("Ready")`),
//!   inlined where they are called ([`inline`]).
//!
//! That covers most pod selector keys, instance ids, replica keys,
//! template paths, defaults and status matchers of the catalog (the share
//! is measured by `most_catalog_expressions_take_the_fast_path`).
//!
//! The fast path answers only what it can answer exactly as jaq would: a
//! path whose every step meets what the step can index gives the value
//! found (or `null`); anything else (indexing a string with a key,
//! iterating `null`, arithmetic on the wrong types, a collection past its
//! limits: an error or, with `?`, no output) leaves the whole expression to
//! jaq ([`Fast::run`] returns `None`), so errors keep jaq's wording.
//! Comparisons, arithmetic, truthiness and the functions are jaq's own (the
//! engine's metered `W` operations and natives on the operands converted
//! as jaq converts them), and outputs are built as the jaq path builds them
//! (numbers through the same conversions). `any` and `all` stop at the
//! first element that decides, as jaq's do; outputs stream, so that a
//! stream stops at maxOutputs and a collection at maxCollectionLen where
//! jaq's do. Everything is charged to the same call's meters: a step per
//! term evaluated, per key and per element iterated, a slot per output
//! kept, collections as jaq's collections (a shared one converted once),
//! operands converted and outputs copied as any conversion or copy,
//! outputs' sizes to `maxOutputBytes` by the rules of
//! [`super::eval::to_json_values`].

use super::eval::EvalError;
use super::format;
use super::value::{self, BudgetGuard, Caps, W};
use crate::Limits;
use crate::budget::Meter;
use jaq_core::ValT;
use jaq_core::load::lex::StrPart;
use jaq_core::load::parse::{BinaryOp, Pattern, Term};
use jaq_core::ops::{Cmp, Math};
use jaq_core::path::Part;
use jaq_json::Val;
use serde_json::Value;
use std::rc::Rc;

/// An expression the fast path evaluates.
#[derive(Debug, Clone)]
pub(crate) struct Fast {
    node: N,
    /// Whether the expression has a part its fast form leaves out (the
    /// body of a `catch`, which only jaq runs): what that part reads is
    /// not known ([`Fast::reads`]).
    hidden: bool,
}

/// A term of the subset, and whether it gives exactly one output on any
/// input it answers.
#[derive(Debug, Clone)]
struct N {
    kind: Kind,
    single: bool,
}

#[derive(Debug, Clone)]
enum Kind {
    /// `.`
    Id,
    /// `empty`
    Empty,
    /// A number literal.
    Lit(Lit),
    /// A string, boolean or `null` literal, `[]` or `{}`: the JSON value
    /// it is (jaq converts it as it converts the input's).
    /// Boxed: a JSON value is large (an object is an insertion-ordered
    /// map), and nodes are built on the stack of the recursive compiler.
    Const(Box<Value>),
    /// The object keys of a plain path from `.`.
    Path(Vec<String>),
    /// Steps from each output of a term (`None`: from `.`).
    Steps(Option<Box<N>>, Vec<Step>),
    /// A variable: how many bindings out from the innermost.
    Var(usize),
    /// `src as $x | body`
    Bind(Box<N>, Box<N>),
    /// `[f]`
    Collect(Box<N>),
    /// `[f] | length`, without the array (see [`count_of_collect`]).
    Count(Box<N>),
    /// `l, r`
    Comma(Box<N>, Box<N>),
    /// `l // r`
    Alt(Box<N>, Box<N>),
    /// `l <op> r`
    Cmp(Box<N>, Cmp, Box<N>),
    /// `l and r` (`stop` false) and `l or r` (`stop` true).
    Logic(Box<N>, bool, Box<N>),
    /// `x | not`
    Not(Box<N>),
    /// `l | r`
    Pipe(Box<N>, Box<N>),
    /// `if c then t elif c2 then t2 ... else e end` (no `else`: `.`).
    If(Vec<(N, N)>, Option<Box<N>>),
    /// `l + r`, `l - r`, `l * r`, `l / r`, `l % r`
    Math(Box<N>, Math, Box<N>),
    /// `any(xs[]; cond)` (true) and `all(xs[]; cond)` (false): the
    /// elements of the one output of `xs`, `cond` giving one output each.
    Quant(bool, Box<N>, Box<N>),
    /// A function of the input.
    Fun(Fun),
    /// A function of the input and one argument (one output).
    Fun1(Fun1, Box<N>),
    /// `{(k1): v1, (k2): v2, ...}`, each `k` and `v` giving one output:
    /// jaq's sum of one-entry objects `{(k1): v1} + ({(k2): v2} + ...)`,
    /// built at once (the same object: a later key's value wins, keys
    /// sorted).
    Obj(Vec<(N, N)>),
    /// `map_values(f)`, `f` giving one output.
    MapValues(Box<N>),
    /// `x[k]`: the output of `x` indexed by the output of `k`, both run on
    /// the input and giving one output each.
    Index(Box<N>, Box<N>),
    /// `matches(re; flags)`, the regex native of `test` and `capture`, `re`
    /// and `flags` giving one output each.
    Matches(Box<N>, Box<N>),
    /// `group_by(f)`.
    GroupBy(Box<N>),
    /// `-x`.
    Neg(Box<N>),
    /// `sub(re; s; flags)` (and `gsub`, whose flags start with `g`) whose
    /// replacement `s` is a string literal: `re` and `flags` giving one
    /// output each.
    Sub(Box<N>, Box<N>, Box<str>),
    /// `f?` (`try f`) of a term `f` with one output: that output, or none
    /// where `f` raises an error jaq raises too ([`Stop::Error`]).
    Try(Box<N>),
}

/// The functions of a value and an argument the subset has.
#[derive(Debug, Clone, Copy)]
enum Fun1 {
    Ltrimstr,
    Rtrimstr,
    Startswith,
    Endswith,
    Split,
}

/// The functions of one value the subset has.
#[derive(Debug, Clone, Copy)]
enum Fun {
    Length,
    Add,
    Max,
    Min,
    Type,
    Downcase,
    Upcase,
    Floor,
    Ceil,
    ToNumber,
    ToString,
    ToEntries,
    FromEntries,
    FromJson,
    Sort,
    /// `def unique: unique_by(.);`, `def unique_by(f): [group_by(f)[] | .[0]];`
    Unique,
    /// What string interpolation does to each interpolated value (jaq's
    /// own `tostring`: a string as it is, anything else as JSON text).
    Interp,
}

impl N {
    fn new(kind: Kind) -> N {
        let single = match &kind {
            Kind::Empty | Kind::Comma(..) | Kind::Try(_) => false,
            Kind::Id
            | Kind::Lit(_)
            | Kind::Const(_)
            | Kind::Path(_)
            | Kind::Var(_)
            | Kind::Collect(_)
            | Kind::Count(_)
            | Kind::Quant(..)
            | Kind::Fun(_) => true,
            Kind::Fun1(_, arg) => arg.single,
            Kind::Obj(entries) => entries.iter().all(|(k, v)| k.single && v.single),
            Kind::MapValues(_) | Kind::GroupBy(_) => true,
            Kind::Neg(x) => x.single,
            Kind::Index(x, k) | Kind::Matches(x, k) | Kind::Sub(x, k, _) => x.single && k.single,
            Kind::Steps(base, steps) => {
                base.as_ref().is_none_or(|b| b.single)
                    && steps
                        .iter()
                        .all(|s| !matches!(s, Step::Each | Step::EachOpt))
            }
            // `f? // g` has one output when `f` and `g` have (`f` has one
            // unless it raises an error, which `g` then stands for).
            Kind::Alt(l, r) if matches!(l.kind, Kind::Try(_)) => r.single,
            Kind::Bind(l, r)
            | Kind::Alt(l, r)
            | Kind::Cmp(l, _, r)
            | Kind::Logic(l, _, r)
            | Kind::Pipe(l, r)
            | Kind::Math(l, _, r) => l.single && r.single,
            Kind::Not(x) => x.single,
            Kind::If(branches, otherwise) => {
                branches.iter().all(|(c, t)| c.single && t.single)
                    && otherwise.as_ref().is_none_or(|e| e.single)
            }
        };
        N { kind, single }
    }

    /// Whether evaluating the term may end in [`Stop::Error`]: a native
    /// that raises one, reached through the terms [`eval_raw`] passes it on
    /// through.
    fn raises(&self) -> bool {
        match &self.kind {
            Kind::Fun(Fun::FromJson | Fun::ToNumber) => true,
            Kind::Steps(Some(x), _) | Kind::Not(x) | Kind::Neg(x) | Kind::Fun1(_, x) => x.raises(),
            Kind::Bind(l, r)
            | Kind::Logic(l, _, r)
            | Kind::Pipe(l, r)
            | Kind::Cmp(l, _, r)
            | Kind::Math(l, _, r)
            | Kind::Index(l, r) => l.raises() || r.raises(),
            Kind::If(branches, otherwise) => {
                branches.iter().any(|(c, t)| c.raises() || t.raises())
                    || otherwise.as_ref().is_some_and(|e| e.raises())
            }
            Kind::Obj(entries) => entries.iter().any(|(k, v)| k.raises() || v.raises()),
            _ => false,
        }
    }

    fn boxed(kind: Kind) -> Box<N> {
        Box::new(N::new(kind))
    }
}

/// A step of a path.
#[derive(Debug, Clone)]
enum Step {
    /// `.key`
    Key(String),
    /// `.[i]` (from the end when negative)
    Nth(isize),
    /// `[]`: every element of an array, every value of an object (in
    /// jaq's order: keys sorted).
    Each,
    /// `[]?`: [`Step::Each`], and nothing of a value that is neither an
    /// array nor an object (jaq drops the step's error).
    EachOpt,
}

/// A number literal, kept as text (jaq's value of it is not `Send`) and
/// made as jaq makes it when evaluated.
#[derive(Debug, Clone)]
enum Lit {
    /// A number's text, and whether it is negated.
    Num(String, bool),
}

impl Lit {
    /// The literal, checked when the expression is classified.
    fn new_num(text: &str, negated: bool) -> Option<Lit> {
        let lit = Lit::Num(text.to_string(), negated);
        lit.val()?;
        Some(lit)
    }

    fn val(&self) -> Option<W> {
        Some(match self {
            Lit::Num(text, false) => W::scalar(Val::from_num(text).ok()?),
            Lit::Num(text, true) => W::scalar((-Val::from_num(text).ok()?).ok()?),
        })
    }
}

/// An intermediate output (and the input of what follows a pipe): a value
/// of the input, one the expression made, or the outputs `[f]` collected.
#[derive(Clone)]
enum Out<'a> {
    Json(&'a Value),
    Made(W),
    /// A collected array, and a bound of its depth.
    List(Rc<Vec<Out<'a>>>, u32),
    /// `{key: k, value: v}`, as `to_entries` makes it (built as jaq's
    /// object only where an operation needs it): the key as the member's
    /// (a key of the input borrowed, not made into a string until it is
    /// read) or the element's index.
    Entry(Rc<(Key<'a>, Out<'a>)>),
    /// An object the expression made, its members by key in jq's order
    /// (sorted bytes, each key once), values of the input among them
    /// borrowed; and a bound of its depth. Built as jaq's value only where
    /// an operation needs it, and written out as JSON without it.
    Obj(Rc<Members<'a>>, u32),
}

/// The members of a made object, by key in jq's order.
type Members<'a> = Vec<(Key<'a>, Out<'a>)>;

/// An object's members by key in jq's order, borrowed where they are held.
type MembersRef<'s, 'a> = std::borrow::Cow<'s, [(Key<'a>, Out<'a>)]>;

/// The key of a member of a made object: a key of the input (or of the
/// expression's literals), or a string the expression made; and, as the
/// key of an entry of an array (see [`Out::Entry`]), an element's index,
/// never a member's key.
#[derive(Clone, Debug)]
enum Key<'a> {
    Json(&'a str),
    Made(W),
    Nth(usize),
}

impl<'a> Key<'a> {
    /// The key a value names, if it is a string (jaq refuses any other).
    fn of(k: Out<'a>) -> Option<Key<'a>> {
        match k {
            Out::Json(Value::String(s)) => Some(Key::Json(s)),
            Out::Made(
                w @ W {
                    v: Val::TStr(_), ..
                },
            ) => Some(Key::Made(w)),
            _ => None,
        }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Key::Json(s) => s.as_bytes(),
            Key::Made(W {
                v: Val::TStr(b), ..
            }) => b,
            Key::Made(_) | Key::Nth(_) => b"",
        }
    }

    /// The key as jaq's string.
    fn val(&self) -> Val {
        match self {
            Key::Json(s) => Val::utf8_str(s.to_string()),
            Key::Made(w) => w.v.clone(),
            Key::Nth(i) => Val::from(*i),
        }
    }

    /// The key as a value of the run.
    fn out(&self) -> Out<'a> {
        Out::Made(W::scalar(self.val()))
    }
}

static NULL: Value = Value::Null;

impl Out<'_> {
    /// jq's truthiness: everything but `null` and `false` is true.
    fn truthy(&self) -> bool {
        match self {
            Out::Json(v) => !matches!(v, Value::Null | Value::Bool(false)),
            Out::Made(w) => !matches!(w.v, Val::Null | Val::Bool(false)),
            Out::List(..) | Out::Entry(_) | Out::Obj(..) => true,
        }
    }

    fn bool(b: bool) -> Self {
        Out::Made(W::scalar(Val::Bool(b)))
    }
}

/// Why an evaluation stopped: jaq must answer, or a meter ran out (boxed:
/// every result of the evaluator carries this type, and a small one is
/// cheaper to move).
enum Stop {
    Jaq,
    Limit(Box<EvalError>),
    /// The term raised an error jaq raises too (a native of the engine's
    /// refused its operand). Only [`eval_raw`] passes it on, through the
    /// terms whose error is their operand's whatever the order jaq
    /// evaluates them in, to a `try` that catches it (see [`Kind::Try`]);
    /// anywhere else it is jaq's to give ([`eval`] makes it [`Stop::Jaq`]).
    Error,
}

impl Stop {
    fn limit(e: EvalError) -> Stop {
        Stop::Limit(Box::new(e))
    }
}

type R<T> = Result<T, Stop>;

/// The state of one evaluation.
struct Cx<'a> {
    /// The values of the variables bound, innermost last.
    /// (Held inline up to four: most expressions bind one or two, and a
    /// run should not allocate for them.)
    vars: smallvec::SmallVec<[Out<'a>; 4]>,
    /// A bound of the depth of every JSON value (the input's and the
    /// expression's literals).
    depth: u32,
    caps: Caps,
}

impl Fast {
    /// The fast form of `code`, if it is in the subset. `code` has passed
    /// [`super::check_expression`] (which classifies it too, from the tree
    /// it parsed: [`super::check::check_then`]).
    #[cfg(test)]
    pub(crate) fn classify(code: &str) -> Option<Fast> {
        let tokens = super::check::lex(code).ok()?;
        let term = super::check::parse_term(code, &tokens).ok()?;
        Self::from_term(code, &term)
    }

    /// The fast form of `code` from its syntax tree, if it is in the subset.
    pub(crate) fn from_term(code: &str, term: &Term<&str>) -> Option<Fast> {
        // A cheap refusal first: formats are seen from the text.
        if code.contains('@') {
            return None;
        }
        let mut cl = Cls {
            scope: Vec::new(),
            defs: Vec::new(),
            budget: 64 + 4 * code.len(),
            hidden: false,
        };
        let node = node(term, &mut cl)?;
        Some(Fast {
            node,
            hidden: cl.hidden,
        })
    }

    /// Record in `into` the parts of the input the expression reads (see
    /// [`super::reads`]); `false` when the analysis cannot follow it (the
    /// caller then reads the input whole). Bounded by `bounds`, which the
    /// expressions of a definition share: a unit of work per term followed
    /// and per step of the paths (at most [`super::reads::MAX_PATHS`] of as
    /// many steps) it stands for, and each node recorded. An expression
    /// with a `catch` body is not followed: only jaq runs that body, which
    /// may read anything of the input through a variable.
    pub(crate) fn reads(
        &self,
        into: &mut super::reads::Reads,
        bounds: &mut super::reads::Bounds,
    ) -> bool {
        if self.hidden {
            return false;
        }
        let mut f = Follow {
            reads: into,
            bounds,
            vars: Vec::new(),
        };
        match f.term(&self.node, &vec![Vec::new()]) {
            Some(outs) => f.whole(&outs).is_some(),
            None => false,
        }
    }

    /// Whether the expression was built when it was compiled ([`fold`]).
    #[cfg(test)]
    pub(crate) fn is_constant(&self) -> bool {
        matches!(self.node.kind, Kind::Const(_))
    }

    /// The keys of the path, when the expression is a plain path.
    #[cfg(test)]
    pub(crate) fn keys(&self) -> Option<&[String]> {
        match &self.node.kind {
            Kind::Path(keys) => Some(keys),
            _ => None,
        }
    }

    /// Run on `input` (whose values nest at most `depth` levels): `Some`
    /// with the outputs (or a limit error) when the fast path can answer
    /// exactly, `None` when jaq must.
    pub(crate) fn run(
        &self,
        input: &Value,
        depth: usize,
        limits: &Limits,
    ) -> Option<Result<Vec<Value>, EvalError>> {
        self.run_few(input, depth, limits)
            .map(|r| r.map(super::eval::Outs::into_vec))
    }

    /// [`Fast::run`], the outputs held as [`super::eval::Outs`].
    pub(crate) fn run_few(
        &self,
        input: &Value,
        depth: usize,
        limits: &Limits,
    ) -> Option<Result<super::eval::Outs<Value>, EvalError>> {
        self.run_with(input, depth, limits, |out, limits| {
            finish(out, limits).map(|r| {
                r.map(|v| match v {
                    std::borrow::Cow::Borrowed(v) => v.clone(),
                    std::borrow::Cow::Owned(v) => v,
                })
            })
        })
    }

    /// [`Fast::run`], with each output that is a value of the input as it
    /// is (no number in it changes) borrowed instead of copied. It is
    /// charged exactly as its copy would be, so the budgets end a call
    /// where [`Fast::run`] would.
    pub(crate) fn run_borrowed<'a>(
        &'a self,
        input: &'a Value,
        depth: usize,
        limits: &Limits,
    ) -> Option<Result<super::eval::Outs<std::borrow::Cow<'a, Value>>, EvalError>> {
        self.run_with(input, depth, limits, finish)
    }

    fn run_with<'a, T>(
        &'a self,
        input: &'a Value,
        depth: usize,
        limits: &Limits,
        finish: impl Fn(Out<'a>, &Limits) -> Option<Result<T, EvalError>>,
    ) -> Option<Result<super::eval::Outs<T>, EvalError>> {
        let limits = &limits.effective();
        let caps = caps(limits);
        let _guard = BudgetGuard::enter(limits, caps);
        let mut cx = Cx {
            vars: smallvec::SmallVec::new(),
            // The expression's own JSON values (`[]`, `{}`) nest one level.
            depth: u32::try_from(depth.max(1)).unwrap_or(u32::MAX),
            caps,
        };
        let input = Out::Json(input);
        if self.node.single {
            // One output: converted at once, without a list of outputs.
            return match eval(&self.node, &input, &mut cx) {
                Ok(out) => finish(out, limits).map(|r| r.map(|v| smallvec::smallvec![v])),
                Err(Stop::Jaq | Stop::Error) => None,
                Err(Stop::Limit(e)) => Some(Err(*e)),
            };
        }
        let max = limits.max_outputs;
        let mut outs = Vec::new();
        let r = eval_all(&self.node, &input, &mut cx, &mut |x| {
            if outs.len() >= max {
                return Err(Stop::limit(EvalError::Limit {
                    limit: "maxOutputs",
                    message: format!("the expression produced more than {max} outputs"),
                }));
            }
            outs.push(x);
            Ok(())
        });
        match r {
            Ok(()) => {}
            Err(Stop::Jaq | Stop::Error) => return None,
            Err(Stop::Limit(e)) => return Some(Err(*e)),
        }
        let mut values = super::eval::Outs::with_capacity(outs.len());
        for out in outs {
            match finish(out, limits)? {
                Ok(v) => values.push(v),
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok(values))
    }
}

/// An output of the run as JSON, as the jaq path gives it (`None`: jaq
/// must answer): a value of the input that needs no change is borrowed.
fn finish<'a>(
    out: Out<'a>,
    limits: &Limits,
) -> Option<Result<std::borrow::Cow<'a, Value>, EvalError>> {
    Some(match out {
        Out::Json(v) => output(v, limits),
        Out::Obj(..) | Out::List(..) | Out::Entry(_) => match written(&out, limits) {
            Err(Stop::Jaq | Stop::Error) => return None,
            Err(Stop::Limit(e)) => Err(*e),
            Ok(v) => Ok(std::borrow::Cow::Owned(v)),
        },
        made => match operand(made) {
            Ok(w) => {
                let _call = crate::budget::Call::enter(limits);
                super::eval::to_json(&w, limits).map(std::borrow::Cow::Owned)
            }
            Err(Stop::Limit(e)) => Err(*e),
            Err(Stop::Jaq | Stop::Error) => return None,
        },
    })
}

/// A made output written as JSON directly, without building it as jaq's
/// value first: what [`super::eval::to_json_values`] gives for that value
/// (keys in jq's order, numbers as jaq's, every byte charged to
/// `maxOutputBytes` as it charges them, members of the input charged as
/// their copies).
fn written(out: &Out<'_>, limits: &Limits) -> R<Value> {
    let too_large = || {
        Meter::Output.exhaust();
        Stop::limit(EvalError::Limit {
            limit: "maxOutputBytes",
            message: Meter::Output.message(),
        })
    };
    let left = Meter::Output.left();
    let mut budget = usize::try_from(left)
        .unwrap_or(usize::MAX)
        .min(limits.max_output_bytes);
    let before = budget;
    let v = write(out, &mut budget, &too_large)?;
    Meter::Output
        .take((before - budget) as u64)
        .map_err(|_| too_large())?;
    Ok(v)
}

fn write(out: &Out<'_>, budget: &mut usize, too_large: &dyn Fn() -> Stop) -> R<Value> {
    fn spend(budget: &mut usize, n: usize, too_large: &dyn Fn() -> Stop) -> R<()> {
        *budget = budget.checked_sub(n).ok_or_else(too_large)?;
        Ok(())
    }
    Ok(match out {
        Out::Json(v) => {
            let (size, _, cost) = output_size(v, *budget).ok_or_else(too_large)?;
            spend(budget, size, too_large)?;
            cost.charge(v).map_err(|e| Stop::limit(from_error(e)))?;
            jq_copy(v)
        }
        Out::Made(w) => format::to_value(&w.v, budget).map_err(|e| match e {
            format::ToJsonError::TooLarge => too_large(),
            format::ToJsonError::Key(_) => Stop::Jaq,
        })?,
        Out::Obj(m, _) => {
            spend(budget, 2, too_large)?;
            let mut o = serde_json::Map::with_capacity(m.len());
            for (k, v) in m.iter() {
                let key = format::bytes_str(k.bytes()).into_owned();
                spend(budget, key.len() + 4, too_large)?;
                let v = write(v, budget, too_large)?;
                o.insert(key, v);
            }
            Value::Object(o)
        }
        Out::List(items, _) => {
            spend(budget, 2, too_large)?;
            let mut a = Vec::with_capacity(items.len());
            for x in items.iter() {
                spend(budget, 1, too_large)?;
                a.push(write(x, budget, too_large)?);
            }
            Value::Array(a)
        }
        Out::Entry(e) => {
            spend(budget, 2 + "key".len() + 4, too_large)?;
            let k = write(&e.0.out(), budget, too_large)?;
            spend(budget, "value".len() + 4, too_large)?;
            let v = write(&e.1, budget, too_large)?;
            let mut o = serde_json::Map::with_capacity(2);
            o.insert("key".to_string(), k);
            o.insert("value".to_string(), v);
            Value::Object(o)
        }
    })
}

/// A value of the input as it is written once converted to jaq's value
/// and back: every object's keys in jq's order, numbers as jaq's.
fn jq_copy(v: &Value) -> Value {
    match v {
        Value::Number(n) if is_word_int(n) => v.clone(),
        Value::Number(n) => format::num_to_value(&format::json_num(n)),
        Value::Array(a) => Value::Array(a.iter().map(jq_copy).collect()),
        Value::Object(o) => {
            let mut members: Vec<(&String, &Value)> = o.iter().collect();
            if !o.keys().is_sorted() {
                members.sort_by(|a, b| a.0.cmp(b.0));
            }
            Value::Object(
                members
                    .into_iter()
                    .map(|(k, x)| (k.clone(), jq_copy(x)))
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

/// A step of the evaluation, charged to `maxSteps`.
#[inline]
fn step() -> R<()> {
    Meter::Steps.take(1).map_err(out_of_steps)
}

/// The error of a spent meter, off the hot path of [`step`].
#[cold]
#[inline(never)]
fn out_of_steps(m: Meter) -> Stop {
    Stop::limit(limit(m))
}

/// The members of a JSON object in jq's order (sorted keys; see
/// [`crate::budget::members_by_key`]).
fn sorted(o: &serde_json::Map<String, Value>) -> R<Vec<(&String, &Value)>> {
    crate::budget::members_by_key(o).map_err(|m| Stop::limit(limit(m)))
}

/// A value operation's error: the limit it breached, or jaq's to give.
fn failed<T, E>(r: Result<T, E>) -> R<T> {
    match r {
        Ok(x) => {
            breached()?;
            Ok(x)
        }
        Err(_) => {
            breached()?;
            Err(Stop::Jaq)
        }
    }
}

/// Where the outputs of a term go, one by one.
type Sink<'s, 'a> = &'s mut dyn FnMut(Out<'a>) -> R<()>;

/// Evaluate a term that may give any number of outputs on `input`, in
/// jaq's order, passing each to `sink` as it comes (so that a collection
/// or the run's outputs stop at their limits as jaq's do).
fn eval_all<'a>(n: &'a N, input: &Out<'a>, cx: &mut Cx<'a>, sink: Sink<'_, 'a>) -> R<()> {
    if n.single {
        return sink(eval(n, input, cx)?);
    }
    step()?;
    match &n.kind {
        Kind::Empty => {}
        // The sink's errors are not the term's: only `f`'s are caught.
        Kind::Try(f) => match eval_raw(f, input, cx) {
            Ok(x) => sink(x)?,
            Err(Stop::Error) => {}
            Err(e) => return Err(e),
        },
        Kind::Comma(l, r) => {
            eval_all(l, input, cx, sink)?;
            eval_all(r, input, cx, sink)?;
        }
        Kind::Steps(base, path) => match base {
            None => walk(input.clone(), path, sink)?,
            Some(b) => {
                for x in all(b, input, cx)? {
                    walk(x, path, sink)?;
                }
            }
        },
        Kind::Bind(src, body) => {
            for x in all(src, input, cx)? {
                cx.vars.push(x);
                eval_all(body, input, cx, sink)?;
                cx.vars.pop();
            }
        }
        Kind::Pipe(l, r) => {
            for x in all(l, input, cx)? {
                eval_all(r, &x, cx, sink)?;
            }
        }
        Kind::Alt(l, r) => {
            let mut found = false;
            eval_all(l, input, cx, &mut |x| {
                if x.truthy() {
                    found = true;
                    sink(x)?;
                }
                Ok(())
            })?;
            if !found {
                eval_all(r, input, cx, sink)?;
            }
        }
        Kind::Logic(l, stop, r) => {
            for x in all(l, input, cx)? {
                if x.truthy() == *stop {
                    sink(Out::bool(*stop))?;
                } else {
                    eval_all(r, input, cx, &mut |y| sink(Out::bool(y.truthy())))?;
                }
            }
        }
        Kind::Not(x) => {
            eval_all(x, input, cx, &mut |x| sink(Out::bool(!x.truthy())))?;
        }
        Kind::If(branches, otherwise) => {
            eval_if(branches, otherwise.as_deref(), input, cx, sink)?;
        }
        // jaq's cartesian product: for each output of the left side, every
        // output of the right side.
        Kind::Cmp(l, op, r) => {
            for x in all(l, input, cx)? {
                eval_all(r, input, cx, &mut |y| {
                    let b = match compare(*op, &x, &y)? {
                        Some(b) => b,
                        None => op.run(&operand(x.clone())?, &operand(y)?),
                    };
                    breached()?;
                    sink(Out::bool(b))
                })?;
            }
        }
        Kind::Math(l, op, r) => {
            for x in all(l, input, cx)? {
                eval_all(r, input, cx, &mut |y| {
                    let v = op.run(operand(x.clone())?, operand(y)?);
                    sink(Out::Made(failed(v)?))
                })?;
            }
        }
        Kind::Id
        | Kind::Lit(_)
        | Kind::Const(_)
        | Kind::Path(_)
        | Kind::Var(_)
        | Kind::Collect(_)
        | Kind::Count(_)
        | Kind::Quant(..)
        | Kind::Fun(_)
        | Kind::Fun1(..)
        | Kind::Obj(_)
        | Kind::MapValues(_)
        | Kind::Index(..)
        | Kind::Matches(..)
        | Kind::Sub(..)
        | Kind::GroupBy(_) => sink(eval(n, input, cx)?)?,
        // Each output of `x`, negated.
        Kind::Neg(x) => eval_all(x, input, cx, &mut |y| {
            let w: W = operand(y)?;
            let negated: jaq_core::ValR<W> = -w;
            sink(Out::Made(failed(negated)?))
        })?,
    }
    Ok(())
}

/// Every output of `n` on `input`, each kept charged as a slot of memory.
fn all<'a>(n: &'a N, input: &Out<'a>, cx: &mut Cx<'a>) -> R<super::eval::Outs<Out<'a>>> {
    if n.single {
        // Held inline: no list is allocated for a single output.
        return Ok(smallvec::smallvec![eval(n, input, cx)?]);
    }
    let mut v = super::eval::Outs::new();
    eval_all(n, input, cx, &mut |x| {
        value::alloc_slots(1).map_err(|_| recorded())?;
        // Past the one held inline, room for eight at once: most streams
        // are short, and growing one by one reallocates at 2 and 4.
        if v.len() == 1 && !v.spilled() {
            v.reserve(7);
        }
        v.push(x);
        Ok(())
    })?;
    Ok(v)
}

/// `if` with many outputs: each output of the first condition chooses its
/// branch; the rest of the chain is the `else` of the first.
fn eval_if<'a>(
    branches: &'a [(N, N)],
    otherwise: Option<&'a N>,
    input: &Out<'a>,
    cx: &mut Cx<'a>,
    sink: Sink<'_, 'a>,
) -> R<()> {
    let Some(((c, t), rest)) = branches.split_first() else {
        return match otherwise {
            Some(e) => eval_all(e, input, cx, sink),
            None => sink(input.clone()),
        };
    };
    for cond in all(c, input, cx)? {
        if truth(cond) {
            eval_all(t, input, cx, sink)?;
        } else {
            eval_if(rest, otherwise, input, cx, sink)?;
        }
    }
    Ok(())
}

/// The values at the steps of a path from `x`, passed to `sink`: a step
/// per element iterated.
fn walk<'a>(x: Out<'a>, path: &[Step], sink: Sink<'_, 'a>) -> R<()> {
    let Some((first, rest)) = path.split_first() else {
        return sink(x);
    };
    match first {
        Step::Each | Step::EachOpt => {
            let r = if matches!(first, Step::EachOpt) && !iterable(&x) {
                Ok(())
            } else {
                each(&x, |e| walk(e, rest, sink).map(|()| true))
            };
            done(x);
            r
        }
        key_or_nth => walk(index(x, key_or_nth)?, rest, sink),
    }
}

/// The elements `.[]` gives on `x`, in jaq's order (an object's values
/// by sorted key), passed to `f` until it says stop (`Ok(false)`), with a
/// step charged for each; iterating anything else is jaq's error.
/// Whether `x` may be iterated (`.[]`): `false` only for what jaq refuses
/// to iterate for certain (null, booleans, numbers, strings).
fn iterable(x: &Out<'_>) -> bool {
    match x {
        Out::Json(v) => v.is_array() || v.is_object(),
        Out::Made(w) => !matches!(
            w.v,
            Val::Null | Val::Bool(_) | Val::Num(_) | Val::TStr(_) | Val::BStr(_)
        ),
        Out::List(..) | Out::Entry(_) | Out::Obj(..) => true,
    }
}

fn each<'a>(x: &Out<'a>, mut f: impl FnMut(Out<'a>) -> R<bool>) -> R<()> {
    match x {
        Out::Json(Value::Array(a)) => {
            for v in a {
                step()?;
                if !f(Out::Json(v))? {
                    break;
                }
            }
        }
        Out::Json(Value::Object(o)) => {
            for (_, v) in sorted(o)? {
                step()?;
                if !f(Out::Json(v))? {
                    break;
                }
            }
        }
        Out::List(l, _) => {
            for v in l.iter() {
                step()?;
                if !f(v.clone())? {
                    break;
                }
            }
        }
        Out::Made(W { v: Val::Arr(a), d }) => {
            let d = d.saturating_sub(1);
            for v in a.iter() {
                step()?;
                if !f(Out::Made(W { v: v.clone(), d }))? {
                    break;
                }
            }
        }
        // Its keys sorted: `key`, then `value`.
        Out::Entry(e) => {
            step()?;
            if f(e.0.out())? {
                step()?;
                f(e.1.clone())?;
            }
        }
        Out::Obj(m, _) => {
            for (_, v) in m.iter() {
                step()?;
                if !f(v.clone())? {
                    break;
                }
            }
        }
        _ => return Err(Stop::Jaq),
    }
    Ok(())
}

/// Array index `i` of a sequence of `len` (negative from the end), as
/// jaq takes it.
fn position(i: isize, len: usize) -> Option<usize> {
    let i = if i < 0 {
        isize::try_from(len).ok()?.checked_add(i)?
    } else {
        i
    };
    usize::try_from(i).ok().filter(|&i| i < len)
}

/// `x.key`, `x[i]`, or `.[]` of null (a step each): what jaq gives when
/// it gives a value; anything else (an error) is jaq's. A limit breached
/// while indexing a made value fails the operation: the expression goes
/// to jaq, which meets the spent meter and reports the limit.
fn index<'a>(x: Out<'a>, s: &Step) -> R<Out<'a>> {
    match s {
        Step::Key(k) => index_key(x, k),
        Step::Nth(i) => index_nth(x, *i),
        Step::Each | Step::EachOpt => {
            step()?;
            match x {
                Out::Json(Value::Null) | Out::Made(W { v: Val::Null, .. }) => Ok(Out::Json(&NULL)),
                _ => Err(Stop::Jaq),
            }
        }
    }
}

/// `x.key` ([`index`]), the key borrowed: nothing is built to look it up.
fn index_key<'a>(x: Out<'a>, k: &str) -> R<Out<'a>> {
    step()?;
    match x {
        // The value bound out of the output: nothing left of it to drop.
        Out::Json(v) => match v {
            Value::Object(m) => Ok(Out::Json(crate::budget::member(m, k).unwrap_or(&NULL))),
            Value::Null => Ok(Out::Json(&NULL)),
            _ => Err(Stop::Jaq),
        },
        x => key_of_made(x, k),
    }
}

/// [`index_key`] of a value the run made.
#[inline(never)]
fn key_of_made<'a>(x: Out<'a>, k: &str) -> R<Out<'a>> {
    Ok(match x {
        Out::Made(W { v: Val::Null, .. }) => Out::Json(&NULL),
        Out::Entry(e) => match k {
            "key" => e.0.out(),
            "value" => e.1.clone(),
            _ => Out::Json(&NULL),
        },
        Out::Obj(m, _) => member(&m, k.as_bytes()).unwrap_or(Out::Json(&NULL)),
        Out::Made(w) => return made_member(w, k),
        _ => return Err(Stop::Jaq),
    })
}

/// `x[i]` ([`index`]).
fn index_nth<'a>(x: Out<'a>, i: isize) -> R<Out<'a>> {
    step()?;
    Ok(match x {
        Out::Json(Value::Null) | Out::Made(W { v: Val::Null, .. }) => Out::Json(&NULL),
        Out::Json(Value::Array(a)) => Out::Json(position(i, a.len()).map_or(&NULL, |i| &a[i])),
        Out::List(l, _) => match position(i, l.len()) {
            Some(i) => l[i].clone(),
            None => Out::Json(&NULL),
        },
        // A value the expression made: jaq's own indexing.
        Out::Made(w) => {
            let r = jaq_core::ValT::index(w, &W::scalar(Val::from(i)));
            return r.map(Out::Made).map_err(|_| Stop::Jaq);
        }
        _ => return Err(Stop::Jaq),
    })
}

/// A member of a value the expression made, by jaq's own indexing: an
/// object of up to [`crate::budget::SCAN_MEMBERS`] members is scanned for
/// a key of up to [`crate::budget::SCAN_KEY_BYTES`] bytes (its keys are
/// strings, equal as jaq compares them when their bytes are), charged as
/// jaq's indexing charges it (a step and the key's bytes); anything else
/// is indexed by the key built as jaq's string.
fn made_member<'a>(w: W, k: &str) -> R<Out<'a>> {
    // Bounded as the input's scans are (`budget::member`): a longer key
    // is hashed, so a lookup's work stays near a hash's.
    if let Val::Obj(o) = &w.v
        && o.len() <= crate::budget::SCAN_MEMBERS
        && k.len() <= crate::budget::SCAN_KEY_BYTES
    {
        value::tick().map_err(|_| Stop::Jaq)?;
        value::tick_bytes(k.len()).map_err(|_| Stop::Jaq)?;
        let v = o
            .iter()
            .find_map(|(key, v)| match key {
                Val::TStr(b) | Val::BStr(b) if **b == *k.as_bytes() => Some(v.clone()),
                _ => None,
            })
            .unwrap_or(Val::Null);
        return Ok(Out::Made(W {
            v,
            d: w.d.saturating_sub(1),
        }));
    }
    let key = W::scalar(Val::utf8_str(k.to_string()));
    jaq_core::ValT::index(w, &key)
        .map(Out::Made)
        .map_err(|_| Stop::Jaq)
}

/// `x[k]` for a key the expression computed: a string or an integer as
/// the same step written in the expression; any other key on a value the
/// expression made by jaq's own indexing, and on anything else by jaq
/// (converting a value of the input for each key would cost its size per
/// key, where jaq converts the input once).
fn index_by<'a>(x: Out<'a>, k: Out<'a>) -> R<Out<'a>> {
    match &k {
        Out::Json(Value::String(s)) => return index_key(x, s),
        Out::Json(Value::Number(n)) => {
            if let Some(i) = n.as_i64().and_then(|i| isize::try_from(i).ok()) {
                return index_nth(x, i);
            }
        }
        Out::Made(W {
            v: Val::TStr(b), ..
        }) => {
            if let Ok(s) = std::str::from_utf8(b) {
                return index_key(x, s);
            }
        }
        Out::Made(w) if jaq_std::ValT::is_int(w) => {
            if let Some(i) = jaq_std::ValT::as_isize(w) {
                return index_nth(x, i);
            }
        }
        _ => {}
    }
    let Out::Made(x) = x else {
        return Err(Stop::Jaq);
    };
    step()?;
    let k = operand(k)?;
    jaq_core::ValT::index(x, &k)
        .map(Out::Made)
        .map_err(|_| Stop::Jaq)
}

/// Evaluate a term that gives one output on `input`.
fn eval<'a>(n: &'a N, input: &Out<'a>, cx: &mut Cx<'a>) -> R<Out<'a>> {
    eval_raw(n, input, cx).map_err(|e| match e {
        Stop::Error => Stop::Jaq,
        e => e,
    })
}

/// [`eval`], where an error jaq raises too ([`Stop::Error`]) is passed on
/// through the terms whose error is exactly their operands' (a pipe, a
/// binding, a path, a comparison, arithmetic, `and`/`or`/`not`, `if`,
/// negation, a function's argument, an object's entries): every operand of
/// those is evaluated by jaq as well, unless it is skipped as here (`and`,
/// `or`, `if` decide in the same order), so jaq raises an error exactly
/// where this does. Every other term (`//`, which ignores its left side's
/// errors; anything that iterates) sees it as jaq's to give.
///
/// The leaves (`.`, a path, a variable, a constant: nearly half of the
/// terms evaluated) are answered here, in a function small enough to be
/// cheap to call; every other term in [`eval_node`].
fn eval_raw<'a>(n: &'a N, input: &Out<'a>, cx: &mut Cx<'a>) -> R<Out<'a>> {
    match &n.kind {
        Kind::Const(v) => {
            step()?;
            Ok(Out::Json(v.as_ref()))
        }
        Kind::Var(i) => {
            step()?;
            Ok(cx.vars[cx.vars.len() - 1 - i].clone())
        }
        Kind::Id => {
            step()?;
            Ok(input.clone())
        }
        Kind::Path(keys) => path(keys, input),
        _ => eval_node(n, input, cx),
    }
}

/// Let go of an output without a call to its drop glue where it holds
/// nothing to free (a value of the input; a made null, boolean or machine
/// number): most outputs let go of in the evaluator are those.
#[inline(always)]
fn done(x: Out<'_>) {
    if matches!(
        x,
        Out::Json(_)
            | Out::Made(W {
                v: Val::Null
                    | Val::Bool(_)
                    | Val::Num(jaq_json::Num::Int(_) | jaq_json::Num::Float(_)),
                ..
            })
    ) {
        std::mem::forget(x);
    } else {
        drop(x);
    }
}

/// jq's truthiness of an output let go of ([`done`]).
#[inline(always)]
fn truth(x: Out<'_>) -> bool {
    let t = x.truthy();
    done(x);
    t
}

/// A plain path from `.` (`.a.b`): a step, and one per key looked up, as
/// jaq's indexing.
#[inline(never)]
fn path<'a>(keys: &[String], input: &Out<'a>) -> R<Out<'a>> {
    step()?;
    Meter::Steps.take(keys.len() as u64).map_err(out_of_steps)?;
    let mut v = match input {
        Out::Json(v) => *v,
        x => return path_of_made(x, keys),
    };
    for k in keys {
        v = match v {
            Value::Object(m) => crate::budget::member(m, k).unwrap_or(&NULL),
            Value::Null => &NULL,
            _ => return Err(Stop::Jaq),
        };
    }
    Ok(Out::Json(v))
}

/// [`eval_raw`] of a term that is not a leaf.
#[inline(never)]
fn eval_node<'a>(n: &'a N, input: &Out<'a>, cx: &mut Cx<'a>) -> R<Out<'a>> {
    step()?;
    Ok(match &n.kind {
        Kind::Steps(base, path) => {
            let mut x = match base {
                None => input.clone(),
                Some(b) => eval_raw(b, input, cx)?,
            };
            for s in path {
                x = index(x, s)?;
            }
            x
        }
        Kind::Bind(src, body) => {
            let x = eval_raw(src, input, cx)?;
            cx.vars.push(x);
            let r = eval_raw(body, input, cx);
            if let Some(x) = cx.vars.pop() {
                done(x);
            }
            r?
        }
        Kind::Alt(l, r) => {
            let l = match &l.kind {
                // `f? // g`: `g` where `f` raises an error.
                Kind::Try(f) => match eval_raw(f, input, cx) {
                    Err(Stop::Error) => None,
                    l => Some(l?),
                },
                _ => Some(eval(l, input, cx)?),
            };
            match l {
                Some(l) if l.truthy() => l,
                l => {
                    if let Some(l) = l {
                        done(l);
                    }
                    eval(r, input, cx)?
                }
            }
        }
        Kind::Logic(l, stop, r) => {
            if truth(eval_raw(l, input, cx)?) == *stop {
                Out::bool(*stop)
            } else {
                Out::bool(truth(eval_raw(r, input, cx)?))
            }
        }
        Kind::Not(x) => Out::bool(!truth(eval_raw(x, input, cx)?)),
        Kind::Pipe(l, r) => {
            let l = eval_raw(l, input, cx)?;
            let out = eval_raw(r, &l, cx);
            done(l);
            out?
        }
        Kind::If(branches, otherwise) => {
            for (c, t) in branches {
                if truth(eval_raw(c, input, cx)?) {
                    return eval_raw(t, input, cx);
                }
            }
            match otherwise {
                Some(e) => eval_raw(e, input, cx)?,
                None => input.clone(),
            }
        }
        Kind::Cmp(l, op, r) => {
            // jaq runs the right side first (its cartesian product), which
            // only matters for errors: those are jaq's to give anyway.
            let r = eval_raw(r, input, cx)?;
            let l = eval_raw(l, input, cx)?;
            let b = match compare(*op, &l, &r)? {
                Some(b) => {
                    done(l);
                    done(r);
                    b
                }
                None => compare_by_jaq(*op, l, r)?,
            };
            breached()?;
            Out::bool(b)
        }
        _ => return eval_other(n, input, cx),
    })
}

/// A plain path from a value that is not the input's.
#[inline(never)]
fn path_of_made<'a>(x: &Out<'a>, keys: &[String]) -> R<Out<'a>> {
    let mut x = x.clone();
    for k in keys {
        x = index_key(x, k)?;
    }
    Ok(x)
}

/// `l <op> r` by jaq's operation on the converted operands.
#[inline(never)]
fn compare_by_jaq(op: Cmp, l: Out<'_>, r: Out<'_>) -> R<bool> {
    Ok(op.run(&operand(l)?, &operand(r)?))
}

/// The terms of [`eval_raw`] met less often, or costlier than a call:
/// kept out of its frame, which every term's evaluation builds (the step
/// is charged by `eval_raw`).
#[inline(never)]
fn eval_other<'a>(n: &'a N, input: &Out<'a>, cx: &mut Cx<'a>) -> R<Out<'a>> {
    Ok(match &n.kind {
        Kind::Collect(f) => {
            let max = cx.caps.max_collection;
            let mut items = Vec::new();
            eval_all(f, input, cx, &mut |x| {
                element(items.len(), max)?;
                items.push(x);
                Ok(())
            })?;
            list(items, cx)?
        }
        // `[f] | length`: charged and checked as `[f]`, without the array.
        Kind::Count(f) => {
            let max = cx.caps.max_collection;
            let json = cx.depth;
            let (mut n, mut d) = (0usize, 0u32);
            eval_all(f, input, cx, &mut |x| {
                element(n, max)?;
                d = d.max(depth_at(&x, json));
                n += 1;
                Ok(())
            })?;
            nesting(d, cx)?;
            Out::Made(W::scalar(Val::from(n)))
        }
        Kind::Lit(lit) => Out::Made(lit.val().ok_or(Stop::Jaq)?),
        Kind::Math(l, op, r) => {
            let r = eval_raw(r, input, cx)?;
            let l = eval_raw(l, input, cx)?;
            let (l, r) = match op {
                Math::Add => match add_objects(l, r, cx)? {
                    Ok(sum) => return Ok(sum),
                    Err(operands) => operands,
                },
                _ => (l, r),
            };
            let v = op.run(operand(l)?, operand(r)?);
            // A type error (adding a string to a number) is jaq's to give.
            Out::Made(failed(v)?)
        }
        Kind::Quant(any, xs, cond) => {
            let xs = eval(xs, input, cx)?;
            let mut decided = false;
            each(&xs, |x| {
                decided = truth(eval(cond, &x, cx)?) == *any;
                done(x);
                Ok(!decided)
            })?;
            Out::bool(if decided { *any } else { !*any })
        }
        Kind::Fun(f) => fun(*f, input, cx)?,
        Kind::Fun1(f, arg) => {
            let arg = eval_raw(arg, input, cx)?;
            fun1(*f, input, arg)?
        }
        Kind::Obj(entries) => {
            // Last entry first, as jaq's sum evaluates its right side first.
            // Room for a few more: a sum into the object puts them in place.
            let mut pairs = Vec::with_capacity(entries.len().max(4));
            for (k, v) in entries.iter().rev() {
                let v = eval_raw(v, input, cx)?;
                // A key that is not a string is jaq's error to give.
                let k = Key::of(eval_raw(k, input, cx)?).ok_or(Stop::Jaq)?;
                pairs.push((k, v));
            }
            pairs.reverse();
            object(pairs, cx)?
        }
        Kind::MapValues(f) => map_values(f, input, cx)?,
        Kind::Index(x, k) => {
            let x = eval_raw(x, input, cx)?;
            let k = eval_raw(k, input, cx)?;
            index_by(x, k)?
        }
        // The native's search (the same regex engine, costs and limits),
        // its match objects built as the fast path's own ([`matched`]).
        Kind::Matches(re, flags) => {
            let re = operand(eval(re, input, cx)?)?;
            let flags = operand(eval(flags, input, cx)?)?;
            let x = operand(input.clone())?;
            let parts = failed(super::regex::run_parts(&x, &re, &flags, false, true))?;
            matched(parts, cx)?
        }
        Kind::GroupBy(f) => {
            let groups = group_by(Some(f), input, cx)?;
            let w = W::from_iter(groups.into_iter().map(W::from_iter));
            breached()?;
            Out::Made(w)
        }
        Kind::Neg(x) => {
            let w: W = operand(eval_raw(x, input, cx)?)?;
            let negated: jaq_core::ValR<W> = -w;
            Out::Made(failed(negated)?)
        }
        // jaq-std's definition, with `f` a string:
        // `def sub(re; f; flags): def handle: if isarray then
        //  capture_of_match | f end; reduce split_matches(re; flags)[] as $x
        //  (""; . + ($x | handle));`
        // The same native, and the same metered `+` on each piece.
        Kind::Sub(re, flags, with) => {
            let re = operand(eval(re, input, cx)?)?;
            let flags = operand(eval(flags, input, cx)?)?;
            let x = operand(input.clone())?;
            let parts = failed(super::regex::run(&x, &re, &flags, true, true))?;
            let Val::Arr(parts) = &parts.v else {
                return Err(Stop::Jaq);
            };
            let mut acc = text("");
            for part in parts.iter() {
                step()?;
                let piece = match part {
                    Val::Arr(_) => text(with),
                    s @ (Val::TStr(_) | Val::BStr(_)) => W::scalar(s.clone()),
                    _ => return Err(Stop::Jaq),
                };
                acc = failed(acc + piece)?;
            }
            Out::Made(acc)
        }
        // `empty`, `,` and `try` give no single output; the terms
        // `eval_raw` answers itself never come here.
        _ => return Err(Stop::Jaq),
    })
}

/// The regex native's parts as the fast path's values ([`Kind::Matches`]):
/// each match an array of match objects, charged as the native builds them
/// (the field names and a group's name as made strings, each object as
/// `W::object`, each array as collected).
fn matched<'a>(parts: Vec<super::regex::Part>, cx: &Cx<'a>) -> R<Out<'a>> {
    let max = cx.caps.max_collection;
    let mut out = Vec::with_capacity(parts.len());
    for part in parts {
        let item = match part {
            super::regex::Part::Between(s) => Out::Made(s),
            super::regex::Part::Match(group) => {
                let mut objects = Vec::with_capacity(group.len());
                for c in group {
                    let mut pairs = Vec::with_capacity(4);
                    let field = |k: &'static str| -> R<Key<'a>> {
                        failed(W::charge_string(k.len()))?;
                        Ok(Key::Json(k))
                    };
                    pairs.push((field("offset")?, Out::Made(W::from(c.offset))));
                    pairs.push((field("length")?, Out::Made(W::from(c.length))));
                    pairs.push((field("string")?, Out::Made(c.string)));
                    if let Some(n) = c.name {
                        let k = field("name")?;
                        let name = W::from(n);
                        breached()?;
                        pairs.push((k, Out::Made(name)));
                    }
                    element(objects.len(), max)?;
                    objects.push(object(pairs, cx)?);
                }
                list(objects, cx)?
            }
        };
        element(out.len(), max)?;
        out.push(item);
    }
    list(out, cx)
}

/// The rank of a value's type in jq's order: null < false < true <
/// numbers < strings < arrays < objects.
fn rank(x: &Out<'_>) -> u8 {
    match x {
        Out::Json(v) => match v {
            Value::Null => 0,
            Value::Bool(b) => 1 + u8::from(*b),
            Value::Number(_) => 3,
            Value::String(_) => 4,
            Value::Array(_) => 5,
            Value::Object(_) => 6,
        },
        Out::List(..) => 5,
        Out::Entry(_) | Out::Obj(..) => 6,
        Out::Made(w) => match &w.v {
            Val::Null => 0,
            Val::Bool(b) => 1 + u8::from(*b),
            Val::Num(_) => 3,
            Val::TStr(_) | Val::BStr(_) => 4,
            Val::Arr(_) => 5,
            Val::Obj(_) => 6,
        },
    }
}

/// `l <op> r` without converting the operands where their types decide it
/// (values of different types compare by type, as jaq's metered equality
/// and order do, a step) or they are strings, booleans or `null` of the
/// input or the expression's literals compared for equality, or machine
/// integers ([`machine_int`]) compared; `None` for what jaq's operation on
/// the converted operands must decide.
fn compare(op: Cmp, l: &Out<'_>, r: &Out<'_>) -> R<Option<bool>> {
    let (a, b) = (rank(l), rank(r));
    let ordering = if a != b {
        a.cmp(&b)
    } else {
        match (l, r, op) {
            (Out::Json(x), Out::Json(y), Cmp::Eq | Cmp::Ne) if a <= 4 && a != 3 => {
                value::tick().map_err(|_| recorded())?;
                if let (Value::String(x), Value::String(y)) = (x, y)
                    && x.len() == y.len()
                {
                    value::tick_bytes(x.len()).map_err(|_| recorded())?;
                }
                return Ok(Some((x == y) == matches!(op, Cmp::Eq)));
            }
            // Two strings, either made (`type`, `tostring`, a key): compared
            // by their bytes and charged as jaq's metered equality (a step,
            // and the bytes where the lengths agree) and order (a step, and
            // the shorter one's bytes) charge them.
            _ if a == 4 => {
                let (Some(x), Some(y)) = (str_bytes(l), str_bytes(r)) else {
                    return Ok(None);
                };
                value::tick().map_err(|_| recorded())?;
                if let Cmp::Eq | Cmp::Ne = op {
                    if x.len() == y.len() {
                        value::tick_bytes(x.len()).map_err(|_| recorded())?;
                    }
                    return Ok(Some((x == y) == matches!(op, Cmp::Eq)));
                }
                value::tick_bytes(x.len().min(y.len())).map_err(|_| recorded())?;
                return Ok(Some(ordered(op, x.cmp(y))));
            }
            // Two integers (of the input, literals, or made: a sum, a
            // count), as jaq's machine integers compare.
            _ => match (machine_int(l), machine_int(r)) {
                (Some(x), Some(y)) => x.cmp(&y),
                _ => return Ok(None),
            },
        }
    };
    value::tick().map_err(|_| recorded())?;
    Ok(Some(ordered(op, ordering)))
}

/// Whether `op` holds of operands ordered as `ordering`.
fn ordered(op: Cmp, ordering: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    match op {
        Cmp::Eq => ordering == Equal,
        Cmp::Ne => ordering != Equal,
        Cmp::Lt => ordering == Less,
        Cmp::Le => ordering != Greater,
        Cmp::Gt => ordering == Greater,
        Cmp::Ge => ordering != Less,
    }
}

/// The bytes of a string of the input or one the expression made.
fn str_bytes<'s>(x: &'s Out<'_>) -> Option<&'s [u8]> {
    match x {
        Out::Json(Value::String(s)) => Some(s.as_bytes()),
        Out::Made(W {
            v: Val::TStr(b) | Val::BStr(b),
            ..
        }) => Some(b),
        _ => None,
    }
}

/// A number that jaq holds as a machine integer (`Num::Int`): an integer
/// of the input (or a constant held as JSON) that fits `isize`, as jaq
/// converts it, or one jaq made (a number literal, a sum, a count).
fn machine_int(x: &Out<'_>) -> Option<isize> {
    match x {
        Out::Json(Value::Number(n)) => n.as_i64().and_then(|i| isize::try_from(i).ok()),
        Out::Made(w) => match &w.v {
            Val::Num(jaq_json::Num::Int(i)) => Some(*i),
            _ => None,
        },
        _ => None,
    }
}

/// `[f]` of the outputs `items` (charged and counted as they came): where
/// its depth could pass the limit, jaq gives the error.
fn list<'a>(items: Vec<Out<'a>>, cx: &Cx<'a>) -> R<Out<'a>> {
    let d = nesting(items.iter().map(|x| depth(x, cx)).max().unwrap_or(0), cx)?;
    Ok(Out::List(Rc::new(items), d))
}

/// One more element of `[f]`, which has `len`, as jaq's collection takes
/// it: a slot of memory, and an error at the first element past `max`.
fn element(len: usize, max: usize) -> R<()> {
    value::alloc_slots(1).map_err(|_| recorded())?;
    if len >= max {
        let _ = value::check_coll_len(len + 1);
        return Err(recorded());
    }
    Ok(())
}

/// The depth of `[f]` whose deepest element nests `d` levels: where it
/// could pass the limit, jaq gives the error.
fn nesting(d: u32, cx: &Cx<'_>) -> R<u32> {
    let d = d.saturating_add(1);
    if d > cx.caps.max_depth {
        return Err(Stop::Jaq);
    }
    Ok(d)
}

/// The value of member `k` of a made object.
fn member<'a>(m: &[(Key<'a>, Out<'a>)], k: &[u8]) -> Option<Out<'a>> {
    m.binary_search_by(|(key, _)| key.bytes().cmp(k))
        .ok()
        .map(|i| m[i].1.clone())
}

/// An object of `pairs` (in the order the expression gives them), as
/// jaq's object construction builds it: charged as [`W::object`] is (the
/// collection's limit, two slots a member, a step and the key's bytes
/// each), keys in jq's order, a later member replacing an earlier one of
/// the same key. Where its depth could pass the limit, jaq gives the error.
fn object<'a>(mut pairs: Vec<(Key<'a>, Out<'a>)>, cx: &Cx<'a>) -> R<Out<'a>> {
    value::check_coll_len(pairs.len()).map_err(|_| recorded())?;
    value::alloc_slots(2 * pairs.len()).map_err(|_| recorded())?;
    let mut d = 0u32;
    for (k, v) in &pairs {
        value::tick().map_err(|_| recorded())?;
        value::tick_bytes(k.bytes().len()).map_err(|_| recorded())?;
        d = d.max(depth(v, cx).saturating_add(1));
    }
    if d > cx.caps.max_depth {
        return Err(Stop::Jaq);
    }
    // Stable: members of one key stay in the order given.
    pairs.sort_by(|(a, _), (b, _)| a.bytes().cmp(b.bytes()));
    // In place: of a run of one key, the last value stays (`later` is
    // dropped holding the value it replaced).
    pairs.dedup_by(|later, kept| {
        let same = later.0.bytes() == kept.0.bytes();
        if same {
            std::mem::swap(&mut later.1, &mut kept.1);
        }
        same
    });
    Ok(Out::Obj(Rc::new(pairs), d))
}

/// The members of an object value by key in jq's order, and a bound of
/// its depth (`None`: not an object this can read).
fn members<'s, 'a>(x: &'s Out<'a>, cx: &Cx<'a>) -> R<Option<(MembersRef<'s, 'a>, u32)>> {
    Ok(Some(match x {
        Out::Json(Value::Object(o)) => (
            std::borrow::Cow::Owned(
                sorted(o)?
                    .into_iter()
                    .map(|(k, v)| (Key::Json(k), Out::Json(v)))
                    .collect(),
            ),
            cx.depth,
        ),
        // A made object's members are read where they are.
        Out::Obj(m, d) => (std::borrow::Cow::Borrowed(&m[..]), *d),
        _ => return Ok(None),
    }))
}

/// `l + r` of two objects: `r`'s members over `l`'s, charged as jaq's sum
/// is, the members of the input borrowed; the operands given back for
/// anything else (jaq's operation on the converted operands). A made
/// object no other value holds takes `r`'s members in place.
fn add_objects<'a>(l: Out<'a>, r: Out<'a>, cx: &Cx<'a>) -> R<Result<Out<'a>, (Out<'a>, Out<'a>)>> {
    let null = |x: &Out<'_>| {
        matches!(
            x,
            Out::Json(Value::Null) | Out::Made(W { v: Val::Null, .. })
        )
    };
    // `null + x` is `x`, and `x + null` too.
    if (null(&l) && matches!(r, Out::Obj(..))) || (matches!(l, Out::Obj(..)) && null(&r)) {
        value::tick().map_err(|_| recorded())?;
        return Ok(Ok(if null(&l) { r } else { l }));
    }
    let (Some((a, da)), Some((b, db))) = (members(&l, cx)?, members(&r, cx)?) else {
        return Ok(Err((l, r)));
    };
    // A made object no other value holds: `r`'s members are put among its
    // own, as jaq extends a map only it holds in place (its slots are not
    // copied, nor charged; a held one's are).
    let unique = matches!(&l, Out::Obj(m, _) if Rc::strong_count(m) == 1 && Rc::weak_count(m) == 0);
    let copied = if unique { 0 } else { a.len() };
    let charge = || -> Result<(), value::Error> {
        value::tick()?;
        value::check_coll_len(a.len().saturating_add(b.len()))?;
        value::alloc_slots(2 * (b.len() + copied))?;
        value::tick_bytes(b.iter().map(|(k, _)| k.bytes().len()).sum())?;
        value::tick_n(a.len() as u64)
    };
    charge().map_err(|_| recorded())?;
    let d = da.max(db);
    // An object and an empty object sum to the first object, shared (a
    // made one's members) rather than copied, charged as the sum all the
    // same; an object of the input is borrowed only where it is written as
    // the sum would be (keys in jq's order, no object or array in it to
    // sort): a check of its members, which the sum's charges cover.
    if a.is_empty() {
        match r {
            Out::Obj(m, _) => return Ok(Ok(Out::Obj(m, d))),
            Out::Json(v) if flat_and_sorted(v) => return Ok(Ok(r)),
            _ => {}
        }
    }
    if b.is_empty() {
        match l {
            Out::Obj(m, _) => return Ok(Ok(Out::Obj(m, d))),
            Out::Json(v) if flat_and_sorted(v) => return Ok(Ok(l)),
            _ => {}
        }
    }
    if unique && let Out::Obj(mut m, _) = l {
        let Some(own) = Rc::get_mut(&mut m) else {
            return Ok(Ok(Out::Obj(Rc::new(merged(&m, &b)), d)));
        };
        if b.len() <= INSERT_MEMBERS {
            // A few members: each found or put in its place.
            for (k, v) in b.iter() {
                match own.binary_search_by(|(key, _)| key.bytes().cmp(k.bytes())) {
                    Ok(i) => own[i].1 = v.clone(),
                    Err(i) => own.insert(i, (k.clone(), v.clone())),
                }
            }
        } else {
            *own = merged(own, &b);
        }
        return Ok(Ok(Out::Obj(m, d)));
    }
    Ok(Ok(Out::Obj(Rc::new(merged(&a, &b)), d)))
}

/// Whether `v` is an object whose keys are in jq's order and whose values
/// are neither objects nor arrays: written as it is, it is written as jq's
/// copy of it.
fn flat_and_sorted(v: &Value) -> bool {
    matches!(v, Value::Object(o)
        if o.keys().is_sorted() && o.values().all(|x| !x.is_object() && !x.is_array()))
}

/// Up to how many members a sum puts into the members only it holds one by
/// one (each a search and a shift: at most this many shifts of the object),
/// rather than merging the two into a new list.
const INSERT_MEMBERS: usize = 8;

/// Two objects' members, each in jq's order, merged: `b`'s over `a`'s.
fn merged<'a>(a: &[(Key<'a>, Out<'a>)], b: &[(Key<'a>, Out<'a>)]) -> Members<'a> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.iter().peekable(), b.iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => match x.0.bytes().cmp(y.0.bytes()) {
                std::cmp::Ordering::Less => a.next(),
                std::cmp::Ordering::Greater => b.next(),
                std::cmp::Ordering::Equal => {
                    a.next();
                    b.next()
                }
            },
            (Some(_), None) => a.next(),
            (None, Some(_)) => b.next(),
            (None, None) => break,
        };
        out.extend(next.cloned());
    }
    out
}

/// A bound of how deep `x` nests.
fn depth(x: &Out<'_>, cx: &Cx<'_>) -> u32 {
    depth_at(x, cx.depth)
}

/// [`depth`], with `json` the bound of the input's values.
fn depth_at(x: &Out<'_>, json: u32) -> u32 {
    match x {
        Out::Json(_) => json,
        Out::Made(w) => w.d,
        Out::List(_, d) => *d,
        // A key is a string or a number: a scalar's depth (0).
        Out::Entry(e) => depth_at(&e.1, json).saturating_add(1),
        Out::Obj(_, d) => *d,
    }
}

/// A string of the expression's as jaq's value.
fn text(s: &str) -> W {
    W::scalar(Val::utf8_str(s.to_string()))
}

/// `to_entries`: `[key_values[] as [$key, $value] | {$key, $value}]`.
fn to_entries<'a>(x: &Out<'a>, cx: &Cx<'a>) -> R<Out<'a>> {
    let entry = |k: Key<'a>, v: Out<'a>| Out::Entry(Rc::new((k, v)));
    let items: Vec<Out<'a>> = match x {
        // The input's keys borrowed, made strings only where read.
        Out::Json(Value::Object(o)) => sorted(o)?
            .into_iter()
            .map(|(k, v)| entry(Key::Json(k), Out::Json(v)))
            .collect(),
        Out::Json(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, v)| entry(Key::Nth(i), Out::Json(v)))
            .collect(),
        Out::List(l, _) => l
            .iter()
            .enumerate()
            .map(|(i, v)| entry(Key::Nth(i), v.clone()))
            .collect(),
        Out::Entry(e) => vec![
            entry(Key::Json("key"), e.0.out()),
            entry(Key::Json("value"), e.1.clone()),
        ],
        Out::Obj(m, _) => m.iter().map(|(k, v)| entry(k.clone(), v.clone())).collect(),
        Out::Made(w) if matches!(w.v, Val::Arr(_) | Val::Obj(_)) => {
            let mut items = Vec::new();
            let array = matches!(w.v, Val::Arr(_));
            for (i, kv) in jaq_core::ValT::key_values(w.clone()).enumerate() {
                let (k, v) = failed(kv)?;
                // An array's keys are its indices, an object's strings.
                let k = match array {
                    true => Key::Nth(i),
                    false => Key::of(Out::Made(k)).ok_or(Stop::Jaq)?,
                };
                items.push(entry(k, Out::Made(v)));
            }
            items
        }
        _ => return Err(Stop::Jaq),
    };
    if items.len() > cx.caps.max_collection {
        return Err(Stop::Jaq);
    }
    value::alloc_slots(items.len()).map_err(|_| recorded())?;
    list(items, cx)
}

/// Whether object `x` has the key `k` (`None`: not an object, jaq's to
/// answer).
fn has(x: &Out<'_>, k: &str) -> Option<bool> {
    match x {
        Out::Json(Value::Object(o)) => Some(o.contains_key(k)),
        Out::Entry(_) => Some(k == "key" || k == "value"),
        Out::Obj(m, _) => Some(member(m, k.as_bytes()).is_some()),
        Out::Made(W { v: Val::Obj(o), .. }) => Some(o.contains_key(&Val::utf8_str(k.to_string()))),
        _ => None,
    }
}

/// `from_entries`, gojq's: `reduce .[] as $x ({}; . + {($x | .key // .Key
/// // .name // .Name): ($x | if has("value") then .value else .Value
/// end)})`.
fn from_entries<'a>(x: &Out<'a>, cx: &Cx<'a>) -> R<Out<'a>> {
    let mut pairs = Vec::new();
    each(x, |e| {
        // An entry `to_entries` made: its key (a string or an index, never
        // false or null: the first lookup finds it) taken as it is held,
        // with the steps of the two lookups.
        if let Out::Entry(en) = &e {
            step()?;
            let (Key::Json(_) | Key::Made(_)) = en.0 else {
                return Err(Stop::Jaq);
            };
            step()?;
            value::tick_n(1 + pairs.len() as u64).map_err(|_| recorded())?;
            pairs.push((en.0.clone(), en.1.clone()));
            return Ok(true);
        }
        let mut key = Out::Json(&NULL);
        for k in ["key", "Key", "name", "Name"] {
            key = index_key(e.clone(), k)?;
            if key.truthy() {
                break;
            }
        }
        let v = match has(&e, "value").ok_or(Stop::Jaq)? {
            true => "value",
            false => "Value",
        };
        let v = index_key(e, v)?;
        // As the sum of one-member objects: a step and the key's bytes
        // for each, and each sum checks the order of what it has.
        value::tick_n(1 + pairs.len() as u64).map_err(|_| recorded())?;
        pairs.push((Key::of(key).ok_or(Stop::Jaq)?, v));
        Ok(true)
    })?;
    object(pairs, cx)
}

/// `map_values(f)` (`.[] |= f`) with `f` giving one output: each value of
/// an object replaced by its output (in the object's order), each element
/// of an array too.
/// The elements of an array (jaq-std's `into_vec`, as its natives take
/// them); anything else is jaq's error.
fn into_vec(w: W) -> R<Vec<W>> {
    jaq_std::ValT::into_seq::<Vec<W>>(w).map_err(|_| Stop::Jaq)
}

/// jaq-std's `group_by` native, with `f` (`None`: `.`) run by the fast
/// path: the array's elements keyed by every output of `f`, sorted by key
/// (the metered order, stable), and runs of equal keys grouped, in order.
fn group_by<'a>(f: Option<&'a N>, x: &Out<'a>, cx: &mut Cx<'a>) -> R<Vec<Vec<W>>> {
    let xs = into_vec(operand(x.clone())?)?;
    let mut yx: Vec<(Vec<W>, W)> = Vec::with_capacity(xs.len());
    for x in xs {
        let ys = match f {
            None => vec![x.clone()],
            Some(f) => {
                let mut ys = Vec::new();
                eval_all(f, &Out::Made(x.clone()), cx, &mut |y| {
                    ys.push(operand(y)?);
                    Ok(())
                })?;
                ys
            }
        };
        yx.push((ys, x));
    }
    yx.sort_by(|(y1, _), (y2, _)| y1.cmp(y2));
    breached()?;
    let mut grouped = Vec::new();
    let mut yx = yx.into_iter();
    if let Some((mut group_y, first_x)) = yx.next() {
        let mut group = vec![first_x];
        for (y, x) in yx {
            if group_y != y {
                grouped.push(std::mem::take(&mut group));
                group_y = y;
            }
            group.push(x);
        }
        grouped.push(group);
    }
    breached()?;
    Ok(grouped)
}

fn map_values<'a>(f: &'a N, x: &Out<'a>, cx: &mut Cx<'a>) -> R<Out<'a>> {
    value::tick().map_err(|_| recorded())?;
    let x = match x {
        Out::Entry(_) => Out::Made(operand(x.clone())?),
        x => x.clone(),
    };
    let mut nd = 0u32;
    let mut value = |v: Out<'a>, cx: &mut Cx<'a>| -> R<Out<'a>> {
        let y = eval(f, &v, cx)?;
        nd = nd.max(depth(&y, cx).saturating_add(1));
        Ok(y)
    };
    // An object's members keep their keys (in jq's order, as they were);
    // the new values stay as the run made them.
    let mut members = |pairs: Vec<(Key<'a>, Out<'a>)>, cx: &mut Cx<'a>| -> R<Out<'a>> {
        value::alloc_slots(2 * pairs.len()).map_err(|_| recorded())?;
        // Each value replaced where it is (the list collected in place).
        let out = pairs
            .into_iter()
            .map(|(k, v)| Ok((k, value(v, cx)?)))
            .collect::<R<Members<'a>>>()?;
        Ok(Out::Obj(Rc::new(out), 0))
    };
    let made = match &x {
        Out::Json(Value::Object(o)) => members(
            sorted(o)?
                .into_iter()
                .map(|(k, v)| (Key::Json(k), Out::Json(v)))
                .collect(),
            cx,
        )?,
        Out::Obj(m, _) => members(m.as_ref().clone(), cx)?,
        Out::Made(W { v: Val::Obj(o), d }) => {
            let d = d.saturating_sub(1);
            let pairs = o
                .iter()
                .map(|(k, v)| {
                    let k = Key::of(Out::Made(W::scalar(k.clone()))).ok_or(Stop::Jaq)?;
                    Ok((k, Out::Made(W { v: v.clone(), d })))
                })
                .collect::<R<Vec<_>>>()?;
            members(pairs, cx)?
        }
        Out::Json(Value::Array(_)) | Out::List(..) | Out::Made(W { v: Val::Arr(_), .. }) => {
            let mut items = Vec::new();
            each(&x, |e| {
                items.push(e);
                Ok(true)
            })?;
            value::alloc_slots(items.len()).map_err(|_| recorded())?;
            let mut out = Vec::with_capacity(items.len());
            for e in items {
                out.push(value(e, cx)?);
            }
            Out::List(Rc::new(out), 0)
        }
        _ => return Err(Stop::Jaq),
    };
    if nd > cx.caps.max_depth {
        return Err(Stop::Jaq);
    }
    Ok(match made {
        Out::Obj(m, _) => Out::Obj(m, nd.max(1)),
        Out::List(l, _) => Out::List(l, nd.max(1)),
        other => other,
    })
}

/// A function of `x`, as jaq's definition or native computes it.
fn fun<'a>(f: Fun, x: &Out<'a>, cx: &mut Cx<'a>) -> R<Out<'a>> {
    let made = |r: jaq_core::ValR<W>| -> R<Out<'a>> { Ok(Out::Made(failed(r)?)) };
    // The engine's own natives, which jaq runs too: their error is jaq's
    // (a limit they breach is the limit's).
    let raised = |r: jaq_core::ValR<W>| -> R<Out<'a>> {
        breached()?;
        r.map(Out::Made).map_err(|_| Stop::Error)
    };
    match f {
        Fun::Length => match x {
            Out::Json(Value::Array(a)) => Ok(Out::Made(W::scalar(Val::from(a.len())))),
            Out::Json(Value::Object(o)) => Ok(Out::Made(W::scalar(Val::from(o.len())))),
            Out::List(l, _) => Ok(Out::Made(W::scalar(Val::from(l.len())))),
            Out::Entry(_) => Ok(Out::Made(W::scalar(Val::from(2usize)))),
            Out::Obj(m, _) => Ok(Out::Made(W::scalar(Val::from(m.len())))),
            x => made(super::natives::length(&operand(x.clone())?)),
        },
        Fun::Type => {
            let name = match x {
                Out::Json(v) => match v {
                    Value::Null => "null",
                    Value::Bool(_) => "boolean",
                    Value::Number(_) => "number",
                    Value::String(_) => "string",
                    Value::Array(_) => "array",
                    Value::Object(_) => "object",
                },
                Out::List(..) => "array",
                Out::Entry(_) | Out::Obj(..) => "object",
                Out::Made(w) => value::type_name(&w.v),
            };
            Ok(Out::Made(W::scalar(Val::utf8_str(name.to_string()))))
        }
        // `reduce .[] as $x (null; . + $x)`: objects summed as `l + r`
        // sums them ([`add_objects`]), anything else by jaq's `+` on the
        // converted values.
        Fun::Add => {
            let mut acc = Out::Json(&NULL);
            each(x, |e| {
                let l = std::mem::replace(&mut acc, Out::Json(&NULL));
                acc = match add_objects(l, e, cx)? {
                    Ok(sum) => sum,
                    Err((l, r)) => Out::Made(failed(operand(l)? + operand(r)?)?),
                };
                Ok(true)
            })?;
            Ok(acc)
        }
        // `max_by(.)`/`min_by(.)`: the last greatest, the first least; an
        // array only (anything else is jaq's error), `null` when empty.
        Fun::Max | Fun::Min => {
            if matches!(
                x,
                Out::Json(Value::Object(_)) | Out::Entry(_) | Out::Obj(..)
            ) {
                return Err(Stop::Jaq);
            }
            let mut best: Option<(Out<'a>, W)> = None;
            each(x, |e| {
                let k = operand(e.clone())?;
                let replace = match &best {
                    None => true,
                    Some((_, b)) => {
                        let o = k.cmp(b);
                        breached()?;
                        match f {
                            Fun::Max => o != std::cmp::Ordering::Less,
                            _ => o == std::cmp::Ordering::Less,
                        }
                    }
                };
                if replace {
                    best = Some((e, k));
                }
                Ok(true)
            })?;
            Ok(best.map_or(Out::Json(&NULL), |(e, _)| e))
        }
        Fun::Downcase => made(map_str(operand(x.clone())?, <[u8]>::to_ascii_lowercase)?),
        Fun::Upcase => made(map_str(operand(x.clone())?, <[u8]>::to_ascii_uppercase)?),
        Fun::Floor => made(round(operand(x.clone())?, f64::floor)?),
        Fun::Ceil => made(round(operand(x.clone())?, f64::ceil)?),
        Fun::ToNumber => raised(super::natives::tonumber(&operand(x.clone())?.v)),
        // `if type == "string" then . else tojson end`
        Fun::ToString => match x {
            Out::Json(Value::String(_)) => Ok(x.clone()),
            Out::Made(w) if value::type_name(&w.v) == "string" => Ok(x.clone()),
            x => made(super::natives::tojson(&operand(x.clone())?.v)),
        },
        Fun::ToEntries => to_entries(x, cx),
        Fun::FromEntries => from_entries(x, cx),
        Fun::FromJson => raised(super::natives::fromjson(&operand(x.clone())?.v)),
        // jaq-std's native: `mutate_arr(|a| a.sort())`, by the metered order.
        Fun::Sort => {
            let mut a = into_vec(operand(x.clone())?)?;
            a.sort();
            breached()?;
            let sorted = W::from_iter(a);
            breached()?;
            Ok(Out::Made(sorted))
        }
        Fun::Unique => {
            let groups = group_by(None, x, cx)?;
            let firsts = groups.into_iter().filter_map(|g| g.into_iter().next());
            let w = W::from_iter(firsts);
            breached()?;
            Ok(Out::Made(w))
        }
        Fun::Interp => match x {
            Out::Json(Value::String(_)) => Ok(x.clone()),
            x => {
                let w = jaq_core::ValT::into_string(operand(x.clone())?);
                // A string past its cap is recorded as a breach.
                breached()?;
                Ok(Out::Made(w))
            }
        },
    }
}

/// A function of `x` and the argument's output `arg`, as the engine's
/// natives and jaq's definitions compute it.
fn fun1<'a>(f: Fun1, x: &Out<'a>, arg: Out<'a>) -> R<Out<'a>> {
    let (x, arg) = (operand(x.clone())?, operand(arg)?);
    let r = match f {
        Fun1::Ltrimstr => super::natives::trim_fix(&x.v, &arg.v, true),
        Fun1::Rtrimstr => super::natives::trim_fix(&x.v, &arg.v, false),
        Fun1::Startswith => super::natives::affix(&x.v, &arg.v, true),
        Fun1::Endswith => super::natives::affix(&x.v, &arg.v, false),
        // `def split($sep): if isstring and ($sep | isstring) then . / $sep
        // else error(...) end;`
        Fun1::Split => {
            let string = |w: &W| matches!(w.v, Val::TStr(_) | Val::BStr(_));
            if !string(&x) || !string(&arg) {
                return Err(Stop::Jaq);
            }
            x / arg
        }
    };
    Ok(Out::Made(failed(r)?))
}

/// jaq-std's `map_utf8_str`: `f` of a string's bytes, a new string; any
/// other value is jaq's error.
fn map_str(w: W, f: impl FnOnce(&[u8]) -> Vec<u8>) -> R<jaq_core::ValR<W>> {
    use jaq_std::ValT as _;
    let b = w.as_utf8_bytes().ok_or(Stop::Jaq)?;
    Ok(Ok(W::from_utf8_bytes(f(b))))
}

/// jaq-std's `round`: an integer as it is, a float rounded by `f` (an
/// integer when it fits, else printed without decimals).
fn round(w: W, f: impl FnOnce(f64) -> f64) -> R<jaq_core::ValR<W>> {
    use jaq_std::ValT as _;
    if w.is_int() {
        return Ok(Ok(w));
    }
    let x = f(w.as_f64().ok_or(Stop::Jaq)?);
    Ok(if !x.is_finite() {
        Ok(W::from(x))
    } else if isize::MIN as f64 <= x && x <= isize::MAX as f64 {
        Ok(W::from(x as isize))
    } else {
        W::from_num(&format!("{x:.0}"))
    })
}

/// The limit error of a breach recorded during a value operation.
fn breached() -> R<()> {
    match value::recorded_breach() {
        Some((limit, message)) => Err(Stop::limit(EvalError::Limit { limit, message })),
        None => Ok(()),
    }
}

/// An operand of an operation as jaq's value: a value of the input is
/// converted as the input would be (charged as a conversion); a collected
/// array is built as jaq builds it, a slot per element, each collection
/// converted once however many times it is shared (`def d: [., .]; 1 | d
/// | d | ...` shares each level twice: expanding it would be exponential).
fn operand(o: Out<'_>) -> R<W> {
    operand_shared(o, &mut std::collections::HashMap::new())
}

/// [`operand`], with the collections converted so far (by address).
fn operand_shared<'a>(o: Out<'a>, done: &mut std::collections::HashMap<usize, W>) -> R<W> {
    match o {
        Out::Made(w) => Ok(w),
        Out::Json(v) => {
            if v.is_array() || v.is_object() {
                crate::budget::copy_of(v).map_err(|e| Stop::limit(from_error(e)))?;
            }
            let (v, d) = format::from_value(v);
            Ok(W { v, d })
        }
        // `{$key, $value}`: `{key: $key} + {value: $value}`, as jaq builds it.
        Out::Entry(e) => {
            let (k, v) = (e.0.out(), e.1.clone());
            let key = W::object(vec![(text("key"), operand_shared(k, done)?)]);
            let value = W::object(vec![(text("value"), operand_shared(v, done)?)]);
            match (key, value) {
                (Ok(key), Ok(value)) => (key + value).map_err(|_| recorded()),
                _ => Err(recorded()),
            }
        }
        Out::Obj(m, d) => {
            let at = Rc::as_ptr(&m) as usize;
            if let Some(w) = done.get(&at) {
                return Ok(w.clone());
            }
            value::alloc_slots(2 * m.len()).map_err(|_| recorded())?;
            let mut map = jaq_json::Map::default();
            for (k, v) in m.iter() {
                map.insert(k.val(), operand_shared(v.clone(), done)?.v);
            }
            let w = W {
                v: Val::obj(map),
                d,
            };
            done.insert(at, w.clone());
            Ok(w)
        }
        Out::List(items, d) => {
            let at = Rc::as_ptr(&items) as usize;
            if let Some(w) = done.get(&at) {
                return Ok(w.clone());
            }
            value::alloc_slots(items.len()).map_err(|_| recorded())?;
            let mut vals = Vec::with_capacity(items.len());
            for x in items.iter() {
                vals.push(operand_shared(x.clone(), done)?.v);
            }
            let w = W {
                v: Val::Arr(Rc::new(vals)),
                d,
            };
            done.insert(at, w.clone());
            Ok(w)
        }
    }
}

/// The limit a failed value operation breached (recorded by the engine's
/// value type), or jaq's to answer.
fn recorded() -> Stop {
    match value::recorded_breach() {
        Some((limit, message)) => Stop::limit(EvalError::Limit { limit, message }),
        None => Stop::Jaq,
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

/// The paths into the input a term's outputs may be; a value the term
/// made stands for none (what it holds of the input is read whole).
type Paths<'n> = Vec<Vec<super::reads::PathStep<'n>>>;

/// Following an expression's reads ([`Fast::reads`]).
struct Follow<'n, 'r> {
    reads: &'r mut super::reads::Reads,
    /// What the analysis may still take.
    bounds: &'r mut super::reads::Bounds,
    /// The paths each bound variable stands for, innermost last.
    vars: Vec<Paths<'n>>,
}

impl<'n> Follow<'n, '_> {
    /// Everything of the values at `paths` is read.
    fn whole(&mut self, paths: &Paths<'n>) -> Option<()> {
        for p in paths {
            self.reads
                .read_whole(p, &mut self.bounds.nodes)
                .then_some(())?;
        }
        Some(())
    }

    /// The outputs of `n` read whole.
    fn whole_of(&mut self, n: &'n N, input: &Paths<'n>) -> Option<()> {
        let outs = self.term(n, input)?;
        self.whole(&outs)
    }

    /// `paths`, each one step further.
    fn step(paths: &Paths<'n>, step: super::reads::PathStep<'n>) -> Option<Paths<'n>> {
        use super::reads::MAX_PATHS;
        paths
            .iter()
            .map(|p| {
                (p.len() < MAX_PATHS).then(|| {
                    let mut p = p.clone();
                    p.push(step);
                    p
                })
            })
            .collect()
    }

    /// The paths `n`'s outputs may be, given those of its input; each read
    /// at least for its type. `None`: the analysis cannot follow `n`.
    fn term(&mut self, n: &'n N, input: &Paths<'n>) -> Option<Paths<'n>> {
        use super::reads::PathStep as P;
        self.bounds.work = self.bounds.work.checked_sub(1)?;
        let outs: Paths<'n> = match &n.kind {
            Kind::Id => input.clone(),
            Kind::Empty | Kind::Lit(_) | Kind::Const(_) => Vec::new(),
            Kind::Path(keys) => {
                let mut out = input.clone();
                for k in keys {
                    out = Self::step(&out, P::Key(k))?;
                }
                out
            }
            Kind::Steps(base, steps) => {
                let mut out = match base {
                    None => input.clone(),
                    Some(b) => self.term(b, input)?,
                };
                for s in steps {
                    let s = match s {
                        Step::Key(k) => P::Key(k),
                        Step::Nth(_) => P::Nth,
                        Step::Each | Step::EachOpt => P::Each,
                    };
                    out = Self::step(&out, s)?;
                }
                out
            }
            Kind::Var(i) => {
                let at = self.vars.len().checked_sub(1 + i)?;
                self.vars.get(at)?.clone()
            }
            Kind::Bind(src, body) => {
                let x = self.term(src, input)?;
                self.vars.push(x);
                let out = self.term(body, input);
                self.vars.pop();
                out?
            }
            // Values put into a value the term makes, computed with,
            // compared or converted: read whole.
            Kind::Collect(x) | Kind::Neg(x) => {
                self.whole_of(x, input)?;
                Vec::new()
            }
            Kind::Cmp(l, _, r) | Kind::Math(l, _, r) | Kind::Index(l, r) => {
                self.whole_of(l, input)?;
                self.whole_of(r, input)?;
                Vec::new()
            }
            Kind::Obj(entries) => {
                for (k, v) in entries {
                    self.whole_of(k, input)?;
                    self.whole_of(v, input)?;
                }
                Vec::new()
            }
            Kind::Fun(Fun::Type) => Vec::new(),
            Kind::Fun(_) => {
                self.whole(input)?;
                Vec::new()
            }
            Kind::Fun1(_, arg) => {
                self.whole(input)?;
                self.whole_of(arg, input)?;
                Vec::new()
            }
            Kind::Matches(re, flags) | Kind::Sub(re, flags, _) => {
                self.whole(input)?;
                self.whole_of(re, input)?;
                self.whole_of(flags, input)?;
                Vec::new()
            }
            Kind::GroupBy(f) => {
                self.whole(input)?;
                self.whole_of(f, &Self::step(input, P::Each)?)?;
                Vec::new()
            }
            // Every member's key, each value as `f` reads it.
            Kind::MapValues(f) => {
                self.whole_of(f, &Self::step(input, P::Each)?)?;
                Vec::new()
            }
            // Outputs counted, not read; truthiness read (the type kept).
            Kind::Count(x) | Kind::Not(x) => {
                self.term(x, input)?;
                Vec::new()
            }
            Kind::Logic(l, _, r) => {
                self.term(l, input)?;
                self.term(r, input)?;
                Vec::new()
            }
            Kind::Quant(_, xs, cond) => {
                let xs = self.term(xs, input)?;
                self.term(cond, &Self::step(&xs, P::Each)?)?;
                Vec::new()
            }
            Kind::Comma(l, r) | Kind::Alt(l, r) => {
                let mut out = self.term(l, input)?;
                out.extend(self.term(r, input)?);
                out
            }
            Kind::Pipe(l, r) => {
                let x = self.term(l, input)?;
                self.term(r, &x)?
            }
            Kind::If(branches, otherwise) => {
                let mut out = Vec::new();
                for (c, t) in branches {
                    self.term(c, input)?;
                    out.extend(self.term(t, input)?);
                }
                match otherwise {
                    Some(e) => out.extend(self.term(e, input)?),
                    None => out.extend(input.iter().cloned()),
                }
                out
            }
            Kind::Try(f) => self.term(f, input)?,
        };
        if outs.len() > super::reads::MAX_PATHS {
            return None;
        }
        let steps: usize = outs.iter().map(Vec::len).sum();
        self.bounds.work = self.bounds.work.checked_sub(steps)?;
        for p in &outs {
            self.reads.touch(p, &mut self.bounds.nodes).then_some(())?;
        }
        Some(outs)
    }
}

/// What classifying a term knows of where it is.
struct Cls<'t, 's> {
    /// The variables bound around it, innermost last.
    scope: Vec<&'s str>,
    /// The definitions it can call, innermost last.
    defs: Vec<Def<'t, 's>>,
    /// Terms left to build: calls of definitions are inlined, which nested
    /// definitions could make exponential.
    budget: usize,
    /// Whether a part of the expression was left out (see [`Fast`]).
    hidden: bool,
}

/// A definition (`def name($a; $b): body;`); `body` is `None` inside its
/// own body (a recursive call is outside the subset).
struct Def<'t, 's> {
    name: &'s str,
    args: &'t [&'s str],
    body: Option<&'t Term<&'s str>>,
    /// How many definitions its body can call (those before it).
    before: usize,
    /// How many variables are bound where it is defined (the first of
    /// those bound where it is called: definitions nest lexically).
    scope: usize,
}

/// A name no variable of jq can have, for a binding the call of a
/// definition makes before its next argument is classified.
const HIDDEN: &str = "$\0";

/// The subset's form of a term, `None` for anything outside it.
fn node<'t, 's>(term: &'t Term<&'s str>, cl: &mut Cls<'t, 's>) -> Option<N> {
    cl.budget = cl.budget.checked_sub(1)?;
    Some(N::new(match term {
        Term::Def(defs, rest) => {
            let before = cl.defs.len();
            for d in defs {
                cl.defs.push(Def {
                    name: d.name,
                    args: &d.args,
                    body: Some(&d.body),
                    before: cl.defs.len(),
                    scope: cl.scope.len(),
                });
            }
            let rest = node(rest, cl);
            cl.defs.truncate(before);
            return rest;
        }
        Term::Call(name, args)
            if cl
                .defs
                .iter()
                .any(|d| d.name == *name && d.args.len() == args.len()) =>
        {
            return inline(name, args, cl);
        }
        Term::Path(..) => {
            let mut path = Vec::new();
            let base = path_steps(term, &mut path, cl)?;
            match base {
                None if path.iter().all(|s| matches!(s, Step::Key(_))) => Kind::Path(
                    path.into_iter()
                        .filter_map(|s| match s {
                            Step::Key(k) => Some(k),
                            _ => None,
                        })
                        .collect(),
                ),
                base => Kind::Steps(base.map(Box::new), path),
            }
        }
        // A small integer is the JSON number it reads as (jaq's value of
        // either is the same integer).
        Term::Num(n)
            if n.len() < 16
                && n.bytes().all(|b| b.is_ascii_digit())
                && (n.len() == 1 || !n.starts_with('0')) =>
        {
            Kind::Const(Box::new(Value::from(n.parse::<i64>().ok()?)))
        }
        Term::Num(n) => Kind::Lit(Lit::new_num(n, false)?),
        Term::Neg(x) => match &**x {
            Term::Num(n) => Kind::Lit(Lit::new_num(n, true)?),
            // jaq's negation of any other term's outputs.
            x => Kind::Neg(Box::new(node(x, cl)?)),
        },
        Term::Str(None, parts) => match literal(term) {
            Some(s) => Kind::Const(Box::new(Value::String(s))),
            // Interpolation, as jaq compiles it: the sum of the parts, each
            // literal a string of its own, each term `f | tostring`.
            None => {
                let mut terms = Vec::with_capacity(parts.len());
                for p in parts {
                    terms.push(match p {
                        StrPart::Str(t) => {
                            N::new(Kind::Const(Box::new(Value::String(t.to_string()))))
                        }
                        StrPart::Char(c) => {
                            N::new(Kind::Const(Box::new(Value::String(c.to_string()))))
                        }
                        StrPart::Term(f) => N::new(Kind::Pipe(
                            Box::new(node(f, cl)?),
                            N::boxed(Kind::Fun(Fun::Interp)),
                        )),
                    });
                }
                let mut terms = terms.into_iter().rev();
                let last = terms.next()?;
                return Some(terms.fold(last, |acc, x| {
                    N::new(Kind::Math(Box::new(x), Math::Add, Box::new(acc)))
                }));
            }
        },
        Term::Arr(None) => Kind::Const(Box::new(Value::Array(Vec::new()))),
        Term::Arr(Some(f)) => Kind::Collect(Box::new(node(f, cl)?)),
        Term::Obj(entries) if entries.is_empty() => {
            Kind::Const(Box::new(Value::Object(Default::default())))
        }
        // jaq's sum of one-entry objects, built at once.
        Term::Obj(entries) => {
            let mut parts = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                let (k, v) = match (k, v) {
                    (Term::Var(x), None) => (
                        N::new(Kind::Const(Box::new(Value::String(x[1..].to_string())))),
                        node(k, cl)?,
                    ),
                    (k @ Term::Str(None, _), None) => {
                        let key = literal(k)?;
                        (
                            N::new(Kind::Const(Box::new(Value::String(key.clone())))),
                            N::new(Kind::Path(vec![key])),
                        )
                    }
                    (k, Some(v)) => (node(k, cl)?, node(v, cl)?),
                    _ => return None,
                };
                if !k.single || !v.single {
                    return None;
                }
                parts.push((k, v));
            }
            fold(Kind::Obj(parts))
        }
        Term::Id => Kind::Id,
        // `f?` of a term with one output: that output, or none where it
        // raises an error jaq raises too (Kind::Try). Otherwise `f?` and
        // `try f catch g` are `f` where `f` raises no error; where it does,
        // the fast path cannot answer (its errors are jaq's to give), and
        // jaq runs the whole expression, catching as it does.
        Term::TryCatch(f, None) => {
            let f = node(f, cl)?;
            if !f.single || !f.raises() {
                return Some(f);
            }
            Kind::Try(Box::new(f))
        }
        Term::TryCatch(f, Some(_)) => {
            cl.hidden = true;
            return node(f, cl);
        }
        Term::Var(name) => {
            let i = cl.scope.iter().rev().position(|v| v == name)?;
            Kind::Var(i)
        }
        Term::Call(name, args) => call(name, args, cl)?,
        Term::IfThenElse(branches, otherwise) => Kind::If(
            branches
                .iter()
                .map(|(c, t)| Some((node(c, cl)?, node(t, cl)?)))
                .collect::<Option<_>>()?,
            match otherwise {
                Some(e) => Some(Box::new(node(e, cl)?)),
                None => None,
            },
        ),
        Term::BinOp(l, op, r) => {
            let l = Box::new(node(l, cl)?);
            match op {
                BinaryOp::Pipe(Some(Pattern::Var(x))) => {
                    cl.scope.push(x);
                    let body = node(r, cl);
                    cl.scope.pop();
                    Kind::Bind(l, Box::new(body?))
                }
                BinaryOp::Pipe(Some(_)) => return None,
                BinaryOp::Pipe(None) => match &**r {
                    Term::Call("not", args) if args.is_empty() => Kind::Not(l),
                    r => count_of_collect(l, Box::new(node(r, cl)?)),
                },
                BinaryOp::Comma => Kind::Comma(l, Box::new(node(r, cl)?)),
                BinaryOp::Alt => Kind::Alt(l, Box::new(node(r, cl)?)),
                BinaryOp::And => Kind::Logic(l, false, Box::new(node(r, cl)?)),
                BinaryOp::Or => Kind::Logic(l, true, Box::new(node(r, cl)?)),
                BinaryOp::Cmp(op) => Kind::Cmp(l, *op, Box::new(node(r, cl)?)),
                BinaryOp::Math(op) => Kind::Math(l, *op, Box::new(node(r, cl)?)),
                _ => return None,
            }
        }
        _ => return None,
    }))
}

/// A call of a definition, inlined: `def f($a; $b): body;` called as
/// `f(x; y)` is `x as $a | y as $b | body` (jq's meaning of `$` parameters),
/// the arguments read where the call is, the body where the definition is.
/// Filter parameters and recursion are outside the subset.
fn inline<'t, 's>(name: &str, args: &'t [Term<&'s str>], cl: &mut Cls<'t, 's>) -> Option<N> {
    let i = cl
        .defs
        .iter()
        .rposition(|d| d.name == name && d.args.len() == args.len())?;
    let d = &cl.defs[i];
    let (params, body, before, defined) = (d.args, d.body?, d.before, d.scope);
    if params.iter().any(|p| !p.starts_with('$')) {
        return None;
    }
    let outer = cl.scope.len();
    let mut values = Vec::with_capacity(args.len());
    for a in args {
        let v = node(a, cl);
        cl.scope.push(HIDDEN);
        values.push(v);
    }
    cl.scope.truncate(outer);
    let values: Vec<N> = values.into_iter().collect::<Option<_>>()?;
    // The body sees the variables where it is defined (those bound since,
    // up to the call, hidden), its parameters, and the definitions before
    // it (and itself as a recursive call it cannot take).
    if outer < defined {
        return None;
    }
    let mut inner = cl.scope[..defined].to_vec();
    inner.extend(std::iter::repeat_n(HIDDEN, outer - defined));
    inner.extend(params);
    let scope = std::mem::replace(&mut cl.scope, inner);
    let later = cl.defs.split_off(before);
    cl.defs.push(Def {
        name: later[0].name,
        args: later[0].args,
        body: None,
        before,
        scope: defined,
    });
    let n = node(body, cl);
    cl.defs.truncate(before);
    cl.defs.extend(later);
    cl.scope = scope;
    let mut n = n?;
    for v in values.into_iter().rev() {
        n = N::new(Kind::Bind(Box::new(v), Box::new(n)));
    }
    Some(n)
}

/// A call of a standard filter in the subset, as the subset's terms.
fn call<'t, 's>(name: &str, args: &'t [Term<&'s str>], cl: &mut Cls<'t, 's>) -> Option<Kind> {
    let each = || N::new(Kind::Steps(None, vec![Step::Each]));
    Some(match (name, args) {
        ("null", []) => Kind::Const(Box::new(Value::Null)),
        ("true", []) => Kind::Const(Box::new(Value::Bool(true))),
        ("false", []) => Kind::Const(Box::new(Value::Bool(false))),
        ("empty", []) => Kind::Empty,
        ("not", []) => Kind::Not(N::boxed(Kind::Id)),
        // `def select(f): if f then . else empty end;`
        ("select", [f]) => Kind::If(
            vec![(node(f, cl)?, N::new(Kind::Id))],
            Some(N::boxed(Kind::Empty)),
        ),
        // `def map(f): [.[] | f];`
        ("map", [f]) => Kind::Collect(N::boxed(Kind::Pipe(
            Box::new(each()),
            Box::new(node(f, cl)?),
        ))),
        ("map_values", [f]) => {
            let f = node(f, cl)?;
            if !f.single {
                return None;
            }
            Kind::MapValues(Box::new(f))
        }
        // `def with_entries(f): to_entries | map(f) | from_entries;`
        ("with_entries", [f]) => Kind::Pipe(
            N::boxed(Kind::Fun(Fun::ToEntries)),
            N::boxed(Kind::Pipe(
                N::boxed(Kind::Collect(N::boxed(Kind::Pipe(
                    Box::new(each()),
                    Box::new(node(f, cl)?),
                )))),
                N::boxed(Kind::Fun(Fun::FromEntries)),
            )),
        ),
        ("first", []) => Kind::Steps(None, vec![Step::Nth(0)]),
        ("last", []) => Kind::Steps(None, vec![Step::Nth(-1)]),
        ("any" | "all", []) => Kind::Quant(name == "any", N::boxed(Kind::Id), N::boxed(Kind::Id)),
        ("any" | "all", [cond]) => {
            let cond = node(cond, cl)?;
            if !cond.single {
                return None;
            }
            Kind::Quant(name == "any", N::boxed(Kind::Id), Box::new(cond))
        }
        // `any(xs[]; cond)`: the elements of one value, each deciding with
        // one output (so that stopping early is jaq's stopping early).
        ("any" | "all", [g, cond]) => {
            let g = node(g, cl)?;
            let cond = node(cond, cl)?;
            let Kind::Steps(base, mut path) = g.kind else {
                return None;
            };
            if !cond.single || !matches!(path.pop(), Some(Step::Each)) {
                return None;
            }
            let xs = N::new(Kind::Steps(base, path));
            if !xs.single {
                return None;
            }
            Kind::Quant(name == "any", Box::new(xs), Box::new(cond))
        }
        // jaq-std's definitions over the `matches` native:
        // `def test(re; flags): matches(re; flags) | any;`
        // `def capture(re; flags): matches(re; flags)[] | capture_of_match;`
        // and their one-argument forms with `""` for flags.
        ("test" | "capture", [re]) | ("test" | "capture", [re, _]) => {
            let re = node(re, cl)?;
            let flags = match args {
                [_, flags] => node(flags, cl)?,
                _ => N::new(Kind::Const(Box::new(Value::String(String::new())))),
            };
            if !re.single || !flags.single {
                return None;
            }
            let matches = N::boxed(Kind::Matches(Box::new(re), Box::new(flags)));
            if name == "test" {
                Kind::Pipe(
                    matches,
                    N::boxed(Kind::Quant(true, N::boxed(Kind::Id), N::boxed(Kind::Id))),
                )
            } else {
                Kind::Pipe(
                    matches,
                    N::boxed(Kind::Pipe(Box::new(each()), Box::new(capture_of_match()?))),
                )
            }
        }
        // `def sub(re; f): sub(re; f; "");`, `def gsub(re; f): sub(re; f;
        // "g");`, `def gsub(re; f; flags): sub(re; f; "g" + flags);`, with
        // `f` a string literal (no interpolation: the captures are unused)
        // and the flags, if given, a string literal.
        ("sub" | "gsub", [re, with]) | ("sub" | "gsub", [re, with, _]) => {
            let re = node(re, cl)?;
            let with = literal(with)?;
            let mut flags = match args {
                [_, _, flags] => literal(flags)?,
                _ => String::new(),
            };
            if name == "gsub" {
                flags.insert(0, 'g');
            }
            if !re.single {
                return None;
            }
            let flags = N::new(Kind::Const(Box::new(Value::String(flags))));
            Kind::Sub(Box::new(re), Box::new(flags), with.into())
        }
        ("group_by", [f]) => Kind::GroupBy(Box::new(node(f, cl)?)),
        ("ltrimstr" | "rtrimstr" | "startswith" | "endswith" | "split", [arg]) => {
            let arg = node(arg, cl)?;
            if !arg.single {
                return None;
            }
            let f = match name {
                "ltrimstr" => Fun1::Ltrimstr,
                "rtrimstr" => Fun1::Rtrimstr,
                "startswith" => Fun1::Startswith,
                "endswith" => Fun1::Endswith,
                _ => Fun1::Split,
            };
            Kind::Fun1(f, Box::new(arg))
        }
        (_, []) => Kind::Fun(match name {
            "tostring" => Fun::ToString,
            "to_entries" => Fun::ToEntries,
            "from_entries" => Fun::FromEntries,
            "length" => Fun::Length,
            "add" => Fun::Add,
            "max" => Fun::Max,
            "min" => Fun::Min,
            "type" => Fun::Type,
            "ascii_downcase" => Fun::Downcase,
            "ascii_upcase" => Fun::Upcase,
            "floor" => Fun::Floor,
            "ceil" => Fun::Ceil,
            "tonumber" => Fun::ToNumber,
            "fromjson" => Fun::FromJson,
            "sort" => Fun::Sort,
            "unique" => Fun::Unique,
            _ => return None,
        }),
        _ => return None,
    })
}

/// jaq-std's `capture_of_match`, in the subset.
fn capture_of_match() -> Option<N> {
    const CODE: &str = "map(select(.name) | {(.name): .string}) | add + {}";
    let tokens = super::check::lex(CODE).ok()?;
    let term = super::check::parse_term(CODE, &tokens).ok()?;
    let mut cl = Cls {
        scope: Vec::new(),
        defs: Vec::new(),
        budget: usize::MAX,
        hidden: false,
    };
    node(&term, &mut cl)
}

/// `l | r`, where `l` is `[f]` and `r` reads only its length (`length`,
/// or `length <op> c` of a literal `c`), as `[f] | length` counted
/// ([`Kind::Count`]) piped to `r` reading `.` for `length`: the same steps
/// (a step for `[f]`, one for `.` where `length` took one), and each
/// output charged and checked as `[f]` does it, without the array.
fn count_of_collect(l: Box<N>, r: Box<N>) -> Kind {
    let literal = |n: &N| matches!(n.kind, Kind::Lit(_) | Kind::Const(_));
    let length = |n: &N| matches!(n.kind, Kind::Fun(Fun::Length));
    let reads_length =
        length(&r) || matches!(&r.kind, Kind::Cmp(a, _, b) if length(a) && literal(b));
    if reads_length && let Kind::Collect(f) = l.kind {
        let r = match r.kind {
            Kind::Cmp(_, op, b) => Kind::Cmp(N::boxed(Kind::Id), op, b),
            _ => Kind::Id,
        };
        return Kind::Pipe(N::boxed(Kind::Count(f)), N::boxed(r));
    }
    Kind::Pipe(l, r)
}

/// An object of literal keys and scalar values (numbers, strings, booleans,
/// `null`, and arithmetic on number literals such as `1 / 1024`) built
/// once, when the expression is compiled, by the same evaluation that
/// would build it on every run: a table such as `{"k": 1024, "m": 1}[.u]`
/// is then a lookup. Its values nest one level, as the expression's own
/// literals are assumed to. Arithmetic on numbers cannot grow, so folding
/// is bounded by the expression's length; anything else is left as it is.
fn fold(kind: Kind) -> Kind {
    fn number(n: &N) -> bool {
        match &n.kind {
            Kind::Lit(Lit::Num(..)) => true,
            Kind::Const(v) => v.is_number(),
            _ => false,
        }
    }
    fn scalar(n: &N) -> bool {
        match &n.kind {
            Kind::Lit(Lit::Num(..)) => true,
            Kind::Const(v) => !v.is_array() && !v.is_object(),
            Kind::Math(l, _, r) => number(l) && number(r),
            _ => false,
        }
    }
    let Kind::Obj(parts) = &kind else {
        return kind;
    };
    if !parts
        .iter()
        .all(|(k, v)| matches!(&k.kind, Kind::Const(k) if k.is_string()) && scalar(v))
    {
        return kind;
    }
    let node = N::new(kind);
    let limits = Limits {
        max_string_bytes: 4096,
        max_collection_len: 4096,
        ..Limits::default()
    };
    match (Fast {
        node: node.clone(),
        hidden: false,
    })
    .run(&Value::Null, 1, &limits)
    {
        Some(Ok(mut v)) if v.len() == 1 && v[0].is_object() => Kind::Const(Box::new(v.remove(0))),
        _ => node.kind,
    }
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

/// An integer literal's value.
fn int(term: &Term<&str>) -> Option<isize> {
    match term {
        Term::Num(n) if n.bytes().all(|b| b.is_ascii_digit()) => n.parse().ok(),
        Term::Neg(x) => int(x).and_then(isize::checked_neg),
        _ => None,
    }
}

/// The steps of a path, appended to `steps`, and the term they start from
/// (`None` for `.`); `None` for a step outside the subset.
fn path_steps<'t, 's>(
    term: &'t Term<&'s str>,
    steps: &mut Vec<Step>,
    cl: &mut Cls<'t, 's>,
) -> Option<Option<N>> {
    let Term::Path(base, path) = term else {
        return None;
    };
    let mut base = match &**base {
        Term::Id => None,
        inner @ Term::Path(..) => path_steps(inner, steps, cl)?,
        other => Some(node(other, cl)?),
    };
    for (part, optional) in &path.0 {
        // `?` only changes what an error does: errors are jaq's to give,
        // but for `[]?`, which drops the error of iterating a value that
        // is neither an array nor an object (and only that: a later
        // step's error is not its own).
        let step = match part {
            Part::Range(None, None) if matches!(optional, jaq_core::path::Opt::Optional) => {
                Step::EachOpt
            }
            Part::Index(key @ Term::Str(None, _)) if literal(key).is_some() => {
                Step::Key(literal(key)?)
            }
            Part::Index(i) if int(i).is_some() => Step::Nth(int(i)?),
            Part::Range(None, None) => Step::Each,
            // `x[k]`: `k` runs on the path's input, as jq's does; the
            // steps so far are `x`.
            Part::Index(k) => {
                let x = match (base.take(), std::mem::take(steps)) {
                    (None, steps) if steps.is_empty() => N::new(Kind::Id),
                    (b, steps) => N::new(Kind::Steps(b.map(Box::new), steps)),
                };
                let k = node(k, cl)?;
                if !x.single || !k.single {
                    return None;
                }
                base = Some(N::new(Kind::Index(Box::new(x), Box::new(k))));
                continue;
            }
            _ => return None,
        };
        steps.push(step);
    }
    Some(base)
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
fn output<'a>(v: &'a Value, limits: &Limits) -> Result<std::borrow::Cow<'a, Value>, EvalError> {
    let left = Meter::Output.left();
    let cap = usize::try_from(left)
        .unwrap_or(usize::MAX)
        .min(limits.effective().max_output_bytes);
    let Some((size, plain, cost)) = output_size(v, cap) else {
        Meter::Output.exhaust();
        return Err(EvalError::Limit {
            limit: "maxOutputBytes",
            message: Meter::Output.message(),
        });
    };
    Meter::Output.take(size as u64).map_err(limit)?;
    cost.charge(v).map_err(from_error)?;
    // The value as it is where no number changes (the caller copies it
    // if it keeps it: a map's copy is much cheaper than rebuilding it).
    Ok(if plain {
        std::borrow::Cow::Borrowed(v)
    } else {
        std::borrow::Cow::Owned(normalized(v))
    })
}

/// The bytes [`format::to_value`] spends on `v`, or `None` past `cap`
/// (counted without recursion, stopping at the cap), whether `v` is its
/// own [`normalized`] copy (every number an integer of a machine word),
/// and what a copy of it is charged (added up in the same walk).
fn output_size(v: &Value, cap: usize) -> Option<(usize, bool, crate::budget::CopyCost)> {
    let mut size = 0usize;
    let mut plain = true;
    let mut cost = crate::budget::CopyCost::default();
    // The stack of children yet to see, held inline for most templates
    // (allocated only past 64).
    let mut stack: smallvec::SmallVec<[&Value; 64]> = smallvec::SmallVec::new();
    let mut next = Some(v);
    while let Some(v) = next.take().or_else(|| stack.pop()) {
        cost.node(v);
        size += match v {
            Value::Null => 4,
            Value::Bool(_) => 5,
            Value::Number(n) => {
                plain &= is_word_int(n);
                8
            }
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
    Some((size, plain, cost))
}

/// An integer of a machine word: jaq's integer, as it is.
fn is_word_int(n: &serde_json::Number) -> bool {
    n.as_i64().is_some_and(|i| isize::try_from(i).is_ok())
}

/// A copy of `v` with its numbers as jaq's round trip gives them (`1.0` is
/// `1`, as gojq prints it). Recursion is bounded by the input's depth,
/// which [`super::Input::new`] checked against `maxDepth`.
fn normalized(v: &Value) -> Value {
    match v {
        // An integer of a machine word is jaq's integer as it is.
        Value::Number(n) if is_word_int(n) => v.clone(),
        Value::Number(n) => format::num_to_value(&format::json_num(n)),
        Value::Array(a) => Value::Array(a.iter().map(normalized).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, x)| (k.clone(), normalized(x))).collect())
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod match_charges {
    use super::*;

    /// The fast path's match objects ([`matched`]) are charged exactly as
    /// the native builds them as jaq's values ([`super::super::regex::run`]):
    /// the same steps and memory, for matches with and without named
    /// groups, groups that took no part, global and multi-byte.
    #[test]
    fn match_objects_are_charged_as_the_native_builds_them() {
        let limits = Limits::default();
        for (text, re, flags) in [
            ("1g", "^(?<n>[0-9]+)(?<u>[a-z]*)$", ""),
            ("a1b22c333", "[0-9]+", "g"),
            ("héllo wörld", "(?<w>\\w+)( )?", "g"),
            ("x", "y", ""),
            ("aaa", "(a)(?<b>b)?", "g"),
            ("", "", "g"),
        ] {
            let meters = |fast: bool| {
                let _guard = BudgetGuard::enter(&limits, caps(&limits));
                let w = |s: &str| W::from(s.to_string());
                let (x, re, flags) = (w(text), w(re), w(flags));
                let (steps, memory) = (Meter::Steps.left(), Meter::Memory.left());
                let spent = || (steps - Meter::Steps.left(), memory - Meter::Memory.left());
                if fast {
                    let parts = super::super::regex::run_parts(&x, &re, &flags, false, true)
                        .unwrap_or_else(|_| panic!("{re} runs"));
                    let cx = Cx {
                        vars: smallvec::SmallVec::new(),
                        depth: 1,
                        caps: caps(&limits),
                    };
                    let Ok(out) = matched(parts, &cx) else {
                        panic!("{re} built")
                    };
                    // Charged before the value is converted to compare it.
                    let spent = spent();
                    (operand(out).map(|w| w.v.to_string()).ok(), spent)
                } else {
                    let out = super::super::regex::run(&x, &re, &flags, false, true);
                    let spent = spent();
                    (out.map(|w| w.v.to_string()).ok(), spent)
                }
            };
            let (fast, native) = (meters(true), meters(false));
            assert!(fast.0.is_some(), "{re} on {text}");
            assert_eq!(fast.0, native.0, "{re} on {text}: the values");
            assert_eq!(fast.1, native.1, "{re} on {text}: steps and memory");
        }
    }

    /// The captures a search finds are charged to memory as it finds them:
    /// with steps to spare, a search of 100,000 captures stops at a 1 MiB
    /// memory limit before the search ends (not after, with the captures
    /// held).
    #[test]
    fn captures_are_charged_as_they_are_found() {
        let limits = Limits {
            max_steps: u64::MAX / 2,
            max_memory_bytes: 1 << 20,
            ..Limits::default()
        };
        let _guard = BudgetGuard::enter(&limits, caps(&limits));
        let w = |s: &str| W::from(s.to_string());
        let (x, re, flags) = (w(&"a".repeat(100_000)), w("(?<x>a)"), w("g"));
        let r = super::super::regex::run_parts(&x, &re, &flags, false, true);
        assert!(r.is_err(), "the search ended holding every capture");
    }
}
