//! Which code formats which of the 22 classes, and the OpenAI-compatible
//! providers that are only a [`Style`] over the OpenAI chat loop in 2.x
//! (DashScope, Moonshot, Volcengine).

use super::base::Ctx;
use super::msgs::{Data, Msg, Source};
use super::multi_agent::skeleton;
use super::openai::{self, Reasoning, Style};
use super::{anthropic, deepseek, gemini, ollama, responses, xai};
use super::{Class, Family};
use crate::json;
use crate::py::{b64encode, PyErr};
use serde_json::Value;

pub const DASHSCOPE: Style = Style {
    name: false,
    promo_name: false,
    reasoning: Reasoning::DashScope,
    data: dashscope_data_block,
};

pub const MOONSHOT: Style = Style {
    name: true,
    promo_name: true,
    reasoning: Reasoning::Moonshot,
    data: openai::moonshot_data_block,
};

pub const VOLCENGINE: Style = Style {
    name: false,
    promo_name: true,
    reasoning: Reasoning::Volcengine,
    data: volcengine_data_block,
};

pub fn format(ctx: &Ctx, class: Class, msgs: &[Msg], prompt: &str) -> Result<Vec<Value>, PyErr> {
    let (multi, prompt) = (class.multi_agent, prompt);
    match class.family {
        Family::DeepSeek if multi => return deepseek::format_multi(ctx, msgs, prompt),
        Family::DeepSeek => return deepseek::format_chat(ctx, msgs),
        Family::Anthropic | Family::MiniMax => {
            let video = class.family == Family::MiniMax;
            return if multi {
                anthropic::format_multi(ctx, msgs, prompt, video)
            } else {
                anthropic::format_chat(ctx, msgs, video)
            };
        }
        Family::Gemini if multi => return gemini::format_multi(ctx, msgs, prompt),
        Family::Gemini => return gemini::format_chat(ctx, msgs),
        Family::Ollama if multi => return ollama::format_multi(ctx, msgs, prompt),
        Family::Ollama => return ollama::format_chat(ctx, msgs),
        Family::Responses if multi => return responses::format_multi(ctx, msgs, prompt),
        Family::Responses => return responses::format_chat(ctx, msgs),
        Family::Xai if multi => return xai::format_multi(ctx, msgs, prompt),
        Family::Xai => return xai::format_chat(ctx, msgs),
        _ => {}
    }
    let style = match class.family {
        Family::OpenAi => openai::OPENAI,
        Family::DashScope => DASHSCOPE,
        Family::Moonshot => MOONSHOT,
        Family::Volcengine => VOLCENGINE,
        _ => openai::OPENAI,
    };
    if !class.multi_agent {
        return openai::format_chat(ctx, &style, msgs);
    }
    skeleton(
        msgs,
        |m| Ok(openai::string_system(m)),
        |group| openai::format_chat(ctx, &style, group),
        |group, first| openai::agent_group(ctx, style.data, group, if first { prompt } else { "" }),
    )
}

/// `_format_dashscope_data_block`.
pub fn dashscope_data_block(ctx: &Ctx, block: &Data) -> Result<Option<Value>, PyErr> {
    let mt = block.source.media_type();
    if !ctx.matches(mt) {
        ctx.warn(format!(
            "Unsupported media type {mt} for DashScope API. Supported types: {}. This block will be skipped.",
            ctx.patterns_joined()
        ));
        return Ok(None);
    }
    let main = block.source.main_type();
    match main {
        "image" => Ok(Some(openai::openai_image(ctx, &block.source)?)),
        "video" => Ok(Some(
            json!({"type": "video_url", "video_url": {"url": ctx.data_uri_or_url(&block.source)?}}),
        )),
        "audio" => {
            let mut fmt = mt.rsplit('/').next().unwrap_or("").to_string();
            if fmt == "mpeg" {
                fmt = "mp3".into();
            }
            let data = match &block.source {
                Source::Base64 { data, .. } => format!("data:;base64,{data}"),
                Source::Url { url, .. } if url.starts_with("file://") => {
                    format!("data:;base64,{}", b64encode(&ctx.read_file_url(url)?))
                }
                Source::Url { url, .. } => url.clone(),
            };
            Ok(Some(
                json!({"type": "input_audio", "input_audio": {"data": data, "format": fmt}}),
            ))
        }
        _ => {
            ctx.warn(format!(
                "Unsupported main media type {main} for DashScope API. This block will be skipped."
            ));
            Ok(None)
        }
    }
}

/// `_format_volcengine_data_block`.
pub fn volcengine_data_block(ctx: &Ctx, block: &Data) -> Result<Option<Value>, PyErr> {
    let mt = block.source.media_type();
    if !ctx.matches(mt) {
        ctx.warn(format!(
            "Unsupported media type {mt} for Volcengine Ark API. Supported types: {}. This block will be skipped.",
            ctx.patterns_joined()
        ));
        return Ok(None);
    }
    let main = block.source.main_type();
    match main {
        "image" => Ok(Some(openai::openai_image(ctx, &block.source)?)),
        "video" => Ok(Some(
            json!({"type": "video_url", "video_url": {"url": ctx.data_uri_or_url(&block.source)?}}),
        )),
        _ => {
            ctx.warn(format!(
                "Unsupported main media type {main} for Volcengine Ark API. This block will be skipped."
            ));
            Ok(None)
        }
    }
}
