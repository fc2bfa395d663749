//! A cost-to-goal field over a grid, shared by every unit ordered to one
//! goal: one search for a group instead of one per member.
//!
//! The field is Dijkstra's algorithm (*A Note on Two Problems in Connexion
//! with Graphs*, 1959) run backwards from the goal cell, with the move rules
//! and costs of [`crate::nav::astar`]: 8-connected, no corner cutting, a step
//! costs its length times the mean of its two cells' multipliers. Those
//! costs are symmetric, so a cell's cost to the goal is the cost of the
//! optimal path from it, and each settled cell keeps the neighbour it was
//! reached from: following those links from any settled cell walks an
//! optimal path to the goal — the flow-field (integration field plus
//! direction field) crowd planning of Emerson, *Crowd Pathfinding and
//! Steering Using Flow Field Tiles* (Game AI Pro, 2013), with exact costs
//! instead of an eikonal approximation. The search stops once every start
//! it was given is settled, so a group's field covers the ground between
//! the group and its goal, not the whole map.
//!
//! The open list pops the lowest cost, then the lowest cell index, so a
//! field depends only on the grid, the goal and the starts. A [`FlowField`]
//! is reusable working memory: planning allocates nothing once its arrays
//! have grown to the map.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::f64::consts::SQRT_2;

use super::astar::{Path, PathError};
use super::grid::{BLOCKED, Cell, CostGrid};

/// Marks "no link" in [`FlowField`]'s link array.
const NO_LINK: u32 = u32::MAX;

/// A cost-to-goal field and the links that descend it (see the module
/// docs). Reuse one across plans and maps.
#[derive(Clone, Debug, Default)]
pub struct FlowField {
    /// Cost to the goal, valid where `stamp` is the current generation
    /// (reached) or the one after it (settled).
    cost: Vec<f64>,
    /// The neighbour a cell is reached from: its next step to the goal.
    link: Vec<u32>,
    stamp: Vec<u32>,
    /// Starts still to settle are stamped with the current generation.
    wanted: Vec<u32>,
    generation: u32,
    open: BinaryHeap<Reverse<(u64, u32)>>,
    goal: usize,
    /// The padded cell count of the grid the field was planned on.
    cells: usize,
    settled: u32,
}

impl FlowField {
    /// An empty field; it grows to the first map it plans on.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Cells settled by the last plan: its work.
    #[must_use]
    pub fn settled(&self) -> u32 {
        self.settled
    }

    /// Plans the field to `goal` on `grid`, until every cell of `starts`
    /// is settled (starts off the map, blocked or in another region are
    /// skipped: no path reaches them). Returns how many starts it reached.
    pub fn plan(
        &mut self,
        grid: &CostGrid,
        goal: Cell,
        starts: &[Cell],
    ) -> Result<usize, PathError> {
        if !grid.contains(goal) {
            return Err(PathError::OffMap {
                which: "goal",
                cell: goal,
            });
        }
        let Some(goal_region) = grid.region(goal) else {
            return Err(PathError::Blocked {
                which: "goal",
                cell: goal,
            });
        };
        self.reset(grid);
        let reached = self.mark_starts(grid, goal_region, starts);
        let mut waiting = reached.distinct;
        let goal = grid.index(goal);
        self.goal = goal;
        self.open_cell(goal, 0.0, NO_LINK);
        let settled = self.generation + 1;
        while waiting > 0 {
            let Some(Reverse((_, cell))) = self.open.pop() else {
                break;
            };
            let i = cell as usize;
            if self.stamp[i] == settled {
                continue;
            }
            self.stamp[i] = settled;
            self.settled += 1;
            if self.wanted[i] == self.generation {
                waiting -= 1;
            }
            self.relax_neighbours(grid, i);
        }
        self.open.clear();
        Ok(reached.starts)
    }

    /// The cost of the optimal path from `cell` to the goal, if the last
    /// plan settled it.
    #[must_use]
    pub fn cost_from(&self, grid: &CostGrid, cell: Cell) -> Option<f64> {
        let i = self.settled_index(grid, cell)?;
        Some(self.cost[i])
    }

    /// The optimal path from `start` to the goal, by the field's links,
    /// into `out`. Returns whether `start` was settled (else `out` is
    /// left empty).
    pub fn path_into(&self, grid: &CostGrid, start: Cell, out: &mut Path) -> bool {
        out.cells.clear();
        out.length = 0.0;
        out.cost = 0.0;
        let Some(mut i) = self.settled_index(grid, start) else {
            return false;
        };
        out.cost = self.cost[i];
        out.cells.push(start);
        while i != self.goal {
            let next = self.link[i] as usize;
            let diagonal = i.abs_diff(next) != 1 && i.abs_diff(next) != grid.stride();
            out.length += if diagonal { SQRT_2 } else { 1.0 };
            out.cells.push(grid.cell(next));
            i = next;
        }
        true
    }

    /// The padded index of `cell` if the last plan settled it.
    fn settled_index(&self, grid: &CostGrid, cell: Cell) -> Option<usize> {
        if !grid.contains(cell) || self.cells != grid.padded_len() {
            return None;
        }
        let i = grid.index(cell);
        (self.stamp[i] == self.generation + 1).then_some(i)
    }

    /// Opens a new generation sized for `grid`.
    fn reset(&mut self, grid: &CostGrid) {
        let cells = grid.padded_len();
        if self.cost.len() < cells {
            self.cost.resize(cells, 0.0);
            self.link.resize(cells, NO_LINK);
            self.stamp.resize(cells, 0);
            self.wanted.resize(cells, 0);
        }
        if self.generation >= u32::MAX - 2 {
            self.stamp.fill(0);
            self.wanted.fill(0);
            self.generation = 0;
        }
        self.generation += 2;
        self.cells = cells;
        self.settled = 0;
        self.open.clear();
    }

    /// Stamps the starts the field can reach (passable, in the goal's
    /// region), counting them and their distinct cells.
    fn mark_starts(&mut self, grid: &CostGrid, goal_region: u32, starts: &[Cell]) -> Reached {
        let mut reached = Reached::default();
        for &start in starts {
            if grid.region(start) != Some(goal_region) {
                continue;
            }
            reached.starts += 1;
            let i = grid.index(start);
            if self.wanted[i] != self.generation {
                self.wanted[i] = self.generation;
                reached.distinct += 1;
            }
        }
        reached
    }

    /// Records `cost` and `link` for cell `i` and pushes it on the open
    /// list.
    fn open_cell(&mut self, i: usize, cost: f64, link: u32) {
        self.cost[i] = cost;
        self.link[i] = link;
        self.stamp[i] = self.generation;
        // Costs are non-negative and finite, so their bits sort as they do.
        self.open.push(Reverse((cost.to_bits(), i as u32)));
    }

    /// Offers each allowed neighbour of the settled cell `i` a cheaper
    /// cost through `i`.
    fn relax_neighbours(&mut self, grid: &CostGrid, i: usize) {
        let costs = grid.costs();
        let stride = grid.stride() as isize;
        let here = f64::from(costs[i]);
        let base = self.cost[i];
        // (offset, side offsets for a diagonal); the blocked border keeps
        // every index in range.
        let steps: [(isize, Option<(isize, isize)>); 8] = [
            (-stride, None),
            (stride, None),
            (-1, None),
            (1, None),
            (-stride - 1, Some((-stride, -1))),
            (-stride + 1, Some((-stride, 1))),
            (stride - 1, Some((stride, -1))),
            (stride + 1, Some((stride, 1))),
        ];
        for (offset, sides) in steps {
            let n = i.wrapping_add_signed(offset);
            if costs[n] == BLOCKED || self.stamp[n] == self.generation + 1 {
                continue;
            }
            let length = match sides {
                None => 1.0,
                Some((a, b)) => {
                    let a = i.wrapping_add_signed(a);
                    let b = i.wrapping_add_signed(b);
                    if costs[a] == BLOCKED || costs[b] == BLOCKED {
                        continue;
                    }
                    SQRT_2
                }
            };
            let cost = base + length * (here + f64::from(costs[n])) * 0.5;
            if self.stamp[n] != self.generation || cost < self.cost[n] {
                self.open_cell(n, cost, i as u32);
            }
        }
    }
}

/// Starts a plan can reach.
#[derive(Default)]
struct Reached {
    starts: usize,
    distinct: u32,
}

#[cfg(test)]
#[path = "flow_field_tests.rs"]
mod tests;
