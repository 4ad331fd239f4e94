//! Truncation planning: the outcome of AgentScope's FIFO truncation (the
//! same messages kept, the same errors) without its re-format and re-count
//! of the whole list per dropped message.
//!
//! A request's count is a base plus the sum of its units' costs
//! ([`Segmented`]), so every state the reference loop would visit (a system
//! prompt plus a suffix of the conversation) costs a suffix sum plus two
//! corrections: the unit that becomes first (Anthropic's `system` role) and
//! the history group that takes the prompt. Only a step that ends inside a
//! `<history>` group needs that group's remainder formatted, and only when
//! the rest of the request alone fits; when the group's lines start where
//! the tokenizer provably cuts (`tokens/boundary.rs`), the first state that
//! fits is searched for, so a request that is one huge group plans in a
//! few full counts, not one per member.

use crate::formatter::{
    self, format_once, non_termination, system_prompt_over_budget, truncation_span_end_of, Budget,
    FormatOptions, FormatterId, SegmentError, Segmented, Unit, UnitKind,
};
use crate::media::MediaEnv;
use crate::py::PyErr;
use crate::session::{live_items, msgs_of, Msg, Role};
use crate::tokens::{Cost, MessageCounter};
use rustc_hash::FxHashMap;
use serde_json::Value;

mod costs;
mod guess;

use costs::PromptedCosts;
pub use costs::{cost_of, cost_unit, cost_units, cost_units_by, cost_variants, UnitCost};
use guess::guess_first_fit;
pub use guess::MemberCosts;
use std::sync::Arc;

/// Units with their costs and the suffix sums the planner reads.
#[derive(Debug, Clone)]
pub struct CostedRequest {
    pub seg: Segmented,
    pub base: i64,
    pub system: Cost,
    pub units: Vec<UnitCost>,
    /// `suffix[u]`: tokens of units `u..` in their middle-of-request form.
    suffix: Vec<i64>,
    /// `next_group[u]`: the first history group at or after `u`.
    next_group: Vec<Option<usize>>,
    /// Prompted costs of history groups, counted when a plan needs them
    /// (a map: most units are never asked).
    lazy_prompted: PromptedCosts,
}

impl CostedRequest {
    pub fn new(seg: Segmented, base: i64, system: Cost, units: Vec<UnitCost>) -> Self {
        let mut req = Self {
            seg,
            base,
            system,
            units,
            suffix: Vec::new(),
            next_group: Vec::new(),
            lazy_prompted: PromptedCosts::default(),
        };
        req.sum();
        req
    }

    /// The first history group, whose prompted form the whole request uses.
    pub fn first_group(&self) -> Option<usize> {
        self.next_group.first().copied().flatten()
    }

    /// Unit `g`'s cost with the history prompt, counted on first use.
    fn prompted_cost(
        &self,
        g: usize,
        counter: &dyn MessageCounter,
        env: &MediaEnv,
    ) -> Result<Cost, PyErr> {
        if let Some(p) = self.units[g].prompted.or_else(|| self.lazy_prompted.get(g)) {
            return Ok(p);
        }
        let out = self.seg.prompted(&self.seg.units[g], env)?;
        let cost = cost_of(counter, &out)?;
        self.lazy_prompted.set(g, cost);
        Ok(cost)
    }

    /// The prompted costs plans counted, moved into the units' costs:
    /// later plans read them there, not from the shared map (a lock and
    /// a lookup for each history group a plan walks past, a tenth of a
    /// plan at 100,000 messages).
    pub fn settle_prompted(&mut self) {
        let counted = std::mem::take(&mut *self.lazy_prompted.map());
        for (u, cost) in counted {
            if let Some(unit) = self.units.get_mut(u) {
                unit.prompted.get_or_insert(cost);
            }
        }
    }

    /// The prompted costs a plan learnt on the way, by unit: the next
    /// request after an edit takes them with the units' own costs
    /// (`budget::learnt`), so its plan does not count again every history
    /// group it walks past (100,000 messages, a quarter kept: 125 ms a plan).
    pub fn lazily_prompted(&self) -> FxHashMap<usize, Cost> {
        self.lazy_prompted.map().clone()
    }

    /// Unit `u`'s cost, its prompted cost taken from `prompted` (a plan's,
    /// [`Self::lazily_prompted`]) where it had none.
    pub fn learnt_cost(&self, u: usize, prompted: &FxHashMap<usize, Cost>) -> Option<UnitCost> {
        let mut cost = *self.units.get(u)?;
        cost.prompted = cost.prompted.or_else(|| prompted.get(&u).copied());
        Some(cost)
    }

    /// How many prompted costs plans have counted (a plan that counted
    /// none has nothing to add to [`Self::learnt_prompted`]).
    pub fn prompted_counted(&self) -> usize {
        self.lazy_prompted.counted()
    }

    /// The costs of the units whose prompted cost a plan counted, by key.
    pub fn learnt_prompted(&self) -> Vec<(u64, UnitCost)> {
        let lazy = self.lazily_prompted();
        lazy.keys()
            .filter_map(|&u| Some((self.seg.units.get(u)?.key, self.learnt_cost(u, &lazy)?)))
            .collect()
    }

    /// The suffix sums, after any unit's cost changed (O(units), additions only).
    fn sum(&mut self) {
        let n = self.units.len();
        self.suffix.clear();
        self.suffix.resize(n + 1, 0);
        self.next_group.clear();
        self.next_group.resize(n + 1, None);
        self.lazy_prompted.map().retain(|u, _| *u < n);
        for u in (0..n).rev() {
            self.suffix[u] =
                self.suffix[u + 1] + standard(&self.seg.units[u], &self.units[u]).total();
            self.next_group[u] = if self.seg.units[u].kind == UnitKind::AgentGroup {
                Some(u)
            } else {
                self.next_group[u + 1]
            };
        }
    }

    /// Unit `u`'s cost (or the system prompt's, [`SYSTEM_UNIT`]) after its
    /// message was edited in place, the unit's kind kept: the suffix sums
    /// before it move by the difference (O(u) additions, no unit read).
    ///
    /// [`SYSTEM_UNIT`]: crate::formatter::SYSTEM_UNIT
    pub fn set_cost(&mut self, u: usize, cost: UnitCost) {
        if u == crate::formatter::SYSTEM_UNIT {
            self.system = cost.formatted;
            return;
        }
        let before = self.suffix[u] - self.suffix[u + 1];
        self.units[u] = cost;
        self.lazy_prompted.forget(u);
        let delta = standard(&self.seg.units[u], &cost).total() - before;
        if delta != 0 {
            for sum in &mut self.suffix[..=u] {
                *sum += delta;
            }
        }
    }

    /// Its segmented request, taken out (an empty one left): costs counted
    /// by a second counter share the first's request (the budget's
    /// truncation costs).
    pub fn take_seg(&mut self) -> Segmented {
        let empty = Segmented::empty(self.seg.id, self.seg.options.clone());
        std::mem::replace(&mut self.seg, empty)
    }

    /// Costs every unit with `counter`.
    pub fn count(
        seg: Segmented,
        counter: &dyn MessageCounter,
        env: &MediaEnv,
    ) -> Result<Self, PyErr> {
        let system = cost_of(counter, &seg.system)?;
        let units = cost_units(counter, &seg.units, |_| None)?;
        let req = Self::new(seg, counter.base(), system, units);
        req.total(counter, env)?;
        Ok(req)
    }

    /// Tokens of the whole request (every message kept).
    pub fn total(&self, counter: &dyn MessageCounter, env: &MediaEnv) -> Result<i64, PyErr> {
        self.state_total_at_unit(0, counter, env)
    }

    /// Per unit, the cost it has in the whole request, in order (read as
    /// they are walked: a report at 100,000 messages had written them all
    /// to a list first, and read every unit twice). When the history
    /// prompt's cost raises, each unit's own formatted cost.
    pub fn unit_costs_in_full(
        &self,
        counter: &dyn MessageCounter,
        env: &MediaEnv,
    ) -> impl Iterator<Item = Cost> + '_ {
        let prompted = self
            .first_group()
            .map(|g| (g, self.prompted_cost(g, counter, env).ok()));
        let raised = matches!(prompted, Some((_, None)));
        let units = self.seg.units.iter().zip(&self.units).enumerate();
        units.map(move |(k, (unit, cost))| match prompted {
            _ if raised => cost.formatted,
            Some((g, Some(cost))) if g == k => cost,
            _ => in_context(&self.seg, unit, cost, k == 0),
        })
    }

    /// Tokens of the list `system + units[u..]`.
    fn state_total_at_unit(
        &self,
        u: usize,
        counter: &dyn MessageCounter,
        env: &MediaEnv,
    ) -> Result<i64, PyErr> {
        let head = self.base + self.system.total();
        if u >= self.units.len() {
            // Nothing left but the system prompt, if any (a counter whose
            // base is not what an empty list costs says so in `count`).
            return if self.seg.system.is_empty() {
                counter.count(&[])
            } else {
                Ok(head)
            };
        }
        let unit = &self.seg.units[u];
        let cost = &self.units[u];
        let mut total = head + self.suffix[u];
        // The first unit's front form.
        let at_front = match unit.kind {
            UnitKind::Message => !self.seg.pinned,
            UnitKind::ToolMessage { run_start } => !run_start,
            UnitKind::AgentGroup => false,
        };
        if let (true, Some(front)) = (at_front, cost.front) {
            total += front.total() - cost.formatted.total();
        }
        // The first history group's prompt.
        if let Some(g) = self.next_group[u] {
            let p = self.prompted_cost(g, counter, env)?;
            total += p.total() - self.units[g].formatted.total();
        }
        Ok(total)
    }
}

/// A unit's cost in the middle of a request with no prompt taken yet.
fn standard(unit: &Unit, cost: &UnitCost) -> Cost {
    match (unit.kind, cost.front) {
        (UnitKind::ToolMessage { run_start: true }, Some(front)) => front,
        _ => cost.formatted,
    }
}

/// A unit's cost in the whole request, but for the prompt (the caller puts
/// the first history group's prompted cost in).
fn in_context(seg: &Segmented, unit: &Unit, cost: &UnitCost, first: bool) -> Cost {
    let at_front = match unit.kind {
        UnitKind::Message => first && !seg.pinned,
        UnitKind::ToolMessage { run_start } => first || run_start,
        UnitKind::AgentGroup => false,
    };
    match (cost.front, at_front) {
        (Some(front), true) => front,
        _ => cost.formatted,
    }
}

/// How the plan was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanMethod {
    /// From unit costs (the fast path).
    Units,
    /// The reference loop itself (media promotion rewrites the list).
    ReferenceLoop,
}

/// What FIFO truncation does to a request for a budget.
#[derive(Debug, Clone)]
pub struct TruncationPlan {
    pub max_tokens: i64,
    pub tokens_before: i64,
    /// Input message indices kept, in order.
    pub kept: Vec<usize>,
    pub dropped: Vec<usize>,
    /// Tokens of the truncated request, when it fits.
    pub tokens_after: Option<i64>,
    /// Truncation steps taken (each drops a message or a tool-call span).
    pub steps: usize,
    /// The reference's error when it cannot fit.
    pub error: Option<PyErr>,
    pub method: PlanMethod,
}

impl TruncationPlan {
    pub fn fits(&self) -> bool {
        self.error.is_none()
    }

    /// Why it cannot fit, said plainly.
    pub fn reason(&self) -> Option<String> {
        let e = self.error.as_ref()?;
        let m = &e.message;
        Some(if m.starts_with("The system prompt message already exceeds") {
            format!(
                "the system prompt alone is over the budget of {} tokens",
                crate::text::thousands_signed(self.max_tokens)
            )
        } else if let Some(ids) = m
            .strip_prefix("The input messages contains tool call(s) that do not have the corresponding tool result(s): ")
        {
            format!(
                "tool call {} has no result, so truncation cannot drop past it",
                ids.trim_end().trim_end_matches('.')
            )
        } else if e.kind == "NonTermination" {
            format!(
                "even an empty request is over the budget of {} tokens (AgentScope would loop forever)",
                crate::text::thousands_signed(self.max_tokens)
            )
        } else {
            format!("{}: {}", e.kind, m)
        })
    }
}

/// How a planned state is evaluated.
enum Total {
    Exact(i64),
    /// The rest of the request alone is over the budget.
    Over,
}

/// Plans truncation of a costed request to `max_tokens`. The first state
/// (everything kept) must already be known not to fit unless `check_first`.
/// `known` are the members' marginal costs earlier plans with this counter
/// counted (see [`MemberCosts`]); this plan adds what it counts.
pub fn plan(
    req: &CostedRequest,
    counter: &dyn MessageCounter,
    env: &MediaEnv,
    max_tokens: i64,
    known: &mut MemberCosts,
) -> Result<TruncationPlan, PyErr> {
    if max_tokens <= 0 {
        return Err(PyErr::assertion("max_tokens must be greater than 0"));
    }
    let seg = &req.seg;
    let n = seg.msgs.len();
    let pinned = usize::from(seg.pinned);
    let tokens_before = req.total(counter, env)?;
    let finish =
        |s: usize, tokens_after: Option<i64>, steps: usize, error: Option<PyErr>| TruncationPlan {
            max_tokens,
            tokens_before,
            kept: (0..pinned).chain(s..n).collect(),
            dropped: (pinned..s).collect(),
            tokens_after,
            steps,
            error,
            method: PlanMethod::Units,
        };
    if tokens_before <= max_tokens {
        return Ok(finish(pinned, Some(tokens_before), 0, None));
    }
    let mut s = pinned;
    let mut steps = 0;
    loop {
        if seg.pinned && s == n {
            return Ok(finish(
                s,
                None,
                steps,
                Some(system_prompt_over_budget(max_tokens)),
            ));
        }
        let end = match truncation_span_end_of(&seg.msgs, s) {
            Ok(end) => end,
            Err(e) => return Ok(finish(s, None, steps, Some(e))),
        };
        if end == s {
            return Ok(finish(
                s,
                None,
                steps,
                Some(non_termination(n - s, max_tokens)),
            ));
        }
        s = end;
        steps += 1;
        if !seg.pinned && seg.msgs.get(s).is_some_and(|m| m.role() == Role::System) {
            // The list now starts with a system message, which the
            // reference keeps from here on: run the reference loop.
            return Ok(msgs_of(&seg.msgs)
                .and_then(|msgs| {
                    reference_loop(seg.id, &seg.options, &msgs, env, counter, max_tokens)
                })
                .map(|p| p.plan)
                .unwrap_or_else(|e| TruncationPlan {
                    error: Some(e),
                    tokens_after: None,
                    method: PlanMethod::ReferenceLoop,
                    ..finish(pinned, None, 0, None)
                }));
        }
        match search_group(req, counter, env, known, s, max_tokens)? {
            Search::Fits(at, t) => return Ok(finish(at, Some(t), steps + (at - s), None)),
            Search::Over(last) => {
                steps += last - s;
                s = last;
                continue;
            }
            Search::Walk => {}
        }
        if let Total::Exact(t) = state_total(req, counter, env, s, max_tokens)? {
            if t <= max_tokens {
                return Ok(finish(s, Some(t), steps, None));
            }
        }
    }
}

/// A group search evaluates its guess and the state before it at once
/// from this many states (members) on: below, an evaluation is quicker
/// than handing one to another core (a standard session's plans at
/// 25,000 messages took 30% longer).
const SEARCH_BESIDE_FROM: usize = 1024;

/// A search inside a history group's states.
enum Search {
    /// The first state that fits, and its tokens.
    Fits(usize, i64),
    /// No state up to this one (inclusive) fits: go on from here.
    Over(usize),
    /// Evaluate this state on its own.
    Walk,
}

/// The reference loop drops a history group's members one at a time,
/// re-formatting and re-counting the rest of the group each time. When the
/// group's lines all start where the counter splits (`boundary.rs`), each
/// dropped member removes whole lines and their tokens, so the cost never
/// rises from one state to the next and the first state that fits is found
/// by bisection: O(log n) exact counts instead of n. The states searched
/// stop before a member that would lead the list as a `system` message (the
/// reference loop takes over there).
fn search_group(
    req: &CostedRequest,
    counter: &dyn MessageCounter,
    env: &MediaEnv,
    known: &mut MemberCosts,
    s: usize,
    max_tokens: i64,
) -> Result<Search, PyErr> {
    let seg = &req.seg;
    let Some(&u) = seg.unit_of.get(s) else {
        return Ok(Search::Walk);
    };
    let unit = &seg.units[u];
    let range = unit.range.clone();
    if unit.kind != UnitKind::AgentGroup || s <= range.start {
        return Ok(Search::Walk);
    }
    let limit = if seg.pinned {
        range.end
    } else {
        (s + 1..range.end)
            .find(|&k| seg.msgs[k].role() == Role::System)
            .unwrap_or(range.end)
    };
    if limit - s < 2 {
        return Ok(Search::Walk);
    }
    let rest = req.base + req.system.total() + req.suffix[u + 1];
    if rest > max_tokens {
        return Ok(Search::Over(limit - 1));
    }
    let Some(starts) = seg.member_line_starts(unit) else {
        return Ok(Search::Walk);
    };
    let first = |k: usize| starts[k - range.start];
    if !(s..limit).all(|k| counter.splits_after_newline(first(k))) {
        return Ok(Search::Walk);
    }
    let total_at = |k: usize, env: &MediaEnv| -> Result<i64, PyErr> {
        let tail = seg.partial_group(unit, k, env)?;
        Ok(rest + cost_of(counter, &tail)?.total())
    };
    // Each full evaluation re-formats the rest of the group, so guess the
    // answer from what each member's lines add, then prove it: a state
    // that fits after one that does not is the first (the cost never rises).
    // The guess walks from the group's first state, whose total the walk
    // has counted (an exact count of the rest at `s` formatted and counted
    // all of it: 130 ms of a plan of a one-group session of 100,000).
    let at_start = req.state_total_at_unit(u, counter, env)?;
    let states = range.start..limit;
    let guess = guess_first_fit(seg, counter, env, known, states, at_start, max_tokens)?;
    let guess = guess.max(s);
    let fits_on = |k: usize, env: &MediaEnv| -> Result<Option<i64>, PyErr> {
        let t = total_at(k, env)?;
        Ok((t <= max_tokens).then_some(t))
    };
    let fits = |k: usize| fits_on(k, env);
    // The guess is most often right, and the state before it is then the
    // other one a plan proves: the two are evaluated at once, that one on
    // another core (on a run of its own; the members are texts, which read
    // no media). Each is a group of thousands formatted and counted.
    let (at_guess, mut before_guess) = if guess > s && limit - s >= SEARCH_BESIDE_FROM {
        let run = env.runs().run();
        let (at_guess, (before, run)) =
            crate::parallel::beside(|| fits(guess), move || (fits_on(guess - 1, &run), run));
        env.absorb(run);
        (at_guess, Some(before))
    } else {
        (fits(guess), None)
    };
    // Gallop from the guess, then bisect. States before `lo` are over the
    // budget; `hi` fits (its tokens in `at_hi`), or is `limit`.
    let (mut lo, mut hi, mut at_hi) = (s, limit, None);
    match at_guess? {
        Some(t) => {
            (hi, at_hi) = (guess, Some(t));
            let mut step = 1;
            while hi > lo {
                let probe = hi.saturating_sub(step).max(lo);
                let probed = match before_guess.take() {
                    Some(before) if probe + 1 == guess => before,
                    _ => fits(probe),
                };
                match probed? {
                    Some(t) => (hi, at_hi) = (probe, Some(t)),
                    None => {
                        lo = probe + 1;
                        break;
                    }
                }
                step *= 2;
            }
        }
        None => {
            lo = guess + 1;
            let mut step = 1;
            while lo < limit {
                let probe = (lo + step - 1).min(limit - 1);
                match fits(probe)? {
                    Some(t) => {
                        (hi, at_hi) = (probe, Some(t));
                        break;
                    }
                    None => lo = probe + 1,
                }
                step *= 2;
            }
        }
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match fits(mid)? {
            Some(t) => (hi, at_hi) = (mid, Some(t)),
            None => lo = mid + 1,
        }
    }
    Ok(match at_hi {
        Some(t) if hi < limit => Search::Fits(hi, t),
        _ => Search::Over(limit - 1),
    })
}

/// Tokens of the list `system + msgs[s..]`.
fn state_total(
    req: &CostedRequest,
    counter: &dyn MessageCounter,
    env: &MediaEnv,
    s: usize,
    max_tokens: i64,
) -> Result<Total, PyErr> {
    let seg = &req.seg;
    if s >= seg.msgs.len() {
        let t = req.state_total_at_unit(seg.units.len(), counter, env)?;
        return Ok(Total::Exact(t));
    }
    let u = seg.unit_of[s];
    let unit = &seg.units[u];
    if s == unit.range.start {
        return Ok(Total::Exact(req.state_total_at_unit(u, counter, env)?));
    }
    // Inside a history group: the rest of the request, then the group's tail.
    let rest = req.base + req.system.total() + req.suffix[u + 1];
    if rest > max_tokens {
        return Ok(Total::Over);
    }
    let tail = seg.partial_group(unit, s, env)?;
    Ok(Total::Exact(rest + cost_of(counter, &tail)?.total()))
}

/// The reference run planned: the plan and the truncated request.
pub struct Planned {
    pub plan: TruncationPlan,
    pub formatted: Vec<Value>,
}

/// AgentScope's `format(msgs)` with a budget, planned: the first pass is
/// formatted and counted as the reference does (so its errors are the
/// reference's), then the steps are planned from unit costs. When the
/// formatter rewrites the list (promoted media) the reference loop runs.
pub fn plan_reference(
    id: FormatterId,
    options: &FormatOptions,
    msgs: &[Arc<Msg>],
    env: &MediaEnv,
    counter: &dyn MessageCounter,
    max_tokens: i64,
) -> Result<Planned, PyErr> {
    if max_tokens <= 0 {
        return Err(PyErr::assertion("max_tokens must be greater than 0"));
    }
    let mut working = msgs.to_vec();
    let warnings_before = env.warning_count();
    let first = format_once(id, options, &mut working, env)?;
    let n0 = counter.count(&first)?;
    // The reference warns again on every pass; when this request warns at
    // all, run the reference loop so the warnings come out as it gives them.
    let warns = env.warning_count() > warnings_before;
    let all: Vec<usize> = (0..msgs.len()).collect();
    if n0 <= max_tokens {
        return Ok(Planned {
            plan: TruncationPlan {
                max_tokens,
                tokens_before: n0,
                kept: all,
                dropped: Vec::new(),
                tokens_after: Some(n0),
                steps: 0,
                error: None,
                method: PlanMethod::Units,
            },
            formatted: first,
        });
    }
    // No content keys here: each message is its own (equal unit keys must
    // mean equal output).
    let keys: Vec<u64> = (0..msgs.len() as u64).collect();
    let costed = if working.len() == msgs.len() && !warns {
        match Segmented::build(id, options, &live_items(msgs), &keys, env, None) {
            Ok(seg) => CostedRequest::count(seg, counter, env).ok(),
            Err(SegmentError::Promotion | SegmentError::Format(_)) => None,
        }
    } else {
        None
    };
    let Some(costed) = costed else {
        env.truncate_warnings(warnings_before);
        return reference_loop(id, options, msgs, env, counter, max_tokens);
    };
    let plan = plan(
        &costed,
        counter,
        env,
        max_tokens,
        &mut MemberCosts::default(),
    )?;
    if let Some(e) = &plan.error {
        return Err(e.clone());
    }
    let mut kept: Vec<Arc<Msg>> = plan.kept.iter().map(|&i| Arc::clone(&msgs[i])).collect();
    let formatted = format_once(id, options, &mut kept, env)?;
    Ok(Planned { plan, formatted })
}

fn reference_loop(
    id: FormatterId,
    options: &FormatOptions,
    msgs: &[Arc<Msg>],
    env: &MediaEnv,
    counter: &dyn MessageCounter,
    max_tokens: i64,
) -> Result<Planned, PyErr> {
    let budget = Budget {
        counter,
        max_tokens,
    };
    let run = formatter::format_traced(id, options, msgs, env, Some(budget))?;
    let kept: Vec<usize> = (0..msgs.len())
        .filter(|&i| run.working.iter().any(|w| Arc::ptr_eq(w, &msgs[i])))
        .collect();
    let dropped = (0..msgs.len()).filter(|i| !kept.contains(i)).collect();
    Ok(Planned {
        plan: TruncationPlan {
            max_tokens,
            tokens_before: run.first_count.unwrap_or_default(),
            kept,
            dropped,
            tokens_after: run.last_count,
            steps: run.steps,
            error: None,
            method: PlanMethod::ReferenceLoop,
        },
        formatted: run.formatted,
    })
}
