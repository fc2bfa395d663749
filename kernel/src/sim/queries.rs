//! Gameplay queries on the `Sim`'s own spatial hash: the units within a
//! radius of a point, within an axis-aligned rectangle, and the k nearest to
//! a point, filtered by faction and vehicle kind, written into a buffer the
//! caller owns.
//!
//! The hash is rebuilt at the end of every tick (the `spatial` stage), so a
//! query between two steps visits only the cells its window touches and sees
//! exactly the positions in the columns. After a spawn, a despawn, a restore
//! or a write through `Sim::columns_mut`, until the next step, the hash no
//! longer matches the rows: queries then scan every row (the same answers,
//! slower). The k nearest widen a square window by doubling its half-side
//! from one cell until it holds k units that pass the filter (then no unit
//! outside the circle it bounds can be nearer) or covers the grid.
//!
//! Answers are ordered by distance, then by [`UnitId`], whatever the rows'
//! order; nothing is allocated unless the caller's buffer is too small.

use glam::Vec2;
use thiserror::Error;

use super::Sim;
use crate::data::spatial_hash::Bounds;
use crate::data::vehicles::{Columns, UnitId, VehicleKind};
use crate::nav::visgraph::FactionId;

/// Which units a query answers with: all by default; each `Some` keeps only
/// the units that match it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueryFilter {
    /// Only units of this faction.
    pub faction: Option<FactionId>,
    /// Only units of this kind.
    pub kind: Option<VehicleKind>,
}

impl QueryFilter {
    /// Whether the unit in `row` passes.
    fn accepts(&self, columns: &Columns, row: usize) -> bool {
        self.faction.is_none_or(|faction| columns.faction()[row] == faction.0)
            && self.kind.is_none_or(|kind| columns.kind()[row] == kind as u8)
    }
}

/// One unit a query found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueryHit {
    /// The unit.
    pub id: UnitId,
    /// Its row in the columns now.
    pub row: usize,
    /// Its distance from the query's point (a rectangle's centre), metres.
    pub distance: f32,
}

impl QueryHit {
    /// Distance first, then handle: the order answers are given in.
    fn cmp(&self, other: &QueryHit) -> std::cmp::Ordering {
        self.distance
            .total_cmp(&other.distance)
            .then(self.id.cmp(&other.id))
    }
}

/// A query refused for a bad argument; the buffer is left empty.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum QueryError {
    /// A coordinate or radius was NaN or infinite.
    #[error("query `{field}` must be finite, was {value}")]
    NotFinite {
        /// The offending argument.
        field: &'static str,
        /// Its value.
        value: f32,
    },
    /// The radius was negative.
    #[error("query `radius` must not be negative, was {0}")]
    NegativeRadius(f32),
    /// The rectangle's minimum corner exceeds its maximum on an axis.
    #[error("query rectangle's `min` {min:?} exceeds its `max` {max:?}")]
    InvertedRect {
        /// The south-west corner given.
        min: Vec2,
        /// The north-east corner given.
        max: Vec2,
    },
}

impl Sim {
    /// Writes into `out` every unit within `radius` metres of `point`
    /// (inclusive) that passes `filter`, nearest first.
    ///
    /// Queries see the positions in the columns now. The spatial hash is
    /// rebuilt at the end of every step; after a spawn, a despawn, a
    /// restore or a write through [`Sim::columns_mut`], until the next
    /// step, queries scan every row instead (the same answers, slower).
    pub fn units_within(
        &self,
        point: Vec2,
        radius: f32,
        filter: QueryFilter,
        out: &mut Vec<QueryHit>,
    ) -> Result<(), QueryError> {
        out.clear();
        check_point(point)?;
        check_finite("radius", radius)?;
        if radius < 0.0 {
            return Err(QueryError::NegativeRadius(radius));
        }
        let columns = self.vehicles.columns();
        self.for_each_candidate(point, radius, |row, position| {
            let distance_squared = point.distance_squared(position);
            if distance_squared <= radius * radius && filter.accepts(columns, row) {
                out.push(self.hit(row, distance_squared.sqrt()));
            }
        });
        out.sort_unstable_by(QueryHit::cmp);
        Ok(())
    }

    /// Writes into `out` every unit inside `rect` (edges included) that
    /// passes `filter`, nearest its centre first.
    pub fn units_in_rect(
        &self,
        rect: Bounds,
        filter: QueryFilter,
        out: &mut Vec<QueryHit>,
    ) -> Result<(), QueryError> {
        out.clear();
        let (min, max) = (rect.min, rect.max);
        for (field, value) in [("min.x", min.x), ("min.y", min.y), ("max.x", max.x), ("max.y", max.y)] {
            check_finite(field, value)?;
        }
        if min.x > max.x || min.y > max.y {
            return Err(QueryError::InvertedRect { min, max });
        }
        let (centre, half) = ((min + max) * 0.5, (max - min) * 0.5);
        let columns = self.vehicles.columns();
        self.for_each_candidate(centre, half.max_element(), |row, position| {
            let inside = position.cmpge(min).all() && position.cmple(max).all();
            if inside && filter.accepts(columns, row) {
                out.push(self.hit(row, centre.distance(position)));
            }
        });
        out.sort_unstable_by(QueryHit::cmp);
        Ok(())
    }

    /// Writes into `out` the `k` units nearest to `point` that pass
    /// `filter` (fewer if fewer pass), nearest first; ties go to the lower
    /// [`UnitId`]. Allocates only if `out` cannot hold `k` hits.
    pub fn nearest_units(
        &self,
        point: Vec2,
        k: usize,
        filter: QueryFilter,
        out: &mut Vec<QueryHit>,
    ) -> Result<(), QueryError> {
        out.clear();
        check_point(point)?;
        let k = k.min(self.vehicles.len());
        if k == 0 {
            return Ok(());
        }
        out.reserve(k);
        let columns = self.vehicles.columns();
        let mut half_side = self.spatial.cell_size();
        loop {
            let everything = !self.spatial_fresh || self.spatial.square_covers_grid(point, half_side);
            let radius = if everything { f32::INFINITY } else { half_side };
            out.clear();
            self.for_each_candidate(point, radius, |row, position| {
                let distance_squared = point.distance_squared(position);
                if distance_squared <= radius * radius && filter.accepts(columns, row) {
                    keep_nearest(out, k, self.hit(row, distance_squared.sqrt()));
                }
            });
            if out.len() == k || everything {
                return Ok(());
            }
            half_side *= 2.0;
        }
    }

    /// Calls `visit(row, position)` for a superset of the units within
    /// `radius` of `point`: those of the hash's window while the hash
    /// matches the rows, every row otherwise.
    fn for_each_candidate(&self, point: Vec2, radius: f32, mut visit: impl FnMut(usize, Vec2)) {
        if self.spatial_fresh {
            self.spatial
                .for_each_in_square(point, radius, |unit, position| visit(unit as usize, position));
        } else {
            let positions = self.vehicles.columns().position();
            for (row, &position) in positions.iter().enumerate() {
                visit(row, position);
            }
        }
    }

    fn hit(&self, row: usize, distance: f32) -> QueryHit {
        QueryHit {
            id: self.vehicles.columns().unit_id()[row],
            row,
            distance,
        }
    }
}

/// Inserts `hit` into `out`, sorted and at most `k` long, if it is among
/// the `k` nearest so far (no allocation: `out` holds `k`).
fn keep_nearest(out: &mut Vec<QueryHit>, k: usize, hit: QueryHit) {
    if out.len() == k {
        match out.last() {
            Some(last) if hit.cmp(last).is_lt() => {
                out.pop();
            }
            _ => return,
        }
    }
    let at = out.partition_point(|kept| kept.cmp(&hit).is_lt());
    out.insert(at, hit);
}

fn check_point(point: Vec2) -> Result<(), QueryError> {
    check_finite("point.x", point.x)?;
    check_finite("point.y", point.y)
}

fn check_finite(field: &'static str, value: f32) -> Result<(), QueryError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(QueryError::NotFinite { field, value })
    }
}
