//! `convoy-bench quality`: movement quality of convoy against ORCA
//! (`dodgy_2d`) on the same scenarios in the same process — arrival times,
//! collisions, interpenetration, speed, stuck units and the cost of a tick —
//! as a table, JSON (`--json`) and arrivals over time (`--plot`).
//!
//! Every agent in both systems has radius 1.5 m and top speed 5 m/s, and
//! both step at 1/60 s. How each system is driven is in
//! [`convoy_runner`] and [`dodgy_runner`]; what is measured, and how, in
//! [`metrics`].

pub mod dodgy_runner;
pub mod plot;

pub use convoy_scenarios::crowd::{convoy_runner, metrics, scenarios};

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use serde::Serialize;

use crate::{CliError, print_to_stdout};
use metrics::{ARRIVAL_RADIUS_M, DT, LOOSE_ARRIVAL_RADIUS_M, Outcome, RADIUS_M, TOP_SPEED};

/// Options of `convoy-bench quality`.
#[derive(Debug, Args)]
pub struct QualityArgs {
    /// Scenarios to run (repeatable); every one when none is given.
    #[arg(long = "scenario", value_name = "NAME", num_args = 1..)]
    scenarios: Vec<String>,
    /// Worker threads of both systems (convoy's pool, the ORCA velocity
    /// pass); one by default, so the per-tick times compare like with like.
    #[arg(long, value_name = "N", default_value_t = 1, allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..=1024))]
    threads: i64,
    /// Also write the results as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Draw the fraction arrived over time, both systems, to FILE.svg.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Only circle-24 and circle-100 (a smoke run for CI).
    #[arg(long, conflicts_with = "scenarios")]
    quick: bool,
}

/// Every scenario's results and the constants they were measured with.
#[derive(Clone, Debug, Serialize)]
pub struct QualityReport {
    /// Every agent's radius, metres.
    pub agent_radius_m: f32,
    /// Every agent's top speed, metres per second.
    pub top_speed_m_s: f32,
    /// The step, seconds.
    pub dt_s: f32,
    /// Within this distance of its goal an agent has arrived, metres.
    pub arrival_radius_m: f32,
    /// The looser radius of the `_loose` arrival times (convoy's steering
    /// arrival radius), metres.
    pub loose_arrival_radius_m: f32,
    /// Worker threads of both systems.
    pub threads: usize,
    /// One entry per scenario run, in order.
    pub scenarios: Vec<ScenarioReport>,
}

/// One scenario's results for both systems.
#[derive(Clone, Debug, Serialize)]
pub struct ScenarioReport {
    /// The scenario's name.
    pub name: String,
    /// Agents in it.
    pub agents: usize,
    /// Simulated seconds allowed.
    pub time_limit_s: f32,
    /// convoy's results.
    pub convoy: Outcome,
    /// ORCA's (`dodgy_2d`) results.
    pub dodgy: Outcome,
}

/// The scenarios asked for, each known, in the order given.
fn chosen(args: &QualityArgs) -> Result<Vec<scenarios::Scenario>, CliError> {
    let names: Vec<&str> = if args.quick {
        scenarios::QUICK.to_vec()
    } else if args.scenarios.is_empty() {
        scenarios::NAMES.to_vec()
    } else {
        args.scenarios.iter().map(String::as_str).collect()
    };
    names
        .into_iter()
        .map(|name| {
            scenarios::build(name).ok_or_else(|| {
                CliError::Setup(format!(
                    "unknown scenario `{name}`; known: {}",
                    scenarios::NAMES.join(", ")
                ))
            })
        })
        .collect()
}

/// Runs the chosen scenarios on both systems and writes the reports.
pub fn quality(args: &QualityArgs) -> Result<(), CliError> {
    let chosen = chosen(args)?;
    let threads = args.threads as usize;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|error| CliError::Setup(format!("cannot start the thread pool: {error}")))?;
    let mut report = QualityReport {
        agent_radius_m: RADIUS_M,
        top_speed_m_s: TOP_SPEED,
        dt_s: DT,
        arrival_radius_m: ARRIVAL_RADIUS_M,
        loose_arrival_radius_m: LOOSE_ARRIVAL_RADIUS_M,
        threads,
        scenarios: Vec::with_capacity(chosen.len()),
    };
    for scenario in &chosen {
        let started = Instant::now();
        let convoy = convoy_runner::run(scenario, threads)
            .map_err(|error| CliError::Setup(format!("{}: convoy: {error}", scenario.name)))?;
        let convoy_s = started.elapsed().as_secs_f64();
        let dodgy = dodgy_runner::run(scenario, &pool);
        eprintln!(
            "{}: convoy {convoy_s:.1} s, dodgy {:.1} s",
            scenario.name,
            started.elapsed().as_secs_f64() - convoy_s
        );
        report.scenarios.push(ScenarioReport {
            name: scenario.name.to_owned(),
            agents: scenario.agents.len(),
            time_limit_s: scenario.time_limit_s,
            convoy,
            dodgy,
        });
    }
    print_to_stdout(|out| print_table(out, &report))?;
    if let Some(path) = &args.json {
        let failed = |reason: String| CliError::Output {
            path: path.display().to_string(),
            reason,
        };
        let text =
            serde_json::to_string_pretty(&report).map_err(|error| failed(error.to_string()))?;
        std::fs::write(path, text + "\n").map_err(|error| failed(error.to_string()))?;
    }
    if let Some(path) = &args.plot {
        plot::plot(path, &report)?;
    }
    Ok(())
}

/// Seconds, or `-` for never.
fn seconds(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_owned(), |s| format!("{s:.1}"))
}

fn print_row(out: &mut dyn Write, name: &str, system: &str, o: &Outcome) -> io::Result<()> {
    writeln!(
        out,
        "| {name} | {system} | {} | {} | {} | {} | {} | {} | {:.2} | {:.2} | {:.3} | {:.3} | {:.2} | {} | {:.3} |",
        o.agents,
        seconds(o.time_to_95_s),
        seconds(o.time_to_100_s),
        seconds(o.time_to_95_loose_s),
        seconds(o.time_to_100_loose_s),
        o.arrived_at_end,
        o.goal_distance_p50_m,
        o.goal_distance_max_m,
        o.collisions_per_1000_unit_ticks,
        o.deepest_interpenetration_m,
        o.mean_speed_fraction,
        o.stuck_at_end,
        o.wall_ms_per_tick,
    )
}

/// Prints one Markdown row per scenario and system (and per kind where a
/// scenario mixes them).
pub fn print_table(out: &mut dyn Write, report: &QualityReport) -> io::Result<()> {
    writeln!(
        out,
        "radius {} m, top speed {} m/s, dt 1/60 s, arrived within {} m of the goal \
         (t95/t100; t95~/t100~ within {} m), {} thread(s); `-`: never",
        report.agent_radius_m,
        report.top_speed_m_s,
        report.arrival_radius_m,
        report.loose_arrival_radius_m,
        report.threads
    )?;
    writeln!(
        out,
        "| scenario | system | agents | t95 s | t100 s | t95~ s | t100~ s | arrived | goal dist p50 m | max m | coll/1k unit-ticks | deepest m | speed | stuck | ms/tick |"
    )?;
    writeln!(
        out,
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
    )?;
    for scenario in &report.scenarios {
        for (system, outcome) in [("convoy", &scenario.convoy), ("dodgy", &scenario.dodgy)] {
            print_row(out, &scenario.name, system, outcome)?;
            for (kind, by_kind) in &outcome.by_kind {
                print_row(out, &format!("  {kind}"), system, by_kind)?;
            }
        }
    }
    Ok(())
}
