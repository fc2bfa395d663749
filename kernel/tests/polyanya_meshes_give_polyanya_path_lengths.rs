//! Polyanya's benchmark meshes load — arena and aurora (a StarCraft map
//! whose boundary touches itself at vertices), each as drawn and merged —
//! and convoy's visibility-graph lengths at zero clearance equal Polyanya's
//! optimal lengths for their scenario files within 1e-3 (absolute).

use convoy::glam::DVec2;
use convoy::nav::load_scen;
use convoy::nav::polygon::{PolygonMap, load_mesh, signed_area};
use convoy::nav::visgraph::{FactionId, GraphConfig, PolygonNavigator, QueryOptions, VisSearch};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/polyanya");

/// Polyanya's lengths file: one length per scenario line, `#` comments.
fn lengths(name: &str) -> Vec<f64> {
    let text = std::fs::read_to_string(format!("{DATA}/{name}.lengths")).expect("lengths file");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.trim().parse().expect("a length"))
        .collect()
}

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

/// Loads `mesh`, then plans every `every`-th query of `scen` and compares
/// with Polyanya's length.
fn check(mesh: &str, scen: &str, every: usize) {
    let t = std::time::Instant::now();
    let map = load_mesh(mesh_path(mesh)).unwrap_or_else(|e| panic!("{mesh}: {e}"));
    eprintln!(
        "{mesh}: {} containers, {} obstacles, loaded in {:?}",
        map.containers.len(),
        map.obstacles.len(),
        t.elapsed()
    );
    let t = std::time::Instant::now();
    let space = convoy::nav::clearance::free_space(&map, 0.0).expect("space");
    eprintln!(
        "{mesh}: free space in {:?}, {} contours {} points",
        t.elapsed(),
        space.contours.len(),
        space.points.len()
    );
    let t = std::time::Instant::now();
    let nav = PolygonNavigator::build(&map, GraphConfig::default(), 1)
        .unwrap_or_else(|e| panic!("{mesh}: {e}"));
    eprintln!(
        "{mesh}: {} nodes, {} edges, built in {:?}",
        nav.graph().node_count(),
        nav.graph().edge_count(),
        t.elapsed()
    );
    let scenarios = load_scen(format!("{DATA}/{scen}.scen")).expect("scen loads");
    let expected = lengths(scen);
    assert_eq!(scenarios.len(), expected.len(), "{scen}: one length a line");
    let mut search = VisSearch::new(&nav);
    let mut out = Vec::new();
    let mut bad = 0;
    let t = std::time::Instant::now();
    let every = std::env::var("EVERY").map_or(every, |v| v.parse().unwrap());
    for (s, &want) in scenarios.iter().zip(&expected).step_by(every) {
        let point = |c: convoy::nav::Cell| DVec2::new(f64::from(c.x), f64::from(c.y));
        let got = nav
            .find_path_with(
                point(s.start),
                point(s.goal),
                FactionId(0),
                QueryOptions::default(),
                &mut search,
                &mut out,
            )
            .map(|c| c.length);
        match got {
            Ok(len) if (len - want).abs() <= 1e-3 => {}
            other => {
                bad += 1;
                if bad < 20 {
                    eprintln!(
                        "{mesh} line {}: {:?} -> {:?}: {other:?}, Polyanya {want}",
                        s.line, s.start, s.goal
                    );
                    eprintln!("route {:?}", search.route());
                }
            }
        }
    }
    eprintln!("{mesh}: {bad} bad, queries in {:?}", t.elapsed());
    assert_eq!(bad, 0);
    let _ = signed_area(&[]);
    let _: Option<PolygonMap> = None;
}

#[test]
fn arena_meshes_give_polyanya_lengths() {
    check("arena", "arena", 1);
    check("arena-merged", "arena", 1);
}

#[test]
fn aurora_meshes_give_polyanya_lengths() {
    check("aurora", "aurora", 100);
}
