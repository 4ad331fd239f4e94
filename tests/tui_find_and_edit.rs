//! Finding a session (the picker: Ctrl-p, and on opening a folder) and
//! editing a message in the user's editor (`O`), through `App::update`
//! with the I/O commands run for real. The editor itself runs in the
//! runtime (tests/e2e_tmux.rs runs it for real); here its outcome comes
//! in as the event the runtime sends.

#[path = "support/workbench.rs"]
mod workbench;

use formatscope::tui::app::{App, Event, Focus};
use formatscope::tui::msg::{Command, ExternalEdit};
use formatscope::tui::panes::popup::Popup;
use formatscope::tui::theme::Theme;
use formatscope::tui::worker::Computer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::{Path, PathBuf};
use workbench::*;

fn key(code: KeyCode) -> Event {
    Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn ctrl_p() -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char('p'), KeyModifiers::CONTROL))
}

fn typed(app: &mut App, computer: &mut Computer, text: &str) {
    for c in text.chars() {
        send(app, computer, key(KeyCode::Char(c)));
    }
}

/// A folder `sessions/` holding three sessions (one without `.json`) and
/// JSON that is no session.
fn folder() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("sessions");
    std::fs::create_dir(&dir).expect("mkdir");
    for name in ["chat_plain.json", "library_trip.json"] {
        std::fs::copy(session_path(name), dir.join(name)).expect("copy");
    }
    std::fs::copy(
        session_path("multimodal.json"),
        dir.join("multimodal.session"),
    )
    .expect("copy");
    std::fs::write(
        dir.join("package.json"),
        r#"{"name": "app", "version": "1.0.0", "scripts": {"test": "jest"}}"#,
    )
    .expect("write");
    std::fs::write(
        dir.join("tsconfig.json"),
        r#"{"compilerOptions": {"strict": true}, "include": ["src"]}"#,
    )
    .expect("write");
    (tmp, dir)
}

/// The workbench on `dir` as the runtime starts it on a folder: the
/// picker comes up once the folder is listed, with `recent` as the
/// recent list.
fn picking(dir: &Path, recent: &[PathBuf]) -> (App, Computer, tempfile::TempDir) {
    let state = tempfile::tempdir().expect("state");
    let list = state.path().join("formatscope/recent");
    for p in recent.iter().rev() {
        formatscope::tui::recent::remember(&list, p).expect("recent");
    }
    let mut app = App::new(
        Vec::new(),
        Some(dir.to_path_buf()),
        Theme::load("dark").expect("theme"),
    );
    app.clock = fixed_clock;
    app.size = (120, 32);
    app.areas = formatscope::tui::view::layout(ratatui::layout::Rect::new(0, 0, 120, 32)).1;
    app.recent_path = Some(list);
    app.pick_on_folder = true;
    let mut computer = Computer::default();
    let start = app.start();
    run_commands(&mut app, &mut computer, start);
    (app, computer, state)
}

fn picker_labels(app: &App) -> Vec<String> {
    match &app.popup {
        Some(Popup::Picker(p)) => p.labels().into_iter().map(String::from).collect(),
        other => panic!("no picker: {other:?}"),
    }
}

#[test]
fn opening_a_folder_lists_sessions_by_shape_recent_first_and_filters_fuzzily() {
    let (_tmp, dir) = folder();
    let (mut app, mut computer, _state) = picking(&dir, &[dir.join("multimodal.session")]);
    // package.json and tsconfig.json are JSON but no sessions; a session
    // named otherwise is one.
    assert_eq!(
        app.files,
        vec![
            dir.join("chat_plain.json"),
            dir.join("library_trip.json"),
            dir.join("multimodal.session"),
        ]
    );
    assert_eq!(
        picker_labels(&app),
        ["multimodal.session", "chat_plain.json", "library_trip.json"]
    );
    // The first session opened beneath it meanwhile.
    assert_eq!(app.path(), Some(&dir.join("chat_plain.json")));
    insta::assert_snapshot!("picker", screen_text(&app, 120, 32));

    typed(&mut app, &mut computer, "ltrp");
    assert_eq!(picker_labels(&app), ["library_trip.json"]);
    send(&mut app, &mut computer, key(KeyCode::Enter));
    assert!(app.popup.is_none());
    assert_eq!(app.path(), Some(&dir.join("library_trip.json")));
    // Opened files go first in the recent list.
    let recent = formatscope::tui::recent::read(app.recent_path.as_ref().expect("list"));
    assert_eq!(recent.first(), Some(&dir.join("library_trip.json")));

    // Ctrl-p from the editor too; Esc closes without a change.
    send(&mut app, &mut computer, key(KeyCode::Char('e')));
    assert_eq!(app.focus, Focus::Editor);
    send(&mut app, &mut computer, ctrl_p());
    assert_eq!(picker_labels(&app)[0], "library_trip.json");
    send(&mut app, &mut computer, key(KeyCode::Esc));
    assert!(app.popup.is_none());
    assert_eq!(app.path(), Some(&dir.join("library_trip.json")));
}

#[test]
fn the_picker_asks_before_leaving_unsaved_edits() {
    let (_tmp, dir) = folder();
    let (mut app, mut computer, _state) = picking(&dir, &[]);
    send(&mut app, &mut computer, key(KeyCode::Esc));
    send(&mut app, &mut computer, key(KeyCode::Char('d'))); // an unsaved edit
    assert!(app.unsaved());
    send(&mut app, &mut computer, ctrl_p());
    typed(&mut app, &mut computer, "multi");
    send(&mut app, &mut computer, key(KeyCode::Enter));
    assert!(matches!(app.popup, Some(Popup::Unsaved(_))), "asks first");
    assert_eq!(app.path(), Some(&dir.join("chat_plain.json")));
}

/// `O` asks the runtime to edit what the editor pane would show.
fn external(app: &mut App, computer: &mut Computer) -> ExternalEdit {
    let cmds = app.update(key(KeyCode::Char('O')));
    let mut job = None;
    let mut rest = Vec::new();
    for c in cmds {
        match c {
            Command::ExternalEdit(j) => job = Some(*j),
            other => rest.push(other),
        }
    }
    run_commands(app, computer, rest);
    job.expect("an external edit")
}

#[test]
fn an_external_edit_is_applied_as_an_edit_and_one_that_fails_changes_nothing() {
    let (_dir, path) = temp_copy("library_trip.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    let before = app.messages()[0].value();

    // The editor exits non-zero: nothing changes, the status says why.
    let job = external(&mut app, &mut computer);
    assert!(!job.text_mode);
    assert!(job.text.contains("named Friday."), "{}", job.text);
    send(
        &mut app,
        &mut computer,
        Event::ExternalEdited {
            index: job.index,
            text_mode: job.text_mode,
            original: job.text.clone(),
            result: Err("the editor `false` exited with status 1".into()),
        },
    );
    assert!(!app.unsaved());
    assert_eq!(app.messages()[0].value(), before);
    assert!(
        app.status.contains("exited with status 1"),
        "{}",
        app.status
    );

    // It edits: the message changes as one undoable edit (the newline
    // the editor added is not taken as part of the text).
    let edited = job.text.replace("named Friday.", "named Saturday.") + "\n";
    send(
        &mut app,
        &mut computer,
        Event::ExternalEdited {
            index: job.index,
            text_mode: job.text_mode,
            original: job.text.clone(),
            result: Ok(edited),
        },
    );
    assert!(app.unsaved());
    assert!(app.messages()[0]
        .value()
        .to_string()
        .contains("named Saturday."));
    assert!(app.status.contains("external editor"), "{}", app.status);
    send(&mut app, &mut computer, key(KeyCode::Char('u')));
    assert_eq!(app.messages()[0].value(), before);

    // Text that does not parse is kept in the editor pane as a draft,
    // with where and why.
    let job = external(&mut app, &mut computer);
    send(
        &mut app,
        &mut computer,
        Event::ExternalEdited {
            index: job.index,
            text_mode: false,
            original: job.text.clone(),
            result: Ok("{\"role\": \"system\",\n  oops}".into()),
        },
    );
    assert!(app.editor.has_draft());
    assert_eq!(app.focus, Focus::Editor);
    assert!(app.status.starts_with("editor:2:3: "), "{}", app.status);
    assert!(app.editor.text().contains("oops"));
    assert_eq!(app.messages()[0].value(), before);
}

#[test]
fn in_text_mode_the_editor_gets_the_text_alone_and_wraps_it() {
    let (_dir, path) = temp_copy("library_trip.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    send(&mut app, &mut computer, key(KeyCode::Char('T')));
    assert!(app.editor.text_mode);
    assert!(app.editor.wraps(), "soft wrap is on for text");
    send(
        &mut app,
        &mut computer,
        Event::Key(KeyEvent::new(KeyCode::Char('w'), KeyModifiers::ALT)),
    );
    assert!(!app.editor.wraps());
    send(&mut app, &mut computer, key(KeyCode::Esc));
    let job = external(&mut app, &mut computer);
    assert!(job.text_mode);
    assert!(!job.text.trim_start().starts_with('{'), "{}", job.text);
    send(
        &mut app,
        &mut computer,
        Event::ExternalEdited {
            index: job.index,
            text_mode: true,
            original: job.text.clone(),
            result: Ok(format!("{}\nA new line.\n", job.text)),
        },
    );
    let text = app.messages()[0].value().to_string();
    assert!(text.contains("A new line."), "{text}");
    assert!(!text.contains("A new line.\\n"), "{text}");
}

#[test]
fn ctrl_p_on_a_single_file_lists_its_folder() {
    let (_tmp, dir) = folder();
    let (mut app, mut computer) = loaded_app(&dir.join("library_trip.json"), (120, 40));
    assert!(
        app.popup.is_none(),
        "no picker for a file named on the command line"
    );
    send(&mut app, &mut computer, ctrl_p());
    assert_eq!(
        picker_labels(&app),
        ["chat_plain.json", "library_trip.json", "multimodal.session"]
    );
    typed(&mut app, &mut computer, "mms");
    send(&mut app, &mut computer, key(KeyCode::Enter));
    assert_eq!(app.path(), Some(&dir.join("multimodal.session")));
    assert!(app.messages().len() > 1);
}
