//! The `paths` stage on a map: move orders are planned with grid A*, units
//! follow the routes around walls, the bad-position check re-plans a unit
//! whose straight line is blocked, and serving is sliced across ticks by
//! the request cap and the node budget.

#[path = "../../kernel/tests/river/mod.rs"]
mod river;
mod walled;

use std::sync::Arc;

use convoy::data::vehicles::ARRIVE_RADIUS;
use convoy::glam::Vec2;
use convoy::nav::{Cell, GridMap, GridPlanner, Mobility, Terrain, WorldMap};
use convoy::{Sim, SimConfig, UnitId, UnitSpec, VehicleKind};
use river::{inside_an_obstacle, on_bridge, river};
use walled::walled_map;

const DT: f32 = 1.0 / 30.0;
const CELL: f32 = 4.0;

fn sim_on(map: &GridMap, threads: usize) -> Sim {
    let world = WorldMap::new(map, Mobility::GROUND, Vec2::ZERO, CELL).expect("valid");
    let mut config = SimConfig::new(world.bounds());
    config.threads = threads;
    config.map = convoy::Map::Grid(Arc::new(world));
    config.separation_iterations = 0;
    Sim::new(config).expect("valid config")
}

fn at(x: u32, y: u32) -> Vec2 {
    (Vec2::new(x as f32, y as f32) + 0.5) * CELL
}

fn tank(sim: &mut Sim, position: Vec2, goal: Vec2) -> UnitId {
    let mut spec = UnitSpec::new(VehicleKind::Tracked, position);
    spec.goal = goal;
    sim.spawn(&spec).expect("valid spec")
}

/// Runs until every unit is within the arrival radius of its goal, checking
/// that no unit's centre is ever on a blocked cell.
fn run_to_goals(sim: &mut Sim, map: &GridMap, ticks: usize) -> usize {
    for tick in 0..ticks {
        sim.step(DT);
        let columns = sim.vehicles().columns();
        for (row, position) in columns.position().iter().enumerate() {
            let cell = Cell::new((position.x / CELL) as u32, (position.y / CELL) as u32);
            assert_ne!(
                map.terrain(cell),
                Some(Terrain::Blocked),
                "row {row} drove into the wall at {position} (tick {tick})"
            );
        }
        let arrived = columns
            .position()
            .iter()
            .zip(columns.goal())
            .all(|(position, goal)| position.distance(*goal) <= ARRIVE_RADIUS);
        if arrived {
            return tick;
        }
    }
    let columns = sim.vehicles().columns();
    let states: Vec<String> = (0..sim.vehicles().len())
        .map(|row| {
            format!(
                "row {row} at {} goal {} drive_to {} route {}/{}",
                columns.position()[row],
                columns.goal()[row],
                columns.drive_to()[row],
                columns.route_next()[row],
                columns.route_len()[row]
            )
        })
        .collect();
    panic!("units did not all arrive within {ticks} ticks: {states:#?}");
}

#[test]
fn ordered_units_go_round_the_wall_through_the_gap() {
    let map = walled_map();
    let mut sim = sim_on(&map, 2);
    let orders = [
        (at(5, 5), at(35, 5)),
        (at(10, 20), at(30, 2)),
        (at(3, 25), at(38, 15)),
    ];
    for (start, goal) in orders {
        let unit = tank(&mut sim, start, start);
        sim.order_move(unit, goal).expect("goal on the map");
    }
    run_to_goals(&mut sim, &map, 6000);
}

#[test]
fn a_route_is_string_pulled_and_no_longer_than_the_grid_path_allows() {
    let map = walled_map();
    let mut sim = sim_on(&map, 1);
    let (start, goal) = (at(5, 5), at(35, 5));
    let unit = tank(&mut sim, start, start);
    sim.order_move(unit, goal).expect("goal on the map");
    sim.step(DT);
    let row = sim.vehicles().row_of(unit).expect("alive");
    let columns = sim.vehicles().columns();
    let len = columns.route_len()[row] as usize;
    assert!(len >= 2, "a route round the wall has corners, got {len}");
    let slot = columns.handle_slot()[row];
    let route = &sim.routes().of(slot)[..len];
    assert_eq!(route[len - 1], goal);
    // Oracle: the octile length of the A* cell path bounds the polyline's
    // length from above (corners cut diagonals, never add to them).
    let world = WorldMap::new(&map, Mobility::GROUND, Vec2::ZERO, CELL).expect("valid");
    let cells = GridPlanner::new()
        .find_path(world.grid(), Cell::new(5, 5), Cell::new(35, 5))
        .expect("reachable");
    let mut polyline = 0.0;
    let mut from = start;
    for &corner in route {
        assert!(
            world.line_is_clear(from, corner),
            "leg {from} to {corner} is blocked"
        );
        polyline += from.distance(corner);
        from = corner;
    }
    let bound = cells.length as f32 * CELL + CELL;
    assert!(polyline <= bound, "route {polyline} m, grid path {bound} m");
    // And it is no shorter than the straight line through the gap.
    let through_gap = start.distance(at(20, 27)) + at(20, 27).distance(goal);
    assert!(
        polyline >= through_gap - 2.0 * CELL,
        "{polyline} < {through_gap}"
    );
}

#[test]
fn a_unit_given_a_goal_behind_a_wall_without_an_order_gets_a_path_from_the_check() {
    let map = walled_map();
    let mut sim = sim_on(&map, 1);
    // No order: the goal is set at spawn, so only the bad-position check
    // can give this unit a route.
    let unit = tank(&mut sim, at(5, 5), at(35, 5));
    assert_eq!(sim.open_path_requests(), 0);
    let mut requested = false;
    for _ in 0..40 {
        sim.step(DT);
        let row = sim.vehicles().row_of(unit).expect("alive");
        requested |= sim.vehicles().columns().route_len()[row] > 0;
    }
    assert!(requested, "the bad-position check never asked for a path");
    run_to_goals(&mut sim, &map, 6000);
}

/// A simulation of `orders` tanks on the walled map, each ordered across
/// it, with the given request cap and work budget.
fn ordered_sim(map: &GridMap, orders: u32, cap: usize, budget: u64, threads: usize) -> Sim {
    let world = WorldMap::new(map, Mobility::GROUND, Vec2::ZERO, CELL).expect("valid");
    let mut config = SimConfig::new(world.bounds());
    config.threads = threads;
    config.map = convoy::Map::Grid(Arc::new(world));
    config.max_path_requests_per_tick = cap;
    config.max_path_nodes_per_tick = budget;
    let mut sim = Sim::new(config).expect("valid config");
    for index in 0..orders {
        // Ten abreast, west of the wall at x = 20 (a unit may not start on it).
        let start = at(2 + index % 10, 2 + index / 10);
        let unit = tank(&mut sim, start, start);
        sim.order_move(unit, at(35, 20)).expect("on the map");
    }
    sim
}

/// The `paths` stage's counters over the run so far.
fn paths_counters(sim: &Sim) -> std::collections::BTreeMap<String, f64> {
    let (stages, _) = sim.report();
    let paths = stages.into_iter().find(|stage| stage.name == "paths");
    paths.expect("a paths stage").counters
}

#[test]
fn serving_is_sliced_by_the_request_cap() {
    let map = walled_map();
    let mut sim = ordered_sim(&map, 12, 3, u64::MAX, 1);
    let mut waiting = vec![sim.open_path_requests()];
    while sim.open_path_requests() > 0 {
        sim.step(DT);
        waiting.push(sim.open_path_requests());
    }
    // Three requests a tick: 12, 9, 6, 3, 0.
    assert_eq!(waiting, vec![12, 9, 6, 3, 0]);
}

#[test]
fn a_tight_work_budget_suspends_searches_and_never_overspends() {
    let map = walled_map();
    for budget in [1, 7, 60, 333] {
        let mut sim = ordered_sim(&map, 12, usize::MAX, budget, 2);
        let mut ticks = 0;
        while sim.open_path_requests() > 0 {
            sim.step(DT);
            ticks += 1;
            assert!(ticks < 20_000, "budget {budget}: requests still open");
            // Every tick, not just on average.
            let counters = paths_counters(&sim);
            assert!(
                counters["max_work_cells"] <= budget as f64,
                "budget {budget}: a tick did {} cells of work",
                counters["max_work_cells"]
            );
        }
        let counters = paths_counters(&sim);
        // Every order and every request the unit checks queued was served.
        let requests = 12.0 + counters["requested"];
        assert_eq!(
            counters["served"], requests,
            "budget {budget}: {counters:?}"
        );
        assert_eq!(counters["dropped"], 0.0, "budget {budget}");
        let batch = convoy::stages::paths::BATCH as f64;
        assert_eq!(
            counters["in_flight"], batch,
            "budget {budget}: slots all busy"
        );
        // The budget binds: the searches needed many ticks.
        assert!(
            ticks as u64 * budget >= 12,
            "budget {budget}: {ticks} ticks"
        );
        // Each unit has a route, or one that was pushed off its route was
        // given the straight line to its goal by a new search.
        let world = sim.config().map.grid().expect("a grid map");
        let columns = sim.vehicles().columns();
        for row in 0..sim.vehicles().len() {
            let straight = world.segment_is_clear(columns.position()[row], columns.goal()[row]);
            assert!(
                columns.route_len()[row] > 0 || straight,
                "budget {budget}: row {row} got no route"
            );
        }
    }
}

/// The arena2 profile (80 platoons on the grid map, re-ordered every 10 s) with
/// budgets below one platoon query's work (about 600 cells by HPA*, 7,700 by
/// grid A*): no tick's
/// planning ever does more work than the budget, searches are carried
/// over, and every platoon still gets its routes.
#[test]
fn arena2_planning_never_exceeds_its_work_budget() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/arena2.toml");
    for budget in [97, 499] {
        let mut profile =
            convoy_scenarios::Profile::load(std::path::Path::new(file)).expect("loads");
        profile.scenario.units = 400;
        // Orders anywhere on the map: long searches.
        profile.platoons.order_range_m = 0.0;
        profile.paths.max_expanded_nodes_per_tick = budget;
        let mut sim = convoy_scenarios::build(&profile, 2).expect("builds");
        let mut orders = convoy_scenarios::Orders::new(&profile, &sim);
        let mut carried_over = 0;
        for _ in 0..700 {
            orders.before_step(&mut sim).expect("valid orders");
            sim.step(profile.run.dt);
            carried_over += usize::from(sim.path_searches_in_flight() > 0);
        }
        let counters = paths_counters(&sim);
        assert!(
            counters["max_work_cells"] <= budget as f64,
            "budget {budget}: a tick did {} cells of work",
            counters["max_work_cells"]
        );
        // The budget binds and searches run over several ticks.
        assert!(
            counters["max_work_cells"] >= budget as f64 * 0.99,
            "{counters:?}"
        );
        assert!(carried_over > 100, "budget {budget}: {carried_over} ticks");
        // Searches end, even at 97 cells a tick.
        assert!(counters["served"] >= 60.0, "budget {budget}: {counters:?}");
    }
}

#[test]
fn sliced_runs_are_identical_on_one_and_two_threads_and_drop_despawned_requesters() {
    let map = walled_map();
    let checksums = |threads: usize| {
        let mut sim = ordered_sim(&map, 20, usize::MAX, 90, threads);
        let first = sim.vehicles().id_at(0).expect("a unit");
        let sums: Vec<u64> = (0..400)
            .map(|tick| {
                if tick == 3 {
                    // Its search is in flight: it is dropped, not served.
                    sim.despawn(first).expect("alive");
                }
                sim.step(DT);
                sim.checksum()
            })
            .collect();
        let counters = paths_counters(&sim);
        assert_eq!(sim.open_path_requests(), 0);
        assert_eq!(counters["dropped"], 1.0, "{counters:?}");
        assert_eq!(counters["served"], 19.0 + counters["requested"]);
        sums
    };
    assert_eq!(checksums(1), checksums(2));
}

#[test]
fn orders_off_the_map_are_refused_and_nothing_is_queued() {
    let map = walled_map();
    let mut sim = sim_on(&map, 1);
    let unit = tank(&mut sim, at(1, 1), at(1, 1));
    let error = sim
        .order_move(unit, Vec2::new(-5.0, 10.0))
        .expect_err("off the map");
    assert!(error.to_string().contains("off the map"), "{error}");
    assert_eq!(sim.open_path_requests(), 0);
}

/// A movable ground unit may not start in the wall or off the map (walls
/// stop only units on open ground, so it would drive through them); the
/// refusal names the position and spawns nothing. Immovable units (a
/// building placed as a unit) and flying ones may stand there.
#[test]
fn ground_units_may_not_start_on_blocked_cells() {
    let map = walled_map();
    let mut sim = sim_on(&map, 1);
    for (kind, position) in [
        (VehicleKind::Tracked, at(20, 5)),
        (VehicleKind::Wheeled, at(3, 10)),
        (VehicleKind::Infantry, Vec2::new(-5.0, 10.0)),
    ] {
        let error = sim
            .spawn(&UnitSpec::new(kind, position))
            .expect_err("blocked");
        let named = format!("({}, {})", position.x, position.y);
        assert!(
            error.to_string().contains(&named) && error.to_string().contains("open ground"),
            "{error}"
        );
        assert_eq!(sim.vehicles().len(), 0, "nothing spawned");
    }
    let mut building = UnitSpec::new(VehicleKind::Tracked, at(20, 5));
    building.inv_mass = 0.0;
    sim.spawn(&building)
        .expect("an immovable unit may stand in the wall");
    sim.spawn(&UnitSpec::new(VehicleKind::RotaryWing, at(20, 6)))
        .expect("a helicopter may hover over it");
    sim.spawn(&UnitSpec::new(VehicleKind::Tracked, at(19, 5)))
        .expect("open ground beside it");
    assert_eq!(sim.vehicles().len(), 3);
}

#[test]
fn planned_runs_are_identical_on_one_and_two_threads() {
    let map = walled_map();
    let checksums = |threads: usize| {
        let mut sim = sim_on(&map, threads);
        for index in 0..30u32 {
            let start = at(1 + index % 15, 1 + index / 15);
            let unit = tank(&mut sim, start, start);
            sim.order_move(unit, at(25 + index % 10, 3 + index / 2))
                .expect("on the map");
        }
        (0..300)
            .map(|_| {
                sim.step(DT);
                sim.checksum()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(checksums(1), checksums(2));
}

fn river_sim(
    map: &convoy::nav::polygon::PolygonMap,
    nav: &Arc<convoy::nav::PolygonNavigator>,
    threads: usize,
) -> (Sim, Vec<UnitId>) {
    let mut config = SimConfig::new(convoy::Bounds::new(Vec2::splat(-50.0), Vec2::splat(1050.0)));
    config.threads = threads;
    config.map = convoy::Map::Polygon {
        navigator: Arc::clone(nav),
        raster: Arc::new(convoy::nav::polygon::rasterize(map, 5.0).expect("valid cell size")),
    };
    config.separation_iterations = 0;
    let mut sim = Sim::new(config).expect("valid config");
    let units = (0..4)
        .map(|lane| {
            let start = Vec2::new(120.0, 550.0 + 40.0 * lane as f32);
            let unit = tank(&mut sim, start, start);
            sim.order_move(unit, Vec2::new(850.0, 300.0 + 40.0 * lane as f32))
                .expect("finite goal");
            unit
        })
        .collect();
    (sim, units)
}

#[test]
fn on_a_polygon_map_units_cross_the_river_without_entering_it() {
    let (map, nav) = river();
    let (mut sim, units) = river_sim(&map, &nav, 2);
    let mut crossed_on_bridge = false;
    let mut arrived = false;
    for tick in 0..12_000 {
        sim.step(DT);
        let columns = sim.vehicles().columns();
        for (row, &position) in columns.position().iter().enumerate() {
            crossed_on_bridge |= on_bridge(&map, position);
            assert!(
                !inside_an_obstacle(&map, position),
                "row {row} is inside an obstacle at {position} (tick {tick})"
            );
        }
        arrived = columns
            .position()
            .iter()
            .zip(columns.goal())
            .all(|(position, goal)| position.distance(*goal) <= ARRIVE_RADIUS);
        if arrived {
            break;
        }
    }
    assert!(arrived, "not every unit crossed the river");
    assert!(crossed_on_bridge, "nobody used the bridge");
    // Every unit was given a route by the visibility graph.
    let (stages, _) = sim.report();
    let paths = stages
        .iter()
        .find(|stage| stage.name == "paths")
        .expect("a paths stage");
    assert!(paths.counters["served"] >= units.len() as f64);
    assert_eq!(paths.counters["unreachable"], 0.0);
}

#[test]
fn polygon_planned_runs_are_identical_on_one_and_two_threads() {
    let (map, nav) = river();
    let checksums = |threads: usize| {
        let (mut sim, _) = river_sim(&map, &nav, threads);
        (0..400)
            .map(|_| {
                sim.step(DT);
                sim.checksum()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(checksums(1), checksums(2));
}

/// More units than one chunk of rows (2,048), so the route-following pass
/// runs in several chunks on several threads: same checksums on 1 and 2.
#[test]
fn thousands_of_planned_units_follow_routes_in_parallel_chunks_identically() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/arena2.toml");
    let mut profile = convoy_scenarios::Profile::load(std::path::Path::new(file)).expect("loads");
    profile.scenario.units = 9000;
    profile.platoons.size = 0;
    let checksums = |threads: usize| {
        let mut sim = convoy_scenarios::build(&profile, threads).expect("builds");
        (0..40)
            .map(|_| {
                sim.step(profile.run.dt);
                sim.checksum()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(checksums(1), checksums(2));
}
