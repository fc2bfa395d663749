//! Destination spots a member cannot reach (Company of Heroes' reserved
//! spots, Kozlowski & Ross, "Squad formations"): a settling member that
//! has stood stalled near its spot, in sight of it — pinned by a wall, by
//! units parked in front of it, or by a turning circle it cannot drive out
//! of — takes the place where it stands as its spot, if no other reserved
//! spot lies within half the usual gap; the longer it has stood, the
//! farther (up to four spacings). The platoon then arrives with every
//! member on a spot of its own instead of waiting for one that cannot get
//! closer, as a late platoon stops on its own side of those already there.

use super::*;

/// A settling member stalled this long takes the place where it stands
/// as its spot if that is within a spacing of it, seconds; after `k` times
/// as long, within `k` spacings.
const SETTLE_PATIENCE_S: f32 = 3.0;
/// The farthest a spot moves, in spacings.
const MAX_REACH_SPACINGS: f32 = 4.0;

/// Moves the spot of every settling member stalled near it, in sight of
/// it, to where the member stands, in platoon order (one reservation map, so serially and whatever the
/// thread count); returns how many spots moved.
pub(super) fn respot_stalled(
    platoons: &mut Platoons,
    vehicles: &mut Vehicles,
    maps: ClassMaps<'_>,
) -> usize {
    let mut moved = 0;
    for index in 0..platoons.records.len() {
        let platoon = platoons.records[index];
        if platoon.live != 1 || platoon.phase() != Phase::Settling {
            continue;
        }
        for (slot, unit) in platoon.occupied() {
            let reserved = platoon.reserved_spots & (1 << slot) != 0;
            let Some(row) = vehicles.row_of(unit).filter(|_| reserved) else {
                continue;
            };
            let columns = vehicles.columns();
            let (here, spot) = (columns.position()[row], platoon.spots[slot]);
            let off = here.distance(spot);
            // The longer it has stood, the farther its spot may move.
            let stood = columns.stalled_s()[row] / SETTLE_PATIENCE_S;
            let reach = platoon.spacing_m * stood.min(MAX_REACH_SPACINGS);
            let pinned = stood >= 1.0
                && off > SPOT_RADIUS
                && off <= reach
                && maps
                    .of(columns.mobility()[row])
                    .is_none_or(|map| map.segment_is_clear(spot, here));
            // Half the usual gap: the place is near the member's own spot.
            let gap = 0.5 * platoon.spot_gap();
            if pinned && platoons.move_reservation(spot, here, gap) {
                platoons.records[index].spots[slot] = here;
                vehicles.columns_mut().goal[row] = here;
                moved += 1;
            }
        }
    }
    moved
}
