//! Platoons: stable handles, their state, and slot assignment.
//!
//! A platoon (Force 21 §2) is a group of at most [`MAX_MEMBERS`] units
//! moved as one: it has its own position, heading and path, and each
//! member is fixed to a formation slot. Its record is plain data
//! ([`Platoon`], `Pod`), so the store saves as bytes in snapshots and the
//! `formations` stage works through it without allocating.
//!
//! Slots follow one of two rules ([`SlotRule`]). `Fixed` is Force 21's: "a
//! vehicle does not get promoted up as other vehicles are removed or
//! destroyed", so a lost unit leaves its slot empty. `Packed` is Company
//! of Heroes' stable assignment (Kozlowski & Ross, "Squad formations"): the
//! occupied slots are always the first ones, and a change makes the
//! fewest moves that restore that — a reinforcement takes the first empty
//! slot and nobody else moves; a loss moves only the unit in the last
//! occupied slot into the hole.

use bytemuck::{Pod, Zeroable};
use glam::Vec2;
use thiserror::Error;

use rustc_hash::FxHashMap;

pub mod shape;
mod spec;

use crate::data::routes::{ROUTE_POINTS, Routes};
#[cfg(any(test, feature = "internals"))]
use crate::geometry::polyline::PathView;
use crate::geometry::polyline::measure_legs;
pub use shape::{Formation, MAX_MEMBERS, to_world};
pub use spec::{MAX_LOOKAHEAD_S, MAX_SPACING_M, PlatoonSpec, SlotRule, Softening};
use crate::data::vehicles::{NONE, UnitId};

/// A stable handle to a platoon: valid until it is disbanded.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Pod, Zeroable)]
pub struct PlatoonId {
    /// Slot in the platoon store.
    pub index: u32,
    /// Bumped when the slot is freed, so stale handles are refused.
    pub generation: u32,
}

/// The empty member slot.
pub const EMPTY: UnitId = UnitId {
    index: NONE,
    generation: NONE,
};


/// Where a platoon is in carrying out its order.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// No order: the members hold formation around the platoon.
    Holding = 0,
    /// Ordered; its path is being planned.
    Planning = 1,
    /// Moving along its path.
    Moving = 2,
    /// At the end of its path; members drive to their destination spots.
    Settling = 3,
    /// Every member stands on its destination spot.
    Arrived = 4,
}

impl Phase {
    /// The phase stored as `value`.
    #[must_use]
    pub fn from_u32(value: u32) -> Phase {
        match value {
            1 => Phase::Planning,
            2 => Phase::Moving,
            3 => Phase::Settling,
            4 => Phase::Arrived,
            _ => Phase::Holding,
        }
    }
}

/// One platoon's record: its order, its movement along its path, its
/// members and what the `formations` stage wrote for them this tick.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Platoon {
    /// Handle generation of this store slot.
    pub generation: u32,
    /// 1 while the platoon exists.
    pub live: u32,
    /// [`Phase`] as `u32`.
    pub phase: u32,
    /// The shape ([`Formation`] as `u32`).
    pub formation: u32,
    /// The shape it is changing from.
    pub previous_formation: u32,
    /// Progress of the change, 0 (old shape) to 1 (new shape).
    pub morph: f32,
    /// The platoon's position: the lead slot, on its path.
    pub position: Vec2,
    /// The platoon's heading, radians from +x.
    pub heading: f32,
    /// Its speed along the path this tick, m/s.
    pub speed: f32,
    /// The ordered destination.
    pub goal: Vec2,
    /// The ordered final facing, radians (NaN: face the move direction).
    pub facing: f32,
    /// Where the current path starts (the platoon's position when planned).
    pub path_start: Vec2,
    /// The heading when the path was planned (Force 21's extra segment
    /// behind the start of a column's path).
    pub start_heading: f32,
    /// Metres travelled along the path.
    pub travelled: f32,
    /// Corners in the platoon's route (after `path_start`).
    pub route_len: u32,
    /// Length of the path, metres.
    pub route_length: f32,
    /// 1 while a path request for the platoon waits in the queue.
    pub route_pending: u32,
    /// Spacing, lookahead, drift radius (see [`PlatoonSpec`]).
    pub spacing_m: f32,
    /// See [`PlatoonSpec::lookahead_s`].
    pub lookahead_s: f32,
    /// See [`PlatoonSpec::drift_m`].
    pub drift_m: f32,
    /// Bit 0: formation context; bits 8–15: [`Softening`]; bits 16–23:
    /// [`SlotRule`].
    pub flags: u32,
    /// Bit `k` set: `spots[k]` is reserved.
    pub reserved_spots: u32,
    /// The id of the bridge on the current route not yet crossed, or
    /// [`NONE`]. A route holds at most one: the `paths` stage cuts it after
    /// the bridge's far end.
    pub bridge: u32,
    /// Arc lengths of the bridge's near and far ends along the path.
    pub bridge_span: [f32; 2],
    /// The bridge's near and far ends (where the deck is, whatever the
    /// route: the holder gives it up once every member is off it).
    pub bridge_deck: [Vec2; 2],
    /// 1 while the platoon holds its bridge (one platoon at a time).
    pub on_bridge: u32,
    /// The shape to take again after the bridge (a platoon crosses in
    /// column), or [`NONE`].
    pub resume_formation: u32,
    /// 1 when the platoon came to its bridge and found it gone: after the
    /// tick its faction learns so and the platoon replans.
    pub bridge_gone: u32,
    /// Its faction ([`PlatoonSpec::faction`]).
    pub faction: u32,
    /// The unit in each slot, or [`EMPTY`].
    pub members: [UnitId; MAX_MEMBERS],
    /// Each slot's reserved destination spot.
    pub spots: [Vec2; MAX_MEMBERS],
    /// Each slot's drift offset (platoon frame), metres.
    pub drift: [Vec2; MAX_MEMBERS],
    /// How far each slot is pulled toward the path, 0 to 1.
    pub pull: [f32; MAX_MEMBERS],
    /// Each slot's drive-to point this tick.
    pub targets: [Vec2; MAX_MEMBERS],
    /// Each slot's speed limit this tick, m/s.
    pub cruise: [f32; MAX_MEMBERS],
    /// Each member's distance from its slot this tick, metres (NaN: empty
    /// slot, or a leader leapfrogging).
    pub error: [f32; MAX_MEMBERS],
    /// See [`PlatoonSpec::leapfrog_m`].
    pub leapfrog_m: f32,
    /// See [`PlatoonSpec::leapfrog_hold_s`].
    pub leapfrog_hold_s: f32,
    /// Bit `k` set: the leader in slot `k` is leapfrogging to
    /// `leap_point[k]`.
    pub leaping: u32,
    /// Each slot's point of interest: where it leapfrogs, or last did (NaN:
    /// none yet).
    pub leap_point: [Vec2; MAX_MEMBERS],
    /// Seconds each leapfrogging leader still holds at its point.
    pub leap_hold: [f32; MAX_MEMBERS],
}

const CONTEXT_FLAG: u32 = 1;

impl Platoon {
    fn new(spec: &PlatoonSpec, generation: u32, position: Vec2, heading: f32) -> Platoon {
        let formation = spec.formation as u32;
        let flags =
            u32::from(spec.context) | (spec.softening as u32) << 8 | (spec.slots as u32) << 16;
        Platoon {
            generation,
            live: 1,
            phase: Phase::Holding as u32,
            formation,
            previous_formation: formation,
            morph: 1.0,
            position,
            heading,
            goal: position,
            facing: f32::NAN,
            path_start: position,
            start_heading: heading,
            spacing_m: spec.spacing_m,
            lookahead_s: spec.lookahead_s,
            drift_m: spec.drift_m,
            leapfrog_m: spec.leapfrog_m,
            leapfrog_hold_s: spec.leapfrog_hold_s,
            flags,
            bridge: NONE,
            resume_formation: NONE,
            faction: u32::from(spec.faction),
            members: [EMPTY; MAX_MEMBERS],
            error: [f32::NAN; MAX_MEMBERS],
            leap_point: [Vec2::NAN; MAX_MEMBERS],
            ..Platoon::zeroed()
        }
    }

    /// Its phase.
    #[must_use]
    pub fn phase(&self) -> Phase {
        Phase::from_u32(self.phase)
    }

    /// Its current shape.
    #[must_use]
    pub fn formation(&self) -> Formation {
        Formation::from_u8(self.formation as u8).unwrap_or_default()
    }

    /// The shape it is changing from.
    #[must_use]
    pub fn previous_formation(&self) -> Formation {
        Formation::from_u8(self.previous_formation as u8).unwrap_or_default()
    }

    /// Starts morphing to `formation` (nothing if it is the current shape).
    pub(crate) fn change_formation(&mut self, formation: Formation) {
        if self.formation() != formation {
            self.previous_formation = self.formation;
            self.formation = formation as u32;
            self.morph = 0.0;
        }
    }

    /// The shape it was ordered into: its current one, or while it crosses
    /// a bridge in column, the one it takes again after.
    #[must_use]
    pub fn ordered_formation(&self) -> Formation {
        if self.resume_formation == NONE {
            self.formation()
        } else {
            Formation::from_u8(self.resume_formation as u8).unwrap_or_default()
        }
    }

    /// Gives its bridge up (if any) and takes its own shape again.
    pub(crate) fn release_bridge(&mut self) {
        self.on_bridge = 0;
        self.bridge = NONE;
        if self.resume_formation != NONE {
            let resume = self.ordered_formation();
            self.resume_formation = NONE;
            self.change_formation(resume);
        }
    }

    /// How far apart this platoon's destination spots and any other
    /// reserved spot must be.
    #[must_use]
    pub fn spot_gap(&self) -> f32 {
        self.spacing_m.min(SPOT_GAP_M) * 0.999
    }

    /// How far along its path the platoon may go now: its path's end, or
    /// two spacings short of the near end of a bridge it does not hold
    /// (back from the deck, so the platoon leaving it can get by).
    #[must_use]
    pub fn travel_limit(&self) -> f32 {
        if self.bridge != NONE && self.on_bridge == 0 {
            // max, then min: no panic on a bad restored length.
            (self.bridge_span[0] - 2.0 * self.spacing_m)
                .max(0.0)
                .min(self.route_length)
        } else {
            self.route_length
        }
    }

    /// Whether it picks its shape from the ground.
    #[must_use]
    pub fn uses_context(&self) -> bool {
        self.flags & CONTEXT_FLAG != 0
    }

    /// How it softens blocked slots.
    #[must_use]
    pub fn softening(&self) -> Softening {
        if (self.flags >> 8) & 0xff == Softening::BoundedSearch as u32 {
            Softening::BoundedSearch
        } else {
            Softening::PullToPath
        }
    }

    /// How it keeps slots.
    #[must_use]
    pub fn slot_rule(&self) -> SlotRule {
        if (self.flags >> 16) & 0xff == SlotRule::Packed as u32 {
            SlotRule::Packed
        } else {
            SlotRule::Fixed
        }
    }

    /// The occupied slots and their units.
    pub fn occupied(&self) -> impl Iterator<Item = (usize, UnitId)> + '_ {
        self.members
            .iter()
            .enumerate()
            // No unit's handle has the index `NONE`: one compare, not two.
            .filter(|(_, unit)| unit.index != EMPTY.index)
            .map(|(slot, unit)| (slot, *unit))
    }

    /// Members in the platoon.
    #[must_use]
    pub fn member_count(&self) -> usize {
        self.occupied().count()
    }

    /// The slot `unit` holds, if it is a member.
    #[must_use]
    pub fn slot_of(&self, unit: UnitId) -> Option<usize> {
        self.members.iter().position(|&member| member == unit)
    }
}

/// Why a platoon operation was refused; nothing changed.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum PlatoonError {
    /// The platoon handle is stale (disbanded) or was never issued.
    #[error("platoon {0:?} does not exist (disbanded or never created)")]
    Stale(PlatoonId),
    /// A unit handle is stale.
    #[error("unit {0:?} does not exist")]
    StaleUnit(UnitId),
    /// A unit already belongs to a platoon.
    #[error("unit {unit:?} is already in platoon {platoon}")]
    AlreadyInPlatoon {
        /// The unit.
        unit: UnitId,
        /// Its platoon's index.
        platoon: u32,
    },
    /// A unit is listed twice.
    #[error("unit {0:?} is listed twice")]
    Duplicate(UnitId),
    /// A platoon needs at least one member.
    #[error("a platoon needs at least one member")]
    Empty,
    /// More members than slots.
    #[error("a platoon holds at most {MAX_MEMBERS} members, {0} given")]
    Full(usize),
    /// A spec value is out of range.
    #[error("platoon spec `{key}` is out of range: {value}")]
    BadSpec {
        /// The offending field.
        key: &'static str,
        /// Its value.
        value: f32,
    },
    /// A goal or facing is NaN or infinite, or a goal lies further than
    /// [`MAX_COORDINATE`](crate::unit_limits::MAX_COORDINATE) from 0.
    #[error("platoon order `{key}` must be finite (a goal within ±{} m of 0), was {value}", crate::data::unit_limits::MAX_COORDINATE)]
    BadOrder {
        /// `goal.x`, `goal.y` or `facing`.
        key: &'static str,
        /// Its value.
        value: f32,
    },
    /// The goal lies off the map.
    #[error("platoon goal {0:?} is off the map")]
    OffMap(Vec2),
    /// A unit's mobility class differs from the platoon's (its first
    /// member's): a platoon plans one route on one class's map.
    #[error("unit {unit:?} is of mobility class {class}, the platoon's members of class {platoon_class}")]
    MixedMobility {
        /// The unit refused.
        unit: UnitId,
        /// Its mobility class.
        class: u8,
        /// The platoon's.
        platoon_class: u8,
    },
}

/// Every platoon, indexed by handle slot (stable: a platoon never moves).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Platoons {
    pub(crate) records: Vec<Platoon>,
    pub(crate) free: Vec<u32>,
    /// Each platoon's route, by index.
    pub(crate) routes: Routes,
    /// The arc length at each route corner, [`ROUTE_POINTS`] per platoon.
    pub(crate) arcs: Vec<f32>,
    /// The heading of the route leg ending at each corner, [`ROUTE_POINTS`]
    /// per platoon.
    pub(crate) headings: Vec<f32>,
    /// Reserved destination spots, by [`SPOT_GAP_M`] cell.
    pub(crate) reserved: FxHashMap<(i32, i32), Vec<Vec2>>,
}

impl Platoons {
    /// The platoon `id` names, if it still exists.
    #[must_use]
    pub fn get(&self, id: PlatoonId) -> Option<&Platoon> {
        self.records
            .get(id.index as usize)
            .filter(|platoon| platoon.live == 1 && platoon.generation == id.generation)
    }

    pub(crate) fn get_mut(&mut self, id: PlatoonId) -> Result<&mut Platoon, PlatoonError> {
        self.records
            .get_mut(id.index as usize)
            .filter(|platoon| platoon.live == 1 && platoon.generation == id.generation)
            .ok_or(PlatoonError::Stale(id))
    }

    /// Each platoon's route corners, by platoon index (its `route_len`
    /// says how many are in use).
    #[must_use]
    pub fn routes(&self) -> &Routes {
        &self.routes
    }

    /// Platoon `index`'s path (its record's route, with arc lengths).
    #[must_use]
    #[cfg(any(test, feature = "internals"))]
    pub fn path(&self, index: u32) -> PathView<'_> {
        let platoon = &self.records[index as usize];
        let points = platoon.route_len as usize;
        let first = index as usize * ROUTE_POINTS;
        PathView {
            start: platoon.path_start,
            start_direction: Vec2::from_angle(platoon.start_heading),
            corners: &self.routes.of(index)[..points],
            arcs: &self.arcs[first..first + points],
            headings: &self.headings[first..first + points],
        }
    }

    /// Stores `route` as platoon `index`'s, starting where it stands.
    pub(crate) fn store_route(&mut self, index: u32, route: &[Vec2]) {
        let platoon = &mut self.records[index as usize];
        platoon.path_start = platoon.position;
        platoon.start_heading = platoon.heading;
        platoon.travelled = 0.0;
        platoon.route_len = route.len() as u32;
        let first = index as usize * ROUTE_POINTS;
        let stored = first..first + ROUTE_POINTS;
        // Past the route's end both stay 0, as on restore.
        self.arcs[stored.clone()].fill(0.0);
        self.headings[stored].fill(0.0);
        let arcs = &mut self.arcs[first..first + route.len()];
        let headings = &mut self.headings[first..first + route.len()];
        measure_legs(platoon.path_start, route, arcs, headings);
        platoon.route_length = arcs.last().copied().unwrap_or(0.0);
        if platoon.on_bridge == 1 {
            // Re-planned on the deck: it still holds the bridge, which now
            // lies at the new path's start, until its members are off it.
            platoon.bridge_span = [0.0; 2];
        } else {
            platoon.release_bridge();
        }
        self.routes.store(index, route);
    }

    /// Marks platoon `index`'s stored route as crossing `bridge` from
    /// corner `near` to corner `far`.
    /// A platoon holding another bridge keeps holding it (the new
    /// route's bridge is then not reserved).
    pub(crate) fn mark_bridge(&mut self, index: u32, bridge: u32, [near, far]: [usize; 2]) {
        let first = index as usize * ROUTE_POINTS;
        let platoon = &mut self.records[index as usize];
        if platoon.on_bridge == 1 && platoon.bridge != bridge {
            return;
        }
        platoon.bridge = bridge;
        platoon.bridge_span = [self.arcs[first + near], self.arcs[first + far]];
        let route = self.routes.of(index);
        platoon.bridge_deck = [route[near], route[far]];
    }

    /// Every record by index, live or free (check [`Platoon::live`]).
    #[must_use]
    pub fn records(&self) -> &[Platoon] {
        &self.records
    }

    /// The live platoons and their handles.
    pub fn iter(&self) -> impl Iterator<Item = (PlatoonId, &Platoon)> {
        self.records
            .iter()
            .enumerate()
            .filter(|(_, platoon)| platoon.live == 1)
            .map(|(index, platoon)| {
                let id = PlatoonId {
                    index: index as u32,
                    generation: platoon.generation,
                };
                (id, platoon)
            })
    }

    /// Live platoons.
    #[must_use]
    #[cfg(any(test, feature = "internals"))]
    pub fn len(&self) -> usize {
        self.records.len() - self.free.len()
    }

    /// No platoon exists.
    #[must_use]
    #[cfg(any(test, feature = "internals"))]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds a platoon at `position` facing `heading`, no members yet.
    pub(crate) fn create(&mut self, spec: &PlatoonSpec, position: Vec2, heading: f32) -> PlatoonId {
        if let Some(index) = self.free.pop() {
            let generation = self.records[index as usize].generation.wrapping_add(1);
            self.records[index as usize] = Platoon::new(spec, generation, position, heading);
            return PlatoonId { index, generation };
        }
        let index = self.records.len() as u32;
        self.records.push(Platoon::new(spec, 0, position, heading));
        self.routes.reserve_slots(self.records.len());
        self.arcs.resize(self.records.len() * ROUTE_POINTS, 0.0);
        self.headings.resize(self.records.len() * ROUTE_POINTS, 0.0);
        PlatoonId {
            index,
            generation: 0,
        }
    }

    /// A store from a snapshot's parts; reservations are rebuilt from the
    /// live platoons' reserved spots.
    pub(crate) fn from_parts(
        records: Vec<Platoon>,
        free: Vec<u32>,
        routes: Routes,
    ) -> Result<Platoons, String> {
        let live = records.iter().filter(|platoon| platoon.live == 1).count();
        let free_ok = free.len() + live == records.len()
            && free
                .iter()
                .all(|&index| records.get(index as usize).is_some_and(|p| p.live == 0));
        if !free_ok {
            return Err("the free platoon list does not match the records".to_owned());
        }
        let mut platoons = Platoons {
            arcs: vec![0.0; records.len() * ROUTE_POINTS],
            headings: vec![0.0; records.len() * ROUTE_POINTS],
            records,
            free,
            routes,
            reserved: FxHashMap::default(),
        };
        for index in 0..platoons.records.len() {
            let platoon = &platoons.records[index];
            let corners = &platoons.routes.of(index as u32)[..platoon.route_len as usize];
            let stored = index * ROUTE_POINTS..(index + 1) * ROUTE_POINTS;
            let arcs = &mut platoons.arcs[stored.clone()];
            let headings = &mut platoons.headings[stored];
            measure_legs(platoon.path_start, corners, arcs, headings);
        }
        for index in 0..platoons.records.len() {
            let platoon = platoons.records[index];
            for slot in 0..MAX_MEMBERS {
                if platoon.live == 1 && platoon.reserved_spots & (1 << slot) != 0 {
                    platoons.reserve_spot(platoon.spots[slot]);
                }
            }
        }
        Ok(platoons)
    }

    /// Frees `id`'s slot.
    pub(crate) fn disband(&mut self, id: PlatoonId) -> Result<Platoon, PlatoonError> {
        let platoon = *self.get_mut(id)?;
        let record = &mut self.records[id.index as usize];
        record.live = 0;
        record.members = [EMPTY; MAX_MEMBERS];
        self.free.push(id.index);
        Ok(platoon)
    }
}

/// A platoon's destination spots keep its spacing from every reserved
/// spot, up to this many metres (also the reservation cell size).
pub const SPOT_GAP_M: f32 = 16.0;

impl Platoons {
    fn spot_key(spot: Vec2) -> (i32, i32) {
        let cell = (spot / SPOT_GAP_M).floor();
        (cell.x as i32, cell.y as i32)
    }

    /// Whether no reserved spot lies within `gap` of `spot`.
    pub(crate) fn spot_is_free(&self, spot: Vec2, gap: f32) -> bool {
        let (x, y) = Self::spot_key(spot);
        // Callers' gaps are at most two SPOT_GAP_M; keys saturate, so a
        // spot however far cannot overflow them.
        let reach = (gap / SPOT_GAP_M).ceil().clamp(0.0, 2.0) as i32;
        (-reach..=reach).all(|dx| {
            (-reach..=reach).all(|dy| {
                self.reserved
                    .get(&(x.saturating_add(dx), y.saturating_add(dy)))
                    .is_none_or(|spots| spots.iter().all(|other| other.distance(spot) >= gap))
            })
        })
    }

    /// Reserves `spot` (Company of Heroes' destination reservation), and
    /// leaves room for one more in the cells around it, so a spot moved
    /// there in the tick ([`Platoons::move_reservation`]) needs no memory.
    pub(crate) fn reserve_spot(&mut self, spot: Vec2) {
        let (x, y) = Self::spot_key(spot);
        for (dx, dy) in [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
            let key = (x.saturating_add(dx), y.saturating_add(dy));
            self.reserved.entry(key).or_default().reserve(1);
        }
        self.reserved.entry((x, y)).or_default().push(spot);
    }

    /// Moves a reservation from `from` to `to` if `to` lies `gap` from
    /// every other reserved spot and its cell has room without growing
    /// (every reservation leaves room for one more in the cells around
    /// it); returns whether it did.
    pub(crate) fn move_reservation(&mut self, from: Vec2, to: Vec2, gap: f32) -> bool {
        let key = Self::spot_key(to);
        let same_cell = Self::spot_key(from) == key;
        let room = same_cell
            || self
                .reserved
                .get(&key)
                .is_some_and(|spots| spots.len() < spots.capacity());
        if !room {
            return false;
        }
        self.release_spot(from);
        let free = self.spot_is_free(to, gap);
        self.reserve_spot(if free { to } else { from });
        free
    }

    /// Gives up a reservation of `spot`.
    pub(crate) fn release_spot(&mut self, spot: Vec2) {
        if let Some(spots) = self.reserved.get_mut(&Self::spot_key(spot))
            && let Some(at) = spots.iter().position(|&other| other == spot)
        {
            spots.swap_remove(at);
        }
    }
}

/// The slot a reinforcement takes: the first empty one.
#[must_use]
pub fn slot_for_reinforcement(members: &[UnitId; MAX_MEMBERS]) -> Option<usize> {
    members.iter().position(|&member| member == EMPTY)
}

/// Empties `slot`; under [`SlotRule::Packed`] the unit in the last occupied
/// slot moves into the hole (the one move that keeps the first slots
/// occupied). Returns the moved unit and its new slot.
pub fn vacate(
    members: &mut [UnitId; MAX_MEMBERS],
    slot: usize,
    rule: SlotRule,
) -> Option<(UnitId, usize)> {
    members[slot] = EMPTY;
    if rule == SlotRule::Fixed {
        return None;
    }
    let last = members.iter().rposition(|&member| member != EMPTY)?;
    if last < slot {
        return None;
    }
    members[slot] = members[last];
    members[last] = EMPTY;
    Some((members[slot], slot))
}

#[cfg(test)]
mod tests;
