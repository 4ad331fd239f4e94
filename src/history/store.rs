//! The SQLite file behind [`History`]: one table of sends, WAL so a reader
//! never waits for a writer, and a short busy timeout so another
//! formatscope holding the file is an error in seconds, not a hang.

use super::{HistoryError, NewSend, Send, DEFAULT_MAX_BYTES, DEFAULT_MAX_SENDS};
use rusqlite::{params, Connection, ErrorCode, OptionalExtension, Row};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Ours, in the header's application-id field ("FSHI"): a SQLite file
/// someone else made is refused, not written into.
const APPLICATION_ID: i64 = 0x4653_4849;
/// The schema's version, in the header's user-version field.
const SCHEMA_VERSION: i64 = 1;
/// How long to wait for another formatscope's write before saying so.
const BUSY: Duration = Duration::from_secs(2);

const SCHEMA: &str = "
CREATE TABLE sends (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_ms INTEGER NOT NULL,
    session TEXT NOT NULL,
    messages_hash TEXT NOT NULL,
    reference TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    host TEXT NOT NULL,
    request BLOB NOT NULL,
    reply TEXT,
    usage TEXT,
    status TEXT NOT NULL,
    elapsed_ms INTEGER NOT NULL,
    first_token_ms INTEGER,
    error TEXT,
    bytes INTEGER NOT NULL
);
CREATE INDEX sends_by_session ON sends(session, id);
";

const COLUMNS: &str = "id, created_ms, session, messages_hash, reference, provider, model, \
     host, request, reply, usage, status, elapsed_ms, first_token_ms, error";

/// An open history file.
pub struct History {
    conn: Connection,
    path: PathBuf,
    max_sends: u64,
    max_bytes: u64,
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("History").field("path", &self.path).finish()
    }
}

impl History {
    /// Opens (creating it and its folder if need be) the history at
    /// `path`. A file that is not ours, or is locked, is an error; nothing
    /// is written into a file that is not ours.
    pub fn open(path: &Path) -> Result<History, HistoryError> {
        let shown = path.display().to_string();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| HistoryError::Open {
                path: shown.clone(),
                reason: e.to_string(),
            })?;
        }
        let conn = Connection::open(path).map_err(|e| classify(&shown, e))?;
        let mut h = History {
            conn,
            path: path.to_path_buf(),
            max_sends: DEFAULT_MAX_SENDS,
            max_bytes: DEFAULT_MAX_BYTES,
        };
        h.conn.busy_timeout(BUSY).map_err(|e| h.err(e))?;
        h.prepare()?;
        Ok(h)
    }

    /// The history at [`super::default_path`]; `Ok(None)` when it is
    /// turned off.
    pub fn open_default() -> Result<Option<History>, HistoryError> {
        match super::default_path()? {
            Some(p) => History::open(&p).map(Some),
            None => Ok(None),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keeps at most `sends` sends and `bytes` bytes of requests and
    /// replies (the oldest go first when a send is recorded).
    pub fn set_limits(&mut self, sends: u64, bytes: u64) {
        self.max_sends = sends.max(1);
        self.max_bytes = bytes;
    }

    /// Caps the file at `pages` pages for this connection (SQLite's
    /// `max_page_count`): past it SQLite answers "database or disk is
    /// full", as on a full disk. The tests fill a history this way.
    pub fn set_max_pages(&mut self, pages: u64) -> Result<(), HistoryError> {
        self.conn
            .query_row(&format!("PRAGMA max_page_count = {pages}"), [], |_| Ok(()))
            .map_err(|e| self.err(e))
    }

    fn err(&self, e: rusqlite::Error) -> HistoryError {
        classify(&self.path.display().to_string(), e)
    }

    /// Checks the file is ours (or empty, then makes it ours).
    fn prepare(&mut self) -> Result<(), HistoryError> {
        let shown = self.path.display().to_string();
        // The first read of the header: a file of garbage fails here.
        let app: i64 = self
            .conn
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        let version: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        if app == 0 {
            let tables: i64 = self
                .conn
                .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
                .map_err(|e| self.err(e))?;
            if tables > 0 {
                return Err(HistoryError::NotHistory {
                    path: shown,
                    reason: "it is another program's SQLite database".into(),
                });
            }
            self.create()?;
        } else if app != APPLICATION_ID {
            return Err(HistoryError::NotHistory {
                path: shown,
                reason: format!("its application id is {app:#x}"),
            });
        } else if version != SCHEMA_VERSION {
            return Err(HistoryError::NotHistory {
                path: shown,
                reason: format!(
                    "its schema version is {version} (this formatscope reads {SCHEMA_VERSION})"
                ),
            });
        }
        // WAL: the workbench's reads never wait for a CLI send's write.
        // Only the first opener switches the file; a lock then is said.
        // The mode it answers is not checked: a file system without
        // shared memory keeps the rollback journal, which works too.
        self.conn
            .query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .map_err(|e| self.err(e))
    }

    fn create(&mut self) -> Result<(), HistoryError> {
        // auto_vacuum must be set before the first table: it lets a prune
        // give the pages back to the file system.
        self.conn
            .execute_batch("PRAGMA auto_vacuum = INCREMENTAL")
            .map_err(|e| self.err(e))?;
        let tx = self
            .conn
            .transaction()
            .map_err(|e| classify_path(&self.path, e))?;
        let made = (|| {
            // Another formatscope may have made it between our read and
            // this write transaction: then it is ours already.
            let app: i64 = tx.query_row("PRAGMA application_id", [], |r| r.get(0))?;
            if app == APPLICATION_ID {
                return Ok(());
            }
            tx.execute_batch(SCHEMA)?;
            tx.execute_batch(&format!(
                "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION};"
            ))?;
            Ok(())
        })();
        made.and_then(|()| tx.commit())
            .map_err(|e| classify_path(&self.path, e))
    }

    /// Records a send, then drops the oldest past the limits. Returns the
    /// new send's id.
    pub fn record(&mut self, s: &NewSend) -> Result<i64, HistoryError> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        self.record_at(s, now)
    }

    /// [`record`](Self::record) at a given time (tests fix the clock).
    pub fn record_at(&mut self, s: &NewSend, created_ms: i64) -> Result<i64, HistoryError> {
        let reply = s.reply.as_ref().map(Value::to_string);
        let usage = s.usage.as_ref().map(Value::to_string);
        let bytes = s.request.len()
            + reply.as_ref().map_or(0, String::len)
            + usage.as_ref().map_or(0, String::len)
            + s.error.as_ref().map_or(0, String::len);
        let (max_sends, max_bytes) = (self.max_sends, self.max_bytes);
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction()
            .map_err(|e| classify_path(&path, e))?;
        let id = (|| {
            tx.execute(
                "INSERT INTO sends (created_ms, session, messages_hash, reference, provider, \
                 model, host, request, reply, usage, status, elapsed_ms, first_token_ms, \
                 error, bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, \
                 ?13, ?14, ?15)",
                params![
                    created_ms,
                    s.session.display().to_string(),
                    s.messages_hash,
                    s.reference,
                    s.provider,
                    s.model,
                    s.host,
                    s.request,
                    reply,
                    usage,
                    s.status,
                    s.elapsed_ms as i64,
                    s.first_token_ms.map(|t| t as i64),
                    s.error,
                    bytes as i64,
                ],
            )?;
            let id = tx.last_insert_rowid();
            trim(&tx, max_sends, max_bytes, id)?;
            Ok(id)
        })()
        .map_err(|e| classify_path(&path, e))?;
        tx.commit().map_err(|e| classify_path(&path, e))?;
        Ok(id)
    }

    /// The sends of `session` (all when `None`), newest first, at most
    /// `limit`.
    pub fn list(&self, session: Option<&Path>, limit: usize) -> Result<Vec<Send>, HistoryError> {
        let limit = limit.min(i64::MAX as usize) as i64;
        let rows = match session {
            Some(p) => {
                let sql = format!(
                    "SELECT {COLUMNS} FROM sends WHERE session = ?1 ORDER BY id DESC LIMIT ?2"
                );
                self.query(&sql, params![p.display().to_string(), limit])
            }
            None => {
                let sql = format!("SELECT {COLUMNS} FROM sends ORDER BY id DESC LIMIT ?1");
                self.query(&sql, params![limit])
            }
        };
        rows.map_err(|e| self.err(e))
    }

    fn query(&self, sql: &str, p: impl rusqlite::Params) -> rusqlite::Result<Vec<Send>> {
        let mut stmt = self.conn.prepare(sql)?;
        let rows = stmt.query_map(p, from_row)?;
        rows.collect()
    }

    /// One send, by id.
    pub fn get(&self, id: i64) -> Result<Option<Send>, HistoryError> {
        let sql = format!("SELECT {COLUMNS} FROM sends WHERE id = ?1");
        self.conn
            .query_row(&sql, params![id], from_row)
            .optional()
            .map_err(|e| self.err(e))
    }

    /// How many sends are kept.
    pub fn count(&self) -> Result<u64, HistoryError> {
        self.conn
            .query_row("SELECT count(*) FROM sends", [], |r| r.get::<_, i64>(0))
            .map(|n| n.max(0) as u64)
            .map_err(|e| self.err(e))
    }

    /// Keeps the newest `keep` sends; returns how many went. The freed
    /// pages go back to the file system.
    pub fn prune(&mut self, keep: u64) -> Result<u64, HistoryError> {
        let keep = keep.min(i64::MAX as u64) as i64;
        let gone = self
            .conn
            .execute(
                "DELETE FROM sends WHERE id NOT IN \
                 (SELECT id FROM sends ORDER BY id DESC LIMIT ?1)",
                params![keep],
            )
            .map_err(|e| self.err(e))?;
        self.conn
            .execute_batch("PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(TRUNCATE);")
            .map_err(|e| self.err(e))?;
        Ok(gone as u64)
    }
}

/// Drops the oldest sends past `max_sends` or `max_bytes` (never `newest`).
fn trim(conn: &Connection, max_sends: u64, max_bytes: u64, newest: i64) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM sends WHERE id < ?1 AND id NOT IN \
         (SELECT id FROM sends ORDER BY id DESC LIMIT ?2)",
        params![newest, max_sends.min(i64::MAX as u64) as i64],
    )?;
    let total: i64 = conn.query_row("SELECT coalesce(sum(bytes), 0) FROM sends", [], |r| {
        r.get(0)
    })?;
    if total as u64 > max_bytes {
        conn.execute(
            "DELETE FROM sends WHERE id < ?1 AND id IN (SELECT id FROM \
             (SELECT id, sum(bytes) OVER (ORDER BY id DESC) AS kept FROM sends) \
             WHERE kept > ?2)",
            params![newest, max_bytes.min(i64::MAX as u64) as i64],
        )?;
    }
    Ok(())
}

fn from_row(r: &Row<'_>) -> rusqlite::Result<Send> {
    // A value that does not parse is shown as missing, not an error: one
    // odd row must not hide the others.
    let json = |i: usize| -> rusqlite::Result<Option<Value>> {
        Ok(r.get::<_, Option<String>>(i)?
            .and_then(|t| serde_json::from_str(&t).ok()))
    };
    Ok(Send {
        id: r.get(0)?,
        created_ms: r.get(1)?,
        send: NewSend {
            session: PathBuf::from(r.get::<_, String>(2)?),
            messages_hash: r.get(3)?,
            reference: r.get(4)?,
            provider: r.get(5)?,
            model: r.get(6)?,
            host: r.get(7)?,
            request: r.get(8)?,
            reply: json(9)?,
            usage: json(10)?,
            status: r.get(11)?,
            elapsed_ms: r.get::<_, i64>(12)?.max(0) as u64,
            first_token_ms: r.get::<_, Option<i64>>(13)?.map(|t| t.max(0) as u64),
            error: r.get(14)?,
        },
    })
}

fn classify_path(path: &Path, e: rusqlite::Error) -> HistoryError {
    classify(&path.display().to_string(), e)
}

/// SQLite's error as one the user can act on.
fn classify(path: &str, e: rusqlite::Error) -> HistoryError {
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

    fn send(n: usize) -> NewSend {
        NewSend {
            session: PathBuf::from("/s/a.json"),
            messages_hash: "h".into(),
            reference: "1.0.21".into(),
            provider: "openai".into(),
            model: "gpt-4o".into(),
            host: "127.0.0.1:1".into(),
            request: vec![b'x'; n],
            reply: Some(serde_json::json!({"content": [{"type": "text", "text": "hi"}]})),
            usage: None,
            status: "ok".into(),
            elapsed_ms: 5,
            first_token_ms: None,
            error: None,
        }
    }

    #[test]
    fn the_limits_drop_the_oldest() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut h = History::open(&dir.path().join("h.sqlite3")).expect("open");
        h.set_limits(3, u64::MAX);
        for _ in 0..5 {
            h.record(&send(10)).expect("record");
        }
        let ids: Vec<i64> = h
            .list(None, 10)
            .expect("list")
            .iter()
            .map(|s| s.id)
            .collect();
        assert_eq!(ids, [5, 4, 3]);
        h.set_limits(100, 250);
        h.record(&send(100)).expect("record");
        let ids: Vec<i64> = h
            .list(None, 10)
            .expect("list")
            .iter()
            .map(|s| s.id)
            .collect();
        // 6 holds 142 bytes with its reply, 5 and 4 52 each: 3 would pass 250.
        assert_eq!(ids, [6, 5, 4]);
        assert_eq!(h.prune(1).expect("prune"), 2);
        assert_eq!(h.count().expect("count"), 1);
        h.prune(0).expect("prune");
        assert_eq!(h.count().expect("count"), 0);
    }
}
