//! Shared by the `convoy-bench` end-to-end tests: running the binary, a
//! temporary folder per test binary, and the one-line refusal check.

// Each test binary uses its own subset of these.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs `convoy-bench` with `args` from the bench crate's folder.
pub fn convoy_bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_convoy-bench"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap()
}

/// `name` in a temporary folder of this test binary and process.
pub fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "convoy-{}-{}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Asserts exit code 2 and a single stderr line containing every `needle`.
pub fn assert_refused(output: &Output, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "`{needle}` missing from: {stderr}");
    }
}
