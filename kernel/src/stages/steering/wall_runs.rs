//! The grid's wall segments near a unit, for reciprocal avoidance: every
//! maximal run of cell edges along a grid line with a blocked cell on one
//! side and an open one on the other, as one segment (cells off the map
//! count as blocked).
//!
//! The box of cells about the unit is read once into one bit per cell, and
//! runs are found with bit operations on its rows; a box wider or taller
//! than [`MAX_BOX_CELLS`] is scanned cell by cell instead. Both give the
//! same segments in the same order.

use glam::Vec2;

use crate::nav::{Cell, WorldMap};

/// The widest and tallest box read into bits (one `u128` per row).
pub const MAX_BOX_CELLS: usize = 128;

/// The box of cells within `reach` of a point, in cell coordinates
/// (inclusive; −1 and the map's width or height are the blocked border).
#[derive(Clone, Copy, Debug)]
struct CellBox {
    x0: i64,
    x1: i64,
    y0: i64,
    y1: i64,
}

impl CellBox {
    fn width(self) -> usize {
        (self.x1 - self.x0 + 1) as usize
    }

    fn height(self) -> usize {
        (self.y1 - self.y0 + 1) as usize
    }
}

/// Calls `visit(a, b)` for every run of blocked-cell boundary within
/// `reach` of `centre` (the box of cells about it): row edges first (rows
/// ascending, then x), then column edges (columns ascending, then y).
/// Nothing when the box holds no blocked cell.
///
/// Row runs go toward −x and column runs toward +y, so the right of `a`→`b`
/// is the +y or +x side: the cell a point exactly on the run belongs to.
/// A unit's centre is always in an open cell, so avoidance, which pushes a
/// centre on a segment to its right, pushes it out of the wall.
pub fn for_each_wall_run(map: &WorldMap, centre: Vec2, reach: f32, visit: impl FnMut(Vec2, Vec2)) {
    let Some(cells) = wall_box(map, centre, reach) else {
        return;
    };
    if cells.width() <= MAX_BOX_CELLS && cells.height() <= MAX_BOX_CELLS {
        runs_from_bits(map, cells, visit);
    } else {
        runs_cell_by_cell(map, cells, visit);
    }
}

/// The box about `centre`, or `None` when it is empty or wholly open.
fn wall_box(map: &WorldMap, centre: Vec2, reach: f32) -> Option<CellBox> {
    let grid = map.grid();
    let (width, height) = (i64::from(grid.width()), i64::from(grid.height()));
    let size = map.cell_size();
    let local = (centre - map.origin()) / size;
    let span = (reach / size).ceil() as i64 + 1;
    let (cx, cy) = (local.x.floor() as i64, local.y.floor() as i64);
    let cells = CellBox {
        x0: (cx - span).max(-1),
        x1: (cx + span).min(width),
        y0: (cy - span).max(-1),
        y1: (cy + span).min(height),
    };
    if cells.x0 > cells.x1 || cells.y0 > cells.y1 {
        return None;
    }
    let inside = |x: i64, y: i64| (0..width).contains(&x) && (0..height).contains(&y);
    let clamp = |x: i64, y: i64| Cell::new(x.clamp(0, width - 1) as u32, y.clamp(0, height - 1) as u32);
    let (low, high) = (clamp(cells.x0, cells.y0), clamp(cells.x1, cells.y1));
    let whole = inside(cells.x0, cells.y0) && inside(cells.x1, cells.y1);
    (!(whole && map.all_passable(low, high))).then_some(cells)
}

/// Whether cell `(x, y)` is on the map and open.
fn open(map: &WorldMap, x: i64, y: i64) -> bool {
    let grid = map.grid();
    let inside = (0..i64::from(grid.width())).contains(&x) && (0..i64::from(grid.height())).contains(&y);
    inside && grid.passable(Cell::new(x as u32, y as u32))
}

/// The grid corner `(x, y)` in world coordinates.
fn corner(map: &WorldMap, x: i64, y: i64) -> Vec2 {
    map.origin() + Vec2::new(x as f32, y as f32) * map.cell_size()
}

/// The runs from the box read into bits: bit `i` of `rows[j]` is cell
/// `(x0 + i, y0 + j)` open.
fn runs_from_bits(map: &WorldMap, cells: CellBox, mut visit: impl FnMut(Vec2, Vec2)) {
    let mut rows = [0u128; MAX_BOX_CELLS];
    let rows = &mut rows[..cells.height()];
    for (j, row) in rows.iter_mut().enumerate() {
        *row = map.grid().open_bits(cells.x0, cells.y0 + j as i64, cells.width());
    }
    // Edges along rows: between cells (x, y - 1) and (x, y).
    for j in 1..rows.len() {
        let y = cells.y0 + j as i64;
        for_each_run(rows[j - 1] ^ rows[j], |first, end| {
            visit(corner(map, cells.x0 + end, y), corner(map, cells.x0 + first, y));
        });
    }
    // Edges along columns: between cells (x - 1, y) and (x, y); bit i of a
    // row's changes is set when cells i - 1 and i differ.
    let inner = !1 & width_mask(cells.width());
    let mut changes = [0u128; MAX_BOX_CELLS];
    let changes = &mut changes[..rows.len()];
    for (change, &row) in changes.iter_mut().zip(rows.iter()) {
        *change = (row ^ (row << 1)) & inner;
    }
    let any_change = changes.iter().fold(0, |all, &change| all | change);
    for_each_bit(any_change, |i| {
        let x = cells.x0 + i;
        let column = changes.iter().map(|&change| change >> i & 1 == 1);
        for_each_true_run(column, |first, end| {
            visit(corner(map, x, cells.y0 + first), corner(map, x, cells.y0 + end));
        });
    });
}

/// The low `width` bits set.
fn width_mask(width: usize) -> u128 {
    if width >= 128 { u128::MAX } else { (1 << width) - 1 }
}

/// Calls `visit(first, end)` for each run of set bits, lowest first (`end`
/// one past the run).
fn for_each_run(mut bits: u128, mut visit: impl FnMut(i64, i64)) {
    while bits != 0 {
        let first = bits.trailing_zeros();
        let length = (!(bits >> first)).trailing_zeros();
        visit(i64::from(first), i64::from(first + length));
        bits &= !(width_mask(length as usize) << first);
    }
}

/// Calls `visit(i)` for each set bit, lowest first.
fn for_each_bit(mut bits: u128, mut visit: impl FnMut(i64)) {
    while bits != 0 {
        visit(i64::from(bits.trailing_zeros()));
        bits &= bits - 1;
    }
}

/// Calls `visit(first, end)` for each run of `true`, in order (`end` one
/// past the run).
fn for_each_true_run(values: impl Iterator<Item = bool>, mut visit: impl FnMut(i64, i64)) {
    let mut start = None;
    let mut at = 0;
    for value in values {
        match (value, start) {
            (true, None) => start = Some(at),
            (false, Some(first)) => {
                visit(first, at);
                start = None;
            }
            _ => {}
        }
        at += 1;
    }
    if let Some(first) = start {
        visit(first, at);
    }
}

/// The same runs as [`runs_from_bits`], one cell lookup at a time (boxes
/// too big for the bits).
fn runs_cell_by_cell(map: &WorldMap, cells: CellBox, mut visit: impl FnMut(Vec2, Vec2)) {
    for y in cells.y0 + 1..=cells.y1 {
        let edges = (cells.x0..=cells.x1).map(|x| open(map, x, y - 1) != open(map, x, y));
        for_each_true_run(edges, |first, end| {
            visit(corner(map, cells.x0 + end, y), corner(map, cells.x0 + first, y));
        });
    }
    for x in cells.x0 + 1..=cells.x1 {
        let edges = (cells.y0..=cells.y1).map(|y| open(map, x - 1, y) != open(map, x, y));
        for_each_true_run(edges, |first, end| {
            visit(corner(map, x, cells.y0 + first), corner(map, x, cells.y0 + end));
        });
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::nav::{Mobility, load_map};
    use crate::random::unit_f32;

    fn arena2() -> Arc<WorldMap> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/maps/arena2.map");
        let grid = load_map(path).expect("arena2 loads");
        Arc::new(WorldMap::new(&grid, Mobility::GROUND, Vec2::new(-30.0, 12.0), 8.0).expect("a valid cell size"))
    }

    /// The runs [`for_each_wall_run`] gives, or (`cell_by_cell`) those of
    /// the plain scan.
    fn runs(map: &WorldMap, centre: Vec2, reach: f32, cell_by_cell: bool) -> Vec<(Vec2, Vec2)> {
        let mut found = Vec::new();
        let visit = |a, b| found.push((a, b));
        match wall_box(map, centre, reach) {
            Some(cells) if cell_by_cell => runs_cell_by_cell(map, cells, visit),
            _ => for_each_wall_run(map, centre, reach, visit),
        }
        found
    }

    #[test]
    fn bits_give_the_runs_of_the_cell_by_cell_scan_on_arena2() {
        let map = arena2();
        let (min, max) = (map.bounds().min - 40.0, map.bounds().max + 40.0);
        let mut walled = 0;
        for k in 0..4000u64 {
            let at = |stream| unit_f32(k, stream, 0);
            let centre = min + (max - min) * Vec2::new(at(1), at(2));
            let reach = 1.0 + 500.0 * at(3) * at(3);
            let expected = runs(&map, centre, reach, true);
            assert_eq!(runs(&map, centre, reach, false), expected, "centre {centre}, reach {reach}");
            walled += usize::from(!expected.is_empty());
        }
        assert!(walled > 1000, "only {walled} boxes held walls");
    }

    #[test]
    fn a_lone_blocked_cell_has_four_sides() {
        let grid = crate::nav::parse_map("type octile\nheight 3\nwidth 3\nmap\n...\n.@.\n...\n").expect("parses");
        let map = WorldMap::new(&grid, Mobility::GROUND, Vec2::ZERO, 1.0).expect("valid");
        let found = runs(&map, Vec2::splat(1.5), 0.5, false);
        let sides = [
            (Vec2::new(2.0, 1.0), Vec2::new(1.0, 1.0)),
            (Vec2::new(2.0, 2.0), Vec2::new(1.0, 2.0)),
            (Vec2::new(1.0, 1.0), Vec2::new(1.0, 2.0)),
            (Vec2::new(2.0, 1.0), Vec2::new(2.0, 2.0)),
        ];
        for side in sides {
            assert!(found.contains(&side), "{side:?} missing from {found:?}");
        }
    }
}
