//! A warmed-up visibility-graph search context answers queries (exact and
//! heuristic insertion, A* and Dijkstra) without touching the allocator —
//! also queries much longer than any it answered before (the `paths` stage
//! cannot choose which come first).

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
    long_queries_after_a_short_one_allocate_nothing();
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

/// A fresh context answers one short query, then queries across the whole
/// map: exact insertion seeds the open list in stages, so a long query
/// opens far more nodes than a short one, and the context must already
/// hold room for every node. The output buffer is sized as the `paths`
/// stage sizes its own (every node plus start and goal).
fn long_queries_after_a_short_one_allocate_nothing() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/movingai/mesh/arena.mesh"
    );
    let map = load_mesh(path).expect("arena.mesh loads");
    let nav = PolygonNavigator::build(&map, GraphConfig::default(), 1).expect("builds");
    let mut search = VisSearch::new(&nav);
    let mut out = Vec::with_capacity(nav.total_nodes() + 2);
    let short = (Vec2::new(20.0, 20.0), Vec2::new(22.0, 21.0));
    let long = [
        (Vec2::new(2.5, 2.5), Vec2::new(46.5, 46.5)),
        (Vec2::new(46.5, 2.5), Vec2::new(2.5, 46.5)),
        (Vec2::new(2.5, 25.0), Vec2::new(46.5, 25.0)),
    ];
    let answer = |(from, to): (Vec2, Vec2), search: &mut VisSearch, out: &mut Vec<Vec2>| {
        nav.find_path_with(
            from.as_dvec2(),
            to.as_dvec2(),
            FactionId(0),
            QueryOptions::default(),
            search,
            out,
        )
        .map_or(0.0, |cost| cost.cost)
    };
    answer(short, &mut search, &mut out);
    let (allocations, total) = allocations_during(|| {
        long.iter()
            .map(|&query| answer(query, &mut search, &mut out))
            .sum::<f64>()
    });
    assert!(total > 0.0, "the long queries found paths");
    assert_eq!(
        allocations, 0,
        "allocations during long queries after a short one"
    );
}
