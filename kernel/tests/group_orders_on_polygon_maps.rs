//! A group order on a polygon map is planned with one search: every ground
//! member has its route when the order returns (no search queued), each
//! leg stays in the free space routes are planned in, each route is about
//! as short as the member's own optimal path (checked against the
//! visibility graph's own query from the member), and the group arrives.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use convoy::glam::Vec2;
use convoy::nav::polygon::{load_polygon_map, rasterize};
use convoy::nav::{FactionId, GraphConfig, PolygonNavigator, VisSearch};
use convoy::{Bounds, Map, MoveState, Sim, SimConfig, UnitId, UnitSpec, VehicleKind};

const DT: f32 = 1.0 / 60.0;

fn river_crossing() -> Arc<PolygonNavigator> {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../profiles/maps/river_crossing.json"
    );
    let map = load_polygon_map(file).unwrap();
    let config = GraphConfig {
        clearance: 4.0,
        road_cost_factor: 0.5,
    };
    Arc::new(PolygonNavigator::build(&map, config, 1).unwrap())
}

fn sim_on(nav: &Arc<PolygonNavigator>) -> Sim {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../profiles/maps/river_crossing.json"
    );
    let raster = rasterize(&load_polygon_map(file).unwrap(), 5.0).unwrap();
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-50.0), Vec2::splat(1050.0)));
    config.threads = 1;
    config.map = Map::Polygon {
        navigator: Arc::clone(nav),
        raster: Arc::new(raster),
    };
    Sim::new(config).unwrap()
}

/// Twelve tanks in a block west of the river, ordered round its north end
/// to the east bank.
#[test]
fn a_group_shares_one_search_and_every_route_is_clear_and_near_optimal() {
    let nav = river_crossing();
    let mut sim = sim_on(&nav);
    let units: Vec<UnitId> = (0..12)
        .map(|k| {
            let at = Vec2::new(130.0 + 12.0 * (k % 4) as f32, 580.0 + 12.0 * (k / 4) as f32);
            sim.spawn(&UnitSpec::new(VehicleKind::Tracked, at)).unwrap()
        })
        .collect();
    let spots = sim
        .order_group(&units, Vec2::new(850.0, 750.0), Vec2::ZERO)
        .unwrap();
    assert_eq!(sim.open_path_requests(), 0, "no member waits for a search");

    let columns = sim.vehicles().columns();
    let mut search = VisSearch::new(&nav);
    for (k, (&unit, &spot)) in units.iter().zip(&spots).enumerate() {
        assert_eq!(
            sim.move_state(unit).unwrap(),
            MoveState::Moving,
            "member {k}"
        );
        let row = sim.vehicles().row_of(unit).unwrap();
        let here = columns.position()[row];
        let len = columns.route_len()[row] as usize;
        let route: Vec<Vec2> = std::iter::once(here)
            .chain(
                sim.routes().of(columns.handle_slot()[row])[..len]
                    .iter()
                    .copied(),
            )
            .collect();
        assert_eq!(
            route.last(),
            Some(&spot),
            "member {k}'s route ends at its spot"
        );
        for leg in route.windows(2) {
            assert!(
                nav.sees(leg[0], leg[1], &mut search),
                "member {k}: {leg:?} leaves the free space"
            );
        }
        let travelled: f32 = route.windows(2).map(|leg| leg[0].distance(leg[1])).sum();
        let mut own = Vec::new();
        let optimal = nav
            .find_path(here, spot, FactionId(0), &mut search, &mut own)
            .unwrap();
        assert!(
            f64::from(travelled) <= optimal.length * 1.05 + 10.0,
            "member {k}: a {travelled:.0} m route where its own is {:.0} m",
            optimal.length
        );
    }
    for _ in 0..(150.0 / DT) as u32 {
        sim.step(DT);
    }
    for (k, &unit) in units.iter().enumerate() {
        assert_eq!(
            sim.move_state(unit).unwrap(),
            MoveState::Arrived,
            "member {k}"
        );
    }
}
