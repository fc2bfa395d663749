//! Steering and vehicle dynamics: the `steering` and `integrate` stages.
//!
//! `steering` turns each unit's drive-to point into a desired velocity —
//! Force 21's drive-to ([`seek`]) with vehicle avoidance ([`avoid`]), or a
//! potential field among moving bodies ([`field`]), chosen per unit by its
//! `steer_mode` column — no faster than its cruise speed divided by the
//! cost multiplier of the cell it is on (swamps and nebulae slow units),
//! and tracks progress for the stuck-unit count.
//! `integrate` ([`dynamics`]) moves units toward that velocity as their kind
//! allows. [`turning`] bends a path's corners to a vehicle's turning circle;
//! [`follow`] drives wheeled units along those curves (called by the `paths`
//! stage's follow pass).

pub mod avoid;
mod drive_lanes;
pub mod dynamics;
pub mod field;
pub mod follow;
pub mod movers;
pub mod seek;
pub mod turning;
pub mod walls;

/// The inline angle functions, also used outside steering (kept here for
/// the path `convoy::steer::angles`).
pub use crate::angles;

use std::sync::atomic::{AtomicUsize, Ordering};

use glam::Vec2;

use crate::nav::WorldMap;
use crate::parallel::for_each_chunk4_of;
use crate::spatial::SpatialHash;
use crate::vehicles::{ColumnsMut, SteerMode};
use avoid::{Body, Mover, Near, Question, Response, ThreatSearch};
use field::{Disc, FieldUnit};
use movers::{LANES, MoverColumns};

/// Within this distance of its drive-to point a vehicle has arrived
/// (Force 21 §5: 2.5 m).
pub const ARRIVE_RADIUS: f32 = 2.5;
/// A unit that has not driven this far toward its drive-to point (its
/// velocity along the direction to it, summed) in [`STUCK_AFTER_S`] is
/// stuck, metres.
pub const PROGRESS_STEP_M: f32 = 0.5;
/// Seconds without progress before a unit counts as stuck.
pub const STUCK_AFTER_S: f32 = 10.0;

/// Rows per task of the steering and integrate passes: at about 100 ns a
/// unit on one core, the last chunk of a pass, which one thread runs while
/// the others wait, takes 0.1 ms (half the shared chunk's time).
pub(crate) const STEER_CHUNK_ROWS: usize = 1024;

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
}

/// An avoidance swerve must keep this many seconds of travel clear of
/// blocked cells, or the unit only brakes.
pub const SWERVE_LOOKAHEAD_S: f32 = 1.0;

/// The world steering looks at besides the columns.
#[derive(Clone, Copy, Debug)]
pub struct SteerWorld<'a> {
    /// The hash built this tick from the current positions.
    pub spatial: &'a SpatialHash,
    /// The terrain, if any: avoidance never swerves into a blocked cell.
    pub map: Option<&'a WorldMap>,
    /// Neighbours within this radius are checked for collisions, metres.
    pub avoid_radius: f32,
    /// Moving bodies, where they are this tick.
    pub bodies: &'a [Disc],
    /// Seconds this tick advances (for progress tracking).
    pub dt: f32,
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
        max_speed,
        cruise_speed,
        max_brake,
        turn_rate,
        drive_to,
        goal,
        steer_mode,
        desired_velocity,
        progress_m,
        steered_from,
        stalled_s,
        ..
    } = columns;
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
    let by_block = spatial.block_covers(world.avoid_radius);
    let radius_sq = world.avoid_radius * world.avoid_radius;
    let counts = [(); 4].map(|()| AtomicUsize::new(0));
    for_each_chunk4_of(
        STEER_CHUNK_ROWS,
        desired_velocity,
        progress_m,
        stalled_s,
        steered_from,
        |first, desired, progress, stalled, steered_from| {
            let rows = first..first + desired.len();
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
            let (max_brake, turn_rate) = (&max_brake[rows.clone()], &turn_rate[rows]);
            let mut tally = [0usize; 4];
            let mut out = Rows {
                desired,
                progress,
                stalled,
                steered_from,
                dt: world.dt,
            };
            let mut waiting = Waiting::default();
            for offset in 0..out.desired.len() {
                let place = places[offset] as usize;
                let me = &movers.get(place);
                let target = drive_to[offset];
                let slowdown = terrain_slowdown(world.map, me.position);
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
                    out.finish(offset, me.position, target, wanted, &mut tally);
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
                // A radius within a cell: the block of cells about the
                // unit's, found from the cell's number alone (the same rows
                // within the radius, in the same order, as the window about
                // its position, without converting the window's sides).
                if by_block {
                    spatial.for_each_block_run(cells[first + offset], |run| {
                        search.consider_run(movers, run, near);
                    });
                } else {
                    spatial.for_each_row_range(rebuilt_at[place], world.avoid_radius, |run| {
                        search.consider_run(movers, run, near);
                    });
                }
                let Some(threat) = search.threat(movers) else {
                    let wanted = apply(Response::Clear, seek, &mut tally);
                    out.finish(offset, me.position, target, wanted, &mut tally);
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
                waiting.rows[waiting.count] = (offset, target);
                waiting.count += 1;
                if waiting.count == LANES {
                    waiting.answer(&mut out, world.map, &mut tally);
                }
            }
            waiting.answer(&mut out, world.map, &mut tally);
            for (count, value) in counts.iter().zip(tally) {
                count.fetch_add(value, Ordering::Relaxed);
            }
        },
    );
    let [arrived, avoiding, stopped, stuck] = counts.map(AtomicUsize::into_inner);
    SteerStats {
        arrived,
        avoiding,
        stopped,
        stuck,
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
    /// Writes row `offset`'s desired velocity, `wanted`, and tracks its
    /// progress from `position` toward `target` (and steers from there
    /// next time); counts arrived units in `tally[0]` and stuck ones in
    /// `tally[3]`.
    #[inline]
    fn finish(
        &mut self,
        offset: usize,
        position: Vec2,
        target: Vec2,
        wanted: Vec2,
        tally: &mut [usize; 4],
    ) {
        self.desired[offset] = wanted;
        let (progress, stalled) = (&mut self.progress[offset], &mut self.stalled[offset]);
        let to_target = target - position;
        let distance = to_target.length();
        if distance <= ARRIVE_RADIUS {
            tally[0] += 1;
            *stalled = 0.0;
            *progress = 0.0;
        } else {
            // Progress is the way made toward the drive-to point, so a
            // member keeping pace behind a moving slot progresses, and one
            // shuttling to and fro, or pushed back as far as it drives,
            // does not.
            let toward = to_target / distance;
            // Floored at 0: way lost (pushed back) is not owed before new
            // way counts.
            *progress = (*progress + (position - self.steered_from[offset]).dot(toward)).max(0.0);
            if *progress >= PROGRESS_STEP_M {
                *progress = 0.0;
                *stalled = 0.0;
            } else {
                *stalled += self.dt;
            }
        }
        if *stalled >= STUCK_AFTER_S {
            tally[3] += 1;
        }
        self.steered_from[offset] = position;
    }
}

/// Units of a chunk with a threat to answer, waiting to be answered four
/// at a time, with their rows and drive-to points.
#[derive(Default)]
struct Waiting {
    questions: [Question; LANES],
    rows: [(usize, Vec2); LANES],
    count: usize,
}

impl Waiting {
    /// Answers the waiting units' threats ([`avoid::respond_lanes`]) and
    /// finishes their rows.
    #[inline]
    fn answer(&mut self, rows: &mut Rows<'_>, map: Option<&WorldMap>, tally: &mut [usize; 4]) {
        if self.count == 0 {
            return;
        }
        let answers = avoid::respond_lanes(&self.questions, self.count);
        for ((question, &(offset, target)), &response) in self
            .questions
            .iter()
            .zip(&self.rows)
            .zip(&answers)
            .take(self.count)
        {
            let (me, seek) = (&question.me, question.steering);
            let wanted = apply(keep_off_walls(response, me, seek, map), seek, tally);
            rows.finish(offset, me.position, target, wanted, tally);
        }
        self.count = 0;
    }
}

/// Eight consecutive values (`eight.len()` must be 8), in the lanes of an
/// `f32x8`: one unaligned load. Shared by the threat search's sift and the
/// `integrate` step.
#[inline]
fn lanes_of(eight: &[f32]) -> wide::f32x8 {
    bytemuck::pod_read_unaligned(bytemuck::cast_slice(eight))
}

/// How much the ground under `position` slows a unit: its cell's cost
/// multiplier (swamp, nebula), at least 1; 1 off the map or with none.
#[inline]
#[must_use]
pub fn terrain_slowdown(map: Option<&WorldMap>, position: Vec2) -> f32 {
    map.and_then(|map| map.grid().cost(map.cell_at(position)?))
        .map_or(1.0, |cost| cost.max(1.0))
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
fn apply(response: Response, seek: Vec2, tally: &mut [usize; 4]) -> Vec2 {
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
