//! References: the AgentScope versions formatscope reproduces. `v2` is
//! AgentScope 2.0.11's formatters, beside 1.0.21 (`crate::formatter`) and
//! 0.1.6 (`crate::legacy`).

pub mod v2;
