//! formatscope as one library: the core's modules (sessions, AgentScope's
//! formatters and wire requests, tokens, truncation, replies, diff, lint)
//! under their own names, beside the layers built on them. Each layer is a
//! crate of its own under `crates/` (ARCHITECTURE.md); this facade gives
//! the binary, the tests and the benches one path to each.

pub use formatscope_core::*;
pub use formatscope_history as history;
pub use formatscope_net as net;
pub use formatscope_net::listen;
pub use formatscope_tui as tui;
