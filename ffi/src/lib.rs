//! A C ABI over the convoy kernel, for engines written in C, C++ or C#
//! (Unity, Unreal, Godot): an opaque [`ConvoySim`] created from a
//! [`ConvoyConfig`], unit handles as `uint64_t` (a `UnitId`'s generation in
//! the high 32 bits, its index in the low), a [`ConvoyStatus`] from every
//! fallible call with a message from [`convoy_last_error_message`], events
//! as an array of plain structs and columns as pointer + length, both
//! borrowed from the `Sim` until the next call that changes it.
//!
//! Calls that take a list of units copy the handles into a buffer the
//! `Sim` keeps, so the C layer allocates nothing of its own once that
//! buffer is as long as the longest list; what the kernel itself allocates
//! (a world edit, a group's spots, a platoon's spot reservations) each
//! call's documentation says.
//!
//! `ffi/include/convoy.h` is generated from these items by cbindgen and
//! checked by `ffi/tests/header_is_current.rs`; `ffi/examples/scene.c`
//! drives a scene through it (`ffi/tests/c_example.rs`). docs/ffi.md is the
//! guide.

use std::ffi::{CStr, c_char};
use std::sync::Arc;

use convoy::glam::Vec2;
use convoy::nav::{MapError, Mobility, WorldMap, load_map};
use convoy::{
    Bounds, ConfigError, FactionAvoidance, GroupPace, Map, QueryHit, Sim, SimConfig, SnapshotError,
    UnitId,
};

mod edits;
mod params;
mod platoons;
mod status;
mod units;
mod views;
mod world;

pub use edits::*;
pub use params::*;
pub use platoons::*;
pub use status::{ConvoyStatus, convoy_last_error_message};
pub use units::*;
pub use views::*;
pub use world::*;

use status::{Failure, guard};
use units::read_points;
use views::collect_events;
use world::polygon_map;

/// What [`convoy_sim_new`] builds a world from; start from
/// [`convoy_config_default`] and change what you need.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ConvoyConfig {
    /// The world's south-west corner (x east, y north), metres.
    pub min_x: f32,
    /// The world's south-west corner, y.
    pub min_y: f32,
    /// The world's north-east corner, x.
    pub max_x: f32,
    /// The world's north-east corner, y.
    pub max_y: f32,
    /// Worker threads (at least 1); 1 steps on the calling thread with no
    /// thread pool at all.
    pub threads: u32,
    /// Every this many ticks rows are reordered into spatial order (an
    /// event says so); 0 never reorders.
    pub reorder_interval: u32,
    /// A Moving AI `.map` file to move on (UTF-8 path, NUL-terminated), or
    /// NULL. With neither this nor `polygon_path` the world is an open
    /// field; setting both is refused.
    pub map_path: *const c_char,
    /// A polygon map to move on (UTF-8 path, NUL-terminated), in world
    /// coordinates: a Polyanya `.mesh` by its extension, else a JSON
    /// polygon map (docs/polygon-maps.md); or NULL. Routes are planned on
    /// its visibility graph (roads at half cost); obstacles and bridges
    /// change at run time (`convoy_add_obstacle`, `convoy_remove_bridge`,
    /// ...).
    pub polygon_path: *const c_char,
    /// The map's cell edge, metres; a polygon map is rasterised at it for
    /// the tick's local checks (lines of sight, formation slots, swamps).
    pub cell_size: f32,
    /// Where the grid map's cell (0, 0) corner lies, x (a polygon map is in
    /// world coordinates).
    pub origin_x: f32,
    /// Where the grid map's cell (0, 0) corner lies, y.
    pub origin_y: f32,
    /// Polygon maps: obstacles grow and containers shrink by this radius
    /// for route planning, metres (0 to 10,000).
    pub clearance: f32,
    /// Polygon maps: how many sides plan over its bridges, each with its
    /// own knowledge of them (faction ids 0 to `factions - 1`; at least 1).
    pub factions: u16,
    /// How group orders' members travel: 0, each at its own top speed; 1,
    /// at the slowest member's (`GroupPace`).
    pub group_pace: u8,
    /// How avoidance is shared between factions: 0, by every movable
    /// neighbour; 1, with the unit's own faction only (`FactionAvoidance`).
    pub faction_avoidance: u8,
    /// Points of interest (cover) platoons' element leaders leapfrog to
    /// (`ConvoyPlatoonSpec::leapfrog_m`): point `k` at
    /// `points_of_interest_xy[2k]`, `[2k+1]`, each within the bounds; NULL
    /// when `points_of_interest_count` is 0. Copied by `convoy_sim_new`.
    pub points_of_interest_xy: *const f32,
    /// How many points `points_of_interest_xy` holds.
    pub points_of_interest_count: usize,
    /// Grid maps: more ways to see the map (the per-unit path filter);
    /// a unit spawned in class `k` (`convoy_spawn_in_class`) plans, steers
    /// and is kept off walls as `mobility_classes[k - 1]` sees the map;
    /// class 0 as ground units do. NULL when `mobility_class_count` is 0.
    /// Copied by `convoy_sim_new`.
    pub mobility_classes: *const ConvoyMobility,
    /// How many classes `mobility_classes` holds (at most 255).
    pub mobility_class_count: usize,
}

/// What a mobility class can cross: each terrain's cost multiplier (at
/// least 1), or 0 where it cannot go. Blocked cells stop every class.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConvoyMobility {
    /// Open ground.
    pub open: f32,
    /// Swamp.
    pub swamp: f32,
    /// Water.
    pub water: f32,
}

/// An opaque simulation: the kernel's `Sim` and the buffers the C API
/// lends out (events, query hits, the last snapshot).
pub struct ConvoySim {
    sim: Sim,
    events: Vec<ConvoyEvent>,
    hits: Vec<QueryHit>,
    snapshot: Vec<u8>,
    /// The handles of the last unit list a call was given, reused.
    units: Vec<UnitId>,
    /// A panic was caught in a call on this `Sim`: its state may be torn.
    poisoned: bool,
}

/// A default configuration: the square from (-1000, -1000) to (1000, 1000)
/// m, one thread, reorder every 32 ticks, an open field, 8 m map cells at
/// (0, 0), no clearance, one faction, groups at their members' own speeds,
/// avoidance shared by all, no points of interest, one mobility class.
#[unsafe(no_mangle)]
pub extern "C" fn convoy_config_default() -> ConvoyConfig {
    ConvoyConfig {
        min_x: -1000.0,
        min_y: -1000.0,
        max_x: 1000.0,
        max_y: 1000.0,
        threads: 1,
        reorder_interval: 32,
        map_path: std::ptr::null(),
        polygon_path: std::ptr::null(),
        cell_size: 8.0,
        origin_x: 0.0,
        origin_y: 0.0,
        clearance: 0.0,
        factions: 1,
        group_pace: 0,
        faction_avoidance: 0,
        points_of_interest_xy: std::ptr::null(),
        points_of_interest_count: 0,
        mobility_classes: std::ptr::null(),
        mobility_class_count: 0,
    }
}

/// Builds a world from `*config` and stores it in `*out` (NULL on
/// failure). Destroy it with [`convoy_sim_free`].
///
/// # Safety
/// `config` is NULL or points to a valid `ConvoyConfig` whose `map_path`
/// and `polygon_path` are each NULL or a NUL-terminated string and whose
/// `points_of_interest_xy` is NULL or points to `2 *
/// points_of_interest_count` readable floats, and whose `mobility_classes`
/// is NULL or points to `mobility_class_count` readable classes; `out` is
/// NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_sim_new(
    config: *const ConvoyConfig,
    out: *mut *mut ConvoySim,
) -> ConvoyStatus {
    guard(|| {
        let out = unsafe { out.as_mut() }.ok_or_else(|| Failure::null("out"))?;
        *out = std::ptr::null_mut();
        let config = unsafe { config.as_ref() }.ok_or_else(|| Failure::null("config"))?;
        let sim = Sim::new(sim_config(config)?).map_err(config_failure)?;
        *out = Box::into_raw(Box::new(ConvoySim {
            sim,
            events: Vec::new(),
            hits: Vec::new(),
            snapshot: Vec::new(),
            units: Vec::new(),
            poisoned: false,
        }));
        Ok(())
    })
}

/// Destroys a world made by [`convoy_sim_new`]; NULL does nothing. Every
/// pointer it lent out dies with it.
///
/// # Safety
/// `sim` is NULL or a pointer from `convoy_sim_new` not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_sim_free(sim: *mut ConvoySim) {
    if !sim.is_null() {
        // Dropping frees memory only; a panic in a drop would abort, not unwind.
        drop(unsafe { Box::from_raw(sim) });
    }
}

/// Advances the world by `dt` seconds (clamped to 0.25 s) and replaces the
/// events ([`convoy_events`]). `dt` must be positive and finite.
///
/// # Safety
/// `sim` is NULL or a live pointer from `convoy_sim_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_step(sim: *mut ConvoySim, dt: f32) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        handle.sim.try_step(dt).map_err(Failure::bad)?;
        collect_events(&handle.sim, &mut handle.events);
        Ok(())
    })
}

/// Writes the lockstep checksum of the whole state (XXH3-64 over the
/// snapshot's sections) to `*out`.
///
/// # Safety
/// `sim` is NULL or live; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_checksum(sim: *const ConvoySim, out: *mut u64) -> ConvoyStatus {
    with_sim(unsafe { sim.as_ref() }, |handle| {
        let out = unsafe { out.as_mut() }.ok_or_else(|| Failure::null("out"))?;
        *out = handle.sim.checksum();
        Ok(())
    })
}

/// Saves the whole state as a snapshot into a buffer the `Sim` owns and
/// lends it as `*bytes`, `*len`: valid until the next `convoy_save` on this
/// `Sim` or its destruction. Copy it to keep it.
///
/// # Safety
/// `sim` is NULL or live; `bytes` and `len` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_save(
    sim: *mut ConvoySim,
    bytes: *mut *const u8,
    len: *mut usize,
) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        let bytes = unsafe { bytes.as_mut() }.ok_or_else(|| Failure::null("bytes"))?;
        let len = unsafe { len.as_mut() }.ok_or_else(|| Failure::null("len"))?;
        handle.snapshot.clear();
        handle
            .sim
            .save(&mut handle.snapshot)
            .map_err(|error| Failure::new(ConvoyStatus::ConvoyIo, error.to_string()))?;
        *bytes = handle.snapshot.as_ptr();
        *len = handle.snapshot.len();
        Ok(())
    })
}

/// Replaces the world's state with a snapshot from [`convoy_save`] (of a
/// world on the same map); on failure nothing changes. The events are
/// emptied.
///
/// # Safety
/// `sim` is NULL or live; `bytes` is NULL or points to `len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_restore(
    sim: *mut ConvoySim,
    bytes: *const u8,
    len: usize,
) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        if bytes.is_null() {
            return Err(Failure::null("bytes"));
        }
        let mut data = unsafe { std::slice::from_raw_parts(bytes, len) };
        handle.sim.restore(&mut data).map_err(snapshot_failure)?;
        handle.events.clear();
        Ok(())
    })
}

/// Runs `body` on `sim`, refusing NULL (`sim` is the caller's pointer,
/// converted) and poisoned `Sim`s; `body` only reads.
pub(crate) fn with_sim(
    sim: Option<&ConvoySim>,
    body: impl FnOnce(&ConvoySim) -> Result<(), Failure>,
) -> ConvoyStatus {
    match sim {
        None => guard(|| Err(Failure::null("sim"))),
        Some(handle) if handle.poisoned => guard(|| Err(poisoned())),
        Some(handle) => guard(|| body(handle)),
    }
}

/// [`with_sim`] with write access; a panic in `body` poisons the `Sim`.
pub(crate) fn with_sim_mut(
    sim: Option<&mut ConvoySim>,
    body: impl FnOnce(&mut ConvoySim) -> Result<(), Failure>,
) -> ConvoyStatus {
    let Some(handle) = sim else {
        return guard(|| Err(Failure::null("sim")));
    };
    if handle.poisoned {
        return guard(|| Err(poisoned()));
    }
    let status = guard(|| body(&mut *handle));
    if status == ConvoyStatus::ConvoyPanic {
        handle.poisoned = true;
    }
    status
}

/// The refusal of a `Sim` that panicked.
fn poisoned() -> Failure {
    Failure::new(
        ConvoyStatus::ConvoyPanic,
        "this sim panicked in an earlier call; destroy it",
    )
}

/// The kernel's configuration for `config`, loading its map.
fn sim_config(config: &ConvoyConfig) -> Result<SimConfig, Failure> {
    let min = Vec2::new(config.min_x, config.min_y);
    let max = Vec2::new(config.max_x, config.max_y);
    if !(min.is_finite() && max.is_finite() && min.cmplt(max).all()) {
        return Err(Failure::bad(format!(
            "config bounds must be finite with min < max, were ({}, {}) to ({}, {})",
            min.x, min.y, max.x, max.y
        )));
    }
    let mut sim_config = SimConfig::new(Bounds::new(min, max));
    sim_config.threads = config.threads as usize;
    sim_config.reorder_interval = config.reorder_interval;
    sim_config.group_pace = choice(
        "group_pace",
        config.group_pace,
        [GroupPace::OwnSpeed, GroupPace::Slowest],
    )?;
    sim_config.faction_avoidance = choice(
        "faction_avoidance",
        config.faction_avoidance,
        [FactionAvoidance::Shared, FactionAvoidance::OwnFactionOnly],
    )?;
    sim_config.points_of_interest = unsafe {
        read_points(
            config.points_of_interest_xy,
            config.points_of_interest_count,
            [
                "config.points_of_interest_xy",
                "config.points_of_interest_count",
            ],
        )
    }?;
    sim_config.mobility_classes = unsafe { mobility_classes(config) }?;
    if !(config.map_path.is_null() || config.polygon_path.is_null()) {
        return Err(Failure::bad(
            "config sets both `map_path` and `polygon_path`: a world has one map, set one of them",
        ));
    }
    if let Some(path) = unsafe { config_path("map_path", config.map_path) }? {
        let grid = load_map(path).map_err(map_failure)?;
        let origin = Vec2::new(config.origin_x, config.origin_y);
        let map = WorldMap::new(&grid, Mobility::GROUND, origin, config.cell_size)
            .map_err(|error| Failure::bad(format!("config: {error}")))?;
        sim_config.map = Map::Grid(Arc::new(map));
    }
    if let Some(path) = unsafe { config_path("polygon_path", config.polygon_path) }? {
        sim_config.map = polygon_map(path, config)?;
    }
    Ok(sim_config)
}

/// The kernel's mobility classes for `config`'s list (0: impassable).
///
/// # Safety
/// `config.mobility_classes` is NULL or points to
/// `config.mobility_class_count` readable classes.
unsafe fn mobility_classes(config: &ConvoyConfig) -> Result<Vec<Mobility>, Failure> {
    let count = config.mobility_class_count;
    if count == 0 {
        return Ok(Vec::new());
    }
    if count > 255 {
        return Err(Failure::bad(format!(
            "`config.mobility_class_count` must be at most 255, was {count}"
        )));
    }
    if config.mobility_classes.is_null() {
        return Err(Failure::null("config.mobility_classes"));
    }
    let classes = unsafe { std::slice::from_raw_parts(config.mobility_classes, count) };
    let cost = |value: f32| (value != 0.0).then_some(value);
    Ok(classes
        .iter()
        .map(|class| Mobility {
            open: cost(class.open),
            swamp: cost(class.swamp),
            water: cost(class.water),
        })
        .collect())
}

/// The path the config field `key` holds, `None` when it is NULL.
///
/// # Safety
/// `path` is NULL or a NUL-terminated string.
unsafe fn config_path<'a>(key: &str, path: *const c_char) -> Result<Option<&'a str>, Failure> {
    if path.is_null() {
        return Ok(None);
    }
    let path = unsafe { CStr::from_ptr(path) };
    path.to_str()
        .map(Some)
        .map_err(|_| Failure::bad(format!("config `{key}` is not UTF-8")))
}

/// The option config `key`'s `value` numbers (0 or 1), or an error naming
/// the key.
fn choice<T: Copy>(key: &str, value: u8, options: [T; 2]) -> Result<T, Failure> {
    options
        .get(usize::from(value))
        .copied()
        .ok_or_else(|| Failure::bad(format!("config `{key}` must be 0 or 1, was {value}")))
}

/// A map file that could not be loaded: unreadable, or malformed.
fn map_failure(error: MapError) -> Failure {
    let status = match error {
        MapError::Io { .. } => ConvoyStatus::ConvoyIo,
        MapError::Parse { .. } => ConvoyStatus::ConvoyBadMap,
    };
    Failure::new(status, error.to_string())
}

/// A configuration `Sim::new` refused.
fn config_failure(error: ConfigError) -> Failure {
    match error {
        ConfigError::Map(error) => map_failure(error),
        other => Failure::bad(format!("config: {other}")),
    }
}

/// A snapshot `Sim::restore` refused.
fn snapshot_failure(error: SnapshotError) -> Failure {
    Failure::new(ConvoyStatus::ConvoyBadSnapshot, error.to_string())
}

#[cfg(test)]
mod tests;
