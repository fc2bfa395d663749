//! Every scenario line shipped in `shared/data/movingai` is solved by grid A*
//! at its published optimal length, along a valid path.

use std::path::PathBuf;

use convoy::nav::{CostGrid, GridPlanner, Mobility, Path, check_scenarios, load_map, load_scen};

fn data_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/movingai"
    ))
}

/// Checks that consecutive cells are allowed steps and that the reported
/// cost and length are the sums of the steps.
fn assert_valid(grid: &CostGrid, path: &Path, what: &str) {
    let mut cost = 0.0;
    let mut length = 0.0;
    for w in path.cells.windows(2) {
        let step = grid
            .step_cost(w[0], w[1])
            .unwrap_or_else(|| panic!("{what}: illegal step {:?} -> {:?}", w[0], w[1]));
        cost += step;
        length += if w[0].x != w[1].x && w[0].y != w[1].y {
            std::f64::consts::SQRT_2
        } else {
            1.0
        };
    }
    assert!(
        (cost - path.cost).abs() < 1e-9,
        "{what}: cost {cost} vs {}",
        path.cost
    );
    assert!(
        (length - path.length).abs() < 1e-9,
        "{what}: length {length} vs {}",
        path.length
    );
}

#[test]
fn every_scenario_line_in_the_movingai_folder_reproduces_its_optimal_length() {
    let mut scen_files: Vec<PathBuf> = std::fs::read_dir(data_dir())
        .expect("the movingai data folder is readable")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "scen"))
        .collect();
    scen_files.sort();
    assert_eq!(
        scen_files.len(),
        4,
        "expected the four shipped scenario files"
    );

    let mut planner = GridPlanner::new();
    let mut path = Path::default();
    let mut total = 0usize;
    let mut mismatches = Vec::new();
    for scen_file in &scen_files {
        // `foo.map.scen` belongs to `foo.map`.
        let map_file = scen_file.with_extension("");
        let map = load_map(&map_file).unwrap_or_else(|e| panic!("{e}"));
        let grid = CostGrid::new(&map, Mobility::GROUND).expect("ground mobility is valid");
        let scenarios = load_scen(scen_file).unwrap_or_else(|e| panic!("{e}"));
        check_scenarios(&scenarios, &grid)
            .unwrap_or_else(|e| panic!("{}: {e}", scen_file.display()));
        assert!(!scenarios.is_empty());
        for s in &scenarios {
            let what = format!("{}:{}", scen_file.display(), s.line);
            planner
                .find_path_into(&grid, s.start, s.goal, &mut path)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(path.cells.first(), Some(&s.start), "{what}");
            assert_eq!(path.cells.last(), Some(&s.goal), "{what}");
            assert_valid(&grid, &path, &what);
            if !s.matches(path.cost) {
                mismatches.push(format!(
                    "{what}: found {} expected {}",
                    path.cost, s.optimal_length
                ));
            }
            total += 1;
        }
    }
    assert_eq!(total, 160 + 929 + 930 + 2030, "every scenario line was run");
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
