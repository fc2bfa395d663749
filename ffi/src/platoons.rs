//! Platoons through the C ABI: form one from a list of units
//! ([`ConvoyPlatoonSpec`], from [`convoy_platoon_spec_force21`] or
//! [`convoy_platoon_spec_squad`]), order it, change its formation, disband
//! it, and read its phase and position ([`ConvoyPlatoonState`]).
//!
//! A platoon handle packs a `PlatoonId` as a unit handle packs a `UnitId`
//! (generation high, index low): the `id` of a
//! `CONVOY_EVENT_PLATOON_ARRIVED` event is one.

use convoy::glam::Vec2;
use convoy::{
    Formation, Phase, PlatoonError, PlatoonId, PlatoonSpec, SlotRule, Softening, StaleUnit,
};

use crate::status::{ConvoyStatus, Failure};
use crate::units::{handle_of, stale, unit_of, with_units};
use crate::{ConvoySim, with_sim, with_sim_mut};

/// Formation: single file along the path.
pub const CONVOY_FORMATION_COLUMN: u8 = 0;
/// Formation: abreast, centred on the lead.
pub const CONVOY_FORMATION_LINE: u8 = 1;
/// Formation: an arrowhead pointing forward.
pub const CONVOY_FORMATION_WEDGE: u8 = 2;
/// Formation: an arrowhead pointing back.
pub const CONVOY_FORMATION_VEE: u8 = 3;
/// Formation: a diagonal line back and to the left.
pub const CONVOY_FORMATION_ECHELON_LEFT: u8 = 4;
/// Formation: a diagonal line back and to the right.
pub const CONVOY_FORMATION_ECHELON_RIGHT: u8 = 5;
/// Formation: two files, alternate members offset (roads).
pub const CONVOY_FORMATION_STAGGERED_COLUMN: u8 = 6;
/// Formation: a broad, shallow wedge (open ground).
pub const CONVOY_FORMATION_WIDE_WEDGE: u8 = 7;
/// Formation: a narrow, deep wedge (confined ground).
pub const CONVOY_FORMATION_TIGHT_WEDGE: u8 = 8;

/// Platoon phase: no order; members hold formation.
pub const CONVOY_PHASE_HOLDING: u8 = 0;
/// Platoon phase: ordered; its path is being planned.
pub const CONVOY_PHASE_PLANNING: u8 = 1;
/// Platoon phase: moving along its path.
pub const CONVOY_PHASE_MOVING: u8 = 2;
/// Platoon phase: at the end of its path; members drive to their spots.
pub const CONVOY_PHASE_SETTLING: u8 = 3;
/// Platoon phase: every member stands on its destination spot.
pub const CONVOY_PHASE_ARRIVED: u8 = 4;

/// How a platoon moves; checked by [`convoy_create_platoon`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConvoyPlatoonSpec {
    /// The starting shape, a `CONVOY_FORMATION_*`.
    pub formation: u8,
    /// Distance between neighbouring slots, metres (0 to 1000, exclusive
    /// of 0).
    pub spacing_m: f32,
    /// Followers aim at their slot this many seconds ahead on the path
    /// (0 to 60).
    pub lookahead_s: f32,
    /// Radius of each member's slow drift around its slot, metres.
    pub drift_m: f32,
    /// Choose the shape from the ground (wide wedge in the open, tight
    /// wedge where confined) instead of `formation`.
    pub context: bool,
    /// Blocked slots: false pulls them toward the path (Force 21), true
    /// searches a little around them (Company of Heroes).
    pub bounded_search: bool,
    /// Members: false keeps each in its slot (Force 21), true packs them
    /// into the first slots (Company of Heroes).
    pub packed_slots: bool,
    /// The side the platoon plans for (bridges on polygon maps).
    pub faction: u16,
    /// Element leaders leapfrog to a point of interest this near their
    /// slot, metres; 0 never.
    pub leapfrog_m: f32,
    /// How long a leapfrogging leader holds at the point, seconds.
    pub leapfrog_hold_s: f32,
}

/// One platoon as [`convoy_platoon_state`] reads it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConvoyPlatoonState {
    /// Where it is in carrying out its order, a `CONVOY_PHASE_*`.
    pub phase: u8,
    /// Its formation (the one it changes to while it morphs), a
    /// `CONVOY_FORMATION_*`.
    pub formation: u8,
    /// How many members it has.
    pub members: u32,
    /// Its position (the lead slot, on its path), x.
    pub x: f32,
    /// Its position, y.
    pub y: f32,
    /// Its heading, radians from +x.
    pub heading: f32,
    /// Its speed along its path this tick, m/s.
    pub speed: f32,
    /// The ordered destination, x (its position before any order).
    pub goal_x: f32,
    /// The ordered destination, y.
    pub goal_y: f32,
}

/// The kernel's form of `spec`, or `None` if its formation is none.
fn kernel_spec(spec: ConvoyPlatoonSpec) -> Option<PlatoonSpec> {
    Some(PlatoonSpec {
        formation: Formation::from_u8(spec.formation)?,
        spacing_m: spec.spacing_m,
        lookahead_s: spec.lookahead_s,
        drift_m: spec.drift_m,
        context: spec.context,
        softening: if spec.bounded_search {
            Softening::BoundedSearch
        } else {
            Softening::PullToPath
        },
        slots: if spec.packed_slots {
            SlotRule::Packed
        } else {
            SlotRule::Fixed
        },
        faction: spec.faction,
        leapfrog_m: spec.leapfrog_m,
        leapfrog_hold_s: spec.leapfrog_hold_s,
    })
}

/// The C form of `spec`.
fn c_spec(spec: PlatoonSpec) -> ConvoyPlatoonSpec {
    ConvoyPlatoonSpec {
        formation: spec.formation as u8,
        spacing_m: spec.spacing_m,
        lookahead_s: spec.lookahead_s,
        drift_m: spec.drift_m,
        context: spec.context,
        bounded_search: spec.softening == Softening::BoundedSearch,
        packed_slots: spec.slots == SlotRule::Packed,
        faction: spec.faction,
        leapfrog_m: spec.leapfrog_m,
        leapfrog_hold_s: spec.leapfrog_hold_s,
    }
}

/// Force 21 platoon movement: a wedge, 12 m spacing, slots 2 s ahead,
/// blocked slots pulled to the path, members fixed in their slots.
#[unsafe(no_mangle)]
pub extern "C" fn convoy_platoon_spec_force21() -> ConvoyPlatoonSpec {
    c_spec(PlatoonSpec::force21(Formation::Wedge))
}

/// Company of Heroes squad movement with `spacing_m` between slots: a wide
/// wedge chosen by the ground, drift, bounded-search softening, packed
/// slots. `spacing_m` is checked by [`convoy_create_platoon`].
#[unsafe(no_mangle)]
pub extern "C" fn convoy_platoon_spec_squad(spacing_m: f32) -> ConvoyPlatoonSpec {
    c_spec(PlatoonSpec::squad(spacing_m))
}

/// The handle that packs `platoon`.
pub(crate) fn platoon_handle(platoon: PlatoonId) -> u64 {
    handle_of(convoy::UnitId {
        index: platoon.index,
        generation: platoon.generation,
    })
}

/// The `PlatoonId` a handle packs.
fn platoon_of(handle: u64) -> PlatoonId {
    PlatoonId {
        index: handle as u32,
        generation: (handle >> 32) as u32,
    }
}

/// Forms a platoon of `count` units (1 to 16; slot `k` for `units[k]`, none
/// already in a platoon) at the first unit's position and heading, holding
/// formation until ordered, and writes its handle to `*out`. Reserves
/// room for its events (allocates).
///
/// # Safety
/// `sim` is NULL or live; `units` is NULL or points to `count` handles;
/// `spec` is NULL or readable; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_create_platoon(
    sim: *mut ConvoySim,
    units: *const u64,
    count: usize,
    spec: *const ConvoyPlatoonSpec,
    out: *mut u64,
) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        let out = unsafe { out.as_mut() }.ok_or_else(|| Failure::null("out"))?;
        let spec = unsafe { spec.as_ref() }.ok_or_else(|| Failure::null("spec"))?;
        let spec = kernel_spec(*spec).ok_or_else(|| {
            Failure::bad(format!(
                "spec `formation` must be 0 to 8, was {}",
                spec.formation
            ))
        })?;
        let platoon = unsafe {
            with_units(handle, units, count, |sim, units| {
                sim.create_platoon(units, &spec).map_err(platoon_failure)
            })
        }?;
        *out = platoon_handle(platoon);
        Ok(())
    })
}

/// Orders `platoon` to (`x`, `y`), facing `*facing` radians on arrival, or
/// the direction of the move when `facing` is NULL. Its path is planned by
/// the next steps; each member's goal becomes its reserved destination
/// spot (the reservation may allocate).
///
/// # Safety
/// `sim` is NULL or live; `facing` is NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_order_platoon(
    sim: *mut ConvoySim,
    platoon: u64,
    x: f32,
    y: f32,
    facing: *const f32,
) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        let facing = unsafe { facing.as_ref() }.copied();
        handle
            .sim
            .order_platoon(platoon_of(platoon), Vec2::new(x, y), facing)
            .map_err(platoon_failure)
    })
}

/// Changes `platoon`'s shape to `formation` (a `CONVOY_FORMATION_*`); its
/// slots morph to it over 1.5 s.
///
/// # Safety
/// `sim` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_set_formation(
    sim: *mut ConvoySim,
    platoon: u64,
    formation: u8,
) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        let shape = Formation::from_u8(formation)
            .ok_or_else(|| Failure::bad(format!("`formation` must be 0 to 8, was {formation}")))?;
        handle
            .sim
            .set_formation(platoon_of(platoon), shape)
            .map_err(platoon_failure)
    })
}

/// Dissolves `platoon`: its members become solo units where they stand;
/// its handle is refused from then on.
///
/// # Safety
/// `sim` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_disband_platoon(sim: *mut ConvoySim, platoon: u64) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        handle
            .sim
            .disband_platoon(platoon_of(platoon))
            .map_err(platoon_failure)
    })
}

/// Adds `unit` (in no platoon) to `platoon` in its first empty slot, and
/// writes that slot to `*slot` (NULL: not wanted). If the platoon is
/// ordered, the unit heads for that slot's spot.
///
/// # Safety
/// `sim` is NULL or live; `slot` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_join_platoon(
    sim: *mut ConvoySim,
    platoon: u64,
    unit: u64,
    slot: *mut u32,
) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        let seat = handle
            .sim
            .join_platoon(platoon_of(platoon), unit_of(unit))
            .map_err(platoon_failure)?;
        if let Some(slot) = unsafe { slot.as_mut() } {
            *slot = seat as u32;
        }
        Ok(())
    })
}

/// Takes `unit` out of its platoon (nothing if it is in none).
///
/// # Safety
/// `sim` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_leave_platoon(sim: *mut ConvoySim, unit: u64) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        handle
            .sim
            .leave_platoon(unit_of(unit))
            .map_err(platoon_failure)
    })
}

/// Writes `platoon`'s phase, formation, member count, position, heading,
/// speed and goal to `*out`.
///
/// # Safety
/// `sim` is NULL or live; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_platoon_state(
    sim: *const ConvoySim,
    platoon: u64,
    out: *mut ConvoyPlatoonState,
) -> ConvoyStatus {
    with_sim(unsafe { sim.as_ref() }, |handle| {
        let out = unsafe { out.as_mut() }.ok_or_else(|| Failure::null("out"))?;
        let id = platoon_of(platoon);
        let view = handle
            .sim
            .platoon(id)
            .ok_or_else(|| platoon_failure(PlatoonError::Stale(id)))?;
        let (position, goal) = (view.position(), view.goal());
        *out = ConvoyPlatoonState {
            phase: match view.phase() {
                Phase::Holding => CONVOY_PHASE_HOLDING,
                Phase::Planning => CONVOY_PHASE_PLANNING,
                Phase::Moving => CONVOY_PHASE_MOVING,
                Phase::Settling => CONVOY_PHASE_SETTLING,
                Phase::Arrived => CONVOY_PHASE_ARRIVED,
            },
            formation: view.formation() as u8,
            members: view.member_count() as u32,
            x: position.x,
            y: position.y,
            heading: view.heading(),
            speed: view.speed(),
            goal_x: goal.x,
            goal_y: goal.y,
        };
        Ok(())
    })
}

/// A platoon call the kernel refused.
fn platoon_failure(error: PlatoonError) -> Failure {
    match error {
        PlatoonError::Stale(_) => Failure::new(ConvoyStatus::ConvoyStalePlatoon, error.to_string()),
        PlatoonError::StaleUnit(unit) => stale(StaleUnit(unit)),
        PlatoonError::AlreadyInPlatoon { .. }
        | PlatoonError::Duplicate(_)
        | PlatoonError::Empty
        | PlatoonError::Full(_)
        | PlatoonError::BadSpec { .. }
        | PlatoonError::BadOrder { .. }
        | PlatoonError::OffMap(_)
        | PlatoonError::MixedMobility { .. } => Failure::bad(error),
    }
}
