//! A warmed-up grid planner answers queries without touching the allocator.

use convoy::nav::{CostGrid, GridPlanner, Mobility, Path, load_map, load_scen};

mod counting_allocator;
use counting_allocator::{CountingAllocator, allocations_during};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Run without libtest's harness: the counting allocator counts every
/// thread, and the harness's own threads may allocate at any moment.
fn main() {
    repeated_queries_on_a_warm_planner_allocate_nothing();
    println!("grid_astar_allocates_nothing_after_warm_up: ok");
}

fn repeated_queries_on_a_warm_planner_allocate_nothing() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/movingai");
    let map = load_map(format!("{dir}/arena2.map")).expect("arena2.map loads");
    let grid = CostGrid::new(&map, Mobility::GROUND).expect("ground mobility is valid");
    let scenarios = load_scen(format!("{dir}/arena2.map.scen")).expect("arena2 scen loads");
    let mut planner = GridPlanner::for_grid(&grid);
    let mut path = Path::default();
    let run = |planner: &mut GridPlanner, path: &mut Path| {
        let mut total = 0.0;
        for s in &scenarios {
            planner
                .find_path_into(&grid, s.start, s.goal, path)
                .expect("every arena2 scenario is solvable");
            total += path.cost;
            planner
                .find_path_bounded_into(&grid, s.start, s.goal, 50, path)
                .expect("every arena2 scenario is solvable");
        }
        total
    };
    let warm = run(&mut planner, &mut path);
    let (allocations, again) = allocations_during(|| run(&mut planner, &mut path));
    assert_eq!(allocations, 0, "allocations during warm queries");
    assert_eq!(warm, again, "the warm run answers the same");
}
