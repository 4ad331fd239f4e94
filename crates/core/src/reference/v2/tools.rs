//! Tool schemas as each 2.x model class writes them in
//! `_format_tools(tools, tool_choice)`, with `ToolChoice(mode, tools)`
//! checked, applied to the schemas and turned into the provider's value.

use super::Family;
use crate::json;
use crate::py::{dumps, py_repr, PyErr};
use serde_json::{Map, Value};

const LITERAL_MODES: [&str; 3] = ["auto", "none", "required"];

/// `ToolChoice(mode, tools)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolChoice {
    pub mode: String,
    pub tools: Option<Vec<String>>,
}

/// What `_format_tools` returned, plus Python warnings and log warnings.
pub struct Formatted {
    pub tools: Value,
    pub choice: Value,
    pub python_warnings: Vec<String>,
    pub warnings: Vec<String>,
}

fn function_name(tool: &Value) -> Result<String, PyErr> {
    let func = tool.get("function").ok_or_else(|| PyErr::key("function"))?;
    match func.get("name") {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v) => Ok(crate::py::py_str(v)),
        None => Err(PyErr::key("name")),
    }
}

/// `_validate_tool_choice`.
fn validate(choice: &ToolChoice, tools: &[Value]) -> Result<(), PyErr> {
    let available: Vec<String> = tools.iter().map(function_name).collect::<Result<_, _>>()?;
    let sorted = |names: &[String]| {
        let mut v = names.to_vec();
        v.sort();
        v.join(", ")
    };
    if let Some(names) = &choice.tools {
        for name in names {
            if !available.contains(name) {
                return Err(PyErr::value(format!(
                    "Invalid tool name '{name}' in tool_choice.tools. Available tools: {}",
                    sorted(&available)
                )));
            }
        }
    }
    if !LITERAL_MODES.contains(&choice.mode.as_str()) {
        let scope = match &choice.tools {
            Some(t) if !t.is_empty() => t.clone(),
            _ => available.clone(),
        };
        if !scope.contains(&choice.mode) {
            let tail = match &choice.tools {
                Some(t) => format!("Available tools in tool_choice.tools: {}", sorted(t)),
                None => format!("Available tools: {}", sorted(&available)),
            };
            return Err(PyErr::value(format!(
                "Invalid tool name '{}' in tool_choice.mode. {tail}",
                choice.mode
            )));
        }
    }
    Ok(())
}

/// Validation and the `tools` filter every model but Responses applies.
fn filtered(
    tools: &[Value],
    choice: Option<&ToolChoice>,
    filter: bool,
) -> Result<Vec<Value>, PyErr> {
    let mut tools = tools.to_vec();
    if let Some(choice) = choice {
        if !tools.is_empty() {
            validate(choice, &tools)?;
            if let (true, Some(names)) = (filter, &choice.tools) {
                if !names.is_empty() {
                    let mut kept = Vec::new();
                    for t in tools {
                        if names.contains(&function_name(&t)?) {
                            kept.push(t);
                        }
                    }
                    tools = kept;
                }
            }
        }
    }
    Ok(tools)
}

fn openai_choice(mode: &str) -> Value {
    if LITERAL_MODES.contains(&mode) {
        json!(mode)
    } else {
        json!({"type": "function", "function": {"name": mode}})
    }
}

pub fn format_tools(
    family: Family,
    tools: &[Value],
    choice: Option<&ToolChoice>,
) -> Result<Formatted, PyErr> {
    let mut python_warnings = Vec::new();
    let mut warnings = Vec::new();
    let tools_v = filtered(tools, choice, family != Family::Responses)?;
    let none_if_empty = |v: Vec<Value>| {
        if v.is_empty() {
            Value::Null
        } else {
            Value::Array(v)
        }
    };
    let mode = choice.map(|c| c.mode.as_str());
    let (out_tools, out_choice) = match family {
        Family::OpenAi => {
            let t = if tools_v.is_empty() {
                Value::Array(tools_v)
            } else {
                Value::Array(
                    tools_v
                        .iter()
                        .map(|t| flatten_tool(t, &mut warnings))
                        .collect(),
                )
            };
            (t, mode.map(openai_choice).unwrap_or(Value::Null))
        }
        Family::DeepSeek | Family::Moonshot | Family::Volcengine => (
            Value::Array(tools_v),
            mode.map(openai_choice).unwrap_or(Value::Null),
        ),
        Family::DashScope => {
            for t in &tools_v {
                let ok = t.get("type") == Some(&json!("function")) && t.get("function").is_some();
                if !ok {
                    return Err(PyErr::value(format!(
                        "Each schema must be a dict with 'type' as 'function' and 'function' key, got {}",
                        py_repr(t)
                    )));
                }
            }
            let c = match mode {
                Some("required") => {
                    python_warnings.push("DeprecationWarning: 'required' is not fully supported by DashScope API. It will be converted to 'auto'.".to_string());
                    json!("auto")
                }
                Some(m) => openai_choice(m),
                None => Value::Null,
            };
            (none_if_empty(tools_v), c)
        }
        Family::Ollama => {
            if choice.is_some() {
                warnings.push("Ollama ignores tool_choice.mode; tool_choice.tools is still applied to filter tool schemas.".to_string());
            }
            (Value::Array(tools_v), Value::Null)
        }
        Family::Anthropic | Family::MiniMax => {
            let mut out = Vec::new();
            for s in &tools_v {
                let f = s.get("function").ok_or_else(|| {
                    PyErr::assertion(format!(
                        "Invalid schema: {}, expect key 'function'.",
                        py_repr(s)
                    ))
                })?;
                let name = f.get("name").ok_or_else(|| {
                    PyErr::assertion(format!(
                        "Invalid schema: {}, expect key 'name' in 'function' field.",
                        py_repr(s)
                    ))
                })?;
                out.push(json!({
                    "name": name,
                    "description": f.get("description").cloned().unwrap_or_else(|| json!("")),
                    "input_schema": f.get("parameters").cloned().unwrap_or_else(|| json!({})),
                }));
            }
            let c = match mode {
                None => Value::Null,
                Some("auto") => json!({"type": "auto"}),
                Some("none") => json!({"type": "none"}),
                Some("required") => json!({"type": "any"}),
                Some(m) => json!({"type": "tool", "name": m}),
            };
            (none_if_empty(out), c)
        }
        Family::Gemini => {
            let t = if tools_v.is_empty() {
                Value::Null
            } else {
                let mut decls = Vec::new();
                for s in &tools_v {
                    let Some(Value::Object(f)) = s.get("function") else {
                        continue;
                    };
                    let mut f = f.clone();
                    if let Some(p) = f.get("parameters") {
                        let p = sanitize_gemini(&flatten(p, &mut warnings))?;
                        f.insert("parameters".into(), p);
                    }
                    decls.push(Value::Object(f));
                }
                json!([{"function_declarations": decls}])
            };
            let c = match mode {
                None => Value::Null,
                Some("auto") => json!({"function_calling_config": {"mode": "AUTO"}}),
                Some("none") => json!({"function_calling_config": {"mode": "NONE"}}),
                Some("required") => json!({"function_calling_config": {"mode": "ANY"}}),
                Some(m) => {
                    json!({"function_calling_config": {"mode": "ANY", "allowed_function_names": [m]}})
                }
            };
            (t, c)
        }
        Family::Responses => {
            let mut out = Vec::new();
            for t in &tools_v {
                let mut m = Map::new();
                m.insert("type".into(), "function".into());
                if let Some(Value::Object(f)) = t.get("function") {
                    m.extend(f.clone());
                } else {
                    return Err(PyErr::key("function"));
                }
                out.push(Value::Object(m));
            }
            let c = match (mode, choice.and_then(|c| c.tools.as_ref())) {
                (None, _) => Value::Null,
                (Some(m), _) if !LITERAL_MODES.contains(&m) => {
                    json!({"type": "function", "name": m})
                }
                (Some(m), Some(names)) if !names.is_empty() => json!({
                    "type": "allowed_tools", "mode": m,
                    "tools": names.iter().map(|n| json!({"type": "function", "name": n})).collect::<Vec<_>>(),
                }),
                (Some(m), _) => json!(m),
            };
            (none_if_empty(out), c)
        }
        Family::Xai => {
            let mut out = Vec::new();
            for t in &tools_v {
                if t.get("type") != Some(&json!("function")) {
                    continue;
                }
                let Some(f) = t.get("function") else { continue };
                let mut func = Map::new();
                if let Some(n) = f.get("name") {
                    if n.as_str() != Some("") {
                        func.insert("name".into(), n.clone());
                    }
                }
                if let Some(d) = f.get("description") {
                    if d.as_str() != Some("") {
                        func.insert("description".into(), d.clone());
                    }
                }
                let params = f.get("parameters").cloned().unwrap_or_else(|| json!({}));
                func.insert("parameters".into(), Value::String(ascii_dumps(&params)));
                out.push(json!({"function": func}));
            }
            let c = match mode {
                None => Value::Null,
                Some(m) if LITERAL_MODES.contains(&m) => json!(m),
                Some(m) => json!({"function_name": m}),
            };
            // `xai_tools = []` once there are tools, whether or not any of
            // them is a function schema.
            let t = if tools_v.is_empty() {
                Value::Null
            } else {
                Value::Array(out)
            };
            (t, c)
        }
    };
    Ok(Formatted {
        tools: out_tools,
        choice: out_choice,
        python_warnings,
        warnings,
    })
}

/// `json.dumps(v)` with `ensure_ascii=True` (everything outside `' '..='~'`
/// escaped, DEL included).
pub fn ascii_dumps(v: &Value) -> String {
    let mut out = String::new();
    for c in dumps(v).chars() {
        if c.is_ascii() && c != '\x7f' {
            out.push(c);
        } else {
            let mut buf = [0u16; 2];
            for u in c.encode_utf16(&mut buf) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    out
}

fn flatten_tool(tool: &Value, warnings: &mut Vec<String>) -> Value {
    let Some(Value::Object(func)) = tool.get("function") else {
        return tool.clone();
    };
    let Some(params @ Value::Object(_)) = func.get("parameters") else {
        return tool.clone();
    };
    let flat = flatten(params, warnings);
    let mut t = tool.clone();
    if let Some(Value::Object(f)) = t.get_mut("function") {
        f.insert("parameters".into(), flat);
    }
    t
}

const MAP_KEYWORDS: [&str; 4] = [
    "properties",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
];
const INSTANCE_KEYWORDS: [&str; 4] = ["default", "const", "enum", "examples"];

/// `_flatten_json_schema`: local `$ref`s inlined, definitions removed.
pub fn flatten(schema: &Value, warnings: &mut Vec<String>) -> Value {
    let Some(obj) = schema.as_object() else {
        return schema.clone();
    };
    let has = |k: &str| matches!(obj.get(k), Some(Value::Object(_)));
    if !has("$defs") && !has("definitions") {
        return schema.clone();
    }
    let mut obj = obj.clone();
    let mut defs = Map::new();
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(d)) = obj.get(key).cloned() {
            obj.shift_remove(key);
            defs.extend(d);
        }
    }
    if defs.is_empty() {
        return Value::Object(obj);
    }
    resolve(&Value::Object(obj), &defs, &[], warnings)
}

fn resolve(
    v: &Value,
    defs: &Map<String, Value>,
    visited: &[String],
    warnings: &mut Vec<String>,
) -> Value {
    match v {
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|i| resolve(i, defs, visited, warnings))
                .collect(),
        ),
        Value::Object(obj) => {
            let mut resolved = Map::new();
            let mut visited = visited.to_vec();
            if let Some(r) = obj.get("$ref") {
                let Some(path) = r
                    .as_str()
                    .filter(|p| p.starts_with("#/$defs/") || p.starts_with("#/definitions/"))
                else {
                    return v.clone();
                };
                let name = path.rsplit('/').next().unwrap_or("").to_string();
                if visited.contains(&name) {
                    warnings.push(format!(
                        "Circular reference detected for '{name}' in tool schema"
                    ));
                    return json!({"type": "object", "description": format!("(circular: {name})")});
                }
                let Some(def) = defs.get(&name) else {
                    return v.clone();
                };
                visited.push(name);
                match resolve(def, defs, &visited, warnings) {
                    Value::Object(m) => resolved = m,
                    other => return other,
                }
            }
            for (k, val) in obj {
                if ["$ref", "$defs", "definitions"].contains(&k.as_str()) {
                    continue;
                }
                let out = if INSTANCE_KEYWORDS.contains(&k.as_str()) {
                    val.clone()
                } else if MAP_KEYWORDS.contains(&k.as_str()) && val.is_object() {
                    let mut m = Map::new();
                    for (n, sub) in val.as_object().into_iter().flatten() {
                        m.insert(n.clone(), resolve(sub, defs, &visited, warnings));
                    }
                    Value::Object(m)
                } else {
                    resolve(val, defs, &visited, warnings)
                };
                resolved.insert(k.clone(), out);
            }
            Value::Object(resolved)
        }
        _ => v.clone(),
    }
}

fn is_null_schema(v: &Value) -> bool {
    matches!(v.get("type"), Some(t) if t == "null" || *t == json!(["null"]))
}

/// `_sanitize_schema_for_gemini`.
pub fn sanitize_gemini(schema: &Value) -> Result<Value, PyErr> {
    let obj = match schema {
        Value::Array(items) => {
            return Ok(Value::Array(
                items
                    .iter()
                    .map(sanitize_gemini)
                    .collect::<Result<_, _>>()?,
            ))
        }
        Value::Object(o) => o,
        _ => return Ok(schema.clone()),
    };
    let mut s = obj.clone();
    s.shift_remove("$schema");
    if is_null_schema(schema) {
        s.insert("type".into(), "object".into());
    } else if let Some(Value::Array(types)) = s.get("type").cloned() {
        let non_null: Vec<Value> = types.into_iter().filter(|t| t != "null").collect();
        if non_null.len() == 1 {
            s.insert("type".into(), non_null[0].clone());
        } else if !non_null.is_empty() {
            if s.contains_key("anyOf") {
                return Err(PyErr::value("Cannot safely sanitize Gemini schema with both a multi-type nullable type array and anyOf."));
            }
            s.shift_remove("type");
            s.insert(
                "anyOf".into(),
                Value::Array(non_null.into_iter().map(|t| json!({"type": t})).collect()),
            );
        } else {
            s.insert("type".into(), "object".into());
        }
    }
    s.shift_remove("additionalProperties");
    if let Some(c) = s.shift_remove("const") {
        s.entry("enum").or_insert(json!([c]));
    }
    if let Some(Value::Array(any_of)) = s.get("anyOf").cloned() {
        let non_null: Vec<Value> = any_of
            .iter()
            .filter(|v| !is_null_schema(v))
            .cloned()
            .collect();
        if non_null.len() < any_of.len() {
            if non_null.len() == 1 {
                let mut merged = match sanitize_gemini(&non_null[0])? {
                    Value::Object(m) => m,
                    _ => Map::new(),
                };
                for (k, v) in &s {
                    if k != "anyOf" {
                        merged.entry(k.clone()).or_insert(v.clone());
                    }
                }
                return Ok(Value::Object(merged));
            } else if !non_null.is_empty() {
                s.insert(
                    "anyOf".into(),
                    Value::Array(
                        non_null
                            .iter()
                            .map(sanitize_gemini)
                            .collect::<Result<_, _>>()?,
                    ),
                );
            } else {
                s.shift_remove("anyOf");
            }
        }
    }
    for key in ["properties", "patternProperties", "$defs"] {
        if let Some(Value::Object(m)) = s.get(key).cloned() {
            let mut out = Map::new();
            for (k, v) in m {
                out.insert(k, sanitize_gemini(&v)?);
            }
            s.insert(key.into(), Value::Object(out));
        }
    }
    for key in ["items", "not", "if", "then", "else"] {
        if let Some(v) = s.get(key).cloned() {
            s.insert(key.into(), sanitize_gemini(&v)?);
        }
    }
    for key in ["allOf", "oneOf", "anyOf"] {
        if let Some(Value::Array(items)) = s.get(key).cloned() {
            s.insert(
                key.into(),
                Value::Array(
                    items
                        .iter()
                        .map(sanitize_gemini)
                        .collect::<Result<_, _>>()?,
                ),
            );
        }
    }
    Ok(Value::Object(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_dumps_escapes_as_json_dumps_does() {
        // Python: json.dumps({"d": "x\x7fé"}) == '{"d": "x\\u007f\\u00e9"}'
        assert_eq!(
            ascii_dumps(&json!({"d": "x\u{7f}é"})),
            r#"{"d": "x\u007f\u00e9"}"#
        );
    }
}
