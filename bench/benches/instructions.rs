//! Instruction counts per stage of the tick, under valgrind's callgrind via
//! `gungraun`: noise-free numbers for CI on shared machines.
//!
//! Every benchmark but `separation_dense` runs on the default profile's world
//! (10,000 units) built on ONE thread, so the count does not depend on
//! scheduling, and stepped once so the columns hold a moving world and every
//! scratch buffer has grown; `separation` runs after that world's `steering`
//! and `integrate` (setup too), so that, as in `Sim::step`, the units have
//! moved from where the hash saw them. `separation_dense` runs one
//! separation pass on the separation bench's crowds at 8,000 units (below
//! the parallel threshold, so on one thread too): `units_8k` with every
//! semi-axis 2–6 m (jammed), `across_2_6m_8k` with shields 2–6 m across.
//! Building the world is setup, not counted; the world is returned from each
//! benchmark so dropping it is not counted either.
//!
//! Run with `scripts/bench-instructions.sh` (installs the matching
//! `gungraun-runner` and checks for valgrind), or directly with
//! `cargo bench -p convoy-bench --bench instructions`.

// gungraun's macros generate public modules, functions and constants without
// docs and with fully qualified paths.
#![allow(missing_docs, unused_qualifications)]

mod shield_crowd;

use convoy::nav::ClassMaps;
use std::hint::black_box;

use convoy::Sim;
use convoy::data::spatial_hash::SpatialHash;
use convoy::glam::Vec2;
use convoy::stages::integrate::dynamics;
use convoy::stages::separation::{Separation, SeparationInput};
use convoy::stages::steering::{SteerStats, SteerWorld, Steering};
use convoy_scenarios::{self as scenario, Profile};
use gungraun::{
    Callgrind, LibraryBenchmarkConfig, library_benchmark, library_benchmark_group, main,
};
use shield_crowd::{ShieldCrowd, ShieldSize, shield_crowd};

/// The default profile: 10,000 mixed units crossing an open map.
const PROFILE: &str = include_str!("../../profiles/default.toml");

/// A world ready for any stage: the `Sim` plus the stage state the `Sim`
/// keeps private (its spatial hash, steering and separation scratch),
/// rebuilt here the way `Sim::step` builds them.
struct World {
    sim: Sim,
    spatial: SpatialHash,
    steering: Steering,
    separation: Separation,
    dt: f32,
}

/// Setup (not counted): the default profile on one thread, stepped once.
fn world() -> World {
    let profile = Profile::parse(PROFILE, "default.toml").expect("the default profile parses");
    let dt = profile.run.dt;
    let mut sim = scenario::build(&profile, 1).expect("the default profile builds");
    sim.step(dt);
    let config = sim.config();
    let mut spatial = SpatialHash::new(
        config.bounds,
        config.cell_size.unwrap_or(config.neighbour_radius),
    )
    .expect("the profile's grid is valid");
    let columns = sim.vehicles().columns();
    spatial.reserve(columns.position().len());
    spatial.rebuild(columns.position());
    let mut separation = Separation::new(
        config.bounds,
        config.cell_size.unwrap_or(config.neighbour_radius),
        config.separation_iterations,
    )
    .expect("the profile's grid is valid");
    separation.reserve(columns.position().len());
    let mut steering = Steering::default();
    steering.reserve(columns.position().len());
    World {
        sim,
        spatial,
        steering,
        separation,
        dt,
    }
}

/// Setup (not counted): [`world`] after its `steering` and `integrate`
/// stages, so that separation, as in `Sim::step`, finds the units moved
/// from where the hash saw them; its separation has run one pass on a copy
/// of the positions, so the counted pass scans as a tick's does (each
/// pushing sweep chooses its scan from the last one's totals).
fn moved_world() -> World {
    let mut world = world();
    steer(&mut world);
    let dt = world.dt;
    dynamics::integrate_columns(&mut world.sim.vehicles_mut(), ClassMaps::default(), dt);
    let columns = world.sim.vehicles().columns();
    let input = SeparationInput {
        altitude: columns.altitude(),
        heading: columns.heading(),
        shield: columns.shield(),
        inv_mass: columns.inv_mass(),
        spatial: &world.spatial,
        mobility: &[],
        terrain: ClassMaps::default(),
    };
    world
        .separation
        .pass(input, &mut columns.position().to_vec());
    world
}

/// The `steering` stage on `world`, over its hash's neighbours within the
/// profile's radius.
fn steer(world: &mut World) -> SteerStats {
    let steer_world = SteerWorld {
        spatial: &world.spatial,
        maps: ClassMaps::default(),
        avoid_radius: world.sim.config().neighbour_radius,
        bodies: &[],
        dt: world.dt,
        tick: 0,
        factions_share: true,
        walls: ClassMaps::default(),
    };
    let mut columns = world.sim.vehicles_mut();
    world.steering.run(&mut columns, steer_world)
}

// `spatial`: rebuild the hash from this tick's positions.
#[library_benchmark]
#[bench::units_10k(setup = world)]
fn spatial_rebuild(mut world: World) -> World {
    let stats = world
        .spatial
        .rebuild(black_box(world.sim.vehicles().columns().position()));
    black_box(stats);
    world
}

// `steering`: drive-to with vehicle avoidance over the hash's neighbours.
#[library_benchmark]
#[bench::units_10k(setup = world)]
fn steering(mut world: World) -> World {
    black_box(steer(&mut world));
    world
}

// `integrate`: velocities, headings and positions by `dt`.
#[library_benchmark]
#[bench::units_10k(setup = world)]
fn integrate(mut world: World) -> World {
    let dt = black_box(world.dt);
    black_box(dynamics::integrate_columns(
        &mut world.sim.vehicles_mut(),
        ClassMaps::default(),
        dt,
    ));
    world
}

// `separation`: one Jacobi pass pushing overlapping shields apart.
#[library_benchmark]
#[bench::units_10k(setup = moved_world)]
fn separation(mut world: World) -> World {
    let columns = world.sim.vehicles_mut();
    let input = SeparationInput {
        altitude: columns.altitude,
        heading: columns.heading,
        shield: columns.shield,
        inv_mass: columns.inv_mass,
        spatial: &world.spatial,
        mobility: &[],
        terrain: ClassMaps::default(),
    };
    black_box(world.separation.pass(input, columns.position));
    world
}

/// A separation benchmark crowd (`benches/separation.rs`, one unit per
/// 50 m²) at 8,000 units: below the parallel threshold, so one thread
/// whatever the pool.
struct DenseCrowd {
    crowd: ShieldCrowd,
    spatial: SpatialHash,
    separation: Separation,
    position: Vec<Vec2>,
}

/// Setup (not counted): the crowd, its hash, and separation scratch grown
/// by one pass on a copy of the positions, so the counted pass scans as
/// the criterion bench's and `separate_once --time`'s later passes do.
fn dense_crowd(size: ShieldSize) -> DenseCrowd {
    let crowd = shield_crowd(8_000, size);
    let spatial = crowd.hash();
    let mut separation = crowd.separation();
    let position = crowd.position.clone();
    separation.pass(crowd.input(&spatial), &mut position.clone());
    DenseCrowd {
        crowd,
        spatial,
        separation,
        position,
    }
}

// `separation` on a crowd: one push iteration and the measuring sweep.
#[library_benchmark]
#[bench::units_8k(args = (ShieldSize::SemiAxes2To6m), setup = dense_crowd)]
#[bench::across_2_6m_8k(args = (ShieldSize::Across2To6m), setup = dense_crowd)]
fn separation_dense(mut dense: DenseCrowd) -> DenseCrowd {
    let input = dense.crowd.input(&dense.spatial);
    black_box(dense.separation.pass(input, &mut dense.position));
    dense
}

// The whole tick: `Sim::step`, every stage plus the instruments.
#[library_benchmark]
#[bench::units_10k(setup = world)]
fn tick(mut world: World) -> World {
    world.sim.step(black_box(world.dt));
    world
}

library_benchmark_group!(
    name = stages;
    benchmarks = spatial_rebuild, steering, integrate, separation, separation_dense, tick
);

main!(
    // Instruction counts are the point: the cache simulation only adds
    // run time and modelled (not measured) cache figures.
    config = LibraryBenchmarkConfig::default().tool(Callgrind::with_args(["--cache-sim=no"]));
    library_benchmark_groups = stages
);
