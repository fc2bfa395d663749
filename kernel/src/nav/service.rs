//! The `paths` stage: serving path requests and following routes.
//!
//! Each tick the stage first answers queued requests (move orders, and the
//! bad-position requests of the tick before) in batches, first in first
//! out, while its budget and the per-tick request cap last; the rest waits
//! for the next tick — the time-slicing of Smith, *Polygon Soup for the
//! Programmer's Soul* (GDC 2002). The budget counts the searches' work in
//! cells ([`super::GridPlanner::work`]: cells expanded, or stepped onto by
//! jump point runs), not microseconds: a wall-clock budget would make which
//! requests a tick serves depend on the machine's speed, and lockstep
//! replays diverge. (The stage's time is still measured against its frame
//! budget.) A batch is planned with grid A* across the rayon pool
//! ([`BatchPlanner`], answers in request order whatever the thread count),
//! and each answer becomes the unit's route ([`Routes`]). Without a map a
//! request just sets the goal: on the open field the straight line is the
//! route.
//!
//! Then every unit in no platoon gets its drive-to point: its route's next
//! corner (advancing past corners it has reached), or its goal — a wheeled
//! unit drives its route's turning-radius curve instead, corner by corner
//! ([`crate::steer::follow`]), as does a wheeled platoon member on its own
//! path. And the
//! Force 21 bad-position check (§5 "Check for bad position") runs on a
//! staggered subset of units each tick: a ground unit farther than
//! √3 × its top speed from its drive-to point, whose straight line there
//! crosses a blocked cell, asks for its own path. So does a unit at the end
//! of a route that was cut at [`super::world::ROUTE_POINTS`] corners.

use glam::Vec2;

use super::astar::Path;
use super::batch::{BatchPlanner, GridAnswer, GridQuery};
use super::grid::Cell;
use super::queue::{PathQueue, PathRequest, Requester};
use super::visgraph::{FactionId, PolygonNavigator, VisSearch};
use super::world::{ROUTE_POINTS, Routes, WorldMap};
use crate::formation::{Phase, PlatoonId, Platoons};
use crate::parallel::for_each_chunk3;
use crate::steer::ARRIVE_RADIUS;
use crate::steer::follow::{Wheels, curve_drive_to};
use crate::vehicles::{NONE, UnitId, VehicleKind, Vehicles};

/// Requests planned together (one parallel batch). The same whatever the
/// thread count, so which requests a tick serves never depends on it; the
/// budget is checked between batches.
pub const BATCH: usize = 8;
/// A query off the map: the planner refuses it before searching. It stands
/// in for a request with an end off the map (or a stale unit), and pads
/// every batch to [`BATCH`].
const UNANSWERABLE: GridQuery = GridQuery::new(Cell::new(u32::MAX, u32::MAX), Cell::new(0, 0));
/// `follow`'s flag for a platoon member done with its own path.
const DROP_ROUTE: u8 = 2;
/// Each unit gets the bad-position check every this many ticks.
pub const BAD_POSITION_CHECK_TICKS: u64 = 16;

/// What one tick of the `paths` stage did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServeStats {
    /// Requests answered.
    pub served: usize,
    /// Requests dropped because their unit was despawned meanwhile.
    pub dropped: usize,
    /// Answered requests with no path (goal unreachable or blocked, or an
    /// end off the map): the unit drives straight at its goal.
    pub unreachable: usize,
    /// Nodes the planners expanded.
    pub expanded: u64,
    /// The planners' work in cells (expanded, or scanned by jump point
    /// runs; visibility-graph nodes expanded): what the node budget counts.
    pub work: u64,
    /// Requests still waiting afterwards.
    pub waiting: usize,
    /// Requests the unit-level checks queued (bad position, cut route).
    pub requested: usize,
}

/// What the stage plans on.
#[derive(Clone, Copy, Debug)]
pub enum Planner<'a> {
    /// The open field: a request sets the goal, the straight line is the
    /// route.
    OpenField,
    /// Grid A* on a map placed in the world.
    Grid(&'a WorldMap),
    /// The Force 21 visibility graph over a polygon map (faction 0's view
    /// of its bridges).
    Polygon(&'a PolygonNavigator),
}

/// The `paths` stage's state and working memory; reuse it every tick.
#[derive(Debug, Default)]
pub struct PathService {
    pub(crate) queue: PathQueue,
    pub(crate) routes: Routes,
    planner: BatchPlanner,
    batch: Vec<PathRequest>,
    queries: Vec<GridQuery>,
    answers: Vec<GridAnswer>,
    corners: Vec<Vec2>,
    flags: Vec<u8>,
    vis_search: Option<VisSearch>,
    waypoints: Vec<Vec2>,
}

impl PathService {
    /// Sizes every buffer for `units` units and `slots` handle slots, and
    /// the search contexts of `planner` (a `threads`-worker pool's).
    pub fn reserve(&mut self, units: usize, slots: usize, planner: Planner<'_>, threads: usize) {
        match planner {
            Planner::Grid(map) => self.planner.reserve(map.grid(), threads),
            Planner::Polygon(nav) => {
                if self.vis_search.is_none() {
                    self.vis_search = Some(VisSearch::new(nav));
                }
                let waypoints = nav.total_nodes() + 2;
                self.waypoints
                    .reserve(waypoints.saturating_sub(self.waypoints.len()));
            }
            Planner::OpenField => {}
        }
        self.queue.reserve(units);
        self.routes.reserve_slots(slots.max(units));
        self.batch.reserve(BATCH);
        self.queries.reserve(BATCH);
        self.answers.reserve(BATCH);
        self.corners.reserve(ROUTE_POINTS);
        self.flags.reserve(units.saturating_sub(self.flags.len()));
    }

    /// Queues a request (outside the tick: this may grow the queue).
    pub fn push(&mut self, request: PathRequest) {
        self.queue.push(request);
    }

    /// Requests waiting.
    #[must_use]
    pub fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// The routes, indexed by handle slot.
    #[must_use]
    pub fn routes(&self) -> &Routes {
        &self.routes
    }

    /// One tick of the stage: serve, then follow and check.
    pub fn run(
        &mut self,
        vehicles: &mut Vehicles,
        platoons: &mut Platoons,
        planner: Planner<'_>,
        node_budget: u64,
        max_requests: usize,
        tick: u64,
    ) -> ServeStats {
        let mut stats = self.serve(vehicles, platoons, planner, node_budget, max_requests);
        let grid = match planner {
            Planner::Grid(map) => Some(map),
            Planner::OpenField | Planner::Polygon(_) => None,
        };
        self.follow(vehicles, grid, tick);
        stats.requested = self.queue_flagged(vehicles) + self.queue_platoons(platoons);
        stats.waiting = self.queue.len();
        stats
    }

    /// Answers requests in batches while the node budget and the request
    /// cap last.
    fn serve(
        &mut self,
        vehicles: &mut Vehicles,
        platoons: &mut Platoons,
        planner: Planner<'_>,
        node_budget: u64,
        max_requests: usize,
    ) -> ServeStats {
        let mut stats = ServeStats::default();
        while stats.served + stats.dropped < max_requests
            && !self.queue.is_empty()
            && stats.work < node_budget
        {
            let take = BATCH
                .min(max_requests - stats.served - stats.dropped)
                .min(self.queue.len());
            self.batch.clear();
            self.batch
                .extend((0..take).filter_map(|_| self.queue.pop()));
            let mut movers = Movers {
                vehicles: &mut *vehicles,
                platoons: &mut *platoons,
                routes: &mut self.routes,
                stats: &mut stats,
            };
            match planner {
                Planner::Grid(map) => Self::plan_batch(
                    &self.batch,
                    &mut self.planner,
                    &mut self.queries,
                    &mut self.answers,
                    &mut self.corners,
                    map,
                    &mut movers,
                ),
                Planner::Polygon(nav) => {
                    let search = self.vis_search.get_or_insert_with(|| VisSearch::new(nav));
                    plan_polygon(&self.batch, nav, search, &mut self.waypoints, &mut movers);
                }
                Planner::OpenField => {
                    for request in &self.batch {
                        movers.accept(request, Some(&[request.goal]));
                    }
                }
            }
        }
        stats
    }

    /// Plans the batch on the map and stores each route.
    fn plan_batch(
        batch: &[PathRequest],
        planner: &mut BatchPlanner,
        queries: &mut Vec<GridQuery>,
        answers: &mut Vec<GridAnswer>,
        corners: &mut Vec<Vec2>,
        map: &WorldMap,
        movers: &mut Movers<'_>,
    ) {
        let grid = map.grid();
        queries.clear();
        for request in batch {
            let start = movers.start_of(request).and_then(|at| map.cell_at(at));
            let query = match (start, map.cell_at(request.goal)) {
                (Some(start), Some(goal)) => GridQuery::new(start, goal),
                _ => UNANSWERABLE,
            };
            queries.push(query);
        }
        // Always a full batch, so the answers and their path buffers are
        // never dropped and regrown; each buffer holds the longest possible
        // path after its first use.
        queries.resize(BATCH, UNANSWERABLE);
        planner.plan(grid, queries, answers);
        for answer in answers.iter_mut() {
            let room = grid.cell_count().saturating_sub(answer.path.cells.len());
            answer.path.cells.reserve(room);
        }
        for (request, answer) in batch.iter().zip(answers.iter()) {
            movers.stats.expanded += u64::from(answer.expanded);
            movers.stats.work += u64::from(answer.work);
            if answer.result.is_err() {
                movers.accept(request, None);
                continue;
            }
            map.corners_into(&answer.path, request.goal, corners);
            if let Requester::Platoon(_) = request.requester() {
                start_at_cell_centre(map, movers.start_of(request), &answer.path, corners);
            }
            movers.accept(request, Some(corners));
        }
    }
    /// Writes drive-to points from routes and flags units needing a path.
    fn follow(&mut self, vehicles: &mut Vehicles, map: Option<&WorldMap>, tick: u64) {
        self.flags.clear();
        self.flags.resize(vehicles.len(), 0);
        let routes = &self.routes;
        let columns = vehicles.columns_mut();
        let (position, goal, platoon, kind) = (
            &*columns.position,
            &*columns.goal,
            &*columns.platoon,
            &*columns.kind,
        );
        let (max_speed, handle_slot, route_len, pending) = (
            &*columns.max_speed,
            &*columns.handle_slot,
            &*columns.route_len,
            &*columns.route_pending,
        );
        let (turn_radius, turn_rate, max_brake, route_start) = (
            &*columns.turn_radius,
            &*columns.turn_rate,
            &*columns.max_brake,
            &*columns.route_start,
        );
        // Wheeled units follow their route's turning curve.
        let wheels_of = |row: usize| {
            if kind[row] != VehicleKind::Wheeled as u8 {
                return None;
            }
            Wheels::new(
                turn_radius[row],
                turn_rate[row],
                max_speed[row],
                max_brake[row],
            )
        };
        // Corners are cell centres, half a cell from any wall: turning
        // within the arrival radius of one cuts less than that.
        let corner_radius = ARRIVE_RADIUS;
        for_each_chunk3(
            columns.drive_to,
            columns.route_next,
            &mut self.flags,
            |first, drive_to_rows, next_rows, flag_rows| {
                for offset in 0..drive_to_rows.len() {
                    let row = first + offset;
                    let here = position[row];
                    let len = route_len[row];
                    let mut needs_path = false;
                    if len > 0 {
                        let slot = handle_slot[row];
                        let mut next = next_rows[offset].min(len - 1);
                        let solo = platoon[row] == NONE;
                        // A member drops its own path once its end is in
                        // sight (below), curve or not.
                        let end_in_sight = || {
                            map.is_some_and(|map| {
                                map.segment_is_clear(here, routes.point(slot, len - 1))
                            })
                        };
                        if let Some(wheels) = wheels_of(row).filter(|_| solo || !end_in_sight()) {
                            let route = &routes.of(slot)[..len as usize];
                            let step = curve_drive_to(
                                route,
                                route_start[row],
                                next as usize,
                                here,
                                &wheels,
                                map,
                            );
                            next = step.next as u32;
                            if let Some(target) = step.drive_to {
                                next_rows[offset] = next;
                                drive_to_rows[offset] = target;
                                flag_rows[offset] = 0;
                                continue;
                            }
                        }
                        let reached = here.distance(routes.point(slot, next)) <= corner_radius;
                        // Look ahead by line of sight: drive for the next
                        // corner as soon as the way there is clear from
                        // where the unit is (on the open field: once this
                        // corner is reached).
                        while next + 1 < len {
                            let ahead = routes.point(slot, next + 1);
                            let visible = match map {
                                Some(map) => map.segment_is_clear(here, ahead),
                                None => here.distance(routes.point(slot, next)) <= corner_radius,
                            };
                            if !visible {
                                break;
                            }
                            next += 1;
                        }
                        let corner = routes.point(slot, next);
                        // Close to a corner whose next leg is still hidden:
                        // aim through the corner, so the unit gets there
                        // instead of stopping at the arrival radius.
                        let target = if next + 1 < len && here.distance(corner) <= corner_radius {
                            corner + (corner - here).normalize_or_zero() * corner_radius
                        } else {
                            corner
                        };
                        next_rows[offset] = next;
                        if solo || next + 1 < len {
                            drive_to_rows[offset] = target;
                        }
                        // A cut route: at its last corner, ask for the rest.
                        // A platoon member follows its own path until its
                        // last corner is in sight (Force 21 §5), then drops
                        // it and drives for its slot again.
                        if !solo && next + 1 == len {
                            flag_rows[offset] = DROP_ROUTE;
                            continue;
                        }
                        needs_path = solo && reached && next + 1 == len && corner != goal[row];
                    } else if platoon[row] == NONE {
                        drive_to_rows[offset] = goal[row];
                    }
                    let due = (tick + row as u64).is_multiple_of(BAD_POSITION_CHECK_TICKS);
                    if let Some(map) = map.filter(|_| due && len == 0) {
                        let flies = VehicleKind::from_u8(kind[row])
                            .is_some_and(|kind| kind.handling().flies);
                        let far =
                            here.distance(drive_to_rows[offset]) > 3f32.sqrt() * max_speed[row];
                        needs_path |=
                            !flies && far && !map.segment_is_clear(here, drive_to_rows[offset]);
                    }
                    flag_rows[offset] = u8::from(needs_path && pending[row] == 0);
                }
            },
        );
    }

    /// Queues a request for every moving platoon at the end of a cut
    /// route (the platoon store was sized for one request per platoon).
    fn queue_platoons(&mut self, platoons: &mut Platoons) -> usize {
        let mut requested = 0;
        for index in 0..platoons.records.len() {
            let platoon = &mut platoons.records[index];
            let at_cut_end = platoon.live == 1
                && platoon.phase() == Phase::Moving
                && platoon.route_pending == 0
                && platoon.travelled >= platoon.route_length;
            if !at_cut_end {
                continue;
            }
            platoon.route_pending = 1;
            let id = PlatoonId {
                index: index as u32,
                generation: platoon.generation,
            };
            self.queue.push(PathRequest::for_platoon(id, platoon.goal));
            requested += 1;
        }
        requested
    }

    /// Queues a request for every flagged unit (the queue was sized for
    /// every unit, and a unit has at most one request pending).
    fn queue_flagged(&mut self, vehicles: &mut Vehicles) -> usize {
        let mut requested = 0;
        for row in 0..self.flags.len() {
            if self.flags[row] == DROP_ROUTE {
                vehicles.columns_mut().route_len[row] = 0;
                continue;
            }
            if self.flags[row] == 0 {
                continue;
            }
            let Some(unit) = vehicles.id_at(row) else {
                continue;
            };
            let columns = vehicles.columns_mut();
            columns.route_pending[row] = 1;
            // A platoon member's own path leads to its slot.
            let goal = if columns.platoon[row] == NONE {
                columns.goal[row]
            } else {
                columns.drive_to[row]
            };
            self.queue.push(PathRequest::for_unit(unit, goal));
            requested += 1;
        }
        requested
    }
}

/// Everything a planned request may move: the units, the platoons, the
/// units' routes and the tick's counts.
struct Movers<'a> {
    vehicles: &'a mut Vehicles,
    platoons: &'a mut Platoons,
    routes: &'a mut Routes,
    stats: &'a mut ServeStats,
}

impl Movers<'_> {
    /// Where the requester stands, if it still exists.
    fn start_of(&self, request: &PathRequest) -> Option<Vec2> {
        match request.requester() {
            Requester::Unit(unit) => {
                let row = self.vehicles.row_of(unit)?;
                Some(self.vehicles.columns().position()[row])
            }
            Requester::Platoon(id) => self.platoons.get(id).map(|platoon| platoon.position),
        }
    }

    /// Gives the requester `route` (its corners after the start), or the
    /// straight line to its goal when there is no path (`None`). Counts
    /// served, unreachable and dropped requests.
    fn accept(&mut self, request: &PathRequest, route: Option<&[Vec2]>) {
        let stored = match request.requester() {
            Requester::Unit(unit) => self.accept_for_unit(unit, request.goal, route),
            Requester::Platoon(id) => self.accept_for_platoon(id, request.goal, route),
        };
        if stored {
            self.stats.served += 1;
            self.stats.unreachable += usize::from(route.is_none());
        } else {
            self.stats.dropped += 1;
        }
    }

    fn accept_for_unit(&mut self, unit: UnitId, goal: Vec2, route: Option<&[Vec2]>) -> bool {
        let Some(row) = self.vehicles.row_of(unit) else {
            return false;
        };
        // A platoon member's own path (the bad-position check) leads to its
        // slot; its goal stays its destination spot.
        if self.vehicles.columns().platoon()[row] == NONE {
            self.vehicles.set_goal(unit, goal).expect("row_of found it");
        }
        let route = route.unwrap_or(&[]);
        let slot = self.vehicles.columns().handle_slot()[row];
        self.routes.store(slot, route);
        let columns = self.vehicles.columns_mut();
        // On the open field the goal is the whole route: no route needed.
        columns.route_len[row] = if route == [goal] {
            0
        } else {
            route.len() as u32
        };
        columns.route_next[row] = 0;
        columns.route_start[row] = columns.position[row];
        columns.route_pending[row] = 0;
        true
    }

    fn accept_for_platoon(&mut self, id: PlatoonId, goal: Vec2, route: Option<&[Vec2]>) -> bool {
        // No path: the platoon goes straight (its members still avoid walls
        // by the softening and their own bad-position checks).
        let route = route.unwrap_or(std::slice::from_ref(&goal));
        let Ok(platoon) = self.platoons.get_mut(id) else {
            return false;
        };
        platoon.route_pending = 0;
        platoon.phase = Phase::Moving as u32;
        self.platoons.store_route(id.index, route);
        true
    }
}

/// A platoon walks its path from where it stands, not from its cell's
/// centre, which string pulling saw the first corner from: when that first
/// leg would clip a wall, the path goes by the cell's centre first (the
/// last corner is dropped if the route is full; the platoon asks for the
/// rest at the end).
fn start_at_cell_centre(map: &WorldMap, start: Option<Vec2>, path: &Path, corners: &mut Vec<Vec2>) {
    let (Some(start), Some(&cell), Some(&first)) = (start, path.cells.first(), corners.first())
    else {
        return;
    };
    if map.segment_is_clear(start, first) {
        return;
    }
    corners.truncate(ROUTE_POINTS - 1);
    corners.insert(0, map.centre_of(cell));
}

/// Plans the batch over the visibility graph, one request after the other
/// (a graph query is short; the order is the queue's).
fn plan_polygon(
    batch: &[PathRequest],
    nav: &PolygonNavigator,
    search: &mut VisSearch,
    waypoints: &mut Vec<Vec2>,
    movers: &mut Movers<'_>,
) {
    for request in batch {
        let Some(start) = movers.start_of(request) else {
            movers.stats.dropped += 1;
            continue;
        };
        let Ok(cost) = nav.find_path(start, request.goal, FactionId(0), search, waypoints) else {
            movers.accept(request, None);
            continue;
        };
        movers.stats.expanded += u64::from(cost.expanded);
        movers.stats.work += u64::from(cost.expanded);
        // The waypoints start at the mover (or the free point nearest it);
        // a route is what comes after, cut at ROUTE_POINTS. A goal inside an
        // obstacle was moved to the nearest free point: the route ends there.
        let route = &waypoints[1.min(waypoints.len())..];
        let route = &route[..route.len().min(ROUTE_POINTS)];
        let mut request = *request;
        if let (true, Some(&end)) = (route.len() < ROUTE_POINTS, route.last()) {
            request.goal = end;
        }
        movers.accept(&request, Some(route));
    }
}
