//! Helpers shared by the golden tests.
#![allow(dead_code)]

use formatscope::formatter::{FormatOptions, FormatterId};
use formatscope::pipeline::ReferenceRequest;
use serde_json::Value;

/// The request `oracle.py ARGS` describes (ARGS after the session path).
pub fn request_from_oracle_args(args: &[String]) -> ReferenceRequest {
    let mut request = ReferenceRequest {
        formatter: FormatterId::from_class_name("OpenAIChatFormatter").unwrap(),
        options: FormatOptions::default(),
        max_tokens: None,
        count: false,
        tools: false,
        token_counter: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--formatter" => {
                request.formatter = FormatterId::from_class_name(it.next().unwrap()).unwrap()
            }
            "--max-tokens" => request.max_tokens = Some(it.next().unwrap().parse().unwrap()),
            "--count" => request.count = true,
            "--tools" => request.tools = true,
            "--promote-tool-result-images" => request.options.promote_images = true,
            "--promote-tool-result-audios" => request.options.promote_audios = true,
            "--promote-tool-result-videos" => request.options.promote_videos = true,
            "--conversation-history-prompt" => request.options.history_prompt = it.next().cloned(),
            // Not the oracle's: our suites made with another counter.
            "--token-counter" => {
                request.token_counter =
                    Some(formatscope::tokens::CounterSpec::parse(it.next().unwrap()).unwrap())
            }
            other => panic!("unexpected oracle argument {other}"),
        }
    }
    request
}

const ERROR_KEYS: [&str; 3] = ["tokens_error", "tokens_with_tools_error", "tools_error"];

/// compare.py's verdict: `None` when equal, else the first difference.
pub fn compare_outputs(expected: &Value, actual: &Value) -> Option<String> {
    let mut exp = expected.as_object()?.clone();
    let mut act = actual.as_object()?.clone();
    exp.remove("warnings");
    act.remove("warnings");
    if exp.contains_key("error") {
        return same_error(&Value::Object(exp), &Value::Object(act));
    }
    if act.contains_key("error") {
        return Some(format!(
            "unexpected error: {} {}",
            act["error_type"], act["error"]
        ));
    }
    for key in ERROR_KEYS {
        match (exp.remove(key), act.remove(key)) {
            (Some(e), a) => {
                if let Some(p) = same_error(&e, &a.unwrap_or(Value::Null)) {
                    return Some(format!("{key}: {p}"));
                }
            }
            (None, Some(a)) => return Some(format!("unexpected {key}: {a}")),
            (None, None) => {}
        }
    }
    first_difference(&Value::Object(exp), &Value::Object(act), "$")
}

fn repr_free_prefix(message: &str) -> &str {
    let cut = ["{'", "[{", "['", "<class '", "<_io."]
        .iter()
        .filter_map(|p| message.find(p))
        .min()
        .unwrap_or(message.len());
    &message[..cut]
}

fn same_error(exp: &Value, act: &Value) -> Option<String> {
    if act.get("error").is_none() {
        return Some("expected an error, got none".into());
    }
    for key in ["stage", "error_type"] {
        if exp.get(key) != act.get(key) {
            return Some(format!("{key} {:?} != {:?}", act.get(key), exp.get(key)));
        }
    }
    let e = repr_free_prefix(exp["error"].as_str().unwrap_or_default());
    let a = repr_free_prefix(act["error"].as_str().unwrap_or_default());
    (e != a).then(|| format!("error message {a:?} != {e:?}"))
}

/// Numbers compare by their text, so `1` and `1.0` differ as in compare.py.
fn first_difference(exp: &Value, act: &Value, path: &str) -> Option<String> {
    if exp == act {
        return None;
    }
    match (exp, act) {
        (Value::Object(e), Value::Object(a)) => {
            let mut keys: Vec<&String> = e.keys().chain(a.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                match (e.get(key), a.get(key)) {
                    (Some(_), None) => return Some(format!("{path}.{key}: missing")),
                    (None, Some(_)) => return Some(format!("{path}.{key}: unexpected")),
                    (Some(x), Some(y)) => {
                        if let Some(d) = first_difference(x, y, &format!("{path}.{key}")) {
                            return Some(d);
                        }
                    }
                    (None, None) => {}
                }
            }
            None
        }
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => e
            .iter()
            .zip(a)
            .enumerate()
            .find_map(|(i, (x, y))| first_difference(x, y, &format!("{path}[{i}]"))),
        (Value::Array(e), Value::Array(a)) => {
            Some(format!("{path}: {} items != {}", a.len(), e.len()))
        }
        _ => Some(format!("{path}: {act} != {exp}")),
    }
}

/// The response compare.py's rules (JSON values, ints and floats apart,
/// `"<elapsed>"` any number, `"<generated>"` any string); the first difference as a path.
pub fn response_differ(exp: &Value, got: &Value, path: &str) -> Option<String> {
    match (exp, got) {
        (Value::String(s), Value::Number(_)) if s == "<elapsed>" => None,
        (Value::String(s), Value::String(_)) if s == "<generated>" || s == "<elapsed>" => {
            if s == "<generated>" || got.as_str() == Some("<elapsed>") {
                None
            } else {
                Some(format!("{path}: {exp} != {got}"))
            }
        }
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                match b.get(k) {
                    None => return Some(format!("{path}: missing key '{k}'")),
                    Some(w) => {
                        if let Some(d) = response_differ(v, w, &format!("{path}.{k}")) {
                            return Some(d);
                        }
                    }
                }
            }
            b.keys()
                .find(|k| !a.contains_key(*k))
                .map(|k| format!("{path}: unexpected key '{k}'"))
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Some(format!("{path}: length {} != {}", a.len(), b.len()));
            }
            a.iter()
                .zip(b)
                .enumerate()
                .find_map(|(i, (x, y))| response_differ(x, y, &format!("{path}[{i}]")))
        }
        // serde_json with arbitrary_precision keeps the number's text: 16
        // and 16.0 differ, as int and float do in Python.
        _ => (exp != got).then(|| format!("{path}: {exp} != {got}")),
    }
}
