//! Optimal Reciprocal Collision Avoidance (ORCA), the kernel's per-unit
//! velocity selection.
//!
//! J. van den Berg, S. J. Guy, M. C. Lin, D. Manocha, "Reciprocal n-body
//! collision avoidance", Robotics Research, STAR 70, Springer 2011, pp. 3–19,
//! Section 4 "Reciprocal n-Body Collision Avoidance": the truncated velocity
//! obstacle and the ORCA half-plane `(v − (v_A + ½u))·n ≥ 0`, the 2-D linear
//! program, and the 3-D program for densely packed conditions; static
//! obstacles with full responsibility. Our own code; the case analysis
//! mirrors RVO2 (`Agent.cc`) so results match it and `dodgy_2d` up to
//! rounding. Deterministic f32 arithmetic, half-planes in the order given, no
//! randomness (`dodgy_2d` draws a random normal for exactly coincident units;
//! we use a fixed rule).

use glam::Vec2;

/// Two constraint lines whose direction determinant is at most this are
/// treated as parallel (RVO2's `RVO_EPSILON`).
const PARALLEL_EPSILON: f32 = 1.0e-5;

/// Smallest time (seconds) used for a horizon or tick. Non-positive, NaN or
/// smaller values of `horizon` / `dt` given to [`neighbour_half_plane`] are
/// raised to this, which keeps every quotient finite (a tiny horizon moves the
/// constraint far away, i.e. makes it all but vacuous).
pub const MIN_TIME: f32 = 1.0e-4;

/// A half-plane of permitted velocities, bounded by the directed line through
/// `point` along `direction`.
///
/// Convention (RVO2's and `dodgy_2d`'s): the permitted side is the **left** of
/// the directed line. A velocity `v` is permitted exactly when
/// `direction.perp_dot(point - v) <= 0`, i.e. `det(direction, point - v) <= 0`
/// with `det(a, b) = a.x * b.y - a.y * b.x`. See [`HalfPlane::violation`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HalfPlane {
    /// Any point on the boundary line.
    pub point: Vec2,
    /// Unit direction of the boundary line; permitted velocities lie to its
    /// left.
    pub direction: Vec2,
}

impl HalfPlane {
    /// The half-plane bounded by the line through `point` along `direction`.
    const fn through(point: Vec2, direction: Vec2) -> Self {
        Self { point, direction }
    }

    /// Signed distance by which `v` lies outside the half-plane: positive when
    /// `v` is forbidden, zero on the boundary, negative inside. Requires a unit
    /// `direction` to be a true distance.
    #[must_use]
    pub fn violation(&self, v: Vec2) -> f32 {
        self.direction.perp_dot(self.point - v)
    }
}

/// One neighbour as the avoiding unit sees it.
#[derive(Clone, Copy, Debug)]
pub struct Neighbour {
    /// Neighbour position minus own position.
    pub relative_position: Vec2,
    /// Own velocity minus neighbour velocity.
    pub relative_velocity: Vec2,
    /// Sum of both radii (negative values are treated as zero).
    pub combined_radius: f32,
    /// Share of the avoidance this unit takes: `0.5` for reciprocal avoidance,
    /// `1.0` when the other unit is immovable, arrived or does not yield. It
    /// scales the escape vector `u` whether or not the current relative
    /// velocity is inside the velocity obstacle (as in the paper and RVO2).
    pub responsibility: f32,
}

/// The ORCA half-plane for one neighbour within time horizon `horizon`
/// (seconds), given this unit's current velocity and the tick `dt` (seconds).
///
/// * Separated units: the relative velocity is projected onto the boundary of
///   the velocity obstacle truncated at `horizon` (cut-off circle or one of
///   the two legs); `u` is the vector to that projection and the boundary
///   passes through `own_velocity + responsibility * u`.
/// * Overlapping units (`|relative_position| <= combined_radius`, including
///   coincident ones): as RVO2, the constraint asks to resolve the overlap
///   within one tick, using the cut-off circle at time `dt`.
/// * Degenerate inputs: `horizon` and `dt` are raised to [`MIN_TIME`]. A
///   relative velocity exactly at the tick cut-off centre escapes away from
///   the neighbour; exactly coincident units with equal velocities have no
///   side to choose, so both escape towards `-X` and the caller's
///   deterministic tie-break must separate them.
///
/// Reciprocity: with responsibility `0.5` each, the two units' half-planes
/// are point reflections of each other through their mean velocity (except
/// in that coincident case).
#[must_use]
pub fn neighbour_half_plane(own_velocity: Vec2, n: &Neighbour, horizon: f32, dt: f32) -> HalfPlane {
    let escape = escape_from_velocity_obstacle(n, horizon.max(MIN_TIME), dt.max(MIN_TIME));
    HalfPlane::through(own_velocity + escape.u * n.responsibility, escape.direction)
}

/// The smallest change `u` of the relative velocity that reaches the boundary
/// of the velocity obstacle, and the unit boundary direction there.
struct Escape {
    u: Vec2,
    direction: Vec2,
}

/// Paper's `u` and the boundary direction for one neighbour (`horizon`, `dt`
/// already positive).
fn escape_from_velocity_obstacle(n: &Neighbour, horizon: f32, dt: f32) -> Escape {
    let p = n.relative_position;
    let radius = n.combined_radius.max(0.0);
    if p.length_squared() > radius * radius {
        escape_when_separated(p, n.relative_velocity, radius, horizon)
    } else {
        // Already overlapping: leave the cut-off circle at time `dt`.
        escape_from_circle(p / dt, radius / dt, n.relative_velocity, -p)
    }
}

/// Escape from the velocity obstacle truncated at `horizon` when the discs do
/// not overlap (`|p| > radius`).
fn escape_when_separated(p: Vec2, velocity: Vec2, radius: f32, horizon: f32) -> Escape {
    let centre = p / horizon;
    let w = velocity - centre;
    let along = w.dot(p);
    if along < 0.0 && along * along > radius * radius * w.length_squared() {
        // The projection falls on the cut-off circle.
        escape_from_circle(centre, radius / horizon, velocity, -p)
    } else {
        escape_onto_leg(p, velocity, radius, w)
    }
}

/// Escape through the boundary of the circle (`centre`, `radius`) of
/// velocities: towards the circle point nearest `velocity`. `fallback` gives
/// the outward direction when `velocity` is exactly the centre.
fn escape_from_circle(centre: Vec2, radius: f32, velocity: Vec2, fallback: Vec2) -> Escape {
    let w = velocity - centre;
    let outward = w.normalize_or(fallback.normalize_or(Vec2::NEG_X));
    let u = outward * (radius - w.length());
    Escape {
        u,
        direction: clockwise(outward),
    }
}

/// Escape onto the nearer leg of the velocity-obstacle cone (`|p| > radius`).
/// `w` is `velocity` relative to the cut-off centre and picks the leg.
fn escape_onto_leg(p: Vec2, velocity: Vec2, radius: f32, w: Vec2) -> Escape {
    let direction = if p.perp_dot(w) > 0.0 {
        left_leg(p, radius)
    } else {
        -right_leg(p, radius)
    };
    let u = direction * velocity.dot(direction) - velocity;
    Escape { u, direction }
}

/// Unit direction of the left tangent from the origin to the disc
/// (`p`, `radius`), `|p| > radius`.
fn left_leg(p: Vec2, radius: f32) -> Vec2 {
    let distance_sq = p.length_squared();
    let leg = (distance_sq - radius * radius).max(0.0).sqrt();
    (p * leg + p.perp() * radius) / distance_sq
}

/// Unit direction of the right tangent from the origin to the disc
/// (`p`, `radius`), `|p| > radius`.
fn right_leg(p: Vec2, radius: f32) -> Vec2 {
    let distance_sq = p.length_squared();
    let leg = (distance_sq - radius * radius).max(0.0).sqrt();
    (p * leg - p.perp() * radius) / distance_sq
}

/// `v` rotated a quarter turn clockwise: the boundary direction whose left
/// side is the side `v` points to.
fn clockwise(v: Vec2) -> Vec2 {
    Vec2::new(v.y, -v.x)
}

/// A static obstacle segment (wall) from `a` to `b` as a half-plane of
/// permitted velocities for a disc of `radius` at `position` moving at
/// `own_velocity`, looking `horizon` seconds ahead.
///
/// RVO2's obstacle constraint for one edge, full responsibility: the boundary
/// is tangent to the truncated velocity obstacle at the projection of
/// `own_velocity`, so every permitted velocity keeps the disc off the segment
/// for `horizon` seconds. The segment is two-sided (oriented so the unit is on
/// its right, as RVO2 requires) and treated on its own, both ends convex with
/// no neighbouring edge; for a lone segment RVO2's "foreign leg" case cannot
/// arise, so all that is omitted is RVO2's pruning of walls already covered by
/// earlier wall half-planes (it only drops redundant constraints).
///
/// * Overlapping the segment (distance `<= radius`): a half-plane through the
///   zero velocity forbidding motion further into it, so stopping is allowed.
/// * Returns `None` when the wall is out of reach: `horizon` is not positive
///   (or NaN) and the disc does not overlap the segment.
/// * A degenerate segment (`a == b`) is a point obstacle. A unit centred
///   exactly on an endpoint is pushed along the segment's normal (towards the
///   side it is on; the right of `a`→`b` when exactly on the line); one centred
///   exactly on a point obstacle is pushed towards `+Y`.
#[must_use]
pub fn segment_half_plane(
    position: Vec2,
    own_velocity: Vec2,
    radius: f32,
    a: Vec2,
    b: Vec2,
    horizon: f32,
) -> Option<HalfPlane> {
    let radius = radius.max(0.0);
    let wall = Wall::seen_from(a - position, b - position, radius);
    if let Some(contact) = wall.contact_half_plane() {
        return Some(contact);
    }
    if horizon.is_nan() || horizon <= 0.0 {
        return None;
    }
    Some(wall.tangent_half_plane(own_velocity, 1.0 / horizon))
}

/// A segment relative to the unit, oriented so the unit (the origin) is on
/// its right, with the quantities RVO2's case analysis needs.
struct Wall {
    /// Left vertex (as seen from the unit).
    left: Vec2,
    /// Right vertex.
    right: Vec2,
    /// Unit direction from `left` to `right` (zero when degenerate).
    unit: Vec2,
    /// Position of the unit's projection along the segment, 0 at `left`,
    /// 1 at `right` (-1 when degenerate, i.e. "at the left vertex").
    s: f32,
    /// Squared distance from the unit to the segment's supporting line.
    line_distance_sq: f32,
    /// The disc radius.
    radius: f32,
}

impl Wall {
    /// Orient the relative segment `p1`–`p2` with the unit on its right.
    fn seen_from(p1: Vec2, p2: Vec2, radius: f32) -> Self {
        let swap = (p2 - p1).perp_dot(-p1) > 0.0;
        let (left, right) = if swap { (p2, p1) } else { (p1, p2) };
        let edge = right - left;
        let length_sq = edge.length_squared();
        let degenerate = length_sq <= 0.0;
        let projection = -left.dot(edge) / length_sq.max(f32::MIN_POSITIVE);
        Self {
            left,
            right,
            unit: edge.normalize_or_zero(),
            s: if degenerate { -1.0 } else { projection },
            line_distance_sq: (left + edge * projection).length_squared(),
            radius,
        }
    }

    /// Whether only one vertex shapes the velocity obstacle, and which.
    fn single_vertex(&self) -> Option<Vec2> {
        let near_line = self.line_distance_sq <= self.radius * self.radius;
        if self.unit == Vec2::ZERO || (self.s < 0.0 && near_line) {
            Some(self.left)
        } else if self.s > 1.0 && near_line {
            Some(self.right)
        } else {
            None
        }
    }

    /// The half-plane when the disc already overlaps the segment.
    fn contact_half_plane(&self) -> Option<HalfPlane> {
        let radius_sq = self.radius * self.radius;
        // Pushing out along the segment normal; a fixed axis for a unit
        // centred exactly on a point obstacle.
        let away = (-self.unit).normalize_or(Vec2::X);
        let direction = if self.s < 0.0 && self.left.length_squared() <= radius_sq {
            self.left.perp().normalize_or(away)
        } else if self.s > 1.0 && self.right.length_squared() <= radius_sq {
            self.right.perp().normalize_or(away)
        } else if (0.0..=1.0).contains(&self.s) && self.line_distance_sq <= radius_sq {
            away
        } else {
            return None;
        };
        Some(HalfPlane::through(Vec2::ZERO, direction))
    }

    /// The half-plane tangent to the truncated velocity obstacle at the point
    /// nearest `velocity` (no overlap; `inverse_horizon` finite, >= 0).
    fn tangent_half_plane(&self, velocity: Vec2, inverse_horizon: f32) -> HalfPlane {
        let cone = WallCone::new(self, inverse_horizon);
        let to_left = velocity - cone.left_cutoff;
        let t_left = to_left.dot(cone.left_leg);
        let t_right = (velocity - cone.right_cutoff).dot(cone.right_leg);
        let t = if cone.single {
            0.5
        } else {
            to_left.dot(cone.cutoff_vector) / cone.cutoff_vector.length_squared()
        };
        if (t < 0.0 && t_left < 0.0) || (cone.single && t_left < 0.0 && t_right < 0.0) {
            return cone.circle_half_plane(cone.left_cutoff, velocity);
        }
        if t > 1.0 && t_right < 0.0 {
            return cone.circle_half_plane(cone.right_cutoff, velocity);
        }
        let t_cutoff = if cone.single || t > 1.0 { -1.0 } else { t };
        let on_cutoff = squared_gap(velocity, cone.left_cutoff, cone.cutoff_vector, t_cutoff);
        let on_left = squared_gap(velocity, cone.left_cutoff, cone.left_leg, t_left);
        let on_right = squared_gap(velocity, cone.right_cutoff, cone.right_leg, t_right);
        if on_cutoff <= on_left && on_cutoff <= on_right {
            cone.line_half_plane(cone.left_cutoff, -self.unit)
        } else if on_left <= on_right {
            cone.line_half_plane(cone.left_cutoff, cone.left_leg)
        } else {
            cone.line_half_plane(cone.right_cutoff, -cone.right_leg)
        }
    }
}

/// Squared distance from `velocity` to `origin + direction * t`; infinite
/// when `t` is negative or NaN (the projection misses that boundary piece).
fn squared_gap(velocity: Vec2, origin: Vec2, direction: Vec2, t: f32) -> f32 {
    if t >= 0.0 {
        velocity.distance_squared(origin + direction * t)
    } else {
        f32::INFINITY
    }
}

/// The truncated velocity obstacle of a wall: cut-off centres and legs.
struct WallCone {
    left_cutoff: Vec2,
    right_cutoff: Vec2,
    cutoff_vector: Vec2,
    left_leg: Vec2,
    right_leg: Vec2,
    /// Both legs come from one vertex (oblique view or point obstacle).
    single: bool,
    /// Radius of the cut-off circles, `radius / horizon`.
    cutoff_radius: f32,
}

impl WallCone {
    fn new(wall: &Wall, inverse_horizon: f32) -> Self {
        let (left, right, single) = match wall.single_vertex() {
            Some(vertex) => (vertex, vertex, true),
            None => (wall.left, wall.right, false),
        };
        let left_cutoff = left * inverse_horizon;
        let right_cutoff = right * inverse_horizon;
        Self {
            left_cutoff,
            right_cutoff,
            cutoff_vector: right_cutoff - left_cutoff,
            left_leg: left_leg(left, wall.radius),
            right_leg: right_leg(right, wall.radius),
            single,
            cutoff_radius: wall.radius * inverse_horizon,
        }
    }

    /// Tangent to the cut-off circle at `centre`, at the point nearest
    /// `velocity`.
    fn circle_half_plane(&self, centre: Vec2, velocity: Vec2) -> HalfPlane {
        let outward = (velocity - centre).normalize_or((-centre).normalize_or(Vec2::NEG_X));
        HalfPlane::through(centre + outward * self.cutoff_radius, clockwise(outward))
    }

    /// Boundary along `direction` tangent to the cut-off circle centred at
    /// `anchor`: through `anchor` moved left of `direction` by the cut-off
    /// radius, so the circle lies on the forbidden (right) side.
    fn line_half_plane(&self, anchor: Vec2, direction: Vec2) -> HalfPlane {
        HalfPlane::through(anchor + direction.perp() * self.cutoff_radius, direction)
    }
}

/// What the optimisation prefers among feasible velocities.
#[derive(Clone, Copy)]
enum Objective {
    /// The velocity nearest this one.
    Nearest(Vec2),
    /// The velocity furthest along this unit direction.
    Furthest(Vec2),
}

/// The 2-D program stopped at a half-plane it could not satisfy.
struct Infeasible {
    /// Index of the half-plane that failed.
    failed: usize,
    /// Best velocity for the half-planes before `failed`.
    partial: Vec2,
}

/// Reusable velocity solver: the 2-D incremental linear program of the paper,
/// with the 3-D fallback (RVO2's `linearProgram3`) when it is infeasible.
///
/// The only storage is the scratch list of projected half-planes used by the
/// fallback: a fixed array of [`MAX_HALF_PLANES`], so solving never
/// allocates.
#[derive(Clone, Debug)]
pub struct VelocitySolver {
    projected: [HalfPlane; MAX_HALF_PLANES],
    len: usize,
}

/// The most half-planes [`VelocitySolver::solve`] takes at once.
pub const MAX_HALF_PLANES: usize = 64;

impl Default for VelocitySolver {
    fn default() -> Self {
        let none = HalfPlane {
            point: Vec2::ZERO,
            direction: Vec2::X,
        };
        Self {
            projected: [none; MAX_HALF_PLANES],
            len: 0,
        }
    }
}

impl VelocitySolver {
    /// The velocity within `max_speed` closest to `preferred` satisfying every
    /// half-plane, found by the deterministic incremental 2-D program in the
    /// order given (no shuffling).
    ///
    /// When that is infeasible, returns the velocity within `max_speed` that
    /// minimises the largest violation ([`HalfPlane::violation`]) of the
    /// half-planes from index `hard` on, while keeping the first `hard`
    /// half-planes (walls) satisfied. If those hard half-planes cannot be met
    /// together within `max_speed`, none is treated as hard and the largest
    /// violation over all of them is minimised. (Callers wanting RVO2 /
    /// `dodgy_2d`'s recovery can instead rebuild wall half-planes for a zero
    /// own velocity, which always admit standing still, and solve again.)
    ///
    /// Edge cases: `max_speed` that is not positive (or NaN) is zero, so the
    /// result is zero; a zero `preferred` is fine (the nearest feasible
    /// velocity to rest); `hard` above `half_planes.len()` is clamped; a
    /// non-finite result (only possible for non-finite inputs) becomes zero.
    #[must_use]
    pub fn solve(
        &mut self,
        half_planes: &[HalfPlane],
        hard: usize,
        preferred: Vec2,
        max_speed: f32,
    ) -> Vec2 {
        assert!(
            half_planes.len() <= MAX_HALF_PLANES,
            "at most {MAX_HALF_PLANES} half-planes, got {}",
            half_planes.len()
        );
        let radius = if max_speed > 0.0 { max_speed } else { 0.0 };
        let hard = hard.min(half_planes.len());
        let velocity = match solve_2d(half_planes, radius, Objective::Nearest(preferred)) {
            Ok(velocity) => velocity,
            Err(Infeasible { failed, partial }) => {
                let kept = if failed < hard { 0 } else { hard };
                self.least_violation(half_planes, kept, failed, radius, partial)
            }
        };
        Some(velocity).filter(|v| v.is_finite()).unwrap_or_default()
    }

    /// RVO2's `linearProgram3`: minimise the largest violation of the soft
    /// half-planes (`hard..`), starting from `velocity`, which satisfies the
    /// half-planes before `begin`.
    fn least_violation(
        &mut self,
        lines: &[HalfPlane],
        hard: usize,
        begin: usize,
        radius: f32,
        start: Vec2,
    ) -> Vec2 {
        let mut velocity = start;
        let mut worst = 0.0;
        for (index, line) in lines.iter().enumerate().skip(begin) {
            if line.violation(velocity) <= worst {
                continue;
            }
            self.project_onto(lines, hard, index);
            // Least violation of `line` while no earlier soft half-plane is
            // violated more; on rounding failure keep the current velocity.
            let objective = Objective::Furthest(line.direction.perp());
            if let Ok(better) = solve_2d(&self.projected[..self.len], radius, objective) {
                velocity = better;
            }
            worst = line.violation(velocity);
        }
        velocity
    }

    /// Fill the scratch list with the hard half-planes and, for each earlier
    /// soft half-plane, the half-plane where it is violated no more than
    /// `lines[index]`.
    fn project_onto(&mut self, lines: &[HalfPlane], hard: usize, index: usize) {
        let line = lines[index];
        self.projected[..hard].copy_from_slice(&lines[..hard]);
        self.len = hard;
        for other in &lines[hard..index] {
            if let Some(bisector) = equal_violation(line, *other) {
                self.projected[self.len] = bisector;
                self.len += 1;
            }
        }
    }
}

/// The half-plane where `other` is violated no more than `line`; `None` when
/// that holds everywhere that matters (parallel, same direction).
///
/// Both violations are affine, `c - n·v` with `n` the left normal, so the
/// boundary is `(n_other - n_line)·v = c_other - c_line`. It is the line
/// through the two lines' intersection along `other.direction -
/// line.direction` (RVO2), but anchored at its point nearest the origin,
/// which stays accurate when the intersection is far away (nearly
/// anti-parallel lines).
fn equal_violation(line: HalfPlane, other: HalfPlane) -> Option<HalfPlane> {
    let parallel = line.direction.perp_dot(other.direction).abs() <= PARALLEL_EPSILON;
    if parallel && line.direction.dot(other.direction) > 0.0 {
        return None;
    }
    let normal_gap = other.direction.perp() - line.direction.perp();
    let length = normal_gap.length();
    if length <= 0.0 {
        return None;
    }
    let normal = normal_gap / length;
    let offset = (offset_from_origin(other) - offset_from_origin(line)) / length;
    Some(HalfPlane::through(normal * offset, clockwise(normal)))
}

/// `c` in the half-plane's form `n·v >= c` (`n` the unit left normal).
fn offset_from_origin(half_plane: HalfPlane) -> f32 {
    half_plane.direction.perp_dot(half_plane.point)
}

/// Incremental 2-D program (RVO2's `linearProgram2`) over the disc of
/// `radius`, half-planes taken in order.
fn solve_2d(lines: &[HalfPlane], radius: f32, objective: Objective) -> Result<Vec2, Infeasible> {
    let mut velocity = match objective {
        Objective::Nearest(target) => clamp_length(target, radius),
        Objective::Furthest(direction) => direction * radius,
    };
    for (index, line) in lines.iter().enumerate() {
        if line.violation(velocity) > 0.0 {
            velocity = solve_on_line(lines, index, radius, objective).ok_or(Infeasible {
                failed: index,
                partial: velocity,
            })?;
        }
    }
    Ok(velocity)
}

/// Best velocity on the boundary of `lines[index]` within the disc and the
/// earlier half-planes (RVO2's `linearProgram1`); `None` when that is empty.
fn solve_on_line(
    lines: &[HalfPlane],
    index: usize,
    radius: f32,
    objective: Objective,
) -> Option<Vec2> {
    let line = lines[index];
    let (mut low, mut high) = chord(line, radius)?;
    for other in &lines[..index] {
        let denominator = line.direction.perp_dot(other.direction);
        let numerator = other.direction.perp_dot(line.point - other.point);
        if denominator.abs() <= PARALLEL_EPSILON {
            if numerator < 0.0 {
                return None;
            }
            continue;
        }
        let t = numerator / denominator;
        if denominator >= 0.0 {
            high = high.min(t);
        } else {
            low = low.max(t);
        }
        if low > high {
            return None;
        }
    }
    let t = match objective {
        Objective::Furthest(direction) if direction.dot(line.direction) > 0.0 => high,
        Objective::Furthest(_) => low,
        Objective::Nearest(target) => line.direction.dot(target - line.point).max(low).min(high),
    };
    Some(line.point + line.direction * t)
}

/// Parameter interval of `line` inside the disc of `radius`, or `None`.
fn chord(line: HalfPlane, radius: f32) -> Option<(f32, f32)> {
    let along = line.point.dot(line.direction);
    let offset = line.direction.perp_dot(line.point);
    let discriminant = radius * radius - offset * offset;
    if discriminant < 0.0 {
        return None;
    }
    let half = discriminant.sqrt();
    Some((-along - half, -along + half))
}

/// `v` shortened to at most `radius` (safe for huge and tiny `v`).
fn clamp_length(v: Vec2, radius: f32) -> Vec2 {
    if v.length_squared() <= radius * radius {
        return v;
    }
    // Pre-scaling by the largest component keeps `normalize` finite.
    (v / v.abs().max_element()).normalize_or_zero() * radius
}

#[cfg(test)]
mod tests;
