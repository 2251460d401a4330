//! Every primitive's cost grows with the work it does (issue: whole-call
//! budgets). White-box: the steps a run takes are read from the call's
//! meter.

use crate::Limits;
use crate::budget::{Call, Meter};
use crate::jq::{ExprMode, Input, Program};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Steps one run of `code` on `input` takes (the run must succeed).
fn cost(code: &str, input: &Value) -> u64 {
    let limits = Limits {
        max_steps: u64::MAX / 4,
        max_memory_bytes: usize::MAX / 4,
        max_collection_len: usize::MAX / 4,
        ..Limits::default()
    };
    let p = Program::compile(code, ExprMode::Read, &[], &limits).expect("compiles");
    let _call = Call::enter(&limits);
    let before = Meter::Steps.left();
    let input = Input::new(input, &limits).expect("input");
    let after_input = Meter::Steps.left();
    p.run(&input, &limits)
        .unwrap_or_else(|e| panic!("{code}: {e:?}"));
    let _ = before;
    after_input - Meter::Steps.left()
}

/// Expressions over a string `$s` (the input's `.s`) and a needle `.n`:
/// each touches every byte of `.s` (or of both).
const STRING_PRIMITIVES: &[&str] = &[
    ".s | length",
    ".s | contains(\"zz\")",
    ".s | index(\"zz\")",
    ".s | indices(\"zz\") | length",
    ".s | ascii_downcase | length",
    ".s | ascii_upcase | length",
    ".s | tojson | length",
    ".s | test(\"zz\")",
    ".s | test(\"[a-z]+z\")",
    ".s | explode | length",
    ".s | @base64 | length",
    ".s | @html | length",
    ".s | @uri | length",
    ".s | split(\"zz\") | length",
    ".s | ltrimstr(.) | length",
    ".s | startswith(.)",
    ".s | trim | length",
    ".s == (.s + \"\")",
    ".s < (.s + \"x\")",
    "[.s, .s] | sort | length",
    "[.s, .s] | group_by(.) | length",
    ".s + .s | length",
    "{(.s): 1} | keys | length",
    ".s | tostring | length",
    "[.s] | tostring | length",
    ".s | sub(\"b\"; \"c\") | length",
    ".s | .[1:] | length",
];

fn text(n: usize) -> String {
    "ab".repeat(n / 2)
}

#[test]
fn every_string_primitive_costs_in_proportion_to_its_input() {
    for code in STRING_PRIMITIVES {
        let small = cost(code, &json!({"s": text(64 * 1024)}));
        let big = cost(code, &json!({"s": text(1024 * 1024)}));
        // Sixteen times the bytes: at least eight times the steps, and at
        // least a step per 64 bytes of the big input.
        assert!(
            big >= 8 * small.max(1) && big >= (1024 * 1024 / 64),
            "{code}: {small} steps for 64 KiB, {big} for 1 MiB"
        );
    }
}

/// Expressions over an array `.a`: each touches every element.
const ARRAY_PRIMITIVES: &[&str] = &[
    ".a | sort | length",
    ".a | group_by(. % 7) | length",
    ".a | unique | length",
    ".a | reverse | length",
    ".a | map(. + 1) | length",
    ".a | .[1:] | length",
    ".a | add",
    ".a | tojson | length",
    ".a | index(5)",
    ".a | contains([-1])",
    ".a - [1] | length",
    ".a + .a | length",
    ".a | to_entries | length",
    ".a | min",
    ".a | [.[] | select(. > 3)] | length",
    ".a as $x | $x | setpath([0]; 1) | length",
];

#[test]
fn every_array_primitive_costs_in_proportion_to_its_input() {
    for code in ARRAY_PRIMITIVES {
        let small = cost(code, &json!({"a": (0..1000).collect::<Vec<_>>()}));
        let big = cost(code, &json!({"a": (0..16000).collect::<Vec<_>>()}));
        // Serialising costs its bytes (a few per number here), everything
        // else at least a step per element.
        let floor = if code.contains("tojson") {
            16000 / 64
        } else {
            16000
        };
        assert!(
            big >= 8 * small.max(1) && big >= floor,
            "{code}: {small} steps for 1,000 elements, {big} for 16,000"
        );
    }
}

#[test]
fn a_shared_array_written_once_per_step_pays_for_its_copies() {
    // Each write to an array that something else still holds copies it.
    let small = cost(
        ".a as $x | [.b[] | $x | setpath([0]; 1) | length] | length",
        &json!({"a": (0..1000).collect::<Vec<_>>(), "b": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}),
    );
    let big = cost(
        ".a as $x | [.b[] | $x | setpath([0]; 1) | length] | length",
        &json!({"a": (0..16000).collect::<Vec<_>>(), "b": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}),
    );
    assert!(big >= 8 * small, "{small} vs {big}");
}

#[test]
fn regex_search_is_charged_the_matchers_worst_case() {
    // A counted repetition makes the automaton big: the search is charged
    // input length times automaton size, before it runs.
    let cheap = cost(".s | test(\"ab\")", &json!({"s": text(256 * 1024)}));
    let costly = cost(".s | test(\"(ab){200}c\")", &json!({"s": text(256 * 1024)}));
    assert!(costly > 50 * cheap, "{cheap} vs {costly}");
    // A bounded pattern matching everywhere is linear in its matches; an
    // unbounded one that may read to the end is charged that per search.
    let bounded = cost(
        "[.s | match(\"a\"; \"g\")] | length",
        &json!({"s": text(4096)}),
    );
    let bounded4 = cost(
        "[.s | match(\"a\"; \"g\")] | length",
        &json!({"s": text(4 * 4096)}),
    );
    assert!(bounded4 < 6 * bounded, "{bounded} vs {bounded4}");
    let unbounded = cost(
        "[.s | match(\"a+\"; \"g\")] | length",
        &json!({"s": text(4096)}),
    );
    let unbounded4 = cost(
        "[.s | match(\"a+\"; \"g\")] | length",
        &json!({"s": text(4 * 4096)}),
    );
    assert!(unbounded4 > 10 * unbounded, "{unbounded} vs {unbounded4}");
}

#[test]
fn converting_an_object_costs_a_step_per_node_and_nothing_once_spent() {
    // Converting an object for jq allocates every node: a step each, not
    // a step per 16 as a walk. Found by the whole_call fuzzer: a call
    // scope whose budget was spent still converted the object for every
    // later operation (30-70 ms each, seconds per call).
    let limits = Limits {
        max_steps: 200_000,
        ..Limits::default()
    };
    let _call = Call::enter(&limits);
    let big = json!({"items": (0..100_000).collect::<Vec<_>>()});
    // (`has` is outside the fast path's subset: jaq answers.)
    let jq = Program::compile(".items | has(0)", ExprMode::Read, &[], &limits).expect("compiles");
    let plain = Program::compile(".items", ExprMode::Read, &[], &limits).expect("compiles");
    // Measuring the input is a walk (a step per 16 nodes); the fast path
    // reads it as it is, converting nothing (the output it copies is
    // charged a step per node).
    let before = Meter::Steps.left();
    let input = Input::new(&big, &limits).expect("measured");
    let measured = before - Meter::Steps.left();
    assert!((6_000..7_000).contains(&measured), "{measured}");
    let v = json!({"a": {"b": 1}});
    let small = Input::new(&v, &limits).expect("measured");
    let before = Meter::Steps.left();
    let fast = Program::compile(".a.b", ExprMode::Read, &[], &limits).expect("compiles");
    assert_eq!(fast.run(&small, &limits).expect("runs"), vec![json!(1)]);
    assert!(before - Meter::Steps.left() < 10);
    // A jq expression converts it once: a step per node.
    let before = Meter::Steps.left();
    assert_eq!(jq.run(&input, &limits).expect("runs"), vec![json!(true)]);
    assert!(before - Meter::Steps.left() >= 100_000);
    // Converted once per input: running again costs only the run.
    let before = Meter::Steps.left();
    jq.run(&input, &limits).expect("runs");
    assert!(before - Meter::Steps.left() < 1_000);
    // A second input of it cannot be converted within what is left:
    // refused before it is converted, and from then on everything stops
    // before it walks a value (the fast path's copy of it too).
    let again = Input::new(&big, &limits).expect("measured");
    assert!((80_000..100_000).contains(&Meter::Steps.left()));
    assert!(jq.run(&again, &limits).is_err());
    assert!(plain.run(&again, &limits).is_err());
    match Input::new(&json!({"a": 1}), &limits) {
        Err(crate::jq::EvalError::Limit { limit, message }) => {
            assert_eq!(limit, "maxSteps");
            assert!(message.contains("before reading"), "{message}");
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
}

#[test]
fn a_small_pattern_used_many_times_does_not_add_up_its_memory() {
    // A pattern with ten capture groups, small enough to cache: its
    // automaton and tables are made once per thread and reused, so 10,000
    // uses in one call do not charge 10,000 of them to maxMemoryBytes.
    let limits = Limits {
        max_steps: u64::MAX / 4,
        ..Limits::default()
    };
    let code = format!(
        "[.s as $s | {} as $_ | $s | test(\"^(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)$\")] | length",
        ["(1,2,3,4,5,6,7,8,9,10)"; 4].join(" as $_ | ")
    );
    let p = Program::compile(&code, ExprMode::Read, &[], &limits).expect("compiles");
    let _call = Call::enter(&limits);
    // No match, so no match objects are built: what is left is the 10,000
    // booleans collected, not 10,000 automata and tables (~3 KB each).
    let v = json!({"s": "abcdefghiz"});
    let input = Input::new(&v, &limits).expect("input");
    let before = Meter::Memory.left();
    p.run(&input, &limits).expect("runs");
    let used = before - Meter::Memory.left();
    assert!(used < 1 << 20, "{used} bytes for 10,000 uses");
}

#[test]
fn regex_costs_do_not_depend_on_earlier_calls() {
    // The first use builds and caches the pattern; later uses are charged
    // the same, so whether a call fits its budget never depends on what
    // ran before it on the thread.
    let code = ".s | test(\"(ab|cd){40}x\")";
    let input = json!({"s": text(1024)});
    let first = cost(code, &input);
    assert_eq!(cost(code, &input), first);
}

#[test]
fn regex_capture_slots_are_charged() {
    // Each thread of the matcher copies its capture slots: many groups
    // cost more than the same automaton without them.
    let input = json!({"s": text(4096)});
    let plain = cost(&format!(".s | test(\"{}\")", "(?:a?)".repeat(200)), &input);
    let groups = cost(&format!(".s | test(\"{}\")", "(a?)".repeat(200)), &input);
    assert!(groups > 4 * plain, "{plain} vs {groups}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Costs are monotonic in the input's size, for every primitive.
    #[test]
    fn costs_grow_with_the_input(i in 0..STRING_PRIMITIVES.len(), n in 1usize..2000, k in 2usize..8) {
        let code = STRING_PRIMITIVES[i];
        let small = cost(code, &json!({"s": text(n * 64)}));
        let big = cost(code, &json!({"s": text(n * 64 * k)}));
        prop_assert!(big >= small, "{}: {} then {}", code, small, big);
    }
}

#[test]
fn building_an_object_one_entry_at_a_time_costs_its_quadratic_work() {
    // Each `+` checks the order of every key of the growing object: 4x the
    // entries is 16x the work, and must be 16x the steps (it was linear:
    // 100,000 entries ran 26 s within the default budget), on the fast path
    // and on jaq alike.
    let object = |n: usize| json!({"o": (0..n).map(|i| (format!("k{i:06}"), json!(i))).collect::<serde_json::Map<_, _>>()});
    for code in [
        ".o | to_entries | from_entries | length",
        "reduce (.o | to_entries[]) as $e ({}; . + {($e.key): $e.value}) | length",
    ] {
        let (small, big) = (cost(code, &object(1000)), cost(code, &object(4000)));
        assert!(big > 10 * small, "{code}: {small} vs {big}");
    }
}
