//! Polygon maps as grids: the terrain the tick's local checks read.
//!
//! On a polygon map the routes come from the visibility graph, but the
//! rest of the tick asks local questions of the ground — is the straight
//! line from a unit to its drive-to point clear (route following, the
//! bad-position check, formation slots), how slow is the ground under a
//! unit, where is the nearest cell a bounded search reaches (Company of
//! Heroes softening). Those are answered on a grid ([`WorldMap`]), so a
//! polygon map is also rasterised: a cell is classified by its centre —
//! blocked outside every container or inside an obstacle, swamp inside a
//! swamp, open otherwise — and then every cell a bridge's deck (end,
//! middle, end) passes over is open, so units cross on it. The cells a road
//! passes over are marked as road ([`WorldMap::on_road`]): Company of
//! Heroes squads close into a staggered column there.
//!
//! Bridges come and go at run time ([`crate::Sim::remove_bridge`],
//! [`crate::Sim::add_bridge`]), so the raster keeps the terrain without any
//! deck: [`redraw_bridge_decks`] draws the standing decks over it again, and
//! gives exactly what [`rasterize`] gives for the map with those bridges (a
//! removed deck's cells get back the river, or whatever lies below).
//!
//! Swamp cells slow units by the grid's swamp multiplier
//! ([`crate::nav::grid::SWAMP_COST`]), not by each swamp polygon's own
//! cost, which the route planner uses. The obstacles are rasterised as
//! drawn, without the planner's clearance.

use std::sync::Arc;

use glam::DVec2;
use thiserror::Error;

use super::{BridgeSpec, PolygonMap, Ring, point_in_ring};
use crate::nav::grid::{Cell, CellRect, GridError, GridMap, Terrain, check_size};
use crate::nav::world::WorldMapError;
use crate::nav::{Mobility, WorldMap};

/// Why a polygon map cannot be rasterised.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum RasterError {
    /// The cell size is not a positive finite number of metres.
    #[error("the raster cell size must be a positive number of metres, was {0}")]
    BadCellSize(f32),
    /// The map holds too many cells of that size.
    #[error("the map is too large for cells of {cell_size} m: {source}")]
    TooLarge {
        /// The cell size.
        cell_size: f32,
        /// The grid's refusal.
        source: GridError,
    },
    /// The world map was refused: the cell size is outside
    /// [`MIN_CELL_SIZE`](crate::nav::world::MIN_CELL_SIZE) to
    /// [`MAX_CELL_SIZE`](crate::nav::world::MAX_CELL_SIZE), or the map lies
    /// beyond finite coordinates.
    #[error(transparent)]
    World(#[from] WorldMapError),
}

/// `map` rasterised at `cell_size` metres a cell, placed so that cell
/// `(0, 0)` starts at the containers' lowest corner.
///
/// # Errors
/// [`RasterError`]: a bad cell size, or too many cells.
pub fn rasterize(map: &PolygonMap, cell_size: f32) -> Result<WorldMap, RasterError> {
    if !(cell_size.is_finite() && cell_size > 0.0) {
        return Err(RasterError::BadCellSize(cell_size));
    }
    let (low, high) = containers_bounds(map);
    let size = f64::from(cell_size);
    let cells = |extent: f64| (extent / size).ceil().clamp(1.0, f64::from(u32::MAX)) as u64;
    let too_large = |source| RasterError::TooLarge { cell_size, source };
    let (width, height) =
        check_size(cells(high.x - low.x), cells(high.y - low.y)).map_err(too_large)?;
    let terrain = vec![Terrain::Blocked; width as usize * height as usize];
    let mut grid = GridMap::new(width, height, terrain).map_err(too_large)?;
    let frame = Frame { low, size };
    for container in &map.containers {
        paint(&mut grid, frame, container, |_| Some(Terrain::Open));
    }
    for obstacle in &map.obstacles {
        paint(&mut grid, frame, obstacle, |_| Some(Terrain::Blocked));
    }
    for swamp in &map.swamps {
        paint(&mut grid, frame, &swamp.ring, |terrain| {
            (terrain == Terrain::Open).then_some(Terrain::Swamp)
        });
    }
    let roads = map
        .roads
        .iter()
        .flat_map(|road| road.windows(2))
        .flat_map(|piece| cells_along(&grid, frame, piece[0], piece[1]))
        .collect();
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(&grid.width().to_le_bytes());
    hasher.update(&grid.height().to_le_bytes());
    let cells: Vec<u8> = grid.cells().iter().map(|&cell| cell as u8).collect();
    hasher.update(&cells);
    hasher.update(bytemuck::bytes_of(&frame.low));
    hasher.update(&cell_size.to_le_bytes());
    let ground = Arc::new(Ground {
        terrain: grid,
        roads,
        frame,
        cell_size,
        mobility: Mobility::GROUND,
        identity: hasher.digest(),
    });
    Ok(draw_decks(
        ground,
        map.bridges.iter().map(BridgeSpec::deck),
    )?)
}

/// `world` with its bridge decks redrawn: the terrain without any deck,
/// then every cell each of `decks` (end, middle, end) passes over opened —
/// what [`rasterize`] gives for the map with just those bridges. `None`
/// when `world` is not a rasterised polygon map. Builds a new map
/// (allocates): call it between ticks, when a bridge is added or removed.
#[must_use]
pub fn redraw_bridge_decks(
    world: &WorldMap,
    decks: impl IntoIterator<Item = [DVec2; 3]>,
) -> Option<WorldMap> {
    let ground = Arc::clone(world.ground()?);
    // The mobility was valid when the raster was first drawn.
    draw_decks(ground, decks).ok()
}

/// A rasterised polygon map's terrain without bridge decks, and where it
/// lies, kept so the decks can be redrawn when bridges come and go (and
/// obstacles painted in or out).
#[derive(Debug)]
pub(crate) struct Ground {
    terrain: GridMap,
    /// The cells the roads pass over.
    roads: Vec<Cell>,
    frame: Frame,
    cell_size: f32,
    mobility: Mobility,
    /// A hash of the ground as first drawn (size, cells, frame).
    identity: u64,
}

impl Ground {
    /// A hash of the ground as first drawn, before any run-time change.
    pub(crate) fn identity(&self) -> u64 {
        self.identity
    }
}

/// `world` (a rasterised polygon map) with every cell whose centre lies in
/// the box `low`–`high` classified again from `map` — the map with its
/// run-time obstacles — as [`rasterize`] classifies it, and the standing
/// `decks` drawn over it again. The cells that change go through
/// [`WorldMap`]'s own edit (costs, regions, the blocked-cell table, the
/// HPA* clusters they touch), so the result equals the raster of `map`
/// drawn from scratch. Returns the new map and the rectangle of changed
/// cells (`None`: none changed); `None` when `world` is not a rasterised
/// polygon map.
#[must_use]
pub(crate) fn repaint_box(
    world: &WorldMap,
    map: &PolygonMap,
    (low, high): (DVec2, DVec2),
    decks: impl IntoIterator<Item = [DVec2; 3]>,
) -> Option<(WorldMap, Option<CellRect>)> {
    let old = world.ground()?;
    let frame = old.frame;
    let mut terrain = old.terrain.clone();
    let [xs, ys] = frame.cells_over(&terrain, low, high);
    for y in ys.clone() {
        for x in xs.clone() {
            terrain.set(Cell::new(x, y), classify(map, frame.centre(x, y)));
        }
    }
    let ground = Arc::new(Ground {
        terrain,
        roads: old.roads.clone(),
        frame,
        cell_size: old.cell_size,
        mobility: old.mobility,
        identity: old.identity,
    });
    let mut target = ground.terrain.clone();
    for deck in decks {
        for piece in deck.windows(2) {
            for cell in cells_along(&target, frame, piece[0], piece[1]) {
                target.set(cell, Terrain::Open);
            }
        }
    }
    let mut edited = world.clone().with_ground(ground);
    let changed = if xs.is_empty() || ys.is_empty() {
        None
    } else {
        let rect = CellRect::new(
            Cell::new(xs.start, ys.start),
            Cell::new(xs.end - 1, ys.end - 1),
        );
        edited.copy_cells(rect, &target)
    };
    Some((edited, changed))
}

/// The terrain [`rasterize`] gives a cell whose centre is `centre`: open
/// inside a container, blocked inside an obstacle (or outside every
/// container), swamp where open ground lies in a swamp.
fn classify(map: &PolygonMap, centre: DVec2) -> Terrain {
    let inside = |ring: &Ring| point_in_ring(centre, ring);
    let mut terrain = Terrain::Blocked;
    if map.containers.iter().any(inside) {
        terrain = Terrain::Open;
    }
    if map.obstacles.iter().any(inside) {
        terrain = Terrain::Blocked;
    }
    if terrain == Terrain::Open && map.swamps.iter().any(|swamp| inside(&swamp.ring)) {
        terrain = Terrain::Swamp;
    }
    terrain
}

/// The world map of `ground` with every cell of `decks` opened.
fn draw_decks(
    ground: Arc<Ground>,
    decks: impl IntoIterator<Item = [DVec2; 3]>,
) -> Result<WorldMap, WorldMapError> {
    let mut grid = ground.terrain.clone();
    for deck in decks {
        for piece in deck.windows(2) {
            for cell in cells_along(&grid, ground.frame, piece[0], piece[1]) {
                grid.set(cell, Terrain::Open);
            }
        }
    }
    let origin = ground.frame.low.as_vec2();
    let world = WorldMap::new(&grid, ground.mobility, origin, ground.cell_size)?;
    Ok(world
        .with_roads(ground.roads.iter().copied())
        .with_ground(ground))
}

/// Where cell `(0, 0)` starts and how big a cell is.
#[derive(Clone, Copy, Debug)]
struct Frame {
    low: DVec2,
    size: f64,
}

impl Frame {
    fn centre(self, x: u32, y: u32) -> DVec2 {
        self.low + (DVec2::new(f64::from(x), f64::from(y)) + 0.5) * self.size
    }

    /// The cells whose centres may lie in `[from, to]`, clipped to `grid`.
    fn cells_over(self, grid: &GridMap, from: DVec2, to: DVec2) -> [std::ops::Range<u32>; 2] {
        let index = |v: f64, cells: u32| {
            ((v - 0.5 * self.size) / self.size)
                .floor()
                .clamp(0.0, f64::from(cells)) as u32
        };
        let top = |v: f64, cells: u32| {
            ((v - 0.5 * self.size) / self.size)
                .ceil()
                .clamp(0.0, f64::from(cells - 1)) as u32
                + 1
        };
        let (a, b) = (from - self.low, to - self.low);
        [
            index(a.x, grid.width())..top(b.x, grid.width()),
            index(a.y, grid.height())..top(b.y, grid.height()),
        ]
    }
}

/// The lowest and highest corners of the containers' bounding box.
fn containers_bounds(map: &PolygonMap) -> (DVec2, DVec2) {
    let points = map.containers.iter().flatten();
    let low = points
        .clone()
        .fold(DVec2::splat(f64::INFINITY), |a, &p| a.min(p));
    let high = points.fold(DVec2::splat(f64::NEG_INFINITY), |a, &p| a.max(p));
    if low.is_finite() && high.is_finite() {
        (low, high)
    } else {
        (DVec2::ZERO, DVec2::ONE)
    }
}

/// Sets every cell whose centre lies inside `ring` to what `to` makes of
/// its terrain (`None`: unchanged).
fn paint(grid: &mut GridMap, frame: Frame, ring: &Ring, to: impl Fn(Terrain) -> Option<Terrain>) {
    let low = ring
        .iter()
        .fold(DVec2::splat(f64::INFINITY), |a, &p| a.min(p));
    let high = ring
        .iter()
        .fold(DVec2::splat(f64::NEG_INFINITY), |a, &p| a.max(p));
    let [xs, ys] = frame.cells_over(grid, low, high);
    for y in ys {
        for x in xs.clone() {
            let cell = Cell::new(x, y);
            if !point_in_ring(frame.centre(x, y), ring) {
                continue;
            }
            if let Some(terrain) = grid.terrain(cell).and_then(&to) {
                grid.set(cell, terrain);
            }
        }
    }
}

/// The cells the segment `a`–`b` passes over: those whose centre is
/// within half a cell's diagonal of it (a superset of the cells it
/// crosses, so a line of sight along a bridge's deck is clear and a unit
/// on a road's line is on a road cell).
fn cells_along(grid: &GridMap, frame: Frame, a: DVec2, b: DVec2) -> Vec<Cell> {
    let reach = frame.size * std::f64::consts::FRAC_1_SQRT_2;
    let [xs, ys] = frame.cells_over(grid, a.min(b) - reach, a.max(b) + reach);
    let near = |x: u32, y: u32| {
        let p = frame.centre(x, y);
        let along =
            ((p - a).dot(b - a) / (b - a).length_squared().max(f64::MIN_POSITIVE)).clamp(0.0, 1.0);
        p.distance(a + (b - a) * along) <= reach
    };
    ys.flat_map(|y| xs.clone().map(move |x| (x, y)))
        .filter(|&(x, y)| near(x, y))
        .map(|(x, y)| Cell::new(x, y))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nav::polygon::load_polygon_map;

    fn river_map() -> PolygonMap {
        let file = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../profiles/maps/river_crossing.json"
        );
        load_polygon_map(file).expect("the example map loads")
    }

    /// Which side of `ring` the whole square of `cell` lies on: `Some(true)`
    /// inside, `Some(false)` outside (its corners and centre all on that
    /// side, and no ring vertex within the square), `None` across the
    /// outline.
    fn square_side(world: &WorldMap, cell: Cell, ring: &Ring) -> Option<bool> {
        let (centre, half) = (
            world.centre_of(cell).as_dvec2(),
            0.5 * f64::from(world.cell_size()),
        );
        let corners = [
            (-1.0, -1.0),
            (1.0, -1.0),
            (1.0, 1.0),
            (-1.0, 1.0),
            (0.0, 0.0),
        ];
        let sides = corners.map(|(dx, dy)| point_in_ring(centre + DVec2::new(dx, dy) * half, ring));
        let vertex_within = ring
            .iter()
            .any(|p| (*p - centre).abs().max_element() < half);
        let side = sides[0];
        (!vertex_within && sides.iter().all(|&s| s == side)).then_some(side)
    }

    fn square_inside(world: &WorldMap, cell: Cell, ring: &Ring) -> bool {
        square_side(world, cell, ring) == Some(true)
    }

    fn square_outside(world: &WorldMap, cell: Cell, ring: &Ring) -> bool {
        square_side(world, cell, ring) == Some(false)
    }

    /// Cells wholly inside an obstacle are blocked, cells wholly in the
    /// open (or a swamp) are open (or swamp), and every cell the bridge's
    /// deck crosses is open although the river is below it.
    #[test]
    fn cells_wholly_on_one_side_of_every_outline_take_its_terrain() {
        let map = river_map();
        let world = rasterize(&map, 7.0).expect("valid");
        let (width, height) = (world.grid().width(), world.grid().height());
        assert_eq!((width, height), (143, 143), "1,000 m at 7 m a cell");
        let deck = |cell: Cell| {
            let b = &map.bridges[0];
            let (p, reach) = (
                world.centre_of(cell).as_dvec2(),
                f64::from(world.cell_size()),
            );
            [b.ends[0], b.middle, b.ends[1]].windows(2).any(|w| {
                let t =
                    ((p - w[0]).dot(w[1] - w[0]) / (w[1] - w[0]).length_squared()).clamp(0.0, 1.0);
                p.distance(w[0] + (w[1] - w[0]) * t) <= reach
            })
        };
        let (mut blocked, mut open, mut swamp) = (0, 0, 0);
        for y in 0..height {
            for x in 0..width {
                let cell = Cell::new(x, y);
                let cost = world.grid().cost(cell);
                if map
                    .obstacles
                    .iter()
                    .any(|ring| square_inside(&world, cell, ring))
                    && !deck(cell)
                {
                    assert_eq!(cost, None, "{cell:?} is inside an obstacle");
                    blocked += 1;
                }
                let clear = map
                    .containers
                    .iter()
                    .any(|ring| square_inside(&world, cell, ring))
                    && map
                        .obstacles
                        .iter()
                        .all(|ring| square_outside(&world, cell, ring));
                if !clear {
                    continue;
                }
                if map
                    .swamps
                    .iter()
                    .any(|s| square_inside(&world, cell, &s.ring))
                {
                    assert_eq!(
                        cost,
                        Some(crate::nav::grid::SWAMP_COST),
                        "{cell:?} is in a swamp"
                    );
                    swamp += 1;
                } else if map
                    .swamps
                    .iter()
                    .all(|s| square_outside(&world, cell, &s.ring))
                {
                    assert_eq!(cost, Some(1.0), "{cell:?} is open ground");
                    open += 1;
                }
            }
        }
        assert!(
            blocked > 1_000 && open > 10_000 && swamp > 500,
            "{blocked} {open} {swamp}"
        );
        // Sampled every tenth of a cell along the deck: never a blocked cell,
        // so the line of sight along it is clear.
        let b = &map.bridges[0];
        for w in [b.ends[0], b.middle, b.ends[1]].windows(2) {
            assert!(world.segment_is_clear(w[0].as_vec2(), w[1].as_vec2()));
            for k in 0..=100 {
                let p = w[0].lerp(w[1], f64::from(k) / 100.0).as_vec2();
                let cell = world.cell_at(p).expect("on the map");
                assert!(
                    world.grid().passable(cell),
                    "deck point {p} on a blocked cell"
                );
            }
        }
    }

    #[test]
    fn bad_cell_sizes_and_oversized_maps_are_refused() {
        let map = river_map();
        for size in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            assert!(matches!(
                rasterize(&map, size),
                Err(RasterError::BadCellSize(_))
            ));
        }
        assert!(matches!(
            rasterize(&map, 1e-4),
            Err(RasterError::TooLarge { .. })
        ));
    }
}
