//! Tracing a found path: from the goal back through the parents, walking
//! the junctions' corner points, then culling kinks.

use super::*;

impl PolygonNavigator {
    /// Walks the boundary from the hit `edge` (at `hit`) to the nearest
    /// corner node, forward or backward; the cost runs from `outer`.
    pub(super) fn walk_to_corner(
        &self,
        edge: u32,
        hit: DVec2,
        outer: DVec2,
        forward: bool,
        cuts: &mut Vec<f64>,
    ) -> Option<Junction> {
        let b = self.graph.boundary();
        let swamps = self.graph.swamps();
        let from_vertex = if forward { b.next(edge) } else { edge };
        let mut cost = swamps.segment_cost(outer, hit, cuts)
            + swamps.segment_cost(hit, b.vertex(from_vertex), cuts);
        let mut v = from_vertex;
        for _ in 0..b.edge_count() {
            let node = self.vertex_node[v as usize];
            if node != NO_VERTEX {
                return Some(Junction {
                    node,
                    from_vertex,
                    forward,
                    hit,
                    cost,
                });
            }
            let w = if forward { b.next(v) } else { b.prev(v) };
            cost += swamps.segment_cost(b.vertex(v), b.vertex(w), cuts);
            v = w;
        }
        None
    }

    /// Boundary points of a heuristic junction's walk, from the hit toward
    /// the corner (corner excluded), into `search.walk`.
    pub(super) fn walk_points(&self, junction: Junction, search: &mut VisSearch) {
        let b = self.graph.boundary();
        search.walk.clear();
        search.walk.push(junction.hit);
        let mut v = junction.from_vertex;
        while self.vertex_node[v as usize] != junction.node {
            search.walk.push(b.vertex(v));
            v = if junction.forward {
                b.next(v)
            } else {
                b.prev(v)
            };
        }
    }

    /// Pushes `p` onto the reversed route with the cost of reaching the
    /// previous point from it.
    pub(super) fn push_back(&self, p: DVec2, cost: Option<f64>, search: &mut VisSearch) {
        let last = *search.route.last().unwrap_or(&p);
        let c = cost.unwrap_or_else(|| self.graph.swamps().segment_cost(p, last, &mut search.cuts));
        search.route_costs.push(c);
        search.route.push(p);
    }

    /// Follows parents from the goal into `search.route` (start first),
    /// with each segment's cost in `search.route_costs`.
    pub(super) fn trace_route(&self, q: &Query, seeded: bool, search: &mut VisSearch) {
        search.route.clear();
        search.route_costs.clear();
        search.bridges.clear();
        search.route.push(q.goal);
        let goal = *search.state(q.goal_id);
        let mut node = goal.parent;
        if seeded {
            if let Some(exit) = search.exits[search.goal_exit] {
                self.walk_points(exit, search);
                for i in 0..search.walk.len() {
                    self.push_back(search.walk[i], None, search);
                }
            }
            self.push_back(self.position(node), None, search);
        } else if node == q.start_id {
            self.push_back(q.start, Some(goal.g), search);
        } else {
            let g = search.state(node).g;
            self.push_back(self.position(node), Some(goal.g - g), search);
        }
        while node != q.start_id {
            if let Some(id) = self.bridge_of(node)
                && search.bridges.last() != Some(&id)
            {
                search.bridges.push(id);
            }
            let state = *search.state(node);
            if state.parent == q.start_id {
                self.trace_entry(q, node, state.g, seeded, search);
            } else {
                let parent_g = search.state(state.parent).g;
                self.push_back(
                    self.position(state.parent),
                    Some(state.g - parent_g),
                    search,
                );
            }
            node = state.parent;
        }
        search.route.reverse();
        search.route_costs.reverse();
        search.bridges.reverse();
    }

    /// The route's first part: the start (and, in heuristic mode, the walk
    /// from the first hit to the entry corner `node`).
    pub(super) fn trace_entry(
        &self,
        q: &Query,
        node: u32,
        g: f64,
        seeded: bool,
        search: &mut VisSearch,
    ) {
        let entry = search
            .entries
            .into_iter()
            .flatten()
            .filter(|e| seeded && e.node == node)
            .min_by(|a, b| a.cost.total_cmp(&b.cost));
        match entry {
            Some(entry) => {
                self.walk_points(entry, search);
                for i in (0..search.walk.len()).rev() {
                    self.push_back(search.walk[i], None, search);
                }
                self.push_back(q.start, None, search);
            }
            None => self.push_back(q.start, Some(g), search),
        }
    }

    /// The seed paper's kink culling: while the start sees the path's
    /// second point (at no higher cost), the first is dropped; the same from
    /// the goal's end.
    pub(super) fn cull_kinks(&self, search: &mut VisSearch) {
        let boundary = self.graph.boundary();
        let swamps = self.graph.swamps();
        while search.route.len() > 2 {
            let (a, c) = (search.route[0], search.route[2]);
            let replaced = search.route_costs[0] + search.route_costs[1];
            if !boundary.visible(a, c, &mut search.stamps) {
                break;
            }
            let cost = swamps.segment_cost(a, c, &mut search.cuts);
            if cost > replaced {
                break;
            }
            search.route.remove(1);
            search.route_costs.remove(1);
            search.route_costs[0] = cost;
        }
        while search.route.len() > 2 {
            let n = search.route.len();
            let (a, c) = (search.route[n - 3], search.route[n - 1]);
            let replaced = search.route_costs[n - 3] + search.route_costs[n - 2];
            if !boundary.visible(a, c, &mut search.stamps) {
                break;
            }
            let cost = swamps.segment_cost(a, c, &mut search.cuts);
            if cost > replaced {
                break;
            }
            search.route.remove(n - 2);
            search.route_costs.remove(n - 2);
            search.route_costs[n - 3] = cost;
        }
    }
}
