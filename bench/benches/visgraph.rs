//! The Force 21 visibility graph: graph builds (a random polygon map with
//! about 2,000 obstacle corners, arena2 and Berlin_0_256 traced to
//! polygons), queries with exact and heuristic insertion, the search
//! against its peer (the `pathfinding` crate's `dijkstra` over the same
//! graph as adjacency closures, start and goal edges handed to it for
//! free), and batched queries (`VisBatchPlanner`) on one and two threads.
//!
//! Every answer is checked before timing: the peer's costs equal ours, the
//! traced maps' lengths are within their octile optima, the heuristic is
//! never cheaper than the exact answer, and the two-thread batch equals the
//! one-thread batch bit for bit.
//!
//! Run: `cargo bench -p convoy-bench --bench visgraph`

// Shared with the other benches; this one uses only the profiler hook.
#[allow(dead_code)]
mod common;

use std::hint::black_box;
use std::time::Duration;

use convoy::glam::{DVec2, Vec2};
use convoy::nav::polygon::{PolygonMap, trace_grid};
use convoy::nav::visgraph::boundary::EdgeStamps;
use convoy::nav::visgraph::{
    FactionId, GraphConfig, PathCost, PolygonNavigator, QueryOptions, SearchAlgorithm,
    StartInsertion, VisAnswer, VisBatchPlanner, VisGraph, VisQuery, VisSearch,
};
use convoy::nav::{Cell, CostGrid, Mobility, Scenario, load_map, load_scen};
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/movingai");
const QUERIES: usize = 60;
const FACTION: FactionId = FactionId(0);
/// Fixed-point scale of the peer's integer costs (it needs `Ord + Zero`).
const SCALE: f64 = 1e9;

/// 500 random squares (some overlapping, unioned) in a 1 km field: about
/// 2,000 obstacle corners.
fn random_map() -> PolygonMap {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let square = |c: DVec2, r: f64, a: f64| -> Vec<DVec2> {
        (0..4)
            .map(|k| c + r * DVec2::from_angle(a + f64::from(k) * std::f64::consts::FRAC_PI_2))
            .collect()
    };
    PolygonMap {
        containers: vec![square(
            DVec2::splat(500.0),
            500.0 * std::f64::consts::SQRT_2,
            std::f64::consts::FRAC_PI_4,
        )],
        obstacles: (0..500)
            .map(|_| {
                let c = DVec2::new(20.0 + 960.0 * next(), 20.0 + 960.0 * next());
                square(c, 4.0 + 8.0 * next(), next())
            })
            .collect(),
        ..PolygonMap::default()
    }
}

fn traced(name: &str) -> (CostGrid, Vec<Scenario>) {
    let map = load_map(format!("{DATA}/{name}.map")).unwrap_or_else(|e| panic!("{e}"));
    let grid = CostGrid::new(&map, Mobility::GROUND).expect("ground mobility is valid");
    let all = load_scen(format!("{DATA}/{name}.map.scen")).unwrap_or_else(|e| panic!("{e}"));
    let step = (all.len() / QUERIES).max(1);
    (grid, all.into_iter().step_by(step).take(QUERIES).collect())
}

fn centre(c: Cell) -> DVec2 {
    DVec2::new(f64::from(c.x) + 0.5, f64::from(c.y) + 0.5)
}

fn configure(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(4));
}

fn bench_builds(c: &mut Criterion) {
    let map = random_map();
    let graph = VisGraph::build(&map, GraphConfig::default()).expect("builds");
    println!(
        "random map: {} corners, {} edges",
        graph.node_count(),
        graph.edge_count()
    );
    let mut group = c.benchmark_group("visgraph_build");
    configure(&mut group);
    group.bench_function("random_2000_corners", |b| {
        b.iter(|| VisGraph::build(black_box(&map), GraphConfig::default()).expect("builds"));
    });
    for name in ["arena2", "Berlin_0_256"] {
        let (grid, _) = traced(name);
        let graph = VisGraph::build_on(trace_grid(&grid), &[], &[], GraphConfig::default());
        println!(
            "{name} traced: {} corners, {} edges",
            graph.node_count(),
            graph.edge_count()
        );
        group.bench_function(format!("{name}_traced"), |b| {
            b.iter(|| {
                VisGraph::build_on(
                    trace_grid(black_box(&grid)),
                    &[],
                    &[],
                    GraphConfig::default(),
                )
            });
        });
    }
    group.finish();
}

/// Query pairs: random free points of the random map.
fn random_queries(nav: &PolygonNavigator) -> Vec<(DVec2, DVec2)> {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        20.0 + 960.0 * ((state >> 11) as f64 / (1u64 << 53) as f64)
    };
    let boundary = nav.graph().boundary();
    let mut points = Vec::new();
    while points.len() < 2 * QUERIES {
        let p = DVec2::new(next(), next());
        if boundary.locate(p).is_some_and(|l| !l.moved) {
            points.push(p);
        }
    }
    points.chunks_exact(2).map(|w| (w[0], w[1])).collect()
}

fn answer(
    nav: &PolygonNavigator,
    q: (DVec2, DVec2),
    options: QueryOptions,
    search: &mut VisSearch,
    out: &mut Vec<Vec2>,
) -> PathCost {
    nav.find_path_with(q.0, q.1, FACTION, options, search, out)
        .expect("reachable")
}

/// The peer's graph: our CSR plus start (`n`) and goal (`n + 1`) joined to
/// every node they see, computed before timing.
struct PeerQuery {
    start_edges: Vec<(usize, u64)>,
    goal_edges: Vec<u64>,
    direct: Option<u64>,
}

fn peer_query(nav: &PolygonNavigator, q: (DVec2, DVec2)) -> PeerQuery {
    let graph = nav.graph();
    let mut stamps = EdgeStamps::default();
    let fixed = |x: f64| (x * SCALE).round() as u64;
    let mut sees = |p: DVec2, node: u32| {
        let v = graph.positions()[node as usize];
        (graph.may_connect(node, p) && graph.boundary().visible(p, v, &mut stamps))
            .then(|| fixed(p.distance(v)))
    };
    let n = graph.node_count() as u32;
    let start_edges = (0..n)
        .filter_map(|i| sees(q.0, i).map(|c| (i as usize, c)))
        .collect();
    let goal_edges = (0..n).map(|i| sees(q.1, i).unwrap_or(u64::MAX)).collect();
    let direct = graph
        .boundary()
        .visible(q.0, q.1, &mut stamps)
        .then(|| fixed(q.0.distance(q.1)));
    PeerQuery {
        start_edges,
        goal_edges,
        direct,
    }
}

fn peer_dijkstra(nav: &PolygonNavigator, pq: &PeerQuery) -> u64 {
    let graph = nav.graph();
    let n = graph.node_count();
    let (start, goal) = (n, n + 1);
    let successors = |&u: &usize| -> Vec<(usize, u64)> {
        if u == start {
            let mut out = pq.start_edges.clone();
            out.extend(pq.direct.map(|c| (goal, c)));
            return out;
        }
        let mut out: Vec<(usize, u64)> = graph
            .neighbours(u as u32)
            .map(|(v, c)| (v as usize, (c * SCALE).round() as u64))
            .collect();
        if pq.goal_edges[u] != u64::MAX {
            out.push((goal, pq.goal_edges[u]));
        }
        out
    };
    pathfinding::directed::dijkstra::dijkstra(&start, successors, |&u| u == goal)
        .expect("reachable")
        .1
}

fn bench_queries(c: &mut Criterion) {
    let nav = PolygonNavigator::build(&random_map(), GraphConfig::default(), 1).expect("builds");
    let queries = random_queries(&nav);
    let mut search = VisSearch::new(&nav);
    let mut out = Vec::new();
    let modes = [
        ("astar_exact", SearchAlgorithm::AStar, StartInsertion::Exact),
        (
            "dijkstra_exact",
            SearchAlgorithm::Dijkstra,
            StartInsertion::Exact,
        ),
        (
            "astar_heuristic",
            SearchAlgorithm::AStar,
            StartInsertion::FirstLastHit,
        ),
    ];
    let exact: Vec<f64> = queries
        .iter()
        .map(|&q| answer(&nav, q, QueryOptions::default(), &mut search, &mut out).cost)
        .collect();
    let heuristic: f64 = queries
        .iter()
        .zip(&exact)
        .map(|(&q, &e)| {
            let options = QueryOptions {
                insertion: StartInsertion::FirstLastHit,
                ..QueryOptions::default()
            };
            let h = answer(&nav, q, options, &mut search, &mut out).length;
            assert!(h >= e - 1e-6, "the heuristic beat the exact answer");
            h
        })
        .sum();
    println!(
        "random map, {} queries: exact total length {:.3}, heuristic total length {:.3} (+{:.2} %)",
        queries.len(),
        exact.iter().sum::<f64>(),
        heuristic,
        100.0 * (heuristic / exact.iter().sum::<f64>() - 1.0)
    );
    let peers: Vec<PeerQuery> = queries.iter().map(|&q| peer_query(&nav, q)).collect();
    for (pq, &e) in peers.iter().zip(&exact) {
        let peer = peer_dijkstra(&nav, pq) as f64 / SCALE;
        assert!((peer - e).abs() < 1e-5, "peer {peer} ours {e}");
    }
    let mut group = c.benchmark_group("visgraph_query/random_2000_corners");
    configure(&mut group);
    group.throughput(Throughput::Elements(queries.len() as u64));
    for (name, algorithm, insertion) in modes {
        let options = QueryOptions {
            algorithm,
            insertion,
        };
        group.bench_function(name, |b| {
            b.iter(|| {
                for &q in &queries {
                    black_box(answer(&nav, q, options, &mut search, &mut out));
                }
            });
        });
    }
    group.bench_function("pathfinding_dijkstra_insertion_free", |b| {
        b.iter(|| {
            for pq in &peers {
                black_box(peer_dijkstra(&nav, pq));
            }
        });
    });
    group.finish();
    bench_traced_queries(c);
}

fn bench_traced_queries(c: &mut Criterion) {
    for name in ["arena2", "Berlin_0_256"] {
        let (grid, scenarios) = traced(name);
        let graph = VisGraph::build_on(trace_grid(&grid), &[], &[], GraphConfig::default());
        let nav = PolygonNavigator::from_graph(graph, 1);
        let queries: Vec<(DVec2, DVec2)> = scenarios
            .iter()
            .map(|s| (centre(s.start), centre(s.goal)))
            .collect();
        let mut search = VisSearch::new(&nav);
        let mut out = Vec::new();
        for (s, &q) in scenarios.iter().zip(&queries) {
            let cost = answer(&nav, q, QueryOptions::default(), &mut search, &mut out);
            assert!(
                cost.length <= s.optimal_length + s.tolerance(),
                "{name} line {}",
                s.line
            );
        }
        let mut group = c.benchmark_group(format!("visgraph_query/{name}_traced"));
        configure(&mut group);
        group.throughput(Throughput::Elements(queries.len() as u64));
        group.bench_function("astar_exact", |b| {
            b.iter(|| {
                for &q in &queries {
                    black_box(answer(
                        &nav,
                        q,
                        QueryOptions::default(),
                        &mut search,
                        &mut out,
                    ));
                }
            });
        });
        group.finish();
    }
}

fn bench_batches(c: &mut Criterion) {
    let nav = PolygonNavigator::build(&random_map(), GraphConfig::default(), 1).expect("builds");
    let mut queries = random_queries(&nav);
    while queries.len() < 240 {
        let more: Vec<_> = queries.iter().map(|&(a, b)| (b, a)).collect();
        queries.extend(more);
    }
    let queries: Vec<VisQuery> = queries
        .into_iter()
        .map(|(start, goal)| VisQuery {
            start,
            goal,
            faction: FACTION,
        })
        .collect();
    let batch =
        |pool: &rayon::ThreadPool, planner: &mut VisBatchPlanner, answers: &mut Vec<VisAnswer>| {
            pool.install(|| planner.plan(&nav, QueryOptions::default(), &queries, answers));
        };
    let pools: Vec<rayon::ThreadPool> = [1, 2]
        .iter()
        .map(|&n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .expect("pool")
        })
        .collect();
    let mut planners = [VisBatchPlanner::new(), VisBatchPlanner::new()];
    let mut answers = [Vec::new(), Vec::new()];
    for ((pool, planner), answers) in pools.iter().zip(&mut planners).zip(&mut answers) {
        batch(pool, planner, answers);
    }
    let cost_bits = |answers: &[VisAnswer]| -> Vec<u64> {
        answers
            .iter()
            .map(|a| a.result.expect("reachable").cost.to_bits())
            .collect()
    };
    assert_eq!(
        cost_bits(&answers[0]),
        cost_bits(&answers[1]),
        "thread count changed an answer"
    );
    assert!(answers[0] == answers[1], "thread count changed a path");
    let mut group = c.benchmark_group("visgraph_batch/random_2000_corners");
    configure(&mut group);
    group.throughput(Throughput::Elements(queries.len() as u64));
    for (((threads, pool), planner), answers) in [1, 2]
        .iter()
        .zip(&pools)
        .zip(&mut planners)
        .zip(&mut answers)
    {
        group.bench_function(format!("threads_{threads}"), |b| {
            b.iter(|| batch(pool, planner, black_box(answers)));
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_profiler(common::FlamegraphProfiler::new(997));
    targets = bench_builds, bench_queries, bench_batches
}
criterion_main!(benches);
