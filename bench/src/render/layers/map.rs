//! The map's layers: terrain, the quadtree, explored cells, polygon maps
//! (containers, swamps, obstacles, clearance, roads, bridges), the
//! visibility graph and path queries.

use super::*;

/// Where a grid's cells lie in the scene: cell `(x, y)` covers
/// `origin + (x, y) · cell` to one cell further.
#[derive(Clone, Copy, Debug)]
pub(super) struct Placement {
    pub(super) origin: [f64; 2],
    pub(super) cell: f64,
}

/// One kind of terrain cell as the terrain layer (and the replay) draws it.
pub struct TerrainClass {
    /// The SVG class of its cells.
    pub class: &'static str,
    /// CSS colour.
    pub fill: &'static str,
    /// Its legend entry.
    pub label: &'static str,
}

/// Blocked cells.
pub const BLOCKED: TerrainClass = TerrainClass {
    class: "blocked",
    fill: "#3b3b3b",
    label: "blocked",
};
/// Swamp cells.
pub const SWAMP: TerrainClass = TerrainClass {
    class: "swamp",
    fill: "#8fae6b",
    label: "swamp (cost ×3)",
};
/// Water cells.
pub const WATER: TerrainClass = TerrainClass {
    class: "water",
    fill: "#7fb3d5",
    label: "water",
};

/// The colour roads are drawn in.
pub const ROAD_FILL: &str = "#c9a227";

/// Draws the runs of one class of cells, and its legend entry if any.
pub(super) fn terrain_runs(
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
pub(super) fn terrain(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
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
    let world = scene.sim?.config().map.grid()?;
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

pub(super) fn rect_attributes(
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

pub(super) fn quadtree(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
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

pub(super) fn explored(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
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
pub(super) fn ring(svg: &mut Svg, class: &str, points: &[DVec2]) {
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
pub(super) fn navigator<'a>(scene: &'a Scene<'_>) -> Option<&'a PolygonNavigator> {
    match (&scene.polygon, &scene.map) {
        (Some(polygon), _) => Some(&polygon.nav),
        (None, Some(map)) => map.nav.as_ref(),
        (None, None) => None,
    }
}

/// A polygon map's containers: the land that can be driven on.
pub(super) fn containers(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
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
pub(super) fn swamps(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
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
pub(super) fn obstacles(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
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
pub(super) fn inflated(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
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
pub(super) fn roads(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
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
        stroke: ROAD_FILL,
    });
    Some(())
}

/// A polygon map's bridges: the deck from end to middle to end, the three
/// points, and the id with whether the bridge stands in the world.
pub(super) fn bridges(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
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
pub(super) fn visgraph(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
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

pub(super) fn path(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
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
pub(super) fn polygon_path(query: &PolygonQuery, svg: &mut Svg) -> Option<()> {
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
