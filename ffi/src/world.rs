//! Polygon maps through the C ABI: the map [`crate::ConvoyConfig`]'s
//! `polygon_path` loads (a JSON polygon map or a Polyanya `.mesh`, planned
//! on its visibility graph at a clearance, rasterised for the tick's local
//! checks), obstacle polygons put on it and taken off at run time
//! ([`convoy_add_obstacle`], [`convoy_remove_obstacle`]), and bridges that
//! come and go ([`convoy_add_bridge`], [`convoy_remove_bridge`]). Each of
//! the four refuses an open field or a grid map with
//! `CONVOY_NOT_A_POLYGON_MAP`.

use std::path::Path;
use std::sync::Arc;

use convoy::glam::DVec2;
use convoy::nav::clearance::MAX_CLEARANCE;
use convoy::nav::polygon::{MeshError, PolygonFileError, load_mesh, load_polygon_map, rasterize};
use convoy::nav::visgraph::BuildError;
use convoy::nav::{GraphConfig, ObstacleError, ObstacleId, PolygonNavigator};
use convoy::{BridgeSpec, FactionId, Map};

use crate::status::{ConvoyStatus, Failure};
use crate::units::read_points;
use crate::{ConvoyConfig, ConvoySim, with_sim_mut};

/// A bridge for [`convoy_add_bridge`]: two ends on land and the middle of
/// its deck over whatever it spans (`BridgeSpec`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConvoyBridgeSpec {
    /// Its id, unique among the map's bridges (removed ones included).
    pub id: u32,
    /// The first end, x (inside a container of the map).
    pub end0_x: f32,
    /// The first end, y.
    pub end0_y: f32,
    /// The middle of the deck, x.
    pub middle_x: f32,
    /// The middle of the deck, y.
    pub middle_y: f32,
    /// The second end, x (inside a container of the map).
    pub end1_x: f32,
    /// The second end, y.
    pub end1_y: f32,
}

/// The polygon map at `path` (a Polyanya `.mesh` by its extension, a JSON
/// polygon map otherwise) as `config` describes it: planned on at
/// `clearance` by `factions` sides, rasterised at `cell_size`.
pub(crate) fn polygon_map(path: &str, config: &ConvoyConfig) -> Result<Map, Failure> {
    let clearance = f64::from(config.clearance);
    if !(0.0..=MAX_CLEARANCE).contains(&clearance) {
        return Err(Failure::bad(format!(
            "config `clearance` must be between 0 and {MAX_CLEARANCE} metres, was {}",
            config.clearance
        )));
    }
    if config.factions == 0 {
        return Err(Failure::bad(
            "config `factions` must be at least 1 with a `polygon_path`, was 0",
        ));
    }
    let map = if Path::new(path).extension().is_some_and(|ext| ext == "mesh") {
        load_mesh(path).map_err(|error| {
            let io = matches!(error, MeshError::Io { .. });
            file_failure(error.to_string(), io)
        })?
    } else {
        load_polygon_map(path).map_err(|error| {
            let io = matches!(error, PolygonFileError::Io { .. });
            file_failure(error.to_string(), io)
        })?
    };
    let graph = GraphConfig {
        clearance,
        ..GraphConfig::default()
    };
    let navigator =
        PolygonNavigator::build(&map, graph, config.factions).map_err(|error| match error {
            BuildError::Clearance(error) => Failure::bad(format!("config `clearance`: {error}")),
            other => Failure::new(ConvoyStatus::ConvoyBadMap, format!("{path}: {other}")),
        })?;
    let raster = rasterize(&map, config.cell_size)
        .map_err(|error| Failure::bad(format!("config `cell_size`: {error}")))?;
    Ok(Map::Polygon {
        navigator: Arc::new(navigator),
        raster: Arc::new(raster),
    })
}

/// A polygon-map file that could not be loaded: unreadable (`io`), or
/// malformed.
fn file_failure(message: String, io: bool) -> Failure {
    let status = if io {
        ConvoyStatus::ConvoyIo
    } else {
        ConvoyStatus::ConvoyBadMap
    };
    Failure::new(status, message)
}

/// The refusal of a world without a polygon map.
fn not_a_polygon_map() -> Failure {
    Failure::new(
        ConvoyStatus::ConvoyNotAPolygonMap,
        ObstacleError::NotAPolygonMap.to_string(),
    )
}

/// Refuses a `Sim` without a polygon map.
fn require_polygon_map(handle: &ConvoySim) -> Result<(), Failure> {
    match handle.sim.config().map.polygon() {
        Some(_) => Ok(()),
        None => Err(not_a_polygon_map()),
    }
}

/// Puts an obstacle on the polygon map: the simple ring of `count` points
/// (at least three, the closing edge implied) at `points_xy[2k]`,
/// `points_xy[2k+1]`, and writes its id to `*out`. Routes are planned
/// around it at the map's clearance, ground units on raster cells it walls
/// move out (`CONVOY_EVENT_DISPLACED` in the next step's events), and
/// units and platoons whose route crosses it replan. A point NaN, infinite
/// or off the map, crossing edges, no area, or a polygon that leaves no
/// free space is `CONVOY_BAD_ARGUMENT`, with nothing changed. Between
/// steps; it allocates (the planner's graph and the raster are rebuilt).
/// Snapshots carry it.
///
/// # Safety
/// `sim` is NULL or live; `points_xy` is NULL or points to `2 * count`
/// readable floats; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_add_obstacle(
    sim: *mut ConvoySim,
    points_xy: *const f32,
    count: usize,
    out: *mut u32,
) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        let out = unsafe { out.as_mut() }.ok_or_else(|| Failure::null("out"))?;
        let polygon = unsafe { read_points(points_xy, count, ["points_xy", "count"]) }?;
        require_polygon_map(handle)?;
        let id = handle
            .sim
            .add_obstacle(&polygon)
            .map_err(obstacle_failure)?;
        *out = id.0;
        Ok(())
    })
}

/// Takes the obstacle `id` (from [`convoy_add_obstacle`]) off the polygon
/// map; units whose goal it kept out of reach go on. An unknown id is
/// `CONVOY_BAD_ARGUMENT`. Between steps; it allocates.
///
/// # Safety
/// `sim` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_remove_obstacle(sim: *mut ConvoySim, id: u32) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        require_polygon_map(handle)?;
        handle
            .sim
            .remove_obstacle(ObstacleId(id))
            .map_err(obstacle_failure)
    })
}

/// Adds the bridge `*spec` to the polygon map, known at once to the
/// `count` factions `known_to` (each below `ConvoyConfig::factions`); the
/// raster's cells under its deck open. Solo units plan as faction 0,
/// platoons as their spec's faction. A used id, a point that is not
/// finite, or an unknown faction is `CONVOY_BAD_ARGUMENT`, with nothing
/// changed. Between steps; it allocates. A snapshot restores only into a
/// world with the same bridges and beliefs.
///
/// # Safety
/// `sim` is NULL or live; `spec` is NULL or readable; `known_to` is NULL
/// or points to `count` readable faction ids.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_add_bridge(
    sim: *mut ConvoySim,
    spec: *const ConvoyBridgeSpec,
    known_to: *const u16,
    count: usize,
) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        let spec = unsafe { spec.as_ref() }.ok_or_else(|| Failure::null("spec"))?;
        let factions = unsafe { read_factions(known_to, count) }?;
        require_polygon_map(handle)?;
        let point = |x: f32, y: f32| DVec2::new(f64::from(x), f64::from(y));
        let spec = BridgeSpec {
            id: spec.id,
            ends: [
                point(spec.end0_x, spec.end0_y),
                point(spec.end1_x, spec.end1_y),
            ],
            middle: point(spec.middle_x, spec.middle_y),
        };
        handle.sim.add_bridge(spec, &factions).map_err(Failure::bad)
    })
}

/// Takes bridge `id` out of the world (blown up, taken down): only the
/// `count` factions `known_to` know at once and plan around it. Platoons
/// of other factions still plan over it, and replan when they come to it
/// and find it gone; solo units plan as faction 0. The raster's deck cells
/// get back the terrain below. An unknown bridge or faction is
/// `CONVOY_BAD_ARGUMENT`, with nothing changed. Between steps; it
/// allocates. A snapshot restores only into a world with the same bridges
/// and beliefs.
///
/// # Safety
/// `sim` is NULL or live; `known_to` is NULL or points to `count` readable
/// faction ids.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_remove_bridge(
    sim: *mut ConvoySim,
    id: u32,
    known_to: *const u16,
    count: usize,
) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        let factions = unsafe { read_factions(known_to, count) }?;
        require_polygon_map(handle)?;
        handle
            .sim
            .remove_bridge(id, &factions)
            .map_err(Failure::bad)
    })
}

/// The `count` faction ids behind `known_to` (NULL only when 0).
///
/// # Safety
/// `known_to` is NULL or points to `count` readable ids.
unsafe fn read_factions(known_to: *const u16, count: usize) -> Result<Vec<FactionId>, Failure> {
    match count {
        0 => Ok(Vec::new()),
        _ if known_to.is_null() => Err(Failure::null("known_to")),
        _ => Ok(unsafe { std::slice::from_raw_parts(known_to, count) }
            .iter()
            .map(|&faction| FactionId(faction))
            .collect()),
    }
}

/// An obstacle edit the kernel refused.
fn obstacle_failure(error: ObstacleError) -> Failure {
    match error {
        ObstacleError::NotAPolygonMap => not_a_polygon_map(),
        other => Failure::bad(other),
    }
}
