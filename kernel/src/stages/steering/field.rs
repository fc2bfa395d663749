//! Potential-field steering around moving bodies (the swarm-style steering
//! of the blog post in `seeds/002`: "the obstacles are negatively charged
//! and try to push the ball away, while the finish is positively charged
//! and tries to reel the ball in").
//!
//! The target pulls with a unit vector; every body whose surface is within
//! three unit radii (plus the unit's quarter-turn distance, see
//! [`FieldUnit::push_range`]) pushes along the line from its centre with
//! weight `range / gap` (the post's `|offset| / gap`, scaled by the push
//! range instead of the centre distance so fast ships feel bodies as early
//! as slow ones do); the pull is scaled by `max(1, 4 · pushing bodies)` so it can
//! still draw the unit past a crowd; the sum's direction times the
//! drive-to speed is the desired velocity. Bodies move along ellipses
//! ([`OrbitingBody`]), so the field needs no path and no replanning; one
//! addition to the post, for moving bodies: each pushes from where it is
//! nearer the unit, now or [`LOOKAHEAD_S`] ahead on its orbit.

use std::f32::consts::FRAC_PI_2;
use std::f64::consts::TAU;

use glam::Vec2;
use serde::Deserialize;

use crate::geometry::seek::drive_to_velocity;

/// Bodies push when the gap to their surface is under this many unit radii.
pub const PUSH_RANGE_RADII: f32 = 3.0;
/// The pull is multiplied by this per pushing body (the post's 4).
const PULL_PER_CONTENDER: f32 = 4.0;
/// Smallest gap used as a weight divisor, metres (no division by zero).
const MIN_GAP: f32 = 1e-4;
/// A body pushes from wherever it is nearer the unit: now, or this many
/// seconds ahead along its orbit (the post's bodies are static in effect;
/// a fast planet would otherwise run a slow-turning ship over).
pub const LOOKAHEAD_S: f32 = 3.0;

/// A round body moving along an ellipse: a planet around its sun, a
/// patrolling fleet.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrbitingBody {
    /// Centre of the orbit, metres.
    pub centre: [f32; 2],
    /// Semi-axes of the orbit (along its own x and y), metres (≥ 0).
    pub semi_axes: [f32; 2],
    /// Rotation of the orbit's x axis from the world's, radians.
    #[serde(default)]
    pub tilt: f32,
    /// Seconds per revolution (> 0); negative runs clockwise.
    pub period_s: f32,
    /// Angle along the orbit at time 0, radians.
    #[serde(default)]
    pub phase: f32,
    /// The body's radius, metres (> 0).
    pub radius: f32,
}

impl OrbitingBody {
    /// Where the body's centre is at `time` seconds.
    #[must_use]
    pub fn position_at(&self, time: f64) -> Vec2 {
        let (sin, cos) = self.angle_at(time).sin_cos();
        let along = Vec2::new(
            self.semi_axes[0] * cos as f32,
            self.semi_axes[1] * sin as f32,
        );
        Vec2::from(self.centre) + Vec2::from_angle(self.tilt).rotate(along)
    }

    /// The body's velocity at `time` seconds (the ellipse's derivative).
    #[must_use]
    pub fn velocity_at(&self, time: f64) -> Vec2 {
        let (sin, cos) = self.angle_at(time).sin_cos();
        let rate = (TAU / f64::from(self.period_s)) as f32;
        let along = Vec2::new(
            -self.semi_axes[0] * sin as f32,
            self.semi_axes[1] * cos as f32,
        ) * rate;
        Vec2::from_angle(self.tilt).rotate(along)
    }

    /// Where the body is at `time`, as a disc.
    #[must_use]
    pub fn disc_at(&self, time: f64) -> Disc {
        Disc {
            centre: self.position_at(time),
            velocity: self.velocity_at(time),
            radius: self.radius,
        }
    }

    fn angle_at(&self, time: f64) -> f64 {
        f64::from(self.phase) + TAU * time / f64::from(self.period_s)
    }

    /// The first invalid field, as `(key, reason)`.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let finite = self
            .centre
            .iter()
            .chain(&self.semi_axes)
            .all(|v| v.is_finite())
            && self.tilt.is_finite()
            && self.phase.is_finite();
        if !finite {
            return Err(("centre", "coordinates and angles must be finite".into()));
        }
        if self.semi_axes.iter().any(|&axis| axis < 0.0) {
            return Err(("semi_axes", "must not be negative".into()));
        }
        if !(self.period_s.is_finite() && self.period_s != 0.0) {
            return Err((
                "period_s",
                format!("must be finite and not 0, was {}", self.period_s),
            ));
        }
        if !(self.radius.is_finite() && self.radius > 0.0) {
            return Err((
                "radius",
                format!("must be greater than 0, was {}", self.radius),
            ));
        }
        Ok(())
    }
}

/// A body's centre, velocity and radius at this tick.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Disc {
    /// Centre, metres.
    pub centre: Vec2,
    /// Velocity, metres per second.
    pub velocity: Vec2,
    /// Radius, metres.
    pub radius: f32,
}

/// One unit as the field sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldUnit {
    /// Ground-plane position, metres.
    pub position: Vec2,
    /// Its radius (largest shield semi-axis), metres.
    pub radius: f32,
    /// Its current speed, m/s.
    pub speed: f32,
    /// Its yaw rate limit, rad/s.
    pub turn_rate: f32,
    /// Top speed, m/s.
    pub max_speed: f32,
    /// Braking limit, m/s².
    pub max_brake: f32,
}

impl FieldUnit {
    /// Bodies push within this gap: the post's three radii, plus the ground
    /// the unit covers while turning a quarter circle (a fast ship that
    /// turns slowly must start turning away earlier).
    #[must_use]
    pub fn push_range(&self) -> f32 {
        PUSH_RANGE_RADII * self.radius + self.speed * FRAC_PI_2 / self.turn_rate
    }
}

/// The desired velocity of `unit` steering by potential field toward
/// `target` among `bodies`.
#[must_use]
pub fn field_velocity(unit: &FieldUnit, target: Vec2, bodies: &[Disc]) -> Vec2 {
    let seek = drive_to_velocity(unit.position, target, unit.max_speed, unit.max_brake);
    let speed = seek.length();
    if speed == 0.0 {
        return Vec2::ZERO;
    }
    let range = unit.push_range();
    let mut push = Vec2::ZERO;
    let mut contenders = 0u32;
    for body in bodies {
        let now = unit.position - body.centre;
        let ahead = now - body.velocity * LOOKAHEAD_S;
        let away = if ahead.length_squared() < now.length_squared() {
            ahead
        } else {
            now
        };
        let gap = away.length() - body.radius - unit.radius;
        if gap < range {
            contenders += 1;
            push += away.normalize_or_zero() * (range / gap.max(MIN_GAP));
        }
    }
    let pull = seek / speed * (PULL_PER_CONTENDER * contenders as f32).max(1.0);
    (pull + push).normalize_or_zero() * speed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orbit_positions_follow_the_ellipse() {
        let body = OrbitingBody {
            centre: [100.0, -50.0],
            semi_axes: [30.0, 10.0],
            tilt: FRAC_PI_2,
            period_s: 40.0,
            phase: 0.0,
            radius: 5.0,
        };
        // t = 0: along the tilted x axis; a quarter period on: along its y.
        assert!((body.position_at(0.0) - Vec2::new(100.0, -20.0)).length() < 1e-3);
        assert!((body.position_at(10.0) - Vec2::new(90.0, -50.0)).length() < 1e-3);
        // The velocity is the position's derivative.
        let step = 1e-2;
        let numeric =
            (body.position_at(7.0 + step) - body.position_at(7.0 - step)) / (2.0 * step as f32);
        assert!(
            (numeric - body.velocity_at(7.0)).length() < 1e-2,
            "{numeric}"
        );
        // Every position satisfies the ellipse's implicit equation.
        for step in 0..50 {
            let local = Vec2::from_angle(-body.tilt)
                .rotate(body.position_at(f64::from(step) * 1.7) - Vec2::from(body.centre));
            let implicit = (local.x / 30.0).powi(2) + (local.y / 10.0).powi(2);
            assert!((implicit - 1.0).abs() < 1e-3, "{implicit}");
        }
    }

    fn unit(position: Vec2) -> FieldUnit {
        FieldUnit {
            position,
            radius: 2.0,
            speed: 0.0,
            turn_rate: 1.0,
            max_speed: 10.0,
            max_brake: 5.0,
        }
    }

    #[test]
    fn with_no_body_near_the_field_is_plain_drive_to() {
        let far = [Disc {
            centre: Vec2::new(0.0, 1000.0),
            velocity: Vec2::ZERO,
            radius: 10.0,
        }];
        let position = Vec2::ZERO;
        let target = Vec2::new(100.0, 0.0);
        let field = field_velocity(&unit(position), target, &far);
        let seek = drive_to_velocity(position, target, 10.0, 5.0);
        assert!((field - seek).length() < 1e-5);
    }

    #[test]
    fn a_body_in_the_way_deflects_the_unit_around_it() {
        let body = [Disc {
            centre: Vec2::new(10.0, 0.5),
            velocity: Vec2::ZERO,
            radius: 3.0,
        }];
        let velocity = field_velocity(&unit(Vec2::ZERO), Vec2::new(100.0, 0.0), &body);
        // The body sits slightly left of the line: the unit veers right.
        assert!(velocity.y < 0.0, "{velocity}");
        assert!((velocity.length() - 10.0).abs() < 1e-4);
    }
}
