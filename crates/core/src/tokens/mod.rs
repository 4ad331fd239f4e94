//! Token counting. `agentscope` is AgentScope's own `OpenAITokenCounter`,
//! reproduced exactly (it is what the reference truncation loop compares);
//! `vocab` holds every tokenizer we ship; `models` says which one a model
//! uses; `provider` counts what a provider is actually sent.

mod agentscope;
mod backtrack;
mod backtrack_tables;
#[cfg(test)]
mod backtrack_tests;
pub mod boundary;
mod bpe;
pub mod cost;
mod counter;
mod counting;
mod encoding;
pub mod media_cost;
pub mod memo;
pub mod models;
pub mod offsets;
mod pretokenize;
mod provider;
mod rank_slots;
mod ranks;
mod specials;
mod split;
pub mod truncation_counter;
mod vocab;
mod whitespace;

pub use agentscope::OpenAiTokenCounter;
pub use counter::{AgentScopeCounter, Category, Cost, MessageCounter};
pub use encoding::{encoding_for_model, Encoding};
pub use memo::{PartMemo, RunMemo};
pub use models::{ModelInfo, Template, TokenizerSpec};
pub use provider::ProviderCounter;
pub use truncation_counter::{CounterSpec, UnknownCounter};
pub use vocab::{special_tokens, Vocab};
