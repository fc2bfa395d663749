//! Potential-field steering (seeds/002): a swarm of 1,000 starships crosses
//! a field of 20 bodies orbiting on ellipses. None may enter a body, and all
//! must reach their targets within the tick limit. Separation is off, so
//! keeping out is the field's doing alone (the shield pass does not know
//! the bodies, and could push a ship into one).

use convoy::data::vehicles::ARRIVE_RADIUS;
use convoy::data::vehicles::SteerMode;
use convoy::glam::Vec2;
use convoy::random::unit_f32;
use convoy::stages::steering::field::OrbitingBody;
use convoy::{Bounds, Sim, SimConfig, UnitSpec, VehicleKind};

const DT: f32 = 1.0 / 30.0;
const TICK_LIMIT: usize = 6000;
const SEED: u64 = 11;

/// 20 bodies on random ellipses between the swarm and its targets.
fn bodies() -> Vec<OrbitingBody> {
    (0..20u64)
        .map(|index| {
            let draw = |stream: u64| unit_f32(SEED, stream, index);
            OrbitingBody {
                centre: [-1500.0 + 3000.0 * draw(1), -2500.0 + 5000.0 * draw(2)],
                semi_axes: [150.0 + 350.0 * draw(3), 100.0 + 300.0 * draw(4)],
                tilt: 3.0 * draw(5),
                period_s: if draw(6) < 0.5 { 1.0 } else { -1.0 } * (150.0 + 250.0 * draw(7)),
                phase: std::f32::consts::TAU * draw(8),
                radius: 50.0 + 70.0 * draw(9),
            }
        })
        .collect()
}

fn swarm(threads: usize) -> Sim {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-6000.0), Vec2::splat(6000.0)));
    config.threads = threads;
    config.neighbour_radius = 150.0;
    config.bodies = bodies();
    config.reorder_interval = 0;
    config.separation_iterations = 0;
    let mut sim = Sim::new(config).expect("valid config");
    // 20 × 50 ships, 120 m apart, west of every orbit; targets as far east.
    for unit in 0..1000 {
        let (column, row) = ((unit % 20) as f32, (unit / 20) as f32);
        let start = Vec2::new(-4700.0 + column * 120.0, -3000.0 + row * 120.0);
        let mut spec = UnitSpec::new(VehicleKind::Starship, start);
        spec.goal = Vec2::new(start.x + 7000.0, start.y);
        spec.steer_mode = SteerMode::PotentialField;
        sim.spawn(&spec).expect("valid spec");
    }
    sim
}

/// The deepest any unit's centre gets inside a body (negative: never in).
fn deepest_entry(sim: &Sim) -> f32 {
    let positions = sim.vehicles().columns().position();
    sim.bodies_now()
        .flat_map(|body| {
            positions
                .iter()
                .map(move |&position| body.radius - position.distance(body.centre))
        })
        .fold(f32::NEG_INFINITY, f32::max)
}

fn all_arrived(sim: &Sim) -> bool {
    let columns = sim.vehicles().columns();
    columns
        .position()
        .iter()
        .zip(columns.goal())
        .all(|(position, goal)| position.distance(*goal) <= ARRIVE_RADIUS)
}

#[test]
fn a_swarm_crosses_orbiting_bodies_without_entering_one_and_arrives() {
    let mut sim = swarm(2);
    let lanes: Vec<f32> = sim
        .vehicles()
        .columns()
        .position()
        .iter()
        .map(|p| p.y)
        .collect();
    let mut widest_swerve = vec![0.0f32; lanes.len()];
    let mut deepest = f32::NEG_INFINITY;
    let mut ticks = 0;
    while !all_arrived(&sim) {
        assert!(
            ticks < TICK_LIMIT,
            "{} units still travelling after {TICK_LIMIT} ticks",
            sim.quality().arrived.abs_diff(1000)
        );
        sim.step(DT);
        ticks += 1;
        deepest = deepest.max(deepest_entry(&sim));
        // No reorder and no despawn here: row r stays unit r.
        for ((swerve, lane), position) in widest_swerve
            .iter_mut()
            .zip(&lanes)
            .zip(sim.vehicles().columns().position())
        {
            *swerve = swerve.max((position.y - lane).abs());
        }
        assert!(
            deepest < 0.0,
            "a unit entered a body {deepest} m deep at tick {ticks}"
        );
    }
    // The bodies did get in the way: many units were pushed off their lane.
    let swerved = widest_swerve
        .iter()
        .filter(|&&swerve| swerve > 50.0)
        .count();
    assert!(swerved >= 50, "only {swerved} units swerved more than 50 m");
}
