//! The move orders a profile gives its platoons after the first, and what
//! the run learns from their arrivals.
//!
//! A platoon is re-ordered every `platoons.reorder_every_s` (staggered, so
//! a tick orders only a share of them) or, with
//! `platoons.reorder_on_arrival`, as soon as it arrives, the period then
//! being a time-out for a platoon that does not; with
//! `platoons.order_range_m`, the next goal lies within that range. Which goal comes next
//! depends only on the platoon, the tick and the seed, so runs stay
//! deterministic and a restored snapshot carries on alike.
//!
//! Each arrival is logged with its *path efficiency*: the time the leg
//! took ÷ the time the platoon's slowest member needs at top speed along
//! the shortest path (the string-pulled grid path on a map, the straight
//! line on the open field), counted as at least [`MIN_IDEAL_S`].

use glam::Vec2;

use convoy::nav::GridPlanner;

use convoy::random::mix64;
use convoy::{Phase, PlatoonError, PlatoonId, Sim};

use crate::profile::{Layout, Profile};
use crate::scenario::{ORDER_STREAMS, goal_within, random_cell, scan_from, shortest_length};

/// A leg's ideal time counts as at least this, seconds: a platoon ordered
/// a few metres away spends its time forming up, not travelling.
const MIN_IDEAL_S: f64 = 1.0;

/// Gives a profile's platoons their orders between ticks: call
/// [`Orders::before_step`] before every [`Sim::step`].
#[derive(Clone, Debug)]
pub struct Orders {
    platoons: Vec<PlatoonId>,
    /// Each platoon's first position and first goal (crossings go back and
    /// forth between them).
    ends: Vec<[Vec2; 2]>,
    period_ticks: u64,
    on_arrival: bool,
    range_m: f32,
    dt: f64,
    seed: u64,
    scatter: bool,
    legs: Vec<Leg>,
    planner: GridPlanner,
    log: ArrivalLog,
}

/// One platoon's current order.
#[derive(Clone, Copy, Debug)]
struct Leg {
    /// The tick it was given, if this run gave it.
    ordered_at: Option<u64>,
    /// Seconds the slowest member needs along the shortest path.
    ideal_s: f64,
    /// Its arrival is logged.
    logged: bool,
}

/// Arrivals seen so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArrivalLog {
    /// Legs that ended in arrival.
    pub arrivals: u64,
    /// Legs cut short by the next order before arrival.
    pub unfinished: u64,
    /// Each arrival's path efficiency (≥ about 1; 1 is a straight run at
    /// top speed along the shortest path).
    pub efficiency: Vec<f64>,
}

/// [`ArrivalLog`] summed up over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ArrivalSummary {
    /// Platoon arrivals per minute of simulated time.
    pub arrivals_per_minute: f64,
    /// Legs cut short by the next order.
    pub unfinished: u64,
    /// Mean path efficiency of the arrivals (0 with none).
    pub path_efficiency_mean: f64,
    /// Its 95th percentile.
    pub path_efficiency_p95: f64,
}

impl ArrivalLog {
    /// The figures over `seconds` of simulated time.
    #[must_use]
    pub fn summary(&self, seconds: f64) -> ArrivalSummary {
        let mut sorted = self.efficiency.clone();
        sorted.sort_by(f64::total_cmp);
        let mean = if sorted.is_empty() {
            0.0
        } else {
            sorted.iter().sum::<f64>() / sorted.len() as f64
        };
        let p95 = sorted
            .get(((sorted.len() as f64 * 0.95).ceil() as usize).saturating_sub(1))
            .copied()
            .unwrap_or(0.0);
        ArrivalSummary {
            arrivals_per_minute: if seconds > 0.0 {
                self.arrivals as f64 * 60.0 / seconds
            } else {
                0.0
            },
            unfinished: self.unfinished,
            path_efficiency_mean: mean,
            path_efficiency_p95: p95,
        }
    }
}

impl Orders {
    /// The orders `profile` gives the platoons of `sim`, as
    /// [`build`](crate::build) made it (their first orders given).
    #[must_use]
    pub fn new(profile: &Profile, sim: &Sim) -> Orders {
        let dt = f64::from(profile.run.dt);
        let period_ticks = (f64::from(profile.platoons.reorder_every_s) / dt).round() as u64;
        let (platoons, ends): (Vec<_>, Vec<_>) = sim
            .platoon_views()
            .map(|platoon| (platoon.id(), [platoon.path_start(), platoon.goal()]))
            .unzip();
        let mut orders = Orders {
            legs: Vec::with_capacity(platoons.len()),
            platoons,
            ends,
            period_ticks,
            on_arrival: profile.platoons.reorder_on_arrival,
            range_m: profile.platoons.order_range_m,
            dt,
            seed: profile.run.seed,
            scatter: profile.scenario.layout == Layout::Scatter,
            planner: GridPlanner::new(),
            log: ArrivalLog::default(),
        };
        // The first orders count from here only on a fresh world.
        let fresh = sim.tick_count() == 0;
        for index in 0..orders.platoons.len() {
            let goal = orders.ends[index][1];
            let leg = orders.leg(sim, index, goal, fresh.then_some(0));
            orders.legs.push(leg);
        }
        orders
    }

    /// The arrivals logged so far.
    #[must_use]
    pub fn log(&self) -> &ArrivalLog {
        &self.log
    }

    /// Logs the arrivals of the tick before, and orders the platoons due.
    pub fn before_step(&mut self, sim: &mut Sim) -> Result<(), PlatoonError> {
        let tick = sim.tick_count();
        for index in 0..self.platoons.len() {
            let Some(platoon) = sim.platoon(self.platoons[index]) else {
                continue;
            };
            let arrived = platoon.phase() == Phase::Arrived;
            let leg = &mut self.legs[index];
            if arrived && !leg.logged {
                leg.logged = true;
                if let Some(ordered_at) = leg.ordered_at {
                    self.log.arrivals += 1;
                    let taken_s = (tick - ordered_at) as f64 * self.dt;
                    self.log
                        .efficiency
                        .push(taken_s / leg.ideal_s.max(MIN_IDEAL_S));
                }
            }
            if tick == 0 || !self.due(index, tick, arrived) {
                continue;
            }
            if !self.legs[index].logged && self.legs[index].ordered_at.is_some() {
                self.log.unfinished += 1;
            }
            let goal = self.next_goal(sim, index, tick);
            sim.order_platoon(self.platoons[index], goal, None)?;
            self.legs[index] = self.leg(sim, index, goal, Some(tick));
        }
        Ok(())
    }

    /// Whether platoon `index` gets its next order at `tick`.
    fn due(&self, index: usize, tick: u64, arrived: bool) -> bool {
        let timer =
            self.period_ticks > 0 && (tick + index as u64).is_multiple_of(self.period_ticks);
        if !self.on_arrival {
            return timer;
        }
        let overdue = self.legs[index]
            .ordered_at
            .is_some_and(|at| self.period_ticks > 0 && tick - at >= self.period_ticks);
        arrived || overdue || (self.legs[index].ordered_at.is_none() && timer)
    }

    /// Platoon `index`'s goal after `tick`: a random open cell of its
    /// region on a scattered map, else the end of its crossing it is
    /// farther from.
    fn next_goal(&mut self, sim: &Sim, index: usize, tick: u64) -> Vec2 {
        let position = sim
            .platoon(self.platoons[index])
            .map_or(Vec2::ZERO, |platoon| platoon.position());
        match (self.scatter, sim.config().map.grid()) {
            (true, Some(map)) => {
                let draw = mix64((index as u64) << 32 ^ tick);
                if self.range_m > 0.0 {
                    let (seed, range) = (self.seed, self.range_m);
                    return goal_within(map, &mut self.planner, (seed, draw), position, range);
                }
                let here = map.cell_at(position);
                let first = random_cell(map, self.seed, ORDER_STREAMS, draw);
                let cell = scan_from(map, first, |cell| {
                    here.is_some_and(|here| map.grid().connected(here, cell))
                });
                map.centre_of(cell)
            }
            _ => {
                let [start, goal] = self.ends[index];
                if position.distance(start) > position.distance(goal) {
                    start
                } else {
                    goal
                }
            }
        }
    }

    /// The leg to `goal` begun at `ordered_at`.
    fn leg(&mut self, sim: &Sim, index: usize, goal: Vec2, ordered_at: Option<u64>) -> Leg {
        let Some(platoon) = sim.platoon(self.platoons[index]) else {
            return Leg {
                ordered_at: None,
                ideal_s: 0.0,
                logged: true,
            };
        };
        let start = platoon.position();
        let columns = sim.vehicles().columns();
        let slowest = platoon
            .members()
            .filter_map(|(_, unit)| sim.vehicles().row_of(unit))
            .map(|row| columns.max_speed()[row])
            .fold(f32::INFINITY, f32::min);
        let length = match sim.config().map.grid() {
            Some(map) => shortest_length(&mut self.planner, map, start, goal),
            None => f64::from(start.distance(goal)),
        };
        Leg {
            ordered_at,
            ideal_s: length / f64::from(slowest.max(f32::MIN_POSITIVE)),
            logged: false,
        }
    }
}
