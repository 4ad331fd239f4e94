//! `Msg.model_validate` as AgentScope 2.0.11's pydantic models run it:
//! what 2.x rejects fails with a `ValidationError` (the field errors are
//! `schema`'s exact report; the role rule, which pydantic runs after the
//! fields, is here), what it accepts comes back as typed [`Msg`]s and as
//! the `model_dump(mode="json")` 2.x would store, with the ids its
//! factories would have drawn. The checks made while building are a
//! fallback for anything `schema` let through.

use super::msgs::{self, Block, Data, Item, Items, Msg, Source, FIXED_TIMESTAMP};
use super::schema;
use crate::json;
use crate::py::{py_repr, PyErr};
use serde_json::{Map, Value};
use std::path::Path;

/// Generated ids (`id-0001`, ...), as the reference's id factory.
#[derive(Default)]
pub struct Ids(usize);

impl Ids {
    fn next(&mut self) -> String {
        self.0 += 1;
        format!("id-{:04}", self.0)
    }
}

/// A smart-mode union validates a block against every member, and each
/// member with an `id` default draws one when the dict has none: how many
/// members before and after the one that wins draw an id.
fn union_draws(b: &Value, members: &[(&str, bool)]) -> (usize, usize) {
    let Some(obj) = b.as_object().filter(|o| !o.contains_key("id")) else {
        return (0, 0);
    };
    let typ = obj.get("type").and_then(Value::as_str).unwrap_or("");
    let Some(win) = members.iter().position(|(t, _)| *t == typ) else {
        return (0, 0);
    };
    let draws = |range: &[(&str, bool)]| range.iter().filter(|(_, id)| *id).count();
    (draws(&members[..win]), draws(&members[win + 1..]))
}

const BLOCK_MEMBERS: [(&str, bool); 6] = [
    ("text", true),
    ("thinking", true),
    ("hint", true),
    ("tool_call", false),
    ("tool_result", false),
    ("data", true),
];
const ITEM_MEMBERS: [(&str, bool); 2] = [("text", true), ("data", true)];

/// Builds every Msg; the first invalid one fails the whole list.
pub fn build(messages: &[Value], session_dir: &Path) -> Result<(Vec<Msg>, Vec<Value>), PyErr> {
    let mut ids = Ids::default();
    let mut msgs = Vec::new();
    let mut dumps = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let data = if msgs::is_native(m) {
            m.clone()
        } else {
            msgs::convert_v1_msg(m, i, session_dir)
        };
        let (msg, dump) = validate_msg(&data, &mut ids)?;
        msgs.push(msg);
        dumps.push(dump);
    }
    Ok((msgs, dumps))
}

struct Errors(Vec<(String, String)>);

impl Errors {
    fn add(&mut self, loc: &str, msg: String) {
        self.0.push((loc.to_string(), msg));
    }
}

fn type_name(v: &Value) -> &'static str {
    crate::py::type_name(v)
}

fn str_error(v: &Value) -> String {
    format!(
        "Input should be a valid string [type=string_type, input_value={}, input_type={}]",
        py_repr(v),
        type_name(v)
    )
}

fn missing(obj: &Map<String, Value>) -> String {
    format!(
        "Field required [type=missing, input_value={}, input_type=dict]",
        py_repr(&Value::Object(obj.clone()))
    )
}

/// A required `str` field.
fn req_str(obj: &Map<String, Value>, key: &str, loc: &str, errs: &mut Errors) -> String {
    match obj.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(v) => {
            errs.add(&format!("{loc}.{key}"), str_error(v));
            String::new()
        }
        None => {
            errs.add(&format!("{loc}.{key}"), missing(obj));
            String::new()
        }
    }
}

/// An optional `str` field with a default (`None` when absent and no default).
fn opt_str(
    obj: &Map<String, Value>,
    key: &str,
    loc: &str,
    default: Value,
    nullable: bool,
    errs: &mut Errors,
) -> Value {
    match obj.get(key) {
        None => default,
        Some(Value::Null) if nullable => Value::Null,
        Some(v @ Value::String(_)) => v.clone(),
        Some(v) => {
            errs.add(&format!("{loc}.{key}"), str_error(v));
            Value::Null
        }
    }
}

fn id_or_new(obj: &Map<String, Value>, loc: &str, ids: &mut Ids, errs: &mut Errors) -> Value {
    match obj.get("id") {
        None => Value::String(ids.next()),
        Some(v @ Value::String(_)) => v.clone(),
        Some(v) => {
            errs.add(&format!("{loc}.id"), str_error(v));
            Value::Null
        }
    }
}

fn stamps(
    obj: &Map<String, Value>,
    loc: &str,
    out: &mut Map<String, Value>,
    hint: bool,
    errs: &mut Errors,
) {
    let ts = Value::String(FIXED_TIMESTAMP.into());
    out.insert(
        "created_at".into(),
        opt_str(obj, "created_at", loc, ts.clone(), false, errs),
    );
    let fin_default = if hint { ts } else { Value::Null };
    out.insert(
        "finished_at".into(),
        opt_str(obj, "finished_at", loc, fin_default, true, errs),
    );
}

fn source(v: &Value, loc: &str, errs: &mut Errors) -> (Option<Source>, Value) {
    let Some(obj) = v.as_object() else {
        errs.add(
            loc,
            format!(
                "Input should be a valid dictionary or instance of Base64Source [type=model_type, input_value={}, input_type={}]",
                py_repr(v),
                type_name(v)
            ),
        );
        return (None, Value::Null);
    };
    let typ = obj.get("type").and_then(Value::as_str);
    let is_url = typ == Some("url") || (typ.is_none() && obj.contains_key("url"));
    if typ.is_some() && !matches!(typ, Some("url" | "base64")) {
        errs.add(
            &format!("{loc}.type"),
            format!("Input should be 'base64' or 'url' [type=literal_error, input_value={}, input_type=str]", py_repr(&obj["type"])),
        );
        return (None, Value::Null);
    }
    let n = errs.0.len();
    if is_url {
        let url = req_str(obj, "url", loc, errs);
        let media_type = req_str(obj, "media_type", loc, errs);
        let url = if errs.0.len() == n {
            match normalise_url(&url) {
                Ok(u) => u,
                Err(e) => {
                    errs.add(&format!("{loc}.URLSource.url"), e);
                    return (None, Value::Null);
                }
            }
        } else {
            url
        };
        let dump = json!({"type": "url", "url": &url, "media_type": &media_type});
        (Some(Source::Url { url, media_type }), dump)
    } else {
        let data = req_str(obj, "data", loc, errs);
        let media_type = req_str(obj, "media_type", loc, errs);
        let dump = json!({"type": "base64", "data": &data, "media_type": &media_type});
        (Some(Source::Base64 { data, media_type }), dump)
    }
}

/// pydantic's `AnyUrl`: a scheme is required; special schemes get a path.
fn normalise_url(url: &str) -> Result<String, String> {
    let bad = || {
        format!(
            "Input should be a valid URL, relative URL without a base [type=url_parsing, input_value={}, input_type=str]",
            py_repr(&Value::String(url.into()))
        )
    };
    let trimmed = url.trim();
    let Some((scheme, rest)) = trimmed.split_once(':') else {
        return Err(bad());
    };
    let mut chars = scheme.chars();
    if !matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
        || !chars.all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    {
        return Err(bad());
    }
    let scheme = scheme.to_ascii_lowercase();
    let special = matches!(scheme.as_str(), "http" | "https" | "ws" | "wss" | "ftp");
    if special {
        let rest = rest.trim_start_matches(['/', '\\']);
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (host, tail) = rest.split_at(end);
        if host.is_empty() {
            return Err(format!(
                "Input should be a valid URL, empty host [type=url_parsing, input_value={}, input_type=str]",
                py_repr(&Value::String(url.into()))
            ));
        }
        let tail = if tail.starts_with('/') {
            tail.to_string()
        } else {
            format!("/{tail}")
        };
        return Ok(format!(
            "{scheme}://{}{}",
            host.to_ascii_lowercase(),
            tail.replace(' ', "%20")
        ));
    }
    Ok(format!("{scheme}:{}", rest.replace(' ', "%20")))
}

fn data_block(
    obj: &Map<String, Value>,
    loc: &str,
    ids: &mut Ids,
    errs: &mut Errors,
) -> (Option<Data>, Value) {
    let id = id_or_new(obj, loc, ids, errs);
    let (src, src_dump) = match obj.get("source") {
        Some(v) => source(v, &format!("{loc}.source"), errs),
        None => {
            errs.add(&format!("{loc}.source"), missing(obj));
            (None, Value::Null)
        }
    };
    let name = opt_str(obj, "name", loc, Value::Null, true, errs);
    let mut out = Map::new();
    out.insert("type".into(), "data".into());
    out.insert("id".into(), id.clone());
    out.insert("source".into(), src_dump);
    out.insert("name".into(), name.clone());
    stamps(obj, loc, &mut out, false, errs);
    let data = src.map(|source| Data {
        id: id.as_str().unwrap_or("").to_string(),
        source,
        name: name.as_str().map(str::to_string),
    });
    (data, Value::Object(out))
}

fn text_block(
    obj: &Map<String, Value>,
    loc: &str,
    ids: &mut Ids,
    errs: &mut Errors,
) -> (String, Value) {
    let text = req_str(obj, "text", loc, errs);
    let mut out = Map::new();
    out.insert("type".into(), "text".into());
    out.insert("text".into(), Value::String(text.clone()));
    out.insert("id".into(), id_or_new(obj, loc, ids, errs));
    stamps(obj, loc, &mut out, false, errs);
    (text, Value::Object(out))
}

/// `str | list[TextBlock | DataBlock]`.
fn items(
    v: Option<&Value>,
    loc: &str,
    ids: &mut Ids,
    errs: &mut Errors,
    parent: &Map<String, Value>,
) -> (Items, Value) {
    match v {
        Some(Value::String(s)) => (Items::Str(s.clone()), Value::String(s.clone())),
        Some(Value::Array(list)) => {
            let mut out = Vec::new();
            let mut dump = Vec::new();
            for (k, b) in list.iter().enumerate() {
                let l = format!("{loc}.{k}");
                let obj = match b.as_object() {
                    Some(o) => o,
                    None => {
                        errs.add(&l, format!("Input should be a valid dictionary or instance of TextBlock [type=model_type, input_value={}, input_type={}]", py_repr(b), type_name(b)));
                        continue;
                    }
                };
                let (before, after) = union_draws(b, &ITEM_MEMBERS);
                ids.0 += before;
                match obj.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        let (t, d) = text_block(obj, &l, ids, errs);
                        out.push(Item::Text(t));
                        dump.push(d);
                    }
                    Some("data") => {
                        let (d, dv) = data_block(obj, &l, ids, errs);
                        if let Some(d) = d {
                            out.push(Item::Data(d));
                        }
                        dump.push(dv);
                    }
                    _ => errs.add(
                        &format!("{l}.TextBlock.type"),
                        format!("Input should be 'text' [type=literal_error, input_value={}, input_type={}]", py_repr(obj.get("type").unwrap_or(&Value::Null)), type_name(obj.get("type").unwrap_or(&Value::Null))),
                    ),
                }
                ids.0 += after;
            }
            (Items::List(out), Value::Array(dump))
        }
        Some(other) => {
            errs.add(loc, str_error(other));
            (Items::Str(String::new()), Value::Null)
        }
        None => {
            errs.add(loc, missing(parent));
            (Items::Str(String::new()), Value::Null)
        }
    }
}

fn block(b: &Value, loc: &str, ids: &mut Ids, errs: &mut Errors) -> Option<(Block, Value)> {
    // A block without "type": every member's `type` has a default, so
    // pydantic's union takes the first member whose required fields it
    // holds, the type filled in.
    let typed;
    let b = match untyped_member(b) {
        Some(typ) => {
            let mut obj = b.as_object().cloned().unwrap_or_default();
            obj.insert("type".into(), Value::String(typ.into()));
            typed = Value::Object(obj);
            &typed
        }
        None => b,
    };
    let (before, after) = union_draws(b, &BLOCK_MEMBERS);
    ids.0 += before;
    let out = block_inner(b, loc, ids, errs);
    ids.0 += after;
    out
}

/// The block member a dict without a `type` key validates as: the first,
/// in the union's order, whose required fields are there as strings (or a
/// source, a hint, an output); `None` when it has a type or fits none.
fn untyped_member(b: &Value) -> Option<&'static str> {
    let obj = b.as_object().filter(|o| !o.contains_key("type"))?;
    let text = |k: &str| obj.get(k).is_some_and(Value::is_string);
    let any = |k: &str| obj.get(k).is_some_and(|v| !v.is_null());
    if text("text") {
        Some("text")
    } else if text("thinking") {
        Some("thinking")
    } else if any("hint") {
        Some("hint")
    } else if text("id") && text("name") && text("input") {
        Some("tool_call")
    } else if text("id") && text("name") && any("output") {
        Some("tool_result")
    } else if any("source") {
        Some("data")
    } else {
        None
    }
}

fn block_inner(b: &Value, loc: &str, ids: &mut Ids, errs: &mut Errors) -> Option<(Block, Value)> {
    let Some(obj) = b.as_object() else {
        errs.add(loc, format!("Input should be a valid dictionary or instance of TextBlock [type=model_type, input_value={}, input_type={}]", py_repr(b), type_name(b)));
        return None;
    };
    let typ = obj.get("type").and_then(Value::as_str).unwrap_or("");
    let mut out = Map::new();
    let n = errs.0.len();
    let result = match typ {
        "text" => {
            let (t, d) = text_block(obj, &format!("{loc}.TextBlock"), ids, errs);
            return (errs.0.len() == n).then_some((Block::Text(t), d));
        }
        "data" => {
            let (d, dv) = data_block(obj, &format!("{loc}.DataBlock"), ids, errs);
            return d
                .filter(|_| errs.0.len() == n)
                .map(|d| (Block::Data(d), dv));
        }
        "thinking" => {
            let l = format!("{loc}.ThinkingBlock");
            let thinking = req_str(obj, "thinking", &l, errs);
            out.insert("type".into(), "thinking".into());
            out.insert("thinking".into(), Value::String(thinking.clone()));
            out.insert("id".into(), id_or_new(obj, &l, ids, errs));
            stamps(obj, &l, &mut out, false, errs);
            let mut extra = Map::new();
            for (k, v) in obj {
                if !["type", "thinking", "id", "created_at", "finished_at"].contains(&k.as_str()) {
                    extra.insert(k.clone(), v.clone());
                    out.insert(k.clone(), v.clone());
                }
            }
            Block::Thinking { thinking, extra }
        }
        "hint" => {
            let l = format!("{loc}.HintBlock");
            out.insert("type".into(), "hint".into());
            let (hint, dump) = items(obj.get("hint"), &format!("{l}.hint"), ids, errs, obj);
            out.insert("hint".into(), dump);
            out.insert("id".into(), id_or_new(obj, &l, ids, errs));
            out.insert(
                "source".into(),
                opt_str(obj, "source", &l, Value::Null, true, errs),
            );
            stamps(obj, &l, &mut out, true, errs);
            Block::Hint(hint)
        }
        "tool_call" => {
            let l = format!("{loc}.ToolCallBlock");
            let id = req_str(obj, "id", &l, errs);
            let name = req_str(obj, "name", &l, errs);
            let input = req_str(obj, "input", &l, errs);
            out.insert("type".into(), "tool_call".into());
            out.insert("id".into(), Value::String(id.clone()));
            out.insert("name".into(), Value::String(name.clone()));
            out.insert("input".into(), Value::String(input.clone()));
            out.insert(
                "state".into(),
                obj.get("state")
                    .cloned()
                    .unwrap_or_else(|| "pending".into()),
            );
            out.insert(
                "suggested_rules".into(),
                match obj.get("suggested_rules") {
                    Some(Value::Array(rules)) => Value::Array(
                        rules
                            .iter()
                            .map(|r| {
                                let get = |k: &str| r.get(k).cloned().unwrap_or(Value::Null);
                                json!({
                                    "tool_name": get("tool_name"),
                                    "rule_content": get("rule_content"),
                                    "behavior": get("behavior"),
                                    "source": get("source"),
                                })
                            })
                            .collect(),
                    ),
                    _ => json!([]),
                },
            );
            stamps(obj, &l, &mut out, false, errs);
            Block::ToolCall { id, name, input }
        }
        "tool_result" => {
            let l = format!("{loc}.ToolResultBlock");
            let id = req_str(obj, "id", &l, errs);
            let name = req_str(obj, "name", &l, errs);
            out.insert("type".into(), "tool_result".into());
            out.insert("id".into(), Value::String(id.clone()));
            out.insert("name".into(), Value::String(name.clone()));
            let (output, dump) = items(obj.get("output"), &format!("{l}.output"), ids, errs, obj);
            out.insert("output".into(), dump);
            out.insert(
                "state".into(),
                obj.get("state")
                    .cloned()
                    .unwrap_or_else(|| "running".into()),
            );
            out.insert(
                "metadata".into(),
                obj.get("metadata").cloned().unwrap_or_else(|| json!({})),
            );
            stamps(obj, &l, &mut out, false, errs);
            Block::ToolResult { id, name, output }
        }
        _ => {
            errs.add(
                &format!("{loc}.TextBlock.type"),
                format!(
                    "Input should be 'text' [type=literal_error, input_value={}, input_type={}]",
                    py_repr(obj.get("type").unwrap_or(&Value::Null)),
                    type_name(obj.get("type").unwrap_or(&Value::Null))
                ),
            );
            return None;
        }
    };
    (errs.0.len() == n).then_some((result, Value::Object(out)))
}

fn report(errs: &Errors) -> PyErr {
    let n = errs.0.len();
    let mut text = format!(
        "{n} validation error{} for Msg",
        if n == 1 { "" } else { "s" }
    );
    for (loc, msg) in &errs.0 {
        if !loc.is_empty() {
            text.push('\n');
            text.push_str(loc);
        }
        text.push_str("\n  ");
        text.push_str(msg);
    }
    PyErr::new("ValidationError", text)
}

/// `Msg.model_validate(dict)` and its `model_dump(mode="json")`.
pub fn validate_msg(v: &Value, ids: &mut Ids) -> Result<(Msg, Value), PyErr> {
    let field_errors = schema::msg_errors(v);
    if !field_errors.is_empty() {
        return Err(schema::report(&field_errors));
    }
    let mut errs = Errors(Vec::new());
    let Some(obj) = v.as_object() else {
        errs.add("", format!("Input should be a valid dictionary or instance of Msg [type=model_type, input_value={}, input_type={}]", py_repr(v), type_name(v)));
        return Err(report(&errs));
    };
    let name = req_str(obj, "name", "", &mut errs);
    let name_loc_fix = |errs: &mut Errors| {
        for e in errs.0.iter_mut() {
            if let Some(s) = e.0.strip_prefix('.') {
                e.0 = s.to_string();
            }
        }
    };
    let mut blocks = Vec::new();
    let mut dumps = Vec::new();
    match obj.get("content") {
        Some(Value::Array(items)) => {
            for (j, b) in items.iter().enumerate() {
                if let Some((blk, d)) = block(b, &format!("content.{j}"), ids, &mut errs) {
                    blocks.push(blk);
                    dumps.push(d);
                }
            }
        }
        Some(other) => errs.add(
            "content",
            format!(
                "Input should be a valid list [type=list_type, input_value={}, input_type={}]",
                py_repr(other),
                type_name(other)
            ),
        ),
        None => errs.add("content", missing(obj)),
    }
    let role = match obj.get("role") {
        Some(Value::String(r)) if ["user", "assistant", "system"].contains(&r.as_str()) => {
            r.clone()
        }
        other => {
            let o = other.cloned().unwrap_or(Value::Null);
            errs.add(
                "role",
                format!("Input should be 'user', 'assistant' or 'system' [type=literal_error, input_value={}, input_type={}]", py_repr(&o), type_name(&o)),
            );
            String::new()
        }
    };
    let mut dump = Map::new();
    dump.insert("name".into(), Value::String(name.clone()));
    dump.insert("content".into(), Value::Array(dumps));
    dump.insert("role".into(), Value::String(role.clone()));
    dump.insert("id".into(), id_or_new(obj, "", ids, &mut errs));
    dump.insert(
        "metadata".into(),
        obj.get("metadata").cloned().unwrap_or_else(|| json!({})),
    );
    dump.insert(
        "created_at".into(),
        opt_str(
            obj,
            "created_at",
            "",
            Value::String(FIXED_TIMESTAMP.into()),
            false,
            &mut errs,
        ),
    );
    let usage = match obj.get("usage") {
        Some(Value::Object(u)) => {
            let int = |k: &str| u.get(k).map(schema::as_int).unwrap_or_else(|| json!(0));
            json!({
                "input_tokens": int("input_tokens"),
                "output_tokens": int("output_tokens"),
                "cache_input_tokens": int("cache_input_tokens"),
                "cache_creation_input_tokens": int("cache_creation_input_tokens"),
            })
        }
        other => other.cloned().unwrap_or(Value::Null),
    };
    dump.insert("usage".into(), usage);
    for key in ["finished_at", "finished_reason", "structured_output"] {
        dump.insert(key.into(), obj.get(key).cloned().unwrap_or(Value::Null));
    }
    let error = match obj.get("error") {
        Some(Value::Object(e)) => json!({
            "type": e.get("type").cloned().unwrap_or_else(|| json!("unknown")),
            "message": e.get("message").cloned().unwrap_or(Value::Null),
        }),
        other => other.cloned().unwrap_or(Value::Null),
    };
    dump.insert("error".into(), error);
    name_loc_fix(&mut errs);
    if !errs.0.is_empty() {
        return Err(report(&errs));
    }
    let allowed: &[&str] = match role.as_str() {
        "user" => &["text", "data"],
        "system" => &["text"],
        _ => &[],
    };
    if !allowed.is_empty() {
        let bad = blocks.iter().any(|b| {
            let t = match b {
                Block::Text(_) => "text",
                Block::Data(_) => "data",
                _ => "other",
            };
            !allowed.contains(&t)
        });
        if bad {
            let text = if role == "user" {
                "User message can only contain text blocks or data blocks."
            } else {
                "System message can only contain text blocks."
            };
            return Err(schema::report(&[schema::LineError {
                loc: Vec::new(),
                kind: "value_error",
                msg: format!("Value error, {text}"),
                input: v.clone(),
            }]));
        }
    }
    Ok((
        Msg {
            name,
            role,
            content: blocks,
        },
        Value::Object(dump),
    ))
}
