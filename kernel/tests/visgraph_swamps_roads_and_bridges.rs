//! Scripted polygon maps whose best routes are known: through a swamp or
//! around it, onto a road or straight, over a bridge, waiting while another
//! platoon crosses, replanning after discovering a removed bridge, and the
//! clearance step (unions, inflation, points moved out of obstacles).

use convoy::glam::DVec2;
use convoy::nav::polygon::{BridgeSpec, PolygonMap, Swamp, point_in_ring};
use convoy::nav::visgraph::{
    BridgeTraffic, FactionId, GraphConfig, NavError, PathCost, PolygonNavigator, QueryOptions,
    VisSearch,
};

const EPS: f64 = 1e-9;

fn v(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Vec<DVec2> {
    vec![v(x0, y0), v(x1, y0), v(x1, y1), v(x0, y1)]
}

fn field() -> PolygonMap {
    PolygonMap {
        containers: vec![rect(0.0, 0.0, 100.0, 100.0)],
        ..PolygonMap::default()
    }
}

fn plan(
    nav: &PolygonNavigator,
    from: DVec2,
    to: DVec2,
    faction: u16,
    search: &mut VisSearch,
) -> Result<PathCost, NavError> {
    nav.find_path_with(
        from,
        to,
        FactionId(faction),
        QueryOptions::default(),
        search,
        &mut Vec::new(),
    )
}

#[test]
fn a_short_swamp_is_driven_around() {
    let mut map = field();
    map.swamps.push(Swamp {
        ring: rect(40.0, 45.0, 60.0, 55.0),
        cost: 3.0,
    });
    let nav = PolygonNavigator::build(&map, GraphConfig::default(), 1).expect("builds");
    let mut search = VisSearch::new(&nav);
    let cost = plan(&nav, v(10.0, 50.0), v(90.0, 50.0), 0, &mut search).expect("reachable");
    let around = 2.0 * v(10.0, 50.0).distance(v(40.0, 45.0)) + 20.0;
    assert!(
        (cost.cost - around).abs() < EPS,
        "cost {} around {around}",
        cost.cost
    );
    let swamp = &map.swamps[0].ring;
    for w in search.route().windows(2) {
        assert!(
            !point_in_ring((w[0] + w[1]) / 2.0, swamp),
            "route {:?} enters the swamp",
            search.route()
        );
    }
}

#[test]
fn a_swamp_wall_is_crossed_when_going_around_costs_more() {
    let mut map = field();
    map.swamps.push(Swamp {
        ring: rect(40.0, 2.0, 60.0, 98.0),
        cost: 1.5,
    });
    let nav = PolygonNavigator::build(&map, GraphConfig::default(), 1).expect("builds");
    let mut search = VisSearch::new(&nav);
    let cost = plan(&nav, v(10.0, 50.0), v(90.0, 50.0), 0, &mut search).expect("reachable");
    assert!(
        (cost.cost - (60.0 + 20.0 * 1.5)).abs() < EPS,
        "cost {}",
        cost.cost
    );
    assert!(
        (cost.length - 80.0).abs() < EPS,
        "straight through: length {}",
        cost.length
    );
}

fn road_map() -> PolygonMap {
    let mut map = field();
    map.roads.push(vec![
        v(0.0, 10.0),
        v(20.0, 10.0),
        v(80.0, 10.0),
        v(100.0, 10.0),
    ]);
    map
}

#[test]
fn a_nearby_road_is_taken_at_half_cost() {
    let nav = PolygonNavigator::build(&road_map(), GraphConfig::default(), 1).expect("builds");
    let mut search = VisSearch::new(&nav);
    let cost = plan(&nav, v(5.0, 20.0), v(95.0, 20.0), 0, &mut search).expect("reachable");
    let via_road = 2.0 * v(5.0, 20.0).distance(v(20.0, 10.0)) + 0.5 * 60.0;
    assert!(
        (cost.cost - via_road).abs() < EPS,
        "cost {} expected {via_road}",
        cost.cost
    );
    assert_eq!(
        search.route(),
        [v(5.0, 20.0), v(20.0, 10.0), v(80.0, 10.0), v(95.0, 20.0)]
    );
}

#[test]
fn a_distant_road_is_ignored_and_a_full_price_road_too() {
    let mut nav = PolygonNavigator::build(&road_map(), GraphConfig::default(), 1).expect("builds");
    let mut search = VisSearch::new(&nav);
    let far = plan(&nav, v(5.0, 80.0), v(95.0, 80.0), 0, &mut search).expect("reachable");
    assert!((far.cost - 90.0).abs() < EPS);
    assert_eq!(search.route().len(), 2, "straight line");
    nav.set_road_cost_factor(1.0).expect("valid factor");
    let near = plan(&nav, v(5.0, 20.0), v(95.0, 20.0), 0, &mut search).expect("reachable");
    assert!(
        (near.cost - 90.0).abs() < EPS,
        "roads at full price: straight, cost {}",
        near.cost
    );
    assert!(nav.set_road_cost_factor(0.0).is_err());
}

/// A river (obstacle) from the bottom edge to y = 90, a bridge over it at
/// y = 20, and the ford-free detour around the river's head.
fn river_map() -> PolygonMap {
    let mut map = field();
    map.obstacles.push(rect(45.0, -10.0, 55.0, 90.0));
    map.bridges.push(BridgeSpec {
        id: 7,
        ends: [v(40.0, 20.0), v(60.0, 20.0)],
        middle: v(50.0, 20.0),
    });
    map
}

const WEST: DVec2 = DVec2::new(30.0, 20.0);
const EAST: DVec2 = DVec2::new(70.0, 20.0);

fn detour() -> f64 {
    2.0 * WEST.distance(v(45.0, 90.0)) + 10.0
}

#[test]
fn the_bridge_is_crossed_and_reported() {
    let nav = PolygonNavigator::build(&river_map(), GraphConfig::default(), 2).expect("builds");
    let mut search = VisSearch::new(&nav);
    let cost = plan(&nav, WEST, EAST, 0, &mut search).expect("reachable");
    assert!(
        (cost.cost - 40.0).abs() < EPS,
        "over the bridge: cost {}",
        cost.cost
    );
    assert_eq!(search.bridges_crossed(), [7]);
    assert_eq!(
        search.route(),
        [WEST, v(40.0, 20.0), v(50.0, 20.0), v(60.0, 20.0), EAST]
    );
}

#[test]
fn a_faction_replans_when_it_discovers_a_removed_bridge() {
    let mut nav = PolygonNavigator::build(&river_map(), GraphConfig::default(), 2).expect("builds");
    let mut search = VisSearch::new(&nav);
    nav.remove_bridge(7, &[FactionId(1)])
        .expect("bridge 7 exists");
    let informed = plan(&nav, WEST, EAST, 1, &mut search).expect("the detour exists");
    assert!(
        (informed.cost - detour()).abs() < EPS,
        "faction 1 knows: detour, cost {}",
        informed.cost
    );
    assert!(search.bridges_crossed().is_empty());
    let unaware = plan(&nav, WEST, EAST, 0, &mut search).expect("reachable");
    assert_eq!(
        search.bridges_crossed(),
        [7],
        "faction 0 still plans over the bridge"
    );
    assert!((unaware.cost - 40.0).abs() < EPS);
    // Faction 0's platoon reaches the bridge end and sees it is gone.
    assert!(
        nav.observe_bridge(FactionId(0), 7).expect("exists"),
        "the belief changed: replan"
    );
    assert!(
        !nav.observe_bridge(FactionId(0), 7).expect("exists"),
        "nothing new the second time"
    );
    let end = nav.bridge_ends(7).expect("exists")[0].as_dvec2();
    let replanned = plan(&nav, end, EAST, 0, &mut search).expect("the detour exists");
    assert!(search.bridges_crossed().is_empty());
    let expected = end.distance(v(45.0, 90.0)) + 10.0 + v(55.0, 90.0).distance(EAST);
    assert!(
        (replanned.cost - expected).abs() < EPS,
        "cost {} expected {expected}",
        replanned.cost
    );
}

#[test]
fn a_bridge_added_at_run_time_is_used_by_those_who_know_it() {
    let mut map = river_map();
    map.bridges.clear();
    let mut nav = PolygonNavigator::build(&map, GraphConfig::default(), 2).expect("builds");
    let mut search = VisSearch::new(&nav);
    let spec = BridgeSpec {
        id: 9,
        ends: [v(40.0, 20.0), v(60.0, 20.0)],
        middle: v(50.0, 20.0),
    };
    nav.add_bridge(spec, &[FactionId(0)]).expect("new id");
    assert!(nav.add_bridge(spec, &[]).is_err(), "ids are unique");
    let builder = plan(&nav, WEST, EAST, 0, &mut search).expect("reachable");
    assert!((builder.cost - 40.0).abs() < EPS);
    let other = plan(&nav, WEST, EAST, 1, &mut search).expect("reachable");
    assert!(
        (other.cost - detour()).abs() < EPS,
        "faction 1 has not seen it"
    );
    assert!(nav.observe_bridge(FactionId(1), 9).expect("exists"));
    let seen = plan(&nav, WEST, EAST, 1, &mut search).expect("reachable");
    assert!((seen.cost - 40.0).abs() < EPS);
}

#[test]
fn banks_joined_only_by_a_removed_bridge_are_unreachable() {
    let map = PolygonMap {
        containers: vec![rect(0.0, 0.0, 45.0, 100.0), rect(55.0, 0.0, 100.0, 100.0)],
        bridges: vec![BridgeSpec {
            id: 1,
            ends: [v(40.0, 20.0), v(60.0, 20.0)],
            middle: v(50.0, 20.0),
        }],
        ..PolygonMap::default()
    };
    let mut nav = PolygonNavigator::build(&map, GraphConfig::default(), 1).expect("builds");
    let mut search = VisSearch::new(&nav);
    let over = plan(&nav, WEST, EAST, 0, &mut search).expect("over the bridge");
    assert!((over.cost - 40.0).abs() < EPS);
    nav.remove_bridge(1, &[FactionId(0)]).expect("exists");
    assert_eq!(
        plan(&nav, WEST, EAST, 0, &mut search),
        Err(NavError::Unreachable)
    );
}

#[test]
fn one_platoon_at_a_time_on_a_bridge_others_wait() {
    let mut traffic = BridgeTraffic::default();
    assert_eq!(traffic.try_enter(7, 1), Ok(()));
    assert_eq!(traffic.try_enter(7, 1), Ok(()), "already on it");
    assert_eq!(
        traffic.try_enter(7, 2),
        Err(1),
        "platoon 2 waits for platoon 1"
    );
    assert_eq!(traffic.try_enter(8, 2), Ok(()), "another bridge is free");
    assert!(!traffic.leave(7, 2), "platoon 2 was not on bridge 7");
    assert!(traffic.leave(7, 1));
    assert_eq!(traffic.occupant(7), None);
    assert_eq!(traffic.try_enter(7, 2), Ok(()), "its turn now");
    assert_eq!(traffic.occupant(7), Some(2));
}

#[test]
fn overlapping_forests_are_unioned_and_contained_ones_ignored() {
    let mut map = field();
    map.obstacles.push(rect(30.0, 30.0, 50.0, 50.0));
    map.obstacles.push(rect(40.0, 40.0, 60.0, 60.0));
    map.obstacles.push(rect(32.0, 32.0, 35.0, 35.0));
    let nav = PolygonNavigator::build(&map, GraphConfig::default(), 1).expect("builds");
    assert_eq!(
        nav.graph().node_count(),
        6,
        "the union has six convex corners"
    );
    assert_eq!(
        nav.graph().boundary().space().contours.len(),
        2,
        "container and one hole"
    );
}

#[test]
fn inflated_paths_keep_their_clearance() {
    let mut map = field();
    let obstacle = rect(40.0, 20.0, 60.0, 80.0);
    map.obstacles.push(obstacle.clone());
    let radius = 3.0;
    let nav = PolygonNavigator::build(
        &map,
        GraphConfig {
            clearance: radius,
            ..GraphConfig::default()
        },
        1,
    )
    .expect("builds");
    let mut search = VisSearch::new(&nav);
    plan(&nav, v(20.0, 50.0), v(80.0, 50.0), 0, &mut search).expect("reachable");
    for w in search.route().windows(2) {
        for i in 0..4 {
            let gap = segment_distance(w[0], w[1], obstacle[i], obstacle[(i + 1) % 4]);
            assert!(
                gap >= radius - 1e-6,
                "segment {} -> {} passes {gap} from the obstacle",
                w[0],
                w[1]
            );
        }
    }
}

fn segment_distance(a: DVec2, b: DVec2, c: DVec2, d: DVec2) -> f64 {
    let point = |p: DVec2, s: DVec2, e: DVec2| {
        let t = ((p - s).dot(e - s) / (e - s).length_squared()).clamp(0.0, 1.0);
        p.distance(s + (e - s) * t)
    };
    point(a, c, d)
        .min(point(b, c, d))
        .min(point(c, a, b))
        .min(point(d, a, b))
}

#[test]
fn a_start_inside_an_obstacle_moves_to_the_nearest_free_point() {
    let mut map = field();
    map.obstacles.push(rect(40.0, 40.0, 60.0, 60.0));
    let nav = PolygonNavigator::build(&map, GraphConfig::default(), 1).expect("builds");
    let mut search = VisSearch::new(&nav);
    let cost = plan(&nav, v(42.0, 50.0), v(10.0, 50.0), 0, &mut search).expect("reachable");
    assert!(cost.moved);
    let start = search.route()[0];
    assert!(
        (start.x - 40.0).abs() < 1e-4 && (start.y - 50.0).abs() < 1e-9,
        "moved to {start}"
    );
    assert!(start.x <= 40.0, "on the free side");
}

#[test]
fn the_shipped_example_map_loads_and_uses_its_road_and_bridge() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../profiles/maps/river_crossing.json"
    );
    let map = convoy::nav::polygon::load_polygon_map(path).expect("the example map is valid");
    let nav = PolygonNavigator::build(
        &map,
        GraphConfig {
            clearance: 2.0,
            ..GraphConfig::default()
        },
        1,
    )
    .expect("builds");
    let mut search = VisSearch::new(&nav);
    plan(&nav, v(100.0, 160.0), v(900.0, 160.0), 0, &mut search).expect("over the bridge");
    assert_eq!(search.bridges_crossed(), [1]);
    assert!(
        search.route().contains(&v(300.0, 150.0)),
        "follows the road: {:?}",
        search.route()
    );
}
