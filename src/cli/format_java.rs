//! `formatscope format --agentscope java-2.0.2`: a session through one of
//! AgentScope Java 2.0.2's formatter classes, printed in the Java vectors'
//! shape (messages, the whole request body and its exact bytes). A thin
//! layer over `formatscope::reference::java`.

use super::format::FormatArgs;
use super::{usage_error, web_fetcher};
use formatscope::media::MediaEnv;
use formatscope::reference::java;

pub(crate) fn run(args: FormatArgs) -> i32 {
    let unsupported = [
        ("--provider", args.provider.is_some()),
        ("--mode", args.mode.is_some()),
        ("--max-tokens", args.max_tokens.is_some()),
        ("--token-counter", args.token_counter.is_some()),
        ("--session-budget", args.session_budget),
        ("--count", args.count),
        ("--tools", args.tools),
        (
            "--promote-tool-result-audios",
            args.promote_tool_result_audios,
        ),
        (
            "--promote-tool-result-videos",
            args.promote_tool_result_videos,
        ),
        ("--tool-choice", args.tool_choice.is_some()),
        ("--tool-choice-tools", args.tool_choice_tools.is_some()),
        ("--input-types", args.input_types.is_some()),
        ("--msgs-only", args.msgs_only),
        ("--dump-msgs", args.dump_msgs),
    ];
    if let Some((flag, _)) = unsupported.iter().find(|(_, on)| *on) {
        return usage_error(format!(
            "{flag} is not an AgentScope Java 2.0.2 option (Java's formatters neither count tokens nor truncate; the request always carries the session's tools)"
        ));
    }
    let session = match super::read_session_value(&args.session) {
        Ok(v) => v,
        Err(code) => return code,
    };
    let path = std::path::absolute(&args.session).unwrap_or_else(|_| args.session.clone());
    let base_dir = path
        .parent()
        .map(|p| p.to_path_buf())
        .unwrap_or_else(|| std::path::PathBuf::from("/"));
    let opts = java::Options {
        formatter: args.formatter.clone(),
        endpoint: args.endpoint.clone(),
        model: args.model.clone(),
        conversation_history_prompt: args.conversation_history_prompt.clone(),
        promote_tool_result_images: args.promote_tool_result_images,
        raw: args.raw,
    };
    let env = MediaEnv::new(&base_dir, web_fetcher(&args.web_root, args.offline));
    let out = match java::run(&session, &env, &opts) {
        Ok(v) => v,
        Err(e) => return usage_error(e),
    };
    super::print_oracle_object(&out)
}
