//! On random polygon maps and on Polyanya's arena.mesh, the visibility-graph
//! planner's path costs equal a naive visibility graph + Dijkstra oracle,
//! its paths never leave the free space, and the Force 21 heuristic is never
//! shorter than the exact answer. With random roads (cheaper per metre, so
//! A*'s heuristic is scaled down and the start's candidates are queued in
//! more stages), both searches still cost what the oracle does.

mod visgraph_common;

use convoy::glam::DVec2;
use convoy::nav::polygon::{PolygonMap, load_mesh};
use convoy::nav::visgraph::{
    FactionId, GraphConfig, NavError, PolygonNavigator, QueryOptions, SearchAlgorithm,
    StartInsertion, VisSearch,
};
use proptest::prelude::*;
use visgraph_common::Oracle;

const TOLERANCE: f64 = 1e-4;
const FACTION: FactionId = FactionId(0);

fn polygon(centre: DVec2, radius: f64, angles: &[f64]) -> Vec<DVec2> {
    let mut sorted = angles.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.dedup();
    sorted
        .iter()
        .map(|&a| centre + radius * DVec2::new(a.cos(), a.sin()))
        .collect()
}

fn random_map() -> impl Strategy<Value = (PolygonMap, f64)> {
    let obstacle = (
        (5.0..95.0f64, 5.0..95.0f64),
        3.0..18.0f64,
        prop::collection::vec(0.0..std::f64::consts::TAU, 3..7),
    );
    (
        prop::collection::vec(obstacle, 1..9),
        prop_oneof![Just(0.0), 0.3..2.0f64],
        any::<bool>(),
    )
        .prop_map(|(obstacles, clearance, notch)| {
            let mut container = vec![
                DVec2::new(0.0, 0.0),
                DVec2::new(100.0, 0.0),
                DVec2::new(100.0, 100.0),
            ];
            if notch {
                container.extend([
                    DVec2::new(55.0, 100.0),
                    DVec2::new(50.0, 40.0),
                    DVec2::new(45.0, 100.0),
                ]);
            }
            container.push(DVec2::new(0.0, 100.0));
            let map = PolygonMap {
                containers: vec![container],
                obstacles: obstacles
                    .iter()
                    .map(|&((x, y), r, ref angles)| polygon(DVec2::new(x, y), r, angles))
                    .filter(|p| p.len() >= 3)
                    .collect(),
                ..PolygonMap::default()
            };
            (map, clearance)
        })
}

fn options(algorithm: SearchAlgorithm, insertion: StartInsertion) -> QueryOptions {
    QueryOptions {
        algorithm,
        insertion,
    }
}

/// Checks one query against the oracle; returns whether it was reachable.
fn check_query(
    nav: &PolygonNavigator,
    oracle: &Oracle,
    search: &mut VisSearch,
    start: DVec2,
    goal: DVec2,
) -> bool {
    let expected = oracle.shortest(start, goal);
    let mut out = Vec::new();
    let mut exact_cost = None;
    for algorithm in [SearchAlgorithm::AStar, SearchAlgorithm::Dijkstra] {
        let found = nav.find_path_with(
            start,
            goal,
            FACTION,
            options(algorithm, StartInsertion::Exact),
            search,
            &mut out,
        );
        match (expected, found) {
            (Some(length), Ok(cost)) => {
                assert!(
                    (cost.cost - length).abs() <= TOLERANCE,
                    "{algorithm:?} {start} -> {goal}: found {}, oracle {length}",
                    cost.cost
                );
                assert!(
                    (cost.length - cost.cost).abs() <= 1e-9,
                    "no swamps or roads: length equals cost"
                );
                check_route(oracle, search.route(), start, goal);
                exact_cost = Some(cost.cost);
            }
            (None, Err(NavError::Unreachable)) => {}
            (expected, found) => {
                panic!("{algorithm:?} {start} -> {goal}: oracle {expected:?}, planner {found:?}")
            }
        }
    }
    if let Some(exact) = exact_cost {
        let heuristic = nav
            .find_path_with(
                start,
                goal,
                FACTION,
                options(SearchAlgorithm::AStar, StartInsertion::FirstLastHit),
                search,
                &mut out,
            )
            .expect("the heuristic finds a path wherever the exact search does");
        assert!(
            heuristic.cost >= exact - TOLERANCE,
            "heuristic {} beats exact {exact}",
            heuristic.cost
        );
        check_route(oracle, search.route(), start, goal);
    }
    expected.is_some()
}

/// The route starts and ends at the query points and every segment stays in
/// the free space (checked by the oracle's own test).
fn check_route(oracle: &Oracle, route: &[DVec2], start: DVec2, goal: DVec2) {
    assert_eq!(route.first(), Some(&start));
    assert_eq!(route.last(), Some(&goal));
    for w in route.windows(2) {
        assert!(
            oracle.segment_is_free(w[0], w[1]),
            "segment {} -> {} of {route:?} leaves the free space",
            w[0],
            w[1]
        );
    }
}

/// Up to three random roads of two to five points each.
fn random_roads() -> impl Strategy<Value = Vec<Vec<DVec2>>> {
    let point = (0.5..99.5f64, 0.5..99.5f64).prop_map(|(x, y)| DVec2::new(x, y));
    prop::collection::vec(prop::collection::vec(point, 2..6), 1..4)
}

/// Checks one query on a map with roads: A* and Dijkstra with exact
/// insertion cost what the oracle does, on routes that stay free.
fn check_road_query(
    nav: &PolygonNavigator,
    oracle: &Oracle,
    search: &mut VisSearch,
    start: DVec2,
    goal: DVec2,
) {
    let expected = oracle.shortest(start, goal);
    let mut out = Vec::new();
    for algorithm in [SearchAlgorithm::AStar, SearchAlgorithm::Dijkstra] {
        let options = options(algorithm, StartInsertion::Exact);
        match (
            expected,
            nav.find_path_with(start, goal, FACTION, options, search, &mut out),
        ) {
            (Some(cost), Ok(found)) => {
                assert!(
                    (found.cost - cost).abs() <= TOLERANCE,
                    "{algorithm:?} {start} -> {goal}: found {}, oracle {cost}",
                    found.cost
                );
                check_route(oracle, search.route(), start, goal);
            }
            (None, Err(NavError::Unreachable)) => {}
            (expected, found) => {
                panic!("{algorithm:?} {start} -> {goal}: oracle {expected:?}, planner {found:?}")
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_polygon_maps_with_roads_match_the_oracle(
        (map, clearance) in random_map(),
        roads in random_roads(),
        road_cost_factor in prop_oneof![Just(0.5), 0.1..0.95f64],
        points in prop::collection::vec((0.5..99.5f64, 0.5..99.5f64), 12),
    ) {
        let map = PolygonMap { roads, ..map };
        let config = GraphConfig { clearance, road_cost_factor };
        let Ok(nav) = PolygonNavigator::build(&map, config, 1) else {
            return Ok(());
        };
        let space = nav.graph().boundary().space().clone();
        let oracle = Oracle::with_roads(&space, &map.roads, road_cost_factor);
        let free: Vec<DVec2> = points.iter().map(|&(x, y)| DVec2::new(x, y)).filter(|&p| oracle.is_free(p)).collect();
        let mut search = VisSearch::new(&nav);
        for pair in free.chunks_exact(2) {
            check_road_query(&nav, &oracle, &mut search, pair[0], pair[1]);
        }
    }

    #[test]
    fn random_polygon_maps_match_the_oracle(
        (map, clearance) in random_map(),
        points in prop::collection::vec((0.5..99.5f64, 0.5..99.5f64), 12),
    ) {
        let config = GraphConfig { clearance, ..GraphConfig::default() };
        let Ok(nav) = PolygonNavigator::build(&map, config, 1) else {
            return Ok(());
        };
        let oracle = Oracle::new(&nav.graph().boundary().space().clone());
        let free: Vec<DVec2> = points.iter().map(|&(x, y)| DVec2::new(x, y)).filter(|&p| oracle.is_free(p)).collect();
        let mut search = VisSearch::new(&nav);
        for pair in free.chunks_exact(2) {
            check_query(&nav, &oracle, &mut search, pair[0], pair[1]);
        }
    }
}

#[test]
fn arena_mesh_paths_match_the_oracle() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/movingai/mesh/arena.mesh"
    );
    let map = load_mesh(path).expect("arena.mesh loads");
    let nav = PolygonNavigator::build(&map, GraphConfig::default(), 1).expect("arena.mesh builds");
    let oracle = Oracle::new(nav.graph().boundary().space());
    let mut search = VisSearch::new(&nav);
    let mut reachable = 0;
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 49.0
    };
    let mut points = Vec::new();
    while points.len() < 80 {
        let p = DVec2::new(next(), next());
        if oracle.is_free(p) {
            points.push(p);
        }
    }
    for pair in points.chunks_exact(2) {
        reachable += usize::from(check_query(&nav, &oracle, &mut search, pair[0], pair[1]));
    }
    assert!(
        reachable >= 20,
        "only {reachable} of 40 arena queries were reachable"
    );
}
