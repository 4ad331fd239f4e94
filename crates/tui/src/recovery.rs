//! Unsaved edits kept through a crash, a signal or a closed terminal: a
//! recovery file next to the session (`.NAME.formatscope-recovery`, private
//! to its owner; in `$XDG_STATE_HOME/formatscope/recovery/` when the
//! session's folder cannot be written), written when the workbench is
//! stopped by a signal or a panic and every few seconds while there are
//! unsaved edits, and offered back the next time the session is opened. It
//! is removed once the edits are saved or the user drops them.

use formatscope_core::json;
use formatscope_core::session::{render_saved, render_saved_over, Session};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a recovery file holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Recovery {
    /// The session file the edits belong to.
    pub session: PathBuf,
    /// When it was written (UTC, `YYYY-MM-DD HH:MM:SS`).
    pub written: String,
    /// Why: `edits` (a periodic copy), `SIGTERM`, `panic`, ...
    pub reason: String,
    /// The session file's text with the edits, as a save would write it.
    pub text: String,
    /// The file's text the edits were made over (to tell whether it
    /// changed since).
    pub base: String,
    /// Text in the editor that did not parse yet: the message's index and
    /// the text.
    pub draft: Option<(usize, String)>,
}

/// Unsaved edits not rendered yet: the workbench hands them to the I/O
/// thread, which builds the text (a large session's takes a while).
#[derive(Debug)]
pub struct Pending {
    pub session_path: PathBuf,
    pub reason: String,
    /// The text the edits were made over, and the session parsed from it.
    pub base: Arc<String>,
    pub base_session: Option<Session>,
    pub edited: Session,
    /// What the file held last (`Recovery::base`).
    pub disk: Arc<String>,
    pub draft: Option<(usize, String)>,
}

impl Pending {
    pub fn render(self) -> Recovery {
        let rendered = match &self.base_session {
            Some(b) => render_saved_over(&self.base, b, &self.edited),
            None => render_saved(&self.base, &self.edited),
        };
        Recovery {
            session: self.session_path,
            written: timestamp(),
            reason: self.reason,
            text: rendered.unwrap_or_else(|_| self.edited.to_session_text()),
            base: self.disk.to_string(),
            draft: self.draft,
        }
    }
}

/// `dir/.NAME.formatscope-recovery` for `dir/NAME`.
pub fn path_for(session: &Path) -> PathBuf {
    let name = session
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "session".into());
    session.with_file_name(format!(".{name}.formatscope-recovery"))
}

/// Where the recovery file goes when the session's folder is read-only:
/// `$XDG_STATE_HOME/formatscope/recovery/HASH-NAME` (else
/// `~/.local/state/...`), the hash naming the session's absolute path.
pub fn fallback_path_for(session: &Path) -> Option<PathBuf> {
    use sha2::{Digest, Sha256};
    let base =
        formatscope_core::files::user_file(formatscope_core::files::UserDir::State, "recovery")?;
    let absolute = std::path::absolute(session).unwrap_or_else(|_| session.to_path_buf());
    let digest = Sha256::digest(absolute.as_os_str().as_encoded_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let name = session
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Some(base.join(format!("{hex}-{name}")))
}

impl Recovery {
    fn to_json(&self) -> Value {
        json!({
            "formatscope_recovery": 1,
            "session": self.session.display().to_string(),
            "written": &self.written,
            "reason": &self.reason,
            "text": &self.text,
            "base": &self.base,
            "draft": self.draft.as_ref().map(|(i, t)| json!({"message": i, "text": t})),
        })
    }

    fn from_json(v: &Value) -> Option<Recovery> {
        if v.get("formatscope_recovery")?.as_i64()? != 1 {
            return None;
        }
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(String::from);
        Some(Recovery {
            session: PathBuf::from(s("session")?),
            written: s("written").unwrap_or_default(),
            reason: s("reason").unwrap_or_default(),
            text: s("text")?,
            base: s("base").unwrap_or_default(),
            draft: v.get("draft").and_then(|d| {
                Some((
                    d.get("message")?.as_u64()? as usize,
                    d.get("text")?.as_str()?.to_string(),
                ))
            }),
        })
    }

    /// Writes it next to its session (or, if that folder cannot be
    /// written, in the state folder), atomically and readable only by its
    /// owner (a session may be private).
    pub fn write(&self) -> std::io::Result<PathBuf> {
        match self.write_to(&path_for(&self.session)) {
            Ok(p) => Ok(p),
            Err(beside) => match fallback_path_for(&self.session) {
                Some(fallback) => {
                    if let Some(dir) = fallback.parent() {
                        std::fs::create_dir_all(dir)?;
                    }
                    self.write_to(&fallback).map_err(|_| beside)
                }
                None => Err(beside),
            },
        }
    }

    fn write_to(&self, target: &Path) -> std::io::Result<PathBuf> {
        let dir = target.parent().unwrap_or(Path::new("."));
        let mut tmp = tempfile::Builder::new()
            .prefix(&temp_prefix(target))
            .tempfile_in(dir)?;
        let text = serde_json::to_string(&self.to_json()).unwrap_or_default();
        tmp.write_all(text.as_bytes())?;
        tmp.as_file().sync_all()?;
        tmp.persist(target).map_err(|e| e.error)?;
        // A copy cut short by a signal (the process exits mid-write) left
        // its temporary file: this whole copy replaces it.
        sweep_temps(target);
        Ok(target.to_path_buf())
    }

    /// The recovery file of `session`, if there is one (`Err`: it exists
    /// but cannot be read).
    pub fn find(session: &Path) -> Option<Result<Recovery, String>> {
        std::iter::once(path_for(session))
            .chain(fallback_path_for(session))
            .find_map(|p| Recovery::read(&p))
    }

    fn read(path: &Path) -> Option<Result<Recovery, String>> {
        let path = path.to_path_buf();
        let bytes = match formatscope_core::files::read_regular(
            &path,
            formatscope_core::files::SESSION_LIMIT * 2,
            "recovery files",
        ) {
            Ok(b) => b,
            Err(e) if e.is_not_found() => return None,
            Err(e) => return Some(Err(format!("{}: {e}", path.display()))),
        };
        let value: Value = match serde_json::from_slice(&bytes) {
            Ok(v) => v,
            Err(e) => return Some(Err(format!("{}: {e}", path.display()))),
        };
        Some(
            Recovery::from_json(&value)
                .ok_or_else(|| format!("{}: not a recovery file", path.display())),
        )
    }

    pub fn remove(session: &Path) {
        let _ = std::fs::remove_file(path_for(session));
        sweep_temps(&path_for(session));
        if let Some(fallback) = fallback_path_for(session) {
            let _ = std::fs::remove_file(&fallback);
            sweep_temps(&fallback);
        }
    }
}

/// The temporary files of recovery file `target` start with this.
fn temp_prefix(target: &Path) -> String {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{name}.tmp")
}

/// How old a temporary copy must be to count as left behind: a second
/// workbench on the same session may be writing one right now.
const STALE_TEMP: std::time::Duration = std::time::Duration::from_secs(30);

/// Removes what interrupted copies of recovery file `target` left (those
/// untouched for [`STALE_TEMP`]: a copy in progress is never taken away).
fn sweep_temps(target: &Path) {
    let dir = target.parent().unwrap_or(Path::new("."));
    let prefix = temp_prefix(target);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .map(|t| t.elapsed().is_ok_and(|age| age >= STALE_TEMP))
            .unwrap_or(true);
        if stale && entry.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// `HH:MM:SS` (UTC) now: the status line's and the log's clock.
pub fn wall_clock() -> String {
    timestamp()[11..].to_string()
}

/// `YYYY-MM-DD HH:MM:SS` (UTC) now, as the history writes its times.
pub fn timestamp() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
    formatscope_history::utc(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recovery_file_round_trips_and_is_private() {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s.json");
        let rec = Recovery {
            session: session.clone(),
            written: timestamp(),
            reason: "SIGTERM".into(),
            text: "[1]".into(),
            base: "[]".into(),
            draft: Some((3, "{\"name\": ".into())),
        };
        let path = rec.write().unwrap();
        assert_eq!(path, dir.path().join(".s.json.formatscope-recovery"));
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(Recovery::find(&session), Some(Ok(rec)));
        Recovery::remove(&session);
        assert_eq!(Recovery::find(&session), None);
    }

    #[test]
    fn when_the_sessions_folder_cannot_be_written_the_state_folder_keeps_it() {
        let state = tempfile::tempdir().unwrap();
        // Only this module reads XDG_STATE_HOME, and only its writes use it.
        std::env::set_var("XDG_STATE_HOME", state.path());
        let session = state.path().join("gone/folder/s.json");
        let rec = Recovery {
            session: session.clone(),
            written: timestamp(),
            reason: "panic".into(),
            text: "[]".into(),
            base: "[]".into(),
            draft: None,
        };
        let path = rec.write().unwrap();
        assert!(
            path.starts_with(state.path().join("formatscope/recovery")),
            "{path:?}"
        );
        assert_eq!(Recovery::find(&session), Some(Ok(rec)));
        Recovery::remove(&session);
        assert_eq!(Recovery::find(&session), None);
    }

    #[test]
    fn a_copy_cut_short_leaves_no_file_behind() {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s.json");
        // What a copy interrupted by SIGTERM leaves: an empty temporary
        // file, a while ago; and another workbench's copy in progress.
        let cut = dir.path().join(".s.json.formatscope-recovery.tmpAbC123");
        let left_behind = |path: &Path| {
            std::fs::write(path, "").unwrap();
            let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
            let file = std::fs::File::options().write(true).open(path).unwrap();
            file.set_modified(an_hour_ago).unwrap();
        };
        left_behind(&cut);
        let in_progress = dir.path().join(".s.json.formatscope-recovery.tmpXyZ789");
        std::fs::write(&in_progress, "[").unwrap();
        let rec = Recovery {
            session: session.clone(),
            written: timestamp(),
            reason: "SIGTERM".into(),
            text: "[1]".into(),
            base: "[]".into(),
            draft: None,
        };
        rec.write().unwrap();
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                ".s.json.formatscope-recovery",
                ".s.json.formatscope-recovery.tmpXyZ789"
            ]
        );
        std::fs::remove_file(&in_progress).unwrap();
        left_behind(&cut);
        Recovery::remove(&session);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn timestamps_are_civil_utc() {
        let t = timestamp();
        assert_eq!(t.len(), 19);
        assert!(t.starts_with("20"), "{t}");
    }
}
