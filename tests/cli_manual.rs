//! `completions` and `manpage` come from the parser's own definition: a
//! shell completes every subcommand and its flags, and `man` shows them.

use std::process::Command;

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

const SUBCOMMANDS: &[&str] = &[
    "format", "count", "tokenize", "truncate", "request", "send", "response", "diff", "lint",
    "explain", "legacy", "history", "listen",
];

#[test]
fn every_shell_completes_every_subcommand() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (code, text) = run(&["completions", shell]);
        assert_eq!(code, 0, "{shell}");
        for sub in SUBCOMMANDS {
            assert!(text.contains(sub), "{shell} completes no {sub}");
        }
        assert!(text.contains("agentscope"), "{shell}: the flags");
    }
    let (code, _) = run(&["completions", "tcsh"]);
    assert_eq!(code, 2, "an unknown shell is bad usage");
}

#[test]
fn the_man_page_names_every_subcommand() {
    let (code, text) = run(&["manpage"]);
    assert_eq!(code, 0);
    assert!(text.contains(".TH formatscope 1"), "{text}");
    for sub in SUBCOMMANDS {
        assert!(text.contains(sub), "the man page has no {sub}");
    }
}
