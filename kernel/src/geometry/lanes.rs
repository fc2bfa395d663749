//! Loading eight values of a column into one SIMD register.

use wide::f32x8;

/// Eight consecutive values (`eight.len()` must be 8), in the lanes of an
/// `f32x8`: one unaligned load. Shared by the threat search's sift and the
/// `integrate` step.
#[inline]
pub fn lanes_of(eight: &[f32]) -> f32x8 {
    bytemuck::pod_read_unaligned(bytemuck::cast_slice(eight))
}
