//! Platoons and formations: the `formations` stage.
//!
//! Force 21 (Van Verth et al., "Formation-Based Pathfinding With
//! Real-World Vehicles", §4) moves the platoon, not its vehicles: the
//! platoon's own position travels along the path the `paths` stage planned
//! for it, its heading turns toward each new leg as it approaches, and at
//! the end it turns to the ordered facing. Its speed starts at the slowest
//! member's top speed (divided by the cost of the ground under the
//! platoon, as its members are slowed), falls as the farthest straggler
//! drops behind its slot, and is zero — the platoon waits — once a
//! straggler is more than `2 × maxspeed` (its own) away. Each member's drive-to point is its slot: a 2D
//! offset ([`crate::data::platoons::shape`]) turned to the platoon heading; a column instead walks
//! back along the path ([`crate::geometry::polyline`]) so it snakes round corners. A slot whose
//! line from the lead crosses a blocked cell is pulled toward the column
//! position on the path and released gradually (Force 21 fig. 7.4–7.6), or
//! softened with a 64-cell bounded A* toward it (Company of Heroes).
//!
//! From Company of Heroes (Kozlowski & Ross, "Squad formations", AI Game
//! Programming Wisdom 4) come the slot prediction — slots are placed around
//! the platoon's position `lookahead_s` ahead on its path, oriented by the
//! heading there; this also cancels the trailing that Force 21's drive-to
//! law (half the distance when closer than top speed) gives a moving
//! point — the speed modifier (a member ahead of its slot along the
//! platoon's axis slows, one behind speeds up), per-member drift, formation
//! context (a staggered column on a road, a wide wedge in the open, a tight
//! wedge where the ground is confined), hierarchical offsets (each slot from its parent's point),
//! stable slot assignment ([`crate::data::platoons`]) and a destination formation with
//! reserved spots, so no two units end on the same spot.
//!
//! Formation changes morph: slots are interpolated from the old shape to
//! the new over [`MORPH_S`], as Force 21's retrospective recommends.
//!
//! The stage has two passes, each deterministic whatever the thread
//! count: platoons are advanced in parallel chunks (each writes only its
//! own record), then each member row copies its slot's drive-to point and
//! speed limit from its platoon's record.


mod bridges;
pub mod group_pace;
mod leapfrog;
mod respot;
mod softening;

/// A platoon stops waiting for a straggler that has made no progress
/// toward its slot for this long, seconds.
const STRAGGLER_PATIENCE_S: f32 = 6.0;

use std::sync::Mutex;

use glam::Vec2;
use rayon::prelude::*;

use crate::data::routes::ROUTE_POINTS;
use crate::nav::{BridgeTraffic, ClassMaps, GridPlanner, Path, PolygonNavigator, WorldMap};
use crate::parallel::{count_rows, for_each_chunk3};
use crate::random::unit_f32;
use crate::geometry::segments::segment_distance;
use crate::data::vehicles::ARRIVE_RADIUS;
use crate::data::unit_limits::clamp_to_map;
use crate::nav::world::terrain_slowdown;
use crate::data::vehicles::{NONE, Vehicles};
use crate::data::points_of_interest::PointsOfInterest;
use crate::data::platoons::{
    Formation, MAX_MEMBERS, Phase, Platoon, Platoons, Softening, to_world,
};
use crate::geometry::polyline::PathView;
use bridges::*;
use group_pace::GroupPaces;
use leapfrog::leapfrog;
use respot::respot_stalled;
use softening::*;

/// Seconds a formation change takes to morph from the old slots to the new.
pub const MORPH_S: f32 = 1.5;
/// A pulled slot is released back toward its place at this fraction per
/// second (Force 21: "interpolated back to the original formation
/// position").
pub const RELEASE_PER_S: f32 = 0.5;
/// Cells the Company of Heroes softening search may expand.
pub const SOFTENING_NODES: u32 = 64;
/// Speed modifier gain: metres per second of change per metre ahead of or
/// behind the slot along the platoon's axis.
pub const SPEED_GAIN_PER_S: f32 = 0.5;
/// A member within this distance of its destination spot has arrived.
pub const SPOT_RADIUS: f32 = ARRIVE_RADIUS + 0.5;
/// Platoons per parallel task.
const PLATOON_CHUNK: usize = 64;
/// Random stream of the drift.
const DRIFT_STREAM: u64 = 11;

/// What the `formations` stage sees besides the platoons and the columns.
#[derive(Clone, Copy, Debug)]
pub struct FormationWorld<'a> {
    /// The terrain of each mobility class, if any: a platoon's slots are
    /// softened against its members' class's map (they share one).
    pub maps: ClassMaps<'a>,
    /// The polygon map's navigator, if any: which bridges stand.
    pub bridges: Option<&'a PolygonNavigator>,
    /// Seconds this tick advances.
    pub dt: f32,
    /// The tick number (drift randomness).
    pub tick: u64,
    /// Whether group orders' members keep to their slowest member's pace
    /// ([`group_pace`]).
    pub pace_groups: bool,
    /// Where element leaders leapfrog to (`leapfrog.rs`).
    pub points_of_interest: &'a PointsOfInterest,
}

/// What one tick of the stage did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FormationStats {
    /// Live platoons.
    pub platoons: usize,
    /// Platoons moving along their paths.
    pub moving: usize,
    /// Moving platoons stopped for a straggler.
    pub waiting: usize,
    /// Platoons whose members all stand on their destination spots.
    pub arrived: usize,
    /// Slots softened against the terrain this tick.
    pub softened: usize,
    /// Moving platoons stopped at a bridge another platoon holds.
    pub at_bridge: usize,
    /// Units in no platoon.
    pub solo: usize,
}

/// The stage's working memory: a bounded-search context per worker, and
/// which platoon holds each bridge (rebuilt from the records every tick,
/// so a snapshot needs nothing more).
#[derive(Debug, Default)]
pub struct FormationStage {
    searches: Vec<Mutex<(GridPlanner, Path)>>,
    traffic: BridgeTraffic,
    groups: GroupPaces,
}

impl FormationStage {
    /// Makes one softening search context per worker of a `threads` pool
    /// (plus one for a caller outside it), sized for every class's map.
    pub fn reserve(&mut self, maps: ClassMaps<'_>, threads: usize) {
        if maps.base().is_none() {
            return;
        }
        if self.searches.len() < threads + 1 {
            self.searches.resize_with(threads + 1, Mutex::default);
        }
        for search in &mut self.searches {
            let (planner, path) = search
                .get_mut()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            for map in maps.all() {
                planner.reserve(map.grid());
            }
            path.cells.reserve(SOFTENING_NODES as usize * 8 + 1);
        }
    }

    /// Room for group ids below `groups`.
    pub fn reserve_groups(&mut self, groups: usize) {
        self.groups.reserve(groups);
    }

    /// Room to record a holder on each of `bridges` bridges.
    pub fn reserve_bridges(&mut self, bridges: usize) {
        self.traffic.reserve(bridges);
    }

    /// One tick: advance every platoon, then write members' drive-to
    /// points and speed limits, then pace group members
    /// ([`group_pace`]).
    pub fn run(
        &mut self,
        platoons: &mut Platoons,
        vehicles: &mut Vehicles,
        world: FormationWorld<'_>,
    ) -> FormationStats {
        admit_to_bridges(&mut self.traffic, &mut platoons.records, world.bridges);
        respot_stalled(platoons, vehicles, world.maps);
        let searches = &self.searches;
        let vehicles_read = &*vehicles;
        let (routes, arcs, headings) = (&platoons.routes, &platoons.arcs, &platoons.headings);
        let advance_chunk = |(chunk, records): (usize, &mut [Platoon])| {
            // Each worker only locks its own context: never contended.
            let outside = searches.len().saturating_sub(1);
            let worker = rayon::current_thread_index().map_or(outside, |i| i.min(outside));
            let search = searches.get(worker);
            let mut softened = 0;
            for (offset, platoon) in records.iter_mut().enumerate() {
                if platoon.live == 1 {
                    let index = chunk * PLATOON_CHUNK + offset;
                    let points = platoon.route_len as usize;
                    let first = index * ROUTE_POINTS;
                    let route = Route {
                        corners: &routes.of(index as u32)[..points],
                        arcs: &arcs[first..first + points],
                        headings: &headings[first..first + points],
                    };
                    softened += advance(platoon, index, route, vehicles_read, world, search);
                }
            }
            softened
        };
        let records = &mut platoons.records;
        let softened: usize = if crate::parallel::inline(records.len(), 2 * PLATOON_CHUNK) {
            records
                .chunks_mut(PLATOON_CHUNK)
                .enumerate()
                .map(advance_chunk)
                .sum()
        } else {
            records
                .par_chunks_mut(PLATOON_CHUNK)
                .enumerate()
                .map(advance_chunk)
                .sum()
        };
        write_members(platoons, vehicles);
        if world.pace_groups {
            self.groups.run(vehicles, world.dt);
        }
        let mut stats = FormationStats {
            softened,
            solo: count_rows(vehicles.len(), |row| {
                vehicles.columns().platoon()[row] == NONE
            }),
            ..FormationStats::default()
        };
        for (_, platoon) in platoons.iter() {
            stats.platoons += 1;
            match platoon.phase() {
                Phase::Moving => {
                    stats.moving += 1;
                    stats.waiting += usize::from(platoon.speed == 0.0);
                    stats.at_bridge += usize::from(
                        platoon.on_bridge == 0
                            && platoon.bridge != NONE
                            && platoon.travelled >= platoon.travel_limit(),
                    );
                }
                Phase::Arrived => stats.arrived += 1,
                Phase::Holding | Phase::Planning | Phase::Settling => {}
            }
        }
        stats
    }
}

/// Copies each member's drive-to point, speed limit and final facing from
/// its platoon.
/// A member following its own path (the bad-position check) keeps the
/// drive-to point the `paths` stage gave it.
fn write_members(platoons: &Platoons, vehicles: &mut Vehicles) {
    let records = &platoons.records;
    let columns = vehicles.columns_mut();
    let (platoon, slot, route_len, max_speed) = (
        &*columns.platoon,
        &*columns.slot,
        &*columns.route_len,
        &*columns.max_speed,
    );
    for_each_chunk3(
        columns.drive_to,
        columns.cruise_speed,
        columns.final_heading,
        |first, drive_to, cruise, final_heading| {
            let rows = first..first + drive_to.len();
            let rows = platoon[rows.clone()]
                .iter()
                .zip(&slot[rows.clone()])
                .zip(&route_len[rows.clone()])
                .zip(&max_speed[rows]);
            let out = drive_to.iter_mut().zip(cruise).zip(final_heading);
            for (
                (((&platoon, &slot), &route_len), &max_speed),
                ((drive_to, cruise), final_heading),
            ) in rows.zip(out)
            {
                // `NONE` is no index: a unit in no platoon.
                let Some(record) = records.get(platoon as usize) else {
                    *cruise = max_speed;
                    continue;
                };
                debug_assert!((slot as usize) < MAX_MEMBERS, "slot {slot}");
                // Slots are below MAX_MEMBERS: the mask only drops the bounds check.
                let slot = slot as usize % MAX_MEMBERS;
                // Members take the ordered facing on their spots (the
                // platoon's last heading change, Force 21 §4).
                *final_heading = match record.phase() {
                    Phase::Settling | Phase::Arrived => record.facing,
                    Phase::Holding | Phase::Planning | Phase::Moving => f32::NAN,
                };
                // A member on its own path drives it at full speed.
                *cruise = if route_len == 0 {
                    *drive_to = record.targets[slot];
                    record.cruise[slot].min(max_speed)
                } else {
                    max_speed
                };
            }
        },
    );
}

/// The members' rows (`NONE` for empty slots), top speeds and yaw rates.
struct Members {
    rows: [u32; MAX_MEMBERS],
    slowest: f32,
    turn_rate: f32,
    last: usize,
}

impl Members {
    /// The row of the member in `slot`, if there is one.
    fn row(&self, slot: usize) -> Option<usize> {
        let row = self.rows[slot];
        (row != NONE).then_some(row as usize)
    }

    /// Every member's row.
    fn all_rows(&self) -> impl Iterator<Item = usize> + '_ {
        self.rows[..=self.last]
            .iter()
            .filter(|&&row| row != NONE)
            .map(|&row| row as usize)
    }
}

fn members_of(platoon: &Platoon, vehicles: &Vehicles) -> Option<Members> {
    let columns = vehicles.columns();
    let mut members = Members {
        rows: [NONE; MAX_MEMBERS],
        slowest: f32::INFINITY,
        turn_rate: f32::INFINITY,
        last: 0,
    };
    for (slot, unit) in platoon.occupied() {
        let Some(row) = vehicles.row_of(unit) else {
            continue;
        };
        members.rows[slot] = row as u32;
        members.slowest = members.slowest.min(columns.max_speed()[row]);
        members.turn_rate = members.turn_rate.min(columns.turn_rate()[row]);
        members.last = slot;
    }
    members.slowest.is_finite().then_some(members)
}

/// A platoon's stored route: corners, and per leg its arc length and
/// heading.
struct Route<'a> {
    corners: &'a [Vec2],
    arcs: &'a [f32],
    headings: &'a [f32],
}

/// Advances one platoon a tick and writes its slots' targets, speed limits
/// and errors into its record; returns how many slots were softened.
fn advance(
    platoon: &mut Platoon,
    index: usize,
    Route {
        corners,
        arcs,
        headings,
    }: Route<'_>,
    vehicles: &Vehicles,
    world: FormationWorld<'_>,
    search: Option<&Mutex<(GridPlanner, Path)>>,
) -> usize {
    platoon.error = [f32::NAN; MAX_MEMBERS];
    let Some(members) = members_of(platoon, vehicles) else {
        platoon.speed = 0.0;
        return 0;
    };
    let positions = vehicles.columns().position();
    let dt = world.dt;
    let terrain = members
        .all_rows()
        .next()
        .and_then(|row| world.maps.of(vehicles.columns().mobility()[row]));
    drift(platoon, index, &members, world.tick, dt);
    cross_bridge(platoon, &members, positions);
    choose_by_context(platoon, terrain);
    platoon.morph = (platoon.morph + dt / MORPH_S).min(1.0);
    let phase = platoon.phase();
    let mut softened = 0;
    if matches!(phase, Phase::Settling | Phase::Arrived) {
        platoon.leaping = 0;
        settle(platoon, &members, positions, dt);
        return 0;
    }
    let view = PathView {
        start: platoon.path_start,
        start_direction: Vec2::from_angle(platoon.start_heading),
        corners,
        arcs,
        headings,
    };
    // Drive-to points: while moving, the slots round the platoon's pose
    // `lookahead_s` ahead on its path (at this tick's start); holding, the
    // slots where it stands.
    let now = Pose {
        s: platoon.travelled,
        anchor: platoon.position,
        heading: platoon.heading,
    };
    let pose = if phase == Phase::Moving {
        predicted_pose(platoon, &view, members.turn_rate)
    } else {
        now
    };
    let mut targets = [Vec2::ZERO; MAX_MEMBERS];
    // On open ground no slot needs softening and every member sees its
    // slot: skip every line-of-sight test.
    let map = terrain.filter(|map| !on_open_ground(map, platoon, &members, positions, pose.anchor));
    let soften = map.map(|map| Soften {
        map,
        search,
        dt,
        softened: &mut softened,
    });
    // Platoon frame to world at the pose, and back to the platoon's own
    // heading; the same angle needs no second sine and cosine.
    let turn = Vec2::from_angle(pose.heading);
    let rotation = |heading: f32| {
        if heading == pose.heading {
            turn
        } else {
            Vec2::from_angle(heading)
        }
    };
    layout(
        platoon,
        &view,
        (pose, turn),
        members.last,
        soften,
        &mut targets,
    );
    // Where each member should be now (the speed modifier's reference, and
    // the formation error): a column's places on the path at the
    // platoon's own pose; other shapes' slots carried back rigidly.
    // Slots past the last occupied one are left alone: nobody reads them.
    let used = members.last + 1;
    let back = if now.heading == pose.heading {
        Vec2::X
    } else {
        Vec2::from_angle(now.heading - pose.heading)
    };
    let follows_path = platoon.formation().follows_path();
    let mut reference = [Vec2::ZERO; MAX_MEMBERS];
    for (slot, point) in reference[..used].iter_mut().enumerate() {
        *point = if follows_path {
            view.point_at(now.s - slot as f32 * platoon.spacing_m)
        } else {
            now.anchor + back.rotate(targets[slot] - pose.anchor)
        };
    }
    if phase == Phase::Moving {
        // A member ahead of its slot is no straggler: it slows (the speed
        // modifier below) and the platoon catches up; only its sideways
        // error counts, so a platoon formed against a wall, its slots
        // behind the lead blocked, does not wait for members already ahead.
        let axis = rotation(platoon.heading);
        let columns = vehicles.columns();
        let (stalled, max_speed) = (columns.stalled_s(), columns.max_speed());
        let pace = (0..=members.last)
            .filter_map(|slot| {
                let row = members.row(slot)?;
                // Nor is one that has made no progress for a while: it is
                // blocked, and waiting for it would block the platoon too
                // (two platoons crossing would each wait for the other's).
                if stalled[row] >= STRAGGLER_PATIENCE_S || platoon.leaping & (1 << slot) != 0 {
                    return None;
                }
                // Nor is one whose place in the column is not on the path
                // yet (behind its start): it falls in as the column passes.
                if follows_path && now.s < slot as f32 * platoon.spacing_m {
                    return None;
                }
                let off_slot = positions[row] - reference[slot];
                let ahead = off_slot.dot(axis).max(0.0);
                let lag = (off_slot - axis * ahead).length();
                Some(straggler_pace(lag, max_speed[row]))
            })
            .fold(1.0, f32::min);
        let slowdown = terrain_slowdown(terrain, platoon.position);
        move_along(platoon, &view, &members, (pace, slowdown), dt);
    } else {
        platoon.speed = 0.0;
    }
    let axis = rotation(platoon.heading);
    for slot in 0..used {
        // A slot laid out past the coordinate limit (a platoon at the
        // map's edge) drives to the nearest point within it.
        platoon.targets[slot] = clamp_to_map(targets[slot]);
        let Some(row) = members.row(slot) else {
            continue;
        };
        if let Some(map) = map {
            let along = (pose.s, pose.s - slot as f32 * platoon.spacing_m);
            platoon.targets[slot] = clamp_to_map(visible_target(
                map,
                &view,
                positions[row],
                targets[slot],
                along,
                platoon.spacing_m,
            ));
        }
        let off_slot = positions[row] - reference[slot];
        let error = off_slot.length();
        platoon.error[slot] = error;
        // The speed modifier: a member near its slot slows by how far it is
        // ahead along the platoon's axis and speeds up by how far behind;
        // one farther away (round a corner, or a straggler the platoon
        // waits for) just speeds up.
        let ahead = off_slot.dot(axis);
        let near = error <= platoon.spacing_m;
        platoon.cruise[slot] = match phase {
            Phase::Moving if near => (platoon.speed - SPEED_GAIN_PER_S * ahead).max(0.0),
            Phase::Moving => platoon.speed + SPEED_GAIN_PER_S * error,
            _ => f32::INFINITY,
        };
    }
    if phase == Phase::Moving {
        let points = world.points_of_interest;
        leapfrog(platoon, &members, positions, points, terrain, dt);
    } else {
        platoon.leaping = 0;
    }
    softened
}

/// Whether every cell of the rectangle holding the platoon's members and
/// every slot around `anchor` is passable (one summed-area query): then any
/// segment between two of those points is clear. Never while a slot is
/// still pulled toward the path (its pull must be released step by step).
fn on_open_ground(
    map: &WorldMap,
    platoon: &Platoon,
    members: &Members,
    positions: &[Vec2],
    anchor: Vec2,
) -> bool {
    if platoon.pull.iter().any(|&pull| pull > 0.0) {
        return false;
    }
    // Unsoftened slots lie within their offset's length of the anchor
    // (hierarchical offsets add up to it; a column walks that far along
    // the path at most), plus each ancestor's drift.
    let farthest = platoon
        .formation()
        .reach_squared(members.last)
        .max(platoon.previous_formation().reach_squared(members.last))
        .sqrt();
    let reach = farthest * platoon.spacing_m + platoon.drift_m * members.last as f32;
    let (mut low, mut high) = (anchor - Vec2::splat(reach), anchor + Vec2::splat(reach));
    for row in members.all_rows() {
        low = low.min(positions[row]);
        high = high.max(positions[row]);
    }
    match (map.cell_at(low), map.cell_at(high)) {
        (Some(low), Some(high)) => map.all_passable(low, high),
        _ => false,
    }
}

/// The platoon's place on its path: arc length, point and heading.
#[derive(Clone, Copy, Debug)]
struct Pose {
    s: f32,
    anchor: Vec2,
    heading: f32,
}

/// The fraction of its top speed a platoon keeps for a member `lag`
/// metres off its slot (Force 21): all of it while the member is within
/// the arrival radius, falling linearly to none at `2 × maxspeed` — the
/// member's own top speed, so the limit is two seconds of its own driving
/// (a tank may fall 24 m behind in a platoon paced by infantry: it makes
/// that up in two seconds).
fn straggler_pace(lag: f32, max_speed: f32) -> f32 {
    let limit = 2.0 * max_speed;
    ((limit - lag) / (limit - ARRIVE_RADIUS).max(1e-3)).clamp(0.0, 1.0)
}

/// Force 21 speed and path following: speed from the slowest member and
/// the stragglers' `pace` ([`straggler_pace`], the slowest of the
/// members'), position along the path, heading toward the path a spacing
/// ahead (so it turns as a corner approaches).
fn move_along(
    platoon: &mut Platoon,
    view: &PathView<'_>,
    members: &Members,
    (pace, slowdown): (f32, f32),
    dt: f32,
) {
    // Slower ground under the platoon slows it as it slows its members.
    let top = members.slowest / slowdown;
    platoon.speed = top * pace;
    let length = platoon.route_length;
    let limit = platoon.travel_limit();
    platoon.travelled = (platoon.travelled + platoon.speed * dt).min(limit);
    if platoon.travelled >= limit && limit < length {
        // Waiting at a bridge another platoon holds.
        platoon.speed = 0.0;
    }
    platoon.position = view.point_at(platoon.travelled);
    if let Some(wanted) = carrot_heading(view, platoon.travelled, platoon.spacing_m) {
        platoon.heading = turn_toward(platoon.heading, wanted, members.turn_rate * dt);
    }
    let complete = view.corners.last().is_none_or(|&end| end == platoon.goal);
    if platoon.travelled >= length && complete {
        platoon.phase = Phase::Settling as u32;
        platoon.speed = 0.0;
    }
}

/// The platoon's pose `lookahead_s` ahead on its path at its speed: the
/// heading there is the platoon's, turned toward that point's carrot as far
/// as it can turn in the lookahead.
fn predicted_pose(platoon: &Platoon, view: &PathView<'_>, turn_rate: f32) -> Pose {
    let ahead =
        (platoon.travelled + platoon.speed * platoon.lookahead_s).min(platoon.travel_limit());
    let turn = turn_rate * platoon.lookahead_s;
    Pose {
        s: ahead,
        anchor: view.point_at(ahead),
        heading: carrot_heading(view, ahead, platoon.spacing_m).map_or(platoon.heading, |wanted| {
            turn_toward(platoon.heading, wanted, turn)
        }),
    }
}

/// The direction from the path point at `s` to the one `lead` metres
/// further (so the heading turns as a corner approaches); `None` at the
/// end of the path.
fn carrot_heading(view: &PathView<'_>, s: f32, lead: f32) -> Option<f32> {
    if let Some(heading) = view.heading_within_leg(s, lead) {
        return Some(heading);
    }
    let ahead = view.point_at(s + lead) - view.point_at(s);
    (ahead.length_squared() > 1e-6).then(|| ahead.to_angle())
}

/// At the end of the path: the heading turns to the ordered facing and
/// members drive to their reserved spots; arrived once all stand there.
fn settle(platoon: &mut Platoon, members: &Members, positions: &[Vec2], dt: f32) {
    platoon.speed = 0.0;
    if platoon.facing.is_finite() {
        platoon.heading = turn_toward(platoon.heading, platoon.facing, members.turn_rate * dt);
    }
    let mut all_there = true;
    for slot in 0..=members.last {
        platoon.targets[slot] = platoon.spots[slot];
        platoon.cruise[slot] = f32::INFINITY;
        if let Some(row) = members.row(slot) {
            let error = positions[row].distance(platoon.spots[slot]);
            platoon.error[slot] = error;
            all_there &= error <= SPOT_RADIUS;
        }
    }
    platoon.phase = if all_there {
        Phase::Arrived as u32
    } else {
        Phase::Settling as u32
    };
    // A route that ends just past a bridge: every member on its spot is
    // off the deck.
    if all_there && platoon.bridge != NONE {
        platoon.release_bridge();
    }
}

/// `heading` turned toward `wanted` by at most `step` radians.
fn turn_toward(heading: f32, wanted: f32, step: f32) -> f32 {
    let delta = crate::geometry::angles::wrap_angle(wanted - heading);
    crate::geometry::angles::wrap_angle(heading + delta.clamp(-step, step))
}

/// Writes the point of every slot up to `last` for `pose` (whose heading
/// turns to `turn`, a unit vector) into `out`:
/// each slot from its parent's point (hierarchical offsets), morphed from
/// the previous shape, plus drift, softened when `soften` is given.
fn layout(
    platoon: &mut Platoon,
    view: &PathView<'_>,
    (pose, turn): (Pose, Vec2),
    last: usize,
    mut soften: Option<Soften<'_, '_>>,
    out: &mut [Vec2; MAX_MEMBERS],
) {
    let spacing = platoon.spacing_m;
    let weight = smoothstep(platoon.morph);
    let (current, previous) = (platoon.formation(), platoon.previous_formation());
    // A column's points are on the path, which is clear: only offset
    // slots are softened.
    let on_path = current.follows_path() && weight >= 1.0;
    let softening = soften.is_some() && !on_path;
    let needs_column = softening || current.follows_path() || previous.follows_path();
    out[0] = pose.anchor;
    for slot in 1..=last {
        // The slot's column position on the path: a column's place, and
        // where a blocked slot is pulled toward.
        let column = if needs_column {
            view.point_at(pose.s - slot as f32 * spacing)
        } else {
            Vec2::NAN
        };
        let place = |shape: Formation, out: &[Vec2; MAX_MEMBERS]| {
            if shape.follows_path() {
                return column;
            }
            let (parent, step) = shape.step(slot);
            out[parent] + turn.rotate(step * spacing)
        };
        let mut ideal = place(current, out);
        if weight < 1.0 {
            ideal = place(previous, out).lerp(ideal, weight);
        }
        ideal += turn.rotate(platoon.drift[slot]);
        out[slot] = match soften.as_mut().filter(|_| softening) {
            Some(soften) => soften_slot(platoon, slot, pose.anchor, ideal, column, soften),
            None => ideal,
        };
    }
}

fn smoothstep(t: f32) -> f32 {
    t * t * (3.0 - 2.0 * t)
}

/// Company of Heroes drift: each member's offset wanders within
/// `drift_m`, a small random step per tick from a stateless hash.
fn drift(platoon: &mut Platoon, index: usize, members: &Members, tick: u64, dt: f32) {
    if platoon.drift_m <= 0.0 {
        return;
    }
    for slot in 1..=members.last {
        let draw = (index * MAX_MEMBERS + slot) as u64 ^ (tick << 20);
        let angle = std::f32::consts::TAU * unit_f32(tick, DRIFT_STREAM, draw);
        // A random walk of 0.5 radius per second, kept inside the disc.
        let step = Vec2::from_angle(angle) * (0.5 * platoon.drift_m * dt);
        platoon.drift[slot] = (platoon.drift[slot] + step).clamp_length_max(platoon.drift_m);
    }
}

/// Formation context (Company of Heroes): a staggered column on a road, a
/// wide wedge where the ground is open two spacings either side of the
/// platoon, a tight wedge where it is confined.
fn choose_by_context(platoon: &mut Platoon, map: Option<&WorldMap>) {
    let ready = platoon.uses_context() && platoon.morph >= 1.0 && platoon.resume_formation == NONE;
    let Some(map) = map.filter(|_| ready) else {
        return;
    };
    let side = to_world(Vec2::Y * 2.0 * platoon.spacing_m, platoon.heading);
    let open = || {
        map.segment_is_clear(platoon.position, platoon.position + side)
            && map.segment_is_clear(platoon.position, platoon.position - side)
    };
    let wanted = if map.on_road(platoon.position) {
        Formation::StaggeredColumn
    } else if open() {
        Formation::WideWedge
    } else {
        Formation::TightWedge
    };
    platoon.change_formation(wanted);
}
