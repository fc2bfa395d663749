//! Grid A* against its peer, the `pathfinding` crate's `astar`, on the same
//! Moving AI queries (arena2 and 64room_000) — as the `paths` stage runs it
//! (jump point search, these maps being of uniform cost) and cell by cell
//! (a bounded query whose limit is never reached); quadtree A* with rubber-banding
//! against grid A* on 64room_000; a batch of 10,000 queries planned on one
//! and two threads.
//!
//! Every planner's answers are checked against the scenarios' optimal
//! lengths before anything is timed. Criterion reports time per query
//! (throughput in queries).
//!
//! Run: `cargo bench -p convoy-bench --bench pathfinding`

// Shared with the other benches; this one uses only the profiler hook.
#[allow(dead_code)]
mod common;

use std::hint::black_box;
use std::time::Duration;

use convoy::nav::{
    BatchPlanner, CostGrid, GridPlanner, GridQuery, Mobility, Path, QuadPath, QuadPlanner,
    Quadtree, Scenario, check_scenarios, load_map, load_scen, supercover,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/movingai");

/// Scenarios timed per map: evenly spaced over the file, so every bucket
/// (short to long queries) is represented.
const QUERIES_PER_MAP: usize = 60;

/// Fixed-point scale of the peer's integer costs (Zero + Ord are required):
/// 1e12 keeps the rounding of √2 far below the scenario tolerance.
const SCALE: f64 = 1e12;
const STRAIGHT: u64 = 1_000_000_000_000;
const DIAGONAL: u64 = 1_414_213_562_373; // √2 × 1e12, rounded

struct Case {
    name: &'static str,
    grid: CostGrid,
    /// Passable flags on the same padded layout as the grid, for the peer.
    free: Vec<bool>,
    stride: usize,
    scenarios: Vec<Scenario>,
}

fn load(name: &'static str) -> Case {
    let map = load_map(format!("{DATA}/{name}.map")).unwrap_or_else(|e| panic!("{e}"));
    let grid = CostGrid::new(&map, Mobility::GROUND).expect("ground mobility is valid");
    let all = load_scen(format!("{DATA}/{name}.map.scen")).unwrap_or_else(|e| panic!("{e}"));
    check_scenarios(&all, &grid).unwrap_or_else(|e| panic!("{name}: {e}"));
    let step = (all.len() / QUERIES_PER_MAP).max(1);
    let scenarios: Vec<Scenario> = all
        .into_iter()
        .step_by(step)
        .take(QUERIES_PER_MAP)
        .collect();
    let stride = grid.width() as usize + 2;
    let mut free = vec![false; stride * (grid.height() as usize + 2)];
    for y in 0..grid.height() {
        for x in 0..grid.width() {
            let cell = convoy::nav::Cell::new(x, y);
            free[grid.index(cell)] = grid.passable(cell);
        }
    }
    Case {
        name,
        grid,
        free,
        stride,
        scenarios,
    }
}

/// The peer: `pathfinding::directed::astar::astar` over padded indices,
/// the same move rules, octile heuristic in the same fixed point.
fn peer_astar(case: &Case, s: &Scenario) -> Option<(Vec<usize>, u64)> {
    let stride = case.stride as isize;
    let free = &case.free;
    let start = case.grid.index(s.start);
    let goal = case.grid.index(s.goal);
    let (gx, gy) = (goal % case.stride, goal / case.stride);
    let moves: [(isize, isize, isize, u64); 8] = [
        (-stride, 0, 0, STRAIGHT),
        (stride, 0, 0, STRAIGHT),
        (-1, 0, 0, STRAIGHT),
        (1, 0, 0, STRAIGHT),
        (-stride - 1, -stride, -1, DIAGONAL),
        (-stride + 1, -stride, 1, DIAGONAL),
        (stride - 1, stride, -1, DIAGONAL),
        (stride + 1, stride, 1, DIAGONAL),
    ];
    pathfinding::directed::astar::astar(
        &start,
        |&i| {
            moves.iter().filter_map(move |&(d, a, b, cost)| {
                let n = i.wrapping_add_signed(d);
                let ok = free[n]
                    && (a == 0
                        || (free[i.wrapping_add_signed(a)] && free[i.wrapping_add_signed(b)]));
                ok.then_some((n, cost))
            })
        },
        |&i| {
            let dx = (i % case.stride).abs_diff(gx) as u64;
            let dy = (i / case.stride).abs_diff(gy) as u64;
            let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
            hi * STRAIGHT + lo * (DIAGONAL - STRAIGHT)
        },
        |&i| i == goal,
    )
}

/// A node limit no search reaches: the bounded search, which never jumps,
/// runs as plain A* expanding cell by cell.
const CELL_BY_CELL: u32 = u32::MAX - 1;

/// Every planner reproduces every selected scenario's optimal length.
fn check_answers(case: &Case) {
    let mut planner = GridPlanner::for_grid(&case.grid);
    let mut path = Path::default();
    for s in &case.scenarios {
        planner
            .find_path_into(&case.grid, s.start, s.goal, &mut path)
            .unwrap_or_else(|e| panic!("{} line {}: {e}", case.name, s.line));
        assert!(
            s.matches(path.cost),
            "{} line {}: convoy found {} expected {}",
            case.name,
            s.line,
            path.cost,
            s.optimal_length
        );
        let reached = planner
            .find_path_bounded_into(&case.grid, s.start, s.goal, CELL_BY_CELL, &mut path)
            .unwrap_or_else(|e| panic!("{} line {}: {e}", case.name, s.line));
        assert!(
            reached && s.matches(path.cost),
            "{} line {}: convoy cell by cell found {} expected {}",
            case.name,
            s.line,
            path.cost,
            s.optimal_length
        );
        let (_, cost) = peer_astar(case, s)
            .unwrap_or_else(|| panic!("{} line {}: peer found no path", case.name, s.line));
        let length = cost as f64 / SCALE;
        assert!(
            s.matches(length),
            "{} line {}: pathfinding found {length} expected {}",
            case.name,
            s.line,
            s.optimal_length
        );
    }
}

fn grid_astar(c: &mut Criterion) {
    for name in ["arena2", "64room_000"] {
        let case = load(name);
        check_answers(&case);
        let mut group = c.benchmark_group(format!("grid_astar/{name}"));
        group.sample_size(10);
        group.warm_up_time(Duration::from_secs(1));
        group.measurement_time(Duration::from_secs(5));
        group.throughput(Throughput::Elements(case.scenarios.len() as u64));
        let mut planner = GridPlanner::for_grid(&case.grid);
        let mut path = Path::default();
        group.bench_function("convoy", |b| {
            b.iter(|| {
                let mut total = 0.0;
                for s in &case.scenarios {
                    if planner
                        .find_path_into(&case.grid, s.start, s.goal, &mut path)
                        .is_ok()
                    {
                        total += path.cost;
                    }
                }
                black_box(total)
            });
        });
        group.bench_function("convoy_cell_by_cell", |b| {
            b.iter(|| {
                let mut total = 0.0;
                for s in &case.scenarios {
                    if planner
                        .find_path_bounded_into(
                            &case.grid,
                            s.start,
                            s.goal,
                            CELL_BY_CELL,
                            &mut path,
                        )
                        .is_ok()
                    {
                        total += path.cost;
                    }
                }
                black_box(total)
            });
        });
        group.bench_function("pathfinding", |b| {
            b.iter(|| {
                let mut total = 0u64;
                for s in &case.scenarios {
                    if let Some((_, cost)) = peer_astar(&case, s) {
                        total += cost;
                    }
                }
                black_box(total)
            });
        });
        group.finish();
    }
}

/// Queries in the batched benchmark (the 10,000): the map's
/// sampled scenario lines, repeated.
const BATCH_QUERIES: usize = 10_000;

fn batched(c: &mut Criterion) {
    let case = load("arena2");
    let queries: Vec<GridQuery> = case
        .scenarios
        .iter()
        .cycle()
        .take(BATCH_QUERIES)
        .map(|s| GridQuery::new(s.start, s.goal))
        .collect();
    let mut group = c.benchmark_group("batched/arena2");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(5));
    group.throughput(Throughput::Elements(queries.len() as u64));
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a rayon pool can be built");
        let mut planner = BatchPlanner::new();
        let mut answers = Vec::new();
        pool.install(|| planner.plan(&case.grid, &queries, &mut answers));
        for (a, s) in answers.iter().zip(case.scenarios.iter().cycle()) {
            assert!(s.matches(a.path.cost), "batched line {}", s.line);
        }
        group.bench_function(format!("threads_{threads}"), |b| {
            b.iter(|| {
                pool.install(|| planner.plan(&case.grid, &queries, &mut answers));
                black_box(answers.len())
            });
        });
    }
    group.finish();
}

fn quadtree(c: &mut Criterion) {
    let case = load("64room_000");
    let tree = Quadtree::new(&case.grid).expect("the map decomposes");
    // Check: valid paths, and report the mean length ratio to the optimum.
    let mut planner = QuadPlanner::new();
    let mut path = QuadPath::default();
    let mut ratio_sum = 0.0;
    for s in &case.scenarios {
        planner
            .find_path_into(&case.grid, &tree, s.start, s.goal, &mut path)
            .unwrap_or_else(|e| panic!("quadtree line {}: {e}", s.line));
        for w in path.points.windows(2) {
            assert!(
                supercover(w[0], w[1], |c| case.grid.passable(c)),
                "quadtree line {}: invalid segment",
                s.line
            );
        }
        ratio_sum += path.length / s.optimal_length.max(1.0);
    }
    println!(
        "quadtree/64room_000: {} leaves for {} grid cells, mean length ratio {:.4} over {} queries",
        tree.leaf_count(),
        tree.grid_cell_count(),
        ratio_sum / case.scenarios.len() as f64,
        case.scenarios.len()
    );
    let mut group = c.benchmark_group("quadtree/64room_000");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(5));
    group.throughput(Throughput::Elements(case.scenarios.len() as u64));
    group.bench_function("quadtree", |b| {
        b.iter(|| {
            let mut total = 0.0;
            for s in &case.scenarios {
                if planner
                    .find_path_into(&case.grid, &tree, s.start, s.goal, &mut path)
                    .is_ok()
                {
                    total += path.length;
                }
            }
            black_box(total)
        });
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_profiler(common::FlamegraphProfiler::new(997));
    targets = grid_astar, quadtree, batched
}
criterion_main!(benches);
