//! The workbench's file I/O, on its own thread and in order, so the
//! interface never waits on a disk: reads (only regular files, within the
//! session limit), listings, saves that look at the file before writing,
//! recovery files and the trusted-folder list. Each result comes back as a
//! `Event`.

use super::consent;
use super::msg::{Allow, Command, Event, Expect, FileResult, SaveOutcome, SaveQuestion};
use super::recovery::Recovery;
use super::watch;
use formatscope_core::files::{self, ReadError};
use formatscope_core::session::{
    parse_session, read_only, render_saved, render_saved_over, resolved, write_beside,
    write_session_file, Session, SessionError,
};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex};

/// Appends lines to `--log FILE` (nothing is printed while the app runs).
#[derive(Clone, Default)]
pub struct Log(Option<Arc<Mutex<std::fs::File>>>);

impl Log {
    pub fn to_file(file: std::fs::File) -> Log {
        Log(Some(Arc::new(Mutex::new(file))))
    }

    pub fn line(&self, text: impl AsRef<str>) {
        if let Some(f) = &self.0 {
            if let Ok(mut f) = f.lock() {
                let _ = writeln!(f, "{} {}", super::recovery::wall_clock(), text.as_ref());
            }
        }
    }
}

/// Starts the I/O thread; commands sent to the returned sender run in order.
pub fn spawn(tx: super::msg::Outbox, log: Log) -> Sender<Command> {
    let (cmd_tx, cmd_rx) = channel::<Command>();
    let spawned = std::thread::Builder::new()
        .name("formatscope-io".into())
        .spawn(move || {
            for cmd in cmd_rx {
                // The picker's listing goes on a thread of its own, in
                // batches: the picker is up from the first frame and fills
                // as the folder is read, whatever else is queued here.
                let cmd = match cmd {
                    Command::ListPicker {
                        dir,
                        recent,
                        listing,
                    } => {
                        let (d, r) = (dir.clone(), recent.clone());
                        match spawn_picker_listing(d, r, listing, tx.clone(), log.clone()) {
                            Ok(()) => continue,
                            // No thread: listed here, whole.
                            Err(e) => {
                                log.line(format!("picker listing: no thread: {e}"));
                                Command::ListPicker {
                                    dir,
                                    recent,
                                    listing,
                                }
                            }
                        }
                    }
                    other => other,
                };
                if let Some(msg) = execute_caught(cmd, &log) {
                    if tx.send(msg).is_err() {
                        break;
                    }
                }
            }
        });
    if let Err(e) = spawned {
        // Without the thread, commands are dropped; the user sees why.
        let (tx2, _) = channel::<Command>();
        eprintln!("formatscope: cannot start the I/O thread: {e}");
        return tx2;
    }
    cmd_tx
}

/// The newest picker listing: an older one still running stops.
static NEWEST_PICKER_LISTING: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Lists for the picker `listing` on a thread of its own, sending what it
/// finds as it goes ([`list_picker`]).
fn spawn_picker_listing(
    dir: Option<PathBuf>,
    recent: Option<PathBuf>,
    listing: u64,
    tx: super::msg::Outbox,
    log: Log,
) -> std::io::Result<()> {
    use std::sync::atomic::Ordering;
    NEWEST_PICKER_LISTING.fetch_max(listing, Ordering::SeqCst);
    let spawned = std::thread::Builder::new()
        .name("formatscope-picker".into())
        .spawn(move || {
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                list_picker(dir.as_deref(), recent.as_deref(), listing, |event| {
                    NEWEST_PICKER_LISTING.load(Ordering::SeqCst) == listing
                        && tx.send(event).is_ok()
                })
            }));
            if let Err(payload) = run {
                let why = crate::caught::panic_message(payload.as_ref());
                log.line(format!("picker listing: internal error: {why}"));
                // The picker is not left "listing…" for ever.
                let _ = tx.send(Event::PickerFound {
                    listing,
                    files: Vec::new(),
                    recent: Vec::new(),
                    done: true,
                });
            }
        });
    spawned.map(drop)
}

/// How many files a batch of the picker's listing holds at most, and how
/// long one waits at most before it is sent.
const PICKER_BATCH: usize = 256;
const PICKER_FIRST_BATCH: usize = 64;
const PICKER_BATCH_WAIT: std::time::Duration = std::time::Duration::from_millis(50);

/// The picker's listing as it goes: the recent files that still look like
/// sessions first (at once), then the folder's session-shaped files in
/// name order, every [`PICKER_BATCH`] files (the first after
/// [`PICKER_FIRST_BATCH`]) or [`PICKER_BATCH_WAIT`], the last batch
/// `done`. Each file's first 4 KiB are read, more only while its shape is
/// still open, never past 64 KiB (`watch::is_session_shaped`). `send`
/// returns false to stop (a newer listing, or the app gone).
pub fn list_picker(
    dir: Option<&Path>,
    recent: Option<&Path>,
    listing: u64,
    mut send: impl FnMut(Event) -> bool,
) {
    let recent: Vec<PathBuf> = recent
        .map(crate::recent::read)
        .unwrap_or_default()
        .into_iter()
        .filter(|p| watch::is_listed_session(p))
        .collect();
    let names = dir.map(watch::candidates).unwrap_or_default();
    let mut batch = Vec::new();
    let mut sent = std::time::Instant::now();
    let mut first = true;
    if !recent.is_empty() {
        let event = Event::PickerFound {
            listing,
            files: Vec::new(),
            recent,
            done: false,
        };
        if !send(event) {
            return;
        }
    }
    for path in names {
        if watch::is_listed_session(&path) {
            batch.push(path);
        }
        // The first batch sooner: a screenful shows at once.
        let most = if first {
            PICKER_FIRST_BATCH
        } else {
            PICKER_BATCH
        };
        if batch.len() >= most || (!batch.is_empty() && sent.elapsed() >= PICKER_BATCH_WAIT) {
            first = false;
            let event = Event::PickerFound {
                listing,
                files: std::mem::take(&mut batch),
                recent: Vec::new(),
                done: false,
            };
            if !send(event) {
                return;
            }
            sent = std::time::Instant::now();
        }
    }
    send(Event::PickerFound {
        listing,
        files: batch,
        recent: Vec::new(),
        done: true,
    });
}

/// [`execute`], with a panic (a bug, say on a file nobody foresaw) turned
/// into the failure of what the app waits for: the thread lives on, and
/// no save or read is left pending forever.
fn execute_caught(cmd: Command, log: &Log) -> Option<Event> {
    let failed = failure(&cmd);
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::caught::test_panic("io");
        execute(cmd, log)
    }));
    run.unwrap_or_else(|payload| {
        let why = format!(
            "internal error (a bug in formatscope; please report it): {}",
            crate::caught::panic_message(payload.as_ref())
        );
        log.line(&why);
        failed(why)
    })
}

/// The event that says `cmd` failed for `why`, for the commands the app
/// waits on; the others are said by the panic hook's `Event::Crashed`.
fn failure(cmd: &Command) -> Box<dyn FnOnce(String) -> Option<Event>> {
    match cmd {
        Command::Read(path) => {
            let path = path.clone();
            Box::new(move |why| {
                Some(Event::FileRead {
                    path,
                    result: FileResult::Failed(why),
                })
            })
        }
        Command::Save {
            path, state, then, ..
        } => {
            let (path, state, then) = (path.clone(), *state, *then);
            Box::new(move |why| {
                Some(Event::Saved {
                    path,
                    state,
                    outcome: SaveOutcome::Failed(why),
                    then,
                })
            })
        }
        Command::SaveBeside { .. } => Box::new(|why| Some(Event::SavedBeside(Err(why)))),
        Command::WriteText { path, .. } => {
            let path = path.clone();
            Box::new(move |why| {
                Some(Event::TextWritten {
                    path,
                    result: Err(why),
                })
            })
        }
        Command::SaveAsSession { path, then, .. } => {
            let (path, then) = (path.clone(), *then);
            Box::new(move |why| {
                Some(Event::SavedAsSession {
                    path,
                    result: Err(why),
                    then,
                })
            })
        }
        Command::Export { .. } => Box::new(|why| Some(Event::Exported(Err(why)))),
        Command::ListHistory { session, .. } => {
            let session = session.clone();
            Box::new(move |why| {
                Some(Event::HistoryListed {
                    session,
                    result: Err(why),
                })
            })
        }
        _ => Box::new(|_| None),
    }
}

/// A file's text as read, parsed on this thread: parsing a large session
/// (or one with many duplicate keys) took seconds on the interface's
/// thread, and `q` and Ctrl-C waited for it. The interface takes it with
/// [`parse_read`] when it gets the same text.
struct Ahead {
    text: Arc<String>,
    origin: String,
    session: Result<Session, SessionError>,
}

/// The last read's parse, until the interface takes it (one at a time: a
/// newer read replaces it).
static AHEAD: Mutex<Option<Ahead>> = Mutex::new(None);

fn parse_ahead(text: &Arc<String>, origin: &str) {
    let session = parse_session(text, origin);
    if let Ok(mut slot) = AHEAD.lock() {
        *slot = Some(Ahead {
            text: Arc::clone(text),
            origin: origin.to_string(),
            session,
        });
    }
}

/// `parse_session(text, origin)`, taken from the I/O thread's parse of
/// this very text when there is one (else parsed here).
pub fn parse_read(text: &Arc<String>, origin: &str) -> Result<Session, SessionError> {
    let ready = AHEAD
        .lock()
        .ok()
        .and_then(|mut slot| slot.take_if(|a| Arc::ptr_eq(&a.text, text) && a.origin == origin));
    match ready {
        Some(a) => a.session,
        None => parse_session(text, origin),
    }
}

/// Reads a session file as the workbench does.
pub fn read_file(path: &Path) -> FileResult {
    match files::read_regular(path, files::SESSION_LIMIT, "session files") {
        Ok(bytes) => match String::from_utf8(bytes) {
            // Shared as read: into an `Arc<str>` it was a copy (30 MB at
            // 100,000 messages, 22-25 ms on fresh pages before the parse).
            Ok(text) => FileResult::Text {
                text: Arc::new(text),
                mode: file_mode(path),
                real: std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
            },
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let (line, col) = formatscope_core::json::line_col(e.as_bytes(), at);
                FileResult::Failed(format!(
                    "{}:{line}:{col}: invalid UTF-8; a session file must be UTF-8 text",
                    path.display()
                ))
            }
        },
        Err(e) if e.is_not_found() => FileResult::Missing,
        Err(e @ ReadError::TooLarge { .. }) => FileResult::Failed(e.to_string()),
        Err(e) => FileResult::Failed(e.to_string()),
    }
}

#[cfg(unix)]
fn file_mode(path: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .ok()
        .map(|m| m.permissions().mode() & 0o7777)
}

#[cfg(not(unix))]
fn file_mode(_: &Path) -> Option<u32> {
    None
}

/// Runs one command; the message to send back, if any.
pub fn execute(cmd: Command, log: &Log) -> Option<Event> {
    match cmd {
        Command::Read(path) => {
            let result = read_file(&path);
            log.line(format!("read {}: {}", path.display(), describe(&result)));
            if let FileResult::Text { text, .. } = &result {
                parse_ahead(text, &path.display().to_string());
            }
            Some(Event::FileRead { path, result })
        }
        Command::ListFolder(dir) => Some(Event::FolderListed(watch::list_sessions(&dir))),
        Command::ListHistory { db, session } => {
            // Read only: listing never makes a history (nor its folders).
            let result = formatscope_history::History::open_existing(&db)
                .and_then(|h| h.map_or(Ok(Vec::new()), |h| h.list(Some(&session), 1000)))
                .map_err(|e| e.to_string());
            Some(Event::HistoryListed { session, result })
        }
        Command::ReadHistorySend { db, session, id } => {
            let result = formatscope_history::History::open_existing(&db)
                .map_err(|e| e.to_string())
                .and_then(|h| {
                    h.ok_or_else(|| format!("{} is gone", db.display()))?
                        .get(id)
                        .map_err(|e| e.to_string())?
                        .map(Box::new)
                        .ok_or_else(|| format!("send {id} is no longer in the history"))
                });
            Some(Event::HistorySendRead { session, result })
        }
        Command::Save {
            path,
            base,
            base_session,
            expect,
            session,
            state,
            mode,
            then,
            target,
            allow,
        } => {
            let outcome = save(
                &path,
                (&base, base_session.as_deref()),
                &expect,
                &session,
                mode,
                target.as_deref(),
                allow,
            );
            log.line(
                format!("save {}: {outcome:?}", path.display())
                    .chars()
                    .take(300)
                    .collect::<String>(),
            );
            Some(Event::Saved {
                path,
                state,
                outcome,
                then,
            })
        }
        Command::SaveBeside { path, text } => {
            let result = write_beside(&path, "mine", &text).map_err(|e| e.to_string());
            log.line(format!("save beside {}: {result:?}", path.display()));
            Some(Event::SavedBeside(result))
        }
        Command::SaveAsSession { path, text, then } => {
            let result = write_beside(&path, "session", &text).map_err(|e| e.to_string());
            log.line(format!("save as session {}: {result:?}", path.display()));
            Some(Event::SavedAsSession { path, result, then })
        }
        Command::Export {
            path,
            session,
            formatter,
            settings,
            release,
            key_variable,
        } => {
            let result = match release {
                Some(r) => export_release_curl(&path, &session, r, &settings),
                None => export_curl(
                    &path,
                    &session,
                    formatter,
                    &settings,
                    key_variable.as_deref(),
                ),
            };
            log.line(format!("export beside {}: {result:?}", path.display()));
            Some(Event::Exported(result))
        }
        Command::WriteRecovery(pending) => {
            let recovery = pending.render();
            if let Err(e) = recovery.write() {
                log.line(format!("recovery for {}: {e}", recovery.session.display()));
            }
            None
        }
        Command::RemoveRecovery(path) => {
            Recovery::remove(&path);
            None
        }
        Command::FindRecovery(path) => {
            Recovery::find(&path).map(|found| Event::RecoveryFound(path, found))
        }
        Command::TrustFolder(dir) => {
            if let Err(e) = consent::save_trusted(&dir) {
                log.line(format!("trust {}: {e}", dir.display()));
            }
            None
        }
        // The runtime handles these itself.
        Command::ListPicker { dir, recent, .. } => {
            let files = dir.as_deref().map(watch::list_sessions).unwrap_or_default();
            // A recent file gone or no longer a session is left out.
            let recent = recent
                .map(|list| crate::recent::read(&list))
                .unwrap_or_default()
                .into_iter()
                .filter(|p| files.contains(p) || (p.is_file() && watch::is_session_shaped(p)))
                .collect();
            Some(Event::PickerListed { dir, files, recent })
        }
        Command::WriteText { path, expect, text } => {
            let result = write_text(&path, &expect, &text);
            log.line(format!("write {}: {result:?}", path.display()));
            Some(Event::TextWritten { path, result })
        }
        Command::RememberRecent { list, session } => {
            if let Err(e) = crate::recent::remember(&list, &session) {
                log.line(format!("recent list {}: {e}", list.display()));
            }
            None
        }
        // The runtime runs the editor itself (it owns the terminal).
        Command::ExternalEdit(_)
        | Command::Reformat(_)
        | Command::Watch(_)
        | Command::Clipboard(_)
        | Command::Send(_)
        | Command::RemoteCount(_)
        | Command::CancelSend(_)
        | Command::Quit => None,
    }
}

/// The session `formatscope --new FILE` starts with: a system and a user
/// message, for OpenAI in chat mode (the workbench changes any of it).
pub const NEW_SESSION: &str = r#"{
  "title": "A new session",
  "provider": "openai",
  "mode": "chat",
  "messages": [
    {
      "name": "system",
      "role": "system",
      "content": "You are a helpful assistant."
    },
    {
      "name": "user",
      "role": "user",
      "content": "Hello!"
    }
  ]
}
"#;

/// Makes a new session file at `path` holding [`NEW_SESSION`]: whole or
/// not at all (written under a temporary name in the same folder, then
/// linked into place), and never over a file that exists (an existing
/// one is refused, even one made meanwhile). Errors name the file.
pub fn create_session(path: &Path) -> Result<(), String> {
    let shown = path.display();
    if std::fs::symlink_metadata(path).is_ok() {
        return Err(format!(
            "{shown} already exists: not overwritten (open it with formatscope {shown})"
        ));
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".formatscope-new-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| format!("{shown}: cannot write in {}: {e}", dir.display()))?;
    tmp.write_all(NEW_SESSION.as_bytes())
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| format!("{shown}: {e}"))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = tmp
            .as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644));
    }
    match tmp.persist_noclobber(path) {
        Ok(_) => Ok(()),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => Err(format!(
            "{shown} already exists: not overwritten (open it with formatscope {shown})"
        )),
        Err(e) => Err(format!("{shown}: {}", e.error)),
    }
}

/// Writes `text` as the file at `path` (atomically, keeping its mode),
/// only if the file still holds `expect`.
fn write_text(path: &Path, expect: &str, text: &str) -> Result<(), String> {
    match read_file(path) {
        FileResult::Text { text: now, .. } if *now == *expect => {}
        FileResult::Text { .. } => {
            return Err(format!(
                "{} changed on disk while you edited it; it was left as it is now",
                path.display()
            ))
        }
        FileResult::Missing => {
            return Err(format!(
                "{} was deleted while you edited it; nothing was written",
                path.display()
            ))
        }
        FileResult::Failed(e) => return Err(format!("{}: {e}", path.display())),
    }
    write_session_file(path, text.as_bytes(), None)
        .map(|_| ())
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn describe(result: &FileResult) -> String {
    match result {
        FileResult::Text { text, .. } => format!("{} bytes", text.len()),
        FileResult::Missing => "missing".into(),
        FileResult::Failed(e) => e.clone(),
    }
}

/// A save: look at the file, and write only if it holds what the edits
/// were made over (or what the user agreed to replace), only to the file
/// the edits came from (`target`), and over a read-only file only when the
/// user agreed.
fn save(
    path: &Path,
    (base, base_session): (&str, Option<&formatscope_core::session::Session>),
    expect: &Expect,
    session: &formatscope_core::session::Session,
    mode: Option<u32>,
    target: Option<&Path>,
    allow: Allow,
) -> SaveOutcome {
    let now = resolved(path);
    // Where to write: through `path`, unless the link it is now names
    // another file than the edits came from.
    let file = match target {
        Some(was) if was != now => {
            if !allow.to_original {
                return SaveOutcome::Ask {
                    question: SaveQuestion::Repointed {
                        link: path.to_path_buf(),
                        was: was.to_path_buf(),
                        now,
                    },
                    allow,
                };
            }
            was.to_path_buf()
        }
        _ => path.to_path_buf(),
    };
    let found = read_file(&file);
    let as_expected = match (expect, &found) {
        (Expect::Text(t), FileResult::Text { text, .. }) => t == text,
        (Expect::Missing, FileResult::Missing) => true,
        _ => false,
    };
    if !as_expected {
        if file != path {
            return SaveOutcome::Failed(format!(
                "{} (the file your edits came from) changed too since it was read",
                file.display()
            ));
        }
        return SaveOutcome::Conflict(found);
    }
    if !allow.read_only {
        if let Some(mode) = read_only(&file) {
            return SaveOutcome::Ask {
                question: SaveQuestion::ReadOnly {
                    file: resolved(&file),
                    mode,
                },
                allow,
            };
        }
    }
    let rendered = match base_session {
        Some(b) => render_saved_over(base, b, session),
        None => render_saved(base, session),
    };
    let text = match rendered {
        Ok(t) => t,
        Err(e) => return SaveOutcome::Failed(e.to_string()),
    };
    match write_session_file(&file, text.as_bytes(), mode) {
        Ok(written) => SaveOutcome::Written {
            text: text.into(),
            note: match (file != path).then_some(now) {
                Some(now) => Some(format!(
                    "to {}, the file your edits came from; the link now points to {}",
                    written.file.display(),
                    now.display()
                )),
                None => note(path, &written.file, written.in_place),
            },
        },
        Err(e) => SaveOutcome::Failed(e.to_string()),
    }
}

fn note(path: &Path, file: &PathBuf, in_place: bool) -> Option<String> {
    let through = (std::path::absolute(path).ok().as_ref() != Some(file))
        .then(|| format!("through the link, to {}", file.display()));
    let place = in_place.then(|| {
        "written in place: the file has other links or another owner, which a replace would lose"
            .to_string()
    });
    match (through, place) {
        (None, None) => None,
        (a, b) => Some([a, b].into_iter().flatten().collect::<Vec<_>>().join("; ")),
    }
}

/// The request as a `curl` command, written beside the session as
/// `NAME.PROVIDER.curl.sh` (the key stays a `$VARIABLE`: `key_variable`,
/// a profile's, else the provider's).
pub fn export_curl(
    path: &std::path::Path,
    session: &formatscope_core::session::Session,
    formatter: formatscope_core::formatter::FormatterId,
    settings: &formatscope_core::wire::Settings,
    key_variable: Option<&str>,
) -> Result<PathBuf, String> {
    use formatscope_core::wire::export;
    let built = formatscope_core::pipeline::build_request_local(session, formatter, settings);
    let Some(wire) = built.http() else {
        let why = built
            .error()
            .unwrap_or_else(|| "no request was built".into());
        return Err(format!("the request cannot be built: {why}"));
    };
    let provider = formatter.provider;
    let text = export::curl(
        key_variable.or(export::key_variable(provider)),
        wire.method,
        &wire.url,
        &wire.headers,
        &export::body_bytes(provider, &wire.body),
    );
    let script = path.with_extension("sh");
    formatscope_core::session::write_beside(
        &script,
        &format!("{}.curl", provider.id()),
        &format!("{text}\n"),
    )
    .map_err(|e| e.to_string())
}

/// Another release's request as a `curl` command, written beside the
/// session as `NAME.RELEASE.FAMILY.curl.sh`, the key read from the
/// variable of the host it addresses.
pub fn export_release_curl(
    path: &std::path::Path,
    session: &formatscope_core::session::Session,
    r: super::worker::ReleaseJob,
    settings: &formatscope_core::wire::Settings,
) -> Result<PathBuf, String> {
    use formatscope_core::wire::export;
    let env = formatscope_core::media::MediaEnv::new(
        session.base_dir(),
        Arc::new(formatscope_core::media::NoNetwork),
    );
    let ask = formatscope_core::reference::WireAsk {
        session,
        family: r.family,
        mode: r.mode,
        class: None,
        settings,
        tool_choice_tools: None,
        input_types: None,
        history_prompt: None,
        endpoint: None,
        env: &env,
    };
    let requested = r.release.request(&ask).map_err(|e| e.to_string())?;
    let Some(wire) = requested.sendable() else {
        let why = requested
            .stopped
            .map(|s| format!("{}: {}", s.error.kind, s.error.message))
            .unwrap_or_else(|| "the SDK raises before sending".into());
        return Err(format!("the request cannot be built: {why}"));
    };
    if wire.grpc.is_some() {
        return Err(format!(
            "{} goes over gRPC: no curl command sends it",
            requested.class
        ));
    }
    let text = export::curl(
        requested.key_variable,
        wire.method,
        &wire.url,
        &wire.headers,
        &wire.body_bytes(),
    );
    let script = path.with_extension("sh");
    formatscope_core::session::write_beside(
        &script,
        &format!("{}.{}.curl", r.release.version(), r.family.id),
        &format!("{text}\n"),
    )
    .map_err(|e| e.to_string())
}

#[cfg(test)]
#[path = "io_tests.rs"]
mod tests;
