//! The run report: the per-stage budget table on stdout and the JSON file.
//!
//! The JSON schema is documented in docs/cli.md ("JSON report"); bump
//! [`SCHEMA`] whenever a key changes meaning or disappears.

use std::io::{self, Write};
use std::path::Path;

use convoy::{Quality, Sim, TimingReport};
use convoy_scenarios::{ArrivalSummary, Profile};
use serde::{Deserialize, Serialize};

use crate::CliError;
use crate::machine::Machine;

/// Version of the JSON report layout.
pub const SCHEMA: u32 = 1;

/// Everything one run measured; the JSON report.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    /// Layout version ([`SCHEMA`]).
    pub schema: u32,
    /// Where it ran.
    pub machine: Machine,
    /// Worker threads.
    pub threads: usize,
    /// Profile name.
    pub profile: String,
    /// Profile file, or `embedded`.
    pub profile_source: String,
    /// Live units at the end.
    pub units: usize,
    /// Ticks stepped.
    pub ticks: u64,
    /// Seconds per tick.
    pub dt: f32,
    /// Scenario seed.
    pub seed: u64,
    /// Wall-clock seconds of the tick loop.
    pub wall_s: f64,
    /// Per-stage figures, in tick order.
    pub stages: Vec<TimingReport>,
    /// Whole-tick figures.
    pub tick: TimingReport,
    /// Movement quality: arrivals, collisions, speed, stuck units.
    #[serde(default)]
    pub quality: Quality,
    /// Platoon arrivals under the profile's orders: per minute, and path
    /// efficiency (time taken ÷ shortest path at top speed).
    #[serde(default)]
    pub platoon_arrivals: ArrivalSummary,
    /// Hex XXH3 of the final state.
    pub checksum: String,
    /// Checksums recorded every `--checksum-every` ticks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checksums: Vec<TickChecksum>,
    /// Medians and spread over `--repeat` runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<Repeat>,
}

/// The state checksum after one tick.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TickChecksum {
    /// Ticks stepped.
    pub tick: u64,
    /// Hex XXH3-64 of the state.
    pub checksum: String,
}

/// One stage's p50 over repeated runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Stage name, or `tick`.
    pub name: String,
    /// Median over runs of the run's p50, ms.
    pub p50_ms_median: f64,
    /// Fastest run's p50, ms.
    pub p50_ms_min: f64,
    /// Slowest run's p50, ms.
    pub p50_ms_max: f64,
}

/// Figures over `--repeat K` runs of the same profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Repeat {
    /// K.
    pub runs: usize,
    /// One entry per stage, then one named `tick`.
    pub stages: Vec<Spread>,
}

impl Repeat {
    /// Medians and spreads of every stage's p50 over `runs`.
    pub fn from_runs(runs: &[Report]) -> Repeat {
        let Some(first) = runs.first() else {
            return Repeat {
                runs: 0,
                stages: Vec::new(),
            };
        };
        let rows = first.stages.len() + 1;
        let stages = (0..rows)
            .map(|row| {
                let pick = |run: &Report| run.stages.get(row).unwrap_or(&run.tick).p50_ms;
                let mut values: Vec<f64> = runs.iter().map(pick).collect();
                values.sort_by(f64::total_cmp);
                Spread {
                    name: first.stages.get(row).unwrap_or(&first.tick).name.clone(),
                    p50_ms_median: median(&values),
                    p50_ms_min: values[0],
                    p50_ms_max: values[values.len() - 1],
                }
            })
            .collect();
        Repeat {
            runs: runs.len(),
            stages,
        }
    }

    /// The spread of stage `name`.
    pub fn stage(&self, name: &str) -> Option<&Spread> {
        self.stages.iter().find(|spread| spread.name == name)
    }
}

/// The median of sorted `values` (not empty).
fn median(values: &[f64]) -> f64 {
    let middle = values.len() / 2;
    if values.len() % 2 == 1 {
        values[middle]
    } else {
        (values[middle - 1] + values[middle]) / 2.0
    }
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
            quality: sim.quality(),
            platoon_arrivals: ArrivalSummary::default(),
            checksum: format!("{:016x}", sim.checksum()),
            checksums: Vec::new(),
            repeat: None,
        }
    }
}

/// Prints the per-stage table: timings, budget, percent of budget at p99,
/// ticks over budget, and `OVER` where p99 exceeds the budget.
pub fn print_table(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    writeln!(
        out,
        "profile {} ({}): {} units, {} ticks of {:.4} s, {} threads on {} ({} cores)",
        report.profile,
        report.profile_source,
        report.units,
        report.ticks,
        report.dt,
        report.threads,
        report.machine.cpu,
        report.machine.cores,
    )?;
    writeln!(
        out,
        "{:<11} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>8} {:>6}",
        "stage", "mean ms", "p50 ms", "p95 ms", "p99 ms", "max ms", "budget ms", "p99 use", "over"
    )?;
    for row in report.stages.iter().chain([&report.tick]) {
        writeln!(
            out,
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
        )?;
    }
    for row in &report.stages {
        if !row.counters.is_empty() {
            let counters: Vec<String> = row
                .counters
                .iter()
                .map(|(name, value)| format!("{name}={}", figure(*value)))
                .collect();
            writeln!(out, "  {:<9} {}", row.name, counters.join(" "))?;
        }
    }
    let quality = &report.quality;
    writeln!(
        out,
        "quality   arrived={} collisions_per_1000_unit_ticks={:.3} mean_speed_fraction={:.3} stuck={}",
        quality.arrived,
        quality.collisions_per_1000_unit_ticks,
        quality.mean_speed_fraction,
        quality.stuck,
    )?;
    let arrivals = &report.platoon_arrivals;
    if arrivals.arrivals_per_minute > 0.0 || arrivals.unfinished > 0 {
        writeln!(
            out,
            "platoons  arrivals_per_minute={:.1} unfinished={} path_efficiency mean={:.2} p95={:.2}",
            arrivals.arrivals_per_minute,
            arrivals.unfinished,
            arrivals.path_efficiency_mean,
            arrivals.path_efficiency_p95,
        )?;
    }
    writeln!(
        out,
        "checksum {}  wall {:.2} s",
        report.checksum, report.wall_s
    )?;
    Ok(())
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

/// A counter value: whole numbers without decimals, others to three places.
fn figure(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}")
    } else {
        format!("{value:.3}")
    }
}

/// Reads a JSON report written by `run --json`.
pub fn read_json(path: &Path) -> Result<Report, CliError> {
    let failed = |reason: String| CliError::Input {
        path: path.display().to_string(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|error| failed(error.to_string()))?;
    let report: Report = serde_json::from_str(&text).map_err(|error| failed(error.to_string()))?;
    if report.schema != SCHEMA {
        return Err(failed(format!(
            "report schema {} is not the supported {SCHEMA}",
            report.schema
        )));
    }
    Ok(report)
}

/// Prints a Markdown table, one row per stage (and the whole tick), one
/// p50 / p99 column pair per report: the README's performance table.
pub fn print_markdown(out: &mut dyn Write, reports: &[Report]) -> io::Result<()> {
    let mut header = String::from("| stage |");
    let mut rule = String::from("|---|");
    for report in reports {
        header += &format!(" {} units p50 ms | p99 ms |", thousands(report.units));
        rule += "---:|---:|";
    }
    writeln!(out, "{header}\n{rule}")?;
    let rows = reports.first().map_or(0, |report| report.stages.len() + 1);
    for row in 0..rows {
        let pick = |report: &Report| report.stages.get(row).unwrap_or(&report.tick).clone();
        let name = reports
            .first()
            .map(|report| pick(report).name)
            .unwrap_or_default();
        let mut line = format!("| {name} |");
        for report in reports {
            let figures = pick(report);
            line += &format!(" {:.3} | {:.3} |", figures.p50_ms, figures.p99_ms);
        }
        writeln!(out, "{line}")?;
    }
    Ok(())
}

fn thousands(value: usize) -> String {
    let digits = value.to_string();
    let mut grouped = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}
