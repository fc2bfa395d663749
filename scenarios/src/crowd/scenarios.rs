//! The quality scenarios: where every agent starts, where it goes, and the
//! walls in the way. Both runners build their worlds from the same
//! [`Scenario`], so the two systems see identical starts and goals.

use convoy::VehicleKind;
use convoy::glam::Vec2;

/// Every scenario's name, in the order the suite runs them.
pub const NAMES: [&str; 8] = [
    "circle-24",
    "circle-100",
    "circle-250",
    "circle-1000",
    "blocks-head-on",
    "blocks-crossing",
    "gap-6m",
    "mixed-kinds",
];

/// The scenarios of `--quick`: small enough for a CI smoke run.
pub const QUICK: [&str; 2] = ["circle-24", "circle-100"];

/// Spacing of the agents in a block, metres.
const PITCH_M: f32 = 4.0;
/// Width of the opening in the wall of `gap-6m`, metres.
const GAP_M: f32 = 6.0;
/// Thickness of that wall, metres (one map cell).
const WALL_M: f32 = 1.0;
/// Free ground kept around every scenario's starts and goals, metres.
const MARGIN_M: f32 = 40.0;

/// One agent: its start, its goal and what it is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Agent {
    /// Where it starts, metres.
    pub start: Vec2,
    /// Where it is sent, metres.
    pub goal: Vec2,
    /// Its convoy kind (a plain disc in dodgy whatever the kind).
    pub kind: VehicleKind,
    /// A point to head for first while a wall hides the goal (dodgy has no
    /// planner; convoy plans its own route on the map).
    pub waypoint: Option<Vec2>,
}

impl Agent {
    /// Whether it flies: flying agents meet only other flying ones.
    #[must_use]
    pub fn flies(&self) -> bool {
        self.kind.handling().flies
    }
}

/// An axis-aligned solid rectangle, metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wall {
    /// South-west corner.
    pub min: Vec2,
    /// North-east corner.
    pub max: Vec2,
}

impl Wall {
    /// Whether the segment from `a` to `b` passes within `margin` of the
    /// wall (a slab test against the rectangle grown by `margin`).
    #[must_use]
    pub fn blocks(&self, a: Vec2, b: Vec2, margin: f32) -> bool {
        let (min, max) = (self.min - margin, self.max + margin);
        let direction = b - a;
        let (mut enter, mut leave) = (0.0f32, 1.0f32);
        for axis in 0..2 {
            let (start, step) = (a[axis], direction[axis]);
            if step.abs() < 1e-9 {
                if start < min[axis] || start > max[axis] {
                    return false;
                }
                continue;
            }
            let t0 = (min[axis] - start) / step;
            let t1 = (max[axis] - start) / step;
            enter = enter.max(t0.min(t1));
            leave = leave.min(t0.max(t1));
        }
        enter <= leave
    }
}

/// A scenario: agents, walls, the world's extent and its time limit.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Its name, one of [`NAMES`].
    pub name: &'static str,
    /// Every agent, in a fixed order both runners keep.
    pub agents: Vec<Agent>,
    /// Solid rectangles no agent may cross.
    pub walls: Vec<Wall>,
    /// South-west corner of the world.
    pub min: Vec2,
    /// North-east corner of the world.
    pub max: Vec2,
    /// Simulated seconds the systems get.
    pub time_limit_s: f32,
}

/// The scenario called `name`, or `None` if there is none.
#[must_use]
pub fn build(name: &str) -> Option<Scenario> {
    let (agents, walls, time_limit_s) = match name {
        "circle-24" => (
            circle(24, 50.0, |_| VehicleKind::Infantry),
            Vec::new(),
            90.0,
        ),
        "circle-100" => (
            circle(100, 80.0, |_| VehicleKind::Infantry),
            Vec::new(),
            120.0,
        ),
        "circle-250" => (
            circle(250, 200.0, |_| VehicleKind::Infantry),
            Vec::new(),
            240.0,
        ),
        "circle-1000" => (
            circle(1000, 400.0, |_| VehicleKind::Infantry),
            Vec::new(),
            300.0,
        ),
        "blocks-head-on" => (head_on(), Vec::new(), 120.0),
        "blocks-crossing" => (crossing(), Vec::new(), 120.0),
        "gap-6m" => {
            let (agents, walls) = gap();
            (agents, walls, 120.0)
        }
        "mixed-kinds" => (circle(100, 80.0, mixed_kind), Vec::new(), 120.0),
        _ => return None,
    };
    let name = NAMES.iter().copied().find(|known| *known == name)?;
    let (mut min, mut max) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
    for agent in &agents {
        min = min.min(agent.start).min(agent.goal);
        max = max.max(agent.start).max(agent.goal);
    }
    // Whole metres, so map cells line up with the walls.
    let (min, max) = ((min - MARGIN_M).floor(), (max + MARGIN_M).ceil());
    // Walls run from edge to edge of the world.
    let walls = walls
        .into_iter()
        .map(|wall: Wall| Wall {
            min: wall.min.max(min),
            max: wall.max.min(max),
        })
        .collect();
    Some(Scenario {
        name,
        agents,
        walls,
        min,
        max,
        time_limit_s,
    })
}

/// `count` agents evenly on a circle of `radius` metres, each sent to the
/// point opposite; `kind_of(i)` says what agent `i` is. `circle-1000`'s
/// agents start 2.51 m apart, closer than two radii: every neighbouring
/// pair begins overlapping by 0.49 m, which both systems must first undo.
fn circle(count: usize, radius: f32, kind_of: impl Fn(usize) -> VehicleKind) -> Vec<Agent> {
    (0..count)
        .map(|i| {
            let angle = std::f32::consts::TAU * i as f32 / count as f32;
            let start = Vec2::from_angle(angle) * radius;
            Agent {
                start,
                goal: -start,
                kind: kind_of(i),
                waypoint: None,
            }
        })
        .collect()
}

/// Tracked, wheeled, infantry and helicopters in turn around the circle.
fn mixed_kind(i: usize) -> VehicleKind {
    [
        VehicleKind::Tracked,
        VehicleKind::Wheeled,
        VehicleKind::Infantry,
        VehicleKind::RotaryWing,
    ][i % 4]
}

/// A block of `across` × `deep` infantry at [`PITCH_M`]: its rows at
/// `front + k · PITCH_M · back` (k = 0 … deep − 1), its files spread along
/// `side` about `front`; each agent goes to `mirror` of its start.
fn block(
    across: usize,
    deep: usize,
    front: Vec2,
    back: Vec2,
    side: Vec2,
    mirror: impl Fn(Vec2) -> Vec2,
) -> Vec<Agent> {
    let half = (across - 1) as f32 * PITCH_M / 2.0;
    let mut agents = Vec::with_capacity(across * deep);
    for row in 0..deep {
        for file in 0..across {
            let start =
                front + back * (row as f32 * PITCH_M) + side * (file as f32 * PITCH_M - half);
            agents.push(Agent {
                start,
                goal: mirror(start),
                kind: VehicleKind::Infantry,
                waypoint: None,
            });
        }
    }
    agents
}

/// Two blocks of 25 × 20 whose front rows face each other 100 m apart
/// along x; each agent goes to its mirror image in x = 0, which lies past
/// the other block.
fn head_on() -> Vec<Agent> {
    let mirror = |p: Vec2| Vec2::new(-p.x, p.y);
    let mut agents = block(25, 20, Vec2::new(-50.0, 0.0), Vec2::NEG_X, Vec2::Y, mirror);
    agents.extend(block(
        25,
        20,
        Vec2::new(50.0, 0.0),
        Vec2::X,
        Vec2::Y,
        mirror,
    ));
    agents
}

/// Two blocks of 25 × 10 that cross at right angles: one heading east, one
/// north, both reaching the middle together; each agent goes to its mirror
/// image across the middle.
fn crossing() -> Vec<Agent> {
    let mut agents = block(25, 10, Vec2::new(-60.0, 0.0), Vec2::NEG_X, Vec2::Y, |p| {
        Vec2::new(-p.x, p.y)
    });
    agents.extend(block(
        25,
        10,
        Vec2::new(0.0, -60.0),
        Vec2::NEG_Y,
        Vec2::X,
        |p| Vec2::new(p.x, -p.y),
    ));
    agents
}

/// 200 infantry (20 × 10) south of a wall along y ∈ [0, 1) with a 6 m
/// opening at x ∈ [−3, 3); each goes to its mirror image north of the wall,
/// by way of the opening's middle while the wall hides its goal.
fn gap() -> (Vec<Agent>, Vec<Wall>) {
    let opening = Vec2::new(0.0, WALL_M / 2.0);
    let mirror = |p: Vec2| Vec2::new(p.x, WALL_M - p.y);
    let agents = block(20, 10, Vec2::new(0.0, -12.0), Vec2::NEG_Y, Vec2::X, mirror)
        .into_iter()
        .map(|agent| Agent {
            waypoint: Some(opening),
            ..agent
        })
        .collect();
    // Clipped to the world's edges by `build`.
    let walls = vec![
        Wall {
            min: Vec2::new(f32::MIN, 0.0),
            max: Vec2::new(-GAP_M / 2.0, WALL_M),
        },
        Wall {
            min: Vec2::new(GAP_M / 2.0, 0.0),
            max: Vec2::new(f32::MAX, WALL_M),
        },
    ];
    (agents, walls)
}
