//! Catalog fixtures resolve through the CLI with no flag: the definition
//! is chosen by the object's GVK.

use assert_cmd::Command;
use std::path::PathBuf;

#[test]
fn describe_picks_the_definition_of_every_fixture_by_gvk() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../definitions/fixtures");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= 30,
        "expected the whole catalog, found {}",
        dirs.len()
    );
    let mut checked = 0;
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let f = p.file_name().unwrap().to_string_lossy();
                f.ends_with(".yaml") && f != "expect.yaml" && !f.ends_with(".pods.yaml")
            })
            .collect();
        files.sort();
        // One fixture per definition here (each run compiles the catalog);
        // engine/tests/catalog.rs checks every fixture in-process.
        let pick = files
            .iter()
            .find(|f| f.file_name().is_some_and(|n| n == "running.yaml"))
            .or(files.first())
            .cloned();
        if let Some(f) = pick {
            let out = Command::cargo_bin("workload-lens")
                .unwrap()
                .arg("describe")
                .arg(&f)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "{}: {}",
                f.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                stdout.contains(&format!("definition: {name} (catalog)")),
                "{}:\n{stdout}",
                f.display()
            );
            assert!(stdout.contains("TOTAL"), "{}:\n{stdout}", f.display());
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} fixtures checked");
}
