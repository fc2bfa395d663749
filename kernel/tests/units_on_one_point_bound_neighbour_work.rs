//! Units spawned on one point: every unit's neighbour search examines a
//! bounded number of candidates however many share its cell (steering's
//! and separation's `most_candidates`), and the tick writes only finite
//! columns, the same with one thread and two.

#![allow(clippy::unwrap_used)]

use convoy::glam::Vec2;
use convoy::stages::separation::MAX_RUN_CANDIDATES as SEPARATION_RUN;
use convoy::stages::steering::MAX_RUN_CANDIDATES as STEERING_RUN;
use convoy::{Bounds, Sim, SimConfig, UnitSpec, VehicleKind};

const UNITS: usize = 20_000;
/// Enough for the bound: every run of cells about the pile holds 50 times
/// the `MAX_RUN_CANDIDATES` (96) a search may examine, and the pile still
/// spans three of the parallel passes' chunks.
const BOUND_UNITS: usize = 5_000;

/// `units` infantry on one point, ordered 50 m east.
fn piled(threads: usize, units: usize) -> Sim {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-500.0), Vec2::splat(500.0)));
    config.threads = threads;
    let mut sim = Sim::new(config).unwrap();
    let spec = UnitSpec::new(VehicleKind::Infantry, Vec2::new(10.0, 10.0));
    let units: Vec<_> = (0..units).map(|_| sim.spawn(&spec).unwrap()).collect();
    for &unit in units.iter().step_by(97) {
        sim.order_move(unit, Vec2::new(60.0, 10.0)).unwrap();
    }
    sim
}

fn assert_finite(sim: &Sim) {
    let c = sim.vehicles().columns();
    for column in [c.position(), c.velocity(), c.desired_velocity()] {
        assert!(column.iter().all(|v| v.is_finite()), "{column:?}");
    }
    assert!(c.heading().iter().all(|v| v.is_finite()));
}

#[test]
fn units_on_one_point_examine_a_bounded_number_of_neighbours() {
    let mut sim = piled(2, BOUND_UNITS);
    for _ in 0..2 {
        sim.step(1.0 / 60.0);
        assert_finite(&sim);
    }
    let stats = sim.stage_stats();
    // The three runs of cells about a unit, each cut to its nearest.
    let steering = stats.steering.most_candidates;
    assert!(steering > 0.0, "{:?}", stats.steering);
    assert!(
        steering <= (3 * STEERING_RUN) as f64,
        "{:?}",
        stats.steering
    );
    assert!(stats.steering.cut_searches > 0.0, "{:?}", stats.steering);
    // A separation window spans at most a few rows of cells.
    let separation = stats.separation.most_candidates;
    assert!(separation > 0.0, "{:?}", stats.separation);
    assert!(
        separation <= (8 * SEPARATION_RUN) as f64,
        "{:?}",
        stats.separation
    );
    assert!(
        stats.separation.cut_searches > 0.0,
        "{:?}",
        stats.separation
    );
}

#[test]
fn units_on_one_point_tick_alike_on_one_thread_and_two() {
    let (mut one, mut two) = (piled(1, UNITS), piled(2, UNITS));
    one.step(1.0 / 60.0);
    two.step(1.0 / 60.0);
    assert_eq!(one.checksum(), two.checksum());
}
