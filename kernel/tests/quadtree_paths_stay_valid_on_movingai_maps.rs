//! The quadtree planner finds a valid path for every Moving AI scenario:
//! no segment touches a blocked cell (exact supercover walk), the path runs
//! from start to goal, and its length is reported against the optimum.

use std::path::PathBuf;

use convoy::nav::{
    CostGrid, Mobility, QuadPath, QuadPlanner, Quadtree, load_map, load_scen, supercover,
};

#[test]
fn every_quadtree_path_on_the_movingai_maps_is_valid() {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/movingai"
    ));
    let mut total = 0;
    for name in ["arena", "arena2", "Berlin_0_256", "64room_000"] {
        let map = load_map(dir.join(format!("{name}.map"))).unwrap_or_else(|e| panic!("{e}"));
        let grid = CostGrid::new(&map, Mobility::GROUND).expect("ground mobility is valid");
        let tree = Quadtree::new(&grid).expect("the maps decompose");
        assert!(
            tree.leaf_count() < tree.grid_cell_count(),
            "{name}: no fewer leaves than cells"
        );
        let scenarios =
            load_scen(dir.join(format!("{name}.map.scen"))).unwrap_or_else(|e| panic!("{e}"));
        let mut planner = QuadPlanner::new();
        let mut path = QuadPath::default();
        let (mut ratio_sum, mut ratio_max) = (0.0, 0.0f64);
        for s in &scenarios {
            let what = format!("{name} line {}", s.line);
            planner
                .find_path_into(&grid, &tree, s.start, s.goal, &mut path)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(path.points.first(), Some(&s.start), "{what}");
            assert_eq!(path.points.last(), Some(&s.goal), "{what}");
            for w in path.points.windows(2) {
                let clear = supercover(w[0], w[1], |c| grid.passable(c));
                assert!(
                    clear,
                    "{what}: segment {:?} -> {:?} touches a blocked cell",
                    w[0], w[1]
                );
            }
            // A straight line is the shortest any path can be.
            let (dx, dy) = (
                f64::from(s.goal.x) - f64::from(s.start.x),
                f64::from(s.goal.y) - f64::from(s.start.y),
            );
            assert!(
                path.length >= dx.hypot(dy) - 1e-9,
                "{what}: shorter than the straight line"
            );
            if s.optimal_length > 0.0 {
                let ratio = path.length / s.optimal_length;
                ratio_sum += ratio;
                ratio_max = ratio_max.max(ratio);
            }
            total += 1;
        }
        eprintln!(
            "{name}: {} leaves for {} cells, length ratio mean {:.4} max {:.4}",
            tree.leaf_count(),
            tree.grid_cell_count(),
            ratio_sum / scenarios.len() as f64,
            ratio_max
        );
    }
    assert_eq!(total, 160 + 929 + 930 + 2030);
}
