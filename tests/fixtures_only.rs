//! The tests read no file a user edits. `sessions/` is the folder the
//! workbench opens and saves by default: a test that read it failed after
//! an hour of normal use. Its files are copied under tests/sessions/cases,
//! and this test finds any test, bench or script that names the user's
//! folder again.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("rs" | "py" | "sh")
        ) {
            out.push(path);
        }
    }
}

/// `"sessions/NAME` (a path relative to the repo, where cargo runs the
/// tests) or the repo's root joined with `"sessions`.
fn names_the_users_folder(line: &str) -> bool {
    let relative = line.match_indices("\"sessions/").any(|(i, m)| {
        line[i + m.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '{' || c == '_')
    });
    let rooted = line.contains("CARGO_MANIFEST_DIR")
        && (line.contains("join(\"sessions\")") || line.contains("join(\"sessions/"));
    relative || rooted
}

#[test]
fn no_test_reads_the_users_sessions_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["tests", "benches", "scripts"] {
        sources(&root.join(dir), &mut files);
    }
    assert!(files.len() > 50, "the test sources were found");
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            if names_the_users_folder(line) && !file.ends_with("tests/fixtures_only.rs") {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "read the copies under tests/sessions/cases instead:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_both_ways_of_naming_the_folder() {
    assert!(names_the_users_folder(
        r#"formatscope(&["count", "sessions/library_trip.json"])"#
    ));
    assert!(names_the_users_folder(
        r#"Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions")"#
    ));
    assert!(!names_the_users_folder(r#"dir.path().join("sessions")"#));
    assert!(!names_the_users_folder(r#".expect("sessions/")"#));
    assert!(!names_the_users_folder(
        r#""tests/sessions/cases/chat_plain.json""#
    ));
}
