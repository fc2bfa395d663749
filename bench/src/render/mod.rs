//! `convoy-bench render`: one scene drawn to SVG, layer by layer — a profile
//! run to a tick (its vehicle columns read in place between ticks), or a
//! Moving AI map with one path query and the nodes its search reached.
//!
//! The "2D tool for all of the pathfinding" that the Force 21 team wished
//! they had written first (Stout, *Force 21*, Conclusions: it "would have
//! probably saved weeks"). Nothing here runs inside `Sim::step`: the picture
//! is drawn after the last tick from the public columns.

pub mod layers;
pub mod scene;
pub mod svg;

use std::path::{Path, PathBuf};

use clap::Args;
use convoy::Profile;
use convoy::glam::Vec2;
use convoy::nav::movingai::load_map;
use convoy::nav::quadtree::{QuadPlanner, Quadtree};
use convoy::nav::{Cell, CostGrid, GridPlanner, Mobility};

use self::layers::{LAYERS, Layer};
use self::scene::{Explored, MapScene, Query, Scene};
use self::svg::{Svg, View};
use crate::CliError;
use crate::run::DEFAULT_PROFILE;
use crate::scen::Backend;

/// Options of `convoy-bench render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// A profile TOML file, or a Moving AI `.map` file; the embedded
    /// default profile when absent.
    input: Option<PathBuf>,
    /// Profiles: ticks to run before drawing (default 0, the spawn state).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(0..))]
    tick: Option<i64>,
    /// The SVG file to write.
    #[arg(long, value_name = "FILE.svg")]
    out: PathBuf,
    /// Layers to draw, by name, comma-separated (default: every layer the
    /// scene has data for).
    #[arg(long, value_name = "NAME,…", value_delimiter = ',')]
    layers: Option<Vec<String>>,
    /// Maps: plan from cell (SX, SY) to cell (GX, GY) and draw the path and
    /// the nodes the search reached.
    #[arg(long, num_args = 4, value_names = ["SX", "SY", "GX", "GY"], allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(0..=i64::from(u32::MAX)))]
    path: Option<Vec<i64>>,
    /// Maps: the planner for `--path`.
    #[arg(long, value_enum, default_value_t = Backend::Grid)]
    backend: Backend,
    /// Profiles: units to spawn (overrides `scenario.units`).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..=i64::from(u32::MAX)))]
    units: Option<i64>,
    /// Profiles: worker threads (default one per core; the picture is the
    /// same whatever the count).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..=1024))]
    threads: Option<i64>,
    /// Draw only the world window XMIN..XMAX × YMIN..YMAX (metres for
    /// profiles, cells for maps) instead of the whole world.
    #[arg(long, num_args = 4, value_names = ["XMIN", "YMIN", "XMAX", "YMAX"], allow_negative_numbers = true)]
    view: Option<Vec<f64>>,
    /// Width of the scene in pixels.
    #[arg(long, value_name = "PX", default_value_t = 1200, value_parser = clap::value_parser!(u32).range(16..=20_000))]
    width: u32,
}

/// Loads `path`, or the embedded default profile; returns it and where it
/// came from.
pub fn load_profile(path: Option<&Path>) -> Result<(Profile, String), CliError> {
    Ok(match path {
        Some(path) => (Profile::load(path)?, path.display().to_string()),
        None => (
            Profile::parse(DEFAULT_PROFILE, "profiles/default.toml")?,
            "embedded".to_owned(),
        ),
    })
}

/// Builds a profile's world with optional unit and thread overrides.
pub fn build_sim(
    profile: &mut Profile,
    source: &str,
    units: Option<i64>,
    threads: Option<i64>,
) -> Result<convoy::Sim, CliError> {
    // The argument parsers admit only values in range.
    if let Some(units) = units {
        profile.scenario.units = units as u32;
    }
    let threads = threads
        .map(|threads| threads as usize)
        .or(profile.run.threads)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    convoy::scenario::build(profile, threads)
        .map_err(|error| CliError::Setup(format!("{source}: {error}")))
}

/// Draws the scene and writes the SVG.
pub fn render(args: &RenderArgs) -> Result<(), CliError> {
    let selected = select_layers(args.layers.as_deref())?;
    let is_map = args
        .input
        .as_deref()
        .and_then(Path::extension)
        .and_then(|extension| extension.to_str());
    let document = match is_map {
        Some("map") => render_map(args, &selected)?,
        Some(extension @ ("json" | "mesh")) => {
            return Err(CliError::Setup(format!(
                "render: `.{extension}` maps are not supported yet (polygon maps and meshes are not in the kernel); give a Moving AI `.map` file or a profile"
            )));
        }
        _ => render_profile(args, &selected)?,
    };
    std::fs::write(&args.out, document).map_err(|error| CliError::Output {
        path: args.out.display().to_string(),
        reason: error.to_string(),
    })
}

/// The layers `--layers` names, in drawing order; every layer by default.
fn select_layers(names: Option<&[String]>) -> Result<Vec<&'static Layer>, CliError> {
    let Some(names) = names else {
        return Ok(LAYERS.iter().collect());
    };
    for name in names {
        if layers::by_name(name).is_none() {
            return Err(CliError::Setup(format!(
                "--layers: no layer named `{name}`; the layers are: {}",
                layers::names().join(", ")
            )));
        }
    }
    Ok(LAYERS
        .iter()
        .filter(|layer| names.iter().any(|name| name == layer.name))
        .collect())
}

/// The whole-world view, or the `--view` window (checked) instead.
fn view(args: &RenderArgs, min: [f64; 2], max: [f64; 2], y_up: bool) -> Result<View, CliError> {
    let Some(window) = args.view.as_deref() else {
        return Ok(View::fit(min, max, args.width, y_up));
    };
    match *window {
        [x0, y0, x1, y1]
            if [x0, y0, x1, y1].iter().all(|v| v.is_finite()) && x0 < x1 && y0 < y1 =>
        {
            Ok(View::fit([x0, y0], [x1, y1], args.width, y_up).culling())
        }
        _ => Err(CliError::Setup(format!(
            "--view: XMIN YMIN XMAX YMAX must be finite with XMIN < XMAX and YMIN < YMAX, was {window:?}"
        ))),
    }
}

/// Draws `selected` layers of `scene`; refuses a picture with none drawn.
fn draw(
    scene: &Scene<'_>,
    view: View,
    selected: &[&Layer],
    title: &str,
    unit: &str,
) -> Result<String, CliError> {
    let mut svg = Svg::new(view);
    let mut drawn = 0;
    for layer in selected {
        let mark = svg.open_layer(layer.name, layer.style);
        if (layer.draw)(scene, &mut svg).is_some() {
            svg.close_layer();
            drawn += 1;
        } else {
            svg.discard_layer(mark);
        }
    }
    if drawn == 0 {
        let names: Vec<&str> = selected.iter().map(|layer| layer.name).collect();
        return Err(CliError::Setup(format!(
            "--layers: nothing to draw: this scene has no data for {}",
            names.join(", ")
        )));
    }
    Ok(svg.finish(title, unit))
}

fn render_profile(args: &RenderArgs, selected: &[&Layer]) -> Result<String, CliError> {
    if args.path.is_some() {
        return Err(CliError::Setup(
            "--path needs a Moving AI `.map` file, not a profile".to_owned(),
        ));
    }
    let (mut profile, source) = load_profile(args.input.as_deref())?;
    let mut sim = build_sim(&mut profile, &source, args.units, args.threads)?;
    let ticks = args.tick.unwrap_or(0);
    for _ in 1..ticks {
        sim.step(profile.run.dt);
    }
    let steered_from = (ticks > 0).then(|| last_step(&mut sim, profile.run.dt));
    let bounds = sim.config().bounds;
    let view = view(
        args,
        [f64::from(bounds.min.x), f64::from(bounds.min.y)],
        [f64::from(bounds.max.x), f64::from(bounds.max.y)],
        /* y_up= */ true,
    )?;
    let title = format!(
        "{}: tick {}, {} units",
        profile.name,
        sim.tick_count(),
        sim.vehicles().len()
    );
    let scene = Scene {
        sim: Some(&sim),
        steered_from,
        map: None,
    };
    draw(&scene, view, selected, &title, "m")
}

/// Steps `sim` once and returns, per row after the step, where each unit
/// stood while that step's steering ran: the positions before the step,
/// carried by handle slot across the row reorder the step may do (steering
/// runs after the reorder and before anything moves).
fn last_step(sim: &mut convoy::Sim, dt: f32) -> Vec<Vec2> {
    let columns = sim.vehicles().columns();
    let slots = columns
        .handle_slot()
        .iter()
        .max()
        .map_or(0, |&slot| slot as usize + 1);
    let mut by_slot = vec![Vec2::NAN; slots];
    for (&slot, &position) in columns.handle_slot().iter().zip(columns.position()) {
        by_slot[slot as usize] = position;
    }
    sim.step(dt);
    sim.vehicles()
        .columns()
        .handle_slot()
        .iter()
        .map(|&slot| by_slot.get(slot as usize).copied().unwrap_or(Vec2::NAN))
        .collect()
}

fn render_map(args: &RenderArgs, selected: &[&Layer]) -> Result<String, CliError> {
    if args.tick.is_some() || args.units.is_some() {
        return Err(CliError::Setup(
            "--tick and --units apply to profiles, not to `.map` files".to_owned(),
        ));
    }
    let path = args.input.as_deref().unwrap_or(Path::new(""));
    // The loader's errors name the file and line.
    let map = load_map(path).map_err(|error| CliError::Setup(error.to_string()))?;
    let grid = CostGrid::new(&map, Mobility::GROUND)
        .map_err(|error| CliError::Setup(error.to_string()))?;
    // The quadtree layer is drawn by default only for the quadtree backend.
    let wants_tree = args.backend == Backend::Quadtree
        || (args.layers.is_some() && selected.iter().any(|layer| layer.name == "quadtree"));
    let tree = wants_tree
        .then(|| Quadtree::new(&grid))
        .transpose()
        .map_err(|error| CliError::Setup(error.to_string()))?;
    let query = match args.path.as_deref() {
        Some(&[sx, sy, gx, gy]) => {
            let (start, goal) = (
                Cell::new(sx as u32, sy as u32),
                Cell::new(gx as u32, gy as u32),
            );
            let tree = tree.as_ref().filter(|_| args.backend == Backend::Quadtree);
            Some(plan(&grid, tree, start, goal)?)
        }
        _ => None,
    };
    let title = match &query {
        Some(query) => format!(
            "{}: {:?} path ({}, {}) to ({}, {})",
            path.display(),
            args.backend,
            query.start.x,
            query.start.y,
            query.goal.x,
            query.goal.y
        ),
        None => path.display().to_string(),
    };
    let view = view(
        args,
        [0.0, 0.0],
        [f64::from(map.width()), f64::from(map.height())],
        /* y_up= */ false,
    )?;
    let scene = Scene {
        sim: None,
        steered_from: None,
        map: Some(MapScene { map, tree, query }),
    };
    draw(&scene, view, selected, &title, "cells")
}

/// Plans with the quadtree when given one, else grid A*.
fn plan(
    grid: &CostGrid,
    tree: Option<&Quadtree>,
    start: Cell,
    goal: Cell,
) -> Result<Query, CliError> {
    let refused = |error: convoy::nav::PathError| CliError::Setup(format!("--path: {error}"));
    match tree {
        Some(tree) => {
            let mut planner = QuadPlanner::new();
            let path = planner
                .find_path(grid, tree, start, goal)
                .map_err(refused)?;
            Ok(Query {
                start,
                goal,
                points: path.points,
                length: path.length,
                explored: Explored::Leaves(planner.reached_leaves().collect()),
            })
        }
        None => {
            let mut planner = GridPlanner::for_grid(grid);
            let path = planner.find_path(grid, start, goal).map_err(refused)?;
            Ok(Query {
                start,
                goal,
                points: path.cells,
                length: path.length,
                explored: Explored::Cells(planner.reached_cells(grid).collect()),
            })
        }
    }
}
