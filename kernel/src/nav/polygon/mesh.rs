//! Loader for Polyanya's navigation-mesh format, version 2 (Cui, Harabor and
//! Grastien, *Compromise-free Pathfinding on a Navigation Mesh*, IJCAI 2017;
//! the format of github.com/vleue/polyanya and the original C++ code):
//!
//! ```text
//! mesh
//! 2
//! V P
//! x y n p1 … pn          (V vertex lines: position, then the n polygons around it, -1 for none)
//! n v1 … vn p1 … pn      (P polygon lines: n vertices counter-clockwise, then n neighbours)
//! ```
//!
//! Only the polygons' vertex lists are needed here: an edge is on the
//! boundary when no polygon has the reverse edge. Boundary edges, oriented
//! with the walkable side on their left, are chained into loops; a loop
//! that touches itself at a vertex (a pinch point) is split there into
//! rings that visit each vertex once (`pinch`); counter-clockwise rings
//! become containers and clockwise rings obstacles.
//!
//! The header's counts are never trusted with an allocation (the file's
//! line count bounds it), and every malformed input is a typed error naming
//! its 1-based line.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use glam::DVec2;
use thiserror::Error;

use super::pinch::split_at_pinches;
use super::{PolygonMap, PolygonMapError, Ring, signed_area};

/// What is wrong with the text of a `.mesh` file.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MeshParseError {
    /// A line does not hold what the format requires there.
    #[error("line {line}: expected {expected}, found {found:?}")]
    Malformed {
        /// 1-based line number.
        line: usize,
        /// What the format wants there.
        expected: &'static str,
        /// The line's text.
        found: String,
    },
    /// A polygon names a vertex that does not exist.
    #[error("line {line}: vertex index {index} is out of range (the mesh has {vertices} vertices)")]
    VertexOutOfRange {
        /// 1-based line number.
        line: usize,
        /// The index.
        index: i64,
        /// Vertex count.
        vertices: usize,
    },
    /// The file ends before the counts in its header say.
    #[error("line {line}: file ends early: expected {expected}")]
    Truncated {
        /// Line after the last.
        line: usize,
        /// What is missing.
        expected: &'static str,
    },
    /// The boundary edges do not form closed loops.
    #[error("the boundary edges do not form closed loops (a dangling edge at vertex {vertex})")]
    OpenBoundary {
        /// A vertex with unmatched boundary edges.
        vertex: usize,
    },
}

/// Why a `.mesh` file was refused.
#[derive(Debug, Error)]
pub enum MeshError {
    /// The file cannot be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The text is malformed.
    #[error("{}: {source}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Why, with the line.
        source: MeshParseError,
    },
    /// The mesh parses but its boundary is not a valid polygon map.
    #[error("{}: {source}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Why, naming the element.
        source: PolygonMapError,
    },
}

/// Reads a `.mesh` (version 2) file as a polygon map.
///
/// # Errors
/// [`MeshError`], naming the file and line.
pub fn load_mesh(path: impl AsRef<Path>) -> Result<PolygonMap, MeshError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|source| MeshError::Io {
        path: path.to_owned(),
        source,
    })?;
    let map = parse_mesh(&text).map_err(|source| MeshError::Parse {
        path: path.to_owned(),
        source,
    })?;
    map.validate().map_err(|source| MeshError::Invalid {
        path: path.to_owned(),
        source,
    })?;
    Ok(map)
}

/// Parses the text of a `.mesh` file into a polygon map (not yet validated).
///
/// # Errors
/// [`MeshParseError`] with the 1-based line number.
pub fn parse_mesh(text: &str) -> Result<PolygonMap, MeshParseError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let line_count = text.lines().count();
    let mut next = |expected| {
        lines.next().ok_or(MeshParseError::Truncated {
            line: line_count + 1,
            expected,
        })
    };
    expect_line(next("`mesh`")?, "mesh", "`mesh`")?;
    expect_line(next("the version")?, "2", "version `2`")?;
    const COUNTS: &str = "`V P` (vertex and polygon counts)";
    let (counts_line, counts_text) = next("`V P`")?;
    let counts = numbers::<usize>((counts_line, counts_text), COUNTS)?;
    let [vertex_count, polygon_count] = counts[..] else {
        return Err(malformed(counts_line, counts_text, COUNTS));
    };
    // Never trust the header with an allocation: each vertex and polygon
    // takes a line, so the file's line count bounds both; a count beyond it
    // runs out of lines and is refused as truncated.
    let mut vertices = Vec::with_capacity(vertex_count.min(line_count));
    for _ in 0..vertex_count {
        let (line, text) = next("a vertex line")?;
        let fields = numbers::<f64>((line, text), "a vertex line `x y n p1 … pn`")?;
        if fields.len() < 3 {
            return Err(malformed(line, text, "a vertex line `x y n p1 … pn`"));
        }
        if !(fields[0].is_finite() && fields[1].is_finite()) {
            return Err(malformed(line, text, "finite vertex coordinates"));
        }
        vertices.push(DVec2::new(fields[0], fields[1]));
    }
    let mut polygons = Vec::with_capacity(polygon_count.min(line_count));
    for _ in 0..polygon_count {
        polygons.push(polygon_line(next("a polygon line")?, vertex_count)?);
    }
    boundary_map(&vertices, &polygons)
}

fn malformed(line: usize, text: &str, expected: &'static str) -> MeshParseError {
    MeshParseError::Malformed {
        line,
        expected,
        found: text.to_owned(),
    }
}

fn expect_line(
    (line, text): (usize, &str),
    want: &str,
    expected: &'static str,
) -> Result<(), MeshParseError> {
    if text == want {
        Ok(())
    } else {
        Err(malformed(line, text, expected))
    }
}

fn numbers<T: std::str::FromStr>(
    (line, text): (usize, &str),
    expected: &'static str,
) -> Result<Vec<T>, MeshParseError> {
    text.split_whitespace()
        .map(|w| w.parse::<T>().map_err(|_| malformed(line, text, expected)))
        .collect()
}

/// A polygon line's vertex indices.
fn polygon_line(
    (line, text): (usize, &str),
    vertices: usize,
) -> Result<Vec<usize>, MeshParseError> {
    const EXPECTED: &str = "a polygon line `n v1 … vn p1 … pn`";
    let fields = numbers::<i64>((line, text), EXPECTED)?;
    // `n` comes from the file: compare without computing `2n + 1`.
    let n = match fields.first().map(|&n| usize::try_from(n)) {
        Some(Ok(n)) if n >= 3 && fields.len() % 2 == 1 && (fields.len() - 1) / 2 == n => n,
        _ => return Err(malformed(line, text, EXPECTED)),
    };
    fields[1..=n]
        .iter()
        .map(|&index| {
            usize::try_from(index).ok().filter(|&i| i < vertices).ok_or(
                MeshParseError::VertexOutOfRange {
                    line,
                    index,
                    vertices,
                },
            )
        })
        .collect()
}

/// Containers and obstacles from the mesh's boundary edges.
fn boundary_map(vertices: &[DVec2], polygons: &[Vec<usize>]) -> Result<PolygonMap, MeshParseError> {
    let edges: HashSet<(usize, usize)> = polygons
        .iter()
        .flat_map(|p| (0..p.len()).map(move |i| (p[i], p[(i + 1) % p.len()])))
        .collect();
    // Walkable side on the left: flip everything if the file is clockwise.
    let clockwise = polygons
        .iter()
        .map(|p| signed_area(&p.iter().map(|&v| vertices[v]).collect::<Vec<_>>()))
        .sum::<f64>()
        < 0.0;
    let mut outgoing: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut boundary: Vec<(usize, usize)> = edges
        .iter()
        .filter(|&&(a, b)| !edges.contains(&(b, a)))
        .map(|&(a, b)| if clockwise { (b, a) } else { (a, b) })
        .collect();
    boundary.sort_unstable();
    for &(a, b) in &boundary {
        outgoing.entry(a).or_default().push(b);
    }
    let mut map = PolygonMap::default();
    for &(first, second) in &boundary {
        let Some(loop_) = trace_loop(vertices, &mut outgoing, first, second)? else {
            continue;
        };
        for piece in split_at_pinches(&loop_) {
            let mut ring: Ring = piece.iter().map(|&v| vertices[v]).collect();
            if signed_area(&ring) > 0.0 {
                map.containers.push(ring);
            } else {
                ring.reverse();
                map.obstacles.push(ring);
            }
        }
    }
    Ok(map)
}

/// Follows unused boundary edges from `first → second` until the loop
/// closes; `None` when that edge was already used by an earlier loop. At a
/// vertex with several ways on, takes the first one clockwise from the way
/// back, so each visit's neighbours bound one free wedge and loops touching
/// at a vertex stay separate; back at `first`, the loop closes only when
/// that rule picks `second` again (a loop may pass its start at a pinch).
pub(crate) fn trace_loop(
    vertices: &[DVec2],
    outgoing: &mut HashMap<usize, Vec<usize>>,
    first: usize,
    second: usize,
) -> Result<Option<Vec<usize>>, MeshParseError> {
    let take = |outgoing: &mut HashMap<usize, Vec<usize>>, from: usize, to: usize| {
        let list = outgoing.get_mut(&from)?;
        let at = list.iter().position(|&t| t == to)?;
        Some(list.swap_remove(at))
    };
    if take(outgoing, first, second).is_none() {
        return Ok(None);
    }
    let mut ring = vec![first];
    let (mut prev, mut at) = (first, second);
    loop {
        let back = vertices[prev] - vertices[at];
        let clockwise_turn = |&to: &usize| {
            let out = vertices[to] - vertices[at];
            let turn = back.y.atan2(back.x) - out.y.atan2(out.x);
            let turn = turn.rem_euclid(std::f64::consts::TAU);
            if turn == 0.0 {
                std::f64::consts::TAU
            } else {
                turn
            }
        };
        let closing = (at == first).then_some(second);
        let to = outgoing
            .get(&at)
            .into_iter()
            .flatten()
            .copied()
            .chain(closing)
            .min_by(|a, b| clockwise_turn(a).total_cmp(&clockwise_turn(b)))
            .ok_or(MeshParseError::OpenBoundary { vertex: at })?;
        if closing == Some(to) {
            return Ok(Some(ring));
        }
        ring.push(at);
        take(outgoing, at, to);
        (prev, at) = (at, to);
    }
}
