//! Seeded scenarios: the units a profile describes, and the world around
//! them. Shared by the `convoy-bench` runner, the tests and the benches, so
//! all three measure the same thing.

use glam::Vec2;

use std::sync::Arc;

use crate::nav::polygon::{load_mesh, load_polygon_map};
use crate::nav::{Cell, GraphConfig, Mobility, PolygonNavigator, WorldMap, load_map};
use crate::profile::{KindMix, Layout, Profile, ScenarioSection};
use crate::random::unit_f32;
use crate::sim::{ConfigError, Sim, SimConfig};
use crate::spatial::Bounds;
use crate::vehicles::{UnitSpec, VehicleKind};

/// Random streams, so each choice draws independent numbers.
const KIND_STREAM: u64 = 1;
const JITTER_X_STREAM: u64 = 2;
const JITTER_Y_STREAM: u64 = 3;
const SPEED_STREAM: u64 = 4;
const CELL_X_STREAM: u64 = 5;
const CELL_Y_STREAM: u64 = 6;
/// Random cells tried per open-cell draw before scanning for one.
const CELL_ATTEMPTS: u64 = 64;

/// The units of a scenario, before they join a world.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// One spec per unit.
    pub units: Vec<UnitSpec>,
    /// The rectangle holding every spawn point and goal.
    pub extent: Bounds,
}

/// Places the units of `scenario` with random choices drawn from `seed`,
/// on `map` when the layout needs one (profile validation guarantees it).
#[must_use]
pub fn place(scenario: &ScenarioSection, seed: u64, map: Option<&WorldMap>) -> Placement {
    match (scenario.layout, map) {
        (Layout::Scatter, Some(map)) => scatter(scenario, seed, map),
        _ => crossing(scenario, seed),
    }
}

/// Each unit on a random open cell, bound for a random open cell it can
/// reach (flyers: any open cell).
fn scatter(scenario: &ScenarioSection, seed: u64, map: &WorldMap) -> Placement {
    let units = (0..u64::from(scenario.units))
        .map(|index| {
            let kind = pick_kind(&scenario.mix, unit_f32(seed, KIND_STREAM, index));
            let start = open_cell(map, seed, 2 * index, |_| true);
            let flies = kind.handling().flies;
            let goal = open_cell(map, seed, 2 * index + 1, |cell| {
                flies || map.grid().connected(start, cell)
            });
            let mut spec = UnitSpec::new(kind, map.centre_of(start));
            spec.goal = map.centre_of(goal);
            spec.heading = std::f32::consts::TAU * unit_f32(seed, JITTER_X_STREAM, index);
            spec.max_speed *= 0.9 + 0.2 * unit_f32(seed, SPEED_STREAM, index);
            spec
        })
        .collect();
    Placement {
        units,
        extent: map.bounds(),
    }
}

/// A random passable cell for which `wanted` holds: random draws first,
/// then a scan from the last draw (so it always ends on a map with one).
fn open_cell(map: &WorldMap, seed: u64, draw: u64, wanted: impl Fn(Cell) -> bool) -> Cell {
    let grid = map.grid();
    let (width, height) = (grid.width(), grid.height());
    let fits = |cell: Cell| grid.passable(cell) && wanted(cell);
    let mut cell = Cell::new(0, 0);
    for attempt in 0..CELL_ATTEMPTS {
        let stream = draw * CELL_ATTEMPTS + attempt;
        let x = (unit_f32(seed, CELL_X_STREAM, stream) * width as f32) as u32;
        let y = (unit_f32(seed, CELL_Y_STREAM, stream) * height as f32) as u32;
        cell = Cell::new(x.min(width - 1), y.min(height - 1));
        if fits(cell) {
            return cell;
        }
    }
    let cells = grid.cell_count() as u64;
    let first = u64::from(cell.y) * u64::from(width) + u64::from(cell.x);
    (0..cells)
        .map(|step| {
            let index = (first + step) % cells;
            Cell::new(
                (index % u64::from(width)) as u32,
                (index / u64::from(width)) as u32,
            )
        })
        .find(|&cell| fits(cell))
        .unwrap_or(cell)
}

/// Two square blocks `gap_m` apart on the x axis; each unit is bound for its
/// mirror image in the other block.
fn crossing(scenario: &ScenarioSection, seed: u64) -> Placement {
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
    Placement {
        units,
        extent: Bounds::new(-reach, reach),
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

/// The visibility graph of the profile's polygon map, if it has one.
fn polygon_navigator(profile: &Profile) -> Result<Option<Arc<PolygonNavigator>>, ConfigError> {
    let Some((section, file)) = profile
        .map
        .as_ref()
        .and_then(|section| Some((section, section.polygon.as_ref()?)))
    else {
        return Ok(None);
    };
    let polygons = if file.extension().is_some_and(|ext| ext == "mesh") {
        load_mesh(file).map_err(|error| ConfigError::Polygon(error.to_string()))?
    } else {
        load_polygon_map(file).map_err(|error| ConfigError::Polygon(error.to_string()))?
    };
    let config = GraphConfig {
        clearance: section.clearance_m,
        road_cost_factor: section.road_cost_factor,
    };
    let nav = PolygonNavigator::build(&polygons, config, 1)
        .map_err(|error| ConfigError::Polygon(format!("{}: {error}", file.display())))?;
    Ok(Some(Arc::new(nav)))
}

/// The `Sim` a profile describes, with its units spawned, on `threads`
/// threads.
pub fn build(profile: &Profile, threads: usize) -> Result<Sim, ConfigError> {
    let polygon = polygon_navigator(profile)?;
    let map = match profile
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
    let placement = place(&profile.scenario, profile.run.seed, map.as_deref());
    let margin = Vec2::splat(profile.world.margin_m);
    let config = SimConfig {
        threads,
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
        polygon,
    };
    let planned = config.map.is_some() || config.polygon.is_some();
    let mut sim = Sim::new(config)?;
    sim.reserve(placement.units.len());
    for spec in &placement.units {
        let order = spec.goal;
        let spec = UnitSpec {
            steer_mode: profile.steering.mode,
            goal: if planned { spec.position } else { spec.goal },
            ..*spec
        };
        let unit = sim
            .spawn(&spec)
            .expect("scenario specs come from validated profile values");
        if planned {
            // On a map the goal is an order: the `paths` stage plans it.
            sim.order_move(unit, order)?;
        }
    }
    Ok(sim)
}
