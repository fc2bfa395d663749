//! The `paths` stage: serving path requests and following routes.
//!
//! Each tick the stage first answers queued requests (move orders, and the
//! bad-position requests of the tick before) in batches, first in first
//! out, while its budget and the per-tick request cap last; the rest waits
//! for the next tick — the time-slicing of Smith, *Polygon Soup for the
//! Programmer's Soul* (GDC 2002). The budget counts expanded search nodes,
//! not microseconds: a wall-clock budget would make which requests a tick
//! serves depend on the machine's speed, and lockstep replays diverge.
//! (The stage's time is still measured against its frame budget.) A batch is planned with grid A* across the rayon pool
//! ([`BatchPlanner`], answers in request order whatever the thread count),
//! and each answer becomes the unit's route ([`Routes`]). Without a map a
//! request just sets the goal: on the open field the straight line is the
//! route.
//!
//! Then every unit in no platoon gets its drive-to point: its route's next
//! corner (advancing past corners it has reached), or its goal. And the
//! Force 21 bad-position check (§5 "Check for bad position") runs on a
//! staggered subset of units each tick: a ground unit farther than
//! √3 × its top speed from its drive-to point, whose straight line there
//! crosses a blocked cell, asks for its own path. So does a unit at the end
//! of a route that was cut at [`super::world::ROUTE_POINTS`] corners.

use glam::Vec2;

use super::batch::{BatchPlanner, GridAnswer, GridQuery};
use super::grid::Cell;
use super::queue::{PathQueue, PathRequest};
use super::visgraph::{FactionId, PolygonNavigator, VisSearch};
use super::world::{ROUTE_POINTS, Routes, WorldMap};
use crate::parallel::for_each_chunk3;
use crate::steer::ARRIVE_RADIUS;
use crate::vehicles::{NONE, VehicleKind, Vehicles};

/// Requests planned together (one parallel batch). The same whatever the
/// thread count, so which requests a tick serves never depends on it; the
/// budget is checked between batches.
pub const BATCH: usize = 8;
/// A query off the map: the planner refuses it before searching. It stands
/// in for a request with an end off the map (or a stale unit), and pads
/// every batch to [`BATCH`].
const UNANSWERABLE: GridQuery = GridQuery::new(Cell::new(u32::MAX, u32::MAX), Cell::new(0, 0));
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
        planner: Planner<'_>,
        node_budget: u64,
        max_requests: usize,
        tick: u64,
    ) -> ServeStats {
        let mut stats = self.serve(vehicles, planner, node_budget, max_requests);
        let grid = match planner {
            Planner::Grid(map) => Some(map),
            Planner::OpenField | Planner::Polygon(_) => None,
        };
        self.follow(vehicles, grid, tick);
        stats.requested = self.queue_flagged(vehicles);
        stats.waiting = self.queue.len();
        stats
    }

    /// Answers requests in batches while the node budget and the request
    /// cap last.
    fn serve(
        &mut self,
        vehicles: &mut Vehicles,
        planner: Planner<'_>,
        node_budget: u64,
        max_requests: usize,
    ) -> ServeStats {
        let mut stats = ServeStats::default();
        while stats.served + stats.dropped < max_requests
            && !self.queue.is_empty()
            && stats.expanded < node_budget
        {
            let take = BATCH
                .min(max_requests - stats.served - stats.dropped)
                .min(self.queue.len());
            self.batch.clear();
            self.batch
                .extend((0..take).filter_map(|_| self.queue.pop()));
            match planner {
                Planner::Grid(map) => self.plan_batch(vehicles, map, &mut stats),
                Planner::Polygon(nav) => self.plan_polygon(vehicles, nav, &mut stats),
                Planner::OpenField => self.set_goals(vehicles, &mut stats),
            }
        }
        stats
    }

    /// The open field: each request just sets its unit's goal.
    fn set_goals(&mut self, vehicles: &mut Vehicles, stats: &mut ServeStats) {
        for request in &self.batch {
            match vehicles.set_goal(request.unit, request.goal) {
                Ok(()) => {
                    clear_route(vehicles, request);
                    stats.served += 1;
                }
                Err(_) => stats.dropped += 1,
            }
        }
    }

    /// Plans the batch on the map and stores each route.
    fn plan_batch(&mut self, vehicles: &mut Vehicles, map: &WorldMap, stats: &mut ServeStats) {
        let grid = map.grid();
        self.queries.clear();
        for request in &self.batch {
            let start = vehicles
                .row_of(request.unit)
                .and_then(|row| map.cell_at(vehicles.columns().position()[row]));
            let goal = map.cell_at(request.goal);
            let query = match (start, goal) {
                (Some(start), Some(goal)) => GridQuery::new(start, goal),
                _ => UNANSWERABLE,
            };
            self.queries.push(query);
        }
        // Always a full batch, so the answers and their path buffers are
        // never dropped and regrown; each buffer holds the longest possible
        // path after its first use.
        self.queries.resize(BATCH, UNANSWERABLE);
        self.planner.plan(grid, &self.queries, &mut self.answers);
        for answer in &mut self.answers {
            let room = grid.cell_count().saturating_sub(answer.path.cells.len());
            answer.path.cells.reserve(room);
        }
        for (request, answer) in self.batch.iter().zip(&self.answers) {
            stats.expanded += u64::from(answer.expanded);
            if vehicles.set_goal(request.unit, request.goal).is_err() {
                stats.dropped += 1;
                continue;
            }
            stats.served += 1;
            if answer.result.is_err() {
                stats.unreachable += 1;
                clear_route(vehicles, request);
                continue;
            }
            map.corners_into(&answer.path, request.goal, &mut self.corners);
            let row = vehicles.row_of(request.unit).expect("set_goal found it");
            let slot = vehicles.columns().handle_slot()[row];
            self.routes.store(slot, &self.corners);
            let columns = vehicles.columns_mut();
            columns.route_len[row] = self.corners.len() as u32;
            columns.route_next[row] = 0;
            columns.route_pending[row] = 0;
        }
    }

    /// Plans the batch over the visibility graph, one request after the
    /// other (a graph query is short; the order is the queue's).
    fn plan_polygon(
        &mut self,
        vehicles: &mut Vehicles,
        nav: &PolygonNavigator,
        stats: &mut ServeStats,
    ) {
        let search = self.vis_search.get_or_insert_with(|| VisSearch::new(nav));
        for request in &self.batch {
            let Some(row) = vehicles.row_of(request.unit) else {
                stats.dropped += 1;
                continue;
            };
            let start = vehicles.columns().position()[row];
            let answer = nav.find_path(
                start,
                request.goal,
                FactionId(0),
                search,
                &mut self.waypoints,
            );
            stats.served += 1;
            vehicles
                .set_goal(request.unit, request.goal)
                .expect("row_of found it");
            let Ok(cost) = answer else {
                stats.unreachable += 1;
                clear_route(vehicles, request);
                continue;
            };
            stats.expanded += u64::from(cost.expanded);
            // The waypoints start at the unit (or the free point nearest
            // it); a route is what comes after, cut at ROUTE_POINTS.
            let route = &self.waypoints[1.min(self.waypoints.len())..];
            let cut = route.len() > ROUTE_POINTS;
            let route = &route[..route.len().min(ROUTE_POINTS)];
            if let (false, Some(&end)) = (cut, route.last()) {
                // A goal inside an obstacle was moved to the nearest free
                // point: that is where the unit goes.
                vehicles
                    .set_goal(request.unit, end)
                    .expect("row_of found it");
            }
            let slot = vehicles.columns().handle_slot()[row];
            self.routes.store(slot, route);
            let columns = vehicles.columns_mut();
            columns.route_len[row] = route.len() as u32;
            columns.route_next[row] = 0;
            columns.route_pending[row] = 0;
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
                        // A cut route: at its last corner, ask for the rest.
                        needs_path = reached && next + 1 == len && corner != goal[row];
                        next_rows[offset] = next;
                        if platoon[row] == NONE {
                            drive_to_rows[offset] = target;
                        }
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

    /// Queues a request for every flagged unit (the queue was sized for
    /// every unit, and a unit has at most one request pending).
    fn queue_flagged(&mut self, vehicles: &mut Vehicles) -> usize {
        let mut requested = 0;
        for row in 0..self.flags.len() {
            if self.flags[row] == 0 {
                continue;
            }
            let Some(unit) = vehicles.id_at(row) else {
                continue;
            };
            let columns = vehicles.columns_mut();
            columns.route_pending[row] = 1;
            self.queue.push(PathRequest {
                unit,
                goal: columns.goal[row],
            });
            requested += 1;
        }
        requested
    }
}

/// The unit of `request` drives straight at its goal.
fn clear_route(vehicles: &mut Vehicles, request: &PathRequest) {
    if let Some(row) = vehicles.row_of(request.unit) {
        let columns = vehicles.columns_mut();
        columns.route_len[row] = 0;
        columns.route_next[row] = 0;
        columns.route_pending[row] = 0;
    }
}
