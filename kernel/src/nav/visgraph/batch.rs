//! Batched visibility-graph queries across the rayon pool: one search
//! context per worker, kept across batches, answers in request order.
//!
//! A query's answer depends only on the navigator and the query (a
//! [`VisSearch`]'s generation stamps make leftover state invisible), so
//! which worker answers which query cannot change an answer: a batch is
//! bit-identical with any thread count (DESIGN.md, "Determinism"). As in
//! the grid's [`crate::nav::BatchPlanner`], contexts live in per-worker slots, indexed by
//! `rayon::current_thread_index()`, made once per worker and kept across
//! batches (not once per rayon task, as `map_init` would), and the answers'
//! waypoint buffers are reused, so a warm planner allocates nothing per
//! query.

use glam::{DVec2, Vec2};

use super::navigator::{FactionId, NavError, PathCost, PolygonNavigator, QueryOptions};
use super::search::VisSearch;
use crate::parallel::{QuerySplit, WorkerContexts};

/// Batches smaller than this run on the calling thread.
const PARALLEL_MIN_QUERIES: usize = 8;

/// Queries per rayon task at least: a query costs tens of microseconds, a
/// task a few.
const MIN_QUERIES_PER_TASK: usize = 2;

/// One query of a batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VisQuery {
    /// Where from.
    pub start: DVec2,
    /// Where to.
    pub goal: DVec2,
    /// Who plans (with what it believes of the bridges).
    pub faction: FactionId,
}

/// The answer to one [`VisQuery`].
#[derive(Clone, Debug, PartialEq)]
pub struct VisAnswer {
    /// The path's cost, or why there is none (then `path` is empty).
    pub result: Result<PathCost, NavError>,
    /// The waypoints, start and goal included.
    pub path: Vec<Vec2>,
}

impl Default for VisAnswer {
    fn default() -> Self {
        Self {
            result: Err(NavError::Unreachable),
            path: Vec::new(),
        }
    }
}

/// Answers batches of visibility-graph queries on the current rayon pool;
/// working memory, keep one and reuse it.
#[derive(Debug, Default)]
pub struct VisBatchPlanner {
    /// One context per pool worker, plus one for a caller outside the pool.
    contexts: WorkerContexts<VisSearch>,
}

impl VisBatchPlanner {
    /// An empty planner; contexts are made on the first batch.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Answers `queries` into `answers` (resized to match, slot `i` for
    /// query `i`) with `options`, in parallel on the current rayon pool when
    /// the batch is large enough. Reuses `answers`' waypoint buffers.
    pub fn plan(
        &mut self,
        nav: &PolygonNavigator,
        options: QueryOptions,
        queries: &[VisQuery],
        answers: &mut Vec<VisAnswer>,
    ) {
        answers.resize_with(queries.len(), VisAnswer::default);
        let split = QuerySplit {
            inline_below: PARALLEL_MIN_QUERIES,
            per_task: MIN_QUERIES_PER_TASK,
        };
        self.contexts.answer(
            (queries, answers),
            split,
            || VisSearch::new(nav),
            |search, query, answer| {
                answer.result = nav.find_path_with(
                    query.start,
                    query.goal,
                    query.faction,
                    options,
                    search,
                    &mut answer.path,
                );
            },
        );
    }
}
