//! Where a history group's search for the first state that fits starts:
//! a guess from each member's marginal cost, kept across plans.
//!
//! Why kept: a one-group session of 100,000 messages planned to a quarter
//! guesses from 76,000 members' marginal costs, two small groups formatted
//! and counted for each (half a second on two cores), and an edit changes
//! one of them. The costs are kept by the member's content, so the plan
//! after an edit counts only the member it changed.

use super::cost_of;
use crate::formatter::Segmented;
use crate::media::MediaEnv;
use crate::py::PyErr;
use crate::tokens::MessageCounter;
use rustc_hash::FxHashMap;
use std::ops::Range;

/// Members' marginal costs under one counter and formatter, by the
/// member's content key. A member that may read media is not kept: its
/// formatting may warn, and each plan logs what it would.
#[derive(Debug, Default, Clone)]
pub struct MemberCosts(FxHashMap<u64, i64>);

impl MemberCosts {
    /// Forgets them all (what they were counted with changed).
    pub fn clear(&mut self) {
        self.0.clear();
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Members of a block counted ahead on every core.
const BLOCK: usize = 4096;

/// Where the first state that fits should be, from each member's marginal
/// cost: the tokens its lines add to a group (a group of it twice less a
/// group of it once). Exact counts decide; this only saves evaluations.
/// `states` are the group's states from its first; `total_at_start` is the
/// first's total.
///
/// The costs not `known` are counted ahead a block at a time on every core,
/// each member on a run of its own whose warnings join `env`'s only when
/// the walk reaches it, as a walk one member at a time logs them.
pub(super) fn guess_first_fit(
    seg: &Segmented,
    counter: &dyn MessageCounter,
    env: &MediaEnv,
    known: &mut MemberCosts,
    states: Range<usize>,
    total_at_start: i64,
    max_tokens: i64,
) -> Result<usize, PyErr> {
    // Bounded: an hour of edits adds a cost for each edited member, and
    // the members of the session now are all a plan needs.
    if known.len() > 2 * seg.msgs.len() + BLOCK {
        known.clear();
    }
    let runs = env.runs();
    let marginal = |k: usize, run: &MediaEnv| -> Result<i64, PyErr> {
        let member = &seg.msgs[k].msg()?;
        let once = cost_of(counter, &seg.group_of(std::slice::from_ref(member), run)?)?;
        let twice = cost_of(
            counter,
            &seg.group_of(&[member.clone(), member.clone()], run)?,
        )?;
        Ok((twice.total() - once.total()).max(0))
    };
    let key = |k: usize| {
        seg.msgs[k]
            .as_packed()
            .filter(|m| !m.may_read_media())
            .map(|m| m.key())
    };
    let mut total = total_at_start;
    let mut at = states.start;
    while at < states.end {
        let block = at..(at + BLOCK).min(states.end);
        let keys: Vec<Option<u64>> = block.clone().map(key).collect();
        let missing: Vec<usize> = block
            .clone()
            .filter(|&k| keys[k - at].is_none_or(|key| !known.0.contains_key(&key)))
            .collect();
        let counted = crate::parallel::map(&missing, |_, &k| {
            let run = runs.run();
            (marginal(k, &run), run)
        });
        let mut counted = missing.iter().zip(counted).peekable();
        for k in block {
            if total <= max_tokens {
                // Those counted past the guess are kept too.
                for (&k, (cost, _)) in counted {
                    if let (Some(key), Ok(cost)) = (keys[k - at], cost) {
                        known.0.insert(key, cost);
                    }
                }
                return Ok(k);
            }
            let cost = match counted.next_if(|(&m, _)| m == k) {
                Some((_, (cost, run))) => {
                    env.absorb(run);
                    let cost = cost?;
                    if let Some(key) = keys[k - at] {
                        known.0.insert(key, cost);
                    }
                    cost
                }
                // Not counted: its key is known.
                None => keys[k - at]
                    .and_then(|key| known.0.get(&key).copied())
                    .unwrap_or(0),
            };
            total -= cost;
        }
        at = (at + BLOCK).min(states.end);
    }
    Ok(states.end - 1)
}
