//! Path queries over the visibility graph: the direct-line check, start and
//! goal insertion, Dijkstra or A*, and the kink-culling pass of the seed
//! paper (section 3, "Our heuristic").
//!
//! # Exact insertion (the default)
//! The start is joined *lazily* to every node that may be a first bend
//! (every bridge node, and every corner whose tangent passes through the
//! start): each is queued with the straight-line distance, a lower bound of
//! its true cost, and its visibility is checked only when it is popped. If
//! the line is blocked, or crosses a swamp, the node's cost is recomputed
//! from the start and its already-closed neighbours and it is queued again
//! (the update of Nash et al.'s Lazy Theta*). The goal is joined from each
//! closed node that may see it, only when that could improve the best goal
//! cost found so far — with A* that is rarely more than a handful of
//! visibility queries. The result is the cheapest path in the graph with
//! start and goal inserted, as if every visibility edge had been built.
//!
//! The start's candidates are queued in stages of growing bound `B` on that
//! lower bound `f`: a stage queues those with `f` in `(B_prev, B]`, found
//! through the node grid (`visgraph::nodes`) without touching cells whose
//! whole rectangle is beyond `B`, and the next stage runs only when the
//! open list's best entry exceeds `B` (or it is empty). Every node not yet
//! queued has `f > B`, so the nodes are popped in the same order as if all
//! had been queued at once — most queries finish in the first stage and
//! never look at the far side of the map.
//!
//! # Determinism and memory
//! The open list is an indexed binary heap keyed by (f, larger g, lower
//! node); a [`VisSearch`] holds per-node state with generation stamps, so a
//! query allocates nothing once the context has grown to the graph.

mod route;

use glam::{DVec2, Vec2};

use super::NO_VERTEX;
use super::boundary::EdgeStamps;
use super::navigator::{
    NavError, PathCost, PolygonNavigator, QueryOptions, SearchAlgorithm, StartInsertion,
};
use super::nodes::{distance_to_box, reach_box};

const NOT_OPEN: u32 = u32::MAX;
const NO_PARENT: u32 = u32::MAX;
const CLOSED: u8 = 1;
const UNVERIFIED: u8 = 2;

#[derive(Clone, Copy, Debug, Default)]
struct NodeState {
    g: f64,
    parent: u32,
    stamp: u32,
    slot: u32,
    flags: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    f: u64,
    g: u64,
    node: u32,
}

impl Entry {
    #[inline]
    fn before(&self, other: &Self) -> bool {
        (self.f, !self.g, self.node) < (other.f, !other.g, other.node)
    }
}

/// Where a Force 21 heuristic endpoint joins the graph: a corner node
/// reached by walking the boundary from the hit point.
#[derive(Clone, Copy, Debug, Default)]
struct Junction {
    node: u32,
    /// The boundary vertex the walk started from (an end of the hit edge).
    from_vertex: u32,
    forward: bool,
    /// The hit point.
    hit: DVec2,
    /// Cost from the outer point (start or goal) through the walk.
    cost: f64,
}

/// A reusable search context (one per thread).
#[derive(Clone, Debug, Default)]
pub struct VisSearch {
    nodes: Vec<NodeState>,
    heap: Vec<Entry>,
    generation: u32,
    stamps: EdgeStamps,
    cuts: Vec<f64>,
    route: Vec<DVec2>,
    route_costs: Vec<f64>,
    walk: Vec<DVec2>,
    bridges: Vec<u32>,
    /// Heuristic mode: where the goal side joins, and which one the goal
    /// came through.
    exits: [Option<Junction>; 2],
    entries: [Option<Junction>; 2],
    goal_exit: usize,
    /// Exact insertion's staged seeding.
    stages: SeedStages,
}

/// How far the start's candidates have been queued (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
struct SeedStages {
    /// Candidates with `f ≤ seeded_to` are queued.
    seeded_to: f64,
    /// The current stage's width above the start's own `f`.
    span: f64,
    /// The largest `f` of any point in the node grid's box: a stage
    /// reaching it queues every remaining candidate.
    f_max: f64,
    /// Every candidate is queued.
    done: bool,
}

/// The query being answered.
struct Query {
    start: DVec2,
    goal: DVec2,
    faction: usize,
    start_id: u32,
    goal_id: u32,
    h_factor: f64,
}

impl VisSearch {
    /// A context for `nav` (it grows itself if the graph grows).
    #[must_use]
    pub fn new(nav: &PolygonNavigator) -> Self {
        let mut search = Self::default();
        search.begin(nav.total_nodes() + 2);
        search
    }

    /// Room for queries on `nav` (after its graph grew), so none grows it.
    pub fn reserve(&mut self, nav: &PolygonNavigator) {
        self.begin(nav.total_nodes() + 2);
        self.stamps.reserve(nav.graph().boundary().edge_count());
    }

    /// The last path found, in full precision (what `out` holds as `f32`).
    #[must_use]
    pub fn route(&self) -> &[DVec2] {
        &self.route
    }

    /// Bridges crossed by the last path found, in order (by id).
    #[must_use]
    pub fn bridges_crossed(&self) -> &[u32] {
        &self.bridges
    }

    fn begin(&mut self, nodes: usize) {
        if self.nodes.len() < nodes {
            self.nodes.resize(nodes, NodeState::default());
        }
        self.heap.clear();
        // Each node holds at most one open-list slot and one route corner
        // (a route adds its start and goal):
        // reserved on the first query, so no later one grows them (staged
        // seeding makes the open list's size depend on the query's length).
        self.heap.reserve(nodes);
        self.route
            .reserve((nodes + 2).saturating_sub(self.route.len()));
        self.route_costs
            .reserve((nodes + 2).saturating_sub(self.route_costs.len()));
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.nodes.fill(NodeState::default());
            self.generation = 1;
        }
    }

    #[inline]
    fn state(&mut self, node: u32) -> &mut NodeState {
        let generation = self.generation;
        let s = &mut self.nodes[node as usize];
        if s.stamp != generation {
            *s = NodeState {
                g: f64::INFINITY,
                parent: NO_PARENT,
                stamp: generation,
                slot: NOT_OPEN,
                flags: 0,
            };
        }
        s
    }

    /// Sets `node`'s cost and parent and queues it with key `f`.
    fn offer(&mut self, node: u32, g: f64, f: f64, parent: u32, flags: u8) {
        let state = self.state(node);
        state.g = g;
        state.parent = parent;
        state.flags = flags;
        let slot = state.slot;
        let entry = Entry {
            f: f.to_bits(),
            g: g.to_bits(),
            node,
        };
        let pos = if slot == NOT_OPEN {
            self.heap.push(entry);
            self.heap.len() - 1
        } else {
            self.heap[slot as usize] = entry;
            slot as usize
        };
        self.sift_up(pos);
        let at = self.nodes[node as usize].slot as usize;
        self.sift_down(at);
    }

    /// Appends `node` to the open list without ordering it; call
    /// [`heapify`](Self::heapify) before the next pop. Only for nodes not
    /// yet seen this query.
    fn offer_unordered(&mut self, node: u32, g: f64, f: f64, parent: u32, flags: u8) {
        let slot = self.heap.len() as u32;
        let state = self.state(node);
        state.g = g;
        state.parent = parent;
        state.flags = flags;
        state.slot = slot;
        self.heap.push(Entry {
            f: f.to_bits(),
            g: g.to_bits(),
            node,
        });
    }

    /// Restores the heap order in O(n) (bottom-up).
    fn heapify(&mut self) {
        for pos in (0..self.heap.len() / 2).rev() {
            self.sift_down(pos);
        }
    }

    fn place(&mut self, pos: usize, entry: Entry) {
        self.heap[pos] = entry;
        self.nodes[entry.node as usize].slot = pos as u32;
    }

    fn sift_up(&mut self, mut pos: usize) {
        let entry = self.heap[pos];
        while pos > 0 {
            let parent = (pos - 1) / 2;
            if !entry.before(&self.heap[parent]) {
                break;
            }
            self.place(pos, self.heap[parent]);
            pos = parent;
        }
        self.place(pos, entry);
    }

    fn sift_down(&mut self, mut pos: usize) {
        let entry = self.heap[pos];
        let len = self.heap.len();
        loop {
            let left = 2 * pos + 1;
            if left >= len {
                break;
            }
            let right = left + 1;
            let child = if right < len && self.heap[right].before(&self.heap[left]) {
                right
            } else {
                left
            };
            if !self.heap[child].before(&entry) {
                break;
            }
            self.place(pos, self.heap[child]);
            pos = child;
        }
        self.place(pos, entry);
    }

    fn pop(&mut self) -> Option<u32> {
        let top = *self.heap.first()?;
        let last = self.heap.pop()?;
        if !self.heap.is_empty() {
            self.place(0, last);
            self.sift_down(0);
        }
        self.nodes[top.node as usize].slot = NOT_OPEN;
        Some(top.node)
    }
}

impl PolygonNavigator {
    /// The cheapest path from `start` to `goal` for `faction`, with the
    /// navigator's default [`QueryOptions`]. Waypoints (start and goal
    /// included, moved out of obstacles if they were in one) go to `out`.
    ///
    /// # Errors
    /// [`NavError`]; `out` is then empty.
    pub fn find_path(
        &self,
        start: Vec2,
        goal: Vec2,
        faction: super::FactionId,
        search: &mut VisSearch,
        out: &mut Vec<Vec2>,
    ) -> Result<PathCost, NavError> {
        self.find_path_with(
            start.as_dvec2(),
            goal.as_dvec2(),
            faction,
            self.options,
            search,
            out,
        )
    }

    /// Whether the straight line from `p` to `q` stays in the free space
    /// routes are planned in (the map at the navigator's clearance): both
    /// ends free, and no boundary edge between them.
    pub fn sees(&self, p: Vec2, q: Vec2, search: &mut VisSearch) -> bool {
        let boundary = self.graph.boundary();
        let free = |point: Vec2| {
            point.is_finite()
                && boundary
                    .locate(point.as_dvec2())
                    .is_some_and(|located| !located.moved)
        };
        free(p) && free(q) && boundary.visible(p.as_dvec2(), q.as_dvec2(), &mut search.stamps)
    }

    /// [`find_path`](Self::find_path) in `f64` with explicit options.
    ///
    /// # Errors
    /// [`NavError`]; `out` is then empty.
    pub fn find_path_with(
        &self,
        start: DVec2,
        goal: DVec2,
        faction: super::FactionId,
        options: QueryOptions,
        search: &mut VisSearch,
        out: &mut Vec<Vec2>,
    ) -> Result<PathCost, NavError> {
        out.clear();
        search.bridges.clear();
        for (which, p) in [("start", start), ("goal", goal)] {
            if !(p.is_finite() && p.abs().max_element() <= crate::nav::MAX_COORDINATE) {
                return Err(NavError::NotFinite { which });
            }
        }
        let f = usize::from(faction.0);
        if f >= self.beliefs.len() {
            return Err(NavError::UnknownFaction {
                faction: faction.0,
                factions: self.factions(),
            });
        }
        let boundary = self.graph.boundary();
        let (Some(s), Some(g)) = (boundary.locate(start), boundary.locate(goal)) else {
            return Err(NavError::Unreachable);
        };
        if self.components[f][s.piece as usize] != self.components[f][g.piece as usize] {
            return Err(NavError::Unreachable);
        }
        let total = self.total_nodes() as u32;
        search.begin(total as usize + 2);
        let query = Query {
            start: s.point,
            goal: g.point,
            faction: f,
            start_id: total,
            goal_id: total + 1,
            h_factor: match options.algorithm {
                SearchAlgorithm::AStar => self.graph.min_cost_factor(),
                SearchAlgorithm::Dijkstra => 0.0,
            },
        };
        let moved = s.moved || g.moved;
        let mut cost = self.search(&query, options.insertion, search)?;
        cost.moved = moved;
        out.extend(search.route.iter().map(|p| p.as_vec2()));
        Ok(cost)
    }

    fn search(
        &self,
        q: &Query,
        insertion: StartInsertion,
        search: &mut VisSearch,
    ) -> Result<PathCost, NavError> {
        let boundary = self.graph.boundary();
        let direct = boundary.visible(q.start, q.goal, &mut search.stamps);
        let direct_cost = if direct {
            self.graph
                .swamps()
                .segment_cost(q.start, q.goal, &mut search.cuts)
        } else {
            f64::INFINITY
        };
        let length = q.start.distance(q.goal);
        let heuristic = insertion == StartInsertion::FirstLastHit;
        if direct && (heuristic || (direct_cost == length && !self.graph.has_fast_edges())) {
            search.route.clear();
            search.route.extend([q.start, q.goal]);
            return Ok(PathCost {
                cost: direct_cost,
                length,
                expanded: 0,
                direct: true,
                moved: false,
            });
        }
        if heuristic && self.seed_heuristic(q, search) {
            if let Ok(expanded) = self.run(q, true, search) {
                self.trace_route(q, true, search);
                self.cull_kinks(search);
                return Ok(self.route_cost(expanded, search));
            }
            // The hit edges' corners were dead ends of the reduced graph
            // (corners that are nearly straight): answer exactly instead.
            search.begin(q.goal_id as usize + 1);
        }
        self.seed_exact(q, search);
        if direct {
            search.offer(q.goal_id, direct_cost, direct_cost, q.start_id, 0);
        }
        let expanded = self.run(q, false, search)?;
        self.trace_route(q, false, search);
        Ok(self.route_cost(expanded, search))
    }

    /// Cost and length of the traced route.
    fn route_cost(&self, expanded: u32, search: &VisSearch) -> PathCost {
        PathCost {
            cost: search.route_costs.iter().sum(),
            length: search.route.windows(2).map(|w| w[0].distance(w[1])).sum(),
            expanded,
            direct: false,
            moved: false,
        }
    }

    /// Queues every node that may be the first bend, at its straight-line
    /// distance, unverified: every bridge node, and the first stage of the
    /// graph's nodes (one O(n) heapify rather than n pushes).
    fn seed_exact(&self, q: &Query, search: &mut VisSearch) {
        for node in self.graph.node_count() as u32..q.start_id {
            if self.usable(q.faction, node) {
                let p = self.position(node);
                let g = q.start.distance(p);
                let f = g + q.h_factor * p.distance(q.goal);
                search.offer_unordered(node, g, f, q.start_id, UNVERIFIED);
            }
        }
        let f_start = q.h_factor * q.start.distance(q.goal);
        let (low, high) = self.graph.node_grid().bounds();
        let f_max = [
            low,
            high,
            DVec2::new(low.x, high.y),
            DVec2::new(high.x, low.y),
        ]
        .map(|c| q.start.distance(c) + q.h_factor * c.distance(q.goal))
        .into_iter()
        .fold(f_start, f64::max);
        search.stages = SeedStages {
            seeded_to: f64::NEG_INFINITY,
            // The first stage's bound is 1.03125·|s − g| whatever the
            // heuristic factor (the start's own f is h·|s − g|): a
            // shortest path costs at least |s − g| when the cheapest edge
            // factor is 1, and 1/32 more covers a short detour (fewer
            // barely gains: callgrind on the random map).
            span: ((1.03125 - q.h_factor) * q.start.distance(q.goal)).max((f_max - f_start) / 64.0),
            f_max,
            done: false,
        };
        self.seed_stage(q, search, true);
        search.heapify();
    }

    /// Queues the next stage of the start's candidates: the graph's nodes
    /// tangent from the start whose `f` lies above the last stage's bound
    /// and at most this one's. `fresh`: nothing is queued yet but bridge
    /// nodes (the caller heapifies).
    fn seed_stage(&self, q: &Query, search: &mut VisSearch, fresh: bool) {
        let stages = &mut search.stages;
        let low = stages.seeded_to;
        let f_start = q.h_factor * q.start.distance(q.goal);
        let mut high = f_start + stages.span;
        // NaN bounds or a span that cannot grow end the staging: the loop
        // in `seed_below_top` always stops.
        if !(high < stages.f_max && stages.span > 0.0) {
            high = f64::INFINITY;
            stages.done = true;
        }
        stages.seeded_to = high;
        stages.span *= 2.0;
        // The rectangle's bound is a hair lowered, so rounding never drops
        // a node that belongs to this stage.
        let reaches = |a: DVec2, b: DVec2| {
            let bound = distance_to_box(q.start, a, b) + q.h_factor * distance_to_box(q.goal, a, b);
            bound * (1.0 - 1e-9) <= high
        };
        let within = reach_box(q.start, q.goal, q.h_factor, high);
        self.graph.node_grid().visit(within, reaches, |node| {
            let p = self.position(node);
            let g = q.start.distance(p);
            let f = g + q.h_factor * p.distance(q.goal);
            if f <= low || f > high || !self.graph.may_connect(node, q.start) {
                return;
            }
            if fresh {
                search.offer_unordered(node, g, f, q.start_id, UNVERIFIED);
                return;
            }
            // Reached through the graph already: keep a cheaper cost (a
            // closed node was cheaper, being popped below this bound).
            let state = *search.state(node);
            if state.flags & CLOSED == 0 && state.g >= g {
                search.offer(node, g, f, q.start_id, UNVERIFIED);
            }
        });
    }

    /// Queues stages until the open list's best entry is within the seeded
    /// bound (so no unqueued candidate can come before it).
    fn seed_below_top(&self, q: &Query, search: &mut VisSearch) {
        while !search.stages.done
            && search
                .heap
                .first()
                .is_none_or(|top| f64::from_bits(top.f) > search.stages.seeded_to)
        {
            self.seed_stage(q, search, false);
        }
    }

    /// The search loop; returns the nodes expanded.
    fn run(&self, q: &Query, seeded: bool, search: &mut VisSearch) -> Result<u32, NavError> {
        let mut expanded = 0;
        let mut best_goal = search.state(q.goal_id).g;
        loop {
            if !seeded {
                self.seed_below_top(q, search);
            }
            let Some(node) = search.pop() else {
                break;
            };
            if node == q.goal_id {
                return Ok(expanded);
            }
            if search.nodes[node as usize].flags & UNVERIFIED != 0 && !self.verify(q, node, search)
            {
                continue;
            }
            search.nodes[node as usize].flags = CLOSED;
            expanded += 1;
            let g = search.nodes[node as usize].g;
            if let Some(cost) = self.goal_cost(q, node, g, best_goal, seeded, search) {
                best_goal = cost;
                search.offer(q.goal_id, cost, cost, node, 0);
            }
            self.relax(q, node, g, search);
        }
        Err(NavError::Unreachable)
    }

    /// Relaxes `node`'s graph and bridge edges.
    fn relax(&self, q: &Query, node: u32, g: f64, search: &mut VisSearch) {
        let graph_edges = if (node as usize) < self.graph.node_count() {
            Some(self.graph.neighbours(node))
        } else {
            None
        };
        let extra = self.extra[node as usize].iter().copied();
        for (to, w) in graph_edges.into_iter().flatten().chain(extra) {
            if !self.usable(q.faction, to) {
                continue;
            }
            let state = *search.state(to);
            let ng = g + w;
            if state.flags & CLOSED != 0 || ng >= state.g {
                continue;
            }
            let h = q.h_factor * self.position(to).distance(q.goal);
            search.offer(to, ng, ng + h, node, 0);
        }
    }

    /// Checks an unverified start edge to `node`; returns whether `node`
    /// can be expanded now (else it was re-queued or dropped).
    fn verify(&self, q: &Query, node: u32, search: &mut VisSearch) -> bool {
        let p = self.position(node);
        let popped = search.nodes[node as usize].g;
        let mut best = f64::INFINITY;
        let mut parent = NO_PARENT;
        if self
            .graph
            .boundary()
            .visible(q.start, p, &mut search.stamps)
        {
            best = self
                .graph
                .swamps()
                .segment_cost(q.start, p, &mut search.cuts);
            parent = q.start_id;
        }
        let graph_edges = if (node as usize) < self.graph.node_count() {
            Some(self.graph.neighbours(node))
        } else {
            None
        };
        for (from, w) in graph_edges
            .into_iter()
            .flatten()
            .chain(self.extra[node as usize].iter().copied())
        {
            let state = *search.state(from);
            if state.flags & CLOSED != 0 && state.g + w < best {
                best = state.g + w;
                parent = from;
            }
        }
        let state = search.state(node);
        state.flags = 0;
        state.g = best;
        state.parent = parent;
        if best == popped {
            return true;
        }
        if best.is_finite() {
            let h = q.h_factor * p.distance(q.goal);
            search.offer(node, best, best + h, parent, 0);
        }
        false
    }

    /// The goal's cost through closed `node`, if it beats `best_goal`.
    fn goal_cost(
        &self,
        q: &Query,
        node: u32,
        g: f64,
        best_goal: f64,
        seeded: bool,
        search: &mut VisSearch,
    ) -> Option<f64> {
        if seeded {
            let (k, exit) = search
                .exits
                .iter()
                .enumerate()
                .filter_map(|(k, e)| e.filter(|e| e.node == node).map(|e| (k, e)))
                .min_by(|a, b| a.1.cost.total_cmp(&b.1.cost))?;
            let cost = g + exit.cost;
            if cost < best_goal {
                search.goal_exit = k;
                return Some(cost);
            }
            return None;
        }
        let p = self.position(node);
        let tangent =
            (node as usize) >= self.graph.node_count() || self.graph.may_connect(node, q.goal);
        if !tangent
            || g + p.distance(q.goal) >= best_goal
            || !self.graph.boundary().visible(p, q.goal, &mut search.stamps)
        {
            return None;
        }
        let cost = g + self
            .graph
            .swamps()
            .segment_cost(p, q.goal, &mut search.cuts);
        (cost < best_goal).then_some(cost)
    }

    /// Force 21 heuristic insertion: joins the start through the first hit
    /// of the straight line and the goal through the last; returns `false`
    /// when that is impossible (then the exact insertion is used).
    fn seed_heuristic(&self, q: &Query, search: &mut VisSearch) -> bool {
        let boundary = self.graph.boundary();
        let Some((e1, h1)) = boundary.first_hit(q.start, q.goal, &mut search.stamps) else {
            return false;
        };
        let Some((e2, h2)) = boundary.first_hit(q.goal, q.start, &mut search.stamps) else {
            return false;
        };
        search.entries =
            [true, false].map(|fw| self.walk_to_corner(e1, h1, q.start, fw, &mut search.cuts));
        search.exits =
            [true, false].map(|fw| self.walk_to_corner(e2, h2, q.goal, fw, &mut search.cuts));
        if search.entries.iter().all(Option::is_none) || search.exits.iter().all(Option::is_none) {
            return false;
        }
        for entry in search.entries.into_iter().flatten() {
            if entry.cost < search.state(entry.node).g {
                let h = q.h_factor * self.position(entry.node).distance(q.goal);
                search.offer(entry.node, entry.cost, entry.cost + h, q.start_id, 0);
            }
        }
        true
    }
}
