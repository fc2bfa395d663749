//! Polygon maps for the Force 21 platoon planner (Pottinger, *Implementing
//! Coordinated Movement*, Game Developer 1999 — the seed paper's section 3):
//! containers (outer boundaries, several allowed), impassable obstacles,
//! swamps (passable polygons with a cost multiplier), roads (polylines joined
//! where they share a vertex) and bridges (two ends and a middle, with an id).
//!
//! A [`PolygonMap`] is plain data; [`PolygonMap::validate`] checks it once at
//! the boundary and names the bad element in a [`PolygonMapError`] (every
//! coordinate lies within [`MAX_COORDINATE`] metres of 0 on each axis). Loaders:
//! [`json`] (the documented JSON format) and [`mesh`] (Polyanya's `.mesh`
//! version 2, whose boundary edges become containers and obstacles); and
//! [`grid`] traces a Moving AI grid's passable cells into free-space
//! contours directly.

pub mod grid;
pub mod json;
pub mod mesh;
mod pinch;
pub mod raster;

use glam::DVec2;
use thiserror::Error;

use super::MAX_COORDINATE;

pub use grid::{crosses_blocked_cell, trace_grid};
pub use json::{PolygonFileError, load_polygon_map, parse_polygon_map};
pub use mesh::{MeshError, MeshParseError, load_mesh, parse_mesh};
pub use raster::{RasterError, rasterize, redraw_bridge_decks};

/// A closed ring of points (the closing edge from the last point back to the
/// first is implied; the first point is not repeated).
pub type Ring = Vec<DVec2>;

/// A passable area where moving costs `cost` times the distance.
#[derive(Clone, Debug, PartialEq)]
pub struct Swamp {
    /// The outline.
    pub ring: Ring,
    /// Cost multiplier, at least 1.
    pub cost: f64,
}

/// A bridge: two ends on land and a middle point over whatever it spans.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BridgeSpec {
    /// Unique id.
    pub id: u32,
    /// The two ends (each must lie inside a container).
    pub ends: [DVec2; 2],
    /// The middle of the deck.
    pub middle: DVec2,
}

impl BridgeSpec {
    /// The deck's polyline: end, middle, end.
    #[must_use]
    pub fn deck(&self) -> [DVec2; 3] {
        [self.ends[0], self.middle, self.ends[1]]
    }
}

/// A polygon map: the seed paper's containers, obstacles, swamps, roads and
/// bridges.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolygonMap {
    /// Outer boundaries of the passable land (simple polygons).
    pub containers: Vec<Ring>,
    /// Impassable areas; may overlap each other and cross containers (they
    /// are unioned and clipped, see [`clearance`](super::clearance)).
    pub obstacles: Vec<Ring>,
    /// Slow areas.
    pub swamps: Vec<Swamp>,
    /// Roads as polylines; roads sharing a vertex are joined there.
    pub roads: Vec<Vec<DVec2>>,
    /// Bridges present when the map loads.
    pub bridges: Vec<BridgeSpec>,
}

/// What is wrong with a polygon map; every variant names the element.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum PolygonMapError {
    /// A coordinate is NaN or infinite.
    #[error("{element}: point {index} is not finite ({x}, {y})")]
    NotFinite {
        /// E.g. `obstacles[3]`.
        element: String,
        /// Index of the point.
        index: usize,
        /// The x coordinate.
        x: f64,
        /// The y coordinate.
        y: f64,
    },
    /// A coordinate lies further than [`MAX_COORDINATE`] metres from 0.
    #[error(
        "{element}: point {index} ({x}, {y}) lies further than {MAX_COORDINATE} m from (0, 0) on an axis"
    )]
    OutOfRange {
        /// E.g. `containers[0]`.
        element: String,
        /// Index of the point.
        index: usize,
        /// The x coordinate.
        x: f64,
        /// The y coordinate.
        y: f64,
    },
    /// A ring has fewer than three distinct points, or no area.
    #[error("{element}: a polygon needs at least 3 points and some area, has {points} points")]
    Degenerate {
        /// The element.
        element: String,
        /// Its point count.
        points: usize,
    },
    /// A ring in a file does not end where it starts.
    #[error("{element}: ring is not closed: last point ({}, {}) differs from the first ({}, {})", last.x, last.y, first.x, first.y)]
    Unclosed {
        /// The element.
        element: String,
        /// First point.
        first: DVec2,
        /// Last point.
        last: DVec2,
    },
    /// A container's edges cross.
    #[error("{element}: edge {first} crosses edge {second} (self-intersecting polygon)")]
    SelfIntersecting {
        /// The element.
        element: String,
        /// Index of one edge (edge i runs from point i to point i + 1).
        first: usize,
        /// Index of the other edge.
        second: usize,
    },
    /// A swamp's multiplier is below 1 or not finite.
    #[error("{element}: cost multiplier must be finite and at least 1, was {cost}")]
    BadCost {
        /// The element.
        element: String,
        /// The multiplier.
        cost: f64,
    },
    /// A road has fewer than two points.
    #[error("{element}: a road needs at least 2 points, has {points}")]
    ShortRoad {
        /// The element.
        element: String,
        /// Its point count.
        points: usize,
    },
    /// A bridge end lies outside every container.
    #[error("bridge {id}: end {end} ({}, {}) lies outside every container", point.x, point.y)]
    BridgeEndOutside {
        /// Bridge id.
        id: u32,
        /// 0 or 1.
        end: usize,
        /// The end.
        point: DVec2,
    },
    /// Two bridges share an id.
    #[error("bridge {id}: the id is used twice")]
    DuplicateBridge {
        /// The id.
        id: u32,
    },
    /// The map has no container.
    #[error("the map has no container")]
    NoContainer,
}

impl PolygonMap {
    /// Checks every element (see [`PolygonMapError`]); containers are also
    /// checked for self-intersection (O(n²) per container, once at load).
    ///
    /// # Errors
    /// The first bad element found.
    pub fn validate(&self) -> Result<(), PolygonMapError> {
        if self.containers.is_empty() {
            return Err(PolygonMapError::NoContainer);
        }
        for (i, ring) in self.containers.iter().enumerate() {
            let element = format!("containers[{i}]");
            check_finite(&element, ring)?;
            check_simple(&element, ring)?;
            check_ring(&element, ring)?;
        }
        for (i, ring) in self.obstacles.iter().enumerate() {
            check_ring(&format!("obstacles[{i}]"), ring)?;
        }
        for (i, swamp) in self.swamps.iter().enumerate() {
            let element = format!("swamps[{i}]");
            check_ring(&element, &swamp.ring)?;
            if !(swamp.cost.is_finite() && swamp.cost >= 1.0) {
                return Err(PolygonMapError::BadCost {
                    element,
                    cost: swamp.cost,
                });
            }
        }
        for (i, road) in self.roads.iter().enumerate() {
            let element = format!("roads[{i}]");
            check_finite(&element, road)?;
            if road.len() < 2 {
                return Err(PolygonMapError::ShortRoad {
                    element,
                    points: road.len(),
                });
            }
        }
        self.check_bridges()
    }

    fn check_bridges(&self) -> Result<(), PolygonMapError> {
        let mut ids: Vec<u32> = self.bridges.iter().map(|b| b.id).collect();
        ids.sort_unstable();
        if let Some(pair) = ids.windows(2).find(|w| w[0] == w[1]) {
            return Err(PolygonMapError::DuplicateBridge { id: pair[0] });
        }
        for bridge in &self.bridges {
            let element = format!("bridges[id={}]", bridge.id);
            check_finite(&element, &[bridge.ends[0], bridge.ends[1], bridge.middle])?;
            for (end, &point) in bridge.ends.iter().enumerate() {
                if !self.containers.iter().any(|c| point_in_ring(point, c)) {
                    return Err(PolygonMapError::BridgeEndOutside {
                        id: bridge.id,
                        end,
                        point,
                    });
                }
            }
        }
        Ok(())
    }
}

/// Every point finite and within [`MAX_COORDINATE`] of 0 on each axis, so
/// the clearance offsets and path lengths stay finite.
fn check_finite(element: &str, points: &[DVec2]) -> Result<(), PolygonMapError> {
    let within = |p: &DVec2| p.x.abs() <= MAX_COORDINATE && p.y.abs() <= MAX_COORDINATE;
    let Some(index) = points.iter().position(|p| !within(p)) else {
        return Ok(());
    };
    let (element, DVec2 { x, y }) = (element.to_owned(), points[index]);
    Err(if points[index].is_finite() {
        PolygonMapError::OutOfRange {
            element,
            index,
            x,
            y,
        }
    } else {
        PolygonMapError::NotFinite {
            element,
            index,
            x,
            y,
        }
    })
}

pub(crate) fn check_ring(element: &str, ring: &[DVec2]) -> Result<(), PolygonMapError> {
    check_finite(element, ring)?;
    if ring.len() < 3 || signed_area(ring) == 0.0 {
        return Err(PolygonMapError::Degenerate {
            element: element.to_owned(),
            points: ring.len(),
        });
    }
    Ok(())
}

/// Refuses a ring with two non-adjacent edges that touch or cross, naming
/// the lowest such pair. Edges are swept in order of their least x, so only
/// pairs whose x ranges overlap are tested (near-linear on map outlines
/// with thousands of vertices).
pub(crate) fn check_simple(element: &str, ring: &[DVec2]) -> Result<(), PolygonMapError> {
    let n = ring.len();
    let edge = |i: usize| (ring[i], ring[(i + 1) % n]);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by(|&i, &j| {
        let (a, b) = (edge(i), edge(j));
        a.0.x.min(a.1.x).total_cmp(&b.0.x.min(b.1.x))
    });
    let mut worst: Option<(usize, usize)> = None;
    for (k, &i) in order.iter().enumerate() {
        let (a, b) = edge(i);
        let right = a.x.max(b.x);
        for &j in &order[k + 1..] {
            let (c, d) = edge(j);
            if c.x.min(d.x) > right {
                break;
            }
            let (lo, hi) = (i.min(j), i.max(j));
            let adjacent = hi == lo + 1 || (lo == 0 && hi == n - 1);
            if !adjacent && segments_touch(a, b, c, d) && worst.is_none_or(|w| (lo, hi) < w) {
                worst = Some((lo, hi));
            }
        }
    }
    match worst {
        None => Ok(()),
        Some((first, second)) => Err(PolygonMapError::SelfIntersecting {
            element: element.to_owned(),
            first,
            second,
        }),
    }
}

/// Twice the signed area (positive when counter-clockwise).
#[must_use]
pub fn signed_area(ring: &[DVec2]) -> f64 {
    let n = ring.len();
    (0..n)
        .map(|i| ring[i].perp_dot(ring[(i + 1) % n]))
        .sum::<f64>()
}

/// Even-odd point-in-polygon test (points on the boundary may go either way).
#[must_use]
pub fn point_in_ring(p: DVec2, ring: &[DVec2]) -> bool {
    let n = ring.len();
    let mut inside = false;
    for i in 0..n {
        let (a, b) = (ring[i], ring[(i + 1) % n]);
        if (a.y > p.y) != (b.y > p.y) {
            let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x);
            if p.x < x {
                inside = !inside;
            }
        }
    }
    inside
}

/// `(b - a) × (c - a)`: positive when `a, b, c` turn counter-clockwise.
#[inline]
#[must_use]
pub fn orient(a: DVec2, b: DVec2, c: DVec2) -> f64 {
    (b - a).perp_dot(c - a)
}

/// Whether closed segments `ab` and `cd` share a point.
#[must_use]
pub fn segments_touch(a: DVec2, b: DVec2, c: DVec2, d: DVec2) -> bool {
    let (o1, o2) = (orient(a, b, c), orient(a, b, d));
    let (o3, o4) = (orient(c, d, a), orient(c, d, b));
    if o1 * o2 < 0.0 && o3 * o4 < 0.0 {
        return true;
    }
    let on = |p: DVec2, q: DVec2, r: DVec2, o: f64| o == 0.0 && within_box(p, q, r);
    on(a, b, c, o1) || on(a, b, d, o2) || on(c, d, a, o3) || on(c, d, b, o4)
}

/// Whether `r` lies in the bounding box of `p` and `q`.
#[inline]
fn within_box(p: DVec2, q: DVec2, r: DVec2) -> bool {
    r.x >= p.x.min(q.x) && r.x <= p.x.max(q.x) && r.y >= p.y.min(q.y) && r.y <= p.y.max(q.y)
}
