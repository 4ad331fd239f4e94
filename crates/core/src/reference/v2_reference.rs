//! AgentScope 2.0.11 as a release of the workbench and the compare view:
//! its eleven providers, each to its 2.x chat or multi-agent class. 2.x
//! does not truncate in the formatter and has no tokenizers.

use super::{
    v2, Family, FormatFlags, FormatOracle, Formatted, Mode, Raised, Reference, Requested, Setting,
    Stopped, UsageError, WireAsk, SIX,
};
use crate::media::MediaEnv;
use crate::provider::Provider;
use crate::session::Session;
use serde_json::{Map, Value};

pub struct V2;

/// The release.
pub static V2_0_11: V2 = V2;

/// The 1.0.21 six on their keys, then the five 2.x added, with the ids
/// `oracle_v2.py` reads from a session's `provider`.
static FAMILIES: [Family; 11] = [
    SIX[0],
    SIX[1],
    SIX[2],
    SIX[3],
    SIX[4],
    SIX[5],
    Family::new("openai_response", "OpenAI Responses"),
    Family::new("minimax", "MiniMax"),
    Family::new("moonshot", "Moonshot"),
    Family::new("xai", "xAI"),
    Family::new("volcengine", "Volcengine"),
];

/// The 2.x class for `family` in `mode`.
fn class_name(family: &Family, mode: Mode) -> String {
    let prefix = match family.id {
        "openai_response" => "OpenAIResponse",
        "xai" => "XAI",
        _ => family.title,
    };
    match (prefix, mode) {
        (p, Mode::MultiAgent) => format!("{p}MultiAgentFormatter"),
        ("OpenAIResponse", _) => "OpenAIResponseFormatter".into(),
        (p, _) => format!("{p}ChatFormatter"),
    }
}

impl Reference for V2 {
    fn version(&self) -> &'static str {
        "2.0.11"
    }

    fn modes(&self) -> &'static [Mode] {
        &[Mode::Chat, Mode::MultiAgent]
    }

    fn families(&self) -> &'static [Family] {
        &FAMILIES
    }

    fn call(&self, family: &Family, mode: Mode) -> String {
        format!("{}.format", class_name(family, mode))
    }

    fn format(&self, session: &Session, family: &Family, mode: Mode, env: &MediaEnv) -> Formatted {
        let mut object = Map::new();
        object.insert(
            "messages".into(),
            Value::Array(session.messages.iter().map(|m| m.value()).collect()),
        );
        if let Some(t) = &session.tools {
            object.insert("tools".into(), t.clone());
        }
        // The session's "v2" object: the formatter's input_types.
        let v2_settings = session.settings.get("v2");
        let input_types = names(v2_settings.and_then(|o| o.get("input_types")));
        // The request's tool_choice (the settings' shared field: a mode or
        // a tool's name) and the "v2" object's tool list, as ToolChoice.
        let tool_choice = session
            .settings
            .get("request")
            .and_then(|r| r.get("tool_choice"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let tool_choice_tools = names(v2_settings.and_then(|o| o.get("tool_choice_tools")));
        let opts = v2::Options {
            formatter: Some(class_name(family, mode)),
            count: true,
            tools: session.tools.is_some(),
            tool_choice: tool_choice.filter(|_| session.tools.is_some()),
            tool_choice_tools,
            input_types,
            ..v2::Options::default()
        };
        let out = match (&opts.tool_choice, &opts.tool_choice_tools) {
            (None, Some(_)) => Err(v2::Error(
                "the 2.x tool choice tools need a tool_choice (auto, required, none or a tool's name) as its mode".into(),
            )),
            _ => v2::run_with(&Value::Object(object), env, &opts),
        };
        // The schemas and the choice as the model class sends them.
        let tools = out.as_ref().ok().and_then(|o| {
            let mut t = Map::new();
            for key in ["tools", "tool_choice"] {
                if let Some(v) = o.get(key) {
                    t.insert(key.into(), v.clone());
                }
            }
            (!t.is_empty()).then_some(Value::Object(t))
        });
        let estimate = out.as_ref().ok().and_then(|o| {
            o.get("tokens_with_tools")
                .or_else(|| o.get("tokens"))
                .and_then(Value::as_u64)
        });
        let messages = match out {
            Err(e) => Err(Raised {
                kind: "UsageError".into(),
                message: e.0,
            }),
            Ok(out) => match out.get("messages") {
                Some(Value::Array(m)) => Ok(m.clone()),
                _ => Err(Raised {
                    kind: text(&out, "error_type").unwrap_or("Error").to_string(),
                    message: text(&out, "error").unwrap_or_default().to_string(),
                }),
            },
        };
        let spans = match &messages {
            Ok(m) => super::one_to_one(session.messages.len(), m.len()),
            Err(_) => Vec::new(),
        };
        Formatted {
            call: self.call(family, mode),
            branch: None,
            lost: Vec::new(),
            messages,
            spans,
            estimate,
            tools,
            body: None,
        }
    }

    fn rules(
        &self,
        session: &Session,
        family: &Family,
        mode: Mode,
        formatted: &Formatted,
    ) -> Option<Vec<crate::explain::Fired>> {
        let _ = formatted;
        Some(v2::explain::rules(session, family, mode))
    }

    fn counts_and_truncates(&self) -> bool {
        false
    }

    fn settings(&self) -> &'static [Setting] {
        &[
            Setting {
                object: "v2",
                key: "input_types",
                list: true,
                label: "2.x input types",
                help: "the formatter's input_types (e.g. text/plain, image/*): media of other types are not sent; empty: the class's default",
            },
            Setting {
                object: "v2",
                key: "tool_choice_tools",
                list: true,
                label: "2.x tool choice tools",
                help: "ToolChoice.tools (names, comma-separated): only these tools' schemas are sent, with the tool_choice above as the mode",
            },
        ]
    }

    fn format_oracle(&self) -> Option<FormatOracle> {
        Some(format_oracle)
    }

    fn request(&self, ask: &WireAsk) -> Result<Requested, UsageError> {
        let class = match ask.class {
            Some(c) => c.to_string(),
            None => class_name(ask.family, ask.mode),
        };
        let parsed = v2::Class::from_name(&class).ok_or_else(|| {
            UsageError(format!(
                "AgentScope 2.0.11 has no formatter class {class}; one of {}",
                v2::FORMATTERS.join(", ")
            ))
        })?;
        let tool_choice = match (&ask.settings.tool_choice, &ask.tool_choice_tools) {
            (None, Some(_)) => {
                return Err(UsageError("the tool choice's tools need a tool choice (auto, none, required or a tool's name) as its mode".into()))
            }
            (None, None) => None,
            (Some(mode), tools) => Some(v2::tools::ToolChoice {
                mode: mode.clone(),
                tools: tools.clone(),
            }),
        };
        let settings = v2::wire::Settings {
            model: ask.settings.model.clone(),
            stream: ask.settings.stream,
            tool_choice,
            model_kwargs: ask.settings.model_kwargs.clone(),
            call_kwargs: ask.settings.call_kwargs.clone(),
        };
        let options = v2::wire::FormatterOptions {
            input_types: ask.input_types.clone(),
            conversation_history_prompt: ask.history_prompt.clone(),
        };
        let built = v2::wire::request(
            &session_value(ask.session),
            ask.env,
            &class,
            &settings,
            &options,
        )?;
        let stopped = match &built.outcome {
            Err((stage, e)) => Some(Stopped {
                stage: stage.name().into(),
                error: e.clone().into(),
            }),
            Ok(_) => None,
        };
        let (key_variable, provider) = family_key(parsed.family);
        Ok(Requested {
            class,
            printed: built.to_oracle(),
            wire: built.outcome.as_ref().ok().cloned(),
            stopped,
            key_variable,
            provider,
            home: Some(v2::wire::home(parsed.family)),
            framing: framing(parsed.family),
            warnings: built.warnings,
        })
    }

    fn replies(&self, requested: &Requested) -> Option<Box<dyn super::Replies>> {
        let family = v2::Class::from_name(&requested.class)?.family;
        let protocol = v2::reply::Protocol::of(family)?;
        // A voice asks for pcm16 audio, which the class wraps as WAV.
        let spoken = requested
            .wire
            .as_ref()
            .is_some_and(|w| w.kwargs.get("audio").is_some());
        Some(Box::new(v2::reply::Parsing::new(protocol, spoken)))
    }

    fn with_base_url(
        &self,
        family: &Family,
        settings: &mut crate::wire::Settings,
        url: &str,
    ) -> Result<(), UsageError> {
        let class = class_name(family, Mode::Chat);
        let parsed = v2::Class::from_name(&class).ok_or_else(|| {
            UsageError(format!("AgentScope 2.0.11 has no {} class", family.title))
        })?;
        v2::wire::put_base_url(parsed.family, &mut settings.model_kwargs, url);
        Ok(())
    }

    fn no_budget(&self) -> Option<&'static str> {
        Some("AgentScope 2.x does not truncate in the formatter (compression lives in the agent) and counts with a bytes/4 estimate, not a tokenizer")
    }
}

/// The session as the 2.x oracle reads it: its messages and tools.
fn session_value(session: &Session) -> Value {
    let mut object = Map::new();
    object.insert(
        "messages".into(),
        Value::Array(session.messages.iter().map(|m| m.value()).collect()),
    );
    if let Some(t) = &session.tools {
        object.insert("tools".into(), t.clone());
    }
    Value::Object(object)
}

/// How a 2.x family's replies are framed (the SDK's stream format).
fn framing(family: v2::Family) -> crate::response::Api {
    use crate::response::Api;
    match family {
        v2::Family::Responses => Api::OpenAiResponses,
        v2::Family::Anthropic | v2::Family::MiniMax => Api::Anthropic,
        v2::Family::Gemini => Api::Gemini,
        v2::Family::Ollama => Api::Ollama,
        _ => Api::OpenAi,
    }
}

/// A 2.x family's key variable, and the 1.0.21 provider whose host and
/// key rules its requests follow (the same API, the same host).
fn family_key(family: v2::Family) -> (Option<&'static str>, Option<Provider>) {
    match family {
        v2::Family::OpenAi | v2::Family::Responses => {
            (Some("OPENAI_API_KEY"), Some(Provider::OpenAi))
        }
        v2::Family::Anthropic => (Some("ANTHROPIC_API_KEY"), Some(Provider::Anthropic)),
        v2::Family::DashScope => (Some("DASHSCOPE_API_KEY"), Some(Provider::DashScope)),
        v2::Family::Gemini => (Some("GEMINI_API_KEY"), Some(Provider::Gemini)),
        v2::Family::Ollama => (None, Some(Provider::Ollama)),
        v2::Family::DeepSeek => (Some("DEEPSEEK_API_KEY"), Some(Provider::DeepSeek)),
        v2::Family::MiniMax => (Some("MINIMAX_API_KEY"), None),
        v2::Family::Moonshot => (Some("MOONSHOT_API_KEY"), None),
        v2::Family::Volcengine => (Some("ARK_API_KEY"), None),
        v2::Family::Xai => (Some("XAI_API_KEY"), None),
    }
}

/// A list setting's names.
fn names(v: Option<&Value>) -> Option<Vec<String>> {
    v.and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    })
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The release's `format` object ([`Reference::format_oracle`]).
fn format_oracle(
    session: &Value,
    env: &MediaEnv,
    flags: &FormatFlags,
) -> Result<Value, UsageError> {
    if let Some(flag) = flags.first_of(&[
        ("--endpoint", flags.endpoint.is_some()),
        ("--model", flags.model.is_some()),
        ("--promote-tool-result-images", flags.promote_images),
    ]) {
        return Err(UsageError(format!(
            "{flag} is not an AgentScope 2.0.11 formatter option: 2.x formatters do not truncate (compression lives in the agent), count with a bytes/4 estimate instead of a tokenizer, promote no tool-result media and take no model (`formatscope request --agentscope 2.0.11 --model M` builds the model class's request)"
        )));
    }
    let opts = v2::Options {
        formatter: flags.class.clone(),
        count: flags.count,
        tools: flags.tools,
        tool_choice: flags.tool_choice.clone(),
        tool_choice_tools: flags.tool_choice_tools.clone(),
        input_types: flags.input_types.clone(),
        conversation_history_prompt: flags.history_prompt.clone(),
        msgs_only: flags.msgs_only,
        dump_msgs: flags.dump_msgs,
        web_roots: flags.web_roots.clone(),
        raw: flags.raw,
    };
    v2::run_with(session, env, &opts).map_err(UsageError::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::NoNetwork;
    use std::sync::Arc;

    fn session(extra: Value) -> Session {
        let mut v = crate::json!({"messages": [
            {"name": "user", "role": "user", "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
            ]}
        ]});
        if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
            o.extend(e.clone());
        }
        crate::session::parse_session(&v.to_string(), "t.json").expect("a session")
    }

    /// The session's `"v2": {"input_types": [...]}` reaches the formatter:
    /// an image outside them is not sent.
    #[test]
    fn the_sessions_input_types_decide_which_media_are_sent() {
        let env = MediaEnv::new(std::env::temp_dir(), Arc::new(NoNetwork));
        let with_image = V2_0_11.format(&session(Value::Null), &SIX[0], Mode::Chat, &env);
        let text_only = V2_0_11.format(
            &session(crate::json!({"v2": {"input_types": ["text/plain"]}})),
            &SIX[0],
            Mode::Chat,
            &env,
        );
        let shown = |f: &Formatted| {
            serde_json::to_string(&f.messages.clone().expect("formats")).unwrap_or_default()
        };
        assert!(
            shown(&with_image).contains("example.com/a.png"),
            "{}",
            shown(&with_image)
        );
        assert!(
            !shown(&text_only).contains("example.com/a.png"),
            "{}",
            shown(&text_only)
        );
        assert!(with_image.estimate.is_some());
    }

    /// The request's tool_choice and the "v2" tool list reach 2.x's
    /// ToolChoice: only the listed tools' schemas are sent, with the
    /// provider's value of the choice; a list without a mode says so.
    #[test]
    fn the_sessions_tool_choice_and_its_tool_list_filter_the_schemas() {
        let env = MediaEnv::new(std::env::temp_dir(), Arc::new(NoNetwork));
        let tool = |name: &str| {
            crate::json!({"type": "function", "function": {"name": name, "description": name,
                "parameters": {"type": "object", "properties": {}}}})
        };
        let tools = crate::json!([tool("search"), tool("weather")]);
        let chosen = session(crate::json!({
            "tools": &tools,
            "request": {"tool_choice": "required"},
            "v2": {"tool_choice_tools": ["weather"]}
        }));
        let f = V2_0_11.format(&chosen, &SIX[0], Mode::Chat, &env);
        let sent = f.tools.expect("the schemas");
        let names: Vec<&str> = sent["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["function"]["name"].as_str())
            .collect();
        assert_eq!(names, ["weather"], "{sent}");
        assert!(sent.get("tool_choice").is_some(), "{sent}");
        let no_mode = session(crate::json!({
            "tools": tools,
            "v2": {"tool_choice_tools": ["weather"]}
        }));
        let f = V2_0_11.format(&no_mode, &SIX[0], Mode::Chat, &env);
        let e = f.messages.expect_err("a list without a mode");
        assert!(e.message.contains("need a tool_choice"), "{}", e.message);
    }
}
