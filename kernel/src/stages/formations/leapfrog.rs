//! Leapfrogging (Kozlowski & Ross, "Squad formations", Company of Heroes:
//! "Leapfrogging" and "Virtual Leader").
//!
//! While its platoon moves, an element leader — a slot other slots are
//! placed from — that finds a point of interest within `leapfrog_m` of its
//! slot, ahead of it and in its sight, leaves the formation, runs to the
//! point at full speed, holds there `leapfrog_hold_s`, and takes its slot
//! again (also once the formation has moved `2 × leapfrog_m` past the
//! point). Its followers are along for the ride: their slots hang from
//! their parent's slot, not from the leader's body, and every slot from
//! the platoon's own position on its path — the virtual leader the paper
//! adds so that a leapfrogging squad leader does not pull the squad off
//! course. A leader never returns to the point it last held, and no two
//! leaders of a platoon share one. The platoon does not wait for a
//! leapfrogging leader, and its distance from its slot is no formation
//! error.

use glam::Vec2;

use super::{Members, SPOT_RADIUS};
use crate::data::platoons::Platoon;
use crate::data::points_of_interest::PointsOfInterest;
use crate::nav::WorldMap;

/// Sends element leaders to points of interest and brings them back: the
/// leapfrogging slots' drive-to points, speed limits and errors, after
/// the stage laid the slots out for a moving platoon.
pub(super) fn leapfrog(
    platoon: &mut Platoon,
    members: &Members,
    positions: &[Vec2],
    points: &PointsOfInterest,
    map: Option<&WorldMap>,
    dt: f32,
) {
    if platoon.leapfrog_m <= 0.0 || points.is_empty() {
        platoon.leaping = 0;
        return;
    }
    let forward = Vec2::from_angle(platoon.heading);
    for slot in 0..=members.last {
        let bit = 1 << slot;
        let Some(row) = members.row(slot) else {
            platoon.leaping &= !bit;
            continue;
        };
        let at = positions[row];
        if platoon.leaping & bit != 0 {
            let point = platoon.leap_point[slot];
            if at.distance(point) <= SPOT_RADIUS {
                platoon.leap_hold[slot] -= dt;
            }
            let passed = point.distance(platoon.targets[slot]) > 2.0 * platoon.leapfrog_m;
            if platoon.leap_hold[slot] <= 0.0 || passed {
                platoon.leaping &= !bit;
                continue;
            }
        } else {
            if !leads_element(platoon, members, slot) {
                continue;
            }
            let Some(point) = point_for(platoon, slot, at, forward, points, map) else {
                continue;
            };
            platoon.leaping |= bit;
            platoon.leap_point[slot] = point;
            platoon.leap_hold[slot] = platoon.leapfrog_hold_s;
        }
        platoon.targets[slot] = platoon.leap_point[slot];
        platoon.cruise[slot] = f32::INFINITY;
        platoon.error[slot] = f32::NAN;
    }
}

/// Whether some occupied slot is placed from `slot` (the lead counts).
fn leads_element(platoon: &Platoon, members: &Members, slot: usize) -> bool {
    let formation = platoon.formation();
    (slot + 1..=members.last).any(|k| members.row(k).is_some() && formation.parent(k) == Some(slot))
}

/// The point of interest nearest `slot`'s slot within reach: ahead of the
/// leader at `at`, in its sight, not the one it last held, and not
/// another leader's.
fn point_for(
    platoon: &Platoon,
    slot: usize,
    at: Vec2,
    forward: Vec2,
    points: &PointsOfInterest,
    map: Option<&WorldMap>,
) -> Option<Vec2> {
    let taken = |point: Vec2| {
        (0..platoon.leap_point.len())
            .any(|k| k != slot && platoon.leaping & (1 << k) != 0 && platoon.leap_point[k] == point)
    };
    let fits = |point: Vec2| {
        point != platoon.leap_point[slot]
            && (point - at).dot(forward) > 0.0
            && !taken(point)
            && map.is_none_or(|map| map.segment_is_clear(at, point))
    };
    points.nearest(platoon.targets[slot], platoon.leapfrog_m, fits)
}
