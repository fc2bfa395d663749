//! A `Sim` stepped on one thread with no pool, in its own pool of two
//! threads, or in an engine's pool of three ends bit-identical; and after
//! warm-up a `Sim` stepped on another thread than the one that built it
//! allocates nothing: with no pool on any thread, with the engine's pool
//! from inside that pool (a counting allocator).
//!
//! Without libtest's harness (`harness = false`): the harness's own threads
//! would be counted.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use convoy::glam::Vec2;
use convoy::rayon::{self, ThreadPoolBuilder};
use convoy::{Bounds, Sim, SimConfig, UnitSpec, VehicleKind};

mod counting_allocator;
use counting_allocator::{CountingAllocator, allocations_during};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

const DT: f32 = 1.0 / 60.0;

fn main() {
    let engine_pool = Arc::new(ThreadPoolBuilder::new().num_threads(3).build().unwrap());
    let one = std::thread::spawn(|| crowd(1, None, 20)).join().unwrap();
    let two = std::thread::spawn(|| crowd(2, None, 20)).join().unwrap();
    let pooled = crowd(0, Some(Arc::clone(&engine_pool)), 20);
    assert_eq!((one.threads(), two.threads(), pooled.threads()), (1, 2, 3));
    assert_ne!(
        one.checksum(),
        crowd(1, None, 0).checksum(),
        "the crowd moved"
    );
    assert_eq!(one.checksum(), two.checksum(), "1 and 2 threads");
    assert_eq!(
        one.checksum(),
        pooled.checksum(),
        "1 thread and the engine's pool"
    );

    // Built here, stepped on another thread.
    let mut alone = crowd(1, None, 0);
    let counted = std::thread::spawn(move || {
        for _ in 0..10 {
            alone.step(DT);
        }
        allocations_during(|| (0..100).for_each(|_| alone.step(DT))).0
    });
    assert_eq!(counted.join().unwrap(), 0, "one thread, stepped on another");

    let mut shared = crowd(0, Some(Arc::clone(&engine_pool)), 0);
    let counted = engine_pool.install(|| {
        for _ in 0..10 {
            shared.step(DT);
        }
        allocations_during(|| (0..100).for_each(|_| shared.step(DT))).0
    });
    assert_eq!(counted, 0, "the engine's pool, stepped from inside it");
    println!("threads_change_neither_bits_nor_allocations: ok");
}

/// 20,000 infantry 3 m apart (enough for every parallel pass to split),
/// half sent north and half south through each other, after `ticks` ticks.
fn crowd(threads: usize, pool: Option<Arc<rayon::ThreadPool>>, ticks: usize) -> Sim {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-400.0), Vec2::splat(400.0)));
    config.threads = threads;
    config.pool = pool;
    let mut sim = Sim::new(config).unwrap();
    for k in 0..20_000 {
        let at = Vec2::new(
            (k % 200) as f32 * 3.0 - 300.0,
            (k / 200) as f32 * 3.0 - 150.0,
        );
        let id = sim
            .spawn(&UnitSpec::new(VehicleKind::Infantry, at))
            .unwrap();
        let goal = Vec2::new(at.x, if k % 2 == 0 { 200.0 } else { -200.0 });
        sim.order_move(id, goal).unwrap();
    }
    for _ in 0..ticks {
        sim.step(DT);
    }
    sim
}
