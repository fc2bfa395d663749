//! Deterministic data-parallel passes over columns.
//!
//! Every per-unit pass in the tick goes through [`for_each_chunk`]: the output
//! column is cut into fixed-size chunks (the cut never depends on the thread
//! count), each chunk is written by exactly one task that knows the index of
//! its first row, and inputs are read-only. So results are bit-identical with
//! any number of threads. Below [`PARALLEL_MIN_ROWS`] rows the pass runs
//! inline: a rayon fork-join costs microseconds.

use rayon::prelude::*;

/// Rows per task.
pub const CHUNK_ROWS: usize = 2048;
/// Passes over fewer rows run on the calling thread.
pub const PARALLEL_MIN_ROWS: usize = 8192;

/// Calls `work(first_row, chunk)` for consecutive chunks of `output`,
/// in parallel when the pass is large enough to pay for it.
pub fn for_each_chunk<T: Send>(output: &mut [T], work: impl Fn(usize, &mut [T]) + Sync) {
    if output.len() < PARALLEL_MIN_ROWS {
        output
            .chunks_mut(CHUNK_ROWS)
            .enumerate()
            .for_each(|(chunk, rows)| work(chunk * CHUNK_ROWS, rows));
    } else {
        output
            .par_chunks_mut(CHUNK_ROWS)
            .enumerate()
            .for_each(|(chunk, rows)| work(chunk * CHUNK_ROWS, rows));
    }
}

/// Folds each chunk of `input` from `identity` with `fold` and combines the
/// chunks' results with `combine`, in parallel when the pass is large
/// enough. How chunks are grouped depends on the threads, so `combine` must
/// be exactly associative and commutative (integer sums, `max`, `min`) for
/// the result not to.
pub fn fold_chunks<T: Sync, R: Copy + Send + Sync>(
    input: &[T],
    identity: R,
    fold: impl Fn(R, &T) -> R + Sync,
    combine: impl Fn(R, R) -> R + Sync,
) -> R {
    let fold_chunk = |chunk: &[T]| chunk.iter().fold(identity, &fold);
    if input.len() < PARALLEL_MIN_ROWS {
        input
            .chunks(CHUNK_ROWS)
            .map(fold_chunk)
            .fold(identity, &combine)
    } else {
        input
            .par_chunks(CHUNK_ROWS)
            .map(fold_chunk)
            .reduce(|| identity, &combine)
    }
}

/// Like [`for_each_chunk`] over two columns cut alike: `work(first_row,
/// a_rows, b_rows)`.
pub fn for_each_chunk2<A: Send, B: Send>(
    a: &mut [A],
    b: &mut [B],
    work: impl Fn(usize, &mut [A], &mut [B]) + Sync,
) {
    assert!(a.len() == b.len(), "columns differ in length");
    let run = |(chunk, (a, b)): (usize, (&mut [A], &mut [B]))| work(chunk * CHUNK_ROWS, a, b);
    if a.len() < PARALLEL_MIN_ROWS {
        a.chunks_mut(CHUNK_ROWS)
            .zip(b.chunks_mut(CHUNK_ROWS))
            .enumerate()
            .for_each(run);
    } else {
        a.par_chunks_mut(CHUNK_ROWS)
            .zip(b.par_chunks_mut(CHUNK_ROWS))
            .enumerate()
            .for_each(run);
    }
}

/// The numbered chunk of three columns, as zipped iterators yield it.
type ChunkOf3<'a, A, B, C> = (usize, ((&'a mut [A], &'a mut [B]), &'a mut [C]));

/// Like [`for_each_chunk`] over three columns cut alike: `work(first_row,
/// a_rows, b_rows, c_rows)`.
pub fn for_each_chunk3<A: Send, B: Send, C: Send>(
    a: &mut [A],
    b: &mut [B],
    c: &mut [C],
    work: impl Fn(usize, &mut [A], &mut [B], &mut [C]) + Sync,
) {
    for_each_chunk3_of(CHUNK_ROWS, a, b, c, work);
}

/// [`for_each_chunk3`] with chunks of `chunk_rows` rows (a constant of the
/// pass, never the thread count): a pass whose rows cost much each ends
/// sooner with smaller chunks, the last of which one thread runs alone.
pub fn for_each_chunk3_of<A: Send, B: Send, C: Send>(
    chunk_rows: usize,
    a: &mut [A],
    b: &mut [B],
    c: &mut [C],
    work: impl Fn(usize, &mut [A], &mut [B], &mut [C]) + Sync,
) {
    assert!(
        a.len() == b.len() && b.len() == c.len(),
        "columns differ in length"
    );
    let run = |(chunk, ((a, b), c)): ChunkOf3<'_, A, B, C>| work(chunk * chunk_rows, a, b, c);
    if a.len() < PARALLEL_MIN_ROWS {
        a.chunks_mut(chunk_rows)
            .zip(b.chunks_mut(chunk_rows))
            .zip(c.chunks_mut(chunk_rows))
            .enumerate()
            .for_each(run);
    } else {
        a.par_chunks_mut(chunk_rows)
            .zip(b.par_chunks_mut(chunk_rows))
            .zip(c.par_chunks_mut(chunk_rows))
            .enumerate()
            .for_each(run);
    }
}

/// Counts the rows in `0..rows` for which `test(row)` holds. Integer sums are
/// exact, so the count is the same with any number of threads. (Float
/// reductions need fixed chunks combined in order: rayon's float `sum` is not
/// deterministic.)
pub fn count_rows(rows: usize, test: impl Fn(usize) -> bool + Sync) -> usize {
    if rows < PARALLEL_MIN_ROWS {
        (0..rows).filter(|&row| test(row)).count()
    } else {
        (0..rows)
            .into_par_iter()
            .with_min_len(CHUNK_ROWS)
            .filter(|&row| test(row))
            .count()
    }
}

/// One working context per worker of the current rayon pool, plus one for
/// a caller outside it, for batches of independent queries (the grid and
/// visibility-graph batch planners): each worker only ever locks its own
/// slot, so the locks are never contended, and the answers do not depend on
/// which worker ran which query as long as a context carries nothing from
/// one query to the next.
#[derive(Debug, Default)]
pub struct WorkerContexts<C> {
    slots: Vec<std::sync::Mutex<C>>,
}

/// When a batch of queries is worth splitting across the pool.
#[derive(Clone, Copy, Debug)]
pub struct QuerySplit {
    /// Batches of fewer queries run on the calling thread.
    pub inline_below: usize,
    /// Fewest queries per rayon task.
    pub per_task: usize,
}

impl<C: Send> WorkerContexts<C> {
    /// Makes contexts with `make` until there is one per worker of a pool
    /// of `threads`, plus one.
    pub fn ensure(&mut self, threads: usize, mut make: impl FnMut() -> C) {
        if self.slots.len() < threads + 1 {
            self.slots
                .resize_with(threads + 1, || std::sync::Mutex::new(make()));
        }
    }

    /// Every context, to size them outside the batch.
    pub fn each_mut(&mut self) -> impl Iterator<Item = &mut C> {
        self.slots.iter_mut().map(|slot| {
            slot.get_mut()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        })
    }

    /// Calls `work(context, query, answer)` for every pair, in parallel on
    /// the current pool when `split` says the batch is large enough (making
    /// contexts with `make` first if the pool has grown).
    pub fn answer<Q: Sync, A: Send>(
        &mut self,
        (queries, answers): (&[Q], &mut [A]),
        split: QuerySplit,
        make: impl FnMut() -> C,
        work: impl Fn(&mut C, &Q, &mut A) + Sync,
    ) {
        self.ensure(rayon::current_num_threads(), make);
        let slots = &self.slots;
        let outside = slots.len() - 1;
        let run = |(query, answer): (&Q, &mut A)| {
            let slot = rayon::current_thread_index().map_or(outside, |i| i.min(outside));
            // A poisoned lock only means an earlier query panicked; each
            // query starts its context afresh.
            let mut context = slots[slot]
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            work(&mut context, query, answer);
        };
        if queries.len() < split.inline_below {
            queries.iter().zip(answers.iter_mut()).for_each(run);
        } else {
            queries
                .par_iter()
                .zip(answers.par_iter_mut())
                .with_min_len(split.per_task)
                .for_each(run);
        }
    }
}
