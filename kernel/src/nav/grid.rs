//! Grid maps: per-cell terrain, and the per-mobility cost grid planners search.
//!
//! A [`GridMap`] is what a map file says: one [`Terrain`] per cell, row-major,
//! `y` growing downwards as in the Moving AI files (row 0 is the first map
//! line). A [`Mobility`] says what a kind of unit can cross and at what cost,
//! and [`CostGrid::new`] turns the two into the flat array the planners read,
//! once per map and movement mode (the "uniform grid with a movement cost per
//! cell" of Davis, *Warp Speed: Path Planning for Star Trek: Armada*, AAAI
//! Spring Symposium 2000, section "The Quadtree"; terrain letters as in
//! Sturtevant, *Benchmarks for Grid-Based Pathfinding*, IEEE TCIAIG 2012).
//!
//! # Terrain choices
//! - `.` and `G` are open ground, multiplier 1.
//! - `@`, `O` (out of bounds) and `T` (trees) are blocked for everyone.
//! - `S` (swamp) is slow ground: passable for [`Mobility::GROUND`] with the
//!   multiplier [`SWAMP_COST`] = 3. (Moving AI treats swamp as plain
//!   passable; none of the shipped benchmark maps contains one, so their
//!   optimal lengths are unaffected. Use a [`Mobility`] with `swamp: Some(1.0)`
//!   to reproduce Moving AI semantics exactly.)
//! - `W` (water) is blocked for ground units and the only passable terrain for
//!   [`Mobility::NAVAL`] — Moving AI's "water is passable only from water".
//!
//! The cost grid is stored with a one-cell blocked border so neighbour
//! lookups need no bounds checks; [`CostGrid::index`] hides that layout.

use thiserror::Error;

use super::regions::RegionLabels;

/// Cost multiplier of swamp for [`Mobility::GROUND`].
pub const SWAMP_COST: f32 = 3.0;

/// What a cell is made of.
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Terrain {
    /// `@`, `O`, `T`: nobody passes.
    Blocked = 0,
    /// `.`, `G`: open ground.
    Open = 1,
    /// `S`: slow ground.
    Swamp = 2,
    /// `W`: water.
    Water = 3,
}

impl Terrain {
    /// The terrain a Moving AI map character stands for, if any.
    #[must_use]
    pub fn from_movingai(c: u8) -> Option<Self> {
        match c {
            b'.' | b'G' => Some(Self::Open),
            b'@' | b'O' | b'T' => Some(Self::Blocked),
            b'S' => Some(Self::Swamp),
            b'W' => Some(Self::Water),
            _ => None,
        }
    }
}

/// A cell coordinate: `x` is the column, `y` the row (row 0 is the map's
/// first line).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    /// Column.
    pub x: u32,
    /// Row.
    pub y: u32,
}

impl Cell {
    /// The cell at column `x`, row `y`.
    #[must_use]
    pub const fn new(x: u32, y: u32) -> Self {
        Self { x, y }
    }
}

/// A rectangle of cells, both corners included: columns `min.x..=max.x`,
/// rows `min.y..=max.y`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CellRect {
    /// The corner with the lowest column and row.
    pub min: Cell,
    /// The corner with the highest column and row.
    pub max: Cell,
}

impl CellRect {
    /// The rectangle from `min` to `max`, both included.
    #[must_use]
    pub const fn new(min: Cell, max: Cell) -> Self {
        Self { min, max }
    }

    /// Whether `cell` lies inside.
    #[must_use]
    pub fn contains(&self, cell: Cell) -> bool {
        (self.min.x..=self.max.x).contains(&cell.x) && (self.min.y..=self.max.y).contains(&cell.y)
    }

    /// Every cell inside, row by row.
    pub fn cells(self) -> impl Iterator<Item = Cell> {
        (self.min.y..=self.max.y)
            .flat_map(move |y| (self.min.x..=self.max.x).map(move |x| Cell::new(x, y)))
    }
}

/// Largest number of cells a map may have (the padded grid is indexed by
/// `u32`).
pub const MAX_CELLS: usize = 1 << 28;

/// A rectangular map of terrain, as loaded from a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GridMap {
    width: u32,
    height: u32,
    terrain: Vec<Terrain>,
}

/// Why a [`GridMap`] could not be built from parts.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GridError {
    /// Width or height is zero, or the map has more than [`MAX_CELLS`] cells.
    #[error("a grid map must be between 1x1 and {MAX_CELLS} cells, was {width}x{height}")]
    BadSize {
        /// Requested width.
        width: u64,
        /// Requested height.
        height: u64,
    },
    /// The terrain vector does not hold `width * height` cells.
    #[error("a {width}x{height} map needs {expected} cells, got {actual}")]
    CellCount {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
        /// `width * height`.
        expected: usize,
        /// Cells given.
        actual: usize,
    },
}

/// Checks a map size; shared with the loader.
pub(crate) fn check_size(width: u64, height: u64) -> Result<(u32, u32), GridError> {
    let bad = GridError::BadSize { width, height };
    if width == 0 || height == 0 {
        return Err(bad);
    }
    // Checked throughout: a header may declare any `u64`.
    let padded = width
        .checked_add(2)
        .zip(height.checked_add(2))
        .and_then(|(w, h)| w.checked_mul(h));
    match padded {
        Some(padded) if padded <= MAX_CELLS as u64 => Ok((width as u32, height as u32)),
        _ => Err(bad),
    }
}

impl GridMap {
    /// A map from its row-major terrain (`terrain[y * width + x]`).
    pub fn new(width: u32, height: u32, terrain: Vec<Terrain>) -> Result<Self, GridError> {
        let (width, height) = check_size(u64::from(width), u64::from(height))?;
        let expected = width as usize * height as usize;
        if terrain.len() != expected {
            return Err(GridError::CellCount {
                width,
                height,
                expected,
                actual: terrain.len(),
            });
        }
        Ok(Self {
            width,
            height,
            terrain,
        })
    }

    /// An all-open map.
    pub fn open(width: u32, height: u32) -> Result<Self, GridError> {
        let (width, height) = check_size(u64::from(width), u64::from(height))?;
        Self::new(
            width,
            height,
            vec![Terrain::Open; width as usize * height as usize],
        )
    }

    /// Columns.
    #[must_use]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Rows.
    #[must_use]
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Whether `cell` lies on the map.
    #[must_use]
    pub fn contains(&self, cell: Cell) -> bool {
        cell.x < self.width && cell.y < self.height
    }

    /// The terrain at `cell`, or `None` off the map.
    #[must_use]
    pub fn terrain(&self, cell: Cell) -> Option<Terrain> {
        self.contains(cell)
            .then(|| self.terrain[cell.y as usize * self.width as usize + cell.x as usize])
    }

    /// All cells, row-major.
    #[must_use]
    pub fn cells(&self) -> &[Terrain] {
        &self.terrain
    }

    /// Sets the terrain at `cell`; returns `false` (and changes nothing) off
    /// the map.
    pub fn set(&mut self, cell: Cell, terrain: Terrain) -> bool {
        if !self.contains(cell) {
            return false;
        }
        self.terrain[cell.y as usize * self.width as usize + cell.x as usize] = terrain;
        true
    }
}

/// What a kind of unit can cross, and the cost multiplier of each terrain
/// (`None`: impassable). Blocked cells are impassable for every mobility.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mobility {
    /// Multiplier on open ground.
    pub open: Option<f32>,
    /// Multiplier in swamp.
    pub swamp: Option<f32>,
    /// Multiplier on water.
    pub water: Option<f32>,
}

/// A [`Mobility`] whose multipliers are not finite and at least 1.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
#[error(
    "terrain cost multipliers must be finite and at least 1 (so the octile heuristic stays admissible), {terrain} was {value}"
)]
pub struct MobilityError {
    /// Which terrain.
    pub terrain: &'static str,
    /// Its multiplier.
    pub value: f32,
}

impl Mobility {
    /// Ground units: open ground at 1, swamp at [`SWAMP_COST`], no water.
    pub const GROUND: Self = Self {
        open: Some(1.0),
        swamp: Some(SWAMP_COST),
        water: None,
    };
    /// Ships: water only.
    pub const NAVAL: Self = Self {
        open: None,
        swamp: None,
        water: Some(1.0),
    };

    /// Checks that every multiplier is finite and at least 1.
    pub fn validate(&self) -> Result<(), MobilityError> {
        for (terrain, cost) in [
            ("open", self.open),
            ("swamp", self.swamp),
            ("water", self.water),
        ] {
            if let Some(value) = cost
                && !(value.is_finite() && value >= 1.0)
            {
                return Err(MobilityError { terrain, value });
            }
        }
        Ok(())
    }

    /// The multiplier of `terrain`, or `None` where this mobility cannot go.
    #[must_use]
    pub fn cost(&self, terrain: Terrain) -> Option<f32> {
        match terrain {
            Terrain::Blocked => None,
            Terrain::Open => self.open,
            Terrain::Swamp => self.swamp,
            Terrain::Water => self.water,
        }
    }
}

/// Marks an impassable cell in [`CostGrid`]'s multiplier array.
pub(crate) const BLOCKED: f32 = f32::INFINITY;

/// A map as one mobility sees it: per-cell cost multipliers (with a blocked
/// border) and the connected regions. Built once per map and mobility; read
/// by any number of planners at once.
#[derive(Clone, Debug)]
pub struct CostGrid {
    width: u32,
    height: u32,
    /// Row stride of the padded arrays (`width + 2`).
    stride: u32,
    /// Multiplier per padded cell, [`BLOCKED`] where impassable.
    cost: Vec<f32>,
    /// The multiplier every passable cell shares, if they all share one.
    uniform_cost: Option<f32>,
    regions: RegionLabels,
}

impl CostGrid {
    /// The cost grid of `map` for `mobility`.
    pub fn new(map: &GridMap, mobility: Mobility) -> Result<Self, MobilityError> {
        mobility.validate()?;
        let stride = map.width + 2;
        let padded = stride as usize * (map.height as usize + 2);
        let mut cost = vec![BLOCKED; padded];
        for (y, row) in map.terrain.chunks_exact(map.width as usize).enumerate() {
            let start = (y + 1) * stride as usize + 1;
            for (slot, &terrain) in cost[start..start + row.len()].iter_mut().zip(row) {
                *slot = mobility.cost(terrain).unwrap_or(BLOCKED);
            }
        }
        let regions = RegionLabels::label(&cost, stride as usize, BLOCKED);
        let uniform_cost = uniform(&cost);
        Ok(Self {
            width: map.width,
            height: map.height,
            stride,
            cost,
            uniform_cost,
            regions,
        })
    }

    /// Columns.
    #[must_use]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Rows.
    #[must_use]
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Cells on the map (without the border).
    #[must_use]
    pub fn cell_count(&self) -> usize {
        self.width as usize * self.height as usize
    }

    /// Whether `cell` lies on the map.
    #[must_use]
    pub fn contains(&self, cell: Cell) -> bool {
        cell.x < self.width && cell.y < self.height
    }

    /// Index of an on-map `cell` in the padded arrays.
    #[must_use]
    pub fn index(&self, cell: Cell) -> usize {
        (cell.y as usize + 1) * self.stride as usize + cell.x as usize + 1
    }

    /// The cell at padded index `index` (which must be on the map).
    #[must_use]
    pub fn cell(&self, index: usize) -> Cell {
        let stride = self.stride as usize;
        Cell::new((index % stride - 1) as u32, (index / stride - 1) as u32)
    }

    /// Row stride of the padded arrays.
    #[must_use]
    pub(crate) fn stride(&self) -> usize {
        self.stride as usize
    }

    /// Number of padded cells.
    #[must_use]
    pub(crate) fn padded_len(&self) -> usize {
        self.cost.len()
    }

    /// Multipliers of the padded cells.
    #[must_use]
    pub(crate) fn costs(&self) -> &[f32] {
        &self.cost
    }

    /// The multiplier every passable cell shares, or `None` when they differ
    /// (or none is passable): where it is `Some`, grid A* may jump.
    #[must_use]
    pub(crate) fn uniform_cost(&self) -> Option<f32> {
        self.uniform_cost
    }

    /// The multiplier of `cell`, or `None` if it is off the map or
    /// impassable.
    #[must_use]
    pub fn cost(&self, cell: Cell) -> Option<f32> {
        if !self.contains(cell) {
            return None;
        }
        let c = self.cost[self.index(cell)];
        (c != BLOCKED).then_some(c)
    }

    /// One bit per cell of row `y` from column `x0`, set where passable:
    /// `count` cells (at most 128), which may include the blocked border
    /// (column or row −1, `width`, `height`).
    pub(crate) fn open_bits(&self, x0: i64, y: i64, count: usize) -> u128 {
        let start = (y + 1) as usize * self.stride as usize + (x0 + 1) as usize;
        let row = &self.cost[start..start + count.min(128)];
        row.iter().enumerate().fold(0, |bits, (i, &cost)| {
            bits | u128::from(cost != BLOCKED) << i
        })
    }

    /// Whether this mobility can stand on `cell` (false off the map).
    #[must_use]
    pub fn passable(&self, cell: Cell) -> bool {
        self.cost(cell).is_some()
    }

    /// Re-reads the cells of `rect` from `map` (edited there) for
    /// `mobility`, the mobility this grid was built with, then the shared
    /// multiplier and the region labels (a flood fill of the whole map: a
    /// fraction of a millisecond on a 256 × 256 map).
    pub(crate) fn repaint(&mut self, map: &GridMap, mobility: Mobility, rect: CellRect) {
        for cell in rect.cells() {
            let terrain = map.terrain(cell).expect("the caller checked the rectangle");
            let index = self.index(cell);
            self.cost[index] = mobility.cost(terrain).unwrap_or(BLOCKED);
        }
        self.uniform_cost = uniform(&self.cost);
        self.regions = RegionLabels::label(&self.cost, self.stride as usize, BLOCKED);
    }

    /// The connected regions (computed once, in [`CostGrid::new`]).
    #[must_use]
    pub fn regions(&self) -> &RegionLabels {
        &self.regions
    }

    /// The region of `cell`, or `None` if it is off the map or impassable.
    #[must_use]
    pub fn region(&self, cell: Cell) -> Option<u32> {
        if !self.contains(cell) {
            return None;
        }
        self.regions.label_at(self.index(cell))
    }

    /// Whether a path from `a` to `b` exists: both passable and in the same
    /// region. Answered in constant time, without searching.
    #[must_use]
    pub fn connected(&self, a: Cell, b: Cell) -> bool {
        match (self.region(a), self.region(b)) {
            (Some(ra), Some(rb)) => ra == rb,
            _ => false,
        }
    }

    /// Whether the one-cell step from `from` to the neighbour `to` is allowed:
    /// both on the map and passable, and for a diagonal step both side cells
    /// passable too (no corner cutting). Not a neighbour: `false`.
    #[must_use]
    pub fn step_allowed(&self, from: Cell, to: Cell) -> bool {
        let dx = i64::from(to.x) - i64::from(from.x);
        let dy = i64::from(to.y) - i64::from(from.y);
        if dx.abs() > 1 || dy.abs() > 1 || (dx == 0 && dy == 0) {
            return false;
        }
        if !self.passable(from) || !self.passable(to) {
            return false;
        }
        dx == 0
            || dy == 0
            || (self.passable(Cell::new(to.x, from.y)) && self.passable(Cell::new(from.x, to.y)))
    }

    /// The cost of one allowed step between neighbours: step length (1 or
    /// √2) times the mean of the two cells' multipliers. `None` if the step is
    /// not allowed.
    #[must_use]
    pub fn step_cost(&self, from: Cell, to: Cell) -> Option<f64> {
        if !self.step_allowed(from, to) {
            return None;
        }
        let len = if from.x != to.x && from.y != to.y {
            std::f64::consts::SQRT_2
        } else {
            1.0
        };
        let a = f64::from(self.cost[self.index(from)]);
        let b = f64::from(self.cost[self.index(to)]);
        Some(len * (a + b) * 0.5)
    }
}

/// The multiplier every passable cell of `cost` shares, if one does.
fn uniform(cost: &[f32]) -> Option<f32> {
    let mut passable = cost.iter().copied().filter(|&c| c != BLOCKED);
    let first = passable.next();
    first.filter(|&c| passable.all(|other| other == c))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn map(rows: &[&str]) -> GridMap {
        let h = rows.len() as u32;
        let w = rows[0].len() as u32;
        let terrain = rows
            .iter()
            .flat_map(|r| r.bytes().map(|c| Terrain::from_movingai(c).unwrap()))
            .collect();
        GridMap::new(w, h, terrain).unwrap()
    }

    #[test]
    fn diagonal_steps_need_both_side_cells_free() {
        let g = CostGrid::new(&map(&[".@", ".."]), Mobility::GROUND).unwrap();
        assert!(!g.step_allowed(Cell::new(0, 0), Cell::new(1, 1)));
        assert!(g.step_allowed(Cell::new(0, 0), Cell::new(0, 1)));
        let open = CostGrid::new(&map(&["..", ".."]), Mobility::GROUND).unwrap();
        assert!(open.step_allowed(Cell::new(0, 0), Cell::new(1, 1)));
        assert_eq!(
            open.step_cost(Cell::new(0, 0), Cell::new(1, 1)),
            Some(std::f64::consts::SQRT_2)
        );
    }

    #[test]
    fn swamp_steps_cost_the_mean_of_both_multipliers() {
        let g = CostGrid::new(&map(&[".S"]), Mobility::GROUND).unwrap();
        let expected = f64::midpoint(1.0, f64::from(SWAMP_COST));
        assert_eq!(
            g.step_cost(Cell::new(0, 0), Cell::new(1, 0)),
            Some(expected)
        );
    }

    #[test]
    fn water_is_blocked_for_ground_and_the_only_way_for_ships() {
        let m = map(&[".W"]);
        let ground = CostGrid::new(&m, Mobility::GROUND).unwrap();
        let naval = CostGrid::new(&m, Mobility::NAVAL).unwrap();
        assert!(ground.passable(Cell::new(0, 0)) && !ground.passable(Cell::new(1, 0)));
        assert!(!naval.passable(Cell::new(0, 0)) && naval.passable(Cell::new(1, 0)));
    }

    #[test]
    fn mobility_multipliers_below_one_are_rejected() {
        let bad = Mobility {
            swamp: Some(0.5),
            ..Mobility::GROUND
        };
        assert_eq!(
            CostGrid::new(&map(&["."]), bad).err(),
            Some(MobilityError {
                terrain: "swamp",
                value: 0.5
            })
        );
    }

    #[test]
    fn padded_index_round_trips_every_cell() {
        let g = CostGrid::new(&GridMap::open(5, 3).unwrap(), Mobility::GROUND).unwrap();
        for y in 0..3 {
            for x in 0..5 {
                let c = Cell::new(x, y);
                assert_eq!(g.cell(g.index(c)), c);
            }
        }
    }

    #[test]
    fn zero_sized_maps_are_rejected() {
        assert!(matches!(
            GridMap::open(0, 3),
            Err(GridError::BadSize { .. })
        ));
    }
}
