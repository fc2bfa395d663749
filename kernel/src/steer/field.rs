//! Potential-field steering around moving bodies (the swarm-style steering
//! of the blog post in `seeds/002`: "the obstacles are negatively charged
//! and try to push the ball away, while the finish is positively charged
//! and tries to reel the ball in").
//!
//! The target pulls with a unit vector; every body whose surface is within
//! three unit radii pushes along the line from its centre with weight
//! `1 / gap`; the pull is scaled by `max(1, 4 · pushing bodies)` so it can
//! still draw the unit past a crowd; the sum's direction times the
//! drive-to speed is the desired velocity. Bodies move along ellipses
//! ([`OrbitingBody`]), so the field needs no path and no replanning.

use std::f64::consts::TAU;

use glam::Vec2;
use serde::Deserialize;

use super::seek::drive_to_velocity;

/// Bodies push when the gap to their surface is under this many unit radii.
pub const PUSH_RANGE_RADII: f32 = 3.0;
/// The pull is multiplied by this per pushing body (the post's 4).
const PULL_PER_CONTENDER: f32 = 4.0;
/// Smallest gap used as a weight divisor, metres (no division by zero).
const MIN_GAP: f32 = 1e-4;

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
        let angle = f64::from(self.phase) + TAU * time / f64::from(self.period_s);
        let along = Vec2::new(
            self.semi_axes[0] * angle.cos() as f32,
            self.semi_axes[1] * angle.sin() as f32,
        );
        Vec2::from(self.centre) + Vec2::from_angle(self.tilt).rotate(along)
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

/// A body's centre and radius at this tick.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Disc {
    /// Centre, metres.
    pub centre: Vec2,
    /// Radius, metres.
    pub radius: f32,
}

/// The desired velocity of a unit of `unit_radius` at `position` steering by
/// potential field toward `target` among `bodies`.
#[must_use]
pub fn field_velocity(
    position: Vec2,
    target: Vec2,
    unit_radius: f32,
    max_speed: f32,
    max_brake: f32,
    bodies: &[Disc],
) -> Vec2 {
    let seek = drive_to_velocity(position, target, max_speed, max_brake);
    let speed = seek.length();
    if speed == 0.0 {
        return Vec2::ZERO;
    }
    let mut push = Vec2::ZERO;
    let mut contenders = 0u32;
    for body in bodies {
        let away = position - body.centre;
        let gap = away.length() - body.radius - unit_radius;
        if gap < PUSH_RANGE_RADII * unit_radius {
            contenders += 1;
            push += away / gap.max(MIN_GAP);
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
            tilt: std::f32::consts::FRAC_PI_2,
            period_s: 40.0,
            phase: 0.0,
            radius: 5.0,
        };
        // t = 0: along the tilted x axis; a quarter period on: along its y.
        assert!((body.position_at(0.0) - Vec2::new(100.0, -20.0)).length() < 1e-3);
        assert!((body.position_at(10.0) - Vec2::new(90.0, -50.0)).length() < 1e-3);
        // Every position satisfies the ellipse's implicit equation.
        for step in 0..50 {
            let local = Vec2::from_angle(-body.tilt)
                .rotate(body.position_at(f64::from(step) * 1.7) - Vec2::from(body.centre));
            let implicit = (local.x / 30.0).powi(2) + (local.y / 10.0).powi(2);
            assert!((implicit - 1.0).abs() < 1e-3, "{implicit}");
        }
    }

    #[test]
    fn with_no_body_near_the_field_is_plain_drive_to() {
        let far = [Disc {
            centre: Vec2::new(0.0, 1000.0),
            radius: 10.0,
        }];
        let position = Vec2::ZERO;
        let target = Vec2::new(100.0, 0.0);
        let field = field_velocity(position, target, 2.0, 10.0, 5.0, &far);
        let seek = drive_to_velocity(position, target, 10.0, 5.0);
        assert!((field - seek).length() < 1e-5);
    }

    #[test]
    fn a_body_in_the_way_deflects_the_unit_around_it() {
        let body = [Disc {
            centre: Vec2::new(10.0, 0.5),
            radius: 3.0,
        }];
        let velocity = field_velocity(Vec2::ZERO, Vec2::new(100.0, 0.0), 2.0, 10.0, 5.0, &body);
        // The body sits slightly left of the line: the unit veers right.
        assert!(velocity.y < 0.0, "{velocity}");
        assert!((velocity.length() - 10.0).abs() < 1e-4);
    }
}
