//! Platoons and formations: the `formations` stage.
//!
//! A unit in no platoon drives where the `paths` stage points it (its
//! route's next corner, or its goal). Platoon movement (Force 21 §4,
//! Company of Heroes squad formations) will write formation slots here;
//! until it lands the stage only counts the units in no platoon.

use crate::parallel::count_rows;
use crate::vehicles::NONE;

/// How many units are in no platoon.
#[must_use]
pub fn count_solo(platoon: &[u32]) -> usize {
    count_rows(platoon.len(), |row| platoon[row] == NONE)
}
