//! Units through the C ABI: spawn and despawn with `uint64_t` handles,
//! move, group and stop orders, movement states and the radius query.
//!
//! A handle packs a `UnitId`: its generation in the high 32 bits, its slot
//! index in the low 32 ([`convoy_unit_handle`] packs a row of the `unit_id`
//! column the same way).

use convoy::glam::Vec2;
use convoy::{
    Bounds, FactionId, MobilityClass, OrderError, QueryError, QueryFilter, QueryHit, Sim, UnitId,
    UnitSpec, VehicleKind,
};

use crate::status::{ConvoyStatus, Failure};
use crate::views::ConvoyUnitId;
use crate::{ConvoySim, with_sim, with_sim_mut};

/// Kind: tanks, slow, turn in place.
pub const CONVOY_KIND_TRACKED: u8 = 0;
/// Kind: trucks, fast, turn no tighter than their radius, reverse.
pub const CONVOY_KIND_WHEELED: u8 = 1;
/// Kind: helicopters, fly at cruise altitude.
pub const CONVOY_KIND_ROTARY_WING: u8 = 2;
/// Kind: soldiers.
pub const CONVOY_KIND_INFANTRY: u8 = 3;
/// Kind: starships, turn on a wide radius.
pub const CONVOY_KIND_STARSHIP: u8 = 4;

/// Move state: its path request waits or is being searched.
pub const CONVOY_MOVE_WAITING_FOR_PATH: u8 = 0;
/// Move state: on its way.
pub const CONVOY_MOVE_MOVING: u8 = 1;
/// Move state: within its arrival radius of its goal (also after a stop).
pub const CONVOY_MOVE_ARRIVED: u8 = 2;
/// Move state: its last path request found no path; it holds.
pub const CONVOY_MOVE_NO_PATH: u8 = 3;
/// Move state: no progress toward its drive-to point for 10 s.
pub const CONVOY_MOVE_STUCK: u8 = 4;

/// A query filter value that accepts any faction or any kind.
pub const CONVOY_ANY: i32 = -1;

/// The `UnitId` a handle packs.
pub(crate) fn unit_of(handle: u64) -> UnitId {
    UnitId {
        index: handle as u32,
        generation: (handle >> 32) as u32,
    }
}

/// The handle that packs `unit`.
pub(crate) fn handle_of(unit: UnitId) -> u64 {
    (u64::from(unit.generation) << 32) | u64::from(unit.index)
}

/// The `uint64_t` handle of a row of the `unit_id` column: `generation <<
/// 32 | index`.
#[unsafe(no_mangle)]
pub extern "C" fn convoy_unit_handle(id: ConvoyUnitId) -> u64 {
    handle_of(UnitId {
        index: id.index,
        generation: id.generation,
    })
}

/// Spawns a unit of `kind` (a `CONVOY_KIND_*`) at (`x`, `y`) on side
/// `faction` (0 if you have none) with that kind's defaults, and writes its
/// handle to `*out`.
///
/// # Safety
/// `sim` is NULL or live; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_spawn(
    sim: *mut ConvoySim,
    kind: u8,
    x: f32,
    y: f32,
    faction: u16,
    out: *mut u64,
) -> ConvoyStatus {
    unsafe { convoy_spawn_in_class(sim, kind, x, y, faction, 0, out) }
}

/// [`convoy_spawn`] in mobility class `mobility` (0 is the map's own; `k`
/// is `ConvoyConfig::mobility_classes[k - 1]`): the unit plans, steers and
/// is kept off walls as that class sees the map, and must start on ground
/// it can stand on.
///
/// # Safety
/// `sim` is NULL or live; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_spawn_in_class(
    sim: *mut ConvoySim,
    kind: u8,
    x: f32,
    y: f32,
    faction: u16,
    mobility: u8,
    out: *mut u64,
) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        let out = unsafe { out.as_mut() }.ok_or_else(|| Failure::null("out"))?;
        let kind = VehicleKind::from_u8(kind)
            .ok_or_else(|| Failure::bad(format!("`kind` must be 0 to 4, was {kind}")))?;
        let spec = UnitSpec::new(kind, Vec2::new(x, y))
            .with_faction(FactionId(faction))
            .with_mobility(MobilityClass(mobility));
        let unit = handle.sim.spawn(&spec).map_err(Failure::bad)?;
        *out = handle_of(unit);
        Ok(())
    })
}

/// Removes a unit; its handle is refused from then on. Rows move (the last
/// row takes its place).
///
/// # Safety
/// `sim` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_despawn(sim: *mut ConvoySim, unit: u64) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        handle.sim.despawn(unit_of(unit)).map_err(stale)?;
        Ok(())
    })
}

/// Orders `unit` to (`x`, `y`). Writes the goal it goes to (the nearest
/// reachable point if that one is not) to `goal_xy[0..2]` unless
/// `goal_xy` is NULL.
///
/// # Safety
/// `sim` is NULL or live; `goal_xy` is NULL or points to 2 writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_order_move(
    sim: *mut ConvoySim,
    unit: u64,
    x: f32,
    y: f32,
    goal_xy: *mut f32,
) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        let goal = handle
            .sim
            .order_move(unit_of(unit), Vec2::new(x, y))
            .map_err(order_failure)?;
        if !goal_xy.is_null() {
            unsafe { write_points(goal_xy, &[goal]) };
        }
        Ok(())
    })
}

/// Orders `count` units to (`goal_x`, `goal_y`) as one group, each to its
/// own destination spot, arriving facing (`facing_x`, `facing_y`) (zero:
/// the way they travel). Writes each unit's spot to `spots_xy[2k..2k+2]`,
/// in `units`' order, unless `spots_xy` is NULL. All or nothing.
///
/// # Safety
/// `sim` is NULL or live; `units` is NULL or points to `count` handles;
/// `spots_xy` is NULL or points to `2 * count` writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_order_group(
    sim: *mut ConvoySim,
    units: *const u64,
    count: usize,
    goal_x: f32,
    goal_y: f32,
    facing_x: f32,
    facing_y: f32,
    spots_xy: *mut f32,
) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        let goal = Vec2::new(goal_x, goal_y);
        let facing = Vec2::new(facing_x, facing_y);
        let spots = unsafe {
            with_units(handle, units, count, |sim, units| {
                sim.order_group(units, goal, facing).map_err(order_failure)
            })
        }?;
        if !spots_xy.is_null() {
            unsafe { write_points(spots_xy, &spots) };
        }
        Ok(())
    })
}

/// Stops `count` units at once: each holds where it stands. All or
/// nothing.
///
/// # Safety
/// `sim` is NULL or live; `units` is NULL or points to `count` handles.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_stop(
    sim: *mut ConvoySim,
    units: *const u64,
    count: usize,
) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| unsafe {
        with_units(handle, units, count, |sim, units| {
            sim.stop(units).map_err(order_failure)
        })
    })
}

/// Writes what `unit` is doing about its goal (a `CONVOY_MOVE_*`) to
/// `*out`.
///
/// # Safety
/// `sim` is NULL or live; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_move_state(
    sim: *const ConvoySim,
    unit: u64,
    out: *mut u8,
) -> ConvoyStatus {
    with_sim(unsafe { sim.as_ref() }, |handle| {
        let out = unsafe { out.as_mut() }.ok_or_else(|| Failure::null("out"))?;
        *out = handle.sim.move_state(unit_of(unit)).map_err(stale)? as u8;
        Ok(())
    })
}

/// [`convoy_group_of`]: the unit moves under no group order.
pub const CONVOY_NO_GROUP: u32 = u32::MAX;

/// Writes the group order `unit` moves under to `*out`, or
/// `CONVOY_NO_GROUP` (the id `CONVOY_EVENT_GROUP_ARRIVED` carries).
///
/// # Safety
/// `sim` is NULL or live; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_group_of(
    sim: *const ConvoySim,
    unit: u64,
    out: *mut u32,
) -> ConvoyStatus {
    with_sim(unsafe { sim.as_ref() }, |handle| {
        let out = unsafe { out.as_mut() }.ok_or_else(|| Failure::null("out"))?;
        let group = handle.sim.group_of(unit_of(unit)).map_err(stale)?;
        *out = group.map_or(CONVOY_NO_GROUP, |group| group.0);
        Ok(())
    })
}

/// Finds the units within `radius` m of (`x`, `y`) (inclusive) on side
/// `faction` and of `kind` (`CONVOY_ANY` for either), nearest first (ties
/// by handle). Writes their number to `*count` and the first
/// `min(*count, capacity)` handles to `out` (NULL when `capacity` is 0).
///
/// # Safety
/// `sim` is NULL or live; `out` is NULL or points to `capacity` writable
/// handles; `count` is NULL or writable.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)] // flat C arguments: a point, a radius, a filter, a buffer
pub unsafe extern "C" fn convoy_units_within(
    sim: *mut ConvoySim,
    x: f32,
    y: f32,
    radius: f32,
    faction: i32,
    kind: i32,
    out: *mut u64,
    capacity: usize,
    count: *mut usize,
) -> ConvoyStatus {
    let query = |sim: &Sim, filter, hits: &mut Vec<QueryHit>| {
        sim.units_within(Vec2::new(x, y), radius, filter, hits)
    };
    unsafe { lend_query(sim, faction, kind, (out, capacity, count), query) }
}

/// Finds the units in the rectangle from (`min_x`, `min_y`) to (`max_x`,
/// `max_y`) (edges included) on side `faction` and of `kind`
/// (`CONVOY_ANY` for either), nearest its centre first (ties by handle);
/// writes their number and the first `capacity` handles as
/// [`convoy_units_within`] does.
///
/// # Safety
/// As [`convoy_units_within`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)] // the C signature: a rectangle, a filter and a buffer
pub unsafe extern "C" fn convoy_units_in_rect(
    sim: *mut ConvoySim,
    min_x: f32,
    min_y: f32,
    max_x: f32,
    max_y: f32,
    faction: i32,
    kind: i32,
    out: *mut u64,
    capacity: usize,
    count: *mut usize,
) -> ConvoyStatus {
    let query = |sim: &Sim, filter, hits: &mut Vec<QueryHit>| {
        let rect = Bounds {
            min: Vec2::new(min_x, min_y),
            max: Vec2::new(max_x, max_y),
        };
        sim.units_in_rect(rect, filter, hits)
    };
    unsafe { lend_query(sim, faction, kind, (out, capacity, count), query) }
}

/// Finds the `k` units nearest (`x`, `y`) on side `faction` and of `kind`
/// (`CONVOY_ANY` for either), nearest first (ties by handle); writes their
/// number and the first `capacity` handles as [`convoy_units_within`]
/// does.
///
/// # Safety
/// As [`convoy_units_within`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)] // the C signature: a point, a filter and a buffer
pub unsafe extern "C" fn convoy_nearest_units(
    sim: *mut ConvoySim,
    x: f32,
    y: f32,
    k: usize,
    faction: i32,
    kind: i32,
    out: *mut u64,
    capacity: usize,
    count: *mut usize,
) -> ConvoyStatus {
    let query = |sim: &Sim, filter, hits: &mut Vec<QueryHit>| {
        sim.nearest_units(Vec2::new(x, y), k, filter, hits)
    };
    unsafe { lend_query(sim, faction, kind, (out, capacity, count), query) }
}

/// Runs `query` into the `Sim`'s hit buffer with the filter `faction`
/// and `kind` describe, then writes the number of hits to `*count` and
/// the first `capacity` handles to `out`.
///
/// # Safety
/// `sim` is NULL or live; `out` is NULL or points to `capacity` writable
/// handles; `count` is NULL or writable.
unsafe fn lend_query(
    sim: *mut ConvoySim,
    faction: i32,
    kind: i32,
    (out, capacity, count): (*mut u64, usize, *mut usize),
    query: impl FnOnce(&Sim, QueryFilter, &mut Vec<QueryHit>) -> Result<(), QueryError>,
) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        let count = unsafe { count.as_mut() }.ok_or_else(|| Failure::null("count"))?;
        if out.is_null() && capacity > 0 {
            return Err(Failure::null("out"));
        }
        let filter = filter(faction, kind)?;
        query(&handle.sim, filter, &mut handle.hits).map_err(Failure::bad)?;
        *count = handle.hits.len();
        for (k, hit) in handle.hits.iter().take(capacity).enumerate() {
            unsafe { out.add(k).write(handle_of(hit.id)) };
        }
        Ok(())
    })
}

/// The query filter `faction` and `kind` (each `CONVOY_ANY` or a value)
/// describe.
fn filter(faction: i32, kind: i32) -> Result<QueryFilter, Failure> {
    let faction = match faction {
        CONVOY_ANY => None,
        value => Some(FactionId(u16::try_from(value).map_err(|_| {
            Failure::bad(format!("`faction` must be -1 or 0 to 65535, was {value}"))
        })?)),
    };
    let kind = match kind {
        CONVOY_ANY => None,
        value => Some(
            u8::try_from(value)
                .ok()
                .and_then(VehicleKind::from_u8)
                .ok_or_else(|| Failure::bad(format!("`kind` must be -1 or 0 to 4, was {value}")))?,
        ),
    };
    Ok(QueryFilter { faction, kind })
}

/// Runs `body` on the `Sim` with the units behind `units` (`count`
/// handles, NULL only when 0), copied into the `Sim`'s reused list: no
/// allocation once the list has held `count` handles.
///
/// # Safety
/// `units` is NULL or points to `count` readable handles.
pub(crate) unsafe fn with_units<T>(
    handle: &mut ConvoySim,
    units: *const u64,
    count: usize,
    body: impl FnOnce(&mut Sim, &[UnitId]) -> Result<T, Failure>,
) -> Result<T, Failure> {
    let handles = match count {
        0 => &[][..],
        _ if units.is_null() => return Err(Failure::null("units")),
        _ => unsafe { std::slice::from_raw_parts(units, count) },
    };
    let mut list = std::mem::take(&mut handle.units);
    list.clear();
    list.extend(handles.iter().map(|&h| unit_of(h)));
    let result = body(&mut handle.sim, &list);
    handle.units = list;
    result
}

/// The `count` points behind `xy` as x, y pairs (NULL only when `count`
/// is 0), the pointer and count named `names` in a refusal.
///
/// # Safety
/// `xy` is NULL or points to `2 * count` readable floats.
pub(crate) unsafe fn read_points(
    xy: *const f32,
    count: usize,
    names: [&str; 2],
) -> Result<Vec<Vec2>, Failure> {
    let floats = count
        .checked_mul(2)
        .filter(|&floats| floats <= isize::MAX as usize / size_of::<f32>())
        .ok_or_else(|| Failure::bad(format!("`{}` is too large: {count}", names[1])))?;
    if count == 0 {
        return Ok(Vec::new());
    }
    if xy.is_null() {
        return Err(Failure::null(names[0]));
    }
    let floats = unsafe { std::slice::from_raw_parts(xy, floats) };
    Ok(floats
        .chunks_exact(2)
        .map(|pair| Vec2::new(pair[0], pair[1]))
        .collect())
}

/// Writes `points` as x, y pairs from `out`.
///
/// # Safety
/// `out` points to `2 * points.len()` writable floats.
pub(crate) unsafe fn write_points(out: *mut f32, points: &[Vec2]) {
    for (k, point) in points.iter().enumerate() {
        unsafe {
            out.add(2 * k).write(point.x);
            out.add(2 * k + 1).write(point.y);
        }
    }
}

/// A stale handle.
pub(crate) fn stale(error: convoy::StaleUnit) -> Failure {
    Failure::new(ConvoyStatus::ConvoyStaleUnit, error.to_string())
}

/// An order the kernel refused.
fn order_failure(error: OrderError) -> Failure {
    let status = match error {
        OrderError::Stale(_) => ConvoyStatus::ConvoyStaleUnit,
        OrderError::Blocked { .. } | OrderError::OtherRegion { .. } => {
            ConvoyStatus::ConvoyUnreachable
        }
        OrderError::BadGoal(_)
        | OrderError::OffMap(_)
        | OrderError::Duplicate(_)
        | OrderError::BadFacing(_) => ConvoyStatus::ConvoyBadArgument,
    };
    Failure::new(status, error.to_string())
}
