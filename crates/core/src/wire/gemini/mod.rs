//! `GeminiChatModel` and google-genai 2.6's `models.generate_content[_stream]`:
//! the SDK validates the call into its pydantic types and converts them to
//! REST names (`_GenerateContentParameters_to_mldev`), so part keys become
//! camelCase, `None`s disappear, bytes are re-encoded URL-safe, and tool
//! schemas become genai `Schema`s (types upper-cased, fields in the model's
//! order, numbers where it wants floats).

use super::{
    any_to_required, ctor_map, validate_tool_choice, Constructed, Failure, Rejected, Wire,
};
use crate::formatter::{format_tools, Provider};
use crate::json;
use crate::py::pydantic;
use crate::py::{self, PyErr};
use base64::Engine;
use serde_json::{Map, Number, Value};

mod types;

/// `GenerateContentConfig` fields the REST request keeps at the top level,
/// and the rest, in `_GenerateContentConfig_to_mldev`'s order with their
/// REST names (`None`: copied as is under its python name).
const GENERATION: [(&str, &str); 17] = [
    ("temperature", "temperature"),
    ("top_p", "topP"),
    ("top_k", "topK"),
    ("candidate_count", "candidateCount"),
    ("max_output_tokens", "maxOutputTokens"),
    ("stop_sequences", "stopSequences"),
    ("response_logprobs", "responseLogprobs"),
    ("logprobs", "logprobs"),
    ("presence_penalty", "presencePenalty"),
    ("frequency_penalty", "frequencyPenalty"),
    ("seed", "seed"),
    ("response_mime_type", "responseMimeType"),
    ("response_json_schema", "responseJsonSchema"),
    ("response_modalities", "responseModalities"),
    ("media_resolution", "mediaResolution"),
    ("thinking_config", "thinkingConfig"),
    (
        "enable_enhanced_civic_answers",
        "enableEnhancedCivicAnswers",
    ),
];

/// `Schema`'s fields, in the model's order (its dump's key order).
const SCHEMA_FIELDS: [(&str, &str); 25] = [
    ("additional_properties", "additionalProperties"),
    ("defs", "defs"),
    ("ref", "ref"),
    ("any_of", "anyOf"),
    ("default", "default"),
    ("description", "description"),
    ("enum", "enum"),
    ("example", "example"),
    ("format", "format"),
    ("items", "items"),
    ("max_items", "maxItems"),
    ("max_length", "maxLength"),
    ("max_properties", "maxProperties"),
    ("maximum", "maximum"),
    ("min_items", "minItems"),
    ("min_length", "minLength"),
    ("min_properties", "minProperties"),
    ("minimum", "minimum"),
    ("nullable", "nullable"),
    ("pattern", "pattern"),
    ("properties", "properties"),
    ("property_ordering", "propertyOrdering"),
    ("required", "required"),
    ("title", "title"),
    ("type", "type"),
];

pub(super) fn build(
    model: &str,
    ctor: Map<String, Value>,
    messages: Vec<Value>,
    tools: Option<&Value>,
    settings: &super::Settings,
    warn: &mut dyn FnMut(String),
) -> Result<Wire, Rejected> {
    super::warn_unknown_ctor(
        &ctor,
        &[
            "stream",
            "thinking_config",
            "stream_tool_parsing",
            "client_kwargs",
            "generate_kwargs",
        ],
        warn,
    );
    let stream = ctor.get("stream").is_none_or(py::truthy);
    let constructed = Constructed {
        stream,
        model_kwargs: ctor.clone(),
    };
    let fail = |e| Box::new((Some(constructed.clone()), Failure::Model(e)));
    let mut config = Map::new();
    config.insert(
        "thinking_config".into(),
        ctor.get("thinking_config").cloned().unwrap_or(Value::Null),
    );
    config.extend(ctor_map(&ctor, "generate_kwargs"));
    config.extend(settings.call_kwargs.clone());
    if let Some(tools) = tools {
        config.insert(
            "tools".into(),
            format_tools(Provider::Gemini, tools, warn).map_err(fail)?,
        );
    }
    if let Some(choice) = settings.tool_choice.as_deref().filter(|c| !c.is_empty()) {
        let choice = any_to_required(choice, warn);
        validate_tool_choice(&choice, tools).map_err(fail)?;
        let calling = match choice.as_str() {
            "auto" => json!({"mode": "AUTO"}),
            "none" => json!({"mode": "NONE"}),
            "required" => json!({"mode": "ANY"}),
            name => json!({"mode": "ANY", "allowed_function_names": [name]}),
        };
        config.insert(
            "tool_config".into(),
            json!({"function_calling_config": calling}),
        );
    }
    let mut kwargs = Map::new();
    kwargs.insert("model".into(), Value::String(model.to_string()));
    kwargs.insert("contents".into(), Value::Array(messages));
    kwargs.insert("config".into(), Value::Object(config));
    let (sdk_call, method_name) = if stream {
        (
            "google.genai.Client.aio.models.generate_content_stream",
            "streamGenerateContent?alt=sse",
        )
    } else {
        (
            "google.genai.Client.aio.models.generate_content",
            "generateContent",
        )
    };
    // The SDK validates the config (looking for automatic function
    // calling), then the call's parameters, then converts them.
    let (checked, enum_warnings) = checked_body(&kwargs, Genai::V2_6);
    for w in enum_warnings {
        warn(w);
    }
    let (body, sdk_error) = match checked {
        Ok(b) => (b, None),
        Err(e) => (Value::Null, Some(e)),
    };
    let model_path = if model.starts_with("models/") || model.starts_with("tunedModels/") {
        model.to_string()
    } else {
        format!("models/{model}")
    };
    // genai.Client(**client_kwargs): http_options.base_url moves the host.
    let base = super::ctor_map(&ctor, "client_kwargs")
        .get("http_options")
        .and_then(|h| h.get("base_url"))
        .and_then(Value::as_str)
        .unwrap_or("https://generativelanguage.googleapis.com/")
        .trim_end_matches('/')
        .to_string();
    Ok(Wire {
        stream,
        model_kwargs: ctor,
        sdk_call,
        kwargs: Value::Object(kwargs),
        method: "POST",
        url: format!("{base}/v1beta/{model_path}:{method_name}"),
        headers: super::headers(&[
            ("content-type", "application/json"),
            ("x-goog-api-key", super::API_KEY),
        ]),
        body,
        sdk_error,
        encoding: super::Encoding::Spaced,
        grpc: None,
    })
}

/// The google-genai release that writes the body: they differ in the
/// name of an inline part's media type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Genai {
    /// 2.6.0, AgentScope 1.0.21's release day: `inlineData.mimeType`.
    V2_6,
    /// 2.33.0, AgentScope 2.0.11's: `inlineData.mime_type`.
    V2_33,
}

impl Genai {
    /// The pydantic release installed beside it (its error links name it).
    fn pydantic(self) -> &'static str {
        match self {
            Genai::V2_6 => "2.13",
            Genai::V2_33 => "2.14",
        }
    }

    fn inline_mime_key(self) -> &'static str {
        match self {
            Genai::V2_6 => "mimeType",
            Genai::V2_33 => "mime_type",
        }
    }
}

/// The SDK's checks of the call (the config, then the contents) and the
/// REST body it converts them to, with the warnings it logs: the config
/// is validated twice from the dict (the incompatible-tool scan, then the
/// MCP parse), each time warning about unknown enum values; a failure
/// stops at the first.
pub(crate) fn checked_body(
    kwargs: &Map<String, Value>,
    genai: Genai,
) -> (Result<Value, PyErr>, Vec<String>) {
    let config = kwargs.get("config").cloned().unwrap_or(Value::Null);
    let (config_checked, enum_warnings) = types::check_config(&config, genai);
    let passes = if config_checked.is_ok() { 2 } else { 1 };
    let warnings = (0..passes).flat_map(|_| enum_warnings.clone()).collect();
    let body = config_checked
        .and_then(|()| types::check_contents(kwargs.get("contents").unwrap_or(&Value::Null)))
        .and_then(|()| request_body(kwargs, genai));
    (body, warnings)
}

/// `_GenerateContentParameters_to_mldev`: `contents`, the top-level parts
/// of the config, then `generationConfig`.
fn request_body(kwargs: &Map<String, Value>, genai: Genai) -> Result<Value, PyErr> {
    let contents = py::iterate(kwargs.get("contents").unwrap_or(&Value::Null))?;
    if contents.is_empty() {
        return Err(PyErr::value("contents are required."));
    }
    let mut body = Map::new();
    body.insert(
        "contents".into(),
        Value::Array(
            contents
                .iter()
                .map(|c| content(c, genai))
                .collect::<Result<_, _>>()?,
        ),
    );
    let config = match kwargs.get("config") {
        Some(Value::Object(c)) => c.clone(),
        _ => Map::new(),
    };
    if let Some(v) = config.get("system_instruction").filter(|v| !v.is_null()) {
        body.insert("systemInstruction".into(), content(v, genai)?);
    }
    if let Some(v) = config.get("safety_settings").filter(|v| !v.is_null()) {
        body.insert("safetySettings".into(), v.clone());
    }
    if let Some(v) = config.get("tools").filter(|v| !v.is_null()) {
        body.insert("tools".into(), tools(v)?);
    }
    if let Some(v) = config.get("tool_config").filter(|v| !v.is_null()) {
        body.insert("toolConfig".into(), tool_config(v)?);
    }
    if let Some(v) = config.get("cached_content").filter(|v| !v.is_null()) {
        body.insert("cachedContent".into(), v.clone());
    }
    let mut generation = Map::new();
    for (python, rest) in GENERATION {
        if let Some(v) = config.get(python).filter(|v| !v.is_null()) {
            let v = match python {
                "thinking_config" => thinking_config(v),
                // What lax validation made of the value: `Optional[float]`
                // sends 20 as 20.0, "0.5" as 0.5; ints and bools likewise.
                "temperature" | "top_p" | "top_k" | "presence_penalty" | "frequency_penalty" => {
                    lax_float(v).unwrap_or_else(|| v.clone())
                }
                "candidate_count" | "max_output_tokens" | "logprobs" | "seed" => lax_int(v),
                "response_logprobs" | "enable_enhanced_civic_answers" => lax_bool(v),
                _ => v.clone(),
            };
            generation.insert(rest.into(), v);
        }
    }
    body.insert("generationConfig".into(), Value::Object(generation));
    if let Some(v) = config.get("service_tier").filter(|v| !v.is_null()) {
        body.insert("serviceTier".into(), v.clone());
    }
    Ok(Value::Object(body))
}

/// `ThinkingConfig`'s dump: its fields in order, as validated.
fn thinking_config(v: &Value) -> Value {
    let mut out = Map::new();
    if let Some(x) = field(v, "include_thoughts", "includeThoughts") {
        out.insert("include_thoughts".into(), lax_bool(x));
    }
    if let Some(x) = field(v, "thinking_budget", "thinkingBudget") {
        out.insert("thinking_budget".into(), lax_int(x));
    }
    if let Some(x) = field(v, "thinking_level", "thinkingLevel") {
        out.insert("thinking_level".into(), types::thinking_level(x));
    }
    Value::Object(out)
}

/// A nested dict the SDK copies whole: `None`s dropped.
fn dump_plain(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), dump_plain(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `value[snake]` or `value[camelCase]`, as pydantic reads an alias.
fn field<'a>(value: &'a Value, snake: &str, camel: &str) -> Option<&'a Value> {
    value
        .get(snake)
        .or_else(|| value.get(camel))
        .filter(|v| !v.is_null())
}

/// `_Content_to_mldev`: `parts`, then `role`.
fn content(c: &Value, genai: Genai) -> Result<Value, PyErr> {
    if let Value::String(text) = c {
        return Ok(json!({"parts": [{"text": text}], "role": "user"}));
    }
    let mut out = Map::new();
    if let Some(parts) = field(c, "parts", "parts") {
        out.insert(
            "parts".into(),
            Value::Array(
                py::iterate(parts)?
                    .iter()
                    .map(|p| part(p, genai))
                    .collect::<Result<_, _>>()?,
            ),
        );
    }
    if let Some(role) = field(c, "role", "role") {
        out.insert("role".into(), role.clone());
    }
    Ok(Value::Object(out))
}

/// `_Part_to_mldev`, in its order.
fn part(p: &Value, genai: Genai) -> Result<Value, PyErr> {
    let mut out = Map::new();
    if let Some(v) = field(p, "media_resolution", "mediaResolution") {
        out.insert("mediaResolution".into(), v.clone());
    }
    if let Some(v) = field(p, "code_execution_result", "codeExecutionResult") {
        out.insert("codeExecutionResult".into(), dump_plain(v));
    }
    if let Some(v) = field(p, "executable_code", "executableCode") {
        out.insert("executableCode".into(), dump_plain(v));
    }
    if let Some(v) = field(p, "file_data", "fileData") {
        let mut f = Map::new();
        if let Some(u) = field(v, "file_uri", "fileUri") {
            f.insert("fileUri".into(), u.clone());
        }
        if let Some(m) = field(v, "mime_type", "mimeType") {
            f.insert("mimeType".into(), m.clone());
        }
        out.insert("fileData".into(), Value::Object(f));
    }
    if let Some(v) = field(p, "function_call", "functionCall") {
        let mut f = Map::new();
        for (snake, rest) in [("id", "id"), ("args", "args"), ("name", "name")] {
            if let Some(x) = field(v, snake, rest) {
                f.insert(rest.into(), x.clone());
            }
        }
        out.insert("functionCall".into(), Value::Object(f));
    }
    if let Some(v) = field(p, "function_response", "functionResponse") {
        let mut f = Map::new();
        for (snake, camel) in [
            ("will_continue", "willContinue"),
            ("scheduling", "scheduling"),
            ("parts", "parts"),
            ("id", "id"),
            ("name", "name"),
            ("response", "response"),
        ] {
            if let Some(x) = field(v, snake, camel) {
                f.insert(snake.into(), x.clone());
            }
        }
        out.insert("functionResponse".into(), Value::Object(f));
    }
    if let Some(v) = field(p, "inline_data", "inlineData") {
        let mut f = Map::new();
        if let Some(d) = field(v, "data", "data") {
            f.insert(
                "data".into(),
                Value::String(url_safe(d, "inline_data.data")?),
            );
        }
        if let Some(m) = field(v, "mime_type", "mimeType") {
            f.insert(genai.inline_mime_key().into(), m.clone());
        }
        out.insert("inlineData".into(), Value::Object(f));
    }
    if let Some(v) = field(p, "text", "text") {
        out.insert("text".into(), v.clone());
    }
    if let Some(v) = field(p, "thought", "thought") {
        out.insert("thought".into(), v.clone());
    }
    if let Some(v) = field(p, "thought_signature", "thoughtSignature") {
        out.insert(
            "thoughtSignature".into(),
            Value::String(url_safe(v, "thought_signature")?),
        );
    }
    if let Some(v) = field(p, "video_metadata", "videoMetadata") {
        out.insert("videoMetadata".into(), dump_plain(v));
    }
    Ok(Value::Object(out))
}

/// A bytes field, written URL-safe as pydantic serialises bytes.
/// Python `bytes` in the formatter's output (`{"$bytes": base64}`) are
/// the bytes themselves; a string is base64 text, decoded as pydantic
/// decodes it (validation has already refused what it cannot decode).
fn url_safe(v: &Value, what: &str) -> Result<String, PyErr> {
    let bytes = match v.get("$bytes") {
        Some(Value::String(b64)) => base64::engine::general_purpose::STANDARD.decode(b64).ok(),
        _ => pydantic::base64_bytes(v.as_str().unwrap_or_default()).ok(),
    };
    let bytes = bytes.ok_or_else(|| {
        PyErr::new(
            "ValidationError",
            format!("1 validation error for Part\n{what}\n  Base64 decoding error"),
        )
    })?;
    Ok(base64::engine::general_purpose::URL_SAFE.encode(bytes))
}

/// `t_tools` then `_Tool_to_mldev`: function declarations merged into one
/// tool, each a `FunctionDeclaration` dump (`description`, `name`,
/// `parameters` as a genai `Schema`).
fn tools(v: &Value) -> Result<Value, PyErr> {
    let mut declarations = Vec::new();
    let mut others = Vec::new();
    for tool in py::iterate(v)? {
        match field(&tool, "function_declarations", "functionDeclarations") {
            Some(list) if py::truthy(list) => {
                for d in py::iterate(list)? {
                    declarations.push(declaration(&d)?);
                }
            }
            _ => others.push(dump_plain(&tool)),
        }
    }
    if !declarations.is_empty() {
        others.push(json!({"functionDeclarations": declarations}));
    }
    Ok(Value::Array(others))
}

fn declaration(d: &Value) -> Result<Value, PyErr> {
    let mut out = Map::new();
    for key in ["description", "name"] {
        if let Some(v) = field(d, key, key) {
            out.insert(key.into(), v.clone());
        }
    }
    if let Some(p) = field(d, "parameters", "parameters") {
        out.insert("parameters".into(), schema(p)?);
    }
    if let Some(p) = field(d, "parameters_json_schema", "parametersJsonSchema") {
        out.insert("parameters_json_schema".into(), p.clone());
    }
    Ok(Value::Object(out))
}

/// A JSON schema as genai's `Schema` dumps it.
fn schema(s: &Value) -> Result<Value, PyErr> {
    let Value::Object(map) = s else {
        return Err(invalid("Schema", "Input should be a valid dictionary"));
    };
    if let Some(k) = map.keys().find(|k| {
        !SCHEMA_FIELDS
            .iter()
            .any(|(snake, camel)| k.as_str() == *snake || k.as_str() == *camel)
    }) {
        return Err(invalid(k, "Extra inputs are not permitted"));
    }
    let mut out = Map::new();
    for (snake, camel) in SCHEMA_FIELDS {
        let Some(v) = field(s, snake, camel) else {
            continue;
        };
        let v = match snake {
            "type" => match v {
                Value::String(t) => Value::String(types::schema_type(t)),
                _ => return Err(invalid("type", "Input should be a valid string")),
            },
            "items" => schema(v)?,
            "any_of" => Value::Array(
                py::iterate(v)?
                    .iter()
                    .map(schema)
                    .collect::<Result<_, _>>()?,
            ),
            "properties" | "defs" => {
                let Value::Object(m) = v else {
                    return Err(invalid(snake, "Input should be a valid dictionary"));
                };
                let mut props = Map::new();
                for (k, sub) in m {
                    props.insert(k.clone(), schema(sub)?);
                }
                Value::Object(props)
            }
            // Validated in lax mode: the value pydantic made of the input.
            "maximum" | "minimum" => match lax_float(v) {
                Some(f) => f,
                None => return Err(invalid(snake, "Input should be a valid number")),
            },
            "max_items" | "max_length" | "max_properties" | "min_items" | "min_length"
            | "min_properties" => lax_int(v),
            "nullable" => lax_bool(v),
            "enum" => {
                for member in py::iterate(v)? {
                    if !member.is_string() {
                        return Err(invalid("enum", "Input should be a valid string"));
                    }
                }
                v.clone()
            }
            _ => v.clone(),
        };
        out.insert(snake.into(), v);
    }
    Ok(Value::Object(out))
}

/// A float field's value after lax validation (`True`, `"1e3"`, 20 are
/// 1.0, 1000.0, 20.0); `None` when it is no number.
fn lax_float(v: &Value) -> Option<Value> {
    let f = match v {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::String(t) => pydantic::float_text(t),
        _ => None,
    }?;
    Some(Value::Number(Number::from_string_unchecked(
        py::python_float_repr(f),
    )))
}

/// A bool field's value after lax validation (1, "yes", "off").
fn lax_bool(v: &Value) -> Value {
    match v {
        Value::Number(n) => Value::Bool(n.as_f64() == Some(1.0)),
        Value::String(t) => Value::Bool(matches!(
            t.trim().to_lowercase().as_str(),
            "1" | "on" | "t" | "true" | "y" | "yes"
        )),
        _ => v.clone(),
    }
}

/// An int field's value after lax validation: `"3"`, `3.0` and `True` are
/// 3, 3 and 1.
fn lax_int(v: &Value) -> Value {
    let text = match v {
        Value::Bool(b) => return Value::from(u8::from(*b)),
        Value::Number(n) if n.is_f64() => n.as_f64().map(|f| format!("{f:.0}")),
        Value::String(t) => {
            let t = t.trim().replace('_', "");
            Some(t.split('.').next().unwrap_or_default().to_string())
        }
        _ => None,
    };
    text.and_then(|t| t.trim_start_matches('+').parse::<Number>().ok())
        .map_or_else(|| v.clone(), Value::Number)
}

fn invalid(field: &str, what: &str) -> PyErr {
    PyErr::new(
        "ValidationError",
        format!("1 validation error for Schema\n{field}\n  {what}"),
    )
}

/// `_ToolConfig_to_mldev`.
fn tool_config(v: &Value) -> Result<Value, PyErr> {
    let mut out = Map::new();
    if let Some(c) = field(v, "function_calling_config", "functionCallingConfig") {
        let mut f = Map::new();
        if let Some(names) = field(c, "allowed_function_names", "allowedFunctionNames") {
            f.insert("allowedFunctionNames".into(), names.clone());
        }
        if let Some(mode) = field(c, "mode", "mode") {
            f.insert("mode".into(), mode.clone());
        }
        out.insert("functionCallingConfig".into(), Value::Object(f));
    }
    Ok(Value::Object(out))
}
