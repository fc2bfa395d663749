//! The grid searches the `paths` stage has in flight: a fixed set of slots,
//! each with its own search context, so a search cut short by the tick's
//! work budget stays suspended in its slot and carries on next tick.
//!
//! The time-sliced path solving of Smith, *Polygon Soup for the
//! Programmer's Soul* (GDC 2002), with the budget in work units rather than
//! microseconds ([`super`] says why): a round
//! ([`SearchFlights::advance`]) splits a budget equally among the searching
//! slots (the remainder one unit each to the lowest slots) and resumes them
//! across the rayon pool ([`HierarchicalPlanner::resume`]: HPA* when the
//! ends are far apart, grid A* when they are near). A resumed search never
//! does more work than its allowance, and ends exactly as it would have at
//! once, so which searches end in which tick — and what they return —
//! depends only on the requests and the budget, never on the thread count
//! or the machine's speed.
//!
//! A snapshot records each search in flight by its query and the work it
//! has done ([`FlightRecord`]); restoring replays that much work, which
//! rebuilds the suspended search exactly (a search cut at the same work
//! count is in the same state, however it was cut).

use rayon::prelude::*;

use crate::nav::{Cell, ClassMaps, HierarchicalPlanner, Path, PathError, Progress, WorldMap};
use crate::data::path_requests::PathRequest;

/// Rounds whose budget is at least this many work units resume their
/// searches across the pool; smaller ones on the calling thread (a rayon
/// fork-join costs microseconds, a unit of work a few nanoseconds).
const PARALLEL_MIN_WORK: u64 = 2_048;

/// Where a slot stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Slot {
    /// No search.
    #[default]
    Free,
    /// A search begun and not ended.
    Searching,
    /// The search ended; its path waits to be delivered.
    Ended {
        /// Whether the path reaches the goal.
        reached_goal: bool,
    },
}

/// One slot: a request, its search context and its answer.
#[derive(Clone, Debug, Default)]
struct Flight {
    slot: Slot,
    request: PathRequest,
    start: Cell,
    goal: Cell,
    /// The requester's mobility class: whose map it searches.
    mobility: u8,
    planner: HierarchicalPlanner,
    path: Path,
    /// Work allowed in the current round.
    allowance: u32,
    /// Work and expansions done in the current round.
    work: u32,
    expanded: u32,
}

impl Flight {
    /// Resumes the search for its allowance.
    fn advance(&mut self, map: &WorldMap) {
        let (work, expanded) = (self.planner.work(), self.planner.expanded());
        let progress = self
            .planner
            .resume(map.hierarchy(), map.grid(), self.allowance, &mut self.path);
        self.slot = match progress {
            Progress::Suspended => Slot::Searching,
            Progress::Done { reached_goal } => Slot::Ended { reached_goal },
            // Not reached: a searching slot's context holds its search.
            Progress::Idle => Slot::Ended {
                reached_goal: false,
            },
        };
        self.work = self.planner.work() - work;
        self.expanded = self.planner.expanded() - expanded;
    }
}

/// A search in flight as a snapshot stores it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FlightRecord {
    /// The slot it occupies.
    pub slot: u32,
    /// Its request.
    pub request: PathRequest,
    /// Start cell (where the requester stood when the search began).
    pub start: [u32; 2],
    /// Goal cell.
    pub goal: [u32; 2],
    /// Work done so far.
    pub work: u32,
    /// The mobility class whose map it searches.
    pub mobility: u32,
}

/// What one round did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Round {
    /// Work units done ([`HierarchicalPlanner::work`]).
    pub work: u64,
    /// Nodes expanded.
    pub expanded: u64,
}

/// The searches in flight; working memory, reuse it every tick.
#[derive(Debug, Default)]
pub struct SearchFlights {
    flights: Vec<Flight>,
}

impl SearchFlights {
    /// Makes `slots` slots, each with a context and a path buffer sized for
    /// every class's map, so searching and delivering allocate nothing.
    pub fn reserve(&mut self, maps: ClassMaps<'_>, slots: usize) {
        if self.flights.len() < slots {
            self.flights.resize_with(slots, Flight::default);
        }
        for map in maps.all() {
            let grid = map.grid();
            for flight in &mut self.flights {
                flight.planner.reserve(map.hierarchy(), grid);
                let room = grid.cell_count().saturating_sub(flight.path.cells.len());
                flight.path.cells.reserve(room);
            }
        }
    }

    /// Searches begun and not ended.
    #[must_use]
    pub fn searching(&self) -> usize {
        self.flights
            .iter()
            .filter(|flight| flight.slot == Slot::Searching)
            .count()
    }

    /// The requests of the searches begun and not ended, by slot.
    pub fn requests(&self) -> impl Iterator<Item = (usize, &PathRequest)> {
        self.flights
            .iter()
            .enumerate()
            .filter(|(_, flight)| flight.slot == Slot::Searching)
            .map(|(slot, flight)| (slot, &flight.request))
    }

    /// The lowest free slot.
    #[must_use]
    pub fn free_slot(&self) -> Option<usize> {
        self.flights
            .iter()
            .position(|flight| flight.slot == Slot::Free)
    }

    /// Begins `request`'s search from `start` to `goal` in the free `slot`,
    /// on the map of mobility class `mobility`; ends refused without
    /// searching are returned as errors (the slot stays free).
    pub fn begin(
        &mut self,
        slot: usize,
        request: PathRequest,
        (start, goal): (Cell, Cell),
        (maps, mobility): (ClassMaps<'_>, u8),
    ) -> Result<(), PathError> {
        let map = maps.of(mobility).ok_or(PathError::OffMap { which: "start", cell: start })?;
        let flight = &mut self.flights[slot];
        debug_assert_eq!(flight.slot, Slot::Free, "slot {slot} is taken");
        flight
            .planner
            .begin(map.hierarchy(), map.grid(), start, goal)?;
        flight.slot = Slot::Searching;
        flight.request = request;
        flight.mobility = mobility;
        (flight.start, flight.goal) = (start, goal);
        Ok(())
    }

    /// Abandons the search in `slot`.
    pub fn abandon(&mut self, slot: usize) {
        self.flights[slot].slot = Slot::Free;
    }

    /// One round: splits `budget` among the searching slots and resumes
    /// them (in parallel when the budget is large enough); searches that
    /// end wait in their slots for [`SearchFlights::deliver`]. Never does
    /// more than `budget` work.
    pub fn advance(&mut self, maps: ClassMaps<'_>, budget: u64) -> Round {
        let searching = self.searching() as u64;
        if searching == 0 {
            return Round::default();
        }
        let (share, extra) = (budget / searching, budget % searching);
        let mut rank = 0;
        for flight in &mut self.flights {
            flight.work = 0;
            flight.expanded = 0;
            if flight.slot != Slot::Searching {
                continue;
            }
            let allowance = share + u64::from(rank < extra);
            // `u32::MAX` would mean no limit.
            flight.allowance = u32::try_from(allowance)
                .unwrap_or(u32::MAX - 1)
                .min(u32::MAX - 1);
            rank += 1;
        }
        let advance = |flight: &mut Flight| {
            if let (Slot::Searching, Some(map)) = (flight.slot, maps.of(flight.mobility)) {
                flight.advance(map);
            }
        };
        if searching > 1 && budget >= PARALLEL_MIN_WORK && !crate::parallel::sequential() {
            self.flights
                .par_iter_mut()
                .with_max_len(1)
                .for_each(advance);
        } else {
            self.flights.iter_mut().for_each(advance);
        }
        self.flights
            .iter()
            .fold(Round::default(), |round, flight| Round {
                work: round.work + u64::from(flight.work),
                expanded: round.expanded + u64::from(flight.expanded),
            })
    }

    /// Hands every ended search to `deliver` (lowest slot first) as its
    /// request, the path if it reached the goal, and its mobility class,
    /// and frees its slot.
    pub fn deliver(&mut self, mut deliver: impl FnMut(&PathRequest, Option<&Path>, u8)) {
        for flight in &mut self.flights {
            let Slot::Ended { reached_goal } = flight.slot else {
                continue;
            };
            flight.slot = Slot::Free;
            deliver(&flight.request, reached_goal.then_some(&flight.path), flight.mobility);
        }
    }

    /// The searches in flight, for a snapshot (allocates: not for the
    /// tick).
    #[must_use]
    pub fn records(&self) -> Vec<FlightRecord> {
        self.each_record().collect()
    }

    /// The searches in flight as [`SearchFlights::records`] lists them,
    /// without collecting them (for checksums).
    pub fn each_record(&self) -> impl Iterator<Item = FlightRecord> + '_ {
        self.flights
            .iter()
            .enumerate()
            .filter(|(_, flight)| flight.slot == Slot::Searching)
            .map(|(slot, flight)| FlightRecord {
                slot: slot as u32,
                request: flight.request,
                start: [flight.start.x, flight.start.y],
                goal: [flight.goal.x, flight.goal.y],
                work: flight.planner.work(),
                mobility: u32::from(flight.mobility),
            })
    }

    /// Flights rebuilt from a snapshot's `records` on the classes' `maps`,
    /// with `slots` slots: each search begun again and resumed for the work it
    /// had done, which suspends it in the state it was saved in. A record
    /// that does not fit (a slot out of range or taken twice, ends the
    /// search refuses, a search that ends before its recorded work) is
    /// named in the error.
    pub fn from_records(
        records: &[FlightRecord],
        maps: ClassMaps<'_>,
        slots: usize,
    ) -> Result<Self, String> {
        let mut flights = Self::default();
        flights.reserve(maps, slots);
        for record in records {
            let slot = record.slot as usize;
            if slot >= slots {
                return Err(format!("search slot {slot} is out of range (< {slots})"));
            }
            if flights.flights[slot].slot != Slot::Free {
                return Err(format!("search slot {slot} is in flight twice"));
            }
            let ends = (
                Cell::new(record.start[0], record.start[1]),
                Cell::new(record.goal[0], record.goal[1]),
            );
            let map = u8::try_from(record.mobility)
                .ok()
                .filter(|&class| usize::from(class) < maps.count())
                .and_then(|class| Some((class, maps.of(class)?)));
            let Some((mobility, map)) = map else {
                return Err(format!("search in slot {slot}: mobility class {} is not this world's", record.mobility));
            };
            flights
                .begin(slot, record.request, ends, (maps, mobility))
                .map_err(|error| format!("search in slot {slot}: {error}"))?;
            let flight = &mut flights.flights[slot];
            flight.allowance = record.work;
            flight.advance(map);
            if flight.slot != Slot::Searching || flight.planner.work() != record.work {
                return Err(format!(
                    "search in slot {slot} does not stop at its recorded work ({})",
                    record.work
                ));
            }
        }
        Ok(flights)
    }
}
