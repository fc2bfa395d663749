//! The units' layers: the spatial grid, drive-to points, shields, routes,
//! platoons, avoidance, stuck units and the units themselves.

use super::*;

pub(super) fn spatial_grid(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
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

pub(super) fn drive_to(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
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

pub(super) fn shields(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
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
pub(super) fn routes(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
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
pub(super) fn platoons(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
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

pub(super) fn lower(points: &[[f64; 2]]) -> [f64; 2] {
    points.iter().fold([f64::INFINITY; 2], |lo, p| {
        [lo[0].min(p[0]), lo[1].min(p[1])]
    })
}

pub(super) fn upper(points: &[[f64; 2]]) -> [f64; 2] {
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
pub(super) fn avoidance(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
    let columns = scene.sim?.vehicles().columns();
    let steered_from = scene.steered_from.as_deref()?;
    let mut changed = 0;
    let lines: Vec<[[f64; 2]; 2]> = (0..columns.position().len())
        .filter(|&row| columns.steer_mode()[row] != SteerMode::PotentialField as u8)
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
pub(super) fn stuck(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
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

pub(super) fn units(scene: &Scene<'_>, svg: &mut Svg) -> Option<()> {
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
