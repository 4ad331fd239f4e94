//! `formatscope format SESSION --agentscope VERSION`: the release's own
//! oracle object when it has one (`Reference::format_oracle`, the only
//! path that reads the session as one tree), the default
//! release's command (`format.rs`), or, for a release with neither (0.1.6
//! today), the session through `Reference::format` for the provider and
//! mode asked, printed as one JSON object.

use super::format::FormatArgs;
use super::{
    failure_if, media_env, print_json, report_access, report_session, usage_error, web_fetcher,
    Exit,
};
use formatscope::reference::Reference;
use formatscope::session::read_session;
use serde_json::{json, Map, Value};

/// `format` under the release `--agentscope` names: the release's own
/// oracle object when it has one, else the default release's command (or
/// the generic one for a release without either).
pub(crate) fn dispatch(args: FormatArgs) -> Exit {
    let release = args
        .agentscope
        .unwrap_or(super::release::Release(formatscope::reference::default()));
    let Some(oracle) = release.0.format_oracle() else {
        return if release.is_default() {
            super::format::run(args)
        } else {
            run(args, release.0)
        };
    };
    let session = match super::read_session_value(&args.session) {
        Ok(v) => v,
        Err(code) => return Ok(code),
    };
    let class = match super::release::class(
        release.0,
        args.formatter.as_deref(),
        args.provider.as_deref(),
        args.mode.map(super::release::ModeArg::id),
        super::release::Own::of(&session),
    ) {
        Ok(c) => c,
        Err(e) => return usage_error(e),
    };
    let budget_flags = [
        ("--max-tokens", args.max_tokens.is_some()),
        ("--token-counter", args.token_counter.is_some()),
        ("--session-budget", args.session_budget),
        (
            "--promote-tool-result-audios",
            args.promote_tool_result_audios,
        ),
        (
            "--promote-tool-result-videos",
            args.promote_tool_result_videos,
        ),
    ]
    .iter()
    .filter(|(_, on)| *on)
    .map(|(f, _)| *f)
    .collect();
    let flags = formatscope::reference::FormatFlags {
        class,
        count: args.count,
        tools: args.tools,
        tool_choice: args.tool_choice.clone(),
        tool_choice_tools: super::request::names(&args.tool_choice_tools),
        input_types: super::request::names(&args.input_types),
        history_prompt: args.conversation_history_prompt.clone(),
        msgs_only: args.msgs_only,
        dump_msgs: args.dump_msgs,
        raw: args.raw,
        endpoint: args.endpoint.clone(),
        model: args.model.clone(),
        promote_images: args.promote_tool_result_images,
        web_roots: args.web_root.clone(),
        budget_flags,
    };
    let path = std::path::absolute(&args.session).unwrap_or_else(|_| args.session.clone());
    let base_dir = path
        .parent()
        .map(|p| p.to_path_buf())
        .unwrap_or_else(|| std::path::PathBuf::from("/"));
    let env = formatscope::media::MediaEnv::new(
        &base_dir,
        super::web_fetcher(&args.web_root, args.offline),
    );
    match oracle(&session, &env, &flags) {
        Ok(out) => super::print_oracle_object(&out),
        Err(e) => usage_error(e),
    }
}

pub(crate) fn run(args: FormatArgs, release: &'static dyn Reference) -> Exit {
    let session = match read_session(&args.session) {
        Ok(s) => s,
        Err(e) => return usage_error(e),
    };
    let own = super::release::Own::of_session(&session);
    let (family, mode) = match super::release::family_and_mode(
        release,
        args.formatter.as_deref(),
        args.provider.as_deref(),
        args.mode.map(super::release::ModeArg::id),
        own,
    ) {
        Ok(pick) => pick,
        Err(e) => return usage_error(e),
    };
    report_session(&session);
    let env = media_env(&session, web_fetcher(&args.web_root, args.offline));
    let out = release.format(&session, family, mode, &env);
    report_access(env.gate());
    let mut object = Map::new();
    object.insert("agentscope".into(), json!(release.version()));
    object.insert("formatter".into(), json!(out.call));
    if let Some(b) = out.branch {
        object.insert("auto_branch".into(), json!(b));
    }
    if !out.lost.is_empty() {
        object.insert("lost".into(), json!(out.lost));
    }
    let failed = out.messages.is_err();
    match out.messages {
        Ok(m) => {
            object.insert("messages".into(), Value::Array(m));
        }
        Err(e) => {
            object.insert("error".into(), json!(e.message));
            object.insert("error_type".into(), json!(e.kind));
        }
    }
    print_json(&Value::Object(object));
    failure_if(failed)
}
