//! Seeded scenarios: the units a profile describes, and the world around
//! them. Shared by the `convoy-bench` runner, the tests and the benches, so
//! all three measure the same thing.

use glam::Vec2;

use std::sync::Arc;

use convoy::nav::polygon::{load_mesh, load_polygon_map, rasterize};
use convoy::nav::{
    Cell, GraphConfig, GridPlanner, MapError, Mobility, PolygonNavigator, WorldMap, WorldMapError,
    load_map,
};
use convoy::random::unit_f32;
use convoy::{
    Bounds, ConfigError, FactionAvoidance, GroupPace, Map, OrderError, PlatoonError, Sim,
    SimConfig, SpawnError, UnitSpec, UnreachableGoals, VehicleKind,
};
use thiserror::Error;

use crate::profile::{KindMix, Layout, PlatoonsSection, Profile, ScenarioSection};

/// A profile whose world cannot be built.
#[derive(Debug, Error)]
pub enum BuildError {
    /// The `Sim` refused its configuration.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The map file cannot be loaded.
    #[error(transparent)]
    Map(#[from] MapError),
    /// The grid map cannot be placed in the world (its cell size or
    /// origin is out of range).
    #[error("map: {0}")]
    World(#[from] WorldMapError),
    /// The polygon map cannot be loaded or its graph built (the message
    /// names the file and the element).
    #[error("polygon map: {0}")]
    Polygon(String),
    /// A scenario's move order was refused.
    #[error("scenario order refused: {0}")]
    Order(#[from] OrderError),
    /// A scenario's platoon was refused.
    #[error("scenario platoon refused: {0}")]
    Platoon(#[from] PlatoonError),
    /// A unit the layout placed was refused (such as a `crossing` layout's
    /// unit on a map's blocked ground).
    #[error("scenario unit refused: {0}")]
    Spawn(#[from] SpawnError),
}

/// Random streams, so each choice draws independent numbers.
const KIND_STREAM: u64 = 1;
const JITTER_X_STREAM: u64 = 2;
const JITTER_Y_STREAM: u64 = 3;
const SPEED_STREAM: u64 = 4;
const CELL_X_STREAM: u64 = 5;
const CELL_Y_STREAM: u64 = 6;
/// Random streams of a goal drawn within an order range.
pub(crate) const ORDER_STREAMS: (u64, u64) = (7, 8);
/// Random cells tried per open-cell draw before scanning for one.
const CELL_ATTEMPTS: u64 = 64;

/// The units of a scenario, before they join a world.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// One spec per unit.
    pub units: Vec<UnitSpec>,
    /// The rectangle holding every spawn point and goal.
    pub extent: Bounds,
    /// The units of each platoon (indices into `units`, lead first), when
    /// the profile has `[platoons]`; a platoon's goal is its lead's.
    pub platoons: Vec<Vec<usize>>,
}

/// Places the units of `scenario` with random choices drawn from `seed`,
/// on `map` when the layout needs one (profile validation guarantees it),
/// grouped as `platoons` says.
#[must_use]
pub fn place(
    scenario: &ScenarioSection,
    platoons: &PlatoonsSection,
    seed: u64,
    map: Option<&WorldMap>,
) -> Placement {
    match (scenario.layout, map) {
        (Layout::Scatter, Some(map)) => scatter(scenario, platoons, seed, map),
        _ => crossing(scenario, platoons.size as usize, seed),
    }
}

/// Each unit (or each platoon's lead, its members in their slots round
/// it) on a random open cell, bound for a random open cell it can reach
/// (flyers: any open cell).
fn scatter(
    scenario: &ScenarioSection,
    platoons: &PlatoonsSection,
    seed: u64,
    map: &WorldMap,
) -> Placement {
    let size = (platoons.size as usize).max(1);
    let mut units = Vec::with_capacity(scenario.units as usize);
    let mut groups = Vec::new();
    let mut lead = UnitSpec::new(VehicleKind::Tracked, Vec2::ZERO);
    let mut planner = GridPlanner::new();
    for index in 0..u64::from(scenario.units) {
        let kind = pick_kind(&scenario.mix, unit_f32(seed, KIND_STREAM, index));
        let slot = index as usize % size;
        let mut spec = if slot == 0 {
            let start = open_cell(map, seed, 2 * index, |_| true);
            let flies = kind.handling().flies;
            let goal = if platoons.order_range_m > 0.0 {
                let from = map.centre_of(start);
                goal_within(
                    map,
                    &mut planner,
                    (seed, index),
                    from,
                    platoons.order_range_m,
                )
            } else {
                map.centre_of(open_cell(map, seed, 2 * index + 1, |cell| {
                    flies || map.grid().connected(start, cell)
                }))
            };
            let mut spec = UnitSpec::new(kind, map.centre_of(start));
            spec.goal = goal;
            spec.heading = std::f32::consts::TAU * unit_f32(seed, JITTER_X_STREAM, index);
            if platoons.size > 0 {
                groups.push(Vec::with_capacity(size));
            }
            lead = spec;
            spec
        } else {
            // In its slot round the lead, or on the lead's cell if that is
            // blocked (separation spreads them).
            let offset = platoons.formation.offset(slot) * platoons.spacing_m;
            let wanted = lead.position + Vec2::from_angle(lead.heading).rotate(offset);
            let open = map.cell_at(wanted).is_some_and(|cell| {
                map.grid().passable(cell) && map.segment_is_clear(lead.position, wanted)
            });
            let mut spec = UnitSpec::new(kind, if open { wanted } else { lead.position });
            spec.goal = lead.goal;
            spec.heading = lead.heading;
            spec
        };
        spec.max_speed *= 0.9 + 0.2 * unit_f32(seed, SPEED_STREAM, index);
        if platoons.size > 0 {
            groups
                .last_mut()
                .expect("a lead came first")
                .push(units.len());
        }
        units.push(spec);
    }
    Placement {
        units,
        extent: map.bounds(),
        platoons: groups,
    }
}

/// A random passable cell for which `wanted` holds: random draws first,
/// then a scan from the last draw (so it always ends on a map with one).
fn open_cell(map: &WorldMap, seed: u64, draw: u64, wanted: impl Fn(Cell) -> bool) -> Cell {
    let grid = map.grid();
    let fits = |cell: Cell| grid.passable(cell) && wanted(cell);
    let mut cell = Cell::new(0, 0);
    for attempt in 0..CELL_ATTEMPTS {
        let stream = draw * CELL_ATTEMPTS + attempt;
        cell = random_cell(map, seed, (CELL_X_STREAM, CELL_Y_STREAM), stream);
        if fits(cell) {
            return cell;
        }
    }
    scan_from(map, cell, fits)
}

/// A player's click near a unit: a point drawn uniformly from the disc of
/// `range_m` round `from`, from `(seed, ORDER_STREAMS, draw)`, moved to
/// the centre of the nearest open cell of `from`'s region. A click whose
/// shortest path is longer than [`PATH_RANGE_FACTOR`] × `range_m` (near as
/// the crow flies, far round a wall) is drawn again, up to [`CLICK_DRAWS`]
/// times; then the click with the shortest path is taken.
pub(crate) fn goal_within(
    map: &WorldMap,
    planner: &mut GridPlanner,
    (seed, draw): (u64, u64),
    from: Vec2,
    range_m: f32,
) -> Vec2 {
    let Some(region) = map.cell_at(from).and_then(|cell| map.grid().region(cell)) else {
        return from;
    };
    let (x_stream, y_stream) = ORDER_STREAMS;
    let mut best = (f64::INFINITY, from);
    for attempt in 0..CLICK_DRAWS {
        let draw = draw.wrapping_mul(CLICK_DRAWS).wrapping_add(attempt);
        let angle = std::f32::consts::TAU * unit_f32(seed, x_stream, draw);
        let reach = range_m * unit_f32(seed, y_stream, draw).sqrt();
        let click = from + Vec2::from_angle(angle) * reach;
        let Some(goal) = map.nearest_open_in_region(click, region) else {
            continue;
        };
        let length = shortest_length(planner, map, from, goal);
        if length <= f64::from(PATH_RANGE_FACTOR * range_m) {
            return goal;
        }
        if length < best.0 {
            best = (length, goal);
        }
    }
    best.1
}

/// A click's path may be at most this many times the order range.
pub const PATH_RANGE_FACTOR: f32 = 2.0;
/// Clicks drawn before the one with the shortest path is taken.
const CLICK_DRAWS: u64 = 8;

/// The shortest path's length from `start` to `goal` on `map`: the grid
/// path pulled taut by line of sight, or the straight line where no path
/// joins them.
pub(crate) fn shortest_length(
    planner: &mut GridPlanner,
    map: &WorldMap,
    start: Vec2,
    goal: Vec2,
) -> f64 {
    let straight = f64::from(start.distance(goal));
    let (Some(from), Some(to)) = (map.cell_at(start), map.cell_at(goal)) else {
        return straight;
    };
    let Ok(path) = planner.find_path(map.grid(), from, to) else {
        return straight;
    };
    let mut corners = Vec::new();
    if !map.corners_into(&path, goal, &mut corners) {
        // Cut at the route's corner limit: the grid path's own length.
        return path.length * f64::from(map.cell_size());
    }
    let mut length = 0.0;
    let mut at = start;
    for corner in corners {
        length += f64::from(at.distance(corner));
        at = corner;
    }
    length.max(straight)
}

/// A cell drawn uniformly from `(seed, streams, draw)`.
pub(crate) fn random_cell(
    map: &WorldMap,
    seed: u64,
    (x_stream, y_stream): (u64, u64),
    draw: u64,
) -> Cell {
    let (width, height) = (map.grid().width(), map.grid().height());
    let x = (unit_f32(seed, x_stream, draw) * width as f32) as u32;
    let y = (unit_f32(seed, y_stream, draw) * height as f32) as u32;
    Cell::new(x.min(width - 1), y.min(height - 1))
}

/// The first cell for which `fits` holds, scanning row by row from
/// `first` (wrapping round); `first` if none does.
pub(crate) fn scan_from(map: &WorldMap, first: Cell, fits: impl Fn(Cell) -> bool) -> Cell {
    let width = u64::from(map.grid().width());
    let cells = map.grid().cell_count() as u64;
    let start = u64::from(first.y) * width + u64::from(first.x);
    (0..cells)
        .map(|step| {
            let index = (start + step) % cells;
            Cell::new((index % width) as u32, (index / width) as u32)
        })
        .find(|&cell| fits(cell))
        .unwrap_or(first)
}

/// Two square blocks `gap_m` apart on the x axis; each unit is bound for its
/// mirror image in the other block. Platoons of `platoon_size` are
/// neighbours in one block.
fn crossing(scenario: &ScenarioSection, platoon_size: usize, seed: u64) -> Placement {
    let count = scenario.units as usize;
    let spacing = scenario.area_per_unit_m2.sqrt();
    let per_block = count.div_ceil(2);
    let columns = (per_block as f32).sqrt().ceil() as usize;
    let side = columns as f32 * spacing;
    let half_span = scenario.gap_m / 2.0 + side;
    let units = (0..count)
        .map(|unit| {
            let index = unit as u64;
            let local = unit / 2;
            let (column, row) = ((local % columns) as f32, (local / columns) as f32);
            let jitter = Vec2::new(
                unit_f32(seed, JITTER_X_STREAM, index) - 0.5,
                unit_f32(seed, JITTER_Y_STREAM, index) - 0.5,
            ) * (0.5 * spacing);
            // Even units start west and go east; odd units the reverse.
            let side_sign = if unit % 2 == 0 { -1.0 } else { 1.0 };
            let x = side_sign * (scenario.gap_m / 2.0 + (column + 0.5) * spacing);
            let y = (row + 0.5) * spacing - side / 2.0;
            let start = Vec2::new(x, y) + jitter;
            let kind = pick_kind(&scenario.mix, unit_f32(seed, KIND_STREAM, index));
            let mut spec = UnitSpec::new(kind, start);
            spec.goal = Vec2::new(-start.x, start.y);
            spec.heading = if side_sign < 0.0 {
                0.0
            } else {
                std::f32::consts::PI
            };
            spec.max_speed *= 0.9 + 0.2 * unit_f32(seed, SPEED_STREAM, index);
            spec
        })
        .collect();
    let reach = Vec2::new(half_span + spacing, side / 2.0 + spacing);
    // Unit `2 × local + side` is the `local`-th of its block.
    let platoons = if platoon_size == 0 {
        Vec::new()
    } else {
        (0..2)
            .flat_map(|side| {
                let locals: Vec<usize> = (0..per_block)
                    .map(|local| 2 * local + side)
                    .filter(|&unit| unit < count)
                    .collect();
                locals
                    .chunks(platoon_size)
                    .map(<[usize]>::to_vec)
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    Placement {
        units,
        extent: Bounds::new(-reach, reach),
        platoons,
    }
}

/// The kind whose cumulative weight first exceeds `draw` (in `[0, 1)`).
fn pick_kind(mix: &KindMix, draw: f32) -> VehicleKind {
    let weights = mix.weights();
    let total: f32 = weights.iter().map(|&(_, weight)| weight).sum();
    let mut threshold = draw * total;
    for (kind, weight) in weights {
        if threshold < weight {
            return kind;
        }
        threshold -= weight;
    }
    weights
        .iter()
        .rev()
        .find(|&&(_, weight)| weight > 0.0)
        .map_or(VehicleKind::Tracked, |&(kind, _)| kind)
}

/// The profile's polygon map, if it has one: its visibility graph, and its
/// raster for the tick's local checks.
type PolygonTerrain = (Arc<PolygonNavigator>, Arc<WorldMap>);

fn polygon_terrain(profile: &Profile) -> Result<Option<PolygonTerrain>, BuildError> {
    let Some((section, file)) = profile
        .map
        .as_ref()
        .and_then(|section| Some((section, section.polygon.as_ref()?)))
    else {
        return Ok(None);
    };
    let polygons = if file.extension().is_some_and(|ext| ext == "mesh") {
        load_mesh(file).map_err(|error| BuildError::Polygon(error.to_string()))?
    } else {
        load_polygon_map(file).map_err(|error| BuildError::Polygon(error.to_string()))?
    };
    let config = GraphConfig {
        clearance: section.clearance_m,
        road_cost_factor: section.road_cost_factor,
    };
    let in_file =
        |error: &dyn std::fmt::Display| BuildError::Polygon(format!("{}: {error}", file.display()));
    let nav = PolygonNavigator::build(&polygons, config, 1).map_err(|e| in_file(&e))?;
    let raster = rasterize(&polygons, section.cell_size_m).map_err(|e| in_file(&e))?;
    Ok(Some((Arc::new(nav), Arc::new(raster))))
}

/// The `Sim` a profile describes, with its units spawned, on `threads`
/// threads.
pub fn build(profile: &Profile, threads: usize) -> Result<Sim, BuildError> {
    let polygon = polygon_terrain(profile)?;
    let grid_map = match profile
        .map
        .as_ref()
        .and_then(|section| Some((section, section.file.as_ref()?)))
    {
        Some((section, file)) => {
            let grid = load_map(file)?;
            let origin = Vec2::from(section.origin_m);
            Some(Arc::new(WorldMap::new(
                &grid,
                Mobility::GROUND,
                origin,
                section.cell_size_m,
            )?))
        }
        None => None,
    };
    let map = match (polygon, grid_map) {
        (Some((navigator, raster)), _) => Map::Polygon { navigator, raster },
        (None, Some(map)) => Map::Grid(map),
        (None, None) => Map::Open,
    };
    let placement = place(
        &profile.scenario,
        &profile.platoons,
        profile.run.seed,
        map.grid(),
    );
    let margin = Vec2::splat(profile.world.margin_m);
    let config = SimConfig {
        threads,
        pool: None,
        bounds: Bounds::new(placement.extent.min - margin, placement.extent.max + margin),
        cell_size: profile.world.cell_size_m,
        neighbour_radius: profile.world.neighbour_radius_m,
        budgets: profile.budget.budgets(),
        max_path_requests_per_tick: profile.paths.max_requests_per_tick as usize,
        max_path_nodes_per_tick: profile.paths.max_expanded_nodes_per_tick,
        separation_iterations: profile.separation.iterations,
        reorder_interval: profile.world.reorder_interval_ticks,
        max_dt: profile.run.max_dt,
        bodies: profile.steering.bodies.clone(),
        map,
        mobility_classes: Vec::new(),
        unreachable_goals: UnreachableGoals::MoveToNearest,
        faction_avoidance: FactionAvoidance::Shared,
        group_pace: GroupPace::OwnSpeed,
        points_of_interest: Vec::new(),
    };
    let planned = !matches!(config.map, Map::Open);
    let mut sim = Sim::new(config)?;
    sim.reserve(placement.units.len());
    let mut in_platoon = vec![false; placement.units.len()];
    for &member in placement.platoons.iter().flatten() {
        in_platoon[member] = true;
    }
    let mut ids = Vec::with_capacity(placement.units.len());
    for (spec, &member) in placement.units.iter().zip(&in_platoon) {
        let order = spec.goal;
        let stays = planned || member;
        let spec = UnitSpec {
            steer_mode: profile.steering.mode,
            goal: if stays { spec.position } else { spec.goal },
            ..*spec
        };
        let unit = sim.spawn(&spec)?;
        ids.push(unit);
        if planned && !member {
            // On a map the goal is an order: the `paths` stage plans it.
            sim.order_move(unit, order)?;
        }
    }
    let spec = profile.platoons.spec();
    for group in &placement.platoons {
        let members: Vec<_> = group.iter().map(|&unit| ids[unit]).collect();
        let platoon = sim.create_platoon(&members, &spec)?;
        sim.order_platoon(platoon, placement.units[group[0]].goal, None)?;
    }
    Ok(sim)
}
