//! Axis-aligned world bounds.

use glam::Vec2;


/// An axis-aligned rectangle in the ground plane.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Bounds {
    /// South-west corner.
    pub min: Vec2,
    /// North-east corner.
    pub max: Vec2,
}

impl Bounds {
    /// The rectangle from `min` to `max`.
    #[must_use]
    pub fn new(min: Vec2, max: Vec2) -> Bounds {
        Bounds { min, max }
    }

    /// Width and height.
    #[must_use]
    pub fn size(&self) -> Vec2 {
        self.max - self.min
    }
}
