//! Two sequences aligned by identity in linear time: elements are compared
//! by a key (a content hash, or a message's id), elements whose key occurs
//! once on each side anchor the alignment (patience diff: the longest
//! increasing run of such pairs), the gaps between anchors are anchored
//! again on what is unique within them, and what is left is paired by
//! kind (same role, same block type) within a bounded window.
//!
//! Hand-written rather than `similar`'s patience: between anchors `similar`
//! falls back to Myers, O((n + m) · d), which is quadratic when two
//! providers' requests share no identical message (every OpenAI message
//! differs from its Anthropic counterpart), and it cannot pair elements of
//! the same kind that are not equal. Here every level of anchoring is
//! O(n) (hash counts) plus O(k log k) for the run of k anchors, the levels
//! are capped, and the window pass is O(n · W²) with a fixed W.

use rustc_hash::FxHashMap;

/// How two sequences line up: elements equal on both sides, elements of
/// the same kind facing each other (compared inside), and the rest removed
/// from the left or added from the right, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Same(usize, usize),
    Inside(usize, usize),
    Removed(usize),
    Added(usize),
}

/// How deep the anchoring recurses into gaps (each level is linear).
const LEVELS: usize = 6;
/// How far ahead the kind pass looks for a pair (in elements, both sides
/// together).
const WINDOW: usize = 8;

/// `a` and `b` aligned by their keys. `same(i, j)` confirms that equal
/// keys are equal elements (a hash collision pairs them by kind instead);
/// `kin(i, j)` says two unequal elements are of one kind.
pub fn align(
    a: &[u64],
    b: &[u64],
    same: &dyn Fn(usize, usize) -> bool,
    kin: &dyn Fn(usize, usize) -> bool,
) -> Vec<Step> {
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    let mut job = Job {
        a,
        b,
        same,
        kin,
        out: &mut out,
    };
    job.range(0, a.len(), 0, b.len(), 0);
    out
}

struct Job<'a, 'o> {
    a: &'a [u64],
    b: &'a [u64],
    same: &'a dyn Fn(usize, usize) -> bool,
    kin: &'a dyn Fn(usize, usize) -> bool,
    out: &'o mut Vec<Step>,
}

impl Job<'_, '_> {
    fn equal(&self, i: usize, j: usize) -> bool {
        self.a[i] == self.b[j] && (self.same)(i, j)
    }

    fn range(&mut self, mut i0: usize, mut i1: usize, mut j0: usize, mut j1: usize, level: usize) {
        // Equal ends first: an edit in a long request leaves a short gap.
        while i0 < i1 && j0 < j1 && self.equal(i0, j0) {
            self.out.push(Step::Same(i0, j0));
            i0 += 1;
            j0 += 1;
        }
        let mut tail = 0;
        while i0 < i1 - tail && j0 < j1 - tail && self.equal(i1 - tail - 1, j1 - tail - 1) {
            tail += 1;
        }
        i1 -= tail;
        j1 -= tail;
        let anchors = if level < LEVELS && i0 < i1 && j0 < j1 {
            self.anchors(i0, i1, j0, j1)
        } else {
            Vec::new()
        };
        if anchors.is_empty() {
            self.window(i0, i1, j0, j1);
        } else {
            let (mut i, mut j) = (i0, j0);
            for (ai, bj) in anchors {
                self.range(i, ai, j, bj, level + 1);
                self.out.push(Step::Same(ai, bj));
                i = ai + 1;
                j = bj + 1;
            }
            self.range(i, i1, j, j1, level + 1);
        }
        for t in (0..tail).rev() {
            self.out
                .push(Step::Same(i1 + tail - 1 - t, j1 + tail - 1 - t));
        }
    }

    /// Pairs of equal elements unique on both sides of the range, the
    /// longest run of them in the same order on both sides.
    fn anchors(&self, i0: usize, i1: usize, j0: usize, j1: usize) -> Vec<(usize, usize)> {
        // key -> (count in a, position in a, count in b, position in b)
        let mut seen: FxHashMap<u64, (u32, usize, u32, usize)> = FxHashMap::default();
        for i in i0..i1 {
            let e = seen.entry(self.a[i]).or_insert((0, i, 0, 0));
            e.0 += 1;
        }
        for j in j0..j1 {
            if let Some(e) = seen.get_mut(&self.b[j]) {
                e.2 += 1;
                e.3 = j;
            }
        }
        let mut pairs: Vec<(usize, usize)> = seen
            .values()
            .filter(|(ca, _, cb, _)| *ca == 1 && *cb == 1)
            .map(|(_, i, _, j)| (*i, *j))
            .filter(|(i, j)| self.equal(*i, *j))
            .collect();
        pairs.sort_unstable();
        longest_increasing(&pairs)
    }

    /// What no anchor placed: equal or same-kind elements face each other,
    /// looking a few elements ahead on either side for the next pair.
    fn window(&mut self, i1_start: usize, i1: usize, j1_start: usize, j1: usize) {
        let (mut i, mut j) = (i1_start, j1_start);
        while i < i1 && j < j1 {
            if self.equal(i, j) {
                self.out.push(Step::Same(i, j));
            } else if (self.kin)(i, j) {
                self.out.push(Step::Inside(i, j));
            } else {
                match self.nearest(i, i1, j, j1) {
                    Some((di, dj)) => {
                        self.out.extend((i..i + di).map(Step::Removed));
                        self.out.extend((j..j + dj).map(Step::Added));
                        i += di;
                        j += dj;
                        continue;
                    }
                    None => {
                        self.out.push(Step::Removed(i));
                        self.out.push(Step::Added(j));
                    }
                }
            }
            i += 1;
            j += 1;
        }
        self.out.extend((i..i1).map(Step::Removed));
        self.out.extend((j..j1).map(Step::Added));
    }

    /// The closest pair ahead (fewest elements skipped) that is equal or
    /// of one kind.
    fn nearest(&self, i: usize, i1: usize, j: usize, j1: usize) -> Option<(usize, usize)> {
        for d in 1..=WINDOW {
            for di in 0..=d {
                let dj = d - di;
                let (x, y) = (i + di, j + dj);
                if x < i1 && y < j1 && (self.equal(x, y) || (self.kin)(x, y)) {
                    return Some((di, dj));
                }
            }
        }
        None
    }
}

/// The longest run of `pairs` (sorted by their first position) whose
/// second positions increase: patience sorting, O(k log k).
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tops[l]: the index in `pairs` ending the best run of length l + 1.
    let mut tops: Vec<usize> = Vec::new();
    let mut back: Vec<Option<usize>> = vec![None; pairs.len()];
    for (k, (_, j)) in pairs.iter().enumerate() {
        let at = tops.partition_point(|t| pairs[*t].1 < *j);
        back[k] = at.checked_sub(1).map(|p| tops[p]);
        if at == tops.len() {
            tops.push(k);
        } else {
            tops[at] = k;
        }
    }
    let mut run = Vec::with_capacity(tops.len());
    let mut at = tops.last().copied();
    while let Some(k) = at {
        run.push(pairs[k]);
        at = back[k];
    }
    run.reverse();
    run
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(a: &[u64], b: &[u64]) -> Vec<Step> {
        align(a, b, &|_, _| true, &|_, _| false)
    }

    #[test]
    fn a_deleted_element_leaves_the_others_paired() {
        let a: Vec<u64> = (0..10).collect();
        let b: Vec<u64> = (0..10).filter(|x| *x != 5).collect();
        let steps = run(&a, &b);
        assert_eq!(
            steps.iter().filter(|s| matches!(s, Step::Same(..))).count(),
            9
        );
        assert!(steps.contains(&Step::Removed(5)));
    }

    #[test]
    fn moved_blocks_anchor_on_the_longest_run() {
        let steps = run(&[1, 2, 3, 4, 5], &[4, 1, 2, 3, 5]);
        let same = steps.iter().filter(|s| matches!(s, Step::Same(..))).count();
        assert_eq!(same, 4, "{steps:?}");
    }

    #[test]
    fn every_element_is_placed_once() {
        let a = [1, 1, 2, 9, 3, 7, 7];
        let b = [7, 1, 2, 2, 3, 8];
        let steps = run(&a, &b);
        let (mut left, mut right) = (vec![0; a.len()], vec![0; b.len()]);
        for s in steps {
            match s {
                Step::Same(i, j) | Step::Inside(i, j) => {
                    left[i] += 1;
                    right[j] += 1;
                }
                Step::Removed(i) => left[i] += 1,
                Step::Added(j) => right[j] += 1,
            }
        }
        assert!(left.iter().chain(&right).all(|c| *c == 1));
    }
}
