//! Structure-of-arrays vehicle storage with stable handles.
//!
//! Every per-unit field is its own column (`Vec<T>` of a [`Pod`] type), all
//! columns always the same length, indexed alike: row `i` of every column is
//! unit `i`. Only [`Vehicles::spawn`] and [`Vehicles::despawn`] change lengths,
//! and both go through the one generated [`Columns`] push / swap-remove, so the
//! columns cannot drift apart. Rows move when another unit is despawned
//! (swap-remove); a [`UnitId`] (slot index + generation) stays valid across
//! such moves and is refused once its unit is gone.
//!
//! Columns are plain `Pod` data, so any column can be viewed as bytes
//! ([`Columns::bytes`]) for snapshots, checksums and GPU upload without a copy.

use bytemuck::{Pod, Zeroable};
use glam::{Vec2, Vec3};
use thiserror::Error;

pub use crate::geometry::seek::ARRIVE_RADIUS;
pub use spec::{SpawnError, UnitParams, UnitSpec};

mod spec;

/// A unit that has not driven this far toward its drive-to point (its
/// velocity along the direction to it, summed) in [`STUCK_AFTER_S`] is
/// stuck, metres.
pub const PROGRESS_STEP_M: f32 = 0.5;
/// Seconds without progress before a unit counts as stuck.
pub const STUCK_AFTER_S: f32 = 10.0;

/// What became of a unit's path requests; stored in the `route_pending`
/// column as its `u8` value.
#[repr(u8)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PathState {
    /// No request open: the unit follows its route, or drives straight.
    #[default]
    Settled = 0,
    /// A request waits in the queue or is being searched.
    Pending = 1,
    /// The last request found no path (or a world edit cut the unit off
    /// under `UnreachableGoals::Refuse`): the unit holds where it was, and
    /// asks again only when it is given a new order or a world edit puts
    /// its goal back in reach.
    NoPath = 2,
}

/// Marks "no platoon" / "no slot" in the `platoon` and `slot` columns.
pub const NONE: u32 = u32::MAX;

/// How a unit moves; stored in the `kind` column as its `u8` value.
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VehicleKind {
    /// Tanks: slow, turn in place (Force 21 §5).
    Tracked = 0,
    /// Trucks and jeeps: fast, minimum turn radius, can reverse (Force 21 §5).
    Wheeled = 1,
    /// Helicopters: fast, turn in place, fly at cruise altitude (Force 21 §5).
    RotaryWing = 2,
    /// Soldiers in squads (Company of Heroes).
    Infantry = 3,
    /// Starships in fleets (Star Trek: Armada).
    Starship = 4,
}

impl VehicleKind {
    /// Every kind, in `u8` order.
    pub const ALL: [VehicleKind; 5] = [
        VehicleKind::Tracked,
        VehicleKind::Wheeled,
        VehicleKind::RotaryWing,
        VehicleKind::Infantry,
        VehicleKind::Starship,
    ];

    /// The kind's name as profiles and reports spell it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            VehicleKind::Tracked => "tracked",
            VehicleKind::Wheeled => "wheeled",
            VehicleKind::RotaryWing => "rotary_wing",
            VehicleKind::Infantry => "infantry",
            VehicleKind::Starship => "starship",
        }
    }

    /// The kind stored as `value` in the `kind` column, if it names one.
    #[must_use]
    pub fn from_u8(value: u8) -> Option<VehicleKind> {
        Self::ALL.get(usize::from(value)).copied()
    }

    /// How this kind may move (Force 21 §5).
    #[must_use]
    pub const fn handling(self) -> Handling {
        match self {
            VehicleKind::Tracked | VehicleKind::RotaryWing => Handling {
                turns_in_place: true,
                reverses: true,
                flies: matches!(self, VehicleKind::RotaryWing),
            },
            VehicleKind::Infantry => Handling {
                turns_in_place: true,
                reverses: false,
                flies: false,
            },
            VehicleKind::Wheeled => Handling {
                turns_in_place: false,
                reverses: true,
                flies: false,
            },
            VehicleKind::Starship => Handling {
                turns_in_place: false,
                reverses: false,
                flies: false,
            },
        }
    }
}

/// What a vehicle kind can do when it turns and flies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handling {
    /// Can change heading while stopped (tracks, rotors, legs); otherwise
    /// it turns only while moving, no tighter than its turn radius.
    pub turns_in_place: bool,
    /// Can drive backwards (at a third of its top speed).
    pub reverses: bool,
    /// Flies at its altitude: ground units do not avoid it, nor it them.
    pub flies: bool,
}

/// How steering picks a unit's desired velocity; stored in the
/// `steer_mode` column as its `u8` value.
#[repr(u8)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum SteerMode {
    /// Force 21 drive-to with its vehicle avoidance (the soonest threat).
    DriveTo = 0,
    /// Potential field: pulled by the drive-to point, pushed by moving
    /// bodies.
    PotentialField = 1,
    /// Drive-to with reciprocal avoidance (ORCA) among the nearest
    /// neighbours and walls.
    #[default]
    Reciprocal = 2,
}

impl SteerMode {
    /// The mode stored as `value` in the `steer_mode` column, if any.
    #[must_use]
    pub fn from_u8(value: u8) -> Option<SteerMode> {
        match value {
            0 => Some(SteerMode::DriveTo),
            1 => Some(SteerMode::PotentialField),
            2 => Some(SteerMode::Reciprocal),
            _ => None,
        }
    }
}

/// A stable handle to a unit: valid until that unit is despawned, whatever
/// other units come and go.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Pod, Zeroable)]
pub struct UnitId {
    /// Slot in the handle table (not the row: rows move on despawn).
    pub index: u32,
    /// Bumped each time the slot is freed, so stale handles are recognised.
    pub generation: u32,
}

/// Declares the columns once and generates everything that must list them:
/// the storage, the row pushed by spawn, swap-remove, the byte views and the
/// lockstep check.
macro_rules! columns {
    ($( $(#[doc = $doc:expr])* $name:ident : $ty:ty ),* $(,)?) => {
        /// One `Vec` per per-unit field; row `i` of every column is unit `i`.
        ///
        /// Read access is public (zero-copy slices); lengths change only
        /// through [`Vehicles`], mutation goes through `ColumnsMut`.
        #[derive(Clone, Debug, Default)]
        pub struct Columns {
            $( $(#[doc = $doc])* pub(crate) $name: Vec<$ty>, )*
        }

        /// Mutable views of every column: values can change, lengths cannot.
        #[derive(Debug)]
        pub struct ColumnsMut<'a> {
            $( $(#[doc = $doc])* pub $name: &'a mut [$ty], )*
        }

        /// One unit's value in every column.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub(crate) struct Row {
            $( pub(crate) $name: $ty, )*
        }

        impl Columns {
            /// The names of the columns, in declaration (and snapshot) order.
            pub const NAMES: &'static [&'static str] = &[$( stringify!($name) ),*];

            $(
                $(#[doc = $doc])*
                #[must_use]
                pub fn $name(&self) -> &[$ty] {
                    &self.$name
                }
            )*

            /// Every column as `(name, bytes)`, in [`Columns::NAMES`] order.
            pub fn bytes(&self) -> impl Iterator<Item = (&'static str, &[u8])> + '_ {
                [$( (stringify!($name), bytemuck::cast_slice::<$ty, u8>(&self.$name)) ),*].into_iter()
            }

            /// Mutable slices of every column.
            pub fn as_mut(&mut self) -> ColumnsMut<'_> {
                ColumnsMut { $( $name: &mut self.$name, )* }
            }

            fn push(&mut self, row: Row) {
                $( self.$name.push(row.$name); )*
            }

            fn swap_remove(&mut self, row: usize) {
                $( self.$name.swap_remove(row); )*
            }

            fn reserve(&mut self, additional: usize) {
                $( self.$name.reserve(additional); )*
            }

            /// Moves row `order[k]` to row `k` in every column, through
            /// `scratch` (grown once, then reused).
            fn permute(&mut self, order: &[u32], scratch: &mut Vec<u128>) {
                $( permute_column(&mut self.$name, order, scratch); )*
            }

            /// Rebuilds every column of `rows` rows from its bytes, as
            /// [`Columns::bytes`] gave them; `bytes_of(name)` finds them.
            pub(crate) fn from_bytes<'a>(
                rows: usize,
                bytes_of: impl Fn(&str) -> Option<&'a [u8]>,
            ) -> Result<Columns, String> {
                Ok(Columns { $( $name: column_from_bytes(stringify!($name), rows, bytes_of(stringify!($name)))?, )* })
            }

            fn lengths(&self) -> impl Iterator<Item = (&'static str, usize)> + '_ {
                [$( (stringify!($name), self.$name.len()) ),*].into_iter()
            }
        }
    };
}

/// A column of `rows` values of `T` from `bytes`, which must be exactly that
/// long (copied: the bytes need not be aligned).
fn column_from_bytes<T: Pod>(
    name: &str,
    rows: usize,
    bytes: Option<&[u8]>,
) -> Result<Vec<T>, String> {
    let bytes = bytes.ok_or_else(|| format!("column `{name}` is missing"))?;
    // A count too large to size any column never matches.
    let needed = rows.checked_mul(size_of::<T>());
    if needed != Some(bytes.len()) {
        return Err(format!(
            "column `{name}` holds {} bytes, {rows} rows need {}",
            bytes.len(),
            needed.map_or_else(|| "more than usize::MAX".to_owned(), |n| n.to_string())
        ));
    }
    Ok(bytemuck::pod_collect_to_vec(bytes))
}

/// Rearranges `column` so that row `k` holds what row `order[k]` held.
fn permute_column<T: Pod>(column: &mut [T], order: &[u32], scratch: &mut Vec<u128>) {
    let bytes = size_of_val(column);
    scratch.resize(bytes.div_ceil(16), 0);
    // A u128 buffer is aligned for every column type (at most 16-byte aligned).
    let staged: &mut [T] =
        bytemuck::cast_slice_mut(&mut bytemuck::cast_slice_mut::<u128, u8>(scratch)[..bytes]);
    for (slot, &from) in staged.iter_mut().zip(order) {
        *slot = column[from as usize];
    }
    column.copy_from_slice(staged);
}

columns! {
    /// Ground-plane position (x east, y north), metres.
    position: Vec2,
    /// Height above the ground plane, metres.
    altitude: f32,
    /// Ground-plane velocity, metres per second.
    velocity: Vec2,
    /// Facing: angle from +x, counter-clockwise, radians.
    heading: f32,
    /// [`VehicleKind`] as `u8`.
    kind: u8,
    /// Top speed, metres per second.
    max_speed: f32,
    /// The speed steering drives at most this tick, m/s: the top speed, or
    /// less where a platoon's speed modifier slows the unit (`formations`).
    cruise_speed: f32,
    /// Largest gain of speed, metres per second squared.
    max_accel: f32,
    /// Largest loss of speed (braking), metres per second squared.
    max_brake: f32,
    /// Largest yaw rate, radians per second.
    turn_rate: f32,
    /// Minimum turning radius, metres (0: no limit beyond `turn_rate`).
    turn_radius: f32,
    /// Shield ellipsoid semi-axes (forward, lateral, vertical), metres.
    shield: Vec3,
    /// Inverse mass; 0 marks an immovable unit.
    inv_mass: f32,
    /// Platoon index, or `u32::MAX` for none.
    platoon: u32,
    /// Slot within the platoon's formation, or `u32::MAX` for none.
    slot: u32,
    /// The ordered destination.
    goal: Vec2,
    /// The destination as ordered while the unit heads elsewhere: an
    /// unreachable goal moved to the nearest open point of the unit's
    /// region, or the goal of a search that found no path (then `goal` is
    /// where it holds). NaN when `goal` is the destination as ordered. A
    /// world edit that makes it reachable sends the unit there again.
    wanted_goal: Vec2,
    /// Where steering drives this tick (written by `paths` and `formations`).
    drive_to: Vec2,
    /// The facing wanted on arrival, radians; NaN: whatever it ends with.
    final_heading: f32,
    /// [`SteerMode`] as `u8`.
    steer_mode: u8,
    /// Metres driven toward the drive-to point (velocity along the
    /// direction to it, signed) since the stall clock last restarted.
    progress_m: f32,
    /// Where the unit stood when steering last ran (progress is measured
    /// from it, so pushes by separation count).
    steered_from: Vec2,
    /// Seconds since the unit last made `PROGRESS_STEP_M` (0.5 m)
    /// of progress toward its drive-to point.
    stalled_s: f32,
    /// Points of the unit's route in use (0: no route, drive straight).
    route_len: u32,
    /// The route point the unit is driving to.
    route_next: u32,
    /// Where the unit stood when it was given its route: the point before
    /// the route's first corner (wheeled units bend that corner to their
    /// turning circle, whose centre depends on the way in).
    route_start: Vec2,
    /// [`PathState`] as `u8`: whether a path request for this unit waits
    /// or is searched, or whether its last one found no path.
    route_pending: u8,
    /// [`MoveState`](crate::MoveState) as `u8` after the last tick (or at
    /// spawn): the events' memory.
    move_state: u8,
    /// Steering's output, integrate's input, metres per second.
    desired_velocity: Vec2,
    /// The handle slot that owns this row.
    handle_slot: u32,
    /// The handle of the unit in this row: maps rows to an engine's
    /// entities in one pass (equal to [`Vehicles::id_at`] for every row).
    unit_id: UnitId,
    /// The side the unit is on ([`FactionId`](crate::FactionId)'s value).
    faction: u16,
    /// The group order the unit moves under ([`GroupId`]'s
    /// value), or `u32::MAX` for none: members keep to the group's pace.
    group: u32,
    /// Metres driven on the way since the group order (the group's pace
    /// compares its members by it).
    group_odometer: f32,
    /// The unit's [`MobilityClass`](crate::MobilityClass): which grid map
    /// it plans, steers and is kept off walls on.
    mobility: u8,
}

/// A group order ([`Sim::order_group`](crate::Sim::order_group)): its
/// members keep to one pace. The id is reused once no unit holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroupId(pub u32);

/// A handle that names no live unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("unit {:?} is not alive (despawned, or from another world)", .0)]
pub struct StaleUnit(pub UnitId);

/// One entry of the handle table.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub(crate) struct HandleSlot {
    pub(crate) generation: u32,
    /// The unit's row, or [`NONE`] while the slot is free.
    pub(crate) row: u32,
}

/// The vehicle columns and their stable handles.
#[derive(Clone, Debug, Default)]
pub struct Vehicles {
    columns: Columns,
    slots: Vec<HandleSlot>,
    free_slots: Vec<u32>,
}

impl Vehicles {
    /// Empty storage with room for `capacity` units before any column grows.
    #[must_use]
    pub fn with_capacity(capacity: usize) -> Vehicles {
        let mut vehicles = Vehicles::default();
        vehicles.columns.reserve(capacity);
        vehicles.slots.reserve(capacity);
        vehicles
    }

    /// Number of live units (the length of every column).
    #[must_use]
    pub fn len(&self) -> usize {
        self.columns.position.len()
    }

    /// No unit is alive.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Read access to every column (zero-copy).
    #[must_use]
    pub fn columns(&self) -> &Columns {
        &self.columns
    }

    /// Write access to column values; lengths stay locked together.
    pub fn columns_mut(&mut self) -> ColumnsMut<'_> {
        self.columns.as_mut()
    }

    /// Adds a unit after validating its spec; on error nothing changes.
    pub fn spawn(&mut self, spec: &UnitSpec) -> Result<UnitId, SpawnError> {
        spec.validate()?;
        let row = u32::try_from(self.len())
            .ok()
            .filter(|&row| row != NONE)
            .ok_or(SpawnError::Full(self.len()))?;
        let index = match self.free_slots.pop() {
            Some(index) => index,
            None => {
                let index = u32::try_from(self.slots.len())
                    .ok()
                    .filter(|&i| i != NONE)
                    .ok_or(SpawnError::Full(self.len()))?;
                self.slots.push(HandleSlot {
                    generation: 0,
                    row: NONE,
                });
                index
            }
        };
        let slot = &mut self.slots[index as usize];
        slot.row = row;
        self.columns.push(Row {
            position: spec.position,
            altitude: spec.altitude,
            velocity: Vec2::ZERO,
            heading: spec.heading,
            kind: spec.kind as u8,
            max_speed: spec.max_speed,
            max_accel: spec.max_accel,
            max_brake: spec.max_brake,
            turn_rate: spec.turn_rate,
            turn_radius: spec.turn_radius,
            shield: spec.shield,
            inv_mass: spec.inv_mass,
            cruise_speed: spec.max_speed,
            platoon: NONE,
            slot: NONE,
            goal: spec.goal,
            wanted_goal: Vec2::NAN,
            drive_to: spec.goal,
            final_heading: f32::NAN,
            steer_mode: spec.steer_mode as u8,
            progress_m: 0.0,
            steered_from: spec.position,
            stalled_s: 0.0,
            route_len: 0,
            route_next: 0,
            route_start: spec.position,
            route_pending: 0,
            move_state: 0,
            desired_velocity: Vec2::ZERO,
            handle_slot: index,
            unit_id: UnitId {
                index,
                generation: slot.generation,
            },
            faction: spec.faction.0,
            group: NONE,
            group_odometer: 0.0,
            mobility: spec.mobility.0,
        });
        Ok(UnitId {
            index,
            generation: slot.generation,
        })
    }

    /// Removes a unit; the last row moves into its place (swap-remove).
    pub fn despawn(&mut self, id: UnitId) -> Result<(), StaleUnit> {
        let row = self.row_of(id).ok_or(StaleUnit(id))?;
        self.columns.swap_remove(row);
        if let Some(&moved_slot) = self.columns.handle_slot.get(row) {
            self.slots[moved_slot as usize].row = row as u32;
        }
        let slot = &mut self.slots[id.index as usize];
        slot.generation = slot.generation.wrapping_add(1);
        slot.row = NONE;
        self.free_slots.push(id.index);
        Ok(())
    }

    /// The current row of a live unit, `None` for a stale handle.
    #[must_use]
    pub fn row_of(&self, id: UnitId) -> Option<usize> {
        let slot = self.slots.get(id.index as usize)?;
        (slot.generation == id.generation && slot.row != NONE).then_some(slot.row as usize)
    }

    /// The handle of the unit in `row`.
    #[must_use]
    pub fn id_at(&self, row: usize) -> Option<UnitId> {
        let index = *self.columns.handle_slot.get(row)?;
        Some(UnitId {
            index,
            generation: self.slots[index as usize].generation,
        })
    }

    /// Sets a live unit's ordered destination.
    pub fn set_goal(&mut self, id: UnitId, goal: Vec2) -> Result<(), StaleUnit> {
        let row = self.row_of(id).ok_or(StaleUnit(id))?;
        if self.columns.goal[row] != goal {
            // Progress toward a new goal starts over (a re-plan to the same
            // goal keeps the stall clock running).
            self.columns.goal[row] = goal;
            self.columns.progress_m[row] = 0.0;
            self.columns.stalled_s[row] = 0.0;
        }
        Ok(())
    }

    /// Reorders the rows so that row `k` becomes what row `order[k]` was
    /// (e.g. the spatial hash's cell order, so neighbours sit together in
    /// memory). `order` must be a permutation of `0..len`. Handles stay
    /// valid; rows are not stable anyway. Allocation-free once `scratch`
    /// has grown to the largest column.
    pub(crate) fn reorder(&mut self, order: &[u32], scratch: &mut Vec<u128>) {
        assert_eq!(order.len(), self.len(), "reorder needs one entry per row");
        self.columns.permute(order, scratch);
        for (row, &slot) in self.columns.handle_slot.iter().enumerate() {
            self.slots[slot as usize].row = row as u32;
        }
    }

    /// The handle table and free list, for snapshots.
    pub(crate) fn handle_parts(&self) -> (&[HandleSlot], &[u32]) {
        (&self.slots, &self.free_slots)
    }

    /// Reassembles storage from snapshot parts, refusing any that break the
    /// invariants or hold an unknown vehicle kind.
    pub(crate) fn from_parts(
        columns: Columns,
        slots: Vec<HandleSlot>,
        free_slots: Vec<u32>,
    ) -> Result<Vehicles, String> {
        if let Some(row) = columns
            .kind
            .iter()
            .position(|&kind| VehicleKind::from_u8(kind).is_none())
        {
            return Err(format!(
                "row {row} has unknown vehicle kind {}",
                columns.kind[row]
            ));
        }
        if let Some(row) = columns
            .steer_mode
            .iter()
            .position(|&mode| SteerMode::from_u8(mode).is_none())
        {
            return Err(format!(
                "row {row} has unknown steer mode {}",
                columns.steer_mode[row]
            ));
        }
        if let Some(&slot) = columns
            .handle_slot
            .iter()
            .find(|&&slot| slot as usize >= slots.len())
        {
            return Err(format!(
                "a row is owned by slot {slot}, past the {} slots",
                slots.len()
            ));
        }
        if let Some(&slot) = free_slots
            .iter()
            .find(|&&slot| slot as usize >= slots.len())
        {
            return Err(format!(
                "free slot {slot} is past the {} slots",
                slots.len()
            ));
        }
        let vehicles = Vehicles {
            columns,
            slots,
            free_slots,
        };
        vehicles.check_invariants()?;
        Ok(vehicles)
    }

    /// Checks the storage invariants: equal column lengths, and handle table
    /// and rows pointing at each other. Tests call it after every change.
    pub fn check_invariants(&self) -> Result<(), String> {
        let len = self.len();
        if let Some((name, other)) = self.columns.lengths().find(|&(_, n)| n != len) {
            return Err(format!(
                "column `{name}` has {other} rows, `position` has {len}"
            ));
        }
        for (row, (&slot, &id)) in self.columns.handle_slot.iter().zip(&self.columns.unit_id).enumerate() {
            match self.slots.get(slot as usize) {
                Some(entry)
                    if entry.row as usize == row
                        && id.index == slot
                        && id.generation == entry.generation => {}
                other => {
                    return Err(format!(
                        "row {row} owned by slot {slot} (its id says {id:?}), which says {other:?}"
                    ));
                }
            }
        }
        let live = self.slots.iter().filter(|slot| slot.row != NONE).count();
        if live != len {
            return Err(format!("{live} live handle slots for {len} rows"));
        }
        let mut free = self.free_slots.clone();
        free.sort_unstable();
        free.dedup();
        if free.len() != self.free_slots.len() || free.len() + live != self.slots.len() {
            return Err(format!(
                "free list of {} (unique {}) does not cover the {} dead slots",
                self.free_slots.len(),
                free.len(),
                self.slots.len() - live
            ));
        }
        Ok(())
    }
}
