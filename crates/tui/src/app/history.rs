//! The history popup's part in the app (`H`): asking the runtime for the
//! open session's sends, showing them, and putting a chosen old reply
//! beside the latest in the compare view.

use super::*;
use crate::panes::history::{compare_replies, HistoryPane};

impl App {
    /// Where a send of the open session is recorded: the history file and
    /// the session's absolute path.
    pub(super) fn history_for(&self) -> Option<(PathBuf, PathBuf)> {
        let db = self.history_path.clone()?;
        let session = formatscope_history::session_key(self.path()?);
        Some((db, session))
    }

    /// `H`: the popup, and the read of its sends.
    pub(super) fn open_history(&mut self) -> Vec<Command> {
        if self.path().is_none() {
            self.status = "no session open: its sends are listed by H".into();
            return Vec::new();
        }
        let Some((db, session)) = self.history_for() else {
            self.status = format!(
                "the history is off ({}=off, or no data folder)",
                formatscope_history::VARIABLE
            );
            return Vec::new();
        };
        let mut pane = HistoryPane::new(session.clone());
        pane.current_hash = Some(formatscope_history::messages_hash(
            self.messages().iter().map(PackedMessage::value),
        ));
        self.popup = Some(Popup::History(Box::new(pane)));
        vec![Command::ListHistory { db, session }]
    }

    pub(super) fn on_history_listed(
        &mut self,
        session: PathBuf,
        result: Result<Vec<formatscope_history::Send>, String>,
    ) -> Vec<Command> {
        match &mut self.popup {
            Some(Popup::History(pane)) if pane.session == session => match result {
                Ok(sends) => {
                    pane.cursor = pane.cursor.min(sends.len().saturating_sub(1));
                    pane.sends = Some(sends);
                    pane.error = None;
                }
                Err(e) => pane.error = Some(e),
            },
            // Closed, or another session's: not shown.
            _ => self.dirty = false,
        }
        Vec::new()
    }

    /// Asks for send `i` whole (the popup stays, saying it is reading);
    /// `compare`: its reply goes beside the latest once read.
    pub(super) fn read_whole(&mut self, i: usize, compare: bool) -> Vec<Command> {
        let wanted = self.history_for();
        let Some(Popup::History(pane)) = self.popup.as_mut() else {
            return Vec::new();
        };
        let id = pane.sends.as_ref().and_then(|s| s.get(i)).map(|s| s.id);
        let (Some(id), Some((db, session))) = (id, wanted) else {
            return Vec::new();
        };
        pane.reading = Some((id, compare));
        vec![Command::ReadHistorySend { db, session, id }]
    }

    /// Puts send `i`'s reply beside the latest and closes the popup; when
    /// there is nothing to compare with, the popup stays, saying why.
    pub(super) fn compare_send(&mut self, i: usize) -> Vec<Command> {
        let Some(Popup::History(pane)) = self.popup.take() else {
            return Vec::new();
        };
        match self.compare_with_latest(&pane, i) {
            Ok(status) => self.status = status,
            Err(why) => {
                self.status = why;
                self.popup = Some(Popup::History(pane));
            }
        }
        Vec::new()
    }

    /// A send read whole: it takes its place in the list (shown, or its
    /// reply compared, as asked); an error is said on the status line.
    pub(super) fn on_history_send_read(
        &mut self,
        session: PathBuf,
        result: Result<Box<formatscope_history::Send>, String>,
    ) -> Vec<Command> {
        // The popup closed meanwhile (or another opened): nothing to show.
        if !matches!(self.popup, Some(Popup::History(_))) {
            return Vec::new();
        }
        let Some(Popup::History(mut pane)) = self.popup.take() else {
            return Vec::new();
        };
        let asked = pane.reading.take().filter(|_| pane.session == session);
        let (send, (id, compare)) = match (result, asked) {
            (Ok(send), Some(asked)) if send.id == asked.0 => (send, asked),
            (Err(e), Some(_)) => {
                self.status = format!("history: {e}");
                pane.showing = false;
                self.popup = Some(Popup::History(pane));
                return Vec::new();
            }
            // Closed, or another send's: not shown.
            _ => {
                self.popup = Some(Popup::History(pane));
                return Vec::new();
            }
        };
        let index = pane.sends.as_mut().and_then(|sends| {
            let i = sends.iter().position(|s| s.id == id)?;
            sends[i] = *send;
            Some(i)
        });
        match index {
            Some(i) if compare => {
                if let Err(why) = self.compare_with_latest(&pane, i).map(|s| self.status = s) {
                    self.status = why;
                    self.popup = Some(Popup::History(pane));
                }
            }
            _ => self.popup = Some(Popup::History(pane)),
        }
        Vec::new()
    }

    /// Puts send `i`'s reply beside the latest: the live reply of the
    /// provider on screen (else any finished), else the newest send in the
    /// history other than `i`. The status line says which.
    fn compare_with_latest(&mut self, pane: &HistoryPane, i: usize) -> Result<String, String> {
        let sends = pane.sends.as_deref().unwrap_or_default();
        let old = sends.get(i).ok_or("no send picked")?;
        let live = self
            .replies
            .iter()
            .find(|r| r.provider == Some(self.formatter.provider))
            .and_then(|r| r.final_reply())
            .or_else(|| self.replies.iter().find_map(|r| r.final_reply()))
            .map(|r| (r.to_json(true), "the reply on screen".to_string()));
        let recorded = || {
            sends
                .iter()
                .enumerate()
                .find(|(k, s)| *k != i && s.send.reply.is_some())
                .and_then(|(_, s)| Some((s.send.reply.clone()?, label(s))))
        };
        let (new, new_label) = live
            .or_else(recorded)
            .ok_or("nothing to compare with: no later reply (S sends; its reply is the latest)")?;
        let old_label = label(old);
        let compared = compare_replies(old, old_label, &new, new_label.clone());
        self.compare.replies = Some(Arc::new(compared));
        self.compare.pair = Pair::Replies;
        self.compare.open = true;
        self.compare.scroll = 0;
        self.focus = Focus::Output;
        Ok(format!(
            "compare: the reply of {} / {new_label} (C: another pair, c: close)",
            label(old)
        ))
    }
}

/// `send #3 · 2025-11-24 16:20`: short enough for half the compare view.
fn label(s: &formatscope_history::Send) -> String {
    let time = s.time();
    format!("send #{} · {}", s.id, time.get(..16).unwrap_or(&time))
}
