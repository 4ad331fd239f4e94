//! The five 0.1.6 classes' class methods, dispatched to a module per class
//! (openai.rs, anthropic.rs, dashscope.rs, gemini.rs, common.rs), and
//! `format_auto` (formatters-v0.md §2.4).

use super::msg::Arg;
use super::Class;
use crate::media::MediaEnv;
use crate::py::PyErr;
use serde_json::Value;

/// `cls.format_chat(*args)` (CommonFormatter with its two options).
pub fn chat(
    class: Class,
    args: &[Arg],
    require_alternative: bool,
    require_user_last: bool,
    env: &MediaEnv,
) -> Result<Value, PyErr> {
    match class {
        Class::OpenAi => super::openai::openai(args, env),
        Class::Anthropic => super::anthropic::anthropic_chat(args, env),
        Class::DashScope => super::dashscope::dashscope_chat(args, env),
        Class::Gemini => super::gemini::gemini_chat(args),
        Class::Common => {
            super::common::common_chat(args, require_alternative, require_user_last, env)
        }
    }
}

/// `cls.format_multi_agent(*args)`.
pub fn multi_agent(class: Class, args: &[Arg], env: &MediaEnv) -> Result<Value, PyErr> {
    match class {
        Class::OpenAi => super::openai::openai(args, env),
        Class::Anthropic => super::anthropic::anthropic_multi(args, env),
        Class::DashScope => super::dashscope::dashscope_multi(args, env),
        Class::Gemini => super::gemini::gemini_multi(args),
        Class::Common => super::common::common_multi(args),
    }
}

/// `cls.format_auto(msgs)` (§2.4): which branch, and its result.
pub fn auto(class: Class, args: &[Arg], env: &MediaEnv) -> Result<(&'static str, Value), PyErr> {
    let mut speakers = 0;
    for a in args {
        match a {
            Arg::Msg(m) => {
                if m.role == "user" || m.role == "assistant" {
                    speakers += 1;
                }
            }
            other => return Err(PyErr::attribute(other.type_name(), "role")),
        }
    }
    // The whole list goes as one argument.
    let one = [Arg::List(args.to_vec())];
    if speakers <= 2 {
        Ok(("chat", chat(class, &one, false, false, env)?))
    } else {
        Ok(("multi_agent", multi_agent(class, &one, env)?))
    }
}
