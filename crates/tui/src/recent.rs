//! The sessions opened lately, newest first: one absolute path a line in
//! `$XDG_STATE_HOME/formatscope/recent` (else `~/.local/state/...`), at
//! most `KEEP` of them. The session picker (Ctrl-p) puts them first. Read
//! and written on the I/O thread; a file that cannot be read or written
//! only loses the order, never a session.

use std::io::Write;
use std::path::{Path, PathBuf};

/// How many paths are kept.
pub const KEEP: usize = 50;

/// Where the list lives, if a state folder can be named.
pub fn default_path() -> Option<PathBuf> {
    formatscope_core::files::user_file(formatscope_core::files::UserDir::State, "recent")
}

/// The paths in `list`, newest first (none when it cannot be read). Read
/// through the guarded read (`files::read_config`): a FIFO or a device in
/// its place reads as no list, never as a hang or without end.
pub fn read(list: &Path) -> Vec<PathBuf> {
    formatscope_core::files::read_config(list, "the recent list")
        .ok()
        .flatten()
        .map(|text| {
            text.lines()
                .filter(|l| !l.is_empty())
                .map(PathBuf::from)
                .take(KEEP)
                .collect()
        })
        .unwrap_or_default()
}

/// Puts `session` first in `list` (written whole to a private temporary
/// file renamed over it: two workbenches never leave half a list).
pub fn remember(list: &Path, session: &Path) -> std::io::Result<()> {
    let session = std::path::absolute(session).unwrap_or_else(|_| session.to_path_buf());
    // A path with a line break would be two entries: it is not kept.
    if session.as_os_str().as_encoded_bytes().contains(&b'\n') {
        return Ok(());
    }
    let mut paths = read(list);
    paths.retain(|p| *p != session);
    paths.insert(0, session);
    paths.truncate(KEEP);
    let dir = list.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".recent-")
        .tempfile_in(dir)?;
    for p in &paths {
        tmp.write_all(p.as_os_str().as_encoded_bytes())?;
        tmp.write_all(b"\n")?;
    }
    tmp.persist(list).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_comes_first_once_and_the_list_is_bounded() {
        let state = tempfile::tempdir().unwrap();
        let list = state.path().join("formatscope/recent");
        assert!(read(&list).is_empty());
        remember(&list, Path::new("/s/a.json")).unwrap();
        remember(&list, Path::new("/s/b.json")).unwrap();
        remember(&list, Path::new("/s/a.json")).unwrap();
        assert_eq!(
            read(&list),
            vec![PathBuf::from("/s/a.json"), PathBuf::from("/s/b.json")]
        );
        for i in 0..KEEP + 5 {
            remember(&list, Path::new(&format!("/s/{i}.json"))).unwrap();
        }
        assert_eq!(read(&list).len(), KEEP);
    }
}
