//! Property tests on random small maps: grid A* against a naive Dijkstra
//! written here from the move rules, bounded A* against its limit, region
//! labels against an 8-connected flood fill.

use std::f64::consts::SQRT_2;

use convoy::nav::astar::F_QUANTUM;
use convoy::nav::grid::SWAMP_COST;
use convoy::nav::{Cell, CostGrid, GridPlanner, Mobility, Path, PathError, parse_map};
use proptest::prelude::*;

/// A random map as rows of Moving AI characters.
#[derive(Clone, Debug)]
struct Map {
    width: usize,
    height: usize,
    chars: Vec<u8>,
}

fn map_strategy() -> impl Strategy<Value = Map> {
    (1usize..=12, 1usize..=12).prop_flat_map(|(width, height)| {
        let cell = prop_oneof![
            12 => Just(b'.'),
            5 => Just(b'@'),
            2 => Just(b'S'),
            2 => Just(b'W'),
            1 => Just(b'T'),
        ];
        proptest::collection::vec(cell, width * height).prop_map(move |chars| Map {
            width,
            height,
            chars,
        })
    })
}

impl Map {
    fn text(&self) -> String {
        let mut text = format!(
            "type octile\nheight {}\nwidth {}\nmap\n",
            self.height, self.width
        );
        for row in self.chars.chunks(self.width) {
            text.push_str(std::str::from_utf8(row).expect("ascii"));
            text.push('\n');
        }
        text
    }

    /// Cost multiplier of the cell at (x, y), `None` where impassable —
    /// straight from the documented terrain table.
    fn multiplier(&self, naval: bool, x: i64, y: i64) -> Option<f64> {
        if x < 0 || y < 0 || x >= self.width as i64 || y >= self.height as i64 {
            return None;
        }
        let c = self.chars[y as usize * self.width + x as usize];
        match (naval, c) {
            (false, b'.') => Some(1.0),
            (false, b'S') => Some(f64::from(SWAMP_COST)),
            (true, b'W') => Some(1.0),
            _ => None,
        }
    }

    /// Plain O(n²) Dijkstra from `start` with 8 moves, no corner cutting,
    /// step cost = length × mean multiplier. `INFINITY` where unreachable.
    fn dijkstra(&self, naval: bool, start: (i64, i64)) -> Vec<f64> {
        let n = self.width * self.height;
        let mut dist = vec![f64::INFINITY; n];
        let mut done = vec![false; n];
        if self.multiplier(naval, start.0, start.1).is_none() {
            return dist;
        }
        dist[start.1 as usize * self.width + start.0 as usize] = 0.0;
        loop {
            let mut best = None;
            for i in 0..n {
                if !done[i] && dist[i].is_finite() && best.is_none_or(|b: usize| dist[i] < dist[b])
                {
                    best = Some(i);
                }
            }
            let Some(i) = best else { break };
            done[i] = true;
            let (x, y) = ((i % self.width) as i64, (i / self.width) as i64);
            let here = self
                .multiplier(naval, x, y)
                .expect("settled cells are passable");
            for dy in -1..=1 {
                for dx in -1..=1 {
                    if dx == 0 && dy == 0 {
                        continue;
                    }
                    let Some(there) = self.multiplier(naval, x + dx, y + dy) else {
                        continue;
                    };
                    let diagonal = dx != 0 && dy != 0;
                    if diagonal
                        && (self.multiplier(naval, x + dx, y).is_none()
                            || self.multiplier(naval, x, y + dy).is_none())
                    {
                        continue;
                    }
                    let len = if diagonal { SQRT_2 } else { 1.0 };
                    let j = (y + dy) as usize * self.width + (x + dx) as usize;
                    let d = dist[i] + len * (here + there) / 2.0;
                    if d < dist[j] {
                        dist[j] = d;
                    }
                }
            }
        }
        dist
    }
}

fn grid_of(map: &Map, naval: bool) -> CostGrid {
    let parsed = parse_map(&map.text()).expect("generated maps are well formed");
    let mobility = if naval {
        Mobility::NAVAL
    } else {
        Mobility::GROUND
    };
    CostGrid::new(&parsed, mobility).expect("built-in mobilities are valid")
}

/// Every step allowed, cost and length the sums of the steps.
fn check_valid(grid: &CostGrid, path: &Path, start: Cell) -> Result<(), TestCaseError> {
    prop_assert_eq!(path.cells.first(), Some(&start));
    let mut cost = 0.0;
    for w in path.cells.windows(2) {
        let step = grid.step_cost(w[0], w[1]);
        prop_assert!(step.is_some(), "illegal step {:?} -> {:?}", w[0], w[1]);
        cost += step.unwrap_or(0.0);
    }
    prop_assert!(
        (cost - path.cost).abs() < 1e-9,
        "cost {} vs steps {}",
        path.cost,
        cost
    );
    Ok(())
}

/// `found` is the oracle's optimum up to float noise, and at most
/// `F_QUANTUM` (the documented open-list key granularity) above it.
fn close(found: f64, optimum: f64) -> bool {
    let noise = 1e-9 * optimum.abs().max(1.0);
    found >= optimum - noise && found <= optimum + F_QUANTUM + noise
}

fn endpoints() -> impl Strategy<Value = (usize, usize, usize, usize, bool)> {
    (
        0usize..12,
        0usize..12,
        0usize..12,
        0usize..12,
        any::<bool>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn astar_cost_equals_the_dijkstra_oracle(map in map_strategy(), (sx, sy, gx, gy, naval) in endpoints()) {
        let (sx, sy, gx, gy) = (sx % map.width, sy % map.height, gx % map.width, gy % map.height);
        let grid = grid_of(&map, naval);
        let (start, goal) = (Cell::new(sx as u32, sy as u32), Cell::new(gx as u32, gy as u32));
        let oracle = map.dijkstra(naval, (sx as i64, sy as i64));
        let expected = oracle[gy * map.width + gx];
        let found = GridPlanner::new().find_path(&grid, start, goal);
        if map.multiplier(naval, sx as i64, sy as i64).is_none() {
            prop_assert_eq!(found, Err(PathError::Blocked { which: "start", cell: start }));
        } else if map.multiplier(naval, gx as i64, gy as i64).is_none() {
            prop_assert_eq!(found, Err(PathError::Blocked { which: "goal", cell: goal }));
        } else if expected.is_infinite() {
            prop_assert_eq!(found, Err(PathError::Unreachable));
        } else {
            let path = found.map_err(|e| TestCaseError::fail(e.to_string()))?;
            check_valid(&grid, &path, start)?;
            prop_assert_eq!(path.cells.last(), Some(&goal));
            prop_assert!(close(path.cost, expected), "A* {} vs Dijkstra {}", path.cost, expected);
        }
    }

    #[test]
    fn bounded_astar_never_expands_more_than_its_limit(
        map in map_strategy(),
        (sx, sy, gx, gy, naval) in endpoints(),
        limit in 0u32..60,
    ) {
        let (sx, sy, gx, gy) = (sx % map.width, sy % map.height, gx % map.width, gy % map.height);
        let grid = grid_of(&map, naval);
        let (start, goal) = (Cell::new(sx as u32, sy as u32), Cell::new(gx as u32, gy as u32));
        let oracle = map.dijkstra(naval, (sx as i64, sy as i64));
        let mut planner = GridPlanner::new();
        let Ok(bounded) = planner.find_path_bounded(&grid, start, goal, limit) else {
            // Blocked or unreachable: the plain search must agree.
            prop_assert!(planner.expanded() == 0);
            prop_assert!(GridPlanner::new().find_path(&grid, start, goal).is_err());
            return Ok(());
        };
        prop_assert!(planner.expanded() <= limit, "expanded {} > limit {}", planner.expanded(), limit);
        check_valid(&grid, &bounded.path, start)?;
        let end = *bounded.path.cells.last().expect("a path holds at least the start");
        prop_assert_eq!(bounded.reached_goal, end == goal);
        // Expanded nodes are settled: the partial path is optimal to its end.
        let best = oracle[end.y as usize * map.width + end.x as usize];
        prop_assert!(close(bounded.path.cost, best), "partial {} vs Dijkstra {}", bounded.path.cost, best);
        // A limit at least the unbounded search's expansions reaches the
        // goal. The reference searches cell by cell as the bounded one does:
        // any limit below `u32::MAX` does, while an unbounded query on a
        // uniform map is a jump point search, whose expansions are jump
        // points.
        let mut unbounded = GridPlanner::new();
        unbounded
            .find_path_bounded(&grid, start, goal, u32::MAX - 1)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        // (A start on the goal has arrived even with no expansion.)
        if limit >= unbounded.expanded() || start == goal {
            prop_assert!(bounded.reached_goal);
        } else {
            prop_assert!(!bounded.reached_goal);
            prop_assert_eq!(planner.expanded(), limit);
        }
    }

    #[test]
    fn region_labels_agree_with_a_flood_fill(map in map_strategy(), (sx, sy, _, _, naval) in endpoints()) {
        let (sx, sy) = (sx % map.width, sy % map.height);
        let grid = grid_of(&map, naval);
        let start = Cell::new(sx as u32, sy as u32);
        // Dijkstra reachability is the 8-connected, no-corner-cutting flood fill.
        let reach = map.dijkstra(naval, (sx as i64, sy as i64));
        let mut planner = GridPlanner::new();
        for gy in 0..map.height {
            for gx in 0..map.width {
                let goal = Cell::new(gx as u32, gy as u32);
                let reachable = reach[gy * map.width + gx].is_finite();
                prop_assert_eq!(grid.connected(start, goal), reachable, "{:?} -> {:?}", start, goal);
                let passable_ends = grid.passable(start) && grid.passable(goal);
                if passable_ends && !reachable {
                    prop_assert_eq!(planner.find_path(&grid, start, goal), Err(PathError::Unreachable));
                    prop_assert_eq!(planner.expanded(), 0);
                }
            }
        }
    }
}
