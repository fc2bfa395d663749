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
pub mod dynamics;
pub mod field;
pub mod follow;
pub mod seek;
pub mod turning;
pub mod walls;

use std::sync::atomic::{AtomicUsize, Ordering};

use glam::Vec2;

use crate::nav::WorldMap;
use crate::parallel::for_each_chunk3;
use crate::spatial::SpatialHash;
use crate::vehicles::{ColumnsMut, SteerMode};
use avoid::{Body, Response, ThreatSearch};
use field::{Disc, FieldUnit};

/// Within this distance of its drive-to point a vehicle has arrived
/// (Force 21 §5: 2.5 m).
pub const ARRIVE_RADIUS: f32 = 2.5;
/// A unit that has not driven this far toward its drive-to point (its
/// velocity along the direction to it, summed) in [`STUCK_AFTER_S`] is
/// stuck, metres.
pub const PROGRESS_STEP_M: f32 = 0.5;
/// Seconds without progress before a unit counts as stuck.
pub const STUCK_AFTER_S: f32 = 10.0;

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

/// Writes every unit's desired velocity (the `steering` stage).
pub fn steer_columns(columns: &mut ColumnsMut<'_>, world: SteerWorld<'_>) -> SteerStats {
    let ColumnsMut {
        position,
        velocity,
        heading,
        altitude,
        shield,
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
    let (position, velocity, heading, altitude, shield) =
        (&**position, &**velocity, &**heading, &**altitude, &**shield);
    let (max_speed, cruise_speed, max_brake, turn_rate, drive_to, goal, steer_mode) = (
        &**max_speed,
        &**cruise_speed,
        &**max_brake,
        &**turn_rate,
        &**drive_to,
        &**goal,
        &**steer_mode,
    );
    let body = |unit: usize| Body {
        position: position[unit],
        velocity: velocity[unit],
        heading: heading[unit],
        altitude: altitude[unit],
        shield: shield[unit],
    };
    let counts = [(); 4].map(|()| AtomicUsize::new(0));
    for_each_chunk3(
        desired_velocity,
        progress_m,
        stalled_s,
        |first, desired, progress, stalled| {
            let mut tally = [0usize; 4];
            for offset in 0..desired.len() {
                let unit = first + offset;
                let me = body(unit);
                let target = drive_to[unit];
                let slowdown = terrain_slowdown(world.map, me.position);
                let wanted = if steer_mode[unit] == SteerMode::PotentialField as u8 {
                    let field_unit = FieldUnit {
                        position: me.position,
                        radius: me.shield.x.max(me.shield.y),
                        speed: me.velocity.length(),
                        turn_rate: turn_rate[unit],
                        max_speed: cruise_speed[unit] / slowdown,
                        max_brake: max_brake[unit],
                    };
                    field::field_velocity(&field_unit, target, world.bodies)
                } else {
                    let seek = seek::drive_to_velocity(
                        me.position,
                        target,
                        cruise_speed[unit] / slowdown,
                        max_brake[unit],
                    );
                    let mut search = ThreatSearch::new(me, seek);
                    world.spatial.for_each_neighbour(
                        unit as u32,
                        world.avoid_radius,
                        |other, _| search.consider(&body(other as usize)),
                    );
                    let destination = (target == goal[unit]).then_some(target);
                    let response =
                        avoid::respond(&me, seek, destination, max_speed[unit], search.threat());
                    let response = keep_off_walls(response, &me, seek, world.map);
                    apply(response, seek, &mut tally)
                };
                desired[offset] = wanted;
                let distance = me.position.distance(target);
                if distance <= ARRIVE_RADIUS {
                    tally[0] += 1;
                    stalled[offset] = 0.0;
                    progress[offset] = 0.0;
                } else {
                    // Progress is the way made toward the drive-to point,
                    // so a member keeping pace behind a moving slot
                    // progresses, and one shuttling to and fro, or pushed
                    // back as far as it drives, does not.
                    let toward = (target - me.position) / distance;
                    // Floored at 0: way lost (pushed back) is not owed
                    // before new way counts.
                    progress[offset] = (progress[offset]
                        + (me.position - steered_from[unit]).dot(toward))
                    .max(0.0);
                    if progress[offset] >= PROGRESS_STEP_M {
                        progress[offset] = 0.0;
                        stalled[offset] = 0.0;
                    } else {
                        stalled[offset] += world.dt;
                    }
                }
                if stalled[offset] >= STUCK_AFTER_S {
                    tally[3] += 1;
                }
            }
            for (count, value) in counts.iter().zip(tally) {
                count.fetch_add(value, Ordering::Relaxed);
            }
        },
    );
    steered_from.copy_from_slice(position);
    let [arrived, avoiding, stopped, stuck] = counts.map(AtomicUsize::into_inner);
    SteerStats {
        arrived,
        avoiding,
        stopped,
        stuck,
    }
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
fn keep_off_walls(response: Response, me: &Body, seek: Vec2, map: Option<&WorldMap>) -> Response {
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
