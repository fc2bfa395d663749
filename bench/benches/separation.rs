//! Shield separation: one push iteration (a sweep, the push, and the sweep
//! that measures what remains) over 100,000 units at one per 50 m², random
//! headings, all on the ground, rows in spatial-cell order as the simulation
//! keeps them; shields of 2–6 m read both ways ([`ShieldSize`]):
//! `one_iteration` with every semi-axis 2–6 m (a jammed crowd), and
//! `one_iteration_across_2_6m` with shields 2–6 m across. Before timing, the
//! pass's count of overlapping pairs is checked against a brute-force count
//! with the exact ellipsoid test over units sorted by x (no spatial hash).
//!
//! `two_iterations` runs the same pass with two pushes: its difference from
//! `one_iteration` is what one more iteration costs (a sweep from the active
//! units or all, the push, and a rebuild of the stage's hash when units have
//! moved far), without the bodies and the measuring sweep that every pass
//! pays once.
//!
//! `exact_tests_alone` is the floor under any exact pass on a crowd: the
//! Perram–Wertheim contact functions alone (eight pairs a call, as the pass
//! runs them, on both threads), with no candidate search, no gathering and
//! no push, over the pairs a pushing sweep must test exactly — those whose
//! bounding spheres meet, each once — reported per unit of the crowd.
//!
//! `rstar_peer_one_iteration` is the same pass built the textbook way on
//! the field's spatial index ([`rstar_peer`]: an R-tree broad phase, the
//! same contact functions eight pairs a call, Jacobi pushes, a new tree to
//! measure). Before timing, its count of overlapping pairs is checked
//! against the brute force and the deepest overlap it leaves against the
//! pass's.
//!
//! `cargo bench -p convoy-bench --bench separation -- --warm-up-time 1 --measurement-time 3`

// Shared with the other benches; this one uses only the profiler hook.
#[allow(dead_code)]
mod common;
mod rstar_peer;
mod shield_crowd;

use std::hint::black_box;

use convoy::geometry::ellipsoid::{
    Ellipsoid, LANES, Offsets8, Shapes8, contact_functions_until, depth_along_centre_line, overlaps,
};
use convoy::stages::separation::{Separation, SeparationInput, TOLERANCE_REL};
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rayon::prelude::*;
use shield_crowd::{ShieldCrowd, ShieldSize, shield_crowd};
use wide::f32x8;

const UNITS: usize = 100_000;

fn ellipsoid(crowd: &ShieldCrowd, unit: usize) -> Ellipsoid {
    Ellipsoid::new(
        crowd.position[unit].extend(0.0),
        crowd.shield[unit],
        crowd.heading[unit],
    )
}

/// Every pair of units whose bounding spheres meet, once, by brute force
/// over units sorted by x (no spatial hash).
fn pairs_within_bounding_spheres(crowd: &ShieldCrowd) -> Vec<(Ellipsoid, Ellipsoid)> {
    let mut order: Vec<usize> = (0..UNITS).collect();
    order.sort_by(|&a, &b| crowd.position[a].x.total_cmp(&crowd.position[b].x));
    let mut pairs = Vec::new();
    for (k, &a) in order.iter().enumerate() {
        let ea = ellipsoid(crowd, a);
        for &b in &order[k + 1..] {
            if crowd.position[b].x - crowd.position[a].x > 2.0 * crowd.cell {
                break;
            }
            let eb = ellipsoid(crowd, b);
            let reach = ea.bounding_radius() + eb.bounding_radius();
            if ea.centre.distance_squared(eb.centre) < reach * reach {
                pairs.push((ea, eb));
            }
        }
    }
    pairs
}

/// Overlapping pairs (above the pass's tolerance) among `pairs`.
fn brute_force_overlaps(pairs: &[(Ellipsoid, Ellipsoid)]) -> u64 {
    let deep = |(ea, eb): &(Ellipsoid, Ellipsoid)| {
        let smallest = ea.semi_axes.min_element().min(eb.semi_axes.min_element());
        overlaps(ea, eb) && depth_along_centre_line(ea, eb) / smallest > TOLERANCE_REL
    };
    pairs.iter().filter(|pair| deep(pair)).count() as u64
}

/// `pairs` as the eight-lane arguments of the contact function.
fn lanes(pairs: &[(Ellipsoid, Ellipsoid)]) -> Vec<(Shapes8, Shapes8, Offsets8)> {
    pairs
        .chunks(LANES)
        .map(|eight| {
            let pair = |k: usize| &eight[k.min(eight.len() - 1)];
            let first = std::array::from_fn::<_, LANES, _>(|k| pair(k).0.shape());
            let second = std::array::from_fn::<_, LANES, _>(|k| pair(k).1.shape());
            (
                Shapes8::from_lanes(first.each_ref()),
                Shapes8::from_lanes(second.each_ref()),
                Offsets8::from_lanes(std::array::from_fn(|k| pair(k).1.centre - pair(k).0.centre)),
            )
        })
        .collect()
}

fn separation(c: &mut Criterion) {
    let mut group = c.benchmark_group("separation");
    group.throughput(Throughput::Elements(UNITS as u64));
    for (size, name) in [
        (ShieldSize::SemiAxes2To6m, ""),
        (ShieldSize::Across2To6m, "_across_2_6m"),
    ] {
        let crowd = shield_crowd(UNITS, size);
        let hash = crowd.hash();
        let input = crowd.input(&hash);
        let mut separation = crowd.separation();
        let pairs = pairs_within_bounding_spheres(&crowd);
        report(&crowd, size, &pairs, &mut separation, input);
        group.bench_function(
            BenchmarkId::new(format!("rstar_peer_one_iteration{name}"), UNITS),
            |b| {
                b.iter_batched_ref(
                    || crowd.position.clone(),
                    |position| black_box(rstar_peer::pass(&crowd, position)),
                    BatchSize::LargeInput,
                );
            },
        );
        for (iterations, pushes) in [(1, "one_iteration"), (2, "two_iterations")] {
            separation.set_iterations(iterations);
            group.bench_function(BenchmarkId::new(format!("{pushes}{name}"), UNITS), |b| {
                b.iter_batched_ref(
                    || crowd.position.clone(),
                    |position| black_box(separation.pass(input, position)),
                    BatchSize::LargeInput,
                );
            });
        }
        let lanes = lanes(&pairs);
        group.bench_function(
            BenchmarkId::new(format!("exact_tests_alone{name}"), UNITS),
            |b| {
                b.iter(|| {
                    lanes
                        .par_chunks(512)
                        .map(|chunk| {
                            chunk
                                .iter()
                                .map(|(a, b, r)| contact_functions_until(a, b, r, f32x8::ONE).f[0])
                                .sum::<f32>()
                        })
                        .sum::<f32>()
                });
            },
        );
    }
    group.finish();
}

/// Runs one pass on `crowd` and one of the rstar peer, checks their counts
/// of overlapping pairs against the brute force over `pairs` (those whose
/// bounding spheres meet) and the peer's deepest overlap left against the
/// pass's, and prints what the pass did.
fn report(
    crowd: &ShieldCrowd,
    size: ShieldSize,
    pairs: &[(Ellipsoid, Ellipsoid)],
    separation: &mut Separation,
    input: SeparationInput<'_>,
) {
    let mut position = crowd.position.clone();
    let stats = separation.pass(input, &mut position);
    let expected = brute_force_overlaps(pairs);
    assert!(
        stats.overlaps.abs_diff(expected) <= expected / 1000,
        "pass found {} overlapping pairs, brute force {expected}",
        stats.overlaps
    );
    assert_eq!(stats.iterations, 1);
    let peer = rstar_peer::pass(crowd, &mut crowd.position.clone());
    assert!(
        peer.overlaps.abs_diff(expected) <= expected / 1000,
        "the rstar peer found {} overlapping pairs, brute force {expected}",
        peer.overlaps
    );
    // The same pushes summed in another order: the same deepest overlap
    // left, up to rounding.
    let agree = |ours: f32, theirs: f32| (ours - theirs).abs() <= 1e-3 * ours.max(1.0);
    assert!(
        agree(stats.max_overlap_m, peer.max_overlap_m)
            && agree(stats.max_overlap_rel, peer.max_overlap_rel),
        "the pass left {stats:?}, the rstar peer {peer:?}"
    );
    let per_unit = |count: u64| count as f64 / UNITS as f64;
    let footprint: f32 = crowd
        .shield
        .iter()
        .map(|axes| std::f32::consts::PI * axes.x * axes.y)
        .sum();
    // Two sweeps (the pushing one and the measuring one), each examining a
    // pair once (pairs straddling two chunks twice in the pushing sweep).
    println!(
        "{UNITS} units, {size:?} (footprints cover {:.2} of the area), one iteration (2 \
         sweeps): {:.2} candidate pairs examined per unit ({:.2} per sweep), {:.2} exact tests \
         per unit, {} overlapping pairs before, largest remaining overlap {:.3} m ({:.3} of the \
         smaller smallest semi-axis); {:.2} pairs per unit whose bounding spheres meet",
        footprint / (UNITS as f32 * 50.0),
        per_unit(stats.pairs_tested),
        per_unit(stats.pairs_tested) / 2.0,
        per_unit(stats.exact_tests),
        stats.overlaps,
        stats.max_overlap_m,
        stats.max_overlap_rel,
        per_unit(pairs.len() as u64)
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_profiler(common::FlamegraphProfiler::new(997));
    targets = separation
}
criterion_main!(benches);
