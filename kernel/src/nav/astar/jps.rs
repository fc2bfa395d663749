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

/// A run in progress from a jump point: where it stands, the steps it has
/// taken, and for a diagonal run the straight probe it is making from
/// there. A run can stop after any cell it steps onto and carry on later
/// exactly where it stopped ([`Jumper::advance`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Run {
    direction: Direction,
    /// The last cell the run stepped onto (first: the jump point it
    /// leaves).
    cell: usize,
    steps: u32,
    /// A diagonal run's straight probe from `cell`: which of its two
    /// straight parts (0 horizontal, 1 vertical) and the cell it reached.
    probe: Option<(u8, usize)>,
}

impl Run {
    /// A run leaving `cell` in `direction`.
    pub(super) fn new(cell: usize, direction: Direction) -> Self {
        Self {
            direction,
            cell,
            steps: 0,
            probe: None,
        }
    }
}

/// How far [`Jumper::advance`] got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Jump {
    /// The run found a jump point, so many steps away.
    Found(usize, u32),
    /// The run ended at a wall.
    Wall,
    /// The work allowance ran out; the run can be advanced again.
    Paused,
}

/// How a straight scan ended.
enum Scan {
    /// At a forced neighbour or the goal (the scan's cell).
    Hit,
    Wall,
    Paused,
}

/// The runs of one search: the padded cost grid, the goal, and the work
/// count and allowance.
pub(super) struct Jumper<'a> {
    cost: &'a [f32],
    stride: isize,
    goal: usize,
    /// Cells the runs have stepped onto so far: the search's work, which a
    /// jump point count hides.
    scanned: u32,
    /// Cells the runs may still step onto before they pause.
    allowance: u64,
    /// The most steps a straight scan can take: the padded grid's longer
    /// side.
    longest_scan: u64,
}

impl<'a> Jumper<'a> {
    /// Runs toward `goal` that have stepped onto `scanned` cells so far and
    /// may step onto `allowance` more.
    pub(super) fn new(
        cost: &'a [f32],
        stride: usize,
        goal: usize,
        scanned: u32,
        allowance: u64,
    ) -> Self {
        let rows = cost.len() / stride.max(1);
        Self {
            cost,
            stride: stride as isize,
            goal,
            scanned,
            allowance,
            longest_scan: stride.max(rows) as u64,
        }
    }

    /// Cells the runs have stepped onto so far.
    pub(super) fn scanned(&self) -> u32 {
        self.scanned
    }

    /// What is left of the work allowance.
    pub(super) fn allowance(&self) -> u64 {
        self.allowance
    }

    /// Spends one unit of the allowance on an expansion.
    pub(super) fn spend_expansion(&mut self) {
        self.allowance -= 1;
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

    /// Advances `run` until it finds a jump point, ends at a wall, or the
    /// allowance runs out (checked before every cell it steps onto, so it
    /// never steps onto more cells than the allowance). Advancing a run in
    /// pieces steps onto the same cells and finds the same jump point as
    /// advancing it at once.
    pub(super) fn advance(&mut self, run: &mut Run) -> Jump {
        if run.direction.is_diagonal() {
            return self.advance_diagonal(run);
        }
        let (scan, steps) = self.scan(&mut run.cell, run.direction);
        run.steps += steps;
        match scan {
            Scan::Hit => Jump::Found(run.cell, run.steps),
            Scan::Wall => Jump::Wall,
            Scan::Paused => Jump::Paused,
        }
    }

    /// Steps straight on from `cell` (moving it along) until a cell with a
    /// forced neighbour or the goal, a wall, or the end of the allowance;
    /// also returns the steps taken.
    fn scan(&mut self, cell: &mut usize, direction: Direction) -> (Scan, u32) {
        // A straight scan meets the blocked border within `longest_scan`
        // steps: an allowance that long cannot run out during it, and the
        // scan needs no check per step (a one-shot search never checks).
        let (scan, steps) = if self.allowance >= self.longest_scan {
            self.scan_steps::<false>(cell, direction)
        } else {
            self.scan_steps::<true>(cell, direction)
        };
        self.allowance -= u64::from(steps);
        self.scanned = self.scanned.saturating_add(steps);
        (scan, steps)
    }

    /// [`Self::scan`]'s steps, checking the allowance before each when
    /// `CHECKED`.
    #[inline(always)]
    fn scan_steps<const CHECKED: bool>(
        &self,
        cell: &mut usize,
        direction: Direction,
    ) -> (Scan, u32) {
        let step = direction.offset();
        let side = if direction.h != 0 { self.stride } else { 1 };
        // At most `longest_scan` when checked, so it fits.
        let affordable = self.allowance as u32;
        let mut steps = 0;
        let mut here = *cell;
        let scan = loop {
            if CHECKED && steps == affordable {
                break Scan::Paused;
            }
            let next = here.wrapping_add_signed(step);
            if !self.free(next, 0) {
                break Scan::Wall;
            }
            steps += 1;
            let forced = (self.free(next, side) && !self.free(here, side))
                || (self.free(next, -side) && !self.free(here, -side));
            here = next;
            if next == self.goal || forced {
                break Scan::Hit;
            }
        };
        *cell = here;
        (scan, steps)
    }

    /// A diagonal run: after each diagonal step, a straight probe along
    /// each of its two parts; the run stops where a probe finds a jump
    /// point (or at the goal).
    fn advance_diagonal(&mut self, run: &mut Run) -> Jump {
        let direction = run.direction;
        let parts = [
            Direction {
                h: direction.h,
                v: 0,
            },
            Direction {
                h: 0,
                v: direction.v,
            },
        ];
        loop {
            if let Some((part, mut probe)) = run.probe {
                match self.scan(&mut probe, parts[usize::from(part)]).0 {
                    Scan::Hit => return Jump::Found(run.cell, run.steps),
                    Scan::Paused => {
                        run.probe = Some((part, probe));
                        return Jump::Paused;
                    }
                    Scan::Wall if part == 0 => run.probe = Some((1, run.cell)),
                    Scan::Wall => run.probe = None,
                }
                continue;
            }
            if self.allowance == 0 {
                return Jump::Paused;
            }
            let cell = run.cell;
            if !(self.free(cell, direction.h) && self.free(cell, direction.v)) {
                return Jump::Wall;
            }
            let next = cell.wrapping_add_signed(direction.offset());
            if !self.free(next, 0) {
                return Jump::Wall;
            }
            run.steps += 1;
            self.allowance -= 1;
            self.scanned = self.scanned.saturating_add(1);
            run.cell = next;
            if next == self.goal {
                return Jump::Found(next, run.steps);
            }
            run.probe = Some((0, next));
        }
    }
}
