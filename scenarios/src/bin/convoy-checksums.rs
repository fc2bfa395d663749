//! Prints the lockstep checksum of each profile after a number of ticks,
//! run as `convoy-bench run` runs it (the profile's orders before every
//! step, its threads or one per core). `scripts/same-bits.sh` compares its
//! output from the x86-64-v3 build with a baseline x86-64 build's; being
//! small, this binary keeps that second build short.
//!
//! `convoy-checksums TICKS PROFILE.toml...` prints `PROFILE CHECKSUM` lines;
//! bad arguments or a bad profile print one line and exit with code 2.

use std::path::Path;

use convoy_scenarios::{Orders, Profile};

fn main() {
    if let Err(message) = run() {
        eprintln!("convoy-checksums: {message}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: convoy-checksums TICKS PROFILE.toml...";
    let ticks: u64 = args
        .next()
        .ok_or(usage)?
        .parse()
        .map_err(|_| format!("TICKS must be a whole number; {usage}"))?;
    for path in args {
        let mut profile = Profile::load(Path::new(&path)).map_err(|error| error.to_string())?;
        profile.run.ticks = ticks;
        let threads = profile
            .run
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
        let mut sim = convoy_scenarios::build(&profile, threads)
            .map_err(|error| format!("{path}: {error}"))?;
        let mut orders = Orders::new(&profile, &sim);
        for _ in sim.tick_count()..ticks {
            orders
                .before_step(&mut sim)
                .map_err(|error| format!("{path}: {error}"))?;
            sim.step(profile.run.dt);
        }
        println!("{path} {:016x}", sim.checksum());
    }
    Ok(())
}
