//! One shield separation pass on the separation benchmark's crowd (100,000
//! units at one per 50 m², random headings, rows in cell order), for
//! profiles and timings finer than criterion's:
//!
//! - `separate_once [across]` runs one pass inside `run_once`, for
//!   callgrind: `valgrind --tool=callgrind --toggle-collect='*run_once*'
//!   target/release/examples/separate_once across` counts what the pass
//!   runs on the calling thread (`RAYON_NUM_THREADS=1` for a count that
//!   does not depend on scheduling). The parallel passes run on the pool's
//!   workers, off `run_once`'s stack: toggle them too
//!   (`--toggle-collect='*push_chunk*'`, `'*measure_chunk*'`, …), or, for
//!   the whole pass, count the whole program with `--time` (41 passes) and
//!   without (one) and divide the difference by 40;
//! - `separate_once [across] --time` runs it 40 times, each time from the
//!   same positions, and prints the fastest: on a shared machine the
//!   minimum moves least.
//!
//! `across` picks the crowd with shields 2–6 m across; without it every
//! semi-axis is 2–6 m (the jammed crowd). `--iterations N` allows the pass
//! N pushes (one by default, as the benchmark's `one_iteration`), to time
//! what each further push costs; `--stats` prints the pass's stats (pairs
//! tested, exact tests, overlaps, the deepest overlap left), to check that
//! a change keeps them.

#[allow(dead_code)]
#[path = "../benches/shield_crowd/mod.rs"]
mod shield_crowd;

use std::hint::black_box;
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use convoy::glam::Vec2;
use convoy::stages::separation::{Separation, SeparationInput, SeparationStats};
use shield_crowd::{ShieldSize, shield_crowd};

const UNITS: usize = 100_000;
const RUNS: usize = 40;

/// One separation pass on the benchmark crowd (see the module docs).
#[derive(Parser)]
struct Args {
    /// The crowd; absent, every semi-axis is 2–6 m (the jammed crowd).
    crowd: Option<Crowd>,
    /// Run the pass 40 more times and print the fastest.
    #[arg(long)]
    time: bool,
    /// Pushes the pass may take.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    iterations: u32,
    /// Print the first pass's stats.
    #[arg(long)]
    stats: bool,
}

/// The benchmark's crowd other than the jammed one.
#[derive(Clone, Copy, ValueEnum)]
enum Crowd {
    /// Shields 2–6 m across (every semi-axis 1–3 m).
    Across,
}

/// One pass from `start`.
#[inline(never)]
fn run_once(
    separation: &mut Separation,
    input: SeparationInput<'_>,
    start: &[Vec2],
    position: &mut [Vec2],
) -> (Duration, SeparationStats) {
    position.copy_from_slice(start);
    let started = Instant::now();
    let stats = black_box(separation.pass(input, position));
    (started.elapsed(), stats)
}

fn main() {
    let args = Args::parse();
    let size = match args.crowd {
        Some(Crowd::Across) => ShieldSize::Across2To6m,
        None => ShieldSize::SemiAxes2To6m,
    };
    let crowd = shield_crowd(UNITS, size);
    let hash = crowd.hash();
    let input = crowd.input(&hash);
    let mut separation = crowd.separation();
    separation.set_iterations(args.iterations);
    let mut position = crowd.position.clone();
    // Warm-up: grows nothing (reserved), but touches every buffer once.
    let (_, stats) = run_once(&mut separation, input, &crowd.position, &mut position);
    if args.stats {
        println!("{size:?}: {stats:?}");
    }
    if !args.time {
        return;
    }
    let fastest = (0..RUNS)
        .map(|_| run_once(&mut separation, input, &crowd.position, &mut position).0)
        .min()
        .expect("RUNS > 0");
    println!(
        "{size:?}: fastest of {RUNS} passes {:.3} ms ({:.1} ns a unit)",
        fastest.as_secs_f64() * 1e3,
        fastest.as_secs_f64() * 1e9 / UNITS as f64
    );
}
