//! AgentScope 1.0.21's calls: a `format CLASS` span (the Msgs as their
//! `repr()`, the formatted messages) and the `chat MODEL` span of the same
//! request (model, tools, tool choice, call keywords), made into one
//! session (live-tracing.md §2.7).

use super::otlp::Span;
use super::{RebuildError, Rebuilt};
use serde_json::{Map, Value};

/// What 1.0.21's traces never carry: the model class's constructor
/// settings. The session assumes the class's defaults.
pub const ASSUMED: &str = "the model's constructor settings (stream, generate_kwargs, Anthropic max_tokens and thinking, DashScope enable_thinking) are not in traces: the request assumes AgentScope's defaults";

/// Whether `span` is an outer or nested `format` span of 1.0.21.
pub fn is_format(span: &Span) -> bool {
    span.text("gen_ai.operation.name") == Some("format")
}

/// Whether `span` is a model call.
pub fn is_chat(span: &Span) -> bool {
    span.text("gen_ai.operation.name") == Some("chat")
}

/// A JSON attribute (AgentScope writes structured ones with `json.dumps`).
pub fn json_attribute(span: &Span, key: &str) -> Option<Value> {
    serde_json::from_str(span.text(key)?).ok()
}

/// The formatted messages a format span output: exactly what the model
/// class then received.
pub fn formatted(span: &Span) -> Option<Value> {
    json_attribute(span, "agentscope.function.output").filter(Value::is_array)
}

/// The messages a chat span was called with (`kwargs.messages`, else the
/// first positional argument), and its other keyword arguments.
pub fn chat_input(span: &Span) -> Option<(Value, Map<String, Value>)> {
    let input = json_attribute(span, "agentscope.function.input")?;
    let mut kwargs = input.get("kwargs")?.as_object()?.clone();
    let messages = match kwargs.remove("messages") {
        Some(m) => m,
        None => input.get("args")?.get(0)?.clone(),
    };
    Some((messages, kwargs))
}

/// The formatter class of a format span: `OpenAIMultiAgentFormatter`.
pub fn class(span: &Span) -> String {
    span.text("agentscope.function.name")
        .and_then(|n| n.strip_suffix(".format"))
        .unwrap_or_default()
        .to_string()
}

/// The session's provider: the span's target, else the class's prefix.
fn provider(span: &Span, class: &str) -> String {
    match span.text("agentscope.format.target") {
        Some("gcp.gemini") => "gemini".into(),
        Some(t) if t != "unknown" && !t.is_empty() => t.into(),
        _ => class
            .trim_end_matches("MultiAgentFormatter")
            .trim_end_matches("ChatFormatter")
            .to_lowercase(),
    }
}

/// The session of one request: its format span and its chat span (None:
/// the model was never called, or its span was lost; written at the end
/// without model and tools).
pub fn rebuild(format: &Span, chat: Option<&Span>) -> Result<Rebuilt, RebuildError> {
    let class = class(format);
    let input =
        json_attribute(format, "agentscope.function.input").ok_or(RebuildError::NoFunctionInput)?;
    let msgs = input
        .get("kwargs")
        .and_then(|k| k.get("msgs"))
        .or_else(|| input.get("args").and_then(|a| a.get(0)))
        .and_then(Value::as_array)
        .ok_or(RebuildError::NoMsgs)?;
    let mut messages = Vec::with_capacity(msgs.len());
    for (i, m) in msgs.iter().enumerate() {
        let text = m.as_str().ok_or(RebuildError::NotAMsgRepr(i))?;
        let parsed = crate::py::msg_repr(text)
            .map_err(|source| RebuildError::BadMsgRepr { index: i, source })?;
        messages.push(parsed.to_session_message());
    }
    let mut session = Map::new();
    session.insert("provider".into(), provider(format, &class).into());
    let mode = if class.ends_with("MultiAgentFormatter") {
        "multi_agent"
    } else {
        "chat"
    };
    session.insert("mode".into(), mode.into());
    session.insert("formatter".into(), class.clone().into());
    let mut assumed = vec![ASSUMED.to_string()];
    if let Some(chat) = chat {
        if let Some(model) = chat.text("gen_ai.request.model") {
            session.insert("model".into(), model.into());
        }
        if let Some((_, mut kwargs)) = chat_input(chat) {
            if let Some(tools) = kwargs.remove("tools").filter(|t| !t.is_null()) {
                session.insert("tools".into(), tools);
            }
            let mut request = Map::new();
            if let Some(choice) = kwargs.remove("tool_choice").filter(|c| !c.is_null()) {
                request.insert("tool_choice".into(), choice);
            }
            if let Some(s) = kwargs.remove("structured_model").filter(|s| !s.is_null()) {
                assumed.push(format!(
                    "structured_model {s} is recorded by name only: its schema is not in the trace"
                ));
            }
            if !kwargs.is_empty() {
                request.insert("call_kwargs".into(), Value::Object(kwargs));
            }
            if !request.is_empty() {
                session.insert("request".into(), Value::Object(request));
            }
        }
    } else {
        assumed
            .push("the model was not called (or its span was lost): no model and no tools".into());
    }
    session.insert("messages".into(), Value::Array(messages));
    Ok(Rebuilt {
        session,
        formatter: class,
        recorded: formatted(format),
        assumed,
        conversation: conversation(format),
    })
}

/// The run id (1.0.21 writes it as a JSON string, quotes included).
pub fn conversation(span: &Span) -> Option<String> {
    let raw = span.text("gen_ai.conversation.id")?;
    Some(
        serde_json::from_str::<String>(raw)
            .ok()
            .unwrap_or_else(|| raw.to_string()),
    )
}

/// A placeholder for the tests' spans.
#[cfg(test)]
pub(crate) fn span(name: &str, attributes: Value) -> Span {
    Span {
        trace_id: "t".into(),
        span_id: name.into(),
        parent_id: String::new(),
        name: name.into(),
        version: "1.0.21".into(),
        start_ns: 0,
        end_ns: 0,
        attributes: attributes.as_object().cloned().unwrap_or_default(),
        error: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_format_and_chat_span_make_a_session() {
        let msg = "Msg(id='a', name='O'Brien', content=[{'type': 'text', 'text': \"What's up?\"}], role='user', metadata={}, timestamp='2026-11-27 14:04:40.381', invocation_id='None')";
        let format = span(
            "format",
            json!({
                "gen_ai.operation.name": "format",
                "agentscope.format.target": "openai",
                "agentscope.function.name": "OpenAIMultiAgentFormatter.format",
                "agentscope.function.input": json!({"args": [], "kwargs": {"msgs": [msg]}}).to_string(),
                "agentscope.function.output": "[{\"role\": \"user\", \"content\": \"x\"}]",
                "gen_ai.conversation.id": "\"run1\"",
            }),
        );
        let chat = span(
            "chat",
            json!({
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "gpt-4o",
                "agentscope.function.input": json!({"args": [[{"role": "user", "content": "x"}]],
                    "kwargs": {"tools": [{"type": "function", "function": {"name": "f"}}], "tool_choice": null, "temperature": 0.5}}).to_string(),
            }),
        );
        let r = rebuild(&format, Some(&chat)).expect("rebuilds");
        let s = Value::Object(r.session);
        assert_eq!(s["provider"], "openai");
        assert_eq!(s["mode"], "multi_agent");
        assert_eq!(s["formatter"], "OpenAIMultiAgentFormatter");
        assert_eq!(s["model"], "gpt-4o");
        assert_eq!(s["tools"][0]["function"]["name"], "f");
        assert_eq!(s["request"], json!({"call_kwargs": {"temperature": 0.5}}));
        assert_eq!(s["messages"][0]["name"], "O'Brien");
        assert_eq!(s["messages"][0]["content"][0]["text"], "What's up?");
        assert!(s["messages"][0].get("invocation_id").is_none());
        assert_eq!(r.conversation.as_deref(), Some("run1"));
        assert_eq!(r.recorded, Some(json!([{"role": "user", "content": "x"}])));
    }
}
