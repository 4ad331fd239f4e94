//! AgentScope 1.0.21, the default release: its twelve formatter classes
//! (`crate::formatter`), which count tokens and truncate; the budget model,
//! the planner and the wire are built on them.

use super::{Family, Formatted, Mode, Reference, SIX};
use crate::formatter::{FormatOptions, FormatterId};
use crate::media::MediaEnv;
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

    fn families(&self) -> &'static [Family] {
        &SIX
    }

    fn call(&self, family: &Family, mode: Mode) -> String {
        let mode = mode.formatter_mode().unwrap_or(crate::provider::Mode::Chat);
        match family.provider {
            Some(provider) => format!("{}.format", FormatterId { provider, mode }.class_name()),
            None => format!("{} (no 1.0.21 formatter)", family.title),
        }
    }

    fn format(&self, session: &Session, family: &Family, mode: Mode, env: &MediaEnv) -> Formatted {
        let (messages, spans) = match family.provider(self.version()) {
            Err(e) => (Err(e), Vec::new()),
            Ok(provider) => {
                let id = FormatterId {
                    provider,
                    mode: mode.formatter_mode().unwrap_or(crate::provider::Mode::Chat),
                };
                let keys = crate::formatter::message_keys(&session.messages);
                let request = crate::pipeline::build_msgs(session).and_then(|msgs| {
                    crate::budget::formatted_with_spans(
                        id,
                        &FormatOptions::default(),
                        &msgs,
                        &keys,
                        env,
                    )
                });
                match request {
                    Ok(r) => (Ok(r.messages), r.spans),
                    Err(e) => (Err(e.into()), Vec::new()),
                }
            }
        };
        Formatted {
            call: self.call(family, mode),
            branch: None,
            lost: Vec::new(),
            messages,
            spans,
            estimate: None,
            tools: None,
            body: None,
        }
    }

    fn counts_and_truncates(&self) -> bool {
        true
    }
}
