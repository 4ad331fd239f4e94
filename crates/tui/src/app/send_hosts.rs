//! The workbench's question before a key goes to a host only the session
//! names (`net::hosts`): asked once per host, the stopped sends made again
//! on a yes.

use super::super::msg::Command;
use super::super::panes::popup::Popup;
use super::super::panes::reply::ReplyUpdate;
use super::App;
use formatscope_net::hosts::Host;
use ratatui::crossterm::event::KeyCode;

impl App {
    /// A send stopped before its key went to `host`: asks (once per
    /// host), unless the user already said no.
    pub(super) fn on_host_not_chosen(&mut self, id: u64, host: Host) -> Vec<Command> {
        let Some(pane) = self.replies.iter_mut().find(|r| r.id == id) else {
            return Vec::new();
        };
        let provider = pane.provider;
        let family = pane.family;
        if let Some(line) = pane.apply(id, ReplyUpdate::HostNotChosen(host.clone())) {
            self.status = line;
        }
        if self.consent.refused_send_host(&host) {
            self.status = format!("not sent: you said no to sending keys to {host}");
            return Vec::new();
        }
        // A release's send asks for its provider in that release; a default
        // one for its provider.
        let provider = if family.is_some() { None } else { provider };
        if provider.is_none() && family.is_none() {
            return Vec::new();
        }
        match &mut self.popup {
            None => {
                self.popup = Some(Popup::SendHost {
                    host,
                    providers: provider.into_iter().collect(),
                    families: family.into_iter().collect(),
                })
            }
            Some(Popup::SendHost {
                host: asked,
                providers,
                families,
            }) if *asked == host => {
                providers.extend(provider);
                families.extend(family);
            }
            // Another question is open: this send says why it stopped.
            Some(_) => {}
        }
        Vec::new()
    }

    pub(super) fn on_send_host_key(
        &mut self,
        code: KeyCode,
        host: Host,
        providers: Vec<formatscope_core::formatter::Provider>,
        families: Vec<&'static formatscope_core::reference::Family>,
    ) -> Vec<Command> {
        match code {
            KeyCode::Char('a') => {
                self.consent.answer_send_host(host, true);
                if !families.is_empty() {
                    return self.launch_release(&families);
                }
                // Beside the sends still streaming (`P`), not instead.
                self.launch(&providers)
            }
            KeyCode::Char('d') | KeyCode::Esc => {
                self.status = format!("not sent: your key does not go to {host}");
                self.consent.answer_send_host(host, false);
                Vec::new()
            }
            _ => {
                self.popup = Some(Popup::SendHost {
                    host,
                    providers,
                    families,
                });
                Vec::new()
            }
        }
    }
}
