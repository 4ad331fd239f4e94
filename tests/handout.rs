//! The HTML handout (`diff --html`), opened in a real headless browser:
//! Debian's Chromium (`.ci/run` installs it; this test fails, it does not
//! skip, when it is missing). A probe script measures the laid-out page:
//! the two requests stand side by side, message rows face each other, the
//! diff's colours and the rule annotations are on screen. A screenshot is
//! kept in target/handout-*.png for people to look at.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_formatscope"))
}

fn session(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/sessions/cases")
        .join(name)
}

fn chromium() -> PathBuf {
    let path = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    assert!(
        path.exists(),
        "{} is missing: install Debian's chromium (.ci/run does) or set CHROMIUM",
        path.display()
    );
    path
}

/// Chromium headless, offline, in a fresh profile.
fn headless(profile: &Path) -> Command {
    let mut c = Command::new(chromium());
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--window-size=1600,1200",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    c
}

/// Measures the page as laid out and writes the figures into the DOM,
/// which `--dump-dom` prints.
const PROBE: &str = r#"<script>
window.addEventListener('load', () => {
  const r = e => { if (!e) return null; const b = e.getBoundingClientRect(); return [Math.round(b.left), Math.round(b.top), Math.round(b.width), Math.round(b.height)]; };
  const visible = sel => [...document.querySelectorAll(sel)].filter(e => { const b = e.getBoundingClientRect(); return b.width > 0 && b.height > 0; }).length;
  const out = {
    left: r(document.querySelector('th.side.left')),
    right: r(document.querySelector('th.side.right')),
    moved: visible('td.code.moved'),
    removed: visible('td.code.removed'),
    added: visible('td.code.added'),
    rules: visible('span.rule'),
    headings: visible('tr.heading'),
    message0: r(document.querySelector('tr.heading')),
  };
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"#;

fn probe(html: &Path, profile: &Path) -> serde_json::Value {
    let page = std::fs::read_to_string(html).expect("the handout");
    let probed = html.with_extension("probe.html");
    std::fs::write(&probed, page.replace("</body>", &format!("{PROBE}</body>"))).unwrap();
    let out = headless(profile)
        .arg("--dump-dom")
        .arg(format!("file://{}", probed.display()))
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&out.stdout);
    let marker = "<pre id=\"probe\">";
    let start = dom
        .find(marker)
        .unwrap_or_else(|| panic!("no probe output: {dom:.2000}"))
        + marker.len();
    let end = dom[start..].find("</pre>").expect("probe end") + start;
    let text = dom[start..end].replace("&quot;", "\"");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn the_diff_handout_opens_in_a_browser_with_both_requests_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("handout.html");
    let out = Command::new(bin())
        .args(["diff"])
        .arg(session("library_trip.json"))
        .args([
            "--left",
            "openai:chat",
            "--right",
            "anthropic:chat:wire",
            "--html",
        ])
        .arg(&html)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(&html).unwrap();
    // Self-contained: nothing to fetch at view time.
    for remote in [
        "<script src",
        "<link",
        "url(",
        "http://",
        "https://",
        "@import",
    ] {
        assert!(!page.contains(remote), "the handout fetches {remote}");
    }
    let profile = tempfile::tempdir().unwrap();
    let p = probe(&html, profile.path());
    let (left, right) = (&p["left"], &p["right"]);
    // Two columns of one row: the right starts where the left ends.
    assert!(left[0].as_i64() < right[0].as_i64(), "{p}");
    assert_eq!(left[1], right[1], "same top: {p}");
    assert!(
        left[2].as_i64().unwrap() > 400 && right[2].as_i64().unwrap() > 400,
        "{p}"
    );
    // Anthropic's system prompt moved to the top level; OpenAI's names and
    // tool messages went; message headings for all eleven messages.
    assert!(p["moved"].as_i64().unwrap() > 0, "{p}");
    assert!(p["removed"].as_i64().unwrap() > 0, "{p}");
    assert!(p["headings"].as_i64().unwrap() >= 11, "{p}");
    // The screenshot, for people (and the note on the issue).
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("handout-diff.png");
    let status = headless(profile.path())
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", html.display()))
        .output()
        .unwrap();
    assert!(status.status.success());
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 20_000,
        "{} bytes",
        png.len()
    );
}

#[test]
fn the_explain_handout_shows_the_rule_beside_each_node_in_a_browser() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("explain.html");
    let out = Command::new(bin())
        .args(["explain"])
        .arg(session("library_trip.json"))
        .args(["--provider", "anthropic", "--html"])
        .arg(&html)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(&html).unwrap();
    for remote in [
        "<script src",
        "<link",
        "url(",
        "http://",
        "https://",
        "@import",
    ] {
        assert!(!page.contains(remote), "the handout fetches {remote}");
    }
    // The rules a teacher points at are written beside their lines, with
    // the explanation on hover.
    for id in [
        "anthropic.system.top-level",
        "multi_agent.history.wrap",
        "anthropic.tool_use.block",
    ] {
        assert!(
            page.contains(&format!(">{id}</span>")),
            "{id} is not annotated"
        );
    }
    assert!(page.contains("title=\"the model class takes the system message out of messages"));
    let profile = tempfile::tempdir().unwrap();
    let p = probe(&html, profile.path());
    assert!(p["left"][0].as_i64() < p["right"][0].as_i64(), "{p}");
    // Rule chips are laid out and visible, on both sides.
    assert!(p["rules"].as_i64().unwrap() > 20, "{p}");
    assert!(
        p["moved"].as_i64().unwrap() > 0,
        "the system prompt moved: {p}"
    );
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("handout-explain.png");
    let status = headless(profile.path())
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", html.display()))
        .output()
        .unwrap();
    assert!(status.status.success());
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 20_000,
        "{} bytes",
        png.len()
    );
}
