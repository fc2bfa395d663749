//! On maps where every passable cell costs the same, an unbounded grid query
//! is answered by jump point search; a bounded query always expands cell by
//! cell. Property test on random uniform maps larger than the Dijkstra
//! oracle's: the jumping search finds a valid path of the plain search's
//! cost (itself checked against Dijkstra in
//! `grid_astar_agrees_with_a_plain_dijkstra_oracle`).

use convoy::nav::astar::F_QUANTUM;
use convoy::nav::{Cell, CostGrid, GridMap, GridPlanner, Mobility, Path, Terrain};
use proptest::prelude::*;

/// A random map of open and blocked cells, and an open-ground multiplier.
fn uniform_grid() -> impl Strategy<Value = CostGrid> {
    (
        4u32..=40,
        4u32..=40,
        prop_oneof![Just(1.0f32), Just(2.5f32)],
    )
        .prop_flat_map(|(width, height, multiplier)| {
            let cell = prop_oneof![3 => Just(Terrain::Open), 1 => Just(Terrain::Blocked)];
            proptest::collection::vec(cell, (width * height) as usize).prop_map(move |terrain| {
                let map = GridMap::new(width, height, terrain).expect("sizes match");
                let mobility = Mobility {
                    open: Some(multiplier),
                    ..Mobility::GROUND
                };
                CostGrid::new(&map, mobility).expect("multipliers are at least 1")
            })
        })
}

/// Every step allowed, and the cost the sum of the steps' costs.
fn check_valid(grid: &CostGrid, path: &Path, start: Cell, goal: Cell) -> Result<(), TestCaseError> {
    prop_assert_eq!(path.cells.first(), Some(&start));
    prop_assert_eq!(path.cells.last(), Some(&goal));
    let mut cost = 0.0;
    for w in path.cells.windows(2) {
        prop_assert!(
            grid.step_allowed(w[0], w[1]),
            "illegal step {:?} -> {:?}",
            w[0],
            w[1]
        );
        cost += grid.step_cost(w[0], w[1]).unwrap_or(f64::NAN);
    }
    prop_assert!(
        (cost - path.cost).abs() < 1e-9,
        "cost {} vs steps {}",
        path.cost,
        cost
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn jumping_costs_equal_cell_by_cell_costs(
        grid in uniform_grid(),
        ends in proptest::collection::vec((0u32..40, 0u32..40, 0u32..40, 0u32..40), 8),
    ) {
        let mut jumping = GridPlanner::new();
        let mut plain = GridPlanner::new();
        for (sx, sy, gx, gy) in ends {
            let start = Cell::new(sx % grid.width(), sy % grid.height());
            let goal = Cell::new(gx % grid.width(), gy % grid.height());
            let Ok(path) = jumping.find_path(&grid, start, goal) else {
                prop_assert!(!grid.connected(start, goal));
                continue;
            };
            // A limit no search reaches: plain A*, cell by cell.
            let reference = plain
                .find_path_bounded(&grid, start, goal, u32::MAX - 1)
                .expect("the unbounded search found a path");
            prop_assert!(reference.reached_goal);
            check_valid(&grid, &path, start, goal)?;
            let tolerance = F_QUANTUM + 1e-9 * reference.path.cost;
            prop_assert!(
                (path.cost - reference.path.cost).abs() <= tolerance,
                "{:?} -> {:?}: jumping {} vs plain {}",
                start,
                goal,
                path.cost,
                reference.path.cost
            );
        }
    }
}
