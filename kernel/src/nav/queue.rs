//! The time-sliced path-request queue served by the `paths` stage.
//!
//! Requests are answered first in, first out, while the stage's time budget
//! and its per-tick request cap last; whatever is left waits for the next
//! tick. This is the "spread path solving over several frames" of Smith,
//! *Polygon Soup for the Programmer's Soul* (GDC 2002). The queue's storage is
//! reserved when units are spawned, so serving it never allocates.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use glam::Vec2;

use crate::vehicles::{UnitId, Vehicles};

/// A unit asking for a route to `goal`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PathRequest {
    /// Who moves.
    pub unit: UnitId,
    /// Where to.
    pub goal: Vec2,
}

/// What one tick of serving did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServeStats {
    /// Requests answered.
    pub served: usize,
    /// Requests dropped because their unit was despawned meanwhile.
    pub dropped: usize,
    /// Requests still waiting afterwards.
    pub waiting: usize,
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

    /// Answers requests in order until `budget` is spent or `max_requests`
    /// are served, writing each route's end into the unit's `goal` (on the
    /// open field the straight line is the route).
    pub fn serve(
        &mut self,
        vehicles: &mut Vehicles,
        budget: Duration,
        max_requests: usize,
    ) -> ServeStats {
        let started = Instant::now();
        let mut stats = ServeStats::default();
        while stats.served < max_requests && started.elapsed() < budget {
            let Some(request) = self.pending.pop_front() else {
                break;
            };
            match vehicles.set_goal(request.unit, request.goal) {
                Ok(()) => stats.served += 1,
                Err(_) => stats.dropped += 1,
            }
        }
        stats.waiting = self.pending.len();
        stats
    }
}
