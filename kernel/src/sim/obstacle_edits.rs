//! A changing polygon map: [`Sim::add_obstacle`] and
//! [`Sim::remove_obstacle`] put an obstacle polygon on the map or take one
//! away at run time (a building placed or razed), as DetourCrowd's
//! tile-cache obstacles with `checkPathValidity` do for a navmesh.
//!
//! 1. The navigator rebuilds its free space and visibility graph from the
//!    map it was built from plus the run-time obstacles (`nav/visgraph/
//!    obstacles.rs`); a refused polygon, or one that leaves no free space,
//!    changes nothing.
//! 2. The raster's cells whose centres lie in the obstacle's box are
//!    classified again and go through the grid's own edit (costs, regions,
//!    the blocked-cell table, the HPA* clusters they touch): equal to the
//!    raster of the edited map drawn from scratch.
//! 3. Units and platoons catch up as after [`Sim::set_cells`]
//!    (`world_catch_up.rs`), over the raster cells of the obstacle's box
//!    grown by the planner's clearance: ground units on cells that became
//!    impassable move out ([`Event::Displaced`](super::Event::Displaced)),
//!    units and platoons whose route crosses the box or whose goal was
//!    walled replan, units whose goal the change put back in reach go on.
//!
//! Snapshots carry the run-time obstacles (section `obstacles`): a `Sim`
//! built on the original map restores to the same checksums, as the
//! derived data depend only on the set of obstacles.

use std::sync::Arc;

use glam::{DVec2, Vec2};

use super::{Map, Sim, snapshot::SnapshotError};
use crate::data::vehicles::UnitId;
use crate::nav::polygon::Ring;
use crate::nav::polygon::raster::repaint_box;
use crate::nav::{Cell, CellRect, ObstacleError, ObstacleId, PolygonNavigator, WorldMap};

impl Sim {
    /// Puts the obstacle `polygon` (a simple ring, at least three points,
    /// the closing edge implied) on the polygon map: the planner's free
    /// space and graph and the raster are rebuilt, ground units on newly
    /// blocked cells move out, and units and platoons whose route crosses
    /// it replan (module docs). Between steps (it allocates); snapshots
    /// carry it. Returns its id.
    ///
    /// # Errors
    /// [`ObstacleError`]: not a polygon map, a point NaN or infinite or
    /// off the map, fewer than three points or no area, crossing edges, or
    /// a polygon that leaves no free space. Nothing changes then.
    pub fn add_obstacle(&mut self, polygon: &[Vec2]) -> Result<ObstacleId, ObstacleError> {
        let ring: Ring = polygon.iter().map(|point| point.as_dvec2()).collect();
        let (navigator, _) = polygon_map(&self.config.map)?;
        navigator.check_obstacle(&ring)?;
        let out_of_reach = self.wanted_out_of_reach();
        let (edited, id) = self.on_own_threads(|| {
            let mut edited = PolygonNavigator::clone(navigator);
            edited.add_obstacle(ring.clone()).map(|id| (edited, id))
        })?;
        self.take_polygon_map(edited, bounding_box(&ring), &out_of_reach);
        Ok(id)
    }

    /// Takes the obstacle `id` (added by [`Sim::add_obstacle`]) off the
    /// map; units whose goal it kept out of reach go on (module docs).
    ///
    /// # Errors
    /// [`ObstacleError::Unknown`], or [`ObstacleError::NotAPolygonMap`].
    /// Nothing changes then.
    pub fn remove_obstacle(&mut self, id: ObstacleId) -> Result<(), ObstacleError> {
        let (navigator, _) = polygon_map(&self.config.map)?;
        let out_of_reach = self.wanted_out_of_reach();
        let (edited, ring) = self.on_own_threads(|| {
            let mut edited = PolygonNavigator::clone(navigator);
            edited.remove_obstacle(id).map(|ring| (edited, ring))
        })?;
        self.take_polygon_map(edited, bounding_box(&ring), &out_of_reach);
        Ok(())
    }

    /// The obstacles added at run time, by ascending id, as the planner
    /// holds them (empty without a polygon map).
    #[must_use]
    pub fn added_obstacles(&self) -> &[(ObstacleId, Ring)] {
        self.config
            .map
            .polygon()
            .map_or(&[], PolygonNavigator::added_obstacles)
    }

    /// Steps 2 and 3 of the module docs for the edited navigator, whose
    /// change lies in the box `area`.
    fn take_polygon_map(&mut self, navigator: PolygonNavigator, area: (DVec2, DVec2), out_of_reach: &[UnitId]) {
        let (_, raster) = polygon_map(&self.config.map).expect("checked by the caller");
        let raster = repaint(raster, &navigator, area).expect("checked by the caller");
        let clearance = navigator.graph().config().clearance;
        let grown = (area.0 - clearance, area.1 + clearance);
        let cells = cells_covering(&raster, grown);
        self.config.map = Map::Polygon {
            navigator: Arc::new(navigator),
            raster: Arc::new(raster),
        };
        self.catch_up_with(cells, out_of_reach);
    }

    /// The polygon map a snapshot's obstacles (`next` and `added`) make of
    /// this world's, or `None` when they are this world's own.
    ///
    /// # Errors
    /// [`SnapshotError::Inconsistent`]: obstacles in a world without a
    /// polygon map, or ones its map refuses.
    pub(super) fn replay_obstacles(
        &self,
        (next, added): (ObstacleId, Vec<(ObstacleId, Ring)>),
    ) -> Result<Option<Map>, SnapshotError> {
        let Ok((navigator, raster)) = polygon_map(&self.config.map) else {
            return if added.is_empty() && next == ObstacleId(0) {
                Ok(None)
            } else {
                Err(SnapshotError::Inconsistent(
                    "obstacles in a world without a polygon map".to_owned(),
                ))
            };
        };
        if next == navigator.next_obstacle_id() && added == navigator.added_obstacles() {
            return Ok(None);
        }
        let changed = navigator
            .added_obstacles()
            .iter()
            .chain(&added)
            .map(|(_, ring)| bounding_box(ring))
            .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)));
        let bad = |error: ObstacleError| SnapshotError::Inconsistent(format!("obstacles: {error}"));
        let edited = self
            .on_own_threads(|| navigator.with_obstacles(added, next))
            .map_err(bad)?;
        let raster = match changed {
            Some(area) => repaint(raster, &edited, area).map_err(bad)?,
            None => WorldMap::clone(raster),
        };
        Ok(Some(Map::Polygon {
            navigator: Arc::new(edited),
            raster: Arc::new(raster),
        }))
    }
}

/// The navigator and raster of a polygon map that can take obstacles.
fn polygon_map(map: &Map) -> Result<(&PolygonNavigator, &WorldMap), ObstacleError> {
    match map {
        Map::Polygon { navigator, raster } if raster.ground().is_some() => Ok((navigator, raster)),
        Map::Polygon { .. } => Err(ObstacleError::NoSourceMap),
        Map::Open | Map::Grid(_) => Err(ObstacleError::NotAPolygonMap),
    }
}

/// `raster` with the cells in `area` drawn again for `navigator`'s map and
/// standing bridges.
fn repaint(
    raster: &WorldMap,
    navigator: &PolygonNavigator,
    area: (DVec2, DVec2),
) -> Result<WorldMap, ObstacleError> {
    let map = navigator.edited_map().ok_or(ObstacleError::NoSourceMap)?;
    repaint_box(raster, &map, area, navigator.standing_decks())
        .map(|(raster, _)| raster)
        .ok_or(ObstacleError::NoSourceMap)
}

/// The lowest and highest corners of `ring`.
fn bounding_box(ring: &[DVec2]) -> (DVec2, DVec2) {
    ring.iter().fold(
        (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
        |(low, high), &p| (low.min(p), high.max(p)),
    )
}

/// The cells of `map` the box `low`–`high` covers, clipped to the map.
fn cells_covering(map: &WorldMap, (low, high): (DVec2, DVec2)) -> CellRect {
    let (width, height) = (map.grid().width(), map.grid().height());
    let cell = |p: DVec2| {
        let local = ((p - map.origin().as_dvec2()) / f64::from(map.cell_size())).floor();
        Cell::new(
            local.x.clamp(0.0, f64::from(width - 1)) as u32,
            local.y.clamp(0.0, f64::from(height - 1)) as u32,
        )
    };
    CellRect::new(cell(low), cell(high))
}

/// The `obstacles` section: the next id and the count (`u32` each), then
/// per obstacle its id and point count (`u32` each) and its points (`f64`
/// x and y each), by ascending id; all little-endian.
impl Sim {
    /// The `obstacles` section's length in bytes.
    pub(super) fn obstacles_section_len(&self) -> usize {
        8 + self
            .added_obstacles()
            .iter()
            .map(|(_, ring)| 8 + 16 * ring.len())
            .sum::<usize>()
    }

    /// Gives the `obstacles` section's bytes to `feed`, piece by piece,
    /// without allocating.
    pub(super) fn feed_obstacles(&self, mut feed: impl FnMut(&[u8])) {
        let next = self.config.map.polygon().map_or(ObstacleId(0), PolygonNavigator::next_obstacle_id);
        let added = self.added_obstacles();
        feed(&next.0.to_le_bytes());
        feed(&(added.len() as u32).to_le_bytes());
        for (id, ring) in added {
            feed(&id.0.to_le_bytes());
            feed(&(ring.len() as u32).to_le_bytes());
            for point in ring {
                feed(&point.x.to_le_bytes());
                feed(&point.y.to_le_bytes());
            }
        }
    }
}

/// The next id and the obstacles of an `obstacles` section.
///
/// # Errors
/// [`SnapshotError::Inconsistent`] when the bytes do not hold what the
/// counts say, exactly.
pub(super) fn decode_obstacles(bytes: &[u8]) -> Result<(ObstacleId, Vec<(ObstacleId, Ring)>), SnapshotError> {
    let mut reader = Reader { bytes, at: 0 };
    let next = ObstacleId(reader.word()?);
    let count = reader.word()?;
    let mut added = Vec::new();
    for _ in 0..count {
        let id = ObstacleId(reader.word()?);
        let points = reader.word()? as usize;
        let raw = reader.take(points.saturating_mul(16))?;
        let coordinate = |piece: &[u8]| f64::from_le_bytes(piece.try_into().expect("eight bytes"));
        let ring = raw
            .chunks_exact(16)
            .map(|xy| DVec2::new(coordinate(&xy[..8]), coordinate(&xy[8..])))
            .collect();
        added.push((id, ring));
    }
    if reader.at != bytes.len() {
        return Err(reader.bad());
    }
    Ok((next, added))
}

/// Reads a section's bytes in order.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn bad(&self) -> SnapshotError {
        SnapshotError::Inconsistent(format!(
            "section `obstacles` of {} bytes does not hold what its counts say",
            self.bytes.len()
        ))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], SnapshotError> {
        let end = self.at.checked_add(n).ok_or_else(|| self.bad())?;
        let piece = self.bytes.get(self.at..end).ok_or_else(|| self.bad())?;
        self.at = end;
        Ok(piece)
    }

    fn word(&mut self) -> Result<u32, SnapshotError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("four bytes")))
    }
}
