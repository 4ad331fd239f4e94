//! Token counting. `agentscope` is AgentScope's own `OpenAITokenCounter`,
//! reproduced exactly (it is what the reference truncation loop compares);
//! `vocab` holds every tokenizer we ship.

mod agentscope;
mod counter;
mod encoding;
mod vocab;

pub use agentscope::OpenAiTokenCounter;
pub use counter::{AgentScopeCounter, Category, Cost, MessageCounter};
pub use encoding::{encoding_for_model, Encoding};
pub use vocab::{special_tokens, Vocab};
