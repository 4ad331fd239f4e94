//! What plays the same role where: content hashes of JSON values, the role
//! of a place in a request (a message's text, a tool schema's description,
//! the system prompt), and the pairing of values that left one place for
//! another of the same role (moves) or kept their place under another key
//! (renames).

use serde_json::Value;
use std::hash::Hasher;

/// A content hash consistent with `==` on `Value`: an object's members
/// hash in any order (the map compares without order).
pub fn hash(v: &Value) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    match v {
        Value::Null => h.write_u8(0),
        Value::Bool(b) => {
            h.write_u8(1);
            h.write_u8(u8::from(*b));
        }
        Value::Number(n) => {
            h.write_u8(2);
            h.write(n.to_string().as_bytes());
        }
        Value::String(s) => {
            h.write_u8(3);
            h.write(s.as_bytes());
        }
        Value::Array(a) => {
            h.write_u8(4);
            for x in a {
                h.write_u64(hash(x));
            }
        }
        Value::Object(m) => {
            h.write_u8(5);
            let mut sum = 0u64;
            for (k, x) in m {
                let mut e = rustc_hash::FxHasher::default();
                e.write(k.as_bytes());
                e.write_u64(hash(x));
                sum = sum.wrapping_add(e.finish());
            }
            h.write_u64(sum);
        }
    }
    h.finish()
}

/// Values worth naming as moved: objects, arrays, strings of 12
/// characters or more (not `"user"`, `0` or `true`).
pub fn worth(v: &Value) -> bool {
    match v {
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::String(s) => s.chars().nth(11).is_some(),
        _ => false,
    }
}

/// `functionCall` and `function_call` are one name.
pub fn snake(key: &str) -> String {
    if !key.bytes().any(|b| b.is_ascii_uppercase()) {
        return key.to_string();
    }
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Keys a request holds its conversation under.
const CONVERSATION: [&str; 2] = ["messages", "contents"];
/// Keys a model class moves the system prompt to.
const SYSTEM: [&str; 3] = ["system", "systemInstruction", "system_instruction"];
/// Keys of a message that hold its text.
const TEXT: [&str; 4] = ["content", "text", "parts", "message"];

/// Where a place is in a request: its area (the conversation, the system
/// prompt, the tools, another top-level key) and the key that names it
/// (hashed, in snake case: keys are compared, never shown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// A message's text (or the message itself), or the system prompt:
    /// Anthropic's `system` plays the role of OpenAI's system message.
    Text,
    Conversation(u64),
    Tools(u64),
    Other(u64, u64),
}

fn key_hash(key: &str) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    h.write(snake(key).as_bytes());
    h.finish()
}

/// The role of the place at the pointer of `tokens` (unescaped; any
/// number stands for an index).
pub fn role<S: AsRef<str>>(tokens: &[S]) -> Role {
    let Some(first) = tokens.first().map(AsRef::as_ref) else {
        return Role::Other(0, 0);
    };
    // The last key that is not an index names the place.
    let key = |skip: usize| {
        tokens
            .iter()
            .skip(skip)
            .rev()
            .map(AsRef::as_ref)
            .find(|t| t.parse::<usize>().is_err())
    };
    let conversation = CONVERSATION.contains(&first)
        || (first == "input" && tokens.get(1).is_some_and(|t| t.as_ref() == "messages"));
    if conversation {
        let skip = if first == "input" { 2 } else { 1 };
        return match key(skip) {
            None => Role::Text,
            Some(k) if TEXT.contains(&snake(k).as_str()) => Role::Text,
            Some(k) => Role::Conversation(key_hash(k)),
        };
    }
    if SYSTEM.contains(&first) {
        return Role::Text;
    }
    let k = key_hash(key(1).unwrap_or_default());
    if first == "tools" {
        return Role::Tools(k);
    }
    Role::Other(key_hash(first), k)
}

/// Unescaped tokens of a JSON pointer.
pub fn tokens(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|t| {
            if t.contains('~') {
                t.replace("~1", "/").replace("~0", "~")
            } else {
                t.to_string()
            }
        })
        .collect()
}

/// A removed key and an added key of one object name the same thing: the
/// same name in another case style (`function_call`, `functionCall`), the
/// conversation under another provider's key (`messages`, `contents`), or
/// the same value (worth naming) under another key.
pub fn renamed(top: bool, old: &str, new: &str, old_value: &Value, new_value: &Value) -> bool {
    snake(old) == snake(new)
        || (top && CONVERSATION.contains(&old) && CONVERSATION.contains(&new))
        || (worth(old_value) && old_value == new_value)
}

/// Every value worth naming in `root` (itself included), each with its
/// hash and the role of its place, `root` being at `at` (tokens),
/// parents before their parts.
pub fn parts<'a>(root: &'a Value, at: &[String], out: &mut Vec<(u64, Role, &'a Value)>) {
    fn go<'a: 's, 's>(
        v: &'a Value,
        stack: &mut Vec<&'s str>,
        out: &mut Vec<(u64, Role, &'a Value)>,
    ) -> u64 {
        let slot = out.len();
        if worth(v) {
            out.push((0, role(stack), v));
        }
        // The hash of `hash`, from the parts' own (one pass, not one per
        // level).
        let h = match v {
            Value::Array(a) => {
                let mut h = rustc_hash::FxHasher::default();
                h.write_u8(4);
                for x in a {
                    // Any number stands for an index.
                    stack.push("0");
                    h.write_u64(go(x, stack, out));
                    stack.pop();
                }
                h.finish()
            }
            Value::Object(m) => {
                let mut h = rustc_hash::FxHasher::default();
                h.write_u8(5);
                let mut sum = 0u64;
                for (k, x) in m {
                    let mut e = rustc_hash::FxHasher::default();
                    e.write(k.as_bytes());
                    stack.push(k);
                    e.write_u64(go(x, stack, out));
                    stack.pop();
                    sum = sum.wrapping_add(e.finish());
                }
                h.write_u64(sum);
                h.finish()
            }
            _ => hash(v),
        };
        if worth(v) {
            out[slot].0 = h;
        }
        h
    }
    let mut stack: Vec<&str> = at.iter().map(String::as_str).collect();
    go(root, &mut stack, out);
}

/// The path of `target` (a value inside `root`, by address) from `root`.
pub fn path_to(root: &Value, target: &Value) -> Option<String> {
    if std::ptr::eq(root, target) {
        return Some(String::new());
    }
    match root {
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, x)| Some(format!("/{i}{}", path_to(x, target)?))),
        Value::Object(m) => m
            .iter()
            .find_map(|(k, x)| Some(format!("/{}{}", super::token(k), path_to(x, target)?))),
        _ => None,
    }
}
