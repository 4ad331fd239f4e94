//! Watching session files: their folders, not the files, so that editors
//! that save by renaming a temporary file over the original (vim, helix, VS
//! Code) and delete-then-recreate are all seen (a watch on the file itself
//! dies with the first rename). The folders are the ones the app asks for:
//! the folder shown, the open file's, and its symlink target's. Every
//! changed path is reported; the app decides which matter. When the
//! system's watcher cannot start (inotify limits, network file systems),
//! the folders are polled instead.

use notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{
    new_debouncer, new_debouncer_opt, DebounceEventResult, Debouncer, FileIdCache, NoCache,
};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The debounce window: one burst of writes is one change.
pub const DEBOUNCE: Duration = Duration::from_millis(120);

/// How often folders are polled when they cannot be watched.
pub const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// Whether a path has a session file's usual name: `.json` in any case,
/// not hidden (our temporary and recovery files are hidden). The folder's
/// list goes by content instead (`list_sessions`).
pub fn is_session_file(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        && !path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'))
}

trait Roots: Send {
    fn add(&mut self, dir: &Path) -> notify::Result<()>;
    fn remove(&mut self, dir: &Path);
}

impl<T: notify::Watcher + Send, C: FileIdCache + Send + 'static> Roots for Debouncer<T, C> {
    fn add(&mut self, dir: &Path) -> notify::Result<()> {
        self.watch(dir, RecursiveMode::NonRecursive)
    }
    fn remove(&mut self, dir: &Path) {
        let _ = self.unwatch(dir);
    }
}

/// Keeps the watch alive; dropping it stops watching.
pub struct Watcher {
    roots: Box<dyn Roots>,
    dirs: Vec<PathBuf>,
    /// The folders are polled (the system's watcher did not start).
    pub polling: bool,
}

fn handler(
    on_change: impl Fn(Vec<PathBuf>) + Send + 'static,
) -> impl FnMut(DebounceEventResult) + Send + 'static {
    move |result: DebounceEventResult| {
        let Ok(events) = result else { return };
        let mut paths: Vec<PathBuf> = Vec::new();
        for event in events {
            if !matches!(
                event.kind,
                EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_)
            ) {
                continue;
            }
            for p in &event.paths {
                if !paths.contains(p) {
                    paths.push(p.clone());
                }
            }
        }
        if !paths.is_empty() {
            on_change(paths);
        }
    }
}

impl Watcher {
    /// A watcher that calls `on_change` with the paths created, changed,
    /// renamed or removed in the folders it watches (never for reads).
    pub fn new(
        on_change: impl Fn(Vec<PathBuf>) + Clone + Send + 'static,
    ) -> Result<Watcher, String> {
        match new_debouncer(DEBOUNCE, None, handler(on_change.clone())) {
            Ok(d) => Ok(Watcher {
                roots: Box::new(d),
                dirs: Vec::new(),
                polling: false,
            }),
            Err(_) => Watcher::polling(on_change),
        }
    }

    /// A watcher that polls.
    pub fn polling(on_change: impl Fn(Vec<PathBuf>) + Send + 'static) -> Result<Watcher, String> {
        let config = notify::Config::default()
            .with_poll_interval(POLL_INTERVAL)
            .with_compare_contents(false);
        let d = new_debouncer_opt::<_, notify::PollWatcher, NoCache>(
            DEBOUNCE,
            None,
            handler(on_change),
            NoCache,
            config,
        )
        .map_err(|e| format!("cannot watch files: {e}"))?;
        Ok(Watcher {
            roots: Box::new(d),
            dirs: Vec::new(),
            polling: true,
        })
    }

    /// Watches exactly `dirs` from now on; the folders that could not be
    /// watched, with why.
    pub fn set_dirs(&mut self, dirs: &[PathBuf]) -> Vec<String> {
        for old in &self.dirs {
            if !dirs.contains(old) {
                self.roots.remove(old);
            }
        }
        let mut errors = Vec::new();
        let mut watched = Vec::new();
        for dir in dirs {
            if self.dirs.contains(dir) {
                watched.push(dir.clone());
                continue;
            }
            match self.roots.add(dir) {
                Ok(()) => watched.push(dir.clone()),
                Err(e) => errors.push(format!("cannot watch {}: {e}", dir.display())),
            }
        }
        self.dirs = watched;
        errors
    }
}

/// The folder's session files, sorted: the files, not hidden, whose first
/// bytes have a session's shape (`session::looks_like_session`), whatever
/// their extension. Runs on the I/O thread (every file is opened).
pub fn list_sessions(dir: &Path) -> Vec<PathBuf> {
    candidates(dir)
        .into_iter()
        .filter(|p| is_listed_session(p))
        .collect()
}

/// The folder's visible names, sorted, none opened: what
/// [`list_sessions`] looks at, for a listing that goes file by file.
pub fn candidates(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| !is_hidden(p))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Whether a candidate is listed: a regular file of a session's shape.
pub fn is_listed_session(path: &Path) -> bool {
    path.is_file() && is_session_shaped(path)
}

fn is_hidden(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with('.'))
}

/// Whether the file's first `SNIFF_BYTES` look like a session: a bounded
/// read (a large file is never read whole to be listed), opened without
/// blocking (a FIFO put there in the meantime must not stall the list).
pub fn is_session_shaped(path: &Path) -> bool {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let Ok(file) = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
    else {
        return false;
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return false;
    }
    // A few KB first (a session shows its shape in its first lines), more
    // only while the shape is still open, up to SNIFF_BYTES: a folder of
    // large sessions is listed without reading 64 KiB of each.
    let mut prefix = Vec::with_capacity(SNIFF_FIRST);
    let mut file = file.take(formatscope_core::session::SNIFF_BYTES as u64);
    let mut want = SNIFF_FIRST;
    loop {
        let before = prefix.len();
        match (&mut file)
            .take((want - before) as u64)
            .read_to_end(&mut prefix)
        {
            Ok(_) => {}
            Err(_) => return false,
        }
        if let Some(answer) = formatscope_core::session::session_shape(&prefix) {
            return answer;
        }
        // The end of the file, or of what is looked at.
        if prefix.len() < want || want >= formatscope_core::session::SNIFF_BYTES {
            return false;
        }
        want = (want * 4).min(formatscope_core::session::SNIFF_BYTES);
    }
}

/// The bytes of a file looked at first to tell a session.
const SNIFF_FIRST: usize = 4096;
