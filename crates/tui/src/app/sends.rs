//! What an action asks of the network: exports, the providers to send to,
//! the provider's own count, cancelling, and appending a finished reply.

use super::*;
use formatscope_core::reference::Family;

impl App {
    /// Writes the request as a `curl` command beside the session.
    pub(super) fn export(&mut self) -> Vec<Command> {
        if self.release_job().is_none() {
            self.reread_profiles();
            if let Some(e) = self.profile_problem() {
                self.status = format!("not exported: {e}");
                return Vec::new();
            }
        }
        let settings = match (self.release_job(), self.doc.as_ref()) {
            // Another release reads the session's settings with its own
            // meaning (no profile: those are the default release's).
            (Some(_), Some(doc)) => {
                formatscope_core::wire::Settings::from_session(doc.session.settings.get("request"))
                    .map(|s| (doc.session.clone(), s.or_session_model(doc.session.model())))
            }
            _ => self.wire_settings(),
        };
        let (session, settings) = match settings {
            Ok(x) => x,
            Err(e) => {
                self.status = format!("not exported: {e}");
                return Vec::new();
            }
        };
        let Some(path) = self.path().cloned() else {
            self.status = "no session to export".into();
            return Vec::new();
        };
        self.status = "exporting…".into();
        // The profile that moved the request names its key's variable
        // (another release's request takes no profile).
        let key_variable = match self.release_job() {
            Some(_) => None,
            None => self
                .profile_for(self.formatter.provider)
                .and_then(formatscope_net::profile::Profile::key_variable),
        };
        vec![Command::Export {
            path,
            session: Box::new(session),
            formatter: self.formatter,
            settings: Box::new(settings),
            release: self.release_job(),
            key_variable,
        }]
    }

    /// The providers popup of `P` (send to several at once): the release
    /// on screen's providers, the one on screen picked.
    pub(super) fn pick_providers(&mut self) -> Vec<Command> {
        if self.sending() {
            self.status = "a send is in flight: Esc cancels it".into();
            return Vec::new();
        }
        let on_screen = self.family().id;
        let chosen = self
            .reference()
            .families()
            .iter()
            .map(|f| f.id == on_screen)
            .collect();
        self.popup = Some(Popup::SendTo {
            release: self.release % formatscope_core::reference::ALL.len(),
            cursor: 0,
            chosen,
        });
        Vec::new()
    }

    /// `P`'s Enter: the default release's providers are sent to as `S`
    /// sends; another release's as that release builds them.
    pub(super) fn send_picked(&mut self, families: Vec<&'static Family>) -> Vec<Command> {
        if self.release_job().is_some() {
            return self.ask_release(families);
        }
        let providers = families.iter().filter_map(|f| f.provider).collect();
        self.send_or_ask(providers)
    }

    /// Asks the provider to count the request (`R`).
    pub(super) fn remote_count(&mut self) -> Vec<Command> {
        let provider = self.formatter.provider;
        self.reread_profiles();
        if let Some(e) = self.profile_problem() {
            self.status = format!("no remote count: {e}");
            return Vec::new();
        }
        if !formatscope_net::has_token_counter(provider) {
            self.status =
                format!("{provider} has no token-counting endpoint (Anthropic and Gemini have)");
            return Vec::new();
        }
        let (session, settings) = match self.wire_settings() {
            Ok(x) => x,
            Err(e) => {
                self.status = format!("no remote count: {e}");
                return Vec::new();
            }
        };
        let generation = self
            .preview
            .as_ref()
            .map_or(self.generation, |p| p.generation);
        self.status = format!("asking {provider} to count the request…");
        vec![Command::RemoteCount(Box::new(crate::msg::SendJob {
            id: generation,
            session: Box::new(session),
            formatter: self.formatter,
            settings: Box::new(settings),
            allowed_hosts: self.consent.send_hosts(),
            profile: self.profile_for(provider).cloned(),
            history: None,
            release: None,
        }))]
    }

    /// Appends the finished reply as the next message (`A`).
    pub(super) fn append_reply(&mut self) -> Vec<Command> {
        // The reply of the provider on screen, else the first done.
        let on_screen = self
            .replies
            .iter()
            .find(|r| r.provider == Some(self.formatter.provider))
            .and_then(|r| r.final_reply());
        let Some(reply) = on_screen
            .or_else(|| self.replies.iter().find_map(|r| r.final_reply()))
            .cloned()
        else {
            self.status = "no finished reply to append (S sends)".into();
            return Vec::new();
        };
        let name = formatscope_core::response::reply_speaker(
            self.messages().iter().map(PackedMessage::value),
        );
        // A reply another release parsed is appended as that release
        // holds it.
        let held = self
            .replies
            .iter()
            .find(|r| r.final_reply() == Some(&reply))
            .and_then(|r| r.held(&name));
        let message = held.unwrap_or_else(|| reply.to_message(&name));
        let at = self.messages().len();
        let cmds = self.edit(at, 0, vec![message], at, None);
        if !cmds.is_empty() || self.messages().len() > at {
            self.status =
                format!("appended the reply as message #{at} ({name}) · u undoes it · C-s saves");
        }
        cmds
    }
}
