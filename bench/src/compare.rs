//! `convoy-bench compare`: has a stage become slower than noise allows?
//!
//! Each stage's p50 in the new report is compared with the base. Without
//! repeated runs a stage regresses when its p50 grew by more than the
//! threshold. With `run --repeat K` on both sides the medians must differ by
//! more than the threshold *and* the ranges of the runs must not overlap
//! (every new run slower than every base run), so one noisy run on a shared
//! machine cannot fail CI. Changes under [`MIN_CHANGE_MS`] are timer noise.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;

use crate::report::{Report, Spread, read_json};
use crate::{CliError, print_to_stdout};

/// Absolute changes smaller than this never count.
pub const MIN_CHANGE_MS: f64 = 0.002;

/// Options of `convoy-bench compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The baseline report (`run --json`).
    base: PathBuf,
    /// The report to judge.
    new: PathBuf,
    /// Percent a stage's p50 may grow before it counts as a regression.
    #[arg(
        long,
        value_name = "PCT",
        default_value_t = 10.0,
        allow_negative_numbers = true
    )]
    threshold: f64,
}

/// One stage's judgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Within the threshold or the noise.
    Same,
    /// Faster beyond threshold and noise.
    Faster,
    /// Slower beyond threshold and noise.
    Regressed,
}

/// A stage's p50 on both sides (medians when repeated) and its verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Stage name or `tick`.
    pub name: String,
    /// Base p50, ms.
    pub base_ms: f64,
    /// New p50, ms.
    pub new_ms: f64,
    /// The verdict.
    pub verdict: Verdict,
}

/// Compares two reports; exit code 1 when any stage regressed.
pub fn compare(args: &CompareArgs) -> Result<bool, CliError> {
    if !(args.threshold.is_finite() && args.threshold >= 0.0) {
        return Err(CliError::Setup(format!(
            "--threshold must be zero or more percent, was {}",
            args.threshold
        )));
    }
    let base = read_json(&args.base)?;
    let new = read_json(&args.new)?;
    if (base.profile.as_str(), base.units) != (new.profile.as_str(), new.units) {
        return Err(CliError::Setup(format!(
            "{} ran profile `{}` with {} units, {} ran `{}` with {} units: not comparable",
            args.base.display(),
            base.profile,
            base.units,
            args.new.display(),
            new.profile,
            new.units
        )));
    }
    let rows = judge(&base, &new, args.threshold / 100.0);
    print_to_stdout(|out| {
        if base.machine.cpu != new.machine.cpu || base.threads != new.threads {
            writeln!(
                out,
                "note: base ran on {} with {} threads, new on {} with {} threads",
                base.machine.cpu, base.threads, new.machine.cpu, new.threads
            )?;
        }
        print_rows(out, &rows, args.threshold)
    })?;
    Ok(rows.iter().all(|row| row.verdict != Verdict::Regressed))
}

/// The verdict of every stage and of the whole tick.
pub fn judge(base: &Report, new: &Report, threshold: f64) -> Vec<Row> {
    base.stages
        .iter()
        .chain([&base.tick])
        .filter_map(|base_stage| {
            let name = &base_stage.name;
            let new_stage = new
                .stages
                .iter()
                .chain([&new.tick])
                .find(|stage| &stage.name == name)?;
            let spreads = (spread(base, name), spread(new, name));
            let (base_ms, new_ms) = match spreads {
                (Some(b), Some(n)) => (b.p50_ms_median, n.p50_ms_median),
                _ => (base_stage.p50_ms, new_stage.p50_ms),
            };
            let beyond_threshold = (new_ms - base_ms).abs() > threshold * base_ms
                && (new_ms - base_ms).abs() > MIN_CHANGE_MS;
            let beyond_noise = match spreads {
                (Some(b), Some(n)) => n.p50_ms_min > b.p50_ms_max || n.p50_ms_max < b.p50_ms_min,
                _ => true,
            };
            let verdict = match (beyond_threshold && beyond_noise, new_ms > base_ms) {
                (false, _) => Verdict::Same,
                (true, true) => Verdict::Regressed,
                (true, false) => Verdict::Faster,
            };
            Some(Row {
                name: name.clone(),
                base_ms,
                new_ms,
                verdict,
            })
        })
        .collect()
}

fn spread<'a>(report: &'a Report, name: &str) -> Option<&'a Spread> {
    report.repeat.as_ref()?.stage(name)
}

fn print_rows(out: &mut dyn Write, rows: &[Row], threshold: f64) -> io::Result<()> {
    writeln!(
        out,
        "{:<11} {:>10} {:>10} {:>9}  verdict (threshold {threshold}%)",
        "stage", "base ms", "new ms", "change"
    )?;
    for row in rows {
        let change = if row.base_ms > 0.0 {
            100.0 * (row.new_ms - row.base_ms) / row.base_ms
        } else {
            0.0
        };
        let verdict = match row.verdict {
            Verdict::Same => "ok",
            Verdict::Faster => "faster",
            Verdict::Regressed => "REGRESSED",
        };
        writeln!(
            out,
            "{:<11} {:>10.4} {:>10.4} {:>+8.1}%  {verdict}",
            row.name, row.base_ms, row.new_ms, change
        )?;
    }
    Ok(())
}
