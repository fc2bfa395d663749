//! What an engine tells platoons: create, order, reshape, reinforce,
//! detach, disband. Every call checks all of its input first and changes
//! nothing when it refuses.

use std::sync::Arc;

use glam::Vec2;

use crate::data::unit_limits::{MAX_COORDINATE, clamp_to_map, on_map};
use crate::data::platoons::{
    Formation, MAX_MEMBERS, Phase, Platoon, PlatoonError, PlatoonId, PlatoonSpec, Platoons,
    slot_for_reinforcement, to_world, vacate,
};
use crate::data::path_requests::PathRequest;
use crate::nav::polygon::{BridgeSpec, redraw_bridge_decks};
use crate::nav::visgraph::BridgeError;
use crate::nav::{FactionId, WorldMap};
use crate::sim::Sim;
use crate::data::vehicles::{NONE, UnitId, VehicleKind};

/// Rings of candidate spots tried around a blocked or taken one.
const SPOT_RINGS: usize = 12;
/// Rings of candidate places tried for a whole destination formation.
const SHIFT_RINGS: usize = 4;

impl Sim {
    /// The platoons' records and routes, for the workspace's tests.
    #[cfg(feature = "internals")]
    #[doc(hidden)]
    #[must_use]
    pub fn platoons(&self) -> &Platoons {
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
        // Factions matter on a polygon map only: they plan over its bridges.
        if let Some(nav) = self.config.map.polygon()
            && spec.faction >= nav.factions()
        {
            return Err(PlatoonError::BadSpec {
                key: "faction",
                value: f32::from(spec.faction),
            });
        }
        if members.is_empty() {
            return Err(PlatoonError::Empty);
        }
        if members.len() > MAX_MEMBERS {
            return Err(PlatoonError::Full(members.len()));
        }
        let class = self.mobility_of(members[0])?;
        for (k, &unit) in members.iter().enumerate() {
            self.free_unit_row(unit)?;
            if members[..k].contains(&unit) {
                return Err(PlatoonError::Duplicate(unit));
            }
            self.same_mobility(unit, class)?;
        }
        let lead = self.vehicles.row_of(members[0]).expect("checked above");
        let columns = self.vehicles.columns();
        let (position, heading) = (columns.position()[lead], columns.heading()[lead]);
        let id = self.platoons.create(spec, position, heading);
        for (slot, &unit) in members.iter().enumerate() {
            self.platoons.records[id.index as usize].members[slot] = unit;
            self.seat(unit, id, slot);
        }
        self.fit_spacing(id);
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
        let limit = |key: &str| if key == "facing" { f32::MAX } else { MAX_COORDINATE };
        if let Some((key, value)) = checks
            .into_iter()
            .find(|&(key, value)| !(value.is_finite() && value.abs() <= limit(key)))
        {
            return Err(PlatoonError::BadOrder { key, value });
        }
        if let Some(map) = self.config.map.grid()
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
        self.place_spots(id, true);
        let goal = self.platoons.records[id.index as usize].goal;
        if !already_queued {
            self.paths.push(PathRequest::for_platoon(id, goal));
        }
        Ok(())
    }

    /// Changes platoon `id`'s shape; its slots morph to the new one over
    /// 1.5 s.
    pub fn set_formation(
        &mut self,
        id: PlatoonId,
        formation: Formation,
    ) -> Result<(), PlatoonError> {
        let platoon = self.platoons.get_mut(id)?;
        // Crossing a bridge in column: the new shape comes after it.
        if platoon.resume_formation == NONE {
            platoon.change_formation(formation);
        } else {
            platoon.resume_formation = formation as u32;
        }
        if platoon.phase() != Phase::Holding {
            self.place_spots(id, false);
        }
        Ok(())
    }

    /// Adds `unit` to platoon `id` in its first empty slot, which is
    /// returned: nobody else changes slot.
    pub fn join_platoon(&mut self, id: PlatoonId, unit: UnitId) -> Result<usize, PlatoonError> {
        self.free_unit_row(unit)?;
        let record = self.platoons.get(id).ok_or(PlatoonError::Stale(id))?;
        if let Some((_, member)) = record.occupied().next() {
            self.same_mobility(unit, self.mobility_of(member)?)?;
        }
        let platoon = self.platoons.get_mut(id)?;
        let slot =
            slot_for_reinforcement(&platoon.members).ok_or(PlatoonError::Full(MAX_MEMBERS + 1))?;
        platoon.members[slot] = unit;
        self.seat(unit, id, slot);
        self.fit_spacing(id);
        if self.platoons.records[id.index as usize].phase() != Phase::Holding {
            self.place_spots(id, false);
        }
        Ok(slot)
    }

    /// Takes `unit` out of its platoon. Under [`crate::data::platoons::SlotRule::Packed`]
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
            self.place_spots(id, false);
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

    /// Widens platoon `id`'s spacing to the widest body among members that
    /// can meet another member (two helicopters with 8 m shields need 16 m
    /// between slots; fliers and ground units pass over each other), so
    /// every slot and destination spot can hold its member.
    fn fit_spacing(&mut self, id: PlatoonId) {
        let record = &self.platoons.records[id.index as usize];
        let columns = self.vehicles.columns();
        // Per layer (ground, air): members, and the widest body's width.
        let mut layers = [(0, 0.0f32); 2];
        for (_, unit) in record.occupied() {
            let Some(row) = self.vehicles.row_of(unit) else {
                continue;
            };
            let flies = VehicleKind::from_u8(columns.kind()[row])
                .is_some_and(|kind| kind.handling().flies);
            let shield = columns.shield()[row];
            let layer = &mut layers[usize::from(flies)];
            layer.0 += 1;
            layer.1 = layer.1.max(2.0 * shield.x.max(shield.y));
        }
        let widest = layers
            .iter()
            .filter(|&&(members, _)| members >= 2)
            .map(|&(_, width)| width)
            .fold(0.0, f32::max);
        let record = &mut self.platoons.records[id.index as usize];
        record.spacing_m = record.spacing_m.max(widest);
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

    /// The mobility class of live `unit`.
    fn mobility_of(&self, unit: UnitId) -> Result<u8, PlatoonError> {
        let row = self.vehicles.row_of(unit).ok_or(PlatoonError::StaleUnit(unit))?;
        Ok(self.vehicles.columns().mobility()[row])
    }

    /// Refuses `unit` unless it is of mobility `class`.
    fn same_mobility(&self, unit: UnitId, platoon_class: u8) -> Result<(), PlatoonError> {
        match self.mobility_of(unit)? {
            class if class == platoon_class => Ok(()),
            class => Err(PlatoonError::MixedMobility { unit, class, platoon_class }),
        }
    }

    /// Marks `unit` as platoon `id`'s member in `slot` and gives it that
    /// slot's spot as its goal once the platoon is ordered.
    fn seat(&mut self, unit: UnitId, id: PlatoonId, slot: usize) {
        let platoon = &self.platoons.records[id.index as usize];
        let ordered = platoon.phase() != Phase::Holding;
        let spot = platoon.spots[slot];
        let row = self.vehicles.row_of(unit).expect("a live member");
        let columns = self.vehicles.columns_mut();
        columns.platoon[row] = id.index;
        columns.group[row] = NONE;
        columns.slot[row] = slot as u32;
        columns.route_len[row] = 0;
        columns.wanted_goal[row] = Vec2::NAN;
        if ordered {
            self.vehicles.set_goal(unit, spot).expect("a live member");
        }
    }

    /// Takes bridge `id` out of the world (blown up, taken down); only the
    /// `known_to` factions know at once. Platoons of other factions still
    /// plan over it, and replan when they come to it and find it gone. The
    /// raster's deck cells get back the terrain below the bridge.
    ///
    /// # Errors
    /// [`BridgeError`]: no polygon map, an unknown bridge or faction.
    pub fn remove_bridge(&mut self, id: u32, known_to: &[FactionId]) -> Result<(), BridgeError> {
        let (nav, _) = self
            .config
            .map
            .polygon_mut()
            .ok_or(BridgeError::Unknown(id))?;
        Arc::make_mut(nav).remove_bridge(id, known_to)?;
        self.redraw_raster_decks();
        Ok(())
    }

    /// Adds a bridge to the world, known to the `known_to` factions; the
    /// raster's cells under its deck open.
    ///
    /// # Errors
    /// [`BridgeError`]: no polygon map, a duplicate id, a point that is
    /// not finite, an unknown faction.
    pub fn add_bridge(
        &mut self,
        spec: BridgeSpec,
        known_to: &[FactionId],
    ) -> Result<(), BridgeError> {
        let (nav, _) = self
            .config
            .map
            .polygon_mut()
            .ok_or(BridgeError::Unknown(spec.id))?;
        let nav = Arc::make_mut(nav);
        nav.add_bridge(spec, known_to)?;
        let bridges = nav.bridge_count();
        self.formations.reserve_bridges(bridges);
        self.redraw_raster_decks();
        Ok(())
    }

    /// Redraws the raster's bridge decks after a bridge came or went, so the
    /// tick's local checks (lines of sight, ground under a unit) see the
    /// bridges that stand. Between ticks; builds a new raster.
    fn redraw_raster_decks(&mut self) {
        let Some((nav, map)) = self.config.map.polygon_mut() else {
            return;
        };
        if let Some(redrawn) = redraw_bridge_decks(map, nav.standing_decks()) {
            *map = Arc::new(redrawn);
        }
    }

    /// After a tick: each platoon that found its bridge gone tells its
    /// faction and asks for a new path. An event, like an order: the
    /// navigator's beliefs are updated (copied first if an engine shares
    /// it), which may allocate.
    pub(crate) fn learn_of_removed_bridges(&mut self) {
        if self.config.map.polygon().is_none() {
            return;
        }
        for index in 0..self.platoons.records.len() {
            let platoon = &mut self.platoons.records[index];
            if platoon.live != 1 || platoon.bridge_gone == 0 {
                continue;
            }
            platoon.bridge_gone = 0;
            let (bridge, faction) = (platoon.bridge, FactionId(platoon.faction as u16));
            platoon.release_bridge();
            platoon.phase = Phase::Planning as u32;
            let id = PlatoonId {
                index: index as u32,
                generation: platoon.generation,
            };
            let goal = platoon.goal;
            let queue = platoon.route_pending == 0;
            platoon.route_pending = 1;
            if let Some((nav, _)) = self.config.map.polygon_mut() {
                // The bridge and faction were checked when it was planned.
                let _ = Arc::make_mut(nav).observe_bridge(faction, bridge);
            }
            if queue {
                self.paths.push(PathRequest::for_platoon(id, goal));
            }
        }
    }

    /// Recomputes and reserves the destination spot of every occupied
    /// slot of platoon `id` (the old ones are released first), and makes
    /// each spot its member's goal. With `move_goal` (a new order) the
    /// whole destination formation may move to the nearest place where
    /// every spot is free, and the platoon's goal with it, so platoons sent
    /// to one place stand side by side instead of interleaved; otherwise,
    /// or where no such place is near, each spot moves on its own.
    pub(super) fn place_spots(&mut self, id: PlatoonId, move_goal: bool) {
        let record = self.platoons.records[id.index as usize];
        release_spots(&mut self.platoons, &record);
        let map = self.platoon_map(&record);
        let map = map.as_deref();
        let mut placed = record;
        let gap = record.spot_gap();
        // A moved formation keeps two gaps from other platoons' spots, so
        // nobody has to drive between parked units to reach a spot.
        let fits = |shift: Vec2| {
            record.occupied().all(|(slot, _)| {
                let point = destination_slot(&record, slot) + shift;
                self.spot_usable(&record, point, map)
                    && self.platoons.spot_is_free(point, 2.0 * gap)
            })
        };
        if move_goal && let Some(shift) = nearest_fitting_shift(&record, gap, fits) {
            placed.goal = clamp_to_map(placed.goal + shift);
        }
        placed.reserved_spots = 0;
        for (slot, _) in record.occupied() {
            let ideal = destination_slot(&placed, slot);
            let spot = rings(ideal, gap)
                .find(|&point| self.spot_usable(&placed, point, map))
                .unwrap_or_else(|| clamp_to_map(ideal));
            self.platoons.reserve_spot(spot);
            placed.spots[slot] = spot;
            placed.reserved_spots |= 1 << slot;
        }
        self.platoons.records[id.index as usize] = placed;
        for (slot, unit) in record.occupied() {
            self.seat(unit, id, slot);
        }
    }

    /// Whether `point` can be a destination spot of `platoon`: within the
    /// coordinate limit, open, reachable from its goal, and a gap from
    /// every reserved spot.
    fn spot_usable(&self, platoon: &Platoon, point: Vec2, map: Option<&WorldMap>) -> bool {
        let open = match (map, map.and_then(|map| map.cell_at(platoon.goal))) {
            (Some(map), Some(goal)) => map
                .cell_at(point)
                .is_some_and(|cell| map.grid().connected(goal, cell)),
            (Some(map), None) => map.cell_at(point).is_some(),
            (None, _) => true,
        };
        on_map(point) && open && self.platoons.spot_is_free(point, platoon.spot_gap())
    }
}

/// The smallest move of `platoon`'s destination formation for which
/// `fits` holds: the innermost ring (`step` apart) with a fitting move, and
/// on it the one whose goal is nearest the platoon, so a late arrival
/// stops on its own side of those already there instead of driving
/// through them.
fn nearest_fitting_shift(
    platoon: &Platoon,
    step: f32,
    fits: impl Fn(Vec2) -> bool,
) -> Option<Vec2> {
    if fits(Vec2::ZERO) {
        return Some(Vec2::ZERO);
    }
    let from_platoon = |shift: &Vec2| (platoon.goal + *shift).distance_squared(platoon.position);
    (1..=SHIFT_RINGS).find_map(|ring| {
        ring_points(Vec2::ZERO, step, ring)
            .filter(|&shift| fits(shift))
            .min_by(|a, b| from_platoon(a).total_cmp(&from_platoon(b)))
    })
}

/// The points of ring `ring` (`ring × step` from `centre`, `8 × ring` of
/// them).
fn ring_points(centre: Vec2, step: f32, ring: usize) -> impl Iterator<Item = Vec2> {
    let around = 8 * ring;
    (0..around).map(move |k| {
        let angle = std::f32::consts::TAU * k as f32 / around as f32;
        centre + Vec2::from_angle(angle) * (step * ring as f32)
    })
}

/// `centre`, then points on [`SPOT_RINGS`] rings around it, `step` apart.
fn rings(centre: Vec2, step: f32) -> impl Iterator<Item = Vec2> {
    std::iter::once(centre)
        .chain((1..=SPOT_RINGS).flat_map(move |ring| ring_points(centre, step, ring)))
}

/// Where `slot` stands at the platoon's goal, facing its ordered facing.
fn destination_slot(platoon: &Platoon, slot: usize) -> Vec2 {
    let offset = platoon.ordered_formation().offset(slot) * platoon.spacing_m;
    platoon.goal + to_world(offset, platoon.facing)
}

/// Gives up every spot `platoon` reserved.
fn release_spots(platoons: &mut Platoons, platoon: &Platoon) {
    for slot in 0..MAX_MEMBERS {
        if platoon.reserved_spots & (1 << slot) != 0 {
            platoons.release_spot(platoon.spots[slot]);
        }
    }
}
