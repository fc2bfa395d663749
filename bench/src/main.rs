//! `convoy-bench`: run convoy profiles against their frame budgets and report
//! per-stage timings as a table, JSON or a flamegraph.

mod compare;
mod machine;
mod plot;
mod quality;
mod render;
mod replay;
mod report;
mod run;
mod scen;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Runs convoy scenario profiles and reports per-stage cost against budgets.
#[derive(Debug, Parser)]
#[command(name = "convoy-bench", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a profile (the embedded default when none is given) and print the
    /// per-stage budget table.
    Run(run::RunArgs),
    /// Compare two JSON reports stage by stage; exit code 1 when a stage's
    /// p50 regressed past the threshold beyond the runs' noise.
    Compare(compare::CompareArgs),
    /// Plan every line of a Moving AI scenario file and check the answers.
    Scen(scen::ScenArgs),
    /// Draw a profile's scene at a tick, or a path query on a Moving AI map,
    /// to SVG, layer by layer.
    Render(render::RenderArgs),
    /// Record a profile's run and write a self-contained HTML player.
    Replay(replay::ReplayArgs),
    /// Run the movement-quality scenarios on convoy and on ORCA (dodgy_2d)
    /// and compare arrivals, collisions, speed and cost.
    Quality(quality::QualityArgs),
    /// Print JSON reports as a Markdown table (stage × report, p50 and p99).
    Table {
        /// Reports written by `run --json`, one column pair each.
        #[arg(required = true)]
        reports: Vec<std::path::PathBuf>,
    },
}

/// An error the user can fix: printed as one line, exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The profile could not be read or is invalid.
    #[error(transparent)]
    Profile(#[from] convoy_scenarios::ProfileError),
    /// The simulation could not be set up.
    #[error("{0}")]
    Setup(String),
    /// An input file could not be read or parsed.
    #[error("{path}: {reason}")]
    Input {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// An output file could not be written.
    #[error("{path}: cannot write: {reason}")]
    Output {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

/// Runs `print` on standard output. A reader that stops reading early
/// (`convoy-bench run | head`) ends the output quietly, not with a panic;
/// any other failure to write is an error naming standard output.
pub fn print_to_stdout(
    print: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    match print(&mut out).and_then(|()| out.flush()) {
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        written => written.map_err(|error| CliError::Output {
            path: "standard output".to_owned(),
            reason: error.to_string(),
        }),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) if !error.use_stderr() => {
            // --help and --version.
            let _ = error.print();
            return ExitCode::SUCCESS;
        }
        Err(error) => {
            let rendered = error.render().to_string();
            let first_line = rendered.lines().next().unwrap_or("error: bad arguments");
            eprintln!("{first_line}");
            return ExitCode::from(2);
        }
    };
    let outcome = match cli.command {
        Command::Compare(args) => match compare::compare(&args) {
            Ok(true) => Ok(()),
            Ok(false) => return ExitCode::from(1),
            Err(error) => Err(error),
        },
        Command::Run(args) => run::run(&args),
        Command::Render(args) => render::render(&args),
        Command::Replay(args) => replay::replay(&args),
        Command::Quality(args) => quality::quality(&args),
        Command::Scen(args) => match scen::scen(&args) {
            Ok(true) => Ok(()),
            Ok(false) => return ExitCode::from(1),
            Err(error) => Err(error),
        },
        Command::Table { reports } => reports
            .iter()
            .map(|path| report::read_json(path))
            .collect::<Result<Vec<_>, _>>()
            .and_then(|reports| print_to_stdout(|out| report::print_markdown(out, &reports))),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}
