#![allow(clippy::unwrap_used)]
use proptest::prelude::*;

use super::*;
use crate::nav::astar::GridPlanner;
use crate::nav::grid::{GridMap, Mobility, Terrain};
use crate::nav::movingai::{load_map, load_scen};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/movingai");

/// Checks that `path` is a walk of allowed steps from `start` to `goal`
/// whose summed step costs equal its stated cost.
fn assert_walk(grid: &CostGrid, path: &Path, start: Cell, goal: Cell) {
    assert_eq!(path.cells.first(), Some(&start));
    assert_eq!(path.cells.last(), Some(&goal));
    let mut cost = 0.0;
    for pair in path.cells.windows(2) {
        cost += grid
            .step_cost(pair[0], pair[1])
            .unwrap_or_else(|| panic!("step {:?} → {:?} is not allowed", pair[0], pair[1]));
    }
    assert!(
        (cost - path.cost).abs() < 1e-9,
        "steps sum to {cost}, the field says {}",
        path.cost
    );
}

#[test]
fn every_start_gets_the_optimal_length_of_the_moving_ai_scenarios() {
    let map = load_map(format!("{DATA}/arena2.map")).unwrap();
    let grid = CostGrid::new(&map, Mobility::GROUND).unwrap();
    let scenarios = load_scen(format!("{DATA}/arena2.map.scen")).unwrap();
    let mut field = FlowField::new();
    let mut path = Path::default();
    // Scenarios sharing a goal share one field; take every 7th goal.
    for scenario in scenarios.iter().step_by(7) {
        let starts = [scenario.start];
        assert_eq!(field.plan(&grid, scenario.goal, &starts).unwrap(), 1);
        assert!(field.path_into(&grid, scenario.start, &mut path));
        assert!(
            scenario.matches(path.length),
            "line {}: {} against the optimal {}",
            scenario.line,
            path.length,
            scenario.optimal_length
        );
        assert_walk(&grid, &path, scenario.start, scenario.goal);
    }
}

#[test]
fn one_field_serves_many_starts_and_stops_once_they_are_settled() {
    let map = load_map(format!("{DATA}/arena2.map")).unwrap();
    let grid = CostGrid::new(&map, Mobility::GROUND).unwrap();
    let scenarios = load_scen(format!("{DATA}/arena2.map.scen")).unwrap();
    let goal = scenarios[40].goal;
    let starts: Vec<Cell> = scenarios.iter().take(60).map(|s| s.start).collect();
    let mut field = FlowField::new();
    let reached = field.plan(&grid, goal, &starts).unwrap();
    let mut astar = GridPlanner::new();
    let mut path = Path::default();
    let mut connected = 0;
    for &start in &starts {
        match astar.find_path(&grid, start, goal) {
            Ok(optimal) => {
                connected += 1;
                assert!(field.path_into(&grid, start, &mut path));
                assert!((path.cost - optimal.cost).abs() < 1e-6);
                assert_walk(&grid, &path, start, goal);
            }
            Err(_) => assert!(!field.path_into(&grid, start, &mut path)),
        }
    }
    assert_eq!(reached, connected);
    assert!(
        (field.settled() as usize) < grid.cell_count(),
        "the field stops before flooding the map"
    );
}

#[test]
fn a_blocked_or_off_map_goal_is_refused() {
    let grid = CostGrid::new(&small(&["..@", "...", "..."]), Mobility::GROUND).unwrap();
    let mut field = FlowField::new();
    assert!(matches!(
        field.plan(&grid, Cell::new(2, 0), &[Cell::new(0, 0)]),
        Err(PathError::Blocked { .. })
    ));
    assert!(matches!(
        field.plan(&grid, Cell::new(3, 0), &[Cell::new(0, 0)]),
        Err(PathError::OffMap { .. })
    ));
}

fn small(rows: &[&str]) -> GridMap {
    let terrain = rows
        .iter()
        .flat_map(|row| row.bytes().map(|c| Terrain::from_movingai(c).unwrap()))
        .collect();
    GridMap::new(rows[0].len() as u32, rows.len() as u32, terrain).unwrap()
}

fn terrain_grid() -> impl Strategy<Value = (u32, u32, Vec<Terrain>)> {
    (2u32..14, 2u32..14).prop_flat_map(|(w, h)| {
        let cell = prop_oneof![
            6 => Just(Terrain::Open),
            2 => Just(Terrain::Swamp),
            2 => Just(Terrain::Blocked),
        ];
        (
            Just(w),
            Just(h),
            prop::collection::vec(cell, (w * h) as usize),
        )
    })
}

proptest! {
    /// Against plain A* on random grids with swamp: the same cells are
    /// reachable and every path costs the optimum.
    #[test]
    fn costs_equal_plain_a_star((w, h, terrain) in terrain_grid(), goal in any::<u32>()) {
        let grid = CostGrid::new(&GridMap::new(w, h, terrain).unwrap(), Mobility::GROUND).unwrap();
        let goal = Cell::new(goal % w, (goal / w) % h);
        let starts: Vec<Cell> = (0..h).flat_map(|y| (0..w).map(move |x| Cell::new(x, y))).collect();
        let mut field = FlowField::new();
        let Ok(_) = field.plan(&grid, goal, &starts) else {
            prop_assert!(!grid.passable(goal));
            return Ok(());
        };
        let mut astar = GridPlanner::new();
        let mut path = Path::default();
        for &start in &starts {
            match astar.find_path(&grid, start, goal) {
                Ok(optimal) => {
                    prop_assert!(field.path_into(&grid, start, &mut path));
                    prop_assert!((path.cost - optimal.cost).abs() < 1e-6);
                    assert_walk(&grid, &path, start, goal);
                }
                Err(_) => prop_assert!(!field.path_into(&grid, start, &mut path)),
            }
        }
    }
}
