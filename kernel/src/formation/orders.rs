//! What an engine tells platoons: create, order, reshape, reinforce,
//! detach, disband. Every call checks all of its input first and changes
//! nothing when it refuses.

use glam::Vec2;

use super::platoon::{SPOT_GAP_M, slot_for_reinforcement, vacate};
use super::shape::to_world;
use super::{Formation, MAX_MEMBERS, Phase, Platoon, PlatoonError, PlatoonId, PlatoonSpec};
use crate::nav::{PathRequest, WorldMap};
use crate::sim::Sim;
use crate::vehicles::{NONE, UnitId};

/// Rings of candidate spots tried around a blocked or taken one.
const SPOT_RINGS: usize = 12;

impl Sim {
    /// The platoons (zero-copy records and routes).
    #[must_use]
    pub fn platoons(&self) -> &super::Platoons {
        &self.platoons
    }

    /// Forms a platoon of `members` (slot `k` for `members[k]`) at the first
    /// member's position and heading, holding formation until ordered.
    pub fn create_platoon(
        &mut self,
        members: &[UnitId],
        spec: &PlatoonSpec,
    ) -> Result<PlatoonId, PlatoonError> {
        spec.validate()?;
        if members.is_empty() {
            return Err(PlatoonError::Empty);
        }
        if members.len() > MAX_MEMBERS {
            return Err(PlatoonError::Full(members.len()));
        }
        for (k, &unit) in members.iter().enumerate() {
            self.free_unit_row(unit)?;
            if members[..k].contains(&unit) {
                return Err(PlatoonError::Duplicate(unit));
            }
        }
        let lead = self.vehicles.row_of(members[0]).expect("checked above");
        let columns = self.vehicles.columns();
        let (position, heading) = (columns.position()[lead], columns.heading()[lead]);
        let id = self.platoons.create(spec, position, heading);
        for (slot, &unit) in members.iter().enumerate() {
            self.platoons.records[id.index as usize].members[slot] = unit;
            self.seat(unit, id, slot);
        }
        self.reserve(self.vehicles.len());
        Ok(id)
    }

    /// Orders platoon `id` to `goal`, facing `facing` (radians) on arrival
    /// or, without one, the direction of the move. Its path is queued for
    /// the `paths` stage; each member's goal becomes its reserved
    /// destination spot.
    pub fn order_platoon(
        &mut self,
        id: PlatoonId,
        goal: Vec2,
        facing: Option<f32>,
    ) -> Result<(), PlatoonError> {
        let checks = [
            ("goal.x", goal.x),
            ("goal.y", goal.y),
            ("facing", facing.unwrap_or(0.0)),
        ];
        if let Some((key, value)) = checks.into_iter().find(|(_, value)| !value.is_finite()) {
            return Err(PlatoonError::BadOrder { key, value });
        }
        if let Some(map) = &self.config.map
            && map.cell_at(goal).is_none()
        {
            return Err(PlatoonError::OffMap(goal));
        }
        let platoon = self.platoons.get_mut(id)?;
        let travel = goal - platoon.position;
        let facing = facing.unwrap_or(if travel.length_squared() > 1e-6 {
            travel.to_angle()
        } else {
            platoon.heading
        });
        platoon.goal = goal;
        platoon.facing = facing;
        platoon.phase = Phase::Planning as u32;
        let already_queued = platoon.route_pending == 1;
        platoon.route_pending = 1;
        self.place_spots(id);
        if !already_queued {
            self.paths.push(PathRequest::for_platoon(id, goal));
        }
        Ok(())
    }

    /// Changes platoon `id`'s shape; its slots morph to the new one over
    /// [`super::MORPH_S`].
    pub fn set_formation(
        &mut self,
        id: PlatoonId,
        formation: Formation,
    ) -> Result<(), PlatoonError> {
        let platoon = self.platoons.get_mut(id)?;
        if platoon.formation() != formation {
            platoon.previous_formation = platoon.formation;
            platoon.formation = formation as u32;
            platoon.morph = 0.0;
        }
        if platoon.phase() != Phase::Holding {
            self.place_spots(id);
        }
        Ok(())
    }

    /// Adds `unit` to platoon `id` in its first empty slot, which is
    /// returned: nobody else changes slot.
    pub fn join_platoon(&mut self, id: PlatoonId, unit: UnitId) -> Result<usize, PlatoonError> {
        self.free_unit_row(unit)?;
        let platoon = self.platoons.get_mut(id)?;
        let slot =
            slot_for_reinforcement(&platoon.members).ok_or(PlatoonError::Full(MAX_MEMBERS + 1))?;
        platoon.members[slot] = unit;
        self.seat(unit, id, slot);
        if self.platoons.records[id.index as usize].phase() != Phase::Holding {
            self.place_spots(id);
        }
        Ok(slot)
    }

    /// Takes `unit` out of its platoon. Under [`super::SlotRule::Packed`]
    /// the unit in the last occupied slot moves into the hole (the one
    /// move that keeps the first slots filled); under `Fixed` the slot
    /// stays empty.
    pub fn leave_platoon(&mut self, unit: UnitId) -> Result<(), PlatoonError> {
        let row = self
            .vehicles
            .row_of(unit)
            .ok_or(PlatoonError::StaleUnit(unit))?;
        let index = self.vehicles.columns().platoon()[row];
        if index == NONE {
            return Ok(());
        }
        let platoon = &mut self.platoons.records[index as usize];
        let id = PlatoonId {
            index,
            generation: platoon.generation,
        };
        let slot = platoon.slot_of(unit).expect("the unit's platoon lists it");
        let rule = platoon.slot_rule();
        let moved = vacate(&mut platoon.members, slot, rule);
        let columns = self.vehicles.columns_mut();
        columns.platoon[row] = NONE;
        columns.slot[row] = NONE;
        columns.cruise_speed[row] = columns.max_speed[row];
        if let Some((moved, to)) = moved {
            self.seat(moved, id, to);
        }
        if self.platoons.records[index as usize].phase() != Phase::Holding {
            self.place_spots(id);
        }
        Ok(())
    }

    /// Dissolves platoon `id`: its members become solo units where they
    /// stand, and its spots are released.
    pub fn disband_platoon(&mut self, id: PlatoonId) -> Result<(), PlatoonError> {
        let platoon = self.platoons.disband(id)?;
        release_spots(&mut self.platoons, &platoon);
        for (_, unit) in platoon.occupied() {
            if let Some(row) = self.vehicles.row_of(unit) {
                let columns = self.vehicles.columns_mut();
                columns.platoon[row] = NONE;
                columns.slot[row] = NONE;
                columns.cruise_speed[row] = columns.max_speed[row];
            }
        }
        Ok(())
    }

    /// The row of `unit`, which must be live and in no platoon.
    fn free_unit_row(&self, unit: UnitId) -> Result<usize, PlatoonError> {
        let row = self
            .vehicles
            .row_of(unit)
            .ok_or(PlatoonError::StaleUnit(unit))?;
        match self.vehicles.columns().platoon()[row] {
            NONE => Ok(row),
            platoon => Err(PlatoonError::AlreadyInPlatoon { unit, platoon }),
        }
    }

    /// Marks `unit` as platoon `id`'s member in `slot` and gives it that
    /// slot's spot as its goal once the platoon is ordered.
    fn seat(&mut self, unit: UnitId, id: PlatoonId, slot: usize) {
        let platoon = &self.platoons.records[id.index as usize];
        let ordered = platoon.phase() != Phase::Holding;
        let (spot, facing) = (platoon.spots[slot], platoon.facing);
        let row = self.vehicles.row_of(unit).expect("a live member");
        let columns = self.vehicles.columns_mut();
        columns.platoon[row] = id.index;
        columns.slot[row] = slot as u32;
        columns.route_len[row] = 0;
        if ordered {
            columns.final_heading[row] = facing;
            self.vehicles.set_goal(unit, spot).expect("a live member");
        }
    }

    /// Recomputes and reserves the destination spot of every occupied
    /// slot of platoon `id` (the old ones are released first), and makes
    /// each spot its member's goal.
    fn place_spots(&mut self, id: PlatoonId) {
        let record = self.platoons.records[id.index as usize];
        release_spots(&mut self.platoons, &record);
        let map = self.config.map.clone();
        let mut placed = record;
        placed.reserved_spots = 0;
        for (slot, _) in record.occupied() {
            let ideal = destination_slot(&record, slot);
            let spot = self.free_spot(&record, ideal, map.as_deref());
            self.platoons.reserve_spot(spot);
            placed.spots[slot] = spot;
            placed.reserved_spots |= 1 << slot;
        }
        self.platoons.records[id.index as usize] = placed;
        for (slot, unit) in record.occupied() {
            self.seat(unit, id, slot);
        }
    }

    /// `ideal` if it is open, reachable from the platoon's goal and at
    /// least a gap from every reserved spot; else the nearest such point on
    /// rings around it; `ideal` itself if none is.
    fn free_spot(&self, platoon: &Platoon, ideal: Vec2, map: Option<&WorldMap>) -> Vec2 {
        let gap = platoon.spacing_m.min(SPOT_GAP_M) * 0.999;
        let goal_cell = map.and_then(|map| map.cell_at(platoon.goal));
        let usable = |point: Vec2| {
            let open = match (map, goal_cell) {
                (Some(map), Some(goal)) => map
                    .cell_at(point)
                    .is_some_and(|cell| map.grid().connected(goal, cell)),
                (Some(map), None) => map.cell_at(point).is_some(),
                (None, _) => true,
            };
            open && self.platoons.spot_is_free(point, gap)
        };
        if usable(ideal) {
            return ideal;
        }
        for ring in 1..=SPOT_RINGS {
            let radius = gap * ring as f32;
            let around = 8 * ring;
            for step in 0..around {
                let angle = std::f32::consts::TAU * step as f32 / around as f32;
                let candidate = ideal + Vec2::from_angle(angle) * radius;
                if usable(candidate) {
                    return candidate;
                }
            }
        }
        ideal
    }
}

/// Where `slot` stands at the platoon's goal, facing its ordered facing.
fn destination_slot(platoon: &Platoon, slot: usize) -> Vec2 {
    let offset = platoon.formation().offset(slot) * platoon.spacing_m;
    platoon.goal + to_world(offset, platoon.facing)
}

/// Gives up every spot `platoon` reserved.
fn release_spots(platoons: &mut super::Platoons, platoon: &Platoon) {
    for slot in 0..MAX_MEMBERS {
        if platoon.reserved_spots & (1 << slot) != 0 {
            platoons.release_spot(platoon.spots[slot]);
        }
    }
}
