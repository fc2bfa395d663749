//! Crowds under reciprocal avoidance (the default steering): the quality
//! suite's scenarios run on convoy alone, asserted as outcomes, never as
//! times. Agents are infantry of radius 1.5 m at 5 m/s; an agent has arrived
//! within 1.5 m of its goal (`crowd::metrics::ARRIVAL_RADIUS_M`).

use convoy::glam::Vec2;
use convoy::{Bounds, Sim, SimConfig, UnitSpec, VehicleKind};
use convoy_scenarios::crowd::{convoy_runner, scenarios};

/// Runs scenario `name` on convoy with `threads` threads.
fn run(name: &str, threads: usize) -> convoy_scenarios::crowd::metrics::Outcome {
    let scenario = scenarios::build(name).expect("a known scenario");
    convoy_runner::run(&scenario, threads).expect("convoy takes the scenario")
}

/// Asserts every agent of `name` arrived by `limit_s` and none collided.
fn all_arrive_by(name: &str, limit_s: f64) {
    let outcome = run(name, 1);
    let all = outcome.time_to_100_s;
    assert!(
        all.is_some_and(|t| t <= limit_s),
        "{name}: all arrived at {all:?} s, not within {limit_s} s ({} of {} at the end, {} stuck)",
        outcome.arrived_at_end,
        outcome.agents,
        outcome.stuck_at_end
    );
    assert!(
        outcome.collisions_per_1000_unit_ticks <= 0.1,
        "{name}: {} collisions per 1,000 unit-ticks",
        outcome.collisions_per_1000_unit_ticks
    );
}

#[test]
fn twenty_four_agents_on_a_circle_all_reach_their_antipodes_within_60_s() {
    all_arrive_by("circle-24", 60.0);
}

#[test]
fn a_hundred_agents_on_a_circle_all_reach_their_antipodes_within_60_s() {
    all_arrive_by("circle-100", 60.0);
}

#[test]
fn two_hundred_fifty_agents_on_a_circle_all_reach_their_antipodes_within_130_s() {
    all_arrive_by("circle-250", 130.0);
}

#[test]
fn a_crowd_run_gives_the_same_outcome_on_one_and_two_threads() {
    let (one, two) = (run("circle-100", 1), run("circle-100", 2));
    assert_eq!(one.arrivals, two.arrivals);
    assert_eq!(one.time_to_100_s, two.time_to_100_s);
    assert_eq!(
        one.deepest_interpenetration_m.to_bits(),
        two.deepest_interpenetration_m.to_bits()
    );
}

/// Two infantry meeting head-on on the x axis: each keeps to its right, so
/// seen from either the other passes on its left.
#[test]
fn two_units_head_on_pass_each_other_on_the_same_side() {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-100.0), Vec2::splat(100.0)));
    config.threads = 1;
    let mut sim = Sim::new(config).expect("valid config");
    let mut spawn = |at: Vec2, goal: Vec2| {
        let mut spec = UnitSpec::new(VehicleKind::Infantry, at);
        spec.max_speed = 5.0;
        spec.heading = (goal - at).to_angle();
        spec.goal = goal;
        sim.spawn(&spec).expect("valid spec")
    };
    let east = spawn(Vec2::new(-40.0, 0.0), Vec2::new(40.0, 0.0));
    let west = spawn(Vec2::new(40.0, 0.0), Vec2::new(-40.0, 0.0));
    let mut sides = Vec::new();
    for _ in 0..1200 {
        sim.step(1.0 / 60.0);
        let at = |unit| {
            let row = sim.vehicles().row_of(unit).expect("alive");
            sim.vehicles().columns().position()[row]
        };
        let (a, b) = (at(east), at(west));
        if (a.x - b.x).abs() < 1.0 {
            // Heading east the right is −y, heading west +y: both keep
            // right exactly when the eastbound one is south of the other.
            sides.push(a.y < b.y);
        }
    }
    assert!(!sides.is_empty(), "the units never met");
    assert!(
        sides.iter().all(|&both_keep_right| both_keep_right),
        "sides while passing: {sides:?}"
    );
}
