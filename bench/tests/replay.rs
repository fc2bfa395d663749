//! `convoy-bench replay` end to end: the page is self-contained, its size
//! grows by a fixed amount per frame (so the 10,000-unit, 600-tick bound can
//! be checked from two short runs), and bad input gets one clear line.

#![allow(clippy::unwrap_used)]

mod common;
use common::{assert_refused, convoy_bench, temp_path};

/// The bound: 10,000 units, 600 ticks, every tick recorded.
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
