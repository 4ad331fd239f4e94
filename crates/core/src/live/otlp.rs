//! One OTLP/HTTP trace export, decoded: the spans AgentScope made, with
//! their attributes as JSON values. The wire types are the
//! `opentelemetry-proto` crate's (prost for protobuf, its serde mapping
//! for OTLP/JSON: hex ids, 64-bit integers as strings); what is ours is
//! the bounded decompression, snake_case keys (which the crate's serde
//! mapping does not take, and OTLP says a receiver should) and keeping
//! only the spans of AgentScope's instrumentation scope.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue};
use serde_json::{Map, Number, Value};
use std::io::Read;

/// The instrumentation scope AgentScope's spans carry; its version is the
/// AgentScope version.
pub const SCOPE: &str = "agentscope";

/// One span of AgentScope's.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    /// Lowercase hex, as OTLP/JSON writes them.
    pub trace_id: String,
    pub span_id: String,
    /// Empty for a root span.
    pub parent_id: String,
    /// `format OpenAIMultiAgentFormatter`, `chat gpt-4o`.
    pub name: String,
    /// The AgentScope version that made it ("1.0.21").
    pub version: String,
    pub start_ns: u64,
    pub end_ns: u64,
    pub attributes: Map<String, Value>,
    /// The status message when the call raised.
    pub error: Option<String>,
}

impl Span {
    /// A string attribute.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).and_then(Value::as_str)
    }
}

/// How an export's body is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Protobuf,
    Json,
}

impl Encoding {
    /// From the `Content-Type` header: JSON when it says so, else
    /// protobuf (what every Python exporter sends).
    pub fn of_content_type(value: Option<&str>) -> Encoding {
        let is_json = value.is_some_and(|v| {
            v.split(';')
                .next()
                .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
        });
        if is_json {
            Encoding::Json
        } else {
            Encoding::Protobuf
        }
    }
}

/// Why an export was refused (answered 400).
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum DecodeError {
    #[error("unknown Content-Encoding {0:?} (gzip, deflate or none)")]
    Compression(String),
    #[error("the body does not decompress: {0}")]
    Corrupt(String),
    #[error("the body is larger than {limit} bytes once decompressed")]
    TooLarge { limit: u64 },
    #[error("not an OTLP trace export: {0}")]
    NotAnExport(String),
}

/// The body decompressed as `Content-Encoding` says, at most `limit`
/// bytes (a small gzip can hold gigabytes).
pub fn decompress(body: &[u8], encoding: Option<&str>, limit: u64) -> Result<Vec<u8>, DecodeError> {
    let name = encoding.map(|e| e.trim().to_ascii_lowercase());
    let read_all = |reader: &mut dyn Read| -> Result<Vec<u8>, DecodeError> {
        let mut out = Vec::new();
        reader
            .take(limit + 1)
            .read_to_end(&mut out)
            .map_err(|e| DecodeError::Corrupt(e.to_string()))?;
        if out.len() as u64 > limit {
            return Err(DecodeError::TooLarge { limit });
        }
        Ok(out)
    };
    match name.as_deref() {
        None | Some("") | Some("identity") => {
            if body.len() as u64 > limit {
                return Err(DecodeError::TooLarge { limit });
            }
            Ok(body.to_vec())
        }
        Some("gzip") | Some("x-gzip") => read_all(&mut flate2::read::GzDecoder::new(body)),
        // HTTP's deflate is zlib-wrapped (Python's exporter writes
        // `zlib.compress`); some senders write it raw.
        Some("deflate") => read_all(&mut flate2::read::ZlibDecoder::new(body))
            .or_else(|_| read_all(&mut flate2::read::DeflateDecoder::new(body))),
        Some(other) => Err(DecodeError::Compression(other.to_string())),
    }
}

/// The AgentScope spans of one export (already decompressed).
pub fn decode(body: &[u8], encoding: Encoding) -> Result<Vec<Span>, DecodeError> {
    let request = match encoding {
        Encoding::Protobuf => {
            use prost::Message;
            ExportTraceServiceRequest::decode(body)
                .map_err(|e| DecodeError::NotAnExport(e.to_string()))?
        }
        Encoding::Json => {
            let mut value: Value = serde_json::from_slice(body)
                .map_err(|e| DecodeError::NotAnExport(e.to_string()))?;
            camel_keys(&mut value, 0);
            serde_json::from_value(value).map_err(|e| DecodeError::NotAnExport(e.to_string()))?
        }
    };
    let mut spans = Vec::new();
    for resource in request.resource_spans {
        for scoped in resource.scope_spans {
            let Some(scope) = scoped.scope.filter(|s| s.name == SCOPE) else {
                continue;
            };
            for span in scoped.spans {
                let attributes = span
                    .attributes
                    .into_iter()
                    .filter_map(|kv| Some((kv.key, json_of(kv.value?, 0))))
                    .collect();
                let error = span.status.filter(|s| s.code == 2).map(|s| s.message);
                spans.push(Span {
                    trace_id: hex(&span.trace_id),
                    span_id: hex(&span.span_id),
                    parent_id: hex(&span.parent_span_id),
                    name: span.name,
                    version: scope.version.clone(),
                    start_ns: span.start_time_unix_nano,
                    end_ns: span.end_time_unix_nano,
                    attributes,
                    error,
                });
            }
        }
    }
    Ok(spans)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Attribute nesting deeper than this is cut (a hostile export must not
/// overflow the stack); AgentScope's are flat.
const DEPTH: usize = 64;

/// An attribute value as JSON: strings, integers, doubles (NaN and the
/// infinities as their names, which JSON cannot hold), booleans, arrays,
/// key-value lists as objects, bytes as base64.
fn json_of(value: AnyValue, depth: usize) -> Value {
    let Some(value) = value.value else {
        return Value::Null;
    };
    if depth > DEPTH {
        return Value::Null;
    }
    match value {
        any_value::Value::StringValue(s) => Value::String(s),
        any_value::Value::BoolValue(b) => Value::Bool(b),
        any_value::Value::IntValue(i) => Value::Number(i.into()),
        any_value::Value::DoubleValue(d) => Number::from_f64(d)
            .map(Value::Number)
            .unwrap_or_else(|| Value::String(d.to_string())),
        any_value::Value::ArrayValue(a) => Value::Array(
            a.values
                .into_iter()
                .map(|v| json_of(v, depth + 1))
                .collect(),
        ),
        any_value::Value::KvlistValue(kv) => Value::Object(
            kv.values
                .into_iter()
                .filter_map(|kv| Some((kv.key, json_of(kv.value?, depth + 1))))
                .collect(),
        ),
        any_value::Value::BytesValue(b) => Value::String(crate::py::b64encode(&b)),
        #[allow(unreachable_patterns)]
        _ => Value::Null,
    }
}

/// OTLP/JSON's snake_case spelling (`resource_spans`, `string_value`)
/// turned into the camelCase the crate reads. Attribute keys are values
/// (`{"key": "gen_ai.request.model"}`), never object keys, so they stay.
fn camel_keys(value: &mut Value, depth: usize) {
    if depth > DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            if map.keys().any(|k| k.contains('_')) {
                let old = std::mem::take(map);
                for (k, v) in old {
                    map.insert(camel(&k), v);
                }
            }
            for v in map.values_mut() {
                camel_keys(v, depth + 1);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| camel_keys(v, depth + 1)),
        _ => {}
    }
}

fn camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON: &str = r#"{"resource_spans": [{"scope_spans": [
        {"scope": {"name": "other"}, "spans": [{"name": "x", "traceId": "00", "spanId": "01"}]},
        {"scope": {"name": "agentscope", "version": "1.0.21"}, "spans": [
            {"trace_id": "5b8efff798038103d269b633813fc60c", "span_id": "eee19b7ec3c1b174",
             "name": "chat gpt-4o", "start_time_unix_nano": "1544712660000000000",
             "endTimeUnixNano": 1544712661000000000,
             "attributes": [{"key": "gen_ai.request.model", "value": {"stringValue": "gpt-4o"}},
                            {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "10"}}],
             "status": {"code": 2, "message": "boom"}}]}]}]}"#;

    /// OTLP/JSON in either key spelling, ids as hex, only AgentScope's
    /// scope kept, its version the release.
    #[test]
    fn json_exports_decode_in_either_key_spelling() {
        let spans = decode(JSON.as_bytes(), Encoding::Json).expect("decodes");
        assert_eq!(spans.len(), 1);
        let s = &spans[0];
        assert_eq!(s.trace_id, "5b8efff798038103d269b633813fc60c");
        assert_eq!(
            (s.name.as_str(), s.version.as_str()),
            ("chat gpt-4o", "1.0.21")
        );
        assert_eq!(s.text("gen_ai.request.model"), Some("gpt-4o"));
        assert_eq!(s.attributes["gen_ai.usage.input_tokens"], 10);
        assert_eq!(s.error.as_deref(), Some("boom"));
        assert!(s.end_ns > s.start_ns && s.parent_id.is_empty());
    }

    /// Hostile bodies are errors, never panics: garbage, a gzip bomb past
    /// the limit, an unknown encoding.
    #[test]
    fn bad_bodies_are_errors() {
        assert!(decode(b"\xff\xff\xff", Encoding::Protobuf).is_err());
        assert!(decode(b"{\"resourceSpans\": 7}", Encoding::Json).is_err());
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut gz, &vec![0u8; 1 << 20]).expect("write");
        let bomb = gz.finish().expect("finish");
        assert_eq!(
            decompress(&bomb, Some("gzip"), 1000),
            Err(DecodeError::TooLarge { limit: 1000 })
        );
        assert!(matches!(
            decompress(b"x", Some("br"), 10),
            Err(DecodeError::Compression(_))
        ));
        assert!(decompress(b"not gzip", Some("gzip"), 10).is_err());
    }
}
