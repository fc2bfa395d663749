//! Batched parallel grid planning: many queries across the rayon pool, one
//! search context per worker, answers in request order.
//!
//! Each query is independent and a [`GridPlanner`]'s answer depends only on
//! the grid and the query (generation stamps make leftover state invisible),
//! so which worker answers which query cannot change any answer: the batch is
//! bit-identical with any thread count (DESIGN.md, "Determinism"). Contexts
//! live in per-worker contexts indexed by `rayon::current_thread_index()`
//! and persist
//! across batches, as do the answers' path buffers, so a warm
//! [`BatchPlanner`] allocates nothing per query: thousands of queries a
//! tick. The per-query search is
//! [`astar`](super::astar).

use crate::parallel::{QuerySplit, WorkerContexts};

use super::astar::{GridPlanner, Path, PathError};
use super::grid::{Cell, CostGrid};

/// Batches smaller than this run on the calling thread: a rayon fork-join
/// costs microseconds, a short query about as much.
pub const PARALLEL_MIN_QUERIES: usize = 16;

/// Queries per rayon task at least.
const MIN_QUERIES_PER_TASK: usize = 4;

/// One query of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridQuery {
    /// Where from.
    pub start: Cell,
    /// Where to.
    pub goal: Cell,
    /// Node-expansion limit (`u32::MAX`: unbounded; see
    /// [`GridPlanner::find_path_bounded`]).
    pub max_expanded: u32,
}

impl GridQuery {
    /// An unbounded query.
    #[must_use]
    pub const fn new(start: Cell, goal: Cell) -> Self {
        Self {
            start,
            goal,
            max_expanded: u32::MAX,
        }
    }

    /// The same query with a node-expansion limit.
    #[must_use]
    pub const fn bounded(self, max_expanded: u32) -> Self {
        Self {
            max_expanded,
            ..self
        }
    }
}

/// The answer to one [`GridQuery`].
#[derive(Clone, Debug, PartialEq)]
pub struct GridAnswer {
    /// `Ok(reached_goal)`, or why there is no path (then `path` is empty).
    pub result: Result<bool, PathError>,
    /// The path found (to the goal, or toward it for a bounded query).
    pub path: Path,
    /// Nodes the search expanded.
    pub expanded: u32,
    /// Its work in cells ([`super::GridPlanner::work`]).
    pub work: u32,
}

impl Default for GridAnswer {
    fn default() -> Self {
        Self {
            result: Err(PathError::Unreachable),
            path: Path::default(),
            expanded: 0,
            work: 0,
        }
    }
}

/// Answers one query with `planner` into `answer`.
fn answer_one(
    planner: &mut GridPlanner,
    grid: &CostGrid,
    query: &GridQuery,
    answer: &mut GridAnswer,
) {
    answer.result = planner.find_path_bounded_into(
        grid,
        query.start,
        query.goal,
        query.max_expanded,
        &mut answer.path,
    );
    answer.expanded = planner.expanded();
    answer.work = planner.work();
}

/// Solves batches of grid queries on the current rayon pool; working memory,
/// keep one and reuse it every tick.
#[derive(Debug, Default)]
pub struct BatchPlanner {
    /// One context per pool worker, plus one for a caller outside the pool.
    contexts: WorkerContexts<GridPlanner>,
}

impl BatchPlanner {
    /// An empty planner; contexts are made on the first batch.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes one search context per worker of a pool of `threads` (plus
    /// one for a caller outside it), each sized for `grid`, so that planning
    /// allocates nothing whichever worker runs a query.
    pub fn reserve(&mut self, grid: &CostGrid, threads: usize) {
        self.contexts.ensure(threads, GridPlanner::default);
        for context in self.contexts.each_mut() {
            context.reserve(grid);
        }
    }

    /// Answers `queries` into `answers` (resized to match, slot `i` for query
    /// `i`), in parallel on the current rayon pool when the batch is large
    /// enough. Reuses `answers`' path buffers.
    pub fn plan(&mut self, grid: &CostGrid, queries: &[GridQuery], answers: &mut Vec<GridAnswer>) {
        answers.resize_with(queries.len(), GridAnswer::default);
        let split = QuerySplit {
            inline_below: PARALLEL_MIN_QUERIES,
            per_task: MIN_QUERIES_PER_TASK,
        };
        self.contexts.answer(
            (queries, answers),
            split,
            GridPlanner::default,
            |planner, query, answer| answer_one(planner, grid, query, answer),
        );
    }
}

/// Answers `queries` on the current rayon pool, in request order (a
/// one-shot [`BatchPlanner`]).
#[must_use]
pub fn plan_batch(grid: &CostGrid, queries: &[GridQuery]) -> Vec<GridAnswer> {
    let mut answers = Vec::with_capacity(queries.len());
    BatchPlanner::new().plan(grid, queries, &mut answers);
    answers
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::nav::grid::{GridMap, Mobility};

    #[test]
    fn a_small_batch_answers_in_request_order() {
        let grid = CostGrid::new(&GridMap::open(10, 10).unwrap(), Mobility::GROUND).unwrap();
        let queries: Vec<GridQuery> = (0..10)
            .map(|i| GridQuery::new(Cell::new(0, 0), Cell::new(i, 0)))
            .collect();
        let answers = plan_batch(&grid, &queries);
        for (i, a) in answers.iter().enumerate() {
            assert_eq!(a.result, Ok(true));
            assert_eq!(a.path.cost, i as f64);
        }
    }
}
