//! Formation shapes: 2D slot offsets in the platoon's frame (Force 21 §4
//! "Formation movement": "a set of 2D vector offsets from the platoon's
//! position, which are oriented to match the platoon's heading").
//!
//! Offsets are in the platoon frame — `x` forward along the heading, `y`
//! to the left — in multiples of the platoon's spacing. Slot 0 is the lead
//! position (offset zero). Every shape is hierarchical as in Company of
//! Heroes (Kozlowski & Ross, "Squad formations", AI Game Programming Wisdom
//! 4, fig. 2.1.1): each slot names a parent — the squad leader, an element
//! leader — and is placed relative to that parent's point, so a squeezed
//! element leader takes its followers with it.

use glam::Vec2;

/// Most members a platoon holds (Force 21 platoons hold five; Company of
/// Heroes squads about six).
pub const MAX_MEMBERS: usize = 16;

/// A formation shape; stored in a platoon as its `u8` value.
#[repr(u8)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Formation {
    /// Single file along the path, each vehicle behind the one ahead (the
    /// Force 21 snake, in the `formations` stage).
    Column = 0,
    /// Abreast, centred on the lead.
    Line = 1,
    /// An arrowhead pointing forward, the lead at its tip.
    #[default]
    Wedge = 2,
    /// An arrowhead pointing back: the flanks lead.
    Vee = 3,
    /// A diagonal line back and to the left.
    EchelonLeft = 4,
    /// A diagonal line back and to the right.
    EchelonRight = 5,
    /// Two files, alternate members half a spacing to the right (roads).
    StaggeredColumn = 6,
    /// A broad, shallow wedge (open ground).
    WideWedge = 7,
    /// A narrow, deep wedge (confined ground).
    TightWedge = 8,
}

impl Formation {
    /// Every shape, in `u8` order.
    pub const ALL: [Formation; 9] = [
        Formation::Column,
        Formation::Line,
        Formation::Wedge,
        Formation::Vee,
        Formation::EchelonLeft,
        Formation::EchelonRight,
        Formation::StaggeredColumn,
        Formation::WideWedge,
        Formation::TightWedge,
    ];

    /// The shape stored as `value`, if it names one.
    #[must_use]
    pub fn from_u8(value: u8) -> Option<Formation> {
        Self::ALL.get(usize::from(value)).copied()
    }

    /// Where `slot` sits, in spacings, in the platoon frame.
    #[must_use]
    pub const fn offset(self, slot: usize) -> Vec2 {
        if slot == 0 {
            return Vec2::ZERO;
        }
        let rank = slot.div_ceil(2) as f32;
        // Odd slots go left (+y), even slots right.
        let side = if slot % 2 == 1 { 1.0 } else { -1.0 };
        let k = slot as f32;
        match self {
            Formation::Column => Vec2::new(-k, 0.0),
            Formation::StaggeredColumn => {
                Vec2::new(-0.75 * k, if slot % 2 == 1 { -0.5 } else { 0.0 })
            }
            Formation::Line => Vec2::new(0.0, side * rank),
            Formation::Wedge => Vec2::new(-0.7 * rank, side * rank),
            Formation::Vee => Vec2::new(0.7 * rank, side * rank),
            Formation::EchelonLeft => Vec2::new(-0.7 * k, k),
            Formation::EchelonRight => Vec2::new(-0.7 * k, -k),
            Formation::WideWedge => Vec2::new(-0.5 * rank, 1.5 * side * rank),
            Formation::TightWedge => Vec2::new(-0.9 * rank, 0.6 * side * rank),
        }
    }

    /// The slot `slot` is placed from: the one ahead of it in files and
    /// echelons, the next slot toward the lead on the same side in wedges,
    /// vees and lines. `None` for the lead.
    #[must_use]
    pub const fn parent(self, slot: usize) -> Option<usize> {
        match (self, slot) {
            (_, 0) => None,
            (
                Formation::Column
                | Formation::StaggeredColumn
                | Formation::EchelonLeft
                | Formation::EchelonRight,
                _,
            ) => Some(slot - 1),
            (_, 1 | 2) => Some(0),
            (_, _) => Some(slot - 2),
        }
    }

    /// Whether members file along the path (drive-to points walk back along
    /// it rather than being offset from the lead).
    #[must_use]
    pub const fn follows_path(self) -> bool {
        matches!(self, Formation::Column)
    }

    /// `slot` (1 to [`MAX_MEMBERS`] − 1) as placed from its parent: its
    /// parent and its offset from the parent's, in spacings. Read from a
    /// table built at compile time (the formation stage asks for every
    /// slot of every platoon each tick).
    #[must_use]
    #[inline]
    pub fn step(self, slot: usize) -> (usize, Vec2) {
        SHAPES.step[self as usize][slot]
    }

    /// The largest offset length, in spacings, of slots 1 to `last`
    /// (below [`MAX_MEMBERS`]), squared; from the compile-time table.
    #[must_use]
    #[inline]
    pub fn reach_squared(self, last: usize) -> f32 {
        SHAPES.reach_squared[self as usize][last]
    }
}

/// Per shape and slot, what [`Formation::step`] and
/// [`Formation::reach_squared`] read.
struct ShapeTable {
    step: [[(usize, Vec2); MAX_MEMBERS]; Formation::ALL.len()],
    reach_squared: [[f32; MAX_MEMBERS]; Formation::ALL.len()],
}

const SHAPES: ShapeTable = shape_table();

const fn shape_table() -> ShapeTable {
    let mut table = ShapeTable {
        step: [[(0, Vec2::ZERO); MAX_MEMBERS]; Formation::ALL.len()],
        reach_squared: [[0.0; MAX_MEMBERS]; Formation::ALL.len()],
    };
    let mut shape = 0;
    while shape < Formation::ALL.len() {
        let formation = Formation::ALL[shape];
        let mut slot = 1;
        while slot < MAX_MEMBERS {
            let offset = formation.offset(slot);
            let parent = match formation.parent(slot) {
                Some(parent) => parent,
                None => 0,
            };
            let from = formation.offset(parent);
            table.step[shape][slot] = (parent, Vec2::new(offset.x - from.x, offset.y - from.y));
            let length_squared = offset.x * offset.x + offset.y * offset.y;
            let before = table.reach_squared[shape][slot - 1];
            table.reach_squared[shape][slot] = if length_squared > before {
                length_squared
            } else {
                before
            };
            slot += 1;
        }
        shape += 1;
    }
    table
}

/// `offset` (platoon frame) turned to `heading` (radians from +x) in the
/// world.
#[must_use]
#[inline]
pub fn to_world(offset: Vec2, heading: f32) -> Vec2 {
    Vec2::from_angle(heading).rotate(offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_puts_each_slot_on_its_own_spot_and_parents_lead_back_to_the_lead() {
        for formation in Formation::ALL {
            for slot in 0..MAX_MEMBERS {
                for other in 0..slot {
                    let gap = formation.offset(slot).distance(formation.offset(other));
                    assert!(gap >= 0.5, "{formation:?} slots {slot} and {other}: {gap}");
                }
                // Following parents reaches the lead, each step toward it.
                let mut at = slot;
                let mut steps = 0;
                while let Some(parent) = formation.parent(at) {
                    assert!(parent < at, "{formation:?} slot {at} → {parent}");
                    at = parent;
                    steps += 1;
                }
                assert_eq!(at, 0);
                assert!(steps <= slot);
            }
        }
    }

    #[test]
    fn shapes_match_their_names() {
        for slot in 1..MAX_MEMBERS {
            assert!(Formation::Column.offset(slot).x < 0.0);
            assert_eq!(Formation::Column.offset(slot).y, 0.0);
            assert_eq!(Formation::Line.offset(slot).x, 0.0);
            assert!(Formation::Wedge.offset(slot).x < 0.0);
            assert!(Formation::Vee.offset(slot).x > 0.0);
            assert!(Formation::EchelonLeft.offset(slot).y > 0.0);
            assert!(Formation::EchelonRight.offset(slot).y < 0.0);
            let (wide, tight) = (
                Formation::WideWedge.offset(slot),
                Formation::TightWedge.offset(slot),
            );
            assert!(wide.y.abs() > tight.y.abs() && wide.x > tight.x);
        }
        // Heading north turns "forward" to +y and "left" to -x.
        let turned = to_world(Vec2::new(1.0, 1.0), std::f32::consts::FRAC_PI_2);
        assert!((turned - Vec2::new(-1.0, 1.0)).length() < 1e-6);
    }

    #[test]
    fn the_compile_time_table_agrees_with_the_shapes() {
        for formation in Formation::ALL {
            let mut farthest: f32 = 0.0;
            for slot in 1..MAX_MEMBERS {
                let parent = formation.parent(slot).expect("only the lead has none");
                let (table_parent, step) = formation.step(slot);
                assert_eq!(table_parent, parent);
                assert_eq!(
                    step,
                    formation.offset(slot) - formation.offset(parent),
                    "{formation:?} {slot}"
                );
                farthest = farthest.max(formation.offset(slot).length());
                let reach = formation.reach_squared(slot).sqrt();
                assert!((reach - farthest).abs() < 1e-6, "{formation:?} {slot}");
            }
        }
    }

    #[test]
    fn stored_values_round_trip() {
        for formation in Formation::ALL {
            assert_eq!(Formation::from_u8(formation as u8), Some(formation));
        }
        assert_eq!(Formation::from_u8(Formation::ALL.len() as u8), None);
    }
}
