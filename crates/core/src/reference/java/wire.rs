//! AgentScope Java 2.0.2 on the wire: the HTTP request its model classes
//! send around the formatter's body (`OpenAIChatModel` for OpenAI,
//! DeepSeek and GLM, `DashScopeChatModel`, `OllamaChatModel`), read from
//! its source at tag v2.0.2 (`OpenAIClient`, `DashScopeHttpClient`,
//! `OllamaHttpClient`, `JdkHttpTransport`).
//!
//! The body is the formatter's request serialised by AgentScope's Jackson
//! codec and sent as UTF-8 unchanged, so its bytes are the vectors'
//! `request_text`. A non-streaming call flips the streaming fields
//! (`"stream":false` without `stream_options`; DashScope's
//! `"incremental_output":false`). The headers are Java's own: no
//! `Accept`; `User-Agent` (`agentscope-java/1.0.13-SNAPSHOT; java/…;
//! platform/…`, the JVM's) is left out as the Python oracles leave the
//! SDKs' out; DashScope streams with `X-DashScope-SSE: enable`, Ollama
//! with AgentScope's `X-AgentScope-Stream-Format: ndjson`.

use super::dashscope::Endpoint;
use super::{Family, Options};
use crate::json;
use crate::media::MediaEnv;
use crate::wire::{Encoding, Wire, API_KEY};
use serde_json::{Map, Value};

/// The base URL a model gets from its `ModelProvider` (`openai:`,
/// `deepseek:`, `glm:`, `dashscope:`, `ollama:`).
pub fn default_base_url(family: Family) -> &'static str {
    match family {
        Family::OpenAi => "https://api.openai.com/v1",
        Family::DeepSeek => "https://api.deepseek.com",
        Family::Glm => "https://open.bigmodel.cn/api/paas/v4",
        Family::DashScope => "https://dashscope.aliyuncs.com",
        Family::Ollama => "http://localhost:11434",
    }
}

/// `OpenAIClient.buildApiUrl(base, "/v1/chat/completions")`: one
/// trailing `/` off the base; a base path already ending in `/vN` drops
/// the endpoint's `/v1`.
fn openai_url(base: &str) -> String {
    let base = base.strip_suffix('/').unwrap_or(base);
    let path_start = base
        .find("://")
        .map(|i| i + 3)
        .and_then(|i| base[i..].find('/').map(|j| i + j));
    let (root, path) = match path_start {
        Some(i) => (&base[..i], &base[i..]),
        None => (base, ""),
    };
    let path = path.trim_end_matches('/');
    let versioned = path
        .rsplit('/')
        .next()
        .and_then(|last| last.strip_prefix('v'))
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    let endpoint = if versioned {
        "chat/completions"
    } else {
        "v1/chat/completions"
    };
    format!("{root}{path}/{endpoint}")
}

/// The request a Java model class sends: the vector's object (its error
/// fields when it fails), and the wire when it was built.
pub fn request(
    session: &Value,
    env: &MediaEnv,
    opts: &Options,
    stream: bool,
    base_url: Option<&str>,
) -> Result<(Map<String, Value>, Option<Wire>), super::Error> {
    let out = super::run(session, env, opts)?;
    let target = super::target(session, opts)?;
    let Value::Object(mut out) = out else {
        return Ok((Map::new(), None));
    };
    let Some(mut body) = out.remove("request") else {
        return Ok((out, None));
    };
    out.shift_remove("request_text");
    out.shift_remove("messages");
    out.shift_remove("tools");
    let family = target.class.family;
    if !stream {
        match family {
            Family::DashScope => {
                if let Some(Value::Object(p)) = body.get_mut("parameters") {
                    p.insert("incremental_output".into(), json!(false));
                }
            }
            _ => {
                if let Value::Object(b) = &mut body {
                    b.insert("stream".into(), json!(false));
                    b.shift_remove("stream_options");
                }
            }
        }
    }
    let base = base_url.unwrap_or(default_base_url(family));
    let mut headers = Vec::new();
    let (url, class) = match family {
        Family::OpenAi | Family::DeepSeek | Family::Glm => (openai_url(base), "OpenAIChatModel"),
        Family::DashScope => {
            let path = match target.endpoint.unwrap_or(Endpoint::Text) {
                Endpoint::Text => "/api/v1/services/aigc/text-generation/generation",
                Endpoint::Multimodal => "/api/v1/services/aigc/multimodal-generation/generation",
            };
            if stream {
                headers.push(("x-dashscope-sse", "enable".to_string()));
            }
            // Plain concatenation: a trailing `/` gives `//`.
            (format!("{base}{path}"), "DashScopeChatModel")
        }
        Family::Ollama => {
            if stream {
                headers.push(("x-agentscope-stream-format", "ndjson".to_string()));
            }
            (format!("{base}/api/chat"), "OllamaChatModel")
        }
    };
    if family != Family::Ollama {
        headers.push(("authorization", format!("Bearer {API_KEY}")));
    }
    headers.push(("content-type", "application/json".to_string()));
    headers.sort();
    let headers: Map<String, Value> = headers
        .into_iter()
        .map(|(k, v)| (k.to_string(), Value::String(v)))
        .collect();
    out.insert("stream".into(), json!(stream));
    out.insert(
        "http".into(),
        json!({"method": "POST", "url": &url, "headers": &headers}),
    );
    out.insert("http_body".into(), body.clone());
    let wire = Wire {
        stream,
        model_kwargs: Map::new(),
        sdk_call: if stream {
            match class {
                "DashScopeChatModel" => "DashScopeChatModel.stream",
                "OllamaChatModel" => "OllamaChatModel.stream",
                _ => "OpenAIChatModel.stream",
            }
        } else {
            match class {
                "DashScopeChatModel" => "DashScopeChatModel.call",
                "OllamaChatModel" => "OllamaChatModel.call",
                _ => "OpenAIChatModel.call",
            }
        },
        kwargs: body.clone(),
        method: "POST",
        url,
        headers,
        body,
        sdk_error: None,
        encoding: Encoding::Jackson,
        grpc: None,
    };
    Ok((out, Some(wire)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_openai_endpoint_joins_as_the_java_client_does() {
        for (base, url) in [
            (
                "https://api.openai.com/v1",
                "https://api.openai.com/v1/chat/completions",
            ),
            (
                "https://api.deepseek.com",
                "https://api.deepseek.com/v1/chat/completions",
            ),
            (
                "https://open.bigmodel.cn/api/paas/v4",
                "https://open.bigmodel.cn/api/paas/v4/chat/completions",
            ),
            (
                "https://dashscope.aliyuncs.com/compatible-mode/v1/",
                "https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions",
            ),
            (
                "http://h:8000/openai",
                "http://h:8000/openai/v1/chat/completions",
            ),
        ] {
            assert_eq!(openai_url(base), url, "{base}");
        }
    }
}
