//! A warmed-up grid planner answers queries without touching the allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use convoy::nav::{CostGrid, GridPlanner, Mobility, Path, load_map, load_scen};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator unchanged; only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
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
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let again = run(&mut planner, &mut path);
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    assert_eq!(after - before, 0, "allocations during warm queries");
    assert_eq!(warm, again, "the warm run answers the same");
}
