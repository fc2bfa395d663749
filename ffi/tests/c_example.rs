//! `ffi/examples/scene.c` compiled with the system C compiler against the
//! static library `cargo test` builds (beside this test's executable) and
//! run on arena2: every tank arrives, each arrival is reported once, a
//! retuned tank reads back its new top speed, a platoon arrives (one event)
//! and is refused once disbanded, a walled tank is moved off and reported,
//! the restored twin's checksums equal the original's, and on the
//! river-crossing polygon map a tank goes round an obstacle added at run
//! time. Without `cc` this fails: the C ABI is not tested by skipping.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The static library built with this test: `<target>/<profile>/deps`.
fn static_library() -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its own path");
    let deps = exe
        .parent()
        .expect("the test runs from target/<profile>/deps");
    let library = deps.join("libconvoy_ffi.a");
    assert!(
        library.is_file(),
        "{} is missing: cargo builds the staticlib crate type with the tests",
        library.display()
    );
    library
}

/// Compiles the example into this test's scratch folder.
fn compile(crate_dir: &Path) -> PathBuf {
    let output = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("convoy_scene");
    let version = Command::new("cc").arg("--version").output();
    assert!(
        version.is_ok_and(|out| out.status.success()),
        "no C compiler: the C example test needs `cc` on PATH (apt-get install gcc)"
    );
    let status = Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror"])
        .arg(crate_dir.join("examples/scene.c"))
        .arg("-I")
        .arg(crate_dir.join("include"))
        .arg(static_library())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&output)
        .status()
        .expect("cc runs");
    assert!(
        status.success(),
        "cc could not build examples/scene.c: {status}"
    );
    output
}

/// The value after `prefix` on the line that starts with it.
fn value_after<'a>(stdout: &'a str, prefix: &str) -> &'a str {
    stdout
        .lines()
        .find_map(|line| line.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no line `{prefix}…` in:\n{stdout}"))
}

#[test]
fn the_c_scene_runs_its_units_to_their_spots_and_restores_exactly() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scene = compile(crate_dir);
    let map = crate_dir.join("../profiles/maps/arena2.map");
    let polygons = crate_dir.join("../profiles/maps/river_crossing.json");
    let run = Command::new(&scene)
        .arg(&map)
        .arg(&polygons)
        .output()
        .expect("the scene runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success(),
        "scene failed: {}\n{stdout}\n{stderr}",
        run.status
    );

    let arrivals: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("arrived unit "))
        .map(|rest| rest.split_whitespace().next().unwrap_or(rest))
        .collect();
    let distinct: BTreeSet<&str> = arrivals.iter().copied().collect();
    assert_eq!((arrivals.len(), distinct.len()), (8, 8), "{stdout}");
    assert_eq!(value_after(&stdout, "at their goals: "), "8 of 8");
    assert_eq!(value_after(&stdout, "within 60 m of the goal: "), "8");
    let checksum = value_after(&stdout, "checksum ");
    assert_eq!(value_after(&stdout, "restored checksum "), checksum);
    let after: Vec<&str> = value_after(&stdout, "after 2 s more: ")
        .split(" and ")
        .collect();
    assert_eq!(after.len(), 2);
    assert_eq!(after[0], after[1], "the restored twin diverged");
    assert_ne!(after[0], checksum, "the worlds did not move");
    assert!(value_after(&stdout, "stale handle: ").starts_with("status 3, unit"));

    assert_eq!(value_after(&stdout, "top speed "), "12.0 -> 6.0 m/s");
    let bad_params = value_after(&stdout, "bad params: ");
    assert!(bad_params.starts_with("status 2, ") && bad_params.contains("max_speed"));
    let platoon_arrivals = stdout
        .lines()
        .filter(|line| line.starts_with("platoon arrived "))
        .count();
    assert_eq!(platoon_arrivals, 1, "{stdout}");
    let platoon = value_after(&stdout, "platoon phase ");
    assert!(platoon.starts_with("4 with 4 members, "), "{platoon}");
    let miss: f32 = platoon
        .split(", ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|metres| metres.parse().ok())
        .unwrap_or(f32::MAX);
    assert!(miss < 10.0, "the platoon ended {miss} m from its goal");
    assert_eq!(value_after(&stdout, "disbanded platoon: "), "status 9");

    assert_eq!(value_after(&stdout, "bad terrain: "), "status 2");
    let walled = value_after(&stdout, "walled cell ");
    let tank = walled
        .split("under unit ")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .unwrap_or_default();
    let displaced: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("displaced unit "))
        .collect();
    assert_eq!(displaced, [tank], "{stdout}");
    let (before, after) = walled.split_once(" under").unwrap_or_default();
    assert!(
        !after.ends_with(before),
        "the tank stayed on its walled cell: {walled}"
    );
    let detour = value_after(&stdout, "obstacle 0: detour ");
    let metres: f32 = detour
        .split(' ')
        .next()
        .and_then(|metres| metres.parse().ok())
        .unwrap_or(0.0);
    assert!(
        metres > 50.0 && detour.ends_with("move state 2"),
        "the tank did not go round the obstacle and arrive: {detour}"
    );
    let unknown = value_after(&stdout, "unknown bridge: ");
    assert!(
        unknown.starts_with("status 2, ") && unknown.contains("bridge 9 does not exist"),
        "{unknown}"
    );
    assert_eq!(stdout.lines().last(), Some("ok"));
}
