//! Prints the operation table ([`workload_lens_binding::for_each_operation!`])
//! as JSON: `[{section, targets, name, js, args: [{name, kind, optional}],
//! result, doc}]`, for the generators of files that describe the bindings'
//! raw functions in other languages (`bindings-python/tools/gen_types.py`
//! writes the native module's stub, `_native.pyi`, from it).
//!
//! `cargo run -q -p workload-lens-binding --example operations`

use serde_json::{Value, json};

macro_rules! table_json {
    (
        []
        $(
            $section:ident {
                $( $(#[doc = $doc:literal])* $targets:ident $name:ident $js:literal
                   ( $($arg:ident : $kind:ident $(= $none:ident)?),* ) -> $res:ident; )*
            }
        )*
    ) => {
        vec![$($(json!({
            "section": stringify!($section),
            "targets": stringify!($targets),
            "name": stringify!($name),
            "js": $js,
            "args": [$(json!({
                "name": stringify!($arg),
                "kind": stringify!($kind),
                "optional": (!([$(stringify!($none)),*] as [&str; _]).is_empty()),
            })),*],
            "result": stringify!($res),
            "doc": ([$($doc.trim()),*] as [&str; _]).join("\n"),
        })),*),*]
    };
}

fn main() {
    let all: Vec<Value> = workload_lens_binding::for_each_operation!(table_json);
    println!("{}", serde_json::to_string_pretty(&all).unwrap_or_default());
}
