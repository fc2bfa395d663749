//! Single-precision `atan2` and angle-to-direction for the `integrate` stage
//! (and the direction of separation's shield shapes,
//! [`crate::geometry::ellipsoid::Shape::new`]), inline and branch-light instead of
//! calls into the platform's libm.
//!
//! The polynomials are Cephes' `atanf`, `sinf` and `cosf` (S. L. Moshier,
//! *Methods and Programs for Mathematical Functions*, 1989; Cephes Math
//! Library 2.2): `atan` on `[0, tan π/8]` after reducing the ratio of the
//! smaller to the larger coordinate about `π/4`, and `sin`, `cos` on
//! `[-π/4, π/4]` after subtracting the nearest multiple of `π/2` in three
//! parts (the first exact for small multiples). Both stay within a few
//! ulps of the exact values (the tests bound them); being plain `f32`
//! arithmetic, they give the same bits on every platform, which libm does
//! not promise.

use std::f32::consts::{FRAC_2_PI, FRAC_PI_2, FRAC_PI_4, PI, TAU};

use glam::Vec2;
use wide::f32x8;

/// `tan(π/8)`: above this ratio the arctangent is taken about `π/4`.
const TAN_PI_8: f32 = 0.414_213_57;
/// Added to a float below 2^22 in size, rounds it to a whole number.
const ROUNDING: f32 = 12_582_912.0;
/// `π/2` in three parts; the first has 8 significant bits, so its product
/// with a small quadrant number is exact (Cephes' `DP1..DP3`, doubled).
const HALF_PI_PARTS: [f32; 3] = [1.570_312_5, 4.837_513e-4, 7.549_79e-8];
/// Beyond this many radians the three-part reduction loses bits; such
/// angles (never a wrapped heading) go to libm.
pub(crate) const REDUCTION_LIMIT: f32 = 64.0 * PI;

/// The angle of `(x, y)` from +x, in `[-π, π]`, like [`f32::atan2`] for
/// coordinates below about 1e38 in size (its sign is `y`'s, also for ±0),
/// NaN if either is NaN; unlike it, ±0 for the origin whatever the sign
/// of `x` (a unit at rest keeps a heading of 0, not π).
#[must_use]
#[inline]
pub fn atan2(y: f32, x: f32) -> f32 {
    let (ax, ay) = (x.abs(), y.abs());
    let steep = ay > ax;
    let (small, large) = (ax.min(ay), ax.max(ay));
    // The octant's angle: atan(small / large), in [0, π/4].
    let about_quarter = small > TAN_PI_8 * large;
    let numerator = select(about_quarter, small - large, small);
    let denominator = select(about_quarter, small + large, large);
    let base = select(about_quarter, FRAC_PI_4, 0.0);
    let t = select(denominator > 0.0, numerator / denominator, 0.0);
    let z = t * t;
    let poly = ((8.053_744_5e-2 * z - 1.387_768_6e-1) * z + 1.997_771_1e-1) * z - 3.333_295e-1;
    let octant = base + (poly * z * t + t);
    let quarter = select(steep, FRAC_PI_2 - octant, octant);
    let half = select(x < 0.0, PI - quarter, quarter);
    select(x.is_nan() | y.is_nan(), f32::NAN, half.copysign(y))
}

/// The unit vector at `angle` radians from +x, `(cos, sin)`, like
/// [`Vec2::from_angle`].
#[must_use]
#[inline]
pub fn direction(angle: f32) -> Vec2 {
    if angle.abs() <= REDUCTION_LIMIT {
        reduced_direction(angle)
    } else {
        // Also NaN.
        Vec2::from_angle(angle)
    }
}

/// [`direction`] for angles within [`REDUCTION_LIMIT`].
#[inline]
fn reduced_direction(angle: f32) -> Vec2 {
    // The nearest quadrant, rounding half away from zero (`round` is a
    // libm call on baseline x86-64); |quadrant| ≤ 128, exact as f32.
    let quadrant = (angle * FRAC_2_PI + 0.5f32.copysign(angle)) as i32;
    let k = quadrant as f32;
    let r = ((angle - k * HALF_PI_PARTS[0]) - k * HALF_PI_PARTS[1]) - k * HALF_PI_PARTS[2];
    let z = r * r;
    let sin = ((-1.951_529_6e-4 * z + 8.332_161e-3) * z - 1.666_665_5e-1) * z * r + r;
    let cos = ((2.443_315_7e-5 * z - 1.388_731_6e-3) * z + 4.166_664_6e-2) * z * z - 0.5 * z + 1.0;
    // Quadrants 1 and 3 swap the pair (negating the new x), 2 and 3
    // negate both.
    let odd = quadrant & 1 != 0;
    let (x, y) = (select(odd, -sin, cos), select(odd, cos, sin));
    let sign = select(quadrant & 2 != 0, -1.0, 1.0);
    Vec2::new(x * sign, y * sign)
}

/// [`atan2`] in eight lanes, lane for lane the same arithmetic.
#[must_use]
#[inline]
pub(crate) fn atan2_lanes(y: f32x8, x: f32x8) -> f32x8 {
    let (ax, ay) = (x.abs(), y.abs());
    let steep = ay.simd_gt(ax);
    // `fast_min` and `fast_max` are `minps` and `maxps`, as `f32::min` and
    // `f32::max` are for numbers (NaN lanes are replaced below).
    let (small, large) = (ax.fast_min(ay), ax.fast_max(ay));
    let about_quarter = small.simd_gt(TAN_PI_8 * large);
    let numerator = about_quarter.select(small - large, small);
    let denominator = about_quarter.select(small + large, large);
    let base = about_quarter.select(f32x8::splat(FRAC_PI_4), f32x8::ZERO);
    let t = denominator
        .simd_gt(f32x8::ZERO)
        .select(numerator / denominator, f32x8::ZERO);
    let z = t * t;
    let poly = ((8.053_744_5e-2 * z - 1.387_768_6e-1) * z + 1.997_771_1e-1) * z - 3.333_295e-1;
    let octant = base + (poly * z * t + t);
    let quarter = steep.select(FRAC_PI_2 - octant, octant);
    let half = x.simd_lt(f32x8::ZERO).select(PI - quarter, quarter);
    (x.is_nan() | y.is_nan()).select(f32x8::splat(f32::NAN), half.copysign(y))
}

/// [`direction`] in eight lanes, as `(cos, sin)`, if every angle is within
/// [`REDUCTION_LIMIT`] (`None` otherwise, also for NaN, which [`direction`]
/// hands to libm).
#[must_use]
#[inline]
pub(crate) fn direction_lanes(angle: f32x8) -> Option<(f32x8, f32x8)> {
    let reducible = angle.abs().simd_le(f32x8::splat(REDUCTION_LIMIT));
    reducible.all().then(|| reduced_direction_lanes(angle))
}

/// [`direction`] in eight lanes, as `(cos, sin)`, for angles within
/// [`REDUCTION_LIMIT`] (the caller checks), lane for lane the same
/// arithmetic.
#[must_use]
#[inline]
pub(crate) fn reduced_direction_lanes(angle: f32x8) -> (f32x8, f32x8) {
    // The quadrant's number, truncated as `as i32` does; its low two bits
    // from its floored remainders (two's complement's `& 1` and `& 2`).
    let k = (angle * FRAC_2_PI + f32x8::splat(0.5).copysign(angle)).trunc();
    // `(k / 4).floor()`: `k / 4` is a whole number, or one and a quarter,
    // half or three quarters; less 3/8 it is never half way between two,
    // and adding 1.5 × 2^23 rounds it to the nearest (|k| ≤ 129 here), in
    // three operations where SSE2's `floor` takes eleven.
    let quarters = (k * 0.25 - 0.375 + ROUNDING) - ROUNDING;
    let modulo_4 = k - 4.0 * quarters;
    let odd = modulo_4.simd_eq(f32x8::ONE) | modulo_4.simd_eq(f32x8::splat(3.0));
    let second_half = modulo_4.simd_ge(f32x8::splat(2.0));
    let r = ((angle - k * HALF_PI_PARTS[0]) - k * HALF_PI_PARTS[1]) - k * HALF_PI_PARTS[2];
    let z = r * r;
    let sin = ((-1.951_529_6e-4 * z + 8.332_161e-3) * z - 1.666_665_5e-1) * z * r + r;
    let cos = ((2.443_315_7e-5 * z - 1.388_731_6e-3) * z + 4.166_664_6e-2) * z * z - 0.5 * z + 1.0;
    let (x, y) = (odd.select(-sin, cos), odd.select(cos, sin));
    let sign = second_half.select(f32x8::splat(-1.0), f32x8::ONE);
    (x * sign, y * sign)
}

/// `if condition { when_true } else { when_false }` without a branch: the
/// angles' cases depend on the direction, which no branch predictor
/// guesses.
#[inline]
fn select(condition: bool, when_true: f32, when_false: f32) -> f32 {
    let mask = u32::from(condition).wrapping_neg();
    f32::from_bits((when_true.to_bits() & mask) | (when_false.to_bits() & !mask))
}

/// `angle` wrapped into `[-π, π)`. Differences of wrapped angles lie within
/// one turn of that range, so the common case is a comparison, not `fmod`.
#[must_use]
#[inline]
pub fn wrap_angle(angle: f32) -> f32 {
    if (-PI..PI).contains(&angle) {
        angle
    } else if (PI..3.0 * PI).contains(&angle) {
        angle - TAU
    } else if (-3.0 * PI..-PI).contains(&angle) {
        angle + TAU
    } else {
        (angle + PI).rem_euclid(TAU) - PI
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every angle on a fine grid over eight turns (and the quadrant
    /// boundaries exactly): within 1.5e-7 of the exact cosine and sine.
    #[test]
    fn direction_matches_the_exact_cosine_and_sine() {
        let mut worst = 0.0f64;
        let quarters = (0..=64).map(|k| k as f32 * FRAC_PI_2 - 16.0 * PI);
        let grid = (-2_000_000..=2_000_000).map(|i| i as f32 * (8.0 * PI / 4_000_000.0));
        for angle in grid.chain(quarters) {
            let got = direction(angle);
            let exact = f64::from(angle);
            let error = (f64::from(got.x) - exact.cos())
                .abs()
                .max((f64::from(got.y) - exact.sin()).abs());
            worst = worst.max(error);
        }
        assert!(worst < 1.5e-7, "worst error {worst:e}");
    }

    #[test]
    fn direction_of_a_huge_or_odd_angle_is_libms() {
        for angle in [1e6, -3e4, f32::INFINITY, f32::NAN] {
            let (ours, theirs) = (direction(angle), Vec2::from_angle(angle));
            assert!(
                ours == theirs || (ours.is_nan() && theirs.is_nan()),
                "{angle}: {ours} vs {theirs}"
            );
        }
    }

    /// Directions all round the circle at many lengths, and the axes:
    /// within 3e-7 rad (an ulp of π is 2.4e-7) of the exact angle.
    #[test]
    fn atan2_matches_the_exact_angle() {
        let mut worst = 0.0f64;
        for step in 0..400_000 {
            let turn = f64::from(step) / 400_000.0 * std::f64::consts::TAU;
            for length in [1e-3f64, 0.7, 13.0, 4e4] {
                let (y, x) = ((turn.sin() * length) as f32, (turn.cos() * length) as f32);
                let exact = f64::from(y).atan2(f64::from(x));
                worst = worst.max((f64::from(atan2(y, x)) - exact).abs());
            }
        }
        assert!(worst < 3e-7, "worst error {worst:e}");
        for (y, x) in [
            (0.0, 1.0),
            (1.0, 0.0),
            (0.0, -1.0),
            (-1.0, 0.0),
            (-2.0, -2.0),
        ] {
            let exact = f64::from(y).atan2(f64::from(x));
            assert!((f64::from(atan2(y, x)) - exact).abs() < 3e-7, "{y}, {x}");
        }
        assert_eq!(atan2(0.0, 0.0), 0.0);
        assert_eq!(atan2(-0.0, -1.0), -PI);
        for (y, x) in [(1.0, f32::NAN), (f32::NAN, 1.0), (f32::NAN, f32::NAN)] {
            assert!(atan2(y, x).is_nan(), "{y}, {x}");
        }
    }
    /// The lanes give the scalar functions' bits, angles on a fine grid
    /// over the reduction range and ratios all round the circle.
    #[test]
    fn lanes_give_the_scalar_bits() {
        let angles = (-400_000..=400_000)
            .map(|i| i as f32 * (REDUCTION_LIMIT / 400_000.0))
            .chain([0.0, -0.0, FRAC_PI_4, -FRAC_PI_2, PI, -PI, REDUCTION_LIMIT]);
        let angles: Vec<f32> = angles.collect();
        for eight in angles.chunks_exact(8) {
            let (x, y) = reduced_direction_lanes(f32x8::from(eight));
            let (x, y) = (x.to_array(), y.to_array());
            for (lane, &angle) in eight.iter().enumerate() {
                let scalar = direction(angle);
                assert_eq!(x[lane].to_bits(), scalar.x.to_bits(), "cos {angle}");
                assert_eq!(y[lane].to_bits(), scalar.y.to_bits(), "sin {angle}");
            }
        }
        let points: Vec<(f32, f32)> = (0..40_000)
            .map(|step| {
                let turn = step as f32 / 40_000.0 * TAU;
                let length = [1e-3, 0.7, 13.0, 4e4][step % 4];
                (turn.sin() * length, turn.cos() * length)
            })
            .chain([(0.0, 0.0), (-0.0, -1.0), (1.0, f32::NAN), (f32::NAN, 0.0)])
            .chain([(0.0, -0.0), (-1.0, 0.0), (f32::NAN, f32::NAN), (-0.0, 0.0)])
            .collect();
        for eight in points.chunks_exact(8) {
            let ys = f32x8::new(std::array::from_fn(|lane| eight[lane].0));
            let xs = f32x8::new(std::array::from_fn(|lane| eight[lane].1));
            let lanes = atan2_lanes(ys, xs).to_array();
            for (lane, &(y, x)) in eight.iter().enumerate() {
                let scalar = atan2(y, x);
                assert!(
                    lanes[lane].to_bits() == scalar.to_bits()
                        || (lanes[lane].is_nan() && scalar.is_nan()),
                    "atan2({y}, {x}): {} vs {scalar}",
                    lanes[lane]
                );
            }
        }
    }
}
