//! Work over a long list on every core, results in the list's order. A
//! count of 100,000 messages is mostly BPE over independent messages, so
//! it splits into contiguous chunks; callers fold the chunks' results in
//! order, so the first error in the list's order is the one returned, as
//! the reference's single pass raises it.
//!
//! On rayon's pool rather than threads spawned per call: AgentScope's
//! truncation loop counts the request again after each dropped message,
//! and threads made for each count started with cold tokenizer caches (the
//! per-thread cache of short strings), which made that loop a third slower.

use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Lists shorter than this run on the calling thread.
pub const MIN_ITEMS: usize = 256;

/// `work` over contiguous chunks of `items`, many per core when there are
/// at least [`MIN_ITEMS`] (else one chunk, on this thread); the chunks'
/// results in order. A panic in a chunk reaches the caller.
pub fn chunks<T: Sync, R: Send>(items: &[T], work: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    chunks_at(items, |_, chunk| work(chunk))
}

/// [`chunks`], `work` also told where its chunk starts in `items`.
pub fn chunks_at<T: Sync, R: Send>(items: &[T], work: impl Fn(usize, &[T]) -> R + Sync) -> Vec<R> {
    chunks_per_core(items, CHUNKS_PER_CORE, work)
}

/// Many chunks per core, so one slow chunk does not hold the rest: with
/// four a core, a cold count at 100,000 messages ended with one core alone
/// on the last chunk for 10-20 ms of its 250 (a chunk is milliseconds of
/// BPE; one core is often another process's).
const CHUNKS_PER_CORE: usize = 16;

/// The length of each of `per_core` chunks a core for `len` items, or
/// `None` when they are too few to spread (or there is one core): the
/// work then runs on the calling thread.
fn chunk_len(len: usize, per_core: usize) -> Option<usize> {
    let threads = rayon::current_num_threads();
    (threads >= 2 && len >= MIN_ITEMS).then(|| len.div_ceil(threads * per_core).max(MIN_ITEMS / 4))
}

/// [`chunks_at`] in finer chunks (a few dozen per core), for work that a
/// caller may stop: a chunk that finds `stop()` true does nothing and
/// gives `None`, so a stop is seen within one small chunk's time (the
/// workbench's layout of 100,000 messages: about 3 ms instead of 30).
pub fn chunks_until<T: Sync, R: Send>(
    items: &[T],
    stop: &(dyn Fn() -> bool + Sync),
    work: impl Fn(usize, &[T]) -> R + Sync,
) -> Vec<Option<R>> {
    chunks_per_core(items, 32, |at, chunk| (!stop()).then(|| work(at, chunk)))
}

/// `work` over `per_core` contiguous chunks a core (one chunk, on this
/// thread, below [`MIN_ITEMS`]), the results in order.
///
/// This thread takes chunks too, beside one task on each of the pool's
/// other threads, all from one counter. What a chunk builds is then
/// partly this thread's, and freeing blocks another thread allocated is
/// slow: formatting 100,000 messages spent 22 of its 50-60 ms freeing
/// its output on the calling thread when only the pool's threads made
/// it. A pool busy with other work leaves the chunks to this thread.
fn chunks_per_core<T: Sync, R: Send>(
    items: &[T],
    per_core: usize,
    work: impl Fn(usize, &[T]) -> R + Sync,
) -> Vec<R> {
    let Some(per) = chunk_len(items.len(), per_core) else {
        return vec![work(0, items)];
    };
    let count = items.len().div_ceil(per);
    let done: Vec<Mutex<Option<R>>> = (0..count).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let take = || loop {
        let k = next.fetch_add(1, Ordering::Relaxed);
        if k >= count {
            break;
        }
        let start = k * per;
        let result = work(start, &items[start..(start + per).min(items.len())]);
        if let Ok(mut slot) = done[k].lock() {
            *slot = Some(result);
        }
    };
    rayon::in_place_scope(|scope| {
        for _ in 1..rayon::current_num_threads() {
            scope.spawn(|_| take());
        }
        take();
    });
    // Every chunk was taken, and the scope waited for each.
    done.into_iter()
        .filter_map(|slot| slot.into_inner().ok().flatten())
        .collect()
}

/// `work(index, item)` for every item, the results in the items' order
/// (collect them into a `Result` for the first error in order).
pub fn map<T: Sync, R: Send>(items: &[T], work: impl Fn(usize, &T) -> R + Sync) -> Vec<R> {
    let mut out = Vec::with_capacity(items.len());
    let Some(per) = chunk_len(items.len(), CHUNKS_PER_CORE) else {
        out.extend(items.iter().enumerate().map(|(i, item)| work(i, item)));
        return out;
    };
    // Each chunk writes its results in place (concatenating the chunks'
    // lists after, on one core, was a tenth of what a model made afresh
    // does there at 100,000 messages).
    items
        .par_iter()
        .enumerate()
        .with_min_len(per)
        .map(|(i, item)| work(i, item))
        .collect_into_vec(&mut out);
    out
}

/// Drops `items` on every core when there are at least [`MIN_ITEMS`]: a
/// request's 100,000 messages each let go of parts they share with the
/// session (reference counts spread over its 30 MB), which took 10 ms on
/// one core, a twentieth of counting them.
pub fn drop_all<T: Send>(items: Vec<T>) {
    let Some(per) = chunk_len(items.len(), CHUNKS_PER_CORE) else {
        return;
    };
    items.into_par_iter().with_min_len(per).for_each(drop);
}

/// The sum of `work` over the items, or the first error in order.
pub fn try_sum<T: Sync, E: Send>(
    items: &[T],
    work: impl Fn(&T) -> Result<i64, E> + Sync,
) -> Result<i64, E> {
    chunks(items, |chunk| {
        chunk.iter().try_fold(0, |n, item| Ok(n + work(item)?))
    })
    .into_iter()
    .sum()
}

/// `here()` on this thread and `beside()` on another core at once (when
/// the pool has one), both results. Unlike `rayon::join`, `here` need not
/// be `Send`: it may hold what only this thread may touch (a formatting
/// run's media state).
pub fn beside<A, B: Send>(here: impl FnOnce() -> A, beside: impl FnOnce() -> B + Send) -> (A, B) {
    let mut other = None;
    let slot = &mut other;
    let mine = rayon::in_place_scope(|scope| {
        scope.spawn(move |_| *slot = Some(beside()));
        here()
    });
    match other {
        Some(b) => (mine, b),
        // The scope waits for its spawned work, and a panic there reaches
        // this thread first; this is never taken.
        None => unreachable!("the scope ran its spawned work"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beside_gives_both_results_and_here_may_hold_what_stays_on_its_thread() {
        let here = std::rc::Rc::new(std::cell::RefCell::new(vec![1]));
        let (mine, other) = beside(
            || {
                here.borrow_mut().push(2);
                here.borrow().len()
            },
            || (0..1000u64).sum::<u64>(),
        );
        assert_eq!((mine, other), (2, 499_500));
    }

    #[test]
    fn chunks_come_back_in_order_and_cover_every_item() {
        for n in [0, 1, 255, 256, 257, 10_001] {
            let items: Vec<usize> = (0..n).collect();
            let out: Vec<usize> = chunks(&items, |c| c.to_vec()).concat();
            assert_eq!(out, items, "{n} items");
        }
    }

    #[test]
    fn each_chunk_is_told_where_it_starts() {
        let items: Vec<usize> = (0..10_001).collect();
        for (start, chunk) in chunks_at(&items, |at, c| (at, c.to_vec())) {
            assert_eq!(chunk.first(), Some(&start));
        }
    }

    #[test]
    fn a_map_keeps_order_and_indices_and_a_sum_stops_at_the_first_error() {
        let items: Vec<i64> = (0..10_001).collect();
        let mapped = map(&items, |i, &x| (i as i64, x * 2));
        assert!(mapped.iter().all(|&(i, x)| x == 2 * i));
        assert_eq!(mapped.len(), items.len());
        assert_eq!(try_sum(&items, |&x| Ok::<_, i64>(x)), Ok(50_005_000));
        let failing = try_sum(&items, |&x| if x % 3_000 == 2_999 { Err(x) } else { Ok(x) });
        assert_eq!(failing, Err(2_999));
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
