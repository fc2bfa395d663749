//! The layers a scene is drawn in, back to front. A layer is a name and one
//! draw function; the function returns `None` when the scene has no data for
//! it (a profile has no map, a map has no units), and the layer is left out
//! of the picture and the legend. Adding a layer is adding one entry to
//! [`LAYERS`].
//!
//! The replay (`convoy-bench replay`) toggles the layers of this list that a
//! recording carries ([`REPLAY_LAYERS`]), under the same names.

use convoy::glam::{DVec2, Vec2};
use convoy::nav::visgraph::PolygonNavigator;
use convoy::nav::{Cell, Terrain};
use convoy::steer::STUCK_AFTER_S;
use convoy::steer::seek::drive_to_velocity;
use convoy::vehicles::SteerMode;
use convoy::{Sim, VehicleKind};

use super::scene::{Explored, PolygonQuery, Scene};
use super::svg::{Svg, Swatch, num};

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

/// The layers a replay records data for, toggled in the player by name.
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
    match VehicleKind::from_u8(kind) {
        Some(VehicleKind::Tracked) => "tracked",
        Some(VehicleKind::Wheeled) => "wheeled",
        Some(VehicleKind::RotaryWing) => "rotary_wing",
        Some(VehicleKind::Infantry) => "infantry",
        Some(VehicleKind::Starship) => "starship",
        None => "unknown",
    }
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

/// Where a grid's cells lie in the scene: cell `(x, y)` covers
/// `origin + (x, y) · cell` to one cell further.
#[derive(Clone, Copy, Debug)]
struct Placement {
    origin: [f64; 2],
    cell: f64,
}

/// One kind of terrain cell as the terrain layer draws it.
struct TerrainClass {
    class: &'static str,
    fill: &'static str,
    label: &'static str,
}

const BLOCKED: TerrainClass = TerrainClass {
    class: "blocked",
    fill: "#3b3b3b",
    label: "blocked",
};
const SWAMP: TerrainClass = TerrainClass {
    class: "swamp",
    fill: "#8fae6b",
    label: "swamp (cost ×3)",
};
const WATER: TerrainClass = TerrainClass {
    class: "water",
    fill: "#7fb3d5",
    label: "water",
};

/// Draws the runs of one class of cells, and its legend entry if any.
fn terrain_runs(
    svg: &mut Svg,
    runs: Vec<(u32, u32, u32)>,
    class: &TerrainClass,
    placement: Placement,
) {
    if runs.is_empty() {
        return;
    }
    let Placement { origin, cell } = placement;
    for (y, x, length) in runs {
        let min = [
            origin[0] + f64::from(x) * cell,
            origin[1] + f64::from(y) * cell,
        ];
        let size = [f64::from(length) * cell, cell];
        if !svg.view().sees(min, [min[0] + size[0], min[1] + size[1]]) {
            continue;
        }
        svg.element(
            "rect",
            &rect_attributes(svg, class.class, class.fill, min, size),
        );
    }
    svg.legend(Swatch {
        label: class.label.to_owned(),
        fill: class.fill,
        stroke: "none",
    });
}

/// A map scene's terrain by kind, in cells; or a profile's `[map]` in
/// metres, as its ground units see it (the kernel keeps only the ground
/// cost grid, where water is as impassable as a wall).
fn terrain(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    if let Some(map_scene) = &scene.map {
        let map = &map_scene.map;
        let cells = Placement {
            origin: [0.0, 0.0],
            cell: 1.0,
        };
        for (terrain, class) in [
            (Terrain::Blocked, BLOCKED),
            (Terrain::Swamp, SWAMP),
            (Terrain::Water, WATER),
        ] {
            let found = runs(map.width(), map.height(), |cell| {
                map.terrain(cell) == Some(terrain)
            });
            terrain_runs(svg, found, &class, cells);
        }
        return Some(());
    }
    let world = scene.sim?.config().map.as_deref()?;
    let grid = world.grid();
    let metres = Placement {
        origin: v(world.origin()),
        cell: f64::from(world.cell_size()),
    };
    let (width, height) = (grid.width(), grid.height());
    let impassable = TerrainClass {
        label: "impassable to ground units (blocked, water)",
        ..BLOCKED
    };
    let slow = TerrainClass {
        label: "slow ground (swamp)",
        ..SWAMP
    };
    let found = runs(width, height, |cell| !grid.passable(cell));
    terrain_runs(svg, found, &impassable, metres);
    let found = runs(width, height, |cell| {
        grid.cost(cell).is_some_and(|c| c > 1.0)
    });
    terrain_runs(svg, found, &slow, metres);
    Some(())
}

fn rect_attributes(
    svg: &Svg,
    class: &str,
    fill: &str,
    min: [f64; 2],
    size: [f64; 2],
) -> Vec<(&'static str, String)> {
    let view = svg.view();
    let a = view.px(min[0], min[1]);
    let b = view.px(min[0] + size[0], min[1] + size[1]);
    vec![
        ("class", class.to_owned()),
        ("x", num(a[0].min(b[0]))),
        ("y", num(a[1].min(b[1]))),
        ("width", num((b[0] - a[0]).abs())),
        ("height", num((b[1] - a[1]).abs())),
        ("fill", fill.to_owned()),
    ]
}

fn quadtree(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    let tree = scene.map.as_ref()?.tree.as_ref()?;
    for leaf in tree.leaves() {
        let size = f64::from(leaf.size);
        svg.rect("leaf", [f64::from(leaf.x), f64::from(leaf.y)], [size, size]);
    }
    svg.legend(Swatch {
        label: format!("quadtree leaves ({})", tree.leaf_count()),
        fill: "none",
        stroke: "#8aa",
    });
    Some(())
}

fn explored(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    let map = scene.map.as_ref()?;
    let query = map.query.as_ref()?;
    let count = match query.explored.as_ref()? {
        Explored::Cells(cells) => {
            for &Cell { x, y } in cells {
                svg.rect("explored", [f64::from(x), f64::from(y)], [1.0, 1.0]);
            }
            format!("{} cells reached", cells.len())
        }
        Explored::Leaves(leaves) => {
            let tree = map.tree.as_ref()?;
            for &index in leaves {
                let leaf = tree.leaves()[index];
                let size = f64::from(leaf.size);
                svg.rect(
                    "explored",
                    [f64::from(leaf.x), f64::from(leaf.y)],
                    [size, size],
                );
            }
            format!("{} leaves reached", leaves.len())
        }
    };
    svg.legend(Swatch {
        label: count,
        fill: "#ffd166",
        stroke: "none",
    });
    Some(())
}

/// A closed polygon through world points, left out when a culling view
/// cannot see it.
fn ring(svg: &mut Svg, class: &str, points: &[DVec2]) {
    let points: Vec<[f64; 2]> = points.iter().map(|p| p.to_array()).collect();
    if !svg.view().sees(lower(&points), upper(&points)) {
        return;
    }
    svg.element(
        "polygon",
        &[("class", class.to_owned()), ("points", svg.points(points))],
    );
}

/// The visibility-graph navigator: a polygon map's, or a grid map's traced
/// one.
fn navigator<'a>(scene: &'a Scene<'_>) -> Option<&'a PolygonNavigator> {
    match (&scene.polygon, &scene.map) {
        (Some(polygon), _) => Some(&polygon.nav),
        (None, Some(map)) => map.nav.as_ref(),
        (None, None) => None,
    }
}

/// A polygon map's containers: the land that can be driven on.
fn containers(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    let map = &scene.polygon.as_ref()?.map;
    for container in &map.containers {
        ring(svg, "container", container);
    }
    svg.legend(Swatch {
        label: format!("containers ({})", map.containers.len()),
        fill: "#f1efe4",
        stroke: "#8c8670",
    });
    Some(())
}

/// A polygon map's swamps, each labelled by its legend with the costs.
fn swamps(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    let map = &scene.polygon.as_ref()?.map;
    if map.swamps.is_empty() {
        return None;
    }
    for swamp in &map.swamps {
        ring(svg, "swamp", &swamp.ring);
    }
    let (lo, hi) = map
        .swamps
        .iter()
        .fold((f64::INFINITY, 0.0_f64), |(lo, hi), s| {
            (lo.min(s.cost), hi.max(s.cost))
        });
    let costs = if lo == hi {
        format!("×{lo}")
    } else {
        format!("×{lo} to ×{hi}")
    };
    svg.legend(Swatch {
        label: format!("swamps ({}, cost {costs})", map.swamps.len()),
        fill: "#8fae6b",
        stroke: "#5f7f43",
    });
    Some(())
}

/// A polygon map's obstacles as loaded (before clearance).
fn obstacles(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    let map = &scene.polygon.as_ref()?.map;
    if map.obstacles.is_empty() {
        return None;
    }
    for obstacle in &map.obstacles {
        ring(svg, "obstacle", obstacle);
    }
    svg.legend(Swatch {
        label: format!("obstacles ({})", map.obstacles.len()),
        fill: "#3b3b3b",
        stroke: "none",
    });
    Some(())
}

/// The free space at the scene's clearance: every contour of the
/// visibility graph's boundary (containers shrunk, obstacles grown, unioned
/// and clipped), the lines a vehicle's centre may not cross.
fn inflated(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    let graph = navigator(scene)?.graph();
    let space = graph.boundary().space();
    for &[first, count] in &space.contours {
        let range = first as usize..(first + count) as usize;
        ring(svg, "free-space", &space.points[range]);
    }
    svg.legend(Swatch {
        label: format!(
            "free space at clearance {} ({} contours)",
            graph.config().clearance,
            space.contours.len()
        ),
        fill: "none",
        stroke: "#b04a4a",
    });
    Some(())
}

/// A polygon map's roads.
fn roads(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    let polygon = scene.polygon.as_ref()?;
    if polygon.map.roads.is_empty() {
        return None;
    }
    for road in &polygon.map.roads {
        svg.polyline("road", road.iter().map(|p| p.to_array()));
    }
    svg.legend(Swatch {
        label: format!(
            "roads ({}, cost ×{} per unit length)",
            polygon.map.roads.len(),
            polygon.nav.graph().config().road_cost_factor
        ),
        fill: "none",
        stroke: "#c9a227",
    });
    Some(())
}

/// A polygon map's bridges: the deck from end to middle to end, the three
/// points, and the id with whether the bridge stands in the world.
fn bridges(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    let polygon = scene.polygon.as_ref()?;
    if polygon.map.bridges.is_empty() {
        return None;
    }
    for bridge in &polygon.map.bridges {
        let [a, b] = bridge.ends.map(|end| end.to_array());
        let middle = bridge.middle.to_array();
        svg.polyline("bridge", [a, middle, b]);
        svg.circle("bridge-end", a, 2.0);
        svg.circle("bridge-end", b, 2.0);
        svg.circle("bridge-middle", middle, 1.0);
        let state = match polygon.nav.bridge_in_world(bridge.id) {
            Ok(true) => "standing",
            Ok(false) => "down",
            Err(_) => "not added",
        };
        svg.text(
            "bridge-label",
            middle,
            8.0,
            &format!("bridge {} ({state})", bridge.id),
        );
    }
    svg.legend(Swatch {
        label: format!("bridges ({})", polygon.map.bridges.len()),
        fill: "#6b4f2a",
        stroke: "#6b4f2a",
    });
    Some(())
}

/// The visibility graph's edges (each once), over the inflated corners,
/// swamp and road vertices; the bridges' edges are the navigator's, not
/// the graph's, and are left out.
fn visgraph(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    let graph = navigator(scene)?.graph();
    let positions = graph.positions();
    let edges = (0..positions.len() as u32).flat_map(|i| {
        graph
            .neighbours(i)
            .filter(move |&(j, _)| j > i)
            .map(move |(j, _)| {
                [
                    positions[i as usize].to_array(),
                    positions[j as usize].to_array(),
                ]
            })
    });
    svg.segments("visgraph", edges);
    svg.legend(Swatch {
        label: format!(
            "visibility graph ({} nodes, {} edges)",
            graph.node_count(),
            graph.edge_count()
        ),
        fill: "none",
        stroke: "#4a7fb0",
    });
    Some(())
}

fn path(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    if let Some(polygon) = &scene.polygon {
        return polygon_path(polygon.query.as_ref()?, svg);
    }
    let query = scene.map.as_ref()?.query.as_ref()?;
    let centre = |cell: Cell| [f64::from(cell.x) + 0.5, f64::from(cell.y) + 0.5];
    svg.polyline("path", query.points.iter().copied());
    let radius = (svg.view().scale() * 0.35).clamp(3.0, 8.0);
    svg.circle("start", centre(query.start), radius);
    svg.circle("goal", centre(query.goal), radius);
    svg.legend(Swatch {
        label: format!("path, length {:.3}", query.length),
        fill: "none",
        stroke: "#d62728",
    });
    Some(())
}

/// A visibility-graph path: the waypoints, and the start and goal asked
/// for (the path begins elsewhere when one was moved out of an obstacle).
fn polygon_path(query: &PolygonQuery, svg: &mut Svg) -> Option<()> {
    svg.polyline("path", query.waypoints.iter().map(|&p| v(p)));
    svg.circle("start", query.start.to_array(), 5.0);
    svg.circle("goal", query.goal.to_array(), 5.0);
    svg.legend(Swatch {
        label: format!(
            "path, length {:.3}, cost {:.3}, {} nodes expanded",
            query.cost.length, query.cost.cost, query.cost.expanded
        ),
        fill: "none",
        stroke: "#d62728",
    });
    Some(())
}

fn spatial_grid(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    let config = scene.sim?.config();
    let cell = f64::from(config.cell_size.unwrap_or(config.neighbour_radius));
    let (min, max) = (v(config.bounds.min), v(config.bounds.max));
    let lines_across = |from: f64, to: f64| {
        let count = ((to - from) / cell).ceil() as usize;
        (0..=count).map(move |k| from + k as f64 * cell)
    };
    let (right, top) = (
        min[0] + ((max[0] - min[0]) / cell).ceil() * cell,
        min[1] + ((max[1] - min[1]) / cell).ceil() * cell,
    );
    let verticals = lines_across(min[0], max[0]).map(|x| [[x, min[1]], [x, top]]);
    let horizontals = lines_across(min[1], max[1]).map(|y| [[min[0], y], [right, y]]);
    svg.segments("spatial-grid", verticals.chain(horizontals));
    svg.legend(Swatch {
        label: format!("spatial hash cells ({cell} m)"),
        fill: "none",
        stroke: "#b8b8c8",
    });
    Some(())
}

fn drive_to(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    let columns = scene.sim?.vehicles().columns();
    let lines = columns
        .position()
        .iter()
        .zip(columns.drive_to())
        .map(|(&position, &target)| [v(position), v(target)]);
    svg.segments("drive-to-lines", lines);
    for &target in columns.drive_to() {
        svg.circle("drive-to", v(target), 1.0);
    }
    svg.legend(Swatch {
        label: "drive-to points".to_owned(),
        fill: "#777",
        stroke: "#9a9a9a",
    });
    Some(())
}

fn shields(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    let sim = scene.sim?;
    let columns = sim.vehicles().columns();
    let view = svg.view();
    for ((&position, &heading), &shield) in columns
        .position()
        .iter()
        .zip(columns.heading())
        .zip(columns.shield())
    {
        let reach = f64::from(shield.x.max(shield.y));
        let centre = v(position);
        if !view.sees(
            [centre[0] - reach, centre[1] - reach],
            [centre[0] + reach, centre[1] + reach],
        ) {
            continue;
        }
        let [cx, cy] = view.px(centre[0], centre[1]);
        let degrees = f64::from(heading).to_degrees();
        // Pixel y points down when world y points up: turn the other way.
        let degrees = if view.y_up() { -degrees } else { degrees };
        svg.element(
            "ellipse",
            &[
                ("class", "shield".to_owned()),
                ("cx", num(cx)),
                ("cy", num(cy)),
                ("rx", num(f64::from(shield.x) * view.scale())),
                ("ry", num(f64::from(shield.y) * view.scale())),
                (
                    "transform",
                    format!("rotate({} {} {})", num(degrees), num(cx), num(cy)),
                ),
            ],
        );
    }
    svg.legend(Swatch {
        label: "shields".to_owned(),
        fill: "none",
        stroke: "#5b8fd9",
    });
    Some(())
}

/// Each unit's planned route: from where it stands through the corners it
/// has still to reach (`route_next` on) to the route's last one. The kernel
/// keeps only these string-pulled corners, not the raw cell path.
fn routes(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    let sim = scene.sim?;
    let columns = sim.vehicles().columns();
    let routes = sim.routes();
    let mut drawn = 0;
    for (row, &position) in columns.position().iter().enumerate() {
        let (next, len) = (columns.route_next()[row], columns.route_len()[row]);
        if next >= len {
            continue;
        }
        let corners = &routes.of(columns.handle_slot()[row])[next as usize..len as usize];
        let points: Vec<[f64; 2]> = std::iter::once(position)
            .chain(corners.iter().copied())
            .map(v)
            .collect();
        drawn += 1;
        if !svg.view().sees(lower(&points), upper(&points)) {
            continue;
        }
        svg.element(
            "polyline",
            &[
                ("class", "route".to_owned()),
                ("data-row", row.to_string()),
                ("points", svg.points(points)),
            ],
        );
    }
    if drawn == 0 {
        return None;
    }
    svg.legend(Swatch {
        label: format!("routes ({drawn}; string-pulled corners, the raw cell path is not kept)"),
        fill: "none",
        stroke: "#9467bd",
    });
    Some(())
}

/// Each platoon: the rest of its path (from its own position through the
/// corners still ahead), a ring at its position and a square at each
/// occupied slot's drive-to point this tick.
fn platoons(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    let platoons = scene.sim?.platoons();
    let mut drawn = 0;
    for (id, platoon) in platoons.iter() {
        drawn += 1;
        let path = platoons.path(id.index);
        let ahead = path
            .corners
            .iter()
            .zip(path.arcs)
            .filter(|&(_, &arc)| arc > platoon.travelled)
            .map(|(&corner, _)| corner);
        let points: Vec<[f64; 2]> = std::iter::once(platoon.position)
            .chain(ahead)
            .map(v)
            .collect();
        if points.len() > 1 && svg.view().sees(lower(&points), upper(&points)) {
            svg.element(
                "polyline",
                &[
                    ("class", "platoon-path".to_owned()),
                    ("data-platoon", id.index.to_string()),
                    ("points", svg.points(points)),
                ],
            );
        }
        let [cx, cy] = svg
            .view()
            .px(f64::from(platoon.position.x), f64::from(platoon.position.y));
        svg.element(
            "circle",
            &[
                ("class", "platoon".to_owned()),
                ("data-platoon", id.index.to_string()),
                ("cx", num(cx)),
                ("cy", num(cy)),
                ("r", num(4.0)),
            ],
        );
        for (slot, _) in platoon.occupied() {
            let target = platoon.targets[slot];
            let [x, y] = svg.view().px(f64::from(target.x), f64::from(target.y));
            svg.element(
                "rect",
                &[
                    ("class", "slot".to_owned()),
                    ("data-platoon", id.index.to_string()),
                    ("data-slot", slot.to_string()),
                    ("x", num(x - 2.0)),
                    ("y", num(y - 2.0)),
                    ("width", num(4.0)),
                    ("height", num(4.0)),
                ],
            );
        }
    }
    if drawn == 0 {
        return None;
    }
    svg.legend(Swatch {
        label: format!("platoons ({drawn}): path ahead, position, slots"),
        fill: "none",
        stroke: "#2ca02c",
    });
    Some(())
}

fn lower(points: &[[f64; 2]]) -> [f64; 2] {
    points.iter().fold([f64::INFINITY; 2], |lo, p| {
        [lo[0].min(p[0]), lo[1].min(p[1])]
    })
}

fn upper(points: &[[f64; 2]]) -> [f64; 2] {
    points.iter().fold([f64::NEG_INFINITY; 2], |hi, p| {
        [hi[0].max(p[0]), hi[1].max(p[1])]
    })
}

/// What avoidance did in the last tick: for each drive-to unit whose
/// desired velocity differs from its plain drive-to seek
/// ([`drive_to_velocity`] from where steering saw it), a line from one
/// second along the seek to one second along the velocity it steered with
/// instead (a swerve bends it sideways; a stop draws it back to the unit).
/// Potential-field units are left out: their velocity is never a seek.
fn avoidance(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    let columns = scene.sim?.vehicles().columns();
    let steered_from = scene.steered_from.as_deref()?;
    let mut changed = 0;
    let lines: Vec<[[f64; 2]; 2]> = (0..columns.position().len())
        .filter(|&row| columns.steer_mode()[row] == SteerMode::DriveTo as u8)
        .filter_map(|row| {
            let from = *steered_from.get(row)?;
            let seek = drive_to_velocity(
                from,
                columns.drive_to()[row],
                columns.max_speed()[row],
                columns.max_brake()[row],
            );
            let steered = columns.desired_velocity()[row];
            (steered != seek).then(|| [v(from + seek), v(from + steered)])
        })
        .inspect(|_| changed += 1)
        .collect();
    svg.segments("avoidance", lines);
    svg.legend(Swatch {
        label: format!("avoidance last tick ({changed}): seek → steered velocity, 1 s"),
        fill: "none",
        stroke: "#ff7f0e",
    });
    Some(())
}

/// Units that have not come closer to their drive-to point for
/// [`STUCK_AFTER_S`] (the kernel's stuck count), ringed.
fn stuck(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    let columns = scene.sim?.vehicles().columns();
    let view = svg.view();
    let mut count = 0;
    for (row, (&stalled, (&position, &shield))) in columns
        .stalled_s()
        .iter()
        .zip(columns.position().iter().zip(columns.shield()))
        .enumerate()
    {
        if stalled < STUCK_AFTER_S {
            continue;
        }
        count += 1;
        let reach = f64::from(shield.x.max(shield.y));
        let centre = v(position);
        if !view.sees(
            [centre[0] - reach, centre[1] - reach],
            [centre[0] + reach, centre[1] + reach],
        ) {
            continue;
        }
        let [cx, cy] = view.px(centre[0], centre[1]);
        svg.element(
            "circle",
            &[
                ("class", "stuck".to_owned()),
                ("data-row", row.to_string()),
                ("cx", num(cx)),
                ("cy", num(cy)),
                ("r", num(reach * view.scale() + 3.0)),
            ],
        );
    }
    svg.legend(Swatch {
        label: format!("stuck ({count}): no progress for {STUCK_AFTER_S} s"),
        fill: "none",
        stroke: "#d62728",
    });
    Some(())
}

/// The outline of one unit, world coordinates.
#[must_use]
pub fn unit_outline(kind: u8, position: Vec2, heading: f32, shield: [f32; 2]) -> Vec<[f64; 2]> {
    let shape = KIND_SHAPES
        .get(usize::from(kind))
        .copied()
        .unwrap_or(KIND_SHAPES[0]);
    let (sin, cos) = f64::from(heading).sin_cos();
    let (forward, lateral) = (f64::from(shield[0]), f64::from(shield[1]));
    shape
        .iter()
        .map(|&[f, l]| {
            let (f, l) = (f * forward, l * lateral);
            [
                f64::from(position.x) + f * cos - l * sin,
                f64::from(position.y) + f * sin + l * cos,
            ]
        })
        .collect()
}

fn units(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    let sim: &Sim = scene.sim?;
    let columns = sim.vehicles().columns();
    let mut present = [false; 5];
    for (row, (((&kind, &position), &heading), &shield)) in columns
        .kind()
        .iter()
        .zip(columns.position())
        .zip(columns.heading())
        .zip(columns.shield())
        .enumerate()
    {
        if let Some(slot) = present.get_mut(usize::from(kind)) {
            *slot = true;
        }
        let outline = unit_outline(kind, position, heading, [shield.x, shield.y]);
        let reach = f64::from(shield.x.max(shield.y));
        let centre = v(position);
        if !svg.view().sees(
            [centre[0] - reach, centre[1] - reach],
            [centre[0] + reach, centre[1] + reach],
        ) {
            continue;
        }
        let fill = KIND_COLOURS
            .get(usize::from(kind))
            .copied()
            .unwrap_or("#000");
        svg.element(
            "polygon",
            &[
                ("class", format!("unit {}", kind_name(kind))),
                ("data-row", row.to_string()),
                ("points", svg.points(outline)),
                ("fill", fill.to_owned()),
            ],
        );
    }
    for (kind, _) in present.iter().enumerate().filter(|(_, present)| **present) {
        svg.legend(Swatch {
            label: kind_name(kind as u8).to_owned(),
            fill: KIND_COLOURS[kind],
            stroke: "#222",
        });
    }
    Some(())
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
