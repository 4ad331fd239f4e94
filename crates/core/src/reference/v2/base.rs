//! What every 2.x formatter shares (AgentScope's `FormatterBase`): the
//! `input_types` filter, reading and downloading media, the text fallback
//! for a data block a provider cannot carry, a tool result turned into text
//! plus the media to promote, and the multi-agent grouping.

use super::msgs::{Data, Item, Items, Msg, Source};
use crate::media::MediaEnv;
use crate::py::{b64encode, PyErr};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::OnceLock;

/// One formatter run: its `input_types` and the media world it reads.
pub struct Ctx<'a> {
    pub env: &'a MediaEnv,
    pub input_types: Vec<String>,
}

impl Ctx<'_> {
    /// A chat formatter for a multi-agent formatter's tool sequences.
    pub fn same(&self) -> Ctx<'_> {
        Ctx {
            env: self.env,
            input_types: self.input_types.clone(),
        }
    }

    /// `supported_input_media_types`.
    pub fn patterns(&self) -> Vec<&str> {
        self.input_types
            .iter()
            .map(String::as_str)
            .filter(|t| *t != "text/plain" && *t != "application/x-thinking")
            .collect()
    }

    pub fn patterns_joined(&self) -> String {
        self.patterns().join(", ")
    }

    pub fn matches(&self, media_type: &str) -> bool {
        self.patterns().iter().any(|p| fnmatch(media_type, p))
    }

    pub fn warn(&self, message: String) {
        self.env.warn(message);
    }

    /// `open(url2pathname(url.removeprefix("file://")), "rb").read()`.
    pub fn read_file_url(&self, url: &str) -> Result<Vec<u8>, PyErr> {
        let path = unquote(url.strip_prefix("file://").unwrap_or(url));
        self.env.read(&path)
    }

    /// `requests.get(url)` + `raise_for_status()`: the body.
    pub fn download(&self, url: &str) -> Result<Vec<u8>, PyErr> {
        let resp = self.env.web().get(url)?.raise_for_status(url)?;
        Ok(resp.body)
    }

    /// The bytes of a URL source, base64-encoded: `file://` read, else
    /// downloaded.
    pub fn url_b64(&self, url: &str) -> Result<String, PyErr> {
        let bytes = if url.starts_with("file://") {
            self.read_file_url(url)?
        } else {
            self.download(url)?
        };
        Ok(b64encode(&bytes))
    }

    /// Base64 data of any source (URLs read or downloaded).
    pub fn source_b64(&self, source: &Source) -> Result<String, PyErr> {
        match source {
            Source::Base64 { data, .. } => Ok(data.clone()),
            Source::Url { url, .. } => self.url_b64(url),
        }
    }

    /// `data:<mt>;base64,...` for base64 and `file://`; other URLs as they are.
    pub fn data_uri_or_url(&self, source: &Source) -> Result<String, PyErr> {
        match source {
            Source::Base64 { data, media_type } => Ok(format!("data:{media_type};base64,{data}")),
            Source::Url { url, media_type } if url.starts_with("file://") => Ok(format!(
                "data:{media_type};base64,{}",
                b64encode(&self.read_file_url(url)?)
            )),
            Source::Url { url, .. } => Ok(url.clone()),
        }
    }

    /// `_convert_unsupported_data_block_to_string`.
    pub fn fallback_text(&self, block: &Data) -> Result<String, PyErr> {
        let main = block.source.main_type();
        match &block.source {
            Source::Url { url, .. } => Ok(format!(
                "<system-reminder>A(n) {main} file is returned and can be accessed at the URL: {url}.</system-reminder>"
            )),
            Source::Base64 { data, media_type } => {
                let bytes = crate::py::b64decode(&Value::String(data.clone()))?;
                let digest = Sha256::digest(&bytes);
                let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
                let ext = guess_extension(media_type).unwrap_or_default();
                Ok(format!(
                    "<system-reminder>A(n) {main} file is returned and saved locally at: /tmp/tmp{hex}{ext}.</system-reminder>"
                ))
            }
        }
    }

    /// `convert_tool_result_to_string`: the text, and the promoted items
    /// (framed by the system-reminder texts) when any.
    pub fn tool_result_to_string(&self, output: &Items) -> Result<(String, Vec<Item>), PyErr> {
        let list = match output {
            Items::Str(s) => return Ok((s.clone(), Vec::new())),
            Items::List(list) => list,
        };
        let mut lines = Vec::new();
        let mut promoted = Vec::new();
        for item in list {
            match item {
                Item::Text(t) => lines.push(t.clone()),
                Item::Data(d) => {
                    let main = d.source.main_type();
                    if self.matches(d.source.media_type()) {
                        lines.push(format!(
                            "<system-reminder>A(n) {main} file is returned and will be presented to you with the identifier [{}].</system-reminder>",
                            d.id
                        ));
                        promoted.push(Item::Text(format!("- {} ({main} file): ", d.id)));
                        promoted.push(Item::Data(d.clone()));
                    } else {
                        lines.push(self.fallback_text(d)?);
                    }
                }
            }
        }
        if !promoted.is_empty() {
            promoted.insert(
                0,
                Item::Text(
                    "<system-reminder>The multimodal data and their identifiers are listed as follows:"
                        .into(),
                ),
            );
            promoted.push(Item::Text("</system-reminder>".into()));
        }
        Ok((lines.join("\n"), promoted))
    }
}

/// `urllib.request.url2pathname` on POSIX: percent-decoding.
pub fn unquote(s: &str) -> String {
    let bytes = s.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `mimetypes.guess_extension` with Python 3.11's built-in table.
pub fn guess_extension(media_type: &str) -> Option<String> {
    static TABLE: OnceLock<HashMap<String, String>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            serde_json::from_str(include_str!(
                "../../../assets/mimetypes-py311-extensions.json"
            ))
            .unwrap_or_default()
        })
        .get(&media_type.to_ascii_lowercase())
        .cloned()
}

/// `fnmatch.fnmatch` on POSIX (case-sensitive): `*`, `?`, `[...]`.
pub fn fnmatch(name: &str, pat: &str) -> bool {
    let n: Vec<char> = name.chars().collect();
    let p: Vec<char> = pat.chars().collect();
    fn go(n: &[char], p: &[char]) -> bool {
        match p.first() {
            None => n.is_empty(),
            Some('*') => (0..=n.len()).any(|i| go(&n[i..], &p[1..])),
            Some('?') => !n.is_empty() && go(&n[1..], &p[1..]),
            Some('[') => {
                let Some(end) = p.iter().skip(2).position(|c| *c == ']').map(|i| i + 2) else {
                    return n.first() == Some(&'[') && go(&n[1..], &p[1..]);
                };
                let Some(c) = n.first() else { return false };
                let mut set = &p[1..end];
                let negate = matches!(set.first(), Some('!'));
                if negate {
                    set = &set[1..];
                }
                let mut hit = false;
                let mut i = 0;
                while i < set.len() {
                    if i + 2 < set.len() && set[i + 1] == '-' {
                        hit |= set[i] <= *c && *c <= set[i + 2];
                        i += 3;
                    } else {
                        hit |= set[i] == *c;
                        i += 1;
                    }
                }
                hit != negate && go(&n[1..], &p[end + 1..])
            }
            Some(ch) => n.first() == Some(ch) && go(&n[1..], &p[1..]),
        }
    }
    go(&n, &p)
}

/// `_group_messages`: maximal runs of tool-sequence and agent messages.
pub fn group_messages(msgs: &[Msg]) -> Vec<(bool, &[Msg])> {
    let mut out: Vec<(bool, &[Msg])> = Vec::new();
    let mut start = 0;
    for i in 1..=msgs.len() {
        if i == msgs.len() || msgs[i].is_tool_sequence() != msgs[start].is_tool_sequence() {
            if start < i {
                out.push((msgs[start].is_tool_sequence(), &msgs[start..i]));
            }
            start = i;
        }
    }
    out
}

/// The default `conversation_history_prompt`.
pub const HISTORY_PROMPT: &str = "# Conversation History\nThe content between <history></history> tags contains your conversation history\n";

fn py_type_class(v: &Value) -> String {
    format!("<class '{}'>", crate::py::type_name(v))
}

/// `_json_loads_with_repair(input or "{}")`: an object, through json_repair
/// when `json.loads` fails; anything else is a `ToolJSONDecodeError`.
pub fn parse_tool_input(input: &str) -> Result<Value, PyErr> {
    let input = if input.is_empty() { "{}" } else { input };
    if input.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    // Python's json.loads: NaN and ±Infinity are numbers; a refusal is
    // said in Python's words.
    let loaded = crate::json::parse(input.as_bytes(), Default::default())
        .map(|p| p.value)
        .map_err(|e| crate::py::loads_error(input).unwrap_or_else(|| e.to_string()));
    let error_message = match loaded {
        Ok(mut v @ Value::Object(_)) => {
            crate::py::normalize_numbers(&mut v);
            return Ok(v);
        }
        Ok(v) => format!(
            "Error: Your argument string is decoded into a {} object, but a dict object is expected!",
            py_type_class(&v)
        ),
        Err(e) => format!(
            "Error: When decoding your tool arguments from JSON format to a Python dictionary, a JSONDecodeError was raised with message: {e}."
        ),
    };
    if let Ok(repaired @ crate::response::json_repair::Value::Dict(_)) =
        crate::response::json_repair::repair_value_v0_64(input)
    {
        if let Ok(mut v) =
            crate::json::parse(repaired.dumps().as_bytes(), Default::default()).map(|p| p.value)
        {
            crate::py::normalize_numbers(&mut v);
            return Ok(v);
        }
    }
    let chars: Vec<char> = input.chars().collect();
    let (shown, hint) = if chars.len() > 200 {
        let head: String = chars[..100].iter().collect();
        let tail: String = chars[chars.len() - 100..].iter().collect();
        (
            format!("{head}[TRUNCATE]{tail}"),
            "(Because the JSON string is too long, a truncated label \"[TRUNCATE]\" is used here to indicate the truncation)",
        )
    } else {
        (input.to_string(), "")
    };
    Err(PyErr::new(
        "ToolJSONDecodeError",
        format!(
            "ToolJSONDecodeError: <system-reminder>{error_message}\n\nYour argument string is decoded by the following code snippet{hint}:\n```python\nimport json\n\nyour_tool_arguments = {}\njson.loads(your_tool_arguments)\n```\n\n**You should recorrect the arguments in JSON format.**</system-reminder>",
            crate::py::py_repr(&Value::String(shown))
        ),
    ))
}
