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
//! Costs are summed in `f64`. The open list (a binary heap, see `OpenList`)
//! pops by `f` rounded to a multiple of [`F_QUANTUM`] (2^-24), then the
//! larger `g` (deeper node, to 20 significant bits), then by heap position
//! (which depends only on the query, so it is deterministic). The rounding
//! matters: on an open grid every cell of the parallelogram between start
//! and goal has the same octile `f`, but sums of 1s and √2s reach it with
//! different rounding errors, so comparing raw floats lets that noise — not
//! depth — break the ties, and the search floods the whole plateau. With
//! rounded keys the deeper node wins and the search runs straight to the
//! goal. The price is that a returned cost may exceed the optimum by at most
//! [`F_QUANTUM`] (6e-8), far below the Moving AI tolerance (1e-6 plus one
//! printed unit).
//! So a query's answer depends only on the grid and the query.
//! A [`GridPlanner`] is the reusable search context: per-cell `g`, parent and
//! a generation stamp in one flat array, so starting a query is O(1), and a
//! query allocates nothing once the arrays and heap have grown to the map
//! ([`GridPlanner::find_path_into`]).
//!
//! # Jump points on uniform maps
//! Where every passable cell of the grid costs the same
//! (`CostGrid::uniform_cost`, true of all the Moving AI benchmark maps),
//! an unbounded query runs jump point search instead (`jps.rs`: Harabor and
//! Grastien, AAAI 2011): the same lengths, the same open list and node
//! records, but only the cells where an optimal path may turn enter the open
//! list, and [`GridPlanner::expanded`] counts those jump points: many times
//! fewer microseconds per query than expanding every cell (guarded by the
//! `pathfinding` bench).
//!
//! # Bounded search
//! [`GridPlanner::find_path_bounded`] stops after a node-expansion limit and
//! returns the path to the expanded node nearest the goal by the heuristic —
//! the partial plan a formation follows while it squeezes through a
//! chokepoint (the bounded search of the seed 003). It always
//! expands cell by cell, so its limit counts cells on every map.
//!
//! # Suspending and resuming
//! [`GridPlanner::begin`] opens a search and [`GridPlanner::resume`]
//! continues it for an allowance of work ([`GridPlanner::work`] units: one
//! per expansion, one per cell a jump point run steps onto), checked before
//! each unit: a call never does more work than its allowance, and a search
//! whose allowance ran out is suspended with everything needed to carry on
//! in the context — the open list and node records, and for a jump point
//! search the expansion in progress (its next direction) and the run in
//! progress (its cell, steps and straight probe, `jps::Run`). The
//! units come in the same order however the work is cut, so a search
//! resumed in pieces ends exactly as it would at once: same path, same
//! expansions, same work. This is what lets the `paths` stage slice its
//! searches by a per-tick budget (Smith, GDC 2002: time-sliced path
//! solving); [`GridPlanner::find_path`] is `begin` plus one unlimited
//! `resume`.

mod jps;
mod open_list;

use std::f64::consts::SQRT_2;

use thiserror::Error;

use self::jps::{Direction, Jump, Jumper, Run};
use self::open_list::{Entry, OpenList};
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

/// Per-cell search state; valid only where `stamp` is the current
/// generation (reached, open) or the one after it (expanded, closed).
#[derive(Clone, Copy, Debug, Default)]
struct Node {
    g: f64,
    parent: u32,
    stamp: u32,
}

/// Octile distance for coordinate differences `dx`, `dy`.
#[inline]
fn octile_d(dx: u32, dy: u32) -> f64 {
    let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
    f64::from(hi) + (SQRT_2 - 1.0) * f64::from(lo)
}

/// Octile distance between padded indices.
#[inline]
fn octile(a: usize, b: usize, stride: usize) -> f64 {
    octile_d(
        (a % stride).abs_diff(b % stride) as u32,
        (a / stride).abs_diff(b / stride) as u32,
    )
}

/// A reusable grid A* search context: working memory, keep one per thread
/// (or one per search in flight, for resumable searches) and reuse it
/// across queries and maps.
#[derive(Clone, Debug, Default)]
pub struct GridPlanner {
    nodes: Vec<Node>,
    generation: u32,
    open: OpenList,
    /// The directions a jump point search tries from the node it expands.
    directions: Vec<Direction>,
    /// Nodes the current or last search expanded.
    expanded: u32,
    /// Cells the current or last search's jump point runs stepped onto.
    scanned: u32,
    /// The search begun and not yet ended ([`GridPlanner::begin`]).
    search: Option<Search>,
}

/// How a search expands.
#[derive(Clone, Copy, Debug)]
enum Mode {
    /// Plain A*, cell by cell, ending after `limit` expansions.
    CellByCell { limit: u32 },
    /// Jump point search on a grid whose passable cells all cost
    /// `multiplier`.
    Jumping { multiplier: f64 },
}

/// A search between its start and its end: what
/// [`GridPlanner::resume`] needs besides the nodes and the open list.
#[derive(Clone, Copy, Debug)]
struct Search {
    start: usize,
    goal: usize,
    /// The padded cell count of the grid it searches.
    cells: usize,
    mode: Mode,
    /// Cell by cell with a limit: the expanded node nearest the goal so
    /// far, and its heuristic.
    best: usize,
    best_h: f64,
    /// Jumping: an expansion cut short.
    expansion: Option<Expansion>,
}

/// A jump point expansion in progress: the node, its cost, the next of its
/// directions (in `GridPlanner::directions`) and the run in progress in
/// the one before it.
#[derive(Clone, Copy, Debug)]
struct Expansion {
    node: usize,
    g: f64,
    next: usize,
    run: Option<Run>,
}

/// Where a resumable search stands after [`GridPlanner::resume`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// It ended and its path is written; whether the path reaches the goal
    /// (always, unless the search was bounded).
    Done {
        /// Whether the path ends at the goal.
        reached_goal: bool,
    },
    /// The work allowance ran out first: resume it again.
    Suspended,
    /// No search is in progress (none begun, the last one ended, or it was
    /// resumed on another grid and abandoned).
    Idle,
}

/// Where a search ended.
struct Outcome {
    end: usize,
    reached_goal: bool,
}

/// What one piece of a search came to.
enum Step {
    Suspended(Search),
    Ended(Outcome),
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
        self.open.reserve(grid.cell_count());
        self.directions.reserve(8);
    }

    /// Nodes expanded by the last query, or so far by the search in
    /// progress (jump points, for a jump point search).
    #[must_use]
    pub fn expanded(&self) -> u32 {
        self.expanded
    }

    /// The last query's work in cells (or so far, the search in
    /// progress's): those it expanded, or for a jump point search those it
    /// expanded and those its runs stepped onto. A deterministic stand-in
    /// for its time, whichever way it searched (the `paths` stage's node
    /// budget counts it, and [`GridPlanner::resume`]'s allowance).
    #[must_use]
    pub fn work(&self) -> u32 {
        self.expanded.saturating_add(self.scanned)
    }

    /// Whether a search was begun and has not ended.
    #[must_use]
    pub fn in_progress(&self) -> bool {
        self.search.is_some()
    }

    /// The cells the last search that ran reached (opened or expanded; for
    /// a jump point search, the jump points and the returned path), in
    /// index order — what a visual tool draws as "explored". Empty before
    /// any search; after a query refused without searching (off map,
    /// blocked, unreachable) it still lists the previous search's cells.
    pub fn reached_cells<'a>(&'a self, grid: &'a CostGrid) -> impl Iterator<Item = Cell> + 'a {
        let generation = self.generation;
        self.nodes
            .iter()
            .take(grid.padded_len())
            .enumerate()
            .filter(move |(_, node)| {
                generation != 0 && (node.stamp == generation || node.stamp == generation + 1)
            })
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
    /// Any limit below `u32::MAX` expands cell by cell (no jump points).
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
        clear_path(out);
        self.begin(grid, start, goal, limit)?;
        let progress = self.resume(grid, u32::MAX, out);
        debug_assert!(
            matches!(progress, Progress::Done { .. }),
            "an unlimited allowance ends the search"
        );
        Ok(progress == Progress::Done { reached_goal: true })
    }

    /// Begins a resumable search from `start` to `goal` (any search in
    /// progress is abandoned): checks the ends and opens the start, without
    /// expanding anything; [`GridPlanner::resume`] does the work.
    /// `max_expanded` is the node limit of [`GridPlanner::find_path_bounded`]
    /// (`u32::MAX`: unbounded, by jump points on a uniform-cost grid). Off
    /// the map, blocked and unreachable ends are refused here.
    pub fn begin(
        &mut self,
        grid: &CostGrid,
        start: Cell,
        goal: Cell,
        max_expanded: u32,
    ) -> Result<(), PathError> {
        self.search = None;
        self.expanded = 0;
        self.scanned = 0;
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
        let (s, t) = (grid.index(start), grid.index(goal));
        let octile_s = octile(s, t, grid.stride());
        let (mode, h) = match grid.uniform_cost() {
            Some(multiplier) if max_expanded == u32::MAX => {
                let multiplier = f64::from(multiplier);
                (Mode::Jumping { multiplier }, multiplier * octile_s)
            }
            _ => (
                Mode::CellByCell {
                    limit: max_expanded,
                },
                octile_s,
            ),
        };
        let reached = self.next_generation();
        self.open.clear();
        self.nodes[s] = Node {
            g: 0.0,
            parent: s as u32,
            stamp: reached,
        };
        self.open.push(Entry::new(h, 0.0, s));
        self.search = Some(Search {
            start: s,
            goal: t,
            cells: grid.padded_len(),
            mode,
            best: s,
            best_h: f64::INFINITY,
            expansion: None,
        });
        Ok(())
    }

    /// Continues the search begun by [`GridPlanner::begin`] for at most
    /// `allowance` more units of [`GridPlanner::work`] (`u32::MAX`: no
    /// limit). The allowance is checked before every expansion and every
    /// cell a jump point run steps onto, each one unit, so a call never
    /// does more work than its allowance. A search resumed in pieces
    /// expands the same nodes in the same order as one run at once: it
    /// ends with the same path, the same expansions and the same work.
    /// When it ends the path is written into `out` (whose storage is
    /// reused); while it is suspended `out` is left as it was. `grid` must
    /// be the grid it began on: on a grid of another size the search is
    /// abandoned ([`Progress::Idle`]).
    pub fn resume(&mut self, grid: &CostGrid, allowance: u32, out: &mut Path) -> Progress {
        let Some(search) = self.search.take() else {
            return Progress::Idle;
        };
        if search.cells != grid.padded_len() {
            return Progress::Idle;
        }
        let allowance = if allowance == u32::MAX {
            u64::MAX
        } else {
            u64::from(allowance)
        };
        let step = match search.mode {
            Mode::CellByCell { limit } => self.expand_cells(grid, search, limit, allowance),
            Mode::Jumping { multiplier } => {
                self.expand_jumping(grid, search, multiplier, allowance)
            }
        };
        match step {
            Step::Suspended(search) => {
                self.search = Some(search);
                Progress::Suspended
            }
            Step::Ended(outcome) => {
                clear_path(out);
                self.write_path(grid, outcome.end, out);
                Progress::Done {
                    reached_goal: outcome.reached_goal,
                }
            }
        }
    }

    /// Starts a new generation (two stamps: reached, then expanded); every
    /// node becomes unvisited in O(1) (O(cells) once every 2^31 queries).
    fn next_generation(&mut self) -> u32 {
        self.generation = self.generation.wrapping_add(2);
        if self.generation == 0 {
            for node in &mut self.nodes {
                node.stamp = 0;
            }
            self.generation = 2;
        }
        self.generation
    }

    /// Plain A*, cell by cell, until the goal, the node limit, or the end
    /// of the allowance.
    fn expand_cells(
        &mut self,
        grid: &CostGrid,
        mut search: Search,
        limit: u32,
        mut allowance: u64,
    ) -> Step {
        let reached = self.generation;
        let closed = reached + 1;
        let t = search.goal;
        let stride = grid.stride();
        let cost = grid.costs();
        let nodes = &mut self.nodes[..cost.len()];
        let open = &mut self.open;
        let mut expanded = self.expanded;
        let stride32 = stride as u32;
        let (tx, ty) = (t as u32 % stride32, t as u32 / stride32);
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

        loop {
            if allowance == 0 {
                self.expanded = expanded;
                return Step::Suspended(search);
            }
            let Some(entry) = open.pop() else {
                break;
            };
            let i = entry.cell as usize;
            // A cell pushed again more cheaply was expanded from its
            // cheaper entry: this one is stale.
            if nodes[i].stamp == closed {
                continue;
            }
            if expanded == limit {
                break;
            }
            nodes[i].stamp = closed;
            let g = nodes[i].g;
            expanded += 1;
            allowance -= 1;
            if i == t {
                self.expanded = expanded;
                return Step::Ended(Outcome {
                    end: t,
                    reached_goal: true,
                });
            }
            // One division per expansion; neighbours' coordinates follow.
            let (x, y) = (entry.cell % stride32, entry.cell / stride32);
            if limit != u32::MAX {
                let h = octile_d(x.abs_diff(tx), y.abs_diff(ty));
                if h < search.best_h {
                    search.best_h = h;
                    search.best = i;
                }
            }
            let ci = f64::from(cost[i]);
            let mut relax = |d: isize, dx: i32, dy: i32, len: f64, nodes: &mut [Node]| {
                // The blocked border keeps every offset in range.
                let n = i.wrapping_add_signed(d);
                let cn = cost[n];
                if cn == BLOCKED {
                    return;
                }
                let ng = g + len * (ci + f64::from(cn)) * 0.5;
                let node = nodes[n];
                if (node.stamp == reached || node.stamp == closed) && node.g <= ng {
                    return;
                }
                let h = octile_d(
                    x.wrapping_add_signed(dx).abs_diff(tx),
                    y.wrapping_add_signed(dy).abs_diff(ty),
                );
                offer(nodes, open, reached, n, i, ng, h);
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
        Step::Ended(Outcome {
            end: search.best,
            reached_goal: search.best == t,
        })
    }

    /// Jump point search ([`jps`]) on a grid whose passable cells all cost
    /// `multiplier`, until the goal or the end of the allowance; same open
    /// list and node records as [`Self::expand_cells`], but a node's parent
    /// is the previous jump point. An expansion or a run cut short by the
    /// allowance is kept in `search` and carried on where it stopped.
    fn expand_jumping(
        &mut self,
        grid: &CostGrid,
        mut search: Search,
        multiplier: f64,
        allowance: u64,
    ) -> Step {
        let reached = self.generation;
        let closed = reached + 1;
        let stride = grid.stride() as u32;
        let t = search.goal;
        let mut jumper = Jumper::new(grid.costs(), grid.stride(), t, self.scanned, allowance);
        let nodes = &mut self.nodes[..grid.padded_len()];
        let open = &mut self.open;
        let directions = &mut self.directions;
        let coordinates = |i: usize| (i as u32 % stride, i as u32 / stride);
        let (tx, ty) = coordinates(t);
        let heuristic = |(x, y): (u32, u32)| multiplier * octile_d(x.abs_diff(tx), y.abs_diff(ty));
        let mut expanded = self.expanded;
        let ended = 'search: loop {
            if let Some(expansion) = &mut search.expansion {
                while let Some(&direction) = directions.get(expansion.next) {
                    let run = expansion
                        .run
                        .get_or_insert_with(|| Run::new(expansion.node, direction));
                    match jumper.advance(run) {
                        Jump::Paused => break 'search false,
                        Jump::Wall => {}
                        Jump::Found(n, steps) => {
                            let length = if direction.is_diagonal() {
                                f64::from(steps) * SQRT_2
                            } else {
                                f64::from(steps)
                            };
                            let ng = expansion.g + length * multiplier;
                            let node = nodes[n];
                            let dearer =
                                (node.stamp == reached || node.stamp == closed) && node.g <= ng;
                            if !dearer {
                                let h = heuristic(coordinates(n));
                                offer(nodes, open, reached, n, expansion.node, ng, h);
                            }
                        }
                    }
                    expansion.run = None;
                    expansion.next += 1;
                }
                search.expansion = None;
            }
            if jumper.allowance() == 0 {
                break 'search false;
            }
            let Some(entry) = open.pop() else {
                break 'search true;
            };
            let i = entry.cell as usize;
            if nodes[i].stamp == closed {
                continue;
            }
            nodes[i].stamp = closed;
            expanded += 1;
            jumper.spend_expansion();
            if i == t {
                break 'search true;
            }
            let Node { g, parent, .. } = nodes[i];
            let here = coordinates(i);
            let from = (parent as usize != i)
                .then(|| jumper.direction(coordinates(parent as usize), here));
            jumper.successors(i, from, directions);
            search.expansion = Some(Expansion {
                node: i,
                g,
                next: 0,
                run: None,
            });
        };
        self.expanded = expanded;
        self.scanned = jumper.scanned();
        if !ended {
            return Step::Suspended(search);
        }
        // One region: the goal is always reached.
        let reached_goal = nodes[t].stamp == closed;
        Step::Ended(Outcome {
            end: if reached_goal { t } else { search.start },
            reached_goal,
        })
    }

    /// Writes the path ending at padded index `end` (whose node is in the
    /// current generation) into `out`, walking the straight or diagonal run
    /// from each node back to its parent (one step for [`Self::search`]).
    /// The cells inside runs are marked expanded, for [`Self::reached_cells`].
    fn write_path(&mut self, grid: &CostGrid, end: usize, out: &mut Path) {
        let stride = grid.stride() as isize;
        let closed = self.generation + 1;
        let mut i = end;
        out.cells.push(grid.cell(i));
        loop {
            let parent = self.nodes[i].parent as usize;
            if parent == i {
                break;
            }
            let (from, to) = (grid.cell(i), grid.cell(parent));
            let sign = |a: u32, b: u32| (b > a) as isize - (a > b) as isize;
            let step = sign(from.x, to.x) + sign(from.y, to.y) * stride;
            let mut cell = i.wrapping_add_signed(step);
            while cell != parent {
                out.cells.push(grid.cell(cell));
                self.nodes[cell].stamp = closed;
                cell = cell.wrapping_add_signed(step);
            }
            out.cells.push(grid.cell(parent));
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

/// Empties `out`, keeping its storage.
fn clear_path(out: &mut Path) {
    out.cells.clear();
    out.length = 0.0;
    out.cost = 0.0;
}

/// Records `cell` as reached from `parent` at cost `g` (in the generation
/// `reached`) and pushes it with the heuristic `h`. The caller has checked
/// that this is the cell's cheapest cost so far; a closed cell found cheaper
/// (float noise within the key quantum) is thereby reopened.
#[inline]
fn offer(
    nodes: &mut [Node],
    open: &mut OpenList,
    reached: u32,
    cell: usize,
    parent: usize,
    g: f64,
    h: f64,
) {
    nodes[cell] = Node {
        g,
        parent: parent as u32,
        stamp: reached,
    };
    open.push(Entry::new(g + h, g, cell));
}

#[cfg(test)]
mod tests;
