//! The budget meter's figures: the request's count by message and by
//! category, each marked exact or estimated, as the panes and `count
//! --json` show them.

use crate::formatter::FormatterId;
use crate::tokens::{Category, Cost, ModelInfo};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// One input message's share of the count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageTokens {
    pub index: usize,
    /// Its name's place in the report's [`TokenReport::speakers`]: a
    /// session has a few speakers and many messages, and a name held by
    /// each entry was a reference count raised and lowered per message,
    /// two fifths of a warm count at 100,000 messages.
    pub speaker: u32,
    pub role: &'static str,
    pub tokens: i64,
    /// A share of a `<history>` group's count (what the member's lines
    /// cost in it; see `budget::shares`), not a count of its own.
    pub shared: bool,
}

/// The budget meter's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenReport {
    pub formatter: FormatterId,
    pub model: ModelInfo,
    /// Formatted messages (what AgentScope's truncation budgets).
    pub messages_total: i64,
    /// Tokens of the request's own framing (in "conversation").
    pub framing: i64,
    pub tool_schemas: i64,
    /// Messages plus tool schemas: the request.
    pub total: i64,
    pub by_category: Cost,
    pub messages: Vec<MessageTokens>,
    /// The messages' names, each once ([`TokenReport::name`]).
    pub speakers: Vec<Arc<str>>,
    /// Whether each figure is an exact count or an estimate: the whole
    /// request, and the formatted messages alone (what a budget measures).
    pub exact: bool,
    pub messages_exact: bool,
    pub exact_categories: Vec<(Category, bool)>,
    pub tool_schemas_exact: bool,
}

impl TokenReport {
    /// The name of the message `m` of this report.
    pub fn name(&self, m: &MessageTokens) -> &str {
        self.speakers.get(m.speaker as usize).map_or("", |n| n)
    }

    pub fn to_json(&self) -> Value {
        let mut categories = Map::new();
        for (cat, exact) in &self.exact_categories {
            categories.insert(
                cat.id().into(),
                json!({"tokens": self.by_category.get(*cat), "exact": exact}),
            );
        }
        categories.insert(
            "tool_schemas".into(),
            json!({"tokens": self.tool_schemas, "exact": self.tool_schemas_exact}),
        );
        let mut out = json!({
            "formatter": self.formatter.class_name(),
            "provider": self.model.provider.id(),
            "model": self.model.model,
            "model_assumed": self.model.assumed,
            "tokenizer": self.model.tokenizer.describe(),
            "exact": self.exact,
            "messages_exact": self.messages_exact,
            "total": self.total,
            "messages_total": self.messages_total,
            "request_framing": self.framing,
            "context_window": self.model.context_window,
            "max_output": self.model.max_output,
            "categories": categories,
            "messages": self.messages.iter().map(|m| json!({
                "index": m.index, "name": self.name(m), "role": m.role, "tokens": m.tokens, "shared": m.shared,
            })).collect::<Vec<_>>(),
        });
        if let Some(note) = &self.model.note {
            out["note"] = json!(note);
        }
        out
    }
}

/// A report's speakers while it is made: each name the messages share
/// (one `Arc` each, told apart by address) given its place once. Every
/// name placed is held in `names`, so no address is freed and reused for
/// another name while this lives.
#[derive(Default)]
pub(super) struct Speakers {
    names: Vec<Arc<str>>,
    places: rustc_hash::FxHashMap<*const u8, u32>,
    /// The last name looked up: consecutive messages often share one.
    last: Option<(*const u8, u32)>,
}

impl Speakers {
    /// `name`'s place, given one the first time it is seen.
    pub(super) fn place(&mut self, name: &Arc<str>) -> u32 {
        let at = Arc::as_ptr(name).cast::<u8>();
        if let Some((last, place)) = self.last {
            if last == at {
                return place;
            }
        }
        let place = *self.places.entry(at).or_insert_with(|| {
            self.names.push(Arc::clone(name));
            (self.names.len() - 1) as u32
        });
        self.last = Some((at, place));
        place
    }

    pub(super) fn into_names(self) -> Vec<Arc<str>> {
        self.names
    }
}
