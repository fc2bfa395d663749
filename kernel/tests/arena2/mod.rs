//! The Moving AI map arena2 (`profiles/maps/arena2.map`) at 8 m cells,
//! shared by the tests that give orders on it.

use std::sync::Arc;

use convoy::glam::Vec2;
use convoy::nav::{Mobility, WorldMap, load_map};
use convoy::{Bounds, Map, SimConfig};

/// The side of a cell, metres.
pub const CELL_M: f32 = 8.0;

/// arena2, its corner at the origin.
pub fn arena2() -> Arc<WorldMap> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/maps/arena2.map");
    let grid = load_map(path).unwrap();
    Arc::new(WorldMap::new(&grid, Mobility::GROUND, Vec2::ZERO, CELL_M).unwrap())
}

/// A one-thread configuration on `map`, with 50 m of room around it.
pub fn config_on(map: &Arc<WorldMap>) -> SimConfig {
    let bounds = map.bounds();
    let mut config = SimConfig::new(Bounds::new(bounds.min - 50.0, bounds.max + 50.0));
    config.map = Map::Grid(Arc::clone(map));
    config.threads = 1;
    config
}
