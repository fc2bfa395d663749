//! What the C ABI lends out of a `Sim`: the last tick's events as an array
//! of [`ConvoyEvent`], and the columns (positions, velocities, headings,
//! unit ids) as pointer + row count, zero-copy. Both stay valid until the
//! next call that changes the `Sim` (step, spawn, despawn, orders,
//! restore, free).

use convoy::{Event, Sim};

use crate::status::{ConvoyStatus, Failure};
use crate::units::handle_of;
use crate::{ConvoySim, with_sim};

/// Event: the rows were reordered this tick (map rows to units again).
pub const CONVOY_EVENT_ROWS_REORDERED: u8 = 0;
/// Event: the unit `id` came within its arrival radius of its goal.
pub const CONVOY_EVENT_ARRIVED: u8 = 1;
/// Event: the unit's path request found no path; it holds.
pub const CONVOY_EVENT_NO_PATH: u8 = 2;
/// Event: the unit stopped making progress.
pub const CONVOY_EVENT_STUCK: u8 = 3;
/// Event: a stuck unit moves again.
pub const CONVOY_EVENT_UNSTUCK: u8 = 4;
/// Event: every member of platoon `id` stands on its spot.
pub const CONVOY_EVENT_PLATOON_ARRIVED: u8 = 5;
/// Event: a world edit walled unit `id`'s cell; it was moved off.
pub const CONVOY_EVENT_DISPLACED: u8 = 6;
/// Event: the last member of group `id` (a group order) arrived.
pub const CONVOY_EVENT_GROUP_ARRIVED: u8 = 7;

/// One thing that happened in the last tick.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvoyEvent {
    /// What happened: a `CONVOY_EVENT_*`.
    pub kind: u8,
    /// The unit's handle, or the platoon's (packed alike), or the group's
    /// id; 0 for a reorder.
    pub id: u64,
}

/// A row of the `unit_id` column: the unit's handle as two halves
/// (`convoy_unit_handle` packs them).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvoyUnitId {
    /// Slot in the handle table (the low 32 bits of a handle).
    pub index: u32,
    /// The slot's generation (the high 32 bits of a handle).
    pub generation: u32,
}

/// Replaces `out` with the `Sim`'s events (grows only while the world does).
pub(crate) fn collect_events(sim: &Sim, out: &mut Vec<ConvoyEvent>) {
    out.clear();
    out.extend(sim.events().iter().map(|event| {
        let (kind, id) = match *event {
            Event::RowsReordered => (CONVOY_EVENT_ROWS_REORDERED, 0),
            Event::Arrived(unit) => (CONVOY_EVENT_ARRIVED, handle_of(unit)),
            Event::NoPath(unit) => (CONVOY_EVENT_NO_PATH, handle_of(unit)),
            Event::Stuck(unit) => (CONVOY_EVENT_STUCK, handle_of(unit)),
            Event::Unstuck(unit) => (CONVOY_EVENT_UNSTUCK, handle_of(unit)),
            Event::Displaced(unit) => (CONVOY_EVENT_DISPLACED, handle_of(unit)),
            Event::PlatoonArrived(platoon) => (
                CONVOY_EVENT_PLATOON_ARRIVED,
                (u64::from(platoon.generation) << 32) | u64::from(platoon.index),
            ),
            Event::GroupArrived(group) => (CONVOY_EVENT_GROUP_ARRIVED, u64::from(group.0)),
        };
        ConvoyEvent { kind, id }
    }));
}

/// Lends the last step's events: `*events` (an array of `*len`) stays
/// valid until the next step, restore or free; no events after a restore.
///
/// # Safety
/// `sim` is NULL or live; `events` and `len` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_events(
    sim: *const ConvoySim,
    events: *mut *const ConvoyEvent,
    len: *mut usize,
) -> ConvoyStatus {
    with_sim(unsafe { sim.as_ref() }, |handle| unsafe {
        lend(events, len, ["events", "len"], &handle.events)
    })
}

/// Lends the `position` column: `*xy` holds `*rows` x, y pairs of floats
/// (metres, x east, y north), row `k` at `xy[2k]`, `xy[2k+1]`.
///
/// # Safety
/// `sim` is NULL or live; `xy` and `rows` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_positions(
    sim: *const ConvoySim,
    xy: *mut *const f32,
    rows: *mut usize,
) -> ConvoyStatus {
    with_sim(unsafe { sim.as_ref() }, |handle| {
        let column = handle.sim.vehicles().columns().position();
        unsafe { lend(xy.cast(), rows, ["xy", "rows"], column) }
    })
}

/// Lends the `velocity` column: `*rows` x, y pairs of floats, m/s.
///
/// # Safety
/// `sim` is NULL or live; `xy` and `rows` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_velocities(
    sim: *const ConvoySim,
    xy: *mut *const f32,
    rows: *mut usize,
) -> ConvoyStatus {
    with_sim(unsafe { sim.as_ref() }, |handle| {
        let column = handle.sim.vehicles().columns().velocity();
        unsafe { lend(xy.cast(), rows, ["xy", "rows"], column) }
    })
}

/// Lends the `heading` column: `*rows` floats, radians from +x
/// counter-clockwise.
///
/// # Safety
/// `sim` is NULL or live; `headings` and `rows` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_headings(
    sim: *const ConvoySim,
    headings: *mut *const f32,
    rows: *mut usize,
) -> ConvoyStatus {
    with_sim(unsafe { sim.as_ref() }, |handle| unsafe {
        lend(
            headings,
            rows,
            ["headings", "rows"],
            handle.sim.vehicles().columns().heading(),
        )
    })
}

/// Lends the `unit_id` column: row `k`'s unit, to map rows to entities in
/// one pass after a reorder or despawn.
///
/// # Safety
/// `sim` is NULL or live; `ids` and `rows` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_unit_ids(
    sim: *const ConvoySim,
    ids: *mut *const ConvoyUnitId,
    rows: *mut usize,
) -> ConvoyStatus {
    with_sim(unsafe { sim.as_ref() }, |handle| {
        let column = handle.sim.vehicles().columns().unit_id();
        unsafe { lend(ids.cast(), rows, ["ids", "rows"], column) }
    })
}

/// Writes `slice`'s pointer and length through `ptr` and `len`, naming
/// them `names` when NULL.
///
/// # Safety
/// `ptr` and `len` are NULL or writable.
unsafe fn lend<T>(
    ptr: *mut *const T,
    len: *mut usize,
    names: [&str; 2],
    slice: &[T],
) -> Result<(), Failure> {
    let ptr = unsafe { ptr.as_mut() }.ok_or_else(|| Failure::null(names[0]))?;
    let len = unsafe { len.as_mut() }.ok_or_else(|| Failure::null(names[1]))?;
    *ptr = slice.as_ptr();
    *len = slice.len();
    Ok(())
}
