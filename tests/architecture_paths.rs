//! The documents stay true to the tree: every repository path
//! ARCHITECTURE.md names in backticks exists, the README stays a front
//! page (at most 400 lines), and every relative link in the README and the
//! guide (docs/src/*.md) reaches a file. Std only: the documents are read
//! as text, the paths checked against CARGO_MANIFEST_DIR.

use std::fs;
use std::path::{Path, PathBuf};

const README_MAX_LINES: usize = 400;

/// The file extensions that make a backticked word a path even without a
/// `/` (`Cargo.toml`, `crates/core/build.rs`).
const PATH_EXTENSIONS: [&str; 6] = [".rs", ".md", ".toml", ".json", ".py", ".sh"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A Markdown file's text with its fenced code blocks blanked out (their
/// lines kept empty, so line numbers stay right): diagrams and shell
/// sessions are not claims about the tree.
fn prose(text: &str) -> String {
    let mut fenced = false;
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
        } else if !fenced {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// The line (from 1) of byte `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// The inline code spans of `text` (`` `crates/core/src/lib.rs` ``), each with the
/// byte where it starts. A span may run over a line end, as Markdown
/// allows.
fn code_spans(text: &str) -> Vec<(usize, &str)> {
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(open) = text[from..].find('`').map(|i| from + i) {
        let inner = open + 1;
        match text[inner..].find('`') {
            Some(len) => {
                spans.push((open, &text[inner..inner + len]));
                from = inner + len + 1;
            }
            None => break,
        }
    }
    spans
}

/// `text` with the contents of its code spans blanked (line ends kept), so
/// a link written as code is not taken for a link.
fn without_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut inside = false;
    for c in text.chars() {
        if c == '`' {
            inside = !inside;
            out.push(' ');
        } else if inside && c != '\n' {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether a code span names a path in the repository: only path
/// characters, not absolute, not a home or variable path, not a bare
/// extension (`.toml`), and either a folder separator or one of the file
/// extensions. `text/plain` would
/// count too, so ARCHITECTURE.md writes such things without backticks.
fn looks_like_repo_path(span: &str) -> bool {
    let path_chars = span
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'));
    if !path_chars || !span.chars().any(|c| c.is_ascii_alphabetic()) {
        return false;
    }
    if span.starts_with('/') || span.contains("//") {
        return false;
    }
    if span.contains('/') {
        return true;
    }
    // A bare extension (`.toml`) names no file.
    !span.starts_with('.') && PATH_EXTENSIONS.iter().any(|ext| span.ends_with(ext))
}

/// The targets of the inline links `[text](target)` in `text`, each with
/// the byte where it starts.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let text = without_code(text);
    let mut targets = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("](").map(|i| from + i) {
        let start = at + 2;
        match text[start..].find(')') {
            Some(len) => {
                // `[a](b "title")`: the target is the first word.
                let target = text[start..start + len]
                    .split_whitespace()
                    .next()
                    .unwrap_or("");
                targets.push((start, target.to_string()));
                from = start + len + 1;
            }
            None => break,
        }
    }
    targets
}

/// Whether a link target is a file in the repository to check: not a web
/// or mail address, not an anchor in the same page.
fn is_relative_file_link(target: &str) -> bool {
    !(target.is_empty()
        || target.starts_with('#')
        || target.starts_with("http://")
        || target.starts_with("https://")
        || target.starts_with("mailto:"))
}

/// Every relative link of the Markdown file `doc` whose file does not
/// exist, as `doc:line: target`.
fn broken_links(doc: &Path) -> Vec<String> {
    let text = prose(&read(doc));
    let name = doc.strip_prefix(root()).unwrap_or(doc);
    let base = doc.parent().unwrap_or(Path::new("."));
    let mut broken = Vec::new();
    for (at, target) in link_targets(&text) {
        if !is_relative_file_link(&target) {
            continue;
        }
        let file = target.split('#').next().unwrap_or("");
        if !base.join(file).exists() {
            broken.push(format!(
                "{}:{}: {target}",
                name.display(),
                line_of(&text, at)
            ));
        }
    }
    broken
}

#[test]
fn every_path_architecture_names_exists() {
    let root = root();
    let text = prose(&read(&root.join("ARCHITECTURE.md")));
    let mut named = 0;
    let mut missing = Vec::new();
    for (at, span) in code_spans(&text) {
        if !looks_like_repo_path(span) {
            continue;
        }
        named += 1;
        if !root.join(span).exists() {
            missing.push(format!("ARCHITECTURE.md:{}: {span}", line_of(&text, at)));
        }
    }
    assert!(
        named >= 50,
        "ARCHITECTURE.md names only {named} paths: is it still the code map?"
    );
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names {} path(s) that do not exist:\n  {}",
        missing.len(),
        missing.join("\n  ")
    );
}

#[test]
fn the_readme_is_a_front_page() {
    let lines = read(&root().join("README.md")).lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, more than {README_MAX_LINES}: move the detail into docs/src/"
    );
}

#[test]
fn every_relative_link_of_the_readme_and_the_guide_reaches_a_file() {
    let root = root();
    let mut docs = vec![root.join("README.md")];
    let guide = root.join("docs/src");
    let mut chapters: Vec<PathBuf> = fs::read_dir(&guide)
        .unwrap_or_else(|e| panic!("{}: {e}", guide.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    chapters.sort();
    assert!(
        chapters.iter().any(|p| p.ends_with("SUMMARY.md")),
        "docs/src/SUMMARY.md is missing"
    );
    docs.extend(chapters);
    let broken: Vec<String> = docs.iter().flat_map(|doc| broken_links(doc)).collect();
    assert!(
        broken.is_empty(),
        "{} relative link(s) reach no file:\n  {}",
        broken.len(),
        broken.join("\n  ")
    );
}

#[test]
fn the_checks_read_markdown_as_meant() {
    assert!(looks_like_repo_path("crates/tui/src/app/mod.rs"));
    assert!(looks_like_repo_path("crates/core/src/formatter/"));
    assert!(looks_like_repo_path("Cargo.toml"));
    assert!(looks_like_repo_path(".ci/run"));
    assert!(!looks_like_repo_path("/proc"));
    assert!(!looks_like_repo_path("~/.cargo/bin"));
    assert!(!looks_like_repo_path("$XDG_STATE_HOME/formatscope"));
    assert!(!looks_like_repo_path("https://example.com/a"));
    assert!(!looks_like_repo_path("reference::ALL"));
    assert!(!looks_like_repo_path("tests/golden*/"));
    assert!(!looks_like_repo_path("0.1.6"));
    assert!(!looks_like_repo_path(".toml"));
    let targets: Vec<String> =
        link_targets("see [a](docs/src/a.md#x), [b](https://x.y) and `[c](d.md)`")
            .into_iter()
            .map(|t| t.1)
            .collect();
    assert_eq!(targets, vec!["docs/src/a.md#x", "https://x.y"]);
    let spans: Vec<&str> = code_spans("`a` and\n`b/c.rs`, `d\ne`")
        .into_iter()
        .map(|s| s.1)
        .collect();
    assert_eq!(spans, vec!["a", "b/c.rs", "d\ne"]);
    let text = prose("x\n```sh\n`nope/x.rs`\n```\ny `z.rs`");
    assert_eq!(text, "x\n\n\n\ny `z.rs`\n");
    let (at, _) = code_spans(&text)[0];
    assert_eq!(line_of(&text, at), 5);
}
