//! The map under a replay's units, in world metres as the kernel places it.
//!
//! A grid map (`[map] file`) is its terrain as run-length rows: every run of
//! equal non-open cells in a row as `(row, first column, length, class)`,
//! drawn by the player into one image of one pixel per cell and scaled onto
//! the world rectangle the `Sim`'s [`WorldMap`] covers. A polygon map
//! (`[map] polygon`) is its rings and polylines (containers, swamps,
//! obstacles, roads) and its bridges' decks, with each bridge's standing
//! state recorded whenever it changes during the run.

use std::path::Path;

use convoy::Sim;
use convoy::glam::DVec2;
use convoy::nav::polygon::{PolygonMap, load_mesh, load_polygon_map};
use convoy::nav::{Cell, GridMap, Terrain, WorldMap, load_map};
use convoy_scenarios::Profile;
use serde::Serialize;

use crate::CliError;
use crate::render::layers::{BLOCKED, ROAD_FILL, SWAMP, TerrainClass, WATER};

/// A grid cell class the player draws: its name and fill colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CellClass {
    /// The terrain's name.
    pub name: &'static str,
    /// CSS colour.
    pub fill: &'static str,
}

/// The classes a grid map's runs index, in order.
pub const CELL_CLASSES: [CellClass; 4] = [
    class("blocked", &BLOCKED),
    class("swamp", &SWAMP),
    class("water", &WATER),
    CellClass {
        name: "road",
        fill: ROAD_FILL,
    },
];

const fn class(name: &'static str, terrain: &TerrainClass) -> CellClass {
    CellClass {
        name,
        fill: terrain.fill,
    }
}

/// The map layer of a replay.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MapLayer {
    /// A grid map's terrain.
    Grid(GridLayer),
    /// A polygon map's shapes and bridges.
    Polygon(PolygonLayer),
}

/// A grid map placed in the world.
#[derive(Debug, Serialize)]
pub struct GridLayer {
    /// World position of cell (0, 0)'s corner, metres.
    pub origin: [f32; 2],
    /// Cell edge, metres.
    pub cell_size: f32,
    /// Columns.
    pub width: u32,
    /// Rows; row 0 lies at the origin's y, rows go north.
    pub height: u32,
    /// What `runs`' class numbers name.
    pub classes: [CellClass; 4],
    /// Flat `(row, first column, length, class)` quadruples of non-open
    /// cells, row by row.
    pub runs: Vec<u32>,
}

/// A polygon map in world metres.
#[derive(Debug, Serialize)]
pub struct PolygonLayer {
    /// Outer boundaries of the land.
    pub containers: Vec<Vec<[f32; 2]>>,
    /// Slow areas.
    pub swamps: Vec<Vec<[f32; 2]>>,
    /// Impassable areas (buildings, rivers).
    pub obstacles: Vec<Vec<[f32; 2]>>,
    /// Roads as polylines.
    pub roads: Vec<Vec<[f32; 2]>>,
    /// The bridges the map loads with.
    pub bridges: Vec<Bridge>,
    /// Each change of a bridge's standing state, in frame order.
    pub bridge_changes: Vec<BridgeChange>,
    /// Each bridge's state at the last recorded frame.
    #[serde(skip)]
    standing: Vec<bool>,
}

/// A bridge's deck and its state at the first frame.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Bridge {
    /// The bridge's id.
    pub id: u32,
    /// End, middle, end.
    pub deck: [[f32; 2]; 3],
    /// Whether it stands in the world at the first frame.
    pub standing: bool,
}

/// Bridge `bridge` (an index into [`PolygonLayer::bridges`]) stands or is
/// down from `frame` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BridgeChange {
    /// Frame index.
    pub frame: usize,
    /// Index into the bridges.
    pub bridge: usize,
    /// Whether it stands.
    pub standing: bool,
}

impl MapLayer {
    /// The map of `profile`, placed as `sim` placed it; `None` on an open
    /// field.
    ///
    /// # Errors
    /// [`CliError::Input`] naming the map file when it cannot be read again
    /// or no longer matches the `Sim`'s grid.
    pub fn of(profile: &Profile, sim: &Sim) -> Result<Option<MapLayer>, CliError> {
        let Some(section) = &profile.map else {
            return Ok(None);
        };
        if let Some(file) = &section.polygon {
            let map = load_polygon(file)?;
            return Ok(Some(MapLayer::Polygon(PolygonLayer::new(&map, sim))));
        }
        match (&section.file, sim.config().map.grid()) {
            (Some(file), Some(world)) => {
                let map = load_map(file).map_err(|error| input(file, &error))?;
                GridLayer::new(&map, world)
                    .map(|layer| Some(MapLayer::Grid(layer)))
                    .map_err(|reason| input(file, &reason))
            }
            _ => Ok(None),
        }
    }

    /// The layer names the player draws this map in, back to front (those
    /// of `render`'s layers).
    #[must_use]
    pub fn layer_names(&self) -> Vec<&'static str> {
        match self {
            MapLayer::Grid(_) => vec!["terrain"],
            MapLayer::Polygon(polygon) => [
                ("containers", polygon.containers.is_empty()),
                ("swamps", polygon.swamps.is_empty()),
                ("obstacles", polygon.obstacles.is_empty()),
                ("roads", polygon.roads.is_empty()),
                ("bridges", polygon.bridges.is_empty()),
            ]
            .into_iter()
            .filter_map(|(name, empty)| (!empty).then_some(name))
            .collect(),
        }
    }

    /// Records the bridges that came or went since the last frame.
    pub fn record(&mut self, sim: &Sim, frame: usize) {
        if let MapLayer::Polygon(polygon) = self {
            polygon.record(sim, frame);
        }
    }
}

fn input(file: &Path, reason: &dyn std::fmt::Display) -> CliError {
    CliError::Input {
        path: file.display().to_string(),
        reason: reason.to_string(),
    }
}

fn load_polygon(file: &Path) -> Result<PolygonMap, CliError> {
    let loaded = if file.extension().is_some_and(|ext| ext == "mesh") {
        load_mesh(file).map_err(|error| error.to_string())
    } else {
        load_polygon_map(file).map_err(|error| error.to_string())
    };
    loaded.map_err(|reason| input(file, &reason))
}

impl GridLayer {
    /// `map`'s terrain at `world`'s placement, with `world`'s roads.
    ///
    /// # Errors
    /// The sizes, when `map` is not the grid `world` was built from.
    pub fn new(map: &GridMap, world: &WorldMap) -> Result<GridLayer, String> {
        let (width, height) = (map.width(), map.height());
        if (width, height) != (world.grid().width(), world.grid().height()) {
            return Err(format!(
                "the map is {width} × {height} cells, the simulation's {} × {}",
                world.grid().width(),
                world.grid().height()
            ));
        }
        let class_of = |cell: Cell| match map.terrain(cell) {
            Some(Terrain::Blocked) => Some(0),
            Some(Terrain::Swamp) => Some(1),
            Some(Terrain::Water) => Some(2),
            _ => world.on_road(world.centre_of(cell)).then_some(3),
        };
        let mut runs = Vec::new();
        for y in 0..height {
            let mut x = 0;
            while x < width {
                let class = class_of(Cell::new(x, y));
                let start = x;
                while x < width && class_of(Cell::new(x, y)) == class {
                    x += 1;
                }
                if let Some(class) = class {
                    runs.extend([y, start, x - start, class]);
                }
            }
        }
        Ok(GridLayer {
            origin: world.origin().to_array(),
            cell_size: world.cell_size(),
            width,
            height,
            classes: CELL_CLASSES,
            runs,
        })
    }
}

fn pair(point: DVec2) -> [f32; 2] {
    point.as_vec2().to_array()
}

fn rings<'a>(rings: impl IntoIterator<Item = &'a Vec<DVec2>>) -> Vec<Vec<[f32; 2]>> {
    rings
        .into_iter()
        .map(|ring| ring.iter().copied().map(pair).collect())
        .collect()
}

impl PolygonLayer {
    /// `map`'s shapes, and its bridges as `sim` has them now.
    #[must_use]
    pub fn new(map: &PolygonMap, sim: &Sim) -> PolygonLayer {
        let mut layer = PolygonLayer {
            containers: rings(&map.containers),
            swamps: rings(map.swamps.iter().map(|swamp| &swamp.ring)),
            obstacles: rings(&map.obstacles),
            roads: rings(&map.roads),
            bridges: map
                .bridges
                .iter()
                .map(|bridge| Bridge {
                    id: bridge.id,
                    deck: bridge.deck().map(pair),
                    standing: true,
                })
                .collect(),
            bridge_changes: Vec::new(),
            standing: Vec::new(),
        };
        layer.standing = layer.standing_now(sim);
        for (bridge, &standing) in layer.bridges.iter_mut().zip(&layer.standing) {
            bridge.standing = standing;
        }
        layer
    }

    /// Whether each bridge stands in `sim`'s world (a bridge the
    /// navigator no longer knows is down).
    fn standing_now(&self, sim: &Sim) -> Vec<bool> {
        let navigator = sim.config().map.polygon();
        self.bridges
            .iter()
            .map(|bridge| {
                navigator.is_some_and(|nav| nav.bridge_in_world(bridge.id).unwrap_or(false))
            })
            .collect()
    }

    fn record(&mut self, sim: &Sim, frame: usize) {
        let now = self.standing_now(sim);
        for (bridge, (&then, &standing)) in self.standing.iter().zip(&now).enumerate() {
            if then != standing {
                self.bridge_changes.push(BridgeChange {
                    frame,
                    bridge,
                    standing,
                });
            }
        }
        self.standing = now;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use convoy::glam::Vec2;
    use convoy::nav::Mobility;

    fn profiles() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../profiles")
    }

    /// Each cell's class as the player paints it: the runs written into
    /// a blank picture, refusing any cell painted twice.
    fn decode(layer: &GridLayer) -> Vec<Option<u32>> {
        let width = layer.width as usize;
        let mut cells = vec![None; width * layer.height as usize];
        for run in layer.runs.chunks_exact(4) {
            let [row, first, length, class] = [run[0], run[1], run[2], run[3]].map(|v| v as usize);
            for x in first..first + length {
                assert_eq!(cells[row * width + x], None, "cell ({x}, {row}) twice");
                cells[row * width + x] = Some(class as u32);
            }
        }
        cells
    }

    /// The class the player should paint each cell, cell by cell.
    fn oracle(map: &GridMap, world: &WorldMap) -> Vec<Option<u32>> {
        let mut cells = Vec::new();
        for y in 0..map.height() {
            for x in 0..map.width() {
                let cell = Cell::new(x, y);
                let name = match map.terrain(cell).unwrap() {
                    Terrain::Blocked => "blocked",
                    Terrain::Swamp => "swamp",
                    Terrain::Water => "water",
                    Terrain::Open if world.on_road(world.centre_of(cell)) => "road",
                    Terrain::Open => {
                        cells.push(None);
                        continue;
                    }
                };
                cells.push(CELL_CLASSES.iter().position(|c| c.name == name));
            }
        }
        cells.into_iter().map(|c| c.map(|c| c as u32)).collect()
    }

    #[test]
    fn grid_runs_paint_every_cell_of_real_maps_as_its_terrain() {
        for name in ["arena2.map", "armada.map"] {
            let map = load_map(profiles().join("maps").join(name)).unwrap();
            let world =
                WorldMap::new(&map, Mobility::GROUND, Vec2::new(-100.0, 50.0), 8.0).unwrap();
            let layer = GridLayer::new(&map, &world).unwrap();
            assert_eq!((layer.width, layer.height), (map.width(), map.height()));
            assert_eq!((layer.origin, layer.cell_size), ([-100.0, 50.0], 8.0));
            let painted = decode(&layer);
            assert_eq!(painted, oracle(&map, &world), "{name}");
            assert!(painted.iter().any(Option::is_some), "{name} has walls");
        }
    }

    #[test]
    fn grid_runs_carry_water_swamps_and_roads() {
        use Terrain::{Blocked as B, Open as O, Swamp as S, Water as W};
        let terrain = vec![B, B, O, O, W, W, S, O, O, O, O, B];
        let map = GridMap::new(4, 3, terrain).unwrap();
        let world = WorldMap::new(&map, Mobility::GROUND, Vec2::ZERO, 2.0)
            .unwrap()
            .with_roads([Cell::new(3, 1), Cell::new(0, 2), Cell::new(1, 2)]);
        let layer = GridLayer::new(&map, &world).unwrap();
        let painted = decode(&layer);
        assert_eq!(painted, oracle(&map, &world));
        assert_eq!(
            layer.runs,
            [
                0, 0, 2, 0, 1, 0, 2, 2, 1, 2, 1, 1, 1, 3, 1, 3, 2, 0, 2, 3, 2, 3, 1, 0
            ],
            "one run per stretch of equal terrain"
        );
    }

    #[test]
    fn a_map_of_another_size_is_refused() {
        let world = WorldMap::new(
            &GridMap::open(5, 5).unwrap(),
            Mobility::GROUND,
            Vec2::ZERO,
            1.0,
        )
        .unwrap();
        let error = GridLayer::new(&GridMap::open(4, 5).unwrap(), &world).unwrap_err();
        assert!(
            error.contains("4 × 5") && error.contains("5 × 5"),
            "{error}"
        );
    }

    #[test]
    fn a_bridge_taken_down_is_recorded_at_its_frame() {
        let mut profile = Profile::load(&profiles().join("river.toml")).unwrap();
        profile.scenario.units = 10;
        let mut sim = convoy_scenarios::build(&profile, 1).unwrap();
        let mut layer = MapLayer::of(&profile, &sim).unwrap().unwrap();
        layer.record(&sim, 1);
        sim.remove_bridge(1, &[]).unwrap();
        layer.record(&sim, 2);
        layer.record(&sim, 3);
        let MapLayer::Polygon(polygon) = &layer else {
            panic!("river is a polygon map");
        };
        assert_eq!(polygon.bridges.len(), 1);
        assert!(polygon.bridges[0].standing, "standing at the first frame");
        assert_eq!(
            polygon.bridge_changes,
            [BridgeChange {
                frame: 2,
                bridge: 0,
                standing: false
            }]
        );
        assert_eq!(polygon.obstacles.len(), 3);
    }

    #[test]
    fn map_layers_are_named_as_the_renderers() {
        let layer = PolygonLayer {
            containers: vec![Vec::new()],
            swamps: vec![Vec::new()],
            obstacles: vec![Vec::new()],
            roads: vec![Vec::new()],
            bridges: vec![Bridge {
                id: 1,
                deck: [[0.0; 2]; 3],
                standing: true,
            }],
            bridge_changes: Vec::new(),
            standing: Vec::new(),
        };
        let names = MapLayer::Polygon(layer).layer_names();
        assert_eq!(names.len(), 5);
        for name in names.into_iter().chain(["terrain"]) {
            assert!(crate::render::layers::by_name(name).is_some(), "{name}");
        }
    }
}
