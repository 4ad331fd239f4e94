//! Image URLs as 0.1.6 resolves them (formatters-v0.md §3 IMG, §4.1 SRC,
//! §5.2 MEDIA): web URLs pass as text, local files are read (relative to
//! the session's folder) through the same media environment as 1.0.21.

use crate::json;
use crate::media::MediaEnv;
use crate::py::{b64encode, PyErr};
use serde_json::Value;

/// Python's `urlparse(url).scheme`: letters, digits, `+-.` before the
/// first `:`, the first a letter; lower-cased.
fn scheme(url: &str) -> String {
    let Some((head, _)) = url.split_once(':') else {
        return String::new();
    };
    let ok = head.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && head
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if ok {
        head.to_lowercase()
    } else {
        String::new()
    }
}

/// `urlparse(url).path`.
fn path_component(url: &str) -> &str {
    let s = scheme(url);
    let rest = if s.is_empty() {
        url
    } else {
        &url[s.len() + 1..]
    };
    let rest = match rest.strip_prefix("//") {
        Some(r) => r.find('/').map_or("", |i| &r[i..]),
        None => rest,
    };
    let end = rest.find(['?', '#']).unwrap_or(rest.len());
    &rest[..end]
}

/// The last `.`-piece of the URL's path, lower-cased.
fn extension(url: &str) -> String {
    let p = path_component(url);
    p.rsplit('.').next().unwrap_or(p).to_lowercase()
}

enum Resolved {
    /// A web URL (or another scheme) passed on as text.
    Web,
    /// A local file's bytes.
    Local(Vec<u8>),
}

/// IMG's three steps with `endings`; `None` is the TypeError case.
fn resolve(url: &str, endings: &[&str], env: &MediaEnv) -> Result<Option<Resolved>, PyErr> {
    let lower = url.to_lowercase();
    let accepted = endings.iter().any(|e| lower.ends_with(e));
    if !env.exists(url) && !scheme(url).is_empty() {
        return Ok(accepted.then_some(Resolved::Web));
    }
    if env.is_file(url) && accepted {
        return Ok(Some(Resolved::Local(env.read(url)?)));
    }
    Ok(None)
}

/// OpenAI's image URL: web URLs unchanged, local files as data URLs.
pub fn openai_image_url(url: &str, env: &MediaEnv) -> Result<String, PyErr> {
    const ENDINGS: [&str; 5] = [".png", ".jpg", ".jpeg", ".gif", ".webp"];
    match resolve(url, &ENDINGS, env)? {
        Some(Resolved::Web) => Ok(url.to_string()),
        Some(Resolved::Local(bytes)) => Ok(format!(
            "data:image/{};base64,{}",
            extension(url),
            b64encode(&bytes)
        )),
        None => Err(PyErr::type_error(format!(
            "\"{url}\" should end with ('.png', '.jpg', '.jpeg', '.gif', '.webp')."
        ))),
    }
}

/// Anthropic's image source: a web URL as a bare string, a local file as
/// a base64 source whose data keeps the `data:` prefix (§4.1).
pub fn anthropic_source(url: &str, env: &MediaEnv) -> Result<Value, PyErr> {
    const ENDINGS: [&str; 4] = [".png", ".jpg", ".jpeg", ".gif"];
    match resolve(url, &ENDINGS, env)? {
        Some(Resolved::Web) => Ok(Value::from(url)),
        Some(Resolved::Local(bytes)) => {
            let ext = match extension(url).as_str() {
                "jpg" => "jpeg".to_string(),
                e => e.to_string(),
            };
            Ok(json!({
                "type": "base64",
                "media_type": format!("image/{ext}"),
                "data": format!("data:image/{ext};base64,{}", b64encode(&bytes)),
            }))
        }
        None => Err(PyErr::type_error(format!(
            "{url} should be end with ('.png', '.jpg', '.jpeg', '.gif')."
        ))),
    }
}

/// DashScope multi-agent media (§5.2): the kind from the URL's extension;
/// an existing local path gets `file://` in front.
pub fn dashscope_media(url: &str, env: &MediaEnv) -> Option<Value> {
    let kind = super::msg::kind_of_url(url);
    if !matches!(kind, "image" | "audio") {
        env.warn(format!(
            "Skip unsupported url ({kind}), expect image or audio."
        ));
        return None;
    }
    let shown = if env.exists(url) {
        format!("file://{url}")
    } else {
        url.to_string()
    };
    let mut m = serde_json::Map::new();
    m.insert(kind.to_string(), Value::from(shown));
    Some(Value::Object(m))
}
