//! The SQLite file behind [`History`]: one table of sends, WAL so a reader
//! never waits for a writer, and a short busy timeout so another
//! formatscope holding the file is an error in seconds, not a hang.

use super::place::{classify, classify_path};
use super::{HistoryError, NewSend, Send, DEFAULT_MAX_BYTES, DEFAULT_MAX_SENDS};
use rusqlite::{params, Connection, OptionalExtension, Row, TransactionBehavior};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Ours, in the header's application-id field ("FSHI"): a SQLite file
/// someone else made is refused, not written into.
const APPLICATION_ID: i64 = 0x4653_4849;
/// The schema's version, in the header's user-version field.
const SCHEMA_VERSION: i64 = 1;
/// The largest reply a list holds (a larger one is read by `get`).
pub const LIST_REPLY_LIMIT: u64 = 64 * 1024;
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

/// What [`History::identify`] found.
#[derive(Debug, PartialEq, Eq)]
enum Kind {
    Ours,
    Empty,
}

/// Lays out a new history in `conn` (a file no one else can see yet, see
/// `place`): incremental vacuum (before the first table, so a prune gives
/// pages back), WAL, the table, and our marks in the header.
fn lay_out(conn: &mut Connection, shown: &Path) -> Result<(), HistoryError> {
    let made = (|| {
        conn.execute_batch("PRAGMA auto_vacuum = INCREMENTAL")?;
        conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))?;
        let tx = conn.transaction()?;
        tx.execute_batch(SCHEMA)?;
        tx.execute_batch(&format!(
            "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION};"
        ))?;
        tx.commit()
    })();
    made.map_err(|e| classify_path(shown, e))
}

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
    /// Opens (creating it and its folder if need be: owner-only, see
    /// `place`) the history at `path`. A file that is not ours, or is
    /// locked, is an error; nothing is written into a file that is not
    /// ours.
    pub fn open(path: &Path) -> Result<History, HistoryError> {
        let conn = super::place::open_for_writing(path, lay_out)?;
        let mut h = History::over(conn, path);
        h.conn.busy_timeout(BUSY).map_err(|e| h.err(e))?;
        h.prepare()?;
        Ok(h)
    }

    /// Opens the history at `path` to read it, never creating anything:
    /// `Ok(None)` when there is no history there yet. Works in a folder
    /// the user cannot write (see `place::open_for_reading`).
    pub fn open_existing(path: &Path) -> Result<Option<History>, HistoryError> {
        let Some(conn) = super::place::open_for_reading(path)? else {
            return Ok(None);
        };
        let h = History::over(conn, path);
        h.conn.busy_timeout(BUSY).map_err(|e| h.err(e))?;
        match h.identify()? {
            Kind::Ours => Ok(Some(h)),
            // An empty file: nothing was ever recorded in it.
            Kind::Empty => Ok(None),
        }
    }

    fn over(conn: Connection, path: &Path) -> History {
        History {
            conn,
            path: path.to_path_buf(),
            max_sends: DEFAULT_MAX_SENDS,
            max_bytes: DEFAULT_MAX_BYTES,
        }
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

    /// Whether the file is a history of ours or an empty database; any
    /// other file is an error naming what it is.
    fn identify(&self) -> Result<Kind, HistoryError> {
        let shown = self.path.display().to_string();
        // One read transaction: another formatscope making the file
        // between two reads must not make it look like someone else's.
        let read = |c: &Connection| -> rusqlite::Result<(i64, i64, i64)> {
            c.execute_batch("BEGIN")?;
            let got = (|| {
                let app = c.query_row("PRAGMA application_id", [], |r| r.get(0))?;
                let version = c.query_row("PRAGMA user_version", [], |r| r.get(0))?;
                let tables = c.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
                Ok((app, version, tables))
            })();
            let _ = c.execute_batch("COMMIT");
            got
        };
        // The first read of the header: a file of garbage fails here.
        let (app, version, tables) = read(&self.conn).map_err(|e| self.err(e))?;
        match app {
            0 if tables > 0 => Err(HistoryError::NotHistory {
                path: shown,
                reason: "it is another program's SQLite database".into(),
            }),
            0 => Ok(Kind::Empty),
            APPLICATION_ID if version == SCHEMA_VERSION => Ok(Kind::Ours),
            APPLICATION_ID => Err(HistoryError::NotHistory {
                path: shown,
                reason: format!(
                    "its schema version is {version} (this formatscope reads {SCHEMA_VERSION})"
                ),
            }),
            other => Err(HistoryError::NotHistory {
                path: shown,
                reason: format!("its application id is {other:#x}"),
            }),
        }
    }

    /// Checks the file is ours (or empty, then makes it ours).
    fn prepare(&mut self) -> Result<(), HistoryError> {
        if self.identify()? == Kind::Empty {
            // An empty file someone else made (formatscope makes its own
            // whole, see `place`): laid out in place.
            self.create()?;
        }
        // WAL: the workbench's reads never wait for a CLI send's write.
        // A history formatscope made is WAL from birth; an older one is
        // switched by its first opener (a lock then is said). The mode it
        // answers is not checked: a file system without shared memory
        // keeps the rollback journal, which works too.
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            self.conn
                .query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    fn create(&mut self) -> Result<(), HistoryError> {
        // auto_vacuum must be set before the first table: it lets a prune
        // give the pages back to the file system.
        self.conn
            .execute_batch("PRAGMA auto_vacuum = INCREMENTAL")
            .map_err(|e| self.err(e))?;
        // IMMEDIATE: the write lock first (waiting its turn), so no read
        // lock ever has to be upgraded, which SQLite refuses at once.
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
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
            .transaction_with_behavior(TransactionBehavior::Immediate)
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
    /// `limit`, as a list shows them: without their request bodies, and a
    /// reply over [`LIST_REPLY_LIMIT`] left out too (`whole` is false;
    /// [`get`](Self::get) reads one whole). A thousand sends of a megabyte
    /// each are a thousand rows, not a gigabyte.
    pub fn list(&self, session: Option<&Path>, limit: usize) -> Result<Vec<Send>, HistoryError> {
        let mut out = Vec::new();
        self.each(session, limit, Some(LIST_REPLY_LIMIT), |s| out.push(s))?;
        Ok(out)
    }

    /// Hands each send of `session` (all when `None`) to `f`, newest first,
    /// at most `limit`, one row at a time: without its request body, its
    /// reply whole unless over `reply_limit` bytes. `history --json` prints
    /// them so, holding one reply at a time.
    pub fn each(
        &self,
        session: Option<&Path>,
        limit: usize,
        reply_limit: Option<u64>,
        mut f: impl FnMut(Send),
    ) -> Result<(), HistoryError> {
        let limit = limit.min(i64::MAX as usize) as i64;
        // Over the limit the reply is not read at all: octet_length comes
        // from the row's header, as for the request's.
        let cap = reply_limit.map_or(-1, |c| c.min(i64::MAX as u64) as i64);
        let columns = format!(
            "id, created_ms, session, messages_hash, reference, provider, model, host, \
             octet_length(request), \
             CASE WHEN {cap} < 0 OR octet_length(reply) <= {cap} THEN reply END, \
             octet_length(reply), usage, status, elapsed_ms, first_token_ms, error"
        );
        let mut run = |sql: &str, p: &[&dyn rusqlite::ToSql]| -> rusqlite::Result<()> {
            let mut stmt = self.conn.prepare(sql)?;
            let mut rows = stmt.query(p)?;
            while let Some(r) = rows.next()? {
                f(summary_from_row(r)?);
            }
            Ok(())
        };
        let done = match session {
            Some(p) => run(
                &format!(
                    "SELECT {columns} FROM sends WHERE session = ?1 ORDER BY id DESC LIMIT ?2"
                ),
                &[&p.display().to_string(), &limit],
            ),
            None => run(
                &format!("SELECT {columns} FROM sends ORDER BY id DESC LIMIT ?1"),
                &[&limit],
            ),
        };
        done.map_err(|e| self.err(e))
    }

    /// One send whole (its request body and reply), by id.
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

/// A value that does not parse is shown as missing, not an error: one odd
/// row must not hide the others.
fn json_at(r: &Row<'_>, i: usize) -> rusqlite::Result<Option<Value>> {
    Ok(r.get::<_, Option<String>>(i)?
        .and_then(|t| serde_json::from_str(&t).ok()))
}

/// The columns every row has, in `COLUMNS`' order but for the request
/// (8) and the reply (9, 10 in a summary), which each reader fills.
fn send_from_row(r: &Row<'_>, at: usize) -> rusqlite::Result<NewSend> {
    Ok(NewSend {
        session: PathBuf::from(r.get::<_, String>(2)?),
        messages_hash: r.get(3)?,
        reference: r.get(4)?,
        provider: r.get(5)?,
        model: r.get(6)?,
        host: r.get(7)?,
        request: Vec::new(),
        reply: None,
        usage: json_at(r, at)?,
        status: r.get(at + 1)?,
        elapsed_ms: r.get::<_, i64>(at + 2)?.max(0) as u64,
        first_token_ms: r.get::<_, Option<i64>>(at + 3)?.map(|t| t.max(0) as u64),
        error: r.get(at + 4)?,
    })
}

/// A whole send (`SELECT COLUMNS`).
fn from_row(r: &Row<'_>) -> rusqlite::Result<Send> {
    let mut send = send_from_row(r, 10)?;
    send.request = r.get(8)?;
    // Read once: its size, then its value (missing if it does not parse).
    let reply: Option<String> = r.get(9)?;
    let reply_bytes = reply.as_ref().map_or(0, |t| t.len() as u64);
    send.reply = reply.and_then(|t| serde_json::from_str(&t).ok());
    Ok(Send {
        id: r.get(0)?,
        created_ms: r.get(1)?,
        request_bytes: send.request.len() as u64,
        reply_bytes,
        whole: true,
        send,
    })
}

/// A send as [`History::each`] reads it: the request's size only, the
/// reply when it was small enough.
fn summary_from_row(r: &Row<'_>) -> rusqlite::Result<Send> {
    let mut send = send_from_row(r, 11)?;
    send.reply = json_at(r, 9)?;
    let request_bytes = r.get::<_, Option<i64>>(8)?.unwrap_or(0).max(0) as u64;
    let reply_bytes = r.get::<_, Option<i64>>(10)?.unwrap_or(0).max(0) as u64;
    let reply_read = r.get_ref(9)?.data_type() != rusqlite::types::Type::Null;
    Ok(Send {
        id: r.get(0)?,
        created_ms: r.get(1)?,
        request_bytes,
        reply_bytes,
        whole: request_bytes == 0 && (reply_read || reply_bytes == 0),
        send,
    })
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
