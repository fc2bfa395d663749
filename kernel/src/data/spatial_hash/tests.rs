use proptest::prelude::*;

use super::rebuild::count_and_sum;
use super::*;

/// The places within `radius` of `point` among those `runs` visits,
/// in visit order.
fn within(
    hash: &SpatialHash,
    point: Vec2,
    radius: f32,
    runs: impl FnOnce(&mut dyn FnMut(std::ops::Range<usize>)),
) -> Vec<usize> {
    let mut found = Vec::new();
    runs(&mut |run: std::ops::Range<usize>| {
        found.extend(run.filter(|&place| {
            hash.sorted_position[place].distance_squared(point) <= radius * radius
        }));
    });
    found
}

/// Points on a 2 m lattice (many exactly on cell edges), free points,
/// and points far outside the bounds.
fn point() -> impl Strategy<Value = Vec2> {
    prop_oneof![
        4 => (-50i32..50, -50i32..50).prop_map(|(x, y)| Vec2::new(x as f32 * 2.0, y as f32 * 2.0)),
        4 => (-100f32..100.0, -100f32..100.0).prop_map(|(x, y)| Vec2::new(x, y)),
        1 => (-1e7f32..1e7, -1e7f32..1e7).prop_map(|(x, y)| Vec2::new(x, y)),
    ]
}

proptest! {
    /// A window touches at most `window_columns` columns (and rows) of
    /// cells, wherever it lies, on cells of any size.
    #[test]
    fn a_window_touches_at_most_window_columns_columns(
        at in point(),
        radius in prop_oneof![0.0f32..30.0, (0u32..16).prop_map(|k| k as f32 * 1.25)],
        cell_size in prop_oneof![Just(1.25f32), Just(2.5), Just(8.0), 0.3f32..20.0],
    ) {
        let bounds = Bounds::new(Vec2::splat(-100.0), Vec2::splat(100.0));
        let hash = SpatialHash::new(bounds, cell_size).expect("valid grid");
        let [first_column, first_row, last_column, last_row] = hash.window_cells(at, radius);
        let most = window_columns(radius, cell_size);
        prop_assert!(last_column - first_column < most, "columns");
        prop_assert!(last_row - first_row < most, "rows");
    }
}

proptest! {
    /// Counting and summing in parallel ranges gives the one-range
    /// counts' running sums and largest count, from 1 to 8 ranges,
    /// whichever range the tallest cell falls in.
    #[test]
    fn counts_summed_in_ranges_are_the_running_sums(
        mut cell_of in prop::collection::vec(0u32..5_000, 0..20_000),
        (tallest, height) in (any::<prop::sample::Index>(), 0usize..400),
        cells in 5_000usize..6_000,
        parts in 1usize..=8,
    ) {
        let tallest = tallest.index(5_000) as u32;
        cell_of.extend(std::iter::repeat_n(tallest, height));
        let mut expected = vec![0u32; cells + 3];
        for &cell in &cell_of {
            expected[cell as usize + 2] += 1;
        }
        let largest = expected.iter().copied().max().unwrap_or(0);
        let mut running = 0;
        for count in &mut expected {
            running += *count;
            *count = running;
        }
        let mut grid = vec![7u32; cells + 3];
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("thread pool");
        let got = pool.install(|| count_and_sum(&mut grid, &cell_of, parts));
        prop_assert_eq!(got, largest);
        prop_assert_eq!(grid, expected);
    }
}

proptest! {
    /// Eight positions' cells in lanes are their cells one at a time,
    /// and the lanes count as many outside the grid: on cell edges, off
    /// the grid, infinite and NaN.
    #[test]
    fn cells_in_lanes_are_the_cells_one_at_a_time(
        points in prop::collection::vec(
            prop_oneof![
                8 => point(),
                1 => prop::sample::select(vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0])
                    .prop_flat_map(|odd| (Just(odd), point()))
                    .prop_map(|(odd, p)| Vec2::new(odd, p.y)),
            ],
            LANES,
        ),
        cell in prop_oneof![Just(4.0f32), 0.5f32..20.0],
    ) {
        let bounds = Bounds::new(Vec2::new(-60.0, -50.0), Vec2::new(70.0, 60.0));
        let hash = SpatialHash::new(bounds, cell).expect("valid grid");
        let one_at_a_time: Vec<u32> = points.iter().map(|&p| hash.cell_index(p)).collect();
        let swapped: Vec<Vec2> = points.iter().map(|p| Vec2::new(p.y, p.x)).collect();
        let swapped_one_at_a_time: Vec<u32> = swapped.iter().map(|&p| hash.cell_index(p)).collect();
        let outside = |points: &[Vec2]| points.iter().filter(|&&p| hash.is_outside(p)).count() as u32;
        let (cells, lanes_outside) = hash.cell_indices(&points);
        prop_assert_eq!(cells.to_vec(), one_at_a_time);
        prop_assert_eq!(lanes_outside, outside(&points));
        let (cells, lanes_outside) = hash.cell_indices(&swapped);
        prop_assert_eq!(cells.to_vec(), swapped_one_at_a_time);
        prop_assert_eq!(lanes_outside, outside(&swapped));
    }
}

proptest! {
    /// Leaving out a range of places visits exactly the window's other
    /// places, in the window's order, in runs that are never empty.
    #[test]
    fn a_window_outside_a_range_visits_the_rest_in_order(
        points in prop::collection::vec(point(), 1..300),
        centre in point(),
        radius in prop_oneof![Just(0.0f32), 0.0f32..40.0],
        (start, len) in (any::<prop::sample::Index>(), prop_oneof![0usize..4, 0usize..300]),
    ) {
        let bounds = Bounds::new(Vec2::new(-60.0, -50.0), Vec2::new(70.0, 60.0));
        let mut hash = SpatialHash::new(bounds, 6.0).expect("valid grid");
        hash.rebuild(&points);
        // Mostly a few places from anywhere, often inside a run.
        let start = start.index(points.len() + 1);
        let skip = start..start + len;
        let mut expected = Vec::new();
        hash.for_each_row_range(centre, radius, |run| {
            expected.extend(run.filter(|place| !skip.contains(place)));
        });
        let mut visited = Vec::new();
        let (mut runs, mut empty_runs) = (0, 0);
        let skip = hash.skip(skip);
        hash.for_each_row_range_outside(centre, radius, &skip, |run| {
            runs += 1;
            empty_runs += usize::from(run.is_empty());
            visited.extend(run);
        });
        prop_assert_eq!(empty_runs, 0);
        prop_assert_eq!(&visited, &expected);
        if let Some(window) = hash.window_runs_outside(centre, radius, &skip) {
            let places: Vec<usize> = (0..window.len()).map(|k| window.place(k)).collect();
            prop_assert_eq!(places, visited);
            prop_assert_eq!(window.non_empty(), runs);
        }
    }
}

/// A sweep's windows (each place leaving out the places from its
/// chunk's first, or from the first of all, to itself) in at most three
/// runs: those runs hold the places
/// [`SpatialHash::for_each_row_range_outside`] visits, in its order,
/// over as many runs that hold any; and most windows are such, so the
/// sweeps take them. The sweep's skips, their rows walked from
/// place to place ([`SweepSkips`]), are those looked up from the
/// places' positions ([`SpatialHash::skip`]). Crowds of three
/// densities, chunks of 150 places, windows of half a cell to one and
/// a half.
#[test]
fn a_sweeps_windows_in_three_runs_hold_the_places_of_its_rows() {
    let draw = |stream: u64, unit: usize| crate::random::unit_f32(21, stream, unit as u64);
    let bounds = Bounds::new(Vec2::ZERO, Vec2::splat(120.0));
    let mut hash = SpatialHash::new(bounds, 3.0).expect("valid grid");
    for side in [60.0, 90.0, 120.0] {
        let points: Vec<Vec2> = (0..600)
            .map(|u| Vec2::new(draw(1, u), draw(2, u)) * side)
            .collect();
        hash.rebuild(&points);
        let (mut windows, mut in_runs) = (0, 0);
        let mut alone = hash.sweep_skips(0, 0);
        let mut chunk = hash.sweep_skips(0, 0);
        for place in 0..points.len() {
            // Every other chunk leaves out every earlier place, as the
            // measuring sweep does.
            let first = if place / 150 % 2 == 1 {
                0
            } else {
                place - place % 150
            };
            if place % 150 == 0 {
                chunk = hash.sweep_skips(first, place);
            }
            let skip = hash.skip(first..place + 1);
            assert_eq!(chunk.through(place), skip, "side {side}, place {place}");
            // Asked for every 37th place alone, as a sweep from the
            // active units jumps over the inactive ones' rows.
            if place % 37 == 0 {
                let only = hash.skip(place..place + 1);
                assert_eq!(alone.only(place), only, "side {side}, place {place}");
            }
            let radius = 1.5 + 3.0 * draw(3, place);
            let centre = hash.sorted_positions()[place];
            let (mut visited, mut runs) = (Vec::new(), 0);
            hash.for_each_row_range_outside(centre, radius, &skip, |run| {
                runs += 1;
                visited.extend(run);
            });
            windows += 1;
            let Some(window) = hash.window_runs_outside(centre, radius, &skip) else {
                continue;
            };
            in_runs += 1;
            let places: Vec<usize> = (0..window.len()).map(|k| window.place(k)).collect();
            assert_eq!(places, visited, "side {side}, place {place}");
            assert_eq!(window.non_empty(), runs, "side {side}, place {place}");
        }
        assert!(
            2 * in_runs > windows,
            "side {side}: {in_runs} of {windows} in runs"
        );
    }
}

/// A rebuild large enough to scatter in parallel parts gives, with 1, 2,
/// 3 and 8 threads, the oracle's buckets: the units sorted by cell, in
/// unit order within a cell (a stable sort), each cell's range, every
/// unit's place and the largest cell's count; on a grid counted on one
/// thread and on one counted in parts. The crowds: units spread over
/// the grid, units crowded into a few cells (so most parts split at
/// cells with no units), and every unit in one cell.
#[test]
fn a_parallel_rebuild_is_a_stable_sort_by_cell() {
    let units = 2 * PARALLEL_MIN_UNITS + 77;
    let draw = |stream: u64, unit: usize| crate::random::unit_f32(9, stream, unit as u64);
    let spread: Vec<Vec2> = (0..units)
        .map(|u| Vec2::new(draw(1, u), draw(2, u)) * 400.0 - 20.0)
        .collect();
    let crowded: Vec<Vec2> = (0..units)
        .map(|u| Vec2::new((draw(1, u) * 4.0).floor(), (draw(2, u) * 3.0).floor()) * 50.0)
        .collect();
    let one_cell = vec![Vec2::new(5.0, 5.0); units];
    let bounds = Bounds::new(Vec2::ZERO, Vec2::splat(360.0));
    // 14,400 cells, counted on one thread; 129,600, counted in parts.
    let grids = [3.0, 1.0].map(|cell| SpatialHash::new(bounds, cell).expect("valid grid"));
    for (points, mut hash) in [spread, crowded, one_cell]
        .into_iter()
        .flat_map(|points| grids.clone().map(move |hash| (points.clone(), hash)))
    {
        let cells: Vec<u32> = points.iter().map(|&p| hash.cell_index(p)).collect();
        let mut oracle: Vec<u32> = (0..units as u32).collect();
        oracle.sort_by_key(|&unit| cells[unit as usize]);
        let mut per_cell = std::collections::HashMap::new();
        for &cell in &cells {
            *per_cell.entry(cell).or_insert(0) += 1;
        }
        let largest = per_cell.values().copied().max();
        for threads in [1, 2, 3, 8] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("thread pool");
            let stats = pool.install(|| hash.rebuild(&points));
            let hash = &hash;
            assert_eq!(Some(stats.max_cell_units), largest, "{threads} threads");
            assert_eq!(hash.order(), &oracle[..], "{threads} threads");
            for (place, &unit) in hash.order().iter().enumerate() {
                let cell = cells[unit as usize] as usize;
                let range =
                    hash.cell_start[hash.pad + cell]..hash.cell_start[hash.pad + cell + 1];
                assert!(
                    range.contains(&(place as u32)),
                    "{threads} threads, place {place}"
                );
                assert_eq!(hash.places()[unit as usize], place as u32);
                assert_eq!(hash.sorted_positions()[place], points[unit as usize]);
            }
        }
    }
}

/// After the units are renumbered in cell order, each unit's cell is
/// still the one it was hashed into.
#[test]
fn renumbered_units_keep_their_cells() {
    let points: Vec<Vec2> = (0..500)
        .map(|i| Vec2::new((i * 37 % 101) as f32 - 40.0, (i * 53 % 89) as f32 - 30.0))
        .collect();
    let bounds = Bounds::new(Vec2::splat(-50.0), Vec2::splat(60.0));
    let mut hash = SpatialHash::new(bounds, 7.0).expect("valid grid");
    hash.rebuild(&points);
    let sorted: Vec<Vec2> = hash
        .order()
        .iter()
        .map(|&unit| points[unit as usize])
        .collect();
    hash.renumber_in_cell_order();
    for (unit, point) in sorted.iter().enumerate() {
        assert_eq!(hash.cells()[unit], hash.cell_index(*point), "unit {unit}");
    }
}

proptest! {
    /// About every unit, for a radius up to a cell's edge, the block of
    /// cells about its cell finds the units its window finds, in the
    /// same order (so steering, which reads either, finds the same
    /// threats).
    #[test]
    fn a_cells_block_finds_what_its_units_windows_find(
        points in prop::collection::vec(point(), 1..400),
        cell in prop_oneof![Just(4.0f32), Just(8.0), 0.5f32..20.0],
        share in prop_oneof![Just(1.0f32), 0.05f32..1.0],
    ) {
        let radius = cell * share;
        let bounds = Bounds::new(Vec2::new(-60.0, -50.0), Vec2::new(70.0, 60.0));
        let mut hash = SpatialHash::new(bounds, cell).expect("valid grid");
        hash.rebuild(&points);
        prop_assert!(hash.block_covers(radius));
        prop_assert!(!hash.block_covers(-radius.max(f32::MIN_POSITIVE)) && !hash.block_covers(f32::NAN));
        for place in 0..points.len() {
            let point = hash.sorted_position[place];
            let by_window = within(&hash, point, radius, |visit| {
                hash.for_each_row_range(point, radius, visit);
            });
            let by_block = within(&hash, point, radius, |visit| {
                hash.for_each_block_run(hash.cells()[hash.order[place] as usize], visit);
            });
            prop_assert_eq!(by_block, by_window, "place {} at {}", place, point);
        }
    }
}

proptest! {
    /// A run's nearest places: the whole run when it holds at most `cap`;
    /// else `cap` consecutive places of it, about the unit's own place when
    /// the run holds or touches it (a sweep's run after its own place
    /// starts there), else about the run's middle.
    #[test]
    fn a_runs_nearest_places_are_cap_of_it_about_the_unit(
        start in 0usize..500,
        len in 0usize..400,
        own in 0usize..1000,
        cap in 1usize..100,
    ) {
        let run = start..start + len;
        let kept = nearest_places(run.clone(), own, cap);
        if len <= cap {
            prop_assert_eq!(kept, run);
            return Ok(());
        }
        prop_assert_eq!(kept.len(), cap);
        prop_assert!(run.start <= kept.start && kept.end <= run.end);
        if run.contains(&own) {
            prop_assert!(kept.contains(&own));
            prop_assert!(own - kept.start >= cap / 2 || kept.start == run.start);
        } else if own + 1 == run.start {
            prop_assert_eq!(kept.start, run.start);
        } else if own == run.end {
            prop_assert_eq!(kept.end, run.end);
        } else {
            let middle = run.start + len / 2;
            prop_assert!(kept.contains(&middle) || kept.end == middle);
        }
    }
}
