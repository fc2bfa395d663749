//! What the suite measures, the same way for both systems, from nothing but
//! the agents' positions after each tick.
//!
//! - Arrival: an agent has arrived while its centre is within
//!   [`ARRIVAL_RADIUS_M`] of its goal. That is the agent radius, fixed and
//!   the same for both systems (not convoy's own steering arrival radius):
//!   the question is whether the agent stands on its goal. Arrival times
//!   are also given within [`LOOSE_ARRIVAL_RADIUS_M`] (Force 21's arrival
//!   radius), for both systems, and the mean speed and
//!   the stuck count take an agent within that radius as done.
//! - Collisions: per tick, every pair of agents in the same layer (ground
//!   or air) whose centres are closer than the sum of their radii minus
//!   [`CONTACT_SLACK_M`]; found with a uniform [`Grid`], never all pairs.
//! - Mean speed: distance moved per tick over `dt`, as a fraction of the top
//!   speed, averaged over the ticks before each agent first comes within
//!   [`LOOSE_ARRIVAL_RADIUS_M`] (agents waiting at their goals do not
//!   dilute it).
//! - Stuck at the end: farther than [`LOOSE_ARRIVAL_RADIUS_M`] from the
//!   goal, and moved less than [`STUCK_DISTANCE_M`] in the last
//!   [`STUCK_WINDOW_TICKS`] ticks.
//!
//! Both systems run every scenario to its time limit, so the per-tick
//! times average over the same ticks.

use std::collections::{BTreeMap, VecDeque};

use convoy::glam::Vec2;
use serde::Serialize;

/// Every agent's radius in both systems, metres.
pub const RADIUS_M: f32 = 1.5;
/// Every agent's top speed in both systems, metres per second.
pub const TOP_SPEED: f32 = 5.0;
/// Ticks per simulated second.
pub const TICKS_PER_SECOND: u32 = 60;
/// The step, seconds.
pub const DT: f32 = 1.0 / TICKS_PER_SECOND as f32;
/// Within this distance of its goal an agent has arrived, metres: the agent
/// radius, for both systems.
pub const ARRIVAL_RADIUS_M: f32 = RADIUS_M;
/// convoy's steering arrival radius (Force 21's 2.5 m), within which its
/// units stop, metres. A copy: the kernel's constant is not crate-root API.
pub const LOOSE_ARRIVAL_RADIUS_M: f32 = 2.5;
/// Overlaps shallower than this are contact, not collision, metres.
pub const CONTACT_SLACK_M: f32 = 0.01;
/// The window of the stuck test: five simulated seconds, in ticks.
pub const STUCK_WINDOW_TICKS: usize = 5 * TICKS_PER_SECOND as usize;
/// Moving less than this in the window is being stuck, metres.
pub const STUCK_DISTANCE_M: f32 = 0.5;

/// Points bucketed into square cells over a rectangle (points outside fall
/// in the border cells), for neighbour queries in a fixed radius.
#[derive(Clone, Debug)]
pub struct Grid {
    origin: Vec2,
    cell: f32,
    width: usize,
    height: usize,
    /// Where each cell's entries start in `entries` (one extra at the end).
    starts: Vec<u32>,
    entries: Vec<u32>,
    cell_of: Vec<u32>,
}

impl Grid {
    /// A grid over `min`..`max` with cells `cell` metres wide (> 0).
    #[must_use]
    pub fn new(min: Vec2, max: Vec2, cell: f32) -> Grid {
        let cells = ((max - min) / cell).ceil().max(Vec2::ONE);
        let (width, height) = (cells.x as usize, cells.y as usize);
        Grid {
            origin: min,
            cell,
            width,
            height,
            starts: vec![0; width * height + 1],
            entries: Vec::new(),
            cell_of: Vec::new(),
        }
    }

    /// The column and row holding `point`, clamped to the grid.
    fn coords(&self, point: Vec2) -> (usize, usize) {
        let local = ((point - self.origin) / self.cell).floor();
        let clamp = |value: f32, cells: usize| value.clamp(0.0, (cells - 1) as f32) as usize;
        (clamp(local.x, self.width), clamp(local.y, self.height))
    }

    /// Buckets `points` (a counting sort: no allocation once grown).
    pub fn rebuild(&mut self, points: &[Vec2]) {
        self.starts.fill(0);
        self.cell_of.clear();
        for &point in points {
            let (x, y) = self.coords(point);
            let cell = y * self.width + x;
            self.cell_of.push(cell as u32);
            self.starts[cell + 1] += 1;
        }
        for cell in 1..self.starts.len() {
            self.starts[cell] += self.starts[cell - 1];
        }
        self.entries.resize(points.len(), 0);
        let mut next = self.starts.clone();
        for (index, &cell) in self.cell_of.iter().enumerate() {
            let slot = &mut next[cell as usize];
            self.entries[*slot as usize] = index as u32;
            *slot += 1;
        }
    }

    /// Calls `visit(j, distance)` for every point `j` of the last
    /// [`Grid::rebuild`] within `radius` of `point` (itself included).
    pub fn for_each_within(
        &self,
        points: &[Vec2],
        point: Vec2,
        radius: f32,
        mut visit: impl FnMut(usize, f32),
    ) {
        let (x0, y0) = self.coords(point - radius);
        let (x1, y1) = self.coords(point + radius);
        for y in y0..=y1 {
            let row = y * self.width;
            let (from, to) = (self.starts[row + x0], self.starts[row + x1 + 1]);
            for &other in &self.entries[from as usize..to as usize] {
                let distance = points[other as usize].distance(point);
                if distance <= radius {
                    visit(other as usize, distance);
                }
            }
        }
    }
}

/// One tick's overlaps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Contacts {
    /// Pairs closer than two radii minus [`CONTACT_SLACK_M`].
    pub collisions: u64,
    /// The deepest overlap of any pair, metres (0 when none touch).
    pub deepest_m: f32,
}

/// Counts the overlapping pairs among agents of radius [`RADIUS_M`] at
/// `positions`; agents meet only those with the same `flies`. `grid` is
/// rebuilt from `positions`.
pub fn contacts(positions: &[Vec2], flies: &[bool], grid: &mut Grid) -> Contacts {
    let reach = 2.0 * RADIUS_M;
    grid.rebuild(positions);
    let mut found = Contacts::default();
    for (i, &position) in positions.iter().enumerate() {
        grid.for_each_within(positions, position, reach, |j, distance| {
            if j <= i || flies[i] != flies[j] || distance >= reach {
                return;
            }
            found.deepest_m = found.deepest_m.max(reach - distance);
            if distance < reach - CONTACT_SLACK_M {
                found.collisions += 1;
            }
        });
    }
    found
}

/// One system's results on one scenario (or on one kind of its agents).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Outcome {
    /// Agents measured.
    pub agents: usize,
    /// Ticks run.
    pub ticks: u64,
    /// First time 95 % of the agents were arrived at once, seconds.
    pub time_to_95_s: Option<f64>,
    /// First time all the agents were arrived at once, seconds.
    pub time_to_100_s: Option<f64>,
    /// First time 95 % were within [`LOOSE_ARRIVAL_RADIUS_M`], seconds.
    pub time_to_95_loose_s: Option<f64>,
    /// First time all were within [`LOOSE_ARRIVAL_RADIUS_M`], seconds.
    pub time_to_100_loose_s: Option<f64>,
    /// Agents arrived after the last tick.
    pub arrived_at_end: usize,
    /// Colliding pairs counted per tick, per 1,000 unit-ticks.
    pub collisions_per_1000_unit_ticks: f64,
    /// The deepest overlap of any pair in any tick, metres.
    pub deepest_interpenetration_m: f64,
    /// Mean speed before coming within [`LOOSE_ARRIVAL_RADIUS_M`], as a
    /// fraction of the top speed.
    pub mean_speed_fraction: f64,
    /// The median agent's distance from its goal after the last tick,
    /// metres.
    pub goal_distance_p50_m: f64,
    /// The farthest agent's distance from its goal after the last tick,
    /// metres.
    pub goal_distance_max_m: f64,
    /// Agents farther than [`LOOSE_ARRIVAL_RADIUS_M`] from their goals
    /// that moved less than 0.5 m in the last 5 s.
    pub stuck_at_end: usize,
    /// Wall-clock milliseconds per tick, mean (the system's tick only).
    pub wall_ms_per_tick: f64,
    /// The fraction arrived at 0 s, 1 s, 2 s … of simulated time.
    pub arrivals: Vec<f64>,
    /// The fraction within [`LOOSE_ARRIVAL_RADIUS_M`] at the same times.
    pub arrivals_loose: Vec<f64>,
    /// The same per vehicle kind, when the scenario mixes kinds.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub by_kind: BTreeMap<String, Outcome>,
}

/// Accumulates one group of agents' measurements tick by tick.
#[derive(Clone, Debug)]
struct Recorder {
    goals: Vec<Vec2>,
    flies: Vec<bool>,
    grid: Grid,
    /// The last [`STUCK_WINDOW_TICKS`] + 1 position sets, oldest first.
    recent: VecDeque<Vec<Vec2>>,
    ever_arrived: Vec<bool>,
    speed_sum: f64,
    speed_samples: u64,
    collisions: u64,
    deepest_m: f32,
    outcome: Outcome,
}

impl Recorder {
    fn new(starts: &[Vec2], goals: Vec<Vec2>, flies: Vec<bool>, min: Vec2, max: Vec2) -> Recorder {
        let mut recorder = Recorder {
            ever_arrived: vec![false; goals.len()],
            outcome: Outcome {
                agents: goals.len(),
                ..Outcome::default()
            },
            goals,
            flies,
            grid: Grid::new(min, max, 2.0 * RADIUS_M),
            recent: VecDeque::from([starts.to_vec()]),
            speed_sum: 0.0,
            speed_samples: 0,
            collisions: 0,
            deepest_m: 0.0,
        };
        let count = recorder.goals.len().max(1) as f64;
        for (radius, series) in [
            (ARRIVAL_RADIUS_M, &mut recorder.outcome.arrivals),
            (LOOSE_ARRIVAL_RADIUS_M, &mut recorder.outcome.arrivals_loose),
        ] {
            let within = starts
                .iter()
                .zip(&recorder.goals)
                .filter(|(start, goal)| start.distance(**goal) <= radius)
                .count();
            series.push(within as f64 / count);
        }
        recorder
    }

    fn record(&mut self, positions: &[Vec2], wall_s: f64) {
        let outcome = &mut self.outcome;
        outcome.ticks += 1;
        outcome.wall_ms_per_tick += wall_s * 1e3;
        let previous = self.recent.back().map_or(positions, Vec::as_slice);
        let (mut arrived, mut near) = (0, 0);
        for (i, (&position, &goal)) in positions.iter().zip(&self.goals).enumerate() {
            if !self.ever_arrived[i] {
                self.speed_sum += f64::from(position.distance(previous[i]) / DT / TOP_SPEED);
                self.speed_samples += 1;
            }
            let distance = position.distance(goal);
            arrived += usize::from(distance <= ARRIVAL_RADIUS_M);
            if distance <= LOOSE_ARRIVAL_RADIUS_M {
                near += 1;
                self.ever_arrived[i] = true;
            }
        }
        let count = self.goals.len();
        let now = Some(outcome.ticks as f64 / f64::from(TICKS_PER_SECOND));
        let first = |time: &mut Option<f64>, reached: bool| {
            if time.is_none() && reached {
                *time = now;
            }
        };
        first(&mut outcome.time_to_95_s, arrived * 100 >= count * 95);
        first(&mut outcome.time_to_100_s, arrived == count);
        first(&mut outcome.time_to_95_loose_s, near * 100 >= count * 95);
        first(&mut outcome.time_to_100_loose_s, near == count);
        outcome.arrived_at_end = arrived;
        if outcome.ticks.is_multiple_of(u64::from(TICKS_PER_SECOND)) {
            let fraction = |within: usize| within as f64 / count.max(1) as f64;
            outcome.arrivals.push(fraction(arrived));
            outcome.arrivals_loose.push(fraction(near));
        }
        let found = contacts(positions, &self.flies, &mut self.grid);
        self.collisions += found.collisions;
        self.deepest_m = self.deepest_m.max(found.deepest_m);
        let mut slot = if self.recent.len() > STUCK_WINDOW_TICKS {
            self.recent.pop_front().unwrap_or_default()
        } else {
            Vec::new()
        };
        slot.clear();
        slot.extend_from_slice(positions);
        self.recent.push_back(slot);
    }

    fn finish(mut self) -> Outcome {
        let outcome = &mut self.outcome;
        let ticks = outcome.ticks.max(1) as f64;
        outcome.wall_ms_per_tick /= ticks;
        outcome.collisions_per_1000_unit_ticks =
            self.collisions as f64 * 1000.0 / (ticks * outcome.agents.max(1) as f64);
        outcome.deepest_interpenetration_m = f64::from(self.deepest_m);
        outcome.mean_speed_fraction = self.speed_sum / self.speed_samples.max(1) as f64;
        if let (Some(oldest), Some(last)) = (self.recent.front(), self.recent.back()) {
            let mut distances: Vec<f32> = last
                .iter()
                .zip(&self.goals)
                .map(|(position, goal)| position.distance(*goal))
                .collect();
            distances.sort_unstable_by(f32::total_cmp);
            outcome.goal_distance_p50_m = distances
                .get(distances.len() / 2)
                .map_or(0.0, |&d| f64::from(d));
            outcome.goal_distance_max_m = distances.last().map_or(0.0, |&d| f64::from(d));
            outcome.stuck_at_end = (0..self.goals.len())
                .filter(|&i| {
                    last[i].distance(self.goals[i]) > LOOSE_ARRIVAL_RADIUS_M
                        && last[i].distance(oldest[i]) < STUCK_DISTANCE_M
                })
                .count();
        }
        self.outcome
    }
}

/// Measures a run: every agent together, and each kind on its own when
/// there is more than one.
#[derive(Clone, Debug)]
pub struct Tracker {
    all: Recorder,
    /// A kind's name, its agents' indices, their recorder and positions.
    kinds: Vec<(String, Vec<usize>, Recorder, Vec<Vec2>)>,
}

impl Tracker {
    /// Starts measuring agents at `starts` bound for `goals`, of kinds
    /// named `kinds`, in the world `min`..`max`.
    #[must_use]
    pub fn new(
        starts: &[Vec2],
        goals: &[Vec2],
        flies: &[bool],
        kinds: &[&str],
        min: Vec2,
        max: Vec2,
    ) -> Tracker {
        let mut names: Vec<&str> = kinds.to_vec();
        names.sort_unstable();
        names.dedup();
        let groups = if names.len() > 1 { names } else { Vec::new() };
        let kinds = groups
            .into_iter()
            .map(|name| {
                let members: Vec<usize> = (0..kinds.len()).filter(|&i| kinds[i] == name).collect();
                let pick = |values: &[Vec2]| members.iter().map(|&i| values[i]).collect::<Vec<_>>();
                let member_flies = members.iter().map(|&i| flies[i]).collect();
                let recorder = Recorder::new(&pick(starts), pick(goals), member_flies, min, max);
                (name.to_owned(), members, recorder, Vec::new())
            })
            .collect();
        Tracker {
            all: Recorder::new(starts, goals.to_vec(), flies.to_vec(), min, max),
            kinds,
        }
    }

    /// Records the positions after a tick that took `wall_s` seconds.
    pub fn record(&mut self, positions: &[Vec2], wall_s: f64) {
        self.all.record(positions, wall_s);
        for (_, members, recorder, scratch) in &mut self.kinds {
            scratch.clear();
            scratch.extend(members.iter().map(|&i| positions[i]));
            recorder.record(scratch, wall_s);
        }
    }

    /// The results.
    #[must_use]
    pub fn finish(self) -> Outcome {
        let mut outcome = self.all.finish();
        outcome.by_kind = self
            .kinds
            .into_iter()
            .map(|(name, _, recorder, _)| (name, recorder.finish()))
            .collect();
        outcome
    }
}
