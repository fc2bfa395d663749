//! Deterministic data-parallel passes over columns.
//!
//! Every per-unit pass in the tick goes through [`for_each_chunk`]: the output
//! column is cut into fixed-size chunks (the cut never depends on the thread
//! count), each chunk is written by exactly one task that knows the index of
//! its first row, and inputs are read-only. So results are bit-identical with
//! any number of threads. Below [`PARALLEL_MIN_ROWS`] rows the pass runs
//! inline: a rayon fork-join costs microseconds. Inside [`sequentially`]
//! every pass runs inline, on the calling thread, with no rayon pool at all.

use std::cell::Cell;

use rayon::prelude::*;

thread_local! {
    /// Whether this thread runs a [`sequentially`] closure.
    static SEQUENTIAL: Cell<bool> = const { Cell::new(false) };
}

/// Runs `work` with every pass on the calling thread: passes run inline and
/// [`threads`] is 1, so rayon's global pool is never started.
pub fn sequentially<R>(work: impl FnOnce() -> R) -> R {
    /// Restores the flag however `work` ends.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            SEQUENTIAL.set(self.0);
        }
    }
    let _restore = Restore(SEQUENTIAL.replace(true));
    work()
}

/// Whether this thread runs inside [`sequentially`].
#[inline]
pub fn sequential() -> bool {
    SEQUENTIAL.get()
}

/// Whether a pass over `len` items runs inline: fewer than `parallel_from`,
/// or inside [`sequentially`].
#[inline]
pub fn inline(len: usize, parallel_from: usize) -> bool {
    len < parallel_from || sequential()
}

/// Threads of the current pool; 1 inside [`sequentially`].
pub fn threads() -> usize {
    if sequential() {
        1
    } else {
        rayon::current_num_threads()
    }
}

/// Rows per task of the steering and integrate passes: at about 100 ns a
/// unit on one core, the last chunk of a pass, which one thread runs while
/// the others wait, takes 0.1 ms (half the shared chunk's time).
pub(crate) const STEER_CHUNK_ROWS: usize = 1024;

/// Rows per task.
pub const CHUNK_ROWS: usize = 2048;
/// Passes over fewer rows run on the calling thread.
pub const PARALLEL_MIN_ROWS: usize = 8192;

/// Calls `work(first_row, chunk)` for consecutive chunks of `output`,
/// in parallel when the pass is large enough to pay for it.
pub fn for_each_chunk<T: Send>(output: &mut [T], work: impl Fn(usize, &mut [T]) + Sync) {
    for_each_chunk_of(output, CHUNK_ROWS, work);
}

/// [`for_each_chunk`] with chunks of `chunk_rows` rows, for a pass whose
/// work depends on where the chunks are cut (`chunk_rows` must not depend
/// on the thread count either).
pub fn for_each_chunk_of<T: Send>(
    output: &mut [T],
    chunk_rows: usize,
    work: impl Fn(usize, &mut [T]) + Sync,
) {
    if inline(output.len(), PARALLEL_MIN_ROWS) {
        output
            .chunks_mut(chunk_rows)
            .enumerate()
            .for_each(|(chunk, rows)| work(chunk * chunk_rows, rows));
    } else {
        output
            .par_chunks_mut(chunk_rows)
            .enumerate()
            .for_each(|(chunk, rows)| work(chunk * chunk_rows, rows));
    }
}

/// [`for_each_chunk`] where each chunk's `work` also returns a value, all of
/// which are combined from `identity` with `combine`. How chunks are
/// grouped depends on the threads, so `combine` must be exactly associative
/// and commutative (integer sums, `max`, `min`) for the result not to.
pub fn for_each_chunk_fold<T: Send, R: Copy + Send + Sync>(
    output: &mut [T],
    identity: R,
    work: impl Fn(usize, &mut [T]) -> R + Sync,
    combine: impl Fn(R, R) -> R + Sync,
) -> R {
    for_each_chunk_fold_of(output, CHUNK_ROWS, identity, work, combine)
}

/// [`for_each_chunk_fold`] with chunks of `chunk_rows` rows (a constant of
/// the pass, never the thread count).
pub fn for_each_chunk_fold_of<T: Send, R: Copy + Send + Sync>(
    output: &mut [T],
    chunk_rows: usize,
    identity: R,
    work: impl Fn(usize, &mut [T]) -> R + Sync,
    combine: impl Fn(R, R) -> R + Sync,
) -> R {
    let run = |(chunk, rows): (usize, &mut [T])| work(chunk * chunk_rows, rows);
    if inline(output.len(), PARALLEL_MIN_ROWS) {
        output
            .chunks_mut(chunk_rows)
            .enumerate()
            .map(run)
            .fold(identity, &combine)
    } else {
        output
            .par_chunks_mut(chunk_rows)
            .enumerate()
            .map(run)
            .reduce(|| identity, &combine)
    }
}

/// Like [`for_each_chunk`] over two columns cut alike: `work(first_row,
/// a_rows, b_rows)`.
#[cfg(any(test, feature = "internals"))]
pub fn for_each_chunk2<A: Send, B: Send>(
    a: &mut [A],
    b: &mut [B],
    work: impl Fn(usize, &mut [A], &mut [B]) + Sync,
) {
    assert!(a.len() == b.len(), "columns differ in length");
    let run = |(chunk, (a, b)): (usize, (&mut [A], &mut [B]))| work(chunk * CHUNK_ROWS, a, b);
    if inline(a.len(), PARALLEL_MIN_ROWS) {
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
    if inline(a.len(), PARALLEL_MIN_ROWS) {
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

/// The numbered chunk of four columns, as zipped iterators yield it.
type ChunkOf4<'a, A, B, C, D> = (
    usize,
    (((&'a mut [A], &'a mut [B]), &'a mut [C]), &'a mut [D]),
);

/// [`for_each_chunk3_of`] over four columns cut alike. A near-copy of it on
/// purpose: three-column passes through this one with a column of `()` are
/// slower (guarded by the `steering` bench's `integrate`).
pub fn for_each_chunk4_of<A: Send, B: Send, C: Send, D: Send>(
    chunk_rows: usize,
    a: &mut [A],
    b: &mut [B],
    c: &mut [C],
    d: &mut [D],
    work: impl Fn(usize, &mut [A], &mut [B], &mut [C], &mut [D]) + Sync,
) {
    assert!(
        a.len() == b.len() && b.len() == c.len() && c.len() == d.len(),
        "columns differ in length"
    );
    let run = |(chunk, (((a, b), c), d)): ChunkOf4<'_, A, B, C, D>| {
        work(chunk * chunk_rows, a, b, c, d);
    };
    if inline(a.len(), PARALLEL_MIN_ROWS) {
        a.chunks_mut(chunk_rows)
            .zip(b.chunks_mut(chunk_rows))
            .zip(c.chunks_mut(chunk_rows))
            .zip(d.chunks_mut(chunk_rows))
            .enumerate()
            .for_each(run);
    } else {
        a.par_chunks_mut(chunk_rows)
            .zip(b.par_chunks_mut(chunk_rows))
            .zip(c.par_chunks_mut(chunk_rows))
            .zip(d.par_chunks_mut(chunk_rows))
            .enumerate()
            .for_each(run);
    }
}

/// Counts the rows in `0..rows` for which `test(row)` holds. Integer sums are
/// exact, so the count is the same with any number of threads. (Float
/// reductions need fixed chunks combined in order: rayon's float `sum` is not
/// deterministic.)
pub fn count_rows(rows: usize, test: impl Fn(usize) -> bool + Sync) -> usize {
    if inline(rows, PARALLEL_MIN_ROWS) {
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
        self.ensure(threads(), make);
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
        if inline(queries.len(), split.inline_below) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn on_threads<R: Send>(threads: usize, work: impl FnOnce() -> R + Send) -> R {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a small pool starts")
            .install(work)
    }

    /// Every row is written once, by the chunk that starts at the first row
    /// the pass reported for it, in chunks of the size asked for — below and
    /// above the parallel threshold.
    #[test]
    fn chunks_of_any_size_cover_every_row_once_from_their_first_row() {
        for (rows, chunk_rows) in [(5_000, 2_048), (20_000, 3_000), (30_001, 8_192)] {
            let mut firsts = vec![usize::MAX; rows];
            on_threads(2, || {
                for_each_chunk_of(&mut firsts, chunk_rows, |first, chunk| {
                    assert!(chunk.len() == chunk_rows || first + chunk.len() == rows);
                    chunk.fill(first);
                });
            });
            for (row, &first) in firsts.iter().enumerate() {
                assert_eq!(first, row - row % chunk_rows, "row {row} of {rows}");
            }
        }
    }

    /// The chunks' results combine to what one sequential fold gives, with
    /// one thread and with two, and the rows are written as well.
    #[test]
    fn folds_of_written_chunks_do_not_depend_on_the_threads() {
        let rows = 50_000;
        let value_of = |row: usize| (row as u64 * 2_654_435_761) % 1_000;
        let run = |threads: usize| {
            let mut column = vec![0_u64; rows];
            let total = on_threads(threads, || {
                let work = |first: usize, chunk: &mut [u64]| {
                    for (offset, value) in chunk.iter_mut().enumerate() {
                        *value = value_of(first + offset);
                    }
                    chunk.iter().sum::<u64>()
                };
                for_each_chunk_fold(&mut column, 0, work, |a, b| a + b)
            });
            (total, column)
        };
        let (one, one_column) = run(1);
        let (two, two_column) = run(2);
        let expected: Vec<u64> = (0..rows).map(value_of).collect();
        assert_eq!(one_column, expected);
        assert_eq!(one, expected.iter().sum::<u64>());
        assert_eq!((one, &one_column), (two, &two_column));
    }
}
