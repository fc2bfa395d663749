//! A visibility-graph blob whose checksum is right but whose numbers are
//! wrong (NaN or far points, a huge piece count, negative costs) is refused
//! at load by section; queries with far or NaN points are refused; queries
//! across the whole coordinate range end with a finite path.

#![allow(clippy::unwrap_used)]

use convoy::glam::DVec2;
use convoy::nav::polygon::parse_polygon_map;
use convoy::nav::visgraph::{GraphConfig, GraphFileError, VisGraph};
use convoy::nav::{FactionId, NavError, PolygonNavigator, QueryOptions, VisSearch};
use xxhash_rust::xxh3::xxh3_64;

/// A room with a pillar: a few nodes and edges.
fn graph() -> VisGraph {
    let map = parse_polygon_map(
        r#"{"containers": [[[0,0],[40,0],[40,40],[0,40],[0,0]]],
            "obstacles": [[[15,15],[25,15],[25,25],[15,25],[15,15]]]}"#,
    )
    .unwrap();
    VisGraph::build(&map, GraphConfig::default()).unwrap()
}

fn blob() -> Vec<u8> {
    let mut bytes = Vec::new();
    graph().save(&mut bytes).unwrap();
    bytes
}

/// The header's bytes before the body.
const HEADER: usize = 28;
/// Each body section's element width, in file order (a graph without swamps).
const WIDTHS: [usize; 13] = [8, 8, 4, 4, 4, 4, 8, 4, 4, 4, 8, 8, 4];

/// The byte offset of element 0 of body section `section` (an index into
/// [`WIDTHS`]).
fn section_at(bytes: &[u8], section: usize) -> usize {
    let mut at = HEADER;
    for width in &WIDTHS[..section] {
        let count = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
        at += 8 + count * width;
    }
    at + 8
}

/// Writes `value` at `at` and fixes the body checksum, so only the value
/// checks can refuse the blob.
fn patch(bytes: &mut [u8], at: usize, value: &[u8]) {
    bytes[at..at + value.len()].copy_from_slice(value);
    let sum = xxh3_64(&bytes[HEADER..]);
    bytes[20..28].copy_from_slice(&sum.to_le_bytes());
}

fn load(bytes: &[u8]) -> Result<VisGraph, GraphFileError> {
    VisGraph::load(&mut &bytes[..])
}

#[test]
fn nan_and_far_points_are_refused_by_section() {
    for (section, name) in [(1, "points"), (6, "nodes")] {
        for bad in [f64::NAN, f64::INFINITY, 1e300, -2e7] {
            let mut bytes = blob();
            let at = section_at(&bytes, section) + 8;
            patch(&mut bytes, at, &bad.to_le_bytes());
            let error = load(&bytes).unwrap_err();
            assert!(
                matches!(error, GraphFileError::OutOfRange { section, index: 0, .. } if section == name),
                "{name} = {bad}: {error}"
            );
        }
    }
}

#[test]
fn a_piece_count_beyond_the_contours_is_refused() {
    let mut bytes = blob();
    let at = section_at(&bytes, 4);
    patch(&mut bytes, at, &u32::MAX.to_le_bytes());
    assert!(matches!(
        load(&bytes),
        Err(GraphFileError::Corrupt("contours"))
    ));
}

#[test]
fn negative_or_nan_costs_and_settings_are_refused() {
    for (section, name, bad) in [
        (10, "costs", -1.0),
        (11, "lengths", f64::NAN),
        (0, "settings", 1e300),
        (0, "settings", f64::NAN),
    ] {
        let mut bytes = blob();
        let at = section_at(&bytes, section);
        patch(&mut bytes, at, &bad.to_le_bytes());
        let error = load(&bytes).unwrap_err();
        assert!(
            matches!(error, GraphFileError::OutOfRange { section, .. } if section == name),
            "{name} = {bad}: {error}"
        );
    }
}

#[test]
fn queries_refuse_far_points_and_end_finite_across_the_whole_range() {
    let navigator = PolygonNavigator::from_graph(load(&blob()).unwrap(), 1);
    let mut search = VisSearch::new(&navigator);
    let mut out = Vec::new();
    let mut query = |a: DVec2, b: DVec2| {
        navigator
            .find_path_with(
                a,
                b,
                FactionId(0),
                QueryOptions::default(),
                &mut search,
                &mut out,
            )
            .map(|cost| (cost.cost, out.clone()))
    };
    for far in [f64::NAN, 1e300, -f64::MAX, 1.5e7] {
        assert_eq!(
            query(DVec2::new(far, 5.0), DVec2::splat(35.0)),
            Err(NavError::NotFinite { which: "start" })
        );
        assert_eq!(
            query(DVec2::splat(5.0), DVec2::new(5.0, far)),
            Err(NavError::NotFinite { which: "goal" })
        );
    }
    for (a, b) in [
        (DVec2::splat(1e7), DVec2::splat(-1e7)),
        (DVec2::new(-1e7, 1e7), DVec2::splat(5.0)),
        (DVec2::splat(5.0), DVec2::splat(35.0)),
    ] {
        let (cost, path) = query(a, b).unwrap();
        assert!(cost.is_finite(), "{a} → {b}: {cost}");
        assert!(path.iter().all(|p| p.is_finite()), "{a} → {b}: {path:?}");
    }
}
