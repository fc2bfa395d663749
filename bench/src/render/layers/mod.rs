//! The layers a scene is drawn in, back to front. A layer is a name and one
//! draw function; the function returns `None` when the scene has no data for
//! it (a profile has no map, a map has no units), and the layer is left out
//! of the picture and the legend. Adding a layer is adding one entry to
//! [`LAYERS`].
//!
//! The replay (`convoy-bench replay`) toggles the layers of this list that a
//! recording carries ([`REPLAY_LAYERS`]), under the same names.

mod map;
mod units;

use convoy::data::vehicles::STUCK_AFTER_S;
use convoy::data::vehicles::SteerMode;
use convoy::geometry::seek::drive_to_velocity;
use convoy::glam::{DVec2, Vec2};
use convoy::nav::visgraph::PolygonNavigator;
use convoy::nav::{Cell, Terrain};
use convoy::{Sim, VehicleKind};

use super::scene::{Explored, PolygonQuery, Scene};
use super::svg::{Svg, Swatch, num};
use map::*;
pub use map::{BLOCKED, ROAD_FILL, SWAMP, TerrainClass, WATER};
use units::*;

/// One layer of a picture.
#[derive(Clone, Copy, Debug)]
pub struct Layer {
    /// The name `--layers` selects it by.
    pub name: &'static str,
    /// Presentation attributes of its `<g>` element.
    pub style: &'static str,
    /// Draws it; `None` when the scene has no data for it.
    pub draw: fn(&Scene<'_>, &mut Svg) -> Option<()>,
}

/// Every layer, in drawing order (back to front).
pub const LAYERS: &[Layer] = &[
    Layer {
        name: "terrain",
        // Crisp edges: adjacent runs of cells meet without hairline seams.
        style: r#"stroke="none" shape-rendering="crispEdges""#,
        draw: terrain,
    },
    Layer {
        name: "quadtree",
        style: r##"fill="none" stroke="#8aa" stroke-width="0.5""##,
        draw: quadtree,
    },
    Layer {
        name: "containers",
        style: r##"fill="#f1efe4" stroke="#8c8670" stroke-width="1""##,
        draw: containers,
    },
    Layer {
        name: "swamps",
        style: r##"fill="#8fae6b" fill-opacity="0.6" stroke="#5f7f43" stroke-width="0.8""##,
        draw: swamps,
    },
    Layer {
        name: "obstacles",
        style: r##"fill="#3b3b3b" stroke="none""##,
        draw: obstacles,
    },
    Layer {
        name: "inflated",
        style: r##"fill="none" stroke="#b04a4a" stroke-width="1" stroke-dasharray="4 3""##,
        draw: inflated,
    },
    Layer {
        name: "roads",
        style: r##"fill="none" stroke="#c9a227" stroke-width="3" stroke-linejoin="round" stroke-linecap="round""##,
        draw: roads,
    },
    Layer {
        name: "bridges",
        style: r##"fill="#6b4f2a" stroke="#6b4f2a" stroke-width="4""##,
        draw: bridges,
    },
    Layer {
        name: "visgraph",
        style: r##"fill="none" stroke="#4a7fb0" stroke-width="0.4" stroke-opacity="0.6""##,
        draw: visgraph,
    },
    Layer {
        name: "explored",
        style: r##"fill="#ffd166" fill-opacity="0.45" stroke="none""##,
        draw: explored,
    },
    Layer {
        name: "spatial-grid",
        style: r##"fill="none" stroke="#d8d8e0" stroke-width="0.5""##,
        draw: spatial_grid,
    },
    Layer {
        name: "routes",
        style: r##"fill="none" stroke="#9467bd" stroke-width="1.2" stroke-opacity="0.85" stroke-linejoin="round""##,
        draw: routes,
    },
    Layer {
        name: "platoons",
        style: r##"fill="none" stroke="#2ca02c" stroke-width="1.2""##,
        draw: platoons,
    },
    Layer {
        name: "drive-to",
        style: r##"stroke="#9a9a9a" stroke-width="0.4" fill="#777""##,
        draw: drive_to,
    },
    Layer {
        name: "shields",
        style: r##"fill="none" stroke="#5b8fd9" stroke-width="0.5" stroke-opacity="0.8""##,
        draw: shields,
    },
    Layer {
        name: "units",
        style: r##"stroke="#222" stroke-width="0.3""##,
        draw: units,
    },
    Layer {
        name: "avoidance",
        style: r##"fill="none" stroke="#ff7f0e" stroke-width="1.2""##,
        draw: avoidance,
    },
    Layer {
        name: "stuck",
        style: r##"fill="none" stroke="#d62728" stroke-width="2""##,
        draw: stuck,
    },
    Layer {
        name: "path",
        style: r##"fill="none" stroke="#d62728" stroke-width="2""##,
        draw: path,
    },
];

/// The unit layers a replay records data for, toggled in the player by
/// name after its map's layers ([`crate::replay::map::MapLayer`]).
pub const REPLAY_LAYERS: [&str; 5] = ["spatial-grid", "routes", "drive-to", "shields", "units"];

/// The layer named `name`.
#[must_use]
pub fn by_name(name: &str) -> Option<&'static Layer> {
    LAYERS.iter().find(|layer| layer.name == name)
}

/// Every layer's name, in drawing order.
#[must_use]
pub fn names() -> Vec<&'static str> {
    LAYERS.iter().map(|layer| layer.name).collect()
}

/// Fill colour of each vehicle kind, in `u8` order.
pub const KIND_COLOURS: [&str; 5] = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1"];

/// Outline of each kind in its own frame, `(forward, lateral)` in units of
/// the shield's semi-axes; the nose points along +forward.
pub const KIND_SHAPES: [&[[f64; 2]]; 5] = [
    // Tracked: a hull with a blunt nose.
    &[
        [1.0, 0.0],
        [0.5, -0.9],
        [-0.9, -0.9],
        [-0.9, 0.9],
        [0.5, 0.9],
    ],
    // Wheeled: a dart.
    &[[1.0, 0.0], [-0.9, -0.8], [-0.5, 0.0], [-0.9, 0.8]],
    // Rotary wing: a kite.
    &[[1.0, 0.0], [0.0, -0.6], [-0.6, 0.0], [0.0, 0.6]],
    // Infantry: a triangle.
    &[[1.0, 0.0], [-0.9, -0.8], [-0.9, 0.8]],
    // Starship: an arrowhead with swept wings.
    &[
        [1.0, 0.0],
        [0.0, -0.4],
        [-0.9, -1.0],
        [-0.6, 0.0],
        [-0.9, 1.0],
        [0.0, 0.4],
    ],
];

/// A kind's name as the profiles spell it.
#[must_use]
pub fn kind_name(kind: u8) -> &'static str {
    VehicleKind::from_u8(kind).map_or("unknown", VehicleKind::name)
}

fn v(point: Vec2) -> [f64; 2] {
    [f64::from(point.x), f64::from(point.y)]
}

/// Runs of cells where `is` holds along each row of a `width` × `height`
/// grid: `(row, first column, length)`.
fn runs(width: u32, height: u32, is: impl Fn(Cell) -> bool) -> Vec<(u32, u32, u32)> {
    let mut out = Vec::new();
    for y in 0..height {
        let mut x = 0;
        while x < width {
            if !is(Cell::new(x, y)) {
                x += 1;
                continue;
            }
            let start = x;
            while x < width && is(Cell::new(x, y)) {
                x += 1;
            }
            out.push((y, start, x - start));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_names_are_unique_and_replay_layers_exist() {
        let names = names();
        for (i, name) in names.iter().enumerate() {
            assert!(!names[i + 1..].contains(name), "{name} twice");
        }
        for name in REPLAY_LAYERS {
            assert!(by_name(name).is_some(), "{name}");
        }
    }

    #[test]
    fn a_unit_outline_points_its_nose_along_the_heading() {
        let heading = std::f32::consts::FRAC_PI_2;
        let outline = unit_outline(0, Vec2::new(10.0, 20.0), heading, [4.0, 2.0]);
        // The nose is shape point 0: 4 m ahead, i.e. due north.
        assert!((outline[0][0] - 10.0).abs() < 1e-5);
        assert!((outline[0][1] - 24.0).abs() < 1e-5);
    }
}
