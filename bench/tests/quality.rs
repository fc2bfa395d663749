//! `convoy-bench quality`: ORCA clears `circle-24`, the collision counter
//! counts exactly, the JSON has every metric for both systems, and an
//! unknown scenario is refused with one line naming it.

#![allow(clippy::unwrap_used)]

mod common;
use common::{assert_refused, convoy_bench, temp_path};

use convoy::glam::Vec2;

use convoy_scenarios::crowd::metrics::{Grid, RADIUS_M, contacts};

/// Every metric key of one system's results.
const METRIC_KEYS: [&str; 16] = [
    "agents",
    "ticks",
    "time_to_95_s",
    "time_to_100_s",
    "time_to_95_loose_s",
    "time_to_100_loose_s",
    "arrived_at_end",
    "collisions_per_1000_unit_ticks",
    "deepest_interpenetration_m",
    "mean_speed_fraction",
    "goal_distance_p50_m",
    "goal_distance_max_m",
    "stuck_at_end",
    "wall_ms_per_tick",
    "arrivals",
    "arrivals_loose",
];

/// Runs `circle-24` on both systems and returns its JSON results.
fn circle_24() -> serde_json::Value {
    let json = temp_path("circle-24.json");
    let output = convoy_bench(&[
        "quality",
        "--scenario",
        "circle-24",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("| circle-24 | convoy |"), "{stdout}");
    assert!(stdout.contains("| circle-24 | dodgy |"), "{stdout}");
    serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
}

#[test]
fn orca_gets_every_agent_of_circle_24_to_its_goal_within_60_s_and_the_json_is_complete() {
    let report = circle_24();
    assert_eq!(report["arrival_radius_m"], 1.5);
    let scenarios = report["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 1);
    let scenario = &scenarios[0];
    assert_eq!(scenario["name"], "circle-24");
    assert_eq!(scenario["agents"], 24);
    for system in ["convoy", "dodgy"] {
        let outcome = scenario[system].as_object().unwrap();
        for key in METRIC_KEYS {
            assert!(outcome.contains_key(key), "{system} lacks `{key}`");
        }
        // 90 s at 60 Hz, sampled every second from 0 s.
        assert_eq!(outcome["ticks"], 5400, "{system}");
        for series in ["arrivals", "arrivals_loose"] {
            assert_eq!(outcome[series].as_array().unwrap().len(), 91, "{system}");
        }
    }
    let dodgy = &scenario["dodgy"];
    let all_in = dodgy["time_to_100_s"].as_f64();
    assert!(
        all_in.is_some_and(|seconds| seconds <= 60.0),
        "ORCA had every agent within 1.5 m of its goal only at {all_in:?} s"
    );
    assert_eq!(dodgy["arrived_at_end"], 24);
    assert_eq!(dodgy["stuck_at_end"], 0);
}

/// The collisions and deepest overlap of two agents `distance` apart.
fn pair(distance: f32, flies: [bool; 2]) -> convoy_scenarios::crowd::metrics::Contacts {
    let positions = [Vec2::new(10.0, 10.0), Vec2::new(10.0 + distance, 10.0)];
    let mut grid = Grid::new(Vec2::ZERO, Vec2::splat(100.0), 2.0 * RADIUS_M);
    contacts(&positions, &flies, &mut grid)
}

#[test]
fn two_agents_2_9_m_apart_are_one_collision_and_3_0_m_apart_none() {
    let overlap = pair(2.9, [false, false]);
    assert_eq!(overlap.collisions, 1);
    assert!((overlap.deepest_m - 0.1).abs() < 1e-5, "{overlap:?}");
    let touching = pair(3.0, [false, false]);
    assert_eq!(touching.collisions, 0);
    assert_eq!(touching.deepest_m, 0.0);
    // Within the 1 cm slack: contact, not a collision.
    let grazing = pair(2.995, [false, false]);
    assert_eq!(grazing.collisions, 0);
    assert!(grazing.deepest_m > 0.0);
    // A helicopter above a soldier does not collide with it.
    assert_eq!(pair(2.9, [true, false]).collisions, 0);
}

#[test]
fn the_collision_count_is_per_pair_across_grid_cells_and_outside_the_grid() {
    // A row of agents 2.9 m apart straddling cell edges and running off
    // the grid's rectangle: each neighbouring pair counts once.
    let positions: Vec<Vec2> = (0..40)
        .map(|i| Vec2::new(-20.0 + 2.9 * i as f32, 50.0))
        .collect();
    let flies = vec![false; positions.len()];
    let mut grid = Grid::new(Vec2::ZERO, Vec2::splat(100.0), 2.0 * RADIUS_M);
    assert_eq!(contacts(&positions, &flies, &mut grid).collisions, 39);
    // And a second tick counts again from scratch.
    assert_eq!(contacts(&positions, &flies, &mut grid).collisions, 39);
}

#[test]
fn an_unknown_scenario_is_refused_with_one_line_naming_it() {
    let output = convoy_bench(&["quality", "--scenario", "circle-24", "circle-7"]);
    assert_refused(&output, &["circle-7", "unknown scenario"]);
    assert!(output.stdout.is_empty());
}
