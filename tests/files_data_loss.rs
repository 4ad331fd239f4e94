//! Data safety, files (the "Files (data loss)" part of "Safe against
//! hostile files and servers"): a save replaces the file whole or leaves
//! it as it was, goes only to the file the edits came from, asks before
//! replacing what is read-only, keeps up with large sessions, and an
//! undone edit is no edit. Workbench items drive `App::update` with the
//! real I/O executor (files really written), as tests/data_safety.rs does.

#[path = "support/workbench.rs"]
mod workbench;

use formatscope::tui::app::{App, Msg};
use formatscope::tui::panes::popup::Popup;
use formatscope::tui::worker::Computer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::{Path, PathBuf};
use workbench::*;

fn key(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}
fn code(c: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(c, KeyModifiers::NONE))
}
fn ctrl(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}
fn changed(app: &mut App, computer: &mut Computer, path: &Path) -> Vec<PathBuf> {
    send(app, computer, Msg::FilesChanged(vec![path.to_path_buf()]))
}

// ---- 10. Undo in the editor back to the file's text is no edit ----------

#[test]
fn item10_undo_in_the_editor_clears_the_unsaved_mark_and_an_outside_edit_reloads() {
    let (_dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    send(&mut app, &mut computer, key('j'));
    send(&mut app, &mut computer, key('T'));
    send(&mut app, &mut computer, code(KeyCode::End));
    send(&mut app, &mut computer, key('!'));
    assert!(app.unsaved());
    send(&mut app, &mut computer, ctrl('z'));
    assert!(!app.unsaved(), "the text is the file's again");
    send(&mut app, &mut computer, code(KeyCode::Esc));
    let outside = std::fs::read_to_string(&path)
        .expect("read")
        .replace("Canberra", "Perth");
    std::fs::write(&path, &outside).expect("write");
    changed(&mut app, &mut computer, &path);
    assert!(app.popup.is_none(), "no conflict: {:?}", app.popup);
    assert!(serde_json::to_string(app.messages())
        .expect("json")
        .contains("Perth"));
}
