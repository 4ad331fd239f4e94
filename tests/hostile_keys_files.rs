//! Issue 41, item 4 and the price half of item 15: every config and state
//! file formatscope reads (profiles.toml, prices.json, a theme and the
//! `.tmTheme` it names, the recent list) goes through the guarded read
//! sessions use: a FIFO never blocks, a link to `/dev/zero` is never read
//! without end, and the error names the file. A price file with an
//! infinite or negative price is refused, naming the field.

#![cfg(unix)]

#[path = "support/run.rs"]
mod run;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::mpsc;
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(20);

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.expect("mkfifo runs").success(), "mkfifo");
}

/// `formatscope ARGS` with the config home at `config`; killed (and the
/// test failed) if it takes [`LIMIT`].
fn run_with_config(args: &[&str], config: &Path) -> Output {
    let started = Instant::now();
    let child = run::bin()
        .args(args)
        .env("XDG_CONFIG_HOME", config)
        .env("XDG_STATE_HOME", config.join("state"))
        .env("FORMATSCOPE_HISTORY", "off")
        .env("OPENAI_API_KEY", "sk-test-files-0000")
        .env_remove("OPENAI_BASE_URL")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let id = child.id();
    let (done, waited) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        if waited.recv_timeout(LIMIT).is_err() {
            let _ = std::process::Command::new("kill")
                .args(["-9", &id.to_string()])
                .status();
        }
    });
    let out = child.wait_with_output().expect("wait");
    let _ = done.send(());
    assert!(
        started.elapsed() < LIMIT,
        "`formatscope {}` hung on a config file (killed)",
        args.join(" ")
    );
    out
}

/// `f()` on another thread; fails the test if it takes [`LIMIT`].
fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(LIMIT)
        .unwrap_or_else(|_| panic!("{what} hung on a FIFO or a device"))
}

fn session(dir: &Path) -> PathBuf {
    let path = dir.join("s.json");
    std::fs::write(
        &path,
        r#"{"provider": "openai", "request": {"model": "gpt-4o"}, "messages": [{"name": "u", "role": "user", "content": "hi"}]}"#,
    )
    .expect("write");
    path
}

/// A config folder whose `formatscope/NAME` is a FIFO, or a link to
/// `/dev/zero`.
fn config_with(dir: &Path, name: &str, fifo: bool) -> PathBuf {
    let config = dir.join(if fifo { "fifo-config" } else { "zero-config" });
    std::fs::create_dir_all(config.join("formatscope")).expect("mkdir");
    let file = config.join("formatscope").join(name);
    if fifo {
        mkfifo(&file);
    } else {
        std::os::unix::fs::symlink("/dev/zero", &file).expect("symlink");
    }
    config
}

#[test]
fn a_fifo_or_dev_zero_as_profiles_toml_is_an_error_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = session(dir.path());
    let s = s.to_str().expect("utf-8");
    for fifo in [true, false] {
        let config = config_with(dir.path(), "profiles.toml", fifo);
        for cmd in ["send", "request"] {
            let out = run_with_config(&[cmd, s, "--profile", "local"], &config);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{cmd}: {err}");
            assert!(err.contains("profiles.toml"), "{cmd}: {err}");
            assert!(err.contains("not a regular file"), "{cmd}: {err}");
        }
        let file = config.join("formatscope/profiles.toml");
        let loaded = within("profile::load_from", move || {
            formatscope::net::profile::load_from(Some(&file))
        });
        assert!(loaded.is_err(), "{loaded:?}");
    }
}

#[test]
fn a_fifo_or_dev_zero_as_prices_json_is_an_error_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = session(dir.path());
    for fifo in [true, false] {
        let config = config_with(dir.path(), "prices.json", fifo);
        let out = run_with_config(&["count", s.to_str().expect("utf-8")], &config);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("prices.json"), "{err}");
        assert!(err.contains("not a regular file"), "{err}");
        let file = config.join("formatscope/prices.json");
        let loaded = within("cost::load_with", move || {
            formatscope::tokens::cost::load_with(Some(&file))
        });
        assert!(loaded.is_err());
    }
}

#[test]
fn a_theme_or_its_syntax_file_that_is_a_fifo_or_a_device_is_an_error() {
    use formatscope::tui::theme::Theme;
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("mine.toml");
    mkfifo(&fifo);
    let shown = fifo.display().to_string();
    let err =
        within("Theme::load", move || Theme::load(&shown).map(|_| ())).expect_err("a FIFO theme");
    assert!(err.contains("mine.toml") && err.contains("FIFO"), "{err}");
    // A theme naming /dev/zero (or a FIFO) as its syntax file.
    let dark = include_str!("../crates/tui/themes/dark.toml");
    let syntax_line = dark
        .lines()
        .find(|l| l.trim_start().starts_with("syntax"))
        .expect("a syntax line");
    for (name, target) in [("zero.toml", "/dev/zero"), ("pipe.toml", "pipe.tmTheme")] {
        let theme = dir.path().join(name);
        std::fs::write(
            &theme,
            dark.replace(syntax_line, &format!("syntax = {target:?}")),
        )
        .expect("write");
        if target == "pipe.tmTheme" {
            mkfifo(&dir.path().join(target));
        }
        let shown = theme.display().to_string();
        let err = within("Theme::load", move || Theme::load(&shown).map(|_| ()))
            .expect_err("a device as syntax");
        assert!(err.contains("not a regular file"), "{err}");
    }
}

#[test]
fn a_fifo_or_dev_zero_as_the_recent_list_reads_as_empty_without_blocking() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("recent");
    mkfifo(&fifo);
    let read = within("recent::read", move || {
        formatscope::tui::recent::read(&fifo)
    });
    assert!(read.is_empty());
    let zero = dir.path().join("recent-zero");
    std::os::unix::fs::symlink("/dev/zero", &zero).expect("symlink");
    let read = within("recent::read", move || {
        formatscope::tui::recent::read(&zero)
    });
    assert!(read.is_empty());
}

#[test]
fn a_price_file_with_infinite_or_negative_prices_is_refused_naming_the_field() {
    use formatscope::tokens::cost::PriceTable;
    // Past f64 (JSON has no `inf`): said where it stands.
    let err = PriceTable::parse(
        "{\"prices\": {\"openai\": {\"gpt-4o\":\n {\"input\": 1e999, \"output\": 1}}}}",
        "prices.json",
    )
    .expect_err("1e999");
    assert!(err.starts_with("prices.json:2:"), "{err}");
    // Finite, yet a cost of `$inf` for a long enough request, or negative.
    for (price, what) in [
        ("1e308", "not a price"),
        ("-1", "negative"),
        ("-0.5", "negative"),
    ] {
        let text = format!(
            "{{\"source\": {{\"date\": \"2027-01-01\"}},\n \"prices\": {{\"openai\": {{\"gpt-4o\": {{\"input\": 1, \"output\": {price}}}}}}}}}\n"
        );
        let err = PriceTable::parse(&text, "prices.json").expect_err(price);
        assert!(err.starts_with("prices.json"), "{err}");
        assert!(err.contains("openai") && err.contains("gpt-4o"), "{err}");
        assert!(err.contains("output"), "{err}");
        assert!(err.contains(what), "{price}: {err}");
    }
    // cached_input too.
    let err = PriceTable::parse(
        r#"{"prices": {"openai": {"gpt-4o": {"input": 1, "cached_input": -2, "output": 1}}}}"#,
        "p.json",
    )
    .expect_err("negative cached");
    assert!(err.contains("cached_input"), "{err}");
    // And `count` stops on it, exit 2, naming the file.
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("config");
    std::fs::create_dir_all(config.join("formatscope")).expect("mkdir");
    std::fs::write(
        config.join("formatscope/prices.json"),
        r#"{"prices": {"openai": {"gpt-4o": {"input": 1e308, "output": 1}}}}"#,
    )
    .expect("write");
    let s = session(dir.path());
    let out = run_with_config(&["count", s.to_str().expect("utf-8")], &config);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("prices.json") && err.contains("input"),
        "{err}"
    );
    assert!(!text(&out.stdout).contains("$inf"), "{}", text(&out.stdout));
}
