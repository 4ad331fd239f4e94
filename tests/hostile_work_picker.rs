//! Issue 41, hostile folders (the session picker, Ctrl-p): a listing of
//! many sessions was deduplicated entry against entry on the UI thread
//! (20,000 sessions froze the keys for 21 s), the screen was not drawn
//! again when the listing landed (a tick queued behind it cancelled the
//! frame), and the picker a folder opens with took the keys typed before
//! it opened (`]` landed in its filter).

#[path = "support/workbench.rs"]
mod workbench;

use formatscope::tui::app::{App, Event};
use formatscope::tui::msg::Command;
use formatscope::tui::panes::picker::PickerPane;
use formatscope::tui::panes::popup::Popup;
use formatscope::tui::theme::Theme;
use formatscope::tui::worker::Computer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::{Path, PathBuf};
use workbench::*;

fn ctrl_p() -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char('p'), KeyModifiers::CONTROL))
}

#[test]
fn a_listing_of_many_sessions_is_taken_in_one_pass() {
    // 200,000 sessions, the recent ones among them: each entry compared
    // with all the others would be 2e10 comparisons.
    let dir = PathBuf::from("/s");
    let n = 200_000;
    let files: Vec<PathBuf> = (0..n)
        .map(|i| dir.join(format!("session_{i:06}.json")))
        .collect();
    let mut recent: Vec<PathBuf> = files.iter().rev().step_by(1_000).cloned().collect();
    recent.push(PathBuf::from("/elsewhere/a.json"));
    recent.push(recent[0].clone());
    let mut pane = PickerPane::new(Some(dir));
    pane.listed(files, recent);
    let labels = pane.labels();
    assert_eq!(labels.len(), n + 1, "each path once");
    assert_eq!(labels[0], "session_199999.json");
    assert_eq!(labels[200], "/elsewhere/a.json");
    assert_eq!(labels[201], "session_000000.json");
    // The recent ones are not listed again among the folder's.
    assert!(!labels[201..].contains(&"session_199999.json"));
}

fn folder() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("sessions");
    std::fs::create_dir(&dir).expect("mkdir");
    for name in ["chat_plain.json", "library_trip.json", "multimodal.json"] {
        std::fs::copy(session_path(name), dir.join(name)).expect("copy");
    }
    (tmp, dir)
}

/// The workbench on `dir` as the runtime starts it on a folder: its
/// picker opens once the folder is listed.
fn folder_app(dir: &Path) -> App {
    let mut app = App::new(
        Vec::new(),
        Some(dir.to_path_buf()),
        Theme::load("dark").expect("theme"),
    );
    app.clock = fixed_clock;
    app.size = (120, 32);
    app.areas = formatscope::tui::view::layout(ratatui::layout::Rect::new(0, 0, 120, 32)).1;
    app.pick_on_folder = true;
    app
}

#[test]
fn the_listing_landing_is_drawn_even_with_a_tick_behind_it() {
    let (_tmp, dir) = folder();
    let (mut app, _computer) = loaded_app(&dir.join("library_trip.json"), (120, 32));
    let listing = app.update(ctrl_p());
    let Some(Command::ListPicker { dir: listed, .. }) = listing.into_iter().next() else {
        panic!("Ctrl-p asks for a listing");
    };
    // The runtime drew the picker ("listing…") and waits.
    app.dirty = false;
    let files = vec![dir.join("chat_plain.json"), dir.join("library_trip.json")];
    app.update(Event::PickerListed {
        dir: listed,
        files,
        recent: Vec::new(),
    });
    // A tick queued behind it, handled before the runtime draws.
    app.update(Event::Tick);
    assert!(app.dirty, "the listing is drawn");
    match &app.popup {
        Some(Popup::Picker(p)) => assert_eq!(p.labels().len(), 2),
        other => panic!("no picker: {other:?}"),
    }
}

/// The picker a folder opens with is up from the start (before the folder
/// is listed), so the keys typed next go to what is on screen: Esc closes
/// it, and the listing landing later does not bring it back over `]`.
#[test]
fn the_folder_s_picker_is_up_before_the_listing_and_esc_closes_it_for_good() {
    let (_tmp, dir) = folder();
    let mut app = folder_app(&dir);
    let mut computer = Computer::default();
    let start = app.start();
    assert!(
        matches!(&app.popup, Some(Popup::Picker(p)) if p.entries.is_none() && !p.done),
        "the picker is up at once, listing: {:?}",
        app.popup
    );
    let screen = screen_text(&app, 120, 32);
    assert!(
        screen.contains("Open a session in sessions · listing…"),
        "{screen}"
    );
    send(
        &mut app,
        &mut computer,
        Event::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)),
    );
    assert!(app.popup.is_none());
    run_commands(&mut app, &mut computer, start);
    assert_eq!(app.path(), Some(&dir.join("chat_plain.json")));
    assert!(app.popup.is_none(), "{:?}", app.popup);
    send(&mut app, &mut computer, key(']'));
    assert_eq!(app.path(), Some(&dir.join("library_trip.json")));
    // Ctrl-p still opens it.
    send(&mut app, &mut computer, ctrl_p());
    assert!(matches!(app.popup, Some(Popup::Picker(_))));
}

/// A folder of one session has no choice to offer: the picker it opened
/// with goes by itself once the listing shows so.
#[test]
fn a_folder_of_one_session_closes_its_picker_when_listed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("sessions");
    std::fs::create_dir(&dir).expect("mkdir");
    std::fs::copy(session_path("chat_plain.json"), dir.join("chat_plain.json")).expect("copy");
    std::fs::write(dir.join("package.json"), r#"{"name": "app"}"#).expect("write");
    let mut app = folder_app(&dir);
    let mut computer = Computer::default();
    let start = app.start();
    assert!(matches!(app.popup, Some(Popup::Picker(_))));
    run_commands(&mut app, &mut computer, start);
    assert!(app.popup.is_none(), "{:?}", app.popup);
    assert_eq!(app.path(), Some(&dir.join("chat_plain.json")));
}

#[test]
fn without_keys_the_folder_opens_with_its_picker() {
    let (_tmp, dir) = folder();
    let mut app = folder_app(&dir);
    let mut computer = Computer::default();
    let start = app.start();
    run_commands(&mut app, &mut computer, start);
    match &app.popup {
        Some(Popup::Picker(p)) => assert_eq!(p.labels().len(), 3),
        other => panic!("no picker: {other:?}"),
    }
}
