//! `formatscope legacy SESSION`: AgentScope 0.1.6's formatter API
//! (`OpenAIFormatter.format_chat`, `CommonFormatter`, `format_auto`, ...),
//! printing one JSON object in the shape of `oracle_v0.py`. Exit codes as
//! `format`: 0, 1 when AgentScope raises, 2 for bad usage or an unreadable
//! file.

use super::{failure_if, print_json, say, usage_error, Exit};
use clap::Args;
use formatscope::legacy::{self, ChatOptions, Class, Method};
use formatscope::media::{MediaEnv, NoNetwork};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Args)]
pub(crate) struct LegacyArgs {
    /// A v0 session file (an object with "messages", "tools", "models", or
    /// a bare array of MSGs such as a 0.1.6 memory export).
    session: Option<PathBuf>,

    /// OpenAIFormatter, AnthropicFormatter, DashScopeFormatter,
    /// GeminiFormatter or CommonFormatter.
    #[arg(long, value_name = "CLASS")]
    formatter: Option<String>,

    /// Pick the class the way 0.1.6 users do: the first whose
    /// is_supported_model(NAME) is true (OpenAI, Anthropic, DashScope,
    /// Gemini); stderr says which, or that none did (then CommonFormatter,
    /// the backend for other chat models). The JSON gets "model" and
    /// "matched".
    #[arg(long, value_name = "NAME", conflicts_with = "formatter")]
    model: Option<String>,

    /// chat | multi_agent | auto | tools.
    #[arg(long, value_name = "METHOD")]
    method: Option<String>,

    /// CommonFormatter.format_chat(require_alternative=True).
    #[arg(long)]
    require_alternative: bool,

    /// CommonFormatter.format_chat(require_user_last=True).
    #[arg(long)]
    require_user_last: bool,

    /// Run is_supported_model on these names (none given: the session's
    /// "models").
    #[arg(long, value_name = "MODEL", num_args = 0..)]
    is_supported: Option<Vec<String>>,

    /// Accepted for the oracle's command lines: 0.1.6's formatters never
    /// download anything, web URLs pass as text.
    #[arg(long, value_name = "DIR")]
    web_root: Vec<PathBuf>,

    /// Print only the result list (or the error object).
    #[arg(long)]
    raw: bool,
}

pub(crate) fn run(args: LegacyArgs) -> Exit {
    let mut matched: Option<Option<Class>> = None;
    let class = match (&args.formatter, &args.model) {
        (Some(name), _) => match Class::from_name(name) {
            Some(c) => c,
            None => {
                return usage_error(format!(
                    "unknown formatter {name:?}: one of {}",
                    Class::ALL.map(Class::name).join(", ")
                ))
            }
        },
        (None, Some(model)) => {
            let found = Class::for_model(model);
            matched = Some(found);
            match found {
                Some(c) => say(format!(
                    "{model}: {} (is_supported_model matched)",
                    c.name()
                )),
                None => say(format!(
                    "{model}: no class's is_supported_model matched; using CommonFormatter"
                )),
            }
            found.unwrap_or(Class::Common)
        }
        (None, None) => return usage_error("--formatter CLASS or --model NAME is required"),
    };
    let session = match &args.session {
        None => None,
        Some(path) => match read(path) {
            Ok(v) => Some((legacy::session_object(&v), path.clone())),
            Err(e) => return usage_error(e),
        },
    };
    let mut out = if let Some(models) = &args.is_supported {
        if args.method.is_some() {
            return usage_error("--is-supported and --method are exclusive");
        }
        let models: Vec<String> = if models.is_empty() {
            match session.as_ref().and_then(|(s, _)| s.get("models")) {
                Some(Value::Array(m)) => m.iter().map(formatscope::py::py_str).collect(),
                _ => {
                    return usage_error(
                        "--is-supported needs model names or a session with 'models'",
                    )
                }
            }
        } else {
            models.clone()
        };
        legacy::supported(class, &models)
    } else {
        let Some(method) = args.method.as_deref() else {
            return usage_error("one of --method or --is-supported is required");
        };
        let Some(method) = Method::from_name(method) else {
            return usage_error(format!(
                "unknown method {method:?}: chat, multi_agent, auto or tools"
            ));
        };
        let Some((session, path)) = &session else {
            return usage_error("a session file is required");
        };
        let options = if args.require_alternative || args.require_user_last {
            if !(class == Class::Common && method == Method::Chat) {
                return usage_error(
                    "--require-alternative/--require-user-last: CommonFormatter --method chat only",
                );
            }
            Some(ChatOptions {
                require_alternative: args.require_alternative,
                require_user_last: args.require_user_last,
            })
        } else if class == Class::Common && method == Method::Chat {
            Some(ChatOptions::default())
        } else {
            None
        };
        let base = path
            .parent()
            .map(|p| {
                if p.as_os_str().is_empty() {
                    std::path::Path::new(".")
                } else {
                    p
                }
            })
            .unwrap_or(std::path::Path::new("."))
            .to_path_buf();
        let env = MediaEnv::new(base, Arc::new(NoNetwork));
        match legacy::run(session, class, method, options, &env) {
            Ok(v) => v,
            Err(e) => return usage_error(e),
        }
    };
    if let (Some(found), Some(model), Value::Object(m)) = (matched, &args.model, &mut out) {
        m.insert("model".into(), Value::from(model.clone()));
        m.insert("matched".into(), Value::from(found.map(Class::name)));
    }
    let failed = out.get("error").is_some();
    if args.raw {
        let shown = ["messages", "tools", "supported"]
            .iter()
            .find_map(|k| out.get(*k).cloned())
            .unwrap_or_else(|| {
                let mut e = serde_json::Map::new();
                for k in ["error", "error_type", "stage"] {
                    if let Some(v) = out.get(k) {
                        e.insert(k.into(), v.clone());
                    }
                }
                Value::Object(e)
            });
        print_json(&shown);
    } else {
        print_json(&out);
    }
    failure_if(failed)
}

/// The file as Python's `json` reads it (ints and floats apart, NaN).
fn read(path: &std::path::Path) -> Result<Value, String> {
    let bytes = formatscope::session::read_session_bytes(path).map_err(|e| e.to_string())?;
    let mut parsed = formatscope::json::parse(&bytes, Default::default())
        .map_err(|e| format!("{}:{e}", path.display()))?;
    // Numbers as Python holds them: `0.10`, `1E5` and `-0` print as
    // `0.1`, `100000.0` and `0` wherever AgentScope writes them back.
    formatscope::py::normalize_numbers(&mut parsed.value);
    Ok(parsed.value)
}
