//! `convoy-bench scen`: every line of a Moving AI scenario file through the
//! batched planners, checked against its optimal length and for validity.
//!
//! Queries run across a rayon pool with one search context per worker
//! (`map_init`), answers in file order. Validity is checked with an exact
//! supercover walk of every path segment: no segment may touch a blocked
//! cell. Lengths are compared with the scenario's tolerance (one unit in the
//! last printed decimal, plus 1e-6). The visibility-graph backend plans
//! any-angle paths between cell centres over the grid traced to polygons:
//! its paths may be shorter than the octile optimum (a "mismatch" then only
//! counts when longer), and are valid when no segment passes through the
//! inside of a blocked cell.

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use convoy::glam::{DVec2, Vec2};
use convoy::nav::movingai::{Scenario, check_scenarios, load_map, load_scen};
use convoy::nav::polygon::{crosses_blocked_cell, trace_grid};
use convoy::nav::quadtree::{QuadPlanner, Quadtree, supercover};
use convoy::nav::visgraph::{FactionId, GraphConfig, PolygonNavigator, VisGraph, VisSearch};
use convoy::nav::{Cell, CostGrid, GridPlanner, Mobility};
use rayon::prelude::*;
use serde::Serialize;

use crate::{CliError, print_to_stdout};

/// Which planner answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    /// Grid A*: must reproduce every optimal length.
    Grid,
    /// Armada quadtree A* with rubber-banding: reports its length ratio.
    Quadtree,
    /// Force 21 visibility graph over the grid traced to polygons:
    /// any-angle paths, never longer than the octile optimum.
    Visgraph,
}

/// Options of `convoy-bench scen`.
#[derive(Debug, Args)]
pub struct ScenArgs {
    /// Moving AI `.map` file.
    map: PathBuf,
    /// Moving AI `.scen` file for that map.
    scen: PathBuf,
    /// Planner.
    #[arg(long, value_enum, default_value_t = Backend::Grid)]
    backend: Backend,
    /// Worker threads (default one per core).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..=1024))]
    threads: Option<i64>,
    /// Write one row per query to FILE.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write the summary as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

/// A found path: grid cells, or any-angle points.
enum Route {
    Cells(Vec<Cell>),
    Points(Vec<DVec2>),
}

/// One answered query.
struct Answer {
    length: Option<f64>,
    points: Route,
    elapsed: Duration,
    expanded: u32,
}

/// What the run found.
#[derive(Debug, Serialize)]
struct Summary {
    backend: Backend,
    threads: usize,
    queries: usize,
    mismatches: usize,
    invalid: usize,
    unreachable: usize,
    mean_us: f64,
    p99_us: f64,
    queries_per_s: f64,
    length_ratio_mean: f64,
    length_ratio_max: f64,
    leaves: Option<usize>,
    grid_cells: usize,
}

/// Runs the scenarios; `Ok(false)` when a grid length mismatched or any
/// path was invalid (exit code 1).
pub fn scen(args: &ScenArgs) -> Result<bool, CliError> {
    let input = |path: &PathBuf, reason: String| CliError::Input {
        path: path.display().to_string(),
        reason,
    };
    // The loaders' errors already name the file and line.
    let map = load_map(&args.map).map_err(|error| CliError::Setup(error.to_string()))?;
    let scenarios = load_scen(&args.scen).map_err(|error| CliError::Setup(error.to_string()))?;
    let grid = CostGrid::new(&map, Mobility::GROUND)
        .map_err(|error| CliError::Setup(error.to_string()))?;
    check_scenarios(&scenarios, &grid).map_err(|error| input(&args.scen, error.to_string()))?;
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        |n| n as usize,
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|error| CliError::Setup(format!("cannot start the thread pool: {error}")))?;

    let tree = match args.backend {
        Backend::Quadtree => {
            Some(Quadtree::new(&grid).map_err(|error| CliError::Setup(error.to_string()))?)
        }
        _ => None,
    };
    let navigator = (args.backend == Backend::Visgraph).then(|| {
        let graph = VisGraph::build_on(trace_grid(&grid), &[], &[], GraphConfig::default());
        PolygonNavigator::from_graph(graph, 1)
    });
    let started = Instant::now();
    let answers: Vec<Answer> = pool.install(|| match (&tree, &navigator) {
        (Some(tree), _) => scenarios
            .par_iter()
            .map_init(QuadPlanner::new, |planner, s| {
                quad_answer(planner, &grid, tree, s)
            })
            .collect(),
        (_, Some(nav)) => scenarios
            .par_iter()
            .map_init(
                || (VisSearch::new(nav), Vec::new()),
                |(search, out), s| visgraph_answer(nav, search, out, s),
            )
            .collect(),
        _ => scenarios
            .par_iter()
            .map_init(
                || GridPlanner::for_grid(&grid),
                |planner, s| grid_answer(planner, &grid, s),
            )
            .collect(),
    });
    let wall = started.elapsed();

    let summary = summarise(
        args.backend,
        threads,
        &grid,
        tree.as_ref(),
        &scenarios,
        &answers,
        wall,
    );
    print_to_stdout(|out| print_summary(out, &summary, &args.map))?;
    if let Some(path) = &args.csv {
        write_csv(path, &scenarios, &answers)?;
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&summary)
            .map_err(|error| output(path, error.to_string()))?;
        std::fs::write(path, text + "\n").map_err(|error| output(path, error.to_string()))?;
    }
    // Any-angle paths longer than octile are as wrong as grid mismatches.
    let grid_mismatch =
        matches!(args.backend, Backend::Grid | Backend::Visgraph) && summary.mismatches > 0;
    Ok(!grid_mismatch && summary.invalid == 0)
}

fn output(path: &Path, reason: String) -> CliError {
    CliError::Output {
        path: path.display().to_string(),
        reason,
    }
}

fn grid_answer(planner: &mut GridPlanner, grid: &CostGrid, scenario: &Scenario) -> Answer {
    timed(|| {
        let found = planner.find_path(grid, scenario.start, scenario.goal);
        (
            found.map(|path| (path.length, path.cells)).ok(),
            planner.expanded(),
        )
    })
}

fn quad_answer(
    planner: &mut QuadPlanner,
    grid: &CostGrid,
    tree: &Quadtree,
    scenario: &Scenario,
) -> Answer {
    timed(|| {
        let found = planner.find_path(grid, tree, scenario.start, scenario.goal);
        (
            found.map(|path| (path.length, path.points)).ok(),
            planner.expanded(),
        )
    })
}

fn visgraph_answer(
    nav: &PolygonNavigator,
    search: &mut VisSearch,
    out: &mut Vec<Vec2>,
    scenario: &Scenario,
) -> Answer {
    let centre = |c: Cell| DVec2::new(f64::from(c.x) + 0.5, f64::from(c.y) + 0.5);
    let started = Instant::now();
    let found = nav.find_path_with(
        centre(scenario.start),
        centre(scenario.goal),
        FactionId(0),
        nav.options(),
        search,
        out,
    );
    let elapsed = started.elapsed();
    let (length, expanded) = found.map_or((None, 0), |cost| (Some(cost.length), cost.expanded));
    Answer {
        length,
        points: Route::Points(search.route().to_vec()),
        elapsed,
        expanded,
    }
}

/// Runs one query, timing it: `query` returns the path found (length and
/// points) and the nodes expanded.
fn timed(query: impl FnOnce() -> (Option<(f64, Vec<Cell>)>, u32)) -> Answer {
    let started = Instant::now();
    let (found, expanded) = query();
    let elapsed = started.elapsed();
    let (length, points) = found.map_or((None, Vec::new()), |(length, points)| {
        (Some(length), points)
    });
    Answer {
        length,
        points: Route::Cells(points),
        elapsed,
        expanded,
    }
}

/// A path is valid when it runs from start to goal and no segment's
/// supercover walk touches a blocked cell (any-angle paths: no segment
/// passes through a blocked cell's inside).
fn is_valid(grid: &CostGrid, scenario: &Scenario, route: &Route) -> bool {
    match route {
        Route::Cells(points) => {
            let ends_right =
                points.first() == Some(&scenario.start) && points.last() == Some(&scenario.goal);
            ends_right
                && points
                    .windows(2)
                    .all(|pair| supercover(pair[0], pair[1], |cell| grid.passable(cell)))
        }
        Route::Points(points) => {
            let centre = |c: Cell| DVec2::new(f64::from(c.x) + 0.5, f64::from(c.y) + 0.5);
            let ends_right = points.first() == Some(&centre(scenario.start))
                && points.last() == Some(&centre(scenario.goal));
            ends_right
                && points
                    .windows(2)
                    .all(|pair| !crosses_blocked_cell(grid, pair[0], pair[1]))
        }
    }
}

fn summarise(
    backend: Backend,
    threads: usize,
    grid: &CostGrid,
    tree: Option<&Quadtree>,
    scenarios: &[Scenario],
    answers: &[Answer],
    wall: Duration,
) -> Summary {
    let mut micros: Vec<f64> = answers
        .iter()
        .map(|a| a.elapsed.as_secs_f64() * 1e6)
        .collect();
    micros.sort_by(f64::total_cmp);
    let p99 = micros
        .get(((micros.len() as f64 * 0.99).ceil() as usize).saturating_sub(1))
        .copied()
        .unwrap_or(0.0);
    let ratios: Vec<f64> = scenarios
        .iter()
        .zip(answers)
        .filter(|(s, _)| s.optimal_length > 0.0)
        .filter_map(|(s, a)| a.length.map(|length| length / s.optimal_length))
        .collect();
    Summary {
        backend,
        threads,
        queries: answers.len(),
        mismatches: scenarios
            .iter()
            .zip(answers)
            .filter(|(s, a)| {
                !a.length.is_some_and(|l| match backend {
                    Backend::Visgraph => l <= s.optimal_length + s.tolerance(),
                    _ => s.matches(l),
                })
            })
            .count(),
        invalid: scenarios
            .iter()
            .zip(answers)
            .filter(|(s, a)| a.length.is_some() && !is_valid(grid, s, &a.points))
            .count(),
        unreachable: answers.iter().filter(|a| a.length.is_none()).count(),
        mean_us: micros.iter().sum::<f64>() / micros.len().max(1) as f64,
        p99_us: p99,
        queries_per_s: answers.len() as f64 / wall.as_secs_f64().max(1e-9),
        length_ratio_mean: ratios.iter().sum::<f64>() / ratios.len().max(1) as f64,
        length_ratio_max: ratios.iter().copied().fold(0.0, f64::max),
        leaves: tree.map(Quadtree::leaf_count),
        grid_cells: grid.cell_count(),
    }
}

fn print_summary(out: &mut dyn io::Write, summary: &Summary, map: &Path) -> io::Result<()> {
    writeln!(
        out,
        "{} ({:?} backend, {} threads)",
        map.display(),
        summary.backend,
        summary.threads
    )?;
    if let Some(leaves) = summary.leaves {
        writeln!(
            out,
            "  quadtree leaves   {leaves} for {} grid cells",
            summary.grid_cells
        )?;
    }
    writeln!(out, "  queries           {}", summary.queries)?;
    writeln!(out, "  mismatches        {}", summary.mismatches)?;
    writeln!(out, "  invalid paths     {}", summary.invalid)?;
    writeln!(out, "  unreachable       {}", summary.unreachable)?;
    writeln!(
        out,
        "  length ratio      mean {:.4}  max {:.4}",
        summary.length_ratio_mean, summary.length_ratio_max
    )?;
    writeln!(
        out,
        "  µs per query      mean {:.1}  p99 {:.1}",
        summary.mean_us, summary.p99_us
    )?;
    writeln!(out, "  queries per s     {:.0}", summary.queries_per_s)?;
    Ok(())
}

fn write_csv(path: &Path, scenarios: &[Scenario], answers: &[Answer]) -> Result<(), CliError> {
    let mut text = String::from(
        "index,start_x,start_y,goal_x,goal_y,expected_length,found_length,microseconds,expanded\n",
    );
    for (index, (s, a)) in scenarios.iter().zip(answers).enumerate() {
        let found = a
            .length
            .map_or_else(String::new, |length| format!("{length:.8}"));
        let _ = writeln!(
            text,
            "{index},{},{},{},{},{:.8},{found},{:.3},{}",
            s.start.x,
            s.start.y,
            s.goal.x,
            s.goal.y,
            s.optimal_length,
            a.elapsed.as_secs_f64() * 1e6,
            a.expanded
        );
    }
    std::fs::write(path, text).map_err(|error| output(path, error.to_string()))
}
