//! HPA* against grid A* (jump point search) per query, in one run, on
//! every scenario of a Moving AI map whose ends are more than two clusters
//! apart (those the `paths` stage gives HPA*):
//! `cargo run --release -p convoy-bench --example hpa_queries [MAP]` (MAP:
//! a name in `shared/data/movingai`, default arena2). Prints the
//! hierarchy's build time and memory, then per query the mean time, the
//! mean work in cells and HPA*'s mean and worst cost over the optimum.

use std::time::Instant;

use convoy::nav::{
    CostGrid, GridPlanner, HierarchicalPlanner, Hierarchy, Mobility, Path, load_map, load_scen,
};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/movingai");

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let name = std::env::args().nth(1).unwrap_or_else(|| "arena2".into());
    let map = load_map(format!("{DATA}/{name}.map"))?;
    let grid = CostGrid::new(&map, Mobility::GROUND)?;
    let scenarios = load_scen(format!("{DATA}/{name}.map.scen"))?;
    let started = Instant::now();
    let hierarchy = Hierarchy::build(&grid);
    let build_ms = started.elapsed().as_secs_f64() * 1e3;
    println!(
        "{name}: hierarchy built in {build_ms:.1} ms: {} nodes, {} edges, {} KiB",
        hierarchy.node_count(),
        hierarchy.edge_count(),
        hierarchy.heap_bytes() / 1024
    );
    let (mut astar, mut hpa) = (GridPlanner::new(), HierarchicalPlanner::new());
    let mut path = Path::default();
    let mut far = Vec::new();
    for s in &scenarios {
        hpa.find_path_into(&hierarchy, &grid, (s.start, s.goal), &mut path)?;
        if !hpa.searched_directly() {
            far.push((s.start, s.goal));
        }
    }
    let count = far.len() as f64;
    let (mut astar_work, mut optimal) = (0u64, Vec::new());
    let started = Instant::now();
    for &(start, goal) in &far {
        astar.find_path_into(&grid, start, goal, &mut path)?;
        astar_work += u64::from(astar.work());
        optimal.push(path.cost);
    }
    let astar_us = started.elapsed().as_secs_f64() * 1e6 / count;
    let (mut hpa_work, mut hpa_expanded, mut worst, mut sum) = (0u64, 0u64, 1.0f64, 0.0);
    let started = Instant::now();
    for (&(start, goal), &best) in far.iter().zip(&optimal) {
        hpa.find_path_into(&hierarchy, &grid, (start, goal), &mut path)?;
        hpa_work += u64::from(hpa.work());
        hpa_expanded += u64::from(hpa.expanded());
        worst = worst.max(path.cost / best);
        sum += path.cost / best;
    }
    let hpa_us = started.elapsed().as_secs_f64() * 1e6 / count;
    println!(
        "{} far queries: grid A* {astar_us:.1} µs, {} cells; HPA* {hpa_us:.1} µs, {} cells ({} abstract nodes expanded), cost ÷ optimum mean {:.4}, worst {worst:.4}",
        far.len(),
        astar_work / far.len() as u64,
        hpa_work / far.len() as u64,
        hpa_expanded / far.len() as u64,
        sum / count,
    );
    Ok(())
}
