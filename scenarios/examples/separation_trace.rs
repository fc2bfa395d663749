//! Runs a profile and prints separation's figures tick by tick: pushes,
//! deepest overlap left (relative to the smaller shield's smallest
//! semi-axis) and whether the pass stopped at its cap, then the totals.
//!
//! `cargo run --release -p convoy-scenarios --example separation_trace --
//! profiles/default.toml [ticks] [units] [iterations]`

#![allow(clippy::unwrap_used, clippy::print_stdout)]

use convoy_scenarios::Profile;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("a profile path");
    let mut profile = Profile::load(std::path::Path::new(&path)).unwrap();
    let ticks: u64 = args.next().map_or(600, |t| t.parse().unwrap());
    if let Some(units) = args.next() {
        profile.scenario.units = profile.scenario.units.min(units.parse().unwrap());
    }
    if let Some(iterations) = args.next() {
        profile.separation.iterations = iterations.parse().unwrap();
    }
    let verbose = std::env::var_os("TRACE_TICKS").is_some();
    let mut sim = convoy_scenarios::build(&profile, 2).unwrap();
    let mut orders = convoy_scenarios::Orders::new(&profile, &sim);
    let (mut worst, mut most, mut capped, mut over) = (0.0_f64, 0.0_f64, 0, 0);
    let mut pushes = 0.0;
    for tick in 0..ticks {
        orders.before_step(&mut sim).unwrap();
        sim.reset_instruments();
        sim.step(profile.run.dt);
        let s = sim.stage_stats().separation;
        worst = worst.max(s.max_overlap_rel);
        most = most.max(s.max_iterations);
        pushes += s.max_iterations;
        capped += usize::from(s.capped_ticks > 0.0);
        over += usize::from(s.max_overlap_rel > 1e-3);
        if verbose && (s.max_overlap_rel > 1e-3 || s.capped_ticks > 0.0) {
            println!(
                "tick {tick:4}: pushes {:3} overlap_rel {:.5} capped {}",
                s.max_iterations, s.max_overlap_rel, s.capped_ticks
            );
        }
    }
    println!(
        "{}: max_overlap_rel {worst:.5} max_iterations {most} capped_ticks {capped} \
         ticks_over_1e-3 {over} mean_pushes {:.2}",
        profile.name,
        pushes / ticks as f64
    );
}
