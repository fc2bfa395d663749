//! Scans: the candidates of a unit's search window, filtered by bounding
//! spheres in lanes and queued in batches for the exact test.

use super::*;

/// Candidate pairs (places) that passed the cheap rejections, waiting for
/// the exact test, which runs on [`LANES`] pairs at once.
#[derive(Clone, Copy, Default)]
pub(super) struct Batch {
    pub(super) len: usize,
    pub(super) first: [usize; LANES],
    pub(super) second: [usize; LANES],
    /// Centre offsets, second minus first.
    pub(super) offset: [Vec3; LANES],
}

impl Batch {
    /// Queues a pair; true when the batch is full and must be settled.
    #[inline]
    pub(super) fn queue(&mut self, first: usize, second: usize, offset: Vec3) -> bool {
        self.offer(first, second, offset, true)
    }

    /// Writes a pair in the next slot and queues it only if it `passes`
    /// (no branch); true when the batch is full and must be settled.
    #[inline]
    pub(super) fn offer(&mut self, first: usize, second: usize, offset: Vec3, passes: bool) -> bool {
        let slot = self.len % LANES;
        self.first[slot] = first;
        self.second[slot] = second;
        self.offset[slot] = offset;
        self.len += usize::from(passes);
        self.len == LANES
    }

    /// The queued slot SIMD lane `k` reads: its own below `len`; past it,
    /// whose slots hold earlier batches' pairs or none, the first pair.
    #[inline]
    pub(super) fn lane(&self, k: usize) -> usize {
        if k < self.len { k } else { 0 }
    }

    /// The exact contact functions of the queued pairs (lanes past `len`
    /// repeat the first pair, [`Batch::lane`]), each stopping once it
    /// reaches its `level`.
    pub(super) fn contacts(&self, bodies: &[Body], level: [f32; LANES]) -> Contacts8 {
        let level = std::array::from_fn(|k| level[self.lane(k)]);
        let first = std::array::from_fn(|k| &bodies[self.first[self.lane(k)]].shape);
        let second = std::array::from_fn(|k| &bodies[self.second[self.lane(k)]].shape);
        let offset = std::array::from_fn(|k| self.offset[self.lane(k)]);
        contact_functions_until(
            &Shapes8::from_lanes(first),
            &Shapes8::from_lanes(second),
            &Offsets8::from_lanes(offset),
            f32x8::new(level),
        )
    }
}

/// What a window search examined: its candidates, the runs of a
/// window's row (never empty) that held them, and whether a run was cut to
/// its nearest places; and the window, which sets how many a run keeps.
#[derive(Clone, Copy, Debug)]
pub(super) struct Examined {
    pub(super) candidates: u32,
    pub(super) runs: u32,
    pub(super) cut: bool,
    /// The window's half-side and the hash's cell edge.
    window: (f32, f32),
}

impl Examined {
    /// Nothing examined yet, in a window of half-side `search` of `hash`.
    #[inline]
    pub(super) fn new(search: f32, hash: &SpatialHash) -> Examined {
        Examined {
            candidates: 0,
            runs: 0,
            cut: false,
            window: (search, hash.cell_size()),
        }
    }

    /// Places a run of the window keeps at most: [`run_candidates`] of the
    /// columns it spans.
    #[cold]
    fn cap(&self) -> usize {
        let (search, cell_size) = self.window;
        run_candidates(window_columns(search, cell_size), cell_size)
    }

    /// The places of `run` the unit at place `unit` examines
    /// ([`nearest_places`]), counted. A run no longer than the least cap is
    /// kept whole without finding the window's.
    #[inline]
    pub(super) fn add(&mut self, run: Range<usize>, unit: usize) -> Range<usize> {
        let kept = if run.len() <= MIN_RUN_CANDIDATES {
            run.clone()
        } else {
            nearest_places(run.clone(), unit, self.cap())
        };
        self.cut |= kept.len() < run.len();
        self.candidates += kept.len() as u32;
        self.runs += u32::from(!kept.is_empty());
        kept
    }

    /// The runs of `runs` the unit at place `unit` examines, counted with
    /// the runs that hold any.
    #[inline]
    pub(super) fn add_runs(&mut self, runs: WindowRuns, unit: usize) -> WindowRuns {
        let kept = if runs.longest() <= MIN_RUN_CANDIDATES {
            runs
        } else {
            runs.nearest(unit, self.cap())
        };
        self.cut |= kept.len() < runs.len();
        self.candidates += kept.len() as u32;
        self.runs += kept.non_empty() as u32;
        kept
    }

    /// Adds these to a sweep's totals.
    pub(super) fn count_in(self, totals: &mut Sweep) {
        totals.tested += u64::from(self.candidates);
        totals.runs += u64::from(self.runs);
        totals.most = totals.most.max(self.candidates);
        totals.cut += u64::from(self.cut);
    }
}

/// Calls `visit` with the place of every small unit, except places in
/// `skip`, whose bounding sphere and vertical extent meet those of the unit
/// at place `unit` ([`may_overlap`]), in place order, from the hash's
/// cells under the square of half-side `search` (at least
/// [`Context::search`] unless a narrower window provably suffices) about the
/// unit's hashed position: one at a time, or four at a time in SIMD lanes
/// ([`Scan::Lanes`]; the same places). Returns what it examined: the units
/// those cells hold outside `skip`.
#[inline]
pub(super) fn for_each_candidate(
    context: &Context<'_>,
    unit: usize,
    search: f32,
    skip: &Skip,
    mut visit: impl FnMut(usize),
) -> Examined {
    let point = context.hash.sorted_positions()[unit];
    let own = &context.bodies[unit];
    let hash = context.hash;
    let mut examined = Examined::new(search, hash);
    if context.scan == Scan::Lanes {
        hash.for_each_row_range_outside(point, search, skip, |run| {
            let run = examined.add(run, unit);
            let mut first = run.start;
            while first < run.end {
                let mut meeting =
                    meeting_lanes(own, context.bodies, first, run.end, context.big_radius);
                while meeting != 0 {
                    let lane = meeting.trailing_zeros() as usize;
                    meeting &= meeting - 1;
                    visit(first + lane);
                }
                first += SPHERE_LANES;
            }
        });
    } else {
        hash.for_each_row_range_outside(point, search, skip, |run| {
            let run = examined.add(run, unit);
            for (place, them) in run.clone().zip(&context.bodies[run]) {
                if them.radius <= context.big_radius
                    && may_overlap(own, them, them.centre - own.centre)
                {
                    visit(place);
                }
            }
        });
    }
    examined
}

/// Bodies whose bounding spheres [`meeting_lanes`] tests at once.
pub(super) const SPHERE_LANES: usize = 4;

/// The cheap rejections of [`for_each_candidate`] ([`may_overlap`], and
/// not big) of the pairs of `own` with the bodies at places
/// `first..end.min(first + 4)`, in SIMD lanes, with the same arithmetic:
/// bit `k` of the mask is set when the body at `first + k` passes.
#[inline]
pub(super) fn meeting_lanes(own: &Body, bodies: &[Body], first: usize, end: usize, big_radius: f32) -> u32 {
    let four: [&Body; SPHERE_LANES] = match bodies.get(first..first + SPHERE_LANES) {
        Some(four) => std::array::from_fn(|k| &four[k]),
        // Lanes past the last place repeat it (their bits are cleared).
        None => std::array::from_fn(|k| &bodies[(first + k).min(bodies.len() - 1)]),
    };
    let sphere = |body: &Body| Vec4::new(body.centre.x, body.centre.y, body.centre.z, body.radius);
    let spheres = Mat4::from_cols(
        sphere(four[0]),
        sphere(four[1]),
        sphere(four[2]),
        sphere(four[3]),
    )
    .transpose();
    let dx = spheres.x_axis - Vec4::splat(own.centre.x);
    let dy = spheres.y_axis - Vec4::splat(own.centre.y);
    let dz = spheres.z_axis - Vec4::splat(own.centre.z);
    let radius = spheres.w_axis;
    // `may_overlap`'s sums in its order (`own`'s term first or second is
    // the same: sums commute), so the same pairs pass.
    let reach = radius + Vec4::splat(own.radius);
    let near = (dx * dx + dy * dy + dz * dz).cmplt(reach * reach);
    let half_height = Vec4::from_array(four.map(|body| body.half_height));
    let level = dz.abs().cmplt(half_height + Vec4::splat(own.half_height));
    let small = radius.cmple(Vec4::splat(big_radius));
    let present = (1_u32 << (end - first).min(SPHERE_LANES)) - 1;
    (near & level & small).bitmask() & present
}

/// Queues the pairs of the unit at place `unit` with the small units in its
/// window, outside `skip`, that `takes(other, them)` accepts, settling
/// full batches ([`settle_pushes`]), and counts them in the chunk's totals.
/// The candidates are queued without a branch on the cheap rejections if
/// `without_branch` ([`queue_candidates_without_branch`]), else as
/// [`for_each_candidate`] visits them.
pub(super) fn queue_pushes(
    unit: usize,
    skip: &Skip,
    takes: impl Fn(usize, &Body) -> bool,
    without_branch: bool,
    batch: &mut Batch,
    chunk: &mut ChunkSweep<'_>,
    context: &Context<'_>,
) {
    let own = &context.bodies[unit];
    let search = context.search(own);
    let (examined, exact) = if without_branch {
        queue_candidates_without_branch(unit, search, skip, takes, batch, chunk, context)
    } else {
        let mut exact = 0;
        let examined = for_each_candidate(context, unit, search, skip, |other| {
            let them = &context.bodies[other];
            if takes(other, them) {
                exact += 1;
                if batch.queue(unit, other, them.centre - own.centre) {
                    settle_pushes(batch, chunk, context);
                }
            }
        });
        (examined, exact)
    };
    examined.count_in(&mut chunk.totals);
    chunk.totals.exact += u64::from(exact);
}

/// [`queue_pushes`]' candidates (those [`for_each_candidate`] visits that
/// `takes` accepts) queued without a branch on whether each passes: every
/// candidate is written to the batch's next slot, which it keeps only if
/// it passes. The same pairs in the same order; returns the candidates
/// examined and those queued. Where a third of the candidates pass (the
/// separation benchmark's crowds) the branch mispredicts often and this is
/// faster; where a tenth do (the default profile's crowd) the branch
/// predicts well and writing every slot costs more, so pushing sweeps
/// choose by the last one's share ([`QUEUE_WITHOUT_BRANCH_PASS_SHARE`]).
/// Most windows' places come in one loop over at most three rows' runs
/// ([`SpatialHash::window_runs_outside`]), with no branch on where each
/// row ends or whether it holds any, which mispredict as often as the
/// candidates do.
pub(super) fn queue_candidates_without_branch(
    unit: usize,
    search: f32,
    skip: &Skip,
    takes: impl Fn(usize, &Body) -> bool,
    batch: &mut Batch,
    chunk: &mut ChunkSweep<'_>,
    context: &Context<'_>,
) -> (Examined, u32) {
    let point = context.hash.sorted_positions()[unit];
    let own = &context.bodies[unit];
    let (mut examined, mut queued) = (Examined::new(search, context.hash), 0);
    let mut offer = |place: usize| {
        let them = &context.bodies[place];
        let offset = them.centre - own.centre;
        let passes = (them.radius <= context.big_radius)
            & may_overlap(own, them, offset)
            & takes(place, them);
        queued += u32::from(passes);
        if batch.offer(unit, place, offset, passes) {
            settle_pushes(batch, chunk, context);
        }
    };
    let hash = context.hash;
    match hash.window_runs_outside(point, search, skip) {
        // One loop over the window's places: no branch on each row's end
        // and each run's emptiness, which mispredict.
        Some(runs) => {
            let runs = examined.add_runs(runs, unit);
            (0..runs.len()).for_each(|k| offer(runs.place(k)));
        }
        None => hash.for_each_row_range_outside(point, search, skip, |run| {
            examined.add(run, unit).for_each(&mut offer);
        }),
    }
    (examined, queued)
}
