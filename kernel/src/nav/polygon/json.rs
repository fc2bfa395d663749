//! The JSON polygon-map format (documented in docs/polygon-maps.md).
//!
//! ```json
//! {
//!   "containers": [[[0, 0], [100, 0], [100, 100], [0, 100], [0, 0]]],
//!   "obstacles":  [[[40, 40], [60, 40], [60, 60], [40, 60], [40, 40]]],
//!   "swamps":     [{ "ring": [[10, 10], [20, 10], [20, 20], [10, 10]], "cost": 3.0 }],
//!   "roads":      [[[0, 50], [100, 50]]],
//!   "bridges":    [{ "id": 1, "ends": [[5, 5], [9, 9]], "middle": [7, 7] }]
//! }
//! ```
//!
//! Rings are closed: the last point repeats the first (as in GeoJSON); an
//! unclosed ring is refused with the element's name. Every key but
//! `containers` may be left out; unknown keys are refused, and so is any
//! text but whitespace after the object. Coordinates lie within
//! [`MAX_COORDINATE`](crate::nav::MAX_COORDINATE) metres of 0 on each axis.

use std::path::{Path, PathBuf};

use glam::DVec2;
use serde::Deserialize;
use thiserror::Error;

use super::{BridgeSpec, PolygonMap, PolygonMapError, Ring, Swamp};

/// Why a polygon-map file was refused.
#[derive(Debug, Error)]
pub enum PolygonFileError {
    /// The file cannot be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The text is not valid JSON for the format.
    #[error("{}:{line}:{column}: key `{key}`: {message}", path.display())]
    Syntax {
        /// The file (empty when parsed from a string).
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The dotted key where it failed.
        key: String,
        /// Why.
        message: String,
    },
    /// The JSON is well formed but the map is not.
    #[error("{}: {source}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the element.
        source: PolygonMapError,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MapFile {
    containers: Vec<Vec<[f64; 2]>>,
    #[serde(default)]
    obstacles: Vec<Vec<[f64; 2]>>,
    #[serde(default)]
    swamps: Vec<SwampFile>,
    #[serde(default)]
    roads: Vec<Vec<[f64; 2]>>,
    #[serde(default)]
    bridges: Vec<BridgeFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SwampFile {
    ring: Vec<[f64; 2]>,
    cost: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BridgeFile {
    id: u32,
    ends: [[f64; 2]; 2],
    middle: [f64; 2],
}

/// Reads and validates a JSON polygon map.
///
/// # Errors
/// [`PolygonFileError`], naming the file and the line, key or element.
pub fn load_polygon_map(path: impl AsRef<Path>) -> Result<PolygonMap, PolygonFileError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|source| PolygonFileError::Io {
        path: path.to_owned(),
        source,
    })?;
    parse_polygon_map(&text).map_err(|e| e.with_path(path))
}

/// Parses and validates a JSON polygon map from text.
///
/// # Errors
/// [`PolygonFileError`] with an empty path.
pub fn parse_polygon_map(text: &str) -> Result<PolygonMap, PolygonFileError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let syntax = |key: String, error: serde_json::Error| PolygonFileError::Syntax {
        path: PathBuf::new(),
        line: error.line(),
        column: error.column(),
        key,
        message: error.to_string(),
    };
    let file: MapFile = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let key = e.path().to_string();
        syntax(key, e.into_inner())
    })?;
    // Only whitespace may follow the object.
    de.end()
        .map_err(|e| syntax("(after the map)".to_owned(), e))?;
    let invalid = |source| PolygonFileError::Invalid {
        path: PathBuf::new(),
        source,
    };
    let map = file.into_map().map_err(invalid)?;
    map.validate().map_err(invalid)?;
    Ok(map)
}

impl PolygonFileError {
    fn with_path(self, file: &Path) -> Self {
        match self {
            Self::Syntax {
                line,
                column,
                key,
                message,
                ..
            } => Self::Syntax {
                path: file.to_owned(),
                line,
                column,
                key,
                message,
            },
            Self::Invalid { source, .. } => Self::Invalid {
                path: file.to_owned(),
                source,
            },
            io @ Self::Io { .. } => io,
        }
    }
}

impl MapFile {
    fn into_map(self) -> Result<PolygonMap, PolygonMapError> {
        let rings = |kind: &str, rings: Vec<Vec<[f64; 2]>>| {
            rings
                .into_iter()
                .enumerate()
                .map(|(i, r)| closed_ring(&format!("{kind}[{i}]"), &r))
                .collect::<Result<Vec<_>, _>>()
        };
        let swamps = self
            .swamps
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                Ok(Swamp {
                    ring: closed_ring(&format!("swamps[{i}]"), &s.ring)?,
                    cost: s.cost,
                })
            })
            .collect::<Result<Vec<_>, PolygonMapError>>()?;
        Ok(PolygonMap {
            containers: rings("containers", self.containers)?,
            obstacles: rings("obstacles", self.obstacles)?,
            swamps,
            roads: self.roads.iter().map(|r| points(r)).collect(),
            bridges: self
                .bridges
                .iter()
                .map(|b| BridgeSpec {
                    id: b.id,
                    ends: [DVec2::from(b.ends[0]), DVec2::from(b.ends[1])],
                    middle: DVec2::from(b.middle),
                })
                .collect(),
        })
    }
}

fn points(raw: &[[f64; 2]]) -> Vec<DVec2> {
    raw.iter().map(|&p| DVec2::from(p)).collect()
}

/// A file ring (last point repeating the first) as a [`Ring`].
fn closed_ring(element: &str, raw: &[[f64; 2]]) -> Result<Ring, PolygonMapError> {
    let mut ring = points(raw);
    match (ring.first(), ring.last()) {
        (Some(&first), Some(&last)) if ring.len() >= 2 => {
            // NaN never equals itself: report it as such, not as unclosed.
            if first.is_finite() && last.is_finite() && first != last {
                return Err(PolygonMapError::Unclosed {
                    element: element.to_owned(),
                    first,
                    last,
                });
            }
            ring.pop();
            Ok(ring)
        }
        _ => Err(PolygonMapError::Degenerate {
            element: element.to_owned(),
            points: ring.len(),
        }),
    }
}
