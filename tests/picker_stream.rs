//! Issue 41, item 11's tail: the session picker a folder opens with came up
//! 2–4 s after the first frame on big folders (the folder was listed, every
//! file read up to 64 KiB, and only then listed again for the picker). It
//! is up now from the first frame and fills as the folder is read, on a
//! thread of its own, in name order, a batch every 256 files or 50 ms; it
//! lists only files of a session's shape, reading a few KB of each (more
//! only while the shape is still open, never past 64 KiB).

#[path = "support/workbench.rs"]
mod workbench;

use formatscope::tui::app::{App, Event};
use formatscope::tui::io::{list_picker, Log};
use formatscope::tui::panes::picker::PickerPane;
use formatscope::tui::panes::popup::Popup;
use formatscope::tui::runtime::Runtime;
use formatscope::tui::theme::Theme;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const SESSION: &str = r#"{"messages": [{"name": "user", "role": "user", "content": "What is the capital of Peru?"}]}"#;

/// `n` sessions named `s_00000.json`… in `dir`.
fn sessions(dir: &Path, n: usize) -> Vec<PathBuf> {
    (0..n)
        .map(|i| {
            let p = dir.join(format!("s_{i:05}.json"));
            std::fs::write(&p, SESSION).expect("write");
            p
        })
        .collect()
}

/// What the listing of `dir` streamed: each batch (recent, files, done).
type Batch = (Vec<PathBuf>, Vec<PathBuf>, bool);

fn stream(dir: &Path, recent: Option<&Path>) -> Vec<Batch> {
    let mut batches = Vec::new();
    list_picker(Some(dir), recent, 7, |e| match e {
        Event::PickerFound {
            listing,
            files,
            recent,
            done,
        } => {
            assert_eq!(listing, 7);
            batches.push((recent, files, done));
            true
        }
        other => panic!("not a picker batch: {other:?}"),
    });
    batches
}

#[test]
fn the_listing_streams_sessions_only_in_name_order_recent_first() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("folder");
    std::fs::create_dir(&dir).expect("mkdir");
    let mut want = sessions(&dir, 1_000);
    // JSON that is no session, and other files.
    std::fs::write(
        dir.join("package.json"),
        r#"{"name": "app", "version": "1.0.0"}"#,
    )
    .expect("write");
    std::fs::write(dir.join("tsconfig.json"), r#"{"compilerOptions": {}}"#).expect("write");
    std::fs::write(dir.join("notes.json"), "just text").expect("write");
    std::fs::create_dir(dir.join("sub.json")).expect("mkdir");
    let fifo = dir.join("fifo.json");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo")
        .success());
    // A session whose shape shows only past the first 4 KiB.
    let late = dir.join("t_late.json");
    std::fs::write(
        &late,
        format!(r#"{{"title": "{}", "messages": []}}"#, "x".repeat(10_000)),
    )
    .expect("write");
    want.push(late);
    // 1 GiB each, sparse: a session (its shape in its first bytes) and
    // 1 GiB of spaces-then-nothing that never shows one. Reading either
    // whole would take seconds and the memory.
    let big = dir.join("u_big.json");
    std::fs::write(&big, r#"{"messages": [{"role": "user", "content": ""#).expect("write");
    std::fs::File::options()
        .append(true)
        .open(&big)
        .and_then(|f| f.set_len(1 << 30))
        .expect("grow");
    want.push(big);
    let blank = dir.join("v_blank.json");
    std::fs::write(&blank, " ".repeat(70_000)).expect("write");
    std::fs::File::options()
        .append(true)
        .open(&blank)
        .and_then(|f| f.set_len(1 << 30))
        .expect("grow");
    // A hidden session is not listed.
    std::fs::write(dir.join(".hidden.json"), SESSION).expect("write");
    // The recent list: one of the folder's, one elsewhere, one gone, one
    // that is no session.
    let elsewhere = tmp.path().join("elsewhere.json");
    std::fs::write(&elsewhere, SESSION).expect("write");
    let list = tmp.path().join("state/recent");
    for p in [
        tmp.path().join("gone.json"),
        dir.join("package.json"),
        elsewhere.clone(),
        dir.join("s_00500.json"),
    ] {
        formatscope::tui::recent::remember(&list, &p).expect("recent");
    }

    let started = Instant::now();
    let batches = stream(&dir, Some(&list));
    let took = started.elapsed();
    eprintln!("listed 1,000 sessions and 2 GiB of sparse files in {took:?}");
    assert!(
        took < Duration::from_secs(10),
        "a bounded read per file: {took:?}"
    );
    // The recent ones first, alone, at once.
    assert_eq!(
        batches[0],
        (vec![dir.join("s_00500.json"), elsewhere], Vec::new(), false)
    );
    // Then the folder in batches of 256 at most, the last one done.
    assert!(batches.len() >= 5, "{} batches", batches.len());
    assert!(batches[1..]
        .iter()
        .all(|(r, f, _)| r.is_empty() && f.len() <= 256));
    assert!(batches.last().expect("a batch").2);
    assert!(batches[..batches.len() - 1].iter().all(|b| !b.2));
    let files: Vec<PathBuf> = batches.into_iter().flat_map(|(_, f, _)| f).collect();
    assert_eq!(files, want, "sessions only, in name order");
}

#[test]
fn a_newer_listing_stops_an_older_one() {
    let tmp = tempfile::tempdir().expect("tempdir");
    sessions(tmp.path(), 600);
    let mut batches = 0;
    list_picker(Some(tmp.path()), None, 1, |_| {
        batches += 1;
        false
    });
    assert_eq!(batches, 1, "it stops at the first refusal");
}

fn entries(prefix: &str, n: usize) -> Vec<PathBuf> {
    (0..n)
        .map(|i| PathBuf::from(format!("/s/{prefix}{i:04}.json")))
        .collect()
}

/// A query typed while the listing comes: the batches, merged as they
/// come, show what the whole listing would, and the cursor stays on the
/// entry it was on.
#[test]
fn batches_under_a_query_show_what_the_whole_listing_would() {
    let mut files = entries("chat_", 300);
    files.extend(entries("library_trip_", 300));
    files.extend(entries("multimodal_", 300));
    files.sort();
    let recent = vec![PathBuf::from("/s/library_trip_0007.json")];
    let mut whole = PickerPane::new(Some(PathBuf::from("/s")));
    let mut streamed = PickerPane::new(Some(PathBuf::from("/s")));
    for c in "trp".chars() {
        let key = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        whole.on_key(key);
        streamed.on_key(key);
    }
    whole.listed(files.clone(), recent.clone());
    streamed.found(Vec::new(), recent, false);
    let mut batches = files.chunks(128).peekable();
    let mut on = None;
    while let Some(batch) = batches.next() {
        streamed.found(batch.to_vec(), Vec::new(), batches.peek().is_none());
        if on.is_none() && streamed.shown.len() > 3 {
            // The user moves down to the fourth entry.
            for _ in 0..3 {
                streamed.on_key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE));
            }
            on = streamed.chosen().map(|e| e.path.clone());
        } else if let Some(path) = &on {
            assert_eq!(streamed.chosen().map(|e| &e.path), Some(path));
        }
    }
    assert!(streamed.done);
    assert_eq!(streamed.labels(), whole.labels());
    assert_eq!(streamed.labels().len(), 300);
}

/// The real runtime on a folder of 10,000 sessions: the picker is up
/// before anything was listed, and its first entries come while the rest
/// are still being listed (before, they came after two whole listings of
/// the folder, the first the folder's own).
#[test]
fn the_runtime_s_picker_is_up_at_once_and_fills_while_the_folder_is_listed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("sessions");
    std::fs::create_dir(&dir).expect("mkdir");
    sessions(&dir, 10_000);
    let mut app = App::new(
        Vec::new(),
        Some(dir.clone()),
        Theme::load("dark").expect("theme"),
    );
    app.pick_on_folder = true;
    let started = Instant::now();
    let mut rt = Runtime::start(app, None, Log::default());
    match &rt.app.popup {
        Some(Popup::Picker(p)) => assert!(p.entries.is_none() && !p.done),
        other => panic!("no picker at the start: {other:?}"),
    }
    let mut first_entries = None;
    let mut seen_partial = false;
    let mut listed = None;
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        // One message at a time: each state the picker goes through.
        rt.step_alone(Duration::from_millis(20));
        let count = match &rt.app.popup {
            Some(Popup::Picker(p)) => p.entries.as_ref().map_or(0, Vec::len),
            _ => 0,
        };
        if count > 0 && first_entries.is_none() {
            first_entries = Some(started.elapsed());
        }
        if count > 0 && matches!(&rt.app.popup, Some(Popup::Picker(p)) if !p.done) {
            seen_partial = true;
        }
        if rt.app.folder_listed && listed.is_none() {
            listed = Some(started.elapsed());
        }
        let done = matches!(&rt.app.popup, Some(Popup::Picker(p)) if p.done);
        if done && listed.is_some() {
            break;
        }
    }
    eprintln!(
        "10,000 sessions: first picker entries at {first_entries:?}, folder listed at {listed:?}, all at {:?}",
        started.elapsed()
    );
    assert!(first_entries.is_some(), "the picker got its entries");
    assert!(seen_partial, "entries came while the rest were listed");
    match &rt.app.popup {
        Some(Popup::Picker(p)) => {
            assert!(p.done);
            assert_eq!(p.labels().len(), 10_000);
            assert_eq!(p.labels()[0], "s_00000.json");
        }
        other => panic!("the picker went: {other:?}"),
    }
    assert_eq!(rt.app.path(), Some(&dir.join("s_00000.json")));
}
