//! On the Moving AI maps traced to polygons, every scenario's any-angle
//! visibility-graph path is no longer than the octile optimum (plus the
//! file's rounding) and never passes through the inside of a blocked cell.

use std::time::Instant;

use convoy::glam::DVec2;
use convoy::nav::polygon::trace_grid;
use convoy::nav::visgraph::{
    FactionId, GraphConfig, PolygonNavigator, QueryOptions, VisGraph, VisSearch,
};
use convoy::nav::{Cell, CostGrid, Mobility, load_map, load_scen};

fn centre(cell: Cell) -> DVec2 {
    DVec2::new(f64::from(cell.x) + 0.5, f64::from(cell.y) + 0.5)
}

/// Whether segment `pq` meets the open square of cell `(x, y)`
/// (Liang–Barsky clipping against the open box).
fn crosses_cell_interior(p: DVec2, q: DVec2, x: u32, y: u32) -> bool {
    let (lo, hi) = (
        DVec2::new(f64::from(x), f64::from(y)),
        DVec2::new(f64::from(x + 1), f64::from(y + 1)),
    );
    let d = q - p;
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for axis in 0..2 {
        let (pa, da, l, h) = (p[axis], d[axis], lo[axis], hi[axis]);
        if da == 0.0 {
            if pa <= l || pa >= h {
                return false;
            }
        } else {
            let (a, b) = ((l - pa) / da, (h - pa) / da);
            t0 = t0.max(a.min(b));
            t1 = t1.min(a.max(b));
        }
    }
    t1 - t0 > 1e-9
}

fn valid(grid: &CostGrid, route: &[DVec2]) -> bool {
    route.windows(2).all(|w| {
        let (lo, hi) = (w[0].min(w[1]).floor(), w[0].max(w[1]).floor());
        (lo.y as u32..=(hi.y as u32).min(grid.height() - 1)).all(|y| {
            (lo.x as u32..=(hi.x as u32).min(grid.width() - 1))
                .all(|x| grid.passable(Cell::new(x, y)) || !crosses_cell_interior(w[0], w[1], x, y))
        })
    })
}

fn check_map(name: &str, every: usize) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/movingai");
    let map = load_map(format!("{dir}/{name}")).expect("map loads");
    let grid = CostGrid::new(&map, Mobility::GROUND).expect("ground mobility is valid");
    let scenarios = load_scen(format!("{dir}/{name}.scen")).expect("scen loads");
    let started = Instant::now();
    let graph = VisGraph::build_on(trace_grid(&grid), &[], &[], GraphConfig::default());
    eprintln!(
        "{name}: {} nodes, {} edges, built in {:?}",
        graph.node_count(),
        graph.edge_count(),
        started.elapsed()
    );
    let nav = PolygonNavigator::from_graph(graph, 1);
    let mut search = VisSearch::new(&nav);
    let mut out = Vec::new();
    let mut shorter = 0;
    for s in scenarios.iter().step_by(every) {
        let cost = nav
            .find_path_with(
                centre(s.start),
                centre(s.goal),
                FactionId(0),
                QueryOptions::default(),
                &mut search,
                &mut out,
            )
            .unwrap_or_else(|e| panic!("{name} line {}: {e}", s.line));
        assert!(!cost.moved, "{name} line {}: cell centres are free", s.line);
        assert!(
            cost.length <= s.optimal_length + s.tolerance(),
            "{name} line {}: any-angle {} > octile {}",
            s.line,
            cost.length,
            s.optimal_length
        );
        assert!(
            valid(&grid, search.route()),
            "{name} line {}: {:?} crosses a blocked cell",
            s.line,
            search.route()
        );
        shorter += usize::from(cost.length < s.optimal_length - 1e-3);
    }
    assert!(
        shorter > 0,
        "{name}: any-angle paths should beat octile somewhere"
    );
}

#[test]
fn arena_paths_are_valid_and_no_longer_than_octile() {
    check_map("arena.map", 1);
}

#[test]
fn arena2_paths_are_valid_and_no_longer_than_octile() {
    check_map("arena2.map", 1);
}

#[test]
fn berlin_paths_are_valid_and_no_longer_than_octile() {
    check_map("Berlin_0_256.map", 1);
}

#[test]
fn room_paths_are_valid_and_no_longer_than_octile() {
    check_map("64room_000.map", 1);
}
