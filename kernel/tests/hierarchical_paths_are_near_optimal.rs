//! HPA* paths on real maps and random grids: valid steps, the same
//! reachability as grid A*, and a cost within the hierarchy's stated bound
//! of the optimum.

use std::path::PathBuf;

use convoy::nav::hierarchy::{COST_BOUND, RANDOM_COST_BOUND};
use convoy::nav::{
    Cell, CostGrid, GridMap, GridPlanner, HierarchicalPlanner, Hierarchy, Mobility, Path, Progress,
    Terrain, check_scenarios, load_map, load_scen,
};
use proptest::prelude::*;

fn data_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/movingai"
    ))
}

/// Panics unless `path` runs from `start` to `goal` by allowed steps (on
/// passable cells, adjacent, no corner cut) and its cost is theirs.
fn assert_valid(grid: &CostGrid, path: &Path, (start, goal): (Cell, Cell), what: &str) {
    assert_eq!(path.cells.first(), Some(&start), "{what}: starts elsewhere");
    assert_eq!(path.cells.last(), Some(&goal), "{what}: ends elsewhere");
    let mut cost = 0.0;
    for pair in path.cells.windows(2) {
        cost += grid
            .step_cost(pair[0], pair[1])
            .unwrap_or_else(|| panic!("{what}: illegal step {:?} -> {:?}", pair[0], pair[1]));
    }
    assert!(
        (cost - path.cost).abs() < 1e-9,
        "{what}: cost {cost} vs {}",
        path.cost
    );
}

#[test]
fn every_scenario_of_three_movingai_maps_is_within_the_bound_of_optimal() {
    let mut planner = HierarchicalPlanner::new();
    let mut astar = GridPlanner::new();
    let mut path = Path::default();
    for name in ["arena2", "64room_000", "Berlin_0_256"] {
        let map_file = data_dir().join(format!("{name}.map"));
        let map = load_map(&map_file).unwrap_or_else(|e| panic!("{e}"));
        let grid = CostGrid::new(&map, Mobility::GROUND).expect("ground mobility is valid");
        let scenarios =
            load_scen(map_file.with_extension("map.scen")).unwrap_or_else(|e| panic!("{e}"));
        check_scenarios(&scenarios, &grid).unwrap_or_else(|e| panic!("{name}: {e}"));
        let hierarchy = Hierarchy::build(&grid);
        let (mut worst, mut sum, mut far, mut work, mut direct_work) = (1.0f64, 0.0, 0, 0u64, 0u64);
        for s in &scenarios {
            let what = format!("{name} line {}", s.line);
            let optimal = astar.find_path(&grid, s.start, s.goal).expect("solvable");
            planner
                .find_path_into(&hierarchy, &grid, (s.start, s.goal), &mut path)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_valid(&grid, &path, (s.start, s.goal), &what);
            let ratio = path.cost / optimal.cost.max(f64::MIN_POSITIVE);
            assert!(
                path.cost <= optimal.cost * COST_BOUND + 1e-9,
                "{what}: cost {} is {ratio:.3}× the optimum {}",
                path.cost,
                optimal.cost
            );
            direct_work += u64::from(astar.work());
            if !planner.searched_directly() {
                work += u64::from(planner.work());
                worst = worst.max(ratio);
                sum += ratio;
                far += 1;
            }
        }
        assert!(
            far > 0,
            "{name}: some scenarios are searched hierarchically"
        );
        eprintln!(
            "{name}: {} scenarios, {far} hierarchical: worst {worst:.4}, mean {:.4}; work {} vs A* {}; {} nodes, {} edges, {} KiB",
            scenarios.len(),
            sum / f64::from(far),
            work / far as u64,
            direct_work / scenarios.len() as u64,
            hierarchy.node_count(),
            hierarchy.edge_count(),
            hierarchy.heap_bytes() / 1024
        );
    }
}

/// A random grid: `bits` says which cells are walls (one in four) and
/// swamps (one in eight).
fn random_grid(width: u32, height: u32, bits: &[u8]) -> CostGrid {
    let terrain = bits
        .iter()
        .map(|&b| match b % 8 {
            0 | 1 => Terrain::Blocked,
            2 => Terrain::Swamp,
            _ => Terrain::Open,
        })
        .collect();
    let map = GridMap::new(width, height, terrain).expect("sized");
    CostGrid::new(&map, Mobility::GROUND).expect("ground mobility is valid")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_grids_agree_with_plain_astar_within_the_bound(
        (width, height, bits) in (20u32..48, 20u32..48).prop_flat_map(|(w, h)| {
            (Just(w), Just(h), proptest::collection::vec(any::<u8>(), (w * h) as usize))
        }),
        ends in proptest::collection::vec((0u32..48, 0u32..48, 0u32..48, 0u32..48), 16),
    ) {
        let grid = random_grid(width, height, &bits);
        let hierarchy = Hierarchy::new(&grid, 4).expect("a valid cluster size");
        let mut planner = HierarchicalPlanner::new();
        let mut astar = GridPlanner::new();
        let mut path = Path::default();
        for &(sx, sy, gx, gy) in &ends {
            let ends = (Cell::new(sx % width, sy % height), Cell::new(gx % width, gy % height));
            let optimal = astar.find_path(&grid, ends.0, ends.1);
            let found = planner.find_path_into(&hierarchy, &grid, ends, &mut path);
            match (optimal, found) {
                (Ok(optimal), Ok(())) => {
                    assert_valid(&grid, &path, ends, "random grid");
                    prop_assert!(path.cost >= optimal.cost - 1e-9, "below the optimum");
                    prop_assert!(
                        path.cost <= optimal.cost * RANDOM_COST_BOUND + 1e-9,
                        "{ends:?}: {} vs optimum {}", path.cost, optimal.cost
                    );
                }
                (Err(a), Err(b)) => prop_assert_eq!(a, b),
                (a, b) => prop_assert!(false, "{ends:?}: A* {a:?}, HPA* {b:?}"),
            }
        }
    }
}

#[test]
fn a_query_resumed_in_pieces_ends_as_one_run_at_once() {
    let map = load_map(data_dir().join("arena2.map")).unwrap_or_else(|e| panic!("{e}"));
    let grid = CostGrid::new(&map, Mobility::GROUND).expect("ground mobility is valid");
    let hierarchy = Hierarchy::build(&grid);
    let scenarios = load_scen(data_dir().join("arena2.map.scen")).unwrap_or_else(|e| panic!("{e}"));
    let (mut at_once, mut in_pieces) = (HierarchicalPlanner::new(), HierarchicalPlanner::new());
    let (mut whole, mut pieces) = (Path::default(), Path::default());
    let mut hierarchical = 0;
    for s in scenarios.iter().step_by(9) {
        at_once
            .find_path_into(&hierarchy, &grid, (s.start, s.goal), &mut whole)
            .expect("solvable");
        in_pieces
            .begin(&hierarchy, &grid, s.start, s.goal)
            .expect("solvable");
        let mut calls = 0;
        let progress = loop {
            let before = in_pieces.work();
            let progress = in_pieces.resume(&hierarchy, &grid, 37, &mut pieces);
            assert!(
                in_pieces.work() - before <= 37,
                "line {}: a call overspent",
                s.line
            );
            calls += 1;
            if progress != Progress::Suspended {
                break progress;
            }
        };
        assert_eq!(progress, Progress::Done { reached_goal: true });
        assert_eq!(pieces, whole, "line {}", s.line);
        assert_eq!(in_pieces.work(), at_once.work(), "line {}", s.line);
        assert!(calls >= at_once.work().div_ceil(37), "line {}", s.line);
        hierarchical += usize::from(!at_once.searched_directly());
    }
    assert!(hierarchical > 50, "{hierarchical} hierarchical queries");
}
