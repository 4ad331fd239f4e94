//! Which of Java 2.0.2's rules (`explain::RULES_JAVA`) a session's
//! request calls for, message by message: `explain --agentscope
//! java-2.0.2`. Java's rules are where it differs from Python 1.0.21, so
//! each fires on the messages whose blocks, role, provider and mode it is
//! about; its nodes are not attributed one by one.

use crate::explain::{Facts, Fired, Firing, MessageFacts, RULES_JAVA};
use crate::reference::{Family, Formatted, Mode};
use crate::session::Session;

/// The families Java formats with the OpenAI converters.
fn openai_style(family: &str) -> bool {
    matches!(family, "openai" | "deepseek" | "glm")
}

/// A history group of one message: neither neighbour joins it (a tool
/// run or a system message ends a group).
fn alone(all: &[MessageFacts], i: usize) -> bool {
    let joins = |m: &MessageFacts| m.role != "system" && !m.tools();
    joins(&all[i]) && !(i > 0 && joins(&all[i - 1])) && !all.get(i + 1).is_some_and(joins)
}

/// The rules behind the request `family`'s class in `mode` sends.
pub fn rules(session: &Session, family: &Family, mode: Mode, formatted: &Formatted) -> Vec<Fired> {
    let id = family.id;
    // What Java sent: a local image it could not read goes as its path.
    let sent = match &formatted.messages {
        Ok(m) => serde_json::to_string(m).unwrap_or_default(),
        Err(_) => String::new(),
    };
    let sent_as_path = |path: &String| {
        serde_json::to_string(path).is_ok_and(|quoted| sent.contains(&format!("\"url\":{quoted}")))
    };
    let facts = Facts::of(session);
    let multi = mode == Mode::MultiAgent;
    let openai = openai_style(id);
    let mut f = Firing::new(RULES_JAVA);
    if openai && !multi {
        f.on("java.openai.content-string", facts.which(|m| m.text_only()));
    }
    f.on(
        "java.tool-call.arguments-compact",
        facts.which(|m| m.calls()),
    );
    f.on(
        "java.tool-call-only.content-empty",
        facts.which(|m| m.calls() && !m.has("text") && !m.has("thinking")),
    );
    if openai {
        f.on(
            "java.openai.tool-message-no-name",
            facts.which(|m| m.has("tool_result")),
        );
        if multi {
            f.on(
                "java.multi-agent.history-prompt-every-group",
                facts.which(|m| m.role != "system" && !m.tools()),
            );
            f.on(
                "java.multi-agent.single-line-no-name",
                facts.which_at(alone),
            );
            f.on(
                "java.openai.system-in-middle",
                facts.which_at(|all, i| i > 0 && all[i].role == "system"),
            );
        }
        f.on(
            "java.openai.thinking-reasoning-content",
            facts.which(|m| m.has("thinking")),
        );
        f.on(
            "java.openai.tool-result-parts",
            facts.which(|m| m.tool_media),
        );
        f.on(
            "java.openai.local-image-path",
            facts.which(|m| m.has("image") && m.local_media.iter().any(sent_as_path)),
        );
        f.on(
            "java.openai.audio-url-text",
            facts.which(|m| m.has("audio")),
        );
    }
    if id == "deepseek" {
        f.on(
            "java.deepseek.reasoning-before-last-user",
            facts.which(|m| m.has("thinking")),
        );
        f.on("java.deepseek.name", facts.all());
    }
    f.on(
        "java.empty-content-kept",
        facts.which(|m| m.kinds.is_empty()),
    );
    if id == "ollama" {
        f.on(
            "java.ollama.tool-call-function-only",
            facts.which(|m| m.calls()),
        );
    }
    if id == "dashscope" {
        f.on(
            "java.dashscope.file-url",
            facts.which(|m| (m.has("image") || m.has("video")) && !m.local_media.is_empty()),
        );
        f.whole("java.dashscope.endpoint-by-model");
    }
    f.on("java.role-tool", facts.which(|m| m.role == "tool"));
    f.whole("java.envelope");
    f.done()
}
