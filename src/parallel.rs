//! Work over a long list on every core, results in the list's order. A
//! count of 100,000 messages is mostly BPE over independent messages, so
//! it splits into one contiguous chunk per core; callers fold the chunks'
//! results in order, so the first error in the list's order is the one
//! returned, as the reference's single pass raises it.
//!
//! Scoped threads rather than a pool crate: one call per count, chunks of
//! similar cost (messages of a session), and nothing to keep alive between
//! calls; a thread costs tens of microseconds against the milliseconds a
//! chunk of at least [`MIN_ITEMS`] takes.

/// Lists shorter than this run on the calling thread.
pub const MIN_ITEMS: usize = 256;

/// The cores a count may use (at most four: past that, the chunks' BPE
/// contends for the memory bus more than it gains).
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

/// `work` over contiguous chunks of `items`, one chunk per core when there
/// are at least [`MIN_ITEMS`] (else one chunk, on this thread); the chunks'
/// results in order. A chunk whose thread panicked is run again here, so
/// its panic reaches the caller as it would without threads.
pub fn chunks<T: Sync, R: Send>(items: &[T], work: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    let threads = threads();
    if threads < 2 || items.len() < MIN_ITEMS {
        return vec![work(items)];
    }
    let per = items.len().div_ceil(threads);
    let work = &work;
    std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(per)
            .map(|chunk| (chunk, scope.spawn(move || work(chunk))))
            .collect();
        workers
            .into_iter()
            .map(|(chunk, worker)| worker.join().unwrap_or_else(|_| work(chunk)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_come_back_in_order_and_cover_every_item() {
        for n in [0, 1, 255, 256, 257, 10_001] {
            let items: Vec<usize> = (0..n).collect();
            let out: Vec<usize> = chunks(&items, |c| c.to_vec()).concat();
            assert_eq!(out, items, "{n} items");
        }
    }

    #[test]
    fn the_first_error_in_order_is_the_one_a_fold_finds() {
        let items: Vec<i64> = (0..5_000).collect();
        let sums = chunks(&items, |c| {
            c.iter().try_fold(0i64, |acc, &i| {
                if i == 3_000 || i == 4_500 {
                    Err(i)
                } else {
                    Ok(acc + i)
                }
            })
        });
        let first: Result<i64, i64> = sums.into_iter().sum();
        assert_eq!(first, Err(3_000));
    }
}
