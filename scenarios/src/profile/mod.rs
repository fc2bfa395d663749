//! Scenario and budget profiles: the TOML files under `profiles/`.
//!
//! A profile is read once at the boundary: parsed, deserialized with unknown
//! keys refused, then every value checked. Each error names the file and the
//! line (for TOML syntax) or the dotted key (for everything else), so a typo
//! never becomes a silently ignored setting. docs/profiles.md documents every key.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use thiserror::Error;

use convoy::nav::clearance::MAX_CLEARANCE;
use convoy::nav::world::{MAX_CELL_SIZE, MIN_CELL_SIZE};
use convoy::{
    Budgets, Formation, MAX_MEMBERS, OrbitingBody, PlatoonSpec, Stage, SteerMode, VehicleKind,
};

/// Largest budget of the tick or of a stage, milliseconds.
pub const MAX_BUDGET_MS: f64 = 1e6;
/// Most separation iterations a profile may ask for per tick.
pub const MAX_SEPARATION_ITERATIONS: u32 = 4096;

/// A whole profile: what to simulate, for how long, and the budgets.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Short name, shown in reports.
    pub name: String,
    /// One line on what the profile exercises.
    #[serde(default)]
    pub description: String,
    /// Tick count, step and threads.
    pub run: RunSection,
    /// The units and where they go.
    pub scenario: ScenarioSection,
    /// Spatial settings.
    #[serde(default)]
    pub world: WorldSection,
    /// Path-queue settings.
    #[serde(default)]
    pub paths: PathsSection,
    /// Shield-separation settings.
    #[serde(default)]
    pub separation: SeparationSection,
    /// Steering mode and moving bodies.
    #[serde(default)]
    pub steering: SteeringSection,
    /// Terrain to plan on; absent: an open field.
    #[serde(default)]
    pub map: Option<MapSection>,
    /// Units grouped into platoons, and their orders.
    #[serde(default)]
    pub platoons: PlatoonsSection,
    /// Frame and stage budgets.
    pub budget: BudgetSection,
}

/// `[run]`: how long and how fast.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    /// Ticks to simulate (≥ 1).
    pub ticks: u64,
    /// Seconds per tick (> 0).
    pub dt: f32,
    /// Seed of every random choice in the scenario.
    #[serde(default)]
    pub seed: u64,
    /// Worker threads; absent means one per core.
    pub threads: Option<usize>,
    /// Longest step the simulation takes, seconds (> 0); a longer `dt` is
    /// clamped to it.
    #[serde(default = "default_max_dt")]
    pub max_dt: f32,
}

fn default_max_dt() -> f32 {
    0.25
}

/// `[steering]`: how units pick their desired velocity.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SteeringSection {
    /// Every unit's steering mode: `reciprocal` (drive-to with reciprocal
    /// avoidance, the default), `drive_to` (Force 21's avoidance) or
    /// `potential_field`.
    #[serde(default)]
    pub mode: SteerMode,
    /// Round bodies moving along ellipses (`[[steering.bodies]]`).
    #[serde(default)]
    pub bodies: Vec<OrbitingBody>,
}

/// How units are placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// Two blocks facing each other across a gap, each unit bound for its
    /// mirror image on the far side: the armies cross in the middle.
    Crossing,
    /// Units on random open cells of the `[map]`, each bound for a random
    /// open cell it can reach: every unit needs a planned path.
    Scatter,
}

/// `[map]`: the terrain ground units plan on — a Moving AI grid map
/// (`file`, grid A*) or a polygon map (`polygon`, the visibility graph).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapSection {
    /// A Moving AI `.map` file; a relative path is relative to the
    /// profile's folder.
    pub file: Option<PathBuf>,
    /// A polygon map: JSON (`.json`) or Polyanya mesh (`.mesh`), relative
    /// like `file`.
    pub polygon: Option<PathBuf>,
    /// Polygon maps: obstacles grow and containers shrink by this
    /// clearance, metres (0 to [`MAX_CLEARANCE`]).
    #[serde(default = "default_clearance")]
    pub clearance_m: f64,
    /// Polygon maps: road edges cost this fraction of their length (> 0).
    #[serde(default = "default_road_cost")]
    pub road_cost_factor: f64,
    /// Width of one map cell, metres ([`MIN_CELL_SIZE`] to
    /// [`MAX_CELL_SIZE`]). A polygon map is rasterised at
    /// this size for the tick's local checks (line of sight, formation
    /// slots, swamps; see [`convoy::nav::polygon::rasterize`]).
    #[serde(default = "default_map_cell")]
    pub cell_size_m: f32,
    /// World position of the map's first cell's corner, metres, each within
    /// [`convoy::nav::MAX_COORDINATE`] of 0 (grid maps; a polygon map is in
    /// world coordinates).
    #[serde(default)]
    pub origin_m: [f32; 2],
}

fn default_map_cell() -> f32 {
    4.0
}

fn default_clearance() -> f64 {
    2.0
}

fn default_road_cost() -> f64 {
    0.5
}

/// How a profile's platoons move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlatoonStyle {
    /// Force 21 platoons ([`crate::stages::formations::PlatoonSpec::force21`]).
    #[default]
    Force21,
    /// Company of Heroes squads ([`crate::stages::formations::PlatoonSpec::squad`]).
    Squad,
}

/// `[platoons]`: units grouped into platoons, moved by platoon orders.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PlatoonsSection {
    /// Units per platoon (0: no platoons, every unit moves alone; at most
    /// 16).
    pub size: u32,
    /// Force 21 platoons or Company of Heroes squads.
    pub style: PlatoonStyle,
    /// The starting shape (squads choose theirs from the ground).
    pub formation: Formation,
    /// Distance between slots, metres (> 0).
    pub spacing_m: f32,
    /// Every platoon gets a new move order this often, seconds, staggered
    /// across platoons (0: only the first order); with
    /// `reorder_on_arrival`, a platoon not arrived this long after its
    /// order gets its next one.
    pub reorder_every_s: f32,
    /// A platoon gets its next order as soon as it arrives.
    pub reorder_on_arrival: bool,
    /// Every order's goal (the first too) lies within this many metres of the platoon,
    /// as a player's clicks do (0: anywhere on the map).
    pub order_range_m: f32,
}

impl Default for PlatoonsSection {
    fn default() -> PlatoonsSection {
        PlatoonsSection {
            size: 0,
            style: PlatoonStyle::Force21,
            formation: Formation::Wedge,
            spacing_m: 12.0,
            reorder_every_s: 0.0,
            reorder_on_arrival: false,
            order_range_m: 0.0,
        }
    }
}

impl PlatoonsSection {
    /// The spec each platoon is created with.
    #[must_use]
    pub fn spec(&self) -> PlatoonSpec {
        let mut spec = match self.style {
            PlatoonStyle::Force21 => PlatoonSpec::force21(self.formation),
            PlatoonStyle::Squad => PlatoonSpec::squad(self.spacing_m),
        };
        spec.formation = self.formation;
        spec.spacing_m = self.spacing_m;
        spec
    }
}

/// `[scenario]`: the units.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSection {
    /// Placement.
    pub layout: Layout,
    /// Number of units (≥ 1).
    pub units: u32,
    /// Ground area per unit at spawn, m² (> 0): sets the density.
    pub area_per_unit_m2: f32,
    /// Distance between the two blocks, metres (≥ 0).
    #[serde(default = "default_gap")]
    pub gap_m: f32,
    /// Relative weight of each vehicle kind.
    pub mix: KindMix,
}

fn default_gap() -> f32 {
    100.0
}

/// `[scenario.mix]`: relative weights (≥ 0, not all zero).
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KindMix {
    /// Tanks.
    #[serde(default)]
    pub tracked: f32,
    /// Trucks.
    #[serde(default)]
    pub wheeled: f32,
    /// Helicopters.
    #[serde(default)]
    pub rotary_wing: f32,
    /// Soldiers.
    #[serde(default)]
    pub infantry: f32,
    /// Starships.
    #[serde(default)]
    pub starship: f32,
}

impl KindMix {
    /// `(kind, weight)` for every kind.
    #[must_use]
    pub fn weights(&self) -> [(VehicleKind, f32); 5] {
        [
            (VehicleKind::Tracked, self.tracked),
            (VehicleKind::Wheeled, self.wheeled),
            (VehicleKind::RotaryWing, self.rotary_wing),
            (VehicleKind::Infantry, self.infantry),
            (VehicleKind::Starship, self.starship),
        ]
    }
}

/// `[world]`: spatial settings.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorldSection {
    /// Spatial hash cell edge, metres; absent means the neighbour radius.
    pub cell_size_m: Option<f32>,
    /// Radius of neighbour interactions (avoidance), metres (> 0).
    #[serde(default = "default_neighbour_radius")]
    pub neighbour_radius_m: f32,
    /// Free space around the scenario's units, metres (≥ 0).
    #[serde(default = "default_margin")]
    pub margin_m: f32,
    /// Reorder vehicle rows into spatial cell order every this many ticks
    /// (0 never does).
    #[serde(default = "default_reorder_interval")]
    pub reorder_interval_ticks: u32,
}

fn default_reorder_interval() -> u32 {
    32
}

fn default_neighbour_radius() -> f32 {
    8.0
}

fn default_margin() -> f32 {
    200.0
}

impl Default for WorldSection {
    fn default() -> WorldSection {
        WorldSection {
            cell_size_m: None,
            neighbour_radius_m: default_neighbour_radius(),
            margin_m: default_margin(),
            reorder_interval_ticks: default_reorder_interval(),
        }
    }
}

/// `[paths]`: the path-request queue.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathsSection {
    /// Most requests answered per tick (≥ 1).
    #[serde(default = "default_requests_per_tick")]
    pub max_requests_per_tick: u32,
    /// The stage stops serving once its searches' work reached this many
    /// cells in a tick (≥ 1; cells expanded, or stepped onto by jump point
    /// runs; visibility-graph nodes expanded): the per-tick planning budget.
    #[serde(default = "default_nodes_per_tick")]
    pub max_expanded_nodes_per_tick: u64,
}

fn default_nodes_per_tick() -> u64 {
    20_000
}

fn default_requests_per_tick() -> u32 {
    1024
}

impl Default for PathsSection {
    fn default() -> PathsSection {
        PathsSection {
            max_requests_per_tick: default_requests_per_tick(),
            max_expanded_nodes_per_tick: default_nodes_per_tick(),
        }
    }
}

/// `[separation]`: shield separation.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeparationSection {
    /// Most push iterations per tick (1 to [`MAX_SEPARATION_ITERATIONS`]):
    /// a safety cap; the pass stops
    /// as soon as no two shields overlap beyond the tolerance.
    #[serde(default = "default_separation_iterations")]
    pub iterations: u32,
}

fn default_separation_iterations() -> u32 {
    64
}

impl Default for SeparationSection {
    fn default() -> SeparationSection {
        SeparationSection {
            iterations: default_separation_iterations(),
        }
    }
}

/// `[budget]`: milliseconds per tick for the frame and each stage (> 0).
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetSection {
    /// The whole tick. Every budget is above 0 and at most
    /// [`MAX_BUDGET_MS`].
    pub frame_ms: f64,
    /// `spatial` stage.
    pub spatial_ms: f64,
    /// `paths` stage.
    pub paths_ms: f64,
    /// `formations` stage.
    pub formations_ms: f64,
    /// `steering` stage.
    pub steering_ms: f64,
    /// `integrate` stage.
    pub integrate_ms: f64,
    /// `separation` stage.
    pub separation_ms: f64,
}

impl BudgetSection {
    fn entries(&self) -> [(&'static str, f64); 7] {
        [
            ("frame_ms", self.frame_ms),
            ("spatial_ms", self.spatial_ms),
            ("paths_ms", self.paths_ms),
            ("formations_ms", self.formations_ms),
            ("steering_ms", self.steering_ms),
            ("integrate_ms", self.integrate_ms),
            ("separation_ms", self.separation_ms),
        ]
    }

    /// The budgets as durations.
    #[must_use]
    pub fn budgets(&self) -> Budgets {
        // Saturating, so a section built without validation cannot panic:
        // a budget too large for a `Duration` is unlimited, a negative or
        // NaN one is zero.
        let ms = |value: f64| {
            Duration::try_from_secs_f64(value / 1e3).unwrap_or(if value > 0.0 {
                Duration::MAX
            } else {
                Duration::ZERO
            })
        };
        let by_stage = |stage: Stage| match stage {
            Stage::Spatial => self.spatial_ms,
            Stage::Paths => self.paths_ms,
            Stage::Formations => self.formations_ms,
            Stage::Steering => self.steering_ms,
            Stage::Integrate => self.integrate_ms,
            Stage::Separation => self.separation_ms,
        };
        Budgets {
            frame: ms(self.frame_ms),
            stages: Stage::ALL.map(|stage| ms(by_stage(stage))),
        }
    }
}

/// A profile that cannot be used; says which file and where.
#[derive(Debug, Error)]
pub enum ProfileError {
    /// The file could not be read.
    #[error("{file}: cannot read: {source}")]
    Read {
        /// The path given.
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// Not valid TOML.
    #[error("{file}:{line}: {message}")]
    Syntax {
        /// The path given.
        file: String,
        /// 1-based line of the error.
        line: usize,
        /// The parser's message.
        message: String,
    },
    /// A key is unknown, missing, mistyped or out of range.
    #[error("{file}: key `{key}`: {message}")]
    Key {
        /// The path given.
        file: String,
        /// Dotted key, e.g. `scenario.units`.
        key: String,
        /// What is wrong with it.
        message: String,
    },
}

impl Profile {
    /// Reads and checks the profile at `path`.
    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ProfileError::Read {
            file: file.clone(),
            source,
        })?;
        let mut profile = Profile::parse(&text, &file)?;
        if let (Some(map), Some(folder)) = (&mut profile.map, path.parent()) {
            for file in [&mut map.file, &mut map.polygon].into_iter().flatten() {
                *file = folder.join(&*file);
            }
        }
        Ok(profile)
    }

    /// Parses and checks profile `text`; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Profile, ProfileError> {
        let table: toml::Table = text.parse().map_err(|error: toml::de::Error| {
            let offset = error.span().map_or(0, |span| span.start);
            ProfileError::Syntax {
                file: file.to_owned(),
                line: text[..offset.min(text.len())].lines().count().max(1),
                message: error.message().trim().to_owned(),
            }
        })?;
        let profile: Profile = serde_path_to_error::deserialize(toml::Value::Table(table))
            .map_err(|error| {
                let key = error.path().to_string();
                ProfileError::Key {
                    file: file.to_owned(),
                    key: if key == "." {
                        "(top level)".to_owned()
                    } else {
                        key
                    },
                    message: error.into_inner().message().trim().to_owned(),
                }
            })?;
        profile
            .validate()
            .map_err(|(key, message)| ProfileError::Key {
                file: file.to_owned(),
                key,
                message,
            })?;
        Ok(profile)
    }

    /// Checks every value; on failure returns `(dotted key, message)`.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let fail = |key: &str, message: String| Err((key.to_owned(), message));
        if self.run.ticks == 0 {
            return fail("run.ticks", "must be at least 1, was 0".into());
        }
        if !(self.run.dt.is_finite() && self.run.dt > 0.0) {
            return fail(
                "run.dt",
                format!("must be a positive number of seconds, was {}", self.run.dt),
            );
        }
        if !(self.run.max_dt.is_finite() && self.run.max_dt > 0.0) {
            return fail(
                "run.max_dt",
                format!(
                    "must be a positive number of seconds, was {}",
                    self.run.max_dt
                ),
            );
        }
        if let Some(map) = &self.map {
            if map.file.is_some() == map.polygon.is_some() {
                return fail(
                    "map",
                    "give exactly one of `file` (a grid map) and `polygon` (a polygon map)".into(),
                );
            }
            if !(0.0..=MAX_CLEARANCE).contains(&map.clearance_m) {
                return fail(
                    "map.clearance_m",
                    format!(
                        "must be between 0 and {MAX_CLEARANCE} metres, was {}",
                        map.clearance_m
                    ),
                );
            }
            if !(map.road_cost_factor.is_finite() && map.road_cost_factor > 0.0) {
                return fail(
                    "map.road_cost_factor",
                    format!("must be a positive number, was {}", map.road_cost_factor),
                );
            }
            if !(MIN_CELL_SIZE..=MAX_CELL_SIZE).contains(&map.cell_size_m) {
                return fail(
                    "map.cell_size_m",
                    format!(
                        "must be between {MIN_CELL_SIZE} and {MAX_CELL_SIZE} metres, was {}",
                        map.cell_size_m
                    ),
                );
            }
            let limit = convoy::nav::MAX_COORDINATE;
            if !map.origin_m.iter().all(|&v| f64::from(v).abs() <= limit) {
                return fail(
                    "map.origin_m",
                    format!("coordinates must be finite and within ±{limit} metres"),
                );
            }
        } else if self.scenario.layout == Layout::Scatter {
            return fail(
                "scenario.layout",
                "\"scatter\" places units on a map: add a [map] section".into(),
            );
        }
        for (index, body) in self.steering.bodies.iter().enumerate() {
            if let Err((key, reason)) = body.validate() {
                return fail(&format!("steering.bodies[{index}].{key}"), reason);
            }
        }
        if self.run.threads == Some(0) {
            return fail(
                "run.threads",
                "must be at least 1 (leave it out to use every core), was 0".into(),
            );
        }
        let scenario = &self.scenario;
        if scenario.units == 0 {
            return fail("scenario.units", "must be at least 1, was 0".into());
        }
        check_positive("scenario.area_per_unit_m2", scenario.area_per_unit_m2)?;
        check_non_negative("scenario.gap_m", scenario.gap_m)?;
        for (kind, weight) in scenario.mix.weights() {
            let key = format!("scenario.mix.{}", kind_key(kind));
            check_non_negative(&key, weight)?;
        }
        if scenario
            .mix
            .weights()
            .iter()
            .all(|&(_, weight)| weight == 0.0)
        {
            return fail(
                "scenario.mix",
                "give at least one kind a weight above 0".into(),
            );
        }
        let platoons = &self.platoons;
        if platoons.size as usize > MAX_MEMBERS {
            return fail(
                "platoons.size",
                format!("must be at most {MAX_MEMBERS}, was {}", platoons.size),
            );
        }
        check_positive("platoons.spacing_m", platoons.spacing_m)?;
        check_non_negative("platoons.reorder_every_s", platoons.reorder_every_s)?;
        check_non_negative("platoons.order_range_m", platoons.order_range_m)?;
        if let Some(cell) = self.world.cell_size_m {
            check_positive("world.cell_size_m", cell)?;
        }
        check_positive("world.neighbour_radius_m", self.world.neighbour_radius_m)?;
        check_non_negative("world.margin_m", self.world.margin_m)?;
        if self.paths.max_requests_per_tick == 0 {
            return fail(
                "paths.max_requests_per_tick",
                "must be at least 1, was 0".into(),
            );
        }
        if self.paths.max_expanded_nodes_per_tick == 0 {
            return fail(
                "paths.max_expanded_nodes_per_tick",
                "must be at least 1, was 0".into(),
            );
        }
        let iterations = self.separation.iterations;
        if !(1..=MAX_SEPARATION_ITERATIONS).contains(&iterations) {
            return fail(
                "separation.iterations",
                format!("must be between 1 and {MAX_SEPARATION_ITERATIONS}, was {iterations}"),
            );
        }
        for (key, value) in self.budget.entries() {
            if !(value > 0.0 && value <= MAX_BUDGET_MS) {
                return fail(
                    &format!("budget.{key}"),
                    format!(
                        "must be a positive number of milliseconds, at most {MAX_BUDGET_MS}, was {value}"
                    ),
                );
            }
        }
        Ok(())
    }
}

/// The profile key of a vehicle kind.
fn kind_key(kind: VehicleKind) -> &'static str {
    match kind {
        VehicleKind::Tracked => "tracked",
        VehicleKind::Wheeled => "wheeled",
        VehicleKind::RotaryWing => "rotary_wing",
        VehicleKind::Infantry => "infantry",
        VehicleKind::Starship => "starship",
    }
}

fn check_positive(key: &str, value: f32) -> Result<(), (String, String)> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err((
            key.to_owned(),
            format!("must be a positive number, was {value}"),
        ))
    }
}

fn check_non_negative(key: &str, value: f32) -> Result<(), (String, String)> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err((key.to_owned(), format!("must be zero or more, was {value}")))
    }
}

#[cfg(test)]
mod tests;
