//! Issue 42, item 4: the workbench's rough edges a newcomer hit, driven
//! through `App::update` (no terminal): the compare view's releases pair
//! against `formatscope diff`, profiles read when used, `G` and edits
//! keeping the request pane full, leaving the editor by keyboard, `a`/`d`
//! saying what they did, and a session file that never parsed.

#[path = "support/workbench.rs"]
mod workbench;

use formatscope::compare::Row;
use formatscope::tui::app::{App, Event, Focus};
use formatscope::tui::msg::Command;
use formatscope::tui::panes::popup::Popup;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use workbench::*;

fn back_tab() -> Event {
    Event::Key(KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT))
}

/// `formatscope diff SESSION --left L --right R`: how many changes it
/// says, or its error (a release that cannot format the session).
fn cli_changes(session: &std::path::Path, left: &str, right: &str) -> Result<usize, String> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .arg("diff")
        .arg(session)
        .args(["--left", left, "--right", right])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let head = text.lines().next().unwrap_or_default();
    let n = head
        .rsplit(": ")
        .next()
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok());
    Ok(n.unwrap_or_else(|| panic!("no count in {head:?}")))
}

/// Item 1: in multi-agent mode the releases pair (`c`, `V`) marked every
/// line of both sides added or removed (2.0.11 reports no spans, so its
/// messages faced nothing), where `diff --left 1.0.21:openai:multi-agent
/// --right 2.0.11:openai:multi-agent` says one change. The view now diffs
/// as the command does, and says the same, for each provider and release.
#[test]
fn the_releases_pair_in_multi_agent_mode_says_what_diff_says() {
    let trip = session_path("library_trip.json");
    let (mut app, mut computer) = loaded_app(&trip, (140, 44));
    send(&mut app, &mut computer, key('1'));
    send(&mut app, &mut computer, key('c'));
    send(&mut app, &mut computer, key('V'));
    let compared = app
        .preview
        .as_ref()
        .and_then(|p| p.compare.clone())
        .expect("compared");
    assert!(
        compared
            .right
            .starts_with("2.0.11 OpenAIMultiAgentFormatter"),
        "{}",
        compared.right
    );
    assert_eq!(
        compared.counts.summary(),
        "1 changed",
        "{:?}",
        compared.counts
    );
    let groups = marked_groups(&compared);
    let marked: Vec<&str> = groups
        .iter()
        .filter(|g| g.1)
        .map(|g| g.0.as_str())
        .collect();
    assert_eq!(marked, vec!["message 0"], "{groups:?}");
    // The 2.0.11 messages face their 1.0.21 counterparts: no group of
    // its own for an unplaced `/messages/k`.
    assert!(
        !groups.iter().any(|g| g.0.starts_with("/messages")),
        "{groups:?}"
    );
    let releases = formatscope::reference::ALL.len();
    for (digit, provider) in [
        ('1', "openai"),
        ('2', "anthropic"),
        ('3', "dashscope"),
        ('4', "gemini"),
    ] {
        send(&mut app, &mut computer, key(digit));
        for _ in 1..releases {
            let compared = app
                .preview
                .as_ref()
                .and_then(|p| p.compare.clone())
                .expect("compared");
            let version = compared
                .right
                .split(' ')
                .next()
                .unwrap_or_default()
                .to_string();
            let cli = cli_changes(
                &trip,
                &format!("1.0.21:{provider}:multi-agent"),
                &format!("{version}:{provider}:multi-agent"),
            );
            // A release that cannot format it: the view says so too.
            let cli = match cli {
                Ok(n) => n,
                Err(e) => {
                    let noted = compared
                        .rows
                        .iter()
                        .any(|r| matches!(r, Row::Heading(h) if h.starts_with(&compared.right)));
                    assert!(noted, "diff failed ({e}); the view has no note");
                    send(&mut app, &mut computer, key('V'));
                    continue;
                }
            };
            assert_eq!(
                compared.counts.changes(),
                cli,
                "{provider} 1.0.21 → {version}: the view says {}, diff {cli}",
                compared.counts.summary()
            );
            send(&mut app, &mut computer, key('V'));
        }
    }
}

const PROFILE: &str =
    "[profiles.local]\nprovider = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\n";

/// The profile a send goes through, from the commands `S` gave.
fn sent_base_url(cmds: &[Command]) -> Option<Option<String>> {
    cmds.iter().find_map(|c| match c {
        Command::Send(job) => Some(job.profile.as_ref().and_then(|p| p.base_url.clone())),
        _ => None,
    })
}

/// Item 2: `profiles.toml` was read once, at start: a profile added or
/// fixed while the workbench ran was not seen. It is read again when the
/// settings open and on each send, and every error about it names it.
#[test]
fn profiles_are_read_when_used_and_errors_name_the_file() {
    let (dir, path) = temp_copy("chat_plain.json");
    let (mut app, _computer) = loaded_app(&path, (140, 44));
    let file = dir.path().join("profiles.toml");
    let shown = file.display().to_string();
    app.profiles_file = Some(file.clone());
    // Written after the start: the settings list it.
    std::fs::write(&file, PROFILE).expect("write");
    app.update(key('s'));
    let Some(Popup::Settings(form)) = &app.popup else {
        panic!("the settings are open: {:?}", app.status)
    };
    assert_eq!(form.profiles, vec!["local".to_string()]);
    let mut form = form.clone();
    if let Some(v) = form.values.last_mut() {
        *v = "nope".into();
    }
    let e = form.profile().expect_err("no such profile");
    assert!(e.contains(&shown), "{e}");
    app.update(code(KeyCode::Esc));
    app.profile = Some("local".into());
    let cmds = app.update(key('S'));
    assert_eq!(
        sent_base_url(&cmds),
        Some(Some("http://127.0.0.1:9/v1".into())),
        "{}",
        app.status
    );
    // Changed on disk: the next send goes where the file says now.
    app.replies.clear();
    std::fs::write(&file, PROFILE.replace(":9/", ":10/")).expect("write");
    let cmds = app.update(key('S'));
    assert_eq!(
        sent_base_url(&cmds),
        Some(Some("http://127.0.0.1:10/v1".into()))
    );
    // Broken: nothing is sent, and the status says which file, where.
    app.replies.clear();
    std::fs::write(&file, "[profiles.local\n").expect("write");
    let cmds = app.update(key('S'));
    assert_eq!(sent_base_url(&cmds), None);
    assert!(app.status.starts_with("not sent"), "{}", app.status);
    assert!(
        app.status.contains(&format!("{shown}:1:")),
        "{}",
        app.status
    );
    app.update(key('s'));
    assert!(app.status.contains(&shown), "{}", app.status);
    app.update(code(KeyCode::Esc));
    // Gone: the profile in use is not silently dropped.
    std::fs::remove_file(&file).expect("remove");
    let cmds = app.update(key('S'));
    assert_eq!(sent_base_url(&cmds), None);
    assert!(
        app.status.contains(&shown) && app.status.contains("does not exist"),
        "{}",
        app.status
    );
}

/// Rows of the request pane's text, and the lines of the request.
fn request_rows(app: &App) -> (usize, usize) {
    let rows = app.areas.output.height.saturating_sub(2) as usize;
    let n = app.request.lines(app.preview.as_ref()).len();
    (rows, n)
}

/// The request pane shows a full screen: its last page at most.
fn assert_full(app: &App, what: &str) {
    let (rows, n) = request_rows(app);
    assert!(n > rows, "the request is longer than the pane");
    assert!(
        app.request.scroll + rows <= n,
        "{what}: line {} of {n} on top of {rows} rows leaves the pane part empty",
        app.request.scroll
    );
}

/// Item 3: `G` in the request pane put the last line at the top of an
/// otherwise empty pane; selecting the last message (and deleting it)
/// scrolled it to a near-empty screen too. `G` now puts the last line on
/// the pane's last row, and the pane stays full.
#[test]
fn g_and_edits_keep_the_request_pane_full() {
    let (_dir, path) = temp_copy("library_trip.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    // S-Tab from the list: the request pane.
    send(&mut app, &mut computer, back_tab());
    assert_eq!(app.focus, Focus::Output);
    send(&mut app, &mut computer, key('G'));
    let (rows, n) = request_rows(&app);
    assert_eq!(
        app.request.scroll + rows,
        n,
        "the last line on the last row"
    );
    let screen = screen_text(&app, 120, 40);
    let last = app
        .request
        .lines(app.preview.as_ref())
        .get(n - 1)
        .unwrap()
        .to_string();
    assert!(screen.contains(last.trim()), "{screen}");
    // The list: the last message, selected, in a full pane.
    send(&mut app, &mut computer, code(KeyCode::Tab));
    assert_eq!(app.focus, Focus::List);
    send(&mut app, &mut computer, key('g'));
    send(&mut app, &mut computer, key('G'));
    assert_full(&app, "the last message selected");
    let shown = app.selected_lines().expect("its lines");
    assert!(shown.start >= app.request.scroll && shown.end <= app.request.scroll + rows + 1);
    // Deleted: the request is shorter; the pane is still full.
    send(&mut app, &mut computer, key('x'));
    assert_full(&app, "after deleting the last message");
    send(&mut app, &mut computer, key('x'));
    assert_full(&app, "after deleting another");
    // An edit in the editor keeps the view where it was.
    send(&mut app, &mut computer, key('k'));
    let before = app.request.scroll;
    send(&mut app, &mut computer, key('e'));
    send(&mut app, &mut computer, code(KeyCode::Down));
    send(&mut app, &mut computer, code(KeyCode::End));
    send(&mut app, &mut computer, code(KeyCode::Left));
    send(&mut app, &mut computer, code(KeyCode::Left));
    send(&mut app, &mut computer, key('Z'));
    assert!(app.unsaved(), "{:?}", app.editor.error);
    assert_eq!(app.request.scroll, before, "the view stays");
    assert_full(&app, "after an edit");
}

/// Item 4: Tab indents in the editor and nothing left it by Tab; S-Tab
/// typed a tab too. S-Tab now leaves for the list (Esc still does), and
/// the status line names both on the way in.
#[test]
fn shift_tab_leaves_the_editor_and_tab_still_indents() {
    let (_dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    send(&mut app, &mut computer, key('e'));
    assert_eq!(app.focus, Focus::Editor);
    assert!(
        app.status.contains("Esc or S-Tab leaves") && app.status.contains("Tab indents"),
        "{}",
        app.status
    );
    let text = app.editor.text();
    send(&mut app, &mut computer, code(KeyCode::Tab));
    assert_eq!(app.focus, Focus::Editor, "Tab stays: it indents");
    let indented = app.editor.text();
    assert_ne!(indented, text, "Tab indented");
    send(&mut app, &mut computer, back_tab());
    assert_eq!(app.focus, Focus::List, "S-Tab left the editor");
    assert_eq!(app.editor.text(), indented, "and typed nothing");
}

/// Item 5: `a` (add) and `d` (duplicate) changed the list and said
/// nothing; they now say what they did and that `u` undoes it, as `x`
/// (delete) does.
#[test]
fn add_and_duplicate_say_what_they_did() {
    let (_dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    let n = app.messages().len();
    send(&mut app, &mut computer, key('j'));
    send(&mut app, &mut computer, key('a'));
    assert_eq!(app.messages().len(), n + 1);
    assert!(
        app.status.starts_with("added message #2 (user") && app.status.contains("u undoes it"),
        "{}",
        app.status
    );
    send(&mut app, &mut computer, key('d'));
    assert_eq!(app.messages().len(), n + 2);
    assert!(
        app.status
            .starts_with("duplicated message #2 (user, user) as #3")
            && app.status.contains("u undoes it"),
        "{}",
        app.status
    );
    send(&mut app, &mut computer, key('x'));
    assert!(
        app.status.starts_with("deleted message #3"),
        "{}",
        app.status
    );
    send(&mut app, &mut computer, key('u'));
    assert_eq!(app.messages().len(), n + 2);
}

/// Item 6: a session with a syntax error and no good version said
/// "showing the last good version" over an empty screen, `O` did nothing
/// and `e` took typing that `C-s` dropped. Now the status says what is
/// wrong and where, the request pane shows the file's text, `e` says why
/// it cannot edit, and `O` opens the file's text: what comes back is
/// written as the file, which then opens.
#[test]
fn a_file_that_never_parsed_shows_its_text_and_o_fixes_it() {
    let (_dir, path) = temp_copy("invalid.json");
    let (mut app, mut computer) = loaded_app(&path, (140, 44));
    assert!(app.doc.is_none());
    assert!(
        app.status.starts_with(&format!(
            "no good version yet: {}:6:5: expected",
            path.display()
        )),
        "{}",
        app.status
    );
    let screen = screen_text(&app, 140, 44);
    assert!(!screen.contains("last good version"), "{screen}");
    assert!(screen.contains("No good version yet"), "{screen}");
    assert!(
        screen.contains(r#""content": "Hi!""#),
        "the file's text\n{screen}"
    );
    // e: refused, saying why; typing in the editor pane is not taken.
    send(&mut app, &mut computer, key('e'));
    assert_ne!(app.focus, Focus::Editor);
    assert!(
        app.status.contains("nothing to edit") && app.status.contains("O opens"),
        "{}",
        app.status
    );
    send(&mut app, &mut computer, code(KeyCode::Tab));
    assert_eq!(app.focus, Focus::Editor);
    send(&mut app, &mut computer, key('x'));
    assert_eq!(app.editor.text(), "", "nothing typed");
    assert!(app.status.contains("nothing to edit"), "{}", app.status);
    assert!(!app.unsaved());
    send(&mut app, &mut computer, code(KeyCode::Esc));
    // C-s: nothing to save, and why.
    send(
        &mut app,
        &mut computer,
        Event::Key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL)),
    );
    assert!(app.status.starts_with("nothing to save"), "{}", app.status);
    // O: the file's whole text in the external editor.
    let cmds = app.update(key('O'));
    let [Command::ExternalEdit(job)] = cmds.as_slice() else {
        panic!("O asks for the external editor: {cmds:?}")
    };
    let original = std::fs::read_to_string(&path).expect("read");
    assert_eq!(job.text, original);
    let fixed = original.replace(r#""Hello"}"#, r#""Hello"},"#);
    send(
        &mut app,
        &mut computer,
        Event::ExternalEdited {
            index: job.index,
            text_mode: job.text_mode,
            original: job.text.clone(),
            result: Ok(fixed.clone()),
        },
    );
    assert_eq!(std::fs::read_to_string(&path).expect("read"), fixed);
    assert!(app.doc.is_some(), "{}", app.status);
    assert_eq!(app.messages().len(), 2);
    assert!(app.preview.is_some());
}

/// Item 6: a fix is written only over the text that was edited: a file
/// that changed meanwhile is left as it is, and the status says so.
#[test]
fn a_fix_is_not_written_over_a_file_that_changed_meanwhile() {
    let (_dir, path) = temp_copy("invalid.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    let cmds = app.update(key('O'));
    let [Command::ExternalEdit(job)] = cmds.as_slice() else {
        panic!("{cmds:?}")
    };
    let meanwhile = "{\"messages\": [\n";
    std::fs::write(&path, meanwhile).expect("write");
    send(
        &mut app,
        &mut computer,
        Event::ExternalEdited {
            index: job.index,
            text_mode: job.text_mode,
            original: job.text.clone(),
            result: Ok(job.text.replace(r#""Hello"}"#, r#""Hello"},"#)),
        },
    );
    assert_eq!(std::fs::read_to_string(&path).expect("read"), meanwhile);
    assert!(app.status.contains("changed on disk"), "{}", app.status);
}

/// Item 7: a folder with no sessions says how to start one.
#[test]
fn an_empty_folder_says_how_to_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _computer) = folder_app(dir.path(), (140, 44));
    let screen = screen_text(&app, 140, 44);
    assert!(screen.contains("--new FILE.json"), "{screen}");
    let missing = dir.path().join("nope.json");
    let (app, _computer) = loaded_app(&missing, (140, 44));
    assert!(
        app.status.contains("no such file") && app.status.contains("--new FILE.json"),
        "{}",
        app.status
    );
    let screen = screen_text(&app, 140, 44);
    assert!(!screen.contains("last good version"), "{screen}");
}
