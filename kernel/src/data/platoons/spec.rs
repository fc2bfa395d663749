//! How a platoon moves: its spec, checked before a platoon is made.

use super::{Formation, PlatoonError};

/// How members are kept in slots.
#[repr(u8)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum SlotRule {
    /// Force 21: a member keeps its slot; a lost unit's slot stays empty.
    #[default]
    Fixed = 0,
    /// Company of Heroes: the first slots are occupied, with the fewest
    /// moves after each change.
    Packed = 1,
}

/// How a slot whose straight line from the lead is blocked is softened.
#[repr(u8)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Softening {
    /// Force 21 §4: pull the drive-to point toward the column position on
    /// the path until the line is clear, and release it gradually.
    #[default]
    PullToPath = 0,
    /// Company of Heroes: a bounded A* (64 expanded cells) from the lead
    /// toward the slot; the reached cell nearest the slot is used.
    BoundedSearch = 1,
}

/// How a platoon moves; checked by [`PlatoonSpec::validate`].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PlatoonSpec {
    /// The starting shape.
    pub formation: Formation,
    /// Distance between neighbouring slots, metres; at least the widest
    /// shield among members that can meet (two fliers, or two ground units).
    pub spacing_m: f32,
    /// Followers aim at their slot around the platoon's position this many
    /// seconds ahead on its path (Company of Heroes: about 2 s; 0 is the
    /// slot at the platoon's position).
    pub lookahead_s: f32,
    /// Radius of each member's slow random drift around its slot, metres
    /// (Company of Heroes; 0 for none).
    pub drift_m: f32,
    /// Chooses the shape from the ground under the platoon (wide wedge in
    /// the open, tight wedge where confined) instead of `formation`.
    pub context: bool,
    /// How blocked slots are softened.
    pub softening: Softening,
    /// How slots are kept.
    pub slots: SlotRule,
    /// The side the platoon is on: it plans with its faction's knowledge
    /// of the bridges (polygon maps; below the navigator's faction count).
    pub faction: u16,
    /// Element leaders leapfrog (Company of Heroes) to a point of interest
    /// (`SimConfig::points_of_interest`) this near their slot and ahead of
    /// them, metres; 0 never.
    pub leapfrog_m: f32,
    /// How long a leapfrogging leader holds at the point, seconds.
    pub leapfrog_hold_s: f32,
}

impl Default for PlatoonSpec {
    fn default() -> PlatoonSpec {
        PlatoonSpec::force21(Formation::Wedge)
    }
}

impl PlatoonSpec {
    /// Force 21 platoon movement in `formation`: slots pulled toward the
    /// path where blocked, members fixed. Slots are still placed 2 s ahead:
    /// Force 21's drive-to law trails a point moving at `v` by `2v`, which
    /// this cancels.
    #[must_use]
    pub fn force21(formation: Formation) -> PlatoonSpec {
        PlatoonSpec {
            formation,
            spacing_m: 12.0,
            lookahead_s: 2.0,
            drift_m: 0.0,
            context: false,
            softening: Softening::PullToPath,
            slots: SlotRule::Fixed,
            faction: 0,
            leapfrog_m: 0.0,
            leapfrog_hold_s: 0.0,
        }
    }

    /// Company of Heroes squad movement: slots 2 s ahead on the leader's
    /// path, drift, formation context, bounded-search softening, packed
    /// slots, element leaders leapfrogging to points of interest within two
    /// spacings of their slots for 2 s.
    #[must_use]
    pub fn squad(spacing_m: f32) -> PlatoonSpec {
        PlatoonSpec {
            formation: Formation::WideWedge,
            spacing_m,
            lookahead_s: 2.0,
            drift_m: 0.1 * spacing_m,
            context: true,
            softening: Softening::BoundedSearch,
            slots: SlotRule::Packed,
            faction: 0,
            leapfrog_m: 2.0 * spacing_m,
            leapfrog_hold_s: 2.0,
        }
    }

    /// Checks every value, naming the first bad one: `spacing_m` in
    /// (0, [`MAX_SPACING_M`]], `drift_m` and `leapfrog_m` in
    /// [0, [`MAX_SPACING_M`]], `lookahead_s` and `leapfrog_hold_s` in
    /// [0, [`MAX_LOOKAHEAD_S`]].
    pub fn validate(&self) -> Result<(), PlatoonError> {
        let (spacing, drift, lookahead) = (self.spacing_m, self.drift_m, self.lookahead_s);
        let (leapfrog, hold) = (self.leapfrog_m, self.leapfrog_hold_s);
        let checks = [
            ("spacing_m", spacing, spacing > 0.0 && spacing <= MAX_SPACING_M),
            ("lookahead_s", lookahead, (0.0..=MAX_LOOKAHEAD_S).contains(&lookahead)),
            ("drift_m", drift, (0.0..=MAX_SPACING_M).contains(&drift)),
            ("leapfrog_m", leapfrog, (0.0..=MAX_SPACING_M).contains(&leapfrog)),
            ("leapfrog_hold_s", hold, (0.0..=MAX_LOOKAHEAD_S).contains(&hold)),
        ];
        for (key, value, ok) in checks {
            if !(value.is_finite() && ok) {
                return Err(PlatoonError::BadSpec { key, value });
            }
        }
        Ok(())
    }
}

/// Largest platoon spacing and drift radius, metres.
pub const MAX_SPACING_M: f32 = 1.0e3;
/// Largest platoon lookahead, seconds.
pub const MAX_LOOKAHEAD_S: f32 = 60.0;
