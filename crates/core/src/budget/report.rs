//! The budget meter's figures: the request's count by message and by
//! category, each marked exact or estimated, as the panes and `count
//! --json` show them.

use crate::formatter::FormatterId;
use crate::session::Role;
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
    pub role: Role,
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
                "index": m.index, "name": self.name(m), "role": m.role.as_str(), "tokens": m.tokens, "shared": m.shared,
            })).collect::<Vec<_>>(),
        });
        if let Some(note) = &self.model.note {
            out["note"] = json!(note);
        }
        out
    }
}

/// Speakers' names, each given its place (a number) the first time it is
/// seen.
#[derive(Default)]
pub(super) struct Speakers {
    names: Vec<Arc<str>>,
    /// Every name's place, once there are more than [`FEW`] (a session
    /// has a handful of speakers, found faster by comparing than hashing).
    places: rustc_hash::FxHashMap<Arc<str>, u32>,
}

/// Speakers looked up by comparing each name before a hash map is kept.
const FEW: usize = 8;

impl Speakers {
    /// `name`'s place, given one the first time it is seen.
    pub(super) fn place(&mut self, name: &str) -> u32 {
        if self.names.len() <= FEW {
            if let Some(place) = self.names.iter().position(|n| same(n, name)) {
                return place as u32;
            }
        } else if let Some(&place) = self.places.get(name) {
            return place;
        }
        let place = self.names.len() as u32;
        self.names.push(name.into());
        if self.names.len() > FEW {
            if self.places.is_empty() {
                let known = self.names.iter().enumerate();
                self.places = known.map(|(i, n)| (Arc::clone(n), i as u32)).collect();
            } else {
                self.places
                    .insert(Arc::clone(&self.names[place as usize]), place);
            }
        }
        place
    }

    /// The name given `place`.
    pub(super) fn name(&self, place: u32) -> Option<&Arc<str>> {
        self.names.get(place as usize)
    }
}

/// `a == b` for names, which are short: a word at a time, without a call
/// to `memcmp` (the report asks it of every message).
#[inline]
fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| {
        let mut w = [0; 8];
        w.copy_from_slice(&s[at..at + 8]);
        u64::from_le_bytes(w)
    };
    let half = |s: &[u8], at: usize| {
        let mut w = [0; 4];
        w.copy_from_slice(&s[at..at + 4]);
        u32::from_le_bytes(w)
    };
    // The first and last eight (or four) bytes, overlapping, cover it.
    let n = a.len();
    match n {
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        4..8 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        0..4 => a.iter().zip(b).all(|(x, y)| x == y),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each name keeps the place it was first given, however many names
    /// there are and however long or alike they are.
    #[test]
    fn a_name_keeps_its_first_place() {
        let names: Vec<String> = (0..40)
            .map(|i| match i % 4 {
                0 => format!("s{i}"),
                1 => format!("speaker {i:02}"),
                2 => format!("a speaker with a long name, number {i}"),
                _ => "é".repeat(i % 9),
            })
            .collect();
        let mut speakers = Speakers::default();
        let mut first: Vec<&str> = Vec::new();
        for round in 0..3 {
            for name in names.iter().rev().skip(round) {
                let place = speakers.place(name) as usize;
                if place == first.len() {
                    first.push(name);
                }
                assert_eq!(first[place], name.as_str(), "round {round}");
            }
        }
        let placed: Vec<String> = (0..)
            .map_while(|place| speakers.name(place))
            .map(|n| n.to_string())
            .collect();
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(placed.len(), unique.len());
    }

    #[test]
    fn names_compare_as_strings() {
        for (a, b) in [
            ("", ""),
            ("Bob", "Bob"),
            ("Bob", "Bo"),
            ("Alice", "Alicf"),
            ("12345678", "12345679"),
            ("Alice", "Blice"),
            ("Fri", "Frj"),
            ("system", "Friday"),
            ("0123456789abcdef", "0123456789abcdeF"),
            ("0123456789abcdef", "X123456789abcdef"),
            ("0123456789abcdefg", "0123456789abcdefg"),
            ("0123456789abcdefg", "0123456789abcdefh"),
        ] {
            assert_eq!(same(a, b), a == b, "{a:?} {b:?}");
        }
    }
}
