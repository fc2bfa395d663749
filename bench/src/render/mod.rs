//! `convoy-bench render`: one scene drawn to SVG, layer by layer — a profile
//! run to a tick (its vehicle columns read in place between ticks), a
//! Moving AI map with one path query and the nodes its search reached, or a
//! polygon map (JSON or Polyanya `.mesh`) with its clearance free space,
//! visibility graph and one path query.
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
use convoy::glam::{DVec2, Vec2};
use convoy::nav::movingai::load_map;
use convoy::nav::polygon::{PolygonMap, load_mesh, load_polygon_map, trace_grid};
use convoy::nav::quadtree::{QuadPlanner, Quadtree};
use convoy::nav::visgraph::{FactionId, GraphConfig, PolygonNavigator, VisGraph, VisSearch};
use convoy::nav::{Cell, CostGrid, GridPlanner, Mobility};
use convoy_scenarios::Profile;

use self::layers::{LAYERS, Layer};
use self::scene::{Explored, MapScene, PolygonQuery, PolygonScene, Query, Scene};
use self::svg::{Svg, View};
use crate::CliError;
use crate::run::DEFAULT_PROFILE;
use crate::scen::Backend;

/// Options of `convoy-bench render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// A profile TOML file, a Moving AI `.map` file, or a polygon map (a
    /// `.json` map or a Polyanya `.mesh`); the embedded default profile
    /// when absent.
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
    /// Maps: plan from (SX, SY) to (GX, GY) — cells of a `.map`, points in
    /// the map's units of a polygon map — and draw the path (and, on a
    /// `.map`, the nodes the search reached).
    #[arg(long, num_args = 4, value_names = ["SX", "SY", "GX", "GY"], allow_negative_numbers = true)]
    path: Option<Vec<f64>>,
    /// Maps: the planner for `--path` (`.map`: grid, the default, quadtree,
    /// or visgraph over the traced cells; polygon maps: visgraph only).
    #[arg(long, value_enum)]
    backend: Option<Backend>,
    /// Polygon maps: the vehicle's clearance radius, in the map's units
    /// (obstacles grow and containers shrink by it; default 0).
    #[arg(long, value_name = "M", allow_negative_numbers = true)]
    clearance: Option<f64>,
    /// Profiles: units to spawn (overrides `scenario.units`).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..=i64::from(u32::MAX)))]
    units: Option<i64>,
    /// Profiles: worker threads (default one per core; the picture is the
    /// same whatever the count).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..=1024))]
    threads: Option<i64>,
    /// Draw only the world window XMIN..XMAX × YMIN..YMAX (metres for
    /// profiles, cells for `.map` files, the map's units for polygon maps)
    /// instead of the whole world.
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
    convoy_scenarios::build(profile, threads)
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
    if args.clearance.is_some() && !matches!(is_map, Some("json" | "mesh")) {
        return Err(CliError::Setup(
            "--clearance applies to polygon maps (`.json`, `.mesh`), not to `.map` files or profiles"
                .to_owned(),
        ));
    }
    let document = match is_map {
        Some("map") => render_map(args, &selected)?,
        Some(extension @ ("json" | "mesh")) => render_polygon(args, &selected, extension)?,
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
            "--path needs a map (`.map`, `.json` or `.mesh`), not a profile".to_owned(),
        ));
    }
    let (mut profile, source) = load_profile(args.input.as_deref())?;
    let mut sim = build_sim(&mut profile, &source, args.units, args.threads)?;
    let ticks = args.tick.unwrap_or(0);
    let mut orders = convoy_scenarios::Orders::new(&profile, &sim);
    let mut ordered = |sim: &mut convoy::Sim| {
        orders
            .before_step(sim)
            .map_err(|error| CliError::Setup(format!("{source}: {error}")))
    };
    for _ in 1..ticks {
        ordered(&mut sim)?;
        sim.step(profile.run.dt);
    }
    if ticks > 0 {
        ordered(&mut sim)?;
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
        ..Scene::default()
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
    let backend = args.backend.unwrap_or(Backend::Grid);
    let path = args.input.as_deref().unwrap_or(Path::new(""));
    // The loader's errors name the file and line.
    let map = load_map(path).map_err(|error| CliError::Setup(error.to_string()))?;
    let grid = CostGrid::new(&map, Mobility::GROUND)
        .map_err(|error| CliError::Setup(error.to_string()))?;
    // The quadtree layer is drawn by default only for the quadtree backend.
    let wants_tree = backend == Backend::Quadtree
        || (args.layers.is_some() && selected.iter().any(|layer| layer.name == "quadtree"));
    let tree = wants_tree
        .then(|| Quadtree::new(&grid))
        .transpose()
        .map_err(|error| CliError::Setup(error.to_string()))?;
    // As `convoy-bench scen` does: the passable cells traced to polygons
    // (cell (x, y) covers [x, x+1] × [y, y+1]), no swamp costs.
    let nav = (backend == Backend::Visgraph).then(|| {
        let graph = VisGraph::build_on(trace_grid(&grid), &[], &[], GraphConfig::default());
        PolygonNavigator::from_graph(graph, 1)
    });
    let query = match args.path.as_deref() {
        Some(&[sx, sy, gx, gy]) => {
            let (start, goal) = (cell(sx, sy)?, cell(gx, gy)?);
            Some(match &nav {
                Some(nav) => plan_traced(&grid, nav, start, goal)?,
                None => {
                    let tree = tree.as_ref().filter(|_| backend == Backend::Quadtree);
                    plan(&grid, tree, start, goal)?
                }
            })
        }
        _ => None,
    };
    let title = match &query {
        Some(query) => format!(
            "{}: {:?} path ({}, {}) to ({}, {})",
            path.display(),
            backend,
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
        map: Some(MapScene {
            map,
            tree,
            nav,
            query,
        }),
        ..Scene::default()
    };
    draw(&scene, view, selected, &title, "cells")
}

/// A `--path` cell of a `.map`: whole, non-negative coordinates.
fn cell(x: f64, y: f64) -> Result<Cell, CliError> {
    let whole = |v: f64| v.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&v);
    if whole(x) && whole(y) {
        Ok(Cell::new(x as u32, y as u32))
    } else {
        Err(CliError::Setup(format!(
            "--path: cells of a `.map` have whole coordinates from 0 to {}, was ({x}, {y})",
            u32::MAX
        )))
    }
}

/// A polygon map (`.json` or `.mesh`), its visibility graph at
/// `--clearance`, and the `--path` query faction 0 plans on it.
fn render_polygon(
    args: &RenderArgs,
    selected: &[&Layer],
    extension: &str,
) -> Result<String, CliError> {
    if args.tick.is_some() || args.units.is_some() {
        return Err(CliError::Setup(
            "--tick and --units apply to profiles, not to polygon maps".to_owned(),
        ));
    }
    if let Some(backend @ (Backend::Grid | Backend::Quadtree)) = args.backend {
        return Err(CliError::Setup(format!(
            "--backend {}: polygon maps (`.json`, `.mesh`) are planned by the visibility graph; use --backend visgraph",
            backend_name(backend)
        )));
    }
    let path = args.input.as_deref().unwrap_or(Path::new(""));
    // The loaders' errors name the file and the line, key or element.
    let map = load_polygon(path, extension)?;
    let config = GraphConfig {
        clearance: args.clearance.unwrap_or(0.0),
        ..GraphConfig::default()
    };
    let nav = PolygonNavigator::build(&map, config, /* factions= */ 1)
        .map_err(|error| CliError::Setup(format!("{}: {error}", path.display())))?;
    let query = match args.path.as_deref() {
        Some(&[sx, sy, gx, gy]) => {
            Some(plan_polygon(&nav, DVec2::new(sx, sy), DVec2::new(gx, gy))?)
        }
        _ => None,
    };
    let title = match &query {
        Some(query) => format!(
            "{}: visgraph path ({}, {}) to ({}, {}), clearance {}",
            path.display(),
            query.start.x,
            query.start.y,
            query.goal.x,
            query.goal.y,
            config.clearance
        ),
        None => format!("{}, clearance {}", path.display(), config.clearance),
    };
    let (min, max) = extent(&map);
    // JSON maps are world coordinates, y north; Polyanya meshes come from
    // grid maps, y down the rows.
    let y_up = extension == "json";
    let view = view(args, min, max, y_up)?;
    let scene = Scene {
        polygon: Some(PolygonScene { map, nav, query }),
        ..Scene::default()
    };
    draw(
        &scene,
        view,
        selected,
        &title,
        if y_up { "m" } else { "units" },
    )
}

fn backend_name(backend: Backend) -> String {
    clap::ValueEnum::to_possible_value(&backend).map_or_else(
        || format!("{backend:?}"),
        |value| value.get_name().to_owned(),
    )
}

fn load_polygon(path: &Path, extension: &str) -> Result<PolygonMap, CliError> {
    let loaded = if extension == "json" {
        load_polygon_map(path).map_err(|error| error.to_string())
    } else {
        load_mesh(path).map_err(|error| error.to_string())
    };
    loaded.map_err(CliError::Setup)
}

/// The box around every container and obstacle.
fn extent(map: &PolygonMap) -> ([f64; 2], [f64; 2]) {
    let points = map.containers.iter().chain(&map.obstacles).flatten();
    let (lo, hi) = points.fold(
        (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    );
    (lo.to_array(), hi.to_array())
}

/// Faction 0's path from `start` to `goal` with the navigator's default
/// options (A*, exact insertion).
fn plan_polygon(
    nav: &PolygonNavigator,
    start: DVec2,
    goal: DVec2,
) -> Result<PolygonQuery, CliError> {
    let mut search = VisSearch::new(nav);
    let mut waypoints = Vec::new();
    let cost = nav
        .find_path_with(
            start,
            goal,
            FactionId(0),
            nav.options(),
            &mut search,
            &mut waypoints,
        )
        .map_err(|error| CliError::Setup(format!("--path: {error}")))?;
    Ok(PolygonQuery {
        start,
        goal,
        waypoints,
        cost,
    })
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
                points: path.points.into_iter().map(centre).collect(),
                length: path.length,
                explored: Some(Explored::Leaves(planner.reached_leaves().collect())),
            })
        }
        None => {
            let mut planner = GridPlanner::for_grid(grid);
            let path = planner.find_path(grid, start, goal).map_err(refused)?;
            Ok(Query {
                start,
                goal,
                points: path.cells.into_iter().map(centre).collect(),
                length: path.length,
                explored: Some(Explored::Cells(planner.reached_cells(grid).collect())),
            })
        }
    }
}

/// A cell's centre, in cells.
fn centre(cell: Cell) -> [f64; 2] {
    [f64::from(cell.x) + 0.5, f64::from(cell.y) + 0.5]
}

/// The visibility-graph path between two cells' centres over the traced
/// grid; the cells must be on the map and passable (the navigator would
/// move a point out of a blocked cell instead).
fn plan_traced(
    grid: &CostGrid,
    nav: &PolygonNavigator,
    start: Cell,
    goal: Cell,
) -> Result<Query, CliError> {
    for (which, cell) in [("start", start), ("goal", goal)] {
        let problem = if !grid.contains(cell) {
            "is outside the map"
        } else if !grid.passable(cell) {
            "is impassable"
        } else {
            continue;
        };
        return Err(CliError::Setup(format!(
            "--path: {which} ({}, {}) {problem}",
            cell.x, cell.y
        )));
    }
    let [sx, sy] = centre(start);
    let [gx, gy] = centre(goal);
    let found = plan_polygon(nav, DVec2::new(sx, sy), DVec2::new(gx, gy))?;
    Ok(Query {
        start,
        goal,
        points: found
            .waypoints
            .iter()
            .map(|p| [f64::from(p.x), f64::from(p.y)])
            .collect(),
        length: found.cost.length,
        explored: None,
    })
}
