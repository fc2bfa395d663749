//! A warmed-up `TurningPath` rebuilds, evaluates and samples without touching
//! the allocator.

use convoy::glam::Vec2;
use convoy::nav::turning::TurningPath;
use convoy::random::unit_f32;

mod counting_allocator;
use counting_allocator::{CountingAllocator, allocations_during};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Seeded polylines of 2 to 12 points in a 200 m square.
fn polylines() -> Vec<Vec<Vec2>> {
    (0..200u64)
        .map(|line| {
            let count = 2 + (unit_f32(7, line, 0) * 11.0) as u64;
            (0..count)
                .map(|i| {
                    let coordinate = |axis| 200.0 * unit_f32(7, line, 1 + 2 * i + axis) - 100.0;
                    Vec2::new(coordinate(0), coordinate(1))
                })
                .collect()
        })
        .collect()
}

/// Run without libtest's harness: the counting allocator counts every
/// thread, and the harness's own threads may allocate at any moment.
fn main() {
    rebuilding_a_warm_path_allocates_nothing();
    println!("turning_path_allocates_nothing_after_warm_up: ok");
}

fn rebuilding_a_warm_path_allocates_nothing() {
    let lines = polylines();
    let mut path = TurningPath::new();
    let run = |path: &mut TurningPath| {
        let mut total = 0.0;
        for (index, points) in lines.iter().enumerate() {
            let radius = 1.0 + (index % 17) as f32;
            path.build_into(points, radius)
                .expect("random polylines build");
            total += path.length();
            let probe = path.point_at(0.5 * path.length()).expect("non-empty");
            total += probe.position.x + probe.heading();
            total += path.samples(64).map(|p| p.position.y).sum::<f32>();
        }
        total
    };
    let warm = run(&mut path);
    let (allocations, again) = allocations_during(|| run(&mut path));
    assert_eq!(allocations, 0, "allocations after warm-up");
    assert_eq!(
        warm.to_bits(),
        again.to_bits(),
        "the warm run answers the same"
    );
}
