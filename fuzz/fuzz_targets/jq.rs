//! jq compile and evaluation. The input is `EXPRESSION \0 JSON`: the
//! expression before the first NUL byte, the input value after it (`null`
//! when it is not JSON), so that seeds are readable and libFuzzer's
//! dictionary mutations apply to the expression. Also differential: the
//! native fast path and jaq alone give the same outputs and errors (unless
//! one of them meets a limit: they spend the budget differently).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use workload_lens::{Expression, evaluate};

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let (expr, rest) = match data.iter().position(|b| *b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let Ok(expr) = std::str::from_utf8(expr) else {
        return;
    };
    let input: Value = serde_json::from_slice(rest).unwrap_or(Value::Null);
    let limits = common::fuzz_limits();
    let a = evaluate(expr, &input, &limits);
    if let Err(e) = &a {
        common::check_error(e);
    }
    // The fast path off: jaq alone gives the same answer.
    let before = workload_lens::set_fast_path(false);
    let slow = evaluate(expr, &input, &limits);
    workload_lens::set_fast_path(before);
    let limit = |r: &Result<Vec<Value>, workload_lens::Error>| {
        matches!(r, Err(e) if e.code() == workload_lens::ErrorCode::Limit)
    };
    if !limit(&a) && !limit(&slow) {
        common::same_values(&a, &slow);
    }
    // Compiled once, run twice: the same answer as the one-shot call.
    match Expression::compile(expr, &limits) {
        Ok(x) => {
            let b = x.evaluate(&input, &limits);
            common::deterministic(&a, &b);
            common::deterministic(&b, &x.evaluate(&input, &limits));
            if let Ok(outs) = &b {
                assert!(outs.len() <= limits.max_outputs);
                for o in outs {
                    serde_json::to_string(o).expect("output serializes");
                }
            }
        }
        Err(e) => {
            common::check_error(&e);
            assert!(a.is_err(), "compiles in one path, not in the other");
        }
    }
});
