//! Object text (YAML/JSON) resolved by a catalog definition: the first byte
//! picks the definition (and whether to look it up by the object's kind),
//! the rest is the object. Seeds are the catalog's fixture objects with a
//! prefix byte (fuzz/seed.sh), so mutations start from realistic workloads.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(
    // Compiling the catalog takes seconds under the sanitizers: do it before
    // libFuzzer starts timing inputs.
    init: {
        common::catalog();
    },
    |data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let defs = common::catalog();
    // The reader of "one or many objects" (documents, lists, arrays).
    if let Err(e) = common::empty_engine().read_objects(text) {
        common::check_error(&e);
    }
    let obj = match common::empty_engine().read_object(text) {
        Ok(v) => v,
        Err(e) => {
            common::check_error(&e);
            return;
        }
    };
    if pick & 0x80 != 0 {
        if let Err(e) = common::engine().resolve(&obj) {
            common::check_error(&e);
        }
        return;
    }
    let def = &defs[pick as usize % defs.len()];
    let a = def.resolve(&obj);
    if let Err(e) = &a {
        common::check_error(e);
    }
    common::deterministic(&a, &def.resolve(&obj));
    for r in [def.suspend(&obj), def.resume(&obj)] {
        if let Err(e) = r {
            common::check_error(&e);
        }
    }
    let pods = [obj.clone()];
    if let Err(e) = def.resolve_with_pods(&obj, &pods) {
        common::check_error(&e);
    }
    if let Err(e) = def.gang_groups(&obj, &pods) {
        common::check_error(&e);
    }
}
);
