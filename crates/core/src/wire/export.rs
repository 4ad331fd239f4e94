//! A built request as something to run or read: the body's exact bytes as
//! the SDK writes them, the raw HTTP request, or a `curl` command that sends
//! the same bytes, the key read from the provider's usual environment
//! variable (never written out).

use super::API_KEY;
use crate::provider::Provider;
use serde_json::{Map, Value};

/// The environment variable a provider's key is usually kept in (`None`:
/// Ollama takes no key).
pub fn key_variable(provider: Provider) -> Option<&'static str> {
    match provider {
        Provider::OpenAi => Some("OPENAI_API_KEY"),
        Provider::DeepSeek => Some("DEEPSEEK_API_KEY"),
        Provider::Anthropic => Some("ANTHROPIC_API_KEY"),
        Provider::DashScope => Some("DASHSCOPE_API_KEY"),
        Provider::Gemini => Some("GEMINI_API_KEY"),
        Provider::Ollama => None,
    }
}

/// The body's bytes as the provider's SDK serialises them: httpx (openai,
/// anthropic, ollama) writes compact JSON with UTF-8 as is; aiohttp
/// (dashscope, google-genai) writes `json.dumps` defaults: `", "`, `": "`
/// and non-ASCII as `\uXXXX`.
pub fn body_bytes(provider: Provider, body: &Value) -> String {
    match provider {
        Provider::DashScope | Provider::Gemini => ascii_escaped(&crate::py::dumps(body)),
        _ => serde_json::to_string(body).unwrap_or_default(),
    }
}

/// JSON text with every non-ASCII character and DEL as `\uXXXX` (a
/// surrogate pair above U+FFFF), as Python's `ensure_ascii`. Outside
/// strings JSON has none.
pub(crate) fn ascii_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        // `ensure_ascii` escapes all but ' '..='~': DEL too.
        if c.is_ascii() && c != '\x7f' {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

/// Splits a URL into (host, path with query).
fn host_and_path(url: &str) -> (&str, &str) {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    }
}

/// The HTTP/1.1 request, key as `<API_KEY>`.
pub fn http_text(method: &str, url: &str, headers: &Map<String, Value>, body: &str) -> String {
    // Shown to a person: C1 and bidi controls as escapes (the same JSON).
    let body = crate::text::escape_json_controls(body);
    let (host, path) = host_and_path(url);
    let mut out = format!("{method} {path} HTTP/1.1\r\nhost: {host}\r\n");
    for (name, value) in headers {
        out.push_str(&format!(
            "{name}: {}\r\n",
            value.as_str().unwrap_or_default()
        ));
    }
    out.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
    out
}

/// A shell word: single-quoted, a `'` written as `'\''`.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// A `curl` command that sends this request; the key comes from
/// `$VARIABLE` when the shell runs it. The body is the same bytes but for
/// C1 and bidirectional controls, written as `\uXXXX` (the same JSON): a
/// script is read in a terminal before it runs.
pub fn curl(
    key_variable: Option<&str>,
    method: &str,
    url: &str,
    headers: &Map<String, Value>,
    body: &str,
) -> String {
    let mut lines = vec![format!("curl -sS -X {method} {}", quoted(url))];
    for (name, value) in headers {
        let header = format!("{name}: {}", value.as_str().unwrap_or_default());
        let word = match key_variable {
            Some(var) if header.contains(API_KEY) => {
                // Double quotes so the shell expands the key variable only.
                let escaped = header
                    .replace('\\', "\\\\")
                    .replace('"', "\\\"")
                    .replace('$', "\\$")
                    .replace('`', "\\`");
                format!("\"{}\"", escaped.replace(API_KEY, &format!("${{{var}}}")))
            }
            _ => quoted(&header),
        };
        lines.push(format!("  -H {word}"));
    }
    let body = crate::text::escape_json_controls(body);
    lines.push(format!("  --data-binary {}", quoted(&body)));
    lines.join(" \\\n")
}

/// Why a request has no export of the kind asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// A gRPC request (xAI's): no Python SDK call sends its bytes.
    #[error("a gRPC request (xAI) has no Python snippet here: `--as json` shows its GetCompletionsRequest, which xai_sdk's Client.chat.create(...).sample() sends")]
    Grpc,
}

/// A Python snippet that makes the same call with the SDK the request's
/// model class calls (`wire.sdk_call`): its recorded keyword arguments
/// passed to the same method, the client pointed at the same URL, the key
/// read from `key_variable`. `release` names who made the call.
/// A request no Python SDK makes (AgentScope Java's) is posted as its
/// exact bytes with the standard library; a gRPC one has no snippet.
pub fn python(
    wire: &super::Wire,
    key_variable: Option<&str>,
    release: &str,
) -> Result<String, ExportError> {
    if wire.grpc.is_some() {
        return Err(ExportError::Grpc);
    }
    let url = wire.url.as_str();
    let mut kwargs = wire.kwargs.clone();
    if let Some(map) = kwargs.as_object_mut() {
        // DashScope's recorded call names the key; the snippet passes it.
        map.shift_remove("api_key");
    }
    // JSON text as a Python string literal (JSON's escapes are Python's).
    let literal = serde_json::to_string(&serde_json::to_string(&kwargs).unwrap_or_default())
        .unwrap_or_default();
    let key = |default: &str| format!("os.environ[\"{}\"]", key_variable.unwrap_or(default));
    let prefix = |suffix: &str| url.strip_suffix(suffix).unwrap_or(url).to_string();
    let sdk = wire.sdk_call;
    let mut header = String::new();
    let (imports, call) = if sdk.starts_with("openai.") {
        let (path, method) = if sdk.ends_with("responses.create") {
            ("/responses", "responses.create")
        } else {
            ("/chat/completions", "chat.completions.create")
        };
        (
            "from openai import OpenAI".to_string(),
            format!(
                "client = OpenAI(api_key={}, base_url={:?})\nresponse = client.{method}(**kwargs)",
                key("OPENAI_API_KEY"),
                prefix(path)
            ),
        )
    } else if sdk.starts_with("anthropic.") {
        (
            "from anthropic import Anthropic".to_string(),
            format!(
                "client = Anthropic(api_key={}, base_url={:?})\nresponse = client.messages.create(**kwargs)",
                key("ANTHROPIC_API_KEY"),
                prefix("/v1/messages")
            ),
        )
    } else if sdk.starts_with("dashscope.") {
        let base = url.split("/services/").next().unwrap_or(url).to_string();
        let call = if url.contains("multimodal-generation") {
            "dashscope.MultiModalConversation.call"
        } else {
            "dashscope.Generation.call"
        };
        (
            "import dashscope".to_string(),
            format!(
                "dashscope.base_http_api_url = {base:?}\nresponse = {call}(api_key={}, **kwargs)",
                key("DASHSCOPE_API_KEY")
            ),
        )
    } else if sdk.starts_with("google.genai.") {
        header.push_str("import base64\n");
        (
            "from google import genai".to_string(),
            format!(
                "# Python bytes (thought signatures) are written {{\"$bytes\": base64}}.\n\
                 def unbytes(v):\n    \
                     if isinstance(v, dict):\n        \
                         if set(v) == {{\"$bytes\"}}:\n            \
                             return base64.b64decode(v[\"$bytes\"])\n        \
                         return {{k: unbytes(x) for k, x in v.items()}}\n    \
                     if isinstance(v, list):\n        \
                         return [unbytes(x) for x in v]\n    \
                     return v\n\n\
                 kwargs = unbytes(kwargs)\n\
                 client = genai.Client(api_key={})\n\
                 response = client.models.{}(**kwargs)",
                key("GEMINI_API_KEY"),
                if url.contains("streamGenerateContent") {
                    "generate_content_stream"
                } else {
                    "generate_content"
                }
            ),
        )
    } else if sdk.starts_with("ollama.") {
        (
            "import ollama".to_string(),
            format!(
                "client = ollama.Client(host={:?})\nresponse = client.chat(**kwargs)",
                prefix("/api/chat")
            ),
        )
    } else {
        // No Python SDK makes this call: the same bytes, posted.
        let body = serde_json::to_string(&wire.body_bytes()).unwrap_or_default();
        let mut headers = Vec::new();
        for (name, value) in &wire.headers {
            let value = value.as_str().unwrap_or_default();
            let value = match key_variable {
                Some(var) if value.contains(API_KEY) => {
                    format!("{:?}.replace(\"{API_KEY}\", os.environ[\"{var}\"])", value)
                }
                _ => format!("{value:?}"),
            };
            headers.push(format!("    {name:?}: {value},"));
        }
        return Ok(format!(
            "# The request {release} sends, posted with Python's standard library.\n\
             import os\nimport urllib.request\n\n\
             body = {body}.encode(\"utf-8\")\nheaders = {{\n{}\n}}\n\
             request = urllib.request.Request({url:?}, data=body, headers=headers, method={:?})\n\
             with urllib.request.urlopen(request) as response:\n    print(response.read().decode(\"utf-8\"))\n",
            headers.join("\n"),
            wire.method
        ));
    };
    Ok(format!(
        "# The call {release} makes, made with the provider's SDK.\n\
         {header}import json\nimport os\n\n{imports}\n\n\
         kwargs = json.loads({literal})\n{call}\nprint(response)\n"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn bodies_are_written_as_each_sdk_writes_them() {
        let body = json!({"a": "é😀", "b": [1, 2.5]});
        assert_eq!(
            body_bytes(Provider::OpenAi, &body),
            r#"{"a":"é😀","b":[1,2.5]}"#
        );
        assert_eq!(
            body_bytes(Provider::DashScope, &body),
            r#"{"a": "\u00e9\ud83d\ude00", "b": [1, 2.5]}"#
        );
        // ensure_ascii escapes DEL too (json.dumps gives "\u007f").
        assert_eq!(
            body_bytes(Provider::Gemini, &json!({"t": "x\u{7f}y"})),
            r#"{"t": "x\u007fy"}"#
        );
    }

    #[test]
    fn curl_reads_the_key_from_the_environment_and_quotes_the_body() {
        let mut headers = Map::new();
        headers.insert("authorization".into(), json!("Bearer <API_KEY>"));
        headers.insert("content-type".into(), json!("application/json"));
        let cmd = curl(
            Some("OPENAI_API_KEY"),
            "POST",
            "https://x/v1",
            &headers,
            r#"{"t":"it's"}"#,
        );
        assert_eq!(
            cmd,
            "curl -sS -X POST 'https://x/v1' \\\n  -H \"authorization: Bearer ${OPENAI_API_KEY}\" \\\n  -H 'content-type: application/json' \\\n  --data-binary '{\"t\":\"it'\\''s\"}'"
        );
    }
}
