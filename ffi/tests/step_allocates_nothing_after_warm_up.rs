//! Stepping through the C ABI keeps the kernel's promise: after warm-up,
//! `convoy_step`, `convoy_events` and the column calls allocate nothing (a
//! counting allocator, armed on this thread only).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};

use convoy_ffi::*;

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if ARMED.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Steps `ticks` ticks, reading the events and positions after each.
fn run(sim: *mut ConvoySim, ticks: usize) {
    for _ in 0..ticks {
        assert_eq!(
            unsafe { convoy_step(sim, 1.0 / 60.0) },
            ConvoyStatus::ConvoyOk
        );
        let (mut events, mut xy, mut len) = (null(), null(), 0);
        assert_eq!(
            unsafe { convoy_events(sim, &mut events, &mut len) },
            ConvoyStatus::ConvoyOk
        );
        assert_eq!(
            unsafe { convoy_positions(sim, &mut xy, &mut len) },
            ConvoyStatus::ConvoyOk
        );
    }
}

#[test]
fn stepping_through_the_c_abi_allocates_nothing_after_warm_up() {
    let mut sim = null_mut();
    assert_eq!(
        unsafe { convoy_sim_new(&convoy_config_default(), &mut sim) },
        ConvoyStatus::ConvoyOk
    );
    let units: Vec<u64> = (0..200)
        .map(|k| {
            let (x, y) = ((k % 20) as f32 * 3.0, (k / 20) as f32 * 3.0);
            let mut unit = 0;
            let status = unsafe { convoy_spawn(sim, CONVOY_KIND_INFANTRY, x, y, 0, &mut unit) };
            assert_eq!(status, ConvoyStatus::ConvoyOk);
            unit
        })
        .collect();
    let order =
        unsafe { convoy_order_group(sim, units.as_ptr(), 200, 80.0, 40.0, 0.0, 0.0, null_mut()) };
    assert_eq!(order, ConvoyStatus::ConvoyOk);
    run(sim, 120);
    ARMED.with(|armed| armed.set(true));
    run(sim, 300);
    ARMED.with(|armed| armed.set(false));
    assert_eq!(
        ALLOCATIONS.load(Ordering::Relaxed),
        0,
        "allocations in 300 steps"
    );
    unsafe { convoy_sim_free(sim) };
}
