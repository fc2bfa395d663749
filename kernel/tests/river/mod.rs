//! The river-crossing polygon map (`profiles/maps/river_crossing.json`),
//! shared by the tests that plan on it.

use std::sync::Arc;

use convoy::glam::Vec2;
use convoy::nav::polygon::{PolygonMap, load_polygon_map, point_in_ring};
use convoy::nav::{GraphConfig, PolygonNavigator};

/// The map — a river from the south edge to y = 850 with one bridge at
/// y = 200, two buildings west of it — and its navigator at 4 m clearance.
pub fn river() -> (PolygonMap, Arc<PolygonNavigator>) {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../profiles/maps/river_crossing.json"
    );
    let map = load_polygon_map(file).expect("the example map loads");
    let config = GraphConfig {
        clearance: 4.0,
        road_cost_factor: 0.5,
    };
    let nav = PolygonNavigator::build(&map, config, 1).expect("the graph builds");
    (map, Arc::new(nav))
}

/// Whether `position` is within 10 m of the first bridge's deck.
pub fn on_bridge(map: &PolygonMap, position: Vec2) -> bool {
    let bridge = &map.bridges[0];
    let (a, b) = (bridge.ends[0].as_vec2(), bridge.ends[1].as_vec2());
    let along = ((position - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
    position.distance(a + (b - a) * along) < 10.0
}

/// Whether `position` is inside an obstacle (the bridge's deck, over the
/// river, is not).
pub fn inside_an_obstacle(map: &PolygonMap, position: Vec2) -> bool {
    !on_bridge(map, position)
        && map
            .obstacles
            .iter()
            .any(|ring| point_in_ring(position.as_dvec2(), ring))
}
