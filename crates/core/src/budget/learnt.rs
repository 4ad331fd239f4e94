//! What the request before an edit counted, looked up by the request cut
//! again after it: each unit where it was (from the start, or from the end
//! after an insert or delete before it), by content key only when it moved.
//! A delete at 100,000 messages had copied every unit's cost into a map by
//! key, a fifth of its recount.

use crate::tokens::Cost;
use crate::truncate::{CostedRequest, UnitCost};
use rustc_hash::FxHashMap;

pub(super) struct Learnt<'a> {
    request: &'a CostedRequest,
    /// The prompted costs a plan counted, by unit.
    prompted: FxHashMap<usize, Cost>,
    /// Each unit's place by key, made on the first unit that moved.
    places: Option<FxHashMap<u64, usize>>,
}

impl<'a> Learnt<'a> {
    pub(super) fn of(request: &'a CostedRequest) -> Learnt<'a> {
        Learnt {
            request,
            prompted: request.lazily_prompted(),
            places: None,
        }
    }

    /// The cost of unit `u` of a request of `len` units whose content key
    /// is `key`, when the request before counted the same content.
    pub(super) fn get(&mut self, u: usize, len: usize, key: u64) -> Option<UnitCost> {
        let units = &self.request.seg.units;
        let from_end = (u + units.len()).checked_sub(len);
        let here = [Some(u), from_end]
            .into_iter()
            .flatten()
            .find(|&at| units.get(at).is_some_and(|unit| unit.key == key));
        let at = match here {
            Some(at) => at,
            None => *self
                .places
                .get_or_insert_with(|| {
                    let keys = units.iter().map(|unit| unit.key);
                    keys.enumerate().map(|(at, key)| (key, at)).collect()
                })
                .get(&key)?,
        };
        let mut cost = *self.request.units.get(at)?;
        if cost.prompted.is_none() {
            cost.prompted = self.prompted.get(&at).copied();
        }
        Some(cost)
    }
}
