//! `convoy-bench replay` end to end: the page is self-contained, its size
//! grows by a fixed amount per frame (so the 10,000-unit, 600-tick bound can
//! be checked from two short runs), it carries the profile's map, and bad
//! input gets one clear line.

#![allow(clippy::unwrap_used)]

mod common;
use common::{assert_refused, convoy_bench, temp_path};

/// The issue's bound: 10,000 units, 600 ticks, every tick recorded.
const SIZE_BOUND_BYTES: u64 = 50 * 1024 * 1024;

/// Records the default profile with `units` units for `ticks` ticks and
/// returns the page.
fn replay(name: &str, units: &str, ticks: &str) -> String {
    let out = temp_path(name);
    let output = convoy_bench(&[
        "replay",
        "--units",
        units,
        "--ticks",
        ticks,
        "--every",
        "1",
        "--threads",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::read_to_string(out).unwrap()
}

#[test]
fn a_ten_thousand_unit_six_hundred_tick_replay_stays_under_fifty_megabytes() {
    // The motion bytes are fixed-size per unit and frame (5 bytes, base64:
    // 4/3 of that), and the per-frame JSON is a tick and seven stage times,
    // so the size is affine in the frame count: measure two short runs and
    // extrapolate to 601 frames (the spawn state and 600 ticks).
    let short = replay("short.html", "10000", "3").len() as u64;
    let longer = replay("longer.html", "10000", "7").len() as u64;
    let per_frame = (longer - short) / 4;
    let motion_per_frame = 5 * 10_000 * 4 / 3;
    assert!(
        (motion_per_frame..motion_per_frame + 200).contains(&per_frame),
        "a frame costs {per_frame} bytes, expected ~{motion_per_frame} of motion plus its JSON"
    );
    let extrapolated = short + per_frame * (601 - 4);
    assert!(
        extrapolated < SIZE_BOUND_BYTES,
        "a 600-tick replay would take {extrapolated} bytes"
    );
}

#[test]
fn the_page_is_self_contained() {
    let page = replay("small.html", "50", "10");
    for forbidden in ["src=", "href=", "http:", "https:", "@import", "fetch("] {
        assert!(!page.contains(forbidden), "the page contains `{forbidden}`");
    }
    assert_eq!(page.matches("<script").count(), 3, "data, motion, player");
}

/// Records `profile` (relative to `profiles/`) with a few units for two
/// ticks and returns the page's data.
fn replay_data(profile: &str) -> serde_json::Value {
    let out = temp_path(&format!("{profile}.html"));
    let output = convoy_bench(&[
        "replay",
        &format!("../profiles/{profile}"),
        "--units",
        "20",
        "--ticks",
        "2",
        "--threads",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let page = std::fs::read_to_string(out).unwrap();
    let start_tag = r#"<script id="replay-data" type="application/json">"#;
    let start = page.find(start_tag).unwrap() + start_tag.len();
    let end = start + page[start..].find("</script>").unwrap();
    serde_json::from_str(&page[start..end]).unwrap()
}

#[test]
fn the_arena2_replay_carries_its_map_cell_for_cell() {
    let data = replay_data("arena2.toml");
    let map = &data["map"];
    let file = convoy::nav::load_map(std::path::Path::new("../profiles/maps/arena2.map")).unwrap();
    assert_eq!(map["kind"], "grid");
    assert_eq!(
        (map["width"].as_u64(), map["height"].as_u64()),
        (Some(281), Some(209)),
        "the map's size"
    );
    assert_eq!((file.width(), file.height()), (281, 209));
    assert_eq!(map["cell_size"], 8.0, "the profile's cell_size_m");
    assert_eq!(map["origin"], serde_json::json!([0.0, 0.0]));
    assert_eq!(map["classes"][0]["name"], "blocked");
    let runs: Vec<u64> = serde_json::from_value(map["runs"].clone()).unwrap();
    let mut blocked = vec![false; 281 * 209];
    for run in runs.chunks_exact(4) {
        assert_eq!(run[3], 0, "arena2 has walls only");
        for x in run[1]..run[1] + run[2] {
            blocked[run[0] as usize * 281 + x as usize] = true;
        }
    }
    let expected: Vec<bool> = file
        .cells()
        .iter()
        .map(|&terrain| terrain == convoy::nav::Terrain::Blocked)
        .collect();
    assert_eq!(blocked, expected, "every wall cell, and only those");
    assert_eq!(data["layers"][0], "terrain", "drawn first, under the units");
}

#[test]
fn a_polygon_replay_carries_its_obstacles_roads_and_bridges() {
    let data = replay_data("river.toml");
    let map = &data["map"];
    let file = convoy::nav::polygon::load_polygon_map(std::path::Path::new(
        "../profiles/maps/river_crossing.json",
    ))
    .unwrap();
    assert_eq!(map["kind"], "polygon");
    let obstacles: Vec<Vec<[f32; 2]>> = serde_json::from_value(map["obstacles"].clone()).unwrap();
    let expected: Vec<Vec<[f32; 2]>> = file
        .obstacles
        .iter()
        .map(|ring| ring.iter().map(|p| p.as_vec2().to_array()).collect())
        .collect();
    assert_eq!(obstacles, expected);
    assert_eq!(map["roads"].as_array().unwrap().len(), file.roads.len());
    assert_eq!(map["swamps"].as_array().unwrap().len(), file.swamps.len());
    assert_eq!(
        map["bridges"][0],
        serde_json::json!({"id": 1, "deck": [[460.0, 200.0], [500.0, 200.0], [540.0, 200.0]], "standing": true})
    );
    assert_eq!(
        data["layers"],
        serde_json::json!([
            "containers",
            "swamps",
            "obstacles",
            "roads",
            "bridges",
            "spatial-grid",
            "routes",
            "drive-to",
            "shields",
            "units"
        ])
    );
}

#[test]
fn the_default_profile_has_no_map_layer() {
    let page = replay("open.html", "20", "2");
    assert!(page.contains(r#""map":null"#));
}

#[test]
fn bad_replay_input_is_refused_with_one_line_naming_it() {
    let out = temp_path("bad.html");
    let out = out.to_str().unwrap();
    let missing = temp_path("missing.toml");
    let cases: [(&[&str], &[&str]); 4] = [
        (&["--every", "0"], &["--every", "0"]),
        (&["--ticks", "-3"], &["--ticks", "-3"]),
        (&[missing.to_str().unwrap()], &["missing.toml"]),
        (&["--units", "0"], &["--units"]),
    ];
    for (args, needles) in cases {
        let mut all = vec!["replay"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--out", out]);
        assert_refused(&convoy_bench(&all), needles);
    }
    let unwritable = temp_path("no-such-dir/out.html");
    let output = convoy_bench(&[
        "replay",
        "--units",
        "10",
        "--ticks",
        "2",
        "--out",
        unwritable.to_str().unwrap(),
    ]);
    assert_refused(&output, &["out.html", "cannot write"]);
}
