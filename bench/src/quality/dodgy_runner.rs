//! The same scenarios with `dodgy_2d`'s ORCA (the Rust port of RVO2): a
//! plain loop per tick, as a game would drive it.
//!
//! Each tick: bucket the agents in a uniform [`Grid`]; for every agent, its
//! neighbours within [`NEIGHBOUR_DISTANCE_M`] (any agent it could meet
//! within the time horizon) in its layer (ground or air) and the walls
//! within reach, and `Agent::compute_avoiding_velocity` with a preferred
//! velocity toward its target at top speed, slowing within [`SLOWING_M`]
//! of the goal, time horizon [`TIME_HORIZON_S`]; then, once every new
//! velocity is known (Jacobi), move every agent. ORCA has no planner: an
//! agent whose goal a wall hides heads for its scenario waypoint (the
//! opening) instead.
//!
//! As in RVO2's own examples, each preferred velocity is perturbed so that
//! perfectly symmetric crowds do not deadlock in a tie: a deterministic
//! pseudo-random nudge of up to [`NUDGE_M_S`] (4 % of the top speed), held
//! for [`NUDGE_HOLD_TICKS`]. RVO2's 10⁻⁴ m/s is not enough at this time
//! horizon: with it the 24 agents of `circle-24` close into a ring of
//! radius 11.5 m, each slowed by its two neighbours, and stop there. How
//! fast a circle clears depends on the nudges' draw.
//!
//! The velocity pass runs on a rayon pool of the suite's thread count; the
//! answers do not depend on it.

use std::borrow::Cow;
use std::time::Instant;

use convoy::glam::Vec2;
use dodgy_2d::{Agent, AvoidanceOptions, Obstacle};
use rayon::prelude::*;

use convoy_scenarios::crowd::metrics::{
    DT, Grid, Outcome, RADIUS_M, TICKS_PER_SECOND, TOP_SPEED, Tracker,
};
use convoy_scenarios::crowd::scenarios::{Scenario, Wall};

/// Other agents within this distance are ORCA neighbours, metres.
pub const NEIGHBOUR_DISTANCE_M: f32 = 2.0 * TOP_SPEED * TIME_HORIZON_S + 2.0 * RADIUS_M;
/// ORCA's time horizon for agents and walls, seconds.
pub const TIME_HORIZON_S: f32 = 2.0;
/// Within this distance of its goal an agent slows in proportion, metres.
pub const SLOWING_M: f32 = 3.0;

/// Largest nudge added to a preferred velocity, metres per second.
pub const NUDGE_M_S: f32 = 0.2;
/// Ticks a nudge is held before the next is drawn (a quarter second).
pub const NUDGE_HOLD_TICKS: u64 = 15;

/// Agent `i`'s nudge in nudge period `period`, from a SplitMix64 hash of
/// the two: the same every run and on any thread count.
fn nudge(i: usize, period: u64) -> Vec2 {
    let mut z = (i as u64)
        .wrapping_mul(0xD1B5_4A32_D192_ED03)
        .wrapping_add(period.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    let unit = |bits: u64| (bits & 0xFF_FFFF) as f32 / 16_777_216.0;
    Vec2::from_angle(unit(z) * std::f32::consts::TAU) * (unit(z >> 32) * NUDGE_M_S)
}

fn to_dodgy(v: Vec2) -> dodgy_2d::Vec2 {
    dodgy_2d::Vec2::new(v.x, v.y)
}

fn from_dodgy(v: dodgy_2d::Vec2) -> Vec2 {
    Vec2::new(v.x, v.y)
}

/// A wall as a closed ORCA obstacle: its corners counter-clockwise, so
/// agents are kept out of it.
fn obstacle(wall: &Wall) -> Obstacle {
    let (min, max) = (wall.min, wall.max);
    Obstacle::Closed {
        vertices: vec![
            to_dodgy(min),
            to_dodgy(Vec2::new(max.x, min.y)),
            to_dodgy(max),
            to_dodgy(Vec2::new(min.x, max.y)),
        ],
    }
}

/// Whether `point` is within `reach` of the wall's rectangle.
fn near(wall: &Wall, point: Vec2, reach: f32) -> bool {
    point.clamp(wall.min, wall.max).distance(point) <= reach
}

/// The velocity agent `i` would like: toward its goal, or toward its
/// waypoint while a wall hides the goal.
fn preferred(scenario: &Scenario, i: usize, position: Vec2) -> Vec2 {
    let agent = &scenario.agents[i];
    let hidden = scenario
        .walls
        .iter()
        .any(|wall| wall.blocks(position, agent.goal, RADIUS_M));
    let (target, slows) = match agent.waypoint {
        Some(waypoint) if hidden => (waypoint, false),
        _ => (agent.goal, true),
    };
    let offset = target - position;
    let distance = offset.length();
    if distance < 1e-4 {
        return Vec2::ZERO;
    }
    let speed = if slows {
        TOP_SPEED * (distance / SLOWING_M).min(1.0)
    } else {
        TOP_SPEED
    };
    offset * (speed / distance)
}

/// Runs `scenario` to its time limit on `pool` and measures it.
pub fn run(scenario: &Scenario, pool: &rayon::ThreadPool) -> Outcome {
    let starts: Vec<Vec2> = scenario.agents.iter().map(|agent| agent.start).collect();
    let goals: Vec<Vec2> = scenario.agents.iter().map(|agent| agent.goal).collect();
    let flies: Vec<bool> = scenario.agents.iter().map(|agent| agent.flies()).collect();
    let kinds: Vec<&str> = scenario
        .agents
        .iter()
        .map(|agent| agent.kind.name())
        .collect();
    let mut tracker = Tracker::new(&starts, &goals, &flies, &kinds, scenario.min, scenario.max);
    let mut agents: Vec<Agent> = starts
        .iter()
        .map(|&start| Agent {
            position: to_dodgy(start),
            velocity: dodgy_2d::Vec2::ZERO,
            radius: RADIUS_M,
            avoidance_responsibility: 1.0,
        })
        .collect();
    let obstacles: Vec<Obstacle> = scenario.walls.iter().map(obstacle).collect();
    let options = AvoidanceOptions {
        obstacle_margin: RADIUS_M,
        time_horizon: TIME_HORIZON_S,
        obstacle_time_horizon: TIME_HORIZON_S,
    };
    // RVO2's obstacle range: what the agent can reach within the horizon.
    let wall_reach = TIME_HORIZON_S * TOP_SPEED + RADIUS_M;
    let mut grid = Grid::new(scenario.min, scenario.max, NEIGHBOUR_DISTANCE_M);
    let mut positions = starts.clone();
    let mut velocities = vec![dodgy_2d::Vec2::ZERO; agents.len()];
    let ticks = (scenario.time_limit_s * TICKS_PER_SECOND as f32).round() as u64;
    for tick in 0..ticks {
        let started = Instant::now();
        grid.rebuild(&positions);
        pool.install(|| {
            velocities.par_iter_mut().enumerate().for_each_init(
                Vec::new,
                |neighbours: &mut Vec<Cow<'_, Agent>>, (i, velocity)| {
                    let position = positions[i];
                    neighbours.clear();
                    grid.for_each_within(&positions, position, NEIGHBOUR_DISTANCE_M, |j, _| {
                        if j != i && flies[i] == flies[j] {
                            neighbours.push(Cow::Borrowed(&agents[j]));
                        }
                    });
                    let walls: Vec<Cow<'_, Obstacle>> = scenario
                        .walls
                        .iter()
                        .zip(&obstacles)
                        .filter(|(wall, _)| !flies[i] && near(wall, position, wall_reach))
                        .map(|(_, obstacle)| Cow::Borrowed(obstacle))
                        .collect();
                    *velocity = agents[i].compute_avoiding_velocity(
                        neighbours,
                        &walls,
                        to_dodgy(
                            preferred(scenario, i, position) + nudge(i, tick / NUDGE_HOLD_TICKS),
                        ),
                        TOP_SPEED,
                        DT,
                        &options,
                    );
                },
            );
        });
        for ((agent, &velocity), position) in agents.iter_mut().zip(&velocities).zip(&mut positions)
        {
            agent.velocity = velocity;
            agent.position += velocity * DT;
            *position = from_dodgy(agent.position);
        }
        let wall_s = started.elapsed().as_secs_f64();
        tracker.record(&positions, wall_s);
    }
    tracker.finish()
}
