//! The `steering` + `integrate` stages on the steering benchmark's world
//! (the default profile at 100,000 units, two ticks in, one thread per
//! core), for profiles and timings finer than criterion's:
//!
//! - `steer_once [RADIUS]` runs the two stages once, inside `run_once`, for
//!   callgrind: `valgrind --tool=callgrind --toggle-collect='*run_once*'
//!   target/release/examples/steer_once` counts their instructions alone
//!   (`RAYON_NUM_THREADS=1` for a count that does not depend on scheduling);
//! - `steer_once RADIUS --time` runs them 40 times, each time on the same
//!   columns, and prints the fastest time of each stage: on a shared
//!   machine the minimum moves least.
//!
//! RADIUS is the avoidance radius and the hash's cell size, metres
//! (default 8, the default profile's; the steering benchmark uses 11.3).
//! A negative radius hashes with its size but gives avoidance no
//! neighbours: the time of everything but the threat search.

use convoy::nav::ClassMaps;
use std::hint::black_box;
use std::time::{Duration, Instant};

use convoy::Sim;
use convoy::data::spatial_hash::SpatialHash;
use convoy::stages::integrate::dynamics;
use convoy::stages::steering::{SteerWorld, Steering};
use convoy_scenarios::{self as scenario, Profile};

const UNITS: u32 = 100_000;
const RUNS: usize = 40;

/// Both stages once.
#[inline(never)]
fn run_once(
    sim: &mut Sim,
    spatial: &SpatialHash,
    steering: &mut Steering,
    radius: f32,
    dt: f32,
) -> (Duration, Duration) {
    let world = SteerWorld {
        spatial,
        maps: ClassMaps::default(),
        avoid_radius: radius,
        bodies: &[],
        dt,
        tick: 0,
        factions_share: true,
        walls: ClassMaps::default(),
    };
    let mut columns = sim.vehicles_mut();
    let started = Instant::now();
    black_box(steering.run(&mut columns, world));
    let steered = started.elapsed();
    let started = Instant::now();
    black_box(dynamics::integrate_columns(
        &mut columns,
        ClassMaps::default(),
        dt,
    ));
    (steered, started.elapsed())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let radius: f32 = args
        .next()
        .map_or(8.0, |radius| radius.parse().expect("RADIUS is a number"));
    let timed = args.next().is_some_and(|flag| flag == "--time");
    let mut profile = Profile::parse(include_str!("../../profiles/default.toml"), "default.toml")
        .expect("the default profile parses");
    profile.scenario.units = UNITS;
    // The world's pool takes in the calling thread, so the stages run on
    // it: `RAYON_NUM_THREADS` must size it for the count to be one thread's.
    let threads = std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|threads| threads.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    let mut sim = scenario::build(&profile, threads).expect("the default profile builds");
    let dt = profile.run.dt;
    for _ in 0..2 {
        sim.step(dt);
    }
    let mut spatial = SpatialHash::new(sim.config().bounds, radius.abs()).expect("valid grid");
    spatial.reserve(sim.vehicles().len());
    spatial.rebuild(sim.vehicles().columns().position());
    let mut steering = Steering::default();
    steering.reserve(sim.vehicles().len());
    if !timed {
        run_once(&mut sim, &spatial, &mut steering, radius, dt);
        return;
    }
    let (mut fastest_steering, mut fastest_integrate) = (Duration::MAX, Duration::MAX);
    for _ in 0..RUNS {
        // Integrate moves the units: put back what it writes.
        let columns = sim.vehicles_mut();
        let kept = (
            columns.position.to_vec(),
            columns.velocity.to_vec(),
            columns.heading.to_vec(),
        );
        let (steered, integrated) = run_once(&mut sim, &spatial, &mut steering, radius, dt);
        let columns = sim.vehicles_mut();
        columns.position.copy_from_slice(&kept.0);
        columns.velocity.copy_from_slice(&kept.1);
        columns.heading.copy_from_slice(&kept.2);
        fastest_steering = fastest_steering.min(steered);
        fastest_integrate = fastest_integrate.min(integrated);
    }
    println!(
        "radius {radius} m, {UNITS} units, fastest of {RUNS}: steering {:.3} ms, integrate {:.3} ms",
        fastest_steering.as_secs_f64() * 1e3,
        fastest_integrate.as_secs_f64() * 1e3
    );
}
