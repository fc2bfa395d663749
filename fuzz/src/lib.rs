//! A stable mutation fuzzer for convoy's loaders (no nightly, no
//! `cargo-fuzz`): [`mutate`](mod@mutate) makes hostile variants of the shipped data,
//! [`targets`](mod@targets) loads and uses them, [`run`] loops for a time and keeps every
//! finding — a panic or a non-finite output — as a regression input under
//! `fuzz/regressions/TARGET/`, which `tests/regressions_replay.rs` replays.
//! `scripts/fuzz.sh TARGET SECONDS` runs one target; `docs/fuzzing.md`
//! records the runs.

pub mod mutate;
pub mod targets;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use mutate::{Rng, mutate};
use targets::Target;

/// What one fuzzing run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Inputs executed.
    pub executions: u64,
    /// Findings saved (panics and non-finite outputs).
    pub findings: u64,
}

/// The folder holding `target`'s regression inputs.
#[must_use]
pub fn regressions(target: &str) -> PathBuf {
    targets::repository().join("fuzz/regressions").join(target)
}

/// One execution of `input` on `target`: `Err` names a panic or a
/// non-finite output.
///
/// # Errors
/// The finding, described.
pub fn execute(target: &mut Target, input: &[u8]) -> Result<(), String> {
    match catch_unwind(AssertUnwindSafe(|| target.run(input))) {
        Ok(result) => result,
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            Err(format!("panic: {message}"))
        }
    }
}

/// Mutates `target`'s seeds for `duration` from RNG seed `seed`, saving
/// each finding under [`regressions`].
///
/// # Errors
/// A finding could not be saved, or the target could not be rebuilt after
/// a panic.
pub fn run(target: &mut Target, duration: Duration, seed: u64) -> Result<Tally, String> {
    let mut rng = Rng::new(seed);
    let mut tally = Tally::default();
    let start = Instant::now();
    while start.elapsed() < duration {
        let seeds = target.seeds();
        let input = &seeds[rng.below(seeds.len())];
        let other = &seeds[rng.below(seeds.len())];
        let mutant = mutate(&mut rng, input, other, target.is_text());
        let mutant = target.reseal(mutant, rng.below(8) == 0);
        tally.executions += 1;
        if let Err(finding) = execute(target, &mutant) {
            tally.findings += 1;
            save(target.name(), &mutant, &finding)?;
            // A panic may leave the target's world half-stepped.
            *target = Target::new(target.name())?;
        }
    }
    Ok(tally)
}

fn save(target: &str, input: &[u8], finding: &str) -> Result<(), String> {
    let folder = regressions(target);
    std::fs::create_dir_all(&folder).map_err(|error| error.to_string())?;
    let name = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(input));
    eprintln!("{target}: finding {name}: {finding}");
    std::fs::write(folder.join(name), input).map_err(|error| error.to_string())
}
