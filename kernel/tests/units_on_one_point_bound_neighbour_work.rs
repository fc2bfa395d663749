//! Units spawned on one point: every unit's neighbour search examines a
//! bounded number of candidates however many share its cell (steering's
//! and separation's `most_candidates`), big units test a bounded number of
//! pairs, and the tick writes only finite columns, the same with one
//! thread and two; a packed crowd that is not piled up is searched whole.

#![allow(clippy::unwrap_used)]

use convoy::data::spatial_hash::run_candidates;
use convoy::glam::Vec2;
use convoy::{Bounds, Sim, SimConfig, UnitSpec, VehicleKind};

const UNITS: usize = 5_000;

/// `UNITS` infantry on one point, ordered 50 m east.
fn piled(threads: usize) -> Sim {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-500.0), Vec2::splat(500.0)));
    config.threads = threads;
    let mut sim = Sim::new(config).unwrap();
    let spec = UnitSpec::new(VehicleKind::Infantry, Vec2::new(10.0, 10.0));
    let units: Vec<_> = (0..UNITS).map(|_| sim.spawn(&spec).unwrap()).collect();
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
    let mut sim = piled(2);
    for _ in 0..2 {
        sim.step(1.0 / 60.0);
        assert_finite(&sim);
    }
    let stats = sim.stage_stats();
    // The three runs of three 8 m cells about a unit, each cut to its
    // nearest 384.
    let run = run_candidates(3, 8.0);
    assert_eq!(run, 384);
    let steering = stats.steering.most_candidates;
    assert!(steering > 0.0, "{:?}", stats.steering);
    assert!(steering <= (3 * run) as f64, "{:?}", stats.steering);
    assert!(stats.steering.cut_searches > 0.0, "{:?}", stats.steering);
    // A separation window spans at most a few rows of cells.
    let separation = stats.separation.most_candidates;
    assert!(separation > 0.0, "{:?}", stats.separation);
    assert!(separation <= (8 * run) as f64, "{:?}", stats.separation);
    assert!(
        stats.separation.cut_searches > 0.0,
        "{:?}",
        stats.separation
    );
}

#[test]
fn units_on_one_point_tick_alike_on_one_thread_and_two() {
    let (mut one, mut two) = (piled(1), piled(2));
    one.step(1.0 / 60.0);
    two.step(1.0 / 60.0);
    assert_eq!(one.checksum(), two.checksum());
}

/// `units` starships (shields wider than the 8 m hash cells: big units)
/// on one point, measured without a push; the first tick's separation
/// figures.
fn starships_on_one_point(units: usize) -> convoy::SeparationFigures {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-500.0), Vec2::splat(500.0)));
    config.separation_iterations = 0;
    let mut sim = Sim::new(config).unwrap();
    let spec = UnitSpec::new(VehicleKind::Starship, Vec2::new(10.0, 10.0));
    for _ in 0..units {
        sim.spawn(&spec).unwrap();
    }
    sim.step(1.0 / 60.0);
    assert_finite(&sim);
    sim.stage_stats().separation
}

#[test]
fn big_shields_on_one_point_test_a_bounded_number_of_pairs() {
    // All in one coarse cell: each tests at most 96 of them (of the three
    // coarse rows about it only its own holds any), not every pair.
    for units in [1000, 2000] {
        let figures = starships_on_one_point(units);
        let all_pairs = (units * (units - 1) / 2) as f64;
        assert!(figures.cut_searches > 0.0, "{figures:?}");
        assert!(figures.overlaps <= (96 * units) as f64, "{figures:?}");
        assert!(figures.overlaps < all_pairs / 4.0, "{figures:?}");
    }
}

/// A packed crowd that is not piled up: infantry (0.4 m shields) on a
/// triangular lattice 0.85 m apart, 1.6 a square metre, none overlapping.
/// Its searches are never cut: the cap grows with the area of a run
/// (three 8 m cells hold about 307 of them).
#[test]
fn a_packed_crowd_is_searched_whole() {
    let config = SimConfig::new(Bounds::new(Vec2::splat(-500.0), Vec2::splat(500.0)));
    let mut sim = Sim::new(config).unwrap();
    let gap = 0.85_f32;
    let row_gap = gap * 3.0_f32.sqrt() / 2.0;
    for row in 0..48 {
        for column in 0..48 {
            let shift = if row % 2 == 0 { 0.0 } else { gap / 2.0 };
            let at = Vec2::new(column as f32 * gap + shift, row as f32 * row_gap);
            sim.spawn(&UnitSpec::new(VehicleKind::Infantry, at))
                .unwrap();
        }
    }
    sim.step(1.0 / 60.0);
    let stats = sim.stage_stats();
    assert!(
        stats.steering.most_candidates > 96.0,
        "{:?}",
        stats.steering
    );
    assert_eq!(stats.steering.cut_searches, 0.0, "{:?}", stats.steering);
    assert_eq!(stats.separation.overlaps, 0.0, "{:?}", stats.separation);
    assert_eq!(stats.separation.cut_searches, 0.0, "{:?}", stats.separation);
}
