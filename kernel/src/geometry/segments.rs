//! Distances between segments in the plane.

use glam::Vec2;

/// The shortest distance between two segments in the plane: 0 if they
/// cross, else the shortest of the four distances from an end of one to the
/// other (in the plane the closest pair of two disjoint segments always
/// includes an end). Unlike the closed form for 3D (Ericson, *Real-Time
/// Collision Detection*, §5.1.9), this has no near-parallel case where
/// `f32` cancellation puts the closest point millimetres off.
#[must_use]
#[inline]
pub fn segment_distance(first: (Vec2, Vec2), second: (Vec2, Vec2)) -> f32 {
    if segments_cross(first, second) {
        return 0.0;
    }
    point_segment_distance(first.0, second)
        .min(point_segment_distance(first.1, second))
        .min(point_segment_distance(second.0, first))
        .min(point_segment_distance(second.1, first))
}

/// The distance from `point` to the segment `(a, b)`.
#[inline]
#[must_use]
pub fn point_segment_distance(point: Vec2, (a, b): (Vec2, Vec2)) -> f32 {
    let along = b - a;
    let length_squared = along.length_squared();
    let t = if length_squared > 0.0 {
        ((point - a).dot(along) / length_squared).clamp(0.0, 1.0)
    } else {
        0.0
    };
    point.distance(a + along * t)
}

/// Whether the segments properly cross (each one's ends strictly on
/// either side of the other's line); touching ends are caught by the
/// point distances as 0.
#[inline]
fn segments_cross((p1, q1): (Vec2, Vec2), (p2, q2): (Vec2, Vec2)) -> bool {
    let side = |a: Vec2, b: Vec2, c: Vec2| (b - a).perp_dot(c - a);
    let (d1, d2) = (side(p2, q2, p1), side(p2, q2, q1));
    let (d3, d4) = (side(p1, q1, p2), side(p1, q1, q2));
    ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0))
        && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0))
}


#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Brute force: the closest of many sampled point pairs.
    fn sampled_distance(first: (Vec2, Vec2), second: (Vec2, Vec2)) -> f32 {
        const STEPS: usize = 200;
        let mut best = f32::INFINITY;
        for i in 0..=STEPS {
            let a = first.0.lerp(first.1, i as f32 / STEPS as f32);
            for j in 0..=STEPS {
                let b = second.0.lerp(second.1, j as f32 / STEPS as f32);
                best = best.min(a.distance(b));
            }
        }
        best
    }

    fn point() -> impl Strategy<Value = Vec2> {
        (-10.0f32..10.0, -10.0f32..10.0).prop_map(|(x, y)| Vec2::new(x, y))
    }

    proptest! {
        #[test]
        fn segment_distance_matches_dense_sampling(a in point(), b in point(), c in point(), d in point()) {
            let exact = segment_distance((a, b), (c, d));
            let sampled = sampled_distance((a, b), (c, d));
            // Sampling overestimates by at most half a sample step.
            let step = (a.distance(b).max(c.distance(d))) / 200.0;
            prop_assert!(exact <= sampled + 1e-4, "exact {exact} > sampled {sampled}");
            prop_assert!(sampled - exact <= step + 1e-4, "exact {exact}, sampled {sampled}");
        }
    }
}
