//! Tool schemas as each provider's AgentScope model class formats them
//! (`_format_tools_json_schemas`).

use super::Provider;
use crate::json;
use crate::py::{self, get_item, py_get, py_str, PyErr};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// The session's tools (OpenAI function shape) for `provider`. Warnings
/// (Gemini's circular references) go to `warn`.
pub fn format_tools(
    provider: Provider,
    tools: &Value,
    warn: &mut dyn FnMut(String),
) -> Result<Value, PyErr> {
    match provider {
        Provider::OpenAi | Provider::DeepSeek | Provider::Ollama => Ok(tools.clone()),
        Provider::Anthropic => {
            let mut out = Vec::new();
            for schema in py::iterate(tools)? {
                if !contains(&schema, "function")? {
                    return Err(PyErr::assertion(format!(
                        "Invalid schema: {}, expect key 'function'.",
                        py_str(&schema)
                    )));
                }
                let function = get_item(&schema, "function")?;
                if !contains(function, "name")? {
                    return Err(PyErr::assertion(format!(
                        "Invalid schema: {}, expect key 'name' in 'function' field.",
                        py_str(&schema)
                    )));
                }
                out.push(json!({
                    "name": get_item(function, "name")?,
                    "description": py_get(function, "description")?.cloned().unwrap_or_else(|| json!("")),
                    "input_schema": py_get(function, "parameters")?.cloned().unwrap_or_else(|| json!({})),
                }));
            }
            Ok(Value::Array(out))
        }
        Provider::DashScope => {
            for schema in py::iterate(tools)? {
                let ok = schema.as_object().is_some_and(|m| {
                    m.get("type").and_then(Value::as_str) == Some("function")
                        && m.contains_key("function")
                });
                if !ok {
                    return Err(PyErr::value(format!(
                        "Each schema must be a dict with 'type' as 'function' and 'function' key, got {}",
                        py_str(&schema)
                    )));
                }
            }
            Ok(tools.clone())
        }
        Provider::Gemini => {
            let mut declarations = Vec::new();
            for schema in py::iterate(tools)? {
                if !contains(&schema, "function")? {
                    continue;
                }
                let mut function = get_item(&schema, "function")?.clone();
                if let Value::Object(map) = &mut function {
                    if let Some(params) = map.get("parameters").cloned() {
                        map.insert("parameters".into(), flatten_schema(&params, warn)?);
                    }
                }
                declarations.push(function);
            }
            Ok(json!([{"function_declarations": declarations}]))
        }
    }
}

/// Python's `key in container`.
fn contains(container: &Value, key: &str) -> Result<bool, PyErr> {
    match container {
        Value::Object(map) => Ok(map.contains_key(key)),
        Value::Array(items) => Ok(items.iter().any(|v| v.as_str() == Some(key))),
        Value::String(s) => Ok(s.contains(key)),
        other => Err(PyErr::type_error(format!(
            "argument of type '{}' is not iterable",
            py::type_name(other)
        ))),
    }
}

/// `_flatten_json_schema`: inline `#/$defs/Name` references (Gemini has no
/// `$ref`); a circular one becomes a placeholder object.
fn flatten_schema(schema: &Value, warn: &mut dyn FnMut(String)) -> Result<Value, PyErr> {
    let mut schema = schema.clone();
    let defs = match &mut schema {
        Value::Object(map) => map.shift_remove("$defs").unwrap_or_else(|| json!({})),
        other => return Err(PyErr::attribute(py::type_name(other), "pop")),
    };
    let defs = defs.as_object().cloned().unwrap_or_default();
    Ok(resolve(&schema, HashSet::new(), &defs, warn))
}

fn resolve(
    obj: &Value,
    mut visited: HashSet<String>,
    defs: &Map<String, Value>,
    warn: &mut dyn FnMut(String),
) -> Value {
    let map = match obj {
        Value::Array(items) => {
            return Value::Array(
                items
                    .iter()
                    .map(|v| resolve(v, visited.clone(), defs, warn))
                    .collect(),
            )
        }
        Value::Object(map) => map,
        other => return other.clone(),
    };
    if let Some(reference) = map.get("$ref") {
        if let Some(name) = reference.as_str().and_then(|r| r.strip_prefix("#/$defs/")) {
            if visited.contains(name) {
                warn(format!(
                    "Circular reference detected for '{name}' in tool schema"
                ));
                return json!({"type": "object", "description": format!("(circular: {name})")});
            }
            visited.insert(name.to_string());
            if let Some(definition) = defs.get(name) {
                let mut resolved = resolve(definition, visited.clone(), defs, warn);
                if let Value::Object(out) = &mut resolved {
                    for (key, value) in map {
                        if key != "$ref" {
                            out.insert(key.clone(), resolve(value, visited.clone(), defs, warn));
                        }
                    }
                }
                return resolved;
            }
        }
        return obj.clone();
    }
    let mut out = Map::new();
    for (key, value) in map {
        out.insert(key.clone(), resolve(value, visited.clone(), defs, warn));
    }
    Value::Object(out)
}
