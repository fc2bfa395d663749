//! `convoy-bench render` end to end: small fixed scenes compared with the
//! SVGs stored in `bench/tests/visual/` by structure (elements per layer,
//! their classes and colours, every coordinate within a tolerance — not
//! bytes), each also checked against an oracle computed here from the
//! kernel; and bad input refused with one clear line.
//!
//! After an intended change to the pictures, regenerate the stored files
//! with `UPDATE_VISUAL_SNAPSHOTS=1 cargo test -p convoy-bench --test render`
//! and look at them before committing.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use convoy::glam::{DVec2, Vec2};
use convoy::nav::movingai::load_map;
use convoy::nav::polygon::{PolygonMap, load_mesh, load_polygon_map, trace_grid};
use convoy::nav::quadtree::Quadtree;
use convoy::nav::visgraph::{FactionId, GraphConfig, PolygonNavigator, VisGraph, VisSearch};
use convoy::nav::{Cell, CostGrid, GridPlanner, Mobility};
use convoy_scenarios::Profile;

mod common;
use common::{assert_refused, convoy_bench, temp_path};

/// Pixels two coordinates may differ by and still match.
const TOLERANCE_PX: f64 = 0.05;
/// The SVG writer's margin around the scene.
const MARGIN_PX: f64 = 10.0;

/// A file of `bench/tests/visual/`, relative to the package (the working
/// directory of tests and of the commands they run), so the stored SVGs'
/// titles name no machine's paths.
fn visual(name: &str) -> PathBuf {
    Path::new("tests/visual").join(name)
}

/// Renders with `args` (plus `--out`) and returns the SVG text.
fn render(name: &str, args: &[&str]) -> String {
    let out = temp_path(name);
    let mut all = vec!["render"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--out", out.to_str().unwrap()]);
    let output = convoy_bench(&all);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::read_to_string(out).unwrap()
}

/// The numbers in an attribute value, in order.
fn numbers(value: &str) -> Vec<f64> {
    value
        .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .filter(|part| !part.is_empty())
        .map(|part| part.parse().unwrap())
        .collect()
}

/// Attributes whose values are coordinates (compared with a tolerance).
const GEOMETRY: [&str; 12] = [
    "x",
    "y",
    "width",
    "height",
    "cx",
    "cy",
    "r",
    "rx",
    "ry",
    "points",
    "d",
    "transform",
];

/// Compares two SVG documents element by element: same tags, same
/// non-geometry attributes, coordinates within [`TOLERANCE_PX`]. The title
/// text is not compared (it names the input path).
fn assert_same_structure(actual: &str, stored: &str, name: &str) {
    let actual_doc = roxmltree::Document::parse(actual).unwrap();
    let stored_doc = roxmltree::Document::parse(stored).unwrap();
    let elements = |doc: &roxmltree::Document<'_>| -> Vec<(String, Vec<(String, String)>)> {
        doc.descendants()
            .filter(roxmltree::Node::is_element)
            .map(|node| {
                let attributes = node
                    .attributes()
                    .map(|a| (a.name().to_owned(), a.value().to_owned()))
                    .collect();
                (node.tag_name().name().to_owned(), attributes)
            })
            .collect()
    };
    let (actual_elements, stored_elements) = (elements(&actual_doc), elements(&stored_doc));
    for layer in stored_doc
        .descendants()
        .filter(|node| node.attribute("class") == Some("layer"))
    {
        let id = layer.attribute("id").unwrap();
        let found = actual_doc
            .descendants()
            .find(|node| node.attribute("id") == Some(id))
            .unwrap_or_else(|| panic!("{name}: layer {id} missing"));
        assert_eq!(
            found.children().filter(roxmltree::Node::is_element).count(),
            layer.children().filter(roxmltree::Node::is_element).count(),
            "{name}: elements in {id}"
        );
    }
    assert_eq!(
        actual_elements.len(),
        stored_elements.len(),
        "{name}: element count"
    );
    for (index, ((tag, attributes), (stored_tag, stored_attributes))) in
        actual_elements.iter().zip(&stored_elements).enumerate()
    {
        assert_eq!(tag, stored_tag, "{name}: element {index}");
        assert_eq!(
            attributes.len(),
            stored_attributes.len(),
            "{name}: attributes of element {index} <{tag}>"
        );
        for ((key, value), (stored_key, stored_value)) in attributes.iter().zip(stored_attributes) {
            assert_eq!(key, stored_key, "{name}: element {index} <{tag}>");
            if !GEOMETRY.contains(&key.as_str()) {
                assert_eq!(value, stored_value, "{name}: element {index} <{tag}> {key}");
                continue;
            }
            let (now, then) = (numbers(value), numbers(stored_value));
            assert_eq!(
                now.len(),
                then.len(),
                "{name}: element {index} <{tag}> {key}"
            );
            for (a, b) in now.iter().zip(&then) {
                assert!(
                    (a - b).abs() <= TOLERANCE_PX,
                    "{name}: element {index} <{tag}> {key}: {a} vs stored {b}"
                );
            }
        }
    }
}

/// Compares with the stored SVG, or rewrites it when
/// `UPDATE_VISUAL_SNAPSHOTS` is set.
fn check_against_stored(svg: &str, stored_name: &str) {
    let stored_path = visual(stored_name);
    if std::env::var_os("UPDATE_VISUAL_SNAPSHOTS").is_some() {
        std::fs::write(&stored_path, svg).unwrap();
        return;
    }
    let stored = std::fs::read_to_string(&stored_path).unwrap_or_else(|error| {
        panic!(
            "{}: {error}; set UPDATE_VISUAL_SNAPSHOTS=1 to create it",
            stored_path.display()
        )
    });
    assert_same_structure(svg, &stored, stored_name);
}

fn elements_of_class<'a>(
    doc: &'a roxmltree::Document<'a>,
    class: &str,
) -> Vec<roxmltree::Node<'a, 'a>> {
    doc.descendants()
        .filter(|node| {
            node.attribute("class")
                .is_some_and(|c| c.split(' ').any(|part| part == class))
        })
        .collect()
}

fn attribute(node: &roxmltree::Node<'_, '_>, name: &str) -> f64 {
    node.attribute(name).unwrap().parse().unwrap()
}

/// Rects of a class, in map cells (the map scenes' scale is `scale` px a
/// cell): total area.
fn cell_area(doc: &roxmltree::Document<'_>, class: &str, scale: f64) -> f64 {
    elements_of_class(doc, class)
        .iter()
        .map(|rect| attribute(rect, "width") * attribute(rect, "height") / (scale * scale))
        .sum()
}

const WALLS_PATH: [&str; 6] = ["--path", "1", "10", "14", "1", "--width"];

#[test]
fn a_grid_path_on_a_small_map_matches_the_stored_picture_and_the_planner() {
    let svg = render(
        "walls-grid.svg",
        &[
            visual("walls.map").to_str().unwrap(),
            WALLS_PATH[0],
            WALLS_PATH[1],
            WALLS_PATH[2],
            WALLS_PATH[3],
            WALLS_PATH[4],
            WALLS_PATH[5],
            "480",
        ],
    );
    check_against_stored(&svg, "walls-grid.svg");

    let doc = roxmltree::Document::parse(&svg).unwrap();
    let scale = 480.0 / 16.0;
    let text = std::fs::read_to_string(visual("walls.map")).unwrap();
    let map_rows: Vec<&str> = text.lines().skip(4).collect();
    let count = |chars: &[char]| -> f64 {
        map_rows
            .iter()
            .flat_map(|row| row.chars())
            .filter(|c| chars.contains(c))
            .count() as f64
    };
    assert!((cell_area(&doc, "blocked", scale) - count(&['@', 'T'])).abs() < 1e-6);
    assert!((cell_area(&doc, "swamp", scale) - count(&['S'])).abs() < 1e-6);
    assert!((cell_area(&doc, "water", scale) - count(&['W'])).abs() < 1e-6);

    // The oracle: the kernel's planner on the same query.
    let map = load_map(visual("walls.map")).unwrap();
    let grid = CostGrid::new(&map, Mobility::GROUND).unwrap();
    let mut planner = GridPlanner::new();
    let path = planner
        .find_path(&grid, Cell::new(1, 10), Cell::new(14, 1))
        .unwrap();
    let polyline = &elements_of_class(&doc, "path")[0];
    let points = numbers(polyline.attribute("points").unwrap());
    assert_eq!(points.len(), 2 * path.cells.len());
    for (pair, cell) in points.chunks(2).zip(&path.cells) {
        let expected = [
            MARGIN_PX + (f64::from(cell.x) + 0.5) * scale,
            MARGIN_PX + (f64::from(cell.y) + 0.5) * scale,
        ];
        assert!((pair[0] - expected[0]).abs() < TOLERANCE_PX);
        assert!((pair[1] - expected[1]).abs() < TOLERANCE_PX);
    }
    let explored = elements_of_class(&doc, "explored");
    assert_eq!(explored.len(), planner.reached_cells(&grid).count());
    assert!(explored.len() >= path.cells.len());
    assert!(
        elements_of_class(&doc, "leaf").is_empty(),
        "no quadtree drawn for the grid backend by default"
    );
}

#[test]
fn a_quadtree_path_matches_the_stored_picture_and_draws_every_leaf() {
    let svg = render(
        "walls-quadtree.svg",
        &[
            visual("walls.map").to_str().unwrap(),
            WALLS_PATH[0],
            WALLS_PATH[1],
            WALLS_PATH[2],
            WALLS_PATH[3],
            WALLS_PATH[4],
            "--backend",
            "quadtree",
            WALLS_PATH[5],
            "480",
        ],
    );
    check_against_stored(&svg, "walls-quadtree.svg");

    let doc = roxmltree::Document::parse(&svg).unwrap();
    let map = load_map(visual("walls.map")).unwrap();
    let grid = CostGrid::new(&map, Mobility::GROUND).unwrap();
    let tree = Quadtree::new(&grid).unwrap();
    let leaves = elements_of_class(&doc, "leaf");
    assert_eq!(leaves.len(), tree.leaf_count());
    let scale = 480.0 / 16.0;
    let area: f64 = leaves
        .iter()
        .map(|leaf| attribute(leaf, "width") * attribute(leaf, "height"))
        .sum::<f64>()
        / (scale * scale);
    assert!((area - 16.0 * 12.0).abs() < 1e-6, "leaves tile the map");
    let start = &elements_of_class(&doc, "start")[0];
    assert!((attribute(start, "cx") - (MARGIN_PX + 1.5 * scale)).abs() < TOLERANCE_PX);
    assert!((attribute(start, "cy") - (MARGIN_PX + 10.5 * scale)).abs() < TOLERANCE_PX);
}

#[test]
fn the_spawn_scene_of_a_profile_matches_the_stored_picture_and_the_simulation() {
    // Tick 0 depends only on the scenario's placement, so kernel changes to
    // steering do not churn the stored picture; later ticks are checked
    // against the kernel below.
    let svg = render_tiny_at(0);
    check_against_stored(&svg, "tiny-spawn.svg");
    assert_units_drawn_where_the_simulation_has_them(&svg, 0);
}

#[test]
fn a_profile_scene_after_thirty_ticks_shows_the_units_where_the_simulation_has_them() {
    let svg = render_tiny_at(30);
    assert_units_drawn_where_the_simulation_has_them(&svg, 30);
}

fn render_tiny_at(tick: u64) -> String {
    let tick = tick.to_string();
    render(
        &format!("tiny-{tick}.svg"),
        &[
            visual("tiny.toml").to_str().unwrap(),
            "--tick",
            &tick,
            "--width",
            "600",
        ],
    )
}

/// The oracle: the same profile stepped here, its columns mapped to pixels
/// independently of the renderer.
fn assert_units_drawn_where_the_simulation_has_them(svg: &str, ticks: u64) {
    let profile = Profile::load(&visual("tiny.toml")).unwrap();
    let mut sim = convoy_scenarios::build(&profile, 1).unwrap();
    for _ in 0..ticks {
        sim.step(profile.run.dt);
    }
    let bounds = sim.config().bounds;
    let scale = 600.0 / f64::from(bounds.max.x - bounds.min.x);
    let columns = sim.vehicles().columns();
    let doc = roxmltree::Document::parse(svg).unwrap();
    let units = elements_of_class(&doc, "unit");
    let shields = elements_of_class(&doc, "shield");
    assert_eq!(units.len(), columns.position().len());
    assert_eq!(shields.len(), columns.position().len());
    for (row, shield) in shields.iter().enumerate() {
        let position = columns.position()[row];
        let expected_x = MARGIN_PX + f64::from(position.x - bounds.min.x) * scale;
        let expected_y = MARGIN_PX + f64::from(bounds.max.y - position.y) * scale;
        assert!((attribute(shield, "cx") - expected_x).abs() < TOLERANCE_PX);
        assert!((attribute(shield, "cy") - expected_y).abs() < TOLERANCE_PX);
        let half_length = f64::from(columns.shield()[row].x) * scale;
        assert!((attribute(shield, "rx") - half_length).abs() < TOLERANCE_PX);
        let rotation = numbers(shield.attribute("transform").unwrap())[0];
        let heading = f64::from(columns.heading()[row]).to_degrees();
        assert!((rotation + heading).abs() < 0.01, "row {row}");
    }
    for (row, unit) in units.iter().enumerate() {
        let kind = convoy::VehicleKind::from_u8(columns.kind()[row]).unwrap();
        let class = unit.attribute("class").unwrap();
        let expected = serde_json::to_value(kind).unwrap();
        assert_eq!(class, format!("unit {}", expected.as_str().unwrap()));
        // The nose (first point) lies one shield half-length ahead.
        let nose = numbers(unit.attribute("points").unwrap());
        let (sin, cos) = f64::from(columns.heading()[row]).sin_cos();
        let position = columns.position()[row];
        let ahead = f64::from(columns.shield()[row].x);
        let expected_x = MARGIN_PX + (f64::from(position.x - bounds.min.x) + ahead * cos) * scale;
        let expected_y = MARGIN_PX + (f64::from(bounds.max.y - position.y) - ahead * sin) * scale;
        assert!((nose[0] - expected_x).abs() < TOLERANCE_PX, "row {row}");
        assert!((nose[1] - expected_y).abs() < TOLERANCE_PX, "row {row}");
    }
    let scale_bar = &elements_of_class(&doc, "scale-bar")[0];
    let length_px = attribute(scale_bar, "data-length-px");
    let length = attribute(scale_bar, "data-length");
    assert!((length_px - length * scale).abs() < TOLERANCE_PX);
}

#[test]
fn layers_select_what_is_drawn() {
    let svg = render(
        "units-only.svg",
        &[
            visual("tiny.toml").to_str().unwrap(),
            "--layers",
            "units,shields",
        ],
    );
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let layers: Vec<&str> = elements_of_class(&doc, "layer")
        .iter()
        .map(|node| node.attribute("id").unwrap())
        .collect();
    assert_eq!(layers, ["layer-shields", "layer-units"], "drawing order");
}

#[test]
fn a_view_window_keeps_exactly_the_units_that_reach_into_it() {
    let svg = render(
        "window.svg",
        &[
            visual("tiny.toml").to_str().unwrap(),
            "--layers",
            "units",
            "--view",
            "0",
            "-60",
            "60",
            "60",
        ],
    );
    let profile = Profile::load(&visual("tiny.toml")).unwrap();
    let sim = convoy_scenarios::build(&profile, 1).unwrap();
    let columns = sim.vehicles().columns();
    let inside = columns
        .position()
        .iter()
        .zip(columns.shield())
        .filter(|(position, shield)| position.x + shield.x.max(shield.y) >= 0.0)
        .count();
    assert!(
        0 < inside && inside < columns.position().len(),
        "the window cuts the scene"
    );
    let doc = roxmltree::Document::parse(&svg).unwrap();
    assert_eq!(elements_of_class(&doc, "unit").len(), inside);
}

#[test]
fn an_unknown_layer_is_refused_with_the_valid_names() {
    let out = temp_path("never.svg");
    let output = convoy_bench(&[
        "render",
        "--layers",
        "units,forests",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_refused(
        &output,
        &[
            "`forests`",
            "terrain, quadtree, containers, swamps, obstacles, inflated, roads, bridges, visgraph, explored, spatial-grid, routes, platoons, drive-to, shields, units, avoidance, stuck, path",
        ],
    );
    assert!(!out.exists());
}

#[test]
fn bad_render_input_is_refused_with_one_line_naming_it() {
    let out = temp_path("bad.svg");
    let out = out.to_str().unwrap();
    let map = visual("walls.map");
    let map = map.to_str().unwrap();
    let tiny = visual("tiny.toml");
    let tiny = tiny.to_str().unwrap();
    let missing = temp_path("missing.map");
    let missing = missing.to_str().unwrap();
    let broken = temp_path("broken.json");
    std::fs::write(&broken, "{\n  \"containers\": [[[0, 0], [10, 0]\n").unwrap();
    let broken = broken.to_str().unwrap();
    let cases: [(&[&str], &[&str]); 15] = [
        (
            &[tiny, "--view", "5", "0", "-5", "10"],
            &["--view", "XMIN < XMAX"],
        ),
        (
            &[map, "--path", "4", "2", "14", "1"],
            &["--path", "start (4, 2) is impassable"],
        ),
        (
            &[map, "--path", "1", "1", "99", "1"],
            &["--path", "goal (99, 1) is outside the map"],
        ),
        (
            &[map, "--path", "1", "1", "14", "4"],
            &["--path", "goal (14, 4) is impassable"],
        ),
        (&[map, "--tick", "5"], &["--tick", "profiles"]),
        (&[tiny, "--path", "1", "1", "2", "2"], &["--path", ".map"]),
        (
            &[map, "--path", "1.5", "10", "14", "1"],
            &["--path", "whole coordinates", "(1.5, 10)"],
        ),
        (&[missing], &["missing.map"]),
        (&[broken], &["broken.json:"]),
        (
            &[RIVER_CROSSING, "--backend", "quadtree"],
            &["--backend quadtree", "visgraph"],
        ),
        (
            &[RIVER_CROSSING, "--path", "100", "500", "inf", "500"],
            &["--path", "goal is not a finite point"],
        ),
        (
            &[RIVER_CROSSING, "--clearance", "-1"],
            &["river_crossing.json", "clearance", "-1"],
        ),
        (
            &[map, "--backend", "visgraph", "--path", "4", "2", "14", "1"],
            &["--path", "start (4, 2) is impassable"],
        ),
        (&[map, "--clearance", "2"], &["--clearance", "polygon maps"]),
        (
            &[tiny, "--layers", "terrain,path"],
            &["nothing to draw", "terrain, path"],
        ),
    ];
    for (args, needles) in cases {
        let mut all = vec!["render"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--out", out]);
        assert_refused(&convoy_bench(&all), needles);
    }
}

/// The map profile of the visual tests: `walls.map` placed in metres.
const WALLS_PROFILE: &str = "walls.toml";
/// Pixels across the map profile's pictures.
const WALLS_WIDTH_PX: f64 = 640.0;

/// Units in the crowded walls scene: enough that some jam and stall (the
/// profile's 8 all reach their goals).
const WALLS_CROWD: u32 = 16;

/// `walls.toml` drawn at `tick` with `layers`.
fn render_walls_at(tick: u64, layers: &str) -> String {
    render_walls_with(None, tick, layers)
}

/// `walls.toml` with `units` (its own count if `None`) drawn at `tick`
/// with `layers`.
fn render_walls_with(units: Option<u32>, tick: u64, layers: &str) -> String {
    let tick = tick.to_string();
    let units = units.map(|units| units.to_string());
    let mut args = vec![
        visual(WALLS_PROFILE).to_str().unwrap().to_owned(),
        "--tick".to_owned(),
        tick.clone(),
        "--layers".to_owned(),
        layers.to_owned(),
        "--width".to_owned(),
        "640".to_owned(),
    ];
    if let Some(units) = &units {
        args.extend(["--units".to_owned(), units.clone()]);
    }
    let count = units.as_deref().unwrap_or("own");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    render(&format!("walls-{count}-{tick}-{layers}.svg"), &args)
}

/// The walls profile's simulation stepped here, independently of the
/// renderer; the steering counters cover the last tick alone.
fn walls_sim_at(tick: u64) -> convoy::Sim {
    walls_sim_with(None, tick)
}

/// [`walls_sim_at`] with `units` (the profile's own count if `None`).
fn walls_sim_with(units: Option<u32>, tick: u64) -> convoy::Sim {
    let mut profile = Profile::load(&visual(WALLS_PROFILE)).unwrap();
    if let Some(units) = units {
        profile.scenario.units = units;
    }
    let mut sim = convoy_scenarios::build(&profile, 1).unwrap();
    for step in 0..tick {
        if step + 1 == tick {
            sim.reset_instruments();
        }
        sim.step(profile.run.dt);
    }
    sim
}

/// World metres to the pixels of a y-up picture of `sim`'s bounds.
fn metres_to_px(sim: &convoy::Sim, point: Vec2) -> [f64; 2] {
    let bounds = sim.config().bounds;
    let scale = WALLS_WIDTH_PX / f64::from(bounds.max.x - bounds.min.x);
    [
        MARGIN_PX + f64::from(point.x - bounds.min.x) * scale,
        MARGIN_PX + f64::from(bounds.max.y - point.y) * scale,
    ]
}

fn assert_near(actual: &[f64], expected: [f64; 2], what: &str) {
    assert!(
        (actual[0] - expected[0]).abs() < TOLERANCE_PX
            && (actual[1] - expected[1]).abs() < TOLERANCE_PX,
        "{what}: drawn at {actual:?}, expected {expected:?}"
    );
}

#[test]
fn a_profile_map_is_drawn_in_metres_with_its_blocked_cells_where_the_map_has_them() {
    let svg = render_walls_at(0, "terrain");
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let sim = walls_sim_at(0);
    let world = std::sync::Arc::clone(sim.config().map.grid_map().unwrap());
    let bounds = sim.config().bounds;
    let scale = WALLS_WIDTH_PX / f64::from(bounds.max.x - bounds.min.x);
    let cell_px = f64::from(world.cell_size()) * scale;
    // The oracle: the map file's characters, placed by the WorldMap.
    let text = std::fs::read_to_string(visual("walls.map")).unwrap();
    let rows: Vec<&[u8]> = text.lines().skip(4).map(str::as_bytes).collect();
    let rects = |class: &str| -> Vec<[f64; 4]> {
        elements_of_class(&doc, class)
            .iter()
            .map(|rect| ["x", "y", "width", "height"].map(|name| attribute(rect, name)))
            .collect()
    };
    let covered = |rects: &[[f64; 4]], centre: [f64; 2]| {
        rects.iter().any(|&[x, y, w, h]| {
            x < centre[0] && centre[0] < x + w && y < centre[1] && centre[1] < y + h
        })
    };
    for (class, chars) in [("blocked", &b"@TW"[..]), ("swamp", &b"S"[..])] {
        let drawn = rects(class);
        let mut expected = 0;
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.iter().enumerate() {
                let centre = metres_to_px(&sim, world.centre_of(Cell::new(x as u32, y as u32)));
                let wanted = chars.contains(c);
                expected += usize::from(wanted);
                assert_eq!(
                    covered(&drawn, centre),
                    wanted,
                    "{class}: cell ({x}, {y}) `{}`",
                    char::from(*c)
                );
            }
        }
        let area: f64 = drawn.iter().map(|r| r[2] * r[3]).sum::<f64>() / (cell_px * cell_px);
        // Sizes are written to 0.01 px: each rect's area may be off by
        // half a hundredth of a pixel along each side.
        let rounding: f64 = drawn
            .iter()
            .map(|r| 0.005 * (r[2] + r[3]) + 1e-4)
            .sum::<f64>()
            / (cell_px * cell_px);
        assert!(
            (area - expected as f64).abs() <= rounding,
            "{class}: {area} cells drawn, {expected} in the map"
        );
    }
}

#[test]
fn routes_run_from_each_unit_through_its_remaining_corners_to_the_last() {
    let tick = 20;
    let svg = render_walls_at(tick, "routes,units");
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let sim = walls_sim_at(tick);
    let columns = sim.vehicles().columns();
    let routed: Vec<usize> = (0..columns.position().len())
        .filter(|&row| columns.route_next()[row] < columns.route_len()[row])
        .collect();
    assert!(!routed.is_empty(), "the scene has routes to check");
    let polylines = elements_of_class(&doc, "route");
    let rows: Vec<usize> = polylines
        .iter()
        .map(|line| line.attribute("data-row").unwrap().parse().unwrap())
        .collect();
    assert_eq!(rows, routed);
    for (line, &row) in polylines.iter().zip(&rows) {
        let points = numbers(line.attribute("points").unwrap());
        let (next, len) = (columns.route_next()[row], columns.route_len()[row]);
        let route = sim.routes().of(columns.handle_slot()[row]);
        assert_eq!(points.len(), 2 * (1 + (len - next) as usize), "row {row}");
        assert_near(
            &points[..2],
            metres_to_px(&sim, columns.position()[row]),
            "start",
        );
        let last = route[len as usize - 1];
        assert_near(&points[points.len() - 2..], metres_to_px(&sim, last), "end");
        assert_eq!(
            last,
            columns.goal()[row],
            "row {row}: a whole route ends at the goal"
        );
    }
}

/// The platoon layer against a simulation stepped alike: a ring at each
/// platoon's position, a square at each occupied slot's drive-to point, and
/// the path ahead starting at the platoon.
#[test]
fn the_platoon_layer_draws_each_platoon_and_its_slots_where_the_kernel_has_them() {
    let tick = 12;
    let profile_path = visual("walls-platoons.toml");
    let svg = render(
        "walls-platoons.svg",
        &[
            profile_path.to_str().unwrap(),
            "--tick",
            &tick.to_string(),
            "--layers",
            "platoons",
            "--width",
            "640",
        ],
    );
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let profile = Profile::load(&profile_path).unwrap();
    let mut sim = convoy_scenarios::build(&profile, 1).unwrap();
    for _ in 0..tick {
        sim.step(profile.run.dt);
    }
    let platoons = sim.platoons();
    assert_eq!(platoons.len(), 2);
    let rings = elements_of_class(&doc, "platoon");
    assert_eq!(rings.len(), platoons.len());
    let slots = elements_of_class(&doc, "slot");
    let occupied: usize = platoons.iter().map(|(_, p)| p.member_count()).sum();
    assert_eq!(slots.len(), occupied);
    for ring in &rings {
        let index: u32 = ring.attribute("data-platoon").unwrap().parse().unwrap();
        let (_, platoon) = platoons.iter().find(|(id, _)| id.index == index).unwrap();
        let centre = [attribute(ring, "cx"), attribute(ring, "cy")];
        assert_near(&centre, metres_to_px(&sim, platoon.position), "platoon");
    }
    for square in &slots {
        let index: u32 = square.attribute("data-platoon").unwrap().parse().unwrap();
        let slot: usize = square.attribute("data-slot").unwrap().parse().unwrap();
        let (_, platoon) = platoons.iter().find(|(id, _)| id.index == index).unwrap();
        let centre = [attribute(square, "x") + 2.0, attribute(square, "y") + 2.0];
        assert_near(&centre, metres_to_px(&sim, platoon.targets[slot]), "slot");
    }
    for line in elements_of_class(&doc, "platoon-path") {
        let index: u32 = line.attribute("data-platoon").unwrap().parse().unwrap();
        let (_, platoon) = platoons.iter().find(|(id, _)| id.index == index).unwrap();
        let points = numbers(line.attribute("points").unwrap());
        assert_near(
            &points[..2],
            metres_to_px(&sim, platoon.position),
            "path start",
        );
    }
}

#[test]
fn the_stuck_layer_rings_exactly_the_units_the_kernel_counts_as_stuck() {
    // The first tick at which the kernel counts some unit as stuck, in the
    // crowded scene.
    let mut profile = Profile::load(&visual(WALLS_PROFILE)).unwrap();
    profile.scenario.units = WALLS_CROWD;
    let mut probe = convoy_scenarios::build(&profile, 1).unwrap();
    let tick = (1..=400)
        .find(|_| {
            probe.step(profile.run.dt);
            probe.quality().stuck > 0
        })
        .expect("some unit gets stuck in the crowded walls scene");
    let svg = render_walls_with(Some(WALLS_CROWD), tick, "stuck");
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let sim = walls_sim_with(Some(WALLS_CROWD), tick);
    let columns = sim.vehicles().columns();
    let stuck: Vec<usize> = (0..columns.position().len())
        .filter(|&row| columns.stalled_s()[row] >= convoy::data::vehicles::STUCK_AFTER_S)
        .collect();
    assert_eq!(stuck.len(), sim.quality().stuck, "the kernel's own count");
    assert!(
        !stuck.is_empty() && stuck.len() < columns.position().len(),
        "the scene has stuck and moving units"
    );
    let rings = elements_of_class(&doc, "stuck");
    let rows: Vec<usize> = rings
        .iter()
        .map(|ring| ring.attribute("data-row").unwrap().parse().unwrap())
        .collect();
    assert_eq!(rows, stuck);
    for (ring, &row) in rings.iter().zip(&rows) {
        let centre = [attribute(ring, "cx"), attribute(ring, "cy")];
        assert_near(&centre, metres_to_px(&sim, columns.position()[row]), "ring");
    }
}

#[test]
fn the_avoidance_layer_draws_one_line_per_unit_avoidance_changed_last_tick() {
    // The first tick at which steering swerved some unit.
    let profile = Profile::load(&visual(WALLS_PROFILE)).unwrap();
    let mut probe = convoy_scenarios::build(&profile, 1).unwrap();
    let tick = (1..=profile.run.ticks)
        .find(|_| {
            probe.reset_instruments();
            probe.step(profile.run.dt);
            let (stages, _) = probe.report();
            stages
                .iter()
                .any(|stage| stage.name == "steering" && stage.counters["avoiding_units"] > 0.0)
        })
        .expect("some unit avoids another in the walls scene");
    let svg = render_walls_at(tick, "avoidance");
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let lines: usize = elements_of_class(&doc, "avoidance")
        .iter()
        .map(|path| path.attribute("d").unwrap().matches('M').count())
        .sum();
    // The oracle: the steering stage's own counters for that one tick. A
    // swerve always changes the velocity; a stop changes it unless the
    // unit had already arrived.
    let sim = walls_sim_at(tick);
    let (stages, _) = sim.report();
    let steering = stages
        .iter()
        .find(|stage| stage.name == "steering")
        .unwrap();
    let avoiding = steering.counters["avoiding_units"] as usize;
    let stopped = steering.counters["stopped_for_threat"] as usize;
    assert!(avoiding > 0, "the scene has avoidance to draw");
    assert!(
        avoiding <= lines && lines <= avoiding + stopped,
        "{lines} lines, {avoiding} avoiding, {stopped} stopped"
    );
}

#[test]
fn no_avoidance_is_drawn_before_the_first_tick() {
    let out = temp_path("no-avoidance.svg");
    let output = convoy_bench(&[
        "render",
        visual(WALLS_PROFILE).to_str().unwrap(),
        "--layers",
        "avoidance",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_refused(&output, &["nothing to draw", "avoidance"]);
}

/// The polygon map example, relative to the package.
const RIVER_CROSSING: &str = "../profiles/maps/river_crossing.json";
/// The river crossing's query and clearance in the tests and the README.
const RIVER_QUERY: [f64; 4] = [100.0, 500.0, 900.0, 500.0];
const RIVER_CLEARANCE: f64 = 10.0;
/// Pixels across the river crossing's pictures.
const RIVER_WIDTH_PX: f64 = 500.0;

/// World to pixels for a polygon map drawn whole: the box around its
/// containers and obstacles, `width_px` across, y up (JSON) or down (mesh).
fn polygon_to_px(map: &PolygonMap, width_px: f64, y_up: bool) -> impl Fn(DVec2) -> [f64; 2] {
    let all: Vec<DVec2> = map
        .containers
        .iter()
        .chain(&map.obstacles)
        .flatten()
        .copied()
        .collect();
    let lo = all.iter().fold(DVec2::INFINITY, |lo, &p| lo.min(p));
    let hi = all.iter().fold(DVec2::NEG_INFINITY, |hi, &p| hi.max(p));
    let scale = width_px / (hi.x - lo.x);
    move |p: DVec2| {
        let y = if y_up { hi.y - p.y } else { p.y - lo.y };
        [MARGIN_PX + (p.x - lo.x) * scale, MARGIN_PX + y * scale]
    }
}

/// Asserts a `points` attribute holds exactly `expected`, in order.
fn assert_points(value: &str, expected: &[[f64; 2]], what: &str) {
    let points = numbers(value);
    assert_eq!(points.len(), 2 * expected.len(), "{what}: {value}");
    for (pair, expected) in points.chunks(2).zip(expected) {
        assert_near(pair, *expected, what);
    }
}

#[test]
fn a_polygon_map_draws_what_the_kernel_loads_builds_and_plans() {
    let [sx, sy, gx, gy] = RIVER_QUERY.map(|v| v.to_string());
    let clearance = RIVER_CLEARANCE.to_string();
    let width = RIVER_WIDTH_PX.to_string();
    let svg = render(
        "river-crossing.svg",
        &[
            RIVER_CROSSING,
            "--path",
            &sx,
            &sy,
            &gx,
            &gy,
            "--clearance",
            &clearance,
            "--width",
            &width,
        ],
    );
    check_against_stored(&svg, "river-crossing.svg");
    let doc = roxmltree::Document::parse(&svg).unwrap();

    // The oracle: the kernel's loader, navigator and query.
    let map = load_polygon_map(RIVER_CROSSING).unwrap();
    let config = GraphConfig {
        clearance: RIVER_CLEARANCE,
        ..GraphConfig::default()
    };
    let nav = PolygonNavigator::build(&map, config, 1).unwrap();
    let to_px = polygon_to_px(&map, RIVER_WIDTH_PX, true);
    let rings = |rings: &[Vec<DVec2>], class: &str| {
        let drawn = elements_of_class(&doc, class);
        assert_eq!(drawn.len(), rings.len(), "{class}");
        for (element, ring) in drawn.iter().zip(rings) {
            let expected: Vec<[f64; 2]> = ring.iter().map(|&p| to_px(p)).collect();
            assert_points(element.attribute("points").unwrap(), &expected, class);
        }
    };
    // The loader keeps rings closed by dropping the repeated last point.
    rings(&map.containers, "container");
    rings(&map.obstacles, "obstacle");
    let swamps: Vec<Vec<DVec2>> = map.swamps.iter().map(|s| s.ring.clone()).collect();
    rings(&swamps, "swamp");
    rings(&map.roads, "road");
    let space = nav.graph().boundary().space();
    let contours: Vec<Vec<DVec2>> = space
        .contours
        .iter()
        .map(|&[first, count]| space.points[first as usize..(first + count) as usize].to_vec())
        .collect();
    rings(&contours, "free-space");

    let decks = elements_of_class(&doc, "bridge");
    assert_eq!(decks.len(), map.bridges.len());
    let labels = elements_of_class(&doc, "bridge-label");
    for ((deck, label), bridge) in decks.iter().zip(&labels).zip(&map.bridges) {
        let expected = [bridge.ends[0], bridge.middle, bridge.ends[1]].map(&to_px);
        assert_points(deck.attribute("points").unwrap(), &expected, "bridge");
        assert_eq!(
            label.text(),
            Some(format!("bridge {} (standing)", bridge.id).as_str())
        );
    }

    // Every graph edge once, between two graph nodes.
    let edges = &elements_of_class(&doc, "visgraph")[0];
    let d = edges.attribute("d").unwrap();
    assert_eq!(d.matches('M').count(), nav.graph().edge_count());
    let nodes: Vec<[f64; 2]> = nav.graph().positions().iter().map(|&p| to_px(p)).collect();
    for end in numbers(d).chunks(2) {
        assert!(
            nodes
                .iter()
                .any(|n| (n[0] - end[0]).abs() <= 0.01 && (n[1] - end[1]).abs() <= 0.01),
            "edge end {end:?} is no node"
        );
    }

    let mut search = VisSearch::new(&nav);
    let mut waypoints = Vec::new();
    let [sx, sy, gx, gy] = RIVER_QUERY.map(|v| v as f32);
    nav.find_path(
        Vec2::new(sx, sy),
        Vec2::new(gx, gy),
        FactionId(0),
        &mut search,
        &mut waypoints,
    )
    .unwrap();
    let expected: Vec<[f64; 2]> = waypoints.iter().map(|&p| to_px(p.as_dvec2())).collect();
    let path = &elements_of_class(&doc, "path")[0];
    assert_points(path.attribute("points").unwrap(), &expected, "path");
    assert!(
        search.bridges_crossed().contains(&1),
        "the query is one that crosses the bridge"
    );
    let start = &elements_of_class(&doc, "start")[0];
    let [x, y] = to_px(DVec2::new(RIVER_QUERY[0], RIVER_QUERY[1]));
    assert_near(
        &[attribute(start, "cx"), attribute(start, "cy")],
        [x, y],
        "start",
    );
}

#[test]
fn a_polyanya_mesh_is_drawn_with_y_down_its_rows() {
    let svg = render(
        "square-hole.svg",
        &[
            visual("square-hole.mesh").to_str().unwrap(),
            "--width",
            "120",
        ],
    );
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let map = load_mesh(visual("square-hole.mesh")).unwrap();
    assert_eq!((map.containers.len(), map.obstacles.len()), (1, 1));
    let to_px = polygon_to_px(&map, 120.0, false);
    let hole = &elements_of_class(&doc, "obstacle")[0];
    let expected: Vec<[f64; 2]> = map.obstacles[0].iter().map(|&p| to_px(p)).collect();
    assert_points(hole.attribute("points").unwrap(), &expected, "hole");
    // The hole spans mesh y 1..2 of 0..6: near the top of the picture.
    let ys: Vec<f64> = expected.iter().map(|p| p[1]).collect();
    let scale = 120.0 / 6.0;
    assert!(
        ys.iter().all(|&y| y <= MARGIN_PX + 2.0 * scale + 1e-9),
        "{ys:?}"
    );
    assert!(
        elements_of_class(&doc, "path").is_empty(),
        "no path without --path"
    );
}

#[test]
fn a_visgraph_path_on_a_grid_map_is_the_traced_navigators() {
    let svg = render(
        "walls-visgraph.svg",
        &[
            visual("walls.map").to_str().unwrap(),
            "--path",
            "1",
            "10",
            "14",
            "1",
            "--backend",
            "visgraph",
            "--width",
            "480",
        ],
    );
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let scale = 480.0 / 16.0;
    // The oracle: the traced grid's navigator, as `convoy-bench scen` builds it.
    let map = load_map(visual("walls.map")).unwrap();
    let grid = CostGrid::new(&map, Mobility::GROUND).unwrap();
    let graph = VisGraph::build_on(trace_grid(&grid), &[], &[], GraphConfig::default());
    let nav = PolygonNavigator::from_graph(graph, 1);
    let mut search = VisSearch::new(&nav);
    let mut waypoints = Vec::new();
    nav.find_path(
        Vec2::new(1.5, 10.5),
        Vec2::new(14.5, 1.5),
        FactionId(0),
        &mut search,
        &mut waypoints,
    )
    .unwrap();
    let to_px = |p: Vec2| {
        [
            MARGIN_PX + f64::from(p.x) * scale,
            MARGIN_PX + f64::from(p.y) * scale,
        ]
    };
    let expected: Vec<[f64; 2]> = waypoints.iter().map(|&p| to_px(p)).collect();
    let path = &elements_of_class(&doc, "path")[0];
    assert_points(path.attribute("points").unwrap(), &expected, "path");
    assert!(waypoints.len() > 2, "the query bends round the walls");
    let edges = &elements_of_class(&doc, "visgraph")[0];
    assert_eq!(
        edges.attribute("d").unwrap().matches('M').count(),
        nav.graph().edge_count()
    );
    assert_eq!(
        elements_of_class(&doc, "free-space").len(),
        nav.graph().boundary().space().contours.len()
    );
    assert!(
        elements_of_class(&doc, "explored").is_empty(),
        "the navigator does not list the nodes it reached"
    );
}
