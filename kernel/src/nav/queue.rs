//! The path-request queue the `paths` stage serves (see
//! [`super::service`]): first in, first out; whatever the stage's budget
//! leaves waits for the next tick. Its storage is reserved when units are
//! spawned, so the tick never grows it.

use glam::Vec2;
use std::collections::VecDeque;

use crate::vehicles::UnitId;

/// A unit asking for a route to `goal`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PathRequest {
    /// Who moves.
    pub unit: UnitId,
    /// Where to.
    pub goal: Vec2,
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

    /// Takes the oldest request.
    pub fn pop(&mut self) -> Option<PathRequest> {
        self.pending.pop_front()
    }
}
