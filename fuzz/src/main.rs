//! `convoy-fuzz TARGET SECONDS [SEED]`: mutates TARGET's seeds for SECONDS
//! and prints the executions and findings (see the crate docs).

use std::process::ExitCode;
use std::time::Duration;

use convoy_fuzz::targets::{TARGETS, Target};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(name), Some(seconds)) = (args.first(), args.get(1).and_then(|s| s.parse().ok()))
    else {
        eprintln!("usage: convoy-fuzz TARGET SECONDS [SEED]; targets: {TARGETS:?}");
        return ExitCode::from(2);
    };
    let seed = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let result = Target::new(name).and_then(|mut target| {
        convoy_fuzz::run(&mut target, Duration::from_secs_f64(seconds), seed)
    });
    match result {
        Ok(tally) => {
            println!(
                "{name}: {} executions in {seconds} s, {} findings",
                tally.executions, tally.findings
            );
            if tally.findings == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(error) => {
            eprintln!("{name}: {error}");
            ExitCode::from(2)
        }
    }
}
