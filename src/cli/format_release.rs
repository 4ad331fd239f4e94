//! `formatscope format SESSION --agentscope VERSION` for a registered
//! release without a command of its own (0.1.6 today): the session through
//! `Reference::format` for the provider and mode asked, printed as one
//! JSON object. The releases with their oracle's full option set (1.0.21,
//! 2.0.11) keep their own commands.

use super::format::{choose_formatter, FormatArgs};
use super::{media_env, print_json, report_access, report_session, usage_error, web_fetcher};
use formatscope::reference::Reference;
use formatscope::session::read_session;
use serde_json::{json, Map, Value};

pub(crate) fn run(args: FormatArgs, release: &dyn Reference) -> i32 {
    let session = match read_session(&args.session) {
        Ok(s) => s,
        Err(e) => return usage_error(e),
    };
    let formatter = match choose_formatter(
        None,
        args.provider.as_deref(),
        args.mode.as_deref(),
        &session,
    ) {
        Ok(f) => f,
        Err(e) => return usage_error(e),
    };
    if args.formatter.is_some() {
        return usage_error(format!(
            "--formatter names a 1.0.21 class; under {} give --provider and --mode",
            release.title()
        ));
    }
    report_session(&session);
    let env = media_env(&session, web_fetcher(&args.web_root, args.offline));
    let family = formatscope::reference::Family::of(formatter.provider);
    let out = release.format(&session, &family, formatter.mode.into(), &env);
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
    i32::from(failed)
}
