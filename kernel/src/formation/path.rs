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
/// along `start_heading`.
#[derive(Clone, Copy, Debug)]
pub struct PathView<'a> {
    /// Where the path starts.
    pub start: Vec2,
    /// The heading at the start, radians.
    pub start_heading: f32,
    /// The route's corners after `start`.
    pub corners: &'a [Vec2],
}

impl PathView<'_> {
    /// The point `s` metres along the path (negative: behind the start;
    /// beyond the end: the end).
    #[must_use]
    pub fn point_at(&self, s: f32) -> Vec2 {
        if s <= 0.0 {
            return self.start - Vec2::from_angle(self.start_heading) * (-s);
        }
        let mut from = self.start;
        let mut left = s;
        for &to in self.corners {
            let length = from.distance(to);
            if left <= length {
                return from.lerp(to, left / length.max(f32::MIN_POSITIVE));
            }
            left -= length;
            from = to;
        }
        from
    }

    /// The path's direction at `s` (the start heading before the start and
    /// on a path without corners; the last leg's beyond the end).
    #[must_use]
    pub fn direction_at(&self, s: f32) -> Vec2 {
        let behind = Vec2::from_angle(self.start_heading);
        if s < 0.0 {
            return behind;
        }
        let mut from = self.start;
        let mut left = s;
        let mut direction = behind;
        for &to in self.corners {
            let length = from.distance(to);
            if length > 0.0 {
                direction = (to - from) / length;
            }
            if left < length {
                return direction;
            }
            left -= length;
            from = to;
        }
        direction
    }

    /// The path's length from `start` to its last corner, metres.
    #[must_use]
    pub fn length(&self) -> f32 {
        let mut from = self.start;
        let mut total = 0.0;
        for &to in self.corners {
            total += from.distance(to);
            from = to;
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_walk_the_legs_and_the_extension_behind_the_start() {
        let corners = [Vec2::new(10.0, 0.0), Vec2::new(10.0, 5.0)];
        let view = PathView {
            start: Vec2::ZERO,
            start_heading: 0.0,
            corners: &corners,
        };
        assert_eq!(view.length(), 15.0);
        assert_eq!(view.point_at(4.0), Vec2::new(4.0, 0.0));
        assert_eq!(view.point_at(12.0), Vec2::new(10.0, 2.0));
        assert_eq!(view.point_at(99.0), Vec2::new(10.0, 5.0));
        assert_eq!(view.point_at(-3.0), Vec2::new(-3.0, 0.0));
        assert_eq!(view.direction_at(5.0), Vec2::X);
        assert_eq!(view.direction_at(11.0), Vec2::Y);
        assert_eq!(view.direction_at(40.0), Vec2::Y);
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
        let view = PathView {
            start: Vec2::ZERO,
            start_heading: 1.0,
            corners: &corners,
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
}
