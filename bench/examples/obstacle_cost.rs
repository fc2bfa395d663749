//! What an obstacle added or removed at run time costs on a polygon map:
//! `cargo run --release -p convoy-bench --example obstacle_cost [PROFILE...]`
//! (default: the skirmish and river profiles, their units spawned and
//! ordered, 1 thread). For ten 20 m squares on open ground it prints the
//! median and worst wall time of `Sim::add_obstacle` and
//! `Sim::remove_obstacle` (navigator rebuild, raster repaint, units'
//! catch-up), of the navigator's rebuild alone, and, for scale, of building
//! the navigator and raster from scratch.

use std::path::Path;
use std::time::Instant;

use convoy::glam::Vec2;
use convoy::nav::PolygonNavigator;
use convoy::nav::polygon::{load_polygon_map, rasterize};
use convoy::random::unit_f32;
use convoy_scenarios::Profile;

const PROFILES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles");

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut names: Vec<String> = std::env::args().skip(1).collect();
    if names.is_empty() {
        names = vec!["skirmish".into(), "river".into()];
    }
    for name in names {
        measure(&name)?;
    }
    Ok(())
}

fn measure(name: &str) -> Result<(), Box<dyn std::error::Error>> {
    let profile = Profile::load(Path::new(&format!("{PROFILES}/{name}.toml")))?;
    let mut sim = convoy_scenarios::build(&profile, 1)?;
    for _ in 0..10 {
        sim.step(profile.run.dt);
    }
    let raster = std::sync::Arc::clone(sim.config().map.grid_map().ok_or("not a polygon map")?);
    let navigator = sim
        .config()
        .map
        .polygon()
        .ok_or("not a polygon map")?
        .clone();
    let bounds = raster.bounds();
    let squares: Vec<Vec<Vec2>> = (0..400u64)
        .map(|i| {
            bounds.min + Vec2::new(unit_f32(9, 0, i), unit_f32(9, 1, i)) * (bounds.max - bounds.min)
        })
        .filter(|&centre| raster.is_open(centre))
        .take(10)
        .map(|centre| {
            [(-10.0, -10.0), (10.0, -10.0), (10.0, 10.0), (-10.0, 10.0)]
                .map(|(x, y)| centre + Vec2::new(x, y))
                .to_vec()
        })
        .collect();
    let (mut add, mut remove, mut rebuild) = (Vec::new(), Vec::new(), Vec::new());
    for square in &squares {
        let started = Instant::now();
        let id = sim.add_obstacle(square)?;
        add.push(started.elapsed().as_secs_f64() * 1e3);
        sim.step(profile.run.dt);
        let started = Instant::now();
        sim.remove_obstacle(id)?;
        remove.push(started.elapsed().as_secs_f64() * 1e3);
        let ring = square.iter().map(|p| p.as_dvec2()).collect();
        let mut copy = navigator.clone();
        let started = Instant::now();
        convoy::parallel::sequentially(|| copy.add_obstacle(ring))?;
        rebuild.push(started.elapsed().as_secs_f64() * 1e3);
    }
    let map_file = profile
        .map
        .as_ref()
        .and_then(|map| map.polygon.clone())
        .ok_or("no polygon map")?;
    let section = profile.map.as_ref().ok_or("no map")?;
    let map = load_polygon_map(&map_file)?;
    let started = Instant::now();
    let config = navigator.graph().config();
    convoy::parallel::sequentially(|| PolygonNavigator::build(&map, config, 1))?;
    let build_ms = started.elapsed().as_secs_f64() * 1e3;
    let started = Instant::now();
    rasterize(&map, section.cell_size_m)?;
    let raster_ms = started.elapsed().as_secs_f64() * 1e3;
    println!(
        "{name}: {} units, graph of {} nodes and {} edges, raster {} x {} cells",
        sim.vehicles().len(),
        navigator.graph().node_count(),
        navigator.graph().edge_count(),
        raster.grid().width(),
        raster.grid().height()
    );
    println!(
        "  add_obstacle     median {:7.2} ms, worst {:7.2} ms",
        median(&add),
        worst(&add)
    );
    println!(
        "  remove_obstacle  median {:7.2} ms, worst {:7.2} ms",
        median(&remove),
        worst(&remove)
    );
    println!(
        "  navigator rebuild median {:6.2} ms, worst {:7.2} ms",
        median(&rebuild),
        worst(&rebuild)
    );
    println!("  from scratch: navigator {build_ms:.2} ms, raster {raster_ms:.2} ms");
    Ok(())
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

fn worst(values: &[f64]) -> f64 {
    values.iter().copied().fold(0.0, f64::max)
}
