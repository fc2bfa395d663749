//! The replay player in a real browser: Debian's headless Chromium loads a
//! small replay with the `#selftest` hook, the page draws its first and last
//! frames and writes what it drew into the DOM, and `--dump-dom` hands that
//! back. The test checks that every unit is drawn, that the picture changes
//! between the frames, and that the page decodes unit 0 where the kernel
//! put it (the same profile stepped here); and that the map is painted
//! where the kernel has it, under the units. The tests need Debian's Chromium,
//! so they run only when asked: `.ci/run` installs it and runs
//! `cargo test -p convoy-bench --test replay_browser -- --ignored`; without
//! Chromium they fail, never skip.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use convoy::glam::Vec2;
use convoy::nav::{Cell, Terrain, load_map};
use convoy_scenarios::Profile;

const CHROMIUM: &str = "/usr/bin/chromium";
/// Longest a headless load may take before the test gives up.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(120);

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("convoy-replay-browser-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs Chromium headless on `url` and returns the DOM it dumped.
fn dump_dom(url: &str, dir: &Path) -> String {
    assert!(
        Path::new(CHROMIUM).exists(),
        "{CHROMIUM} is missing: the replay browser test needs Debian's chromium \
         (`apt-get install -y chromium`; .ci/run installs it)"
    );
    let profile_dir = dir.join("chromium-profile");
    std::fs::create_dir_all(&profile_dir).unwrap();
    let dom_path = dir.join("dom.html");
    let mut child = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-quic",
            "--window-size=900,700",
            "--virtual-time-budget=10000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile_dir.display()))
        .arg(url)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&dom_path).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > BROWSER_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within {BROWSER_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success(), "chromium exited with {status}");
    std::fs::read_to_string(dom_path).unwrap()
}

/// The JSON the page wrote into `<pre id="selftest">`.
fn selftest_result(dom: &str) -> serde_json::Value {
    let start_tag = r#"<pre id="selftest">"#;
    let start = dom
        .find(start_tag)
        .unwrap_or_else(|| panic!("no visible selftest element in the DOM: {dom:.2000}"))
        + start_tag.len();
    let end = start + dom[start..].find("</pre>").unwrap();
    serde_json::from_str(&dom[start..end]).unwrap()
}

#[test]
#[ignore = "needs Chromium: cargo test -p convoy-bench --test replay_browser -- --ignored"]
fn the_player_draws_every_unit_and_they_move_where_the_kernel_moved_them() {
    let dir = temp_dir();
    let html = dir.join("tiny.html");
    let profile_path = Path::new("tests/visual/tiny.toml");
    let output = Command::new(env!("CARGO_BIN_EXE_convoy-bench"))
        .args([
            "replay",
            profile_path.to_str().unwrap(),
            "--ticks",
            "90",
            "--every",
            "3",
        ])
        .arg("--out")
        .arg(&html)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let dom = dump_dom(&format!("file://{}#selftest", html.display()), &dir);
    let result = selftest_result(&dom);

    let profile = Profile::load(profile_path).unwrap();
    let mut sim = convoy_scenarios::build(&profile, 1).unwrap();
    let units = sim.vehicles().len() as u64;
    assert_eq!(result["frames"], 31, "spawn state + 90 / 3 frames");
    assert_eq!(result["drawn"], serde_json::json!([units, units]));
    assert!(
        result["painted"][0].as_u64().unwrap() > 0,
        "the canvas shows something"
    );
    assert!(
        result["changed_pixels"].as_u64().unwrap() > 0,
        "the picture changes between the first and the last frame"
    );
    assert_eq!(result["clicked"], 0, "clicking unit 0 selects it");
    let unit_panel = result["unit_panel"].as_str().unwrap();
    let kind_of_unit_zero = {
        let columns = sim.vehicles().columns();
        let row = columns
            .handle_slot()
            .iter()
            .position(|&slot| slot == 0)
            .unwrap();
        let kind = convoy::VehicleKind::from_u8(columns.kind()[row]).unwrap();
        serde_json::to_value(kind)
            .unwrap()
            .as_str()
            .unwrap()
            .to_owned()
    };
    let kind_row = format!("kind{kind_of_unit_zero}");
    for needle in ["handle slot0", &kind_row, "drive-to", "platoon", "speed"] {
        assert!(
            unit_panel.contains(needle),
            "`{needle}` not in the unit panel: {unit_panel}"
        );
    }
    let stage_panel = result["stage_panel"].as_str().unwrap();
    for stage in [
        "spatial",
        "paths",
        "formations",
        "steering",
        "integrate",
        "separation",
        "tick",
    ] {
        assert!(
            stage_panel.contains(stage),
            "`{stage}` not in the stage panel: {stage_panel}"
        );
    }

    // Unit 0 is handle slot 0: the first unit spawned.
    let bounds = sim.config().bounds;
    let step = f64::from((bounds.max - bounds.min).max_element()) / 65_534.0;
    let slot_zero = |sim: &convoy::Sim| {
        let columns = sim.vehicles().columns();
        let row = columns
            .handle_slot()
            .iter()
            .position(|&slot| slot == 0)
            .unwrap();
        columns.position()[row]
    };
    let mut expected = vec![slot_zero(&sim)];
    for _ in 0..90 {
        sim.step(profile.run.dt);
    }
    expected.push(slot_zero(&sim));
    for (frame, position) in expected.iter().enumerate() {
        let decoded = &result["unit0"][frame];
        let (x, y) = (decoded[0].as_f64().unwrap(), decoded[1].as_f64().unwrap());
        assert!(
            (x - f64::from(position.x)).abs() <= step && (y - f64::from(position.y)).abs() <= step,
            "frame {frame}: page has ({x}, {y}), kernel {position}"
        );
    }
    assert!(
        expected[0].distance(expected[1]) > 1.0,
        "unit 0 moved in the run"
    );
}

#[test]
#[ignore = "needs Chromium: cargo test -p convoy-bench --test replay_browser -- --ignored"]
fn the_player_draws_the_routes_the_kernel_planned() {
    let dir = temp_dir().join("walls");
    std::fs::create_dir_all(&dir).unwrap();
    let html = dir.join("walls.html");
    let profile_path = Path::new("tests/visual/walls.toml");
    let ticks = 30;
    let output = Command::new(env!("CARGO_BIN_EXE_convoy-bench"))
        .args(["replay", profile_path.to_str().unwrap(), "--every", "3"])
        .args(["--ticks", &ticks.to_string()])
        .arg("--out")
        .arg(&html)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result = selftest_result(&dump_dom(
        &format!("file://{}#selftest", html.display()),
        &dir,
    ));

    // The oracle: the same profile stepped here, its units with corners
    // still to reach at the spawn state and after the last tick.
    let profile = Profile::load(profile_path).unwrap();
    let mut sim = convoy_scenarios::build(&profile, 1).unwrap();
    let routed = |sim: &convoy::Sim| {
        let columns = sim.vehicles().columns();
        (0..columns.position().len())
            .filter(|&row| columns.route_next()[row] < columns.route_len()[row])
            .count() as u64
    };
    let at_spawn = routed(&sim);
    for _ in 0..ticks {
        sim.step(profile.run.dt);
    }
    let at_end = routed(&sim);
    assert!(at_end > 0, "the run has routes to draw");
    assert_eq!(result["routes"], serde_json::json!([at_spawn, at_end]));
    let unit_panel = result["unit_panel"].as_str().unwrap();
    assert!(
        unit_panel.contains("corners left"),
        "the unit panel shows the route: {unit_panel}"
    );
}

/// Records `profile` with `args` into `dir` and returns the page's
/// self-test result for the URL hash `hash` (after `#selftest`).
fn replay_selftest(profile: &Path, args: &[&str], dir: &Path, hash: &str) -> serde_json::Value {
    std::fs::create_dir_all(dir).unwrap();
    let html = dir.join("replay.html");
    let output = Command::new(env!("CARGO_BIN_EXE_convoy-bench"))
        .arg("replay")
        .arg(profile)
        .args(args)
        .arg("--out")
        .arg(&html)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let url = format!("file://{}#selftest{hash}", html.display());
    selftest_result(&dump_dom(&url, dir))
}

/// A colour the page read, as `[r, g, b]`.
fn rgb(value: &serde_json::Value) -> [u64; 3] {
    serde_json::from_value(value.clone()).unwrap()
}

const WALL: [u64; 3] = [0x3b, 0x3b, 0x3b];
const BACKGROUND: [u64; 3] = [251, 251, 248];

#[test]
#[ignore = "needs Chromium: cargo test -p convoy-bench --test replay_browser -- --ignored"]
fn the_player_paints_arena2_walls_where_the_kernel_has_them_under_its_units() {
    let profile_path = Path::new("../profiles/arena2.toml");
    let (units, ticks) = (300, 30);
    let mut profile = Profile::load(profile_path).unwrap();
    profile.scenario.units = units;
    let mut sim = convoy_scenarios::build(&profile, 1).unwrap();
    let mut orders = convoy_scenarios::Orders::new(&profile, &sim);
    for _ in 0..ticks {
        orders.before_step(&mut sim).unwrap();
        sim.step(profile.run.dt);
    }
    let world = sim.config().map.grid().unwrap();
    let file = load_map(Path::new("../profiles/maps/arena2.map")).unwrap();
    let blocked =
        |p: Vec2| world.cell_at(p).and_then(|cell| file.terrain(cell)) == Some(Terrain::Blocked);
    let size = world.cell_size();
    // A cell whose eight neighbours share its terrain: its centre pixel
    // cannot come from a neighbour.
    let interior = |wall: bool| {
        (1..file.height() - 1)
            .flat_map(|y| (1..file.width() - 1).map(move |x| Cell::new(x, y)))
            .map(|cell| world.centre_of(cell))
            .find(|&centre| {
                (-1..=1).all(|dy| {
                    (-1..=1)
                        .all(|dx| blocked(centre + Vec2::new(dx as f32, dy as f32) * size) == wall)
                })
            })
            .unwrap()
    };
    let (wall, open) = (interior(true), interior(false));
    // The align probe: a unit well inside its cell (the page decodes it
    // within 2 cm) with a wall in its cell or one of the four next to it.
    let around = [(0.0, 0.0), (1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)]
        .map(|(dx, dy)| Vec2::new(dx, dy) * size);
    let columns = sim.vehicles().columns();
    let (slot, position) = columns
        .handle_slot()
        .iter()
        .zip(columns.position())
        .find(|&(_, &p)| {
            let inside = ((p - world.origin()) / size).fract();
            let margin = 0.1 / size;
            inside.min_element() > margin
                && inside.max_element() < 1.0 - margin
                && around.iter().all(|&d| world.cell_at(p + d).is_some())
                && around.iter().any(|&d| blocked(p + d))
        })
        .map(|(&slot, &p)| (slot, p))
        .expect("a unit beside a wall");

    let hash = format!(
        "&probe={},{};{},{}&unit={slot}",
        wall.x, wall.y, open.x, open.y
    );
    let ticks = ticks.to_string();
    let args = ["--units", "300", "--ticks", &ticks, "--every", "3"];
    let dir = temp_dir().join("arena2");
    let result = replay_selftest(profile_path, &args, &dir, &hash);

    let map = &result["map"];
    assert_eq!(rgb(&map["probes"][0]), WALL, "a wall cell at {wall}");
    assert_eq!(rgb(&map["probes"][1]), BACKGROUND, "an open cell at {open}");
    let decoded: [f32; 2] = serde_json::from_value(map["unit"]["position"].clone()).unwrap();
    assert!(
        Vec2::from(decoded).distance(position) < 0.05,
        "unit {slot}: page {decoded:?}, kernel {position}"
    );
    for (k, offset) in around.iter().enumerate() {
        let expected = if blocked(position + *offset) {
            WALL
        } else {
            BACKGROUND
        };
        assert_eq!(
            rgb(&map["unit"]["colours"][k]),
            expected,
            "unit {slot} at {position}, offset {offset}"
        );
    }
}

#[test]
#[ignore = "needs Chromium: cargo test -p convoy-bench --test replay_browser -- --ignored"]
fn the_player_paints_a_polygon_maps_river_land_road_and_bridge() {
    // Points of profiles/maps/river_crossing.json: in the river, on open
    // land, on a road, on the bridge's deck, where two buildings overlap.
    let points = [(500, 500), (100, 900), (150, 150), (500, 200), (300, 400)];
    let hash = points
        .iter()
        .map(|(x, y)| format!("{x},{y}"))
        .collect::<Vec<_>>()
        .join(";");
    let dir = temp_dir().join("river");
    let args = ["--units", "20", "--ticks", "6"];
    let result = replay_selftest(
        Path::new("../profiles/river.toml"),
        &args,
        &dir,
        &format!("&probe={hash}"),
    );
    let colours: Vec<[u64; 3]> = result["map"]["probes"]
        .as_array()
        .unwrap()
        .iter()
        .map(rgb)
        .collect();
    assert_eq!(
        colours,
        [
            WALL,
            [0xf1, 0xef, 0xe4],
            [0xc9, 0xa2, 0x27],
            [0x6b, 0x4f, 0x2a],
            WALL,
        ],
        "obstacle, container, road, standing bridge, overlapping obstacles"
    );
}
