//! Truncation plans: what FIFO truncation would drop, counted with the
//! truncation counter (AgentScope's `token_counter`), which may not be the
//! provider's.
//!
//! The request costed with the truncation counter keeps its own costs but
//! not a segmented request of its own: the model's is lent to it for each
//! plan and taken back after. A copy would share the message list, and the
//! next edit, changing the list in place, would copy all of it; dropping
//! the costs instead made the plan after each edit look up every unit's
//! cost again (100,000 messages: a hash lookup and insert per unit, a
//! third of the plan).

use super::BudgetModel;
use crate::formatter::SYSTEM_UNIT;
use crate::py::PyErr;
use crate::session::msgs_of;
use crate::tokens::CounterSpec;
use crate::truncate::{self, CostedRequest, TruncationPlan, UnitCost};
use std::sync::Arc;

impl BudgetModel {
    /// The counter truncation plans with (default: AgentScope's
    /// `OpenAITokenCounter(gpt-4o)`, as `format --max-tokens`).
    pub fn set_truncation_counter(&mut self, spec: CounterSpec) {
        if spec == self.truncation {
            return;
        }
        self.trunc_counter = spec.build(
            &self.counter.info,
            self.env.web_arc(),
            Some(Arc::clone(self.env.gate())),
        );
        self.truncation = spec;
        self.trunc_costs.clear();
        self.trunc_request = None;
        self.member_costs.clear();
    }

    pub fn truncation_counter(&self) -> &CounterSpec {
        &self.truncation
    }

    /// What truncation counts with, said as AgentScope would name it.
    pub fn truncation_label(&self) -> String {
        self.truncation.label(self.counter.info.tokenizer.name)
    }

    /// What FIFO truncation would do at `max_tokens` (formatted messages
    /// only, as AgentScope budgets them), counted with the truncation
    /// counter.
    pub fn plan(&mut self, max_tokens: i64) -> Result<TruncationPlan, PyErr> {
        if self.request.seg.rewrites_list {
            // Promoted media rewrite the list AgentScope truncates.
            return truncate::plan_reference(
                self.formatter,
                &self.options,
                &msgs_of(self.msgs())?,
                &self.env,
                self.trunc_counter.as_ref(),
                max_tokens,
            )
            .map(|p| p.plan);
        }
        if self.truncation == CounterSpec::Provider {
            let plan = truncate::plan(
                &self.request,
                &self.counter,
                &self.env,
                max_tokens,
                &mut self.member_costs,
            );
            self.request.settle_prompted();
            return plan;
        }
        let mut request = match self.trunc_request.take() {
            Some(mut request) => {
                request.seg = self.request.take_seg();
                request
            }
            None => self.trunc_cost()?,
        };
        let counted = request.prompted_counted();
        let plan = truncate::plan(
            &request,
            self.trunc_counter.as_ref(),
            &self.env,
            max_tokens,
            &mut self.member_costs,
        );
        // What this plan counted, for the request after the next edit (a
        // plan that counted nothing new adds nothing: at 100,000 messages
        // the thousands it had learnt before were a fifth of a plan).
        if request.prompted_counted() != counted {
            self.trunc_costs.extend(request.learnt_prompted());
            request.settle_prompted();
        }
        self.request.seg = request.take_seg();
        self.trunc_request = Some(request);
        plan
    }

    /// The request costed with the truncation counter, each unit counted
    /// once per content (and only a unit first seen learnt).
    fn trunc_cost(&mut self) -> Result<CostedRequest, PyErr> {
        let counter = self.trunc_counter.as_ref();
        let seg = &self.request.seg;
        let system = truncate::cost_of(counter, &seg.system)?;
        let (known, mut fresh) = (&self.trunc_costs, Vec::new());
        let units = truncate::cost_units_by(
            &seg.units,
            |i, u| {
                let cost = known.get(&u.key).copied();
                if cost.is_none() {
                    fresh.push(i);
                }
                cost
            },
            |u| truncate::cost_unit(counter, u),
        )?;
        for i in fresh {
            self.trunc_costs.insert(seg.units[i].key, units[i]);
        }
        let seg = self.request.take_seg();
        Ok(CostedRequest::new(seg, counter.base(), system, units))
    }

    /// After message edit `u` (a unit re-formatted in place, or
    /// [`SYSTEM_UNIT`]): the truncation costs follow, that unit counted
    /// again (or known by its content). A count that raises lets the costs
    /// go, and the next plan raises as it counts.
    pub(super) fn follow_edit(&mut self, u: usize) {
        let Some(mut request) = self.trunc_request.take() else {
            return;
        };
        let counter = self.trunc_counter.as_ref();
        let seg = &self.request.seg;
        let cost = if u == SYSTEM_UNIT {
            truncate::cost_of(counter, &seg.system).map(UnitCost::from)
        } else {
            let Some(unit) = seg.units.get(u) else {
                return;
            };
            match self.trunc_costs.get(&unit.key) {
                Some(cost) => Ok(*cost),
                None => truncate::cost_unit(counter, unit).inspect(|cost| {
                    self.trunc_costs.insert(unit.key, *cost);
                }),
            }
        };
        let Ok(cost) = cost else {
            return;
        };
        request.seg = self.request.take_seg();
        request.set_cost(u, cost);
        self.request.seg = request.take_seg();
        self.trunc_request = Some(request);
    }
}
