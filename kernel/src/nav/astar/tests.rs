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
fn the_open_list_pops_in_rank_order_like_a_sorted_list() {
    // Interleaved pushes and pops of pseudo-random entries (many equal
    // `f` keys) against a list kept sorted by rank.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut random = move |modulus: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % modulus
    };
    let mut open = OpenList::default();
    open.clear();
    let mut reference: Vec<Entry> = Vec::new();
    for round in 0..5_000 {
        if random(3) > 0 {
            let g = random(64) as f64 * 0.5;
            let entry = Entry::new(g + random(16) as f64, g, round);
            open.push(entry);
            reference.push(entry);
        } else {
            reference.sort_by_key(|entry| std::cmp::Reverse(entry.rank()));
            let expected = reference.pop().map(|entry| entry.rank());
            assert_eq!(open.pop().map(|entry| entry.rank()), expected);
        }
    }
    reference.sort_by_key(|entry| std::cmp::Reverse(entry.rank()));
    while let Some(expected) = reference.pop() {
        assert_eq!(open.pop().map(|entry| entry.rank()), Some(expected.rank()));
    }
    assert_eq!(open.pop(), None);
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
