//! The `spatial` stage: the spatial hash rebuilt from this tick's positions
//! by a counting sort (the Armada paper's "geometric hashing"; see
//! [`SpatialHash`]) and, when due, the vehicle rows reordered into cell
//! order so that neighbours sit near each other in memory.

use crate::data::spatial_hash::SpatialHash;
use crate::data::vehicles::Vehicles;

/// The spatial stage's working memory: the scratch of the row reorder.
#[derive(Clone, Debug, Default)]
pub struct SpatialStage {
    reorder_scratch: Vec<u128>,
}

/// What one run of the spatial stage did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpatialStats {
    /// Whether the rows were reordered into cell order this tick.
    pub reordered: bool,
    /// Units in the largest cell.
    pub max_cell_units: u32,
    /// Units clamped in from outside the bounds.
    pub outside_bounds: u32,
}

impl SpatialStage {
    /// Sizes the reorder scratch for `units` rows (the widest column is 16
    /// bytes a row).
    pub fn reserve(&mut self, units: usize) {
        self.reorder_scratch
            .reserve(units.saturating_sub(self.reorder_scratch.len()));
    }

    /// Rebuilds `hash` from the vehicles' positions and, if `reorder`, puts
    /// the rows in the hash's cell order (handles stay valid).
    pub fn run(&mut self, hash: &mut SpatialHash, vehicles: &mut Vehicles, reorder: bool) -> SpatialStats {
        let built = hash.rebuild(vehicles.columns().position());
        if reorder {
            vehicles.reorder(hash.order(), &mut self.reorder_scratch);
            hash.renumber_in_cell_order();
        }
        SpatialStats {
            reordered: reorder,
            max_cell_units: built.max_cell_units,
            outside_bounds: built.outside_bounds,
        }
    }
}
