//! Smoothing a refined path: shortcuts by octile lines.
//!
//! A refined path turns at transition cells, where the optimum would cross
//! the border elsewhere (the paper's smoothing step). From each anchor cell
//! the pass tries the cell [`WINDOW`] cells further along the path, then
//! half as far, down to two: if an octile line to it — its diagonal steps
//! first or its straight steps first — is made of allowed steps and costs
//! less than the path between them, the line replaces that stretch and the
//! pass carries on from its end; otherwise the anchor moves one cell on.
//! Each cell a trial line steps onto is one unit of checking, and the pass
//! stops (keeping the rest of the path as it is) once it has checked
//! `allowance` cells, so its work is bounded in advance.

use crate::nav::grid::{Cell, CostGrid};

/// How far along the path the first shortcut is tried, cells.
pub(super) const WINDOW: usize = 16;

/// Shortcuts `cells` (a valid path) in place, checking at most `allowance`
/// cells; `line` and `kept` are scratch.
pub(super) fn smooth(
    grid: &CostGrid,
    cells: &mut Vec<Cell>,
    kept: &mut Vec<Cell>,
    line: &mut Vec<Cell>,
    allowance: u32,
) {
    let n = cells.len();
    kept.clear();
    let Some(&first) = cells.first() else {
        return;
    };
    kept.push(first);
    let mut checked = 0u32;
    // The path's cost from its start to each cell.
    let mut prefix = 0.0;
    let mut at = 0;
    let mut costs_to = |k: usize, cells: &[Cell]| {
        while at < k {
            prefix += grid
                .step_cost(cells[at], cells[at + 1])
                .unwrap_or(f64::INFINITY);
            at += 1;
        }
        prefix
    };
    let mut i = 0;
    while i + 1 < n {
        let mut window = WINDOW;
        let mut jumped = false;
        let from = costs_to(i, cells);
        while window >= 2 && checked < allowance {
            let j = (i + window).min(n - 1);
            window /= 2;
            if j < i + 2 {
                continue;
            }
            let budget = costs_to(j, cells) - from;
            let left = allowance - checked;
            let (found, steps) = shortcut(grid, (cells[i], cells[j]), budget, left, line);
            checked += steps;
            if found {
                kept.extend_from_slice(line);
                i = j;
                jumped = true;
                break;
            }
        }
        if !jumped {
            kept.push(cells[i + 1]);
            i += 1;
        }
    }
    cells.clear();
    cells.extend_from_slice(kept);
}

/// An octile line from `a` to `b` (its cells after `a`, into `line`)
/// cheaper than `budget`, checking at most `left` cells; returns whether
/// one was found and the cells checked.
fn shortcut(
    grid: &CostGrid,
    (a, b): (Cell, Cell),
    budget: f64,
    left: u32,
    line: &mut Vec<Cell>,
) -> (bool, u32) {
    let mut checked = 0;
    for diagonal_first in [true, false] {
        line.clear();
        let mut cost = 0.0;
        let mut here = a;
        while here != b && cost < budget {
            if checked == left {
                return (false, checked);
            }
            checked += 1;
            let next = step_towards(here, b, diagonal_first);
            match grid.step_cost(here, next) {
                Some(step) => cost += step,
                None => break,
            }
            line.push(next);
            here = next;
        }
        // Cheaper by more than rounding noise.
        if here == b && cost < budget - 1e-9 {
            return (true, checked);
        }
    }
    (false, checked)
}

/// The next cell from `here` on the octile line to `to`: a diagonal step
/// while both coordinates differ (first, or once the straight part is
/// walked), else a straight one.
fn step_towards(here: Cell, to: Cell, diagonal_first: bool) -> Cell {
    let (dx, dy) = (to.x.abs_diff(here.x), to.y.abs_diff(here.y));
    let toward = |from: u32, to: u32| match from.cmp(&to) {
        std::cmp::Ordering::Less => from + 1,
        std::cmp::Ordering::Equal => from,
        std::cmp::Ordering::Greater => from - 1,
    };
    let diagonal = dx != 0 && dy != 0 && (diagonal_first || dx == dy);
    if diagonal {
        return Cell::new(toward(here.x, to.x), toward(here.y, to.y));
    }
    if dx > dy {
        Cell::new(toward(here.x, to.x), here.y)
    } else {
        Cell::new(here.x, toward(here.y, to.y))
    }
}
