//! The hierarchy of a grid whose cells changed in a rectangle, built from
//! the hierarchy before: transitions are found again on every border (a
//! scan of the border cells), and each cluster's tables and intra-edges
//! are searched again only where they may differ — in the clusters the
//! rectangle touches, and in those whose transition cells moved (a
//! neighbour's border changed). Every other cluster's are copied. The
//! result is the hierarchy [`Hierarchy::build`] gives for the edited grid,
//! node for node and edge for edge (the test
//! `world_edits_equal_a_rebuilt_map` compares them).

use super::{Edge, Hierarchy, STEP};
use crate::nav::grid::{CellRect, CostGrid};

/// Where clusters may be copied from: the hierarchy before the edit, and
/// the rectangle of cells whose costs changed.
#[derive(Clone, Copy, Debug)]
pub(super) struct Reuse<'a> {
    old: &'a Hierarchy,
    changed: CellRect,
}

impl<'a> Reuse<'a> {
    /// The old hierarchy when `cluster` of `new` may be copied from it:
    /// the edit does not touch it and its transition cells are the same.
    pub(super) fn source_of(&self, new: &Hierarchy, cluster: u32) -> Option<&'a Hierarchy> {
        let c = new.cluster_size;
        let (cx, cy) = (cluster % new.clusters_x, cluster / new.clusters_x);
        let touched = (self.changed.min.x / c..=self.changed.max.x / c).contains(&cx)
            && (self.changed.min.y / c..=self.changed.max.y / c).contains(&cy);
        let same_nodes =
            new.cells[new.nodes_of(cluster)] == self.old.cells[self.old.nodes_of(cluster)];
        (!touched && same_nodes).then_some(self.old)
    }
}

impl Hierarchy {
    /// The hierarchy of `grid`, which is the grid this one was built on
    /// with the costs of the cells in `changed` (on the map) replaced.
    #[must_use]
    pub(crate) fn rebuilt(&self, grid: &CostGrid, changed: CellRect) -> Hierarchy {
        assert!(
            self.fits(grid),
            "a hierarchy is rebuilt on a grid of its size"
        );
        let reuse = Reuse { old: self, changed };
        Self::assemble(grid, self.cluster_size, Some(reuse))
    }

    /// Appends `cluster`'s tables, stored paths and intra-edges as `old`
    /// has them (its nodes are the same cells, in the same order), in the
    /// order the search in `link_clusters` would add them.
    pub(super) fn copy_cluster(
        &mut self,
        old: &Hierarchy,
        cluster: u32,
        adjacency: &mut [Vec<Edge>],
    ) {
        let (nodes, old_nodes) = (self.nodes_of(cluster), old.nodes_of(cluster));
        for (i, was) in nodes.clone().zip(old_nodes.clone()) {
            let table = old.table_first[was] as usize..old.table_first[was + 1] as usize;
            self.dist.extend_from_slice(&old.dist[table.clone()]);
            self.toward.extend_from_slice(&old.toward[table]);
            self.table_first.push(self.dist.len() as u32);
            // Each pair's edge from its lower node, in the order of the
            // higher node (how they were added).
            let forward = old
                .edges_of(was as u32)
                .iter()
                .filter(|edge| edge.path != STEP && !edge.reversed);
            for edge in forward {
                let j = nodes.start + (edge.to as usize - old_nodes.start);
                let path = self.path_first.len() as u32 - 1;
                self.path_cells.extend_from_slice(old.path(edge.path));
                self.path_first.push(self.path_cells.len() as u32);
                let copy = |to: usize, reversed| Edge {
                    to: to as u32,
                    path,
                    reversed,
                    cost: edge.cost,
                };
                adjacency[i].push(copy(j, false));
                adjacency[j].push(copy(i, true));
            }
        }
    }
}
