//! Wheeled units drive their route's turning-radius curve (Smith, GDC 2002,
//! "Vehicles"); tracked units still turn at the corners.
//!
//! The map is open but for one block, so a move order around it gets a
//! route with two 90° left turns (east, north, west). A wheeled unit ordered
//! along it arrives, never turns tighter than its minimum radius (heading
//! change against distance driven, tick by tick), and stays close to the
//! oracle: `TurningPath::build` of its route at the following radius. A
//! tracked unit on the same route turns at the corners themselves. Neither
//! ever enters the block. Wheeled units also round real walls without
//! entering them, and the arena2 profile's units without platoons (hundreds of
//! wheeled units on their curves) step bit-identically on 1 and 2 threads.

mod same_columns;
mod walled;

use std::sync::Arc;

use convoy::data::vehicles::ARRIVE_RADIUS;
use convoy::geometry::angles::wrap_angle;
use convoy::glam::Vec2;
use convoy::nav::turning::{TurningPath, following_radius};
use convoy::nav::{Cell, GridMap, Mobility, Terrain, WorldMap};
use convoy::{Sim, SimConfig, UnitSpec, VehicleKind};
use same_columns::assert_same_columns;
use walled::walled_map;

const DT: f32 = 1.0 / 30.0;
const CELL: f32 = 4.0;
const TICKS: usize = 3000;
/// How far a wheeled unit may stray from its curve, metres: pure pursuit
/// cuts an arc a little, and the unit enters an arc not quite at its speed.
const CURVE_TOLERANCE: f32 = 0.6;

/// 60 × 60 cells of 4 m with a block over cells x 0..=29, y 10..=49: the way
/// from the bottom strip to the top strip goes round its right side.
fn block_map() -> GridMap {
    let mut map = GridMap::open(60, 60).expect("valid size");
    for x in 0..30 {
        for y in 10..50 {
            map.set(Cell::new(x, y), Terrain::Blocked);
        }
    }
    map
}

fn at(x: u32, y: u32) -> Vec2 {
    (Vec2::new(x as f32, y as f32) + 0.5) * CELL
}

/// One unit's trajectory: its position and heading after each tick, its
/// route (start first) and its minimum turn radius.
struct Drive {
    positions: Vec<Vec2>,
    headings: Vec<f32>,
    route: Vec<Vec2>,
    turn_radius: f32,
    arrived: bool,
}

fn drive(kind: VehicleKind) -> Drive {
    let map = block_map();
    let world = WorldMap::new(&map, Mobility::GROUND, Vec2::ZERO, CELL).expect("valid");
    let mut config = SimConfig::new(world.bounds());
    config.map = convoy::Map::Grid(Arc::new(world));
    config.threads = 1;
    let mut sim = Sim::new(config).expect("valid config");
    let (start, goal) = (at(3, 9), at(3, 50));
    let spec = UnitSpec::new(kind, start);
    let unit = sim.spawn(&spec).expect("valid spec");
    sim.order_move(unit, goal).expect("on the map");
    let mut trip = Drive {
        positions: vec![start],
        headings: vec![spec.heading],
        route: Vec::new(),
        turn_radius: spec.turn_radius,
        arrived: false,
    };
    for _ in 0..TICKS {
        sim.step(DT);
        let columns = sim.vehicles().columns();
        if trip.route.is_empty() && columns.route_len()[0] > 0 {
            let len = columns.route_len()[0] as usize;
            trip.route.push(columns.route_start()[0]);
            trip.route
                .extend_from_slice(&sim.routes().of(unit.index)[..len]);
        }
        let position = columns.position()[0];
        let cell = Cell::new((position.x / CELL) as u32, (position.y / CELL) as u32);
        assert_ne!(
            map.terrain(cell),
            Some(Terrain::Blocked),
            "{kind:?} in the block at {position}"
        );
        trip.positions.push(position);
        trip.headings.push(columns.heading()[0]);
        if position.distance(goal) <= ARRIVE_RADIUS && columns.velocity()[0] == Vec2::ZERO {
            trip.arrived = true;
            break;
        }
    }
    trip
}

/// The route the premise needs: east, north, west, with two 90° corners.
fn assert_two_right_angles(route: &[Vec2]) {
    assert_eq!(route.len(), 4, "start, two corners, goal: {route:?}");
    for corner in 1..3 {
        let incoming = (route[corner] - route[corner - 1]).normalize();
        let outgoing = (route[corner + 1] - route[corner]).normalize();
        assert!(
            incoming.dot(outgoing).abs() < 1e-3 && incoming.perp_dot(outgoing) > 0.99,
            "corner {corner} is a 90° left turn: {route:?}"
        );
    }
}

/// Largest heading change per metre driven over the trajectory, and
/// whether the heading ever changed while the unit stood still.
fn sharpest_turn(trip: &Drive) -> (f32, bool) {
    let mut sharpest = 0.0f32;
    let mut turned_standing = false;
    for tick in 1..trip.positions.len() {
        let driven = trip.positions[tick].distance(trip.positions[tick - 1]);
        let turned = wrap_angle(trip.headings[tick] - trip.headings[tick - 1]).abs();
        if driven == 0.0 {
            turned_standing |= turned > 0.0;
        } else {
            sharpest = sharpest.max(turned / driven);
        }
    }
    (sharpest, turned_standing)
}

/// Each position's distance from the curve (densely sampled), largest.
fn farthest_from(curve: &TurningPath, positions: &[Vec2]) -> f32 {
    let samples: Vec<Vec2> = curve
        .samples((curve.length() / 0.05) as usize)
        .map(|point| point.position)
        .collect();
    positions
        .iter()
        .map(|position| {
            samples
                .iter()
                .map(|sample| sample.distance(*position))
                .fold(f32::INFINITY, f32::min)
        })
        .fold(0.0, f32::max)
}

#[test]
fn a_wheeled_unit_drives_the_turning_curve_of_its_route() {
    let trip = drive(VehicleKind::Wheeled);
    assert_two_right_angles(&trip.route);
    assert!(trip.arrived, "stopped at {:?}", trip.positions.last());

    let (sharpest, turned_standing) = sharpest_turn(&trip);
    // Integration turns exactly |speed|·dt / radius at most; allow rounding.
    assert!(
        sharpest <= (1.0 + 1e-3) / trip.turn_radius,
        "turned {sharpest} rad/m, the radius allows {}",
        1.0 / trip.turn_radius
    );
    assert!(!turned_standing, "a wheeled unit turned while stopped");

    let radius = following_radius(trip.turn_radius);
    let curve = TurningPath::build(&trip.route, radius).expect("a curve");
    assert!(curve.skipped_corners().is_empty(), "both corners have arcs");
    let farthest = farthest_from(&curve, &trip.positions);
    assert!(
        farthest <= CURVE_TOLERANCE,
        "strayed {farthest} m from the turning curve"
    );
}

#[test]
fn a_tracked_unit_on_the_same_route_turns_at_the_corners() {
    let trip = drive(VehicleKind::Tracked);
    assert_two_right_angles(&trip.route);
    assert!(trip.arrived, "stopped at {:?}", trip.positions.last());
    for corner in &trip.route[1..3] {
        let closest = trip
            .positions
            .iter()
            .map(|position| position.distance(*corner))
            .fold(f32::INFINITY, f32::min);
        assert!(closest <= ARRIVE_RADIUS, "passed {closest} m from {corner}");
    }
    // Off the wheeled unit's curve, which swings wide of each corner.
    let wheeled_radius =
        following_radius(UnitSpec::new(VehicleKind::Wheeled, Vec2::ZERO).turn_radius);
    let curve = TurningPath::build(&trip.route, wheeled_radius).expect("a curve");
    let farthest = farthest_from(&curve, &trip.positions);
    assert!(
        farthest > 2.0 * CURVE_TOLERANCE,
        "{farthest} m from the curve"
    );
    // It turns on the spot or nearly, far tighter than a wheeled unit's
    // followed arcs.
    let (sharpest, turned_standing) = sharpest_turn(&trip);
    assert!(
        turned_standing || sharpest > 3.0 / wheeled_radius,
        "sharpest turn {sharpest} rad/m"
    );
}

/// Round wall ends and through a three-cell gap, where the curve swings
/// close to walls: the units keep to the curve where it is in sight, drive
/// for the corners where not, never enter a wall, and arrive.
#[test]
fn wheeled_units_round_walls_without_entering_them() {
    let map = walled_map();
    let world = WorldMap::new(&map, Mobility::GROUND, Vec2::ZERO, CELL).expect("valid");
    let mut config = SimConfig::new(world.bounds());
    config.map = convoy::Map::Grid(Arc::new(world));
    config.threads = 1;
    config.separation_iterations = 0;
    let mut sim = Sim::new(config).expect("valid config");
    let trips = [
        (at(2, 2), at(37, 2)),
        (at(5, 15), at(30, 20)),
        (at(3, 5), at(10, 25)),
    ];
    let units: Vec<_> = trips
        .iter()
        .map(|&(start, goal)| {
            let unit = sim
                .spawn(&UnitSpec::new(VehicleKind::Wheeled, start))
                .expect("valid spec");
            sim.order_move(unit, goal).expect("on the map");
            unit
        })
        .collect();
    let mut arrived = false;
    for tick in 0..TICKS {
        sim.step(DT);
        let columns = sim.vehicles().columns();
        for position in columns.position() {
            let cell = Cell::new((position.x / CELL) as u32, (position.y / CELL) as u32);
            assert_ne!(
                map.terrain(cell),
                Some(Terrain::Blocked),
                "a unit drove into the wall at {position} (tick {tick})"
            );
        }
        arrived = units.iter().zip(&trips).all(|(&unit, &(_, goal))| {
            let row = sim.vehicles().row_of(unit).expect("alive");
            columns.position()[row].distance(goal) <= ARRIVE_RADIUS
        });
        if arrived {
            break;
        }
    }
    let columns = sim.vehicles().columns();
    assert!(arrived, "positions {:?}", columns.position());
}

/// The arena2 profile's units without their platoons: solo units with move orders
/// on arena2, a fifth of them wheeled, enough rows that the follow pass
/// splits across threads.
fn solo_arena2(threads: usize, ticks: usize) -> Sim {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../profiles/arena2.toml");
    let mut profile = convoy_scenarios::Profile::load(&path).expect("the shipped profile");
    profile.platoons.size = 0;
    profile.scenario.units = 5000;
    let mut sim = convoy_scenarios::build(&profile, threads).expect("builds");
    for _ in 0..ticks {
        sim.step(profile.run.dt);
    }
    sim
}

#[test]
fn following_curves_gives_the_same_columns_on_one_and_two_threads() {
    let (one, two) = (solo_arena2(1, 150), solo_arena2(2, 150));
    assert_same_columns(&one, &two);
    // Wheeled units were on their curves: driving for a point of the
    // curve, not for the route corner they are turning.
    let columns = one.vehicles().columns();
    let on_curves = (0..one.vehicles().len())
        .filter(|&row| {
            let (len, next) = (columns.route_len()[row], columns.route_next()[row]);
            let corner = one.routes().of(columns.handle_slot()[row])[next as usize];
            columns.kind()[row] == VehicleKind::Wheeled as u8
                && next + 1 < len
                && columns.drive_to()[row] != corner
        })
        .count();
    assert!(on_curves > 100, "{on_curves} wheeled units on their curves");
}
