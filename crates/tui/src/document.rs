//! The open session file: the session with the workbench's edits, the
//! text it was loaded from, what is known of the file on disk, and the
//! edit history. Its path never changes: edits belong to the file they
//! were made in, and a save goes only there.

use formatscope_core::session::{PackedMessage, Session};
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::sync::Arc;

/// What is on disk, compared with the text the session was loaded from.
#[derive(Debug, Clone, PartialEq)]
pub enum Disk {
    /// The file holds the text the session was loaded from (or saved as).
    Same,
    /// The file changed on disk. `overwrite_ok`: the user chose to keep
    /// their edits, so a save may replace exactly this text.
    Changed {
        text: Arc<String>,
        overwrite_ok: bool,
    },
    /// The file was deleted. `recreate_ok`: the user agreed that a save
    /// creates it again.
    Missing { recreate_ok: bool },
}

/// One undoable step: messages `at..at + before.len()` became `after`,
/// and the settings went from one map to another when they changed.
#[derive(Debug, Clone)]
struct Change {
    at: usize,
    before: Vec<PackedMessage>,
    after: Vec<PackedMessage>,
    settings: Option<(Map<String, Value>, Map<String, Value>)>,
    /// The edit state before and after (see `Document::state`).
    state_before: u64,
    state_after: u64,
    /// Typing in the editor: later keystrokes in the same message join it.
    group: Option<usize>,
}

/// The most undo steps kept. Steps hold only what they changed, so memory
/// grows with the edits, not with the session.
const UNDO_DEPTH: usize = 500;

#[derive(Debug)]
pub struct Document {
    /// The file, as opened (absolute; a symlink stays its link's name).
    pub path: PathBuf,
    /// The session, with the workbench's edits.
    pub session: Session,
    /// The text the session was loaded from or last saved as: saves write
    /// over it so that what was not edited keeps its bytes.
    pub base: Arc<String>,
    /// The session as parsed from `base` (its messages shared, not copied):
    /// a save compares with it and splices only the messages that changed.
    /// `None` when unknown (the whole text is parsed again).
    pub base_session: Option<Session>,
    /// The file's text before the last reload from disk: what a prompt
    /// cache held before the file changed.
    pub before_reload: Option<Arc<String>>,
    pub disk: Disk,
    /// The file on disk does not parse (`file:line:col: what`): the last
    /// good version stays on screen.
    pub load_error: Option<String>,
    /// The file's mode when it was read (a deleted file is made again with it).
    pub mode: Option<u32>,
    /// The file the session was read from, symlinks resolved: if the link
    /// is re-pointed, a save still goes only here (or asks).
    pub target: Option<PathBuf>,
    undo: Vec<Change>,
    redo: Vec<Change>,
    /// Every edit gets a new state number; the file is unsaved when the
    /// current state is not the one last saved or loaded (so undoing every
    /// edit makes the file clean again).
    state: u64,
    saved_state: u64,
    next_state: u64,
}

impl Document {
    /// `base` is the text as read, shared, not copied (100,000 messages:
    /// 30 MB, which a copy took 15-25 ms to make on the UI thread before
    /// the first job could start).
    pub fn new(path: PathBuf, session: Session, base: Arc<String>, mode: Option<u32>) -> Document {
        Document {
            path,
            base_session: Some(session.clone()),
            session,
            base,
            before_reload: None,
            disk: Disk::Same,
            load_error: None,
            mode,
            target: None,
            undo: Vec::new(),
            redo: Vec::new(),
            state: 0,
            saved_state: 0,
            next_state: 1,
        }
    }

    /// The session holds edits that are not in the file.
    pub fn unsaved(&self) -> bool {
        self.state != self.saved_state
    }

    /// The current edit state, to tell a save which state it wrote.
    pub fn state(&self) -> u64 {
        self.state
    }

    /// A save of `state` reached the disk as `text` (shared, not copied).
    pub fn saved(&mut self, state: u64, text: &Arc<String>) {
        self.saved_state = state;
        self.base = Arc::clone(text);
        self.base_session = (state == self.state).then(|| self.session.clone());
        self.before_reload = None;
        self.disk = Disk::Same;
        self.load_error = None;
    }

    /// The text a save writes: the file's text with the edits spliced in.
    pub fn render(&self) -> Result<String, formatscope_core::session::SaveError> {
        let base = Arc::clone(&self.base);
        match &self.base_session {
            Some(b) => formatscope_core::session::render_saved_over(&base, b, &self.session),
            None => formatscope_core::session::render_saved(&base, &self.session),
        }
    }

    /// Makes the current state count as unsaved (restored edits).
    pub fn mark_unsaved(&mut self) {
        self.state = self.fresh_state();
    }

    /// The file was loaded again from disk: the session, its text, no
    /// history.
    pub fn reload(&mut self, session: Session, base: &Arc<String>) {
        self.base_session = Some(session.clone());
        self.session = session;
        let old = std::mem::replace(&mut self.base, Arc::clone(base));
        // A reload of the same text (a touch) keeps the earlier version.
        if old != self.base {
            self.before_reload = Some(old);
        }
        self.disk = Disk::Same;
        self.load_error = None;
        self.undo.clear();
        self.redo.clear();
        self.state = self.fresh_state();
        self.saved_state = self.state;
    }

    /// The version the request is compared with for prompt caching: the
    /// last save while there are edits, else the text before the last
    /// reload (none after a plain open or a save).
    pub fn earlier(&self) -> Option<(Arc<String>, &'static str)> {
        if self.unsaved() {
            Some((Arc::clone(&self.base), "last save"))
        } else {
            self.before_reload
                .as_ref()
                .map(|t| (Arc::clone(t), "before the reload"))
        }
    }

    fn fresh_state(&mut self) -> u64 {
        self.next_state += 1;
        self.next_state
    }

    pub fn messages(&self) -> &[PackedMessage] {
        &self.session.messages
    }

    /// Replaces messages `at..at + remove` with `insert`, as one undo step.
    /// `group`: typing in message `group` joins the previous step when that
    /// step was typing in the same message.
    pub fn splice(&mut self, at: usize, remove: usize, insert: Vec<Value>, group: Option<usize>) {
        let insert: Vec<PackedMessage> = insert.iter().map(PackedMessage::new).collect();
        let at = at.min(self.session.messages.len());
        let end = (at + remove).min(self.session.messages.len());
        let before: Vec<PackedMessage> = self
            .session
            .messages_mut()
            .splice(at..end, insert.iter().cloned())
            .collect();
        let new_state = self.fresh_state();
        self.redo.clear();
        if let (Some(g), Some(top)) = (group, self.undo.last_mut()) {
            if top.group == Some(g) && top.at == at && top.after.len() == before.len() {
                // Typing undone in the editor (or retyped) back to what the
                // message was before the step: the step is gone, and so is
                // the unsaved mark when that was the file's state.
                if insert == top.before {
                    let state = top.state_before;
                    self.undo.pop();
                    self.state = state;
                    return;
                }
                top.after = insert;
                top.state_after = new_state;
                self.state = new_state;
                return;
            }
        }
        self.push(Change {
            at,
            before,
            after: insert,
            settings: None,
            state_before: self.state,
            state_after: new_state,
            group,
        });
        self.state = new_state;
    }

    /// Sets (or, with `None`, removes) a top-level setting, as one undo step.
    pub fn set_setting(&mut self, key: &str, value: Option<Value>) {
        self.set_settings(vec![(key.to_string(), value)]);
    }

    /// Sets (or removes) several top-level settings, as one undo step.
    pub fn set_settings(&mut self, changes: Vec<(String, Option<Value>)>) {
        let before = self.session.settings.clone();
        for (key, value) in changes {
            match value {
                Some(v) => {
                    self.session.settings.insert(key, v);
                }
                None => {
                    self.session.settings.shift_remove(&key);
                }
            }
        }
        if before == self.session.settings {
            return;
        }
        let new_state = self.fresh_state();
        self.redo.clear();
        let after = self.session.settings.clone();
        self.push(Change {
            at: 0,
            before: Vec::new(),
            after: Vec::new(),
            settings: Some((before, after)),
            state_before: self.state,
            state_after: new_state,
            group: None,
        });
        self.state = new_state;
    }

    fn push(&mut self, change: Change) {
        self.undo.push(change);
        if self.undo.len() > UNDO_DEPTH {
            self.undo.remove(0);
        }
    }

    /// Ends a typing group: the next keystroke starts a new undo step.
    pub fn close_group(&mut self) {
        if let Some(top) = self.undo.last_mut() {
            top.group = None;
        }
    }

    /// Undoes (or redoes) one step; returns the first message it touched,
    /// or `None` when there was nothing to undo.
    pub fn undo_redo(&mut self, undo: bool) -> Option<usize> {
        let change = if undo {
            self.undo.pop()?
        } else {
            self.redo.pop()?
        };
        let (remove, insert, settings, state) = if undo {
            (
                change.after.len(),
                change.before.clone(),
                change.settings.as_ref().map(|(b, _)| b.clone()),
                change.state_before,
            )
        } else {
            (
                change.before.len(),
                change.after.clone(),
                change.settings.as_ref().map(|(_, a)| a.clone()),
                change.state_after,
            )
        };
        let end = (change.at + remove).min(self.session.messages.len());
        self.session.messages_mut().splice(change.at..end, insert);
        if let Some(s) = settings {
            self.session.settings = s;
        }
        self.state = state;
        let at = change.at;
        let mut change = change;
        change.group = None;
        if undo {
            self.redo.push(change);
        } else {
            self.undo.push(change);
        }
        Some(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use formatscope_core::session::parse_session;
    use serde_json::json;

    fn doc() -> Document {
        let text = r#"[{"name": "a", "role": "user", "content": "1"}, {"name": "b", "role": "user", "content": "2"}]"#;
        Document::new(
            PathBuf::from("/s.json"),
            parse_session(text, "s").unwrap(),
            Arc::new(text.to_owned()),
            None,
        )
    }

    #[test]
    fn undoing_every_edit_makes_the_file_clean_again() {
        let mut d = doc();
        d.splice(0, 1, vec![], None);
        d.splice(0, 0, vec![json!({"name": "x"})], None);
        d.set_setting("model", Some(json!("qwen-max")));
        assert!(d.unsaved());
        while d.undo_redo(true).is_some() {}
        assert!(!d.unsaved());
        assert_eq!(d.messages().len(), 2);
        assert!(d.session.settings.is_empty());
        d.undo_redo(false);
        assert!(d.unsaved());
    }

    #[test]
    fn typing_back_to_the_files_text_is_not_an_edit() {
        let mut d = doc();
        d.splice(
            1,
            1,
            vec![json!({"name": "b", "role": "user", "content": "2x"})],
            Some(1),
        );
        assert!(d.unsaved());
        d.splice(
            1,
            1,
            vec![json!({"name": "b", "role": "user", "content": "2"})],
            Some(1),
        );
        assert!(!d.unsaved(), "the text is the file's again");
        assert!(d.undo_redo(true).is_none(), "and there is nothing to undo");
    }

    #[test]
    fn typing_in_one_message_is_one_step_and_a_save_in_between_counts() {
        let mut d = doc();
        d.splice(1, 1, vec![json!({"content": "2a"})], Some(1));
        let mid = d.state();
        d.saved(mid, &Arc::new("saved".to_owned()));
        assert!(!d.unsaved());
        d.splice(1, 1, vec![json!({"content": "2ab"})], Some(1));
        assert!(d.unsaved(), "typing after a save is unsaved");
        d.undo_redo(true);
        assert_eq!(d.messages()[1].value()["content"], "2");
        assert!(d.unsaved(), "the saved state was the middle of the group");
    }
}
