//! Stepping through the C ABI keeps the kernel's promise: after warm-up,
//! `convoy_step`, `convoy_events` and the column calls allocate nothing,
//! and neither do the per-unit and per-platoon reads and writes between
//! steps (a counting allocator, armed on the calling thread only).

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

/// Runs `body` with the allocator counting on this thread; returns how
/// many allocations it made.
fn allocations_in(body: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    ARMED.with(|armed| armed.set(true));
    body();
    ARMED.with(|armed| armed.set(false));
    ALLOCATIONS.load(Ordering::Relaxed) - before
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
    assert_eq!(
        allocations_in(|| run(sim, 300)),
        0,
        "allocations in 300 steps"
    );
    unsafe { convoy_sim_free(sim) };
}

#[test]
fn unit_and_platoon_calls_between_steps_allocate_nothing() {
    use ConvoyStatus::ConvoyOk as Ok;
    let mut sim = null_mut();
    assert_eq!(
        unsafe { convoy_sim_new(&convoy_config_default(), &mut sim) },
        Ok
    );
    let units: Vec<u64> = (0..8)
        .map(|k| {
            let mut unit = 0;
            let status = unsafe {
                convoy_spawn(sim, CONVOY_KIND_TRACKED, 12.0 * k as f32, 0.0, 0, &mut unit)
            };
            assert_eq!(status, Ok);
            unit
        })
        .collect();
    let spec = convoy_platoon_spec_force21();
    let mut platoon = 0;
    let status = unsafe { convoy_create_platoon(sim, units[4..].as_ptr(), 4, &spec, &mut platoon) };
    assert_eq!(status, Ok);
    let status = unsafe { convoy_order_platoon(sim, platoon, 100.0, 50.0, null()) };
    assert_eq!(status, Ok);
    // One round of every call warms the buffers they reuse. (`convoy_stop`
    // and `convoy_set_formation` are left out: the kernel's `stop` lists
    // the units' rows, and a formation change reserves spots.)
    let calls = |round: usize| {
        let speed = 5.0 + round as f32;
        let mut params = unsafe { std::mem::zeroed::<ConvoyUnitParams>() };
        let mut state = unsafe { std::mem::zeroed::<ConvoyPlatoonState>() };
        let mut moving = 0;
        for &unit in &units[..4] {
            assert_eq!(unsafe { convoy_unit_params(sim, unit, &mut params) }, Ok);
            params.max_speed = speed;
            assert_eq!(unsafe { convoy_set_unit_params(sim, unit, &params) }, Ok);
            assert_eq!(unsafe { convoy_move_state(sim, unit, &mut moving) }, Ok);
        }
        assert_eq!(
            unsafe { convoy_platoon_state(sim, platoon, &mut state) },
            Ok
        );
        run(sim, 2);
    };
    calls(0);
    let made = allocations_in(|| (1..40).for_each(calls));
    assert_eq!(made, 0, "allocations in 39 rounds of calls");
    let mut params = unsafe { std::mem::zeroed::<ConvoyUnitParams>() };
    assert_eq!(
        unsafe { convoy_unit_params(sim, units[0], &mut params) },
        Ok
    );
    assert_eq!(params.max_speed, 5.0 + 39.0, "the last round's speed holds");
    unsafe { convoy_sim_free(sim) };
}
