//! A group order on a grid map is planned once for the whole group: every
//! ground member has its route when the order returns (no search queued),
//! each route runs by line of sight from corner to corner to the member's
//! own spot, and is about as short as the member's own optimal path
//! (checked against plain grid A*). Members keep their order across the
//! group at a bend, so they take it side by side.

#![allow(clippy::unwrap_used)]

mod arena2;

use std::sync::Arc;

use arena2::{CELL_M, arena2, config_on};
use convoy::glam::Vec2;
use convoy::nav::{Cell, GridMap, GridPlanner, Mobility, Terrain, WorldMap};
use convoy::{MoveState, Sim, UnitId, UnitSpec, VehicleKind};

const DT: f32 = 1.0 / 60.0;

const KINDS: [VehicleKind; 4] = [
    VehicleKind::Tracked,
    VehicleKind::Wheeled,
    VehicleKind::Infantry,
    VehicleKind::RotaryWing,
];

/// Member `i`'s place in a block `files` wide and `ranks` deep, 10 m apart.
fn offset(i: usize, files: usize, ranks: usize) -> Vec2 {
    let centred = |k: usize, n: usize| k as f32 - (n as f32 - 1.0) / 2.0;
    Vec2::new(centred(i % files, files), centred(i / files, ranks)) * 10.0
}

/// The first block centre (scanning rows) whose `files` × `ranks` block is
/// open, and a goal 300 m away in its region behind walls, whose block is
/// open too.
fn block_and_goal(map: &WorldMap, files: usize, ranks: usize) -> (Vec2, Vec2) {
    let grid = map.grid();
    let cells = (0..grid.height()).flat_map(|y| (0..grid.width()).map(move |x| (x, y)));
    let centres: Vec<Vec2> = cells.map(|(x, y)| map.centre_of(Cell::new(x, y))).collect();
    let open =
        |centre: Vec2| (0..files * ranks).all(|i| map.is_open(centre + offset(i, files, ranks)));
    centres
        .iter()
        .filter(|&&start| open(start))
        .find_map(|&start| {
            let from = map.cell_at(start).unwrap();
            centres
                .iter()
                .find(|&&goal| {
                    (goal.distance(start) - 300.0).abs() < 4.0
                        && open(goal)
                        && grid.connected(from, map.cell_at(goal).unwrap())
                        && !map.segment_is_clear(start, goal)
                })
                .map(|&goal| (start, goal))
        })
        .expect("arena2 has an open block with a hidden goal 300 m away")
}

fn sim_on(map: &Arc<WorldMap>) -> Sim {
    Sim::new(config_on(map)).unwrap()
}

/// `files × ranks` units of the four kinds in turn, in a block at `centre`.
fn spawn_block(sim: &mut Sim, centre: Vec2, files: usize, ranks: usize) -> Vec<UnitId> {
    (0..files * ranks)
        .map(|i| {
            let spec = UnitSpec::new(KINDS[i % 4], centre + offset(i, files, ranks));
            sim.spawn(&spec).unwrap()
        })
        .collect()
}

fn kind_of(sim: &Sim, unit: UnitId) -> VehicleKind {
    let row = sim.vehicles().row_of(unit).unwrap();
    VehicleKind::from_u8(sim.vehicles().columns().kind()[row]).unwrap()
}

#[test]
fn every_ground_member_gets_a_clear_near_optimal_route_when_the_order_returns() {
    let map = arena2();
    let mut sim = sim_on(&map);
    let (centre, goal) = block_and_goal(&map, 8, 6);
    let units = spawn_block(&mut sim, centre, 8, 6);
    let spots = sim.order_group(&units, goal, Vec2::ZERO).unwrap();

    let columns = sim.vehicles().columns();
    let flier = |unit: UnitId| kind_of(&sim, unit) == VehicleKind::RotaryWing;
    let fliers = units.iter().filter(|&&unit| flier(unit)).count();
    assert_eq!(
        sim.open_path_requests(),
        fliers,
        "only the fliers wait for the paths stage"
    );
    let mut astar = GridPlanner::new();
    for (&unit, &spot) in units.iter().zip(&spots) {
        let state = sim.move_state(unit).unwrap();
        if flier(unit) {
            assert_eq!(state, MoveState::WaitingForPath);
            continue;
        }
        assert_eq!(state, MoveState::Moving, "{unit:?} has its route at once");
        let row = sim.vehicles().row_of(unit).unwrap();
        let here = columns.position()[row];
        let len = columns.route_len()[row] as usize;
        let slot = columns.handle_slot()[row];
        let route = &sim.routes().of(slot)[..len];
        assert_eq!(route.last(), Some(&spot), "the route ends at the spot");
        for leg in route.windows(2) {
            assert!(map.line_is_clear(leg[0], leg[1]), "{leg:?} crosses a wall");
        }
        let travelled: f32 = std::iter::once(here)
            .chain(route.iter().copied())
            .collect::<Vec<_>>()
            .windows(2)
            .map(|leg| leg[0].distance(leg[1]))
            .sum();
        let optimal = astar
            .find_path(
                map.grid(),
                map.cell_at(here).unwrap(),
                map.cell_at(spot).unwrap(),
            )
            .unwrap();
        let optimal_m = optimal.length as f32 * CELL_M;
        assert!(
            travelled <= optimal_m * 1.05 + 2.0 * CELL_M,
            "{unit:?}: a {travelled:.0} m route where the optimum is {optimal_m:.0} m"
        );
    }
}

/// Seconds until `units` have all arrived at once (or `limit_s` passes).
fn time_to_arrive(sim: &mut Sim, units: &[UnitId], limit_s: f64) -> f64 {
    let start = sim.time_s();
    while sim.time_s() - start < limit_s {
        sim.step(DT);
        if units
            .iter()
            .all(|&unit| sim.move_state(unit) == Ok(MoveState::Arrived))
        {
            return sim.time_s() - start;
        }
    }
    f64::INFINITY
}

/// The slow kinds set a mixed group's pace on a shared road: every ground
/// member arrives within twice the slowest ground kind's time alone, and
/// every flier (they share no road) within twice theirs.
#[test]
fn two_hundred_mixed_units_arrive_within_twice_the_time_of_their_slowest_kind_alone() {
    let map = arena2();
    let (centre, goal) = block_and_goal(&map, 20, 10);
    let alone: Vec<f64> = KINDS
        .iter()
        .map(|&kind| {
            let mut sim = sim_on(&map);
            let unit = sim.spawn(&UnitSpec::new(kind, centre)).unwrap();
            sim.order_move(unit, goal).unwrap();
            time_to_arrive(&mut sim, &[unit], 600.0)
        })
        .collect();
    let flier = |kind: VehicleKind| kind == VehicleKind::RotaryWing;
    let slowest_ground = KINDS
        .iter()
        .zip(&alone)
        .filter(|&(&kind, _)| !flier(kind))
        .map(|(_, &time)| time)
        .fold(0.0, f64::max);
    let flier_alone = alone[3];
    assert!(slowest_ground.is_finite() && flier_alone.is_finite());

    let mut sim = sim_on(&map);
    let units = spawn_block(&mut sim, centre, 20, 10);
    sim.order_group(&units, goal, Vec2::ZERO).unwrap();
    let (fliers, ground): (Vec<UnitId>, Vec<UnitId>) =
        units.iter().partition(|&&unit| flier(kind_of(&sim, unit)));
    let fliers_in = time_to_arrive(&mut sim, &fliers, 2.0 * flier_alone);
    assert!(
        fliers_in <= 2.0 * flier_alone,
        "fliers alone in {flier_alone:.1} s, not all arrived in twice that"
    );
    let left_s = 2.0 * slowest_ground - sim.time_s();
    let ground_in = time_to_arrive(&mut sim, &ground, left_s);
    let arrived = ground
        .iter()
        .filter(|&&unit| sim.move_state(unit) == Ok(MoveState::Arrived))
        .count();
    assert!(
        ground_in.is_finite(),
        "the slowest ground kind alone in {slowest_ground:.1} s; {arrived} of {} ground members arrived in twice that",
        ground.len()
    );
}

/// An L-shaped corridor six 8 m cells wide: north up the west arm, then
/// east along the north arm.
fn corridor() -> Arc<WorldMap> {
    let mut grid = GridMap::open(40, 40).unwrap();
    for y in 0..40 {
        for x in 0..40 {
            let west_arm = (2..8).contains(&x) && y < 38;
            let north_arm = (2..38).contains(&x) && (32..38).contains(&y);
            if !(west_arm || north_arm) {
                grid.set(Cell::new(x, y), Terrain::Blocked);
            }
        }
    }
    Arc::new(WorldMap::new(&grid, Mobility::GROUND, Vec2::ZERO, CELL_M).unwrap())
}

/// Five tanks abreast up the west arm, ordered to the far end of the north
/// arm, a right turn: each takes the bend on its own side of the group,
/// the easternmost nearest the corner's inside, the bends a tank's width
/// apart or more, every leg clear.
#[test]
fn members_take_a_bend_side_by_side_in_their_order_across_the_group() {
    let map = corridor();
    let mut sim = sim_on(&map);
    let starts: Vec<Vec2> = (0..5)
        .map(|k| Vec2::new(24.0 + 8.0 * k as f32, 40.0))
        .collect();
    let units: Vec<UnitId> = starts
        .iter()
        .map(|&at| sim.spawn(&UnitSpec::new(VehicleKind::Tracked, at)).unwrap())
        .collect();
    sim.order_group(&units, Vec2::new(280.0, 280.0), Vec2::X)
        .unwrap();
    let columns = sim.vehicles().columns();
    let routes: Vec<Vec<Vec2>> = units
        .iter()
        .zip(&starts)
        .map(|(&unit, &start)| {
            let row = sim.vehicles().row_of(unit).unwrap();
            let len = columns.route_len()[row] as usize;
            let route = &sim.routes().of(columns.handle_slot()[row])[..len];
            std::iter::once(start)
                .chain(route.iter().copied())
                .collect()
        })
        .collect();
    let bend = |route: &[Vec2]| {
        *route
            .iter()
            .find(|point| point.y > 200.0 && point.x < 100.0)
            .expect("a bend at the corner")
    };
    // The inside of the turn: the north-east corner of the west arm's wall.
    let inside = Vec2::new(8.0, 32.0) * CELL_M;
    let width = 2.0 * UnitSpec::new(VehicleKind::Tracked, Vec2::ZERO).shield.y;
    for (k, route) in routes.iter().enumerate() {
        for leg in route.windows(2) {
            assert!(
                map.segment_is_clear(leg[0], leg[1]),
                "member {k}: {leg:?} crosses a wall"
            );
        }
        if let Some(east) = routes.get(k + 1) {
            let (mine, theirs) = (bend(route), bend(east));
            assert!(
                mine.distance(theirs) >= width && mine.distance(inside) > theirs.distance(inside),
                "member {k} bends at {mine}, its eastern neighbour at {theirs}"
            );
        }
    }
}
