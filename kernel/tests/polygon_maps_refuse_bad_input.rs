//! Bad polygon maps, meshes and graph blobs are refused with typed errors
//! that name the element, line or section — never a panic.

use convoy::glam::DVec2;
use convoy::nav::clearance::ClearanceError;
use convoy::nav::polygon::{
    MeshError, MeshParseError, PolygonFileError, PolygonMap, PolygonMapError, load_mesh,
    load_polygon_map, parse_mesh, parse_polygon_map,
};
use convoy::nav::visgraph::{BuildError as VisBuildError, GraphConfig, GraphFileError, VisGraph};

fn invalid(text: &str) -> PolygonMapError {
    match parse_polygon_map(text) {
        Err(PolygonFileError::Invalid { source, .. }) => source,
        other => panic!("expected an invalid map, got {other:?}"),
    }
}

const SQUARE: &str = "[[0,0],[10,0],[10,10],[0,10],[0,0]]";

#[test]
fn an_unclosed_ring_is_named() {
    let err = invalid(&format!(
        r#"{{"containers": [{SQUARE}], "obstacles": [{SQUARE}, [[1,1],[2,1],[2,2]]]}}"#
    ));
    assert!(
        matches!(&err, PolygonMapError::Unclosed { element, .. } if element == "obstacles[1]"),
        "{err}"
    );
    assert!(err.to_string().contains("obstacles[1]"));
}

#[test]
fn a_self_intersecting_container_is_named() {
    let err = invalid(r#"{"containers": [[[0,0],[10,10],[10,0],[0,10],[0,0]]]}"#);
    assert!(
        matches!(&err, PolygonMapError::SelfIntersecting { element, first: 0, second: 2 } if element == "containers[0]"),
        "{err}"
    );
}

#[test]
fn a_bridge_end_outside_every_container_is_named() {
    let err = invalid(&format!(
        r#"{{"containers": [{SQUARE}], "bridges": [{{"id": 4, "ends": [[5,5],[20,5]], "middle": [12,5]}}]}}"#
    ));
    assert!(
        matches!(err, PolygonMapError::BridgeEndOutside { id: 4, end: 1, .. }),
        "{err}"
    );
}

#[test]
fn a_nan_coordinate_is_named() {
    let mut map = PolygonMap {
        containers: vec![vec![DVec2::ZERO, DVec2::X, DVec2::ONE]],
        ..PolygonMap::default()
    };
    map.obstacles
        .push(vec![DVec2::ZERO, DVec2::new(f64::NAN, 0.5), DVec2::ONE]);
    let err = map.validate().expect_err("NaN is refused");
    assert!(
        matches!(&err, PolygonMapError::NotFinite { element, index: 1, .. } if element == "obstacles[0]"),
        "{err}"
    );
}

#[test]
fn a_bad_swamp_cost_and_syntax_errors_are_named() {
    let err = invalid(&format!(
        r#"{{"containers": [{SQUARE}], "swamps": [{{"ring": {SQUARE}, "cost": 0.5}}]}}"#
    ));
    assert!(
        matches!(&err, PolygonMapError::BadCost { element, .. } if element == "swamps[0]"),
        "{err}"
    );
    match parse_polygon_map(&format!(
        "{{\"containers\": [{SQUARE}],\n \"forests\": []}}"
    )) {
        Err(PolygonFileError::Syntax { line: 2, .. }) => {}
        other => panic!("unknown key: expected a syntax error on line 2, got {other:?}"),
    }
    match parse_polygon_map(r#"{"containers": [[[0, "x"]]]}"#) {
        Err(PolygonFileError::Syntax { key, .. }) => {
            assert!(key.starts_with("containers[0][0]"), "{key}")
        }
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn a_missing_file_names_the_path() {
    let err = load_polygon_map("/nonexistent/map.json").expect_err("missing");
    assert!(err.to_string().contains("/nonexistent/map.json"));
    assert!(matches!(
        load_mesh("/nonexistent/a.mesh"),
        Err(MeshError::Io { .. })
    ));
}

#[test]
fn a_malformed_mesh_names_the_line() {
    let cases: [(&str, usize); 4] = [
        ("mesh\n3\n", 2),
        (
            "mesh\n2\n3 1\n0 0 1 0\n1 0 1 0\nx 1 1 0\n3 0 1 2 -1 -1 -1\n",
            6,
        ),
        (
            "mesh\n2\n3 1\n0 0 1 0\n1 0 1 0\n1 1 1 0\n3 0 1 7 -1 -1 -1\n",
            7,
        ),
        ("mesh\n2\n3 1\n0 0 1 0\n1 0 1 0\n1 1 1 0\n3 0 1\n", 7),
    ];
    for (text, line) in cases {
        let err = parse_mesh(text).expect_err("malformed");
        let found = match err {
            MeshParseError::Malformed { line, .. }
            | MeshParseError::VertexOutOfRange { line, .. } => line,
            other => panic!("{other}"),
        };
        assert_eq!(found, line, "{text:?}: {err}");
    }
    assert!(matches!(
        parse_mesh("mesh\n2\n3 1\n0 0 1 0\n"),
        Err(MeshParseError::Truncated { .. })
    ));
    let nan = "mesh\n2\n3 1\n0 0 1 0\nNaN 0 1 0\n1 1 1 0\n3 0 1 2 -1 -1 -1\n";
    assert!(matches!(
        parse_mesh(nan),
        Err(MeshParseError::Malformed { line: 5, .. })
    ));
}

const TRIANGLE_VERTICES: &str = "0 0 1 0\n1 0 1 0\n1 1 1 0\n";

#[test]
fn huge_mesh_counts_are_refused_without_allocating() {
    // Counts near 2^32 and 2^63 once asked for 64 GB or overflowed the
    // capacity; the file's length bounds what is allocated.
    for header in [
        "4294967296 1",
        "9223372036854775807 1",
        "3 4294967296",
        "3 4611686018427387904",
        "18446744073709551615 18446744073709551615",
    ] {
        let text = format!("mesh\n2\n{header}\n{TRIANGLE_VERTICES}3 0 1 2 -1 -1 -1\n");
        match parse_mesh(&text) {
            Err(MeshParseError::Truncated { line: 8, .. }) => {}
            other => panic!("{header}: expected a truncated file, got {other:?}"),
        }
    }
}

#[test]
fn a_huge_polygon_vertex_count_is_malformed_not_an_overflow() {
    for n in ["4611686018427387904", "9223372036854775807"] {
        let text = format!("mesh\n2\n3 1\n{TRIANGLE_VERTICES}{n} 0 1 2 -1 -1 -1\n");
        match parse_mesh(&text) {
            Err(MeshParseError::Malformed { line: 7, .. }) => {}
            other => panic!("{n}: expected a malformed line 7, got {other:?}"),
        }
    }
}

#[test]
fn a_one_number_count_line_names_its_line() {
    for (text, line) in [("mesh\n2\n3\n", 3), ("mesh\n\n2\n\n3 1 4\n", 5)] {
        match parse_mesh(text) {
            Err(MeshParseError::Malformed { line: found, .. }) => {
                assert_eq!(found, line, "{text:?}")
            }
            other => panic!("{text:?}: expected a malformed line {line}, got {other:?}"),
        }
    }
}

#[test]
fn an_absurd_clearance_is_refused_before_the_offset() {
    let map = parse_polygon_map(&format!(r#"{{"containers": [{SQUARE}]}}"#)).expect("valid");
    for clearance in [1e300, 1e5, f64::INFINITY, -1.0] {
        let config = GraphConfig {
            clearance,
            ..GraphConfig::default()
        };
        match VisGraph::build(&map, config) {
            Err(VisBuildError::Clearance(ClearanceError::BadRadius(radius))) => {
                assert!(radius == clearance || radius.is_nan())
            }
            other => panic!("clearance {clearance}: {other:?}"),
        }
    }
    let error = ClearanceError::BadRadius(1e300).to_string();
    assert!(error.contains("10000"), "names the range: {error}");
}

#[test]
fn coordinates_beyond_the_bound_are_named_before_any_geometry() {
    let far = "[[0,0],[1e300,0],[10,10],[0,10],[0,0]]";
    let cases = [
        (format!(r#"{{"containers": [{far}]}}"#), "containers[0]"),
        (
            format!(r#"{{"containers": [{SQUARE}], "obstacles": [{SQUARE}, {far}]}}"#),
            "obstacles[1]",
        ),
        (
            format!(
                r#"{{"containers": [{SQUARE}], "swamps": [{{"ring": [[1,1],[5e38,1],[2,2],[1,1]], "cost": 2}}]}}"#
            ),
            "swamps[0]",
        ),
        (
            format!(r#"{{"containers": [{SQUARE}], "roads": [[[1,1],[1,-2e7]]]}}"#),
            "roads[0]",
        ),
    ];
    for (text, element) in cases {
        let err = invalid(&text);
        assert!(
            matches!(&err, PolygonMapError::OutOfRange { element: e, index: 1, .. } if e == element),
            "{element}: {err}"
        );
        assert!(
            err.to_string().contains("10000000"),
            "names the bound: {err}"
        );
    }
    // The same map built in code is refused before the clearance offset.
    let map = PolygonMap {
        containers: vec![vec![DVec2::ZERO, DVec2::new(1e300, 0.0), DVec2::ONE]],
        ..PolygonMap::default()
    };
    assert!(matches!(
        VisGraph::build(&map, GraphConfig::default()),
        Err(VisBuildError::Map(PolygonMapError::OutOfRange { .. }))
    ));
    // Within the bound is fine.
    let edge = "[[-1e7,-1e7],[1e7,-1e7],[1e7,1e7],[-1e7,1e7],[-1e7,-1e7]]";
    parse_polygon_map(&format!(r#"{{"containers": [{edge}]}}"#)).expect("on the bound");
}

#[test]
fn text_after_the_json_object_is_refused_with_its_line() {
    for (trailing, line) in [("x", 1), ("\n\n{}", 3), (" ]", 1)] {
        match parse_polygon_map(&format!(r#"{{"containers": [{SQUARE}]}}{trailing}"#)) {
            Err(PolygonFileError::Syntax { line: found, .. }) => {
                assert_eq!(found, line, "{trailing:?}")
            }
            other => panic!("{trailing:?}: expected a syntax error, got {other:?}"),
        }
    }
    parse_polygon_map(&format!("{{\"containers\": [{SQUARE}]}}\n \t\n")).expect("whitespace");
}

#[test]
fn the_real_mesh_loads_and_its_graph_round_trips() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/movingai/mesh/arena.mesh"
    );
    let map = load_mesh(path).expect("arena.mesh loads");
    assert!(!map.containers.is_empty() && !map.obstacles.is_empty());
    let graph = VisGraph::build(&map, GraphConfig::default()).expect("builds");
    let mut blob = Vec::new();
    graph.save(&mut blob).expect("in memory");
    let loaded = VisGraph::load(&mut blob.as_slice()).expect("round trip");
    assert_eq!(loaded.positions(), graph.positions());
    assert_eq!(loaded.edge_count(), graph.edge_count());
    for node in 0..graph.node_count() as u32 {
        assert!(
            loaded.neighbours(node).eq(graph.neighbours(node)),
            "node {node}'s edges"
        );
    }
    // Queries on the loaded graph (its cached corner sectors rebuilt) give
    // the built graph's answers.
    let positions = graph.positions().to_vec();
    let navigators = [graph, loaded].map(|g| convoy::nav::PolygonNavigator::from_graph(g, 1));
    let mut search = convoy::nav::VisSearch::new(&navigators[0]);
    let mut out = Vec::new();
    let n = positions.len();
    for k in 0..40 {
        let (a, b) = (positions[k * 7 % n], positions[(k * 31 + n / 2) % n]);
        let [built, reloaded] = [0, 1].map(|i| {
            navigators[i]
                .find_path_with(
                    a,
                    b,
                    convoy::nav::FactionId(0),
                    convoy::nav::QueryOptions::default(),
                    &mut search,
                    &mut out,
                )
                .map(|c| c.cost.to_bits())
        });
        assert_eq!(built, reloaded, "query {k}");
    }
    let mut flipped = blob.clone();
    let at = flipped.len() / 2;
    flipped[at] ^= 0x10;
    assert!(matches!(
        VisGraph::load(&mut flipped.as_slice()),
        Err(GraphFileError::Checksum)
    ));
    assert!(matches!(
        VisGraph::load(&mut &blob[..blob.len() - 3]),
        Err(GraphFileError::Truncated(_))
    ));
    let mut wrong = blob.clone();
    wrong[8] = 9;
    assert!(matches!(
        VisGraph::load(&mut wrong.as_slice()),
        Err(GraphFileError::Version { found: 9 })
    ));
    assert!(matches!(
        VisGraph::load(&mut &b"not a graph at all, sorry....."[..]),
        Err(GraphFileError::BadMagic)
    ));
}
