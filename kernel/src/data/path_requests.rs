//! The path-request queue the `paths` stage serves (see
//! [`crate::stages::paths`]): first in, first out; whatever the stage's budget
//! leaves waits for the next tick. Its storage is reserved when units are
//! spawned, so the tick never grows it.

use glam::Vec2;
use std::collections::VecDeque;

use crate::data::platoons::PlatoonId;
use crate::data::vehicles::UnitId;

/// A unit or a platoon asking for a route to `goal`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PathRequest {
    /// Who moves: a unit's handle, or a platoon's when `for_platoon` is 1.
    pub unit: UnitId,
    /// Where to.
    pub goal: Vec2,
    /// 1 when the route is a platoon's (Force 21: the platoon, not its
    /// vehicles, follows the path).
    pub for_platoon: u32,
}

/// Who a [`PathRequest`] plans for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requester {
    /// One unit.
    Unit(UnitId),
    /// A platoon.
    Platoon(PlatoonId),
}

impl Default for PathRequest {
    /// All zeros: unit 0's request for the origin.
    fn default() -> Self {
        bytemuck::Zeroable::zeroed()
    }
}

impl PathRequest {
    /// A unit's request.
    #[must_use]
    pub fn for_unit(unit: UnitId, goal: Vec2) -> PathRequest {
        PathRequest {
            unit,
            goal,
            for_platoon: 0,
        }
    }

    /// A platoon's request.
    #[must_use]
    pub fn for_platoon(platoon: PlatoonId, goal: Vec2) -> PathRequest {
        PathRequest {
            unit: UnitId {
                index: platoon.index,
                generation: platoon.generation,
            },
            goal,
            for_platoon: 1,
        }
    }

    /// Who it plans for.
    #[must_use]
    pub fn requester(&self) -> Requester {
        if self.for_platoon == 1 {
            Requester::Platoon(PlatoonId {
                index: self.unit.index,
                generation: self.unit.generation,
            })
        } else {
            Requester::Unit(self.unit)
        }
    }
}

/// First-in, first-out path requests; working memory, reuse it every tick.
#[derive(Clone, Debug, Default)]
pub struct PathQueue {
    pending: VecDeque<PathRequest>,
}

impl PathQueue {
    /// Makes room for `requests` waiting requests without reallocating.
    pub fn reserve(&mut self, requests: usize) {
        self.pending
            .reserve(requests.saturating_sub(self.pending.len()));
    }

    /// Queues a request (outside the tick: this may grow the queue).
    pub fn push(&mut self, request: PathRequest) {
        self.pending.push_back(request);
    }

    /// Queues a request ahead of every other (outside the tick).
    pub fn push_front(&mut self, request: PathRequest) {
        self.pending.push_front(request);
    }

    /// The waiting requests, oldest first.
    pub fn pending(&self) -> impl Iterator<Item = &PathRequest> {
        self.pending.iter()
    }

    /// A queue holding `requests`, oldest first.
    #[must_use]
    pub fn from_requests(requests: Vec<PathRequest>) -> PathQueue {
        PathQueue {
            pending: requests.into(),
        }
    }

    /// Requests waiting.
    #[must_use]
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Nothing is waiting.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Keeps only the requests `keep` accepts, in order.
    pub fn retain(&mut self, keep: impl FnMut(&PathRequest) -> bool) {
        self.pending.retain(keep);
    }

    /// Takes the oldest request.
    pub fn pop(&mut self) -> Option<PathRequest> {
        self.pending.pop_front()
    }
}
