//! One plan for a whole group order on a grid or polygon map.
//!
//! A group's members share a goal, so one [`FlowField`] from the goal (one
//! per mobility class among them, on that class's map; Emerson, *Crowd
//! Pathfinding and Steering Using Flow Field Tiles*, Game AI Pro 2013)
//! answers all of them: each ground member's optimal path to the goal is
//! read off the field's links, extended by the straight line from the goal
//! to the member's own spot, and string-pulled into its route as a
//! search's answer would be. Each bend then moves out of the turn by the
//! member's place across the group ([`Lanes`]), as far as the walls allow:
//! the group takes a gap side by side instead of every member aiming at
//! its corner (`START=k` of the `group_order` example measures it on
//! arena2). Members get their routes in the order
//! call itself, so they start moving on the next tick, and the `paths`
//! stage's queue stays free for other orders. On a polygon map one search
//! of the visibility graph, from the member nearest the group's centre,
//! serves every member that sees a corner of its route (Force 21: the
//! group, not each vehicle, plans). A member neither serves — a flier, one
//! in another region, or one whose spot the route's end cannot see —
//! queues its own search instead.

use std::sync::Arc;

use glam::Vec2;

use super::Sim;
use super::config::Map;
use crate::data::vehicles::{UnitId, VehicleKind};
use crate::nav::grid::Cell;
use crate::nav::quadtree::supercover;
use crate::data::routes::ROUTE_POINTS;
use crate::nav::visgraph::{FactionId, PolygonNavigator, VisSearch};
use crate::nav::{FlowField, Path, WorldMap};
use crate::stages::paths::start_at_cell_centre;

/// A bend turning by less than this sine is left where it is: the route
/// runs nearly straight through it.
const MIN_TURN_SINE: f32 = 0.1;
/// Lane shifts shorter than this are not worth a bend, metres.
const MIN_LANE_SHIFT_M: f32 = 0.5;

/// The working memory of group plans, reused across orders.
#[derive(Clone, Debug, Default)]
pub(crate) struct GroupPlanner {
    field: FlowField,
    starts: Vec<Cell>,
    path: Path,
    corners: Vec<Vec2>,
}

impl Sim {
    /// Gives every member of `units` its route to its `targets` spot from
    /// one field planned to `goal` per mobility class among them (each on
    /// its class's map); members the field cannot serve queue their own
    /// search. Their earlier requests are already cancelled.
    pub(super) fn plan_group(&mut self, units: &[UnitId], targets: &[Vec2], goal: Vec2) {
        match &self.config.map {
            Map::Grid(_) => {}
            Map::Polygon { navigator, .. } => {
                let navigator = Arc::clone(navigator);
                return self.plan_on_polygon(&navigator, units, targets, goal);
            }
            Map::Open => return self.queue_each(units, targets),
        }
        let class_of = |unit: UnitId| {
            let row = self.vehicles.row_of(unit).expect("checked live by the caller");
            self.vehicles.columns().mobility[row]
        };
        let classes: Vec<u8> = units.iter().map(|&unit| class_of(unit)).collect();
        let mut distinct = classes.clone();
        distinct.sort_unstable();
        distinct.dedup();
        for class in distinct {
            let (members, spots): (Vec<UnitId>, Vec<Vec2>) = units
                .iter()
                .zip(targets)
                .zip(&classes)
                .filter(|&(_, &of)| of == class)
                .map(|((&unit, &target), _)| (unit, target))
                .unzip();
            self.plan_class(class, &members, &spots, goal);
        }
    }

    /// [`Sim::plan_group`] for the members of one mobility class.
    fn plan_class(&mut self, class: u8, units: &[UnitId], targets: &[Vec2], goal: Vec2) {
        let Some(map) = self.class_map(class) else {
            return self.queue_each(units, targets);
        };
        let Some(goal_cell) = map.cell_at(goal) else {
            return self.queue_each(units, targets);
        };
        let mut planner = std::mem::take(&mut self.group_planner);
        planner.starts.clear();
        planner
            .starts
            .extend(units.iter().filter_map(|&unit| map.cell_at(self.ground_position(unit)?)));
        let planned = planner.field.plan(map.grid(), goal_cell, &planner.starts).is_ok();
        let positions: Vec<Vec2> = units.iter().filter_map(|&unit| self.ground_position(unit)).collect();
        let lanes = Lanes::new(&positions, goal);
        for (&unit, &target) in units.iter().zip(targets) {
            let from = self.ground_position(unit);
            let routed = planned
                && from.is_some_and(|from| planner.route(&map, from, self.is_wheeled(unit), goal_cell, target));
            if let (true, Some(from)) = (routed, from) {
                lanes.keep(&map, from, &mut planner.corners);
                self.paths
                    .give_route(&mut self.vehicles, &mut self.platoons, unit, target, &planner.corners);
            } else {
                self.queue_move(unit, target);
            }
        }
        self.group_planner = planner;
    }

    /// One search for the ground members on a polygon map, from the
    /// member nearest the group's centre to `goal`: a member that sees a
    /// corner of that route joins it at the last one it sees and leaves it
    /// at its end for its own spot, if the end sees the spot; the others
    /// (and fliers) queue their own search.
    fn plan_on_polygon(&mut self, nav: &PolygonNavigator, units: &[UnitId], targets: &[Vec2], goal: Vec2) {
        let members: Vec<(UnitId, Vec2, Vec2)> = units
            .iter()
            .zip(targets)
            .filter_map(|(&unit, &target)| Some((unit, self.ground_position(unit)?, target)))
            .collect();
        let centre = members.iter().map(|&(_, from, _)| from).sum::<Vec2>() / members.len().max(1) as f32;
        let lead = members
            .iter()
            .map(|&(_, from, _)| from)
            .min_by(|a, b| a.distance_squared(centre).total_cmp(&b.distance_squared(centre)));
        let mut search = VisSearch::new(nav);
        let mut waypoints = Vec::new();
        let planned = lead.is_some_and(|lead| {
            nav.find_path(lead, goal, FactionId(0), &mut search, &mut waypoints)
                .is_ok()
        });
        let shared = waypoints.get(1..).filter(|_| planned).unwrap_or_default();
        let mut route = Vec::with_capacity(ROUTE_POINTS + 1);
        for (&unit, &target) in units.iter().zip(targets) {
            let from = self.ground_position(unit);
            let join = from.and_then(|from| (0..shared.len()).rev().find(|&k| nav.sees(from, shared[k], &mut search)));
            let end = shared.last().copied();
            let leaves = end.is_some_and(|end| end == target || nav.sees(end, target, &mut search));
            let (Some(join), true) = (join, leaves) else {
                self.queue_move(unit, target);
                continue;
            };
            route.clear();
            route.extend_from_slice(&shared[join..]);
            if end != Some(target) {
                route.push(target);
            }
            route.truncate(ROUTE_POINTS);
            self.paths
                .give_route(&mut self.vehicles, &mut self.platoons, unit, target, &route);
        }
    }

    /// Where a ground unit stands (`None` for a flier).
    fn ground_position(&self, unit: UnitId) -> Option<Vec2> {
        let row = self.vehicles.row_of(unit)?;
        let columns = self.vehicles.columns();
        let flies = VehicleKind::from_u8(columns.kind[row]).is_some_and(|kind| kind.handling().flies);
        (!flies).then(|| columns.position[row])
    }

    fn is_wheeled(&self, unit: UnitId) -> bool {
        self.vehicles
            .row_of(unit)
            .is_some_and(|row| self.vehicles.columns().kind[row] == VehicleKind::Wheeled as u8)
    }

    fn queue_each(&mut self, units: &[UnitId], targets: &[Vec2]) {
        for (&unit, &target) in units.iter().zip(targets) {
            self.queue_move(unit, target);
        }
    }
}

impl GroupPlanner {
    /// Writes into `corners` the route from `from` by the field to the
    /// goal cell and on to `target` (by `from`'s cell centre first where the
    /// first leg would clip a wall, unless the unit is `wheeled`). Returns `false` when the field did not
    /// reach `from`'s cell, or the goal cell does not see `target`.
    fn route(&mut self, map: &WorldMap, from: Vec2, wheeled: bool, goal: Cell, target: Vec2) -> bool {
        let Some(start) = map.cell_at(from) else {
            return false;
        };
        if !self.field.path_into(map.grid(), start, &mut self.path) {
            return false;
        }
        let Some(target_cell) = map.cell_at(target) else {
            return false;
        };
        if target_cell != goal {
            let cells = &mut self.path.cells;
            let grid = map.grid();
            let clear = supercover(goal, target_cell, |cell| {
                if cell != goal {
                    cells.push(cell);
                }
                grid.passable(cell)
            });
            if !clear {
                return false;
            }
        }
        map.corners_into(&self.path, target, &mut self.corners);
        if !wheeled {
            start_at_cell_centre(map, Some(from), &self.path, &mut self.corners);
        }
        true
    }
}

/// Where each member of a group runs across its way: its offset to the
/// left of the way from the group's centre to the goal, and the span of
/// those offsets. Members keep their order across the group at every bend,
/// so they pass a gap side by side instead of all aiming at its corner.
struct Lanes {
    centre: Vec2,
    left: Vec2,
    /// The smallest and largest offset.
    span: (f32, f32),
}

impl Lanes {
    fn new(positions: &[Vec2], goal: Vec2) -> Lanes {
        let centre = positions.iter().sum::<Vec2>() / positions.len().max(1) as f32;
        let left = (goal - centre).normalize_or(Vec2::X).perp();
        let span = positions
            .iter()
            .map(|&at| (at - centre).dot(left))
            .fold((0.0f32, 0.0f32), |(low, high), offset| (low.min(offset), high.max(offset)));
        Lanes { centre, left, span }
    }

    /// Moves each bend of the route `corners` (all but its end) of the
    /// member at `from` away from the inside of its turn by the member's
    /// distance from the inside edge of the group, or by half, a quarter
    /// ... of it, the most that keeps both legs clear of walls.
    fn keep(&self, map: &WorldMap, from: Vec2, corners: &mut [Vec2]) {
        let offset = (from - self.centre).dot(self.left);
        let mut previous = from;
        for k in 0..corners.len().saturating_sub(1) {
            let (corner, next) = (corners[k], corners[k + 1]);
            let (inbound, outbound) = ((corner - previous).normalize_or_zero(), (next - corner).normalize_or_zero());
            let turn = inbound.perp_dot(outbound);
            if turn.abs() >= MIN_TURN_SINE {
                // A left turn's inside is the group's left edge.
                let lane = if turn > 0.0 { self.span.1 - offset } else { offset - self.span.0 };
                let outside = (inbound - outbound).normalize_or_zero();
                corners[k] = std::iter::successors(Some(lane), |shift| Some(0.5 * shift))
                    .take_while(|&shift| shift >= MIN_LANE_SHIFT_M)
                    .map(|shift| corner + outside * shift)
                    .find(|&moved| map.segment_is_clear(previous, moved) && map.segment_is_clear(moved, next))
                    .unwrap_or(corner);
            }
            previous = corners[k];
        }
    }
}
