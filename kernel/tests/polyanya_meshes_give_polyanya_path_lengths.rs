//! Polyanya's benchmark meshes load — arena and aurora (a StarCraft map
//! whose boundary touches itself at 97 vertices), each as drawn and merged —
//! and convoy's visibility-graph lengths at zero clearance equal Polyanya's
//! optimal lengths for their scenario files within 1e-3 (absolute). Loops
//! that touch themselves are split into rings that visit each vertex once
//! and cover the mesh's area, and no path slips through a pinch point.

use std::collections::HashSet;

use convoy::glam::DVec2;
use convoy::nav::load_scen;
use convoy::nav::polygon::{PolygonMap, Ring, load_mesh, parse_mesh, segments_touch, signed_area};
use convoy::nav::visgraph::{
    FactionId, GraphConfig, NavError, PolygonNavigator, QueryOptions, VisSearch,
};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/polyanya");

fn mesh_path(mesh: &str) -> String {
    if mesh == "arena" {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/data/movingai/mesh/arena.mesh"
        )
        .to_owned()
    } else {
        format!("{DATA}/{mesh}.mesh")
    }
}

/// The mesh's walkable area: the sum of its polygons' areas, read with a
/// plain tokenizer of its own (the format is whitespace-insensitive).
fn mesh_area(text: &str) -> f64 {
    let words: Vec<&str> = text.split_whitespace().collect();
    let num = |i: usize| words[i].parse::<f64>().expect("a number");
    let (v, p) = (num(2) as usize, num(3) as usize);
    let (mut at, mut points) = (4, Vec::new());
    for _ in 0..v {
        points.push(DVec2::new(num(at), num(at + 1)));
        at += 3 + num(at + 2) as usize;
    }
    let mut twice = 0.0;
    for _ in 0..p {
        let n = num(at) as usize;
        let ring: Vec<DVec2> = (1..=n).map(|k| points[num(at + k) as usize]).collect();
        twice += signed_area(&ring);
        at += 1 + 2 * n;
    }
    twice / 2.0
}

/// Every ring visits each point once, and land minus holes is the mesh's
/// area (obstacles are stored counter-clockwise, like containers).
fn assert_rings_cover_the_mesh(mesh: &str, map: &PolygonMap, text: &str) {
    for ring in map.containers.iter().chain(&map.obstacles) {
        let mut seen = HashSet::new();
        assert!(
            ring.iter()
                .all(|p| seen.insert([p.x.to_bits(), p.y.to_bits()])),
            "{mesh}: a ring visits a point twice"
        );
        assert!(
            signed_area(ring) > 0.0,
            "{mesh}: rings are counter-clockwise"
        );
    }
    let area = |rings: &[Ring]| rings.iter().map(|r| signed_area(r)).sum::<f64>() / 2.0;
    let (land, holes, want) = (area(&map.containers), area(&map.obstacles), mesh_area(text));
    assert!(
        (land - holes - want).abs() <= 1e-9 * want,
        "{mesh}: rings cover {} , the mesh {want}",
        land - holes
    );
}

/// Brute force: no two non-adjacent edges of `ring` share a point.
fn assert_simple(ring: &[DVec2]) {
    let n = ring.len();
    for i in 0..n {
        for j in i + 2..n {
            if i == 0 && j == n - 1 {
                continue;
            }
            let (a, b, c, d) = (ring[i], ring[(i + 1) % n], ring[j], ring[(j + 1) % n]);
            assert!(
                !segments_touch(a, b, c, d),
                "edges {i} and {j} of {ring:?} touch"
            );
        }
    }
}

/// A ring up to its starting point, for comparing maps.
fn canonical(rings: &[Ring]) -> Vec<Vec<[u64; 2]>> {
    let mut out: Vec<Vec<[u64; 2]>> = rings
        .iter()
        .map(|r| {
            let keys: Vec<[u64; 2]> = r.iter().map(|p| [p.x.to_bits(), p.y.to_bits()]).collect();
            let first = (0..keys.len()).min_by_key(|&i| keys[i]).unwrap_or(0);
            keys[first..]
                .iter()
                .chain(&keys[..first])
                .copied()
                .collect()
        })
        .collect();
    out.sort_unstable();
    out
}

fn load(mesh: &str) -> (PolygonMap, String) {
    let path = mesh_path(mesh);
    let map = load_mesh(&path).unwrap_or_else(|e| panic!("{e}"));
    let text = std::fs::read_to_string(&path).expect("readable");
    assert_rings_cover_the_mesh(mesh, &map, &text);
    eprintln!(
        "{mesh}: {} containers, {} obstacles",
        map.containers.len(),
        map.obstacles.len()
    );
    (map, text)
}

/// Polyanya's lengths file: one length per scenario line, `#` comments.
fn lengths(name: &str) -> Vec<f64> {
    let text = std::fs::read_to_string(format!("{DATA}/{name}.lengths")).expect("lengths file");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.trim().parse().expect("a length"))
        .collect()
}

/// Plans every `every`-th query of `scen` (points are the scenario's
/// coordinates, as Polyanya reads them) and returns the largest difference
/// from Polyanya's length, asserting it is at most 1e-3.
fn largest_error(mesh: &str, map: &PolygonMap, scen: &str, every: usize) -> f64 {
    let nav = PolygonNavigator::build(map, GraphConfig::default(), 1)
        .unwrap_or_else(|e| panic!("{mesh}: {e}"));
    let graph = nav.graph();
    eprintln!(
        "{mesh}: {} nodes, {} edges",
        graph.node_count(),
        graph.edge_count()
    );
    let scenarios = load_scen(format!("{DATA}/{scen}.scen")).expect("scen loads");
    let expected = lengths(scen);
    assert_eq!(scenarios.len(), expected.len(), "{scen}: one length a line");
    let (mut search, mut out, mut worst) = (VisSearch::new(&nav), Vec::new(), 0.0f64);
    for (s, &want) in scenarios.iter().zip(&expected).step_by(every) {
        let point = |c: convoy::nav::Cell| DVec2::new(f64::from(c.x), f64::from(c.y));
        let options = QueryOptions::default();
        let got = nav
            .find_path_with(
                point(s.start),
                point(s.goal),
                FactionId(0),
                options,
                &mut search,
                &mut out,
            )
            .unwrap_or_else(|e| panic!("{mesh} {scen} line {}: {e}", s.line));
        assert!(
            (got.length - want).abs() <= 1e-3,
            "{mesh} {scen} line {}: {} against Polyanya's {want} by {:?}",
            s.line,
            got.length,
            search.route()
        );
        worst = worst.max((got.length - want).abs());
    }
    worst
}

#[test]
fn arena_meshes_give_polyanya_lengths_on_every_query() {
    for mesh in ["arena", "arena-merged"] {
        let (map, _) = load(mesh);
        let worst = largest_error(mesh, &map, "arena", 1);
        eprintln!("{mesh}: 160 queries, largest difference {worst:.2e}");
    }
}

#[test]
fn aurora_meshes_load_as_one_map_and_give_polyanya_lengths() {
    let (map, _) = load("aurora");
    let (merged, _) = load("aurora-merged");
    // Merging polygons keeps the boundary: the same rings, so the same
    // free space and the same answers for the merged mesh.
    assert_eq!(canonical(&map.containers), canonical(&merged.containers));
    assert_eq!(canonical(&map.obstacles), canonical(&merged.obstacles));
    // One query in ten of the 2,990: the graph's build dominates in debug.
    let worst = largest_error("aurora", &map, "aurora", 10);
    eprintln!("aurora: 299 queries, largest difference {worst:.2e}");
}

/// A mesh file from vertices and convex counter-clockwise polygons.
fn mesh_text(points: &[(f64, f64)], polygons: &[&[usize]]) -> String {
    let mut text = format!("mesh\n2\n{} {}\n", points.len(), polygons.len());
    for (x, y) in points {
        text += &format!("{x} {y} 0\n");
    }
    for p in polygons {
        let vertices: Vec<String> = p.iter().map(usize::to_string).collect();
        text += &format!(
            "{} {} {}\n",
            p.len(),
            vertices.join(" "),
            vec!["-1"; p.len()].join(" ")
        );
    }
    text
}

#[test]
fn a_hole_touching_the_outer_boundary_is_split_off_and_not_slipped_through() {
    // A 4 × 4 square with a diamond hole whose corner (0, 2) lies on the
    // square's left side: the boundary loop visits (0, 2) twice.
    let points = [
        (0.0, 0.0),
        (4.0, 0.0),
        (4.0, 4.0),
        (0.0, 4.0),
        (0.0, 2.0),
        (2.0, 1.0),
        (3.0, 2.0),
        (2.0, 3.0),
    ];
    let polygons: [&[usize]; 7] = [
        &[0, 1, 5],
        &[0, 5, 4],
        &[1, 6, 5],
        &[1, 2, 6],
        &[2, 7, 6],
        &[2, 3, 7],
        &[3, 4, 7],
    ];
    let text = mesh_text(&points, &polygons);
    let map = parse_mesh(&text).expect("parses");
    map.validate().expect("the split rings are a valid map");
    assert_eq!((map.containers.len(), map.obstacles.len()), (1, 1));
    assert_rings_cover_the_mesh("diamond", &map, &text);
    assert!((mesh_area(&text) - 13.0).abs() < 1e-12);
    for ring in map.containers.iter().chain(&map.obstacles) {
        assert_simple(ring);
    }
    // Just above and just below the pinch: through it would be 1.26 m; the
    // way round the hole's far corner (3, 2) is longer than 5.6 m.
    let nav = PolygonNavigator::build(&map, GraphConfig::default(), 1).expect("builds");
    let (mut search, mut out) = (VisSearch::new(&nav), Vec::new());
    let cost = nav
        .find_path_with(
            DVec2::new(0.2, 2.6),
            DVec2::new(0.2, 1.4),
            FactionId(0),
            QueryOptions::default(),
            &mut search,
            &mut out,
        )
        .expect("reachable round the hole");
    assert!(
        cost.length > 5.6,
        "slipped through the pinch: {:?}",
        search.route()
    );
}

#[test]
fn squares_touching_at_a_corner_stay_apart() {
    let points = [
        (0.0, 0.0),
        (1.0, 0.0),
        (1.0, 1.0),
        (0.0, 1.0),
        (2.0, 1.0),
        (2.0, 2.0),
        (1.0, 2.0),
    ];
    let polygons: [&[usize]; 2] = [&[0, 1, 2, 3], &[2, 4, 5, 6]];
    let text = mesh_text(&points, &polygons);
    let map = parse_mesh(&text).expect("parses");
    map.validate().expect("two simple containers");
    assert_eq!((map.containers.len(), map.obstacles.len()), (2, 0));
    assert_rings_cover_the_mesh("two squares", &map, &text);
    let nav = PolygonNavigator::build(&map, GraphConfig::default(), 1).expect("builds");
    let (mut search, mut out) = (VisSearch::new(&nav), Vec::new());
    let answer = nav.find_path_with(
        DVec2::new(0.5, 0.5),
        DVec2::new(1.5, 1.5),
        FactionId(0),
        QueryOptions::default(),
        &mut search,
        &mut out,
    );
    assert!(
        matches!(answer, Err(NavError::Unreachable)),
        "{answer:?} through the corner"
    );
}
