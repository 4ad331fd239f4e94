//! Running the user's editor on a text (`O`): the text goes to a private
//! temporary file, the editor named by `$VISUAL` or `$EDITOR` (else `vi`)
//! runs on it, and its content comes back. The variable is split as a
//! shell splits words, so `code -w` or `emacs -nw` work. The terminal is
//! the caller's business (the runtime suspends and restores it around
//! this), which keeps this testable without one.

use std::io::Write;
use std::process::Command;

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
    // leave a new file there.
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read the edited file: {e}"))?;
    String::from_utf8(bytes).map_err(|_| "the edited file is not UTF-8".into())
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
    fn an_editor_that_fails_gives_no_text() {
        let err = edit("sh -c 'exit 3' editor", "text", false).unwrap_err();
        assert!(err.contains("exited with status 3"), "{err}");
        let err = edit("/no/such/editor", "text", false).unwrap_err();
        assert!(err.contains("cannot run the editor"), "{err}");
        assert!(edit("''", "text", false).is_err());
    }
}
