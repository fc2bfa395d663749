//! The run report: the per-stage budget table on stdout and the JSON file.
//!
//! The JSON schema is documented in README.md ("JSON report"); bump
//! [`SCHEMA`] whenever a key changes meaning or disappears.

use std::path::Path;

use convoy::{Profile, Sim, TimingReport};
use serde::Serialize;

use crate::CliError;
use crate::machine::Machine;

/// Version of the JSON report layout.
pub const SCHEMA: u32 = 1;

/// Everything one run measured.
#[derive(Debug, Serialize)]
pub struct Report {
    schema: u32,
    machine: Machine,
    threads: usize,
    profile: String,
    profile_source: String,
    units: usize,
    ticks: u64,
    dt: f32,
    seed: u64,
    wall_s: f64,
    stages: Vec<TimingReport>,
    tick: TimingReport,
    checksum: String,
}

impl Report {
    /// Collects the figures of a finished run.
    pub fn new(profile: &Profile, source: &str, sim: &Sim, wall_s: f64) -> Report {
        let (stages, tick) = sim.report();
        Report {
            schema: SCHEMA,
            machine: Machine::detect(),
            threads: sim.threads(),
            profile: profile.name.clone(),
            profile_source: source.to_owned(),
            units: sim.vehicles().len(),
            ticks: sim.tick_count(),
            dt: profile.run.dt,
            seed: profile.run.seed,
            wall_s,
            stages,
            tick,
            checksum: format!("{:016x}", sim.checksum()),
        }
    }
}

/// Prints the per-stage table: timings, budget, percent of budget at p99,
/// ticks over budget, and `OVER` where p99 exceeds the budget.
pub fn print_table(report: &Report) {
    println!(
        "profile {} ({}): {} units, {} ticks of {:.4} s, {} threads on {} ({} cores)",
        report.profile,
        report.profile_source,
        report.units,
        report.ticks,
        report.dt,
        report.threads,
        report.machine.cpu,
        report.machine.cores,
    );
    println!(
        "{:<11} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>8} {:>6}",
        "stage", "mean ms", "p50 ms", "p95 ms", "p99 ms", "max ms", "budget ms", "p99 use", "over"
    );
    for row in report.stages.iter().chain([&report.tick]) {
        println!(
            "{:<11} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>9.3} {:>7.1}% {:>6}{}",
            row.name,
            row.mean_ms,
            row.p50_ms,
            row.p95_ms,
            row.p99_ms,
            row.max_ms,
            row.budget_ms,
            row.budget_used_p99(),
            row.over_budget_ticks,
            if row.is_over() { "  OVER" } else { "" },
        );
    }
    for row in &report.stages {
        if !row.counters.is_empty() {
            let counters: Vec<String> = row
                .counters
                .iter()
                .map(|(name, value)| format!("{name}={value:.6}"))
                .collect();
            println!("  {:<9} {}", row.name, counters.join(" "));
        }
    }
    println!("checksum {}  wall {:.2} s", report.checksum, report.wall_s);
}

/// Writes the report as pretty JSON.
pub fn write_json(report: &Report, path: &Path) -> Result<(), CliError> {
    let failed = |reason: String| CliError::Output {
        path: path.display().to_string(),
        reason,
    };
    let text = serde_json::to_string_pretty(report).map_err(|error| failed(error.to_string()))?;
    std::fs::write(path, text + "\n").map_err(|error| failed(error.to_string()))
}
