//! Bridges in the formations stage: one platoon on a bridge at a time
//! (Force 21), closing into a column to cross.

use super::*;

/// One platoon on a bridge at a time (Force 21 §3: "the bridge is marked
/// with that platoon ID and other platoons must wait before crossing"):
/// platoons holding a bridge keep it; then, in index order (so the result
/// does not depend on the thread count), each platoon come within a
/// spacing of the point where it must wait takes its bridge if it is free.
/// A platoon that finds its bridge gone holds there and is marked
/// ([`Platoon::bridge_gone`]): after the tick its faction learns of it and
/// it replans (Force 21: "replan when it discovers it gone").
pub(super) fn admit_to_bridges(
    traffic: &mut BridgeTraffic,
    records: &mut [Platoon],
    bridges: Option<&PolygonNavigator>,
) {
    traffic.clear();
    for (index, platoon) in records.iter().enumerate() {
        if platoon.live == 1 && platoon.on_bridge == 1 {
            // Holders never share a bridge: each was admitted alone.
            let _ = traffic.try_enter(platoon.bridge, index as u32);
        }
    }
    for (index, platoon) in records.iter_mut().enumerate() {
        let waiting = platoon.live == 1
            && platoon.phase() == Phase::Moving
            && platoon.bridge != NONE
            && platoon.on_bridge == 0;
        if !waiting || platoon.travelled + platoon.spacing_m < platoon.travel_limit() {
            continue;
        }
        let stands = bridges.is_none_or(|nav| nav.bridge_in_world(platoon.bridge) == Ok(true));
        if stands {
            platoon.on_bridge = u32::from(traffic.try_enter(platoon.bridge, index as u32).is_ok());
        } else {
            platoon.bridge_gone = 1;
        }
    }
}

/// A platoon crosses a bridge in column: it closes up into one as it
/// approaches the bridge, and once its last slot is past the far end and
/// every member is more than a spacing from the deck, it gives the bridge
/// up and takes its own shape again.
pub(super) fn cross_bridge(platoon: &mut Platoon, members: &Members, positions: &[Vec2]) {
    if platoon.bridge == NONE {
        return;
    }
    let depth = (members.last + 1) as f32 * platoon.spacing_m;
    let [near, far] = platoon.bridge_span;
    let approach = near - depth - platoon.speed * platoon.lookahead_s;
    if platoon.travelled >= approach && platoon.resume_formation == NONE {
        platoon.resume_formation = platoon.formation;
        platoon.change_formation(Formation::Column);
    }
    if platoon.on_bridge == 0 || platoon.travelled - depth < far {
        return;
    }
    let deck = (platoon.bridge_deck[0], platoon.bridge_deck[1]);
    let off_deck = members
        .all_rows()
        .all(|row| segment_distance(deck, (positions[row], positions[row])) > platoon.spacing_m);
    if off_deck {
        platoon.release_bridge();
    }
}
