//! Paths at RTS order rates: a thousand tanks on arena2 ordered in one
//! tick to open cells anywhere on the map, with the `paths` stage's work
//! budget at 24,000 cells (`docs/profiles.md` sizes it), all have their
//! paths within 30 ticks (half a second at 60 Hz), and every route is
//! within HPA*'s stated bound of the optimal path plain grid A* finds
//! (`nav::hierarchy::COST_BOUND`).

#![allow(clippy::unwrap_used)]

mod arena2;

use arena2::{CELL_M, arena2, config_on};
use convoy::glam::Vec2;
use convoy::nav::hierarchy::COST_BOUND;
use convoy::nav::{Cell, GridPlanner, WorldMap};
use convoy::random::unit_f32;
use convoy::{MoveState, Sim, UnitId, UnitSpec, VehicleKind};

const ORDERS: u64 = 1000;
/// Cells of search work a tick: 20,000 (the default) takes 32 ticks.
const BUDGET: u64 = 24_000;

/// The centre of an open cell drawn from stream `stream`.
fn open_point(map: &WorldMap, stream: u64, draw: u64) -> Vec2 {
    let grid = map.grid();
    (0..)
        .map(|attempt| {
            let x = unit_f32(1, stream, draw * 64 + attempt) * grid.width() as f32;
            let y = unit_f32(1, stream + 1, draw * 64 + attempt) * grid.height() as f32;
            map.centre_of(Cell::new(x as u32, y as u32))
        })
        .find(|&point| map.is_open(point))
        .unwrap()
}

#[test]
fn a_thousand_orders_in_one_tick_are_planned_within_30_ticks_near_optimally() {
    let map = arena2();
    let mut config = config_on(&map);
    config.threads = 2;
    config.max_path_nodes_per_tick = BUDGET;
    let mut sim = Sim::new(config).unwrap();
    let units: Vec<UnitId> = (0..ORDERS)
        .map(|k| {
            let spec = UnitSpec::new(VehicleKind::Tracked, open_point(&map, 10, k));
            sim.spawn(&spec).unwrap()
        })
        .collect();
    let starts: Vec<Vec2> = units
        .iter()
        .map(|&unit| sim.vehicles().columns().position()[sim.vehicles().row_of(unit).unwrap()])
        .collect();
    let goals: Vec<Vec2> = (0..ORDERS)
        .map(|k| {
            sim.order_move(units[k as usize], open_point(&map, 20, k))
                .unwrap()
        })
        .collect();
    let ticks = (1..=30)
        .find(|_| {
            sim.step(1.0 / 60.0);
            sim.open_path_requests() == 0
        })
        .unwrap_or_else(|| {
            panic!(
                "{} orders still open after 30 ticks",
                sim.open_path_requests()
            )
        });

    let mut astar = GridPlanner::new();
    let columns = sim.vehicles().columns();
    for (k, &unit) in units.iter().enumerate() {
        assert_ne!(sim.move_state(unit).unwrap(), MoveState::WaitingForPath);
        let row = sim.vehicles().row_of(unit).unwrap();
        let len = columns.route_len()[row] as usize;
        let route = &sim.routes().of(columns.handle_slot()[row])[..len];
        let cell = |point: Vec2| map.cell_at(point).unwrap();
        let Ok(optimal) = astar.find_path(map.grid(), cell(starts[k]), cell(goals[k])) else {
            assert_eq!(
                sim.move_state(unit).unwrap(),
                MoveState::NoPath,
                "order {k}"
            );
            continue;
        };
        // A cut route (ROUTE_POINTS corners) is asked for again at its end:
        // it must lie within the bound as far as it goes.
        let travelled: f32 = std::iter::once(starts[k])
            .chain(route.iter().copied())
            .collect::<Vec<_>>()
            .windows(2)
            .map(|leg| leg[0].distance(leg[1]))
            .sum();
        // Routes start and end at points, the optimum at cell centres.
        let bound = COST_BOUND as f32 * optimal.length as f32 * CELL_M + 2.0 * CELL_M;
        assert!(
            travelled <= bound,
            "order {k}: a {travelled:.0} m route where the optimum is {:.0} m ({ticks} ticks)",
            optimal.length as f32 * CELL_M
        );
    }
}
