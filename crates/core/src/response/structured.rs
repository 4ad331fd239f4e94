//! Structured output (`structured_model`) where the SDK takes part: OpenAI's
//! `response_format` parse helpers validate the reply against the model.
//! The response oracle's model is `WeatherReport(city: str,
//! temperature_c: float, conditions: str)`; so is ours.

use super::args::py_loads;
use super::{str_of, ParseError};
use crate::json;
use serde_json::{Map, Value};

/// pydantic's `ValidationError` text for a reply that is no
/// `WeatherReport` (`2 validation errors for WeatherReport\ncity\n  Field
/// required...`): the text is what AgentScope shows, so it is all there is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ValidationError(pub String);

/// Where a text stops being the start of JSON, as jiter says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("expected value at line {line} column {column}")]
pub struct PrefixError {
    pub line: usize,
    pub column: usize,
}

/// `WeatherReport.model_validate_json(text).model_dump()`, or pydantic's
/// error count.
pub fn validate_weather_report(text: &str) -> Result<Value, ValidationError> {
    let value = serde_json::from_str::<Value>(text).map_err(|e| {
        ValidationError(format!(
            "1 validation error for WeatherReport\n  Invalid JSON: {e}"
        ))
    })?;
    let Some(obj) = value.as_object() else {
        return Err(ValidationError(
            "1 validation error for WeatherReport\n  Input should be an object".into(),
        ));
    };
    let mut errors = Vec::new();
    let mut out = Map::new();
    for field in ["city", "temperature_c", "conditions"] {
        match (field, obj.get(field)) {
            (_, None) => errors.push(format!("{field}\n  Field required")),
            ("temperature_c", Some(v)) => match as_float(v) {
                Some(f) => {
                    out.insert(field.into(), float_value(f));
                }
                None => errors.push(format!("{field}\n  Input should be a valid number")),
            },
            (_, Some(Value::String(s))) => {
                out.insert(field.into(), Value::String(s.clone()));
            }
            (_, Some(_)) => errors.push(format!("{field}\n  Input should be a valid string")),
        }
    }
    if errors.is_empty() {
        Ok(Value::Object(out))
    } else {
        Err(ValidationError(format!(
            "{} validation error{} for WeatherReport\n{}",
            errors.len(),
            if errors.len() == 1 { "" } else { "s" },
            errors.join("\n")
        )))
    }
}

/// pydantic's lax float from JSON: numbers, and strings holding one.
fn as_float(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
}

fn float_value(f: f64) -> Value {
    let text = crate::py::python_float_repr(f);
    py_loads(&text).unwrap_or_else(|| json!(f))
}

/// `client.chat.completions.parse(...)` on a whole completion, then
/// AgentScope's check: the metadata (`parsed.model_dump()`), or the error.
pub fn openai_parse_completion(body: &Value) -> Result<Value, ParseError> {
    let choices = body
        .get("choices")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut first_parsed = None;
    for (i, choice) in choices.iter().enumerate() {
        finish_reason_check(choice)?;
        let message = choice.get("message").cloned().unwrap_or(Value::Null);
        let content = str_of(&message, "content").unwrap_or("");
        let refusal = message.get("refusal").is_some_and(|r| !r.is_null());
        let parsed =
            if !content.is_empty() && !refusal {
                Some(validate_weather_report(content).map_err(|e| {
                    ParseError::structured_fallback(format!("ValidationError: {e}"))
                })?)
            } else {
                None
            };
        if i == 0 {
            first_parsed = parsed;
        }
    }
    if choices.is_empty() {
        return Err(ParseError::structured_fallback(
            "response_format returned no choices",
        ));
    }
    first_parsed.ok_or_else(|| {
        ParseError::structured_fallback(
            "response_format returned a body that does not conform to the requested schema \
             (parsed type: NoneType)",
        )
    })
}

fn finish_reason_check(choice: &Value) -> Result<(), ParseError> {
    match str_of(choice, "finish_reason") {
        Some("length") => Err(ParseError::new(
            "LengthFinishReasonError",
            "Could not parse response content as the length limit was reached",
        )),
        Some("content_filter") => Err(ParseError::new(
            "ContentFilterFinishReasonError",
            "Could not parse response content as the request was rejected by the content filter",
        )),
        _ => Ok(()),
    }
}

/// What `client.chat.completions.stream(response_format=...)` checks while
/// it accumulates the chunks AgentScope then reads.
#[derive(Debug, Default)]
pub struct OpenAIStreamCheck {
    content: String,
    refusal: bool,
    content_done: bool,
    started: bool,
}

impl OpenAIStreamCheck {
    pub fn accumulate(&mut self, chunk: &Value) -> Result<(), ParseError> {
        // The helper takes the stream's first chunk as its snapshot without
        // checking it; later ones are checked as they accumulate.
        let first = !self.started;
        self.started = true;
        let Some(choice) = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return Ok(());
        };
        let delta = choice.get("delta").cloned().unwrap_or(Value::Null);
        if let Some(s) = str_of(&delta, "content") {
            self.content.push_str(s);
        }
        if delta.get("refusal").is_some_and(|r| !r.is_null()) {
            self.refusal = true;
        }
        let finished = choice.get("finish_reason").is_some_and(|f| !f.is_null());
        if finished && !first {
            finish_reason_check(choice)?;
        }
        // The helper parses the partial content after every chunk (jiter,
        // partial mode), which rejects what can never become JSON.
        if !first
            && !self.content.is_empty()
            && !self.refusal
            && !self.content.trim_start().is_empty()
        {
            partial_json_prefix(&self.content)
                .map_err(|e| ParseError::new("ValueError", e.to_string()))?;
        }
        let tool_started = delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .is_some_and(|c| !c.is_empty());
        if (finished || tool_started) && !self.content.is_empty() && !self.content_done {
            self.content_done = true;
            if !self.refusal {
                validate_weather_report(&self.content).map_err(|e| {
                    ParseError::structured_fallback(format!("streaming ValidationError: {e}"))
                })?;
            }
        }
        Ok(())
    }

    pub fn finish(&mut self) -> Result<(), ParseError> {
        Ok(())
    }
}

/// Whether `text` is JSON or the start of it (jiter's partial mode: an
/// unfinished value at the end is fine, what follows a finished one is not
/// read). The error names the position as jiter does.
pub fn partial_json_prefix(text: &str) -> Result<(), PrefixError> {
    let chars: Vec<char> = text.chars().collect();
    let mut p = Prefix { s: &chars, i: 0 };
    match p.value(0) {
        Ok(()) | Err(None) => Ok(()),
        Err(Some(at)) => {
            let line = chars[..at.min(chars.len())]
                .iter()
                .filter(|c| **c == '\n')
                .count()
                + 1;
            let col = chars[..at.min(chars.len())]
                .iter()
                .rev()
                .take_while(|c| **c != '\n')
                .count()
                + 1;
            Err(PrefixError { line, column: col })
        }
    }
}

struct Prefix<'a> {
    s: &'a [char],
    i: usize,
}

/// `Err(None)`: the text ended inside a value (fine in partial mode);
/// `Err(Some(at))`: invalid at `at`.
type Step = Result<(), Option<usize>>;

impl Prefix<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], ' ' | '\t' | '\n' | '\r') {
            self.i += 1;
        }
    }

    fn peek(&self) -> Result<char, Option<usize>> {
        self.s.get(self.i).copied().ok_or(None)
    }

    fn value(&mut self, depth: usize) -> Step {
        if depth > 200 {
            return Err(Some(self.i));
        }
        self.ws();
        match self.peek()? {
            '{' => {
                self.i += 1;
                self.ws();
                if self.peek()? == '}' {
                    self.i += 1;
                    return Ok(());
                }
                loop {
                    self.ws();
                    if self.peek()? != '"' {
                        return Err(Some(self.i));
                    }
                    self.string()?;
                    self.ws();
                    if self.peek()? != ':' {
                        return Err(Some(self.i));
                    }
                    self.i += 1;
                    self.value(depth + 1)?;
                    self.ws();
                    match self.peek()? {
                        ',' => self.i += 1,
                        '}' => {
                            self.i += 1;
                            return Ok(());
                        }
                        _ => return Err(Some(self.i)),
                    }
                }
            }
            '[' => {
                self.i += 1;
                self.ws();
                if self.peek()? == ']' {
                    self.i += 1;
                    return Ok(());
                }
                loop {
                    self.value(depth + 1)?;
                    self.ws();
                    match self.peek()? {
                        ',' => self.i += 1,
                        ']' => {
                            self.i += 1;
                            return Ok(());
                        }
                        _ => return Err(Some(self.i)),
                    }
                }
            }
            '"' => self.string(),
            't' => self.literal("true"),
            'f' => self.literal("false"),
            'n' => self.literal("null"),
            'N' => self.literal("NaN"),
            'I' => self.literal("Infinity"),
            '-' | '0'..='9' => {
                self.i += 1;
                while self.i < self.s.len()
                    && matches!(self.s[self.i], '0'..='9' | '.' | 'e' | 'E' | '+' | '-')
                {
                    self.i += 1;
                }
                Ok(())
            }
            _ => Err(Some(self.i)),
        }
    }

    fn literal(&mut self, word: &str) -> Step {
        for w in word.chars() {
            let c = self.peek()?;
            if c != w {
                return Err(Some(self.i));
            }
            self.i += 1;
        }
        Ok(())
    }

    fn string(&mut self) -> Step {
        self.i += 1;
        loop {
            match self.peek()? {
                '"' => {
                    self.i += 1;
                    return Ok(());
                }
                '\\' => {
                    self.i += 1;
                    self.peek()?;
                    self.i += 1;
                }
                _ => self.i += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_prefixes_are_told_from_text() {
        for ok in [
            "{\"city\": \"Par",
            "{\"city\"",
            "{",
            "  {\"a\": 1",
            "{\"a\": tru",
            "{\"a\": 1}x",
            "{\"a\": 12.",
        ] {
            assert!(partial_json_prefix(ok).is_ok(), "{ok}");
        }
        assert!(partial_json_prefix("Sure").is_err());
        assert!(partial_json_prefix("{\"a\": trux").is_err());
    }

    #[test]
    fn a_weather_report_validates_as_pydantic_would() {
        let v = validate_weather_report(
            r#"{"city": "Oslo", "temperature_c": 4, "conditions": "rain"}"#,
        )
        .expect("valid");
        assert_eq!(v["temperature_c"].to_string(), "4.0");
        assert!(validate_weather_report(r#"{"city": "Oslo"}"#).is_err());
    }
}
