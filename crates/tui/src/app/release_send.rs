//! `S` and `P` under another release (`V`): the release's own request
//! sent and its reply parsed as the release parses it, one reply pane per
//! provider; `A` then appends a reply as that release holds it.

use super::super::msg::{Command, SendJob};
use super::super::panes::reply::ReplyPane;
use super::App;
use formatscope_core::reference::Family;

impl App {
    /// Sends the request as the release on screen builds it for each of
    /// `families`, instead of the replies on screen.
    pub(super) fn send_release(&mut self, families: &[&'static Family]) -> Vec<Command> {
        if self.sending() {
            self.status = "a send is in flight: Esc cancels it".into();
            return Vec::new();
        }
        self.replies.clear();
        self.launch_release(families)
    }

    /// Starts a send to each of `families` beside the sends on screen: a
    /// provider's earlier pane (one that stopped to ask about its host) is
    /// replaced. The provider on screen is sent the session's model, as
    /// `S` sends it; the others their release's default model, as a
    /// session's model names one provider's.
    pub(super) fn launch_release(&mut self, families: &[&'static Family]) -> Vec<Command> {
        let Some(job) = self.release_job() else {
            return Vec::new();
        };
        let Some(doc) = self.doc.as_ref() else {
            self.status = "no session to send".into();
            return Vec::new();
        };
        let session = doc.session.clone();
        let request =
            match formatscope_core::wire::Settings::from_session(session.settings.get("request")) {
                Ok(s) => s,
                Err(e) => {
                    self.status = format!("not sent: the session's \"request\" object: {e}");
                    return Vec::new();
                }
            };
        let mut cmds = Vec::new();
        let mut panes = Vec::new();
        let mut labels = Vec::new();
        for &family in families {
            let settings = if family.id == job.family.id {
                request.clone().or_session_model(session.model())
            } else {
                formatscope_core::wire::Settings {
                    model: None,
                    ..request.clone()
                }
            };
            let id = self.replies.next_id();
            let label = format!("{} {}", job.release.title(), family.title);
            let mut pane = ReplyPane::default();
            pane.start_release(id, family, &label);
            panes.push(pane);
            labels.push(family.title);
            cmds.push(Command::Send(Box::new(SendJob {
                id,
                session: Box::new(session.clone()),
                formatter: self.formatter,
                settings: Box::new(settings),
                allowed_hosts: self.consent.send_hosts(),
                profile: None,
                history: self.history_for(),
                release: Some(super::ReleaseJob { family, ..job }),
            })));
        }
        self.replies.retain(|r| {
            !r.family
                .is_some_and(|f| families.iter().any(|g| g.id == f.id))
        });
        self.replies.extend(panes);
        self.status = match labels.as_slice() {
            [one] => format!(
                "sending the {} {one} request… Esc cancels",
                job.release.title()
            ),
            _ => format!(
                "sending the {} requests to {}… Esc cancels",
                job.release.title(),
                labels.join(", ")
            ),
        };
        cmds
    }
}
