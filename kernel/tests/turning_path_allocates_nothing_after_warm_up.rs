//! A warmed-up `TurningPath` rebuilds, evaluates and samples without touching
//! the allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use convoy::glam::Vec2;
use convoy::random::unit_f32;
use convoy::steer::turning::TurningPath;

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

#[test]
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
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let again = run(&mut path);
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    assert_eq!(after - before, 0, "allocations after warm-up");
    assert_eq!(
        warm.to_bits(),
        again.to_bits(),
        "the warm run answers the same"
    );
}
