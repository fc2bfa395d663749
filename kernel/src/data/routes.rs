//! Every unit's route: the string-pulled corners it drives through.

use glam::Vec2;

pub use crate::nav::world::ROUTE_POINTS;


/// Every unit's route, [`ROUTE_POINTS`] slots per handle slot (stable
/// across row moves). Sized when units spawn, so storing a route never
/// allocates in the tick.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Routes {
    points: Vec<Vec2>,
}

impl Routes {
    /// Makes room for `slots` handle slots.
    pub fn reserve_slots(&mut self, slots: usize) {
        let needed = slots * ROUTE_POINTS;
        if self.points.len() < needed {
            self.points.resize(needed, Vec2::ZERO);
        }
    }

    /// Stores `route` (at most [`ROUTE_POINTS`] points) for `slot`.
    pub fn store(&mut self, slot: u32, route: &[Vec2]) {
        let start = slot as usize * ROUTE_POINTS;
        self.points[start..start + route.len()].copy_from_slice(route);
    }

    /// Point `index` of `slot`'s route.
    #[must_use]
    #[inline]
    pub fn point(&self, slot: u32, index: u32) -> Vec2 {
        self.points[slot as usize * ROUTE_POINTS + index as usize]
    }

    /// `slot`'s route points (all [`ROUTE_POINTS`] of them; the unit's
    /// `route_len` column says how many are in use).
    #[must_use]
    pub fn of(&self, slot: u32) -> &[Vec2] {
        let start = slot as usize * ROUTE_POINTS;
        &self.points[start..start + ROUTE_POINTS]
    }

    /// The whole buffer, for snapshots.
    #[must_use]
    pub fn as_slice(&self) -> &[Vec2] {
        &self.points
    }

    /// Routes from a snapshot's buffer.
    #[must_use]
    pub fn from_points(points: Vec<Vec2>) -> Routes {
        Routes { points }
    }
}

