//! Token counting. `agentscope` is AgentScope's own `OpenAITokenCounter`,
//! reproduced exactly (it is what the truncation loop compares).

mod agentscope;
mod encoding;

pub use agentscope::OpenAiTokenCounter;
pub use encoding::{encoding_for_model, Encoding};
