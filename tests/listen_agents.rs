//! Real AgentScope agents traced into `formatscope listen` (issue 40's
//! check): 1.0.21 (an agent with a tool over four turns, a two-agent
//! MsgHub, Anthropic plain and gzipped, DashScope) and 2.0.11 (one agent,
//! state injection off and on), each against a fake provider on
//! 127.0.0.1 that records the bodies it receives. One session per call,
//! in order, while the agent runs; `request FILE --as json` equals each
//! body byte for byte (2.0.11 with injection on: but for the reminder,
//! which every session says it lacks); no key is written.
//!
//! The venvs come from the package index (`tests/listen/setup.sh v1|v2`,
//! about 45 s the first time); `.ci/run` makes them and sets
//! FORMATSCOPE_LISTEN_V1 and FORMATSCOPE_LISTEN_V2 to their pythons.
//! Without them the check says so and does not run.

use std::process::Command;

#[test]
fn real_agents_traced_into_listen_give_the_requests_they_sent() {
    let (Ok(v1), Ok(v2)) = (
        std::env::var("FORMATSCOPE_LISTEN_V1"),
        std::env::var("FORMATSCOPE_LISTEN_V2"),
    ) else {
        eprintln!(
            "not run: set FORMATSCOPE_LISTEN_V1 and FORMATSCOPE_LISTEN_V2 to the pythons of \
             `bash tests/listen/setup.sh v1` and `... v2` (.ci/run does)"
        );
        return;
    };
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/listen");
    let out = Command::new("python3")
        .arg(here.join("run_check.py"))
        .args(["--formatscope", env!("CARGO_BIN_EXE_formatscope")])
        .args(["--python-v1", &v1, "--python-v2", &v2])
        .output()
        .expect("python3 runs");
    let report = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{report}");
    assert!(
        report.contains("run_check: 32/36 call(s) rebuilt byte for byte, 0 failure(s)"),
        "{report}"
    );
}
