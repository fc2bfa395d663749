//! `convoy-bench run` end to end: the report has every stage, and bad input
//! gets one clear line naming the file and key, exit code 2, no panic.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::{Command, Stdio};

mod common;
use common::{assert_refused, convoy_bench, temp_path};

const DEFAULT: &str = include_str!("../../profiles/default.toml");
const STAGES: [&str; 6] = [
    "spatial",
    "paths",
    "formations",
    "steering",
    "integrate",
    "separation",
];

fn profile_with(name: &str, from: &str, to: &str) -> String {
    assert!(DEFAULT.contains(from), "default profile has `{from}`");
    let path = temp_path(name);
    std::fs::write(&path, DEFAULT.replacen(from, to, 1)).unwrap();
    path.display().to_string()
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
    let quality = &report["quality"];
    for key in [
        "arrived",
        "collisions_per_1000_unit_ticks",
        "mean_speed_fraction",
        "stuck",
    ] {
        assert!(
            quality[key].is_number(),
            "quality.{key} missing in {quality}"
        );
    }
    // Units set off toward goals far away: they move, none has arrived.
    let speed = quality["mean_speed_fraction"].as_f64().unwrap();
    assert!(speed > 0.0 && speed <= 1.0, "mean speed fraction {speed}");
    assert_eq!(quality["arrived"], 0);
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

/// `convoy-bench run | head`: a reader that closes the pipe before the
/// table is printed ends the output quietly, exit code 0, not a panic.
#[test]
fn a_reader_that_stops_reading_ends_the_output_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_convoy-bench"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", "--ticks", "30", "--units", "3000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Closed while the run simulates, before anything is printed.
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{:?}: {stderr}", output.status);
    assert!(stderr.is_empty(), "{stderr}");
}

/// Output that cannot be written (a full disk) is refused in one line
/// naming standard output, exit code 2.
#[cfg(target_os = "linux")]
#[test]
fn output_that_cannot_be_written_is_named() {
    let full = std::fs::File::create("/dev/full").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_convoy-bench"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", "--ticks", "5", "--units", "500"])
        .stdout(Stdio::from(full))
        .output()
        .unwrap();
    assert_refused(&output, &["standard output"]);
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

/// Values that once validated and then panicked or ran for minutes.
#[test]
fn absurd_budgets_iterations_clearances_and_cell_sizes_are_named() {
    for (name, from, to, key) in [
        (
            "frame.toml",
            "frame_ms = 4.0",
            "frame_ms = 1e300",
            "budget.frame_ms",
        ),
        (
            "iterations.toml",
            "iterations = 64",
            "iterations = 268435456",
            "separation.iterations",
        ),
        (
            "cell.toml",
            "[budget]",
            "[map]\nfile = \"arena2.map\"\ncell_size_m = 1e-45\n\n[budget]",
            "map.cell_size_m",
        ),
        (
            "clearance.toml",
            "[budget]",
            "[map]\npolygon = \"river.json\"\nclearance_m = 1e300\n\n[budget]",
            "map.clearance_m",
        ),
    ] {
        let path = profile_with(name, from, to);
        assert_refused(
            &convoy_bench(&["run", &path, "--ticks", "1"]),
            &[&path, key],
        );
    }
}

#[test]
fn bad_command_line_counts_are_named() {
    assert_refused(&convoy_bench(&["run", "--units", "0"]), &["--units"]);
    assert_refused(&convoy_bench(&["run", "--ticks", "-5"]), &["--ticks"]);
    assert_refused(&convoy_bench(&["run", "--threads", "0"]), &["--threads"]);
}

fn movingai(file: &str) -> String {
    format!(
        "{}/../../shared/data/movingai/{file}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn scen_reproduces_every_optimal_length_of_a_real_benchmark_map() {
    let json = temp_path("scen.json");
    let csv = temp_path("scen.csv");
    let output = convoy_bench(&[
        "scen",
        &movingai("arena.map"),
        &movingai("arena.map.scen"),
        "--json",
        json.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let lines = std::fs::read_to_string(movingai("arena.map.scen"))
        .unwrap()
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .count();
    assert_eq!(summary["queries"], lines);
    assert_eq!(summary["mismatches"], 0);
    assert_eq!(summary["invalid"], 0);
    assert_eq!(summary["backend"], "grid");
    for key in [
        "unreachable",
        "mean_us",
        "p99_us",
        "queries_per_s",
        "length_ratio_mean",
        "length_ratio_max",
        "threads",
    ] {
        assert!(summary[key].is_number(), "{key} missing");
    }
    let rows = std::fs::read_to_string(&csv).unwrap().lines().count();
    assert_eq!(rows, lines + 1, "one CSV row per query plus the header");
}

#[test]
fn scen_with_the_quadtree_backend_finds_only_valid_paths() {
    let json = temp_path("scen-quadtree.json");
    let output = convoy_bench(&[
        "scen",
        &movingai("arena.map"),
        &movingai("arena.map.scen"),
        "--backend",
        "quadtree",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(summary["invalid"], 0);
    assert!(summary["length_ratio_mean"].as_f64().unwrap() < 1.1);
}

#[test]
fn scen_with_the_visgraph_backend_is_never_longer_than_octile_and_always_valid() {
    let json = temp_path("scen-visgraph.json");
    let csv = temp_path("scen-visgraph.csv");
    let output = convoy_bench(&[
        "scen",
        &movingai("arena2.map"),
        &movingai("arena2.map.scen"),
        "--backend",
        "visgraph",
        "--json",
        json.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(summary["backend"], "visgraph");
    assert_eq!(summary["mismatches"], 0, "no path longer than octile");
    assert_eq!(summary["invalid"], 0);
    assert_eq!(summary["unreachable"], 0);
    let ratio = summary["length_ratio_mean"].as_f64().unwrap();
    assert!(
        ratio < 1.0,
        "any-angle paths are shorter on average, ratio {ratio}"
    );
    let rows = std::fs::read_to_string(&csv).unwrap().lines().count();
    assert_eq!(rows as u64, summary["queries"].as_u64().unwrap() + 1);
}

#[test]
fn scen_refuses_a_malformed_map_and_a_scenario_for_another_map() {
    let bad_map = temp_path("bad.map");
    std::fs::write(&bad_map, "type octile\nheight 2\nwidth 2\nmap\n..\n.X\n").unwrap();
    let path = bad_map.to_str().unwrap();
    assert_refused(
        &convoy_bench(&["scen", path, &movingai("arena.map.scen")]),
        &[path],
    );
    let scen = movingai("arena2.map.scen");
    assert_refused(
        &convoy_bench(&["scen", &movingai("arena.map"), &scen]),
        &[&scen, "line"],
    );
}

#[test]
fn two_processes_running_each_shipped_profile_record_the_same_checksums() {
    let dir = format!("{}/../profiles", env!("CARGO_MANIFEST_DIR"));
    for entry in std::fs::read_dir(dir).unwrap() {
        let profile = entry.unwrap().path();
        if profile.extension().is_none_or(|ext| ext != "toml") {
            continue;
        }
        let checksums = |run: &str| {
            let json = temp_path(&format!(
                "{}-{run}.json",
                profile.file_stem().unwrap().to_string_lossy()
            ));
            let output = convoy_bench(&[
                "run",
                profile.to_str().unwrap(),
                "--quiet",
                "--units",
                "1000",
                "--ticks",
                "200",
                "--checksum-every",
                "50",
                "--json",
                json.to_str().unwrap(),
            ]);
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            let report: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
            report["checksums"].clone()
        };
        let first = checksums("a");
        assert_eq!(first.as_array().unwrap().len(), 4);
        assert_eq!(first, checksums("b"), "{}", profile.display());
    }
}

#[test]
fn a_run_loaded_from_a_snapshot_matches_the_uninterrupted_run() {
    let snapshot = temp_path("run.snap");
    let full = temp_path("full.json");
    let resumed = temp_path("resumed.json");
    let common = [
        "--quiet",
        "--units",
        "1500",
        "--ticks",
        "120",
        "--checksum-every",
        "20",
    ];
    let mut args = vec!["run"];
    args.extend(common);
    args.extend([
        "--save-at",
        "60",
        snapshot.to_str().unwrap(),
        "--json",
        full.to_str().unwrap(),
    ]);
    assert!(convoy_bench(&args).status.success());
    let mut args = vec!["run"];
    args.extend(common);
    args.extend([
        "--load",
        snapshot.to_str().unwrap(),
        "--json",
        resumed.to_str().unwrap(),
    ]);
    let output = convoy_bench(&args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let read = |path: &PathBuf| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let (full, resumed) = (read(&full), read(&resumed));
    let after_60: Vec<_> = full["checksums"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["tick"].as_u64() > Some(60))
        .cloned()
        .collect();
    assert_eq!(after_60.len(), 3);
    assert_eq!(resumed["checksums"].as_array().unwrap(), &after_60);
    assert_eq!(full["checksum"], resumed["checksum"]);
}

#[test]
fn a_damaged_snapshot_is_refused_with_exit_code_two() {
    let snapshot = temp_path("damaged.snap");
    std::fs::write(&snapshot, b"CONVOYSN\x01\x00\x00\x00garbage").unwrap();
    let path = snapshot.to_str().unwrap();
    assert_refused(
        &convoy_bench(&["run", "--ticks", "5", "--units", "100", "--load", path]),
        &[path],
    );
}

/// A report from a real short run, with every p50 (and repeat spread) set
/// from `p50_of(stage)`.
fn synthetic_report(name: &str, p50_of: impl Fn(&str) -> f64, spread: f64) -> PathBuf {
    let json = temp_path(&format!("{name}.json"));
    let output = convoy_bench(&[
        "run",
        "--quiet",
        "--ticks",
        "3",
        "--units",
        "200",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(output.status.success());
    let mut report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let mut spreads = Vec::new();
    let serde_json::Value::Object(fields) = &mut report else {
        panic!("report is an object")
    };
    let mut tick = fields.remove("tick").unwrap();
    for stage in fields["stages"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .chain([&mut tick])
    {
        let stage_name = stage["name"].as_str().unwrap().to_owned();
        let p50 = p50_of(&stage_name);
        stage["p50_ms"] = p50.into();
        spreads.push(serde_json::json!({
            "name": stage_name, "p50_ms_median": p50, "p50_ms_min": p50 * (1.0 - spread), "p50_ms_max": p50 * (1.0 + spread)
        }));
    }
    fields.insert("tick".to_owned(), tick);
    report["repeat"] = serde_json::json!({ "runs": 5, "stages": spreads });
    std::fs::write(&json, report.to_string()).unwrap();
    json
}

#[test]
fn compare_flags_a_twenty_percent_slowdown_of_one_stage_and_passes_a_rerun() {
    let base = synthetic_report("base", |_| 1.0, 0.03);
    let rerun = synthetic_report(
        "rerun",
        |stage| if stage == "steering" { 1.02 } else { 0.99 },
        0.03,
    );
    let slower = synthetic_report(
        "slower",
        |stage| if stage == "steering" { 1.2 } else { 1.0 },
        0.03,
    );
    let compare = |new: &PathBuf| {
        convoy_bench(&[
            "compare",
            base.to_str().unwrap(),
            new.to_str().unwrap(),
            "--threshold",
            "10",
        ])
    };

    let unchanged = compare(&rerun);
    assert_eq!(
        unchanged.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&unchanged.stdout)
    );

    let regressed = compare(&slower);
    assert_eq!(regressed.status.code(), Some(1));
    let table = String::from_utf8_lossy(&regressed.stdout);
    let flagged: Vec<&str> = table
        .lines()
        .filter(|line| line.contains("REGRESSED"))
        .collect();
    assert_eq!(flagged.len(), 1, "{table}");
    assert!(flagged[0].starts_with("steering"), "{table}");
}

#[test]
fn compare_does_not_flag_a_change_inside_the_runs_noise() {
    let base = synthetic_report("noisy-base", |_| 1.0, 0.2);
    let new = synthetic_report(
        "noisy-new",
        |stage| if stage == "separation" { 1.15 } else { 1.0 },
        0.2,
    );
    let output = convoy_bench(&[
        "compare",
        base.to_str().unwrap(),
        new.to_str().unwrap(),
        "--threshold",
        "10",
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

#[test]
fn compare_refuses_reports_of_different_profiles_or_a_missing_file() {
    let base = synthetic_report("refuse-base", |_| 1.0, 0.0);
    assert_refused(
        &convoy_bench(&["compare", base.to_str().unwrap(), "/nonexistent.json"]),
        &["/nonexistent.json"],
    );
}

#[test]
fn plot_draws_every_stage_and_the_budget_lines() {
    let svg = temp_path("plot.svg");
    let output = convoy_bench(&[
        "run",
        "--quiet",
        "--ticks",
        "30",
        "--units",
        "500",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
    for stage in STAGES.iter().chain(&["tick"]) {
        assert!(
            text.contains(&format!(">\n{stage}\n<")) || text.contains(&format!(">{stage}<")),
            "legend lacks {stage}"
        );
    }
    assert!(
        text.matches("<polyline").count() >= 7,
        "one line per stage and the tick"
    );
}
