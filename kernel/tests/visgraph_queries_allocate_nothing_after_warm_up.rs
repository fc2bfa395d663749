//! A warmed-up visibility-graph search context answers queries (exact and
//! heuristic insertion, A* and Dijkstra) without touching the allocator.

use convoy::glam::Vec2;
use convoy::nav::polygon::load_mesh;
use convoy::nav::visgraph::{
    FactionId, GraphConfig, PolygonNavigator, QueryOptions, SearchAlgorithm, StartInsertion,
    VisSearch,
};

mod counting_allocator;
use counting_allocator::{CountingAllocator, allocations_during};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Run without libtest's harness: the counting allocator counts every
/// thread, and the harness's own threads may allocate at any moment.
fn main() {
    repeated_queries_on_a_warm_context_allocate_nothing();
    println!("visgraph_queries_allocate_nothing_after_warm_up: ok");
}

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
    let (allocations, again) = allocations_during(|| run(&mut search, &mut out));
    assert_eq!(allocations, 0, "allocations during warm queries");
    assert_eq!(warm, again, "the warm run answers the same");
    assert!(warm > 0.0);
}
