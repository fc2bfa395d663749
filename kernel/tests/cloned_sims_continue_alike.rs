//! A cloned `Sim` (rollback) continues exactly as the original, tick by
//! tick, on a grid map with searches in flight and a platoon, on one thread
//! and on two; and it is independent: an order to the clone leaves the
//! original as it was.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use convoy::glam::Vec2;
use convoy::nav::{Cell, Mobility, WorldMap, load_map};
use convoy::{Bounds, Formation, Map, PlatoonSpec, Sim, SimConfig, UnitSpec, VehicleKind};

/// arena2 with 60 tanks sent across it under a small search budget, four of
/// them in a platoon, after 5 ticks.
fn busy_world(threads: usize) -> Sim {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/maps/arena2.map");
    let map = Arc::new(
        WorldMap::new(&load_map(path).unwrap(), Mobility::GROUND, Vec2::ZERO, 8.0).unwrap(),
    );
    let bounds = map.bounds();
    let mut config = SimConfig::new(Bounds::new(bounds.min - 50.0, bounds.max + 50.0));
    config.threads = threads;
    config.map = Map::Grid(Arc::clone(&map));
    config.max_path_nodes_per_tick = 300;
    config.reorder_interval = 4;
    let mut sim = Sim::new(config).unwrap();
    let grid = map.grid();
    let open: Vec<Vec2> = (0..grid.height())
        .flat_map(|y| (0..grid.width()).map(move |x| Cell::new(x, y)))
        .map(|cell| map.centre_of(cell))
        .filter(|&centre| map.is_open(centre))
        .collect();
    let ids: Vec<_> = (0..60)
        .map(|k| {
            sim.spawn(&UnitSpec::new(VehicleKind::Tracked, open[k * 37]))
                .unwrap()
        })
        .collect();
    for (k, &id) in ids.iter().enumerate().skip(4) {
        sim.order_move(id, open[open.len() - 1 - k * 53]).unwrap();
    }
    let platoon = sim
        .create_platoon(&ids[..4], &PlatoonSpec::force21(Formation::Column))
        .unwrap();
    sim.order_platoon(platoon, open[open.len() / 2], None)
        .unwrap();
    for _ in 0..5 {
        sim.step(1.0 / 60.0);
    }
    sim
}

fn assert_clone_continues_alike(threads: usize) {
    let mut original = busy_world(threads);
    assert!(original.path_searches_in_flight() > 0);
    let mut copy = original.clone();
    assert_eq!(copy.checksum(), original.checksum());
    assert_eq!(copy.threads(), original.threads());
    for tick in 0..120 {
        original.step(1.0 / 60.0);
        copy.step(1.0 / 60.0);
        assert_eq!(
            copy.checksum(),
            original.checksum(),
            "tick {tick} after the clone"
        );
    }
    let before = original.checksum();
    let mut branch = original.clone();
    let unit = branch.vehicles().id_at(10).unwrap();
    branch.order_move(unit, Vec2::new(100.0, 100.0)).unwrap();
    branch.step(1.0 / 60.0);
    assert_eq!(original.checksum(), before, "the original did not move");
    original.step(1.0 / 60.0);
    assert_ne!(
        branch.checksum(),
        original.checksum(),
        "the branch took its own order"
    );
}

#[test]
fn a_clone_continues_exactly_as_the_original_on_one_thread() {
    assert_clone_continues_alike(1);
}

#[test]
fn a_clone_continues_exactly_as_the_original_in_a_pool_of_two() {
    std::thread::spawn(|| assert_clone_continues_alike(2))
        .join()
        .unwrap();
}
