//! Costing a request's units: each unit's cost under a counter (on every
//! core for a large request), and the prompted costs a plan counts on
//! first use.

use crate::formatter::Unit;
use crate::py::PyErr;
use crate::tokens::{Cost, MessageCounter};
use rustc_hash::FxHashMap;
use serde_json::Value;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A unit's costs, for each output variant it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitCost {
    pub formatted: Cost,
    pub front: Option<Cost>,
    pub prompted: Option<Cost>,
}

/// A cost with no other variant (the system prompt's: it has no front or
/// prompted form).
impl From<Cost> for UnitCost {
    fn from(formatted: Cost) -> UnitCost {
        UnitCost {
            formatted,
            front: None,
            prompted: None,
        }
    }
}

/// The cost of formatted messages under `counter` (without its base).
pub fn cost_of(counter: &dyn MessageCounter, messages: &[Value]) -> Result<Cost, PyErr> {
    let mut total = Cost::default();
    for m in messages {
        total += counter.message(m)?;
    }
    Ok(total)
}

pub fn cost_unit(counter: &dyn MessageCounter, unit: &Unit) -> Result<UnitCost, PyErr> {
    cost_variants(counter, unit, cost_of(counter, &unit.formatted.unpack())?)
}

/// A unit's cost given its middle output's (`formatted`): its front and
/// prompted forms counted.
pub fn cost_variants(
    counter: &dyn MessageCounter,
    unit: &Unit,
    formatted: Cost,
) -> Result<UnitCost, PyErr> {
    Ok(UnitCost {
        formatted,
        front: unit
            .front
            .as_ref()
            .map(|f| cost_of(counter, &f.unpack()))
            .transpose()?,
        prompted: unit
            .prompted
            .get()
            .map(|f| cost_of(counter, &f.unpack()))
            .transpose()?,
    })
}

/// Every unit's cost under `counter`, in order: what `known` answers (an
/// earlier count of the same content) is taken as it is, the rest is
/// counted, on every core when there are many (a cold count of a large
/// request is mostly BPE). Results are matched to units by position, never
/// by content key: keys are only a cache's lookup, and two units may share
/// one. The first error in the units' order is returned, as the reference's
/// single pass would raise it. This is the one way a request is costed: the
/// command line's plans, `truncate`, `count` and the workbench all call it.
pub fn cost_units(
    counter: &dyn MessageCounter,
    units: &[Arc<Unit>],
    known: impl Fn(&Unit) -> Option<UnitCost>,
) -> Result<Vec<UnitCost>, PyErr> {
    cost_units_by(units, |_, u| known(u), |u| cost_unit(counter, u))
}

/// [`cost_units`] with each unit not known (asked by its index and
/// itself) costed by `cost` (the budget's also learns a history group's
/// shares as it counts it).
pub fn cost_units_by<T: Send>(
    units: &[Arc<Unit>],
    mut known: impl FnMut(usize, &Unit) -> Option<T>,
    cost: impl Fn(&Unit) -> Result<T, PyErr> + Sync,
) -> Result<Vec<T>, PyErr> {
    let mut costs: Vec<Option<T>> = units.iter().enumerate().map(|(i, u)| known(i, u)).collect();
    let missing: Vec<usize> = (0..units.len()).filter(|&i| costs[i].is_none()).collect();
    let counted = crate::parallel::map(&missing, |_, &i| cost(&units[i]));
    for (i, cost) in missing.into_iter().zip(counted) {
        costs[i] = Some(cost?);
    }
    // Sized first: a flattened list grows by copies.
    let mut out = Vec::with_capacity(costs.len());
    out.extend(costs.into_iter().flatten());
    Ok(out)
}

/// Costs counted on first use, by unit (shared by the planner's reads),
/// and how many were ever set.
#[derive(Debug, Default)]
pub(super) struct PromptedCosts(Mutex<FxHashMap<usize, Cost>>, AtomicUsize);

impl PromptedCosts {
    pub(super) fn map(&self) -> std::sync::MutexGuard<'_, FxHashMap<usize, Cost>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn get(&self, u: usize) -> Option<Cost> {
        self.map().get(&u).copied()
    }

    pub(super) fn set(&self, u: usize, cost: Cost) {
        self.map().insert(u, cost);
        self.1.fetch_add(1, Ordering::Relaxed);
    }

    /// How many were ever set.
    pub(super) fn counted(&self) -> usize {
        self.1.load(Ordering::Relaxed)
    }

    pub(super) fn forget(&mut self, u: usize) {
        self.map().remove(&u);
    }
}

impl Clone for PromptedCosts {
    fn clone(&self) -> PromptedCosts {
        PromptedCosts(
            Mutex::new(self.map().clone()),
            AtomicUsize::new(self.1.load(Ordering::Relaxed)),
        )
    }
}
