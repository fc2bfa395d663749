//! Turning-radius paths (`convoy::nav::turning`): rebuilding a warm
//! `TurningPath` from a polyline, a follower's `point_at` query, and one
//! tick of a wheeled unit following the curve corner by corner
//! (`steer::follow::curve_drive_to`, no map). No peer
//! library builds this curve (Dubins solvers join two poses, not a polyline's
//! corners through its points), so the bench checks its own answers instead:
//! every path ends at its polyline's goal and no arc is tighter than the
//! radius.
//!
//! `cargo bench -p convoy-bench --bench turning`; `-- --profile-time 5` writes
//! a flamegraph per benchmark under `target/criterion/`.

// Shared with the other benches; this one uses only the profiler hook.
#[allow(dead_code)]
mod common;

use std::hint::black_box;

use convoy::glam::Vec2;
use convoy::nav::turning::{Segment, TurningPath, following_radius};
use convoy::random::unit_f32;
use convoy::stages::paths::follow::{Wheels, curve_drive_to};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const RADIUS: f32 = 6.0;
const POLYLINES: u64 = 1_000;

/// Seeded polylines of `points` points, each a random walk of 20–60 m legs,
/// like a planner's path through open ground.
fn polylines(points: u64) -> Vec<Vec<Vec2>> {
    (0..POLYLINES)
        .map(|line| {
            let mut at = Vec2::ZERO;
            (0..points)
                .map(|i| {
                    let heading = std::f32::consts::TAU * unit_f32(11, line, 2 * i);
                    let leg = 20.0 + 40.0 * unit_f32(11, line, 2 * i + 1);
                    at += leg * Vec2::from_angle(heading);
                    at
                })
                .collect()
        })
        .collect()
}

/// Checks the answers once, outside the timing (and whatever the filter).
fn check_answers(lines: &[Vec<Vec2>], path: &mut TurningPath) {
    for points in lines {
        path.build_into(points, RADIUS).expect("random walks build");
        let end = path.segments()[path.segments().len() - 1].end().position;
        assert!(
            end.distance(points[points.len() - 1]) < 1e-3,
            "ends at the goal"
        );
        let tight = path
            .segments()
            .iter()
            .any(|s| matches!(*s, Segment::Arc { radius, .. } if radius < RADIUS));
        assert!(!tight, "an arc tighter than the radius");
    }
}

fn turning(c: &mut Criterion) {
    let mut path = TurningPath::new();
    for points in [4u64, 16] {
        let lines = polylines(points);
        check_answers(&lines, &mut path);
        let mut group = c.benchmark_group(format!("turning/{points}_points"));
        group.throughput(Throughput::Elements(POLYLINES));
        group.bench_function(BenchmarkId::from_parameter("build_into"), |b| {
            b.iter(|| {
                let mut total = 0.0;
                for points in &lines {
                    path.build_into(black_box(points), RADIUS).expect("checked");
                    total += path.length();
                }
                total
            })
        });
        path.build_into(&lines[0], RADIUS).expect("checked");
        let step = path.length() / POLYLINES as f32;
        group.bench_function(BenchmarkId::from_parameter("point_at"), |b| {
            b.iter(|| {
                (0..POLYLINES)
                    .filter_map(|i| path.point_at(black_box(i as f32 * step)))
                    .map(|p| p.position.x)
                    .sum::<f32>()
            })
        });
        bench_following(&mut group, &lines, &mut path);
        group.finish();
    }
}

/// One unit per polyline, somewhere along its curve (at the following
/// radius), turning the corner it is at: what the follow pass does for a
/// wheeled unit each tick.
fn bench_following(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    lines: &[Vec<Vec2>],
    path: &mut TurningPath,
) {
    let wheels = Wheels::new(RADIUS, 1.2, 22.0, 8.0).expect("a radius");
    let units: Vec<(Vec2, usize)> = lines
        .iter()
        .enumerate()
        .map(|(line, points)| {
            path.build_into(points, following_radius(RADIUS))
                .expect("random walks build");
            let along = path.length() * unit_f32(12, line as u64, 0);
            let here = path.point_at(along).expect("built").position;
            // The corner it is at, as the follow pass keeps it.
            let next = curve_drive_to(&points[1..], points[0], 0, here, &wheels, None).next;
            (here, next)
        })
        .collect();
    group.bench_function(BenchmarkId::from_parameter("curve_drive_to"), |b| {
        b.iter(|| {
            lines
                .iter()
                .zip(&units)
                .filter_map(|(points, &(here, next))| {
                    let route = &points[1..];
                    curve_drive_to(route, points[0], next, black_box(here), &wheels, None).drive_to
                })
                .map(|target| target.x)
                .sum::<f32>()
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_profiler(common::FlamegraphProfiler::new(997));
    targets = turning
}
criterion_main!(benches);
