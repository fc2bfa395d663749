//! Jump point search: grid A* on maps of uniform cost, expanding only the
//! cells where an optimal path may turn.
//!
//! Harabor and Grastien, *Online Graph Pruning for Pathfinding on Grid Maps*
//! (AAAI 2011): from an expanded cell, the search keeps stepping in one
//! direction while every cell it passes is reached at least as cheaply that
//! way as any other — it "jumps" — and stops at a cell with a *forced*
//! neighbour (one whose cheapest path turns there) or at the goal. Only
//! those jump points enter the open list; between two of them the path is a
//! straight or diagonal run. The lengths are the optimal A* lengths. It is
//! used only where every passable cell costs the same: with terrain
//! multipliers, a cheaper cell beside a run could make a turn worth it.
//!
//! The rules are those of the no-corner-cutting move set (the Moving AI one,
//! as in the rest of [`astar`](super)): a diagonal step needs both side
//! cells free, so a diagonal run has no forced neighbours and stops only
//! where one of its two straight runs finds a jump point; a straight run
//! stops at a cell whose side cell is free while the side cell of the cell
//! before it is blocked (that side cell cannot be reached diagonally around
//! the block, so its cheapest path turns here).

use super::super::grid::BLOCKED;

/// A move direction as a padded-index offset, split into its horizontal
/// (`±1` or 0) and vertical (`±stride` or 0) parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Direction {
    h: isize,
    v: isize,
}

impl Direction {
    fn offset(self) -> isize {
        self.h + self.v
    }

    /// Whether the move is diagonal.
    pub(super) fn is_diagonal(self) -> bool {
        self.h != 0 && self.v != 0
    }
}

/// The runs of one search: the padded cost grid and the goal.
pub(super) struct Jumper<'a> {
    cost: &'a [f32],
    stride: isize,
    goal: usize,
    /// Cells the runs have stepped onto so far: the search's work, which a
    /// jump point count hides.
    scanned: std::cell::Cell<u32>,
}

impl<'a> Jumper<'a> {
    pub(super) fn new(cost: &'a [f32], stride: usize, goal: usize) -> Self {
        Self {
            cost,
            stride: stride as isize,
            goal,
            scanned: std::cell::Cell::new(0),
        }
    }

    /// Cells the runs have stepped onto so far.
    pub(super) fn scanned(&self) -> u32 {
        self.scanned.get()
    }

    /// Whether the cell at `cell + offset` is passable (the blocked border
    /// keeps every offset used here in range).
    #[inline]
    fn free(&self, cell: usize, offset: isize) -> bool {
        self.cost[cell.wrapping_add_signed(offset)] != BLOCKED
    }

    /// The direction of the step from `from` toward `to` (one of the eight
    /// moves; the two cells lie on a straight or diagonal run).
    pub(super) fn direction(&self, from: (u32, u32), to: (u32, u32)) -> Direction {
        let sign = |a: u32, b: u32| (b > a) as isize - (a > b) as isize;
        Direction {
            h: sign(from.0, to.0),
            v: sign(from.1, to.1) * self.stride,
        }
    }

    /// The directions worth jumping in from `cell`, reached by a move in
    /// `from` (`None` at the start: all eight), into `out`.
    pub(super) fn successors(
        &self,
        cell: usize,
        from: Option<Direction>,
        out: &mut Vec<Direction>,
    ) {
        out.clear();
        let Some(from) = from else {
            for h in [-1, 0, 1] {
                for v in [-self.stride, 0, self.stride] {
                    if h != 0 || v != 0 {
                        out.push(Direction { h, v });
                    }
                }
            }
            return;
        };
        if from.is_diagonal() {
            // No forced neighbours: the two straight runs and the diagonal.
            out.push(Direction { h: from.h, v: 0 });
            out.push(Direction { h: 0, v: from.v });
            out.push(from);
            return;
        }
        out.push(from);
        // A straight run stopped here because a side turns: the side cell
        // is free and the side cell of the cell behind is blocked.
        let behind = -from.offset();
        let sides = if from.h != 0 {
            [self.stride, -self.stride]
        } else {
            [1, -1]
        };
        for side in sides {
            if self.free(cell, side) && !self.free(cell, behind + side) {
                let turn = if from.h != 0 {
                    Direction { h: 0, v: side }
                } else {
                    Direction { h: side, v: 0 }
                };
                out.push(turn);
                out.push(Direction {
                    h: from.h + turn.h,
                    v: from.v + turn.v,
                });
            }
        }
    }

    /// Jumps from `cell` in `direction`: the jump point reached and the
    /// number of steps to it, or `None` when the run ends at a wall.
    pub(super) fn jump(&self, cell: usize, direction: Direction) -> Option<(usize, u32)> {
        if direction.is_diagonal() {
            self.jump_diagonal(cell, direction)
        } else {
            self.jump_straight(cell, direction)
        }
    }

    fn jump_straight(&self, mut cell: usize, direction: Direction) -> Option<(usize, u32)> {
        let step = direction.offset();
        let side = if direction.h != 0 { self.stride } else { 1 };
        let mut steps = 0;
        loop {
            let next = cell.wrapping_add_signed(step);
            if !self.free(next, 0) {
                return None;
            }
            steps += 1;
            self.scanned.set(self.scanned.get().saturating_add(1));
            let forced = (self.free(next, side) && !self.free(cell, side))
                || (self.free(next, -side) && !self.free(cell, -side));
            if next == self.goal || forced {
                return Some((next, steps));
            }
            cell = next;
        }
    }

    fn jump_diagonal(&self, mut cell: usize, direction: Direction) -> Option<(usize, u32)> {
        let straight = [
            Direction {
                h: direction.h,
                v: 0,
            },
            Direction {
                h: 0,
                v: direction.v,
            },
        ];
        let mut steps = 0;
        loop {
            if !(self.free(cell, direction.h) && self.free(cell, direction.v)) {
                return None;
            }
            let next = cell.wrapping_add_signed(direction.offset());
            if !self.free(next, 0) {
                return None;
            }
            steps += 1;
            self.scanned.set(self.scanned.get().saturating_add(1));
            if next == self.goal
                || straight
                    .iter()
                    .any(|&run| self.jump_straight(next, run).is_some())
            {
                return Some((next, steps));
            }
            cell = next;
        }
    }
}
