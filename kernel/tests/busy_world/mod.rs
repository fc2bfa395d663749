//! A busy grid world for the tests that compare whole states: arena2 with
//! 60 tanks sent across it under a small search budget, four of them in a
//! column platoon, so path requests wait and grid searches are in flight.

use std::sync::Arc;

use convoy::glam::Vec2;
use convoy::nav::{Cell, Mobility, WorldMap, load_map};
use convoy::{Bounds, Formation, Map, PlatoonSpec, Sim, SimConfig, UnitSpec, VehicleKind};

/// The world on `threads` threads, `configure`d further, after `ticks`
/// ticks.
pub fn busy_world(threads: usize, configure: impl FnOnce(&mut SimConfig), ticks: u32) -> Sim {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/maps/arena2.map");
    let map = Arc::new(
        WorldMap::new(&load_map(path).unwrap(), Mobility::GROUND, Vec2::ZERO, 8.0).unwrap(),
    );
    let bounds = map.bounds();
    let mut config = SimConfig::new(Bounds::new(bounds.min - 50.0, bounds.max + 50.0));
    config.threads = threads;
    config.map = Map::Grid(Arc::clone(&map));
    config.max_path_nodes_per_tick = 300;
    configure(&mut config);
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
    for _ in 0..ticks {
        sim.step(1.0 / 60.0);
    }
    sim
}
