//! Oriented shield ellipsoids and their exact overlap test: the
//! Perram–Wertheim contact function.
//!
//! A shield is an ellipsoid with semi-axes `(forward, lateral, vertical)`,
//! turned about the vertical axis by the unit's heading (yaw) and centred at
//! `(x, y, altitude)`. Write `R` for the yaw rotation and `a` for the
//! semi-axes; the ellipsoid is `{p : (p − c)ᵀ M⁻¹ (p − c) ≤ 1}` with the
//! *shape matrix* `M = R diag(a²) Rᵀ` (a [`Shape`]).
//!
//! # Method
//!
//! Perram & Wertheim ("Statistical mechanics of hard ellipsoids. I. Overlap
//! algorithm and the contact function", *J. Comput. Phys.* 58 (1985)
//! 409–416) define, for ellipsoids `A` and `B` with shape matrices `M_A`,
//! `M_B` and centre offset `r = c_B − c_A`,
//!
//! ```text
//! F(A, B) = max over λ ∈ [0, 1] of  f(λ) = λ (1 − λ) rᵀ C(λ)⁻¹ r,
//!           C(λ) = (1 − λ) M_A + λ M_B.
//! ```
//!
//! `f` is concave on `[0, 1]` with `f(0) = f(1) = 0`, and
//!
//! * `F < 1` exactly when the ellipsoids overlap, `F = 1` when they touch;
//! * `F` scales with `|r|²` (moving the centres apart along the centre line by
//!   a factor `s` multiplies `F` by `s²`), so the centre distance at which they
//!   just touch along the current centre line is `|r| / √F`, and the overlap
//!   depth along that line is exactly `|r| (1/√F − 1)` — not a bounding-sphere
//!   estimate.
//!
//! The maximisation is a safeguarded Newton iteration: `f′` and `f″` are
//! closed forms in `u = C⁻¹ r` and `D = M_B − M_A`
//! (`f′ = (1 − 2λ) rᵀu − λ(1 − λ) uᵀDu`,
//! `f″ = −2 rᵀu − 2 (1 − 2λ) uᵀDu + 2 λ(1 − λ) (Du)ᵀ C⁻¹ (Du)`), the sign of
//! `f′` keeps a bracket `[lo, hi]` around the maximiser, and any step that
//! leaves the bracket (or meets `f″ ≥ 0` from rounding) is replaced by
//! bisection. The start is the maximiser for two spheres whose radii are the
//! ellipsoids' half-widths along `r`, so a handful of steps usually suffice.
//! All matrix work is closed-form 3×3 (`glam::Mat3` cofactor inverse); nothing
//! allocates.
//!
//! Shields only turn about the vertical axis, so every shape matrix (and every
//! `C(λ)`) is block-diagonal: a 2×2 ground-plane block and the vertical
//! `vertical²`. [`horizontal_separation`] uses that to find how far apart two
//! shields must move *in the ground plane* to touch (Newton on the distance,
//! whose contact function is convex and increasing along the push).

use glam::{Mat3, Vec3};

/// Newton steps at most; bisection alone halves the bracket each step, so
/// this also bounds the bracket width at 2⁻⁴⁰ in the worst case.
const MAX_STEPS: u32 = 40;
/// Stop once a step moves λ less than this (the maximum is flat, so `F` is
/// then accurate to roughly the square of it).
const LAMBDA_TOLERANCE: f32 = 1e-5;

/// An oriented shield ellipsoid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ellipsoid {
    /// Centre `(x, y, altitude)`, metres.
    pub centre: Vec3,
    /// Semi-axes `(forward, lateral, vertical)`, metres (each > 0).
    pub semi_axes: Vec3,
    /// Turn about the vertical axis (the unit's heading), radians from +x,
    /// counter-clockwise.
    pub yaw: f32,
}

impl Ellipsoid {
    /// The ellipsoid centred at `centre` with `semi_axes`, turned by `yaw`.
    #[must_use]
    pub fn new(centre: Vec3, semi_axes: Vec3, yaw: f32) -> Ellipsoid {
        Ellipsoid {
            centre,
            semi_axes,
            yaw,
        }
    }

    /// Its shape matrices.
    #[must_use]
    pub fn shape(&self) -> Shape {
        Shape::new(self.semi_axes, self.yaw)
    }

    /// The radius of the smallest sphere about the centre that holds it.
    #[must_use]
    pub fn bounding_radius(&self) -> f32 {
        self.semi_axes.max_element()
    }

    /// The rotation from body axes (forward, lateral, vertical) to the world.
    #[must_use]
    pub fn rotation(&self) -> Mat3 {
        Mat3::from_rotation_z(self.yaw)
    }

    /// The implicit function `(p − c)ᵀ M⁻¹ (p − c)`: below 1 inside, 1 on the
    /// surface, above 1 outside.
    #[must_use]
    pub fn implicit(&self, point: Vec3) -> f32 {
        let local = self.rotation().transpose() * (point - self.centre);
        (local / self.semi_axes).length_squared()
    }

    /// The surface point `c + R diag(a) n` for a unit body-frame normal
    /// parameter `n` (e.g. a point of the unit sphere).
    #[must_use]
    pub fn surface_point(&self, unit_sphere_point: Vec3) -> Vec3 {
        self.centre + self.rotation() * (unit_sphere_point * self.semi_axes)
    }
}

/// The shape matrix `M = R diag(a²) Rᵀ` of an oriented ellipsoid and its
/// inverse: everything about it but its centre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    /// `R diag(a²) Rᵀ`.
    pub matrix: Mat3,
    /// `R diag(a⁻²) Rᵀ`, the matrix of the implicit function.
    pub inverse: Mat3,
}

impl Shape {
    /// The shape of semi-axes `(forward, lateral, vertical)` turned by `yaw`
    /// about the vertical axis.
    #[must_use]
    pub fn new(semi_axes: Vec3, yaw: f32) -> Shape {
        let rotation = Mat3::from_rotation_z(yaw);
        let squared = semi_axes * semi_axes;
        Shape {
            matrix: rotation * Mat3::from_diagonal(squared) * rotation.transpose(),
            inverse: rotation * Mat3::from_diagonal(squared.recip()) * rotation.transpose(),
        }
    }

    /// Half-width along unit `direction` (the support function `√(dᵀ M d)`):
    /// the ellipsoid lies between the planes at ± this distance.
    #[must_use]
    pub fn half_width(&self, direction: Vec3) -> f32 {
        direction.dot(self.matrix * direction).sqrt()
    }

    /// Distance from the centre to the surface along unit `direction`
    /// (`1 / √(dᵀ M⁻¹ d)`).
    #[must_use]
    pub fn radius_along(&self, direction: Vec3) -> f32 {
        direction.dot(self.inverse * direction).sqrt().recip()
    }
}

/// The result of maximising the contact function.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// `F(A, B)`: below 1 when the ellipsoids overlap (a lower bound when the
    /// search stopped early, see [`contact_function_until`]).
    pub f: f32,
    /// The maximiser λ.
    pub lambda: f32,
    /// Newton or bisection steps taken.
    pub steps: u32,
}

impl Contact {
    /// The ellipsoids overlap (`F < 1`).
    #[must_use]
    pub fn overlaps(&self) -> bool {
        self.f < 1.0
    }
}

/// `f(λ)` and its first two derivatives.
#[derive(Clone, Copy, Debug)]
struct Sample {
    f: f32,
    slope: f32,
    curvature: f32,
}

#[inline]
fn sample(a: &Mat3, difference: &Mat3, r: Vec3, lambda: f32) -> Sample {
    let c_inverse = (*a + *difference * lambda).inverse();
    let u = c_inverse * r;
    let q = r.dot(u);
    let du = *difference * u;
    let s1 = u.dot(du);
    let s2 = du.dot(c_inverse * du);
    let weight = lambda * (1.0 - lambda);
    let tilt = 1.0 - 2.0 * lambda;
    Sample {
        f: weight * q,
        slope: tilt * q - weight * s1,
        curvature: -2.0 * q - 2.0 * tilt * s1 + 2.0 * weight * s2,
    }
}

/// The Perram–Wertheim contact function of `a` and `b` whose centres differ by
/// `r = c_b − c_a`. `F(r = 0) = 0`.
#[must_use]
pub fn contact_function(a: &Shape, b: &Shape, r: Vec3) -> Contact {
    contact_function_until(a, b, r, f32::INFINITY)
}

/// As [`contact_function`], but stops as soon as some `f(λ)` reaches
/// `stop_at`: then `f` is a lower bound of `F` that is already ≥ `stop_at`
/// (e.g. `stop_at = 1` proves "no overlap" without converging).
#[must_use]
pub fn contact_function_until(a: &Shape, b: &Shape, r: Vec3, stop_at: f32) -> Contact {
    let mut best = Contact {
        f: 0.0,
        lambda: 0.5,
        steps: 0,
    };
    let distance_squared = r.length_squared();
    if distance_squared.is_nan() || distance_squared <= 0.0 {
        return best;
    }
    let direction = r * distance_squared.sqrt().recip();
    let (width_a, width_b) = (a.half_width(direction), b.half_width(direction));
    let difference = b.matrix - a.matrix;
    let (mut lo, mut hi) = (0.0_f32, 1.0_f32);
    let mut lambda = width_a / (width_a + width_b);
    if !(lambda > 0.0 && lambda < 1.0) {
        lambda = 0.5;
    }
    for step in 1..=MAX_STEPS {
        let at = sample(&a.matrix, &difference, r, lambda);
        if at.f > best.f {
            best = Contact {
                f: at.f,
                lambda,
                steps: step,
            };
        }
        best.steps = step;
        if best.f >= stop_at || !at.f.is_finite() {
            break;
        }
        if at.slope > 0.0 {
            lo = lambda;
        } else {
            hi = lambda;
        }
        let newton = lambda - at.slope / at.curvature;
        let next = if at.curvature < 0.0 && newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        let moved = (next - lambda).abs();
        lambda = next;
        if moved <= LAMBDA_TOLERANCE || hi - lo <= LAMBDA_TOLERANCE {
            let last = sample(&a.matrix, &difference, r, lambda);
            if last.f > best.f {
                best.f = last.f;
                best.lambda = lambda;
            }
            break;
        }
    }
    best
}

/// The ellipsoids overlap (exact test, `F < 1`).
#[must_use]
pub fn overlaps(a: &Ellipsoid, b: &Ellipsoid) -> bool {
    contact_function_until(&a.shape(), &b.shape(), b.centre - a.centre, 1.0).overlaps()
}

/// How far apart the centres must move along their centre line for the
/// ellipsoids to just touch: `|r| (1/√F − 1)`, 0 when they do not overlap.
/// For equal centres the centre line is undefined: the depth returned is then
/// along +x (the distance to touching along any line is `1/√F(d)` for its
/// unit direction `d`).
#[must_use]
pub fn depth_along_centre_line(a: &Ellipsoid, b: &Ellipsoid) -> f32 {
    let r = b.centre - a.centre;
    let distance = r.length();
    let direction = if distance > 0.0 {
        r / distance
    } else {
        Vec3::X
    };
    let unit = contact_function(&a.shape(), &b.shape(), direction);
    (unit.f.sqrt().recip() - distance).max(0.0)
}

/// How far `b` (centre offset `r = c_b − c_a`) must move away from `a` in the
/// ground plane, along `direction` (the horizontal part of `r` normalised, or
/// any horizontal unit vector when that part is zero), for the two to just touch; 0 when they
/// do not overlap. Exact: when `r` is horizontal it is the centre-line depth
/// `|r| (1/√F − 1)`; otherwise the vertical offset stays fixed and the
/// horizontal distance `s` solves `F(s·direction + r_z ẑ) = 1` by Newton's
/// method from above (that `F` is convex and increasing in `s` because the
/// shape matrices are block-diagonal, so the iterates never undershoot).
#[must_use]
pub fn horizontal_separation(a: &Shape, b: &Shape, r: Vec3, direction: Vec3) -> f32 {
    let along = r.x * direction.x + r.y * direction.y;
    let rise = Vec3::new(0.0, 0.0, r.z);
    let unit = contact_function(a, b, direction);
    if !(unit.f > 0.0 && unit.f.is_finite()) {
        return 0.0;
    }
    // F(s·d + r_z ẑ) ≥ s² F(d), so this distance already separates them.
    let mut reach = unit.f.sqrt().recip();
    if r.z == 0.0 || reach <= along {
        return (reach - along).max(0.0);
    }
    let mut last = reach;
    for _ in 0..MAX_STEPS {
        let at = direction * reach + rise;
        let contact = contact_function(a, b, at);
        let excess = contact.f - 1.0;
        if excess <= 1e-6 {
            break;
        }
        // Envelope theorem: dF/ds = 2 s λ(1 − λ) dᵀ C(λ)⁻¹ d at the maximiser.
        let lambda = contact.lambda;
        let c_inverse = (a.matrix * (1.0 - lambda) + b.matrix * lambda).inverse();
        let slope = 2.0 * reach * lambda * (1.0 - lambda) * direction.dot(c_inverse * direction);
        if slope.is_nan() || slope <= 0.0 {
            break;
        }
        reach -= excess / slope;
        if reach <= along || (last - reach).abs() <= 1e-6 * last {
            break;
        }
        last = reach;
    }
    (reach - along).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f32, tolerance: f32) -> bool {
        (a - b).abs() <= tolerance * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn two_spheres_give_the_closed_form() {
        let (ra, rb) = (1.5, 4.0);
        let a = Shape::new(Vec3::splat(ra), 0.3);
        let b = Shape::new(Vec3::splat(rb), -1.0);
        for distance in [0.5_f32, 3.0, 5.5, 9.0] {
            let r = Vec3::new(0.6, -0.8, 0.0) * distance;
            let contact = contact_function(&a, &b, r);
            let expected = distance * distance / ((ra + rb) * (ra + rb));
            assert!(
                close(contact.f, expected, 1e-5),
                "{contact:?} vs {expected}"
            );
            assert!(close(contact.lambda, ra / (ra + rb), 1e-3), "{contact:?}");
        }
    }

    #[test]
    fn aligned_ellipsoids_touch_at_the_sum_of_their_axes() {
        // Along the forward axis the reach is forward_a + forward_b, turned.
        let yaw = 0.7_f32;
        let a = Ellipsoid::new(Vec3::ZERO, Vec3::new(5.0, 1.0, 2.0), yaw);
        let axis = Vec3::new(yaw.cos(), yaw.sin(), 0.0);
        let b = Ellipsoid::new(axis * 7.0, Vec3::new(3.0, 2.0, 1.0), yaw);
        assert!(close(depth_along_centre_line(&a, &b), 1.0, 1e-4));
        let lateral = Vec3::new(-yaw.sin(), yaw.cos(), 0.0);
        let c = Ellipsoid::new(lateral * 2.5, Vec3::new(3.0, 2.0, 1.0), yaw);
        assert!(close(depth_along_centre_line(&a, &c), 0.5, 1e-4));
        let above = Ellipsoid::new(Vec3::Z * 3.5, Vec3::new(3.0, 2.0, 1.0), yaw + 1.0);
        assert_eq!(depth_along_centre_line(&a, &above), 0.0);
        assert!(!overlaps(&a, &above));
    }

    #[test]
    fn swapping_the_pair_gives_the_same_value() {
        let a = Shape::new(Vec3::new(6.0, 1.0, 2.0), 0.2);
        let b = Shape::new(Vec3::new(2.0, 3.0, 0.5), 2.0);
        let r = Vec3::new(3.0, 4.0, 0.5);
        let ab = contact_function(&a, &b, r);
        let ba = contact_function(&b, &a, -r);
        assert!(close(ab.f, ba.f, 1e-5), "{ab:?} {ba:?}");
        assert!(close(ab.lambda, 1.0 - ba.lambda, 1e-3), "{ab:?} {ba:?}");
    }

    #[test]
    fn horizontal_separation_leaves_the_pair_touching() {
        let a = Shape::new(Vec3::new(5.0, 2.0, 3.0), 0.4);
        let b = Shape::new(Vec3::new(3.0, 1.0, 2.0), -0.9);
        let r = Vec3::new(1.0, 2.0, 2.5);
        let direction = Vec3::new(1.0, 2.0, 0.0).normalize();
        let push = horizontal_separation(&a, &b, r, direction);
        assert!(push > 0.0);
        let after = contact_function(&a, &b, r + direction * push);
        assert!(close(after.f, 1.0, 1e-4), "{after:?}");
    }

    #[test]
    fn stopping_early_still_bounds_the_value_from_below() {
        let a = Shape::new(Vec3::new(4.0, 2.0, 1.0), 0.0);
        let b = Shape::new(Vec3::new(1.0, 3.0, 2.0), 1.0);
        let r = Vec3::new(9.0, 1.0, 0.0);
        let full = contact_function(&a, &b, r);
        let early = contact_function_until(&a, &b, r, 1.0);
        assert!(early.f >= 1.0 && early.f <= full.f * (1.0 + 1e-6));
        assert!(early.steps <= full.steps);
    }
}
