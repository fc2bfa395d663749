//! Obstacle polygons added and removed at run time on a polygon map, against
//! building from scratch: the navigator after `add_obstacle` has the graph,
//! bridges and paths of one built on the map with the obstacle in it, and
//! after `remove_obstacle` those of one built without; the `Sim`'s raster
//! equals the raster of the edited map; units on newly blocked ground move
//! out, units whose route the obstacle cuts arrive by another way, others
//! do not replan; runs give the same bits on 1 and 2 threads and restore
//! into a `Sim` built on the original map; bad polygons are typed errors
//! that change nothing.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use convoy::glam::{DVec2, Vec2, Vec3};
use convoy::nav::polygon::{PolygonMap, PolygonMapError, load_polygon_map, rasterize};
use convoy::nav::{
    FactionId, GraphConfig, ObstacleError, ObstacleId, PolygonNavigator, VisSearch, WorldMap,
};
use convoy::random::unit_f32;
use convoy::{Bounds, Event, Map, MoveState, Sim, SimConfig, UnitId, UnitSpec, VehicleKind};

const DT: f32 = 1.0 / 60.0;
const CONFIG: GraphConfig = GraphConfig {
    clearance: 4.0,
    road_cost_factor: 0.5,
};

fn load(name: &str) -> PolygonMap {
    let file = format!("{}/../profiles/maps/{name}", env!("CARGO_MANIFEST_DIR"));
    load_polygon_map(&file).unwrap()
}

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Vec<DVec2> {
    [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        .map(|(x, y)| DVec2::new(x, y))
        .to_vec()
}

/// `map` with `obstacles` after its own.
fn with(map: &PolygonMap, obstacles: &[Vec<DVec2>]) -> PolygonMap {
    let mut map = map.clone();
    map.obstacles.extend(obstacles.iter().cloned());
    map
}

/// Same nodes, edges, bridges and answers to 60 queries between points of
/// `bounds`.
fn assert_same_navigator(edited: &PolygonNavigator, fresh: &PolygonNavigator, bounds: Bounds) {
    let (a, b) = (edited.graph(), fresh.graph());
    assert_eq!(a.positions(), b.positions(), "nodes");
    for node in 0..a.node_count() as u32 {
        let edges = |graph: &convoy::nav::VisGraph| graph.neighbours(node).collect::<Vec<_>>();
        assert_eq!(edges(a), edges(b), "edges of node {node}");
    }
    assert_eq!(edited.total_nodes(), fresh.total_nodes(), "bridge nodes");
    let (mut search_a, mut search_b) = (VisSearch::new(edited), VisSearch::new(fresh));
    let (mut route_a, mut route_b) = (Vec::new(), Vec::new());
    let point = |stream: u64, i: u64| {
        bounds.min
            + Vec2::new(unit_f32(5, stream, i), unit_f32(5, stream + 1, i))
                * (bounds.max - bounds.min)
    };
    for i in 0..60 {
        let (from, to) = (point(0, i), point(2, i));
        let found_a = edited.find_path(from, to, FactionId(0), &mut search_a, &mut route_a);
        let found_b = fresh.find_path(from, to, FactionId(0), &mut search_b, &mut route_b);
        assert_eq!(found_a, found_b, "query {i}");
        assert_eq!(route_a, route_b, "route {i}");
    }
}

fn map_bounds(map: &PolygonMap) -> Bounds {
    let points = map.containers.iter().flatten();
    let low = points
        .clone()
        .fold(DVec2::splat(f64::INFINITY), |a, &p| a.min(p));
    let high = points.fold(DVec2::splat(f64::NEG_INFINITY), |a, &p| a.max(p));
    Bounds::new(low.as_vec2(), high.as_vec2())
}

#[test]
fn added_and_removed_obstacles_equal_navigators_built_from_scratch() {
    for (name, obstacles) in [
        (
            "river_crossing.json",
            [
                rect(600.0, 600.0, 640.0, 660.0),
                rect(630.0, 380.0, 700.0, 420.0),
            ],
        ),
        (
            "skirmish_field.json",
            [
                rect(400.0, 400.0, 460.0, 430.0),
                rect(1500.0, 900.0, 1530.0, 1000.0),
            ],
        ),
    ] {
        let map = load(name);
        let bounds = map_bounds(&map);
        let mut nav = PolygonNavigator::build(&map, CONFIG, 2).unwrap();
        let first = nav.add_obstacle(obstacles[0].clone()).unwrap();
        let second = nav.add_obstacle(obstacles[1].clone()).unwrap();
        assert_eq!((first, second), (ObstacleId(0), ObstacleId(1)));
        let both = PolygonNavigator::build(&with(&map, &obstacles), CONFIG, 2).unwrap();
        assert_same_navigator(&nav, &both, bounds);
        assert_eq!(nav.remove_obstacle(first).unwrap(), obstacles[0]);
        let second_only = PolygonNavigator::build(&with(&map, &obstacles[1..]), CONFIG, 2).unwrap();
        assert_same_navigator(&nav, &second_only, bounds);
        nav.remove_obstacle(second).unwrap();
        let none = PolygonNavigator::build(&map, CONFIG, 2).unwrap();
        assert_same_navigator(&nav, &none, bounds);
        assert_eq!(nav.next_obstacle_id(), ObstacleId(2), "ids are not reused");
    }
}

#[test]
fn bridges_keep_what_stands_and_what_each_faction_believes() {
    let map = load("river_crossing.json");
    let mut nav = PolygonNavigator::build(&map, CONFIG, 2).unwrap();
    nav.remove_bridge(1, &[FactionId(1)]).unwrap();
    let mut fresh =
        PolygonNavigator::build(&with(&map, &[rect(600.0, 600.0, 640.0, 660.0)]), CONFIG, 2)
            .unwrap();
    fresh.remove_bridge(1, &[FactionId(1)]).unwrap();
    nav.add_obstacle(rect(600.0, 600.0, 640.0, 660.0)).unwrap();
    assert!(!nav.bridge_in_world(1).unwrap());
    assert!(nav.believes(FactionId(0), 1).unwrap());
    assert!(!nav.believes(FactionId(1), 1).unwrap());
    assert_eq!(nav.bridge_ends(1).unwrap(), fresh.bridge_ends(1).unwrap());
    let (mut search, mut route) = (VisSearch::new(&nav), Vec::new());
    let (west, east) = (Vec2::new(300.0, 150.0), Vec2::new(700.0, 150.0));
    for faction in [0, 1] {
        let mut fresh_search = VisSearch::new(&fresh);
        assert_eq!(
            nav.find_path(west, east, FactionId(faction), &mut search, &mut route),
            fresh.find_path(
                west,
                east,
                FactionId(faction),
                &mut fresh_search,
                &mut Vec::new()
            ),
            "faction {faction}"
        );
    }
}

fn river_sim(threads: usize) -> (Sim, PolygonMap) {
    let map = load("river_crossing.json");
    let nav = PolygonNavigator::build(&map, CONFIG, 1).unwrap();
    let raster = rasterize(&map, 5.0).unwrap();
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-50.0), Vec2::splat(1050.0)));
    config.threads = threads;
    config.map = Map::Polygon {
        navigator: Arc::new(nav),
        raster: Arc::new(raster),
    };
    (Sim::new(config).unwrap(), map)
}

fn tank(at: Vec2) -> UnitSpec {
    let mut spec = UnitSpec::new(VehicleKind::Tracked, at);
    spec.shield = Vec3::new(1.5, 1.0, 1.0);
    spec
}

fn position(sim: &Sim, unit: UnitId) -> Vec2 {
    sim.vehicles().columns().position()[sim.vehicles().row_of(unit).unwrap()]
}

/// Closes the river's north end, the way round it.
fn north_wall() -> Vec<Vec2> {
    [
        (440.0, 830.0),
        (560.0, 830.0),
        (560.0, 1000.0),
        (440.0, 1000.0),
    ]
    .map(|(x, y)| Vec2::new(x, y))
    .to_vec()
}

#[test]
fn the_raster_equals_the_edited_map_drawn_from_scratch() {
    let (mut sim, map) = river_sim(1);
    let wall = north_wall();
    let id = sim.add_obstacle(&wall).unwrap();
    let ring: Vec<DVec2> = wall.iter().map(|p| p.as_dvec2()).collect();
    let fresh = rasterize(&with(&map, &[ring]), 5.0).unwrap();
    assert_same_raster(sim.config().map.grid().unwrap(), &fresh);
    sim.remove_obstacle(id).unwrap();
    assert_same_raster(
        sim.config().map.grid().unwrap(),
        &rasterize(&map, 5.0).unwrap(),
    );
}

fn assert_same_raster(edited: &WorldMap, fresh: &WorldMap) {
    assert_eq!(edited.terrain(), fresh.terrain(), "cells");
    assert_eq!(edited.grid().regions(), fresh.grid().regions(), "regions");
    assert!(
        edited.hierarchy() == fresh.hierarchy(),
        "the HPA* hierarchy"
    );
}

/// Three tanks west of the river sent east round its north end, one
/// standing where the wall goes up, one east of the river moving on its
/// own side; the wall goes up at tick 40, `save_at` saves a snapshot.
/// Returns the units, the checksums after every tick and the snapshot.
fn walled_run(
    threads: usize,
    save_at: Option<u64>,
    ticks: u64,
) -> (Vec<UnitId>, Vec<u64>, Option<Vec<u8>>) {
    let (mut sim, _) = river_sim(threads);
    let mut units: Vec<UnitId> = (0..3)
        .map(|k| {
            sim.spawn(&tank(Vec2::new(380.0, 880.0 + 12.0 * k as f32)))
                .unwrap()
        })
        .collect();
    for (k, &unit) in units.iter().enumerate() {
        sim.order_move(unit, Vec2::new(650.0, 880.0 + 12.0 * k as f32))
            .unwrap();
    }
    units.push(sim.spawn(&tank(Vec2::new(500.0, 920.0))).unwrap());
    let bystander = sim.spawn(&tank(Vec2::new(700.0, 300.0))).unwrap();
    sim.order_move(bystander, Vec2::new(800.0, 300.0)).unwrap();
    units.push(bystander);
    let (mut sums, mut saved) = (Vec::new(), None);
    for tick in 0..ticks {
        if tick == 40 {
            sim.add_obstacle(&north_wall()).unwrap();
        }
        if Some(tick) == save_at {
            let mut bytes = Vec::new();
            sim.save(&mut bytes).unwrap();
            saved = Some(bytes);
        }
        sim.step(DT);
        sums.push(sim.checksum());
    }
    (units, sums, saved)
}

#[test]
fn units_move_off_the_obstacle_and_cut_off_units_cross_by_the_bridge() {
    let (mut sim, map) = river_sim(1);
    let crossers: Vec<UnitId> = (0..3)
        .map(|k| {
            sim.spawn(&tank(Vec2::new(380.0, 880.0 + 12.0 * k as f32)))
                .unwrap()
        })
        .collect();
    let goals: Vec<Vec2> = (0..3)
        .map(|k| Vec2::new(650.0, 880.0 + 12.0 * k as f32))
        .collect();
    for (&unit, &goal) in crossers.iter().zip(&goals) {
        sim.order_move(unit, goal).unwrap();
    }
    let walled = sim.spawn(&tank(Vec2::new(500.0, 920.0))).unwrap();
    let bystander = sim.spawn(&tank(Vec2::new(700.0, 300.0))).unwrap();
    sim.order_move(bystander, Vec2::new(800.0, 300.0)).unwrap();
    for _ in 0..40 {
        sim.step(DT);
    }
    assert_eq!(sim.move_state(bystander).unwrap(), MoveState::Moving);
    sim.add_obstacle(&north_wall()).unwrap();
    let raster = Arc::clone(sim.config().map.grid_map().unwrap());
    assert!(raster.is_open(position(&sim, walled)), "moved out");
    for &unit in &crossers {
        assert_eq!(sim.move_state(unit).unwrap(), MoveState::WaitingForPath);
    }
    assert_eq!(
        sim.move_state(bystander).unwrap(),
        MoveState::Moving,
        "not cut"
    );
    sim.step(DT);
    assert!(sim.events().contains(&Event::Displaced(walled)));
    let wall: Vec<DVec2> = north_wall().iter().map(|p| p.as_dvec2()).collect();
    let mut crossed_at = vec![None; crossers.len()];
    for _ in 0..60 * 150 {
        sim.step(DT);
        for (k, &unit) in crossers.iter().enumerate() {
            let at = position(&sim, unit);
            assert!(
                !convoy::nav::polygon::point_in_ring(at.as_dvec2(), &wall),
                "{at} in the wall"
            );
            if (490.0..510.0).contains(&at.x) && crossed_at[k].is_none() {
                crossed_at[k] = Some(at.y);
            }
        }
        if crossers
            .iter()
            .all(|&unit| sim.move_state(unit).unwrap() == MoveState::Arrived)
        {
            break;
        }
    }
    for (k, &unit) in crossers.iter().enumerate() {
        assert_eq!(
            sim.move_state(unit).unwrap(),
            MoveState::Arrived,
            "crosser {k}"
        );
        let y = crossed_at[k].unwrap();
        assert!(
            (y - 200.0).abs() < 15.0,
            "crosser {k} crossed at y {y}, not on the bridge"
        );
    }
    let _ = map;
}

#[test]
fn obstacle_runs_give_the_same_bits_on_any_thread_count_and_restore_exactly() {
    let (save_at, ticks) = (70, 160);
    let (_, one, saved) = walled_run(1, Some(save_at), ticks);
    let (_, two, _) = walled_run(2, None, ticks);
    assert_eq!(one, two, "1 and 2 threads");
    // A Sim built on the original map takes the snapshot's obstacle.
    let (mut restored, _) = river_sim(2);
    restored.restore(&mut saved.unwrap().as_slice()).unwrap();
    assert_eq!(restored.added_obstacles().len(), 1);
    let mut sums = Vec::new();
    for _ in save_at..ticks {
        restored.step(DT);
        sums.push(restored.checksum());
    }
    assert_eq!(sums, one[save_at as usize..]);
}

#[test]
fn a_snapshot_from_before_an_obstacle_restores_the_map_without_it() {
    let (mut sim, map) = river_sim(1);
    sim.spawn(&tank(Vec2::new(380.0, 880.0))).unwrap();
    sim.step(DT);
    let mut before = Vec::new();
    sim.save(&mut before).unwrap();
    let checksum = sim.checksum();
    sim.add_obstacle(&north_wall()).unwrap();
    assert_ne!(sim.checksum(), checksum);
    sim.restore(&mut before.as_slice()).unwrap();
    assert_eq!(sim.checksum(), checksum);
    assert!(sim.added_obstacles().is_empty());
    assert_same_raster(
        sim.config().map.grid().unwrap(),
        &rasterize(&map, 5.0).unwrap(),
    );
    // A clone of a Sim with an obstacle continues as it does.
    sim.add_obstacle(&north_wall()).unwrap();
    let mut copy = sim.clone();
    for _ in 0..30 {
        sim.step(DT);
        copy.step(DT);
        assert_eq!(sim.checksum(), copy.checksum());
    }
}

#[test]
fn bad_polygons_are_refused_by_name_with_nothing_changed() {
    let (mut sim, _) = river_sim(1);
    let unit = sim.spawn(&tank(Vec2::new(380.0, 880.0))).unwrap();
    sim.order_move(unit, Vec2::new(650.0, 880.0)).unwrap();
    sim.step(DT);
    let checksum = sim.checksum();
    let v = Vec2::new;
    let cases: [(&str, Vec<Vec2>); 7] = [
        (
            "NaN",
            vec![v(100.0, 100.0), v(f32::NAN, 100.0), v(150.0, 150.0)],
        ),
        (
            "infinite",
            vec![v(100.0, 100.0), v(200.0, f32::INFINITY), v(150.0, 150.0)],
        ),
        ("two points", vec![v(100.0, 100.0), v(200.0, 100.0)]),
        (
            "no area",
            vec![v(100.0, 100.0), v(150.0, 100.0), v(200.0, 100.0)],
        ),
        (
            "a bow tie",
            vec![
                v(100.0, 100.0),
                v(200.0, 200.0),
                v(200.0, 100.0),
                v(120.0, 220.0),
            ],
        ),
        (
            "off the map",
            vec![v(900.0, 900.0), v(1100.0, 900.0), v(1000.0, 990.0)],
        ),
        (
            "every way",
            vec![
                v(-1.0, 0.0),
                v(1000.0, -1.0),
                v(1000.0, 1000.0),
                v(0.0, 1000.0),
            ],
        ),
    ];
    for (what, polygon) in cases {
        let error = sim.add_obstacle(&polygon).unwrap_err();
        assert!(error.to_string().contains("polygon"), "{what}: {error}");
        assert_eq!(sim.checksum(), checksum, "{what}");
        assert!(sim.added_obstacles().is_empty(), "{what}");
    }
    let error = sim
        .add_obstacle(&[
            v(100.0, 100.0),
            v(200.0, 200.0),
            v(200.0, 100.0),
            v(120.0, 220.0),
        ])
        .unwrap_err();
    assert!(matches!(
        error,
        ObstacleError::Polygon(PolygonMapError::SelfIntersecting { .. })
    ));
    assert!(matches!(
        sim.add_obstacle(&[v(900.0, 900.0), v(1100.0, 900.0), v(1000.0, 990.0)]),
        Err(ObstacleError::OffMap { index: 1, .. })
    ));
    // Covering the whole map leaves no free space.
    let everything = [
        v(0.0, 0.0),
        v(1000.0, 0.0),
        v(1000.0, 1000.0),
        v(0.0, 1000.0),
    ];
    assert!(matches!(
        sim.add_obstacle(&everything),
        Err(ObstacleError::Rebuild(_))
    ));
    assert_eq!(
        sim.remove_obstacle(ObstacleId(3)),
        Err(ObstacleError::Unknown(ObstacleId(3)))
    );
    assert_eq!(sim.checksum(), checksum);
    let mut open = Sim::new(SimConfig::new(Bounds::new(
        Vec2::splat(-50.0),
        Vec2::splat(50.0),
    )))
    .unwrap();
    assert_eq!(
        open.add_obstacle(&[v(0.0, 0.0), v(10.0, 0.0), v(0.0, 10.0)]),
        Err(ObstacleError::NotAPolygonMap)
    );
}
