//! The `steering` stage: each unit's desired velocity.
//!
//! Reciprocal avoidance ([`reciprocal`], ORCA among the nearest
//! neighbours and the walls, solo units and platoon members alike),
//! Force 21's drive-to ([`crate::geometry::seek`]) with vehicle avoidance
//! ([`avoid`]: the soonest threat by time of nearest approach among the
//! spatial hash's neighbours, eight at a time), or a potential field among
//! moving bodies ([`field`]), chosen per unit by its `steer_mode` column —
//! no faster than its cruise speed divided by the cost multiplier of the
//! cell it is on (swamps and nebulae slow units). The stage also tracks
//! progress for the stuck-unit count. Method: Force 21 (Van Verth et al.,
//! "Vehicle avoidance"); the potential field of the swarm-steering post.

pub mod avoid;
pub mod field;
pub mod movers;
pub mod orca;
pub mod reciprocal;
pub mod wall_runs;

use std::f32::consts::FRAC_1_SQRT_2;
use std::sync::atomic::{AtomicUsize, Ordering};

use glam::Vec2;

use crate::nav::{ClassMaps, WorldMap};
use crate::data::vehicles::{ARRIVE_RADIUS, PROGRESS_STEP_M, STUCK_AFTER_S};
use crate::parallel::{STEER_CHUNK_ROWS, for_each_chunk4_of};
use crate::data::spatial_hash::{SpatialHash, nearest_places, run_candidates, window_columns};
use crate::data::vehicles::{ColumnsMut, NONE, SteerMode};
use avoid::{Body, Mover, Near, Question, Response, ThreatSearch};
use field::{Disc, FieldUnit};
use movers::{LANES, MoverColumns, SEARCH_LANES};
use orca::VelocitySolver;
use reciprocal::{Chooser, Nearest, Wish, layers_meet};
use crate::geometry::lanes::lanes_of;
use crate::geometry::seek;
use crate::nav::world::terrain_slowdown;
use wide::f32x8;

/// What the steering pass counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SteerStats {
    /// Units within the arrival radius of their drive-to point.
    pub arrived: usize,
    /// Units steering around a predicted collision.
    pub avoiding: usize,
    /// Units stopped because their drive-to point is next to a threat.
    pub stopped: usize,
    /// Units without progress for [`STUCK_AFTER_S`].
    pub stuck: usize,
    /// The most candidate neighbours one unit examined.
    pub most_candidates: usize,
    /// Units whose search a run holding more places than
    /// [`run_candidates`] allows cut short.
    pub cut_searches: usize,
}

/// Places of one run (a row of the cells about a unit) a unit's search
/// examines at most, the places nearest its own: [`run_candidates`] of the
/// run's cells, as many as a crowd not piled up holds. No shipped profile
/// or crowd-quality scenario reaches it (`cut_searches` is 0); it binds
/// where units pile up, and keeps the stage linear in them.
#[must_use]
pub fn max_run_candidates(spatial: &SpatialHash, avoid_radius: f32) -> usize {
    let cell_size = spatial.cell_size();
    let cells = if spatial.block_covers(avoid_radius) {
        3
    } else {
        window_columns(avoid_radius, cell_size)
    };
    run_candidates(cells, cell_size)
}

/// Where a unit with a turning radius, steering by reciprocal avoidance,
/// stops short of a goal in line with its motion, metres.
pub const TURNING_ARRIVE_RADIUS: f32 = 1.25;

/// Within this distance of its goal a unit steering by reciprocal
/// avoidance has arrived: a quarter of its shield's width, from 0.25 m to
/// [`ARRIVE_RADIUS`]. A unit with a turning radius cannot turn onto a
/// point: on its own it stops within [`TURNING_ARRIVE_RADIUS`] of a goal
/// within 45° of its line of motion, which it drives or backs straight to,
/// and within [`ARRIVE_RADIUS`] of one off to a side, which it would
/// shuffle back and forth to reach; in a platoon, within [`ARRIVE_RADIUS`]
/// of its slot.
#[inline]
fn arrival_radius(me: &Mover, turn_radius: f32, goal: Vec2, solo: bool) -> f32 {
    if turn_radius > 0.0 {
        if !solo {
            return ARRIVE_RADIUS;
        }
        let to_goal = goal - me.position;
        let in_line = me.axis.dot(to_goal).abs() >= FRAC_1_SQRT_2 * to_goal.length();
        return if in_line { TURNING_ARRIVE_RADIUS } else { ARRIVE_RADIUS };
    }
    (0.5 * me.half_width).clamp(0.25, ARRIVE_RADIUS)
}

/// An avoidance swerve must keep this many seconds of travel clear of
/// blocked cells, or the unit only brakes.
pub const SWERVE_LOOKAHEAD_S: f32 = 1.0;

/// The world steering looks at besides the columns.
#[derive(Clone, Copy, Debug)]
pub struct SteerWorld<'a> {
    /// The hash built this tick from the current positions.
    pub spatial: &'a SpatialHash,
    /// The terrain of each mobility class, if any: avoidance never swerves
    /// into a cell the unit's class's map blocks.
    pub maps: ClassMaps<'a>,
    /// Neighbours within this radius are checked for collisions, metres.
    pub avoid_radius: f32,
    /// Moving bodies, where they are this tick.
    pub bodies: &'a [Disc],
    /// Seconds this tick advances (for progress tracking).
    pub dt: f32,
    /// The tick, for reciprocal avoidance's symmetry-breaking nudge.
    pub tick: u64,
    /// Whether reciprocal avoidance shares the work with every movable
    /// neighbour (`FactionAvoidance::Shared`), or only with the unit's own
    /// faction, taking all of it from the others'.
    pub factions_share: bool,
    /// The grids whose walls reciprocal avoidance keeps clear of, by
    /// mobility class: a grid map's (a polygon map's raster is coarser than
    /// the routes planned on its edges, so its cells would block them:
    /// none there).
    pub walls: ClassMaps<'a>,
}

/// The `steering` stage and its working memory (reuse it across ticks).
#[derive(Clone, Debug, Default)]
pub struct Steering {
    /// Every unit as avoidance reads it, in the spatial hash's place order,
    /// so a neighbour query streams through contiguous rows.
    movers: MoverColumns,
}

impl Steering {
    /// Grows the working memory to hold `units`, so ticks never allocate.
    pub fn reserve(&mut self, units: usize) {
        self.movers.reserve(units);
    }

    /// Writes every unit's desired velocity (the `steering` stage).
    /// `world.spatial` must have been rebuilt from these columns' rows (a
    /// unit's candidates are those in the window about where the hash saw
    /// it; its neighbours, those of them within the radius as they are
    /// now).
    pub fn run(&mut self, columns: &mut ColumnsMut<'_>, world: SteerWorld<'_>) -> SteerStats {
        let units = columns.position.len();
        assert_eq!(
            world.spatial.len(),
            units,
            "the spatial hash was built for {} units, the columns hold {units}",
            world.spatial.len()
        );
        gather_movers(&mut self.movers, columns, world.spatial);
        steer_rows(columns, &self.movers, world)
    }
}

/// Writes the mover of the unit at each place of the spatial hash.
fn gather_movers(movers: &mut MoverColumns, columns: &ColumnsMut<'_>, spatial: &SpatialHash) {
    let (position, velocity, heading) = (&*columns.position, &*columns.velocity, &*columns.heading);
    let (altitude, shield) = (&*columns.altitude, &*columns.shield);
    let body = |unit: usize| Body {
        position: position[unit],
        velocity: velocity[unit],
        heading: heading[unit],
        altitude: altitude[unit],
        shield: shield[unit],
    };
    movers::gather(movers, body, spatial.order());
}

/// The steering pass proper, with every unit's mover in place order.
fn steer_rows(
    columns: &mut ColumnsMut<'_>,
    movers: &MoverColumns,
    world: SteerWorld<'_>,
) -> SteerStats {
    let ColumnsMut {
        position,
        max_speed,
        cruise_speed,
        max_brake,
        turn_rate,
        inv_mass,
        turn_radius,
        platoon,
        drive_to,
        goal,
        steer_mode,
        desired_velocity,
        progress_m,
        steered_from,
        stalled_s,
        faction,
        mobility,
        ..
    } = columns;
    let mobility = &**mobility;
    let (position, inv_mass, platoon, faction) = (&**position, &**inv_mass, &**platoon, &**faction);
    let turn_radius = &**turn_radius;
    let (max_speed, cruise_speed, max_brake, turn_rate, drive_to, goal, steer_mode) = (
        &**max_speed,
        &**cruise_speed,
        &**max_brake,
        &**turn_rate,
        &**drive_to,
        &**goal,
        &**steer_mode,
    );
    let spatial = world.spatial;
    let (places, rebuilt_at) = (spatial.places(), spatial.sorted_positions());
    let cells = spatial.cells();
    let order = spatial.order();
    let chooser = Chooser {
        movers,
        walls: world.walls,
        dt: world.dt,
        tick: world.tick,
    };
    let by_block = spatial.block_covers(world.avoid_radius);
    let cap = max_run_candidates(spatial, world.avoid_radius);
    let radius_sq = world.avoid_radius * world.avoid_radius;
    let counts = [(); 5].map(|()| AtomicUsize::new(0));
    let most_candidates = AtomicUsize::new(0);
    for_each_chunk4_of(
        STEER_CHUNK_ROWS,
        desired_velocity,
        progress_m,
        stalled_s,
        steered_from,
        |first, desired, progress, stalled, steered_from| {
            let rows = first..first + desired.len();
            let position = &position[rows.clone()];
            let (places, drive_to, goal) = (
                &places[rows.clone()],
                &drive_to[rows.clone()],
                &goal[rows.clone()],
            );
            let (steer_mode, cruise_speed, max_speed) = (
                &steer_mode[rows.clone()],
                &cruise_speed[rows.clone()],
                &max_speed[rows.clone()],
            );
            let (max_brake, turn_rate) = (&max_brake[rows.clone()], &turn_rate[rows.clone()]);
            let (platoon, turn_radius) = (&platoon[rows.clone()], &turn_radius[rows.clone()]);
            let mobility = &mobility[rows];
            let mut tally = [0usize; 5];
            let mut most = 0;
            let mut out = Rows {
                desired,
                progress,
                stalled,
                steered_from,
                dt: world.dt,
            };
            let mut waiting = Waiting::default();
            let mut solver = VelocitySolver::default();
            for offset in 0..out.desired.len() {
                let place = places[offset] as usize;
                let me = &movers.get(place);
                let target = drive_to[offset];
                let slowdown = terrain_slowdown(world.maps.of(mobility[offset]), me.position);
                if steer_mode[offset] == SteerMode::PotentialField as u8 {
                    let field_unit = FieldUnit {
                        position: me.position,
                        radius: me.bounding_radius,
                        speed: me.velocity.length(),
                        turn_rate: turn_rate[offset],
                        max_speed: cruise_speed[offset] / slowdown,
                        max_brake: max_brake[offset],
                    };
                    let wanted = field::field_velocity(&field_unit, target, world.bodies);
                    out.finish(offset, wanted);
                    continue;
                }
                if steer_mode[offset] == SteerMode::Reciprocal as u8 {
                    let max_speed = cruise_speed[offset] / slowdown;
                    // Only the goal itself is reached within the unit's own
                    // radius: drive-to points along a route or a curve keep
                    // the speed rule the `paths` stage placed them by.
                    let arrive = if target == goal[offset] {
                        arrival_radius(me, turn_radius[offset], target, platoon[offset] == NONE)
                    } else {
                        ARRIVE_RADIUS
                    };
                    let preferred = seek::drive_to_velocity_within(
                        me.position,
                        target,
                        max_speed,
                        max_brake[offset],
                        arrive,
                    );
                    let (nearest, search) = nearest_neighbours(
                        spatial,
                        movers,
                        place,
                        cells[first + offset],
                        (world.avoid_radius, cap),
                    );
                    search.count(&mut most, &mut tally);
                    let wish = Wish {
                        me: *me,
                        unit: (first + offset) as u32,
                        preferred,
                        max_speed,
                        mobility: mobility[offset],
                    };
                    // A platoon member parked on its spot yields: it takes
                    // all of every avoidance, so units pass through its
                    // platoon's ranks, and it drives back after. A
                    // neighbour takes no share either when immovable, or
                    // of another faction when factions do not share.
                    let parked = platoon[offset] != NONE
                        && target == goal[offset]
                        && me.position.distance(target) <= ARRIVE_RADIUS;
                    let own = faction[first + offset];
                    let immovable = |other: usize| {
                        let other = order[other] as usize;
                        parked
                            || inv_mass[other] == 0.0
                            || !(world.factions_share || faction[other] == own)
                    };
                    let wanted = reciprocal::choose(&chooser, &wish, &nearest, immovable, &mut solver);
                    tally[1] += usize::from(wanted.distance_squared(preferred) > 1e-4);
                    out.finish(offset, wanted);
                    continue;
                }
                let seek = seek::drive_to_velocity(
                    me.position,
                    target,
                    cruise_speed[offset] / slowdown,
                    max_brake[offset],
                );
                let mut search = ThreatSearch::new(me, seek);
                let near = Near {
                    radius_sq,
                    skip: place,
                };
                let mut examined = Examined::new(cap);
                // A radius within a cell: the block of cells about the
                // unit's, found from the cell's number alone (the same rows
                // within the radius, in the same order, as the window about
                // its position, without converting the window's sides).
                if by_block {
                    spatial.for_each_block_run(cells[first + offset], |run| {
                        search.consider_run(movers, examined.nearest(run, place), near);
                    });
                } else {
                    spatial.for_each_row_range(rebuilt_at[place], world.avoid_radius, |run| {
                        search.consider_run(movers, examined.nearest(run, place), near);
                    });
                }
                examined.count(&mut most, &mut tally);
                let Some(threat) = search.threat(movers) else {
                    let wanted = apply(Response::Clear, seek, &mut tally);
                    out.finish(offset, wanted);
                    continue;
                };
                // Threats are answered four at a time.
                waiting.questions[waiting.count] = Question {
                    me: *me,
                    steering: seek,
                    destination: (target == goal[offset]).then_some(target),
                    max_speed: max_speed[offset],
                    threat,
                };
                waiting.rows[waiting.count] = offset;
                waiting.count += 1;
                if waiting.count == LANES {
                    waiting.answer(&mut out, (world.maps, mobility), &mut tally);
                }
            }
            waiting.answer(&mut out, (world.maps, mobility), &mut tally);
            out.track_progress(position, drive_to, &mut tally);
            for (count, value) in counts.iter().zip(tally) {
                count.fetch_add(value, Ordering::Relaxed);
            }
            most_candidates.fetch_max(most, Ordering::Relaxed);
        },
    );
    let [arrived, avoiding, stopped, stuck, cut_searches] = counts.map(AtomicUsize::into_inner);
    SteerStats {
        arrived,
        avoiding,
        stopped,
        stuck,
        most_candidates: most_candidates.into_inner(),
        cut_searches,
    }
}

/// The neighbours reciprocal avoidance takes for the unit at place `place`
/// (in hash cell `cell`): its [`reciprocal::MAX_NEIGHBOURS`] nearest within
/// `radius` whose layers meet its own, among the candidates its search
/// examines (of each run of cells about it, the `cap`
/// ([`max_run_candidates`]) [`nearest_places`]); and what the search
/// examined.
fn nearest_neighbours(
    spatial: &SpatialHash,
    movers: &MoverColumns,
    place: usize,
    cell: u32,
    (radius, cap): (f32, usize),
) -> (Nearest, Examined) {
    let me = movers.get(place);
    let radius_sq = radius * radius;
    let (mut nearest, mut search) = (Nearest::default(), Examined::new(cap));
    let mut offer = |run: std::ops::Range<usize>| {
        for other in search.nearest(run, place).filter(|&other| other != place) {
            let them = movers.get(other);
            let distance_sq = me.position.distance_squared(them.position);
            if distance_sq <= radius_sq && layers_meet(&me, &them) {
                nearest.offer(distance_sq, other as u32);
            }
        }
    };
    if spatial.block_covers(radius) {
        spatial.for_each_block_run(cell, &mut offer);
    } else {
        spatial.for_each_row_range(spatial.sorted_positions()[place], radius, &mut offer);
    }
    (nearest, search)
}

/// One unit's neighbour search: the candidates it examined, and whether a
/// run was cut to its `cap` ([`max_run_candidates`]) nearest places.
#[derive(Clone, Copy)]
struct Examined {
    cap: usize,
    candidates: usize,
    cut: bool,
}

impl Examined {
    fn new(cap: usize) -> Examined {
        Examined {
            cap,
            candidates: 0,
            cut: false,
        }
    }

    /// The places of `run` the unit at place `own` examines, counted.
    #[inline]
    fn nearest(&mut self, run: std::ops::Range<usize>, own: usize) -> std::ops::Range<usize> {
        let kept = nearest_places(run.clone(), own, self.cap);
        self.cut |= kept.len() < run.len();
        self.candidates += kept.len();
        kept
    }

    /// Folds this search into the chunk's most candidates and its count
    /// of cut searches (`tally[4]`).
    #[inline]
    fn count(self, most: &mut usize, tally: &mut [usize; 5]) {
        *most = (*most).max(self.candidates);
        tally[4] += usize::from(self.cut);
    }
}

/// One chunk's columns the steering pass writes, and the tick's length.
struct Rows<'a> {
    desired: &'a mut [Vec2],
    progress: &'a mut [f32],
    stalled: &'a mut [f32],
    /// Where each unit was when last steered: read, then set to where it
    /// is now.
    steered_from: &'a mut [Vec2],
    dt: f32,
}

impl Rows<'_> {
    /// Writes row `offset`'s desired velocity.
    #[inline]
    fn finish(&mut self, offset: usize, wanted: Vec2) {
        self.desired[offset] = wanted;
    }

    /// Tracks every row's progress from `position` toward `target` (and
    /// steers from there next time), eight rows at a time in lanes, the
    /// rows past the last eight one at a time (the same arithmetic, so the
    /// same bits; eight is [`SEARCH_LANES`], an `f32x8`'s width); counts
    /// arrived units in `tally[0]` and stuck ones in `tally[3]`. Run after
    /// the chunk's steering, as no row's progress depends on another's
    /// answer: the lanes have none of one row's branches.
    fn track_progress(&mut self, position: &[Vec2], target: &[Vec2], tally: &mut [usize; 5]) {
        let rows = self.desired.len();
        let eights = rows - rows % SEARCH_LANES;
        for first in (0..eights).step_by(SEARCH_LANES) {
            let eight = first..first + SEARCH_LANES;
            let [arrived, stuck] =
                self.track_eight(first, &position[eight.clone()], &target[eight]);
            tally[0] += arrived as usize;
            tally[3] += stuck as usize;
        }
        for row in eights..rows {
            let [arrived, stuck] = self.track_one(row, position[row], target[row]);
            tally[0] += usize::from(arrived);
            tally[3] += usize::from(stuck);
        }
        self.steered_from.copy_from_slice(position);
    }

    /// Row `row`'s progress from `position` toward `target`: whether it has
    /// arrived, and whether it is stuck.
    #[inline]
    fn track_one(&mut self, row: usize, position: Vec2, target: Vec2) -> [bool; 2] {
        let (progress, stalled) = (&mut self.progress[row], &mut self.stalled[row]);
        let to_target = target - position;
        let distance = to_target.length();
        let arrived = distance <= ARRIVE_RADIUS;
        if arrived {
            *stalled = 0.0;
            *progress = 0.0;
        } else {
            // Progress is the way made toward the drive-to point, so a
            // member keeping pace behind a moving slot progresses, and one
            // shuttling to and fro, or pushed back as far as it drives,
            // does not.
            let toward = to_target / distance;
            // Floored at 0 (and a NaN to 0, as in lanes): way lost (pushed
            // back) is not owed before new way counts.
            let made = *progress + (position - self.steered_from[row]).dot(toward);
            *progress = if made > 0.0 { made } else { 0.0 };
            if *progress >= PROGRESS_STEP_M {
                *progress = 0.0;
                *stalled = 0.0;
            } else {
                *stalled += self.dt;
            }
        }
        [arrived, *stalled >= STUCK_AFTER_S]
    }

    /// [`Rows::track_one`] for rows `first..first + 8` in lanes: how many
    /// have arrived, and how many are stuck.
    #[inline]
    fn track_eight(&mut self, first: usize, position: &[Vec2], target: &[Vec2]) -> [u32; 2] {
        let eight = first..first + SEARCH_LANES;
        let (x, y) = xy_lanes(position);
        let (target_x, target_y) = xy_lanes(target);
        let (from_x, from_y) = xy_lanes(&self.steered_from[eight.clone()]);
        let (to_x, to_y) = (target_x - x, target_y - y);
        let distance = (to_x * to_x + to_y * to_y).sqrt();
        let arrived = distance.simd_le(f32x8::splat(ARRIVE_RADIUS));
        let (toward_x, toward_y) = (to_x / distance, to_y / distance);
        let progress = lanes_of(&self.progress[eight.clone()]);
        let made = progress + ((x - from_x) * toward_x + (y - from_y) * toward_y);
        // As `track_one`'s comparison: a NaN gives 0 (on every backend,
        // where `fast_max` keeps a NaN off x86).
        let made = made.simd_gt(f32x8::ZERO).select(made, f32x8::ZERO);
        let restart = arrived | made.simd_ge(f32x8::splat(PROGRESS_STEP_M));
        let progress = restart.select(f32x8::ZERO, made);
        let stalled = lanes_of(&self.stalled[eight.clone()]) + f32x8::splat(self.dt);
        let stalled = restart.select(f32x8::ZERO, stalled);
        let stuck = stalled.simd_ge(f32x8::splat(STUCK_AFTER_S));
        self.progress[eight.clone()].copy_from_slice(&progress.to_array());
        self.stalled[eight].copy_from_slice(&stalled.to_array());
        [arrived, stuck].map(|mask| mask.to_bitmask().count_ones())
    }
}

/// Eight consecutive points (`eight.len()` must be 8), x and y in lanes.
#[inline]
fn xy_lanes(eight: &[Vec2]) -> (f32x8, f32x8) {
    debug_assert_eq!(eight.len(), SEARCH_LANES, "eight points");
    let flat: &[f32] = bytemuck::cast_slice(eight);
    let lane = |k: usize| std::array::from_fn(|lane| flat[2 * lane + k]);
    (f32x8::new(lane(0)), f32x8::new(lane(1)))
}

/// Units of a chunk with a threat to answer, waiting to be answered four
/// at a time, with their rows.
#[derive(Default)]
struct Waiting {
    questions: [Question; LANES],
    rows: [usize; LANES],
    count: usize,
}

impl Waiting {
    /// Answers the waiting units' threats ([`avoid::respond_lanes`]) and
    /// finishes their rows.
    #[inline]
    /// Each row's walls are its mobility class's (`maps`, the chunk's
    /// `mobility` column).
    fn answer(&mut self, rows: &mut Rows<'_>, (maps, mobility): (ClassMaps<'_>, &[u8]), tally: &mut [usize; 5]) {
        if self.count == 0 {
            return;
        }
        let answers = avoid::respond_lanes(&self.questions, self.count);
        for ((question, &offset), &response) in self
            .questions
            .iter()
            .zip(&self.rows)
            .zip(&answers)
            .take(self.count)
        {
            let (me, seek) = (&question.me, question.steering);
            let map = maps.of(mobility[offset]);
            let wanted = apply(keep_off_walls(response, me, seek, map), seek, tally);
            rows.finish(offset, wanted);
        }
        self.count = 0;
    }
}

/// An avoidance swerve that would carry the unit into a blocked cell
/// within [`SWERVE_LOOKAHEAD_S`] — along the swerve itself, or along the
/// average of it and the current velocity (the turn the unit will actually
/// drive, Force 21's predictor) — becomes braking along its drive-to line.
#[inline]
fn keep_off_walls(response: Response, me: &Mover, seek: Vec2, map: Option<&WorldMap>) -> Response {
    let (Response::Avoid(velocity), Some(map)) = (response, map) else {
        return response;
    };
    let clear = |velocity: Vec2| {
        map.segment_is_clear(me.position, me.position + velocity * SWERVE_LOOKAHEAD_S)
    };
    if clear(velocity) && clear(0.5 * (velocity + me.velocity)) {
        return response;
    }
    let along = seek.normalize_or_zero();
    Response::Avoid(along * velocity.dot(along).max(0.0))
}

/// The velocity a unit steers with after avoidance's `response`; counts
/// avoiding and stopped units in `tally[1]` and `tally[2]`.
#[inline]
fn apply(response: Response, seek: Vec2, tally: &mut [usize; 5]) -> Vec2 {
    match response {
        Response::Clear => seek,
        Response::Avoid(velocity) => {
            tally[1] += 1;
            velocity
        }
        Response::Stop => {
            tally[2] += 1;
            Vec2::ZERO
        }
    }
}

#[cfg(test)]
mod tests;
