//! The legacy API: AgentScope 0.1.6's `agentscope.formatters`,
//! byte for byte, beside the 1.0.21 formatters (`crate::formatter`). Five
//! classes with class methods `format_chat`, `format_multi_agent`,
//! `format_auto`, `format_tools_json_schemas` and `is_supported_model`
//! (`shared/spec/formatters-v0.md`). Python's JSON, repr and media reading
//! are shared with 1.0.21 (`crate::py`, `crate::media`).
//!
//! [`run`] returns the reference oracle's object (`oracle_v0.py`).

mod anthropic;
mod common;
pub mod convert;
mod dashscope;
pub mod formatters;
mod gemini;
mod media;
pub mod msg;
mod openai;

use crate::json;
use crate::media::MediaEnv;
use crate::py::{py_repr, PyErr};
use serde_json::{Map, Value};

/// The five classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    OpenAi,
    Anthropic,
    DashScope,
    Gemini,
    Common,
}

impl Class {
    pub const ALL: [Class; 5] = [
        Class::OpenAi,
        Class::Anthropic,
        Class::DashScope,
        Class::Gemini,
        Class::Common,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Class::OpenAi => "OpenAIFormatter",
            Class::Anthropic => "AnthropicFormatter",
            Class::DashScope => "DashScopeFormatter",
            Class::Gemini => "GeminiFormatter",
            Class::Common => "CommonFormatter",
        }
    }

    pub fn from_name(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == name)
    }

    /// `supported_model_regexes` (§7); CommonFormatter has none.
    pub fn model_regexes(self) -> Option<&'static [&'static str]> {
        match self {
            Class::OpenAi => Some(&["gpt-.*", "o1", "o1-mini", "o3-mini"]),
            Class::Anthropic => Some(&["claude-3-5.*", "claude-3-7.*"]),
            Class::DashScope => Some(&["qwen-.*"]),
            Class::Gemini => Some(&["gemini-.*"]),
            Class::Common => None,
        }
    }

    /// `is_supported_model(name)`: a regex matching at the start of the
    /// name (Python `re.match`).
    pub fn is_supported_model(self, model: &str) -> Result<bool, PyErr> {
        let Some(patterns) = self.model_regexes() else {
            return Err(PyErr::new(
                "NotImplementedError",
                "The CommonFormatter is used a backend solution for common chat LLMs, so it does not support the `is_supported_model` method.",
            ));
        };
        Ok(patterns.iter().any(|p| {
            // `.` stops at a newline, as in Python without DOTALL.
            fancy_regex::Regex::new(&format!("^(?:{p})"))
                .ok()
                .and_then(|r| r.is_match(model).ok())
                .unwrap_or(false)
        }))
    }

    /// The 0.1.6 class for a 1.0.21 provider: Ollama and DeepSeek had
    /// none and used CommonFormatter.
    pub fn for_provider(p: crate::provider::Provider) -> Class {
        use crate::provider::Provider;
        match p {
            Provider::OpenAi => Class::OpenAi,
            Provider::Anthropic => Class::Anthropic,
            Provider::DashScope => Class::DashScope,
            Provider::Gemini => Class::Gemini,
            Provider::Ollama | Provider::DeepSeek => Class::Common,
        }
    }

    /// The class a 0.1.6 user would pick for `model`: the first whose
    /// `is_supported_model` says yes, in the order of `ALL`.
    pub fn for_model(model: &str) -> Option<Class> {
        Class::ALL
            .into_iter()
            .find(|c| c.is_supported_model(model).unwrap_or(false))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Chat,
    MultiAgent,
    Auto,
    Tools,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Chat => "chat",
            Method::MultiAgent => "multi_agent",
            Method::Auto => "auto",
            Method::Tools => "tools",
        }
    }

    pub fn from_name(s: &str) -> Option<Method> {
        [
            Method::Chat,
            Method::MultiAgent,
            Method::Auto,
            Method::Tools,
        ]
        .into_iter()
        .find(|m| m.name() == s)
    }
}

/// CommonFormatter.format_chat's keyword options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChatOptions {
    pub require_alternative: bool,
    pub require_user_last: bool,
}

fn err(out: &mut Map<String, Value>, stage: &str, e: &PyErr) {
    out.insert("error".into(), Value::from(e.message.clone()));
    out.insert("error_type".into(), Value::from(e.kind));
    out.insert("stage".into(), Value::from(stage));
}

/// A v0 session: an object, or a bare array taken as its `messages`.
pub fn session_object(v: &Value) -> Map<String, Value> {
    match v {
        Value::Array(_) => {
            let mut m = Map::new();
            m.insert("messages".into(), v.clone());
            m
        }
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    }
}

/// The session holds no `messages` array, so there is nothing to run:
/// the oracle's usage error (every other failure is AgentScope's, recorded
/// in the output object).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("session has no 'messages' array")]
pub struct NoMessages;

/// One formatting run in the oracle's shape: chat, multi_agent, auto
/// (`auto_branch` says which it took) or tools. `options` are given for
/// CommonFormatter's chat (the oracle then prints them).
pub fn run(
    session: &Map<String, Value>,
    class: Class,
    method: Method,
    options: Option<ChatOptions>,
    env: &MediaEnv,
) -> Result<Value, NoMessages> {
    let mut out = Map::new();
    out.insert("formatter".into(), Value::from(class.name()));
    out.insert("method".into(), Value::from(method.name()));
    let opts = options.unwrap_or_default();
    out.insert(
        "options".into(),
        match options {
            Some(o) => json!({"require_alternative": o.require_alternative, "require_user_last": o.require_user_last}),
            None => json!({}),
        },
    );
    if method == Method::Tools {
        match tools(class, &tools_dict(session.get("tools"))) {
            Ok(t) => {
                out.insert("tools".into(), t);
            }
            Err(e) => err(&mut out, "tools", &e),
        }
        return Ok(finish(out, env));
    }
    let Some(Value::Array(entries)) = session.get("messages") else {
        return Err(NoMessages);
    };
    match format(entries, class, method, opts, env) {
        Ok((branch, v)) => {
            if let Some(b) = branch {
                out.insert("auto_branch".into(), Value::from(b));
            }
            out.insert("messages".into(), v);
        }
        // format_auto failing before it called a method has no branch.
        Err((stage, e)) => err(&mut out, stage, &e),
    }
    Ok(finish(out, env))
}

/// The messages `class.format_<method>` makes of a v0 session's entries,
/// with the method `format_auto` took; or the stage that raised ("msg":
/// building the Msgs, "format") and its error.
pub fn format(
    entries: &[Value],
    class: Class,
    method: Method,
    opts: ChatOptions,
    env: &MediaEnv,
) -> Result<(Option<&'static str>, Value), (&'static str, PyErr)> {
    let args = msg::build_args(entries, env).map_err(|e| ("msg", e))?;
    let result = match method {
        Method::Chat => formatters::chat(
            class,
            &args,
            opts.require_alternative,
            opts.require_user_last,
            env,
        )
        .map(|v| (None, v)),
        Method::MultiAgent => formatters::multi_agent(class, &args, env).map(|v| (None, v)),
        _ => formatters::auto(class, &args, env).map(|(branch, v)| (Some(branch), v)),
    };
    result.map_err(|e| ("format", e))
}

/// The warnings AgentScope logged, when there were some.
fn finish(mut out: Map<String, Value>, env: &MediaEnv) -> Value {
    let warnings = env.take_warnings();
    if !warnings.is_empty() {
        out.insert("warnings".into(), json!(warnings));
    }
    Value::Object(out)
}

/// `is_supported_model` for each name, in the oracle's shape.
pub fn supported(class: Class, models: &[String]) -> Value {
    let mut out = Map::new();
    out.insert("formatter".into(), Value::from(class.name()));
    out.insert("method".into(), Value::from("is_supported_model"));
    out.insert("options".into(), json!({}));
    match class.model_regexes() {
        Some(r) => {
            out.insert("supported_model_regexes".into(), json!(r));
        }
        None => {
            out.insert(
                "supported_model_regexes_error".into(),
                json!({
                    "error": format!("type object '{}' has no attribute 'supported_model_regexes'", class.name()),
                    "error_type": "AttributeError",
                    "stage": "attribute",
                }),
            );
        }
    }
    let results: Vec<Value> = models
        .iter()
        .map(|m| match class.is_supported_model(m) {
            Ok(b) => json!({"model": m, "supported": b}),
            Err(e) => json!({"model": m, "error": e.message, "error_type": e.kind, "stage": "is_supported"}),
        })
        .collect();
    out.insert("supported".into(), Value::Array(results));
    Value::Object(out)
}

/// The session's `tools` as 0.1.6 takes them (§1.1): a dict as is, a list
/// keyed by function name (or position), nothing as `{}`.
pub fn tools_dict(tools: Option<&Value>) -> Value {
    match tools {
        None | Some(Value::Null) => json!({}),
        Some(Value::Array(list)) => {
            let mut out = Map::new();
            for (i, schema) in list.iter().enumerate() {
                let key = schema
                    .get("function")
                    .filter(|f| f.is_object())
                    .and_then(|f| f.get("name"))
                    .and_then(Value::as_str)
                    .map_or_else(|| i.to_string(), str::to_string);
                // A repeated key keeps its first position, the last value.
                out.insert(key, schema.clone());
            }
            Value::Object(out)
        }
        Some(other) => other.clone(),
    }
}

/// Python's `key in value` for the membership tests of §8.
fn contains(container: &Value, key: &str) -> bool {
    match container {
        Value::Object(m) => m.contains_key(key),
        Value::String(s) => s.contains(key),
        Value::Array(a) => a.iter().any(|x| x.as_str() == Some(key)),
        _ => false,
    }
}

/// `format_tools_json_schemas(schemas)` (§8).
pub fn tools(class: Class, schemas: &Value) -> Result<Value, PyErr> {
    let type_of = |v: &Value| format!("<class '{}'>", crate::py::type_name(v));
    match class {
        Class::OpenAi | Class::DashScope => {
            let Value::Object(map) = schemas else {
                return Err(PyErr::assertion(format!(
                    "Expect dict of schemas, got {}.",
                    type_of(schemas)
                )));
            };
            for v in map.values() {
                let Value::Object(schema) = v else {
                    return Err(PyErr::assertion(format!(
                        "Expect dict schema, got {}.",
                        type_of(v)
                    )));
                };
                if !(schema.contains_key("type") && schema.contains_key("function")) {
                    return Err(PyErr::assertion(format!(
                        "Invalid schema: {}, expect keys 'type' and 'function'.",
                        py_repr(v)
                    )));
                }
                if schema.get("type") != Some(&Value::from("function")) {
                    return Err(PyErr::assertion(format!(
                        "Invalid schema type: {}, expect 'function'.",
                        crate::py::py_str(&schema["type"])
                    )));
                }
                if !contains(&schema["function"], "name") {
                    return Err(PyErr::assertion(format!(
                        "Invalid schema: {}, expect key 'name' in 'function' field.",
                        py_repr(v)
                    )));
                }
            }
            Ok(Value::Array(map.values().cloned().collect()))
        }
        Class::Anthropic => {
            let Value::Object(map) = schemas else {
                return Err(PyErr::assertion(format!(
                    "Expect a dict of schemas, got {}.",
                    type_of(schemas)
                )));
            };
            let mut out = Vec::new();
            for v in map.values() {
                if !contains(v, "function") {
                    return Err(PyErr::assertion(format!(
                        "Invalid schema: {}, expect key 'function'.",
                        crate::py::py_str(v)
                    )));
                }
                let index_error = |x: &Value| {
                    PyErr::type_error(match x {
                        Value::String(_) => {
                            "string indices must be integers, not 'str'".to_string()
                        }
                        Value::Array(_) => {
                            "list indices must be integers or slices, not str".to_string()
                        }
                        other => format!(
                            "'{}' object is not subscriptable",
                            crate::py::type_name(other)
                        ),
                    })
                };
                if !v.is_object() {
                    return Err(index_error(v));
                }
                let f = &v["function"];
                if !contains(f, "name") {
                    return Err(PyErr::assertion(format!(
                        "Invalid schema: {}, expect key 'name' in 'function' field.",
                        py_repr(v)
                    )));
                }
                // Indexing anything but a dict fails as Python's `[]` does.
                if !f.is_object() {
                    return Err(index_error(f));
                }
                out.push(json!({
                    "name": f.get("name").cloned().unwrap_or(Value::Null),
                    "description": f.get("description").cloned().unwrap_or_else(|| Value::from("")),
                    "input_schema": f.get("parameters").cloned().unwrap_or_else(|| json!({})),
                }));
            }
            Ok(Value::Array(out))
        }
        Class::Gemini | Class::Common => Err(PyErr::new(
            "NotImplementedError",
            format!(
                "The method `format_tools_json_schemas` is not implemented yet in {}.",
                class.name()
            ),
        )),
    }
}
