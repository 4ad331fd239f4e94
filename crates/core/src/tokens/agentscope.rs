//! AgentScope 1.0.21's `OpenAITokenCounter`: the OpenAI cookbook formula,
//! applied to whatever formatted messages it is given, raising exactly where
//! the reference raises (Gemini `parts`, Ollama `images`, non-OpenAI blocks).

use super::{encoding_for_model, Encoding, PartMemo};
use crate::media::WebFetcher;
use crate::py::{self, get_item, py_get, py_str, PyErr};
use serde_json::Value;

pub struct OpenAiTokenCounter {
    model: String,
    encoding: Encoding,
    /// The parts of long texts it has counted, for a counter that lives
    /// with a session (see [`PartMemo`]).
    memo: Option<PartMemo>,
}

impl OpenAiTokenCounter {
    pub fn new(model: &str) -> Self {
        Self {
            model: model.to_string(),
            encoding: encoding_for_model(model),
            memo: None,
        }
    }

    /// A counter that keeps the parts of the long texts it counts, and
    /// counts again only the parts it has not seen: for one that counts a
    /// session's request after each edit (the same counts).
    pub fn remembering(model: &str) -> Self {
        Self {
            memo: Some(PartMemo::default()),
            ..Self::new(model)
        }
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// `await counter.count(messages, tools)`, on every core for a long
    /// request (the first bad message in order raises). Web images are
    /// fetched through `web` to learn their size.
    pub fn count(
        &self,
        messages: &[Value],
        tools: Option<&Value>,
        web: &dyn WebFetcher,
    ) -> Result<i64, PyErr> {
        let mut n = 3 + crate::parallel::try_sum(messages, |m| self.message_tokens(m, web))?;
        if let Some(tools) = tools.filter(|t| py::truthy(t)) {
            n += self.tools_tokens(tools)?;
        }
        Ok(n)
    }

    /// One message's share: 3, plus every string field (and the name bonus),
    /// the content list's vision tokens, and the dumped tool calls.
    pub fn message_tokens(&self, message: &Value, web: &dyn WebFetcher) -> Result<i64, PyErr> {
        let mut n = 3;
        let Value::Object(map) = message else {
            return Err(PyErr::attribute(py::type_name(message), "items"));
        };
        for (key, value) in map {
            match value {
                Value::Array(items) if key == "content" => n += self.vision_tokens(items, web)?,
                Value::String(s) => n += self.encode_len(s)?,
                Value::Null => continue,
                _ if key == "tool_calls" => n += self.encode_len(&py::dumps(value))?,
                _ => {
                    return Err(PyErr::type_error(format!(
                        "Invalid type <class '{}'> in the {key} field: {}",
                        py::type_name(value),
                        py_str(value)
                    )))
                }
            }
            if key == "name" {
                n += 1;
            }
        }
        Ok(n)
    }

    fn encode_len(&self, text: &str) -> Result<i64, PyErr> {
        let memo = self.memo.as_ref();
        Ok(self.encoding.count_remembering(text, memo)? as i64)
    }

    fn encode_value(&self, v: &Value) -> Result<i64, PyErr> {
        match v {
            Value::String(s) => self.encode_len(s),
            // tiktoken's special-token scan (the `regex` package) fails first.
            _ => Err(PyErr::type_error("expected string or buffer")),
        }
    }

    fn vision_tokens(&self, items: &[Value], web: &dyn WebFetcher) -> Result<i64, PyErr> {
        let mut n = 0;
        let model = self.model.as_str();
        for item in items {
            if !item.is_object() {
                return Err(PyErr::assertion(format!(
                    "The content field should be a list of dictionaries, but got <class '{}'>.",
                    py::type_name(item)
                )));
            }
            let typ = py_get(item, "type")?.cloned().unwrap_or(Value::Null);
            match typ.as_str() {
                Some("text") => n += self.encode_value(get_item(item, "text")?)?,
                Some("image_url") => {
                    let image_url = get_item(item, "image_url")?;
                    let (w, h) = image_size(get_item(image_url, "url")?, web)?;
                    if ["gpt-4.1-mini", "gpt-4.1-nano", "o4-mini"]
                        .iter()
                        .any(|p| model.starts_with(p))
                    {
                        let patches =
                            ((w as f64 / 32.0).ceil() * (h as f64 / 32.0).ceil()).min(1536.0);
                        let factor = if model.starts_with("gpt-4.1-mini") {
                            1.62
                        } else if model.starts_with("gpt-4.1-nano") {
                            2.46
                        } else {
                            1.72
                        };
                        n += (patches * factor).ceil() as i64;
                    } else if ["gpt-4o", "gpt-4.1", "gpt-4o-mini", "o"]
                        .iter()
                        .any(|p| model.starts_with(p))
                    {
                        let (base, tile) = base_and_tile(model)?;
                        let detail = py_get(image_url, "detail")?
                            .cloned()
                            .unwrap_or_else(|| "high".into());
                        match detail.as_str() {
                            Some("low") => n += base,
                            Some("auto" | "high") => n += high_quality(base, tile, w, h)?,
                            _ => {
                                return Err(PyErr::value(format!(
                                    "Unsupported image detail {}, expected one of ['low', 'auto', 'high'].",
                                    py_str(&detail)
                                )))
                            }
                        }
                    }
                }
                _ => {
                    return Err(PyErr::value(format!(
                    "The type field currently only supports 'text' and 'image_url', but got {}.",
                    py_str(&typ)
                )))
                }
            }
        }
        Ok(n)
    }

    /// The cookbook's estimate for tool schemas.
    pub fn tools_tokens(&self, tools: &Value) -> Result<i64, PyErr> {
        let func_init = if self.model.starts_with("gpt-4o") {
            7
        } else {
            10
        };
        let (prop_init, prop_key, enum_init, enum_item, func_end) = (3, 3, -3, 3, 12);
        let mut n = 0;
        for tool in py::iterate(tools)? {
            n += func_init;
            let function = get_item(&tool, "function")?;
            let name = get_item(function, "name")?;
            let desc = description(function)?;
            n += self.encode_len(&format!("{}:{desc}", py_str(name)))?;
            let properties = get_item(get_item(function, "parameters")?, "properties")?;
            let Value::Object(props) = properties else {
                if py::truthy(properties) {
                    return Err(PyErr::attribute(py::type_name(properties), "keys"));
                }
                continue;
            };
            if props.is_empty() {
                continue;
            }
            n += prop_init;
            for (key, prop) in props {
                n += prop_key;
                let p_type = py_get(prop, "type")?.cloned().unwrap_or_else(|| "".into());
                let p_desc = description(prop)?;
                if let Some(items) = prop.get("enum") {
                    n += enum_init;
                    for item in py::iterate(items)? {
                        n += enum_item;
                        n += self.encode_value(&item)?;
                    }
                }
                n += self.encode_len(&format!("{key}:{}:{p_desc}", py_str(&p_type)))?;
            }
        }
        Ok(n + func_end)
    }
}

/// `obj.get("description", "").removesuffix(".")`.
fn description(obj: &Value) -> Result<String, PyErr> {
    match py_get(obj, "description")? {
        None => Ok(String::new()),
        Some(v) => {
            let s = py::get_str_method_target(v, "removesuffix")?;
            Ok(s.strip_suffix('.').unwrap_or(s).to_string())
        }
    }
}

fn base_and_tile(model: &str) -> Result<(i64, i64), PyErr> {
    if ["gpt-4o", "gpt-4.1", "gpt-4.5"]
        .iter()
        .any(|p| model.starts_with(p))
    {
        Ok((85, 170))
    } else if ["o1", "o1-pro", "o3"].iter().any(|p| model.starts_with(p)) {
        Ok((75, 150))
    } else if model.starts_with("4o-mini") {
        Ok((2833, 5667))
    } else {
        Err(PyErr::value(format!(
            "Unsupported OpenAI model {model} for token counting. "
        )))
    }
}

/// Fit in 2048×2048, scale the shortest side to 768 (up as well as down),
/// then count 512-pixel tiles. A side fitted down to 0 pixels (3000×1) is
/// Python's `ZeroDivisionError` in the next step, as in AgentScope.
fn high_quality(base: i64, tile: i64, width: u64, height: u64) -> Result<i64, PyErr> {
    let (mut w, mut h) = (width as f64, height as f64);
    if w > 2048.0 || h > 2048.0 {
        let ratio = (2048.0 / w).min(2048.0 / h);
        w = (w * ratio).trunc();
        h = (h * ratio).trunc();
    }
    let shortest = w.min(h);
    if shortest == 0.0 {
        return Err(PyErr::new("ZeroDivisionError", "division by zero"));
    }
    if shortest != 768.0 {
        let ratio = 768.0 / shortest;
        w = (w * ratio).trunc();
        h = (h * ratio).trunc();
    }
    let tiles = ((w as i64 + 511) / 512) * ((h as i64 + 511) / 512);
    Ok(tiles * tile + base)
}

/// `_get_size_of_image_url`: decode a data URL or download the image, then
/// read its size (Pillow in the reference).
fn image_size(url: &Value, web: &dyn WebFetcher) -> Result<(u64, u64), PyErr> {
    let url = py::get_str_method_target(url, "startswith")?;
    let bytes = if url.starts_with("data:image/") {
        let Some((_, data)) = url.split_once("base64,") else {
            return Err(PyErr::new("IndexError", "list index out of range"));
        };
        // `split("base64,")[1]`: only up to a second separator, if any.
        let data = data.split("base64,").next().unwrap_or(data);
        py::b64decode(&Value::String(data.to_string()))?
    } else {
        let mut response = web.get(url)?;
        for _ in 1..3 {
            if response.status == 200 {
                break;
            }
            response = web.get(url)?;
        }
        response.raise_for_status(url)?.body
    };
    match imagesize::blob_size(&bytes) {
        Ok(size) => Ok((size.width as u64, size.height as u64)),
        Err(_) => Err(PyErr::new(
            "UnidentifiedImageError",
            "cannot identify image file <_io.BytesIO object at 0x?>",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::NoNetwork;
    use serde_json::json;

    #[test]
    fn spec_worked_numbers() {
        let c = OpenAiTokenCounter::new("gpt-4o");
        let web = NoNetwork;
        assert_eq!(c.count(&[], None, &web).unwrap(), 3);
        assert_eq!(
            c.count(
                &[json!({"role": "user", "content": "hello world"})],
                None,
                &web
            )
            .unwrap(),
            9
        );
        assert_eq!(
            c.count(
                &[json!({"role": "user", "content": "hello world", "name": "Bob"})],
                None,
                &web
            )
            .unwrap(),
            11
        );
        assert_eq!(high_quality(85, 170, 100, 100), Ok(765));
        assert_eq!(high_quality(85, 170, 2048, 4096), Ok(1105));
        // As AgentScope 1.0.21's counter: 3000×1 fits to 2048×0.
        let e = high_quality(85, 170, 3000, 1).expect_err("a ZeroDivisionError");
        assert_eq!(
            (e.kind, e.message.as_str()),
            ("ZeroDivisionError", "division by zero")
        );
    }

    #[test]
    fn special_tokens_raise() {
        let c = OpenAiTokenCounter::new("gpt-4o");
        let err = c
            .count(
                &[json!({"role": "user", "content": "a <|endoftext|> b"})],
                None,
                &NoNetwork,
            )
            .unwrap_err();
        assert!(err.message.starts_with(
            "Encountered text corresponding to disallowed special token '<|endoftext|>'."
        ));
    }
}
