//! Watching session files: the folder, not the files, so that editors that
//! save by renaming a temporary file over the original (vim, helix, VS
//! Code) and delete-then-recreate are all seen (a watch on the file itself
//! dies with the first rename).

use notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{new_debouncer, DebounceEventResult, Debouncer, RecommendedCache};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Keeps the watch alive; dropping it stops watching.
pub struct FolderWatch {
    _debouncer: Debouncer<notify::RecommendedWatcher, RecommendedCache>,
}

/// The debounce window: one burst of writes is one change.
pub const DEBOUNCE: Duration = Duration::from_millis(120);

/// Whether a path is a session file worth reporting (our own temporary
/// files, hidden files and non-JSON files are not).
pub fn is_session_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
        && !path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'))
}

/// Calls `on_change` with the session files created, changed, renamed or
/// removed in `dir` (never for reads).
pub fn watch_folder(
    dir: &Path,
    on_change: impl Fn(Vec<PathBuf>) + Send + 'static,
) -> Result<FolderWatch, String> {
    let mut debouncer = new_debouncer(DEBOUNCE, None, move |result: DebounceEventResult| {
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
                if is_session_file(p) && !paths.contains(p) {
                    paths.push(p.clone());
                }
            }
        }
        if !paths.is_empty() {
            on_change(paths);
        }
    })
    .map_err(|e| format!("cannot watch {}: {e}", dir.display()))?;
    debouncer
        .watch(dir, RecursiveMode::NonRecursive)
        .map_err(|e| format!("cannot watch {}: {e}", dir.display()))?;
    Ok(FolderWatch {
        _debouncer: debouncer,
    })
}

/// The folder's session files, sorted.
pub fn list_sessions(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && is_session_file(p))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}
