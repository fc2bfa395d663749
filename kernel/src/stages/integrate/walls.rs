//! Walls stop ground units: the last step of the `integrate` stage.
//!
//! Steering keeps units off walls only by looking — the drive-to point is
//! in sight, the bad-position check asks for a path when it is not,
//! avoidance checks its swerves — and a unit still drives straight at an
//! unseen point while its own path waits in the queue, or cuts a corner on
//! its turning circle. So after the dynamics step, a ground unit (altitude
//! 0) whose step took it from an open cell across or onto a blocked one of
//! the map takes only the part of the step that stays on open ground:
//! along x or along y alone, sliding along the wall, or none
//! ([`WorldMap::step_on_open_ground`], the rule separation's pushes follow
//! too); the velocity keeps only that part, as against a wall. Each unit
//! depends only on its own row and the map, so the result does not depend
//! on the thread count.

use glam::Vec2;

use super::motion::Motion;
use crate::nav::WorldMap;

/// Cuts `next` (the dynamics step of a ground unit from `from`) short at a
/// wall of `map`; returns whether it did.
#[inline]
pub(crate) fn stop_at_wall(map: &WorldMap, from: Vec2, next: &mut Motion) -> bool {
    if map.segment_is_clear(from, next.position) {
        return false;
    }
    let step = next.position - from;
    let allowed = map.step_on_open_ground(from, step);
    if allowed == step {
        return false;
    }
    next.position = from + allowed;
    next.velocity = keep_free_parts(next.velocity, allowed, step);
    true
}

/// The velocity with the axis parts the wall took away set to 0.
fn keep_free_parts(velocity: Vec2, allowed: Vec2, step: Vec2) -> Vec2 {
    Vec2::new(
        if allowed.x == step.x { velocity.x } else { 0.0 },
        if allowed.y == step.y { velocity.y } else { 0.0 },
    )
}
