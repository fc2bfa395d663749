//! The walled grid map shared by the route-following tests.

use convoy::nav::{Cell, GridMap, Terrain};

/// 40 × 30 cells (of 4 m in the tests): a wall down x = 20 with one gap at
/// the bottom (y = 27..29), and a wall along y = 10 from x = 0 to 14.
pub fn walled_map() -> GridMap {
    let mut map = GridMap::open(40, 30).expect("valid size");
    for y in 0..27 {
        map.set(Cell::new(20, y), Terrain::Blocked);
    }
    for x in 0..15 {
        map.set(Cell::new(x, 10), Terrain::Blocked);
    }
    map
}
