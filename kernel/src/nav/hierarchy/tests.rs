#![allow(clippy::unwrap_used)]

use super::*;
use crate::nav::astar::{GridPlanner, Path};
use crate::nav::grid::{Cell, GridMap, Mobility, Terrain};

fn grid(rows: &[String]) -> CostGrid {
    let terrain = rows
        .iter()
        .flat_map(|row| row.bytes().map(|c| Terrain::from_movingai(c).unwrap()))
        .collect();
    let map = GridMap::new(rows[0].len() as u32, rows.len() as u32, terrain).unwrap();
    CostGrid::new(&map, Mobility::GROUND).unwrap()
}

fn open(width: usize, height: usize) -> CostGrid {
    grid(&vec![".".repeat(width); height])
}

#[test]
fn a_short_entrance_gets_one_transition_and_a_wide_one_two() {
    // Two 4×4 clusters side by side, their border open on three rows: one
    // transition, a node on each side.
    let rows = ["........", "........", "........", "...@...."].map(String::from);
    let hierarchy = Hierarchy::new(&grid(&rows), 4).unwrap();
    assert_eq!(hierarchy.node_count(), 2);
    assert_eq!(hierarchy.edge_count(), 2, "one inter-edge each way");
    // Two 8×8 clusters, their border open on all eight rows: a transition
    // at each end, four nodes; per node one inter-edge and one intra-edge.
    let hierarchy = Hierarchy::new(&open(16, 8), 8).unwrap();
    assert_eq!(hierarchy.node_count(), 4);
    assert_eq!(hierarchy.edge_count(), 8);
}

#[test]
fn intra_edges_cost_the_cheapest_path_inside_the_cluster() {
    let grid = open(16, 8);
    let hierarchy = Hierarchy::new(&grid, 8).unwrap();
    let mut astar = GridPlanner::new();
    for node in 0..hierarchy.node_count() as u32 {
        for edge in hierarchy.edges_of(node) {
            let (a, b) = (
                grid.cell(hierarchy.cells[node as usize] as usize),
                grid.cell(hierarchy.cells[edge.to as usize] as usize),
            );
            // An open cluster: the cheapest path inside it is the optimum.
            let optimal = astar.find_path(&grid, a, b).unwrap().cost;
            assert!((edge.cost - optimal).abs() < 1e-9, "{a:?} -> {b:?}");
        }
    }
}

#[test]
fn a_cluster_size_out_of_range_is_refused() {
    let grid = open(4, 1);
    assert_eq!(
        Hierarchy::new(&grid, 3).unwrap_err(),
        HierarchyError::ClusterSize { value: 3 }
    );
    assert!(Hierarchy::new(&grid, MAX_CLUSTER_SIZE + 1).is_err());
}

#[test]
fn a_far_query_on_an_open_grid_is_optimal() {
    let open = open(64, 64);
    let hierarchy = Hierarchy::new(&open, 8).unwrap();
    let mut planner = HierarchicalPlanner::new();
    let mut path = Path::default();
    let ends = (Cell::new(1, 2), Cell::new(60, 50));
    planner
        .find_path_into(&hierarchy, &open, ends, &mut path)
        .unwrap();
    assert!(!planner.searched_directly());
    let optimal = GridPlanner::new().find_path(&open, ends.0, ends.1).unwrap();
    // Smoothing straightens every detour on open ground.
    assert!(
        (path.cost - optimal.cost).abs() < 1e-9,
        "{} vs {}",
        path.cost,
        optimal.cost
    );
    assert_eq!(path.cells.first(), Some(&ends.0));
    assert_eq!(path.cells.last(), Some(&ends.1));
}

#[test]
fn a_hierarchy_of_another_grid_is_not_used() {
    let hierarchy = Hierarchy::new(&open(64, 64), 8).unwrap();
    let other = open(80, 64);
    let mut planner = HierarchicalPlanner::new();
    let ends = (Cell::new(1, 2), Cell::new(70, 50));
    let mut path = Path::default();
    planner
        .find_path_into(&hierarchy, &other, ends, &mut path)
        .unwrap();
    assert!(planner.searched_directly());
    assert_eq!(path.cells.last(), Some(&ends.1));
}
