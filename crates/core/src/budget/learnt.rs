//! What the request before an edit counted, looked up by the request cut
//! again after it: each unit where it was (from the start, or from the end
//! after an insert or delete before it), by content key only when it moved
//! ([`UnitPlaces`]). A delete at 100,000 messages had copied every unit's
//! cost into a map by key, a fifth of its recount.

use crate::formatter::UnitPlaces;
use crate::tokens::Cost;
use crate::truncate::{CostedRequest, UnitCost};
use rustc_hash::FxHashMap;

pub(super) struct Learnt<'a> {
    request: &'a CostedRequest,
    /// The prompted costs a plan counted, by unit.
    prompted: FxHashMap<usize, Cost>,
    places: UnitPlaces<'a>,
}

impl<'a> Learnt<'a> {
    pub(super) fn of(request: &'a CostedRequest) -> Learnt<'a> {
        Learnt {
            request,
            prompted: request.lazily_prompted(),
            places: UnitPlaces::new(&request.seg.units),
        }
    }

    /// The cost of unit `u` of a request of `len` units whose content key
    /// is `key`, when the request before counted the same content.
    pub(super) fn get(&mut self, u: usize, len: usize, key: u64) -> Option<UnitCost> {
        let at = self.places.find(u, len, key)?;
        self.request.learnt_cost(at, &self.prompted)
    }
}
