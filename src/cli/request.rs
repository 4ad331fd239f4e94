//! `formatscope request`: the full request a provider would receive (the
//! formatter's output wrapped by AgentScope's model class and serialised as
//! its SDK would), in `request_oracle.py`'s shape.

use super::format::choose_formatter;
use super::{
    failure, failure_if, media_env, rejected_message_line, report_access, report_session, say,
    success, usage, usage_error, web_fetcher, Exit,
};
use clap::Args;
use formatscope::formatter::FormatOptions;
use formatscope::model_choice::{choose_model, request_settings};
use formatscope::pipeline::{self, ReferenceRequest};
use formatscope::reference::{Family, Mode, Reference, WireAsk};
use formatscope::session::read_session;
use formatscope::wire::{Settings, Wire};
use serde_json::{Map, Value};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub(crate) struct WireArgs {
    /// Session file (as for `format`). Its "request" object (model, stream,
    /// tool_choice, model_kwargs, call_kwargs) sets the defaults the flags
    /// below override.
    pub(crate) session: PathBuf,

    /// Formatter class, e.g. AnthropicChatFormatter. Default: the session's
    /// provider and mode.
    #[arg(long, value_name = "CLASS", conflicts_with_all = ["provider", "mode"])]
    pub(crate) formatter: Option<String>,

    /// Provider (each release has its own; the values are every release's).
    #[arg(long, value_name = "P", ignore_case = true, value_parser = super::release::provider_parser())]
    pub(crate) provider: Option<String>,

    /// Mode: chat or multi-agent.
    #[arg(long, value_name = "M")]
    pub(crate) mode: Option<super::release::ModeArg>,

    /// Model name. Default: the provider's (gpt-4o, deepseek-chat,
    /// claude-sonnet-4-6, qwen-max, gemini-2.5-flash, qwen2.5).
    #[arg(long, value_name = "NAME")]
    pub(crate) model: Option<String>,

    /// auto, none, required, or the name of one of the session's tools.
    #[arg(long, value_name = "CHOICE")]
    pub(crate) tool_choice: Option<String>,

    /// Build the model with stream=True.
    #[arg(long, conflicts_with = "no_stream")]
    pub(crate) stream: bool,

    /// Build the model with stream=False.
    #[arg(long)]
    pub(crate) no_stream: bool,

    /// JSON object of model constructor arguments, e.g.
    /// '{"thinking": {"type": "enabled", "budget_tokens": 1024}}' or
    /// '{"generate_kwargs": {"temperature": 0.2}}'.
    #[arg(long, value_name = "JSON")]
    pub(crate) model_kwargs: Option<String>,

    /// JSON object of keyword arguments to the model call.
    #[arg(long, value_name = "JSON")]
    pub(crate) call_kwargs: Option<String>,

    /// Formatter truncation budget (AgentScope's OpenAITokenCounter, gpt-4o).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub(crate) max_tokens: Option<i64>,

    /// Promote images in tool results to a user message.
    #[arg(long)]
    pub(crate) promote_tool_result_images: bool,

    /// Promote audio in tool results to a user message.
    #[arg(long)]
    pub(crate) promote_tool_result_audios: bool,

    /// Promote videos in tool results to a user message.
    #[arg(long)]
    pub(crate) promote_tool_result_videos: bool,

    /// Multi-agent formatters: the prompt before the first <history> block.
    #[arg(long, value_name = "TEXT")]
    pub(crate) conversation_history_prompt: Option<String>,

    /// Serve https://HOST/PATH from DIR/HOST/PATH instead of the network.
    #[arg(long, value_name = "DIR")]
    pub(crate) web_root: Vec<PathBuf>,

    /// Never use the network: remote media fail to download.
    #[arg(long)]
    pub(crate) offline: bool,

    /// Write absolute paths under the session's folder as <SESSION_DIR>/...
    #[arg(long)]
    pub(crate) portable_paths: bool,

    /// A profile of your profiles.toml (~/.config/formatscope): its base
    /// URL (the key may go there), key variable, default model and headers.
    #[arg(long, value_name = "NAME")]
    pub(crate) profile: Option<String>,

    /// The AgentScope release whose model class builds the request (see
    /// `formatscope format --help` for the list). Default: the default
    /// release.
    #[arg(long, value_name = "VERSION", value_parser = super::release::parse)]
    pub(crate) agentscope: Option<super::release::Release>,

    /// 2.x: ToolChoice.tools (comma-separated names), with --tool-choice
    /// as its mode.
    #[arg(long, value_name = "A,B")]
    pub(crate) tool_choice_tools: Option<String>,

    /// 2.x: the formatter's input_types (comma-separated; replaces its
    /// default).
    #[arg(long, value_name = "T,T")]
    pub(crate) input_types: Option<String>,

    /// Java, DashScope: force the endpoint (text or multimodal) instead of
    /// routing by model name.
    #[arg(long, value_name = "E")]
    pub(crate) endpoint: Option<String>,
}

impl WireArgs {
    /// The request `count` describes: its session, provider, mode and
    /// model, the session's own settings for the rest.
    pub(crate) fn for_count(
        target: &super::target::TargetArgs,
        provider: formatscope::formatter::Provider,
    ) -> WireArgs {
        WireArgs {
            session: target.session.clone(),
            formatter: None,
            provider: Some(provider.id().to_string()),
            mode: target.mode,
            model: target.model.clone(),
            tool_choice: None,
            stream: false,
            no_stream: true,
            model_kwargs: None,
            call_kwargs: None,
            max_tokens: None,
            promote_tool_result_images: false,
            promote_tool_result_audios: false,
            promote_tool_result_videos: false,
            conversation_history_prompt: None,
            web_root: Vec::new(),
            offline: target.offline,
            portable_paths: false,
            profile: None,
            agentscope: None,
            tool_choice_tools: None,
            input_types: None,
            endpoint: None,
        }
    }
}

#[derive(Args)]
pub(crate) struct RequestArgs {
    #[command(flatten)]
    pub(crate) wire: WireArgs,

    /// Print the request as something to run or read instead: `curl` (a
    /// command that sends the same bytes; the key from the provider's usual
    /// environment variable, e.g. "$ANTHROPIC_API_KEY", or the --profile's
    /// key_env), `http` (the raw
    /// HTTP request), `json` (the body's exact bytes) or `python` (the same
    /// call made with the provider's SDK).
    #[arg(long = "as", value_name = "FORMAT", value_parser = ["curl", "http", "json", "python"])]
    export: Option<String>,
}

/// A JSON object from the command line.
pub(crate) fn object_arg(flag: &str, text: &str) -> Result<Map<String, Value>, String> {
    match formatscope::json::parse(text.as_bytes(), Default::default()) {
        Ok(parsed) => match parsed.value {
            Value::Object(m) => Ok(m),
            _ => Err(format!("{flag}: expected a JSON object")),
        },
        Err(e) => Err(format!("{flag}: {e}")),
    }
}

/// A built request: the session it came from, the typed request and its
/// oracle object (what the CLI prints).
pub(crate) struct Built {
    pub(crate) session: formatscope::session::Session,
    pub(crate) provider: formatscope::formatter::Provider,
    pub(crate) request: pipeline::BuiltRequest,
    pub(crate) out: Map<String, Value>,
    pub(crate) failed: bool,
    /// The profile `--profile` named: its key variable and headers go
    /// with the send.
    pub(crate) profile: Option<formatscope::net::profile::Profile>,
}

/// Builds the request the flags and the session describe; `adjust` may
/// change the model settings first (send: a base URL from the
/// environment). Errors are reported; the exit code comes back.
pub(crate) fn build(
    args: &WireArgs,
    adjust: impl FnOnce(formatscope::formatter::Provider, &mut Settings),
) -> Result<Built, ExitCode> {
    let session = match read_session(&args.session) {
        Ok(s) => s,
        Err(e) => return Err(usage(e)),
    };
    let formatter = match choose_formatter(
        args.formatter.as_deref(),
        args.provider.as_deref(),
        args.mode.map(super::release::ModeArg::id),
        &session,
    ) {
        Ok(f) => f,
        Err(e) => return Err(usage(e)),
    };
    let choice = choose_model(&session, formatter.provider, args.model.as_deref());
    let mut settings = match request_settings(&session, formatter.provider, args.model.as_deref()) {
        Ok(s) => s,
        Err(e) => return Err(usage(format!("{}: {e}", args.session.display()))),
    };
    let profile = match &args.profile {
        None => None,
        Some(name) => match formatscope::net::profile::load().and_then(|all| {
            all.get(name)
                .and_then(|p| p.for_provider(formatter.provider))
                .cloned()
        }) {
            Ok(p) => Some(p),
            Err(e) => return Err(usage(format!("--profile: {e}"))),
        },
    };
    let profile_model = profile.as_ref().is_some_and(|p| p.model.is_some());
    if choice.assumed() && !profile_model {
        say(format!(
            "note: no model given: assuming {}, {}'s default (--model names one)",
            choice.name, formatter.provider
        ));
    }
    if args.tool_choice.is_some() {
        settings.tool_choice = args.tool_choice.clone();
    }
    if args.stream || args.no_stream {
        settings.stream = Some(args.stream);
    }
    for (flag, given, slot) in [
        (
            "--model-kwargs",
            &args.model_kwargs,
            &mut settings.model_kwargs,
        ),
        (
            "--call-kwargs",
            &args.call_kwargs,
            &mut settings.call_kwargs,
        ),
    ] {
        if let Some(text) = given {
            match object_arg(flag, text) {
                Ok(m) => *slot = m,
                Err(e) => return Err(usage(e)),
            }
        }
    }
    let options = FormatOptions {
        promote_images: args.promote_tool_result_images,
        promote_audios: args.promote_tool_result_audios,
        promote_videos: args.promote_tool_result_videos,
        history_prompt: args.conversation_history_prompt.clone(),
    };
    if let Some(option) = options.unsupported_by(formatter).first() {
        return Err(usage(format!(
            "{formatter} has no option {}",
            option.python_name()
        )));
    }
    // The profile's base URL over the session's (a flag over both, in
    // `adjust`), and its model over an assumed one.
    if let Some(p) = &profile {
        if let Some(m) = p.apply(&mut settings, choice.assumed()) {
            say(format!("note: model {m} from profile {}", p.name));
        }
    }
    adjust(formatter.provider, &mut settings);
    let request = ReferenceRequest {
        formatter,
        options,
        max_tokens: args.max_tokens,
        count: false,
        tools: false,
        token_counter: None,
    };
    report_session(&session);
    let env = media_env(&session, web_fetcher(&args.web_root, args.offline));
    let request = pipeline::build_request(&session, &request, &settings, &env);
    let out = request.to_oracle();
    report_access(env.gate());
    let failed = request.error().is_some();
    match &request.outcome {
        Err(pipeline::BuildFailure::Formatting {
            stage,
            kind,
            message,
        }) if stage == "msg" => {
            if let Some(i) = pipeline::invalid_message(&session).map(|(i, _)| i) {
                say(rejected_message_line(
                    &args.session,
                    &session,
                    i,
                    kind,
                    message,
                ));
            }
        }
        Err(pipeline::BuildFailure::Formatting { kind, message, .. }) => say(format!(
            "error: {kind}: {}",
            message.lines().next().unwrap_or_default()
        )),
        Err(pipeline::BuildFailure::Model { error, .. }) => say(format!(
            "error: {}: {}",
            error.kind,
            error.message.lines().next().unwrap_or_default()
        )),
        Ok(wire) => {
            if let Some(e) = &wire.sdk_error {
                say(format!(
                    "error: the SDK would raise {}: {}",
                    e.kind, e.message
                ));
            }
        }
    }
    Ok(Built {
        session,
        provider: formatter.provider,
        request,
        out,
        failed,
        profile,
    })
}

pub(crate) fn run(args: RequestArgs) -> Exit {
    if let Some(release) = args.wire.agentscope.filter(|r| !r.is_default()) {
        return run_release(&args, release.0);
    }
    let built = match build(&args.wire, |_, _| {}) {
        Ok(b) => b,
        Err(code) => return Ok(code),
    };
    // The key variable of the host the request addresses: a profile's
    // (its base URL is the host), else the provider's.
    let key_variable = built
        .profile
        .as_ref()
        .and_then(formatscope::net::profile::Profile::key_variable);
    let Built {
        session,
        provider,
        request,
        out,
        failed,
        ..
    } = built;
    if let Some(format) = &args.export {
        // Nothing to export when the request was not built (said above).
        let Some(wire) = request.http() else {
            return failure();
        };
        let text = export(provider, format, wire, key_variable.as_deref());
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{text}");
        return success();
    }
    let text = formatscope::text::json_text(&Value::Object(out));
    let text = if args.wire.portable_paths {
        let dir = session.base_dir();
        pipeline::portable_paths(&text, &std::path::absolute(&dir).unwrap_or(dir))
    } else {
        text
    };
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}");
    failure_if(failed)
}

/// The built request as `curl`, `http`, `python` or its JSON body; the
/// key read from `key_variable` (a profile's), else the provider's.
fn export(
    provider: formatscope::formatter::Provider,
    format: &str,
    wire: &Wire,
    key_variable: Option<&str>,
) -> String {
    use formatscope::wire::export;
    let key = key_variable.or(export::key_variable(provider));
    let title = formatscope::reference::default().title();
    exported(format, wire, key, &title).unwrap_or_else(|e| e)
}

/// `--as FORMAT` of a built request: the body's exact bytes, the raw HTTP
/// request, a `curl` command or a Python snippet; the key read from
/// `key` when the script runs. `Err`: no such export for this request.
pub(crate) fn exported(
    format: &str,
    wire: &Wire,
    key: Option<&str>,
    release: &str,
) -> Result<String, String> {
    use formatscope::wire::export;
    let body = wire.body_bytes();
    if wire.grpc.is_some() && format != "json" {
        return Err(format!(
            "the request goes over gRPC ({}): only --as json (its message as proto3 JSON) is offered",
            wire.url
        ));
    }
    Ok(match format {
        "curl" => export::curl(key, wire.method, &wire.url, &wire.headers, &body),
        "http" => export::http_text(wire.method, &wire.url, &wire.headers, &body),
        "python" => export::python(wire, key, release).map_err(|e| e.to_string())?,
        _ => body,
    })
}

/// Comma-separated names (`--tool-choice-tools`, `--input-types`).
pub(crate) fn names(list: &Option<String>) -> Option<Vec<String>> {
    list.as_ref().map(|s| {
        s.split(',')
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect()
    })
}

/// `request --agentscope VERSION` for a release other than the default:
/// the session through the release's own model class
/// (`Reference::request`), printed in its oracle's shape or exported.
fn run_release(args: &RequestArgs, release: &'static dyn Reference) -> Exit {
    let wire_args = &args.wire;
    let asked = match ask_release(wire_args, release) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    let Asked {
        session,
        family,
        mode,
        settings,
    } = asked;
    let env = media_env(
        &session,
        web_fetcher(&wire_args.web_root, wire_args.offline),
    );
    report_session(&session);
    let ask = WireAsk {
        session: &session,
        family,
        mode,
        class: wire_args.formatter.as_deref(),
        settings: &settings,
        tool_choice_tools: names(&wire_args.tool_choice_tools),
        input_types: names(&wire_args.input_types),
        history_prompt: wire_args.conversation_history_prompt.clone(),
        endpoint: wire_args.endpoint.clone(),
        env: &env,
    };
    let requested = match release.request(&ask) {
        Ok(r) => r,
        Err(e) => return usage_error(e),
    };
    report_access(env.gate());
    if let Some(stopped) = &requested.stopped {
        say(format!(
            "error: {} (stage {}): {}",
            stopped.error.kind,
            stopped.stage,
            stopped.error.message.lines().next().unwrap_or_default()
        ));
    } else if let Some(e) = requested.wire.as_ref().and_then(|w| w.sdk_error.as_ref()) {
        say(format!(
            "error: the SDK would raise {}: {}",
            e.kind, e.message
        ));
    }
    let failed = requested.sendable().is_none();
    if let Some(format) = &args.export {
        let Some(wire) = requested.sendable() else {
            return failure();
        };
        return match exported(format, wire, requested.key_variable, &release.title()) {
            Ok(text) => {
                let mut stdout = std::io::stdout().lock();
                let _ = writeln!(stdout, "{text}");
                success()
            }
            Err(e) => usage_error(e),
        };
    }
    let text = formatscope::text::json_text(&Value::Object(requested.printed));
    let text = if wire_args.portable_paths {
        let dir = session.base_dir();
        pipeline::portable_paths(&text, &std::path::absolute(&dir).unwrap_or(dir))
    } else {
        text
    };
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}");
    failure_if(failed)
}

/// What a request under a release is asked for: the session read through
/// the guarded path, the family and mode the flags (or the session) pick,
/// the model settings (the session's `request` object, flags over it).
pub(crate) struct Asked {
    pub(crate) session: formatscope::session::Session,
    pub(crate) family: &'static Family,
    pub(crate) mode: Mode,
    pub(crate) settings: Settings,
}

pub(crate) fn ask_release(
    args: &WireArgs,
    release: &'static dyn Reference,
) -> Result<Asked, ExitCode> {
    let session = read_session(&args.session).map_err(usage)?;
    if args.max_tokens.is_some()
        || args.promote_tool_result_images
        || args.promote_tool_result_audios
        || args.promote_tool_result_videos
    {
        return Err(usage(format!(
            "--max-tokens and --promote-tool-result-* are AgentScope {}'s formatter options, not {}'s",
            formatscope::reference::default().version(),
            release.title()
        )));
    }
    if args.profile.is_some() {
        return Err(usage(format!(
            "--profile applies to the default release's requests; under {} give the credential's base URL in --model-kwargs",
            release.title()
        )));
    }
    let (family, mode) = super::release::family_and_mode(
        release,
        args.formatter.as_deref(),
        args.provider.as_deref(),
        args.mode.map(super::release::ModeArg::id),
        super::release::Own::of_session(&session),
    )
    .map_err(usage)?;
    let mut settings = Settings::from_session(session.settings.get("request"))
        .map_err(|e| usage(format!("{}: {e}", args.session.display())))?
        .or_session_model(session.model());
    if args.model.is_some() {
        settings.model = args.model.clone();
    }
    if args.tool_choice.is_some() {
        settings.tool_choice = args.tool_choice.clone();
    }
    if args.stream || args.no_stream {
        settings.stream = Some(args.stream);
    }
    for (flag, given, slot) in [
        (
            "--model-kwargs",
            &args.model_kwargs,
            &mut settings.model_kwargs,
        ),
        (
            "--call-kwargs",
            &args.call_kwargs,
            &mut settings.call_kwargs,
        ),
    ] {
        if let Some(text) = given {
            *slot = object_arg(flag, text).map_err(usage)?;
        }
    }
    Ok(Asked {
        session,
        family,
        mode,
        settings,
    })
}
