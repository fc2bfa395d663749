//! Orders to units: move one, move a group to one point, stop; what
//! becomes of a goal no path reaches; and each unit's movement state.
//!
//! A goal on a grid map (or a polygon map's raster) that is blocked, or in
//! another connected region than the unit, is unreachable; the region
//! labels answer that at once, without a search. [`UnreachableGoals`] in
//! the [`SimConfig`](super::SimConfig) says what an order does with one:
//! move it to the nearest open cell of the unit's region, or refuse it.
//! Flying units are never refused: no wall stops them.

use glam::Vec2;
use thiserror::Error;

use super::Sim;
use super::group_spots::{assign_spots, destination_spots};
use crate::data::path_requests::PathRequest;
use crate::data::unit_limits::{MAX_COORDINATE, on_map};
use crate::data::vehicles::{ARRIVE_RADIUS, Columns, PathState, STUCK_AFTER_S, StaleUnit, UnitId, VehicleKind};
use crate::nav::WorldMap;

/// What an order does with a goal its unit cannot reach.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnreachableGoals {
    /// The unit goes to the centre of the open cell of its own region
    /// nearest the goal.
    #[default]
    MoveToNearest,
    /// The order is refused with [`OrderError::Blocked`] or
    /// [`OrderError::OtherRegion`].
    Refuse,
}

/// What a unit is doing about its goal, as [`Sim::move_state`] reads it.
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveState {
    /// Its path request waits for the `paths` stage or is being searched.
    WaitingForPath = 0,
    /// On its way.
    Moving,
    /// Within 2.5 m of its goal (also after [`Sim::stop`]).
    Arrived,
    /// Its last path request found no path, or a world edit cut it off
    /// under [`UnreachableGoals::Refuse`]; it holds where it was until a
    /// new order, or a world edit that puts its goal back in reach.
    NoPath,
    /// No progress toward its drive-to point for 10 s.
    Stuck,
}

/// An order the `Sim` refuses; nothing was changed.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum OrderError {
    /// The unit is gone.
    #[error(transparent)]
    Stale(#[from] StaleUnit),
    /// The goal is NaN, infinite or further than
    /// [`MAX_COORDINATE`](crate::unit_limits::MAX_COORDINATE) from 0 on an axis.
    #[error("move goal must be finite and within ±{MAX_COORDINATE} m of 0 on each axis, was {0:?}")]
    BadGoal(Vec2),
    /// The goal lies off the map.
    #[error("move goal {0:?} is off the map")]
    OffMap(Vec2),
    /// The goal lies on a blocked cell (refused under
    /// [`UnreachableGoals::Refuse`]).
    #[error("move goal {goal:?} for unit {unit:?} is on a blocked cell")]
    Blocked {
        /// The unit ordered.
        unit: UnitId,
        /// Its goal.
        goal: Vec2,
    },
    /// No path joins the unit's region to the goal's (refused under
    /// [`UnreachableGoals::Refuse`]).
    #[error("move goal {goal:?} is in another region than unit {unit:?}")]
    OtherRegion {
        /// The unit ordered.
        unit: UnitId,
        /// Its goal.
        goal: Vec2,
    },
    /// A group order names the same unit twice.
    #[error("unit {0:?} is listed twice in one group order")]
    Duplicate(UnitId),
    /// A group order's facing is NaN or infinite.
    #[error("group facing must be finite, was {0:?}")]
    BadFacing(Vec2),
}

/// The block of a group order a member takes its spot in: ground units by
/// mobility class, then fliers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Layer {
    /// Ground units of one mobility class.
    Ground(u8),
    /// Fliers: no wall stops them.
    Air,
}

impl Layer {
    /// The mobility class of a ground layer (fliers: none).
    fn class(self) -> Option<u8> {
        match self {
            Layer::Ground(class) => Some(class),
            Layer::Air => None,
        }
    }
}

/// Destination spots are this many of the widest member's lengths apart
/// (twice its larger semi-axis each): room for a member to drive between
/// two that have arrived. The `group_order` example measures it on arena2:
/// 20 tanks all arrive in 1.3× a lone tank's time at 2 lengths, 2.2× at
/// 1.25.
pub(super) const SPOT_SPACING_LENGTHS: f32 = 2.0;

impl Sim {
    /// Orders a unit to `goal`: queued for the `paths` stage. Returns the
    /// goal the unit goes to: `goal`, or the nearest reachable point when
    /// `goal` is unreachable (see [`UnreachableGoals`]). Until the request
    /// is served the unit's own checks ask for no path (theirs would lead
    /// to the old goal and, being newer, replace the order).
    pub fn order_move(&mut self, unit: UnitId, goal: Vec2) -> Result<Vec2, OrderError> {
        let target = self.reachable_goal(unit, goal)?;
        self.leave_group(self.vehicles.row_of(unit).ok_or(StaleUnit(unit))?);
        self.queue_move(unit, target);
        self.remember_wanted(unit, goal, target);
        Ok(target)
    }

    /// Orders `units` to `goal` as one group: each member gets its own
    /// destination spot in a block of ranks around `goal` facing `facing`
    /// (a direction; zero: the way from the group's centre to the goal):
    /// ground members in one block on open ground reachable from the goal,
    /// fliers in another (they never meet), each block spaced by its widest
    /// member's length. Members take spots rank by rank so no two straight
    /// lines to them cross (groups of up to 2,048 members per block are
    /// untangled), and arrive facing `facing`. On a grid map one flow field,
    /// on a polygon map one search, plans the ground members' routes before
    /// this returns. Each block
    /// travels as a group ([`Sim::group_of`]) at its slowest member's top
    /// speed, members ahead slowing and those behind catching up; the last
    /// arrival is an [`Event::GroupArrived`](crate::Event::GroupArrived). A
    /// member in a platoon leaves it. Returns each member's spot, in
    /// `units`' order.
    /// All or nothing: an error changes nothing.
    pub fn order_group(
        &mut self,
        units: &[UnitId],
        goal: Vec2,
        facing: Vec2,
    ) -> Result<Vec<Vec2>, OrderError> {
        let rows = self.group_rows(units)?;
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        if !facing.is_finite() {
            return Err(OrderError::BadFacing(facing));
        }
        let requested = goal;
        let goal = self.reachable_goal(units[0], goal)?;
        let positions: Vec<Vec2> = rows
            .iter()
            .map(|&row| self.vehicles.columns().position[row])
            .collect();
        let centre = positions.iter().sum::<Vec2>() / positions.len() as f32;
        let facing = facing
            .try_normalize()
            .or_else(|| (goal - centre).try_normalize())
            .unwrap_or(Vec2::X);
        let layers = self.layers_of(&rows);
        let mut distinct = layers.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let mut spots = vec![goal; rows.len()];
        for &layer in &distinct {
            let members: Vec<usize> = (0..rows.len()).filter(|&i| layers[i] == layer).collect();
            // A class that cannot stand at the goal gathers at its own
            // nearest reachable point.
            let layer_goal = match layer {
                Layer::Ground(class) if Some(class) != layers[0].class() => {
                    self.reachable_goal(units[members[0]], requested)?
                }
                _ => goal,
            };
            let layer_spots = self.layer_spots(&members, &rows, &positions, (layer_goal, facing), layer);
            for (&member, spot) in members.iter().zip(layer_spots) {
                spots[member] = spot;
            }
        }
        let mut targets = Vec::with_capacity(units.len());
        for (&unit, &spot) in units.iter().zip(&spots) {
            targets.push(self.reachable_goal(unit, spot)?);
        }
        let heading = facing.y.atan2(facing.x);
        for (k, &unit) in units.iter().enumerate() {
            self.leave_platoon(unit).expect("checked live above");
            let row = self.vehicles.row_of(unit).expect("checked live above");
            self.vehicles.columns_mut().final_heading[row] = heading;
            self.remember_wanted(unit, spots[k], targets[k]);
        }
        for &layer in &distinct {
            let layer_rows: Vec<usize> = (0..rows.len())
                .filter(|&i| layers[i] == layer)
                .map(|i| rows[i])
                .collect();
            self.enter_new_group(&layer_rows);
        }
        self.paths.cancel(&sorted(units));
        self.plan_group(units, &targets, goal);
        Ok(targets)
    }

    /// Stops `units` at once: their queued and in-flight path requests are
    /// dropped, their velocity is zeroed and each holds where it stands (a
    /// member in a platoon leaves it). All or nothing: a stale handle
    /// changes nothing.
    pub fn stop(&mut self, units: &[UnitId]) -> Result<(), OrderError> {
        let rows = self.group_rows(units)?;
        self.paths.cancel(&sorted(units));
        for (&unit, &row) in units.iter().zip(&rows) {
            self.leave_platoon(unit).expect("checked live above");
            self.leave_group(row);
            let here = self.vehicles.columns().position[row];
            self.vehicles.set_goal(unit, here).expect("checked live above");
            let columns = self.vehicles.columns_mut();
            columns.drive_to[row] = here;
            columns.velocity[row] = Vec2::ZERO;
            columns.desired_velocity[row] = Vec2::ZERO;
            columns.route_len[row] = 0;
            columns.route_next[row] = 0;
            columns.route_pending[row] = PathState::Settled as u8;
            columns.wanted_goal[row] = Vec2::NAN;
        }
        Ok(())
    }

    /// What `unit` is doing about its goal.
    pub fn move_state(&self, unit: UnitId) -> Result<MoveState, StaleUnit> {
        let row = self.vehicles.row_of(unit).ok_or(StaleUnit(unit))?;
        Ok(move_state_at(self.vehicles.columns(), row))
    }

    /// Each row's [`Layer`].
    fn layers_of(&self, rows: &[usize]) -> Vec<Layer> {
        let columns = self.vehicles.columns();
        rows.iter()
            .map(|&row| match columns.altitude[row] > 0.0 {
                true => Layer::Air,
                false => Layer::Ground(columns.mobility[row]),
            })
            .collect()
    }

    /// The spots of one layer of a group (`members`, indices into `rows`
    /// and `positions`): fliers, ground units and ground units of another
    /// mobility class do not share ground, so each layer gets its own
    /// block about `goal`, facing `facing`, spaced by its widest member;
    /// ground spots lie on open ground of the goal's region on the class's
    /// map. In `members`' order.
    fn layer_spots(
        &self,
        members: &[usize],
        rows: &[usize],
        positions: &[Vec2],
        (goal, facing): (Vec2, Vec2),
        layer: Layer,
    ) -> Vec<Vec2> {
        if members.is_empty() {
            return Vec::new();
        }
        let shield = &self.vehicles.columns().shield;
        let widest = members
            .iter()
            .map(|&i| shield[rows[i]].x.max(shield[rows[i]].y))
            .fold(0.0f32, f32::max);
        let spacing = SPOT_SPACING_LENGTHS * 2.0 * widest;
        let map = match layer {
            Layer::Ground(class) => self.class_maps().of(class),
            Layer::Air => None,
        };
        let goal_region = map.and_then(|map| map.grid().region(map.cell_at(goal)?));
        let open = |spot: Vec2| match (map, goal_region) {
            (Some(map), Some(region)) => footprint_in_region(map, spot, 0.5 * spacing, region),
            _ => true,
        };
        let spots = destination_spots(members.len(), goal, facing, spacing, open);
        let from: Vec<Vec2> = members.iter().map(|&i| positions[i]).collect();
        let assignment = assign_spots(&from, &spots, facing);
        assignment.into_iter().map(|spot| spots[spot]).collect()
    }

    /// The rows of `units`, refusing a stale or repeated handle.
    fn group_rows(&self, units: &[UnitId]) -> Result<Vec<usize>, OrderError> {
        let mut rows = Vec::with_capacity(units.len());
        let mut seen = std::collections::HashSet::with_capacity(units.len());
        for &unit in units {
            let row = self.vehicles.row_of(unit).ok_or(StaleUnit(unit))?;
            if !seen.insert(row) {
                return Err(OrderError::Duplicate(unit));
            }
            rows.push(row);
        }
        Ok(rows)
    }

    /// `goal` checked for `unit`: finite, on the map, and reachable from
    /// where the unit stands on its mobility class's map, or moved to the nearest reachable point, as
    /// [`UnreachableGoals`] says.
    pub(super) fn reachable_goal(&self, unit: UnitId, goal: Vec2) -> Result<Vec2, OrderError> {
        let row = self
            .vehicles
            .row_of(unit)
            .ok_or(OrderError::Stale(StaleUnit(unit)))?;
        if !on_map(goal) {
            return Err(OrderError::BadGoal(goal));
        }
        let Some(map) = self.map_of_row(row) else {
            return Ok(goal);
        };
        let Some(goal_cell) = map.cell_at(goal) else {
            return Err(OrderError::OffMap(goal));
        };
        let columns = self.vehicles.columns();
        let flies = VehicleKind::from_u8(columns.kind[row]).is_some_and(|kind| kind.handling().flies);
        let grid = map.grid();
        let Some(region) = map
            .cell_at(columns.position[row])
            .and_then(|cell| grid.region(cell))
            .filter(|_| !flies)
        else {
            // Flying, or standing off open ground: the search decides.
            return Ok(goal);
        };
        let refusal = match grid.region(goal_cell) {
            Some(goal_region) if goal_region == region => return Ok(goal),
            Some(_) => OrderError::OtherRegion { unit, goal },
            None => OrderError::Blocked { unit, goal },
        };
        match self.config.unreachable_goals {
            UnreachableGoals::Refuse => Err(refusal),
            UnreachableGoals::MoveToNearest => {
                Ok(map.nearest_open_in_region(goal, region).unwrap_or(goal))
            }
        }
    }

    /// Notes that `unit`, ordered to `wanted`, heads for `target`: the
    /// `wanted_goal` column keeps `wanted` while the two differ (a world
    /// edit that makes it reachable sends the unit there), NaN otherwise.
    pub(super) fn remember_wanted(&mut self, unit: UnitId, wanted: Vec2, target: Vec2) {
        let row = self.vehicles.row_of(unit).expect("checked by the caller");
        self.vehicles.columns_mut().wanted_goal[row] = if wanted == target {
            Vec2::NAN
        } else {
            wanted
        };
    }

    /// Queues `unit`'s request for `goal` (already checked).
    pub(super) fn queue_move(&mut self, unit: UnitId, goal: Vec2) {
        let row = self.vehicles.row_of(unit).expect("checked by the caller");
        self.paths.push(PathRequest::for_unit(unit, goal));
        self.vehicles.columns_mut().route_pending[row] = PathState::Pending as u8;
    }
}

/// `units` in handle order, for binary searches.
fn sorted(units: &[UnitId]) -> Vec<UnitId> {
    let mut sorted = units.to_vec();
    sorted.sort_unstable();
    sorted
}

/// The state of the unit in `row`.
pub(crate) fn move_state_at(columns: &Columns, row: usize) -> MoveState {
    match columns.route_pending[row] {
        p if p == PathState::Pending as u8 => MoveState::WaitingForPath,
        p if p == PathState::NoPath as u8 => MoveState::NoPath,
        _ if columns.position[row].distance(columns.goal[row]) <= ARRIVE_RADIUS => {
            MoveState::Arrived
        }
        _ if columns.stalled_s[row] >= STUCK_AFTER_S => MoveState::Stuck,
        _ => MoveState::Moving,
    }
}

/// Whether a square of half-width `half` about `spot` lies on open cells
/// of `region` (its centre and four corners).
pub(super) fn footprint_in_region(map: &WorldMap, spot: Vec2, half: f32, region: u32) -> bool {
    let grid = map.grid();
    [Vec2::ZERO, Vec2::new(half, half), Vec2::new(-half, half), Vec2::new(half, -half), Vec2::new(-half, -half)]
        .into_iter()
        .all(|corner| {
            map.cell_at(spot + corner)
                .is_some_and(|cell| grid.region(cell) == Some(region))
        })
}
