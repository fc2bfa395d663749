//! Spatial hash: rebuild and a full neighbour pass at 10k, 100k and 1M units
//! (one unit per 50 m², query radius 4 m), against `rstar` (bulk load and a
//! radius query per point) over the same points. Each pass's neighbour count
//! is checked against rstar's before timing. Points come in two orders:
//! shuffled (worst case) and cell-ordered (the `Sim`'s steady state, which
//! reorders its rows by cell). rstar is skipped at 1M units (minutes per
//! sample).
//!
//! `cargo bench -p convoy-bench --bench spatial`; add `-- --profile-time 5`
//! for a flamegraph per benchmark under `target/criterion/`.

mod common;

use std::hint::black_box;

use convoy::Bounds;
use convoy::data::spatial_hash::SpatialHash;
use convoy::glam::Vec2;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rayon::prelude::*;
use rstar::RTree;

const AREA_PER_UNIT: f32 = 50.0;
const RADIUS: f32 = 4.0;

fn built_hash(points: &[Vec2], side: f32, cell: f32) -> SpatialHash {
    let mut hash =
        SpatialHash::new(Bounds::new(Vec2::ZERO, Vec2::splat(side)), cell).expect("valid grid");
    hash.rebuild(points);
    hash
}

/// Neighbour pairs seen from both sides: every unit's neighbours within RADIUS.
fn neighbour_pass(hash: &SpatialHash, units: usize) -> usize {
    let mut pairs = 0;
    for unit in 0..units as u32 {
        hash.for_each_neighbour(unit, RADIUS, |_, _| pairs += 1);
    }
    pairs
}

fn neighbour_pass_parallel(hash: &SpatialHash, units: usize) -> usize {
    (0..units as u32)
        .into_par_iter()
        .with_min_len(4096)
        .map(|unit| {
            let mut pairs = 0;
            hash.for_each_neighbour(unit, RADIUS, |_, _| pairs += 1);
            pairs
        })
        .sum()
}

fn rstar_pass(tree: &RTree<[f32; 2]>, points: &[Vec2]) -> usize {
    points
        .iter()
        .map(|p| {
            tree.locate_within_distance([p.x, p.y], RADIUS * RADIUS)
                .count()
                - 1
        })
        .sum()
}

/// The same points in two orders: as generated (shuffled in space, the
/// worst case) and in the hash's cell order (what `Sim` keeps its rows in
/// between reorders: the steady state).
fn point_orders(units: usize) -> ([(&'static str, Vec<Vec2>); 2], f32) {
    let (shuffled, side) = common::uniform_points(units, AREA_PER_UNIT, 42);
    let hash = built_hash(&shuffled, side, RADIUS);
    let cell_ordered = hash.order().iter().map(|&i| shuffled[i as usize]).collect();
    (
        [("shuffled", shuffled), ("cell_ordered", cell_ordered)],
        side,
    )
}

fn spatial(c: &mut Criterion) {
    for units in [10_000, 100_000, 1_000_000] {
        let (orders, side) = point_orders(units);
        let mut group = c.benchmark_group(format!("spatial/{units}"));
        group.throughput(Throughput::Elements(units as u64));
        if units >= 1_000_000 {
            group.sample_size(10);
        }
        for (order, points) in &orders {
            let as_arrays: Vec<[f32; 2]> = points.iter().map(|p| [p.x, p.y]).collect();
            let tree = RTree::bulk_load(as_arrays.clone());
            let mut hash = built_hash(points, side, RADIUS);
            let expected = rstar_pass(&tree, points);
            assert_eq!(
                neighbour_pass(&hash, units),
                expected,
                "convoy and rstar disagree at {units} units"
            );
            assert_eq!(neighbour_pass_parallel(&hash, units), expected);
            println!(
                "{units} units ({order}): {:.2} neighbours per unit",
                expected as f64 / units as f64
            );

            group.bench_function(BenchmarkId::new("convoy_rebuild", order), |b| {
                b.iter(|| black_box(hash.rebuild(black_box(points))))
            });
            group.bench_function(BenchmarkId::new("convoy_neighbours", order), |b| {
                b.iter(|| black_box(neighbour_pass(&hash, units)))
            });
            group.bench_function(BenchmarkId::new("convoy_neighbours_parallel", order), |b| {
                b.iter(|| black_box(neighbour_pass_parallel(&hash, units)))
            });
            if units < 1_000_000 {
                group.bench_function(BenchmarkId::new("rstar_bulk_load", order), |b| {
                    b.iter(|| black_box(RTree::bulk_load(as_arrays.clone())))
                });
                group.bench_function(BenchmarkId::new("rstar_neighbours", order), |b| {
                    b.iter(|| black_box(rstar_pass(&tree, points)))
                });
            }
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_profiler(common::FlamegraphProfiler::new(997));
    targets = spatial
}
criterion_main!(benches);
