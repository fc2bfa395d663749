//! `convoy-bench run`: load a profile, build its world, step it, report.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use convoy_scenarios::Profile;
use indicatif::{ProgressBar, ProgressStyle};

use crate::CliError;
use crate::print_to_stdout;
use crate::report::{Repeat, Report, TickChecksum, print_table, write_json};

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
    /// Record the state checksum every N ticks (JSON `checksums`), so two
    /// runs can be diffed to the first diverging tick.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..))]
    checksum_every: Option<i64>,
    /// Save a snapshot to FILE after tick TICK.
    #[arg(long, num_args = 2, value_names = ["TICK", "FILE"])]
    save_at: Option<Vec<String>>,
    /// Start from the snapshot in FILE (taken in the same profile's world);
    /// the run continues up to tick `--ticks`.
    #[arg(long, value_name = "FILE")]
    load: Option<PathBuf>,
    /// Run the profile K times; the report keeps per-stage medians and
    /// spread for `compare`.
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..=1000))]
    repeat: Option<i64>,
    /// Draw every stage's time per tick against its budget to FILE.svg.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Print nothing but errors (the JSON file is still written).
    #[arg(long)]
    quiet: bool,
}

/// Where to save a snapshot.
struct SavePoint {
    tick: u64,
    path: PathBuf,
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
    // The parsers admit only positive values in range.
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
    let save_point = args.save_at.as_deref().map(parse_save_point).transpose()?;
    let repeats = args.repeat.unwrap_or(1) as usize;

    let sampler = args
        .flamegraph
        .as_ref()
        .map(|_| start_sampler())
        .transpose()?;
    let mut runs = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        runs.push(run_once(
            args,
            &profile,
            &source,
            threads,
            save_point.as_ref(),
        )?);
    }
    if let (Some(path), Some(guard)) = (&args.flamegraph, sampler) {
        write_flamegraph(&guard, path)?;
    }
    let mut report = runs.swap_remove(0);
    if repeats > 1 {
        runs.push(report.clone());
        report.repeat = Some(Repeat::from_runs(&runs));
    }
    if !args.quiet {
        print_to_stdout(|out| print_table(out, &report))?;
    }
    if let Some(path) = &args.json {
        write_json(&report, path)?;
    }
    Ok(())
}

fn parse_save_point(values: &[String]) -> Result<SavePoint, CliError> {
    let [tick, path] = values else {
        return Err(CliError::Setup("--save-at needs TICK and FILE".to_owned()));
    };
    let tick = tick
        .parse::<u64>()
        .ok()
        .filter(|&tick| tick >= 1)
        .ok_or_else(|| {
            CliError::Setup(format!(
                "--save-at: tick must be a whole number ≥ 1, was `{tick}`"
            ))
        })?;
    Ok(SavePoint {
        tick,
        path: PathBuf::from(path),
    })
}

/// Builds the world, steps it to `run.ticks` and collects its report.
fn run_once(
    args: &RunArgs,
    profile: &Profile,
    source: &str,
    threads: usize,
    save_point: Option<&SavePoint>,
) -> Result<Report, CliError> {
    let mut sim = convoy_scenarios::build(profile, threads)
        .map_err(|error| CliError::Setup(format!("{source}: {error}")))?;
    if let Some(path) = &args.load {
        let failed = |reason: String| CliError::Input {
            path: path.display().to_string(),
            reason,
        };
        let mut file = std::fs::File::open(path).map_err(|error| failed(error.to_string()))?;
        sim.restore(&mut std::io::BufReader::new(&mut file))
            .map_err(|error| failed(error.to_string()))?;
    }
    let every = args.checksum_every.map(|n| n as u64);
    let mut checksums = Vec::new();
    let remaining = profile.run.ticks.saturating_sub(sim.tick_count());
    if args.plot.is_some() {
        sim.trace_ticks(remaining as usize);
    }
    let progress = progress_bar(remaining, args.quiet);
    let mut orders = convoy_scenarios::Orders::new(profile, &sim);
    let started = Instant::now();
    for _ in 0..remaining {
        orders
            .before_step(&mut sim)
            .map_err(|error| CliError::Setup(format!("{source}: {error}")))?;
        sim.step(profile.run.dt);
        progress.inc(1);
        let tick = sim.tick_count();
        if every.is_some_and(|every| tick.is_multiple_of(every)) {
            checksums.push(TickChecksum {
                tick,
                checksum: format!("{:016x}", sim.checksum()),
            });
        }
        if let Some(save) = save_point.filter(|save| save.tick == tick) {
            save_snapshot(&sim, &save.path)?;
        }
    }
    let wall_seconds = started.elapsed().as_secs_f64();
    progress.finish_and_clear();
    if let Some(path) = &args.plot {
        let budgets = sim.budgets();
        let mut budgets_ms = [budgets.frame.as_secs_f32() * 1e3; 7];
        for (slot, budget) in budgets_ms.iter_mut().zip(budgets.stages) {
            *slot = budget.as_secs_f32() * 1e3;
        }
        let title = format!(
            "{}: {} units, {} threads",
            profile.name,
            sim.vehicles().len(),
            sim.threads()
        );
        crate::plot::plot(path, &title, sim.trace(), budgets_ms)?;
    }
    let mut report = Report::new(profile, source, &sim, wall_seconds);
    report.checksums = checksums;
    report.platoon_arrivals = orders
        .log()
        .summary(remaining as f64 * f64::from(profile.run.dt));
    Ok(report)
}

fn save_snapshot(sim: &convoy::Sim, path: &Path) -> Result<(), CliError> {
    let failed = |error: std::io::Error| CliError::Output {
        path: path.display().to_string(),
        reason: error.to_string(),
    };
    let file = std::fs::File::create(path).map_err(failed)?;
    sim.save(&mut std::io::BufWriter::new(file)).map_err(failed)
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

fn write_flamegraph(guard: &pprof::ProfilerGuard<'_>, path: &Path) -> Result<(), CliError> {
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
