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
//! Shields only turn about the vertical axis, so every shape matrix (and every
//! `C(λ)`) is block-diagonal: a symmetric 2×2 ground-plane block `P` and the
//! scalar `v = vertical²`. For 2×2 matrices the adjugate is linear and the
//! determinant quadratic (`det(μP_A + λP_B) = μ² det P_A + λμ tr(adj P_A ·
//! P_B) + λ² det P_B`), so with `μ = 1 − λ`
//!
//! ```text
//! f(λ) = λμ [ (μ n_A + λ n_B) / (μ² det P_A + λμ tr(adj P_A · P_B) + λ² det P_B)
//!           + r_z² / (μ v_A + λ v_B) ],      n = rᵀ adj(P) r,
//! ```
//!
//! a rational function of λ whose five plane coefficients are computed once
//! per pair in the shields' body frames (a [`Shape`] keeps the forward axis
//! and the squared semi-axes), each a sum of positive terms, so nothing
//! cancels even for needle-thin shields. One sample of `f`, `f′` and `f″` is
//! then a few dozen flops and one division (two with a vertical offset);
//! nothing allocates.
//!
//! The maximisation is a safeguarded Newton iteration on those closed forms:
//! the sign of `f′` keeps a bracket `[lo, hi]` around the maximiser, and any
//! step that leaves the bracket (or meets `f″ ≥ 0` from rounding) is replaced
//! by bisection. The start is the maximiser for two spheres whose radii are
//! the ellipsoids' radii along `r` (`λ = ρ_A / (ρ_A + ρ_B)`), from which one
//! or two steps usually suffice; the search is capped at [`MAX_STEPS`]. Since
//! `f` is concave, any sample `f(λ) ≥ 1` proves that the pair does not
//! overlap: the common case stops after one sample.
//!
//! [`horizontal_separation`] uses the same structure to find how far apart
//! two shields must move *in the ground plane* to touch (Newton on the
//! distance, whose contact function is convex and increasing along the push).

#[cfg(any(test, feature = "internals"))]
use glam::Mat3;
use glam::{Vec2, Vec3};
use wide::f32x8;

#[cfg(any(test, feature = "internals"))]
use crate::geometry::angles;

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
#[cfg(any(test, feature = "internals"))]
pub struct Ellipsoid {
    /// Centre `(x, y, altitude)`, metres.
    pub centre: Vec3,
    /// Semi-axes `(forward, lateral, vertical)`, metres (each > 0).
    pub semi_axes: Vec3,
    /// Turn about the vertical axis (the unit's heading), radians from +x,
    /// counter-clockwise.
    pub yaw: f32,
}

#[cfg(any(test, feature = "internals"))]
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
/// axis, kept by its factors: the forward axis and the squared semi-axes.
/// `M` is block-diagonal (a 2×2 ground-plane block and `vertical²`), and
/// every quantity the contact function needs is a sum of positive terms in
/// the body frame, so nothing cancels even for needle-thin shields.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Shape {
    /// Unit forward axis in the ground plane, `(cos yaw, sin yaw)`.
    pub forward: Vec2,
    /// Squared semi-axes `(forward², lateral², vertical²)`.
    pub squared: Vec3,
}

impl Shape {
    /// The shape of semi-axes `(forward, lateral, vertical)` turned by `yaw`
    /// about the vertical axis.
    #[must_use]
    #[cfg(any(test, feature = "internals"))]
    pub fn new(semi_axes: Vec3, yaw: f32) -> Shape {
        // Cephes' polynomials inline, not a libm call: within ±64π (beyond,
        // `direction` falls back to libm) they give the same bits on every
        // platform, and the same as separation's shapes, built eight at a
        // time with `angles`' lanes (`forward_axes` there).
        Shape::facing(semi_axes, angles::direction(yaw))
    }

    /// The shape of semi-axes `(forward, lateral, vertical)` whose forward
    /// axis is the unit vector `forward`.
    #[must_use]
    pub fn facing(semi_axes: Vec3, forward: Vec2) -> Shape {
        Shape {
            forward,
            squared: semi_axes * semi_axes,
        }
    }

    /// The full 3×3 shape matrix.
    #[must_use]
    #[cfg(any(test, feature = "internals"))]
    pub fn matrix(&self) -> Mat3 {
        let Vec2 { x: cos, y: sin } = self.forward;
        let Vec3 {
            x: f2,
            y: l2,
            z: v2,
        } = self.squared;
        let (xx, xy, yy) = (
            f2 * cos * cos + l2 * sin * sin,
            (f2 - l2) * sin * cos,
            f2 * sin * sin + l2 * cos * cos,
        );
        Mat3::from_cols(
            Vec3::new(xx, xy, 0.0),
            Vec3::new(xy, yy, 0.0),
            Vec3::new(0.0, 0.0, v2),
        )
    }

    /// `v` in the body frame, squared component-wise: `(along², across², up²)`.
    #[inline]
    #[cfg(any(test, feature = "internals"))]
    fn body_squared(&self, v: Vec3) -> Vec3 {
        let along = self.forward.dot(v.truncate());
        let across = self.forward.perp_dot(v.truncate());
        Vec3::new(along * along, across * across, v.z * v.z)
    }

    /// Half-width along unit `direction` (the support function `√(dᵀ M d)`):
    /// the ellipsoid lies between the planes at ± this distance.
    #[must_use]
    #[cfg(any(test, feature = "internals"))]
    pub fn half_width(&self, direction: Vec3) -> f32 {
        self.squared.dot(self.body_squared(direction)).sqrt()
    }

    /// Distance from the centre to the surface along unit `direction`
    /// (`1 / √(dᵀ M⁻¹ d)`).
    #[must_use]
    #[cfg(any(test, feature = "internals"))]
    pub fn radius_along(&self, direction: Vec3) -> f32 {
        (self.body_squared(direction) / self.squared)
            .element_sum()
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
    #[cfg(any(test, feature = "internals"))]
    pub fn overlaps(&self) -> bool {
        self.f < 1.0
    }
}

/// Pairs the contact function runs side by side, one per SIMD lane (eight
/// `f32` lanes: one AVX instruction a step on x86-64-v3, two SSE ones on a
/// baseline build, the same bits either way).
pub const LANES: usize = 8;

/// Eight shapes side by side, one per SIMD lane (structure of arrays): the
/// contact function runs on eight pairs at once.
#[derive(Clone, Copy, Debug)]
pub struct Shapes8 {
    /// Forward axes, x components.
    pub forward_x: f32x8,
    /// Forward axes, y components.
    pub forward_y: f32x8,
    /// Squared forward semi-axes.
    pub forward2: f32x8,
    /// Squared lateral semi-axes.
    pub lateral2: f32x8,
    /// Squared vertical semi-axes.
    pub vertical2: f32x8,
}

impl Shapes8 {
    /// `shape` in every lane.
    #[must_use]
    pub fn splat(shape: &Shape) -> Shapes8 {
        Shapes8::from_lanes([shape; LANES])
    }

    /// One shape per lane.
    #[must_use]
    #[inline]
    pub fn from_lanes(shapes: [&Shape; LANES]) -> Shapes8 {
        let lanes = |field: fn(&Shape) -> f32| f32x8::new(shapes.map(field));
        Shapes8 {
            forward_x: lanes(|s| s.forward.x),
            forward_y: lanes(|s| s.forward.y),
            forward2: lanes(|s| s.squared.x),
            lateral2: lanes(|s| s.squared.y),
            vertical2: lanes(|s| s.squared.z),
        }
    }

    /// `vᵀ adj(P) v` per lane for the ground-plane blocks `P` and the
    /// horizontal parts of `v` (`adj P = R diag(lateral², forward²) Rᵀ`).
    #[inline]
    fn plane_adjugate(&self, v: &Offsets8) -> f32x8 {
        let along = self.forward_x * v.x + self.forward_y * v.y;
        let across = self.forward_x * v.y - self.forward_y * v.x;
        self.lateral2 * (along * along) + self.forward2 * (across * across)
    }
}

/// Eight centre offsets `r = c_b − c_a`, one per lane.
#[derive(Clone, Copy, Debug)]
pub struct Offsets8 {
    /// x components.
    pub x: f32x8,
    /// y components.
    pub y: f32x8,
    /// z components.
    pub z: f32x8,
}

impl Offsets8 {
    /// `r` in every lane.
    #[must_use]
    pub fn splat(r: Vec3) -> Offsets8 {
        Offsets8::from_lanes([r; LANES])
    }

    /// One offset per lane.
    #[must_use]
    #[inline]
    pub fn from_lanes(r: [Vec3; LANES]) -> Offsets8 {
        Offsets8 {
            x: f32x8::new(r.map(|r| r.x)),
            y: f32x8::new(r.map(|r| r.y)),
            z: f32x8::new(r.map(|r| r.z)),
        }
    }
}

/// The contact functions of eight pairs, one per lane (see [`Contact`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contacts8 {
    /// `F` per lane (a lower bound where the search stopped early).
    pub f: [f32; LANES],
    /// The maximisers λ.
    pub lambda: [f32; LANES],
    /// Newton or bisection samples taken per lane.
    pub steps: [u32; LANES],
}

impl Contacts8 {
    /// Lane `lane` as a [`Contact`].
    #[must_use]
    pub fn lane(&self, lane: usize) -> Contact {
        Contact {
            f: self.f[lane],
            lambda: self.lambda[lane],
            steps: self.steps[lane],
        }
    }
}

/// `f(λ)` and its first two derivatives, per lane.
#[derive(Clone, Copy, Debug)]
struct Sample {
    f: f32x8,
    slope: f32x8,
    curvature: f32x8,
}

/// `f(λ)` of eight pairs and centre offsets in closed rational form, per
/// lane: with `μ = 1 − λ` and the ground-plane blocks `P_A`, `P_B`,
///
/// ```text
/// rᵀ C(λ)⁻¹ r = (μ n_A + λ n_B) / (μ² det P_A + λμ tr(adj P_A · P_B) + λ² det P_B)
///             + r_z² / (μ v_A + λ v_B),
/// ```
///
/// because the adjugate of a 2×2 matrix is linear and its determinant
/// quadratic (`n = rᵀ adj(P) r`, `v = vertical²`). Every coefficient is a
/// sum of positive terms. Reciprocals are divisions, never `f32x8::recip`
/// (an approximation on x86).
#[derive(Clone, Copy, Debug)]
struct Pencil {
    adjugate_a: f32x8,
    adjugate_b: f32x8,
    det_a: f32x8,
    det_mixed: f32x8,
    det_b: f32x8,
    rise_squared: f32x8,
    vertical_a: f32x8,
    vertical_b: f32x8,
    /// Some lane has a vertical offset (else the vertical term is skipped).
    rises: bool,
}

impl Pencil {
    #[inline]
    fn new(a: &Shapes8, b: &Shapes8, r: &Offsets8) -> Pencil {
        // tr(adj P_A · P_B) in A's body frame, B turned by θ relative to A.
        let cos = a.forward_x * b.forward_x + a.forward_y * b.forward_y;
        let sin = a.forward_x * b.forward_y - a.forward_y * b.forward_x;
        let (fa, la) = (a.forward2, a.lateral2);
        let (fb, lb) = (b.forward2, b.lateral2);
        let det_mixed = cos * cos * (la * fb + fa * lb) + sin * sin * (la * lb + fa * fb);
        let rise_squared = r.z * r.z;
        Pencil {
            adjugate_a: a.plane_adjugate(r),
            adjugate_b: b.plane_adjugate(r),
            det_a: fa * la,
            det_mixed,
            det_b: fb * lb,
            rise_squared,
            vertical_a: a.vertical2,
            vertical_b: b.vertical2,
            rises: rise_squared.simd_gt(f32x8::ZERO).any(),
        }
    }

    /// The maximiser for two spheres whose radii are the ellipsoids' radii
    /// along `r`: `λ = ρ_A / (ρ_A + ρ_B) = 1 / (1 + √(rᵀM_A⁻¹r / rᵀM_B⁻¹r))`.
    #[inline]
    fn sphere_start(&self) -> f32x8 {
        // rᵀM⁻¹r = n / det P + r_z² / v, over one common denominator each.
        let inverse_a = self.adjugate_a * self.vertical_a + self.rise_squared * self.det_a;
        let inverse_b = self.adjugate_b * self.vertical_b + self.rise_squared * self.det_b;
        let ratio = (inverse_a * (self.det_b * self.vertical_b))
            / (inverse_b * (self.det_a * self.vertical_a));
        let start = f32x8::ONE / (f32x8::ONE + ratio.sqrt());
        let inside = start.simd_gt(f32x8::ZERO) & start.simd_lt(f32x8::ONE);
        inside.select(start, f32x8::HALF)
    }

    /// `det` of the ground-plane block of `C(λ)`.
    #[inline]
    fn plane_determinant(&self, lambda: f32x8) -> f32x8 {
        let mu = f32x8::ONE - lambda;
        mu * mu * self.det_a + lambda * mu * self.det_mixed + lambda * lambda * self.det_b
    }

    /// The ground-plane part of `rᵀ C(λ)⁻¹ r`.
    #[inline]
    fn plane_form(&self, lambda: f32x8) -> f32x8 {
        let mu = f32x8::ONE - lambda;
        let numerator = mu * self.adjugate_a + lambda * self.adjugate_b;
        numerator / self.plane_determinant(lambda)
    }

    #[inline]
    fn sample(&self, lambda: f32x8) -> Sample {
        let two = f32x8::splat(2.0);
        let mu = f32x8::ONE - lambda;
        // Ground plane: g = N / Q, N linear, Q quadratic, so Q g'' = −2 g' Q' − g Q''.
        let numerator = mu * self.adjugate_a + lambda * self.adjugate_b;
        let numerator_slope = self.adjugate_b - self.adjugate_a;
        let det = self.plane_determinant(lambda);
        let det_slope =
            two * (lambda * self.det_b - mu * self.det_a) + (mu - lambda) * self.det_mixed;
        let det_curvature = two * (self.det_a + self.det_b - self.det_mixed);
        let inv_det = f32x8::ONE / det;
        let mut form = numerator * inv_det;
        let mut form_slope = (numerator_slope - form * det_slope) * inv_det;
        let mut form_curvature = -(two * form_slope * det_slope + form * det_curvature) * inv_det;
        if self.rises {
            // Vertical: h = r_z² / L, L linear.
            let rising = self.rise_squared.simd_gt(f32x8::ZERO);
            let vertical_slope = self.vertical_b - self.vertical_a;
            let inv_vertical = f32x8::ONE / (mu * self.vertical_a + lambda * self.vertical_b);
            let rise = self.rise_squared * inv_vertical;
            let rise_slope = -rise * vertical_slope * inv_vertical;
            form = rising.select(form + rise, form);
            form_slope = rising.select(form_slope + rise_slope, form_slope);
            form_curvature = rising.select(
                form_curvature - two * rise_slope * vertical_slope * inv_vertical,
                form_curvature,
            );
        }
        let weight = lambda * mu;
        let tilt = mu - lambda;
        Sample {
            f: weight * form,
            slope: tilt * form + weight * form_slope,
            curvature: -two * form + two * tilt * form_slope + weight * form_curvature,
        }
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
    contact_functions_until(
        &Shapes8::splat(a),
        &Shapes8::splat(b),
        &Offsets8::splat(r),
        f32x8::splat(stop_at),
    )
    .lane(0)
}

/// [`contact_function_until`] for eight pairs at once, one per lane; each
/// lane's result is bit-identical to computing its pair alone.
#[must_use]
#[inline(always)]
pub fn contact_functions_until(
    a: &Shapes8,
    b: &Shapes8,
    r: &Offsets8,
    stop_at: f32x8,
) -> Contacts8 {
    let distance_squared = r.x * r.x + r.y * r.y + r.z * r.z;
    // Coinciding centres (and NaN offsets) have F = 0.
    let apart = distance_squared.simd_gt(f32x8::ZERO);
    let pencil = Pencil::new(a, b, r);
    let start = apart.select(pencil.sphere_start(), f32x8::HALF);
    maximise(&pencil, start, stop_at, apart)
}

/// The safeguarded Newton search from `lambda` in the `active` lanes (a
/// mask: every bit set or none), in lockstep: a lane that has stopped keeps
/// its result while the others go on, so each lane's steps are those of
/// its pair alone. See the module docs.
#[inline]
fn maximise(pencil: &Pencil, mut lambda: f32x8, stop_at: f32x8, mut active: f32x8) -> Contacts8 {
    let tolerance = f32x8::splat(LAMBDA_TOLERANCE);
    let mut best_f = f32x8::ZERO;
    let mut best_lambda = lambda;
    let mut steps = f32x8::ZERO;
    let (mut lo, mut hi) = (f32x8::ZERO, f32x8::ONE);
    for step in 1..=MAX_STEPS {
        if !active.any() {
            break;
        }
        let at = pencil.sample(lambda);
        steps = active.select(f32x8::splat(step as f32), steps);
        let better = active & at.f.simd_gt(best_f);
        best_f = better.select(at.f, best_f);
        best_lambda = better.select(lambda, best_lambda);
        active &= !(best_f.simd_ge(stop_at) | !at.f.is_finite());
        let rising = at.slope.simd_gt(f32x8::ZERO);
        lo = (active & rising).select(lambda, lo);
        hi = (active & !rising).select(lambda, hi);
        let newton = lambda - at.slope / at.curvature;
        let concave = at.curvature.simd_lt(f32x8::ZERO);
        // Converged: the Newton step is tiny (it may land on the bracket end
        // `lambda` itself, which the bracket test below would refuse).
        active &= !(concave & (newton - lambda).abs().simd_le(tolerance));
        let bracketed = concave & newton.simd_gt(lo) & newton.simd_lt(hi);
        let next = bracketed.select(newton, f32x8::HALF * (lo + hi));
        let moved = (next - lambda).abs();
        lambda = active.select(next, lambda);
        // The step is tiny: f(next) differs from f(λ) by about its square.
        active &= !(moved.simd_le(tolerance) | (hi - lo).simd_le(tolerance));
    }
    Contacts8 {
        f: best_f.to_array(),
        lambda: best_lambda.to_array(),
        steps: steps.to_array().map(|s| s as u32),
    }
}

/// The ellipsoids overlap (exact test, `F < 1`).
#[must_use]
#[cfg(any(test, feature = "internals"))]
pub fn overlaps(a: &Ellipsoid, b: &Ellipsoid) -> bool {
    contact_function_until(&a.shape(), &b.shape(), b.centre - a.centre, 1.0).overlaps()
}

/// How far apart the centres must move along their centre line for the
/// ellipsoids to just touch: `|r| (1/√F − 1)`, 0 when they do not overlap.
/// For equal centres the centre line is undefined: the depth returned is then
/// along +x (the distance to touching along any line is `1/√F(d)` for its
/// unit direction `d`).
#[must_use]
#[cfg(any(test, feature = "internals"))]
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
    let (a, b) = (Shapes8::splat(a), Shapes8::splat(b));
    let horizontal = Pencil::new(&a, &b, &Offsets8::splat(direction));
    let mut lambda = unit.lambda;
    // A mask with every bit set: every lane searches.
    let every_lane = f32x8::ZERO.simd_eq(f32x8::ZERO);
    for _ in 0..MAX_STEPS {
        let pencil = Pencil::new(&a, &b, &Offsets8::splat(direction * reach + rise));
        let contact = maximise(
            &pencil,
            f32x8::splat(lambda),
            f32x8::splat(f32::INFINITY),
            every_lane,
        )
        .lane(0);
        lambda = contact.lambda;
        let excess = contact.f - 1.0;
        if excess <= 1e-6 {
            break;
        }
        // Envelope theorem: dF/ds = 2 s λ(1 − λ) dᵀ C(λ)⁻¹ d at the maximiser.
        let form = horizontal.plane_form(f32x8::splat(lambda)).to_array()[0];
        let slope = 2.0 * reach * lambda * (1.0 - lambda) * form;
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
mod tests;
