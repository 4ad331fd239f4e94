//! AgentScope 2.0.11's formatters, byte for byte: a session (ours, converted
//! by the documented v1 → 2.x rules, or 2.x's own dumped messages) through
//! any of its 22 formatter classes, with the model classes' tool schemas and
//! token estimate, printed as the reference oracle prints it. Pure: media
//! come through a [`MediaEnv`] (local files and a web fetcher), nothing else
//! is touched.

pub mod anthropic;
pub mod base;
pub mod count;
pub mod deepseek;
pub mod explain;
pub mod gemini;
pub mod msgs;
pub mod multi_agent;
pub mod ollama;
pub mod openai;
pub mod providers;
pub mod reply;
pub mod responses;
pub mod schema;
pub mod tools;
pub mod validate;
pub mod wire;
pub mod xai;

use crate::json;
use crate::media::{MediaEnv, WebRoot};
use crate::py::PyErr;
use base::Ctx;
use msgs::Msg;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The 22 formatter classes of AgentScope 2.0.11.
pub const FORMATTERS: [&str; 22] = [
    "OpenAIChatFormatter",
    "OpenAIMultiAgentFormatter",
    "AnthropicChatFormatter",
    "AnthropicMultiAgentFormatter",
    "DashScopeChatFormatter",
    "DashScopeMultiAgentFormatter",
    "GeminiChatFormatter",
    "GeminiMultiAgentFormatter",
    "OllamaChatFormatter",
    "OllamaMultiAgentFormatter",
    "DeepSeekChatFormatter",
    "DeepSeekMultiAgentFormatter",
    "OpenAIResponseFormatter",
    "OpenAIResponseMultiAgentFormatter",
    "MiniMaxChatFormatter",
    "MiniMaxMultiAgentFormatter",
    "MoonshotChatFormatter",
    "MoonshotMultiAgentFormatter",
    "XAIChatFormatter",
    "XAIMultiAgentFormatter",
    "VolcengineChatFormatter",
    "VolcengineMultiAgentFormatter",
];

/// A provider family: one chat and one multi-agent class, one model class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    OpenAi,
    Anthropic,
    DashScope,
    Gemini,
    Ollama,
    DeepSeek,
    Responses,
    MiniMax,
    Moonshot,
    Xai,
    Volcengine,
}

impl Family {
    /// The class-name prefix (longest first: `OpenAIResponse` before `OpenAI`).
    const PREFIXES: [(&'static str, Family); 11] = [
        ("OpenAIResponse", Family::Responses),
        ("OpenAI", Family::OpenAi),
        ("Anthropic", Family::Anthropic),
        ("DashScope", Family::DashScope),
        ("Gemini", Family::Gemini),
        ("Ollama", Family::Ollama),
        ("DeepSeek", Family::DeepSeek),
        ("MiniMax", Family::MiniMax),
        ("Moonshot", Family::Moonshot),
        ("XAI", Family::Xai),
        ("Volcengine", Family::Volcengine),
    ];

    /// The default `input_types` of its formatters.
    pub fn default_input_types(self) -> &'static [&'static str] {
        match self {
            Family::OpenAi => &["text/plain", "image/*", "audio/*", "application/pdf"],
            Family::Anthropic => &["text/plain", "image/*", "application/pdf"],
            Family::MiniMax => &["text/plain", "image/*", "video/*"],
            Family::DashScope | Family::Moonshot => {
                &["text/plain", "image/*", "audio/*", "video/*"]
            }
            Family::Gemini => &[
                "text/plain",
                "image/*",
                "audio/*",
                "video/*",
                "application/pdf",
            ],
            Family::Ollama => &["text/plain", "image/*"],
            Family::DeepSeek => &["text/plain"],
            Family::Responses => &["text/plain", "image/*", "application/pdf"],
            Family::Xai => &["text/plain", "image/jpeg", "image/png"],
            Family::Volcengine => &["text/plain", "image/*", "video/*"],
        }
    }
}

/// A formatter class: its family and whether it is the multi-agent one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Class {
    pub family: Family,
    pub multi_agent: bool,
}

impl Class {
    pub fn from_name(name: &str) -> Option<Class> {
        if !FORMATTERS.contains(&name) {
            return None;
        }
        let family = Family::PREFIXES
            .iter()
            .find(|(p, _)| name.starts_with(p))
            .map(|(_, f)| *f)?;
        Some(Class {
            family,
            multi_agent: name.ends_with("MultiAgentFormatter"),
        })
    }
}

/// The oracle's options (`oracle_v2.py`'s flags).
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--formatter`; `None`: from the session's `provider` and `mode`.
    pub formatter: Option<String>,
    pub count: bool,
    pub tools: bool,
    pub tool_choice: Option<String>,
    pub tool_choice_tools: Option<Vec<String>>,
    pub input_types: Option<Vec<String>>,
    pub conversation_history_prompt: Option<String>,
    pub msgs_only: bool,
    pub dump_msgs: bool,
    /// `--web-root` (default: `SESSION_DIR/../media/web`).
    pub web_roots: Vec<PathBuf>,
    pub raw: bool,
}

/// A usage error (the oracle exits with a message before running).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Error(pub String);

/// The session's messages (our session object, a bare array, or an
/// AgentScope memory state) and its tools.
pub fn session_parts(session: &Value) -> Result<(Vec<Value>, Option<Value>), Error> {
    if let Value::Array(items) = session {
        return Ok((items.clone(), None));
    }
    if let Some(Value::Array(items)) = session.get("messages") {
        return Ok((items.clone(), session.get("tools").cloned()));
    }
    if let Some(Value::Object(_)) = session.get("messages") {
        return Err(Error("the session's 'messages' is not an array".into()));
    }
    if let Some(found) = memory_state(session, 0) {
        let msgs = found
            .iter()
            .map(|item| match item {
                Value::Array(pair) => pair.first().cloned().unwrap_or(Value::Null),
                other => other.clone(),
            })
            .collect();
        return Ok((msgs, None));
    }
    Err(Error("no 'messages' array found".into()))
}

fn memory_state(v: &Value, depth: usize) -> Option<&Vec<Value>> {
    let obj = v.as_object()?;
    if depth > 2 {
        return None;
    }
    if let Some(Value::Array(c)) = obj.get("content") {
        return Some(c);
    }
    obj.values().find_map(|x| memory_state(x, depth + 1))
}

/// The class the session names (`provider`, `mode`), as the oracle picks it.
pub fn formatter_for_session(session: &Value) -> Result<String, Error> {
    let provider = match session.get("provider") {
        None => "openai".to_string(),
        Some(Value::String(s)) => s.to_lowercase(),
        Some(v) => crate::py::py_str(v).to_lowercase(),
    };
    let prefix = match provider.as_str() {
        "openai" => "OpenAI",
        "openai_response" | "openai-response" => "OpenAIResponse",
        "anthropic" => "Anthropic",
        "dashscope" => "DashScope",
        "gemini" => "Gemini",
        "ollama" => "Ollama",
        "deepseek" => "DeepSeek",
        "minimax" => "MiniMax",
        "moonshot" => "Moonshot",
        "xai" => "XAI",
        "volcengine" => "Volcengine",
        _ => {
            return Err(Error(format!(
                "unknown provider {}",
                crate::py::py_repr(session.get("provider").unwrap_or(&Value::Null))
            )))
        }
    };
    let multi = session.get("mode").and_then(Value::as_str) == Some("multi_agent");
    Ok(match (prefix, multi) {
        ("OpenAIResponse", false) => "OpenAIResponseFormatter".into(),
        (p, true) => format!("{p}MultiAgentFormatter"),
        (p, false) => format!("{p}ChatFormatter"),
    })
}

/// Runs one formatter on one session as the oracle does, media read relative
/// to `base_dir` (the session file's folder) and the web served from
/// `opts.web_roots`.
pub fn run(session: &Value, base_dir: &Path, opts: &Options) -> Result<Value, Error> {
    let roots = if opts.web_roots.is_empty() {
        vec![base_dir.join("..").join("media").join("web")]
    } else {
        opts.web_roots.clone()
    };
    let env = MediaEnv::new(base_dir, Arc::new(WebRoot::new(roots)));
    run_with(session, &env, opts)
}

fn err_obj(stage: &str, e: &PyErr) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("error".into(), e.message.clone().into());
    m.insert("error_type".into(), e.kind.into());
    m.insert("stage".into(), stage.into());
    m
}

/// [`run`] with a media world of the caller's (a gate, another fetcher).
pub fn run_with(session: &Value, env: &MediaEnv, opts: &Options) -> Result<Value, Error> {
    let mut session = session.clone();
    crate::py::normalize_numbers(&mut session);
    let (messages, tools) = session_parts(&session)?;
    let name = if opts.msgs_only {
        None
    } else {
        Some(match &opts.formatter {
            Some(f) => f.clone(),
            None => formatter_for_session(&session)?,
        })
    };
    let class = match &name {
        Some(n) => Some(Class::from_name(n).ok_or_else(|| {
            Error(format!(
                "unknown formatter {n}; one of {}",
                FORMATTERS.join(", ")
            ))
        })?),
        None => None,
    };
    if opts.conversation_history_prompt.is_some() && !class.is_some_and(|c| c.multi_agent) {
        if let Some(n) = &name {
            return Err(Error(format!(
                "{n} has no option conversation_history_prompt"
            )));
        }
    }
    let choice = match (&opts.tool_choice, &opts.tool_choice_tools) {
        (Some(_), _) if !opts.tools => return Err(Error("--tool-choice needs --tools".into())),
        (None, Some(_)) => return Err(Error("--tool-choice-tools needs --tool-choice".into())),
        (Some(mode), names) => Some(tools::ToolChoice {
            mode: mode.clone(),
            tools: names.clone(),
        }),
        (None, None) => None,
    };
    let mut out = Map::new();
    if let Some(n) = &name {
        out.insert("formatter".into(), n.clone().into());
    }
    let mut options = Map::new();
    if !opts.msgs_only {
        if let Some(t) = &opts.input_types {
            options.insert("input_types".into(), json!(t));
        }
        if let Some(p) = &opts.conversation_history_prompt {
            options.insert("conversation_history_prompt".into(), json!(p));
        }
    }
    if !options.is_empty() {
        out.insert("options".into(), Value::Object(options));
    }
    // `os.path.abspath` of the session's folder, as the oracle takes it.
    let base_dir = PathBuf::from(msgs::normpath(
        &std::path::absolute(env.base_dir())
            .unwrap_or_else(|_| env.base_dir().to_path_buf())
            .display()
            .to_string(),
    ));
    let mut warnings: Vec<String> = Vec::new();
    let job = Job {
        env,
        opts,
        messages: &messages,
        tools: &tools,
        class,
        choice: choice.as_ref(),
        base_dir: &base_dir,
    };
    stages(&job, &mut out, &mut warnings);
    warnings.extend(env.take_warnings());
    if !warnings.is_empty() {
        out.insert("warnings".into(), json!(warnings));
    }
    let out = portable(Value::Object(out), &base_dir);
    if opts.raw {
        return Ok(match out.get("messages") {
            Some(m) => m.clone(),
            None => {
                let mut e = Map::new();
                for (k, v) in out.as_object().into_iter().flatten() {
                    if k.starts_with("error") || k == "stage" {
                        e.insert(k.clone(), v.clone());
                    }
                }
                Value::Object(e)
            }
        });
    }
    Ok(out)
}

/// What one run works on.
struct Job<'a> {
    env: &'a MediaEnv,
    opts: &'a Options,
    messages: &'a [Value],
    tools: &'a Option<Value>,
    class: Option<Class>,
    choice: Option<&'a tools::ToolChoice>,
    base_dir: &'a Path,
}

/// The oracle's stages in order (msg, format, count, tools); a failing
/// msg or format stage ends the run with its error in `out`.
fn stages(job: &Job, out: &mut Map<String, Value>, warnings: &mut Vec<String>) {
    let (msgs, dumps) = match validate::build(job.messages, job.base_dir) {
        Ok(x) => x,
        Err(e) => {
            out.extend(err_obj("msg", &e));
            return;
        }
    };
    if job.opts.dump_msgs || job.opts.msgs_only {
        out.insert("msgs".into(), Value::Array(dumps));
    }
    let Some(class) = job.class else { return };
    let input_types: Vec<String> = match &job.opts.input_types {
        Some(t) => t.clone(),
        None => class
            .family
            .default_input_types()
            .iter()
            .map(|s| s.to_string())
            .collect(),
    };
    let ctx = Ctx {
        env: job.env,
        input_types,
    };
    let prompt = job
        .opts
        .conversation_history_prompt
        .clone()
        .unwrap_or_else(|| base::HISTORY_PROMPT.to_string());
    match format(&ctx, class, &msgs, &prompt) {
        Ok(list) => {
            out.insert("messages".into(), Value::Array(list));
        }
        Err(e) => {
            out.extend(err_obj("format", &e));
            return;
        }
    }
    warnings.extend(job.env.take_warnings());
    let tools_list: Vec<Value> = match job.tools {
        Some(Value::Array(t)) => t.clone(),
        _ => Vec::new(),
    };
    if job.opts.count {
        out.insert("tokens".into(), json!(count::count_tokens(&msgs, None)));
        if job.tools.as_ref().is_some_and(crate::py::truthy) {
            out.insert(
                "tokens_with_tools".into(),
                json!(count::count_tokens(&msgs, job.tools.as_ref())),
            );
        }
    }
    if job.opts.tools {
        if let Some(c) = job.choice {
            let mut input = Map::new();
            input.insert("mode".into(), c.mode.clone().into());
            if let Some(t) = &c.tools {
                input.insert(
                    "tools".into(),
                    json!(t.iter().filter(|s| !s.is_empty()).collect::<Vec<_>>()),
                );
            }
            out.insert("tool_choice_input".into(), Value::Object(input));
        }
        match tools::format_tools(class.family, &tools_list, job.choice) {
            Ok(f) => {
                out.insert("tools".into(), f.tools);
                if job.choice.is_some() {
                    out.insert("tool_choice".into(), f.choice);
                }
                warnings.extend(f.warnings);
                if !f.python_warnings.is_empty() {
                    out.insert("python_warnings".into(), json!(f.python_warnings));
                }
            }
            Err(e) => {
                out.insert("tools_error".into(), Value::Object(err_obj("tools", &e)));
            }
        }
    }
}

/// One formatter class on validated Msgs.
pub fn format(ctx: &Ctx, class: Class, msgs: &[Msg], prompt: &str) -> Result<Vec<Value>, PyErr> {
    providers::format(ctx, class, msgs, prompt)
}

/// Absolute paths under the session folder (and two parents) written as
/// `<SESSION_DIR>/...`, `<SESSION_DIR>/../...`, as the oracle writes them.
pub fn portable(v: Value, session_dir: &Path) -> Value {
    let mut text = serde_json::to_string(&v).unwrap_or_default();
    let mut dir = msgs::normpath(&session_dir.display().to_string());
    let mut label = String::from("<SESSION_DIR>");
    for _ in 0..3 {
        if dir == "/" || dir.is_empty() {
            break;
        }
        let quoted = serde_json::to_string(&format!("{dir}/")).unwrap_or_default();
        let quoted = &quoted[1..quoted.len().saturating_sub(1)];
        text = text.replace(quoted, &format!("{label}/"));
        dir = match dir.rfind('/') {
            Some(0) | None => "/".into(),
            Some(i) => dir[..i].to_string(),
        };
        label.push_str("/..");
    }
    serde_json::from_str(&text).unwrap_or(v)
}
