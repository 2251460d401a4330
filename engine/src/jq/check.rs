//! Static checks of jq expressions: size and nesting before parsing, syntax
//! with spans, the reference's deny list over the whole expression tree, and
//! our own rules for bounded evaluation (no recursive `def`s, no IO-ish
//! builtins).

use crate::Limits;
use jaq_core::load::lex::{Lexer, StrPart, Tok, Token};
use jaq_core::load::parse::{BinaryOp, Def, Parser, Pattern, Term};
use jaq_core::path::Part;
use std::collections::{BTreeMap, BTreeSet};

/// What an expression is used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExprMode {
    /// A read path: assignments and denied functions are rejected.
    Read,
    /// A write target (suspend/resume action paths): assignment operators allowed.
    Action,
}

/// Kind of a static problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JqIssueKind {
    /// The expression does not lex/parse/compile.
    Syntax,
    /// The expression uses a denied construct.
    Denied,
    /// The expression exceeds a size/nesting limit.
    Limit,
    /// The expression parses but names a function, variable or label that
    /// does not exist (found when compiling).
    Undefined,
}

/// A static problem of one expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JqIssue {
    pub kind: JqIssueKind,
    /// e.g. `function 'range' may produce excessive output and is not allowed`
    pub message: String,
    /// Byte span inside the expression.
    pub span: Option<[usize; 2]>,
    /// For `Limit`: the limit name (camelCase field of `Limits`).
    pub limit: Option<&'static str>,
}

impl JqIssue {
    pub(crate) fn syntax(message: String, span: Option<[usize; 2]>) -> Self {
        JqIssue {
            kind: JqIssueKind::Syntax,
            message,
            span,
            limit: None,
        }
    }
    pub(crate) fn undefined(message: String, span: Option<[usize; 2]>) -> Self {
        JqIssue {
            kind: JqIssueKind::Undefined,
            message,
            span,
            limit: None,
        }
    }
    fn denied(message: String, span: Option<[usize; 2]>) -> Self {
        JqIssue {
            kind: JqIssueKind::Denied,
            message,
            span,
            limit: None,
        }
    }
    fn limit(limit: &'static str, message: String) -> Self {
        JqIssue {
            kind: JqIssueKind::Limit,
            message,
            span: None,
            limit: Some(limit),
        }
    }
}

/// Functions the reference denies because they may produce excessive output.
const EXCESSIVE: &[&str] = &[
    "range", "paths", "recurse", "walk", "repeat", "until", "while",
];

/// Functions we deny because they reach outside the engine (environment,
/// clock, input streams, process control, debugging output, local time zone).
const IMPURE: &[&str] = &[
    "env",
    "now",
    "input",
    "inputs",
    "halt",
    "halt_error",
    "debug",
    "stderr",
    "debug_empty",
    "stderr_empty",
    "localtime",
    "strflocaltime",
    "input_filename",
    "input_line_number",
    "get_search_list",
    "getpath_prog",
];

/// Byte span of `part` inside `whole`, if it is a sub-slice.
fn span_of(whole: &str, part: &str) -> Option<[usize; 2]> {
    let w = whole.as_ptr() as usize;
    let p = part.as_ptr() as usize;
    if p >= w && p + part.len() <= w + whole.len() {
        Some([p - w, p - w + part.len()])
    } else {
        None
    }
}

/// Size and nesting pre-check on the raw text, without recursion, so that
/// the recursive lexer and parser of jaq never see input that could exhaust
/// the stack.
fn precheck(code: &str, limits: &Limits) -> Result<(), JqIssue> {
    if code.len() > limits.max_expression_bytes {
        return Err(JqIssue::limit(
            "maxExpressionBytes",
            format!(
                "the expression has {} bytes, more than the {} allowed",
                code.len(),
                limits.max_expression_bytes
            ),
        ));
    }
    #[derive(PartialEq)]
    enum Ctx {
        Code,
        Str,
    }
    let mut stack = vec![Ctx::Code];
    let mut depth_max = 0usize;
    let mut keywords = 0usize;
    let mut negs = 0usize;
    let mut ops = 0usize;
    // Path steps chained without a separator (`.a.b[0]?.c`): jaq compiles
    // and runs each step one stack frame deeper.
    let (mut chain, mut chain_max) = (0usize, 0usize);
    let bytes = code.as_bytes();
    let mut i = 0;
    let mut word_start: Option<usize> = None;
    while i < bytes.len() {
        let b = bytes[i];
        let in_str = stack.last() == Some(&Ctx::Str);
        if in_str {
            match b {
                b'\\' if bytes.get(i + 1) == Some(&b'(') => {
                    stack.push(Ctx::Code);
                    i += 2;
                    depth_max = depth_max.max(stack.len());
                    continue;
                }
                b'\\' => {
                    i += 2;
                    continue;
                }
                b'"' => {
                    stack.pop();
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        let is_word = b.is_ascii_alphanumeric() || b == b'_';
        match (word_start, is_word) {
            (None, true) => word_start = Some(i),
            (Some(s), false) => {
                if let Some(w) = code.get(s..i) {
                    if matches!(
                        w,
                        "if" | "try" | "reduce" | "foreach" | "def" | "label" | "as" | "elif"
                    ) {
                        keywords += 1;
                    } else if matches!(w, "and" | "or") {
                        ops += 1;
                    }
                }
                word_start = None;
            }
            _ => {}
        }
        match b {
            b'.' if !(i > 0 && bytes[i - 1].is_ascii_digit()) => chain += 1,
            b'[' | b'?' => chain += 1,
            b'"' | b')' | b']' | b'}' | b'_' => {}
            b if b.is_ascii_alphanumeric() => {}
            _ => chain = 0,
        }
        chain_max = chain_max.max(chain);
        match b {
            b'"' => stack.push(Ctx::Str),
            b'(' | b'[' | b'{' => stack.push(Ctx::Code),
            b')' | b']' | b'}' if stack.len() > 1 => {
                stack.pop();
            }
            b'-' => negs += 1,
            b'|' | b',' | b'+' | b'*' | b'/' | b'%' | b'<' | b'>' | b'=' => ops += 1,
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            _ => {}
        }
        depth_max = depth_max.max(stack.len());
        i += 1;
    }
    // jaq parses, compiles and runs expressions recursively: the depth of
    // the syntax tree is bounded by the bracket depth plus the number of
    // operators and nesting keywords, so bound both (measured: 512 levels fit
    // a 1 MiB stack in release builds, the stack size of a WASM instance).
    let max = limits.max_expression_depth;
    // The top level is not a nesting level.
    let depth_max = depth_max.saturating_sub(1);
    let complexity = depth_max + keywords + negs + ops;
    if chain_max > max.saturating_mul(4) {
        return Err(JqIssue::limit(
            "maxExpressionDepth",
            format!(
                "a path of {chain_max} chained steps, more than the {} allowed (4 x maxExpressionDepth)",
                max.saturating_mul(4)
            ),
        ));
    }
    if depth_max > max || complexity > max.saturating_mul(4) {
        return Err(JqIssue::limit(
            "maxExpressionDepth",
            format!(
                "the expression is nested too deeply or has too many operators \
                 (nesting {depth_max}, at most {max}; operators and keywords {}, at most {})",
                complexity - depth_max,
                max.saturating_mul(4).saturating_sub(depth_max)
            ),
        ));
    }
    Ok(())
}

fn lex_error_message(expect: &jaq_core::load::lex::Expect<&str>) -> String {
    use jaq_core::load::lex::Expect;
    match expect {
        Expect::Delim(d) => match *d {
            "(" => "expected closing parenthesis".into(),
            "[" => "expected closing bracket".into(),
            "{" => "expected closing brace".into(),
            "\"" => "expected closing quote".into(),
            other => format!("expected closing delimiter of '{other}'"),
        },
        Expect::Digit => "expected digit".into(),
        Expect::Ident => "expected identifier".into(),
        Expect::Escape => "expected string escape sequence".into(),
        Expect::Unicode => "expected 4-digit hexadecimal UTF-8 code point".into(),
        _ => "unexpected character".into(),
    }
}

/// Parse an expression into jaq's syntax tree (after the pre-check).
pub(crate) fn parse_term<'s>(
    code: &'s str,
    tokens: &[Token<&'s str>],
) -> Result<Term<&'s str>, JqIssue> {
    let r = Parser::new(tokens).parse(|p| p.term());
    match r {
        Ok(t) => Ok(t),
        Err(errs) => {
            let (expect, found) = match errs.into_iter().next() {
                Some(e) => e,
                None => return Err(JqIssue::syntax("cannot parse expression".into(), None)),
            };
            let (found_text, span) = match found {
                Some(tok) => (format!("'{}'", tok.0), span_of(code, tok.0)),
                None => ("end of input".into(), Some([code.len(), code.len()])),
            };
            Err(JqIssue::syntax(
                format!("expected {}, found {found_text}", expect.as_str()),
                span,
            ))
        }
    }
}

/// Lex an expression.
pub(crate) fn lex(code: &str) -> Result<Vec<Token<&str>>, JqIssue> {
    Lexer::new(code)
        .lex()
        .map_err(|errs| match errs.into_iter().next() {
            Some((expect, at)) => JqIssue::syntax(lex_error_message(&expect), span_of(code, at)),
            None => JqIssue::syntax("cannot lex expression".into(), None),
        })
}

/// Find the span of the first token with the given text (outside strings).
fn find_token(code: &str, tokens: &[Token<&str>], text: &str) -> Option<[usize; 2]> {
    for t in tokens {
        if let Tok::Block(inner) = &t.1 {
            if let Some(s) = find_token(code, inner, text) {
                return Some(s);
            }
        } else if let Tok::Str(parts) = &t.1 {
            for p in parts {
                if let StrPart::Term(tok) = p
                    && let Some(s) = find_token(code, std::slice::from_ref(tok), text)
                {
                    return Some(s);
                }
            }
        }
        if t.0 == text && matches!(t.1, Tok::Sym) {
            return span_of(code, t.0);
        }
    }
    None
}

struct Walker<'s, 't> {
    code: &'s str,
    tokens: &'t [Token<&'s str>],
    mode: ExprMode,
    issue: Option<JqIssue>,
    /// User definitions: (name, arity) -> calls made in their bodies.
    defs: BTreeMap<(&'s str, usize), BTreeSet<(&'s str, usize)>>,
    /// Stack of user definitions being walked.
    current: Vec<(&'s str, usize)>,
    first_def_span: BTreeMap<(&'s str, usize), Option<[usize; 2]>>,
}

impl<'s> Walker<'s, '_> {
    fn deny(&mut self, message: String, span: Option<[usize; 2]>) {
        if self.issue.is_none() {
            self.issue = Some(JqIssue::denied(message, span));
        }
    }

    fn call(&mut self, name: &'s str, arity: usize) {
        let span = span_of(self.code, name);
        if name == "del" {
            self.deny(
                "del is not allowed: definitions read the workload (and actions assign), they never delete"
                    .into(),
                span,
            );
        } else if EXCESSIVE.contains(&name) {
            self.deny(
                format!("{name} is not allowed: it can produce unbounded output; read the paths you need instead"),
                span,
            );
        } else if IMPURE.contains(&name) {
            self.deny(
                format!(
                    "{name} is not allowed: it reads outside the workload (environment, clock, input or process)"
                ),
                span,
            );
        }
        for cur in self.current.clone() {
            self.defs.entry(cur).or_default().insert((name, arity));
        }
    }

    fn pattern(&mut self, p: &Pattern<&'s str>) {
        match p {
            Pattern::Var(_) => {}
            Pattern::Arr(ps) => ps.iter().for_each(|p| self.pattern(p)),
            Pattern::Obj(kvs) => {
                for (k, v) in kvs {
                    self.term(k);
                    self.pattern(v);
                }
            }
        }
    }

    fn def(&mut self, d: &Def<&'s str, Term<&'s str>>) {
        let key = (d.name, d.args.len());
        self.defs.entry(key).or_default();
        self.first_def_span
            .entry(key)
            .or_insert_with(|| span_of(self.code, d.name));
        self.current.push(key);
        self.term(&d.body);
        self.current.pop();
    }

    fn term(&mut self, t: &Term<&'s str>) {
        if self.issue.is_some() {
            return;
        }
        match t {
            Term::Id | Term::Num(_) | Term::Var(_) | Term::Break(_) => {}
            Term::Recurse => {
                let span = find_token(self.code, self.tokens, "..");
                self.deny(
                    "the recursive descent operator .. is not allowed: it visits the whole object; name the path to read instead".into(),
                    span,
                );
            }
            Term::Str(_, parts) => {
                for p in parts {
                    if let StrPart::Term(t) = p {
                        self.term(t);
                    }
                }
            }
            Term::Arr(a) => {
                if let Some(a) = a {
                    self.term(a);
                }
            }
            Term::Obj(kvs) => {
                for (k, v) in kvs {
                    self.term(k);
                    if let Some(v) = v {
                        self.term(v);
                    }
                }
            }
            Term::Neg(t) => self.term(t),
            Term::BinOp(l, op, r) => {
                let denied_op = match op {
                    BinaryOp::Assign => Some("="),
                    BinaryOp::Update => Some("|="),
                    BinaryOp::UpdateAlt => Some("//="),
                    BinaryOp::UpdateMath(m) => Some(match m {
                        jaq_core::ops::Math::Add => "+=",
                        jaq_core::ops::Math::Sub => "-=",
                        jaq_core::ops::Math::Mul => "*=",
                        jaq_core::ops::Math::Div => "/=",
                        jaq_core::ops::Math::Rem => "%=",
                    }),
                    _ => None,
                };
                if let (Some(sym), ExprMode::Read) = (denied_op, self.mode) {
                    let span = find_token(self.code, self.tokens, sym);
                    self.deny(
                        format!(
                            "the assignment operator {sym} is not allowed in a read path (only suspend and resume action paths assign)"
                        ),
                        span,
                    );
                }
                if let BinaryOp::Pipe(Some(p)) = op {
                    self.pattern(p);
                }
                self.term(l);
                self.term(r);
            }
            Term::Label(_, t) => self.term(t),
            Term::Fold(_, x, p, args) => {
                self.term(x);
                self.pattern(p);
                args.iter().for_each(|a| self.term(a));
            }
            Term::TryCatch(t, c) => {
                self.term(t);
                if let Some(c) = c {
                    self.term(c);
                }
            }
            Term::IfThenElse(branches, els) => {
                for (c, t) in branches {
                    self.term(c);
                    self.term(t);
                }
                if let Some(e) = els {
                    self.term(e);
                }
            }
            Term::Def(defs, body) => {
                defs.iter().for_each(|d| self.def(d));
                self.term(body);
            }
            Term::Call(name, args) => {
                self.call(name, args.len());
                args.iter().for_each(|a| self.term(a));
            }
            Term::Path(t, path) => {
                self.term(t);
                for (part, _opt) in &path.0 {
                    match part {
                        Part::Index(i) => self.term(i),
                        Part::Range(a, b) => {
                            if let Some(a) = a {
                                self.term(a);
                            }
                            if let Some(b) = b {
                                self.term(b);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Reject any user definition that can reach itself through calls.
    fn check_recursion(&mut self) {
        for start in self.defs.keys().copied().collect::<Vec<_>>() {
            let mut seen = BTreeSet::new();
            let mut todo: Vec<(&str, usize)> = self
                .defs
                .get(&start)
                .map(|s| s.iter().copied().collect())
                .unwrap_or_default();
            while let Some(c) = todo.pop() {
                if c == start {
                    let span = self.first_def_span.get(&start).copied().flatten();
                    self.deny(
                        format!(
                            "the recursive function {}/{} is not allowed: evaluation must stay bounded",
                            start.0, start.1
                        ),
                        span,
                    );
                    return;
                }
                if seen.insert(c)
                    && let Some(next) = self.defs.get(&c)
                {
                    todo.extend(next.iter().copied());
                }
            }
        }
    }
}

/// The smallest expansion bound refused ([`Expansion`]), whatever
/// `maxSteps` is: 2^20 evaluations take milliseconds.
const MIN_EXPANSION_REFUSED: u64 = 1 << 20;

/// A static bound on how often an expression's terms are evaluated for one
/// input, through its own definitions: a definition that uses its closure
/// argument `k` times multiplies that argument's cost by `k`, and nested
/// definitions multiply through (`def f2(g): g, g; def f4(g): f2(f2(g));
/// ...` doubles at each level). Only the expansion of closures is
/// counted: what data drives (`.[]`, builtins that iterate) is charged at
/// run time by the step meter. Recursion is rejected before (so the
/// definitions form a DAG and each is costed once, where it is defined).
/// Saturating: `u64::MAX` means "more than can be counted".
/// A definition in scope for [`Expansion`]: (name, arity) and (how many
/// times a call evaluates its closure arguments, in all; its body's cost).
type Costed<'s> = ((&'s str, usize), (u64, u64));

#[derive(Default)]
struct Expansion<'s> {
    /// Definitions in scope, innermost last: (name, arity) -> (how many
    /// times a call evaluates its closure arguments, in all; the cost of
    /// its body).
    defs: Vec<Costed<'s>>,
    /// Closure parameters in scope (not `$` ones), innermost last.
    params: Vec<&'s str>,
}

impl<'s> Expansion<'s> {
    /// (evaluations of the term's subterms, evaluations of the closure
    /// parameters in scope it makes)
    fn cost(&mut self, t: &Term<&'s str>) -> (u64, u64) {
        let mut sum = (1u64, 0u64);
        let mut add = |(c, e): (u64, u64)| {
            sum.0 = sum.0.saturating_add(c);
            sum.1 = sum.1.saturating_add(e);
        };
        match t {
            Term::Id | Term::Recurse | Term::Num(_) | Term::Var(_) | Term::Break(_) => {}
            Term::Str(_, parts) => {
                for p in parts {
                    if let StrPart::Term(t) = p {
                        add(self.cost(t));
                    }
                }
            }
            Term::Arr(a) => {
                if let Some(a) = a {
                    add(self.cost(a));
                }
            }
            Term::Obj(kvs) => {
                for (k, v) in kvs {
                    add(self.cost(k));
                    if let Some(v) = v {
                        add(self.cost(v));
                    }
                }
            }
            Term::Neg(t) | Term::Label(_, t) => add(self.cost(t)),
            Term::BinOp(l, op, r) => {
                if let BinaryOp::Pipe(Some(p)) = op {
                    add(self.pattern(p));
                }
                add(self.cost(l));
                add(self.cost(r));
            }
            Term::Fold(_, x, p, args) => {
                add(self.cost(x));
                add(self.pattern(p));
                for a in args {
                    add(self.cost(a));
                }
            }
            Term::TryCatch(t, c) => {
                add(self.cost(t));
                if let Some(c) = c {
                    add(self.cost(c));
                }
            }
            Term::IfThenElse(branches, els) => {
                for (c, t) in branches {
                    add(self.cost(c));
                    add(self.cost(t));
                }
                if let Some(e) = els {
                    add(self.cost(e));
                }
            }
            Term::Def(defs, body) => {
                let scope = self.defs.len();
                for d in defs {
                    let closures: Vec<&'s str> = d
                        .args
                        .iter()
                        .copied()
                        .filter(|a| !a.starts_with('$'))
                        .collect();
                    let before = self.params.len();
                    self.params.extend(closures);
                    let (body_cost, uses) = self.cost(&d.body);
                    self.params.truncate(before);
                    self.defs.push(((d.name, d.args.len()), (uses, body_cost)));
                }
                add(self.cost(body));
                self.defs.truncate(scope);
            }
            Term::Call(name, args) => {
                let costs: Vec<(u64, u64)> = args.iter().map(|a| self.cost(a)).collect();
                let (cs, es) = costs.iter().fold((0u64, 0u64), |(c, e), (ci, ei)| {
                    (c.saturating_add(*ci), e.saturating_add(*ei))
                });
                let user = self
                    .defs
                    .iter()
                    .rev()
                    .find(|(k, _)| *k == (*name, args.len()))
                    .map(|(_, v)| *v);
                if args.is_empty() && user.is_none() && self.params.contains(name) {
                    // A closure parameter: one evaluation of its argument.
                    add((0, 1));
                } else if let Some((uses, body_cost)) = user {
                    // Its body, and each argument as often as the body
                    // evaluates its parameters.
                    add((
                        body_cost.saturating_add(uses.saturating_mul(cs)),
                        uses.saturating_mul(es),
                    ));
                } else {
                    // A builtin: its arguments once each (what it iterates
                    // over data is metered at run time).
                    add((cs, es));
                }
            }
            Term::Path(t, path) => {
                add(self.cost(t));
                for (part, _opt) in &path.0 {
                    match part {
                        Part::Index(i) => add(self.cost(i)),
                        Part::Range(a, b) => {
                            for x in [a, b].into_iter().flatten() {
                                add(self.cost(x));
                            }
                        }
                    }
                }
            }
        }
        sum
    }

    fn pattern(&mut self, p: &Pattern<&'s str>) -> (u64, u64) {
        match p {
            Pattern::Var(_) => (0, 0),
            Pattern::Arr(ps) => ps.iter().fold((0, 0), |(c, e), p| {
                let (ci, ei) = self.pattern(p);
                (c.saturating_add(ci), e.saturating_add(ei))
            }),
            Pattern::Obj(kvs) => kvs.iter().fold((0, 0), |(c, e), (k, v)| {
                let (ck, ek) = self.cost(k);
                let (cv, ev) = self.pattern(v);
                (
                    c.saturating_add(ck).saturating_add(cv),
                    e.saturating_add(ek).saturating_add(ev),
                )
            }),
        }
    }
}

/// Check one expression: size, syntax, deny list, recursion.
pub(crate) fn check_expression(expr: &str, mode: ExprMode, limits: &Limits) -> Result<(), JqIssue> {
    check_then(expr, mode, limits, |_| ())
}

/// [`check_expression`], then `then` on the syntax tree the check parsed
/// (the program compiler classifies the expression for the fast path from
/// it, without parsing it again).
pub(crate) fn check_then<T>(
    expr: &str,
    mode: ExprMode,
    limits: &Limits,
    then: impl FnOnce(&Term<&str>) -> T,
) -> Result<T, JqIssue> {
    let limits = &limits.effective();
    precheck(expr, limits)?;
    let tokens = lex(expr)?;
    let term = parse_term(expr, &tokens)?;
    let mut w = Walker {
        code: expr,
        tokens: &tokens,
        mode,
        issue: None,
        defs: BTreeMap::new(),
        current: Vec::new(),
        first_def_span: BTreeMap::new(),
    };
    w.term(&term);
    if w.issue.is_none() {
        w.check_recursion();
    }
    if w.issue.is_none() {
        // Evaluations of terms that no operation meters cost nanoseconds
        // each: a bound under a million is harmless whatever maxSteps is
        // (a small budget still meters what the expression does), one past
        // both is refused.
        let bound = Expansion::default().cost(&term).0;
        if bound > limits.max_steps.max(MIN_EXPANSION_REFUSED) {
            w.issue = Some(JqIssue::limit(
                "maxSteps",
                format!(
                    "the expression's definitions evaluate their arguments up to {} times, more \
                     than the limit maxSteps ({}) allows: a definition that uses its argument \
                     several times, applied to itself, grows exponentially",
                    if bound == u64::MAX {
                        "2^64".to_string()
                    } else {
                        bound.to_string()
                    },
                    limits.max_steps.max(MIN_EXPANSION_REFUSED)
                ),
            ));
        }
    }
    match w.issue {
        Some(i) => Err(i),
        None => Ok(then(&term)),
    }
}
