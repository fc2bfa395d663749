//! Connected-region labels, so an unreachable goal is answered without
//! searching.
//!
//! Davis, *Warp Speed: Path Planning for Star Trek: Armada* (AAAI Spring
//! Symposium 2000), footnote 1 of "The Quadtree": preprocess the map into
//! connected regions of passable terrain, one set per movement modality, and
//! "don't even bother planning a path if point A and point B are in different
//! regions". One [`RegionLabels`] belongs to each
//! [`CostGrid`](super::grid::CostGrid), i.e. to one map and one
//! [`Mobility`](super::grid::Mobility).
//!
//! Because a diagonal step needs both side cells free (no corner cutting),
//! the two ends of any allowed diagonal are also joined through a side cell;
//! so the 8-connected regions the planner sees are exactly the 4-connected
//! components of the passable cells, which is what the flood fill computes.

/// Label of impassable cells.
const NONE: u32 = u32::MAX;

/// One region label per cell of a padded cost grid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionLabels {
    labels: Vec<u32>,
    count: u32,
}

impl RegionLabels {
    /// Labels the passable cells of a padded cost array (`stride` cells per
    /// row, border cells blocked) by 4-connected flood fill, in index order:
    /// the region holding the first passable cell is 0, and so on.
    pub(crate) fn label(cost: &[f32], stride: usize, blocked: f32) -> Self {
        let mut labels = vec![NONE; cost.len()];
        let mut stack = Vec::new();
        let mut count = 0u32;
        for seed in 0..cost.len() {
            if cost[seed] == blocked || labels[seed] != NONE {
                continue;
            }
            labels[seed] = count;
            stack.push(seed);
            while let Some(i) = stack.pop() {
                // The blocked border keeps every neighbour index in range.
                for n in [i - stride, i - 1, i + 1, i + stride] {
                    if cost[n] != blocked && labels[n] == NONE {
                        labels[n] = count;
                        stack.push(n);
                    }
                }
            }
            count += 1;
        }
        Self { labels, count }
    }

    /// Number of regions.
    #[must_use]
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The label at padded index `index`, `None` where impassable.
    #[must_use]
    pub(crate) fn label_at(&self, index: usize) -> Option<u32> {
        self.labels
            .get(index)
            .copied()
            .filter(|&label| label != NONE)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use crate::nav::grid::{Cell, CostGrid, GridMap, Mobility, Terrain};

    #[test]
    fn a_wall_splits_the_map_into_two_regions() {
        let mut map = GridMap::open(5, 3).unwrap();
        for y in 0..3 {
            map.set(Cell::new(2, y), Terrain::Blocked);
        }
        let grid = CostGrid::new(&map, Mobility::GROUND).unwrap();
        assert_eq!(grid.regions().count(), 2);
        assert!(grid.connected(Cell::new(0, 0), Cell::new(1, 2)));
        assert!(!grid.connected(Cell::new(0, 0), Cell::new(4, 0)));
        assert_eq!(grid.region(Cell::new(2, 1)), None);
    }

    #[test]
    fn cells_touching_only_at_a_corner_are_separate_regions() {
        let mut map = GridMap::open(2, 2).unwrap();
        map.set(Cell::new(1, 0), Terrain::Blocked);
        map.set(Cell::new(0, 1), Terrain::Blocked);
        let grid = CostGrid::new(&map, Mobility::GROUND).unwrap();
        assert!(!grid.connected(Cell::new(0, 0), Cell::new(1, 1)));
    }
}
