//! A brute-force oracle for the visibility-graph planner: the naive O(n³)
//! visibility graph over *every* boundary vertex plus start and goal, with
//! an independent visibility test (no proper crossing; every piece between
//! boundary touches has a free midpoint; every touched vertex has free
//! space on at least one side), searched by plain Dijkstra. With roads
//! ([`Oracle::with_roads`]), every free road vertex is one more vertex, and a
//! road segment between two of them that see each other costs the road
//! factor per metre.

#![allow(dead_code)]

use std::collections::HashSet;

use convoy::glam::DVec2;
use convoy::nav::clearance::FreeSpace;
use convoy::nav::polygon::{orient, point_in_ring};

/// The free space as plain rings.
pub struct Oracle {
    rings: Vec<Vec<DVec2>>,
    vertices: Vec<DVec2>,
    /// `visible[i][j]` between vertices.
    visible: Vec<Vec<bool>>,
    /// Vertex pairs `(low, high)` joined by a road segment.
    road: HashSet<(usize, usize)>,
    road_factor: f64,
}

impl Oracle {
    pub fn new(space: &FreeSpace) -> Self {
        Self::with_roads(space, &[], 1.0)
    }

    /// The oracle on `space` with `roads` (polylines) whose segments cost
    /// `road_factor` per metre.
    pub fn with_roads(space: &FreeSpace, roads: &[Vec<DVec2>], road_factor: f64) -> Self {
        let rings: Vec<Vec<DVec2>> = space
            .contours
            .iter()
            .map(|&[s, l]| space.points[s as usize..(s + l) as usize].to_vec())
            .collect();
        let mut oracle = Self {
            vertices: space.points.clone(),
            rings,
            visible: Vec::new(),
            road: HashSet::new(),
            road_factor,
        };
        oracle.add_roads(roads);
        let n = oracle.vertices.len();
        let visible: Vec<Vec<bool>> = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        i != j && oracle.segment_is_free(oracle.vertices[i], oracle.vertices[j])
                    })
                    .collect()
            })
            .collect();
        oracle.visible = visible;
        oracle
    }

    /// Appends each distinct free road vertex (equal coordinates are one
    /// vertex) and records its segments' vertex pairs.
    fn add_roads(&mut self, roads: &[Vec<DVec2>]) {
        let mut index = std::collections::HashMap::new();
        for road in roads {
            let mut previous: Option<usize> = None;
            for &p in road {
                let vertex = *index
                    .entry([p.x.to_bits(), p.y.to_bits()])
                    .or_insert_with(|| {
                        self.is_free(p).then(|| {
                            self.vertices.push(p);
                            self.vertices.len() - 1
                        })
                    });
                if let (Some(a), Some(b)) = (previous, vertex) {
                    self.road.insert((a.min(b), a.max(b)));
                }
                previous = vertex;
            }
        }
    }

    /// What the edge between vertices `u` and `v` costs.
    fn cost(&self, u: usize, v: usize, length: f64) -> f64 {
        if self.road.contains(&(u.min(v), u.max(v))) {
            length * self.road_factor
        } else {
            length
        }
    }

    fn edges(&self) -> impl Iterator<Item = (DVec2, DVec2)> + '_ {
        self.rings
            .iter()
            .flat_map(|r| (0..r.len()).map(move |i| (r[i], r[(i + 1) % r.len()])))
    }

    /// Strictly inside the free space (even-odd over every contour).
    pub fn is_free(&self, p: DVec2) -> bool {
        self.rings.iter().filter(|r| point_in_ring(p, r)).count() % 2 == 1
    }

    fn on_boundary(&self, p: DVec2) -> bool {
        self.edges().any(|(a, b)| {
            orient(a, b, p).abs() <= 1e-9 * (1.0 + a.distance(b))
                && (p - a).dot(b - a) >= 0.0
                && (p - b).dot(a - b) >= 0.0
        })
    }

    fn free_or_boundary(&self, p: DVec2) -> bool {
        self.is_free(p) || self.on_boundary(p)
    }

    /// The independent visibility test.
    pub fn segment_is_free(&self, p: DVec2, q: DVec2) -> bool {
        if p == q {
            return self.free_or_boundary(p);
        }
        let mut cuts = vec![0.0, 1.0];
        for (a, b) in self.edges() {
            let (o1, o2) = (orient(p, q, a), orient(p, q, b));
            let (o3, o4) = (orient(a, b, p), orient(a, b, q));
            if o1 * o2 < 0.0 && o3 * o4 < 0.0 {
                return false;
            }
            for v in [a, b] {
                // Clipping makes vertices that are collinear up to rounding:
                // treat a vertex within 1e-9 of the segment as on it.
                if orient(p, q, v).abs() <= 1e-9 * p.distance(q) {
                    let t = (v - p).dot(q - p) / (q - p).length_squared();
                    if (0.0..=1.0).contains(&t) {
                        cuts.push(t);
                    }
                }
            }
            for (end, o) in [(p, o3), (q, o4)] {
                if o == 0.0 && (end - a).dot(b - a) > 0.0 && (end - b).dot(a - b) > 0.0 {
                    let t = if end == p { 0.0 } else { 1.0 };
                    cuts.push(t);
                }
            }
        }
        cuts.sort_by(f64::total_cmp);
        let d = q - p;
        let normal = d.perp().normalize() * 1e-7;
        for w in cuts.windows(2) {
            if w[1] - w[0] > 1e-12 && !self.free_or_boundary(p + d * (0.5 * (w[0] + w[1]))) {
                return false;
            }
        }
        // A vertex passed through must have free space beside the segment.
        cuts.iter().filter(|&&t| t > 0.0 && t < 1.0).all(|&t| {
            let x = p + d * t;
            self.free_or_boundary(x + normal) || self.free_or_boundary(x - normal)
        })
    }

    /// Plain Dijkstra over every vertex plus `start` and `goal`; `None`
    /// when unreachable.
    pub fn shortest(&self, start: DVec2, goal: DVec2) -> Option<f64> {
        self.shortest_path(start, goal).map(|(length, _)| length)
    }

    /// The oracle's length and path.
    pub fn shortest_path(&self, start: DVec2, goal: DVec2) -> Option<(f64, Vec<DVec2>)> {
        let direct = self.segment_is_free(start, goal);
        // Without roads nothing beats the straight line; with them a detour
        // along one may.
        if direct && self.road.is_empty() {
            return Some((start.distance(goal), vec![start, goal]));
        }
        let n = self.vertices.len();
        let (s, g) = (n, n + 1);
        let point = |i: usize| match i {
            i if i < n => self.vertices[i],
            i if i == s => start,
            _ => goal,
        };
        let from_start: Vec<bool> = (0..n)
            .map(|i| self.segment_is_free(start, self.vertices[i]))
            .collect();
        let to_goal: Vec<bool> = (0..n)
            .map(|i| self.segment_is_free(self.vertices[i], goal))
            .collect();
        let mut dist = vec![f64::INFINITY; n + 2];
        let mut done = vec![false; n + 2];
        let mut parent = vec![usize::MAX; n + 2];
        dist[s] = 0.0;
        loop {
            let u = (0..n + 2)
                .filter(|&i| !done[i] && dist[i].is_finite())
                .min_by(|&a, &b| dist[a].total_cmp(&dist[b]))?;
            if u == g {
                let mut path = vec![goal];
                let mut at = g;
                while parent[at] != usize::MAX {
                    at = parent[at];
                    path.push(point(at));
                }
                path.reverse();
                return Some((dist[g], path));
            }
            done[u] = true;
            for v in 0..n + 2 {
                let edge = match (u, v) {
                    (u, v) if u == v => false,
                    (u, v) if u < n && v < n => self.visible[u][v],
                    (u, v) if u == s && v < n => from_start[v],
                    (u, v) if u < n && v == g => to_goal[u],
                    (u, v) if u == s && v == g => direct,
                    _ => false,
                };
                if edge {
                    let length = point(u).distance(point(v));
                    let nd = dist[u]
                        + if u < n && v < n {
                            self.cost(u, v, length)
                        } else {
                            length
                        };
                    if nd < dist[v] {
                        dist[v] = nd;
                        parent[v] = u;
                    }
                }
            }
        }
    }
}
