//! AgentScope 1.0.21, the default release: its twelve formatter classes
//! (`crate::formatter`), which count tokens and truncate; the budget model,
//! the planner and the wire are built on them.

use super::{Formatted, Mode, Reference};
use crate::formatter::{FormatOptions, FormatterId};
use crate::media::MediaEnv;
use crate::provider::Provider;
use crate::session::Session;

pub struct V1;

/// The release.
pub static V1_0_21: V1 = V1;

impl Reference for V1 {
    fn version(&self) -> &'static str {
        "1.0.21"
    }

    fn modes(&self) -> &'static [Mode] {
        &[Mode::Chat, Mode::MultiAgent]
    }

    fn providers(&self) -> &'static [Provider] {
        &Provider::ALL
    }

    fn call(&self, provider: Provider, mode: Mode) -> String {
        let mode = mode
            .formatter_mode()
            .unwrap_or(crate::formatter::Mode::Chat);
        format!("{}.format", FormatterId { provider, mode }.class_name())
    }

    fn format(
        &self,
        session: &Session,
        provider: Provider,
        mode: Mode,
        env: &MediaEnv,
    ) -> Formatted {
        let id = FormatterId {
            provider,
            mode: mode
                .formatter_mode()
                .unwrap_or(crate::formatter::Mode::Chat),
        };
        let keys = crate::formatter::message_keys(&session.messages);
        let request = crate::pipeline::build_msgs(session).and_then(|msgs| {
            crate::budget::formatted_with_spans(id, &FormatOptions::default(), &msgs, &keys, env)
        });
        let (messages, spans) = match request {
            Ok(r) => (Ok(r.messages), r.spans),
            Err(e) => (Err(e.into()), Vec::new()),
        };
        Formatted {
            call: self.call(provider, mode),
            branch: None,
            lost: Vec::new(),
            messages,
            spans,
            estimate: None,
        }
    }

    fn counts_and_truncates(&self) -> bool {
        true
    }
}
