//! One fuzz target per loader, each seeded from the shipped data: load the
//! input, then use what loaded (plan a path, build and step a `Sim`) and
//! check every number that comes out is finite. A refusal is a pass; a
//! panic (caught by the caller) or a non-finite output is a finding.

use std::path::{Path, PathBuf};

use convoy::Sim;
use convoy::glam::DVec2;
use convoy::nav::polygon::{PolygonMap, parse_mesh, parse_polygon_map};
use convoy::nav::visgraph::{GraphConfig, VisGraph};
use convoy::nav::{
    Cell, CostGrid, FactionId, GridPlanner, Mobility, PolygonNavigator, QueryOptions, VisSearch,
    parse_map, parse_scen,
};
use convoy_scenarios::Profile;
use xxhash_rust::xxh3::xxh3_64;

/// The targets' names, as `scripts/fuzz.sh` and the regression folders
/// spell them.
pub const TARGETS: [&str; 7] = [
    "map", "scen", "polygon", "mesh", "visgraph", "profile", "snapshot",
];

/// Units a fuzzed profile builds at most, so one execution stays short.
const MAX_PROFILE_UNITS: u32 = 200;

/// The repository's root.
#[must_use]
pub fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The Moving AI benchmark data shared with the repository.
fn movingai() -> PathBuf {
    repository().join("../shared/data/movingai")
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|error| format!("{}: {error}", path.display()))
}

/// A target: its seeds and what one execution does.
pub struct Target {
    name: &'static str,
    seeds: Vec<Vec<u8>>,
    /// `scen`: the grid the scenarios run on.
    grid: Option<CostGrid>,
    /// `snapshot`: the world snapshots are restored into.
    sim: Option<Sim>,
}

impl Target {
    /// The target called `name` with its seeds loaded.
    ///
    /// # Errors
    /// An unknown name, or seed data that cannot be read.
    pub fn new(name: &str) -> Result<Target, String> {
        let name = *TARGETS
            .iter()
            .find(|&&known| known == name)
            .ok_or_else(|| format!("unknown target `{name}`: one of {TARGETS:?}"))?;
        let mut target = Target {
            name,
            seeds: Vec::new(),
            grid: None,
            sim: None,
        };
        target.seeds = target.load_seeds()?;
        Ok(target)
    }

    fn load_seeds(&mut self) -> Result<Vec<Vec<u8>>, String> {
        let data = movingai();
        let profiles = repository().join("profiles");
        Ok(match self.name {
            "map" => vec![
                read(&data.join("arena.map"))?,
                read(&profiles.join("maps/armada.map"))?,
            ],
            "scen" => {
                let map = parse_map(&String::from_utf8_lossy(&read(&data.join("arena.map"))?))
                    .map_err(|error| error.to_string())?;
                self.grid = Some(CostGrid::new(&map, Mobility::GROUND).map_err(|e| e.to_string())?);
                vec![read(&data.join("arena.map.scen"))?]
            }
            "polygon" => vec![
                read(&profiles.join("maps/river_crossing.json"))?,
                read(&profiles.join("maps/skirmish_field.json"))?,
            ],
            "mesh" => vec![read(&data.join("mesh/arena.mesh"))?],
            "visgraph" => {
                let text = read(&profiles.join("maps/river_crossing.json"))?;
                let map = parse_polygon_map(&String::from_utf8_lossy(&text))
                    .map_err(|error| error.to_string())?;
                let graph =
                    VisGraph::build(&map, GraphConfig::default()).map_err(|e| e.to_string())?;
                let mut blob = Vec::new();
                graph.save(&mut blob).map_err(|error| error.to_string())?;
                vec![blob]
            }
            "profile" => ["default", "arena2", "river", "squads", "orbits"]
                .iter()
                .map(|name| read(&profiles.join(format!("{name}.toml"))))
                .collect::<Result<_, _>>()?,
            _ => {
                let (sim, snapshot) = snapshot_world()?;
                self.sim = Some(sim);
                vec![snapshot]
            }
        })
    }

    /// The target's name.
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The seed inputs.
    #[must_use]
    pub fn seeds(&self) -> &[Vec<u8>] {
        &self.seeds
    }

    /// Whether inputs are text (numbers are mutated as text).
    #[must_use]
    pub fn is_text(&self) -> bool {
        !matches!(self.name, "visgraph" | "snapshot")
    }

    /// Makes a mutated binary input's checksums right again (unless
    /// `keep_damage`), so the loader's value checks are reached.
    #[must_use]
    pub fn reseal(&self, mut bytes: Vec<u8>, keep_damage: bool) -> Vec<u8> {
        if !keep_damage {
            match self.name {
                "snapshot" => reseal_snapshot(&mut bytes),
                "visgraph" => reseal_graph(&mut bytes),
                _ => {}
            }
        }
        bytes
    }

    /// One execution: `Err` names a non-finite output.
    ///
    /// # Errors
    /// A finding: a number that came out NaN or infinite.
    pub fn run(&mut self, input: &[u8]) -> Result<(), String> {
        let text = String::from_utf8_lossy(input);
        match self.name {
            "map" => run_map(&text),
            "scen" => self.run_scen(&text),
            "polygon" => parse_polygon_map(&text).map_or(Ok(()), |map| run_polygon(&map)),
            "mesh" => parse_mesh(&text).map_or(Ok(()), |map| run_polygon(&map)),
            "visgraph" => VisGraph::load(&mut &input[..]).map_or(Ok(()), |graph| {
                query(&PolygonNavigator::from_graph(graph, 1))
            }),
            "profile" => run_profile(&text),
            _ => self.run_snapshot(input),
        }
    }

    fn run_scen(&self, text: &str) -> Result<(), String> {
        let (Some(grid), Ok(scenarios)) = (&self.grid, parse_scen(text)) else {
            return Ok(());
        };
        if convoy::nav::check_scenarios(&scenarios, grid).is_err() {
            return Ok(());
        }
        let mut planner = GridPlanner::new();
        for s in scenarios.iter().take(3) {
            if let Ok(path) = planner.find_path(grid, s.start, s.goal) {
                finite("scen path cost", path.cost)?;
            }
        }
        Ok(())
    }

    fn run_snapshot(&mut self, input: &[u8]) -> Result<(), String> {
        let Some(sim) = self.sim.as_mut() else {
            return Ok(());
        };
        if sim.restore(&mut &input[..]).is_err() {
            return Ok(());
        }
        for tick in 0..60 {
            sim.step(1.0 / 60.0);
            sim_finite(sim).map_err(|error| format!("tick {tick}: {error}"))?;
        }
        // Every state the tick produces saves and restores.
        let mut saved = Vec::new();
        sim.save(&mut saved).map_err(|error| error.to_string())?;
        sim.restore(&mut &saved[..])
            .map_err(|error| format!("the tick's own state is refused: {error}"))
    }
}

fn finite(what: &str, value: f64) -> Result<(), String> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(format!("{what} is {value}"))
    }
}

/// Plans from the first to the last passable cell of a loaded map.
fn run_map(text: &str) -> Result<(), String> {
    let Ok(map) = parse_map(text) else {
        return Ok(());
    };
    let Ok(grid) = CostGrid::new(&map, Mobility::GROUND) else {
        return Ok(());
    };
    let cells = (0..grid.height()).flat_map(|y| (0..grid.width()).map(move |x| Cell { x, y }));
    let mut open = cells.filter(|&cell| grid.passable(cell));
    let (Some(first), Some(last)) = (open.next(), open.next_back()) else {
        return Ok(());
    };
    match GridPlanner::new().find_path(&grid, first, last) {
        Ok(path) => finite("map path cost", path.cost),
        Err(_) => Ok(()),
    }
}

/// Builds the navigator of a loaded polygon map and queries it.
fn run_polygon(map: &PolygonMap) -> Result<(), String> {
    match PolygonNavigator::build(map, GraphConfig::default(), 1) {
        Ok(navigator) => query(&navigator),
        Err(_) => Ok(()),
    }
}

/// Queries between a few of the graph's nodes (and points beside them):
/// every answer is a finite path or an error.
fn query(navigator: &PolygonNavigator) -> Result<(), String> {
    let nodes = navigator.graph().positions();
    if nodes.is_empty() {
        return Ok(());
    }
    let mut search = VisSearch::new(navigator);
    let mut out = Vec::new();
    let picks = [0, nodes.len() / 3, nodes.len() / 2, nodes.len() - 1];
    for (k, &a) in picks.iter().enumerate() {
        let b = picks[(k + 1) % picks.len()];
        let (start, goal) = (nodes[a] + DVec2::splat(0.25), nodes[b] - DVec2::splat(0.25));
        let answer = navigator.find_path_with(
            start,
            goal,
            FactionId(0),
            QueryOptions::default(),
            &mut search,
            &mut out,
        );
        if let Ok(cost) = answer {
            finite("path cost", cost.cost)?;
            if let Some(p) = out.iter().find(|p| !p.is_finite()) {
                return Err(format!("path corner {p}"));
            }
        }
    }
    Ok(())
}

/// Parses a profile, builds its world (at most [`MAX_PROFILE_UNITS`]
/// units; maps only from `profiles/`) and steps it three ticks.
fn run_profile(text: &str) -> Result<(), String> {
    let Ok(mut profile) = Profile::parse(text, "fuzz.toml") else {
        return Ok(());
    };
    let folder = repository().join("profiles");
    if let Some(map) = &mut profile.map {
        for file in [&mut map.file, &mut map.polygon].into_iter().flatten() {
            let inside = file.is_relative() && !file.components().any(|c| c.as_os_str() == "..");
            if !inside {
                return Ok(());
            }
            *file = folder.join(&*file);
        }
    }
    profile.scenario.units = profile.scenario.units.min(MAX_PROFILE_UNITS);
    let Ok(mut sim) = convoy_scenarios::build(&profile, 1) else {
        return Ok(());
    };
    for tick in 0..3 {
        sim.step(1.0 / 60.0);
        sim_finite(&sim).map_err(|error| format!("tick {tick}: {error}"))?;
    }
    Ok(())
}

/// Every float column a tick writes is finite.
pub fn sim_finite(sim: &Sim) -> Result<(), String> {
    let c = sim.vehicles().columns();
    let vectors = [
        ("position", c.position()),
        ("velocity", c.velocity()),
        ("drive_to", c.drive_to()),
        ("desired_velocity", c.desired_velocity()),
    ];
    for (name, column) in vectors {
        if let Some(row) = column.iter().position(|v| !v.is_finite()) {
            return Err(format!("{name}[{row}] is {}", column[row]));
        }
    }
    let scalars = [("heading", c.heading()), ("altitude", c.altitude())];
    for (name, column) in scalars {
        if let Some(row) = column.iter().position(|v| !v.is_finite()) {
            return Err(format!("{name}[{row}] is {}", column[row]));
        }
    }
    Ok(())
}

/// The arena2 profile at 150 units after 30 ticks (grid searches, routes
/// and platoons in flight), and its snapshot.
fn snapshot_world() -> Result<(Sim, Vec<u8>), String> {
    let path = repository().join("profiles/arena2.toml");
    let mut profile = Profile::load(&path).map_err(|error| error.to_string())?;
    profile.scenario.units = 150;
    let mut sim = convoy_scenarios::build(&profile, 1).map_err(|error| error.to_string())?;
    for _ in 0..30 {
        sim.step(1.0 / 60.0);
    }
    let mut snapshot = Vec::new();
    sim.save(&mut snapshot).map_err(|error| error.to_string())?;
    Ok((sim, snapshot))
}

/// Recomputes every section checksum the table can point at, then the
/// table's (the layout of `convoy::sim::snapshot`).
fn reseal_snapshot(bytes: &mut [u8]) {
    let word = |bytes: &[u8], at: usize| -> Option<u64> {
        Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
    };
    let Some(count) = bytes
        .get(12..16)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    else {
        return;
    };
    let table_end = 16 + count as usize * 56;
    if bytes.len() < table_end + 8 {
        return;
    }
    for entry in (16..table_end).step_by(56) {
        let (Some(offset), Some(length)) = (word(bytes, entry + 32), word(bytes, entry + 40))
        else {
            return;
        };
        let range = usize::try_from(offset)
            .ok()
            .zip(usize::try_from(length).ok());
        if let Some((offset, length)) = range
            && let Some(section) = bytes.get(offset..offset.saturating_add(length))
        {
            let sum = xxh3_64(section);
            bytes[entry + 48..entry + 56].copy_from_slice(&sum.to_le_bytes());
        }
    }
    let sum = xxh3_64(&bytes[..table_end]);
    bytes[table_end..table_end + 8].copy_from_slice(&sum.to_le_bytes());
}

/// Recomputes a graph blob's body length and checksum.
fn reseal_graph(bytes: &mut [u8]) {
    if bytes.len() >= 28 {
        let length = (bytes.len() - 28) as u64;
        bytes[12..20].copy_from_slice(&length.to_le_bytes());
        let sum = xxh3_64(&bytes[28..]);
        bytes[20..28].copy_from_slice(&sum.to_le_bytes());
    }
}
