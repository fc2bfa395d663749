//! The `steering` + `integrate` stages at 100,000 units, and Force 21
//! avoidance against ORCA (`dodgy_2d`'s `compute_avoiding_velocity`) on the
//! same neighbour lists.
//!
//! The world is the default profile at 100,000 units, two ticks in, with
//! the avoidance radius set so each unit has about 8 neighbours (the mean
//! is printed). Three benchmarks, throughput in units:
//!
//! - `stages`: `Steering::run` then `integrate_columns`, on the default pool
//!   — what `Sim::step` pays for these two stages; every iteration starts
//!   from the same columns (those the two stages write are put back, not
//!   timed), so each times the same world: a world left to run on would
//!   drift from its hash, without separation, by as many ticks as the
//!   iterations criterion chose;
//! - `force21_avoidance`: one thread, per unit: the threat search over its
//!   neighbour list (gathered into avoidance's rows) and the response;
//! - `orca_avoidance`: one thread, per unit: ORCA over the same list.
//!
//! `cargo bench -p convoy-bench --bench steering`; `-- --profile-time 5`
//! writes a flamegraph per benchmark under `target/criterion/`.

// Shared with the other benches; this one uses only the profiler hook.
#[allow(dead_code)]
mod common;

use convoy::nav::ClassMaps;
use std::borrow::Cow;
use std::hint::black_box;
use std::time::{Duration, Instant};

use convoy::Sim;
use convoy::data::spatial_hash::SpatialHash;
use convoy::data::vehicles::ColumnsMut;
use convoy::geometry::seek::drive_to_velocity;
use convoy::glam::Vec2;
use convoy::stages::integrate::dynamics;
use convoy::stages::steering::avoid::{self, Body, Mover, Near, ThreatSearch};
use convoy::stages::steering::movers::MoverColumns;
use convoy::stages::steering::{SteerWorld, Steering};
use convoy_scenarios::{self as scenario, Profile};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const UNITS: u32 = 100_000;
/// At the default profile's 50 m² per unit, π r² / 50 ≈ 8 neighbours.
const AVOID_RADIUS: f32 = 11.3;
/// ORCA's look-ahead, the same as Force 21's horizon.
const TIME_HORIZON: f32 = avoid::HORIZON_S;

/// The columns the `steering` and `integrate` stages write, as they were.
struct Written {
    position: Vec<Vec2>,
    velocity: Vec<Vec2>,
    heading: Vec<f32>,
    desired_velocity: Vec<Vec2>,
    progress_m: Vec<f32>,
    stalled_s: Vec<f32>,
    steered_from: Vec<Vec2>,
}

impl Written {
    fn of(columns: &ColumnsMut<'_>) -> Written {
        Written {
            position: columns.position.to_vec(),
            velocity: columns.velocity.to_vec(),
            heading: columns.heading.to_vec(),
            desired_velocity: columns.desired_velocity.to_vec(),
            progress_m: columns.progress_m.to_vec(),
            stalled_s: columns.stalled_s.to_vec(),
            steered_from: columns.steered_from.to_vec(),
        }
    }

    fn put_back(&self, columns: &mut ColumnsMut<'_>) {
        columns.position.copy_from_slice(&self.position);
        columns.velocity.copy_from_slice(&self.velocity);
        columns.heading.copy_from_slice(&self.heading);
        columns
            .desired_velocity
            .copy_from_slice(&self.desired_velocity);
        columns.progress_m.copy_from_slice(&self.progress_m);
        columns.stalled_s.copy_from_slice(&self.stalled_s);
        columns.steered_from.copy_from_slice(&self.steered_from);
    }
}

/// The world, its hash, the steering stage and each unit's neighbour list (CSR).
struct World {
    sim: Sim,
    spatial: SpatialHash,
    steering: Steering,
    dt: f32,
    neighbour_start: Vec<u32>,
    neighbours: Vec<u32>,
}

fn build_world() -> World {
    let mut profile = Profile::parse(include_str!("../../profiles/default.toml"), "default.toml")
        .expect("the default profile parses");
    profile.scenario.units = UNITS;
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let mut sim = scenario::build(&profile, threads).expect("the default profile builds");
    for _ in 0..2 {
        sim.step(profile.run.dt);
    }
    let config = sim.config();
    let mut spatial = SpatialHash::new(config.bounds, AVOID_RADIUS).expect("valid grid");
    spatial.reserve(sim.vehicles().len());
    spatial.rebuild(sim.vehicles().columns().position());
    let mut neighbour_start = vec![0u32];
    let mut neighbours = Vec::new();
    for unit in 0..sim.vehicles().len() as u32 {
        spatial.for_each_neighbour(unit, AVOID_RADIUS, |other, _| neighbours.push(other));
        neighbour_start.push(neighbours.len() as u32);
    }
    let mut steering = Steering::default();
    steering.reserve(sim.vehicles().len());
    World {
        sim,
        spatial,
        steering,
        dt: profile.run.dt,
        neighbour_start,
        neighbours,
    }
}

impl World {
    fn neighbours_of(&self, unit: usize) -> &[u32] {
        let range = self.neighbour_start[unit] as usize..self.neighbour_start[unit + 1] as usize;
        &self.neighbours[range]
    }

    fn body(&self, unit: usize) -> Mover {
        let columns = self.sim.vehicles().columns();
        Body {
            position: columns.position()[unit],
            velocity: columns.velocity()[unit],
            heading: columns.heading()[unit],
            altitude: columns.altitude()[unit],
            shield: columns.shield()[unit],
        }
        .mover()
    }

    fn preferred(&self, unit: usize) -> Vec2 {
        let columns = self.sim.vehicles().columns();
        drive_to_velocity(
            columns.position()[unit],
            columns.drive_to()[unit],
            columns.max_speed()[unit],
            columns.max_brake()[unit],
        )
    }

    /// Force 21 avoidance for every unit over its neighbour list; returns
    /// how many units steer around a threat.
    fn force21(&self) -> usize {
        let columns = self.sim.vehicles().columns();
        let mut avoiding = 0;
        let mut neighbours = Vec::new();
        let mut rows = MoverColumns::default();
        for unit in 0..columns.position().len() {
            let me = self.body(unit);
            let seek = self.preferred(unit);
            // Gathered first, as ORCA's agents are below.
            neighbours.clear();
            neighbours.extend(
                self.neighbours_of(unit)
                    .iter()
                    .map(|&other| self.body(other as usize)),
            );
            rows.fill_from(&neighbours);
            let mut search = ThreatSearch::new(&me, seek);
            let near = Near {
                radius_sq: f32::INFINITY,
                skip: usize::MAX,
            };
            search.consider_run(&rows, 0..rows.len(), near);
            let response = avoid::respond(
                &me,
                seek,
                Some(columns.drive_to()[unit]),
                columns.max_speed()[unit],
                search.threat(&rows),
            );
            avoiding += usize::from(black_box(response) != avoid::Response::Clear);
        }
        avoiding
    }

    /// ORCA for every unit over the same neighbour lists, agents sized by
    /// their shield's larger ground semi-axis; returns how many velocities
    /// it changed.
    fn orca(
        &self,
        agents: &[dodgy_2d::Agent],
        scratch: &mut Vec<Cow<'_, dodgy_2d::Agent>>,
    ) -> usize {
        let columns = self.sim.vehicles().columns();
        let options = dodgy_2d::AvoidanceOptions {
            obstacle_margin: 0.0,
            time_horizon: TIME_HORIZON,
            obstacle_time_horizon: TIME_HORIZON,
        };
        let mut changed = 0;
        for (unit, agent) in agents.iter().enumerate() {
            scratch.clear();
            scratch.extend(
                self.neighbours_of(unit)
                    .iter()
                    .map(|&other| Cow::Owned(agents[other as usize].clone())),
            );
            let preferred = self.preferred(unit);
            let preferred = dodgy_2d::Vec2::new(preferred.x, preferred.y);
            let velocity = agent.compute_avoiding_velocity(
                scratch,
                &[],
                preferred,
                columns.max_speed()[unit],
                self.dt,
                &options,
            );
            changed += usize::from(black_box(velocity) != preferred);
        }
        changed
    }

    fn orca_agents(&self) -> Vec<dodgy_2d::Agent> {
        (0..self.sim.vehicles().len())
            .map(|unit| {
                let body = self.body(unit);
                dodgy_2d::Agent {
                    position: dodgy_2d::Vec2::new(body.position.x, body.position.y),
                    velocity: dodgy_2d::Vec2::new(body.velocity.x, body.velocity.y),
                    radius: body.bounding_radius,
                    avoidance_responsibility: 1.0,
                }
            })
            .collect()
    }
}

fn steering(c: &mut Criterion) {
    let mut world = build_world();
    let mean_neighbours = world.neighbours.len() as f64 / f64::from(UNITS);
    let agents = world.orca_agents();
    let mut scratch = Vec::new();
    // The answers, once: both methods find units to steer around.
    let (ours, theirs) = (world.force21(), world.orca(&agents, &mut scratch));
    println!(
        "steering/{UNITS}: {mean_neighbours:.1} neighbours per unit within {AVOID_RADIUS} m; \
         Force 21 steers {ours} units around a threat, ORCA changes {theirs} velocities"
    );
    assert!(
        ours > 0 && theirs > 0,
        "nothing to avoid: the bench measures nothing"
    );

    let mut group = c.benchmark_group(format!("steering/{UNITS}"));
    group.throughput(Throughput::Elements(u64::from(UNITS)));
    group.sample_size(10);
    let written = Written::of(&world.sim.vehicles_mut());
    group.bench_function("stages", |b| {
        b.iter_custom(|iterations| {
            let World {
                sim,
                spatial,
                steering,
                dt,
                ..
            } = &mut world;
            let steer_world = SteerWorld {
                spatial,
                maps: ClassMaps::default(),
                avoid_radius: AVOID_RADIUS,
                bodies: &[],
                dt: *dt,
                tick: 0,
                factions_share: true,
                walls: ClassMaps::default(),
            };
            let mut timed = Duration::ZERO;
            for _ in 0..iterations {
                let mut columns = sim.vehicles_mut();
                written.put_back(&mut columns);
                let started = Instant::now();
                let steered = steering.run(&mut columns, steer_world);
                let moved = dynamics::integrate_columns(&mut columns, ClassMaps::default(), *dt);
                timed += started.elapsed();
                black_box((steered, moved));
            }
            timed
        })
    });
    // The stages above moved the units: rebuild the hash and lists once so
    // the per-unit comparisons read a consistent world.
    let world = build_world();
    let agents = world.orca_agents();
    group.bench_function("force21_avoidance", |b| {
        b.iter(|| black_box(world.force21()))
    });
    group.bench_function("orca_avoidance", |b| {
        b.iter(|| black_box(world.orca(&agents, &mut scratch)))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_profiler(common::FlamegraphProfiler::new(997));
    targets = steering
}
criterion_main!(benches);
