//! `formatscope listen`: AgentScope's recorded exports (tests/listen/captures,
//! made by real 1.0.21 and 2.0.11 agents, see its README) become sessions
//! whose requests are the bodies the provider received; and the receiver
//! stands up to hostile exports. The real agents themselves run in
//! tests/listen_agents.rs.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn captures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/listen/captures")
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("a folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some(ext))
        .collect();
    out.sort();
    out
}

/// Feeds one scenario's exports, in order, to the listener's writer.
fn record(scenario: &str, dir: &Path) -> Vec<String> {
    use formatscope::listen::writer::{Recorder, Settings};
    use formatscope::live::otlp;
    let mut recorder = Recorder::new(
        dir.to_path_buf(),
        Settings {
            request: None,
            max_files: 1000,
        },
    );
    let mut lines = Vec::new();
    for bin in files(&captures().join(scenario), "bin") {
        let body = std::fs::read(&bin).expect("read");
        let headers: Value = serde_json::from_str(
            &std::fs::read_to_string(bin.with_extension("headers.json")).expect("headers"),
        )
        .expect("JSON");
        let encoding = headers["headers"]["Content-Encoding"].as_str();
        let plain = otlp::decompress(&body, encoding, 1 << 28).expect("decompresses");
        let spans = otlp::decode(&plain, otlp::Encoding::Protobuf).expect("decodes");
        lines.extend(recorder.take(spans).into_iter().map(|w| w.line));
    }
    lines.extend(recorder.finish().into_iter().map(|w| w.line));
    lines
}

fn request(session: &Path, release: Option<&str>) -> Vec<u8> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_formatscope"));
    cmd.arg("request").arg(session);
    if let Some(r) = release {
        cmd.args(["--agentscope", r]);
    }
    let out = cmd.args(["--as", "json"]).output().expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut body = out.stdout;
    if body.last() == Some(&b'\n') {
        body.pop();
    }
    body
}

/// Every 1.0.21 call of four real runs (tools over four turns, a two-agent
/// MsgHub, Anthropic plain and gzipped, DashScope) and every 2.0.11 call
/// of a run without state injection: one session per provider request,
/// in order, and `request FILE --as json` is the body the provider got,
/// byte for byte. 1.0.21's lines say "same": formatscope formats the
/// rebuilt session as AgentScope recorded it.
#[test]
fn recorded_exports_become_the_requests_the_provider_received() {
    for (scenario, release) in [
        ("v1_tools", None),
        ("v1_hub", None),
        ("v1_anthropic", None),
        ("v1_anthropic_gzip", None),
        ("v1_dashscope", None),
        ("v2_off", Some("2.0.11")),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let lines = record(scenario, dir.path());
        let sessions = files(dir.path(), "json");
        let bodies = files(&captures().join(scenario).join("bodies"), "json");
        assert_eq!(sessions.len(), bodies.len(), "{scenario}: {lines:#?}");
        for (session, body) in sessions.iter().zip(&bodies) {
            let want = std::fs::read(body).expect("body");
            let got = request(session, release);
            assert!(
                got == want,
                "{scenario}: {} against {}:\n{}\n{}",
                session.display(),
                body.display(),
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want)
            );
        }
        let calls: Vec<&String> = lines.iter().filter(|l| l.contains("  #")).collect();
        assert_eq!(calls.len(), bodies.len(), "{lines:#?}");
        if release.is_none() {
            assert!(calls.iter().all(|l| l.contains("  same  ")), "{lines:#?}");
        }
    }
}

/// The hub: nested format spans are not calls, both agents' replies are
/// named with their turn, in the files too.
#[test]
fn a_msghub_run_names_each_call_s_agent_and_turn() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lines = record("v1_hub", dir.path());
    assert!(
        lines
            .iter()
            .any(|l| l.contains("Zoë O'Brien  reply 2 ended: #7 #8")),
        "{lines:#?}"
    );
    let last = files(dir.path(), "json").pop().expect("a session");
    let session: Value =
        serde_json::from_str(&std::fs::read_to_string(&last).expect("read")).expect("JSON");
    assert_eq!(session["listen"]["agent"], "Zoë O'Brien");
    assert_eq!(session["listen"]["turn"], 2);
    assert_eq!(session["listen"]["agentscope"], "1.0.21");
    assert_eq!(session["formatter"], "OpenAIMultiAgentFormatter");
    assert_eq!(session["listen"]["recorded"], "same");
}

/// With runtime-state injection on, 2.0.11's requests held a reminder the
/// trace lacks: every session says so.
#[test]
fn a_2_0_11_session_says_what_its_trace_did_not_carry() {
    let dir = tempfile::tempdir().expect("tempdir");
    record("v2_on", dir.path());
    for file in files(dir.path(), "json") {
        let session: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("JSON");
        let assumed = session["listen"]["assumed"].to_string();
        assert!(assumed.contains("<system-reminder>"), "{assumed}");
    }
}

// ---- The receiver, as a process ----------------------------------------

struct Listen {
    child: Child,
    port: u16,
    stdout: BufReader<std::process::ChildStdout>,
}

impl Listen {
    fn start(dir: &Path) -> Listen {
        let mut child = Command::new(env!("CARGO_BIN_EXE_formatscope"))
            .args(["listen", "--port", "0", "--max-body-mb", "1", "--dir"])
            .arg(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut first = String::new();
        stdout.read_line(&mut first).expect("a line");
        let port = first
            .trim()
            .strip_prefix("listening on http://127.0.0.1:")
            .and_then(|rest| rest.strip_suffix("/v1/traces"))
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("first line: {first:?}"));
        Listen {
            child,
            port,
            stdout,
        }
    }

    /// Sends raw HTTP; the status code.
    fn send(&self, head: &str, body: &[u8]) -> u16 {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).expect("connects");
        s.set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        s.write_all(head.as_bytes()).expect("head");
        let _ = s.write_all(body);
        let mut answer = Vec::new();
        let mut buf = [0u8; 4096];
        while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
            match s.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
        }
        let text = String::from_utf8_lossy(&answer);
        text.split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("no status: {text:?}"))
    }

    fn post(&self, headers: &str, body: &[u8]) -> u16 {
        self.send(
            &format!(
                "POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n{headers}\r\n",
                body.len()
            ),
            body,
        )
    }

    /// SIGTERM; the exit code and what it printed.
    fn stop(mut self) -> (Option<i32>, String, String) {
        let pid = self.child.id().to_string();
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill");
        let status = self.child.wait().expect("exits");
        let mut out = String::new();
        self.stdout.read_to_string(&mut out).expect("stdout");
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            e.read_to_string(&mut err).expect("stderr");
        }
        (status.code(), out, err)
    }
}

/// Hostile and malformed exports get 4xx and a line, never a panic; a
/// name in a span never leaves the folder; SIGTERM ends it with 0.
#[test]
fn hostile_exports_are_refused_and_the_receiver_keeps_serving() {
    let dir = tempfile::tempdir().expect("tempdir");
    let listen = Listen::start(dir.path());
    let pb = "Content-Type: application/x-protobuf\r\n";
    assert_eq!(listen.post(pb, b"\xff\xff\xff\xff"), 400, "garbage");
    assert_eq!(
        listen.post(
            "Content-Type: application/json\r\n",
            b"{\"resourceSpans\": 7}"
        ),
        400
    );
    // Announced larger than the 1 MB limit: refused before it is read.
    assert_eq!(
        listen.send(
            "POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n",
            b""
        ),
        413
    );
    // A gzip bomb: 300 KB that is 300 MB inflated.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..300 {
        gz.write_all(&zeros).expect("write");
    }
    let bomb = gz.finish().expect("gzip");
    assert_eq!(
        listen.post(&format!("{pb}Content-Encoding: gzip\r\n"), &bomb),
        413
    );
    assert_eq!(
        listen.send("GET /v1/traces HTTP/1.1\r\nHost: x\r\n\r\n", b""),
        405
    );
    assert_eq!(
        listen.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", b""),
        404
    );
    // A span whose names point outside the folder, as OTLP/JSON.
    let msg = "Msg(id='a', name='u', content='hi', role='user', metadata={}, timestamp='t', invocation_id='None')";
    let attrs = |pairs: &[(&str, String)]| -> Value {
        Value::Array(
            pairs
                .iter()
                .map(|(k, v)| serde_json::json!({"key": k, "value": {"stringValue": v}}))
                .collect(),
        )
    };
    let format = serde_json::json!({
    "traceId": "01", "spanId": "02", "name": "format ../../escape", "endTimeUnixNano": "5",
    "attributes": attrs(&[
        ("gen_ai.operation.name", "format".into()),
        ("agentscope.format.target", "../../../tmp/evil".into()),
        ("agentscope.function.name", "../../OpenAIChatFormatter.format".into()),
        ("agentscope.function.input", serde_json::json!({"args": [], "kwargs": {"msgs": [msg]}}).to_string()),
        ("agentscope.function.output", "[]".into()),
    ])});
    let export = serde_json::json!({"resourceSpans": [{"scopeSpans": [
        {"scope": {"name": "agentscope", "version": "1.0.21"}, "spans": [format]}]}]});
    assert_eq!(
        listen.post(
            "Content-Type: application/json\r\n",
            export.to_string().as_bytes()
        ),
        200
    );
    // Still serving after all that.
    assert_eq!(listen.post(pb, b""), 200, "an empty export");
    let (code, out, err) = listen.stop();
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(err.contains("refused an export from 127.0.0.1:"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // The format span no model call came for is written at the end, in
    // the folder, under a name of its own.
    let written = files(dir.path(), "json");
    assert_eq!(written.len(), 1, "{out}");
    let name = written[0]
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    assert_eq!(name, "00001-tmpevil-chat.json", "{out}");
    assert!(out.contains("#1  1.0.21"), "{out}");
}
