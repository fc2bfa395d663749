//! Turning-radius paths: a polyline's corners replaced by arcs of the
//! vehicle's turning circle, so a vehicle with a minimum turn radius can
//! follow the path without an impossible turn.
//!
//! Method: Smith, "Polygon Soup for the Programmer's Soul: 3D Pathfinding"
//! (GDC 2002), section "Vehicles". Each interior corner gets the vehicle's
//! turning circle, centred on the corner's angle bisector (halfway between
//! `prev - corner` and `next - corner`) at distance `radius`, so the corner
//! point itself lies on the circle. The curve is then, corner by corner, the
//! article's three parts: the exit arc of the previous corner, a straight, and
//! the entry arc of the next corner (one corner's entry and exit arcs are one
//! arc, from its "in" to its "out" tangent point); the start and the goal have
//! only the straight side.
//!
//! Where the article joins "in" and "out" tangent points taken from the
//! neighbouring *path points*, this module joins consecutive circles by their
//! common tangent (the outer tangent when both corners turn the same way, the
//! crossing one when they turn opposite ways), so every straight is tangent to
//! both arcs it meets and the curve has a continuous heading (G1). Next to the
//! start and the goal it is exactly the article's point-to-circle tangent.
//!
//! Every arc has exactly the given radius; nothing is ever tighter.
//!
//! # Degenerate input
//!
//! - Fewer than two points, a non-finite or out-of-range coordinate, or a
//!   radius that is not a finite number in `(0, MAX_COORDINATE]`:
//!   [`TurningPathError`], naming the point.
//! - Repeated points (closer than [`MERGE_DISTANCE`] to the previous kept
//!   point) are merged into one.
//! - Collinear corners (deflection below [`STRAIGHT_ANGLE`], or the corner
//!   within `f32` rounding of the line through its neighbours) need no arc and
//!   get none.
//! - A 180° U-turn corner turns left (counter-clockwise) around a circle
//!   placed back along the path.
//! - Corners too close for their arcs: corners are taken greedily from the
//!   start. A corner is kept only if a common tangent joins its circle to the
//!   last kept circle (or the start) — it does not when the start lies inside
//!   the corner's circle, or when circles of opposite turns overlap — and if
//!   the last kept corner's arc then turns less than π beyond its own
//!   deflection and less than a full circle (more means the vehicle would
//!   drive a loop). Otherwise the corner is dropped. At the goal, kept corners
//!   are dropped from the end until the goal connects. Dropped corners are
//!   reported by [`TurningPath::skipped_corners`]; the curve no longer passes
//!   through them.
//! - When every corner is dropped and the goal coincides with the start there
//!   is no curve: [`TurningPathError::NoFeasibleCurve`].
//!
//! As the article warns, the curve may leave the corridor of the polyline.
//!
//! A follower that needs one corner at a time builds just that corner's
//! piece — straight in, arc, straight out — from the corner and its two
//! neighbours each side ([`CornerCurve`], the same joins), and finds where a
//! point lies along it ([`CornerCurve::locate`]). Wheeled units follow their
//! routes that way (the `paths` stage's route following), at
//! [`following_radius`].
//!
//! # Example
//!
//! ```
//! use convoy::glam::Vec2;
//! use convoy::nav::turning::{TurningPath, TurningPathError};
//!
//! let corner = Vec2::new(50.0, 0.0);
//! let polyline = [Vec2::ZERO, corner, Vec2::new(50.0, 50.0)];
//! let mut path = TurningPath::new(); // working memory: reuse it for every path
//! path.build_into(&polyline, /* radius= */ 6.0)?;
//! // A follower asks where to be after driving some distance along the curve;
//! // this corner is symmetric, so halfway is the corner itself, on the arc.
//! let halfway = path.point_at(0.5 * path.length()).expect("built");
//! assert!(halfway.position.distance(corner) < 1e-3);
//! let points: Vec<Vec2> = path.samples(64).map(|p| p.position).collect();
//! assert_eq!(points.len(), 64);
//! # Ok::<(), TurningPathError>(())
//! ```

use std::f32::consts::{PI, TAU};

use glam::Vec2;
use thiserror::Error;

/// Points closer than this (metres) to the previous kept point are merged.
pub const MERGE_DISTANCE: f32 = 1e-3;

/// Corners deflecting the path by less than this (radians) need no arc.
pub const STRAIGHT_ANGLE: f32 = 1e-4;

/// Largest accepted coordinate magnitude and radius (metres): keeps every
/// squared distance finite in `f32`.
pub const MAX_COORDINATE: f32 = 1e9;

/// Segments shorter than this (metres) are left out of the curve.
const MIN_SEGMENT_LENGTH: f32 = 1e-6;

/// Why no turning path was built.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
pub enum TurningPathError {
    /// The radius is NaN, infinite, not positive or above [`MAX_COORDINATE`].
    #[error("turning radius must be a finite number in (0, {MAX_COORDINATE}], was {radius}")]
    BadRadius {
        /// The radius given.
        radius: f32,
    },
    /// A point has a NaN, infinite or too large coordinate.
    #[error(
        "path point {index} is ({}, {}): coordinates must be finite and within ±{MAX_COORDINATE}",
        point.x,
        point.y
    )]
    BadPoint {
        /// Index of the point in the given slice.
        index: usize,
        /// The point given.
        point: Vec2,
    },
    /// Fewer than two distinct points.
    #[error(
        "a turning path needs at least 2 distinct points, got {distinct} (of {given} given; points closer than {MERGE_DISTANCE} m merge)"
    )]
    TooFewPoints {
        /// Points given.
        given: usize,
        /// Distinct points among them.
        distinct: usize,
    },
    /// The goal coincides with the start and no corner in between fits.
    #[error(
        "no curve: the goal coincides with the start and every corner between them is too tight for radius {radius}"
    )]
    NoFeasibleCurve {
        /// The radius given.
        radius: f32,
    },
}

/// One piece of a turning path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Segment {
    /// A straight from `from` to `to`.
    Line {
        /// Where the straight starts.
        from: Vec2,
        /// Where it ends.
        to: Vec2,
    },
    /// An arc of a circle, starting at angle `start_angle` (radians, from +x
    /// counter-clockwise) and turning by `sweep`: positive counter-clockwise
    /// (a left turn), negative clockwise.
    Arc {
        /// The circle's centre.
        centre: Vec2,
        /// The circle's radius.
        radius: f32,
        /// Angle of the arc's start point seen from the centre.
        start_angle: f32,
        /// Signed angle the arc turns through.
        sweep: f32,
    },
}

/// A point of a curve and the direction of travel there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathPoint {
    /// The position.
    pub position: Vec2,
    /// Unit tangent in the direction of travel.
    pub direction: Vec2,
}

impl PathPoint {
    /// The direction of travel as an angle (radians from +x, counter-clockwise),
    /// the convention of the `heading` column.
    #[must_use]
    pub fn heading(&self) -> f32 {
        self.direction.to_angle()
    }
}

impl Segment {
    /// Length along the segment.
    #[must_use]
    pub fn length(&self) -> f32 {
        match *self {
            Segment::Line { from, to } => from.distance(to),
            Segment::Arc { radius, sweep, .. } => radius * sweep.abs(),
        }
    }

    /// The point `distance` along the segment (clamped to the segment; NaN
    /// reads as 0).
    #[must_use]
    pub fn point_at(&self, distance: f32) -> PathPoint {
        let length = self.length();
        // A NaN distance reads as the start.
        let fraction = if length > 0.0 && !distance.is_nan() {
            (distance / length).clamp(0.0, 1.0)
        } else {
            0.0
        };
        match *self {
            Segment::Line { from, to } => PathPoint {
                position: from.lerp(to, fraction),
                direction: (to - from).normalize_or_zero(),
            },
            Segment::Arc {
                centre,
                radius,
                start_angle,
                sweep,
            } => {
                let radial = Vec2::from_angle(start_angle + sweep * fraction);
                PathPoint {
                    position: centre + radius * radial,
                    direction: radial.perp() * sweep.signum(),
                }
            }
        }
    }

    /// The segment's first point.
    #[must_use]
    pub fn start(&self) -> PathPoint {
        self.point_at(0.0)
    }

    /// The segment's last point.
    #[must_use]
    pub fn end(&self) -> PathPoint {
        self.point_at(self.length())
    }
}

impl Segment {
    /// The point of the segment nearest `point`: its distance along the
    /// segment and its distance from `point`.
    #[must_use]
    pub fn closest(&self, point: Vec2) -> (f32, f32) {
        match *self {
            Segment::Line { from, to } => {
                let span = to - from;
                let length_squared = span.length_squared();
                let fraction = if length_squared > 0.0 {
                    ((point - from).dot(span) / length_squared).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                let nearest = from + span * fraction;
                (fraction * length_squared.sqrt(), nearest.distance(point))
            }
            Segment::Arc { .. } => {
                if let Some(nearest) = self.closest_within_arc(point) {
                    return nearest;
                }
                // Beyond the arc: whichever end is nearer.
                let (to_start, to_end) = (
                    self.start().position.distance(point),
                    self.end().position.distance(point),
                );
                if to_start <= to_end {
                    (0.0, to_start)
                } else {
                    (self.length(), to_end)
                }
            }
        }
    }

    /// For an arc, [`Segment::closest`] when the point nearest `point` is
    /// not an end (`point` lies within the arc's angle); else `None`.
    fn closest_within_arc(&self, point: Vec2) -> Option<(f32, f32)> {
        let Segment::Arc {
            centre,
            radius,
            start_angle,
            sweep,
        } = *self
        else {
            return None;
        };
        let offset = point - centre;
        let start = Vec2::from_angle(start_angle);
        let turn = if sweep < 0.0 { -1.0 } else { 1.0 };
        let angle = turn * start.perp_dot(offset).atan2(start.dot(offset));
        let angle = if angle < 0.0 { angle + TAU } else { angle };
        (angle <= sweep.abs()).then(|| (radius * angle, (offset.length() - radius).abs()))
    }
}

/// The radius a vehicle of minimum turn radius `min_radius` follows its
/// route's corners with: [`FOLLOW_RADIUS_MARGIN`] wider, so it can steer back
/// onto an arc it has drifted off without exceeding its limit.
#[must_use]
pub fn following_radius(min_radius: f32) -> f32 {
    min_radius * FOLLOW_RADIUS_MARGIN
}

/// How much wider than its minimum a vehicle's followed arcs are.
pub const FOLLOW_RADIUS_MARGIN: f32 = 1.25;

/// The turning path around one corner of a polyline, built from that corner
/// and its neighbours alone: the straight arriving on the corner's arc (from
/// the previous corner's arc, or from the start), the arc, and the straight
/// leaving it (to the next corner's arc, or to the goal). A follower needs
/// only this piece of the curve at a time, so it never builds the whole
/// [`TurningPath`].
///
/// The pieces are the same joins as [`TurningPath::build_into`]'s, so they
/// equal that path's around the corner whenever that path keeps the corner
/// and its neighbours; a neighbour whose own corner is straight stands in as
/// a point. Corners [`TurningPath`] would drop have no `CornerCurve`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CornerCurve {
    /// The straight in, the arc, the straight out.
    pub pieces: [Segment; 3],
}

/// Where a point lies along a [`CornerCurve`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurvePosition {
    /// The piece nearest the point: 0 the straight in, 1 the arc, 2 the
    /// straight out (ties go to the earlier piece).
    pub piece: usize,
    /// Distance along the curve to the nearest point.
    pub along: f32,
    /// Distance from the point to the curve.
    pub off: f32,
}

impl CornerCurve {
    /// The curve around `near[corner]`, where `near` holds the polyline
    /// from two points before the corner (or from the polyline's start) to
    /// two points after it (or to its goal), for turning radius `radius`.
    /// `None` when the corner is an end of `near`, is straight, repeats a
    /// neighbour, or has no arc joining its neighbours (see the module docs:
    /// such a corner is dropped).
    #[must_use]
    pub fn around(near: &[Vec2], corner: usize, radius: f32) -> Option<CornerCurve> {
        if corner == 0 || corner + 1 >= near.len() || !(radius > 0.0 && radius <= MAX_COORDINATE) {
            return None;
        }
        let this = circle_of(near, corner, radius)?;
        let before = circle_of(near, corner - 1, radius)
            .unwrap_or_else(|| Anchor::point(near[corner - 1], corner - 1));
        let after = circle_of(near, corner + 1, radius)
            .unwrap_or_else(|| Anchor::point(near[corner + 1], corner + 1));
        let (leave_before, entry) = common_tangent(&before, &this, radius)?;
        let (exit, arrive_after) = common_tangent(&this, &after, radius)?;
        let sweep = turn_angle(this.centre, this.turn, entry, exit);
        if is_loop(sweep, this.deflection) {
            return None;
        }
        Some(CornerCurve {
            pieces: [
                Segment::Line {
                    from: leave_before,
                    to: entry,
                },
                Segment::Arc {
                    centre: this.centre,
                    radius,
                    start_angle: (entry - this.centre).to_angle(),
                    sweep: sweep * this.turn,
                },
                Segment::Line {
                    from: exit,
                    to: arrive_after,
                },
            ],
        })
    }

    /// Distance along the curve at which the arc starts.
    #[must_use]
    pub fn arc_start(&self) -> f32 {
        self.pieces[0].length()
    }

    /// The point of the curve nearest `point`.
    #[must_use]
    pub fn locate(&self, point: Vec2) -> CurvePosition {
        let mut best = CurvePosition {
            piece: 0,
            along: 0.0,
            off: f32::INFINITY,
        };
        let mut before = 0.0;
        for (piece, segment) in self.pieces.iter().enumerate() {
            // The arc's ends are the straights' ends: only its inside counts.
            let nearest = if piece == 1 {
                segment.closest_within_arc(point)
            } else {
                Some(segment.closest(point))
            };
            let Some((along, off)) = nearest else {
                before += segment.length();
                continue;
            };
            if off < best.off {
                best = CurvePosition {
                    piece,
                    along: before + along,
                    off,
                };
            }
            before += segment.length();
        }
        best
    }

    /// The point `distance` along the curve, clamped to its ends.
    #[must_use]
    pub fn point_at(&self, distance: f32) -> PathPoint {
        let mut rest = distance.max(0.0);
        for segment in &self.pieces[..2] {
            let length = segment.length();
            if rest <= length {
                return segment.point_at(rest);
            }
            rest -= length;
        }
        self.pieces[2].point_at(rest)
    }
}

/// The turning circle of `near[index]` if it is a corner (neither end of
/// `near`, distinct from its neighbours, not straight).
fn circle_of(near: &[Vec2], index: usize, radius: f32) -> Option<Anchor> {
    if index == 0 || index + 1 >= near.len() {
        return None;
    }
    let (prev, at, next) = (near[index - 1], near[index], near[index + 1]);
    if prev.distance(at) < MERGE_DISTANCE || at.distance(next) < MERGE_DISTANCE {
        return None;
    }
    corner_circle(prev, at, next, radius, index)
}

/// A turning circle (or, with `turn == 0`, the start or goal point) in the
/// chain the curve is built from.
#[derive(Debug, Clone, Copy)]
struct Anchor {
    centre: Vec2,
    /// +1 turns left (counter-clockwise), −1 right, 0 for the start and goal.
    turn: f32,
    /// Angle between the corner's incoming and outgoing polyline directions.
    deflection: f32,
    /// Index of the corner (or point) in the caller's slice.
    index: usize,
    /// Where the curve arrives on the circle.
    entry: Vec2,
    /// Where the curve leaves it.
    exit: Vec2,
    /// Signed angle from `entry` to `exit` around the circle.
    sweep: f32,
}

impl Anchor {
    fn point(at: Vec2, index: usize) -> Self {
        Anchor {
            centre: at,
            turn: 0.0,
            deflection: 0.0,
            index,
            entry: at,
            exit: at,
            sweep: 0.0,
        }
    }

    fn is_corner(&self) -> bool {
        self.turn != 0.0
    }
}

/// A turning-radius path: straights and arcs of one radius, from the first
/// point of a polyline to its last, with a continuous position and heading.
///
/// Working memory: build it once with [`TurningPath::new`] and rebuild with
/// [`TurningPath::build_into`]; once its buffers have grown to the longest
/// path, rebuilding allocates nothing.
#[derive(Debug, Clone, Default)]
pub struct TurningPath {
    curve: Curve,
    radius: f32,
    skipped: Vec<usize>,
    /// Scratch: the distinct points with their index in the caller's slice.
    distinct: Vec<(usize, Vec2)>,
    /// Scratch: the kept anchors, start to goal.
    anchors: Vec<Anchor>,
}

impl TurningPath {
    /// An empty path, to be filled by [`TurningPath::build_into`].
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds the turning path of `points` (start, corners…, goal) for a
    /// vehicle of minimum turn radius `radius`.
    pub fn build(points: &[Vec2], radius: f32) -> Result<Self, TurningPathError> {
        let mut path = Self::new();
        path.build_into(points, radius)?;
        Ok(path)
    }

    /// Rebuilds this path for `points` and `radius`, reusing its buffers. On
    /// error the path is left empty.
    pub fn build_into(&mut self, points: &[Vec2], radius: f32) -> Result<(), TurningPathError> {
        self.clear();
        if !(radius > 0.0 && radius <= MAX_COORDINATE) {
            return Err(TurningPathError::BadRadius { radius });
        }
        self.collect_distinct(points)?;
        self.chain_anchors(radius)?;
        self.radius = radius;
        self.emit_segments(radius);
        Ok(())
    }

    /// The segments, start to goal.
    #[must_use]
    pub fn segments(&self) -> &[Segment] {
        &self.curve.segments
    }

    /// Total length (metres).
    #[must_use]
    pub fn length(&self) -> f32 {
        self.curve.length
    }

    /// The turn radius the path was built for (0 when empty).
    #[must_use]
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// Indices (into the slice given to `build_into`) of corners dropped because
    /// their arcs did not fit, ascending. See the module docs.
    #[must_use]
    pub fn skipped_corners(&self) -> &[usize] {
        &self.skipped
    }

    /// The point `distance` metres along the path, clamped to `[0, length]`
    /// (NaN reads as 0), with the direction of travel there; `None` only for an
    /// empty path.
    #[must_use]
    pub fn point_at(&self, distance: f32) -> Option<PathPoint> {
        let curve = &self.curve;
        let index = curve
            .starts
            .partition_point(|&start| start <= distance)
            .saturating_sub(1);
        let segment = curve.segments.get(index)?;
        Some(segment.point_at(distance - curve.starts[index]))
    }

    /// `count` points (at least 2) evenly spaced along the path, both ends
    /// included; nothing for an empty path.
    pub fn samples(&self, count: usize) -> impl Iterator<Item = PathPoint> + '_ {
        let intervals = count.max(2) - 1;
        (0..=intervals)
            .filter_map(move |step| self.point_at(self.length() * (step as f32 / intervals as f32)))
    }

    fn clear(&mut self) {
        self.curve.clear();
        self.skipped.clear();
        self.radius = 0.0;
    }

    fn collect_distinct(&mut self, points: &[Vec2]) -> Result<(), TurningPathError> {
        self.distinct.clear();
        for (index, &point) in points.iter().enumerate() {
            if !(point.is_finite() && point.abs().max_element() <= MAX_COORDINATE) {
                return Err(TurningPathError::BadPoint { index, point });
            }
            let repeated = self
                .distinct
                .last()
                .is_some_and(|&(_, last)| last.distance(point) < MERGE_DISTANCE);
            if !repeated {
                self.distinct.push((index, point));
            }
        }
        if self.distinct.len() < 2 {
            return Err(TurningPathError::TooFewPoints {
                given: points.len(),
                distinct: self.distinct.len(),
            });
        }
        Ok(())
    }

    /// Fills `anchors` with the start, the kept corners' circles and the goal,
    /// each joined to the next (see the module docs for which corners are kept).
    fn chain_anchors(&mut self, radius: f32) -> Result<(), TurningPathError> {
        let (start_index, start) = self.distinct[0];
        self.anchors.clear();
        self.anchors.push(Anchor::point(start, start_index));
        for window in self.distinct.windows(3) {
            let [(_, prev), (corner, at), (_, next)] = [window[0], window[1], window[2]];
            let Some(circle) = corner_circle(prev, at, next, radius, corner) else {
                continue;
            };
            if !join(&mut self.anchors, circle, radius) {
                self.skipped.push(corner);
            }
        }
        let &(goal_index, goal) = self.distinct.last().expect("at least two distinct points");
        let goal = Anchor::point(goal, goal_index);
        while !join(&mut self.anchors, goal, radius) {
            if self.anchors.len() == 1 {
                self.skipped.clear();
                return Err(TurningPathError::NoFeasibleCurve { radius });
            }
            let dropped = self.anchors.pop().expect("more than the start");
            self.skipped.push(dropped.index);
        }
        self.skipped.sort_unstable();
        Ok(())
    }

    fn emit_segments(&mut self, radius: f32) {
        for (index, anchor) in self.anchors.iter().enumerate() {
            if anchor.is_corner() {
                let arc = Segment::Arc {
                    centre: anchor.centre,
                    radius,
                    start_angle: (anchor.entry - anchor.centre).to_angle(),
                    sweep: anchor.sweep,
                };
                self.curve.push(arc);
            }
            if let Some(next) = self.anchors.get(index + 1) {
                let line = Segment::Line {
                    from: anchor.exit,
                    to: next.entry,
                };
                self.curve.push(line);
            }
        }
    }
}

/// The segments of a path with their cumulative lengths.
#[derive(Debug, Clone, Default)]
struct Curve {
    segments: Vec<Segment>,
    /// Distance along the path at which each segment starts.
    starts: Vec<f32>,
    length: f32,
}

impl Curve {
    fn clear(&mut self) {
        self.segments.clear();
        self.starts.clear();
        self.length = 0.0;
    }

    /// Appends `segment` unless it is shorter than [`MIN_SEGMENT_LENGTH`].
    fn push(&mut self, segment: Segment) {
        let length = segment.length();
        if length > MIN_SEGMENT_LENGTH {
            self.starts.push(self.length);
            self.length += length;
            self.segments.push(segment);
        }
    }
}

/// The turning circle of the corner `at` between `prev` and `next`: centred on
/// the bisector, `radius` from the corner. `None` for a straight corner.
fn corner_circle(prev: Vec2, at: Vec2, next: Vec2, radius: f32, corner: usize) -> Option<Anchor> {
    let incoming = (at - prev).normalize();
    let outgoing = (next - at).normalize();
    let cross = incoming.perp_dot(outgoing);
    let dot = incoming.dot(outgoing);
    let deflection = cross.abs().atan2(dot);
    if deflection < STRAIGHT_ANGLE || (dot > 0.0 && within_rounding_of_line(prev, at, next)) {
        return None;
    }
    // An exact U-turn has no side: it turns left.
    let turn = if cross < 0.0 { -1.0 } else { 1.0 };
    // Inward bisector of (prev − at) and (next − at), from whichever formula is
    // well conditioned: their sum vanishes for a straight corner, the sum of
    // the travel directions for a U-turn.
    let inward = if dot >= 0.0 {
        turn * (incoming + outgoing).normalize().perp()
    } else {
        (outgoing - incoming).normalize()
    };
    let centre = at + radius * inward;
    Some(Anchor {
        centre,
        turn,
        deflection,
        index: corner,
        entry: centre,
        exit: centre,
        sweep: 0.0,
    })
}

/// Whether `at` lies on the line through `prev` and `next` up to the `f32`
/// rounding of the coordinates: a short leg of a straight polyline otherwise
/// shows a spurious deflection.
fn within_rounding_of_line(prev: Vec2, at: Vec2, next: Vec2) -> bool {
    let chord = next - prev;
    let offset = (at - prev).perp_dot(chord).abs() / chord.length();
    let magnitude = prev
        .abs()
        .max(at.abs())
        .max(next.abs())
        .max_element()
        .max(1.0);
    offset <= 4.0 * f32::EPSILON * magnitude
}

/// Joins `next` to the last anchor of `chain` by their common tangent and
/// pushes it. Refuses (returns false, `chain` unchanged) when there is no
/// such tangent or the last anchor's arc would loop.
fn join(chain: &mut Vec<Anchor>, mut next: Anchor, radius: f32) -> bool {
    let last = chain
        .last_mut()
        .expect("the chain starts with the start point");
    let Some((leave, arrive)) = common_tangent(last, &next, radius) else {
        return false;
    };
    let sweep = if last.is_corner() {
        let sweep = turn_angle(last.centre, last.turn, last.entry, leave);
        if is_loop(sweep, last.deflection) {
            return false;
        }
        sweep * last.turn
    } else {
        0.0
    };
    last.exit = leave;
    last.sweep = sweep;
    next.entry = arrive;
    chain.push(next);
    true
}

/// Whether an arc turning `sweep` at a corner of `deflection` is a loop: it
/// turns more than π beyond the corner's own deflection, or (within
/// [`STRAIGHT_ANGLE`]) a full circle — which is also what an empty arc looks
/// like when rounding puts its exit a hair before its entry.
fn is_loop(sweep: f32, deflection: f32) -> bool {
    sweep > (deflection + PI).min(TAU - STRAIGHT_ANGLE)
}

/// The tangent line leaving circle (or point) `from` in its turning direction
/// and arriving on `to` in its turning direction: the points where it touches
/// each. `None` when no such line exists.
fn common_tangent(from: &Anchor, to: &Anchor, radius: f32) -> Option<(Vec2, Vec2)> {
    // Signed radii: the centre lies `signed` to the left of the direction of
    // travel, so the line's direction `d` satisfies cross(d, c₂ − c₁) = ρ₂ − ρ₁.
    let from_signed = from.turn * radius;
    let to_signed = to.turn * radius;
    let offset = to.centre - from.centre;
    let distance = offset.length();
    let difference = to_signed - from_signed;
    if !(distance >= MERGE_DISTANCE && difference.abs() <= distance) {
        return None;
    }
    let sine = difference / distance;
    let cosine = (1.0 - sine * sine).max(0.0).sqrt();
    let direction = Vec2::new(cosine, -sine).rotate(offset / distance);
    let left = direction.perp();
    Some((
        from.centre - from_signed * left,
        to.centre - to_signed * left,
    ))
}

/// Angle (in `[0, 2π)`) travelled around `centre` from `entry` to `exit`
/// when turning in direction `turn` (+1 counter-clockwise, −1 clockwise).
fn turn_angle(centre: Vec2, turn: f32, entry: Vec2, exit: Vec2) -> f32 {
    let from = entry - centre;
    let to = exit - centre;
    let angle = turn * from.perp_dot(to).atan2(from.dot(to));
    if angle < 0.0 { angle + TAU } else { angle }
}
