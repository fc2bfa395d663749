use super::*;
use proptest::prelude::*;

fn unit(index: u32) -> UnitId {
    UnitId {
        index,
        generation: 0,
    }
}

/// The fewest units that must change slot so that the first `n` slots
/// are exactly the occupied ones: those sitting at or beyond slot `n`.
fn fewest_moves(members: &[UnitId; MAX_MEMBERS]) -> usize {
    let n = members.iter().filter(|&&m| m != EMPTY).count();
    members[n..].iter().filter(|&&m| m != EMPTY).count()
}

proptest! {
    /// Packed slots stay packed through any losses and reinforcements,
    /// moving exactly as few units as the brute-force count says.
    #[test]
    fn packed_slots_move_the_fewest_units(events in prop::collection::vec((any::<bool>(), 0usize..MAX_MEMBERS), 1..60)) {
        let mut members = [EMPTY; MAX_MEMBERS];
        let mut next = 0;
        for (join, pick) in events {
            let before = members;
            if join {
                let Some(slot) = slot_for_reinforcement(&members) else { continue };
                members[slot] = unit(next);
                next += 1;
            } else {
                let occupied: Vec<usize> = (0..MAX_MEMBERS).filter(|&s| members[s] != EMPTY).collect();
                if occupied.is_empty() { continue; }
                let slot = occupied[pick % occupied.len()];
                let mut lost = before;
                lost[slot] = EMPTY;
                vacate(&mut members, slot, SlotRule::Packed);
                let moved = (0..MAX_MEMBERS)
                    .filter(|&s| members[s] != EMPTY && lost[s] != members[s])
                    .count();
                prop_assert_eq!(moved, fewest_moves(&lost));
            }
            let n = members.iter().filter(|&&m| m != EMPTY).count();
            prop_assert!(members[..n].iter().all(|&m| m != EMPTY));
            // Nobody who stayed was moved by a reinforcement.
            if join {
                prop_assert!((0..MAX_MEMBERS).all(|s| before[s] == EMPTY || before[s] == members[s]));
            }
        }
    }
}

#[test]
fn fixed_slots_leave_holes_and_handles_go_stale() {
    let mut members = [EMPTY; MAX_MEMBERS];
    for (slot, member) in members.iter_mut().take(5).enumerate() {
        *member = unit(slot as u32);
    }
    assert_eq!(vacate(&mut members, 0, SlotRule::Fixed), None);
    assert_eq!(members[0], EMPTY);
    assert_eq!(members[4], unit(4));
    assert_eq!(slot_for_reinforcement(&members), Some(0));

    let mut store = Platoons::default();
    let spec = PlatoonSpec::default();
    let first = store.create(&spec, Vec2::ZERO, 0.0);
    store.disband(first).expect("valid");
    let second = store.create(&spec, Vec2::ONE, 0.0);
    assert_eq!(second.index, first.index);
    assert!(store.get(first).is_none());
    assert_eq!(store.get(second).expect("valid").position, Vec2::ONE);
    assert_eq!(store.disband(first), Err(PlatoonError::Stale(first)));
    assert_eq!(store.len(), 1);
}

#[test]
fn bad_specs_name_their_key() {
    let mut spec = PlatoonSpec {
        spacing_m: 0.0,
        ..PlatoonSpec::default()
    };
    assert!(matches!(
        spec.validate(),
        Err(PlatoonError::BadSpec {
            key: "spacing_m",
            ..
        })
    ));
    spec = PlatoonSpec::squad(3.0);
    spec.lookahead_s = f32::NAN;
    assert!(matches!(
        spec.validate(),
        Err(PlatoonError::BadSpec {
            key: "lookahead_s",
            ..
        })
    ));
    assert!(PlatoonSpec::squad(3.0).validate().is_ok());
}

#[test]
fn spots_at_the_ends_of_the_float_range_do_not_overflow_their_keys() {
    // Keys saturate at i32::MAX and MIN; the neighbourhood around them used
    // to overflow (with overflow checks on).
    let mut platoons = Platoons::default();
    for far in [Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)] {
        platoons.reserve_spot(far);
        assert!(!platoons.spot_is_free(far, 2.0 * SPOT_GAP_M));
        assert!(platoons.spot_is_free(Vec2::ZERO, 2.0 * SPOT_GAP_M));
    }
    let mut spec = PlatoonSpec::squad(3.0);
    spec.spacing_m = 1e30;
    assert!(matches!(
        spec.validate(),
        Err(PlatoonError::BadSpec {
            key: "spacing_m",
            ..
        })
    ));
}
