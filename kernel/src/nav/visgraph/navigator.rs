//! The planner the `paths` stage calls: a [`VisGraph`] plus the run-time
//! state of the seed paper's bridges (section 3, "Bridges").
//!
//! - **Bridges** are three extra nodes (two ends and the middle) joined by
//!   deck edges; each end is connected by visibility to the graph when the
//!   bridge is added, so a bridge can be added or removed at run time
//!   without rebuilding.
//! - **Factions plan with what they know**: each faction holds a belief per
//!   bridge. A removed bridge stays in the graph for every faction that has
//!   not observed the removal; [`PolygonNavigator::observe_bridge`] updates a
//!   belief and says whether it changed, so a platoon that arrives at a
//!   bridge that is gone replans.
//! - **Unreachable without a search**: the free space's connected pieces
//!   (from the clearance step) are joined by the bridges a faction believes
//!   in; start and goal in different groups are answered at once.
//! - **One platoon on a bridge at a time**: [`BridgeTraffic`], for the
//!   `formations` stage.

use std::sync::Arc;

use glam::{DVec2, Vec2};
use thiserror::Error;

use super::boundary::EdgeStamps;
use super::obstacles::ObstacleId;
use super::{BuildError, GraphConfig, VisGraph};
use crate::nav::polygon::{BridgeSpec, PolygonMap, Ring};

/// A faction (side) of the game; factions differ in what they know of
/// bridges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FactionId(pub u16);

/// Graph search used between the inserted start and goal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SearchAlgorithm {
    /// A* with the straight-line heuristic (scaled by the cheapest cost per
    /// metre, so roads keep it admissible). The default: same costs as
    /// Dijkstra, fewer expansions.
    #[default]
    AStar,
    /// Dijkstra's algorithm, as in the paper.
    Dijkstra,
}

/// How start and goal join the graph.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StartInsertion {
    /// Visibility from start and goal to every node that may matter (exact
    /// shortest paths over the graph). The default.
    #[default]
    Exact,
    /// The Force 21 heuristic: the first and last obstacle hits of the
    /// straight line join the graph through the corners of the edges hit,
    /// then the path's kinks are culled. Faster, sometimes longer.
    FirstLastHit,
}

/// Per-query settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueryOptions {
    /// The graph search.
    pub algorithm: SearchAlgorithm,
    /// The start/goal insertion.
    pub insertion: StartInsertion,
}

/// What a found path costs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PathCost {
    /// Weighted cost: length, with swamp multipliers and road factors.
    pub cost: f64,
    /// Euclidean length of the polyline.
    pub length: f64,
    /// Graph nodes expanded (0 for a direct line).
    pub expanded: u32,
    /// Whether the straight line was taken without a search.
    pub direct: bool,
    /// Whether the start or goal had to be moved out of an obstacle.
    pub moved: bool,
}

/// Why no path was returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum NavError {
    /// A coordinate is NaN, infinite or further than
    /// [`MAX_COORDINATE`](crate::nav::MAX_COORDINATE) from 0.
    #[error(
        "{which} is not a finite point within {} m of (0, 0) on each axis",
        crate::nav::MAX_COORDINATE
    )]
    NotFinite {
        /// `start` or `goal`.
        which: &'static str,
    },
    /// The faction number is out of range.
    #[error("faction {faction} does not exist (the navigator has {factions})")]
    UnknownFaction {
        /// The faction asked for.
        faction: u16,
        /// How many there are.
        factions: u16,
    },
    /// No path: start and goal are in pieces of free space that no known
    /// bridge joins (answered without a search), or the search found none.
    #[error("the goal is not reachable from the start")]
    Unreachable,
}

/// Why a bridge change was refused.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum BridgeError {
    /// Another bridge has this id.
    #[error("bridge {0}: the id is already used")]
    Duplicate(u32),
    /// No bridge has this id.
    #[error("bridge {0} does not exist")]
    Unknown(u32),
    /// A point is NaN or infinite.
    #[error("bridge {0}: a point is not finite")]
    NotFinite(u32),
    /// The faction number is out of range.
    #[error("faction {0} does not exist")]
    UnknownFaction(u16),
}

/// A bridge's run-time record.
#[derive(Clone, Debug)]
pub(super) struct Bridge {
    pub(super) spec: BridgeSpec,
    /// Dynamic node ids: end 0, middle, end 1.
    pub(super) nodes: [u32; 3],
    pub(super) pieces: [u32; 2],
    pub(super) in_world: bool,
}

/// The polygon-map planner: graph, bridges and faction knowledge.
#[derive(Clone, Debug)]
pub struct PolygonNavigator {
    pub(super) graph: VisGraph,
    pub(super) options: QueryOptions,
    pub(super) bridges: Vec<Bridge>,
    /// Positions of the dynamic (bridge) nodes, numbered after the graph's.
    pub(super) dynamic_positions: Vec<DVec2>,
    /// Per dynamic node: its bridge's index in `bridges`.
    pub(super) dynamic_bridge: Vec<u32>,
    /// Per node (graph and dynamic): edges to and from bridge nodes.
    pub(super) extra: Vec<Vec<(u32, f64)>>,
    /// `[faction][bridge]`: whether the faction believes the bridge stands.
    pub(super) beliefs: Vec<Vec<bool>>,
    /// `[faction][piece]`: the group of pieces joined by believed bridges.
    pub(super) components: Vec<Vec<u32>>,
    /// Per boundary vertex: its graph node when it is a corner.
    pub(super) vertex_node: Vec<u32>,
    /// The map the graph was built from (without its bridges), kept so
    /// obstacles can be added and removed at run time (`obstacles.rs`);
    /// `None` for a graph built or loaded elsewhere.
    pub(super) source: Option<Arc<PolygonMap>>,
    /// Obstacles added at run time, by ascending id, after the source's.
    pub(super) added: Vec<(ObstacleId, Ring)>,
    /// The id the next added obstacle gets.
    pub(super) next_obstacle: u32,
    /// Graph nodes as first built, before any obstacle was added: part of
    /// the world's identity, which run-time obstacles do not change.
    pub(super) built_nodes: usize,
}

impl PolygonNavigator {
    /// Builds the graph of `map` and adds its bridges, known to all
    /// `factions`.
    ///
    /// # Errors
    /// [`BuildError`].
    pub fn build(map: &PolygonMap, config: GraphConfig, factions: u16) -> Result<Self, BuildError> {
        let graph = VisGraph::build(map, config)?;
        let mut nav = Self::from_graph(graph, factions);
        let everyone: Vec<FactionId> = (0..factions).map(FactionId).collect();
        for bridge in &map.bridges {
            nav.add_bridge(*bridge, &everyone)?;
        }
        nav.source = Some(Arc::new(PolygonMap {
            bridges: Vec::new(),
            ..map.clone()
        }));
        Ok(nav)
    }

    /// A navigator over a built (or loaded) graph, with no bridges yet.
    #[must_use]
    pub fn from_graph(graph: VisGraph, factions: u16) -> Self {
        let mut vertex_node = vec![super::NO_VERTEX; graph.boundary().edge_count()];
        for (node, &v) in graph.corner_vertex.iter().enumerate() {
            if v != super::NO_VERTEX {
                vertex_node[v as usize] = node as u32;
            }
        }
        let pieces = graph.boundary().space().pieces as usize;
        let graph_nodes = graph.node_count();
        let mut nav = Self {
            extra: vec![Vec::new(); graph.node_count()],
            graph,
            options: QueryOptions::default(),
            bridges: Vec::new(),
            dynamic_positions: Vec::new(),
            dynamic_bridge: Vec::new(),
            beliefs: vec![Vec::new(); usize::from(factions)],
            components: vec![(0..pieces as u32).collect(); usize::from(factions)],
            vertex_node,
            source: None,
            added: Vec::new(),
            next_obstacle: 0,
            built_nodes: graph_nodes,
        };
        nav.update_components();
        nav
    }

    /// The graph.
    #[must_use]
    pub fn graph(&self) -> &VisGraph {
        &self.graph
    }

    /// Default query settings, used by [`find_path`](Self::find_path).
    pub fn set_options(&mut self, options: QueryOptions) {
        self.options = options;
    }

    /// The default query settings.
    #[must_use]
    pub fn options(&self) -> QueryOptions {
        self.options
    }

    /// Changes the road cost factor (see [`VisGraph::set_road_cost_factor`]).
    ///
    /// # Errors
    /// [`BuildError::BadRoadFactor`].
    pub fn set_road_cost_factor(&mut self, factor: f64) -> Result<(), BuildError> {
        self.graph.set_road_cost_factor(factor)
    }

    /// Number of factions.
    #[must_use]
    pub fn factions(&self) -> u16 {
        self.beliefs.len() as u16
    }

    /// All nodes: the graph's, then the bridges'.
    #[must_use]
    pub fn total_nodes(&self) -> usize {
        self.graph.node_count() + self.dynamic_positions.len()
    }

    /// Node `i`'s position (graph or bridge node).
    #[inline]
    #[must_use]
    pub(super) fn position(&self, i: u32) -> DVec2 {
        let n = self.graph.node_count();
        let i = i as usize;
        if i < n {
            self.graph.positions[i]
        } else {
            self.dynamic_positions[i - n]
        }
    }

    /// Whether `faction` may use node `i` (bridge nodes only if believed).
    #[inline]
    #[must_use]
    pub(super) fn usable(&self, faction: usize, i: u32) -> bool {
        let n = self.graph.node_count();
        (i as usize) < n || self.beliefs[faction][self.dynamic_bridge[i as usize - n] as usize]
    }

    /// Adds a bridge standing in the world, known to `known_to`. Its ends
    /// are moved out of obstacles if needed and joined to every node they
    /// see.
    ///
    /// # Errors
    /// [`BridgeError`].
    pub fn add_bridge(
        &mut self,
        spec: BridgeSpec,
        known_to: &[FactionId],
    ) -> Result<(), BridgeError> {
        if self.bridges.iter().any(|b| b.spec.id == spec.id) {
            return Err(BridgeError::Duplicate(spec.id));
        }
        if ![spec.ends[0], spec.ends[1], spec.middle]
            .iter()
            .all(|p| p.is_finite())
        {
            return Err(BridgeError::NotFinite(spec.id));
        }
        self.check_factions(known_to)?;
        let boundary = self.graph.boundary();
        let ends = spec.ends.map(|p| boundary.locate(p));
        let [Some(end0), Some(end1)] = ends else {
            return Err(BridgeError::NotFinite(spec.id));
        };
        let slot = self.bridges.len() as u32;
        let first = self.total_nodes() as u32;
        let nodes = [first, first + 1, first + 2];
        for p in [end0.point, spec.middle, end1.point] {
            self.dynamic_positions.push(p);
            self.dynamic_bridge.push(slot);
            self.extra.push(Vec::new());
        }
        self.link(nodes[0], nodes[1], end0.point.distance(spec.middle));
        self.link(nodes[1], nodes[2], spec.middle.distance(end1.point));
        for end in [nodes[0], nodes[2]] {
            self.connect_end(end);
        }
        self.bridges.push(Bridge {
            spec,
            nodes,
            pieces: [end0.piece, end1.piece],
            in_world: true,
        });
        for (f, beliefs) in self.beliefs.iter_mut().enumerate() {
            beliefs.push(known_to.contains(&FactionId(f as u16)));
        }
        self.update_components();
        Ok(())
    }

    fn check_factions(&self, factions: &[FactionId]) -> Result<(), BridgeError> {
        match factions.iter().find(|f| f.0 >= self.factions()) {
            Some(f) => Err(BridgeError::UnknownFaction(f.0)),
            None => Ok(()),
        }
    }

    fn link(&mut self, a: u32, b: u32, cost: f64) {
        self.extra[a as usize].push((b, cost));
        self.extra[b as usize].push((a, cost));
    }

    /// Joins bridge end `end` to every graph node and other bridge end it
    /// sees.
    fn connect_end(&mut self, end: u32) {
        let p = self.position(end);
        let mut stamps = EdgeStamps::default();
        let mut cuts = Vec::new();
        let others: Vec<u32> = (0..self.graph.node_count() as u32)
            .chain(self.bridges.iter().flat_map(|b| [b.nodes[0], b.nodes[2]]))
            .collect();
        for other in others {
            let q = self.position(other);
            if q == p {
                // A road's end at the bridge: joined for free.
                self.link(end, other, 0.0);
                continue;
            }
            let tangent =
                (other as usize) >= self.graph.node_count() || self.graph.may_connect(other, p);
            if tangent && self.graph.boundary().visible(p, q, &mut stamps) {
                let cost = self.graph.swamps().segment_cost(p, q, &mut cuts);
                self.link(end, other, cost);
            }
        }
    }

    fn bridge_slot(&self, id: u32) -> Result<usize, BridgeError> {
        self.bridges
            .iter()
            .position(|b| b.spec.id == id)
            .ok_or(BridgeError::Unknown(id))
    }

    /// Removes bridge `id` from the world (destroyed or taken up); only
    /// `known_to` learn of it at once.
    ///
    /// # Errors
    /// [`BridgeError`].
    pub fn remove_bridge(&mut self, id: u32, known_to: &[FactionId]) -> Result<(), BridgeError> {
        let slot = self.bridge_slot(id)?;
        self.check_factions(known_to)?;
        self.bridges[slot].in_world = false;
        for f in known_to {
            self.beliefs[usize::from(f.0)][slot] = false;
        }
        self.update_components();
        Ok(())
    }

    /// `faction` sees bridge `id` as it is now; returns whether its belief
    /// changed (then its paths over or around the bridge should be
    /// replanned).
    ///
    /// # Errors
    /// [`BridgeError`].
    pub fn observe_bridge(&mut self, faction: FactionId, id: u32) -> Result<bool, BridgeError> {
        let slot = self.bridge_slot(id)?;
        self.check_factions(&[faction])?;
        let truth = self.bridges[slot].in_world;
        let belief = &mut self.beliefs[usize::from(faction.0)][slot];
        let changed = *belief != truth;
        *belief = truth;
        if changed {
            self.update_components();
        }
        Ok(changed)
    }

    /// Whether `faction` believes bridge `id` stands.
    ///
    /// # Errors
    /// [`BridgeError`].
    pub fn believes(&self, faction: FactionId, id: u32) -> Result<bool, BridgeError> {
        let slot = self.bridge_slot(id)?;
        self.check_factions(&[faction])?;
        Ok(self.beliefs[usize::from(faction.0)][slot])
    }

    /// The nodes that identify the world: the graph's as first built (run-
    /// time obstacles, which snapshots carry, do not count) and the
    /// bridges'.
    #[must_use]
    pub fn identity_nodes(&self) -> usize {
        self.built_nodes + self.dynamic_positions.len()
    }

    /// Feeds every bridge's id, whether it stands and each faction's
    /// belief in it to `hasher` (for a snapshot's world identity).
    pub fn hash_bridges(&self, hasher: &mut xxhash_rust::xxh3::Xxh3) {
        for (slot, bridge) in self.bridges.iter().enumerate() {
            hasher.update(&bridge.spec.id.to_le_bytes());
            hasher.update(&[u8::from(bridge.in_world)]);
            for beliefs in &self.beliefs {
                hasher.update(&[u8::from(beliefs[slot])]);
            }
        }
    }

    /// Bridges known to the navigator, standing or removed.
    #[must_use]
    pub fn bridge_count(&self) -> usize {
        self.bridges.len()
    }

    /// The decks (end, middle, end, as drawn) of the bridges that stand in
    /// the world, whatever the factions believe.
    pub fn standing_decks(&self) -> impl Iterator<Item = [DVec2; 3]> + '_ {
        self.bridges
            .iter()
            .filter(|b| b.in_world)
            .map(|b| b.spec.deck())
    }

    /// Whether bridge `id` stands in the world.
    ///
    /// # Errors
    /// [`BridgeError::Unknown`].
    pub fn bridge_in_world(&self, id: u32) -> Result<bool, BridgeError> {
        Ok(self.bridges[self.bridge_slot(id)?].in_world)
    }

    /// Bridge `id`'s ends as planned over (moved out of obstacles if they
    /// were in one).
    ///
    /// # Errors
    /// [`BridgeError::Unknown`].
    pub fn bridge_ends(&self, id: u32) -> Result<[Vec2; 2], BridgeError> {
        let b = &self.bridges[self.bridge_slot(id)?];
        Ok([b.nodes[0], b.nodes[2]].map(|n| self.position(n).as_vec2()))
    }

    /// The id of the bridge of dynamic node `node`.
    pub(super) fn bridge_of(&self, node: u32) -> Option<u32> {
        let n = self.graph.node_count();
        (node as usize >= n).then(|| {
            self.bridges[self.dynamic_bridge[node as usize - n] as usize]
                .spec
                .id
        })
    }

    /// Recomputes every faction's groups of pieces (union-find over the
    /// believed bridges).
    pub(super) fn update_components(&mut self) {
        let pieces = self.graph.boundary().space().pieces as usize;
        for (f, components) in self.components.iter_mut().enumerate() {
            let mut parent: Vec<u32> = (0..pieces as u32).collect();
            let find = |parent: &mut Vec<u32>, mut x: u32| {
                while parent[x as usize] != x {
                    parent[x as usize] = parent[parent[x as usize] as usize];
                    x = parent[x as usize];
                }
                x
            };
            for (slot, bridge) in self.bridges.iter().enumerate() {
                if self.beliefs[f][slot] {
                    let (a, b) = (
                        find(&mut parent, bridge.pieces[0]),
                        find(&mut parent, bridge.pieces[1]),
                    );
                    parent[a.max(b) as usize] = a.min(b);
                }
            }
            *components = (0..pieces as u32).map(|p| find(&mut parent, p)).collect();
        }
    }
}

/// Which platoon is on each bridge: one at a time, as in the paper ("the
/// bridge is marked with that platoon ID and other platoons must wait
/// before crossing"). Owned by the `formations` stage; allocation-free once
/// it has seen as many simultaneous crossings as it will.
#[derive(Clone, Debug, Default)]
pub struct BridgeTraffic {
    /// (bridge id, platoon id) of every occupied bridge.
    occupied: Vec<(u32, u32)>,
}

impl BridgeTraffic {
    /// Lets `platoon` onto `bridge` if it is free (or already its own);
    /// otherwise returns the platoon on it, and the caller waits at the
    /// bridge's end.
    ///
    /// # Errors
    /// The occupying platoon's id.
    pub fn try_enter(&mut self, bridge: u32, platoon: u32) -> Result<(), u32> {
        match self.occupant(bridge) {
            Some(p) if p != platoon => Err(p),
            Some(_) => Ok(()),
            None => {
                self.occupied.push((bridge, platoon));
                Ok(())
            }
        }
    }

    /// `platoon` has left `bridge`; returns whether it was on it.
    pub fn leave(&mut self, bridge: u32, platoon: u32) -> bool {
        match self.occupied.iter().position(|&o| o == (bridge, platoon)) {
            Some(at) => {
                self.occupied.swap_remove(at);
                true
            }
            None => false,
        }
    }

    /// Room for a holder on each of `bridges` bridges, so admitting
    /// platoons never allocates.
    pub fn reserve(&mut self, bridges: usize) {
        self.occupied
            .reserve(bridges.saturating_sub(self.occupied.len()));
    }

    /// Every bridge free again (the stage rebuilds the holders each tick).
    pub fn clear(&mut self) {
        self.occupied.clear();
    }

    /// The platoon on `bridge`, if any.
    #[must_use]
    pub fn occupant(&self, bridge: u32) -> Option<u32> {
        self.occupied.iter().find(|o| o.0 == bridge).map(|o| o.1)
    }
}
