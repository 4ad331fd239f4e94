//! What every counter shares: a request's tokens are a fixed base plus the
//! sum of its formatted messages' costs. That additivity is what lets counts
//! be cached per message and truncation be planned without re-counting.

use crate::media::WebFetcher;
use crate::py::PyErr;
use serde_json::Value;

use super::OpenAiTokenCounter;

/// Where a message's tokens go in the budget meter's breakdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    SystemPrompt,
    Conversation,
    ToolCalls,
    ToolResults,
    Media,
}

impl Category {
    pub const ALL: [Category; 5] = [
        Category::SystemPrompt,
        Category::Conversation,
        Category::ToolCalls,
        Category::ToolResults,
        Category::Media,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Category::SystemPrompt => "system_prompt",
            Category::Conversation => "conversation",
            Category::ToolCalls => "tool_calls",
            Category::ToolResults => "tool_results",
            Category::Media => "media",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Category::SystemPrompt => "system prompt",
            Category::Conversation => "conversation",
            Category::ToolCalls => "tool calls",
            Category::ToolResults => "tool results",
            Category::Media => "media",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Tokens of one formatted message (or several), split by category.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Cost {
    parts: [i64; 5],
}

impl Cost {
    pub fn of(category: Category, tokens: i64) -> Cost {
        let mut c = Cost::default();
        c.add(category, tokens);
        c
    }

    pub fn add(&mut self, category: Category, tokens: i64) {
        self.parts[category.index()] += tokens;
    }

    pub fn get(&self, category: Category) -> i64 {
        self.parts[category.index()]
    }

    pub fn total(&self) -> i64 {
        self.parts.iter().sum()
    }

    /// Everything in one category (a system message's framing, say).
    pub fn recategorised(self, category: Category) -> Cost {
        Cost::of(category, self.total())
    }
}

impl std::ops::AddAssign for Cost {
    fn add_assign(&mut self, rhs: Cost) {
        for (a, b) in self.parts.iter_mut().zip(rhs.parts) {
            *a += b;
        }
    }
}

impl std::ops::Add for Cost {
    type Output = Cost;
    fn add(mut self, rhs: Cost) -> Cost {
        self += rhs;
        self
    }
}

impl std::ops::Sub for Cost {
    type Output = Cost;
    fn sub(mut self, rhs: Cost) -> Cost {
        for (a, b) in self.parts.iter_mut().zip(rhs.parts) {
            *a -= b;
        }
        self
    }
}

impl std::iter::Sum for Cost {
    fn sum<I: Iterator<Item = Cost>>(iter: I) -> Cost {
        iter.fold(Cost::default(), |a, b| a + b)
    }
}

/// A token counter over formatted messages: `count(messages) = base() +
/// Σ message(m)`, evaluated in order so the first bad message raises.
pub trait MessageCounter: Send + Sync {
    /// Tokens every request costs (reply priming, BOS, generation prompt).
    fn base(&self) -> i64;
    /// One formatted message.
    fn message(&self, message: &Value) -> Result<Cost, PyErr>;

    /// Whether a message's text splits right after a `"\n"` followed by
    /// `first` into parts that count on their own, its cost growing with
    /// its texts' tokens ([`super::boundary`]). The truncation planner
    /// searches inside a `<history>` group only when this holds.
    fn splits_after_newline(&self, _first: char) -> bool {
        false
    }

    /// On every core for a long request; the first bad message in order
    /// raises, as in the reference's single pass.
    fn count(&self, messages: &[Value]) -> Result<i64, PyErr> {
        let messages = crate::parallel::try_sum(messages, |m| Ok(self.message(m)?.total()))?;
        Ok(self.base() + messages)
    }
}

/// AgentScope's `OpenAITokenCounter` as a [`MessageCounter`]: what the
/// reference truncation loop counts with. Its breakdown is not split by
/// category (everything is "conversation").
pub struct AgentScopeCounter<'a> {
    pub counter: &'a OpenAiTokenCounter,
    pub web: &'a dyn WebFetcher,
}

impl MessageCounter for AgentScopeCounter<'_> {
    fn base(&self) -> i64 {
        3
    }

    fn message(&self, message: &Value) -> Result<Cost, PyErr> {
        Ok(Cost::of(
            Category::Conversation,
            self.counter.message_tokens(message, self.web)?,
        ))
    }

    fn splits_after_newline(&self, first: char) -> bool {
        super::boundary::encoding_splits_after_newline(first)
    }
}
