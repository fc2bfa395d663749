//! A warmed-up visibility-graph search context answers queries (exact and
//! heuristic insertion, A* and Dijkstra) without touching the allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use convoy::glam::Vec2;
use convoy::nav::polygon::load_mesh;
use convoy::nav::visgraph::{
    FactionId, GraphConfig, PolygonNavigator, QueryOptions, SearchAlgorithm, StartInsertion,
    VisSearch,
};

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
fn repeated_queries_on_a_warm_context_allocate_nothing() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/movingai/mesh/arena.mesh"
    );
    let map = load_mesh(path).expect("arena.mesh loads");
    let nav = PolygonNavigator::build(&map, GraphConfig::default(), 1).expect("builds");
    let points: Vec<Vec2> = (0..40)
        .map(|i| Vec2::new(2.5 + (i * 7 % 44) as f32, 2.5 + (i * 13 % 44) as f32))
        .collect();
    let mut search = VisSearch::new(&nav);
    let mut out = Vec::new();
    let modes = [
        (SearchAlgorithm::AStar, StartInsertion::Exact),
        (SearchAlgorithm::Dijkstra, StartInsertion::Exact),
        (SearchAlgorithm::AStar, StartInsertion::FirstLastHit),
    ];
    let run = |search: &mut VisSearch, out: &mut Vec<Vec2>| {
        let mut total = 0.0;
        for (algorithm, insertion) in modes {
            for pair in points.windows(2) {
                let options = QueryOptions {
                    algorithm,
                    insertion,
                };
                if let Ok(cost) = nav.find_path_with(
                    pair[0].as_dvec2(),
                    pair[1].as_dvec2(),
                    FactionId(0),
                    options,
                    search,
                    out,
                ) {
                    total += cost.cost;
                }
            }
        }
        total
    };
    let warm = run(&mut search, &mut out);
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let again = run(&mut search, &mut out);
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    assert_eq!(after - before, 0, "allocations during warm queries");
    assert_eq!(warm, again, "the warm run answers the same");
    assert!(warm > 0.0);
}
