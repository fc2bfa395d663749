//! Batched planning gives the one-at-a-time answers, in request order, with
//! one and with two threads.

use convoy::nav::{
    BatchPlanner, Cell, CostGrid, GridAnswer, GridPlanner, GridQuery, Mobility, Path, load_map,
    load_scen,
};

fn one_at_a_time(grid: &CostGrid, queries: &[GridQuery]) -> Vec<GridAnswer> {
    let mut planner = GridPlanner::new();
    queries
        .iter()
        .map(|q| {
            let mut path = Path::default();
            let result =
                planner.find_path_bounded_into(grid, q.start, q.goal, q.max_expanded, &mut path);
            GridAnswer {
                result,
                path,
                expanded: planner.expanded(),
                work: planner.work(),
            }
        })
        .collect()
}

#[test]
fn batched_answers_equal_sequential_answers_with_one_and_two_threads() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/movingai");
    let map = load_map(format!("{dir}/arena2.map")).expect("arena2.map loads");
    let grid = CostGrid::new(&map, Mobility::GROUND).expect("ground mobility is valid");
    let scenarios = load_scen(format!("{dir}/arena2.map.scen")).expect("arena2 scen loads");
    let mut queries: Vec<GridQuery> = scenarios
        .iter()
        .map(|s| GridQuery::new(s.start, s.goal))
        .collect();
    // Bounded, blocked, off-map and reversed queries mixed in.
    let extra: Vec<GridQuery> = scenarios
        .iter()
        .enumerate()
        .map(|(i, s)| match i % 4 {
            0 => GridQuery::new(s.goal, s.start).bounded(i as u32 % 97),
            1 => GridQuery::new(s.start, Cell::new(0, 0)),
            2 => GridQuery::new(s.start, Cell::new(grid.width(), 3)),
            _ => GridQuery::new(s.goal, s.start),
        })
        .collect();
    queries.extend(extra);

    let expected = one_at_a_time(&grid, &queries);
    assert!(expected.iter().filter(|a| a.result == Ok(true)).count() > scenarios.len());
    assert!(
        expected.iter().any(|a| a.result == Ok(false)),
        "some bounded query stops early"
    );
    assert!(
        expected.iter().any(|a| a.result.is_err()),
        "some query has no path"
    );

    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a rayon pool can be built");
        let mut planner = BatchPlanner::new();
        let mut answers = Vec::new();
        // Twice: the second batch reuses contexts and path buffers.
        for round in 0..2 {
            pool.install(|| planner.plan(&grid, &queries, &mut answers));
            assert_eq!(answers.len(), queries.len());
            for (i, (got, want)) in answers.iter().zip(&expected).enumerate() {
                assert_eq!(got, want, "query {i}, {threads} threads, round {round}");
            }
        }
    }
}

/// A query's work counts the cells its search touched: a jump point
/// search's runs step onto every cell of a straight corridor even though it
/// expands only its ends; a cell-by-cell search's work is what it expanded.
#[test]
fn work_counts_the_cells_a_jump_point_search_steps_across() {
    let map = convoy::nav::GridMap::open(64, 1).expect("valid size");
    let grid = CostGrid::new(&map, Mobility::GROUND).expect("valid");
    let mut planner = GridPlanner::new();
    let (start, goal) = (Cell::new(0, 0), Cell::new(63, 0));
    planner.find_path(&grid, start, goal).expect("a corridor");
    assert!(
        planner.expanded() <= 2,
        "jump points: {}",
        planner.expanded()
    );
    assert!(planner.work() >= 63, "cells stepped: {}", planner.work());
    let mut path = Path::default();
    planner
        .find_path_bounded_into(&grid, start, goal, 1000, &mut path)
        .expect("a corridor");
    assert_eq!(planner.work(), planner.expanded());
    assert!(planner.expanded() >= 63);
}

/// Batched visibility-graph queries (arena2 traced to polygons, every
/// scenario both ways, plus queries whose goal is inside a wall) equal the one-at-a-time answers bit for bit, in request
/// order, with one and with two threads, and again when the planner's
/// contexts are reused.
#[test]
fn batched_visgraph_answers_equal_sequential_answers_with_one_and_two_threads() {
    use convoy::glam::DVec2;
    use convoy::nav::polygon::trace_grid;
    use convoy::nav::visgraph::{
        FactionId, GraphConfig, PolygonNavigator, QueryOptions, VisAnswer, VisBatchPlanner,
        VisGraph, VisQuery, VisSearch,
    };

    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/movingai");
    let map = load_map(format!("{dir}/arena2.map")).expect("arena2.map loads");
    let grid = CostGrid::new(&map, Mobility::GROUND).expect("ground mobility is valid");
    let scenarios = load_scen(format!("{dir}/arena2.map.scen")).expect("arena2 scen loads");
    let graph = VisGraph::build_on(trace_grid(&grid), &[], &[], GraphConfig::default());
    let nav = PolygonNavigator::from_graph(graph, 1);
    let centre = |c: Cell| DVec2::new(f64::from(c.x) + 0.5, f64::from(c.y) + 0.5);
    let blocked = (0..grid.height())
        .flat_map(|y| (0..grid.width()).map(move |x| Cell::new(x, y)))
        .find(|&c| !grid.passable(c))
        .expect("arena2 has walls");
    let query = |start: Cell, goal: Cell| VisQuery {
        start: centre(start),
        goal: centre(goal),
        faction: FactionId(0),
    };
    let mut queries: Vec<VisQuery> = scenarios.iter().map(|s| query(s.start, s.goal)).collect();
    queries.extend(scenarios.iter().enumerate().map(|(i, s)| match i % 3 {
        0 => query(s.goal, blocked),
        _ => query(s.goal, s.start),
    }));
    let options = QueryOptions::default();
    let mut search = VisSearch::new(&nav);
    let expected: Vec<VisAnswer> = queries
        .iter()
        .map(|q| {
            let mut path = Vec::new();
            let result =
                nav.find_path_with(q.start, q.goal, q.faction, options, &mut search, &mut path);
            VisAnswer { result, path }
        })
        .collect();
    assert!(
        expected
            .iter()
            .all(|a| a.result.is_ok() || a.path.is_empty())
    );
    assert!(
        expected.iter().any(|a| a.result.is_ok_and(|c| c.moved)),
        "some goal was moved out of a wall"
    );
    let bits = |a: &VisAnswer| {
        let cost = a
            .result
            .map(|c| (c.cost.to_bits(), c.length.to_bits(), c.expanded));
        let path: Vec<[u32; 2]> = a
            .path
            .iter()
            .map(|p| [p.x.to_bits(), p.y.to_bits()])
            .collect();
        (cost, path)
    };
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a rayon pool can be built");
        let mut planner = VisBatchPlanner::new();
        let mut answers = Vec::new();
        for round in 0..2 {
            pool.install(|| planner.plan(&nav, options, &queries, &mut answers));
            assert_eq!(answers.len(), queries.len());
            for (i, (got, want)) in answers.iter().zip(&expected).enumerate() {
                assert_eq!(
                    bits(got),
                    bits(want),
                    "query {i}, {threads} threads, round {round}"
                );
            }
        }
    }
}
