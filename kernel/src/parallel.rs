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
