//! Writing a session back. Two promises: the file keeps its own bytes
//! outside what was edited (indentation, number text, escapes, duplicate
//! keys, the final newline), and a save replaces exactly the file the
//! session came from, keeping its mode and owner, through a symlink if it
//! is one, without ever writing through a name someone else could plant.

use super::{InputShape, Session};
use crate::json;
use serde_json::Value;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a session cannot be written back to its own file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SaveError {
    #[error("this file is an OpenAI request body, converted on load: it cannot take the edited messages back (a save writes them as a new session file beside it)")]
    Converted,
    #[error("the text the session was loaded from no longer parses: {0}")]
    Original(String),
}

impl Session {
    /// The messages to edit in place: the list is copied first only while
    /// a workbench job still holds it ([`super::Messages`]).
    pub fn messages_mut(&mut self) -> &mut Vec<super::PackedMessage> {
        std::sync::Arc::make_mut(&mut self.messages)
    }

    /// Replaces the messages.
    pub fn set_messages(&mut self, messages: Vec<super::PackedMessage>) {
        self.messages = messages.into();
    }

    /// Whether a save can write the session back over its own file.
    pub fn can_save(&self) -> Result<(), SaveError> {
        match self.shape {
            InputShape::Session | InputShape::BareArray | InputShape::MemoryState => Ok(()),
            InputShape::OpenAiRequest => Err(SaveError::Converted),
        }
    }

    /// A memory state with the messages as they are now, in the file's own
    /// shape: `[message, marks]` pairs if it used them (a message keeps its
    /// marks by its `id`; a new one has none), else bare messages.
    fn memory_state(&self, original: &Value) -> Result<Value, SaveError> {
        let mut doc = original.clone();
        let Some(items) = super::load::find_memory_state_mut(&mut doc, 0) else {
            return Err(SaveError::Original("no memory state in the file".into()));
        };
        let paired = items.iter().any(Value::is_array);
        let marks: std::collections::HashMap<String, Value> = items
            .iter()
            .filter_map(|item| {
                let pair = item.as_array()?;
                let id = pair.first()?.get("id")?.as_str()?.to_string();
                Some((id, pair.get(1).cloned().unwrap_or(Value::Array(Vec::new()))))
            })
            .collect();
        let old = std::mem::take(items);
        *items = self
            .messages
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let v = m.value();
                if !paired {
                    return v;
                }
                // A message without an `id` keeps the marks of the item at
                // its place when it is that item's message unchanged.
                let in_place = old
                    .get(i)
                    .and_then(Value::as_array)
                    .filter(|pair| pair.first().is_some_and(|first| json::same(first, &v)))
                    .and_then(|pair| pair.get(1).cloned());
                let mark = v
                    .get("id")
                    .and_then(Value::as_str)
                    .and_then(|id| marks.get(id).cloned())
                    .or(in_place)
                    .unwrap_or(Value::Array(Vec::new()));
                Value::Array(vec![v, mark])
            })
            .collect();
        Ok(doc)
    }

    /// The document a save writes: the file's top level as it was, with the
    /// messages and settings as they are now.
    fn document(&self, original: &Value) -> Result<Value, SaveError> {
        self.can_save()?;
        if self.shape == InputShape::MemoryState {
            return self.memory_state(original);
        }
        let messages = self.messages_value();
        if self.shape == InputShape::BareArray {
            return Ok(messages);
        }
        let mut doc = serde_json::Map::new();
        if let Some(map) = original.as_object() {
            for key in map.keys() {
                if key == "messages" {
                    doc.insert(key.clone(), messages.clone());
                } else if let Some(v) = self.settings.get(key) {
                    doc.insert(key.clone(), v.clone());
                }
            }
        }
        if !doc.contains_key("messages") {
            doc.insert("messages".into(), messages);
        }
        for (key, v) in &self.settings {
            if !doc.contains_key(key) {
                doc.insert(key.clone(), v.clone());
            }
        }
        Ok(Value::Object(doc))
    }

    /// The messages as one JSON list (a copy: saves are rare, edits many).
    pub fn messages_value(&self) -> Value {
        Value::Array(
            self.messages
                .iter()
                .map(super::PackedMessage::value)
                .collect(),
        )
    }

    /// The messages as a new session file of our own format (for a file
    /// that was converted on load).
    pub fn to_session_text(&self) -> String {
        let mut doc = serde_json::Map::new();
        for (k, v) in &self.settings {
            doc.insert(k.clone(), v.clone());
        }
        if let Some(tools) = &self.tools {
            doc.insert("tools".into(), tools.clone());
        }
        doc.insert("messages".into(), self.messages_value());
        let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// The text to save: `original` (the text `session` was loaded from, or
/// last saved as) with only what changed rewritten, in the file's style.
pub fn render_saved(original: &str, session: &Session) -> Result<String, SaveError> {
    render_saved_styled(original, session, None)
}

/// [`render_saved`], with whether the whole file escapes non-ASCII text
/// when `original` is only part of it.
pub(super) fn render_saved_styled(
    original: &str,
    session: &Session,
    ensure_ascii: Option<bool>,
) -> Result<String, SaveError> {
    let parsed = json::parse(original.as_bytes(), json::Options::with_spans())
        .map_err(|e| SaveError::Original(e.to_string()))?;
    let Some(tree) = parsed.tree else {
        return Err(SaveError::Original("no document".into()));
    };
    let new = session.document(&parsed.value)?;
    let mut style = json::Style::detect(original, &tree);
    if let Some(v) = ensure_ascii {
        style.ensure_ascii = v;
    }
    Ok(json::splice(original, &tree, &parsed.value, &new, &style))
}

/// How a file was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The file replaced: the target when the session is a symlink.
    pub file: PathBuf,
    /// Written over the file's own bytes instead of replaced: its owner
    /// could not be kept otherwise, or it has other hard links.
    pub in_place: bool,
}

/// Writes `text` to the session file at `path`, atomically: into a
/// temporary file created exclusively under an unpredictable name in the
/// same folder, flushed, given the old file's mode and owner, then renamed
/// over it. A symlink is followed and stays a link. When the owner cannot
/// be kept (another user's file in a shared folder) or the file has other
/// hard links, the file is overwritten in place instead, which keeps both.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<Written> {
    write_session_file(path, text.as_bytes(), None)
}

/// [`write_atomic`] with the mode for a file created anew (`None`: 0644).
pub fn write_session_file(
    path: &Path,
    bytes: &[u8],
    new_mode: Option<u32>,
) -> std::io::Result<Written> {
    let target = resolve_links(path)?;
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let old = match std::fs::metadata(&target) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if let Some(m) = &old {
        if !m.is_file() {
            return Err(std::io::Error::other(format!(
                "{} is not a regular file",
                target.display()
            )));
        }
        if has_other_links(m) {
            return write_in_place(&target, bytes);
        }
    }
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "session".into());
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".formatscope-tmp")
        .tempfile_in(&dir)?;
    tmp.write_all(bytes)?;
    match &old {
        Some(m) => {
            tmp.as_file().set_permissions(m.permissions())?;
            if !give_owner(tmp.as_file(), m) {
                drop(tmp);
                return write_in_place(&target, bytes);
            }
        }
        None => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = new_mode.unwrap_or(0o644);
                tmp.as_file()
                    .set_permissions(std::fs::Permissions::from_mode(mode))?;
            }
        }
    }
    tmp.as_file().sync_all()?;
    tmp.persist(&target).map_err(|e| e.error)?;
    // The rename itself reaches the disk with the folder.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(Written {
        file: target,
        in_place: false,
    })
}

/// The file `path` names now, as `std::fs::canonicalize` gives it; for a
/// file that does not exist (a dangling link), its links followed and its
/// folder made canonical.
pub fn resolved(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    let target = resolve_links(path).unwrap_or_else(|_| path.to_path_buf());
    match (target.parent(), target.file_name()) {
        (Some(dir), Some(name)) => std::fs::canonicalize(dir)
            .map(|d| d.join(name))
            .unwrap_or(target.clone()),
        _ => target,
    }
}

/// The mode of `path` (as `ls` shows it) when it may not be written: its
/// owner's write bit is off, or this process has no write permission.
#[cfg(unix)]
pub fn read_only(path: &Path) -> Option<String> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path).ok()?;
    let mode = meta.permissions().mode();
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: a valid NUL-terminated path; no memory is kept.
    let writable = unsafe { libc::access(c_path.as_ptr(), libc::W_OK) } == 0;
    if mode & 0o200 != 0 && writable {
        return None;
    }
    let bits: String = (0..9)
        .map(|i| {
            let on = mode & (0o400 >> i) != 0;
            match (on, i % 3) {
                (false, _) => '-',
                (true, 0) => 'r',
                (true, 1) => 'w',
                (true, _) => 'x',
            }
        })
        .collect();
    Some(format!("-{bits}"))
}

#[cfg(not(unix))]
pub fn read_only(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    meta.permissions()
        .readonly()
        .then(|| "read-only".to_string())
}

/// The file a path finally names: symlinks followed, even to a target
/// that does not exist yet (a dangling link is saved through, too).
fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut current = std::path::absolute(path)?;
    for _ in 0..40 {
        match std::fs::symlink_metadata(&current) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&current)?;
                let base = current.parent().map(Path::to_path_buf).unwrap_or_default();
                current = std::path::absolute(base.join(link))?;
            }
            _ => return Ok(current),
        }
    }
    Err(std::io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

#[cfg(unix)]
fn has_other_links(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    m.nlink() > 1
}

#[cfg(not(unix))]
fn has_other_links(_: &std::fs::Metadata) -> bool {
    false
}

/// Gives `file` the owner and group of `old`; false if that is not allowed.
#[cfg(unix)]
fn give_owner(file: &File, old: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(now) = file.metadata() else {
        return false;
    };
    if (now.uid(), now.gid()) == (old.uid(), old.gid()) {
        return true;
    }
    std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid())).is_ok()
}

#[cfg(not(unix))]
fn give_owner(_: &File, _: &std::fs::Metadata) -> bool {
    true
}

/// Overwrites the file's own bytes: the inode, its owner, its mode and its
/// other links stay. Not atomic, so it is made all-or-nothing by hand: the
/// room for the new text is reserved before a byte changes (a full disk
/// fails there, the file untouched), the old text is held, the new one is
/// written over it (never truncating first), and on any failure the old
/// text is put back.
fn write_in_place(target: &Path, bytes: &[u8]) -> std::io::Result<Written> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(target)?;
    let mut old = Vec::new();
    file.read_to_end(&mut old)?;
    let fail = |e: std::io::Error, what: &str| {
        std::io::Error::new(e.kind(), format!("{}: {e}; {what}", target.display()))
    };
    reserve(&file, bytes.len() as u64).map_err(|e| fail(e, "nothing was written"))?;
    let put = |file: &mut File, text: &[u8]| -> std::io::Result<()> {
        file.seek(SeekFrom::Start(0))?;
        file.write_all(text)?;
        file.set_len(text.len() as u64)?;
        file.sync_all()
    };
    if let Err(e) = put(&mut file, bytes) {
        return Err(match put(&mut file, &old) {
            Ok(()) => fail(e, "the file is as it was"),
            Err(back) => fail(
                e,
                &format!("putting its old text back failed too ({back}): the file is damaged"),
            ),
        });
    }
    Ok(Written {
        file: target.to_path_buf(),
        in_place: true,
    })
}

/// Reserves disk blocks for `len` bytes without changing the file's size
/// or content, so that a full disk is found before anything is written.
/// File systems without `fallocate` fall back to the write-and-restore.
#[cfg(target_os = "linux")]
fn reserve(file: &File, len: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let Ok(len) = libc::off_t::try_from(len) else {
        return Err(std::io::Error::from_raw_os_error(libc::EFBIG));
    };
    if len == 0 {
        return Ok(());
    }
    // SAFETY: a valid open descriptor; no memory is passed.
    let rc = unsafe { libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, 0, len) };
    if rc == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EOPNOTSUPP) | Some(libc::ENOSYS) | Some(libc::EINVAL) => Ok(()),
        _ => Err(e),
    }
}

#[cfg(not(target_os = "linux"))]
fn reserve(_: &File, _: u64) -> std::io::Result<()> {
    Ok(())
}

/// Writes `text` to a new file next to `path` named `STEM.mine.json`, or
/// `STEM.mine-2.json`, ... (the first name that is free: an existing file
/// is never overwritten). Returns the name used.
pub fn write_beside(path: &Path, suffix: &str, text: &str) -> std::io::Result<PathBuf> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "session".into());
    let ext = path
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    let mode = std::fs::metadata(path).ok().map(|m| m.permissions());
    for n in 1..1000 {
        let name = if n == 1 {
            format!("{stem}.{suffix}{ext}")
        } else {
            format!("{stem}.{suffix}-{n}{ext}")
        };
        let candidate = dir.join(name);
        let mut file = match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&candidate)
        {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        let written = (|| {
            if let Some(p) = &mode {
                file.set_permissions(p.clone())?;
            }
            file.write_all(text.as_bytes())?;
            file.sync_all()
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&candidate);
            return Err(e);
        }
        return Ok(candidate);
    }
    Err(std::io::Error::other(format!(
        "no free name for {stem}.{suffix}{ext} in {}",
        dir.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{parse_session, read_session};

    #[test]
    fn a_save_keeps_every_byte_but_the_edit() {
        let text = "{\"zeta\": {\"b\": 1, \"a\": [36.30, 1E2, 123456789012345678901234567890]},\n \"messages\": [{\"role\": \"user\", \"name\": \"Bob\", \"content\": \"hi\", \"x-extra\": {\"keep\": 1e5}},\n   {\"role\": \"user\", \"name\": \"Al\", \"content\": \"yo\"}],\n \"alpha\": null}";
        let mut session = parse_session(text, "s.json").unwrap();
        assert_eq!(render_saved(text, &session).unwrap(), text);
        let mut edited = session.messages[1].value();
        edited["content"] = "hello".into();
        session.messages_mut()[1] = edited.into();
        assert_eq!(
            render_saved(text, &session).unwrap(),
            text.replace("\"yo\"", "\"hello\"")
        );
    }

    #[test]
    fn a_bare_array_saves_as_a_bare_array() {
        let text = "[\n\t{\"name\": \"a\", \"role\": \"user\", \"content\": \"x\"}\n]\n";
        let mut session = parse_session(text, "s").unwrap();
        session
            .messages_mut()
            .push(serde_json::json!({"name": "b"}).into());
        assert_eq!(
            render_saved(text, &session).unwrap(),
            "[\n\t{\"name\": \"a\", \"role\": \"user\", \"content\": \"x\"},\n\t{\n\t\t\"name\": \"b\"\n\t}\n]\n"
        );
    }

    #[test]
    fn a_converted_file_cannot_be_saved_over() {
        let body = r#"{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}"#;
        let session = parse_session(body, "b.json").unwrap();
        assert_eq!(render_saved(body, &session), Err(SaveError::Converted));
    }

    #[test]
    fn a_memory_state_is_written_back_in_its_own_shape() {
        let text = "{\"agent\": {\"memory\": {\"content\": [\n  [{\"id\": \"m1\", \"name\": \"a\", \"role\": \"user\", \"content\": \"hi\"}, [\"hint\"]],\n  [{\"id\": \"m2\", \"name\": \"b\", \"role\": \"assistant\", \"content\": \"yo\"}, []]\n]}}, \"other\": 1e5}";
        let mut session = parse_session(text, "m.json").unwrap();
        assert_eq!(session.shape, InputShape::MemoryState);
        assert_eq!(render_saved(text, &session).unwrap(), text);
        let mut edited = session.messages[1].value();
        edited["content"] = "hello".into();
        session.messages_mut()[1] = edited.into();
        session.messages_mut().push(
            serde_json::json!({"id": "m3", "name": "c", "role": "user", "content": "new"}).into(),
        );
        let saved = render_saved(text, &session).unwrap();
        let again = parse_session(&saved, "m.json").unwrap();
        assert_eq!(again.shape, InputShape::MemoryState);
        assert_eq!(again.messages, session.messages);
        let v: Value = serde_json::from_str(&saved).unwrap();
        assert_eq!(
            v["agent"]["memory"]["content"][0][1][0], "hint",
            "marks kept"
        );
        assert_eq!(v["agent"]["memory"]["content"][2][1], serde_json::json!([]));
        assert!(saved.contains("1e5"), "the rest keeps its bytes: {saved}");
        // Without ids, an unchanged message keeps its marks too.
        let text = text.replace("\"id\": \"m1\", ", "");
        let mut session = parse_session(&text, "m.json").unwrap();
        let mut edited = session.messages[1].value();
        edited["content"] = "hello".into();
        session.messages_mut()[1] = edited.into();
        let saved = render_saved(&text, &session).unwrap();
        assert_eq!(saved, text.replace("\"yo\"", "\"hello\""));
    }

    #[test]
    fn atomic_write_round_trips_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        let text = "[{\"name\": \"a\", \"role\": \"user\", \"content\": \"x\", \"id\": \"keep\"}]";
        let written = write_atomic(&path, text).unwrap();
        assert!(!written.in_place);
        let back = read_session(&path).unwrap();
        assert_eq!(back.messages[0].value()["id"], "keep");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn save_beside_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        std::fs::write(&path, "[]").unwrap();
        let first = write_beside(&path, "mine", "[1]").unwrap();
        let second = write_beside(&path, "mine", "[2]").unwrap();
        assert_eq!(first, dir.path().join("s.mine.json"));
        assert_eq!(second, dir.path().join("s.mine-2.json"));
        assert_eq!(std::fs::read_to_string(first).unwrap(), "[1]");
    }
}
