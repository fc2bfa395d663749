//! What an engine reads and writes between ticks: a typed, read-only view of
//! each platoon, and mutable access to the columns an engine may set.

use glam::Vec2;
use thiserror::Error;

use super::Sim;
use crate::data::platoons::{Formation, MAX_MEMBERS, Phase, Platoon, PlatoonId};
use crate::data::vehicles::{SpawnError, StaleUnit, UnitId, UnitParams, VehicleKind};

/// Why [`Sim::set_unit_params`] refused; nothing changed.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum ParamsError {
    /// The handle names no live unit.
    #[error(transparent)]
    Stale(#[from] StaleUnit),
    /// A value a spawn would refuse (the error names the field).
    #[error(transparent)]
    Invalid(#[from] SpawnError),
    /// The unit's goal cannot be reached in its new mobility class, and
    /// the world refuses such orders ([`Sim::set_mobility`]).
    #[error(transparent)]
    Unreachable(super::OrderError),
}

/// One platoon as an engine sees it (read-only, borrowed from the `Sim`).
#[derive(Clone, Copy, Debug)]
pub struct PlatoonView<'a> {
    id: PlatoonId,
    record: &'a Platoon,
    path: &'a [Vec2],
}

impl<'a> PlatoonView<'a> {
    /// Its handle.
    #[must_use]
    pub fn id(&self) -> PlatoonId {
        self.id
    }

    /// Where it is in carrying out its order.
    #[must_use]
    pub fn phase(&self) -> Phase {
        self.record.phase()
    }

    /// Its formation (the one it is changing to, while it morphs).
    #[must_use]
    pub fn formation(&self) -> Formation {
        self.record.formation()
    }

    /// Its position: the lead slot, on its path.
    #[must_use]
    pub fn position(&self) -> Vec2 {
        self.record.position
    }

    /// Its heading, radians from +x.
    #[must_use]
    pub fn heading(&self) -> f32 {
        self.record.heading
    }

    /// Its speed along its path this tick, m/s.
    #[must_use]
    pub fn speed(&self) -> f32 {
        self.record.speed
    }

    /// The ordered destination.
    #[must_use]
    pub fn goal(&self) -> Vec2 {
        self.record.goal
    }

    /// Its members with their slots, in slot order.
    pub fn members(&self) -> impl Iterator<Item = (usize, UnitId)> + 'a {
        self.record.occupied()
    }

    /// How many members it has.
    #[must_use]
    pub fn member_count(&self) -> usize {
        self.record.member_count()
    }

    /// Each slot's reserved destination spot (meaningful for occupied
    /// slots).
    #[must_use]
    pub fn spots(&self) -> &'a [Vec2; MAX_MEMBERS] {
        &self.record.spots
    }

    /// Each member's distance from its slot this tick, metres (NaN for an
    /// empty slot).
    #[must_use]
    pub fn formation_error(&self) -> &'a [f32; MAX_MEMBERS] {
        &self.record.error
    }

    /// Its route's corners, after [`PlatoonView::path_start`].
    #[must_use]
    pub fn path(&self) -> &'a [Vec2] {
        self.path
    }

    /// Where its path starts.
    #[must_use]
    pub fn path_start(&self) -> Vec2 {
        self.record.path_start
    }
}

/// Mutable slices of the columns an engine may set between ticks
/// (teleports, knock-backs, retuning): values can change, lengths cannot.
/// Bookkeeping columns (handles, routes, platoon slots) are not here.
/// Values must lie in the ranges [`crate::UnitSpec::validate`] accepts
/// (velocity within `MAX_COORDINATE` on each axis), checked by the next
/// step ([`Sim::columns_mut`]).
#[derive(Debug)]
pub struct EngineColumns<'a> {
    /// Ground-plane position (x east, y north), metres.
    pub position: &'a mut [Vec2],
    /// Ground-plane velocity, metres per second.
    pub velocity: &'a mut [Vec2],
    /// Facing: angle from +x, counter-clockwise, radians.
    pub heading: &'a mut [f32],
    /// Height above the ground plane, metres.
    pub altitude: &'a mut [f32],
    /// Top speed, metres per second.
    pub max_speed: &'a mut [f32],
    /// Largest gain of speed, metres per second squared.
    pub max_accel: &'a mut [f32],
    /// Largest loss of speed (braking), metres per second squared.
    pub max_brake: &'a mut [f32],
    /// Largest yaw rate, radians per second.
    pub turn_rate: &'a mut [f32],
    /// Minimum turning radius, metres (0: no limit beyond `turn_rate`).
    pub turn_radius: &'a mut [f32],
}

impl Sim {
    /// Platoon `id`, or `None` if it was disbanded.
    #[must_use]
    pub fn platoon(&self, id: PlatoonId) -> Option<PlatoonView<'_>> {
        let record = self.platoons.get(id)?;
        Some(PlatoonView {
            id,
            record,
            path: &self.platoons.routes().of(id.index)[..record.route_len as usize],
        })
    }

    /// Every live platoon, in index order.
    pub fn platoon_views(&self) -> impl Iterator<Item = PlatoonView<'_>> {
        self.platoons.iter().map(|(id, record)| PlatoonView {
            id,
            record,
            path: &self.platoons.routes().of(id.index)[..record.route_len as usize],
        })
    }

    /// Gives a live unit new parameters, all at once: checked as
    /// [`Sim::spawn`] checks them ([`UnitParams::validate`], and a movable
    /// ground unit must stand on open ground of its class's map), refused with
    /// nothing changed. The next tick drives with them; a platoon keeps the
    /// slot spacing it was formed with.
    pub fn set_unit_params(&mut self, id: UnitId, params: &UnitParams) -> Result<(), ParamsError> {
        let row = self.vehicles.row_of(id).ok_or(StaleUnit(id))?;
        params.validate()?;
        let columns = self.vehicles.columns();
        let kind = VehicleKind::from_u8(columns.kind()[row]).expect("kinds are checked at spawn");
        let (position, class) = (columns.position()[row], columns.mobility()[row]);
        self.check_footing(kind, params.inv_mass, position, class)?;
        let columns = self.vehicles.columns_mut();
        columns.max_speed[row] = params.max_speed;
        columns.cruise_speed[row] = params.max_speed;
        columns.max_accel[row] = params.max_accel;
        columns.max_brake[row] = params.max_brake;
        columns.turn_rate[row] = params.turn_rate;
        columns.turn_radius[row] = params.turn_radius;
        columns.shield[row] = params.shield;
        columns.inv_mass[row] = params.inv_mass;
        columns.steer_mode[row] = params.steer_mode as u8;
        columns.faction[row] = params.faction.0;
        Ok(())
    }

    /// The columns an engine may write between ticks; see [`EngineColumns`].
    /// The next step checks them against the ranges a spawned unit's
    /// values lie in ([`crate::unit_limits`]): [`Sim::try_step`] refuses a
    /// value out of range, naming the unit and field
    /// ([`crate::StepError::BadEdit`]), and [`Sim::step`] puts it right.
    pub fn columns_mut(&mut self) -> EngineColumns<'_> {
        self.spatial_fresh = false;
        self.edited = true;
        let columns = self.vehicles.columns_mut();
        EngineColumns {
            position: columns.position,
            velocity: columns.velocity,
            heading: columns.heading,
            altitude: columns.altitude,
            max_speed: columns.max_speed,
            max_accel: columns.max_accel,
            max_brake: columns.max_brake,
            turn_rate: columns.turn_rate,
            turn_radius: columns.turn_radius,
        }
    }
}
