//! Walls stop ground units: the last step of the `integrate` stage.
//!
//! Steering keeps units off walls only by looking — the drive-to point is
//! in sight, the bad-position check asks for a path when it is not,
//! avoidance checks its swerves — and a unit still drives straight at an
//! unseen point while its own path waits in the queue, or cuts a corner on
//! its turning circle. So after the dynamics step, a ground unit (altitude
//! 0) whose step took it from an open cell onto a blocked one of the map
//! takes only the part of the step that stays on open ground: along x or
//! along y alone, sliding along the wall, or none
//! ([`WorldMap::step_on_open_ground`], the rule separation's pushes follow
//! too); the velocity keeps only that part, as against a wall. Each unit
//! depends only on its own row and the map, so the result does not depend
//! on the thread count.

use glam::Vec2;

use crate::nav::WorldMap;
use crate::parallel::for_each_chunk2;
use crate::vehicles::ColumnsMut;

/// Takes back the part of each ground unit's last step (from `steered_from`
/// to its position) that ended on a blocked cell of `map`; returns how
/// many units a wall stopped or turned.
pub fn stop_at_walls(columns: &mut ColumnsMut<'_>, map: &WorldMap) -> usize {
    let (from, altitude) = (&*columns.steered_from, &*columns.altitude);
    let stopped = std::sync::atomic::AtomicUsize::new(0);
    for_each_chunk2(
        columns.position,
        columns.velocity,
        |first, positions, velocities| {
            let mut count = 0;
            for (offset, (position, velocity)) in positions.iter_mut().zip(velocities).enumerate() {
                let unit = first + offset;
                if altitude[unit] > 0.0 || map.is_open(*position) {
                    continue;
                }
                let step = *position - from[unit];
                let allowed = map.step_on_open_ground(from[unit], step);
                if allowed != step {
                    *position = from[unit] + allowed;
                    *velocity = keep_free_parts(*velocity, allowed, step);
                    count += 1;
                }
            }
            stopped.fetch_add(count, std::sync::atomic::Ordering::Relaxed);
        },
    );
    stopped.into_inner()
}

/// The velocity with the axis parts the wall took away set to 0.
fn keep_free_parts(velocity: Vec2, allowed: Vec2, step: Vec2) -> Vec2 {
    Vec2::new(
        if allowed.x == step.x { velocity.x } else { 0.0 },
        if allowed.y == step.y { velocity.y } else { 0.0 },
    )
}
