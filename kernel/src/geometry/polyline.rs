//! A platoon's path by arc length: the polyline from where it was planned
//! through its route's corners, extended backwards from its start along
//! the heading it had then.
//!
//! The extension is Force 21's (§4 "Column formation"): "if we start from
//! the beginning of the path, there are no segments to interpolate along.
//! In order to simplify the code, an additional segment is added to the
//! beginning of the path along the original heading of the platoon." So a
//! column's drive-to points are `point_at(s − k·spacing)` at any `s`.

use glam::Vec2;

/// A path view: `start`, then `corners`; before `start` the line back
/// along `start_direction`.
#[derive(Clone, Copy, Debug)]
pub struct PathView<'a> {
    /// Where the path starts.
    pub start: Vec2,
    /// The unit direction of travel at the start.
    pub start_direction: Vec2,
    /// The route's corners after `start`.
    pub corners: &'a [Vec2],
    /// The arc length at each corner ([`measure_legs`]), so finding a point
    /// takes no square roots.
    pub arcs: &'a [f32],
    /// The heading of the leg ending at each corner ([`measure_legs`]), so
    /// a direction along one leg takes no arctangent.
    pub headings: &'a [f32],
}

/// Writes the arc length from `start` to each of `corners` into `arcs`,
/// and the heading (radians from +x) of the leg ending at each into
/// `headings` (both as long as `corners`).
pub fn measure_legs(start: Vec2, corners: &[Vec2], arcs: &mut [f32], headings: &mut [f32]) {
    let mut from = start;
    let mut total = 0.0;
    for ((&to, arc), heading) in corners.iter().zip(arcs).zip(headings) {
        total += from.distance(to);
        *arc = total;
        *heading = (to - from).to_angle();
        from = to;
    }
}

impl PathView<'_> {
    /// The point `s` metres along the path (negative: behind the start;
    /// beyond the end: the end).
    #[must_use]
    pub fn point_at(&self, s: f32) -> Vec2 {
        if s <= 0.0 {
            return self.start - self.start_direction * (-s);
        }
        let Some(leg) = self.arcs.iter().position(|&arc| arc >= s) else {
            return self.corners.last().copied().unwrap_or(self.start);
        };
        let (from, from_arc) = match leg {
            0 => (self.start, 0.0),
            _ => (self.corners[leg - 1], self.arcs[leg - 1]),
        };
        let span = (self.arcs[leg] - from_arc).max(f32::MIN_POSITIVE);
        from.lerp(self.corners[leg], (s - from_arc) / span)
    }

    /// The heading from the point `s` metres along the path to the one
    /// `lead` metres further, when both lie on one leg (after the start):
    /// that leg's heading. `None` across a corner.
    #[must_use]
    pub fn heading_within_leg(&self, s: f32, lead: f32) -> Option<f32> {
        if s <= 0.0 {
            return None;
        }
        let leg = self.arcs.iter().position(|&arc| arc >= s + lead)?;
        let leg_start = if leg == 0 { 0.0 } else { self.arcs[leg - 1] };
        (s >= leg_start).then(|| self.headings[leg])
    }

    /// The path's length from `start` to its last corner, metres.
    #[must_use]
    #[cfg(any(test, feature = "internals"))]
    pub fn length(&self) -> f32 {
        self.arcs.last().copied().unwrap_or(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_walk_the_legs_and_the_extension_behind_the_start() {
        let corners = [Vec2::new(10.0, 0.0), Vec2::new(10.0, 5.0)];
        let (mut arcs, mut headings) = ([0.0; 2], [0.0; 2]);
        measure_legs(Vec2::ZERO, &corners, &mut arcs, &mut headings);
        let view = PathView {
            start: Vec2::ZERO,
            start_direction: Vec2::X,
            corners: &corners,
            arcs: &arcs,
            headings: &headings,
        };
        assert_eq!(view.length(), 15.0);
        assert_eq!(view.point_at(4.0), Vec2::new(4.0, 0.0));
        assert_eq!(view.point_at(12.0), Vec2::new(10.0, 2.0));
        assert_eq!(view.point_at(99.0), Vec2::new(10.0, 5.0));
        assert_eq!(view.point_at(-3.0), Vec2::new(-3.0, 0.0));
    }

    /// Walking back by arc length from any point lands exactly that far
    /// along the polyline: the sum of the leg pieces equals the distance.
    #[test]
    fn walking_back_keeps_the_arc_distance() {
        let corners = [
            Vec2::new(3.0, 4.0),
            Vec2::new(3.0, -6.0),
            Vec2::new(-2.0, -6.0),
        ];
        let (mut arcs, mut headings) = ([0.0; 3], [0.0; 3]);
        measure_legs(Vec2::ZERO, &corners, &mut arcs, &mut headings);
        let view = PathView {
            start: Vec2::ZERO,
            start_direction: Vec2::from_angle(1.0),
            corners: &corners,
            arcs: &arcs,
            headings: &headings,
        };
        let total = view.length();
        assert_eq!(total, 20.0);
        // Sampled at fine steps, the polyline length between two arc
        // lengths matches their difference.
        let (a, b) = (2.5_f32, 17.5_f32);
        let steps = 15_000;
        let walked: f32 = (0..steps)
            .map(|i| {
                let s0 = a + (b - a) * i as f32 / steps as f32;
                let s1 = a + (b - a) * (i + 1) as f32 / steps as f32;
                view.point_at(s0).distance(view.point_at(s1))
            })
            .sum();
        assert!((walked - (b - a)).abs() < 1e-2, "{walked}");
    }

    /// Within one leg the stored heading is the direction between the two
    /// points; across a corner, behind the start or past the end there is
    /// none.
    #[test]
    fn a_heading_within_a_leg_is_the_direction_between_its_points() {
        let corners = [
            Vec2::new(3.0, 4.0),
            Vec2::new(3.0, -6.0),
            Vec2::new(-2.0, -6.0),
        ];
        let (mut arcs, mut headings) = ([0.0; 3], [0.0; 3]);
        measure_legs(Vec2::ZERO, &corners, &mut arcs, &mut headings);
        let view = PathView {
            start: Vec2::ZERO,
            start_direction: Vec2::X,
            corners: &corners,
            arcs: &arcs,
            headings: &headings,
        };
        for step in 1..200 {
            let s = step as f32 * 0.1;
            let lead = 1.5;
            let by_points = (view.point_at(s + lead) - view.point_at(s)).to_angle();
            match view.heading_within_leg(s, lead) {
                Some(heading) => {
                    // The same direction, whichever side of ±π each lies.
                    let turn = Vec2::from_angle(heading).angle_to(Vec2::from_angle(by_points));
                    assert!(turn.abs() < 1e-5, "{s}: {heading} against {by_points}");
                }
                None => assert!(
                    arcs.iter().any(|&arc| s < arc && arc < s + lead) || s + lead > 20.0,
                    "{s}: no heading although on one leg"
                ),
            }
        }
        assert_eq!(view.heading_within_leg(-1.0, 0.5), None);
        assert_eq!(view.heading_within_leg(19.0, 2.0), None);
    }
}
