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
//! ellipsoids' half-widths along `r`, so three to five steps usually suffice;
//! the search is capped at [`MAX_STEPS`]. Since `f` is concave, any sample
//! `f(λ) ≥ 1` proves that the pair does not overlap: the common case stops
//! after one sample.
//!
//! Shields only turn about the vertical axis, so every shape matrix (and every
//! `C(λ)`) is block-diagonal: a symmetric 2×2 ground-plane block and the
//! scalar `vertical²`. A [`Shape`] stores just those four numbers, and `C⁻¹r`
//! is the closed-form 2×2 inverse in the plane plus one division for the
//! vertical: one sample costs a few dozen flops and two divisions, nothing
//! allocates. [`horizontal_separation`] uses the same structure to find how
//! far apart two shields must move *in the ground plane* to touch (Newton on
//! the distance, whose contact function is convex and increasing along the
//! push).

use glam::{Mat3, Vec3};

/// Newton or bisection samples per contact function at most. Newton from the
/// sphere start converges quadratically in a handful of steps; bisection
/// alone would still narrow the bracket to 2⁻²⁴, the resolution of `f32`.
pub const MAX_STEPS: u32 = 24;
/// Stop once the Newton step would move λ less than this: Newton converges
/// quadratically, so λ is then within about the square of it of the
/// maximiser, and `F` (flat there) is accurate to far better than `f32`
/// depths need.
const LAMBDA_TOLERANCE: f32 = 1e-3;

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

    /// Its shape matrix.
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

/// The shape matrix `M = R diag(a²) Rᵀ` of a shield turned about the vertical
/// axis: block-diagonal, so only its symmetric 2×2 ground-plane block and its
/// vertical entry are stored.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Shape {
    /// Ground-plane block `[m_xx, m_xy, m_yy]`.
    pub plane: [f32; 3],
    /// Vertical entry `vertical²`.
    pub vertical: f32,
}

impl Shape {
    /// The shape of semi-axes `(forward, lateral, vertical)` turned by `yaw`
    /// about the vertical axis.
    #[must_use]
    pub fn new(semi_axes: Vec3, yaw: f32) -> Shape {
        let (sin, cos) = yaw.sin_cos();
        let (f2, l2) = (semi_axes.x * semi_axes.x, semi_axes.y * semi_axes.y);
        Shape {
            plane: [
                f2 * cos * cos + l2 * sin * sin,
                (f2 - l2) * sin * cos,
                f2 * sin * sin + l2 * cos * cos,
            ],
            vertical: semi_axes.z * semi_axes.z,
        }
    }

    /// The full 3×3 shape matrix.
    #[must_use]
    pub fn matrix(&self) -> Mat3 {
        let [xx, xy, yy] = self.plane;
        Mat3::from_cols(
            Vec3::new(xx, xy, 0.0),
            Vec3::new(xy, yy, 0.0),
            Vec3::new(0.0, 0.0, self.vertical),
        )
    }

    /// `dᵀ M d`.
    #[inline]
    fn quadratic(&self, d: Vec3) -> f32 {
        let [xx, xy, yy] = self.plane;
        xx * d.x * d.x + 2.0 * xy * d.x * d.y + yy * d.y * d.y + self.vertical * d.z * d.z
    }

    /// Half-width along unit `direction` (the support function `√(dᵀ M d)`):
    /// the ellipsoid lies between the planes at ± this distance.
    #[must_use]
    pub fn half_width(&self, direction: Vec3) -> f32 {
        self.quadratic(direction).sqrt()
    }

    /// Distance from the centre to the surface along unit `direction`
    /// (`1 / √(dᵀ M⁻¹ d)`).
    #[must_use]
    pub fn radius_along(&self, direction: Vec3) -> f32 {
        let [xx, xy, yy] = self.plane;
        let det = xx * yy - xy * xy;
        let planar = (yy * direction.x * direction.x - 2.0 * xy * direction.x * direction.y
            + xx * direction.y * direction.y)
            / det;
        (planar + direction.z * direction.z / self.vertical)
            .sqrt()
            .recip()
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
    /// Newton or bisection samples taken.
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

/// `C(λ) = A + λ D` (block-diagonal) applied inversely to `v`.
#[derive(Clone, Copy)]
struct Blend {
    xx: f32,
    xy: f32,
    yy: f32,
    inv_det: f32,
    inv_z: f32,
}

impl Blend {
    #[inline]
    fn at(a: &Shape, d: &Shape, lambda: f32) -> Blend {
        let xx = a.plane[0] + lambda * d.plane[0];
        let xy = a.plane[1] + lambda * d.plane[1];
        let yy = a.plane[2] + lambda * d.plane[2];
        Blend {
            xx,
            xy,
            yy,
            inv_det: (xx * yy - xy * xy).recip(),
            inv_z: (a.vertical + lambda * d.vertical).recip(),
        }
    }

    #[inline]
    fn solve(&self, v: Vec3) -> Vec3 {
        Vec3::new(
            (self.yy * v.x - self.xy * v.y) * self.inv_det,
            (self.xx * v.y - self.xy * v.x) * self.inv_det,
            v.z * self.inv_z,
        )
    }
}

#[inline]
fn apply(d: &Shape, v: Vec3) -> Vec3 {
    let [xx, xy, yy] = d.plane;
    Vec3::new(xx * v.x + xy * v.y, xy * v.x + yy * v.y, d.vertical * v.z)
}

#[inline]
fn sample(a: &Shape, difference: &Shape, r: Vec3, lambda: f32) -> Sample {
    let blend = Blend::at(a, difference, lambda);
    let u = blend.solve(r);
    let q = r.dot(u);
    let du = apply(difference, u);
    let s1 = u.dot(du);
    let s2 = du.dot(blend.solve(du));
    let weight = lambda * (1.0 - lambda);
    let tilt = 1.0 - 2.0 * lambda;
    Sample {
        f: weight * q,
        slope: tilt * q - weight * s1,
        curvature: -2.0 * q - 2.0 * tilt * s1 + 2.0 * weight * s2,
    }
}

#[inline]
fn difference(a: &Shape, b: &Shape) -> Shape {
    Shape {
        plane: [
            b.plane[0] - a.plane[0],
            b.plane[1] - a.plane[1],
            b.plane[2] - a.plane[2],
        ],
        vertical: b.vertical - a.vertical,
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
    let distance_squared = r.length_squared();
    if distance_squared.is_nan() || distance_squared <= 0.0 {
        return Contact {
            f: 0.0,
            lambda: 0.5,
            steps: 0,
        };
    }
    // Sphere start: λ = w_a / (w_a + w_b) = 1 / (1 + √(q_b / q_a)) with the
    // half-widths along r (the length of r cancels).
    let (qa, qb) = (a.quadratic(r), b.quadratic(r));
    let mut start = 1.0 / (1.0 + (qb / qa).sqrt());
    if !(start > 0.0 && start < 1.0) {
        start = 0.5;
    }
    maximise(a, &difference(a, b), r, start, stop_at)
}

/// The safeguarded Newton search from `lambda`; see the module docs.
#[inline]
fn maximise(a: &Shape, difference: &Shape, r: Vec3, mut lambda: f32, stop_at: f32) -> Contact {
    let mut best = Contact {
        f: 0.0,
        lambda,
        steps: 0,
    };
    let (mut lo, mut hi) = (0.0_f32, 1.0_f32);
    for step in 1..=MAX_STEPS {
        let at = sample(a, difference, r, lambda);
        best.steps = step;
        if at.f > best.f {
            best.f = at.f;
            best.lambda = lambda;
        }
        if best.f >= stop_at || !at.f.is_finite() {
            break;
        }
        if at.slope > 0.0 {
            lo = lambda;
        } else {
            hi = lambda;
        }
        let newton = lambda - at.slope / at.curvature;
        if at.curvature < 0.0 && (newton - lambda).abs() <= LAMBDA_TOLERANCE {
            // Converged: the Newton step is tiny (it may land on the bracket
            // end `lambda` itself, which the bracket test below would refuse).
            break;
        }
        let next = if at.curvature < 0.0 && newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        let moved = (next - lambda).abs();
        lambda = next;
        if moved <= LAMBDA_TOLERANCE || hi - lo <= LAMBDA_TOLERANCE {
            // The step is tiny: f(next) differs from f(λ) by about its square.
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
/// any horizontal unit vector when that part is zero), for the two to just
/// touch; 0 when they do not overlap. Exact: when `r` is horizontal it is the
/// centre-line depth `|r| (1/√F − 1)`; otherwise the vertical offset stays
/// fixed and the horizontal distance `s` solves `F(s·direction + r_z ẑ) = 1`
/// by Newton's method from above (that `F` is convex and increasing in `s`
/// because the shape matrices are block-diagonal, so the iterates never
/// undershoot). Each Newton step re-maximises over λ from the previous
/// maximiser, which is then only a step or two away.
#[must_use]
pub fn horizontal_separation(a: &Shape, b: &Shape, r: Vec3, direction: Vec3) -> f32 {
    let along = r.x * direction.x + r.y * direction.y;
    let unit = contact_function(a, b, direction);
    if !(unit.f > 0.0 && unit.f.is_finite()) {
        return 0.0;
    }
    // F(s·d + r_z ẑ) ≥ s² F(d), so this distance already separates them.
    let mut reach = unit.f.sqrt().recip();
    if r.z == 0.0 || reach <= along {
        return (reach - along).max(0.0);
    }
    let rise = Vec3::new(0.0, 0.0, r.z);
    let difference = difference(a, b);
    let mut lambda = unit.lambda;
    for _ in 0..MAX_STEPS {
        let contact = maximise(
            a,
            &difference,
            direction * reach + rise,
            lambda,
            f32::INFINITY,
        );
        lambda = contact.lambda;
        let excess = contact.f - 1.0;
        if excess <= 1e-6 {
            break;
        }
        // Envelope theorem: dF/ds = 2 s λ(1 − λ) dᵀ C(λ)⁻¹ d at the maximiser.
        let blend = Blend::at(a, &difference, lambda);
        let slope = 2.0 * reach * lambda * (1.0 - lambda) * direction.dot(blend.solve(direction));
        if slope.is_nan() || slope <= 0.0 {
            break;
        }
        let step = excess / slope;
        reach -= step;
        if reach <= along || step <= 1e-6 * reach {
            break;
        }
    }
    (reach - along).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f32, tolerance: f32) -> bool {
        (a - b).abs() <= tolerance * a.abs().max(b.abs()).max(1.0)
    }

    /// `f(λ)` from the full 3×3 matrices, as the paper writes it.
    fn reference_f(a: &Shape, b: &Shape, r: Vec3, lambda: f32) -> f32 {
        let c = a.matrix() * (1.0 - lambda) + b.matrix() * lambda;
        lambda * (1.0 - lambda) * r.dot(c.inverse() * r)
    }

    #[test]
    fn block_diagonal_evaluation_matches_the_full_matrices() {
        let a = Shape::new(Vec3::new(6.0, 1.0, 2.0), 0.2);
        let b = Shape::new(Vec3::new(2.0, 3.0, 0.5), 2.0);
        let r = Vec3::new(3.0, 4.0, 0.5);
        let contact = contact_function(&a, &b, r);
        let (mut best, mut at) = (0.0_f32, 0.0_f32);
        for k in 1..2000 {
            let lambda = k as f32 / 2000.0;
            let f = reference_f(&a, &b, r, lambda);
            if f > best {
                (best, at) = (f, lambda);
            }
        }
        assert!(
            close(contact.f, best, 1e-5),
            "{contact:?} vs {best} at {at}"
        );
        assert!(close(contact.lambda, at, 2e-3), "{contact:?} vs {at}");
        assert!(contact.steps <= 8, "{contact:?}");
        let full = a.matrix();
        let turned = Mat3::from_rotation_z(0.2)
            * Mat3::from_diagonal(Vec3::new(36.0, 1.0, 4.0))
            * Mat3::from_rotation_z(0.2).transpose();
        assert!(full.abs_diff_eq(turned, 1e-4), "{full:?} vs {turned:?}");
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
