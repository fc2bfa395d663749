//! The per-unit stages of the tick and the whole `Sim::step`, at 10k and
//! 100k units of the default profile (criterion, the global rayon pool).
//! The spatial hash, planners and separation have their own benches with
//! their peers (`spatial`, `pathfinding`, `separation`); these stages have no
//! library doing the same job to compare against, so each checks its own
//! answer instead: steering's desired speeds never exceed the unit's top
//! speed, and integration moves units. (`steering` has its own bench against
//! ORCA too: `benches/steering.rs`.)
//!
//! `cargo bench -p convoy-bench --bench tick`; `-- --profile-time 5` writes
//! a flamegraph per benchmark under `target/criterion/`.

// Shared with the other benches; this one uses only the profiler hook.
#[allow(dead_code)]
mod common;

use convoy::nav::ClassMaps;
use std::hint::black_box;

use convoy::Sim;
use convoy::data::spatial_hash::SpatialHash;
use convoy::stages::integrate::dynamics;
use convoy::stages::steering::{SteerWorld, Steering};
use convoy_scenarios::{self as scenario, Profile};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn world(units: u32) -> (Sim, SpatialHash, f32) {
    let mut profile = Profile::parse(include_str!("../../profiles/default.toml"), "default.toml")
        .expect("the default profile parses");
    profile.scenario.units = units;
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let mut sim = scenario::build(&profile, threads).expect("the default profile builds");
    // A moving world with every scratch buffer grown.
    for _ in 0..2 {
        sim.step(profile.run.dt);
    }
    // The steering stage reads a hash of this tick's positions.
    let config = sim.config();
    let mut spatial = SpatialHash::new(
        config.bounds,
        config.cell_size.unwrap_or(config.neighbour_radius),
    )
    .expect("the profile's grid is valid");
    spatial.reserve(sim.vehicles().len());
    spatial.rebuild(sim.vehicles().columns().position());
    (sim, spatial, profile.run.dt)
}

fn steer_once(sim: &mut Sim, steering: &mut Steering, spatial: &SpatialHash, dt: f32) -> usize {
    let world = SteerWorld {
        spatial,
        maps: ClassMaps::default(),
        avoid_radius: sim.config().neighbour_radius,
        bodies: &[],
        dt,
        tick: 0,
        factions_share: true,
        walls: ClassMaps::default(),
    };
    steering.run(&mut sim.vehicles_mut(), world).avoiding
}

fn integrate_once(sim: &mut Sim, dt: f32) -> usize {
    dynamics::integrate_columns(&mut sim.vehicles_mut(), ClassMaps::default(), dt).moving
}

/// Checks the answers once, outside the timing (and whatever the filter).
fn check_answers(sim: &mut Sim, steering: &mut Steering, spatial: &SpatialHash, dt: f32) {
    steer_once(sim, steering, spatial, dt);
    let columns = sim.vehicles().columns();
    let too_fast = columns
        .desired_velocity()
        .iter()
        .zip(columns.max_speed())
        .filter(|(desired, max)| desired.length() > **max * 1.0001)
        .count();
    assert_eq!(too_fast, 0, "steering asked for more than top speed");
    let before = columns.position().to_vec();
    assert!(integrate_once(sim, dt) > 0, "integration moved nobody");
    assert_ne!(
        before,
        sim.vehicles().columns().position(),
        "positions did not change"
    );
}

fn stages(c: &mut Criterion) {
    for units in [10_000u32, 100_000] {
        let (mut sim, spatial, dt) = world(units);
        let mut steering = Steering::default();
        check_answers(&mut sim, &mut steering, &spatial, dt);
        let mut group = c.benchmark_group(format!("tick/{units}"));
        group.throughput(Throughput::Elements(u64::from(units)));
        group.bench_function(BenchmarkId::from_parameter("steering"), |b| {
            b.iter(|| black_box(steer_once(&mut sim, &mut steering, &spatial, dt)))
        });
        group.bench_function(BenchmarkId::from_parameter("integrate"), |b| {
            b.iter(|| black_box(integrate_once(&mut sim, dt)))
        });
        group.sample_size(10);
        group.bench_function(BenchmarkId::from_parameter("whole_step"), |b| {
            b.iter(|| sim.step(dt))
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_profiler(common::FlamegraphProfiler::new(997));
    targets = stages
}
criterion_main!(benches);
