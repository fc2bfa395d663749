use super::*;

fn close(a: f32, b: f32, tolerance: f32) -> bool {
    (a - b).abs() <= tolerance * a.abs().max(b.abs()).max(1.0)
}

/// `f(λ)` from the full 3×3 matrices, as the paper writes it.
fn reference_f(a: &Shape, b: &Shape, r: Vec3, lambda: f32) -> f32 {
    let c = a.matrix() * (1.0 - lambda) + b.matrix() * lambda;
    lambda * (1.0 - lambda) * r.dot(c.inverse() * r)
}

#[test]
fn block_diagonal_evaluation_matches_the_full_matrices() {
    let a = Shape::new(Vec3::new(6.0, 1.0, 2.0), 0.2);
    let b = Shape::new(Vec3::new(2.0, 3.0, 0.5), 2.0);
    let r = Vec3::new(3.0, 4.0, 0.5);
    let contact = contact_function(&a, &b, r);
    let (mut best, mut at) = (0.0_f32, 0.0_f32);
    for k in 1..2000 {
        let lambda = k as f32 / 2000.0;
        let f = reference_f(&a, &b, r, lambda);
        if f > best {
            (best, at) = (f, lambda);
        }
    }
    assert!(
        close(contact.f, best, 1e-5),
        "{contact:?} vs {best} at {at}"
    );
    assert!(close(contact.lambda, at, 2e-3), "{contact:?} vs {at}");
    assert!(contact.steps <= 8, "{contact:?}");
    let full = a.matrix();
    let turned = Mat3::from_rotation_z(0.2)
        * Mat3::from_diagonal(Vec3::new(36.0, 1.0, 4.0))
        * Mat3::from_rotation_z(0.2).transpose();
    assert!(full.abs_diff_eq(turned, 1e-4), "{full:?} vs {turned:?}");
}

#[test]
fn two_spheres_give_the_closed_form() {
    let (ra, rb) = (1.5, 4.0);
    let a = Shape::new(Vec3::splat(ra), 0.3);
    let b = Shape::new(Vec3::splat(rb), -1.0);
    for distance in [0.5_f32, 3.0, 5.5, 9.0] {
        let r = Vec3::new(0.6, -0.8, 0.0) * distance;
        let contact = contact_function(&a, &b, r);
        let expected = distance * distance / ((ra + rb) * (ra + rb));
        assert!(
            close(contact.f, expected, 1e-5),
            "{contact:?} vs {expected}"
        );
        assert!(close(contact.lambda, ra / (ra + rb), 1e-3), "{contact:?}");
    }
}

#[test]
fn aligned_ellipsoids_touch_at_the_sum_of_their_axes() {
    // Along the forward axis the reach is forward_a + forward_b, turned.
    let yaw = 0.7_f32;
    let a = Ellipsoid::new(Vec3::ZERO, Vec3::new(5.0, 1.0, 2.0), yaw);
    let axis = Vec3::new(yaw.cos(), yaw.sin(), 0.0);
    let b = Ellipsoid::new(axis * 7.0, Vec3::new(3.0, 2.0, 1.0), yaw);
    assert!(close(depth_along_centre_line(&a, &b), 1.0, 1e-4));
    let lateral = Vec3::new(-yaw.sin(), yaw.cos(), 0.0);
    let c = Ellipsoid::new(lateral * 2.5, Vec3::new(3.0, 2.0, 1.0), yaw);
    assert!(close(depth_along_centre_line(&a, &c), 0.5, 1e-4));
    let above = Ellipsoid::new(Vec3::Z * 3.5, Vec3::new(3.0, 2.0, 1.0), yaw + 1.0);
    assert_eq!(depth_along_centre_line(&a, &above), 0.0);
    assert!(!overlaps(&a, &above));
}

#[test]
fn swapping_the_pair_gives_the_same_value() {
    let a = Shape::new(Vec3::new(6.0, 1.0, 2.0), 0.2);
    let b = Shape::new(Vec3::new(2.0, 3.0, 0.5), 2.0);
    let r = Vec3::new(3.0, 4.0, 0.5);
    let ab = contact_function(&a, &b, r);
    let ba = contact_function(&b, &a, -r);
    assert!(close(ab.f, ba.f, 1e-5), "{ab:?} {ba:?}");
    assert!(close(ab.lambda, 1.0 - ba.lambda, 1e-3), "{ab:?} {ba:?}");
}

#[test]
fn horizontal_separation_leaves_the_pair_touching() {
    let a = Shape::new(Vec3::new(5.0, 2.0, 3.0), 0.4);
    let b = Shape::new(Vec3::new(3.0, 1.0, 2.0), -0.9);
    let r = Vec3::new(1.0, 2.0, 2.5);
    let direction = Vec3::new(1.0, 2.0, 0.0).normalize();
    let push = horizontal_separation(&a, &b, r, direction);
    assert!(push > 0.0);
    let after = contact_function(&a, &b, r + direction * push);
    assert!(close(after.f, 1.0, 1e-4), "{after:?}");
}

#[test]
fn eight_lanes_give_each_pair_its_own_result_bit_for_bit() {
    // Pairs that need different numbers of steps, some with a vertical
    // offset, one with coinciding centres, one with a NaN offset, some
    // stopping early.
    let a = [
        Shape::new(Vec3::new(6.0, 1.0, 2.0), 0.2),
        Shape::new(Vec3::new(2.0, 2.0, 2.0), 0.0),
        Shape::new(Vec3::new(20.0, 0.2, 0.5), -1.3),
        Shape::new(Vec3::new(3.0, 4.0, 1.0), 2.5),
        Shape::new(Vec3::new(1.0, 1.0, 6.0), 1.1),
        Shape::new(Vec3::new(4.0, 4.0, 4.0), 0.9),
        Shape::new(Vec3::new(0.3, 9.0, 1.0), -2.2),
        Shape::new(Vec3::new(2.5, 1.5, 0.5), 3.0),
    ];
    let b = [
        Shape::new(Vec3::new(2.0, 3.0, 0.5), 2.0),
        Shape::new(Vec3::new(1.0, 5.0, 3.0), 0.7),
        Shape::new(Vec3::new(0.5, 8.0, 0.3), 0.4),
        Shape::new(Vec3::new(3.0, 1.0, 2.0), -0.6),
        Shape::new(Vec3::new(5.0, 0.5, 0.5), 0.0),
        Shape::new(Vec3::new(1.0, 2.0, 3.0), -1.0),
        Shape::new(Vec3::new(7.0, 0.4, 2.0), 0.3),
        Shape::new(Vec3::new(2.5, 1.5, 0.5), 3.0),
    ];
    let r = [
        Vec3::new(3.0, 4.0, 0.5),
        Vec3::ZERO,
        Vec3::new(-2.0, 0.1, 0.0),
        Vec3::new(12.0, -9.0, 0.0),
        Vec3::new(0.5, -0.2, 4.0),
        Vec3::new(f32::NAN, 1.0, 0.0),
        Vec3::new(0.1, 3.0, -0.5),
        Vec3::new(4.9, 0.0, 0.0),
    ];
    let stop_at = [f32::INFINITY, 1.0, f32::INFINITY, 1.0, 1.0, 1.0, 0.5, 1.0];
    let together = contact_functions_until(
        &Shapes8::from_lanes(a.each_ref()),
        &Shapes8::from_lanes(b.each_ref()),
        &Offsets8::from_lanes(r),
        f32x8::new(stop_at),
    );
    let mut steps = Vec::new();
    for lane in 0..LANES {
        let alone = contact_function_until(&a[lane], &b[lane], r[lane], stop_at[lane]);
        let got = together.lane(lane);
        assert_eq!(got.f.to_bits(), alone.f.to_bits(), "lane {lane}");
        assert_eq!(got.lambda.to_bits(), alone.lambda.to_bits(), "lane {lane}");
        assert_eq!(got.steps, alone.steps, "lane {lane}");
        steps.push(alone.steps);
    }
    assert_eq!(together.lane(1).f, 0.0);
    assert_eq!(together.lane(5).f, 0.0);
    assert!(together.lane(3).f >= 1.0);
    assert!(steps.iter().min() < steps.iter().max(), "{steps:?}");
}

#[test]
fn stopping_early_still_bounds_the_value_from_below() {
    let a = Shape::new(Vec3::new(4.0, 2.0, 1.0), 0.0);
    let b = Shape::new(Vec3::new(1.0, 3.0, 2.0), 1.0);
    let r = Vec3::new(9.0, 1.0, 0.0);
    let full = contact_function(&a, &b, r);
    let early = contact_function_until(&a, &b, r, 1.0);
    assert!(early.f >= 1.0 && early.f <= full.f * (1.0 + 1e-6));
    assert!(early.steps <= full.steps);
}
