//! `convoy-bench run`: load a profile, build its world, step it, report.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use convoy::Profile;
use indicatif::{ProgressBar, ProgressStyle};

use crate::CliError;
use crate::report::{Report, print_table, write_json};

/// The default profile, compiled in (a copy of `profiles/default.toml`).
pub const DEFAULT_PROFILE: &str = include_str!("../../profiles/default.toml");

/// Options of `convoy-bench run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Profile TOML file; the embedded default profile when absent.
    profile: Option<PathBuf>,
    /// Ticks to run (overrides `run.ticks`).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..))]
    ticks: Option<i64>,
    /// Units to spawn (overrides `scenario.units`).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..=i64::from(u32::MAX)))]
    units: Option<i64>,
    /// Worker threads (overrides `run.threads`; default one per core).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..=1024))]
    threads: Option<i64>,
    /// Also write the report as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Sample the run with pprof and write a flamegraph SVG to FILE.
    #[arg(long, value_name = "FILE")]
    flamegraph: Option<PathBuf>,
    /// Print nothing but errors (the JSON file is still written).
    #[arg(long)]
    quiet: bool,
}

/// Runs the profile and writes the requested reports.
pub fn run(args: &RunArgs) -> Result<(), CliError> {
    let (mut profile, source) = match &args.profile {
        Some(path) => (Profile::load(path)?, path.display().to_string()),
        None => (
            Profile::parse(DEFAULT_PROFILE, "profiles/default.toml")?,
            "embedded".to_owned(),
        ),
    };
    // The parsers above admit only positive values in range.
    if let Some(ticks) = args.ticks {
        profile.run.ticks = ticks as u64;
    }
    if let Some(units) = args.units {
        profile.scenario.units = units as u32;
    }
    let threads = args
        .threads
        .map(|threads| threads as usize)
        .or(profile.run.threads)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    let mut sim = convoy::scenario::build(&profile, threads)
        .map_err(|error| CliError::Setup(format!("{source}: {error}")))?;

    let sampler = args
        .flamegraph
        .as_ref()
        .map(|_| start_sampler())
        .transpose()?;
    let progress = progress_bar(profile.run.ticks, args.quiet);
    let started = Instant::now();
    for _ in 0..profile.run.ticks {
        sim.step(profile.run.dt);
        progress.inc(1);
    }
    let wall_seconds = started.elapsed().as_secs_f64();
    progress.finish_and_clear();
    if let (Some(path), Some(guard)) = (&args.flamegraph, sampler) {
        write_flamegraph(&guard, path)?;
    }

    let report = Report::new(&profile, &source, &sim, wall_seconds);
    if !args.quiet {
        print_table(&report);
    }
    if let Some(path) = &args.json {
        write_json(&report, path)?;
    }
    Ok(())
}

/// A bar on stderr while ticking; hidden when quiet or not on a terminal.
fn progress_bar(ticks: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(ticks);
    let style = ProgressStyle::with_template("{bar:40} {pos}/{len} ticks {per_sec} eta {eta}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

fn start_sampler() -> Result<pprof::ProfilerGuard<'static>, CliError> {
    pprof::ProfilerGuardBuilder::default()
        .frequency(997)
        .blocklist(&["libc", "libgcc", "pthread", "vdso"])
        .build()
        .map_err(|error| CliError::Setup(format!("cannot start the pprof sampler: {error}")))
}

fn write_flamegraph(guard: &pprof::ProfilerGuard<'_>, path: &PathBuf) -> Result<(), CliError> {
    let failed = |reason: String| CliError::Output {
        path: path.display().to_string(),
        reason,
    };
    let report = guard
        .report()
        .build()
        .map_err(|error| failed(error.to_string()))?;
    let file = std::fs::File::create(path).map_err(|error| failed(error.to_string()))?;
    report
        .flamegraph(file)
        .map_err(|error| failed(error.to_string()))
}
