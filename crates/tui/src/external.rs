//! Running the user's editor on a text (`O`): the text goes to a private
//! temporary file, the editor named by `$VISUAL` or `$EDITOR` (else `vi`)
//! runs on it, and its content comes back. The variable is split as a
//! shell splits words, so `code -w` or `emacs -nw` work. The terminal is
//! the caller's business (the runtime suspends and restores it around
//! this), which keeps this testable without one.

use std::io::{Read, Write};
use std::process::Command;

/// The most an editor's file may hold when read back, unless the text it
/// was given was larger (then twice that): the workbench takes a text in
/// on its interface's thread, and 300 MB froze it for minutes. A larger
/// file is left on disk for the user, never read and never lost.
pub const EDIT_LIMIT: u64 = 16 * 1024 * 1024;

/// The editor command line: `$VISUAL`, else `$EDITOR`, else `vi`.
pub fn editor_command() -> String {
    ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "vi".into())
}

/// Runs `editor` (a command line) on a file holding `text`; the file's
/// text afterwards, or why there is none (the editor did not start, or
/// exited non-zero: then its edits are not taken).
pub fn edit(editor: &str, text: &str, text_mode: bool) -> Result<String, String> {
    let words = shell_words::split(editor)
        .map_err(|e| format!("cannot read the editor command `{editor}`: {e}"))?;
    let Some((program, args)) = words.split_first() else {
        return Err("the editor command is empty".into());
    };
    // Private to the user (0600), removed when dropped; the suffix lets
    // the editor pick its syntax.
    let mut file = tempfile::Builder::new()
        .prefix("formatscope-message-")
        .suffix(if text_mode { ".txt" } else { ".json" })
        .tempfile()
        .map_err(|e| format!("cannot make a temporary file: {e}"))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.flush())
        .map_err(|e| format!("cannot write the temporary file: {e}"))?;
    let path = file.path().to_path_buf();
    let status = Command::new(program)
        .args(args)
        .arg(&path)
        .status()
        .map_err(|e| format!("cannot run the editor `{editor}`: {e}"))?;
    if !status.success() {
        return Err(match status.code() {
            Some(code) => format!("the editor `{editor}` exited with status {code}"),
            None => format!("the editor `{editor}` was stopped by a signal"),
        });
    }
    // Read by path: editors that save by renaming a new file over it
    // leave a new file there. At most one byte past the limit is read.
    let limit = EDIT_LIMIT.max(2 * text.len() as u64);
    let mut bytes = Vec::new();
    std::fs::File::open(&path)
        .and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
        .map_err(|e| format!("cannot read the edited file: {e}"))?;
    let why = if bytes.len() as u64 > limit {
        let size = std::fs::metadata(&path).map_or(bytes.len() as u64, |m| m.len());
        format!(
            "the edited text is {} MB, more than the {} MB the workbench takes back from an editor",
            size.div_ceil(1024 * 1024),
            limit / (1024 * 1024)
        )
    } else {
        match String::from_utf8(bytes) {
            Ok(text) => return Ok(text),
            Err(_) => "the edited file is not UTF-8".to_string(),
        }
    };
    // The edit is the user's work: the file stays where the editor left it.
    match file.keep() {
        Ok((_, kept)) => Err(format!("{why}; your edit is kept in {}", kept.display())),
        Err(e) => Err(format!("{why}; it could not be kept: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::edit;

    #[test]
    fn the_editor_edits_the_file_and_its_text_comes_back() {
        let out = edit("sed -i s/old/new/", "an old text", true).unwrap();
        assert_eq!(out, "an new text");
    }

    #[test]
    fn an_edit_that_is_not_utf8_is_kept_on_disk() {
        let err = edit(r#"sh -c "printf '\\377' > \"$0\"""#, "text", true).unwrap_err();
        let kept = err.split("kept in ").nth(1).expect("kept");
        assert_eq!(std::fs::read(kept).unwrap(), [0xff]);
        std::fs::remove_file(kept).unwrap();
    }

    #[test]
    fn an_editor_that_fails_gives_no_text() {
        let err = edit("sh -c 'exit 3' editor", "text", false).unwrap_err();
        assert!(err.contains("exited with status 3"), "{err}");
        let err = edit("/no/such/editor", "text", false).unwrap_err();
        assert!(err.contains("cannot run the editor"), "{err}");
        assert!(edit("''", "text", false).is_err());
    }
}
