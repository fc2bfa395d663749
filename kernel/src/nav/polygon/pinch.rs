//! Splitting rings at pinch points. A navigation mesh's boundary may touch
//! itself at a single vertex — two walkable areas meeting at a corner, or a
//! hole touching the outer boundary — which a loop traced along it visits
//! twice. Cutting the loop at every repeated vertex leaves rings that visit
//! each vertex once; their signed areas add up to the loop's, so the
//! counter-clockwise ones are land and the clockwise ones holes.

use std::collections::HashMap;

/// Splits a closed loop of vertex indices at every vertex it visits more
/// than once (a stack walk: a vertex seen again closes the ring since its
/// first visit). The rings returned visit no vertex twice and together use
/// each of the loop's edges once; rings of fewer than 3 vertices (a spike
/// out and back) are dropped.
pub(super) fn split_at_pinches(ring: &[usize]) -> Vec<Vec<usize>> {
    let mut rings = Vec::new();
    let mut stack: Vec<usize> = Vec::with_capacity(ring.len());
    let mut seen: HashMap<usize, usize> = HashMap::with_capacity(ring.len());
    for &v in ring {
        if let Some(&at) = seen.get(&v) {
            let piece: Vec<usize> = stack.drain(at + 1..).collect();
            for w in &piece {
                seen.remove(w);
            }
            let mut closed = Vec::with_capacity(piece.len() + 1);
            closed.push(v);
            closed.extend(piece);
            rings.push(closed);
        } else {
            seen.insert(v, stack.len());
            stack.push(v);
        }
    }
    rings.push(stack);
    rings.retain(|r| r.len() >= 3);
    rings
}

#[cfg(test)]
mod tests {
    use super::split_at_pinches;

    #[test]
    fn a_simple_ring_stays_whole() {
        assert_eq!(split_at_pinches(&[0, 1, 2, 3]), vec![vec![0, 1, 2, 3]]);
    }

    #[test]
    fn a_figure_eight_splits_into_its_two_loops() {
        // 0-1-2 then back through 2 to 3-4: vertex 2 is visited twice.
        let rings = split_at_pinches(&[0, 1, 2, 3, 4, 2, 5]);
        assert_eq!(rings, vec![vec![2, 3, 4], vec![0, 1, 2, 5]]);
    }

    #[test]
    fn nested_pinches_split_into_every_loop() {
        let rings = split_at_pinches(&[0, 1, 2, 3, 2, 4, 5, 1, 6]);
        let mut edges: Vec<(usize, usize)> = rings
            .iter()
            .flat_map(|r| (0..r.len()).map(move |i| (r[i], r[(i + 1) % r.len()])))
            .collect();
        edges.sort_unstable();
        assert_eq!(rings.len(), 2, "{rings:?}");
        assert!(rings.iter().all(|r| {
            let mut v = r.clone();
            v.sort_unstable();
            v.windows(2).all(|w| w[0] != w[1])
        }));
        // The spike 2-3-2 is dropped; every other edge is kept once.
        let mut want = vec![(0, 1), (1, 6), (6, 0), (1, 2), (2, 4), (4, 5), (5, 1)];
        want.sort_unstable();
        assert_eq!(edges, want);
    }
}
