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
    /// Shared with the session's message (10,000 messages, one name each).
    pub name: Arc<str>,
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
    /// Whether each figure is an exact count or an estimate: the whole
    /// request, and the formatted messages alone (what a budget measures).
    pub exact: bool,
    pub messages_exact: bool,
    pub exact_categories: Vec<(Category, bool)>,
    pub tool_schemas_exact: bool,
}

impl TokenReport {
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
                "index": m.index, "name": m.name, "role": m.role, "tokens": m.tokens, "shared": m.shared,
            })).collect::<Vec<_>>(),
        });
        if let Some(note) = &self.model.note {
            out["note"] = json!(note);
        }
        out
    }
}
