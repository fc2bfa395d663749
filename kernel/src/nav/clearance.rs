//! Clearance: the free space a vehicle of a given radius can occupy, as
//! polygons with holes — the seed paper's "the path is slightly offset from
//! each obstacle to allow vehicles and platoons to clear them", and its
//! forests and buildings added after load: overlapping obstacles are unioned
//! and containers clipped where obstacles cross them.
//!
//! All boolean operations and the offset are done by `i_overlay` (union,
//! difference, and an outline offset with mitred joins, so an inflated
//! corner stays one corner); nothing here is hand-written geometry beyond
//! orienting the output. The result's contours have the free side on their
//! left: outer boundaries counter-clockwise, holes clockwise.

use glam::DVec2;
use i_overlay::core::fill_rule::FillRule;
use i_overlay::core::overlay_rule::OverlayRule;
use i_overlay::float::single::SingleFloatOverlay;
use i_overlay::mesh::float::outline::offset::OutlineOffset;
use i_overlay::mesh::float::style::{LineJoin, OutlineStyle};
use thiserror::Error;

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
            .filter(|o| !point_in_ring(container[0], o))
            .map(as_contour)
            .collect();
        let subject = vec![as_contour(container)];
        let pieces =
            subject.overlay_as::<i64>(&cutting, OverlayRule::Difference, FillRule::NonZero);
        free.extend(pieces);
    }
    let none: Vec<Contour> = Vec::new();
    let mut shapes = free.overlay_as::<i64>(&none, OverlayRule::Union, FillRule::NonZero);
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

/// Relative turn (sine of the angle) within which a contour vertex counts
/// as straight: far above the rounding of offset polygons (about 1e-15),
/// far below any drawn corner.
const STRAIGHT_REL: f64 = 1e-9;

/// Removes the vertices of `ring` that lie on the straight line through
/// their neighbours (within [`STRAIGHT_REL`]), and repeated points. The
/// offset leaves such vertices collinear only to rounding; kept, the
/// visibility test could measure one a hair into the free space from a
/// segment along its edge, and block that segment, while the vertex itself,
/// straight seen from its neighbours, is no corner for a path to bend
/// round.
fn drop_straight_vertices(ring: &mut Vec<DVec2>) {
    let mut k = 0;
    while ring.len() > 3 && k < ring.len() {
        let n = ring.len();
        let (prev, at, next) = (ring[(k + n - 1) % n], ring[k], ring[(k + 1) % n]);
        let (ahead, behind) = (next - at, at - prev);
        let repeated = ahead == DVec2::ZERO || behind == DVec2::ZERO;
        let straight = ahead.dot(behind) > 0.0
            && ahead.perp_dot(behind).abs() <= STRAIGHT_REL * ahead.length() * behind.length();
        if repeated || straight {
            ring.remove(k);
            k = k.saturating_sub(1);
        } else {
            k += 1;
        }
    }
}

/// Flattens `i_overlay` shapes (outer contour, then holes), orienting every
/// contour with the free side on its left.
fn from_shapes(shapes: &[Vec<Contour>]) -> FreeSpace {
    let mut space = FreeSpace::default();
    for shape in shapes {
        for (k, contour) in shape.iter().enumerate() {
            let mut ring: Vec<DVec2> = contour.iter().map(|&p| DVec2::from(p)).collect();
            drop_straight_vertices(&mut ring);
            if ring.len() < 3 {
                continue;
            }
            let outer = k == 0;
            if (signed_area(&ring) > 0.0) != outer {
                ring.reverse();
            }
            space
                .contours
                .push([space.points.len() as u32, ring.len() as u32]);
            space.contour_piece.push(space.pieces);
            space.points.extend(ring);
        }
        space.pieces += 1;
    }
    space
}
