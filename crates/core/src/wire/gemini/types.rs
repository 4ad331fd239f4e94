//! google-genai 2.6's pydantic models, as far as a request reaches them:
//! `GenerateContentConfig` (validated first, when the SDK looks for
//! automatic function calling) and `_GenerateContentParameters.contents`.
//! Every model forbids unknown keys and takes its fields by camelCase alias
//! or by name; a field the formatters never fill is `Any`.

use crate::py::pydantic::{check, check_as, validate, Field, Model, Outcome, Ty};
use crate::py::PyErr;
use serde_json::Value;

const fn f(name: &'static str, alias: &'static str, ty: Ty) -> Field {
    Field::opt(name, Some(alias), ty)
}

static SCHEMA_TY: Ty = Ty::Model(&SCHEMA);
const LEVELS: [&str; 5] = [
    "THINKING_LEVEL_UNSPECIFIED",
    "MINIMAL",
    "LOW",
    "MEDIUM",
    "HIGH",
];
const TYPES: [&str; 8] = [
    "TYPE_UNSPECIFIED",
    "STRING",
    "NUMBER",
    "INTEGER",
    "BOOLEAN",
    "ARRAY",
    "OBJECT",
    "NULL",
];
static STR_TY: Ty = Ty::Str;
static ANY_TY: Ty = Ty::Any;

/// `Schema`, in its field order.
static SCHEMA: Model = Model {
    forbid_extra: true,
    fields: &[
        f("additional_properties", "additionalProperties", Ty::Any),
        f("defs", "defs", Ty::Dict(&SCHEMA_TY)),
        f("ref", "ref", Ty::Str),
        f("any_of", "anyOf", Ty::List(&SCHEMA_TY)),
        f("default", "default", Ty::Any),
        f("description", "description", Ty::Str),
        f("enum", "enum", Ty::List(&STR_TY)),
        f("example", "example", Ty::Any),
        f("format", "format", Ty::Str),
        f("items", "items", Ty::Model(&SCHEMA)),
        f("max_items", "maxItems", Ty::Int),
        f("max_length", "maxLength", Ty::Int),
        f("max_properties", "maxProperties", Ty::Int),
        f("maximum", "maximum", Ty::Float),
        f("min_items", "minItems", Ty::Int),
        f("min_length", "minLength", Ty::Int),
        f("min_properties", "minProperties", Ty::Int),
        f("minimum", "minimum", Ty::Float),
        f("nullable", "nullable", Ty::Bool),
        f("pattern", "pattern", Ty::Str),
        f("properties", "properties", Ty::Dict(&SCHEMA_TY)),
        f("property_ordering", "propertyOrdering", Ty::List(&STR_TY)),
        f("required", "required", Ty::List(&STR_TY)),
        f("title", "title", Ty::Str),
        f("type", "type", Ty::Enum("Type", &TYPES)),
    ],
};

static FUNCTION_DECLARATION_TY: Ty = Ty::Model(&FUNCTION_DECLARATION);
static FUNCTION_DECLARATION: Model = Model {
    forbid_extra: true,
    fields: &[
        f("description", "description", Ty::Str),
        f("name", "name", Ty::Str),
        f("parameters", "parameters", Ty::Model(&SCHEMA)),
        f("parameters_json_schema", "parametersJsonSchema", Ty::Any),
        f("response", "response", Ty::Model(&SCHEMA)),
        f("response_json_schema", "responseJsonSchema", Ty::Any),
        f(
            "behavior",
            "behavior",
            Ty::Enum("Behavior", &["UNSPECIFIED", "BLOCKING", "NON_BLOCKING"]),
        ),
    ],
};

/// genai's `Tool`.
static TOOL: Model = Model {
    forbid_extra: true,
    fields: &[
        f("retrieval", "retrieval", Ty::Any),
        f("computer_use", "computerUse", Ty::Any),
        f("file_search", "fileSearch", Ty::Any),
        f("google_search", "googleSearch", Ty::Any),
        f("google_maps", "googleMaps", Ty::Any),
        f("code_execution", "codeExecution", Ty::Any),
        f("enterprise_web_search", "enterpriseWebSearch", Ty::Any),
        f(
            "function_declarations",
            "functionDeclarations",
            Ty::List(&FUNCTION_DECLARATION_TY),
        ),
        f("google_search_retrieval", "googleSearchRetrieval", Ty::Any),
        f("parallel_ai_search", "parallelAiSearch", Ty::Any),
        f("url_context", "urlContext", Ty::Any),
        f("mcp_servers", "mcpServers", Ty::Any),
    ],
};

/// mcp's `Tool` (extra keys allowed; a name and an input schema required).
static MCP_TOOL: Model = Model {
    forbid_extra: false,
    fields: &[
        Field {
            name: "name",
            alias: None,
            ty: Ty::Str,
            required: true,
        },
        Field::opt("title", None, Ty::Str),
        Field::opt("description", None, Ty::Str),
        Field {
            name: "inputSchema",
            alias: None,
            ty: Ty::Dict(&ANY_TY),
            required: true,
        },
        Field::opt("outputSchema", None, Ty::Dict(&ANY_TY)),
        Field::opt("icons", None, Ty::Any),
        Field::opt("annotations", None, Ty::Any),
        Field::opt("meta", Some("_meta"), Ty::Dict(&ANY_TY)),
        Field::opt("execution", None, Ty::Any),
    ],
};

/// `ToolUnion`: a genai tool, a function, an MCP tool or an MCP session.
static TOOL_UNION: Ty = Ty::Union(&[
    ("Tool", Ty::Model(&TOOL)),
    ("callable", Ty::Callable),
    ("Tool", Ty::Model(&MCP_TOOL)),
    (
        "is-instance[ClientSession]",
        Ty::IsInstance("ClientSession"),
    ),
]);

static FUNCTION_CALLING_CONFIG: Model = Model {
    forbid_extra: true,
    fields: &[
        f(
            "allowed_function_names",
            "allowedFunctionNames",
            Ty::List(&STR_TY),
        ),
        f("mode", "mode", Ty::Any),
        f(
            "stream_function_call_arguments",
            "streamFunctionCallArguments",
            Ty::Bool,
        ),
    ],
};

static TOOL_CONFIG: Model = Model {
    forbid_extra: true,
    fields: &[
        f("retrieval_config", "retrievalConfig", Ty::Any),
        f(
            "function_calling_config",
            "functionCallingConfig",
            Ty::Model(&FUNCTION_CALLING_CONFIG),
        ),
        f(
            "include_server_side_tool_invocations",
            "includeServerSideToolInvocations",
            Ty::Bool,
        ),
    ],
};

static THINKING_CONFIG: Model = Model {
    forbid_extra: true,
    fields: &[
        f("include_thoughts", "includeThoughts", Ty::Bool),
        f("thinking_budget", "thinkingBudget", Ty::Int),
        f(
            "thinking_level",
            "thinkingLevel",
            Ty::Enum("ThinkingLevel", &LEVELS),
        ),
    ],
};

/// `GenerateContentConfig`, in its field order.
static GENERATE_CONTENT_CONFIG: Model = Model {
    forbid_extra: true,
    fields: &[
        f("http_options", "httpOptions", Ty::Any),
        f(
            "should_return_http_response",
            "shouldReturnHttpResponse",
            Ty::Bool,
        ),
        f("system_instruction", "systemInstruction", Ty::Any),
        f("temperature", "temperature", Ty::Float),
        f("top_p", "topP", Ty::Float),
        f("top_k", "topK", Ty::Float),
        f("candidate_count", "candidateCount", Ty::Int),
        f("max_output_tokens", "maxOutputTokens", Ty::Int),
        f("stop_sequences", "stopSequences", Ty::List(&STR_TY)),
        f("response_logprobs", "responseLogprobs", Ty::Bool),
        f("logprobs", "logprobs", Ty::Int),
        f("presence_penalty", "presencePenalty", Ty::Float),
        f("frequency_penalty", "frequencyPenalty", Ty::Float),
        f("seed", "seed", Ty::Int),
        f("response_mime_type", "responseMimeType", Ty::Str),
        f("response_schema", "responseSchema", Ty::Any),
        f("response_json_schema", "responseJsonSchema", Ty::Any),
        f("routing_config", "routingConfig", Ty::Any),
        f("model_selection_config", "modelSelectionConfig", Ty::Any),
        f("safety_settings", "safetySettings", Ty::Any),
        f("tools", "tools", Ty::List(&TOOL_UNION)),
        f("tool_config", "toolConfig", Ty::Model(&TOOL_CONFIG)),
        f("labels", "labels", Ty::Dict(&STR_TY)),
        f("cached_content", "cachedContent", Ty::Str),
        f(
            "response_modalities",
            "responseModalities",
            Ty::List(&STR_TY),
        ),
        f("media_resolution", "mediaResolution", Ty::Any),
        f("speech_config", "speechConfig", Ty::Any),
        f("audio_timestamp", "audioTimestamp", Ty::Bool),
        f(
            "automatic_function_calling",
            "automaticFunctionCalling",
            Ty::Any,
        ),
        f(
            "thinking_config",
            "thinkingConfig",
            Ty::Model(&THINKING_CONFIG),
        ),
        f("image_config", "imageConfig", Ty::Any),
        f(
            "enable_enhanced_civic_answers",
            "enableEnhancedCivicAnswers",
            Ty::Bool,
        ),
        f("model_armor_config", "modelArmorConfig", Ty::Any),
        f("service_tier", "serviceTier", Ty::Any),
    ],
};

static BLOB: Model = Model {
    forbid_extra: true,
    fields: &[
        f("data", "data", Ty::Bytes),
        f("display_name", "displayName", Ty::Str),
        f("mime_type", "mimeType", Ty::Str),
    ],
};

static FILE_DATA: Model = Model {
    forbid_extra: true,
    fields: &[
        f("display_name", "displayName", Ty::Str),
        f("file_uri", "fileUri", Ty::Str),
        f("mime_type", "mimeType", Ty::Str),
    ],
};

static FUNCTION_CALL: Model = Model {
    forbid_extra: true,
    fields: &[
        f("id", "id", Ty::Str),
        f("args", "args", Ty::Dict(&ANY_TY)),
        f("name", "name", Ty::Str),
        f("partial_args", "partialArgs", Ty::Any),
        f("will_continue", "willContinue", Ty::Bool),
    ],
};

static FUNCTION_RESPONSE: Model = Model {
    forbid_extra: true,
    fields: &[
        f("will_continue", "willContinue", Ty::Bool),
        f("scheduling", "scheduling", Ty::Any),
        f("parts", "parts", Ty::Any),
        f("id", "id", Ty::Str),
        f("name", "name", Ty::Str),
        f("response", "response", Ty::Dict(&ANY_TY)),
    ],
};

static PART_TY: Ty = Ty::Model(&PART);
static PART: Model = Model {
    forbid_extra: true,
    fields: &[
        f("media_resolution", "mediaResolution", Ty::Any),
        f("code_execution_result", "codeExecutionResult", Ty::Any),
        f("executable_code", "executableCode", Ty::Any),
        f("file_data", "fileData", Ty::Model(&FILE_DATA)),
        f("function_call", "functionCall", Ty::Model(&FUNCTION_CALL)),
        f(
            "function_response",
            "functionResponse",
            Ty::Model(&FUNCTION_RESPONSE),
        ),
        f("inline_data", "inlineData", Ty::Model(&BLOB)),
        f("text", "text", Ty::Str),
        f("thought", "thought", Ty::Bool),
        f("thought_signature", "thoughtSignature", Ty::Bytes),
        f("video_metadata", "videoMetadata", Ty::Any),
        f("tool_call", "toolCall", Ty::Any),
        f("tool_response", "toolResponse", Ty::Any),
        f("part_metadata", "partMetadata", Ty::Dict(&ANY_TY)),
    ],
};

static CONTENT: Model = Model {
    forbid_extra: true,
    fields: &[
        f("parts", "parts", Ty::List(&PART_TY)),
        f("role", "role", Ty::Str),
    ],
};

static FILE: Model = Model {
    forbid_extra: true,
    fields: &[
        f("name", "name", Ty::Str),
        f("display_name", "displayName", Ty::Str),
        f("mime_type", "mimeType", Ty::Str),
        f("size_bytes", "sizeBytes", Ty::Int),
        f("create_time", "createTime", Ty::Any),
        f("expiration_time", "expirationTime", Ty::Any),
        f("update_time", "updateTime", Ty::Any),
        f("sha256_hash", "sha256Hash", Ty::Str),
        f("uri", "uri", Ty::Str),
        f("download_uri", "downloadUri", Ty::Any),
        f("state", "state", Ty::Any),
        f("source", "source", Ty::Any),
        f("video_metadata", "videoMetadata", Ty::Dict(&ANY_TY)),
        f("error", "error", Ty::Any),
    ],
};

/// `PartUnion`.
static PART_UNION: Ty = Ty::Union(&[
    ("str", Ty::Str),
    ("is-instance[Image]", Ty::IsInstance("Image")),
    ("File", Ty::Model(&FILE)),
    ("Part", Ty::Model(&PART)),
]);

const PART_LIST: &str = "list[union[str,is-instance[Image],File,Part]]";

/// `ContentUnion`.
static CONTENT_UNION: Ty = Ty::Union(&[
    ("Content", Ty::Model(&CONTENT)),
    ("str", Ty::Str),
    ("is-instance[Image]", Ty::IsInstance("Image")),
    ("File", Ty::Model(&FILE)),
    ("Part", Ty::Model(&PART)),
    (PART_LIST, Ty::List(&PART_UNION)),
]);

/// `ContentListUnion`: one content, or a list of parts, or a list of
/// contents.
static CONTENTS: Ty = Ty::Union(&[
    ("Content", Ty::Model(&CONTENT)),
    ("str", Ty::Str),
    ("is-instance[Image]", Ty::IsInstance("Image")),
    ("File", Ty::Model(&FILE)),
    ("Part", Ty::Model(&PART)),
    (PART_LIST, Ty::List(&PART_UNION)),
    (
        "list[union[Content,str,is-instance[Image],File,Part,list[union[str,is-instance[Image],File,Part]]]]",
        Ty::List(&CONTENT_UNION),
    ),
]);

/// `GenerateContentConfig.model_validate(config)`, and the warnings it
/// emits on the way.
pub(super) fn check_config(
    config: &Value,
    genai: super::Genai,
) -> (Result<(), PyErr>, Vec<String>) {
    let mut out = Outcome::default();
    let config_ty = Ty::Model(&GENERATE_CONTENT_CONFIG);
    match (genai, config) {
        (super::Genai::V2_33, Value::Object(map)) if map.contains_key("tools") => {
            // 2.33 validates the tool list itself (`_validate_tool_list`):
            // each dict a `Tool`, errors under `tools` with no index, the
            // first failing tool raising; anything else passed through.
            let mut rest = map.clone();
            let tools = rest.shift_remove("tools").unwrap_or(Value::Null);
            validate(&config_ty, &Value::Object(rest), &mut Vec::new(), &mut out);
            let mut listed = Outcome::default();
            tool_list(&tools, &mut listed);
            // pydantic reports the fields in their order.
            let position = |name: &str| {
                GENERATE_CONTENT_CONFIG
                    .fields
                    .iter()
                    .position(|f| f.name == name || f.alias == Some(name))
                    .unwrap_or(usize::MAX)
            };
            let tools_at = position("tools");
            let at = out
                .errors
                .iter()
                .position(|e| e.loc.first().is_none_or(|f| position(f) > tools_at))
                .unwrap_or(out.errors.len());
            out.errors.splice(at..at, listed.errors);
            out.warnings.extend(listed.warnings);
        }
        _ => validate(&config_ty, config, &mut Vec::new(), &mut out),
    }
    (
        check_as("GenerateContentConfig", &out.errors, genai.pydantic()),
        out.warnings,
    )
}

/// google-genai 2.33's `_validate_tool_list`.
fn tool_list(tools: &Value, out: &mut Outcome) {
    let mut loc = vec!["tools".to_string()];
    match tools {
        Value::Null => {}
        Value::Array(items) => {
            for item in items.iter().filter(|i| i.is_object()) {
                validate(&Ty::Model(&TOOL), item, &mut loc, out);
                if !out.errors.is_empty() {
                    return;
                }
            }
        }
        other => validate(&Ty::List(&TOOL_UNION), other, &mut loc, out),
    }
}

/// `_GenerateContentParameters(contents=...)`: only `contents` can fail
/// (the model is a string and the config already validated).
pub(super) fn check_contents(contents: &Value) -> Result<(), PyErr> {
    let mut out = Outcome::default();
    if !contents.is_null() {
        validate(&CONTENTS, contents, &mut vec!["contents".into()], &mut out);
    }
    check("_GenerateContentParameters", &out.errors)
}

/// A schema `type` as the `Type` enum keeps it: a member by any case, or
/// the unknown value as given.
pub(super) fn schema_type(t: &str) -> String {
    enum_member(&TYPES, t)
}

/// A thinking level as the `ThinkingLevel` enum keeps it.
pub(super) fn thinking_level(v: &Value) -> Value {
    match v {
        Value::String(t) => Value::String(enum_member(&LEVELS, t)),
        other => other.clone(),
    }
}

fn enum_member(members: &[&str], t: &str) -> String {
    let upper = t.to_uppercase();
    match members.contains(&upper.as_str()) {
        true => upper,
        false => t.to_string(),
    }
}
