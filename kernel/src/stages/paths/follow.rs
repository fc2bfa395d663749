//! Wheeled units follow their route's turning-radius curve.
//!
//! Smith, "Polygon Soup for the Programmer's Soul: 3D Pathfinding" (GDC
//! 2002), section "Vehicles": a vehicle with a minimum turn radius drives a
//! path whose corners are arcs of its turning circle ([`crate::geometry::turning`]).
//! The `paths` stage's follow pass does it one corner at a time, without
//! building the whole [`crate::geometry::turning::TurningPath`] and without any state
//! beyond the unit's route, its start and the index of the corner it is
//! turning (`route_next`):
//!
//! 1. The corner's piece of the curve — straight in, arc, straight out —
//!    comes from the corner and its two neighbours each side
//!    ([`CornerCurve::around`], the same joins as the whole path, at
//!    [`following_radius`]: a quarter wider than the vehicle's minimum).
//! 2. The unit finds the nearest point of that piece; once it is nearest
//!    the straight out, it has left the arc and turns the next corner.
//! 3. Far from the arc it drives for the arc's start at full speed. Closer,
//!    it brakes (with half its brakes) for the arc speed — the fastest at
//!    which its yaw rate still allows its minimum radius — and aims at a
//!    point a little ahead on the curve (pure pursuit); the drive-to point
//!    is put along that aim as far out as makes the drive-to seek ask for
//!    the wanted speed ([`distance_for_speed`]).
//!
//! As the article warns, the curve may leave the polyline's corridor. On a
//! grid map the unit keeps to the curve only while the curve one second ahead
//! (or the arc's start) is in sight; otherwise the caller falls back to
//! driving for the corner.

use glam::Vec2;

use crate::geometry::seek::distance_for_speed;
use crate::geometry::turning::{CornerCurve, CurvePosition, following_radius};
use crate::nav::WorldMap;

/// The pursuit point is this fraction of the curve's radius ahead of the
/// unit's nearest point on the curve: short enough to cut an arc by a few
/// percent of its radius, long enough to be several ticks of travel.
const AIM_AHEAD: f32 = 0.3;
/// The curve must be in sight this many seconds of travel ahead.
const SIGHT_S: f32 = 1.0;
/// The share of its brakes a unit plans to slow for an arc with: the rest
/// covers the drive-to seek's own coarse speed steps.
const PLANNED_BRAKING: f32 = 0.5;

/// A wheeled unit's limits, as the follower uses them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wheels {
    /// The radius of the followed arcs, metres.
    pub radius: f32,
    /// The speed the arcs are driven at, m/s.
    pub arc_speed: f32,
    /// Top speed, m/s.
    pub max_speed: f32,
    /// Largest braking, m/s².
    pub max_brake: f32,
}

impl Wheels {
    /// The limits of a unit with minimum turn radius `min_radius` (metres)
    /// and the given yaw rate, top speed and brakes; `None` without a
    /// radius (it can follow corners as they are).
    #[must_use]
    pub fn new(min_radius: f32, turn_rate: f32, max_speed: f32, max_brake: f32) -> Option<Wheels> {
        (min_radius > 0.0).then(|| Wheels {
            radius: following_radius(min_radius),
            arc_speed: (turn_rate * min_radius).min(max_speed),
            max_speed,
            max_brake,
        })
    }
}

/// What the follower decided for one unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurveStep {
    /// The route corner the unit now turns (past corners it has left).
    pub next: usize,
    /// Where to drive, or `None` when the curve does not apply: the unit is
    /// at its route's last point, the corner has no arc, or the curve is out
    /// of sight. The caller then drives for the corner `next`.
    pub drive_to: Option<Vec2>,
}

/// Where a unit at `here`, turning corner `next` of `route` (the points
/// after `start`), drives along the route's turning curve.
#[must_use]
pub fn curve_drive_to(
    route: &[Vec2],
    start: Vec2,
    mut next: usize,
    here: Vec2,
    wheels: &Wheels,
    map: Option<&WorldMap>,
) -> CurveStep {
    while next + 1 < route.len() {
        let (near, count, corner) = neighbourhood(start, route, next);
        let Some(curve) = CornerCurve::around(&near[..count], corner, wheels.radius) else {
            break;
        };
        let at = curve.locate(here);
        if at.piece == 2 {
            next += 1;
            continue;
        }
        return CurveStep {
            next,
            drive_to: steer_on(&curve, at, here, wheels, map),
        };
    }
    CurveStep {
        next,
        drive_to: None,
    }
}

/// The polyline `start, route…` from two points before route corner
/// `corner` to two after (as far as it goes), its length, and the corner's
/// index in it.
fn neighbourhood(start: Vec2, route: &[Vec2], corner: usize) -> ([Vec2; 5], usize, usize) {
    // Polyline index i is `start` for 0, route point i − 1 after.
    let at = corner + 1;
    let (first, last) = (at.saturating_sub(2), (at + 2).min(route.len()));
    let mut near = [Vec2::ZERO; 5];
    for (slot, index) in (first..=last).enumerate() {
        near[slot] = if index == 0 { start } else { route[index - 1] };
    }
    (near, last - first + 1, at - first)
}

/// The drive-to point of a unit at `here`, nearest the curve at `at`.
fn steer_on(
    curve: &CornerCurve,
    at: CurvePosition,
    here: Vec2,
    wheels: &Wheels,
    map: Option<&WorldMap>,
) -> Option<Vec2> {
    let to_arc = (curve.arc_start() - at.along).max(0.0);
    let speed = wheels
        .arc_speed
        .mul_add(
            wheels.arc_speed,
            2.0 * PLANNED_BRAKING * wheels.max_brake * to_arc,
        )
        .sqrt();
    let (target, sighted) = if speed >= wheels.max_speed {
        let entry = curve.pieces[1].start().position;
        (entry, entry)
    } else {
        let aim = curve
            .point_at(at.along + AIM_AHEAD * wheels.radius)
            .position;
        let direction = (aim - here).try_normalize()?;
        let distance = distance_for_speed(speed, wheels.max_speed, wheels.max_brake);
        let sighted = curve.point_at(at.along + speed * SIGHT_S).position;
        (here + direction * distance, sighted)
    };
    match map {
        Some(map) if !map.segment_is_clear(here, sighted) => None,
        _ => Some(target),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wheels() -> Wheels {
        Wheels::new(6.0, 1.2, 22.0, 8.0).expect("a radius")
    }

    /// An L: east 100 m, then north 100 m.
    const ROUTE: [Vec2; 2] = [Vec2::new(100.0, 0.0), Vec2::new(100.0, 100.0)];

    #[test]
    fn far_from_the_arc_the_unit_drives_for_its_start() {
        let step = curve_drive_to(&ROUTE, Vec2::ZERO, 0, Vec2::new(1.0, 0.0), &wheels(), None);
        assert_eq!(step.next, 0);
        let target = step.drive_to.expect("a curve");
        // The arc's start: below the corner's line (the circle dips out).
        assert!(target.x < 100.0 && target.y < 0.0, "{target}");
    }

    #[test]
    fn near_the_arc_the_drive_to_point_asks_for_about_the_arc_speed() {
        let far = curve_drive_to(&ROUTE, Vec2::ZERO, 0, Vec2::new(1.0, 0.0), &wheels(), None);
        let entry = far.drive_to.expect("a curve");
        // A metre before the arc, on the straight in.
        let here = entry - entry.normalize();
        let step = curve_drive_to(&ROUTE, Vec2::ZERO, 0, here, &wheels(), None);
        let target = step.drive_to.expect("a curve");
        let wanted = crate::geometry::seek::drive_to_velocity(here, target, 22.0, 8.0).length();
        // sqrt(7.2² + 8 · 1): still braking for the arc's 7.2 m/s.
        assert!((wanted - 7.74).abs() < 0.05, "{wanted} m/s");
        // It starts turning left, toward the corner's next leg.
        assert!((target - here).perp_dot(entry) < 0.0, "{target}");
    }

    #[test]
    fn past_the_arc_the_unit_turns_the_next_corner() {
        let step = curve_drive_to(
            &ROUTE,
            Vec2::ZERO,
            0,
            Vec2::new(101.0, 30.0),
            &wheels(),
            None,
        );
        // The goal is no corner: the caller drives for it.
        assert_eq!(
            step,
            CurveStep {
                next: 1,
                drive_to: None
            }
        );
    }

    #[test]
    fn a_unit_without_a_radius_follows_corners() {
        assert_eq!(Wheels::new(0.0, 1.2, 22.0, 8.0), None);
    }
}
