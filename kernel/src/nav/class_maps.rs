//! A grid map as each mobility class sees it: the per-unit path filter.
//!
//! DetourCrowd gives each agent a query filter (area costs and the areas it
//! may enter), landmass each character its own node-type costs. Here a
//! unit's mobility class ([`MobilityClass`]) picks one [`WorldMap`] of the
//! same terrain: class 0 is the map as configured, class `k` the same
//! cells under [`SimConfig::mobility_classes`]`[k - 1]`'s costs. Each map
//! has its own regions and HPA* clusters, so a ship's route stays on water
//! and a truck that may not enter swamp goes round it; every stage reads
//! walls, line of sight and open ground from the unit's own map.
//!
//! [`SimConfig::mobility_classes`]: crate::SimConfig::mobility_classes

use std::sync::Arc;

use super::WorldMap;

/// A unit's mobility class: which of the `Sim`'s grid maps it plans, steers
/// and is kept off walls on. 0, the default, is the configured map's own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MobilityClass(pub u8);

/// Most mobility classes a `Sim` has (class 0 and 255 more).
pub const MAX_MOBILITY_CLASSES: usize = 256;

/// The grid map of every mobility class, borrowed for a tick or an order.
#[derive(Clone, Copy, Debug, Default)]
pub struct ClassMaps<'a> {
    /// Class 0's map (`None` on an open field or a polygon map's absent
    /// raster).
    base: Option<&'a WorldMap>,
    /// Classes 1 and up.
    more: &'a [Arc<WorldMap>],
}

impl<'a> ClassMaps<'a> {
    /// Class 0 on `base`, class `k` on `more[k - 1]`.
    #[must_use]
    pub fn new(base: Option<&'a WorldMap>, more: &'a [Arc<WorldMap>]) -> Self {
        Self { base, more }
    }

    /// The map of `class`; a class the `Sim` does not have (refused at
    /// spawn and restore) reads class 0's.
    #[must_use]
    #[inline]
    pub fn of(self, class: u8) -> Option<&'a WorldMap> {
        match usize::from(class).checked_sub(1) {
            Some(k) => self.more.get(k).map(Arc::as_ref).or(self.base),
            None => self.base,
        }
    }

    /// Class 0's map.
    #[must_use]
    pub fn base(self) -> Option<&'a WorldMap> {
        self.base
    }

    /// Every class's map, class 0 first.
    pub fn all(self) -> impl Iterator<Item = &'a WorldMap> {
        let more = if self.base.is_some() { self.more } else { &[] };
        self.base.into_iter().chain(more.iter().map(Arc::as_ref))
    }

    /// How many classes there are (1 without extra classes).
    #[must_use]
    pub fn count(self) -> usize {
        1 + self.more.len()
    }
}
