//! formatscope's core: sessions, AgentScope's twelve formatters, token
//! counting and truncation. No terminal, async or file-watch dependency:
//! the CLI and the workbench are thin layers over this.

pub mod budget;
pub mod compare;
pub mod diff;
pub mod explain;
pub mod files;
pub mod formatter;
pub mod json;
pub mod legacy;
pub mod lint;
pub mod live;
pub mod media;
pub mod model_choice;
pub mod parallel;
pub mod pipeline;
pub mod provider;
pub mod py;
pub mod reference;
pub mod response;
pub mod session;
pub mod text;
pub mod tokens;
pub mod truncate;
pub mod wire;
