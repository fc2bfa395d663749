//! Clearance: the free space a vehicle of a given radius can occupy, as
//! polygons with holes — the seed paper's "the path is slightly offset from
//! each obstacle to allow vehicles and platoons to clear them", and its
//! forests and buildings added after load: overlapping obstacles are unioned
//! and containers clipped where obstacles cross them.
//!
//! All boolean operations and the offset are done by `i_overlay` (union,
//! difference, and an outline offset with mitred joins, so an inflated
//! corner stays one corner); nothing here is hand-written geometry beyond
//! orienting the output and, where contours touch at a point (a pinch),
//! tracing them again through it. The result's contours have the free side
//! on their left: outer boundaries counter-clockwise, holes clockwise.

use std::collections::{HashMap, HashSet};

use glam::DVec2;
use i_overlay::core::fill_rule::FillRule;
use i_overlay::core::overlay_rule::OverlayRule;
use i_overlay::core::solver::Solver;
use i_overlay::float::overlay::{FloatOverlay, OverlayOptions};
use i_overlay::i_shape::source::float::resource::ShapeResource;
use i_overlay::mesh::float::outline::offset::OutlineOffset;
use i_overlay::mesh::float::style::{LineJoin, OutlineStyle};
use thiserror::Error;

use super::polygon::mesh::trace_loop;
use super::polygon::{PolygonMap, point_in_ring, signed_area};

/// The free space: closed contours, each tagged with the connected piece
/// (an outer boundary and its holes) it bounds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FreeSpace {
    /// Every contour's vertices, contour after contour.
    pub points: Vec<DVec2>,
    /// Per contour: first index into `points` and vertex count.
    pub contours: Vec<[u32; 2]>,
    /// Per contour: its piece.
    pub contour_piece: Vec<u32>,
    /// Number of pieces (connected components of the free space).
    pub pieces: u32,
}

/// Largest clearance radius accepted, metres: far beyond any vehicle, and
/// small enough that an offset map stays in `i_overlay`'s coordinate range.
pub const MAX_CLEARANCE: f64 = 1e4;

/// Why no free space could be made.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ClearanceError {
    /// The clearance radius is not between 0 and [`MAX_CLEARANCE`].
    #[error("clearance radius must be between 0 and {MAX_CLEARANCE} metres, was {0}")]
    BadRadius(f64),
    /// Nothing is left to drive on.
    #[error("no free space is left (obstacles and clearance {radius} cover every container)")]
    Empty {
        /// The radius used.
        radius: f64,
    },
}

type Contour = Vec<[f64; 2]>;

/// Free space of `map` for a vehicle of radius `radius`: containers minus
/// the obstacles (each obstacle cuts every container it does not enclose, so
/// an island container inside a lake survives), shrunk by `radius`.
///
/// # Errors
/// [`ClearanceError`].
pub fn free_space(map: &PolygonMap, radius: f64) -> Result<FreeSpace, ClearanceError> {
    if !(0.0..=MAX_CLEARANCE).contains(&radius) {
        return Err(ClearanceError::BadRadius(radius));
    }
    let as_contour = |ring: &Vec<DVec2>| -> Contour { ring.iter().map(|p| p.to_array()).collect() };
    let mut free: Vec<Vec<Contour>> = Vec::new();
    for container in &map.containers {
        let cutting: Vec<Contour> = map
            .obstacles
            .iter()
            .filter(|o| !encloses(o, container))
            .map(as_contour)
            .collect();
        let subject = vec![as_contour(container)];
        free.extend(overlay(&subject, &cutting, OverlayRule::Difference));
    }
    let none: Vec<Contour> = Vec::new();
    let mut shapes = overlay(&free, &none, OverlayRule::Union);
    if radius > 0.0 {
        let style =
            OutlineStyle::new(-radius).line_join(LineJoin::Miter(0.1 * std::f64::consts::PI));
        shapes = shapes.outline_as::<i64>(&style);
    }
    let space = from_shapes(&shapes);
    if space.points.is_empty() {
        return Err(ClearanceError::Empty { radius });
    }
    Ok(space)
}

/// `subject` `rule` `clip`, keeping the output's collinear points: where a
/// hole touches its outer boundary on a straight stretch, the point they
/// share stays a vertex of both, for `from_shapes` to find.
fn overlay<S, C>(subject: &S, clip: &C, rule: OverlayRule) -> Vec<Vec<Contour>>
where
    S: ShapeResource<[f64; 2]>,
    C: ShapeResource<[f64; 2]>,
{
    let mut options = OverlayOptions::<f64, i64>::default();
    options.preserve_output_collinear = true;
    FloatOverlay::from_subj_and_clip_custom(subject, clip, options, Solver::default())
        .overlay(rule, FillRule::NonZero)
}

/// Whether `obstacle` encloses `container` (an island in a lake), judged at
/// the container's first vertex that is not one of the obstacle's: a hole
/// touching its container at a pinch point shares that vertex, where the
/// even-odd test may go either way.
fn encloses(obstacle: &[DVec2], container: &[DVec2]) -> bool {
    container
        .iter()
        .find(|p| !obstacle.contains(p))
        .is_some_and(|&p| point_in_ring(p, obstacle))
}

/// Relative turn (sine of the angle) within which a contour vertex counts
/// as straight: far above the rounding of offset polygons (about 1e-15),
/// far below any drawn corner.
const STRAIGHT_REL: f64 = 1e-9;

/// Removes the vertices of `ring` that lie on the straight line through
/// their neighbours (within [`STRAIGHT_REL`]), and repeated points, but
/// never a point in `keep`. The offset leaves such vertices collinear only
/// to rounding; kept, the visibility test could measure one a hair into the
/// free space from a segment along its edge, and block that segment, while
/// the vertex itself, straight seen from its neighbours, is no corner for a
/// path to bend round.
fn drop_straight_vertices(ring: &mut Vec<DVec2>, keep: &HashSet<[u64; 2]>) {
    let mut k = 0;
    while ring.len() > 3 && k < ring.len() {
        let n = ring.len();
        let (prev, at, next) = (ring[(k + n - 1) % n], ring[k], ring[(k + 1) % n]);
        let (ahead, behind) = (next - at, at - prev);
        let repeated = ahead == DVec2::ZERO || behind == DVec2::ZERO;
        let straight = ahead.dot(behind) > 0.0
            && ahead.perp_dot(behind).abs() <= STRAIGHT_REL * ahead.length() * behind.length()
            && !keep.contains(&key(at));
        if repeated || straight {
            ring.remove(k);
            k = k.saturating_sub(1);
        } else {
            k += 1;
        }
    }
}

fn key(p: DVec2) -> [u64; 2] {
    [p.x.to_bits(), p.y.to_bits()]
}

/// Flattens `i_overlay` shapes (outer contour, then holes), orienting every
/// contour with the free side on its left. Where contours touch at a point
/// (a pinch: a hole touching its outer boundary, two pieces meeting at a
/// corner), the contours are traced again through it by the mesh loader's
/// rule, so each visit's neighbours bound one free wedge and no path slips
/// through the point from one wedge to another.
fn from_shapes(shapes: &[Vec<Contour>]) -> FreeSpace {
    let mut seen = HashSet::new();
    let pinches: HashSet<[u64; 2]> = shapes
        .iter()
        .flatten()
        .flat_map(|c| c.iter().map(|&p| key(DVec2::from(p))))
        .filter(|&k| !seen.insert(k))
        .collect();
    let mut rings: Tagged = Vec::new();
    for (piece, shape) in shapes.iter().enumerate() {
        for (k, contour) in shape.iter().enumerate() {
            let mut ring: Vec<DVec2> = contour.iter().map(|&p| DVec2::from(p)).collect();
            drop_straight_vertices(&mut ring, &pinches);
            if ring.len() < 3 {
                continue;
            }
            let outer = k == 0;
            if (signed_area(&ring) > 0.0) != outer {
                ring.reverse();
            }
            rings.push((ring, piece as u32));
        }
    }
    if !pinches.is_empty()
        && let Some(traced) = retrace(&rings)
    {
        rings = traced;
    }
    let mut space = FreeSpace {
        pieces: shapes.len() as u32,
        ..FreeSpace::default()
    };
    for (ring, piece) in rings {
        space
            .contours
            .push([space.points.len() as u32, ring.len() as u32]);
        space.contour_piece.push(piece);
        space.points.extend(ring);
    }
    space
}

/// Contours with the piece each bounds.
type Tagged = Vec<(Vec<DVec2>, u32)>;

/// Chains the rings' edges again into loops (`trace_loop`: at a point with
/// several ways on, the first turn clockwise from the way back); `None` if
/// they do not chain (never for closed rings).
fn retrace(rings: &Tagged) -> Option<Tagged> {
    let mut index: HashMap<[u64; 2], usize> = HashMap::new();
    let mut vertices = Vec::new();
    let mut edges = Vec::new();
    for (ring, piece) in rings {
        let ids: Vec<usize> = ring
            .iter()
            .map(|&p| {
                *index.entry(key(p)).or_insert_with(|| {
                    vertices.push(p);
                    vertices.len() - 1
                })
            })
            .collect();
        let n = ids.len();
        edges.extend((0..n).map(|i| (ids[i], ids[(i + 1) % n], *piece)));
    }
    let mut outgoing: HashMap<usize, Vec<usize>> = HashMap::new();
    for &(a, b, _) in &edges {
        outgoing.entry(a).or_default().push(b);
    }
    let mut traced = Vec::new();
    for &(first, second, piece) in &edges {
        match trace_loop(&vertices, &mut outgoing, first, second) {
            Ok(Some(ring)) => traced.push((ring.iter().map(|&v| vertices[v]).collect(), piece)),
            Ok(None) => {}
            Err(_) => return None,
        }
    }
    Some(traced)
}
