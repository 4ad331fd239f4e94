//! Random sequences of real file events against the real workbench runtime
//! (watcher, I/O thread, worker; no terminal): writes in place,
//! rename-over saves, deletes, recreates after gaps from 0 to 1 s, outside
//! changes with and without unsaved edits, in single-file and folder mode,
//! with symlinked and upper-case names. Whatever happens:
//!
//! - no file other than the one being edited is ever written (a neighbour
//!   keeps its bytes; no stray temporary files remain);
//! - no edit is lost unless the user chose to drop it (the session always
//!   holds every edit made since the user last reloaded, and a final save
//!   puts them all in the file).

#[path = "support/workbench.rs"]
mod workbench;

use formatscope::tui::app::{App, Event};
use formatscope::tui::io::Log;
use formatscope::tui::panes::popup::Popup;
use formatscope::tui::runtime::Runtime;
use formatscope::tui::theme::Theme;
use proptest::prelude::*;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, Clone)]
enum Op {
    /// Another program writes the file in place (same message count).
    WriteInPlace,
    /// Another editor saves by renaming a temporary file over it.
    RenameOver,
    Delete,
    /// The file is written again after `gap` ms (if it is missing).
    Recreate(u64),
    /// The user duplicates a message (an unsaved edit).
    Edit,
    /// The user saves.
    Save,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => Just(Op::WriteInPlace),
        2 => Just(Op::RenameOver),
        1 => Just(Op::Delete),
        2 => (0u64..1000).prop_map(Op::Recreate),
        3 => Just(Op::Edit),
        2 => Just(Op::Save),
    ]
}

#[derive(Debug, Clone, Copy)]
struct Setup {
    folder_mode: bool,
    symlinked: bool,
    upper_case: bool,
    /// The user keeps their edits when asked (else reloads, dropping them).
    keeps: bool,
}

fn setup() -> impl Strategy<Value = Setup> {
    (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
        |(folder_mode, symlinked, upper_case, keeps)| Setup {
            folder_mode,
            symlinked,
            upper_case,
            keeps,
        },
    )
}

fn key(code: KeyCode, ctrl: bool) -> Event {
    let mods = if ctrl {
        KeyModifiers::CONTROL
    } else {
        KeyModifiers::NONE
    };
    Event::Key(KeyEvent::new(code, mods))
}

/// The session text with version `n` in its title (outside changes keep
/// the message count, so counts tell user edits apart).
fn with_version(text: &str, n: u32) -> String {
    let start = text.find("VERSION-").expect("marker");
    let end = start
        + 8
        + text[start + 8..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(0);
    format!("{}VERSION-{n}{}", &text[..start], &text[end..])
}

struct World {
    _dir: tempfile::TempDir,
    /// What the workbench opens (maybe a symlink).
    shown: PathBuf,
    /// The real file.
    real: PathBuf,
    neighbour: PathBuf,
    neighbour_bytes: Vec<u8>,
    last_text: String,
    version: u32,
}

impl World {
    fn new(s: Setup) -> World {
        let dir = tempfile::tempdir().expect("tempdir");
        let folder = dir.path().join("sessions");
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(&folder).expect("mkdir");
        std::fs::create_dir_all(&elsewhere).expect("mkdir");
        let name = if s.upper_case {
            "TRIP.JSON"
        } else {
            "trip.json"
        };
        let base =
            std::fs::read_to_string(workbench::session_path("chat_plain.json")).expect("read");
        let text = base.replacen("{", "{\n  \"version\": \"VERSION-0\",", 1);
        let shown = folder.join(name);
        let real = if s.symlinked {
            let real = elsewhere.join(name);
            std::os::unix::fs::symlink(&real, &shown).expect("symlink");
            real
        } else {
            shown.clone()
        };
        std::fs::write(&real, &text).expect("write");
        let neighbour = folder.join("neighbour.json");
        std::fs::copy(workbench::session_path("library_trip.json"), &neighbour).expect("copy");
        let neighbour_bytes = std::fs::read(&neighbour).expect("read");
        World {
            _dir: dir,
            shown,
            real,
            neighbour,
            neighbour_bytes,
            last_text: text,
            version: 0,
        }
    }

    fn next_text(&mut self) -> String {
        if let Ok(now) = std::fs::read_to_string(&self.real) {
            self.last_text = now;
        }
        self.version += 1;
        with_version(&self.last_text, self.version)
    }

    fn apply(&mut self, op: &Op) {
        match op {
            Op::WriteInPlace => {
                if self.real.exists() {
                    let text = self.next_text();
                    std::fs::write(&self.real, text).expect("write");
                }
            }
            Op::RenameOver => {
                let text = self.next_text();
                let tmp = self.real.with_file_name(".editor-swap.tmp");
                std::fs::write(&tmp, text).expect("write");
                std::fs::rename(&tmp, &self.real).expect("rename");
            }
            Op::Delete => {
                if let Ok(now) = std::fs::read_to_string(&self.real) {
                    self.last_text = now;
                }
                let _ = std::fs::remove_file(&self.real);
            }
            Op::Recreate(gap) => {
                if !self.real.exists() {
                    std::thread::sleep(Duration::from_millis(*gap));
                    let text = self.next_text();
                    std::fs::write(&self.real, text).expect("write");
                }
            }
            Op::Edit | Op::Save => {}
        }
    }

    fn folder(&self) -> &Path {
        self.shown.parent().expect("folder")
    }
}

fn count_on_disk(path: &Path) -> Option<usize> {
    formatscope::session::read_session(path)
        .ok()
        .map(|s| s.messages.len())
}

/// Settles, then answers whatever the workbench asks as this user would;
/// returns the expected message count after the answers.
fn settle_and_answer(rt: &mut Runtime, s: Setup, world: &World, mut expected: usize) -> usize {
    for _ in 0..6 {
        rt.settle(Duration::from_millis(350), Duration::from_secs(5));
        let answer = match &rt.app.popup {
            Some(Popup::Conflict { .. }) if s.keeps => 'k',
            Some(Popup::Conflict { .. }) => {
                // Reloading drops the edits: the user's choice.
                if let Some(n) = count_on_disk(&world.real) {
                    expected = n;
                    'r'
                } else {
                    'k'
                }
            }
            Some(Popup::Recreate) => 'y',
            Some(other) => panic!("unexpected question: {other:?}"),
            None => return expected,
        };
        let _ = rt.handle(key(KeyCode::Char(answer), false));
    }
    expected
}

fn run_case(s: Setup, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut world = World::new(s);
    let theme = Theme::load("dark").expect("theme");
    let app = if s.folder_mode {
        App::new(Vec::new(), Some(world.folder().to_path_buf()), theme)
    } else {
        App::new(vec![world.shown.clone()], None, theme)
    };
    let mut rt = Runtime::start(app, None, Log::default());
    rt.settle(Duration::from_millis(300), Duration::from_secs(5));
    // Folder mode opens the first file: make sure it is ours.
    if rt.app.path() != Some(&world.shown) {
        let _ = rt.handle(key(KeyCode::Char(']'), false));
        rt.settle(Duration::from_millis(300), Duration::from_secs(5));
    }
    prop_assert_eq!(rt.app.path(), Some(&world.shown));
    let mut expected = rt.app.messages().len();
    for op in ops {
        world.apply(op);
        match op {
            Op::Edit => {
                let _ = rt.handle(key(KeyCode::Char('d'), false));
                expected += 1;
            }
            Op::Save => {
                let _ = rt.handle(key(KeyCode::Char('s'), true));
            }
            _ => {}
        }
        expected = settle_and_answer(&mut rt, s, &world, expected);
        prop_assert_eq!(
            rt.app.path(),
            Some(&world.shown),
            "the open file never changes"
        );
        prop_assert_eq!(
            rt.app.messages().len(),
            expected,
            "no edit lost after {:?}",
            op
        );
        prop_assert_eq!(
            std::fs::read(&world.neighbour).expect("neighbour"),
            world.neighbour_bytes.clone(),
            "the neighbour is never written"
        );
    }
    // Save whatever is left, answering as the user would.
    let _ = rt.handle(key(KeyCode::Char('s'), true));
    expected = settle_and_answer(&mut rt, s, &world, expected);
    if rt.app.unsaved() {
        let _ = rt.handle(key(KeyCode::Char('s'), true));
        expected = settle_and_answer(&mut rt, s, &world, expected);
    }
    prop_assert!(!rt.app.unsaved(), "everything saved: {}", rt.app.status);
    prop_assert_eq!(
        count_on_disk(&world.real),
        Some(expected),
        "the file holds every edit"
    );
    if s.symlinked {
        prop_assert!(std::fs::symlink_metadata(&world.shown)
            .expect("link")
            .file_type()
            .is_symlink());
    }
    for dir in [world.folder(), world.real.parent().expect("dir")] {
        for entry in std::fs::read_dir(dir).expect("list").flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            prop_assert!(
                !name.contains("formatscope-tmp"),
                "a stray temporary file: {}",
                name
            );
            prop_assert!(!name.contains(".mine"), "nothing saved beside: {}", name);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, max_shrink_iters: 8, ..ProptestConfig::default() })]

    #[test]
    fn file_events_never_write_the_wrong_file_or_lose_an_edit(
        s in setup(),
        ops in prop::collection::vec(op(), 2..7),
    ) {
        run_case(s, &ops)?;
    }
}

/// The case that used to write over another session: edit, delete from
/// outside, recreate after 300 ms.
#[test]
fn delete_and_recreate_with_a_gap_under_unsaved_edits() {
    for folder_mode in [false, true] {
        let s = Setup {
            folder_mode,
            symlinked: false,
            upper_case: false,
            keeps: true,
        };
        if let Err(e) = run_case(s, &[Op::Edit, Op::Delete, Op::Recreate(300), Op::Save]) {
            panic!("{e}");
        }
    }
}
