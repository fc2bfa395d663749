//! The scenarios on convoy, through its crate-root API only: a [`Sim`] built
//! from [`SimConfig::new`], one [`UnitSpec`] per agent given to
//! [`Sim::spawn`], [`Sim::order_move`] to its goal, [`Sim::step`] each tick,
//! and positions read through `vehicles().row_of` and
//! `vehicles().columns().position()`. Walls become a [`WorldMap`] of 1 m
//! cells (`convoy::nav`), on which convoy plans its own routes.

use std::sync::Arc;
use std::time::Instant;

use convoy::glam::{Vec2, Vec3};
use convoy::nav::{GridMap, Mobility, Terrain, WorldMap};
use convoy::{Bounds, Map, Sim, SimConfig, UnitId, UnitSpec};

use super::metrics::{DT, Outcome, RADIUS_M, TICKS_PER_SECOND, TOP_SPEED, Tracker};
use super::scenarios::Scenario;

/// Edge of a map cell, metres.
const CELL_M: f32 = 1.0;

/// The scenario's walls rasterised: a cell is blocked when its centre lies
/// in a wall. `None` when there are no walls (an open field).
fn world_map(scenario: &Scenario) -> Result<Option<WorldMap>, String> {
    if scenario.walls.is_empty() {
        return Ok(None);
    }
    let size = ((scenario.max - scenario.min) / CELL_M).ceil();
    let (width, height) = (size.x as u32, size.y as u32);
    let mut terrain = Vec::with_capacity(width as usize * height as usize);
    for y in 0..height {
        for x in 0..width {
            let centre = scenario.min + (Vec2::new(x as f32, y as f32) + 0.5) * CELL_M;
            let solid = scenario
                .walls
                .iter()
                .any(|wall| centre.cmpge(wall.min).all() && centre.cmplt(wall.max).all());
            terrain.push(if solid {
                Terrain::Blocked
            } else {
                Terrain::Open
            });
        }
    }
    let grid = GridMap::new(width, height, terrain).map_err(|error| error.to_string())?;
    WorldMap::new(&grid, Mobility::GROUND, scenario.min, CELL_M)
        .map(Some)
        .map_err(|error| error.to_string())
}

/// Runs `scenario` on `threads` workers to its time limit and measures it;
/// an error says what convoy refused.
pub fn run(scenario: &Scenario, threads: usize) -> Result<Outcome, String> {
    let mut config = SimConfig::new(Bounds::new(scenario.min, scenario.max));
    config.threads = threads;
    if let Some(map) = world_map(scenario)? {
        config.map = Map::Grid(Arc::new(map));
    }
    let mut sim = Sim::new(config).map_err(|error| error.to_string())?;
    let mut ids: Vec<UnitId> = Vec::with_capacity(scenario.agents.len());
    for agent in &scenario.agents {
        let mut spec = UnitSpec::new(agent.kind, agent.start);
        spec.max_speed = TOP_SPEED;
        // Round in the ground plane; the kind's own height.
        spec.shield = Vec3::new(RADIUS_M, RADIUS_M, spec.shield.z);
        spec.heading = (agent.goal - agent.start).to_angle();
        let id = sim.spawn(&spec).map_err(|error| error.to_string())?;
        ids.push(id);
    }
    for (agent, &id) in scenario.agents.iter().zip(&ids) {
        sim.order_move(id, agent.goal)
            .map_err(|error| error.to_string())?;
    }
    let starts: Vec<Vec2> = scenario.agents.iter().map(|agent| agent.start).collect();
    let goals: Vec<Vec2> = scenario.agents.iter().map(|agent| agent.goal).collect();
    let flies: Vec<bool> = scenario.agents.iter().map(|agent| agent.flies()).collect();
    let kinds: Vec<&str> = scenario
        .agents
        .iter()
        .map(|agent| agent.kind.name())
        .collect();
    let mut tracker = Tracker::new(&starts, &goals, &flies, &kinds, scenario.min, scenario.max);
    let mut positions = starts;
    let ticks = (scenario.time_limit_s * TICKS_PER_SECOND as f32).round() as u64;
    for _ in 0..ticks {
        let started = Instant::now();
        sim.step(DT);
        let wall_s = started.elapsed().as_secs_f64();
        // Rows move (despawns, the periodic spatial reorder): look each
        // unit up by its handle.
        let vehicles = sim.vehicles();
        let column = vehicles.columns().position();
        for (position, &id) in positions.iter_mut().zip(&ids) {
            let row = vehicles
                .row_of(id)
                .ok_or_else(|| format!("unit {id:?} vanished"))?;
            *position = column[row];
        }
        tracker.record(&positions, wall_s);
    }
    Ok(tracker.finish())
}
