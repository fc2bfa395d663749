//! Reciprocal avoidance: each unit's velocity chosen by ORCA ([`super::orca`];
//! van den Berg, Guy, Lin, Manocha, "Reciprocal n-body collision avoidance",
//! 2011) among its nearest neighbours and the walls near it.
//!
//! A unit takes one half-plane per neighbour (its [`MAX_NEIGHBOURS`] nearest
//! within the neighbour radius whose layers meet its own: ground units do not
//! avoid helicopters above them), sharing each avoidance half and half with a
//! movable neighbour and taking all of it from an immovable one; one hard
//! half-plane per wall segment within reach (the grid's blocked-cell
//! boundaries, merged into runs: [`super::wall_runs`]); and picks the velocity nearest its
//! preferred one (toward its drive-to point, at its speed limit). Shields
//! enter through their footprint: a capsule's extent along the line between
//! the two units. Head-on pairs pass on their right: the preferred velocity
//! leans [`RIGHT_LEAN`] to the right while it has neighbours, and a
//! deterministic nudge from a hash of (unit, tick) breaks exact symmetry.

use glam::Vec2;

use super::movers::{Mover, MoverColumns};
use super::orca::{HalfPlane, Neighbour, VelocitySolver, neighbour_half_plane, segment_half_plane};
use crate::geometry::segments::point_segment_distance;
use super::wall_runs::for_each_wall_run;
use crate::nav::{ClassMaps, WorldMap};
use crate::random::unit_f32;

/// Neighbours a unit avoids at most: its nearest (RVO2's `maxNeighbors`),
/// so its linear program stays small however dense the crowd (the scan for
/// them examines at most `max_run_candidates` places of each run of cells).
pub const MAX_NEIGHBOURS: usize = 10;
/// Wall segments a unit avoids at most: the nearest.
pub const MAX_WALLS: usize = 12;
/// How far ahead avoidance looks for other units, seconds.
pub const HORIZON_S: f32 = 2.0;
/// How far ahead avoidance looks for walls, seconds.
pub const WALL_HORIZON_S: f32 = 1.0;
/// The preferred velocity's lean to the right while avoiding, as a
/// fraction of its length: crowds meeting head-on pass on one side.
pub const RIGHT_LEAN: f32 = 0.3;
/// The largest symmetry-breaking nudge, as a fraction of the speed limit.
const NUDGE: f32 = 0.01;
/// Stream of the nudge's hash.
const NUDGE_STREAM: u64 = 0x6f72_6361;

/// A unit's nearest neighbours, by place, nearest first (ties by place, so
/// the choice never depends on the order they are offered in).
#[derive(Clone, Copy, Debug)]
pub struct Nearest {
    distance_sq: [f32; MAX_NEIGHBOURS],
    place: [u32; MAX_NEIGHBOURS],
    len: usize,
}

impl Default for Nearest {
    fn default() -> Self {
        Nearest {
            distance_sq: [f32::INFINITY; MAX_NEIGHBOURS],
            place: [u32::MAX; MAX_NEIGHBOURS],
            len: 0,
        }
    }
}

impl Nearest {
    /// Keeps `place` if it is among the nearest so far.
    #[inline]
    pub fn offer(&mut self, distance_sq: f32, place: u32) {
        let key = (distance_sq, place);
        if self.len == MAX_NEIGHBOURS && key >= (self.distance_sq[self.len - 1], self.place[self.len - 1])
        {
            return;
        }
        let mut at = self.len.min(MAX_NEIGHBOURS - 1);
        while at > 0 && key < (self.distance_sq[at - 1], self.place[at - 1]) {
            self.distance_sq[at] = self.distance_sq[at - 1];
            self.place[at] = self.place[at - 1];
            at -= 1;
        }
        self.distance_sq[at] = distance_sq;
        self.place[at] = place;
        self.len = (self.len + 1).min(MAX_NEIGHBOURS);
    }

    /// The kept places, nearest first.
    #[must_use]
    pub fn places(&self) -> &[u32] {
        &self.place[..self.len]
    }
}

/// Whether two units can meet: their shields' vertical spans overlap.
#[inline]
#[must_use]
pub fn layers_meet(a: &Mover, b: &Mover) -> bool {
    (a.altitude - b.altitude).abs() < a.half_height + b.half_height
}

/// A capsule shield's extent from its centre along the unit vector
/// `direction`: its half width plus its core's projection.
#[inline]
#[must_use]
pub fn footprint(mover: &Mover, direction: Vec2) -> f32 {
    mover.half_width + mover.half_core * mover.axis.dot(direction).abs()
}

/// How far a unit's shield reaches toward a neighbour along `direction`:
/// its [`footprint`] while it drives, its bounding radius while it is
/// (nearly) stopped, when a unit may turn in place and sweep its whole
/// length; so the pair's constraint does not flip with the heading of a
/// unit turning on the spot.
#[inline]
fn reach(mover: &Mover, direction: Vec2) -> f32 {
    if mover.speed < TURNING_SPEED {
        mover.bounding_radius
    } else {
        footprint(mover, direction)
    }
}

/// Below this speed a unit counts as turning on the spot, m/s.
const TURNING_SPEED: f32 = 0.5;

/// What one unit's choice reads besides its neighbours.
#[derive(Clone, Copy, Debug)]
pub struct Chooser<'a> {
    /// Every unit as avoidance reads it, by place.
    pub movers: &'a MoverColumns,
    /// The terrain of each mobility class, if any: ground units avoid
    /// their class's walls.
    pub walls: ClassMaps<'a>,
    /// Seconds this tick advances.
    pub dt: f32,
    /// The tick, for the symmetry-breaking nudge.
    pub tick: u64,
}

/// One unit's question: who it is and what it wants.
#[derive(Clone, Copy, Debug)]
pub struct Wish {
    /// The unit.
    pub me: Mover,
    /// Its row (for the nudge's hash).
    pub unit: u32,
    /// Its velocity toward its drive-to point.
    pub preferred: Vec2,
    /// Its speed limit this tick.
    pub max_speed: f32,
    /// Its mobility class: whose walls it avoids.
    pub mobility: u8,
}

/// The unit's velocity: nearest to its wish among those that keep it clear
/// of `nearest` for [`HORIZON_S`] and of walls for [`WALL_HORIZON_S`].
/// `immovable(place)` says whether a neighbour takes no share.
pub fn choose(
    chooser: &Chooser<'_>,
    wish: &Wish,
    nearest: &Nearest,
    immovable: impl Fn(usize) -> bool,
    solver: &mut VelocitySolver,
) -> Vec2 {
    let mut planes = [HalfPlane {
        point: Vec2::ZERO,
        direction: Vec2::X,
    }; MAX_WALLS + MAX_NEIGHBOURS];
    let me = &wish.me;
    let walls = match chooser.walls.of(wish.mobility) {
        Some(map) if me.altitude <= 0.0 => wall_planes(map, me, wish.max_speed, &mut planes),
        _ => 0,
    };
    let mut count = walls;
    for &place in nearest.places() {
        let other = chooser.movers.get(place as usize);
        let offset = other.position - me.position;
        let direction = offset.normalize_or(me.axis);
        let neighbour = Neighbour {
            relative_position: offset,
            relative_velocity: me.velocity - other.velocity,
            combined_radius: reach(me, direction) + reach(&other, direction),
            responsibility: if immovable(place as usize) { 1.0 } else { 0.5 },
        };
        planes[count] = neighbour_half_plane(me.velocity, &neighbour, HORIZON_S, chooser.dt);
        count += 1;
    }
    let preferred = if count > walls {
        lean_right(wish, chooser.tick)
    } else {
        wish.preferred
    };
    solver.solve(&planes[..count], walls, preferred, wish.max_speed)
}

/// The preferred velocity leaning [`RIGHT_LEAN`] to its right, plus a
/// nudge from a hash of (unit, tick).
fn lean_right(wish: &Wish, tick: u64) -> Vec2 {
    let right = -wish.preferred.perp();
    let angle = std::f32::consts::TAU * unit_f32(u64::from(wish.unit), NUDGE_STREAM, tick);
    let nudge = Vec2::from_angle(angle) * (NUDGE * wish.max_speed);
    wish.preferred + RIGHT_LEAN * right + nudge
}

/// Writes the hard half-planes of the wall segments within reach of `me`
/// (the nearest [`MAX_WALLS`]) to the front of `planes`; returns how many.
fn wall_planes(map: &WorldMap, me: &Mover, max_speed: f32, planes: &mut [HalfPlane]) -> usize {
    let reach = me.bounding_radius + max_speed * WALL_HORIZON_S + map.cell_size();
    let mut segments = NearestWalls::default();
    for_each_wall_run(map, me.position, reach, |a, b| {
        let distance = point_segment_distance(me.position, (a, b));
        if distance <= reach {
            segments.offer(distance, a, b);
        }
    });
    let mut count = 0;
    for &(a, b) in segments.kept() {
        // The shield's extent toward the wall, not its bounding radius: a
        // long hull driving along a wall is only its half width from it.
        let toward = closest_on_segment(me.position, a, b) - me.position;
        let radius = footprint(me, toward.normalize_or(me.axis));
        let plane = segment_half_plane(me.position, me.velocity, radius, a, b, WALL_HORIZON_S);
        if let Some(plane) = plane {
            planes[count] = plane;
            count += 1;
        }
    }
    count
}

/// The point of segment `(a, b)` nearest `point`.
fn closest_on_segment(point: Vec2, a: Vec2, b: Vec2) -> Vec2 {
    let along = b - a;
    let t = (point - a).dot(along) / along.length_squared().max(f32::MIN_POSITIVE);
    a + along * t.clamp(0.0, 1.0)
}

/// The nearest wall segments, nearest first.
#[derive(Default)]
struct NearestWalls {
    distance: [f32; MAX_WALLS],
    segment: [(Vec2, Vec2); MAX_WALLS],
    len: usize,
}

impl NearestWalls {
    fn offer(&mut self, distance: f32, a: Vec2, b: Vec2) {
        if self.len == MAX_WALLS && distance >= self.distance[self.len - 1] {
            return;
        }
        let mut at = self.len.min(MAX_WALLS - 1);
        while at > 0 && distance < self.distance[at - 1] {
            self.distance[at] = self.distance[at - 1];
            self.segment[at] = self.segment[at - 1];
            at -= 1;
        }
        self.distance[at] = distance;
        self.segment[at] = (a, b);
        self.len = (self.len + 1).min(MAX_WALLS);
    }

    fn kept(&self) -> &[(Vec2, Vec2)] {
        &self.segment[..self.len]
    }
}
