//! `formatscope request --as curl` is proved, not assumed: the exported
//! command runs against a server on 127.0.0.1 that records what it
//! receives, and the method, path, headers (the key aside) and body bytes
//! equal the request's wire view and `--as json`.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::Command;

fn formatscope(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

/// One HTTP request received: request line, headers (lower-cased names),
/// body bytes.
struct Received {
    line: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

fn serve_once(listener: TcpListener) -> std::thread::JoinHandle<Received> {
    std::thread::spawn(move || {
        let (stream, _) = listener.accept().expect("curl connects");
        let mut reader = BufReader::new(stream.try_clone().expect("clone"));
        let mut line = String::new();
        reader.read_line(&mut line).expect("request line");
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            reader.read_line(&mut h).expect("header");
            let h = h.trim_end().to_string();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.push((k.trim().to_lowercase(), v.trim().to_string()));
            }
        }
        let length: usize = headers
            .iter()
            .find(|(k, _)| k == "content-length")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        reader.read_exact(&mut body).expect("body");
        let mut stream = stream;
        let _ = stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}");
        Received {
            line: line.trim_end().to_string(),
            headers,
            body,
        }
    })
}

#[test]
fn the_curl_export_sends_exactly_the_wire_request() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.json");
    std::fs::write(
        &session,
        "{\"messages\": [{\"name\": \"system\", \"role\": \"system\", \"content\": \"Réponds brièvement 😀.\"},\n\
         {\"name\": \"Bob\", \"role\": \"user\", \"content\": \"It's \\\"quoted\\\" and $HOME `x` \\\\ too\"}]}",
    )
    .unwrap();
    let session = session.to_str().unwrap().to_string();
    for (provider, key_var, settings) in [
        (
            "openai",
            Some("OPENAI_API_KEY"),
            r#"{"client_kwargs": {"base_url": "http://127.0.0.1:PORT/v1"}}"#,
        ),
        (
            "anthropic",
            Some("ANTHROPIC_API_KEY"),
            r#"{"client_kwargs": {"base_url": "http://127.0.0.1:PORT"}}"#,
        ),
        (
            "dashscope",
            Some("DASHSCOPE_API_KEY"),
            r#"{"base_http_api_url": "http://127.0.0.1:PORT/api/v1"}"#,
        ),
        ("ollama", None, r#"{"host": "http://127.0.0.1:PORT"}"#),
    ] {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port().to_string();
        let settings = settings.replace("PORT", &port);
        let base = [
            "request",
            session.as_str(),
            "--provider",
            provider,
            "--model-kwargs",
            settings.as_str(),
        ];
        let wire: Value =
            serde_json::from_slice(&formatscope(&base).stdout).expect("the request object");
        let run = |format: &str| {
            let mut args = base.to_vec();
            args.extend(["--as", format]);
            let out = formatscope(&args);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8(out.stdout).unwrap()
        };
        let body = run("json");
        let body = body.strip_suffix('\n').unwrap_or(&body).to_string();
        let curl = run("curl");
        let secret = "sk-test-secret-4242";
        assert!(!curl.contains(secret));
        let server = serve_once(listener);
        let mut cmd = Command::new("bash");
        cmd.arg("-c")
            .arg(format!("{} -o /dev/null", curl.trim_end()));
        if let Some(var) = key_var {
            cmd.env(var, secret);
        }
        let status = cmd.status().expect("bash runs curl");
        assert!(status.success(), "{provider}: curl failed");
        let got = server.join().expect("the server records a request");

        let url = wire["http"]["url"].as_str().unwrap();
        let path = &url[url.find(&port).unwrap() + port.len()..];
        assert_eq!(
            got.line,
            format!(
                "{} {path} HTTP/1.1",
                wire["http"]["method"].as_str().unwrap()
            ),
            "{provider}"
        );
        for (name, value) in wire["http"]["headers"].as_object().unwrap() {
            let want = value.as_str().unwrap().replace("<API_KEY>", secret);
            let have = got
                .headers
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone());
            assert_eq!(
                have.as_deref(),
                Some(want.as_str()),
                "{provider}: header {name}"
            );
        }
        assert_eq!(
            String::from_utf8(got.body).unwrap(),
            body,
            "{provider}: body bytes"
        );
        assert!(
            body.contains(if provider == "dashscope" {
                "\\u00e9"
            } else {
                "é"
            }),
            "{provider}: {body}"
        );
    }
}

/// `--as python`: the SDK call AgentScope makes, with AgentScope's kwargs
/// (no key in them: it is read from the environment). Run by hand with the
/// pinned SDKs against a recording server, the snippets for OpenAI,
/// Anthropic, DashScope and Ollama sent the same body bytes as `--as json`.
#[test]
fn the_python_export_makes_the_same_sdk_call_with_the_same_kwargs() {
    for (provider, call, var) in [
        (
            "openai",
            "client.chat.completions.create(**kwargs)",
            "OPENAI_API_KEY",
        ),
        (
            "anthropic",
            "client.messages.create(**kwargs)",
            "ANTHROPIC_API_KEY",
        ),
        (
            "dashscope",
            "dashscope.Generation.call(api_key=os.environ[\"DASHSCOPE_API_KEY\"], **kwargs)",
            "DASHSCOPE_API_KEY",
        ),
        (
            "gemini",
            "client.models.generate_content_stream(**kwargs)",
            "GEMINI_API_KEY",
        ),
        ("ollama", "client.chat(**kwargs)", ""),
    ] {
        let base = [
            "request",
            "tests/sessions/cases/library_trip.json",
            "--provider",
            provider,
        ];
        let wire: Value = serde_json::from_slice(&formatscope(&base).stdout).unwrap();
        let mut args = base.to_vec();
        args.extend(["--as", "python"]);
        let snippet = String::from_utf8(formatscope(&args).stdout).unwrap();
        assert!(snippet.contains(call), "{provider}:\n{snippet}");
        assert!(
            var.is_empty() || snippet.contains(&format!("os.environ[\"{var}\"]")),
            "{provider}"
        );
        assert!(
            !snippet.contains("<API_KEY>"),
            "{provider}: no key placeholder in the call"
        );
        let line = snippet
            .lines()
            .find(|l| l.starts_with("kwargs = json.loads("))
            .unwrap();
        let literal = &line["kwargs = json.loads(".len()..line.len() - 1];
        let text: String = serde_json::from_str(literal).unwrap();
        let kwargs: Value = formatscope::json::parse(text.as_bytes(), Default::default())
            .unwrap()
            .value;
        let mut want = wire["kwargs"].clone();
        want.as_object_mut().unwrap().remove("api_key");
        assert_eq!(kwargs, want, "{provider}");
    }
}
