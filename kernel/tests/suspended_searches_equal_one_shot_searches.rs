//! A grid search suspended whenever its work allowance runs out and resumed
//! later ([`GridPlanner::begin`], [`GridPlanner::resume`]) ends exactly as
//! the same search run at once: the same cells, bit-identical length and
//! cost, the same expansions and work. The oracle is the one-shot search;
//! the queries are arena2's Moving AI scenario lines, each cut into pieces
//! by allowances from 1 unit to thousands, for jump point search
//! (unbounded), cell-by-cell A* and node-limited (bounded) A*.

use std::path::PathBuf;

use convoy::nav::astar::Progress;
use convoy::nav::{Cell, CostGrid, GridPlanner, Mobility, Path, load_map, load_scen};

fn data_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/movingai"
    ))
}

/// Allowances that cut searches at every kind of point: single units,
/// primes that fall inside jump point runs, and whole runs.
const ALLOWANCES: [u32; 9] = [1, 2, 3, 7, 31, 128, 257, 1000, 4099];

/// A limit no arena2 search reaches: plain A*, cell by cell.
const CELL_BY_CELL: u32 = u32::MAX - 1;
/// A limit most arena2 searches do reach: a bounded, partial path.
const BOUNDED: u32 = 700;

/// What a search ended with.
#[derive(Debug, PartialEq)]
struct Answer {
    cells: Vec<Cell>,
    length_bits: u64,
    cost_bits: u64,
    reached_goal: bool,
    expanded: u32,
    work: u32,
}

fn answer(planner: &GridPlanner, path: &Path, reached_goal: bool) -> Answer {
    Answer {
        cells: path.cells.clone(),
        length_bits: path.length.to_bits(),
        cost_bits: path.cost.to_bits(),
        reached_goal,
        expanded: planner.expanded(),
        work: planner.work(),
    }
}

/// The search run at once.
fn one_shot(
    planner: &mut GridPlanner,
    grid: &CostGrid,
    start: Cell,
    goal: Cell,
    limit: u32,
) -> Answer {
    let mut path = Path::default();
    let reached = planner
        .find_path_bounded_into(grid, start, goal, limit, &mut path)
        .expect("every arena2 scenario is solvable");
    answer(planner, &path, reached)
}

/// The search resumed with `allowances` in turn (cycling), checking that
/// every call does exactly its allowance of work until the last, which
/// does at most its allowance. Returns the answer and the number of calls.
fn in_pieces(
    planner: &mut GridPlanner,
    grid: &CostGrid,
    (start, goal, limit): (Cell, Cell, u32),
    allowances: impl Iterator<Item = u32>,
) -> (Answer, usize) {
    planner
        .begin(grid, start, goal, limit)
        .expect("every arena2 scenario is solvable");
    assert_eq!(planner.work(), 0, "beginning does no work");
    // A path buffer holding an earlier answer: a suspended search must not
    // touch it, the ended one replaces it.
    let mut path = Path {
        cells: vec![Cell::new(1, 1); 3],
        length: 9.0,
        cost: 9.0,
    };
    let untouched = path.clone();
    for (calls, allowance) in allowances.enumerate() {
        let before = planner.work();
        let progress = planner.resume(grid, allowance, &mut path);
        let done = planner.work() - before;
        match progress {
            Progress::Suspended => {
                assert_eq!(done, allowance, "a suspended call uses its whole allowance");
                assert_eq!(path, untouched, "a suspended search leaves the path alone");
                assert!(planner.in_progress());
            }
            Progress::Done { reached_goal } => {
                assert!(
                    done <= allowance,
                    "{done} units of work on an allowance of {allowance}"
                );
                assert!(!planner.in_progress());
                return (answer(planner, &path, reached_goal), calls + 1);
            }
            Progress::Idle => panic!("the search vanished"),
        }
    }
    unreachable!("the allowances cycle forever")
}

#[test]
fn arena2_searches_resumed_in_pieces_equal_one_shot_searches() {
    let dir = data_dir();
    let map = load_map(dir.join("arena2.map")).expect("arena2.map loads");
    let grid = CostGrid::new(&map, Mobility::GROUND).expect("ground mobility is valid");
    let scenarios = load_scen(dir.join("arena2.map.scen")).expect("arena2 scen loads");
    let mut reference = GridPlanner::for_grid(&grid);
    let mut resumed = GridPlanner::for_grid(&grid);
    let mut suspensions = 0;
    // Every 9th line (103 of 929, all buckets), each mode, one allowance
    // per line turn by turn, plus a varying allowance per call.
    for (index, scenario) in scenarios.iter().enumerate().step_by(9) {
        for limit in [u32::MAX, CELL_BY_CELL, BOUNDED] {
            let query = (scenario.start, scenario.goal, limit);
            let expected = one_shot(&mut reference, &grid, scenario.start, scenario.goal, limit);
            let fixed = ALLOWANCES[index / 9 % ALLOWANCES.len()];
            let varying = ALLOWANCES.iter().copied().cycle().skip(index / 9);
            for allowances in [
                Box::new(std::iter::repeat(fixed)) as Box<dyn Iterator<Item = u32>>,
                Box::new(varying),
            ] {
                let (got, calls) = in_pieces(&mut resumed, &grid, query, allowances);
                assert_eq!(
                    got, expected,
                    "line {} (limit {limit}) resumed in {calls} calls",
                    scenario.line
                );
                suspensions += calls - 1;
            }
        }
    }
    assert!(
        suspensions > 10_000,
        "only {suspensions} suspensions: the test cuts too little"
    );
}

#[test]
fn a_zero_allowance_does_nothing_and_a_new_begin_abandons_the_search() {
    let dir = data_dir();
    let map = load_map(dir.join("arena2.map")).expect("arena2.map loads");
    let grid = CostGrid::new(&map, Mobility::GROUND).expect("ground mobility is valid");
    let scenario = &load_scen(dir.join("arena2.map.scen")).expect("loads")[900];
    let mut planner = GridPlanner::for_grid(&grid);
    let mut path = Path::default();
    assert_eq!(planner.resume(&grid, 10, &mut path), Progress::Idle);
    planner
        .begin(&grid, scenario.start, scenario.goal, u32::MAX)
        .expect("solvable");
    for _ in 0..3 {
        assert_eq!(planner.resume(&grid, 0, &mut path), Progress::Suspended);
        assert_eq!(planner.work(), 0);
    }
    assert_eq!(planner.resume(&grid, 5, &mut path), Progress::Suspended);
    // Begin another query: the first is gone, the second ends as a fresh one.
    let other = &load_scen(dir.join("arena2.map.scen")).expect("loads")[300];
    planner
        .begin(&grid, other.start, other.goal, u32::MAX)
        .expect("solvable");
    assert_eq!(
        planner.resume(&grid, u32::MAX, &mut path),
        Progress::Done { reached_goal: true }
    );
    let expected = GridPlanner::new()
        .find_path(&grid, other.start, other.goal)
        .expect("solvable");
    assert_eq!(path, expected);
    assert_eq!(planner.resume(&grid, u32::MAX, &mut path), Progress::Idle);
}
