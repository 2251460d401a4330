//! `workload-lens`: the command line. Everything is in the library
//! (`workload_lens_cli::run`), which the Python package's `workload-lens`
//! command calls too.

#![forbid(unsafe_code)]

use std::process::ExitCode;

fn main() -> ExitCode {
    let args = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let code = workload_lens_cli::run(args);
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
