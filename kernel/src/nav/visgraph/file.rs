//! The binary form of a [`VisGraph`]: built once per map, loaded at mission
//! start (the seed paper saves its graph "as part of the terrain file").
//!
//! Layout (little-endian): the magic `CVYVISGR`, a `u32` version, the body's
//! length (`u64`) and XXH3-64, then the body: settings, the free space's
//! contours, the swamps, the nodes and the CSR edges (targets, plain costs,
//! lengths, road flags). Effective costs, the corners' sectors, the node grid
//! and the edge grid are rebuilt on load. Truncated, corrupted or wrong-version blobs,
//! and blobs with numbers out of range (points beyond [`MAX_COORDINATE`], NaN
//! or negative costs, more pieces than contours), are refused with a
//! [`GraphFileError`].

use std::io::{Read, Write};

use glam::DVec2;
use thiserror::Error;
use xxhash_rust::xxh3::xxh3_64;

use super::boundary::Boundary;
use super::nodes::NodeGrid;
use super::swamps::Swamps;
use super::{GraphConfig, NO_VERTEX, VisGraph};
use crate::nav::MAX_COORDINATE;
use crate::nav::clearance::{FreeSpace, MAX_CLEARANCE};
use crate::nav::polygon::Swamp;

const MAGIC: &[u8; 8] = b"CVYVISGR";
const VERSION: u32 = 1;

/// Why a graph blob was refused.
#[derive(Debug, Error)]
pub enum GraphFileError {
    /// Reading or writing failed.
    #[error("graph file: {0}")]
    Io(#[from] std::io::Error),
    /// Not a graph blob.
    #[error("graph file: bad magic, not a convoy visibility graph")]
    BadMagic,
    /// Written by another format version.
    #[error("graph file: version {found}, this build reads version {VERSION}")]
    Version {
        /// The version found.
        found: u32,
    },
    /// The body does not match its checksum.
    #[error("graph file: checksum mismatch (corrupted)")]
    Checksum,
    /// The body ends inside a section.
    #[error("graph file: truncated in section `{0}`")]
    Truncated(&'static str),
    /// A section holds impossible values.
    #[error("graph file: section `{0}` is inconsistent")]
    Corrupt(&'static str),
    /// A number is NaN, infinite or out of its range: points further than
    /// [`MAX_COORDINATE`] from 0, negative costs or lengths, a clearance
    /// above [`MAX_CLEARANCE`].
    #[error("graph file: value {index} of section `{section}` is {value}, out of range")]
    OutOfRange {
        /// The section.
        section: &'static str,
        /// The value's index in it (a point's, for points).
        index: usize,
        /// The value (for a point, its larger coordinate's magnitude).
        value: f64,
    },
}

impl VisGraph {
    /// Writes the graph.
    ///
    /// # Errors
    /// I/O errors.
    pub fn save(&self, out: &mut impl Write) -> Result<(), GraphFileError> {
        let mut body = Vec::new();
        let space = self.boundary.space();
        put_f64s(
            &mut body,
            &[self.config.clearance, self.config.road_cost_factor],
        );
        put_points(&mut body, &space.points);
        put_u32s(&mut body, bytemuck::cast_slice(&space.contours));
        put_u32s(&mut body, &space.contour_piece);
        put_u32s(&mut body, &[space.pieces]);
        put_u32s(&mut body, &[self.swamps.list().len() as u32]);
        for swamp in self.swamps.list() {
            put_f64s(&mut body, &[swamp.cost]);
            put_points(&mut body, &swamp.ring);
        }
        put_points(&mut body, &self.positions);
        put_u32s(&mut body, &self.corner_vertex);
        put_u32s(&mut body, &self.offsets);
        put_u32s(&mut body, &self.targets);
        put_f64s(&mut body, &self.plain_costs);
        put_f64s(&mut body, &self.lengths);
        let road: Vec<u32> = self.road.iter().map(|&r| u32::from(r)).collect();
        put_u32s(&mut body, &road);
        out.write_all(MAGIC)?;
        out.write_all(&VERSION.to_le_bytes())?;
        out.write_all(&(body.len() as u64).to_le_bytes())?;
        out.write_all(&xxh3_64(&body).to_le_bytes())?;
        out.write_all(&body)?;
        Ok(())
    }

    /// Reads a graph written by [`VisGraph::save`].
    ///
    /// # Errors
    /// [`GraphFileError`].
    pub fn load(input: &mut impl Read) -> Result<Self, GraphFileError> {
        let mut header = [0u8; 28];
        input
            .read_exact(&mut header)
            .map_err(|_| GraphFileError::Truncated("header"))?;
        if &header[..8] != MAGIC {
            return Err(GraphFileError::BadMagic);
        }
        let version = u32::from_le_bytes(
            header[8..12]
                .try_into()
                .map_err(|_| GraphFileError::BadMagic)?,
        );
        if version != VERSION {
            return Err(GraphFileError::Version { found: version });
        }
        let length = u64::from_le_bytes(
            header[12..20]
                .try_into()
                .map_err(|_| GraphFileError::BadMagic)?,
        );
        let hash = u64::from_le_bytes(
            header[20..28]
                .try_into()
                .map_err(|_| GraphFileError::BadMagic)?,
        );
        let mut body = Vec::new();
        input.take(length).read_to_end(&mut body)?;
        if body.len() as u64 != length {
            return Err(GraphFileError::Truncated("body"));
        }
        if xxh3_64(&body) != hash {
            return Err(GraphFileError::Checksum);
        }
        decode(&mut Reader { bytes: &body })
    }
}

fn decode(r: &mut Reader<'_>) -> Result<VisGraph, GraphFileError> {
    let settings = r.f64s("settings")?;
    let [clearance, road_cost_factor] = settings[..] else {
        return Err(GraphFileError::Corrupt("settings"));
    };
    check_range("settings", &[clearance], 0.0, MAX_CLEARANCE)?;
    check_range("settings", &[road_cost_factor], f64::MIN_POSITIVE, f64::MAX)?;
    let points = r.points("points")?;
    let contours: Vec<[u32; 2]> = r
        .u32s("contours")?
        .chunks_exact(2)
        .map(|c| [c[0], c[1]])
        .collect();
    let contour_piece = r.u32s("contour pieces")?;
    let pieces = r
        .u32s("pieces")?
        .first()
        .copied()
        .ok_or(GraphFileError::Corrupt("pieces"))?;
    let mut swamps = Vec::new();
    for _ in 0..r.u32s("swamps")?.first().copied().unwrap_or(0) {
        let cost = r
            .f64s("swamp cost")?
            .first()
            .copied()
            .ok_or(GraphFileError::Corrupt("swamps"))?;
        check_range("swamp cost", &[cost], 1.0, f64::MAX)?;
        swamps.push(Swamp {
            ring: r.points("swamp ring")?,
            cost,
        });
    }
    let space = FreeSpace {
        points,
        contours,
        contour_piece,
        pieces,
    };
    check_space(&space)?;
    let mut graph = VisGraph {
        positions: r.points("nodes")?,
        corner_vertex: r.u32s("corners")?,
        offsets: r.u32s("offsets")?,
        targets: r.u32s("targets")?,
        plain_costs: r.f64s("costs")?,
        lengths: r.f64s("lengths")?,
        road: r.u32s("roads")?.iter().map(|&x| x != 0).collect(),
        boundary: Boundary::new(space),
        swamps: Swamps::new(swamps),
        config: GraphConfig {
            clearance,
            road_cost_factor,
        },
        costs: Vec::new(),
        sectors: Vec::new(),
        node_grid: NodeGrid::default(),
        fast_edges: false,
    };
    check_graph(&graph)?;
    check_range("costs", &graph.plain_costs, 0.0, f64::MAX)?;
    check_range("lengths", &graph.lengths, 0.0, f64::MAX)?;
    graph.bake_node_caches();
    graph.bake_costs();
    Ok(graph)
}

fn check_space(space: &FreeSpace) -> Result<(), GraphFileError> {
    let n = space.points.len() as u64;
    let contours_ok = space.contour_piece.len() == space.contours.len()
        && space
            .contours
            .iter()
            .all(|&[s, l]| l >= 3 && u64::from(s) + u64::from(l) <= n)
        && space.contour_piece.iter().all(|&p| p < space.pieces)
        && space.pieces as usize <= space.contours.len() + 1
        && space.contours.iter().map(|c| u64::from(c[1])).sum::<u64>() == n;
    if contours_ok {
        Ok(())
    } else {
        Err(GraphFileError::Corrupt("contours"))
    }
}

fn check_graph(g: &VisGraph) -> Result<(), GraphFileError> {
    let n = g.positions.len();
    let edges = g.targets.len();
    let nodes_ok = g.corner_vertex.len() == n
        && g.corner_vertex
            .iter()
            .all(|&v| v == NO_VERTEX || (v as usize) < g.boundary.edge_count());
    let csr_ok = g.offsets.len() == n + 1
        && g.offsets.first() == Some(&0)
        && g.offsets.last().copied() == Some(edges as u32)
        && g.offsets.windows(2).all(|w| w[0] <= w[1])
        && g.targets.iter().all(|&t| (t as usize) < n)
        && [g.plain_costs.len(), g.lengths.len(), g.road.len()] == [edges; 3];
    match (nodes_ok, csr_ok) {
        (false, _) => Err(GraphFileError::Corrupt("nodes")),
        (_, false) => Err(GraphFileError::Corrupt("edges")),
        _ => Ok(()),
    }
}

/// Every value of `values` is a number in `[min, max]`.
fn check_range(
    section: &'static str,
    values: &[f64],
    min: f64,
    max: f64,
) -> Result<(), GraphFileError> {
    match values.iter().position(|v| !(min..=max).contains(v)) {
        Some(index) => Err(GraphFileError::OutOfRange {
            section,
            index,
            value: values[index],
        }),
        None => Ok(()),
    }
}

fn put_u32s(out: &mut Vec<u8>, values: &[u32]) {
    out.extend_from_slice(&(values.len() as u64).to_le_bytes());
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

fn put_f64s(out: &mut Vec<u8>, values: &[f64]) {
    out.extend_from_slice(&(values.len() as u64).to_le_bytes());
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

fn put_points(out: &mut Vec<u8>, points: &[DVec2]) {
    let flat: Vec<f64> = points.iter().flat_map(|p| [p.x, p.y]).collect();
    put_f64s(out, &flat);
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, section: &'static str) -> Result<&'a [u8], GraphFileError> {
        if self.bytes.len() < n {
            return Err(GraphFileError::Truncated(section));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn count(&mut self, width: usize, section: &'static str) -> Result<usize, GraphFileError> {
        let raw = self.take(8, section)?;
        let n = u64::from_le_bytes(
            raw.try_into()
                .map_err(|_| GraphFileError::Truncated(section))?,
        );
        usize::try_from(n)
            .ok()
            .filter(|&n| n.saturating_mul(width) <= self.bytes.len())
            .ok_or(GraphFileError::Truncated(section))
    }

    fn u32s(&mut self, section: &'static str) -> Result<Vec<u32>, GraphFileError> {
        let n = self.count(4, section)?;
        let raw = self.take(n * 4, section)?;
        Ok(raw
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    fn f64s(&mut self, section: &'static str) -> Result<Vec<f64>, GraphFileError> {
        let n = self.count(8, section)?;
        let raw = self.take(n * 8, section)?;
        Ok(raw
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect())
    }

    fn points(&mut self, section: &'static str) -> Result<Vec<DVec2>, GraphFileError> {
        let flat = self.f64s(section)?;
        if flat.len() % 2 != 0 {
            return Err(GraphFileError::Corrupt(section));
        }
        let far = |v: &f64| !(v.is_finite() && v.abs() <= MAX_COORDINATE);
        if let Some(at) = flat.iter().position(far) {
            return Err(GraphFileError::OutOfRange {
                section,
                index: at / 2,
                value: flat[at].abs(),
            });
        }
        Ok(flat
            .chunks_exact(2)
            .map(|c| DVec2::new(c[0], c[1]))
            .collect())
    }
}
