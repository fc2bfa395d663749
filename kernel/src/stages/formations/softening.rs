//! Softening (Company of Heroes): a slot that falls on blocked ground is
//! pulled toward the path by a bounded search, or to the last point seen
//! from the leader.

use super::*;

/// Softening against the terrain (and where to count it).
pub(super) struct Soften<'a, 'b> {
    pub(super) map: &'a WorldMap,
    pub(super) search: Option<&'a Mutex<(GridPlanner, Path)>>,
    pub(super) dt: f32,
    pub(super) softened: &'b mut usize,
}

/// A slot point the lead can see, on open ground: the ideal point if it
/// is; else pulled toward the column point on the path (Force 21) or the
/// nearest cell a bounded search from the lead reaches (Company of
/// Heroes). Falls back to the column point, then the lead's own point.
pub(super) fn soften_slot(
    platoon: &mut Platoon,
    slot: usize,
    anchor: Vec2,
    ideal: Vec2,
    column: Vec2,
    soften: &mut Soften<'_, '_>,
) -> Vec2 {
    let map = soften.map;
    let clear = |point: Vec2| map.segment_is_clear(anchor, point);
    let fallback = || if clear(column) { column } else { anchor };
    match platoon.softening() {
        Softening::PullToPath => {
            let released = (platoon.pull[slot] - RELEASE_PER_S * soften.dt).max(0.0);
            // The least pull (in quarters) that makes the point visible,
            // but no less than what is still being released.
            let pull = std::iter::once(released)
                .chain([0.25, 0.5, 0.75, 1.0].into_iter().filter(|&t| t > released))
                .find(|&t| clear(ideal.lerp(column, t)));
            platoon.pull[slot] = pull.unwrap_or(1.0);
            *soften.softened += usize::from(platoon.pull[slot] > 0.0);
            match pull {
                Some(pull) => ideal.lerp(column, pull),
                None => fallback(),
            }
        }
        Softening::BoundedSearch => {
            if clear(ideal) {
                return ideal;
            }
            *soften.softened += 1;
            search_toward(map, soften.search, anchor, ideal).unwrap_or_else(fallback)
        }
    }
}

/// Path points a member round a corner looks at beyond its column
/// position, each half a spacing further back.
pub(super) const LOOK_BACK_STEPS: usize = 8;

/// `target` if the member at `from` can drive straight to it; else the
/// farthest point along the path it can see, walking back from `ahead`
/// (the slots' pose) past its column position `behind` (it is round a
/// corner the path goes round: it rejoins the path). If none is in sight,
/// `target`: the member is in a bad position, and the `paths` stage's
/// check gives it its own path.
pub(super) fn visible_target(
    map: &WorldMap,
    view: &PathView<'_>,
    from: Vec2,
    target: Vec2,
    (ahead, behind): (f32, f32),
    spacing: f32,
) -> Vec2 {
    if map.segment_is_clear(from, target) {
        return target;
    }
    let steps = ((ahead - behind) / (0.5 * spacing)).ceil().max(0.0) as usize + LOOK_BACK_STEPS;
    (0..=steps)
        .map(|step| view.point_at(ahead - 0.5 * spacing * step as f32))
        .find(|&point| map.segment_is_clear(from, point))
        .unwrap_or(target)
}

/// The centre of the cell nearest `ideal` that a bounded A* from `anchor`
/// expands.
pub(super) fn search_toward(
    map: &WorldMap,
    search: Option<&Mutex<(GridPlanner, Path)>>,
    anchor: Vec2,
    ideal: Vec2,
) -> Option<Vec2> {
    let (start, goal) = (map.cell_at(anchor)?, map.cell_at(ideal)?);
    let mut guard = search?
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (planner, path) = &mut *guard;
    planner
        .find_path_bounded_into(map.grid(), start, goal, SOFTENING_NODES, path)
        .ok()?;
    path.cells.last().map(|&cell| map.centre_of(cell))
}
