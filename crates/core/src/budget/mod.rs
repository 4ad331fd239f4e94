//! The token budget of a session under one formatter and model: the count
//! by message and by category, kept up to date incrementally (an edit
//! re-formats and re-counts only the unit it touches), and truncation plans.

use crate::formatter::{
    self, Build, FormatOptions, FormattedRequest, FormatterId, SegmentError, Segmented, UnitKind,
    SYSTEM_UNIT,
};
use crate::json;
use crate::media::MediaEnv;
use crate::py::{self, PyErr};
use crate::session::{live_items, msgs_of, Msg, MsgItem, PackedMessage};
use crate::tokens::truncation_counter::CharCounter;
use crate::tokens::{Category, Cost, CounterSpec, MessageCounter, ModelInfo, ProviderCounter};
use crate::truncate::{self, CostedRequest, MemberCosts, UnitCost};
use rustc_hash::FxHashMap;
use serde_json::Value;
use std::sync::Arc;

mod learnt;
mod plan;
mod report;
mod shares;
mod who;

pub use report::{MessageTokens, TokenReport};

/// A unit's cost and, for a `<history>` group, what its count learnt.
type Counted = Result<shares::Costed, PyErr>;

/// The request `build` cuts, each unit it formats counted by `counter`
/// while its output is a tree ([`Segmented::build_counting`]).
fn build_costed(
    build: Build<'_>,
    counter: &ProviderCounter,
    env: &MediaEnv,
) -> Result<(Segmented, Vec<Option<Counted>>), SegmentError> {
    Segmented::build_counting(build, env, &|unit, out| {
        shares::cost_formatted(counter, build.list, unit, out)
    })
}

/// A session's messages formatted and counted, unit by unit, with caches
/// keyed by content so an edit costs only what it changed.
pub struct BudgetModel {
    pub formatter: FormatterId,
    options: FormatOptions,
    counter: ProviderCounter,
    env: MediaEnv,
    /// Each message's content key. The messages themselves (the session's
    /// own packed dicts, not copies of them, checked as `Msg.from_dict`
    /// checks them) are the request's: [`BudgetModel::msgs`].
    keys: Vec<u64>,
    /// Who said each message (kept with `keys`).
    who: who::Who,
    tools: Option<Value>,
    tool_schemas: i64,
    request: CostedRequest,
    total: i64,
    /// Each `<history>` group's members' own counts, by the group's key:
    /// learnt as the group was counted, or counted apart when a report
    /// first needs them (`shares`). A group's shares are made from them.
    own: FxHashMap<u64, Vec<i64>>,
    /// Whether a full report was made: every group's own counts are then
    /// known, and the next report costs only what changed.
    split: bool,
    /// Whether every group of the request as it is now has its members'
    /// own counts: a report after no change then looks none up (a lookup
    /// a group, which at 100,000 messages had outgrown the caches).
    own_known: bool,
    /// What truncation counts with (AgentScope's `token_counter`), its
    /// unit costs by content, and the request costed with it (its
    /// segmented request taken out: it is the model's, lent to each plan;
    /// see `plan`).
    truncation: CounterSpec,
    trunc_counter: Box<dyn MessageCounter>,
    trunc_costs: FxHashMap<u64, UnitCost>,
    trunc_request: Option<CostedRequest>,
    /// History-group members' marginal costs under the counter plans
    /// count with, which each plan's search starts from (by content).
    member_costs: MemberCosts,
}

/// Why a session has no budget figures.
#[derive(Debug, Clone)]
pub enum BudgetError {
    /// Message `index` is not a valid AgentScope `Msg`: AgentScope's error,
    /// and why in plain words.
    PackedMessage {
        index: usize,
        error: PyErr,
        why: Option<String>,
    },
    /// The formatter or the counter raised.
    Format(PyErr),
}

impl std::fmt::Display for BudgetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BudgetError::PackedMessage { index, error, .. } => {
                write!(f, "message {index}: {}: {}", error.kind, error.message)
            }
            BudgetError::Format(e) => write!(f, "{}: {}", e.kind, e.message),
        }
    }
}

impl BudgetModel {
    pub fn new(
        formatter: FormatterId,
        options: FormatOptions,
        model: ModelInfo,
        messages: impl IntoIterator<Item = impl Into<PackedMessage>>,
        tools: Option<Value>,
        env: MediaEnv,
    ) -> Result<Self, BudgetError> {
        let messages: Vec<PackedMessage> = messages.into_iter().map(Into::into).collect();
        Self::new_after(None, formatter, options, model, &messages, tools, env)
    }

    /// [`Self::new`] for messages that `previous` (a model of another
    /// formatter or model: a provider switch) already read: each message
    /// where it was is taken as `previous` checked it (`Msg.from_dict`),
    /// not checked again; the rest is read afresh.
    pub fn new_after(
        previous: Option<&BudgetModel>,
        formatter: FormatterId,
        options: FormatOptions,
        model: ModelInfo,
        messages: &[PackedMessage],
        tools: Option<Value>,
        env: MediaEnv,
    ) -> Result<Self, BudgetError> {
        let counter = ProviderCounter::new(model, Some(Arc::clone(env.gate())));
        let keys = crate::formatter::message_keys(messages);
        let (known_keys, known) = previous.map_or((&[][..], &[][..]), |p| (&p.keys[..], p.msgs()));
        // Checked on every core; the first bad message in order is the one
        // reported.
        let checked = crate::parallel::map(messages, |index, m| {
            if known_keys.get(index) == Some(&keys[index]) {
                Ok(known[index].clone())
            } else {
                MsgItem::packed(m.clone())
            }
        });
        let mut msgs = Vec::with_capacity(messages.len());
        for (index, item) in checked.into_iter().enumerate() {
            msgs.push(item.map_err(|(error, why)| BudgetError::PackedMessage {
                index,
                error,
                why,
            })?);
        }
        let who = who::Who::of(&msgs);
        // Promotion allowed: right for counting; plans then run the reference loop.
        let list = Arc::new(msgs);
        let build = Build {
            id: formatter,
            options: &options,
            list: &list,
            keys: &keys,
            previous: None,
            allow_promotion: true,
        };
        let (seg, fresh) = build_costed(build, &counter, &env).map_err(segment_error)?;
        let mut model = BudgetModel {
            formatter,
            options,
            counter,
            env,
            keys,
            who,
            tools,
            tool_schemas: 0,
            // Nothing counted before: `cost` finds no unit to reuse.
            request: CostedRequest::new(
                Segmented::empty(formatter, seg.options.clone()),
                0,
                Cost::default(),
                Vec::new(),
            ),
            total: 0,
            own: FxHashMap::default(),
            split: false,
            own_known: false,
            truncation: CounterSpec::Provider,
            trunc_counter: Box::new(CharCounter),
            trunc_costs: FxHashMap::default(),
            trunc_request: None,
            member_costs: MemberCosts::default(),
        };
        model.set_truncation_counter(CounterSpec::default());
        model.tool_schemas = model.count_tools();
        model.request = model.cost(seg, fresh)?;
        Ok(model)
    }

    /// The media environment its formatting runs in.
    pub fn env(&self) -> &MediaEnv {
        &self.env
    }

    /// What this model's formatting runs may read and download.
    pub fn gate(&self) -> &Arc<crate::media::Gate> {
        self.env.gate()
    }

    pub fn counter(&self) -> &ProviderCounter {
        &self.counter
    }

    /// Replaces message `index` and recounts only what it changed.
    pub fn set_message(
        &mut self,
        index: usize,
        value: impl Into<PackedMessage>,
    ) -> Result<(), BudgetError> {
        let value: PackedMessage = value.into();
        if index >= self.msgs().len() {
            return Err(BudgetError::Format(PyErr::new(
                "IndexError",
                "list assignment index out of range",
            )));
        }
        let key = value.key();
        let msg = MsgItem::packed(value).map_err(|(error, why)| BudgetError::PackedMessage {
            index,
            error,
            why,
        })?;
        self.keys[index] = key;
        self.who.set(index, &msg);
        let replaced = self
            .request
            .seg
            .replace_message(index, msg.clone(), &self.keys, &self.env)
            .map_err(|e| {
                self.trunc_request = None;
                segment_error(e)
            })?;
        let Some(u) = replaced else {
            return self.relist(|list| list[index] = msg);
        };
        self.follow_edit(u);
        let cost = if u == SYSTEM_UNIT {
            let system = truncate::cost_of(&self.counter, &self.request.seg.system)
                .map_err(BudgetError::Format)?
                .recategorised(Category::SystemPrompt);
            UnitCost::from(system)
        } else {
            let seg = &self.request.seg;
            let unit = &seg.units[u];
            let costed =
                shares::cost_unit(&self.counter, self.msgs(), unit).map_err(BudgetError::Format)?;
            let mut cost = costed.cost;
            if self.request.first_group() == Some(u) {
                self.learn_prompted(seg, u, &mut cost, costed.tail);
            }
            if let Some(own) = costed.own {
                self.own.insert(unit.key, own);
            }
            cost
        };
        self.request.set_cost(u, cost);
        self.own_known = false;
        self.total = self
            .request
            .total(&self.counter, &self.env)
            .map_err(BudgetError::Format)?;
        Ok(())
    }

    /// Inserts, removes or reorders messages: the whole list, re-cut into
    /// units, with every unchanged unit's output and count reused.
    pub fn set_messages(&mut self, messages: &[PackedMessage]) -> Result<(), BudgetError> {
        // Only the middle that changed is read (and only it cloned): the
        // messages before the first change and after the last stay where
        // they are (an edit at 100,000 messages had cloned and dropped
        // every item, a third of a warm count, and more as the list
        // outgrew the caches).
        let (old, new) = (self.keys.len(), messages.len());
        let prefix = self
            .keys
            .iter()
            .zip(messages)
            .take_while(|(k, m)| **k == m.key())
            .count();
        if prefix == old && old == new {
            return Ok(());
        }
        let suffix = self
            .keys
            .iter()
            .rev()
            .zip(messages.iter().rev())
            .take((old - prefix).min(new - prefix))
            .take_while(|(k, m)| **k == m.key())
            .count();
        let old_end = old - suffix;
        // A message where it was is taken from there; only a moved one is
        // looked up by content (the map, of the old middle, is built on the
        // first).
        let mut by_key: Option<FxHashMap<u64, MsgItem>> = None;
        let mut msgs = Vec::with_capacity(new - suffix - prefix);
        let mut keys = Vec::with_capacity(new - suffix - prefix);
        let middle = messages.iter().enumerate().take(new - suffix).skip(prefix);
        for (index, m) in middle {
            let key = m.key();
            let here =
                (index < old_end && self.keys[index] == key).then(|| self.msgs()[index].clone());
            let moved = || {
                by_key
                    .get_or_insert_with(|| {
                        self.keys[prefix..old_end]
                            .iter()
                            .copied()
                            .zip(self.msgs()[prefix..old_end].iter().cloned())
                            .collect()
                    })
                    .get(&key)
                    .cloned()
            };
            let msg = match here.or_else(moved) {
                Some(msg) => msg,
                None => MsgItem::packed(m.clone())
                    .map_err(|(error, why)| BudgetError::PackedMessage { index, error, why })?,
            };
            msgs.push(msg);
            keys.push(key);
        }
        self.keys.splice(prefix..old_end, keys);
        self.who.splice(prefix..old_end, &msgs);
        self.relist(|list| {
            list.splice(prefix..old_end, msgs);
        })
    }

    /// The message list changed by `change` and the request cut again. The
    /// list is the request's alone while it changes (the truncation
    /// counter's copy of the request let go first): changed in place,
    /// never copied.
    fn relist(&mut self, change: impl FnOnce(&mut Vec<MsgItem>)) -> Result<(), BudgetError> {
        self.trunc_request = None;
        let mut list = std::mem::take(&mut self.request.seg.msgs);
        change(Arc::make_mut(&mut list));
        self.rebuild(list)
    }

    /// The messages, in order.
    fn msgs(&self) -> &[MsgItem] {
        &self.request.seg.msgs
    }

    /// Costs the request cut from `list` (the units of the request before
    /// it reused by content). On an error the model is left empty, never
    /// holding a request cut from a list it no longer has.
    fn rebuild(&mut self, list: Arc<Vec<MsgItem>>) -> Result<(), BudgetError> {
        let build = Build {
            id: self.formatter,
            options: &self.options,
            list: &list,
            keys: &self.keys,
            previous: Some(&self.request.seg),
            allow_promotion: true,
        };
        let built = build_costed(build, &self.counter, &self.env).map_err(segment_error);
        let costed = built.and_then(|(seg, fresh)| self.cost(seg, fresh));
        self.trunc_request = None;
        match costed {
            Ok(request) => {
                self.request = request;
                Ok(())
            }
            Err(e) => {
                self.keys.clear();
                self.who.clear();
                self.total = 0;
                self.request = CostedRequest::new(
                    Segmented::empty(self.formatter, self.options.clone()),
                    0,
                    Cost::default(),
                    Vec::new(),
                );
                Err(e)
            }
        }
    }

    /// Costs `seg`: each unit as `fresh` counted it while it was formatted,
    /// as the request before counted the same content, or counted now.
    fn cost(
        &mut self,
        seg: Segmented,
        mut fresh: Vec<Option<Counted>>,
    ) -> Result<CostedRequest, BudgetError> {
        let system = truncate::cost_of(&self.counter, &seg.system)
            .map_err(BudgetError::Format)?
            .recategorised(Category::SystemPrompt);
        self.own_known = false;
        // What the request before this one counted, by content: an edit
        // counts only the units it changed. (Kept as the request's own
        // costs, not as a second map beside them.)
        let mut known = learnt::Learnt::of(&self.request);
        let len = seg.units.len();
        // A count that raised is counted again in order, so the first
        // error in the units' order is the one reported.
        let counted = truncate::cost_units_by(
            &seg.units,
            |i, u| match fresh.get_mut(i).and_then(Option::take) {
                Some(Ok(counted)) => Some(counted),
                _ => known.get(i, len, u.key).map(|cost| shares::Costed {
                    cost,
                    own: None,
                    tail: None,
                }),
            },
            |u| shares::cost_unit(&self.counter, &seg.msgs, u),
        )
        .map_err(BudgetError::Format)?;
        drop(known);
        let first_group = seg
            .units
            .iter()
            .position(|u| u.kind == UnitKind::AgentGroup);
        let mut units = Vec::with_capacity(counted.len());
        let mut first_tail = None;
        for (k, (unit, costed)) in seg.units.iter().zip(counted).enumerate() {
            units.push(costed.cost);
            if first_group == Some(k) {
                first_tail = costed.tail;
            }
            if let Some(own) = costed.own {
                self.own.insert(unit.key, own);
            }
        }
        if let Some(g) = first_group {
            self.learn_prompted(&seg, g, &mut units[g], first_tail);
        }
        // Groups no longer in the request.
        if self.own.len() > seg.units.len() {
            let keys: rustc_hash::FxHashSet<u64> = seg.units.iter().map(|u| u.key).collect();
            self.own.retain(|k, _| keys.contains(k));
        }
        let req = CostedRequest::new(seg, self.counter.base(), system, units);
        self.total = req
            .total(&self.counter, &self.env)
            .map_err(BudgetError::Format)?;
        Ok(req)
    }

    /// The first history group's cost with the history prompt, where its
    /// count without learnt what its lines cost ([`shares::Tail`]):
    /// counted from the prompted text's head and end before the request's
    /// total asks for it, instead of the whole prompted text again. Where
    /// formatting or counting it raises, it is left to the total, which
    /// raises the same in its place.
    fn learn_prompted(
        &self,
        seg: &Segmented,
        g: usize,
        cost: &mut UnitCost,
        tail: Option<shares::Tail>,
    ) {
        let (Some(tail), None) = (tail, cost.prompted) else {
            return;
        };
        let unit = &seg.units[g];
        let Ok(prompted) = seg.prompted(unit, &self.env) else {
            return;
        };
        cost.prompted = shares::prompted_cost(&self.counter, &seg.msgs, unit, &prompted, tail).ok();
    }

    fn count_tools(&self) -> i64 {
        let Some(tools) = self.tools.as_ref().filter(|t| py::truthy(t)) else {
            return 0;
        };
        match formatter::format_tools(self.formatter.provider, tools, &mut |_| {}) {
            Ok(Value::Array(list)) => self.counter.tools(&list),
            _ => 0,
        }
    }

    /// Tokens of the formatted messages (the truncation budget's measure).
    pub fn messages_total(&self) -> i64 {
        self.total
    }

    pub fn report(&mut self) -> TokenReport {
        self.report_with(true)
    }

    /// Whether a full report was made (later ones reuse its split).
    pub fn has_split(&self) -> bool {
        self.split
    }

    /// [`Self::report`] without the per-message figures (`messages` is
    /// empty): every total, without splitting the `<history>` groups among
    /// their members (free where the count learnt the members' own counts,
    /// BPE again where their lines are counted apart). The workbench shows
    /// the budget with it while the split is made.
    pub fn totals(&mut self) -> TokenReport {
        self.report_with(false)
    }

    fn report_with(&mut self, per_message: bool) -> TokenReport {
        let mut by_category = self.request.system;
        // The request's own framing (reply priming, BOS, generation prompt).
        by_category.add(Category::Conversation, self.request.base);
        let mut messages = Vec::with_capacity(if per_message { self.msgs().len() } else { 0 });
        if per_message {
            self.count_own_apart();
            self.split = true;
        }
        let in_full = self.request.unit_costs_in_full(&self.counter, &self.env);
        let mut speakers = self.who.places();
        if self.request.seg.pinned && per_message {
            let (speaker, role) = speakers.of(0);
            messages.push(MessageTokens {
                index: 0,
                speaker,
                role,
                tokens: self.request.system.total(),
                shared: false,
            });
        }
        // The units read in place, not cloned (a clone touches every
        // unit's reference count twice).
        let mut shares = Vec::new();
        for (unit, cost) in self.request.seg.units.iter().zip(in_full) {
            by_category += cost;
            if !per_message {
                continue;
            }
            // Into one buffer, not a list per unit (a warm count at
            // 100,000 messages made 25,000).
            shares.clear();
            if unit.kind == UnitKind::AgentGroup && unit.range.len() > 1 {
                self.group_shares(unit.key, unit.range.clone(), cost.total(), &mut shares);
            } else {
                shares.push(cost.total());
            }
            for (i, &tokens) in unit.range.clone().zip(&shares) {
                let (speaker, role) = speakers.of(i);
                messages.push(MessageTokens {
                    index: i,
                    speaker,
                    role,
                    tokens,
                    shared: unit.range.len() > 1,
                });
            }
        }
        let messages_total = self.total;
        let exact_categories: Vec<(Category, bool)> = Category::ALL
            .iter()
            .map(|c| (*c, self.counter.exact(Some(*c))))
            .collect();
        let messages_estimated = exact_categories
            .iter()
            .any(|(c, exact)| !exact && by_category.get(*c) != 0);
        let used_estimate =
            messages_estimated || (self.tool_schemas != 0 && !self.counter.exact(None));
        TokenReport {
            formatter: self.formatter,
            model: self.counter.info.clone(),
            messages_total,
            framing: self.request.base,
            tool_schemas: self.tool_schemas,
            total: messages_total + self.tool_schemas,
            by_category,
            messages,
            speakers: speakers.into_names(),
            exact: !used_estimate,
            messages_exact: !messages_estimated,
            exact_categories,
            tool_schemas_exact: self.counter.exact(None),
        }
    }

    /// Counts apart, on every core, the members' own counts of the
    /// `<history>` groups whose count did not give them (see `shares`).
    fn count_own_apart(&mut self) {
        if self.own_known {
            return;
        }
        let missing: Vec<(u64, std::ops::Range<usize>)> = self
            .request
            .seg
            .units
            .iter()
            .filter(|u| u.kind == UnitKind::AgentGroup && u.range.len() > 1)
            .filter(|u| {
                self.own
                    .get(&u.key)
                    .is_none_or(|o| o.len() != u.range.len())
            })
            .map(|u| (u.key, u.range.clone()))
            .collect();
        let (counter, msgs) = (&self.counter, self.msgs());
        let counted = crate::parallel::map(&missing, |_, (key, range)| {
            let own = shares::counted_apart(counter, msgs, range.clone());
            (*key, own)
        });
        self.own.extend(counted);
        self.own_known = true;
    }

    /// A group's count split among its members by their own counts, into
    /// `out`.
    fn group_shares(
        &self,
        key: u64,
        range: std::ops::Range<usize>,
        total: i64,
        out: &mut Vec<i64>,
    ) {
        match self.own.get(&key) {
            Some(own) if own.len() == range.len() => {
                out.extend_from_slice(own);
                shares::shares_of(out, total);
            }
            _ => out.extend(std::iter::repeat_n(
                total / range.len().max(1) as i64,
                range.len(),
            )),
        }
    }

    /// The formatted request with, per unit, `(input messages, output
    /// messages)` ranges: which part of the request came from which message.
    /// The request AgentScope sends after truncation keeps the messages
    /// `kept` (a plan's): the formatter's output for those messages.
    pub fn formatted_kept(&self, kept: &[usize]) -> Result<Vec<Value>, PyErr> {
        let msgs: Vec<Arc<Msg>> = kept
            .iter()
            .filter_map(|i| self.msgs().get(*i))
            .map(MsgItem::msg)
            .collect::<Result<_, _>>()?;
        crate::formatter::format(self.formatter, &self.options, &msgs, &self.env, None)
    }

    pub fn formatted_with_spans(&self) -> Result<FormattedRequest, PyErr> {
        let (messages, spans) = self.request.seg.assemble_with_spans(0, &self.env)?;
        Ok(FormattedRequest { messages, spans })
    }

    /// The request formatter `id` makes of these messages, or of only
    /// those `kept` (the request after truncation), with spans in this
    /// session's message indices: the compare view's other side.
    pub fn formatted_by(
        &self,
        id: FormatterId,
        kept: Option<&[usize]>,
    ) -> Result<FormattedRequest, PyErr> {
        let Some(kept) = kept else {
            if id == self.formatter {
                return self.formatted_with_spans();
            }
            return formatted_items_with_spans(
                id,
                &self.options,
                self.msgs(),
                &self.keys,
                &self.env,
            );
        };
        let kept: Vec<usize> = kept
            .iter()
            .copied()
            .filter(|i| *i < self.msgs().len())
            .collect();
        let msgs: Vec<MsgItem> = kept.iter().map(|i| self.msgs()[*i].clone()).collect();
        let keys: Vec<u64> = kept.iter().map(|i| self.keys[*i]).collect();
        let mut out = formatted_items_with_spans(id, &self.options, &msgs, &keys, &self.env)?;
        for (input, _) in &mut out.spans {
            let start = kept.get(input.start).copied().unwrap_or(self.msgs().len());
            let end = match input.end.checked_sub(1).and_then(|last| kept.get(last)) {
                Some(last) => last + 1,
                None => start,
            };
            *input = start..end;
        }
        Ok(out)
    }

    /// [`BudgetModel::formatted_with_spans`] a piece at a time (see
    /// [`Segmented::pieces`]): each unit's output messages, still packed,
    /// and the input messages they came from.
    ///
    /// [`Segmented::pieces`]: crate::formatter::Segmented::pieces
    pub fn pieces(&self) -> Result<crate::formatter::Pieces<'_>, PyErr> {
        self.request.seg.pieces(0, &self.env)
    }

    /// The attribution of `request` (this model's formatted request) to
    /// source messages and rules.
    pub fn explain_formatted(&self, request: &FormattedRequest) -> crate::explain::Explained {
        let msgs = msgs_of(self.msgs()).unwrap_or_default();
        crate::explain::formatted(self.formatter, &msgs, request, "")
    }

    /// The provider's tool schemas, formatted (`[]` without tools).
    pub fn formatted_tools(&self) -> Result<Value, PyErr> {
        let tools = self
            .tools
            .clone()
            .filter(py::truthy)
            .unwrap_or_else(|| json!([]));
        formatter::format_tools(self.formatter.provider, &tools, &mut |_| {})
    }

    /// The formatted request (every message kept).
    pub fn formatted(&self) -> Vec<Value> {
        self.request.seg.assemble(0, &self.env).unwrap_or_default()
    }
}

/// `msgs` formatted by `id`, with which output messages each input
/// message (or `<history>` group) produced.
pub fn formatted_with_spans(
    id: FormatterId,
    options: &FormatOptions,
    msgs: &[Arc<Msg>],
    keys: &[u64],
    env: &MediaEnv,
) -> Result<FormattedRequest, PyErr> {
    formatted_items_with_spans(id, options, &live_items(msgs), keys, env)
}

fn formatted_items_with_spans(
    id: FormatterId,
    options: &FormatOptions,
    msgs: &[MsgItem],
    keys: &[u64],
    env: &MediaEnv,
) -> Result<FormattedRequest, PyErr> {
    let seg =
        Segmented::build_with(id, options, msgs, keys, env, None, true).map_err(|e| match e {
            SegmentError::Format(e) => e,
            SegmentError::Promotion => PyErr::value("promoted media"),
        })?;
    let (messages, spans) = seg.assemble_with_spans(0, env)?;
    Ok(FormattedRequest { messages, spans })
}

fn segment_error(e: SegmentError) -> BudgetError {
    match e {
        SegmentError::Format(e) => BudgetError::Format(e),
        // Not raised: promotion is allowed when counting.
        SegmentError::Promotion => BudgetError::Format(PyErr::value("promoted media")),
    }
}
