//! Orders as an RTS issues them: a box of tanks clicked to one point on a
//! real map arrives about as fast as one tank alone; goals on walls or in
//! another region go to the nearest reachable point (or are refused); a
//! search that finds no path is not asked again and again; `stop` holds
//! units at once; a column formed from a box against a wall sets off.

#![allow(clippy::unwrap_used)]

mod arena2;

use std::sync::Arc;

use arena2::{CELL_M, arena2, config_on};
use convoy::glam::{Vec2, Vec3};
use convoy::nav::{Cell, Mobility, WorldMap, parse_map};
use convoy::{
    Bounds, Event, MoveState, OrderError, PlatoonSpec, Sim, SimConfig, UnitId, UnitSpec,
    UnreachableGoals, VehicleKind,
};

const DT: f32 = 1.0 / 60.0;

fn sim_on(map: &Arc<WorldMap>, threads: usize, unreachable: UnreachableGoals) -> Sim {
    let mut config = config_on(map);
    config.threads = threads;
    config.unreachable_goals = unreachable;
    Sim::new(config).unwrap()
}

/// Unit `i`'s place in a 5-wide box of 20, 10 m apart.
fn box_offset(i: usize) -> Vec2 {
    Vec2::new((i % 5) as f32 - 2.0, (i / 5) as f32 - 1.5) * 10.0
}

/// The first start (scanning rows) whose box is open, and a goal about
/// 300 m away in its region, with a wall between.
fn start_and_goal(map: &WorldMap) -> (Vec2, Vec2) {
    let box_open = |centre: Vec2| (0..20).all(|i| map.is_open(centre + box_offset(i)));
    let grid = map.grid();
    let cells = || (0..grid.height()).flat_map(|y| (0..grid.width()).map(move |x| Cell::new(x, y)));
    for start_cell in cells() {
        let start = map.centre_of(start_cell);
        if !box_open(start) {
            continue;
        }
        let goal = cells().map(|cell| map.centre_of(cell)).find(|&goal| {
            (goal.distance(start) - 300.0).abs() < 4.0
                && box_open(goal)
                && grid.connected(start_cell, map.cell_at(goal).unwrap())
                && !map.segment_is_clear(start, goal)
        });
        if let Some(goal) = goal {
            return (start, goal);
        }
    }
    panic!("arena2 has no open box with a goal 300 m away");
}

/// Steps until every unit has arrived (or `limit_s` passes); the time.
fn time_to_arrive(sim: &mut Sim, units: &[UnitId], limit_s: f64) -> f64 {
    while sim.time_s() < limit_s {
        sim.step(DT);
        let arrived = units
            .iter()
            .all(|&unit| sim.move_state(unit) == Ok(MoveState::Arrived));
        if arrived {
            return sim.time_s();
        }
    }
    f64::INFINITY
}

#[test]
fn a_box_of_twenty_tanks_ordered_as_a_group_arrives_about_as_fast_as_one_tank() {
    let map = arena2();
    let (start, goal) = start_and_goal(&map);
    let mut alone = sim_on(&map, 1, UnreachableGoals::MoveToNearest);
    let tank = alone
        .spawn(&UnitSpec::new(VehicleKind::Tracked, start))
        .unwrap();
    alone.order_move(tank, goal).unwrap();
    let alone_s = time_to_arrive(&mut alone, &[tank], 120.0);
    assert!(alone_s.is_finite(), "a lone tank does not arrive");

    let mut group = sim_on(&map, 1, UnreachableGoals::MoveToNearest);
    let tanks: Vec<UnitId> = (0..20)
        .map(|i| {
            let spec = UnitSpec::new(VehicleKind::Tracked, start + box_offset(i));
            group.spawn(&spec).unwrap()
        })
        .collect();
    let spots = group.order_group(&tanks, goal, Vec2::ZERO).unwrap();
    for (k, &spot) in spots.iter().enumerate() {
        assert!(map.is_open(spot), "spot {k} at {spot} is on a wall");
        for &other in &spots[k + 1..] {
            assert!(
                spot.distance(other) >= 8.0,
                "spots {spot} and {other} overlap"
            );
        }
    }
    let group_s = time_to_arrive(&mut group, &tanks, 3.0 * alone_s);
    assert!(
        group_s <= 1.5 * alone_s,
        "the group took {group_s:.1} s, a lone tank {alone_s:.1} s"
    );
    for (&tank, &spot) in tanks.iter().zip(&spots) {
        let row = group.vehicles().row_of(tank).unwrap();
        assert!(group.vehicles().columns().position()[row].distance(spot) <= 2.5);
    }
}

#[test]
fn group_orders_give_the_same_bits_with_one_and_two_threads() {
    let map = arena2();
    let (start, goal) = start_and_goal(&map);
    let run = |threads: usize| {
        let mut sim = sim_on(&map, threads, UnreachableGoals::MoveToNearest);
        let tanks: Vec<UnitId> = (0..20)
            .map(|i| {
                let spec = UnitSpec::new(VehicleKind::Tracked, start + box_offset(i));
                sim.spawn(&spec).unwrap()
            })
            .collect();
        sim.order_group(&tanks, goal, Vec2::Y).unwrap();
        for _ in 0..900 {
            sim.step(DT);
        }
        sim.checksum()
    };
    assert_eq!(run(1), run(2));
}

/// A 12 × 6 map split by a wall at column 6 (rows 0–5): region A to the
/// west, region B to the east; cell (9, 2) is a pillar inside B.
fn split_map(unreachable: UnreachableGoals) -> (Sim, Arc<WorldMap>) {
    let rows = [
        "......@.....",
        "......@.....",
        "......@..@..",
        "......@.....",
        "......@.....",
        "......@.....",
    ];
    let text = format!(
        "type octile\nheight 6\nwidth 12\nmap\n{}\n",
        rows.join("\n")
    );
    let grid = parse_map(&text).unwrap();
    let map = Arc::new(WorldMap::new(&grid, Mobility::GROUND, Vec2::ZERO, CELL_M).unwrap());
    (sim_on(&map, 1, unreachable), map)
}

/// The open cell of `region` nearest `point`, by brute force.
fn nearest_in_region(map: &WorldMap, point: Vec2, region: u32) -> Vec2 {
    let grid = map.grid();
    (0..grid.height())
        .flat_map(|y| (0..grid.width()).map(move |x| Cell::new(x, y)))
        .filter(|&cell| grid.region(cell) == Some(region))
        .map(|cell| map.centre_of(cell))
        .min_by(|a, b| a.distance(point).total_cmp(&b.distance(point)))
        .unwrap()
}

#[test]
fn a_goal_on_a_wall_or_across_it_goes_to_the_nearest_reachable_cell() {
    let (mut sim, map) = split_map(UnreachableGoals::MoveToNearest);
    let west = map.centre_of(Cell::new(1, 1));
    let east = map.centre_of(Cell::new(10, 4));
    let a = sim
        .spawn(&UnitSpec::new(VehicleKind::Tracked, west))
        .unwrap();
    let b = sim
        .spawn(&UnitSpec::new(VehicleKind::Tracked, east))
        .unwrap();
    let region_of = |at: Vec2| map.grid().region(map.cell_at(at).unwrap()).unwrap();
    let cases = [
        (a, map.centre_of(Cell::new(6, 3)) + Vec2::new(1.5, 0.5)), // on the wall
        (a, map.centre_of(Cell::new(9, 1))),                       // across it
        (b, map.centre_of(Cell::new(9, 2)) + Vec2::new(-2.0, 1.0)), // on the pillar
        (b, map.centre_of(Cell::new(2, 5))),                       // across it
    ];
    for (unit, goal) in cases {
        let at = sim.vehicles().columns().position()[sim.vehicles().row_of(unit).unwrap()];
        let expected = nearest_in_region(&map, goal, region_of(at));
        assert_eq!(sim.order_move(unit, goal), Ok(expected), "goal {goal}");
    }
    for _ in 0..60 * 30 {
        sim.step(DT);
    }
    for unit in [a, b] {
        assert_eq!(sim.move_state(unit), Ok(MoveState::Arrived));
    }
}

#[test]
fn under_refuse_an_unreachable_goal_is_refused_and_nothing_changes() {
    let (mut sim, map) = split_map(UnreachableGoals::Refuse);
    let unit = sim
        .spawn(&UnitSpec::new(
            VehicleKind::Tracked,
            map.centre_of(Cell::new(1, 1)),
        ))
        .unwrap();
    let wall = map.centre_of(Cell::new(6, 2));
    let across = map.centre_of(Cell::new(9, 4));
    assert_eq!(
        sim.order_move(unit, wall),
        Err(OrderError::Blocked { unit, goal: wall })
    );
    assert_eq!(
        sim.order_move(unit, across),
        Err(OrderError::OtherRegion { unit, goal: across })
    );
    assert_eq!(
        sim.order_group(&[unit], across, Vec2::X),
        Err(OrderError::OtherRegion { unit, goal: across })
    );
    assert_eq!(sim.open_path_requests(), 0);
    assert_eq!(sim.move_state(unit), Ok(MoveState::Arrived));
    // A helicopter flies over the wall: never refused.
    let flier = sim
        .spawn(&UnitSpec::new(
            VehicleKind::RotaryWing,
            map.centre_of(Cell::new(1, 3)),
        ))
        .unwrap();
    assert_eq!(sim.order_move(flier, across), Ok(across));
}

#[test]
fn a_unit_no_path_serves_holds_and_does_not_ask_again() {
    let (mut sim, map) = split_map(UnreachableGoals::MoveToNearest);
    // Put on the wall (as nothing in the tick would), it has no region:
    // the search decides, and finds no path from a blocked cell.
    let on_wall = map.centre_of(Cell::new(6, 4));
    let unit = sim
        .spawn(&UnitSpec::new(
            VehicleKind::Tracked,
            map.centre_of(Cell::new(5, 4)),
        ))
        .unwrap();
    let row = sim.vehicles().row_of(unit).unwrap();
    sim.vehicles_mut().position[row] = on_wall;
    let goal = map.centre_of(Cell::new(1, 1));
    assert_eq!(sim.order_move(unit, goal), Ok(goal));
    assert_eq!(sim.move_state(unit), Ok(MoveState::WaitingForPath));
    sim.step(DT);
    assert_eq!(sim.move_state(unit), Ok(MoveState::NoPath));
    for _ in 0..60 * 20 {
        sim.step(DT);
        assert_eq!(
            sim.open_path_requests(),
            0,
            "asked again at {} s",
            sim.time_s()
        );
    }
    let row = sim.vehicles().row_of(unit).unwrap();
    assert_eq!(sim.vehicles().columns().position()[row], on_wall);
    assert_eq!(sim.move_state(unit), Ok(MoveState::NoPath));
}

#[test]
fn stop_holds_units_within_a_tick_of_travel_and_drops_their_requests() {
    let map = arena2();
    let (start, goal) = start_and_goal(&map);
    let mut sim = {
        let mut config = sim_on(&map, 2, UnreachableGoals::MoveToNearest)
            .config()
            .clone();
        // A small budget: searches are suspended across ticks.
        config.max_path_nodes_per_tick = 50;
        Sim::new(config).unwrap()
    };
    let units: Vec<UnitId> = (0..5)
        .map(|i| {
            let spec = UnitSpec::new(VehicleKind::Wheeled, start + box_offset(i));
            sim.spawn(&spec).unwrap()
        })
        .collect();
    sim.order_group(&units, goal, Vec2::ZERO).unwrap();
    for _ in 0..60 * 5 {
        sim.step(DT);
    }
    // New orders in the queue (and maybe in flight) when the stop comes
    // (one by one: a group order needs no search).
    for &unit in &units {
        sim.order_move(unit, start).unwrap();
    }
    sim.step(DT);
    for &unit in &units {
        sim.order_move(unit, goal).unwrap();
    }
    assert!(sim.path_searches_in_flight() > 0);
    assert!(sim.open_path_requests() > sim.path_searches_in_flight());
    sim.stop(&units).unwrap();
    assert_eq!(sim.open_path_requests(), 0);
    let held: Vec<Vec2> = units
        .iter()
        .map(|&unit| sim.vehicles().columns().position()[sim.vehicles().row_of(unit).unwrap()])
        .collect();
    for _ in 0..60 * 3 {
        sim.step(DT);
    }
    for (&unit, &at) in units.iter().zip(&held) {
        let row = sim.vehicles().row_of(unit).unwrap();
        let columns = sim.vehicles().columns();
        let drift = columns.position()[row].distance(at);
        assert!(drift <= columns.max_speed()[row] * DT, "drifted {drift} m");
        assert_eq!(sim.move_state(unit), Ok(MoveState::Arrived));
    }
    let gone = units[0];
    sim.despawn(gone).unwrap();
    assert!(matches!(sim.stop(&units), Err(OrderError::Stale(_))));
    assert!(matches!(
        sim.order_group(&[units[1], units[1]], goal, Vec2::ZERO),
        Err(OrderError::Duplicate(_))
    ));
}

/// Steps `ticks` ticks, gathering every unit and platoon event (not the
/// periodic row reorders).
fn events_over(sim: &mut Sim, ticks: usize) -> Vec<Event> {
    let mut seen = Vec::new();
    for _ in 0..ticks {
        sim.step(DT);
        let about_units = sim.events().iter().filter(|&&e| e != Event::RowsReordered);
        seen.extend(about_units);
    }
    seen
}

#[test]
fn events_report_arrivals_missing_paths_and_stuck_units_once_each() {
    let (mut sim, map) = split_map(UnreachableGoals::MoveToNearest);
    let walker = sim
        .spawn(&UnitSpec::new(
            VehicleKind::Tracked,
            map.centre_of(Cell::new(1, 1)),
        ))
        .unwrap();
    let lost = sim
        .spawn(&UnitSpec::new(
            VehicleKind::Tracked,
            map.centre_of(Cell::new(5, 4)),
        ))
        .unwrap();
    let row = sim.vehicles().row_of(lost).unwrap();
    sim.vehicles_mut().position[row] = map.centre_of(Cell::new(6, 4));
    // A unit sent onto an immovable one: it gets close, never there.
    let boxed = sim
        .spawn(&UnitSpec::new(
            VehicleKind::Infantry,
            map.centre_of(Cell::new(10, 1)),
        ))
        .unwrap();
    let taken = map.centre_of(Cell::new(8, 5));
    let mut blocker = UnitSpec::new(VehicleKind::Infantry, taken);
    blocker.inv_mass = 0.0;
    blocker.shield = Vec3::new(5.0, 5.0, 1.0);
    sim.spawn(&blocker).unwrap();
    sim.order_move(walker, map.centre_of(Cell::new(3, 5)))
        .unwrap();
    sim.order_move(lost, map.centre_of(Cell::new(1, 1)))
        .unwrap();
    sim.order_move(boxed, map.centre_of(Cell::new(8, 5)))
        .unwrap();
    let seen = events_over(&mut sim, 60 * 40);
    let count = |event: Event| seen.iter().filter(|&&e| e == event).count();
    assert_eq!(count(Event::Arrived(walker)), 1, "{seen:?}");
    assert_eq!(count(Event::NoPath(lost)), 1, "{seen:?}");
    assert_eq!(count(Event::Stuck(boxed)), 1, "{seen:?}");
    assert_eq!(count(Event::Arrived(boxed)), 0, "{seen:?}");
    // Stopped where it stands, it has arrived and is stuck no more.
    sim.stop(&[boxed]).unwrap();
    let after = events_over(&mut sim, 1);
    assert_eq!(after, [Event::Unstuck(boxed), Event::Arrived(boxed)]);
    assert!(events_over(&mut sim, 60).is_empty());
}

#[test]
fn a_platoon_that_arrives_says_so_once() {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-500.0), Vec2::splat(500.0)));
    config.threads = 1;
    let mut sim = Sim::new(config).unwrap();
    let members: Vec<UnitId> = (0..4)
        .map(|k| {
            let spec = UnitSpec::new(VehicleKind::Tracked, Vec2::new(-12.0 * k as f32, 0.0));
            sim.spawn(&spec).unwrap()
        })
        .collect();
    let platoon = sim
        .create_platoon(&members, &PlatoonSpec::default())
        .unwrap();
    sim.order_platoon(platoon, Vec2::new(150.0, 40.0), None)
        .unwrap();
    let seen = events_over(&mut sim, 60 * 60);
    let arrivals = seen
        .iter()
        .filter(|&&event| event == Event::PlatoonArrived(platoon))
        .count();
    assert_eq!(arrivals, 1, "{seen:?}");
}

/// Ten tanks in a box against a wall (two ranks of five, the wall 10 m
/// behind), ordered as a column 300 m away: the slots of a column not yet
/// on the path lie behind its start, in the wall, and nobody waits for a
/// member to reach them; the column falls in as it goes and arrives within
/// twice the time its length and the distance take at a tank's speed.
#[test]
fn a_column_formed_from_a_box_against_a_wall_sets_off_and_arrives() {
    let mut rows = vec!["@".repeat(40)];
    rows.extend((1..60).map(|_| ".".repeat(40)));
    let map = Arc::new(
        WorldMap::new(
            &parse_map(&format!(
                "type octile\nheight 60\nwidth 40\nmap\n{}\n",
                rows.join("\n")
            ))
            .unwrap(),
            Mobility::GROUND,
            Vec2::ZERO,
            CELL_M,
        )
        .unwrap(),
    );
    let mut sim = sim_on(&map, 1, UnreachableGoals::MoveToNearest);
    let members: Vec<UnitId> = (0..10)
        .map(|k| {
            let at = Vec2::new(140.0 + 10.0 * (k % 5) as f32, 18.0 + 10.0 * (k / 5) as f32);
            let mut spec = UnitSpec::new(VehicleKind::Tracked, at);
            spec.heading = std::f32::consts::FRAC_PI_2;
            sim.spawn(&spec).unwrap()
        })
        .collect();
    let spec = PlatoonSpec::force21(convoy::Formation::Column);
    let platoon = sim.create_platoon(&members, &spec).unwrap();
    let goal = Vec2::new(160.0, 340.0);
    sim.order_platoon(platoon, goal, None).unwrap();
    let speed = UnitSpec::new(VehicleKind::Tracked, Vec2::ZERO).max_speed;
    let length = spec.spacing_m * 9.0;
    let limit = 2.0 * f64::from((goal.y - 18.0 + length) / speed);
    let mut arrived = None;
    for tick in 1..=(limit / f64::from(DT)) as u32 {
        sim.step(DT);
        if sim.platoon(platoon).unwrap().phase() == convoy::Phase::Arrived {
            arrived = Some(f64::from(tick) * f64::from(DT));
            break;
        }
    }
    assert!(
        arrived.is_some(),
        "the column has not arrived in {limit:.0} s"
    );
}
