//! Vehicle dynamics: the `integrate` stage.
//!
//! Each unit has a heading and a signed speed along it (it never slides
//! sideways); steering asks for a desired velocity, and the unit answers as
//! its kind can (Van Verth et al., "Formation-Based Pathfinding With
//! Real-World Vehicles", Force 21, §5 "Desired heading and velocity"). The
//! paper compares three directions — desired velocity, desired (final)
//! heading, current heading — "the same direction" meaning within 90° of
//! each other, and finds four cases:
//!
//! 1. all roughly the same: drive forward, turning gradually;
//! 2. goal behind, to be faced: tracked and rotary-wing vehicles turn in
//!    place; wheeled vehicles back up while turning (the three-point turn);
//! 3. goal behind, facing kept: back straight up to it when it is close
//!    (and, on the ground, within 45° of straight behind), otherwise as
//!    case 2. "Facing
//!    kept" is judged on the heading backing up ends with, not the current
//!    one, which the backing turn itself moves;
//! 4. goal ahead, to be faced away from: drive there, then turn in place on
//!    arrival — wheeled vehicles cannot, and keep the wrong facing, as the
//!    paper accepts.
//!
//! A vehicle that turns only while it moves never drives a goal ahead at
//! less than the cosine of 75° of the speed asked for: at the cosine of
//! 90° it would stand and never turn. A goal more than 75° off and inside
//! a wheeled vehicle's turning circle counts as behind: driving forward
//! would circle it for ever.
//!
//! Limits come from the unit's columns: top speed, acceleration, braking,
//! yaw rate, and for kinds that cannot turn in place a minimum turn radius
//! (so the yaw rate is at most `|speed| / radius`, and zero when stopped).
//! Integration is semi-implicit Euler: speed and heading first, then the
//! position with the new velocity.

use std::f32::consts::PI;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use glam::Vec2;
use wide::f32x8;

use super::drive_lanes::{LimitLanes, MotionLanes, drive_lanes};
use super::motion::{
    KEEP_BACKING_COS, Limits, Motion, REVERSE_SPEED_FRACTION, SHORT_REVERSE_FRACTION,
    SQUARE_OFF_COS, STOPPED_SPEED, TURN_FIRST_ANGLE,
};
use super::walls;
use crate::data::unit_limits::{MAX_COORDINATE, clamp_to_map};
use crate::geometry::angles::wrap_angle;
use crate::geometry::angles;
use crate::geometry::lanes::lanes_of;
use crate::nav::ClassMaps;
use crate::parallel::for_each_chunk3_of;
use crate::data::vehicles::{ColumnsMut, Handling, VehicleKind};

/// Speeds are summed in this fixed point for the quality report, so the sum
/// is exact and the same with any number of threads.
pub const SPEED_FRACTION_SCALE: f32 = 65_536.0;

/// What the unit aims for this tick: a signed speed along a heading.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Aim {
    speed: f32,
    heading: f32,
}

/// Chooses the aim from the four cases of Force 21 §5; `forward` is the
/// unit vector along `motion.heading`.
#[inline]
fn aim(motion: &Motion, forward: Vec2, desired: Vec2, final_heading: f32, limits: &Limits) -> Aim {
    let handling = limits.handling;
    let want_speed = desired.length();
    if want_speed.is_nan() || want_speed <= STOPPED_SPEED {
        // Arrived (or told to stop): stop, then turn-in-place kinds face
        // the ordered final heading.
        let stopped = motion.velocity.length() < STOPPED_SPEED;
        let heading = if handling.turns_in_place && stopped && final_heading.is_finite() {
            final_heading
        } else {
            motion.heading
        };
        return Aim {
            speed: 0.0,
            heading,
        };
    }
    let want_heading = angles::atan2(desired.y, desired.x);
    let along = desired.dot(forward);
    // The cosine of the angle off the heading, without trigonometry.
    let cos_off = along / want_speed;
    let backing = motion.velocity.dot(forward) < 0.0;
    if along >= 0.0 && !inside_turning_circle(desired, forward, cos_off, backing, limits) {
        // Cases 1 and 4 (goal ahead): forward, slowing for sharp turns; a
        // unit that turns only while it moves keeps moving to turn.
        let speed = if handling.turns_in_place {
            if cos_off < TURN_FIRST_ANGLE.cos() { 0.0 } else { want_speed * cos_off }
        } else {
            want_speed * cos_off.max(SQUARE_OFF_COS)
        };
        return Aim {
            speed,
            heading: want_heading,
        };
    }
    let reverse_top = limits.max_speed * REVERSE_SPEED_FRACTION;
    // Case 3 is judged on the heading backing up ends with: judged on the
    // current one, which the backing turn moves, a unit at the threshold
    // flips between backing and turning every tick and never moves.
    let back_heading = wrap_angle(want_heading + PI);
    // The polynomial cosine, as everywhere here: the same bits on every
    // platform.
    let back = angles::direction(back_heading);
    // With no facing ordered, the facing wanted is toward the goal, which
    // backing up never keeps.
    let facing_kept =
        || final_heading.is_finite() && angles::direction(final_heading).dot(back) >= 0.0;
    // On the ground, a goal well off straight behind is turned to (case
    // 2): a car backing at the cosine of a wide angle barely moves, and
    // turns no faster than it moves; a tank backing and turning at once
    // jams with its neighbours. Helicopters back at any angle.
    let nearly_behind = handling.flies || back.dot(forward) >= TURN_FIRST_ANGLE.cos();
    if handling.reverses
        && want_speed < SHORT_REVERSE_FRACTION * limits.max_speed
        && nearly_behind
        && facing_kept()
    {
        // Case 3, close goal: back straight up to it.
        let off = wrap_angle(back_heading - motion.heading);
        return Aim {
            speed: -want_speed.min(reverse_top) * angles::direction(off).x.max(0.0),
            heading: back_heading,
        };
    }
    // Case 2, and case 3 far away: turn toward the goal.
    let speed = if handling.turns_in_place {
        0.0
    } else if handling.reverses {
        // The three-point turn: back up, wheels turned toward the goal.
        -reverse_top
    } else {
        // Neither: a wide forward arc.
        0.5 * want_speed
    };
    Aim {
        speed,
        heading: want_heading,
    }
}

/// Whether a car's goal, nearly square to its heading, lies inside its
/// turning circle, where driving forward never reaches it: near its goal
/// the seek rule asks for half the distance ([`crate::geometry::seek`]),
/// so the goal is about `2·v` away, inside the circle when
/// `2·v < 2·r·sin(off)`, that is `v² < r·|desired × forward|`. Such a car
/// backs up as in case 2; one already backing keeps on until the goal is
/// within 60° of its heading ([`KEEP_BACKING_COS`]), so it does not
/// chatter between gears at the threshold.
#[inline]
fn inside_turning_circle(
    desired: Vec2,
    forward: Vec2,
    cos_off: f32,
    backing: bool,
    limits: &Limits,
) -> bool {
    let handling = limits.handling;
    let square_off = if backing { KEEP_BACKING_COS } else { SQUARE_OFF_COS };
    !handling.turns_in_place
        && handling.reverses
        && cos_off < square_off
        && desired.length_squared() < limits.turn_radius * desired.perp_dot(forward).abs()
}

/// Advances one unit by `dt` toward `desired` velocity within its limits.
#[must_use]
#[inline]
pub fn drive(
    motion: Motion,
    desired: Vec2,
    final_heading: f32,
    limits: &Limits,
    dt: f32,
) -> Motion {
    let forward = angles::direction(motion.heading);
    let aim = aim(&motion, forward, desired, final_heading, limits);
    let speed = motion.velocity.dot(forward);
    let target = aim
        .speed
        .clamp(-limits.max_speed * REVERSE_SPEED_FRACTION, limits.max_speed);
    let speeding_up = target.abs() > speed.abs() && target * speed >= 0.0;
    let rate = if speeding_up {
        limits.max_accel
    } else {
        limits.max_brake
    };
    let new_speed = speed + (target - speed).clamp(-rate * dt, rate * dt);
    let mut yaw_limit = limits.turn_rate;
    if !limits.handling.turns_in_place && limits.turn_radius > 0.0 {
        yaw_limit = yaw_limit.min(new_speed.abs() / limits.turn_radius);
    }
    let turn = wrap_angle(aim.heading - motion.heading).clamp(-yaw_limit * dt, yaw_limit * dt);
    let heading = wrap_angle(motion.heading + turn);
    // Cruising straight (the common case) keeps the direction it has.
    let direction = if turn == 0.0 {
        forward
    } else {
        angles::direction(heading)
    };
    let velocity = direction * new_speed;
    Motion {
        position: motion.position + velocity * dt,
        velocity,
        heading,
    }
}

/// What the integrate pass counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntegrateStats {
    /// Units moving after the step.
    pub moving: usize,
    /// Units steering asked to move (desired velocity not zero).
    pub driving: usize,
    /// Sum over driving units of `|velocity| / max_speed`, in units of
    /// 1 / [`SPEED_FRACTION_SCALE`].
    pub speed_fraction_sum: u64,
    /// Ground units whose step a wall cut short.
    pub walled: usize,
}

/// Each `kind` column value's handling, unknown values handled as
/// [`VehicleKind::Tracked`]: one load per unit instead of a match.
const HANDLING_BY_KIND: [Handling; 256] = {
    let mut table = [VehicleKind::Tracked.handling(); 256];
    let mut kind = 0;
    while kind < VehicleKind::ALL.len() {
        table[kind] = VehicleKind::ALL[kind].handling();
        kind += 1;
    }
    table
};

/// Advances every unit by `dt` seconds (the `integrate` stage), counting as
/// it goes; on a map, the walls of its mobility class's map stop a ground
/// unit ([`super::walls`]).
pub fn integrate_columns(
    columns: &mut ColumnsMut<'_>,
    maps: ClassMaps<'_>,
    dt: f32,
) -> IntegrateStats {
    assert!(
        dt > 0.0 && dt.is_finite(),
        "dt must be positive and finite, was {dt}"
    );
    let desired = &*columns.desired_velocity;
    let final_heading = &*columns.final_heading;
    let kind = &*columns.kind;
    let (max_speed, max_accel, max_brake) = (
        &*columns.max_speed,
        &*columns.max_accel,
        &*columns.max_brake,
    );
    let (turn_rate, turn_radius) = (&*columns.turn_rate, &*columns.turn_radius);
    let (altitude, mobility) = (&*columns.altitude, &*columns.mobility);
    let (moving, driving) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let walled = AtomicUsize::new(0);
    let speed_fraction_sum = AtomicU64::new(0);
    for_each_chunk3_of(
        crate::parallel::STEER_CHUNK_ROWS,
        columns.position,
        columns.velocity,
        columns.heading,
        |first, positions, velocities, headings| {
            let rows = first..first + positions.len();
            let inputs = ChunkInputs {
                desired: &desired[rows.clone()],
                final_heading: &final_heading[rows.clone()],
                kind: &kind[rows.clone()],
                max_speed: &max_speed[rows.clone()],
                max_accel: &max_accel[rows.clone()],
                max_brake: &max_brake[rows.clone()],
                turn_rate: &turn_rate[rows.clone()],
                turn_radius: &turn_radius[rows.clone()],
            };
            let (altitude, mobility) = (&altitude[rows.clone()], &mobility[rows]);
            let mut tally = IntegrateStats::default();
            let grouped = positions.len() - positions.len() % LANES;
            for start in (0..grouped).step_by(LANES) {
                let before = MotionLanes::load(positions, velocities, headings, start);
                let mut next = inputs
                    .drive_group(start, &before, dt)
                    .unwrap_or_else(|| inputs.drive_each(start, &before, dt));
                if maps.base().is_some() {
                    let (from, mut steps) = (before.rows(), next.rows());
                    let mut cut_short = 0;
                    for (lane, step) in steps.iter_mut().enumerate() {
                        let row = start + lane;
                        if let Some(map) = maps.of(mobility[row]).filter(|_| altitude[row] <= 0.0) {
                            let from = from[lane].position;
                            cut_short += usize::from(walls::stop_at_wall(map, from, step));
                        }
                    }
                    // Back into lanes only if a wall cut a step short.
                    if cut_short > 0 {
                        tally.walled += cut_short;
                        next = MotionLanes::from_rows(&steps);
                    }
                }
                next.store(positions, velocities, headings, start);
                tally.count_lanes(&next, &inputs, start);
            }
            for offset in grouped..positions.len() {
                let motion = Motion {
                    position: positions[offset],
                    velocity: velocities[offset],
                    heading: headings[offset],
                };
                let mut next = inputs.drive_one(offset, motion, dt);
                if let Some(map) = maps.of(mobility[offset]).filter(|_| altitude[offset] <= 0.0) {
                    tally.walled +=
                        usize::from(walls::stop_at_wall(map, motion.position, &mut next));
                }
                positions[offset] = clamp_to_map(next.position);
                velocities[offset] = next.velocity;
                headings[offset] = next.heading;
                tally.count(
                    next.velocity,
                    inputs.desired[offset],
                    inputs.max_speed[offset],
                );
            }
            // Integer sums: the same totals whichever thread adds first.
            moving.fetch_add(tally.moving, Ordering::Relaxed);
            driving.fetch_add(tally.driving, Ordering::Relaxed);
            speed_fraction_sum.fetch_add(tally.speed_fraction_sum, Ordering::Relaxed);
            walled.fetch_add(tally.walled, Ordering::Relaxed);
        },
    );
    IntegrateStats {
        moving: moving.into_inner(),
        driving: driving.into_inner(),
        speed_fraction_sum: speed_fraction_sum.into_inner(),
        walled: walled.into_inner(),
    }
}

/// Units driven at once ([`drive_lanes`]): the lanes of an [`f32x8`].
const LANES: usize = 8;

/// One chunk's read-only columns, as the integrate step reads them.
struct ChunkInputs<'a> {
    desired: &'a [Vec2],
    final_heading: &'a [f32],
    kind: &'a [u8],
    max_speed: &'a [f32],
    max_accel: &'a [f32],
    max_brake: &'a [f32],
    turn_rate: &'a [f32],
    turn_radius: &'a [f32],
}

impl ChunkInputs<'_> {
    /// Row `offset`'s limits.
    #[inline]
    fn limits(&self, offset: usize) -> Limits {
        Limits {
            handling: HANDLING_BY_KIND[usize::from(self.kind[offset])],
            max_speed: self.max_speed[offset],
            max_accel: self.max_accel[offset],
            max_brake: self.max_brake[offset],
            turn_rate: self.turn_rate[offset],
            turn_radius: self.turn_radius[offset],
        }
    }

    /// Row `offset`, in `motion`, driven by `dt`.
    #[inline]
    fn drive_one(&self, offset: usize, motion: Motion, dt: f32) -> Motion {
        let limits = self.limits(offset);
        drive(
            motion,
            self.desired[offset],
            self.final_heading[offset],
            &limits,
            dt,
        )
    }

    /// Rows `start..start + 8`, in `motion`, driven by `dt` in SIMD lanes;
    /// `None` for a group [`drive_lanes`] refuses.
    #[inline]
    fn drive_group(&self, start: usize, motion: &MotionLanes, dt: f32) -> Option<MotionLanes> {
        let column = |values: &[f32]| lanes_of(&values[start..start + LANES]);
        let handling = |flag: fn(&Handling) -> bool| {
            let flags: [f32; LANES] = std::array::from_fn(|lane| {
                let handling = &HANDLING_BY_KIND[usize::from(self.kind[start + lane])];
                f32::from(u8::from(flag(handling)))
            });
            f32x8::new(flags).simd_ne(f32x8::ZERO)
        };
        let limits = LimitLanes {
            turns_in_place: handling(|handling| handling.turns_in_place),
            reverses: handling(|handling| handling.reverses),
            flies: handling(|handling| handling.flies),
            max_speed: column(self.max_speed),
            max_accel: column(self.max_accel),
            max_brake: column(self.max_brake),
            turn_rate: column(self.turn_rate),
            turn_radius: column(self.turn_radius),
        };
        let desired = split(&self.desired[start..start + LANES]);
        drive_lanes(motion, desired, column(self.final_heading), &limits, dt)
    }

    /// Rows `start..start + 8`, in `motion`, driven by `dt` one at a time.
    fn drive_each(&self, start: usize, motion: &MotionLanes, dt: f32) -> MotionLanes {
        let mut rows = motion.rows();
        for (lane, row) in rows.iter_mut().enumerate() {
            *row = self.drive_one(start + lane, *row, dt);
        }
        MotionLanes::from_rows(&rows)
    }
}

/// Eight vectors' x and y lanes.
#[inline]
fn split(eight: &[Vec2]) -> (f32x8, f32x8) {
    (
        f32x8::new(std::array::from_fn(|lane| eight[lane].x)),
        f32x8::new(std::array::from_fn(|lane| eight[lane].y)),
    )
}

impl MotionLanes {
    /// Rows `start..start + 8` of the motion columns.
    #[inline]
    fn load(positions: &[Vec2], velocities: &[Vec2], headings: &[f32], start: usize) -> Self {
        let rows = start..start + LANES;
        let ((x, y), (vx, vy)) = (
            split(&positions[rows.clone()]),
            split(&velocities[rows.clone()]),
        );
        MotionLanes {
            x,
            y,
            vx,
            vy,
            heading: lanes_of(&headings[rows]),
        }
    }

    /// Writes the eight units to rows `start..start + 8` of the columns,
    /// positions clamped to the coordinate limit ([`clamp_to_map`]).
    #[inline]
    fn store(
        &self,
        positions: &mut [Vec2],
        velocities: &mut [Vec2],
        headings: &mut [f32],
        start: usize,
    ) {
        let limit = f32x8::splat(MAX_COORDINATE);
        let within = |v: f32x8| v.max(-limit).min(limit);
        let [x, y, vx, vy] = [within(self.x), within(self.y), self.vx, self.vy].map(f32x8::to_array);
        for lane in 0..LANES {
            positions[start + lane] = Vec2::new(x[lane], y[lane]);
            velocities[start + lane] = Vec2::new(vx[lane], vy[lane]);
        }
        headings[start..start + LANES].copy_from_slice(&self.heading.to_array());
    }

    /// The eight units, one a row.
    #[inline]
    fn rows(&self) -> [Motion; LANES] {
        let [x, y, vx, vy, heading] =
            [self.x, self.y, self.vx, self.vy, self.heading].map(f32x8::to_array);
        std::array::from_fn(|lane| Motion {
            position: Vec2::new(x[lane], y[lane]),
            velocity: Vec2::new(vx[lane], vy[lane]),
            heading: heading[lane],
        })
    }

    /// Eight units, one a lane.
    #[inline]
    fn from_rows(rows: &[Motion; LANES]) -> Self {
        let lanes = |field: fn(&Motion) -> f32| f32x8::new(rows.map(|row| field(&row)));
        MotionLanes {
            x: lanes(|row| row.position.x),
            y: lanes(|row| row.position.y),
            vx: lanes(|row| row.velocity.x),
            vy: lanes(|row| row.velocity.y),
            heading: lanes(|row| row.heading),
        }
    }
}

impl IntegrateStats {
    /// Counts one unit that moved at `velocity`, asked for `desired`.
    #[inline]
    fn count(&mut self, velocity: Vec2, desired: Vec2, max_speed: f32) {
        self.moving += usize::from(velocity != Vec2::ZERO);
        if desired != Vec2::ZERO {
            self.driving += 1;
            let fraction = (velocity.length() / max_speed).min(1.0);
            self.speed_fraction_sum += (fraction * SPEED_FRACTION_SCALE) as u64;
        }
    }

    /// [`IntegrateStats::count`] for rows `start..start + 8`, moved to
    /// `next`: the same sums.
    #[inline]
    fn count_lanes(&mut self, next: &MotionLanes, inputs: &ChunkInputs<'_>, start: usize) {
        let moving = next.vx.simd_ne(f32x8::ZERO) | next.vy.simd_ne(f32x8::ZERO);
        self.moving += moving.to_bitmask().count_ones() as usize;
        let (desired_x, desired_y) = split(&inputs.desired[start..start + LANES]);
        let driving = desired_x.simd_ne(f32x8::ZERO) | desired_y.simd_ne(f32x8::ZERO);
        self.driving += driving.to_bitmask().count_ones() as usize;
        let speed = (next.vx * next.vx + next.vy * next.vy).sqrt();
        let fraction = speed / lanes_of(&inputs.max_speed[start..start + LANES]);
        // `f32::min(fraction, 1.0)`: 1 for NaN.
        let fraction = fraction.simd_lt(f32x8::ONE).select(fraction, f32x8::ONE);
        let scaled = driving.select(fraction * SPEED_FRACTION_SCALE, f32x8::ZERO);
        // Each lane in 0..=SPEED_FRACTION_SCALE, so truncating is `as u64`
        // and the float sum of eight whole numbers is exact.
        self.speed_fraction_sum += scaled.trunc().to_array().iter().sum::<f32>() as u64;
    }
}
