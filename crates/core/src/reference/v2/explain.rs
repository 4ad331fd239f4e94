//! Which of 2.0.11's rules (`explain::RULES_V2`) a session's request
//! calls for, message by message: `explain --agentscope 2.0.11`. 2.x's
//! nodes are not attributed one by one; its rules are about where it
//! differs from 1.0.21, so each fires on the messages whose blocks, role,
//! provider and mode it is about.

use crate::explain::{Facts, Fired, Firing, RULES_V2};
use crate::reference::{Family, Mode};
use crate::session::Session;

/// The OpenAI-style families: their formatters build on 2.x's OpenAI one.
fn openai_style(family: &str) -> bool {
    !matches!(family, "anthropic" | "gemini" | "ollama")
}

/// The rules behind the request `family`'s class in `mode` sends.
pub fn rules(session: &Session, family: &Family, mode: Mode) -> Vec<Fired> {
    let id = family.id;
    let facts = Facts::of(session);
    let multi = mode == Mode::MultiAgent;
    let mut f = Firing::new(RULES_V2);
    f.on("v2.msg.blocks-by-role", facts.all());
    f.on(
        "v2.tool-result.assistant-message",
        facts.which(|m| m.has("tool_result") && m.role != "assistant"),
    );
    f.on("v2.data.media-type", facts.which(|m| m.media()));
    f.on("v2.tool_call.raw-input", facts.which(|m| m.calls()));
    let filtered = match id {
        "deepseek" => facts.which(|m| m.media()),
        "xai" | "anthropic" => facts.which(|m| m.has("audio") || m.has("video")),
        _ => Vec::new(),
    };
    f.on("v2.input-types.filter", filtered);
    f.on(
        "v2.tool-result-media.system-reminder",
        facts.which(|m| m.tool_media),
    );
    if !multi {
        f.on("v2.hint.user-message", facts.which(|m| m.has("hint")));
    }
    let history = facts.which(|m| m.role != "system" && !m.tools());
    if multi && matches!(id, "anthropic" | "ollama" | "gemini") {
        f.on("v2.multi_agent.history.first-group", history.clone());
    }
    if multi && matches!(id, "openai" | "dashscope" | "deepseek") {
        f.on(
            "v2.multi_agent.system.string",
            facts.which(|m| m.role == "system" && !m.tools()),
        );
    }
    if openai_style(id) {
        f.on(
            "v2.openai.audio.wav-mp3-only",
            facts.which(|m| m.has("audio")),
        );
    }
    match id {
        "anthropic" => {
            f.on(
                "v2.anthropic.tool-results-merged",
                facts.which_at(|all, i| {
                    let results = |m: &crate::explain::MessageFacts| {
                        m.kinds.iter().filter(|k| *k == "tool_result").count()
                    };
                    results(&all[i]) > 1
                        || (results(&all[i]) > 0
                            && (i > 0 && results(&all[i - 1]) > 0
                                || all.get(i + 1).is_some_and(|n| results(n) > 0)))
                }),
            );
            f.on(
                "v2.anthropic.thinking-signature",
                facts.which(|m| m.has("thinking") || m.has("image")),
            );
        }
        "dashscope" => f.on("v2.dashscope.openai-shape", facts.all()),
        "deepseek" => f.on(
            "v2.deepseek.reasoning-content",
            facts.which(|m| m.role == "assistant"),
        ),
        "gemini" => f.on(
            "v2.gemini.thought-parts",
            facts.which(|m| m.has("thinking") || m.tools()),
        ),
        "ollama" => f.on(
            "v2.ollama.tool-call-per-message",
            if multi {
                history
            } else {
                facts.which(|m| m.tools())
            },
        ),
        _ => {}
    }
    f.whole("v2.count.bytes-estimate");
    if session
        .tools
        .as_ref()
        .is_some_and(|t| t.as_array().is_none_or(|a| !a.is_empty()))
    {
        f.whole("v2.tools.tool-choice");
    }
    f.done()
}
