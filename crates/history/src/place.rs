//! The history file on disk: the owner's alone (0600 in a 0700 folder we
//! make, as recovery files are: it holds every prompt and reply), made
//! whole before any other formatscope can open it, and opened read-only
//! (never created) to be listed.

use super::HistoryError;
use rusqlite::{Connection, ErrorCode, OpenFlags};
use std::path::Path;

/// Flags of every connection: no URI parsing (a path is a path, even one
/// that starts with `file:`), no mutex (one connection, one thread).
fn flags(write: bool) -> OpenFlags {
    let base = OpenFlags::SQLITE_OPEN_NO_MUTEX;
    if write {
        base | OpenFlags::SQLITE_OPEN_READ_WRITE
    } else {
        base | OpenFlags::SQLITE_OPEN_READ_ONLY
    }
}

pub(super) fn open_error(path: &Path, reason: impl std::fmt::Display) -> HistoryError {
    HistoryError::Open {
        path: path.display().to_string(),
        reason: reason.to_string(),
    }
}

/// Refuses a path that is there but is not a regular file: SQLite would
/// block reading a FIFO's header forever, or read a device without end.
fn check_regular(path: &Path) -> Result<bool, HistoryError> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(true),
        Ok(m) => Err(open_error(
            path,
            format!("it is not a regular file ({}); a history is one", kind(&m)),
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(open_error(path, e)),
    }
}

fn kind(m: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if m.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// A connection that may write the history at `path`, the file made first
/// when there is none (see [`create`]). `make` lays out a new, empty
/// database (the schema, WAL); it runs before the file is in place.
pub(super) fn open_for_writing(
    path: &Path,
    make: impl Fn(&mut Connection, &Path) -> Result<(), HistoryError>,
) -> Result<Connection, HistoryError> {
    if !check_regular(path)? {
        create(path, make)?;
    }
    let conn = Connection::open_with_flags(path, flags(true))
        .map_err(|e| classify(&path.display().to_string(), e))?;
    owner_only(path);
    Ok(conn)
}

/// Makes the history at `path`: its folders (0700), then the database,
/// whole, under a temporary name in the same folder (0600, as tempfile
/// makes it), then linked into place only if no file is there (another
/// formatscope may have won the race: then theirs is kept). Nobody ever
/// opens a half-made history, so many sends at once on a new database all
/// find it ready.
fn create(
    path: &Path,
    make: impl Fn(&mut Connection, &Path) -> Result<(), HistoryError>,
) -> Result<(), HistoryError> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    make_folders(dir).map_err(|e| open_error(path, e))?;
    let tmp = tempfile::Builder::new()
        .prefix(".history-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| open_error(path, e))?
        .into_temp_path();
    {
        let mut conn = Connection::open_with_flags(&tmp, flags(true))
            .map_err(|e| classify(&path.display().to_string(), e))?;
        make(&mut conn, path)?;
        // Closed here: its WAL is checkpointed into the file and removed.
        conn.close()
            .map_err(|(_, e)| classify(&path.display().to_string(), e))?;
    }
    match tmp.persist_noclobber(path) {
        Ok(()) => Ok(()),
        // Another formatscope made it first: theirs is as good (ours goes).
        Err(e) if path.exists() => {
            drop(e);
            Ok(())
        }
        Err(e) => Err(open_error(path, e.error)),
    }
}

/// The folders down to `dir`, each one made 0700 (those already there keep
/// their mode: they are the user's).
fn make_folders(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Takes a history made by an older formatscope (0644) back to the owner
/// alone, with its WAL and shared-memory files. A file we cannot change
/// (another user's) stays as it is: reading it is still allowed.
fn owner_only(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mut names = vec![path.to_path_buf()];
        for side in ["-wal", "-shm"] {
            let mut p = path.as_os_str().to_owned();
            p.push(side);
            names.push(p.into());
        }
        for p in names {
            if let Ok(m) = std::fs::metadata(&p) {
                if m.is_file() && m.permissions().mode() & 0o077 != 0 {
                    let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600));
                }
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// A read-only connection to the history at `path`, or `None` when there
/// is no file: listing never makes folders or a database. In a folder we
/// cannot write, a WAL database whose shared-memory file is gone cannot be
/// opened the usual way (SQLite would make that file): then it is opened
/// immutable, which is safe because nobody can be writing it there (a
/// writer needs that same file).
pub(super) fn open_for_reading(path: &Path) -> Result<Option<Connection>, HistoryError> {
    if !check_regular(path)? {
        return Ok(None);
    }
    let shown = path.display().to_string();
    let conn = Connection::open_with_flags(path, flags(false)).map_err(|e| classify(&shown, e))?;
    // The first read is where a missing shared-memory file shows.
    match conn.query_row("PRAGMA application_id", [], |r| r.get::<_, i64>(0)) {
        Ok(_) => Ok(Some(conn)),
        Err(e) if !folder_writable(path) => {
            drop(conn);
            let immutable = Connection::open_with_flags(
                immutable_uri(path),
                flags(false) | OpenFlags::SQLITE_OPEN_URI,
            )
            .map_err(|_| classify(&shown, e))?;
            Ok(Some(immutable))
        }
        Err(e) => Err(classify(&shown, e)),
    }
}

/// Whether files can be made in `path`'s folder (where SQLite puts its
/// WAL and shared-memory files).
fn folder_writable(path: &Path) -> bool {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    tempfile::Builder::new()
        .prefix(".history-probe-")
        .tempfile_in(dir)
        .is_ok()
}

/// `file:PATH?immutable=1`, the path percent-encoded (a `?` or `#` in a
/// folder name must not end it).
fn immutable_uri(path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut uri = String::from("file:");
    for &b in absolute.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str("?immutable=1");
    uri
}

pub(super) fn classify_path(path: &Path, e: rusqlite::Error) -> HistoryError {
    classify(&path.display().to_string(), e)
}

/// SQLite's error as one the user can act on.
pub(super) fn classify(path: &str, e: rusqlite::Error) -> HistoryError {
    let path = path.to_string();
    let code = match &e {
        rusqlite::Error::SqliteFailure(f, _) => Some(f.code),
        _ => None,
    };
    match code {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => HistoryError::Locked { path },
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => HistoryError::NotHistory {
            path,
            reason: e.to_string(),
        },
        Some(ErrorCode::DiskFull) => HistoryError::Full {
            path,
            reason: e.to_string(),
        },
        Some(ErrorCode::CannotOpen | ErrorCode::PermissionDenied | ErrorCode::ReadOnly) => {
            HistoryError::Open {
                path,
                reason: e.to_string(),
            }
        }
        _ => HistoryError::Other {
            path,
            reason: e.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_escape_what_would_end_the_path() {
        assert_eq!(
            immutable_uri(Path::new("/a b/h?#%.db")),
            "file:/a%20b/h%3F%23%25.db?immutable=1"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_before_sqlite_reads_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("h.sqlite3");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.expect("mkfifo").success());
        let err = open_for_reading(&fifo).expect_err("a FIFO");
        assert!(err.to_string().contains("a FIFO"), "{err}");
        let err = open_for_writing(&fifo, |_, _| Ok(())).expect_err("a FIFO");
        assert!(err.to_string().contains("a FIFO"), "{err}");
    }
}
