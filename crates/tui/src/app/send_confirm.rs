//! The workbench's question before a large send (`S`, `P`): from the
//! settings' "ask to send at" tokens on, it shows where the request goes
//! (host, model) and its size, and sends only on `y`. An 82k-token request
//! costs real money: one key must not send it unseen.

use super::super::msg::Command;
use super::super::panes::popup::{ConfirmSend, Popup};
use super::super::panes::settings::SettingsForm;
use super::App;
use formatscope_core::formatter::{FormatterId, Provider};
use formatscope_core::reference::Family;
use formatscope_net::hosts::Host;
use ratatui::crossterm::event::KeyCode;

impl App {
    /// Sends to `providers` at once below the threshold; at or above it,
    /// asks first. The count is the meter's, of the request on screen.
    pub(super) fn send_or_ask(&mut self, providers: Vec<Provider>) -> Vec<Command> {
        if self.sending() {
            self.status = "a send is in flight: Esc cancels it".into();
            return Vec::new();
        }
        // Another release's request is its own: sent as it builds it.
        if self.release_job().is_some() {
            let on_screen = self.family();
            return self.ask_release(vec![on_screen]);
        }
        // The profile as the file has it now.
        self.reread_profiles();
        if let Some(e) = self.profile_problem() {
            self.status = format!("not sent: {e}");
            return Vec::new();
        }
        let count = self
            .preview
            .as_ref()
            .and_then(|p| p.report.as_ref())
            .map(|r| (r.total, r.exact));
        // Not counted yet (a large session's first count, or a failed
        // one): its size is unknown, so nothing goes unseen.
        let Some((tokens, exact)) = count else {
            self.status =
                "not sent: the request is not counted yet (S again once the meter shows its size)"
                    .into();
            return Vec::new();
        };
        if tokens < 0 || (tokens as u64) < self.confirm_send_at {
            return self.send_to(&providers);
        }
        let targets = providers.iter().map(|p| self.destination(*p)).collect();
        self.popup = Some(Popup::ConfirmSend(Box::new(ConfirmSend {
            providers,
            targets,
            tokens,
            exact,
            at: self.confirm_send_at,
            families: Vec::new(),
        })));
        self.status = format!("a large request ({tokens} tokens): y sends, n does not");
        Vec::new()
    }

    /// Sends under the release on screen to `families`, asking first
    /// from the same size on as the default release does (the request on
    /// screen counted with its provider's tokenizer, else the release's
    /// own estimate).
    pub(super) fn ask_release(&mut self, families: Vec<&'static Family>) -> Vec<Command> {
        let Some(job) = self.release_job() else {
            return Vec::new();
        };
        let info = self.preview.as_ref().and_then(|p| p.release.as_ref());
        let count = info.and_then(|r| match &r.counted {
            Some((Ok(n), _)) => Some(*n),
            _ => r.estimate.and_then(|e| i64::try_from(e).ok()),
        });
        let tokens = match (info, count) {
            (_, Some(n)) => n,
            // No tokenizer and no estimate for this family: its size
            // cannot be known (the wire view shows the request).
            (Some(_), None) => return self.send_release(&families),
            (None, _) => {
                self.status = "not sent: the request is not counted yet (S again once the meter shows its size)".into();
                return Vec::new();
            }
        };
        if tokens < 0 || (tokens as u64) < self.confirm_send_at {
            return self.send_release(&families);
        }
        let targets = families
            .iter()
            .map(|f| format!("{} {}", job.release.title(), f.title))
            .collect();
        self.popup = Some(Popup::ConfirmSend(Box::new(ConfirmSend {
            providers: Vec::new(),
            targets,
            tokens,
            exact: false,
            at: self.confirm_send_at,
            families,
        })));
        self.status = format!("a large request (≈{tokens} tokens): y sends, n does not");
        Vec::new()
    }

    /// `OpenAI → api.openai.com · gpt-4o`: where the send would go, as the
    /// sender builds it (the provider's base URL variable included). The
    /// URL and model do not depend on the messages: one short message
    /// stands in for them, so a large request is not formatted (nor its
    /// media read) on the UI thread.
    fn destination(&self, provider: Provider) -> String {
        let built = self
            .wire_settings_for(provider)
            .and_then(|(mut session, mut settings)| {
                session.messages =
                    std::sync::Arc::new(vec![formatscope_core::session::PackedMessage::new(
                        &serde_json::json!({"name": "user", "role": "user", "content": "."}),
                    )]);
                formatscope_net::apply_base_url_from_env(provider, &mut settings.model_kwargs);
                let formatter = FormatterId::new(provider, self.formatter.mode);
                let out =
                    formatscope_core::pipeline::build_request_local(&session, formatter, &settings);
                formatscope_net::prepare(provider, &out, false)
            });
        match built {
            Ok((prepared, opts)) => {
                let host = Host::of_url(&prepared.url)
                    .map(|h| h.to_string())
                    .unwrap_or_else(|| format!("{} (no host)", prepared.url));
                format!("{provider} → {host} · {}", opts.model_name)
            }
            Err(e) => format!("{provider}: {e}"),
        }
    }

    /// The settings form's Enter: the session's settings (one edit) and
    /// the workbench's own threshold, which is no edit of the session.
    pub(super) fn apply_settings_form(
        &mut self,
        form: &SettingsForm,
        settings: Vec<(String, Option<serde_json::Value>)>,
    ) -> Vec<Command> {
        let at = form.confirm_send_at().unwrap_or(self.confirm_send_at);
        let changed = std::mem::replace(&mut self.confirm_send_at, at) != at;
        let profile = form.profile().unwrap_or(None);
        let new_profile = std::mem::replace(&mut self.profile, profile.clone()) != profile;
        let cmds = self.apply_settings(settings);
        if new_profile {
            self.status = match &profile {
                Some(p) => format!("S and P send through profile {p} · {}", self.status),
                None => format!("no profile · {}", self.status),
            };
        }
        if changed {
            self.status = format!(
                "S and P ask first from {at} tokens on (until you quit) · {}",
                self.status
            );
        }
        cmds
    }

    pub(super) fn on_confirm_send_key(
        &mut self,
        code: KeyCode,
        ask: Box<ConfirmSend>,
    ) -> Vec<Command> {
        match code {
            KeyCode::Char('y') if !ask.families.is_empty() => self.send_release(&ask.families),
            KeyCode::Char('y') => self.send_to(&ask.providers),
            KeyCode::Char('n') | KeyCode::Esc | KeyCode::Char('q') => {
                self.status = "nothing sent".into();
                Vec::new()
            }
            _ => {
                self.popup = Some(Popup::ConfirmSend(ask));
                Vec::new()
            }
        }
    }
}
