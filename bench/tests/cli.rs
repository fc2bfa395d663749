//! `convoy-bench run` end to end: the report has every stage, and bad input
//! gets one clear line naming the file and key, exit code 2, no panic.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::{Command, Output};

const DEFAULT: &str = include_str!("../../profiles/default.toml");
const STAGES: [&str; 6] = [
    "spatial",
    "paths",
    "formations",
    "steering",
    "integrate",
    "separation",
];

fn convoy_bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_convoy-bench"))
        .args(args)
        .output()
        .unwrap()
}

fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("convoy-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn profile_with(name: &str, from: &str, to: &str) -> String {
    assert!(DEFAULT.contains(from), "default profile has `{from}`");
    let path = temp_path(name);
    std::fs::write(&path, DEFAULT.replacen(from, to, 1)).unwrap();
    path.display().to_string()
}

/// Asserts exit code 2 and a single stderr line containing every `needle`.
fn assert_refused(output: &Output, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "`{needle}` missing from: {stderr}");
    }
}

#[test]
fn a_short_run_writes_json_with_every_stage_and_the_whole_tick() {
    let json = temp_path("report.json");
    let output = convoy_bench(&[
        "run",
        "--ticks",
        "20",
        "--units",
        "3000",
        "--threads",
        "2",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    for stage in STAGES.iter().chain(&["tick"]) {
        assert!(
            stdout.lines().any(|line| line.starts_with(stage)),
            "table lacks {stage}: {stdout}"
        );
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["schema"], 1);
    assert_eq!(report["units"], 3000);
    assert_eq!(report["ticks"], 20);
    assert_eq!(report["threads"], 2);
    assert_eq!(report["profile"], "default");
    assert!(report["machine"]["cores"].as_u64().unwrap() >= 1);
    assert_eq!(report["checksum"].as_str().unwrap().len(), 16);
    let names: Vec<&str> = report["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, STAGES);
    for figures in report["stages"]
        .as_array()
        .unwrap()
        .iter()
        .chain([&report["tick"]])
    {
        for key in [
            "budget_ms",
            "mean_ms",
            "p50_ms",
            "p95_ms",
            "p99_ms",
            "max_ms",
            "over_budget_ticks",
        ] {
            assert!(figures[key].is_number(), "{key} missing in {figures}");
        }
        assert!(figures["p50_ms"].as_f64() <= figures["p99_ms"].as_f64());
        assert!(figures["p99_ms"].as_f64() <= figures["max_ms"].as_f64());
    }
}

#[test]
fn the_same_run_twice_gives_the_same_checksum() {
    let checksum = |threads: &str| {
        let json = temp_path(&format!("checksum-{threads}.json"));
        let output = convoy_bench(&[
            "run",
            "--quiet",
            "--ticks",
            "30",
            "--units",
            "2000",
            "--threads",
            threads,
            "--json",
            json.to_str().unwrap(),
        ]);
        assert!(output.status.success());
        assert!(output.stdout.is_empty(), "--quiet prints nothing");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        report["checksum"].as_str().unwrap().to_owned()
    };
    assert_eq!(checksum("1"), checksum("2"));
}

#[test]
fn a_missing_profile_file_is_named() {
    assert_refused(
        &convoy_bench(&["run", "/nonexistent/profile.toml"]),
        &["/nonexistent/profile.toml"],
    );
}

#[test]
fn malformed_toml_is_named_with_file_and_line() {
    let path = profile_with("malformed.toml", "[scenario]", "[scenario");
    assert_refused(&convoy_bench(&["run", &path]), &[&format!("{path}:")]);
}

#[test]
fn an_unknown_key_is_named() {
    let path = profile_with("unknown.toml", "gap_m = 100.0", "gap_m = 100.0\nwidht = 3");
    assert_refused(&convoy_bench(&["run", &path]), &[&path, "widht"]);
}

#[test]
fn zero_or_negative_counts_in_a_profile_are_named() {
    let path = profile_with("zero-units.toml", "units = 10000", "units = 0");
    assert_refused(&convoy_bench(&["run", &path]), &[&path, "scenario.units"]);
    let path = profile_with("negative-ticks.toml", "ticks = 600", "ticks = -1");
    assert_refused(&convoy_bench(&["run", &path]), &[&path, "run.ticks"]);
}

#[test]
fn zero_or_negative_dt_is_named() {
    for (name, dt) in [
        ("zero-dt.toml", "dt = 0"),
        ("negative-dt.toml", "dt = -0.01"),
    ] {
        let path = profile_with(name, "dt = 0.016666668", dt);
        assert_refused(&convoy_bench(&["run", &path]), &[&path, "run.dt"]);
    }
}

#[test]
fn zero_threads_in_a_profile_is_named() {
    let path = profile_with("zero-threads.toml", "# threads = 2", "threads = 0");
    assert_refused(&convoy_bench(&["run", &path]), &[&path, "run.threads"]);
}

#[test]
fn bad_command_line_counts_are_named() {
    assert_refused(&convoy_bench(&["run", "--units", "0"]), &["--units"]);
    assert_refused(&convoy_bench(&["run", "--ticks", "-5"]), &["--ticks"]);
    assert_refused(&convoy_bench(&["run", "--threads", "0"]), &["--threads"]);
}
