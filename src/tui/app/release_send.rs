//! `S` under another release (`V`): the release's own request sent and
//! its reply parsed as the release parses it, in the reply pane; `A` then
//! appends the reply as that release holds it. One send at a time: `P`
//! (several providers at once) is the default release's.

use super::super::msg::{Command, SendJob};
use super::super::panes::reply::ReplyPane;
use super::App;

impl App {
    /// Sends the request on screen as the release on screen builds it.
    pub(super) fn send_release(&mut self) -> Vec<Command> {
        let Some(job) = self.release_job() else {
            return Vec::new();
        };
        let Some(doc) = self.doc.as_ref() else {
            self.status = "no session to send".into();
            return Vec::new();
        };
        let session = doc.session.clone();
        let settings = match crate::wire::Settings::from_session(session.settings.get("request")) {
            Ok(s) => s.or_session_model(session.model()),
            Err(e) => {
                self.status = format!("not sent: the session's \"request\" object: {e}");
                return Vec::new();
            }
        };
        self.sends += 1;
        let label = format!("{} {}", job.release.title(), job.family.title);
        let mut pane = ReplyPane::default();
        pane.start_release(self.sends, job.family.provider, &label);
        self.replies.clear();
        self.replies.push(pane);
        self.status = format!("sending the {label} request… Esc cancels");
        vec![Command::Send(Box::new(SendJob {
            id: self.sends,
            session: Box::new(session),
            formatter: self.formatter,
            settings: Box::new(settings),
            allowed_hosts: self.consent.send_hosts(),
            profile: None,
            history: self.history_for(),
            release: Some(job),
        }))]
    }
}
