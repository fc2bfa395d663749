//! The `paths` stage: serving path requests and following routes.
//!
//! Each tick the stage first answers queued requests (move orders, and the
//! bad-position requests of the tick before), first in first out, while
//! its budget and the per-tick request cap last; the rest waits for the
//! next tick — the time-slicing of Smith, *Polygon Soup for the
//! Programmer's Soul* (GDC 2002). The budget counts the searches' work in
//! cells ([`crate::nav::GridPlanner::work`]: cells expanded, or stepped onto by
//! jump point runs), not microseconds: a wall-clock budget would make which
//! requests a tick serves depend on the machine's speed, and lockstep
//! replays diverge. (The stage's time is still measured against its frame
//! budget.)
//!
//! On a grid map up to [`BATCH`] searches are in flight at once, each in
//! its own slot with its own search context ([`SearchFlights`]): an HPA*
//! query over the map's clusters ([`crate::nav::hierarchy`]) when its ends
//! are more than two clusters apart, else grid A*; both are suspendable and
//! count their work in cells. Rounds
//! split what is left of the budget equally among them and resume them
//! across the rayon pool; a search whose share runs out is suspended and
//! carries on next tick, before any new request starts (new requests only
//! take free slots). So the stage's grid work in a tick never exceeds its
//! budget — not by one cell — and a search ends with the path it would
//! have found at once, whatever the thread count. A search whose requester
//! was despawned meanwhile, or which a newer request of the same requester
//! overtakes, is dropped. Each ended search becomes the unit's or the
//! platoon's route ([`Routes`]). On a polygon map the visibility-graph
//! queries are not suspendable: they are answered in batches of [`BATCH`]
//! with the budget checked between batches. Without a map a request just
//! sets the goal: on the open field the straight line is the route.
//!
//! Then every unit in no platoon gets its drive-to point: its route's next
//! corner (advancing past corners it has reached), or its goal — a wheeled
//! unit drives its route's turning-radius curve instead, corner by corner
//! ([`crate::stages::paths::follow`]), as does a wheeled platoon member on its own
//! path. And the
//! Force 21 bad-position check (§5 "Check for bad position") runs on a
//! staggered subset of units each tick: a ground unit farther than
//! √3 × its top speed from its drive-to point, whose straight line there
//! crosses a blocked cell, asks for its own path. So does a unit at the end
//! of a route that was cut at [`ROUTE_POINTS`] corners.

use glam::Vec2;

pub mod flights;
pub mod follow;
mod movers;

use crate::data::path_requests::{PathQueue, PathRequest, Requester};
use crate::data::platoons::{Phase, PlatoonId, Platoons};
use crate::data::routes::{ROUTE_POINTS, Routes};
use crate::nav::visgraph::{PolygonNavigator, VisSearch};
use crate::nav::{ClassMaps, Path, WorldMap};
use flights::{FlightRecord, SearchFlights};
use movers::Movers;
use crate::parallel::for_each_chunk3;
use crate::data::vehicles::ARRIVE_RADIUS;
use follow::{Wheels, curve_drive_to};
use crate::data::vehicles::{NONE, PathState, UnitId, VehicleKind, Vehicles};

/// Grid searches in flight at once (each resumed on its own in a round,
/// across the pool), and the batch size of visibility-graph queries. The
/// same whatever the thread count, so which requests a tick serves never
/// depends on it.
pub const BATCH: usize = 8;
/// `follow`'s flag for a platoon member done with its own path.
const DROP_ROUTE: u8 = 2;
/// A unit on its route's first leg that sees no corner of it asks for a
/// new path once it has made no progress for this long, seconds.
const REPLAN_AFTER_STALL_S: f32 = 0.1;
/// A unit stalled this long short of a drive-to point or route corner
/// hidden behind a wall asks for a path however near the point is,
/// seconds.
const STALLED_NEAR_WALL_S: f32 = 1.0;
/// Each unit gets the bad-position check every this many ticks.
pub const BAD_POSITION_CHECK_TICKS: u64 = 16;

/// What one tick of the `paths` stage did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServeStats {
    /// Requests answered.
    pub served: usize,
    /// Requests dropped because their unit or platoon was despawned
    /// meanwhile, or a newer request of theirs overtook them in flight.
    pub dropped: usize,
    /// Answered requests with no path (goal unreachable or blocked, or an
    /// end off the map): the unit drives straight at its goal.
    pub unreachable: usize,
    /// Nodes the planners expanded.
    pub expanded: u64,
    /// The planners' work in cells (expanded, or scanned by jump point
    /// runs; visibility-graph nodes expanded): what the node budget counts.
    pub work: u64,
    /// Requests still waiting afterwards (not counting those in flight).
    pub waiting: usize,
    /// Grid searches begun and suspended at the end of the tick, to be
    /// resumed the next.
    pub in_flight: usize,
    /// Requests the unit-level checks queued (bad position, cut route).
    pub requested: usize,
}

/// What the stage plans on.
#[derive(Clone, Copy, Debug)]
pub enum Planner<'a> {
    /// The open field: a request sets the goal, the straight line is the
    /// route.
    OpenField,
    /// Grid A* (HPA* when the ends are far apart) on a map placed in the
    /// world, on each requester's mobility class's map.
    Grid(ClassMaps<'a>),
    /// The Force 21 visibility graph over a polygon map (each platoon and
    /// its members plan with their faction's view of the bridges, other
    /// units with faction 0's).
    Polygon(&'a PolygonNavigator),
}

/// The `paths` stage's state and working memory; reuse it every tick.
#[derive(Debug, Default)]
pub struct PathService {
    pub(crate) queue: PathQueue,
    pub(crate) routes: Routes,
    pub(crate) flights: SearchFlights,
    batch: Vec<PathRequest>,
    corners: Vec<Vec2>,
    flags: Vec<u8>,
    vis_search: Option<VisSearch>,
    waypoints: Vec<Vec2>,
}

impl PathService {
    /// Sizes every buffer for `units` units and `slots` handle slots, and
    /// the search contexts of `planner`.
    pub fn reserve(&mut self, units: usize, slots: usize, planner: Planner<'_>) {
        match planner {
            Planner::Grid(maps) => self.flights.reserve(maps, BATCH),
            Planner::Polygon(nav) => {
                // Grown for a graph that grew (bridges, obstacles), so no
                // query in the tick does.
                match &mut self.vis_search {
                    Some(search) => search.reserve(nav),
                    None => self.vis_search = Some(VisSearch::new(nav)),
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
        self.corners.reserve(ROUTE_POINTS);
        self.flags.reserve(units.saturating_sub(self.flags.len()));
    }

    /// Queues a request (outside the tick: this may grow the queue).
    pub fn push(&mut self, request: PathRequest) {
        self.queue.push(request);
    }

    /// The goal of `unit`'s newest request waiting or searched, if any.
    pub(crate) fn requested_goal(&self, unit: UnitId) -> Option<Vec2> {
        let asked = |request: &&PathRequest| request.requester() == Requester::Unit(unit);
        let queued = self.queue.pending().filter(asked).last();
        let searched = self.flights.requests().map(|(_, request)| request).find(asked);
        queued.or(searched).map(|request| request.goal)
    }

    /// Drops the queued and in-flight requests of `units` (sorted).
    pub(crate) fn cancel(&mut self, units: &[UnitId]) {
        self.cancel_where(|requester| match requester {
            Requester::Unit(unit) => units.binary_search(&unit).is_ok(),
            Requester::Platoon(_) => false,
        });
    }

    /// Drops the queued and in-flight requests of platoon `id`.
    pub(crate) fn cancel_platoon(&mut self, id: PlatoonId) {
        self.cancel_where(|requester| requester == Requester::Platoon(id));
    }

    /// Drops the queued and in-flight requests whose requester is `listed`.
    fn cancel_where(&mut self, listed: impl Fn(Requester) -> bool) {
        let listed = |request: &PathRequest| listed(request.requester());
        self.queue.retain(|request| !listed(request));
        for slot in 0..BATCH {
            if self.flights.requests().any(|(at, request)| at == slot && listed(request)) {
                self.flights.abandon(slot);
            }
        }
    }

    /// Abandons every search in flight and queues its request again ahead
    /// of the others, in slot order (the map changed under them).
    pub(crate) fn restart_searches(&mut self) {
        for slot in (0..BATCH).rev() {
            let request = self
                .flights
                .requests()
                .find(|&(at, _)| at == slot)
                .map(|(_, request)| *request);
            if let Some(request) = request {
                self.flights.abandon(slot);
                self.queue.push_front(request);
            }
        }
    }

    /// Gives `unit` `route` (its corners after where it stands) to `goal`
    /// at once, as a search's answer would (outside the tick).
    pub(crate) fn give_route(
        &mut self,
        vehicles: &mut Vehicles,
        platoons: &mut Platoons,
        unit: UnitId,
        goal: Vec2,
        route: &[Vec2],
    ) {
        let mut stats = ServeStats::default();
        let mut movers = Movers {
            vehicles,
            platoons,
            routes: &mut self.routes,
            stats: &mut stats,
        };
        movers.accept_for_unit(unit, goal, Some(route));
    }

    /// Requests waiting or in flight.
    #[must_use]
    pub fn waiting(&self) -> usize {
        self.queue.len() + self.flights.searching()
    }

    /// The grid searches in flight, for a snapshot.
    #[must_use]
    pub fn flight_records(&self) -> Vec<FlightRecord> {
        self.flights.records()
    }

    /// The routes, indexed by handle slot.
    #[must_use]
    #[cfg(any(test, feature = "internals"))]
    pub fn routes(&self) -> &Routes {
        &self.routes
    }

    /// One tick of the stage: serve with `planner`, then follow routes and
    /// check for bad positions on `terrain` (each unit on its mobility
    /// class's grid map, or a polygon map's raster).
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &mut self,
        vehicles: &mut Vehicles,
        platoons: &mut Platoons,
        planner: Planner<'_>,
        terrain: ClassMaps<'_>,
        node_budget: u64,
        max_requests: usize,
        tick: u64,
    ) -> ServeStats {
        let mut stats = self.serve(vehicles, platoons, planner, node_budget, max_requests);
        self.follow(vehicles, terrain, tick);
        stats.requested = self.queue_flagged(vehicles) + self.queue_platoons(platoons);
        stats.waiting = self.queue.len();
        stats.in_flight = self.flights.searching();
        stats
    }

    /// Answers requests while the node budget and the request cap last:
    /// on a grid map by resumable searches, otherwise in batches.
    fn serve(
        &mut self,
        vehicles: &mut Vehicles,
        platoons: &mut Platoons,
        planner: Planner<'_>,
        node_budget: u64,
        max_requests: usize,
    ) -> ServeStats {
        let mut stats = ServeStats::default();
        let mut movers = Movers {
            vehicles,
            platoons,
            routes: &mut self.routes,
            stats: &mut stats,
        };
        let budget = Budget {
            work: node_budget,
            requests: max_requests,
        };
        match planner {
            Planner::Grid(maps) => serve_grid(
                &mut self.queue,
                &mut self.flights,
                &mut self.corners,
                maps,
                budget,
                &mut movers,
            ),
            Planner::Polygon(nav) => {
                let search = self.vis_search.get_or_insert_with(|| VisSearch::new(nav));
                while let Some(batch) =
                    next_batch(&mut self.queue, &mut self.batch, budget, movers.stats)
                {
                    plan_polygon(batch, nav, search, &mut self.waypoints, &mut movers);
                }
            }
            Planner::OpenField => {
                while let Some(batch) =
                    next_batch(&mut self.queue, &mut self.batch, budget, movers.stats)
                {
                    for request in batch.iter() {
                        movers.accept(request, Some(&[request.goal]));
                    }
                }
            }
        }
        stats
    }

    /// Writes drive-to points from routes and flags units needing a path.
    fn follow(&mut self, vehicles: &mut Vehicles, maps: ClassMaps<'_>, tick: u64) {
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
        let (stalled_s, mobility) = (&*columns.stalled_s, &*columns.mobility);
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
                    let map = maps.of(mobility[row]);
                    let here = position[row];
                    let len = route_len[row];
                    let mut needs_path = false;
                    let due = (tick + row as u64).is_multiple_of(BAD_POSITION_CHECK_TICKS);
                    if len > 0 {
                        let slot = handle_slot[row];
                        let mut next = next_rows[offset].min(len - 1);
                        let solo = platoon[row] == NONE;
                        // Pushed off its route (a crowd at a corner): back
                        // to the last corner in sight, or a new path — on
                        // its first leg only once it stalls (a route that
                        // came late, planned from where the unit was, is
                        // not asked for again and again).
                        let flies = || {
                            VehicleKind::from_u8(kind[row]).is_some_and(|kind| kind.handling().flies)
                        };
                        if let Some(map) = map.filter(|_| due && solo && !flies()) {
                            // Near counts as seen (Force 21), unless the
                            // unit has stalled short of a hidden corner.
                            let reach = if stalled_s[row] < STALLED_NEAR_WALL_S {
                                3f32.sqrt() * max_speed[row]
                            } else {
                                0.0
                            };
                            match corner_in_sight(map, routes.of(slot), next, here, reach) {
                                Some(seen) => next = seen,
                                None => {
                                    needs_path = next > 0 || stalled_s[row] >= REPLAN_AFTER_STALL_S;
                                }
                            }
                        }
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
                        needs_path |= solo && reached && next + 1 == len && corner != goal[row];
                    } else if platoon[row] == NONE {
                        drive_to_rows[offset] = goal[row];
                    }
                    if let Some(map) = map.filter(|_| due && len == 0) {
                        let flies = VehicleKind::from_u8(kind[row])
                            .is_some_and(|kind| kind.handling().flies);
                        let off = here.distance(drive_to_rows[offset]);
                        // Far (Force 21), or near but stalled behind a wall.
                        let far = off > 3f32.sqrt() * max_speed[row]
                            || (off > ARRIVE_RADIUS && stalled_s[row] >= STALLED_NEAR_WALL_S);
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
            // A route that ends at the goal is not cut, however short (a
            // platoon ordered to where it stands has a route of length 0).
            let last = platoon.route_len.checked_sub(1);
            let cut = last.is_some_and(|last| platoons.routes.point(index as u32, last) != platoon.goal);
            let at_cut_end = platoon.live == 1
                && cut
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
            columns.route_pending[row] = PathState::Pending as u8;
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

/// What a tick of serving may spend.
#[derive(Clone, Copy, Debug)]
struct Budget {
    /// Work units ([`crate::nav::GridPlanner::work`], or graph nodes expanded).
    work: u64,
    /// Requests taken from the queue.
    requests: usize,
}

/// The next batch of up to [`BATCH`] requests for planners that answer a
/// request at once, while the budget lasts (checked between batches).
fn next_batch<'b>(
    queue: &mut PathQueue,
    batch: &'b mut Vec<PathRequest>,
    budget: Budget,
    stats: &ServeStats,
) -> Option<&'b [PathRequest]> {
    let taken = stats.served + stats.dropped;
    if taken >= budget.requests || queue.is_empty() || stats.work >= budget.work {
        return None;
    }
    let take = BATCH.min(budget.requests - taken).min(queue.len());
    batch.clear();
    batch.extend((0..take).filter_map(|_| queue.pop()));
    Some(batch)
}

/// The corner of `route` a unit at `here` should drive for, instead of
/// corner `next`: `next` itself if it is within `reach` or in sight, else
/// the latest earlier corner in sight that is no farther; `None` when none
/// is (the unit needs a new path: going back a long way to a corner behind
/// it is worse. Its first corner is in sight from where the route began,
/// see [`start_at_cell_centre`], except for a wheeled unit, which may ask
/// again until it sees it).
fn corner_in_sight(map: &WorldMap, route: &[Vec2], next: u32, here: Vec2, reach: f32) -> Option<u32> {
    let corner = route[next as usize];
    let distance = here.distance(corner);
    if distance <= reach || map.segment_is_clear(here, corner) {
        return Some(next);
    }
    (0..next).rev().find(|&k| {
        let earlier = route[k as usize];
        here.distance(earlier) <= distance && map.segment_is_clear(here, earlier)
    })
}

/// Serves the queue on a grid map with resumable searches: rounds resume
/// the searches in flight with what is left of the work budget, then start
/// queued requests in the slots that ended, until the budget, the request
/// cap or the requests run out. The work of a tick never exceeds
/// `budget.work`.
fn serve_grid(
    queue: &mut PathQueue,
    flights: &mut SearchFlights,
    corners: &mut Vec<Vec2>,
    maps: ClassMaps<'_>,
    budget: Budget,
    movers: &mut Movers<'_>,
) {
    // Sized when units were spawned; this only grows a service that was
    // never reserved for the map.
    flights.reserve(maps, BATCH);
    drop_orphaned_flights(flights, movers);
    let mut taken = 0;
    loop {
        while taken < budget.requests {
            let Some(slot) = flights.free_slot() else {
                break;
            };
            let Some(request) = queue.pop() else {
                break;
            };
            taken += 1;
            start_search(flights, slot, request, maps, movers);
        }
        let left = budget.work.saturating_sub(movers.stats.work);
        if flights.searching() == 0 || left == 0 {
            return;
        }
        let round = flights.advance(maps, left);
        movers.stats.work += round.work;
        movers.stats.expanded += round.expanded;
        flights.deliver(|request, path, mobility| {
            let (Some(path), Some(map)) = (path, maps.of(mobility)) else {
                movers.accept(request, None);
                return;
            };
            map.corners_into(path, request.goal, corners);
            if !movers.is_wheeled(request) {
                start_at_cell_centre(map, movers.start_of(request), path, corners);
            }
            movers.accept(request, Some(corners));
        });
    }
}

/// Drops the searches in flight whose requester was despawned.
fn drop_orphaned_flights(flights: &mut SearchFlights, movers: &mut Movers<'_>) {
    for slot in 0..BATCH {
        let orphaned = flights
            .requests()
            .any(|(at, request)| at == slot && movers.start_of(request).is_none());
        if orphaned {
            flights.abandon(slot);
            movers.stats.dropped += 1;
        }
    }
}

/// Starts `request`'s search in the free `slot`, from the cell its
/// requester stands on. A search in flight for the same requester is
/// overtaken and dropped. A request whose requester is gone is dropped; a
/// flier's is answered at once with the straight line; one with an end off
/// the map, blocked or unreachable is answered at once with no path.
fn start_search(
    flights: &mut SearchFlights,
    slot: usize,
    request: PathRequest,
    maps: ClassMaps<'_>,
    movers: &mut Movers<'_>,
) {
    let overtaken = flights
        .requests()
        .find(|(_, earlier)| earlier.requester() == request.requester())
        .map(|(at, _)| at);
    if let Some(at) = overtaken {
        flights.abandon(at);
        movers.stats.dropped += 1;
    }
    let Some(position) = movers.start_of(&request) else {
        movers.stats.dropped += 1;
        return;
    };
    if movers.flies(&request) {
        movers.accept(&request, Some(&[request.goal]));
        return;
    }
    let mobility = movers.mobility_of(&request);
    let ends = maps
        .of(mobility)
        .and_then(|map| map.cell_at(position).zip(map.cell_at(request.goal)));
    let begun = ends.is_some_and(|ends| flights.begin(slot, request, ends, (maps, mobility)).is_ok());
    if !begun {
        movers.accept(&request, None);
    }
}

/// A unit or platoon walks its path from where it stands, not from its
/// cell's centre, which string pulling saw the first corner from: when that
/// first leg would clip a wall, the path goes by the cell's centre first
/// (the last corner is dropped if the route is full; the requester asks for
/// the rest at the end).
pub(crate) fn start_at_cell_centre(map: &WorldMap, start: Option<Vec2>, path: &Path, corners: &mut Vec<Vec2>) {
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
        let faction = movers.faction_of(request);
        let Ok(cost) = nav.find_path(start, request.goal, faction, search, waypoints) else {
            movers.accept(request, None);
            continue;
        };
        movers.stats.expanded += u64::from(cost.expanded);
        movers.stats.work += u64::from(cost.expanded);
        // The waypoints start at the mover (or the free point nearest it);
        // a route is what comes after, cut at ROUTE_POINTS. A goal inside an
        // obstacle was moved to the nearest free point: the route ends there.
        let first = 1.min(waypoints.len());
        let mut len = (waypoints.len() - first).min(ROUTE_POINTS);
        // The formations stage lets one platoon on a bridge at a time, so
        // a platoon's route crosses one bridge at most: it ends two
        // spacings short of the next bridge's near end, where the platoon
        // asks for the rest (and waits there if that bridge is taken).
        let mut crossing = None;
        if let Requester::Platoon(id) = request.requester() {
            let route = &waypoints[first..first + len];
            let bridges = search.bridges_crossed();
            crossing = bridges.first().and_then(|&bridge| {
                let span = bridge_span(nav, bridge, route)?;
                Some((id, bridge, span))
            });
            if let (Some((_, _, [_, far])), Some(&next)) = (crossing, bridges.get(1))
                && let Some(near) = near_end(nav, next, &route[far..])
            {
                len = far + near + 1;
                let hold = 2.0 * movers.platoons.get(id).map_or(0.0, |p| p.spacing_m);
                let (from, end) = (waypoints[first + len - 2], waypoints[first + len - 1]);
                let back = hold.min(0.9 * from.distance(end));
                waypoints[first + len - 1] = end + (from - end).normalize_or_zero() * back;
            }
        }
        let route = &waypoints[first..first + len];
        let mut request = *request;
        if let (true, Some(&end)) = (route.len() < ROUTE_POINTS, route.last()) {
            request.goal = end;
        }
        movers.accept(&request, Some(route));
        // A route that reaches a goal moved off an obstacle ends the
        // platoon's move there: it settles instead of asking again.
        let reaches_goal = len == waypoints.len() - first;
        if let (Requester::Platoon(id), true, Some(&end)) =
            (request.requester(), reaches_goal, route.last())
            && let Ok(platoon) = movers.platoons.get_mut(id)
        {
            platoon.goal = end;
        }
        if let Some((id, bridge, span)) = crossing {
            movers.mark_bridge(id, bridge, span);
        }
    }
}

/// The first route corner at one of `bridge`'s ends.
fn near_end(nav: &PolygonNavigator, bridge: u32, route: &[Vec2]) -> Option<usize> {
    let ends = nav.bridge_ends(bridge).ok()?;
    route.iter().position(|point| ends.contains(point))
}

/// The route corners at `bridge`'s near and far ends, in travel order;
/// `None` when the route only touches the bridge (one end, and not cut
/// short of the other at [`ROUTE_POINTS`]). The far end of a cut route may
/// lie beyond it: then its last corner.
fn bridge_span(nav: &PolygonNavigator, bridge: u32, route: &[Vec2]) -> Option<[usize; 2]> {
    let ends = nav.bridge_ends(bridge).ok()?;
    let near = near_end(nav, bridge, route)?;
    let far_end = if route[near] == ends[0] {
        ends[1]
    } else {
        ends[0]
    };
    match route[near..].iter().position(|&point| point == far_end) {
        Some(k) => Some([near, near + k]),
        None if route.len() == ROUTE_POINTS => Some([near, route.len() - 1]),
        None => None,
    }
}
