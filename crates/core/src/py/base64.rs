//! `base64.b64decode` (non-strict, as Python's default) and `b64encode`.

use super::{type_name, PyErr};
use base64::Engine;
use serde_json::Value;

pub fn b64encode(data: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(data)
}

/// Python's `base64.b64decode(s)` for a JSON value: characters outside the
/// alphabet are skipped, a complete pad sequence ends the input, and a bad
/// length raises `binascii.Error` (class name `Error`).
pub fn b64decode(v: &Value) -> Result<Vec<u8>, PyErr> {
    let s = match v {
        Value::String(s) => s,
        other => {
            return Err(PyErr::type_error(format!(
                "argument should be a bytes-like object or ASCII string, not '{}'",
                type_name(other)
            )))
        }
    };
    if !s.is_ascii() {
        return Err(PyErr::value(
            "string argument should contain only ASCII characters",
        ));
    }
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut quad_pos = 0u8;
    let mut left: u32 = 0;
    let mut pads = 0u8;
    for b in s.bytes() {
        if b == b'=' {
            if quad_pos >= 2 {
                pads += 1;
                if quad_pos + pads >= 4 {
                    return Ok(out);
                }
            }
            continue;
        }
        let Some(value) = decode_char(b) else {
            continue;
        };
        pads = 0;
        match quad_pos {
            0 => {
                quad_pos = 1;
                left = value;
            }
            1 => {
                quad_pos = 2;
                out.push(((left << 2) | (value >> 4)) as u8);
                left = value & 0x0f;
            }
            2 => {
                quad_pos = 3;
                out.push(((left << 4) | (value >> 2)) as u8);
                left = value & 0x03;
            }
            _ => {
                quad_pos = 0;
                out.push(((left << 6) | value) as u8);
                left = 0;
            }
        }
    }
    match quad_pos {
        0 => Ok(out),
        1 => Err(PyErr::new(
            "Error",
            format!(
                "Invalid base64-encoded string: number of data characters ({}) cannot be 1 more than a multiple of 4",
                out.len() / 3 * 4 + 1
            ),
        )),
        _ => Err(PyErr::new("Error", "Incorrect padding")),
    }
}

fn decode_char(b: u8) -> Option<u32> {
    Some(match b {
        b'A'..=b'Z' => (b - b'A') as u32,
        b'a'..=b'z' => (b - b'a' + 26) as u32,
        b'0'..=b'9' => (b - b'0' + 52) as u32,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenient_like_python() {
        assert_eq!(b64decode(&"AAEC".into()).ok(), Some(vec![0, 1, 2]));
        assert_eq!(b64decode(&"AA\nEC".into()).ok(), Some(vec![0, 1, 2]));
        assert_eq!(b64decode(&"AQ==junk".into()).ok(), Some(vec![1]));
        assert_eq!(
            b64decode(&"AAE".into()).map_err(|e| e.message),
            Err("Incorrect padding".to_string())
        );
        assert!(b64decode(&"A".into())
            .map_err(|e| e.message)
            .unwrap_err()
            .contains("(1) cannot be 1 more"));
    }
}
