//! Grid A*: 8-connected, octile heuristic, no corner cutting, terrain costs;
//! plain and expansion-bounded.
//!
//! The search is A* (Hart, Nilsson and Raphael, *A Formal Basis for the
//! Heuristic Determination of Minimum Cost Paths*, 1968) over the uniform
//! grid of Davis, *Warp Speed: Path Planning for Star Trek: Armada* (AAAI
//! Spring Symposium 2000, "The Quadtree": "the array of cells with implicit
//! links between every two adjacent cells, usually 8-connected. Each cell can
//! be assigned a movement cost"). The move rules are those of the Moving AI
//! benchmarks (Sturtevant, IEEE TCIAIG 2012): straight steps cost 1, diagonal
//! steps √2, and a diagonal is allowed only when both side cells are free.
//!
//! # Costs
//! A step costs its length times the **mean** of the multipliers of the cell
//! it leaves and the cell it enters: half the step is walked in each. With
//! all multipliers 1 this is the Moving AI octile length exactly. Multipliers
//! are at least 1 ([`Mobility::validate`](super::grid::Mobility::validate)),
//! so the octile distance is an admissible and consistent heuristic.
//!
//! # Determinism and memory
//! Costs are summed in `f64`. The open list is an indexed binary heap (an
//! improved cell moves up in place: no stale duplicates) keyed by `f`
//! rounded to a multiple of [`F_QUANTUM`] (2^-24), then the larger `g`
//! (deeper node), then the lower cell index. The rounding matters: on an open
//! grid every cell of the parallelogram between start and goal has the same
//! octile `f`, but sums of 1s and √2s reach it with different rounding
//! errors, so comparing raw floats lets that noise — not depth — break the
//! ties, and the search floods the whole plateau. With rounded keys the
//! deeper node wins and the search runs straight to the goal. The price is
//! that a returned cost may exceed the optimum by at most [`F_QUANTUM`]
//! (6e-8), far below the Moving AI tolerance (1e-6 plus one printed unit).
//! So a query's answer depends only on the grid and the query.
//! A [`GridPlanner`] is the reusable search context: per-cell `g`, parent and
//! a generation stamp in one flat array, so starting a query is O(1), and a
//! query allocates nothing once the arrays and heap have grown to the map
//! ([`GridPlanner::find_path_into`]).
//!
//! # Bounded search
//! [`GridPlanner::find_path_bounded`] stops after a node-expansion limit and
//! returns the path to the expanded node nearest the goal by the heuristic —
//! the partial plan a formation follows while it squeezes through a
//! chokepoint (the bounded search of the seed 003).

use std::f64::consts::SQRT_2;

use thiserror::Error;

use super::grid::{BLOCKED, Cell, CostGrid};

/// A path over grid cells.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Path {
    /// Cells from start to end, both included; consecutive cells are
    /// neighbours.
    pub cells: Vec<Cell>,
    /// Geometric length: straight steps 1, diagonal steps √2.
    pub length: f64,
    /// Cost: the length weighted by terrain multipliers (equal to `length`
    /// where every multiplier is 1).
    pub cost: f64,
}

/// Why no path was returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum PathError {
    /// The start or goal lies outside the map.
    #[error("{which} ({}, {}) is outside the map", cell.x, cell.y)]
    OffMap {
        /// `start` or `goal`.
        which: &'static str,
        /// The cell.
        cell: Cell,
    },
    /// The start or goal is impassable for this mobility.
    #[error("{which} ({}, {}) is impassable", cell.x, cell.y)]
    Blocked {
        /// `start` or `goal`.
        which: &'static str,
        /// The cell.
        cell: Cell,
    },
    /// Start and goal are in different regions: no path exists. Answered
    /// from the region labels, without searching.
    #[error("the goal is not reachable from the start")]
    Unreachable,
}

/// The result of a bounded search.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BoundedPath {
    /// The path to the goal, or to the expanded node nearest it.
    pub path: Path,
    /// Whether `path` ends at the goal.
    pub reached_goal: bool,
}

/// Granularity of the `f` keys of the open list (see the module docs): a
/// returned cost is at most this much above the optimum.
pub const F_QUANTUM: f64 = 1.0 / (1u64 << 24) as f64;

/// `f` as an open-list key: the nearest multiple of [`F_QUANTUM`].
#[inline]
fn f_key(f: f64) -> u64 {
    (f * (1u64 << 24) as f64).round() as u64
}

/// An open-list entry: `f` key, and `g` as the bits of a non-negative float
/// (which order like the float itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    f: u64,
    g: u64,
    cell: u32,
}

impl Entry {
    /// Whether `self` is popped before `other`: lower `f`, then higher `g`,
    /// then lower cell.
    #[inline]
    fn before(&self, other: &Self) -> bool {
        (self.f, !self.g, self.cell) < (other.f, !other.g, other.cell)
    }
}

/// `Node::slot` of a cell that is not on the open list.
const NOT_OPEN: u32 = u32::MAX;

/// Per-cell search state; valid only where `stamp` is the current
/// generation.
#[derive(Clone, Copy, Debug, Default)]
struct Node {
    g: f64,
    parent: u32,
    stamp: u32,
    /// Position on the open list, or [`NOT_OPEN`].
    slot: u32,
}

/// The open list: a binary min-heap of entries whose cells record their
/// position (`Node::slot`), so an improved cell moves up in place instead of
/// leaving a stale duplicate behind (stale pops were 45% of all pops on
/// 64room_000).
#[derive(Clone, Debug, Default)]
struct OpenList {
    items: Vec<Entry>,
}

impl OpenList {
    fn clear(&mut self) {
        self.items.clear();
    }

    fn place(&mut self, pos: usize, entry: Entry, nodes: &mut [Node]) {
        self.items[pos] = entry;
        nodes[entry.cell as usize].slot = pos as u32;
    }

    fn sift_up(&mut self, mut pos: usize, nodes: &mut [Node]) {
        let entry = self.items[pos];
        while pos > 0 {
            let parent = (pos - 1) / 2;
            if !entry.before(&self.items[parent]) {
                break;
            }
            let moved = self.items[parent];
            self.place(pos, moved, nodes);
            pos = parent;
        }
        self.place(pos, entry, nodes);
    }

    fn sift_down(&mut self, mut pos: usize, nodes: &mut [Node]) {
        let entry = self.items[pos];
        let len = self.items.len();
        loop {
            let left = 2 * pos + 1;
            if left >= len {
                break;
            }
            let right = left + 1;
            let child = if right < len && self.items[right].before(&self.items[left]) {
                right
            } else {
                left
            };
            if !self.items[child].before(&entry) {
                break;
            }
            let moved = self.items[child];
            self.place(pos, moved, nodes);
            pos = child;
        }
        self.place(pos, entry, nodes);
    }

    /// Adds `entry`, or moves its cell's existing entry (at `open_slot`) up
    /// to it.
    fn push_or_improve(&mut self, entry: Entry, open_slot: Option<u32>, nodes: &mut [Node]) {
        let pos = match open_slot {
            Some(slot) => {
                self.items[slot as usize] = entry;
                slot as usize
            }
            None => {
                self.items.push(entry);
                self.items.len() - 1
            }
        };
        self.sift_up(pos, nodes);
    }

    fn pop(&mut self, nodes: &mut [Node]) -> Option<Entry> {
        let last = self.items.pop()?;
        let top = if self.items.is_empty() {
            last
        } else {
            let top = self.items[0];
            self.items[0] = last;
            self.sift_down(0, nodes);
            top
        };
        nodes[top.cell as usize].slot = NOT_OPEN;
        Some(top)
    }
}

/// Octile distance for coordinate differences `dx`, `dy`.
#[inline]
fn octile_d(dx: usize, dy: usize) -> f64 {
    let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
    hi as f64 + (SQRT_2 - 1.0) * lo as f64
}

/// Octile distance between padded indices.
#[inline]
fn octile(a: usize, b: usize, stride: usize) -> f64 {
    octile_d(
        (a % stride).abs_diff(b % stride),
        (a / stride).abs_diff(b / stride),
    )
}

/// A reusable grid A* search context: working memory, keep one per thread
/// and reuse it across queries and maps.
#[derive(Clone, Debug, Default)]
pub struct GridPlanner {
    nodes: Vec<Node>,
    generation: u32,
    open: OpenList,
    expanded: u32,
}

/// Where a search ended.
struct Outcome {
    end: usize,
    reached_goal: bool,
}

impl GridPlanner {
    /// An empty context; it grows to the first map it searches.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A context already sized for `grid`, so even its first query on that
    /// map does not grow the per-cell arrays.
    #[must_use]
    pub fn for_grid(grid: &CostGrid) -> Self {
        let mut planner = Self::new();
        planner.reserve(grid);
        planner
    }

    /// Grows the per-cell arrays to `grid` (the heap grows on demand).
    pub fn reserve(&mut self, grid: &CostGrid) {
        if self.nodes.len() < grid.padded_len() {
            self.nodes.resize(grid.padded_len(), Node::default());
        }
        // A cell is open at most once at a time: the open list never needs
        // more entries than the grid has cells.
        let cells = grid.cell_count();
        self.open
            .items
            .reserve(cells.saturating_sub(self.open.items.len()));
    }

    /// Nodes expanded by the last query.
    #[must_use]
    pub fn expanded(&self) -> u32 {
        self.expanded
    }

    /// The cells the last search that ran reached (opened or expanded), in
    /// index order — what a visual tool draws as "explored". Empty before
    /// any search; after a query refused without searching (off map,
    /// blocked, unreachable) it still lists the previous search's cells.
    pub fn reached_cells<'a>(&'a self, grid: &'a CostGrid) -> impl Iterator<Item = Cell> + 'a {
        let generation = self.generation;
        self.nodes
            .iter()
            .take(grid.padded_len())
            .enumerate()
            .filter(move |(_, node)| generation != 0 && node.stamp == generation)
            .map(|(index, _)| grid.cell(index))
    }

    /// The cheapest path from `start` to `goal`.
    pub fn find_path(
        &mut self,
        grid: &CostGrid,
        start: Cell,
        goal: Cell,
    ) -> Result<Path, PathError> {
        let mut path = Path::default();
        self.find_path_into(grid, start, goal, &mut path)?;
        Ok(path)
    }

    /// [`GridPlanner::find_path`] writing into `out` (whose storage is
    /// reused): no allocation once the context and `out` have grown.
    /// On error `out` is left empty.
    pub fn find_path_into(
        &mut self,
        grid: &CostGrid,
        start: Cell,
        goal: Cell,
        out: &mut Path,
    ) -> Result<(), PathError> {
        let reached = self.run(grid, start, goal, u32::MAX, out)?;
        debug_assert!(
            reached,
            "an unbounded search in one region reaches its goal"
        );
        Ok(())
    }

    /// A search that expands at most `max_expanded` nodes and returns the
    /// path to the goal if it got there, else to the expanded node nearest
    /// the goal by the octile heuristic (the first one found on ties). With
    /// `max_expanded == 0` the path is just the start. An unreachable goal
    /// is still reported as [`PathError::Unreachable`] without searching.
    pub fn find_path_bounded(
        &mut self,
        grid: &CostGrid,
        start: Cell,
        goal: Cell,
        max_expanded: u32,
    ) -> Result<BoundedPath, PathError> {
        let mut path = Path::default();
        let reached_goal =
            self.find_path_bounded_into(grid, start, goal, max_expanded, &mut path)?;
        Ok(BoundedPath { path, reached_goal })
    }

    /// [`GridPlanner::find_path_bounded`] writing into `out`; returns whether
    /// the path reaches the goal.
    pub fn find_path_bounded_into(
        &mut self,
        grid: &CostGrid,
        start: Cell,
        goal: Cell,
        max_expanded: u32,
        out: &mut Path,
    ) -> Result<bool, PathError> {
        self.run(grid, start, goal, max_expanded, out)
    }

    fn run(
        &mut self,
        grid: &CostGrid,
        start: Cell,
        goal: Cell,
        limit: u32,
        out: &mut Path,
    ) -> Result<bool, PathError> {
        out.cells.clear();
        out.length = 0.0;
        out.cost = 0.0;
        self.expanded = 0;
        for (which, cell) in [("start", start), ("goal", goal)] {
            if !grid.contains(cell) {
                return Err(PathError::OffMap { which, cell });
            }
            if !grid.passable(cell) {
                return Err(PathError::Blocked { which, cell });
            }
        }
        if !grid.connected(start, goal) {
            return Err(PathError::Unreachable);
        }
        self.reserve(grid);
        let s = grid.index(start);
        let t = grid.index(goal);
        let outcome = self.search(grid, s, t, limit);
        self.write_path(grid, outcome.end, out);
        Ok(outcome.reached_goal)
    }

    /// Starts a new generation; every node becomes unvisited in O(1)
    /// (O(cells) once every 2^32 queries).
    fn next_generation(&mut self) -> u32 {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            for node in &mut self.nodes {
                node.stamp = 0;
            }
            self.generation = 1;
        }
        self.generation
    }

    fn search(&mut self, grid: &CostGrid, s: usize, t: usize, limit: u32) -> Outcome {
        let generation = self.next_generation();
        let stride = grid.stride();
        let cost = grid.costs();
        let nodes = &mut self.nodes[..cost.len()];
        let open = &mut self.open;
        open.clear();

        nodes[s] = Node {
            g: 0.0,
            parent: s as u32,
            stamp: generation,
            slot: NOT_OPEN,
        };
        let first = Entry {
            f: f_key(octile(s, t, stride)),
            g: 0f64.to_bits(),
            cell: s as u32,
        };
        open.push_or_improve(first, None, nodes);
        let mut best = s;
        let mut best_h = f64::INFINITY;
        let mut expanded = 0u32;
        let (tx, ty) = (t % stride, t / stride);
        let st = stride as isize;
        // Straight neighbours: (offset, dx, dy).
        let straight = [(-st, 0, -1), (st, 0, 1), (-1, -1, 0), (1, 1, 0)];
        // Diagonals with the offsets of their two side cells.
        let diagonal = [
            (-st - 1, -st, -1, -1, -1),
            (-st + 1, -st, 1, 1, -1),
            (st - 1, st, -1, -1, 1),
            (st + 1, st, 1, 1, 1),
        ];

        while let Some(entry) = open.pop(nodes) {
            let i = entry.cell as usize;
            let g = f64::from_bits(entry.g);
            if expanded == limit {
                break;
            }
            expanded += 1;
            if i == t {
                self.expanded = expanded;
                return Outcome {
                    end: t,
                    reached_goal: true,
                };
            }
            // One division per expansion; neighbours' coordinates follow.
            let (x, y) = (i % stride, i / stride);
            if limit != u32::MAX {
                let h = octile_d(x.abs_diff(tx), y.abs_diff(ty));
                if h < best_h {
                    best_h = h;
                    best = i;
                }
            }
            let ci = f64::from(cost[i]);
            let mut relax = |d: isize, dx: isize, dy: isize, len: f64, nodes: &mut [Node]| {
                // The blocked border keeps every offset in range.
                let n = i.wrapping_add_signed(d);
                let cn = cost[n];
                if cn == BLOCKED {
                    return;
                }
                let ng = g + len * (ci + f64::from(cn)) * 0.5;
                let node = &mut nodes[n];
                let seen = node.stamp == generation;
                if seen && node.g <= ng {
                    return;
                }
                // A closed cell found cheaper (float noise within the key
                // quantum) is reopened.
                let open_slot = (seen && node.slot != NOT_OPEN).then_some(node.slot);
                *node = Node {
                    g: ng,
                    parent: i as u32,
                    stamp: generation,
                    slot: NOT_OPEN,
                };
                let h = octile_d(
                    x.wrapping_add_signed(dx).abs_diff(tx),
                    y.wrapping_add_signed(dy).abs_diff(ty),
                );
                let entry = Entry {
                    f: f_key(ng + h),
                    g: ng.to_bits(),
                    cell: n as u32,
                };
                open.push_or_improve(entry, open_slot, nodes);
            };
            for (d, dx, dy) in straight {
                relax(d, dx, dy, 1.0, nodes);
            }
            for (d, a, b, dx, dy) in diagonal {
                if cost[i.wrapping_add_signed(a)] != BLOCKED
                    && cost[i.wrapping_add_signed(b)] != BLOCKED
                {
                    relax(d, dx, dy, SQRT_2, nodes);
                }
            }
        }
        self.expanded = expanded;
        Outcome {
            end: best,
            reached_goal: best == t,
        }
    }

    /// Writes the path ending at padded index `end` (whose node is in the
    /// current generation) into `out`.
    fn write_path(&self, grid: &CostGrid, end: usize, out: &mut Path) {
        let mut i = end;
        loop {
            out.cells.push(grid.cell(i));
            let parent = self.nodes[i].parent as usize;
            if parent == i {
                break;
            }
            i = parent;
        }
        out.cells.reverse();
        out.cost = self.nodes[end].g;
        out.length = out
            .cells
            .windows(2)
            .map(|w| {
                if w[0].x != w[1].x && w[0].y != w[1].y {
                    SQRT_2
                } else {
                    1.0
                }
            })
            .sum();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::nav::grid::{GridMap, Mobility, Terrain};
    use crate::nav::movingai::parse_map;

    fn grid(rows: &[&str]) -> CostGrid {
        let text = format!(
            "type octile\nheight {}\nwidth {}\nmap\n{}\n",
            rows.len(),
            rows[0].len(),
            rows.join("\n")
        );
        CostGrid::new(&parse_map(&text).unwrap(), Mobility::GROUND).unwrap()
    }

    #[test]
    fn reached_cells_hold_every_path_cell_and_only_passable_cells() {
        let g = grid(&["....@...", "..@.@.@.", "..@...@.", "..@@@@@."]);
        let mut planner = GridPlanner::new();
        assert_eq!(
            planner.reached_cells(&g).count(),
            0,
            "nothing before a search"
        );
        let p = planner
            .find_path(&g, Cell::new(0, 3), Cell::new(7, 3))
            .unwrap();
        let reached: Vec<Cell> = planner.reached_cells(&g).collect();
        assert!(p.cells.iter().all(|cell| reached.contains(cell)));
        assert!(reached.iter().all(|&cell| g.passable(cell)));
        assert!(reached.len() as u32 >= planner.expanded());
    }

    #[test]
    fn an_open_diagonal_costs_root_two_per_step() {
        let g = CostGrid::new(&GridMap::open(4, 4).unwrap(), Mobility::GROUND).unwrap();
        let p = GridPlanner::new()
            .find_path(&g, Cell::new(0, 0), Cell::new(3, 3))
            .unwrap();
        assert_eq!(p.cells.len(), 4);
        assert!((p.cost - 3.0 * SQRT_2).abs() < 1e-12);
        assert_eq!(p.cost, p.length);
    }

    #[test]
    fn the_path_does_not_cut_a_blocked_corner() {
        let g = grid(&["..", "@."]);
        let p = GridPlanner::new()
            .find_path(&g, Cell::new(0, 0), Cell::new(1, 1))
            .unwrap();
        assert_eq!(
            p.cells,
            vec![Cell::new(0, 0), Cell::new(1, 0), Cell::new(1, 1)]
        );
        assert_eq!(p.cost, 2.0);
    }

    #[test]
    fn swamp_is_avoided_when_a_detour_is_cheaper() {
        let g = grid(&[".....", "..S..", "....."]);
        let p = GridPlanner::new()
            .find_path(&g, Cell::new(0, 1), Cell::new(4, 1))
            .unwrap();
        assert!(!p.cells.contains(&Cell::new(2, 1)), "{:?}", p.cells);
        assert!((p.cost - (2.0 + 2.0 * SQRT_2)).abs() < 1e-12);
    }

    #[test]
    fn unreachable_goals_are_answered_without_expanding() {
        let g = grid(&[".@.", ".@.", ".@."]);
        let mut planner = GridPlanner::new();
        let err = planner.find_path(&g, Cell::new(0, 0), Cell::new(2, 2));
        assert_eq!(err, Err(PathError::Unreachable));
        assert_eq!(planner.expanded(), 0);
    }

    #[test]
    fn bad_endpoints_are_typed_errors() {
        let g = grid(&[".@"]);
        let mut planner = GridPlanner::new();
        assert_eq!(
            planner.find_path(&g, Cell::new(0, 0), Cell::new(5, 0)),
            Err(PathError::OffMap {
                which: "goal",
                cell: Cell::new(5, 0)
            })
        );
        assert_eq!(
            planner.find_path(&g, Cell::new(1, 0), Cell::new(0, 0)),
            Err(PathError::Blocked {
                which: "start",
                cell: Cell::new(1, 0)
            })
        );
    }

    #[test]
    fn a_bounded_search_stops_at_its_limit_nearer_the_goal() {
        let g = CostGrid::new(&GridMap::open(40, 1).unwrap(), Mobility::GROUND).unwrap();
        let mut planner = GridPlanner::new();
        let b = planner
            .find_path_bounded(&g, Cell::new(0, 0), Cell::new(39, 0), 10)
            .unwrap();
        assert!(!b.reached_goal);
        assert_eq!(planner.expanded(), 10);
        assert_eq!(b.path.cells.last(), Some(&Cell::new(9, 0)));
        let zero = planner
            .find_path_bounded(&g, Cell::new(3, 0), Cell::new(39, 0), 0)
            .unwrap();
        assert_eq!(zero.path.cells, vec![Cell::new(3, 0)]);
    }

    #[test]
    fn a_reused_context_gives_the_same_answers() {
        let mut map = GridMap::open(30, 30).unwrap();
        for y in 0..25 {
            map.set(Cell::new(15, y), Terrain::Blocked);
        }
        let g = CostGrid::new(&map, Mobility::GROUND).unwrap();
        let mut fresh_answers = Vec::new();
        let mut reused = GridPlanner::new();
        let mut reused_answers = Vec::new();
        for (a, b) in [((0, 0), (29, 0)), ((3, 7), (20, 2)), ((0, 0), (29, 0))] {
            let (a, b) = (Cell::new(a.0, a.1), Cell::new(b.0, b.1));
            fresh_answers.push(GridPlanner::new().find_path(&g, a, b).unwrap());
            reused_answers.push(reused.find_path(&g, a, b).unwrap());
        }
        assert_eq!(fresh_answers, reused_answers);
    }
}
