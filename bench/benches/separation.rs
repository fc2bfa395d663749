//! Shield separation: one push iteration (a sweep, the push, and the sweep
//! that measures what remains) over 100,000 units at one per 50 m², shield
//! semi-axes 2–6 m, random headings, all on the ground, rows in spatial-cell
//! order as the simulation keeps them. Before timing, the
//! pass's count of overlapping pairs is checked against a brute-force count
//! with the exact ellipsoid test over units sorted by x (no spatial hash).
//!
//! `cargo bench -p convoy-bench --bench separation -- --warm-up-time 1 --measurement-time 3`

// Shared with the other benches; this one uses only the profiler hook.
#[allow(dead_code)]
mod common;

use std::hint::black_box;

use convoy::ellipsoid::{Ellipsoid, depth_along_centre_line, overlaps};
use convoy::glam::{Vec2, Vec3};
use convoy::random::unit_f32;
use convoy::separation::{Separation, SeparationInput, TOLERANCE_REL};
use convoy::{Bounds, SpatialHash};
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const UNITS: usize = 100_000;
const AREA_PER_UNIT: f32 = 50.0;
const SEED: u64 = 42;
/// The tick hash's cell: the largest shield's bounding radius.
const CELL: f32 = 6.0;

struct Crowd {
    position: Vec<Vec2>,
    altitude: Vec<f32>,
    heading: Vec<f32>,
    shield: Vec<Vec3>,
    inv_mass: Vec<f32>,
    bounds: Bounds,
}

fn crowd() -> Crowd {
    let side = (UNITS as f32 * AREA_PER_UNIT).sqrt();
    let draw = |stream: u64, unit: usize| unit_f32(SEED, stream, unit as u64);
    let position = (0..UNITS)
        .map(|u| Vec2::new(draw(1, u), draw(2, u)) * side)
        .collect();
    let shield = (0..UNITS)
        .map(|u| Vec3::new(draw(3, u), draw(4, u), draw(5, u)) * 4.0 + 2.0)
        .collect();
    Crowd {
        position,
        altitude: vec![0.0; UNITS],
        heading: (0..UNITS)
            .map(|u| (draw(6, u) - 0.5) * std::f32::consts::TAU)
            .collect(),
        shield,
        inv_mass: vec![1.0; UNITS],
        bounds: Bounds::new(Vec2::splat(-50.0), Vec2::splat(side + 50.0)),
    }
}

/// Overlapping pairs (above the pass's tolerance), by brute force.
fn brute_force_overlaps(crowd: &Crowd) -> u64 {
    let ellipsoid = |u: usize| {
        Ellipsoid::new(
            crowd.position[u].extend(0.0),
            crowd.shield[u],
            crowd.heading[u],
        )
    };
    let mut order: Vec<usize> = (0..UNITS).collect();
    order.sort_by(|&a, &b| crowd.position[a].x.total_cmp(&crowd.position[b].x));
    let mut count = 0;
    for (k, &a) in order.iter().enumerate() {
        let ea = ellipsoid(a);
        for &b in &order[k + 1..] {
            if crowd.position[b].x - crowd.position[a].x > 12.0 {
                break;
            }
            let eb = ellipsoid(b);
            if overlaps(&ea, &eb) {
                let smallest = ea.semi_axes.min_element().min(eb.semi_axes.min_element());
                count += u64::from(depth_along_centre_line(&ea, &eb) / smallest > TOLERANCE_REL);
            }
        }
    }
    count
}

/// The crowd's rows in spatial-cell order, as `Sim` keeps them
/// (`SimConfig::reorder_interval`), so that neighbours sit together in
/// memory.
fn in_cell_order(crowd: Crowd) -> Crowd {
    let mut hash = SpatialHash::new(crowd.bounds, CELL).expect("valid grid");
    hash.rebuild(&crowd.position);
    let order: Vec<usize> = hash.order().iter().map(|&u| u as usize).collect();
    Crowd {
        position: order.iter().map(|&u| crowd.position[u]).collect(),
        altitude: order.iter().map(|&u| crowd.altitude[u]).collect(),
        heading: order.iter().map(|&u| crowd.heading[u]).collect(),
        shield: order.iter().map(|&u| crowd.shield[u]).collect(),
        inv_mass: order.iter().map(|&u| crowd.inv_mass[u]).collect(),
        bounds: crowd.bounds,
    }
}

fn separation(c: &mut Criterion) {
    let crowd = in_cell_order(crowd());
    let mut hash = SpatialHash::new(crowd.bounds, CELL).expect("valid grid");
    hash.rebuild(&crowd.position);
    let input = SeparationInput {
        altitude: &crowd.altitude,
        heading: &crowd.heading,
        shield: &crowd.shield,
        inv_mass: &crowd.inv_mass,
        spatial: &hash,
        max_travel: 0.0,
    };
    let mut separation = Separation::new(crowd.bounds, CELL, 1).expect("valid grid");
    separation.reserve(UNITS);

    let mut position = crowd.position.clone();
    let stats = separation.pass(input, &mut position);
    let expected = brute_force_overlaps(&crowd);
    assert!(
        stats.overlaps.abs_diff(expected) <= expected / 1000,
        "pass found {} overlapping pairs, brute force {expected}",
        stats.overlaps
    );
    assert_eq!(stats.iterations, 1);
    let per_unit = |count: u64| count as f64 / UNITS as f64;
    println!(
        "{UNITS} units, one iteration: {:.2} pairs tested per unit ({:.2} per sweep), \
         {:.2} exact tests per unit, {} overlapping pairs before, largest remaining overlap \
         {:.3} m ({:.3} of the smaller smallest semi-axis)",
        per_unit(stats.pairs_tested),
        per_unit(stats.pairs_tested) / 2.0,
        per_unit(stats.exact_tests),
        stats.overlaps,
        stats.max_overlap_m,
        stats.max_overlap_rel
    );

    let mut group = c.benchmark_group("separation");
    group.throughput(Throughput::Elements(UNITS as u64));
    group.bench_function(BenchmarkId::new("one_iteration", UNITS), |b| {
        b.iter_batched_ref(
            || crowd.position.clone(),
            |position| black_box(separation.pass(input, position)),
            BatchSize::LargeInput,
        );
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_profiler(common::FlamegraphProfiler::new(997));
    targets = separation
}
criterion_main!(benches);
