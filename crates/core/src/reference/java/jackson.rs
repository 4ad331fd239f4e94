//! How AgentScope Java's JSON codec (Jackson) writes a body: compact, keys in
//! the order the DTOs declare them (our maps keep insertion order), non-ASCII
//! unescaped, control characters as Jackson escapes them, doubles as Java's
//! `Double.toString`. Also Java's `HashMap` iteration order, which decides
//! the key order of a tool call's `input` map.

use serde_json::{Map, Value};

/// The body exactly as Jackson writes it.
pub fn write(v: &Value) -> String {
    let mut out = String::new();
    write_into(v, &mut out);
    out
}

fn write_into(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number(n)),
        Value::String(s) => string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_into(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                string(k, out);
                out.push(':');
                write_into(item, out);
            }
            out.push('}');
        }
    }
}

fn string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A number as Java prints it: integers as they are, doubles by
/// `Double.toString` (`1.0`, `36.3`, `1.0E20`, `1.0E-4`).
pub fn number(n: &serde_json::Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    let Some(f) = n.as_f64() else {
        return n.to_string();
    };
    java_double(f)
}

fn java_double(f: f64) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let a = f.abs();
    // `Double.MIN_VALUE`: Java writes two digits where one would do.
    if a == f64::from_bits(1) {
        return if f < 0.0 { "-4.9E-324" } else { "4.9E-324" }.into();
    }
    if (1e-3..1e7).contains(&a) {
        let s = format!("{f}");
        return if s.contains('.') { s } else { format!("{s}.0") };
    }
    // Scientific: shortest digits, one before the point.
    let e = format!("{f:e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let mantissa = if mantissa.contains('.') {
        mantissa.to_string()
    } else {
        format!("{mantissa}.0")
    };
    format!("{mantissa}E{exp}")
}

/// Java's `String.hashCode` (UTF-16 code units, wrapping).
fn java_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, u| h.wrapping_mul(31).wrapping_add(u as i32))
}

/// The iteration order of `new HashMap<>(map)` over `map`'s entries: the
/// table is sized for the copy (`tableSizeFor(size / 0.75 + 1)`), entries go
/// by bucket (`(h ^ h >>> 16) & (cap - 1)`), ties in insertion order.
pub fn hash_map_order(map: &Map<String, Value>) -> Map<String, Value> {
    let n = map.len();
    if n == 0 {
        return Map::new();
    }
    let t = (n as f32 / 0.75f32 + 1.0f32) as usize;
    let cap = t.max(1).next_power_of_two();
    let mut entries: Vec<(usize, usize, &String, &Value)> = map
        .iter()
        .enumerate()
        .map(|(i, (k, v))| {
            let h = java_hash(k);
            let spread = (h ^ ((h as u32) >> 16) as i32) as u32 as usize;
            (spread & (cap - 1), i, k, v)
        })
        .collect();
    entries.sort_by_key(|(bucket, i, _, _)| (*bucket, *i));
    entries
        .into_iter()
        .map(|(_, _, k, v)| (k.clone(), v.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn hash_map_order_matches_java() {
        let m = json!({"location": [1], "keyword": "x"});
        let o = hash_map_order(m.as_object().unwrap());
        assert_eq!(o.keys().collect::<Vec<_>>(), ["keyword", "location"]);
    }

    /// Orders printed by OpenJDK 17's `new HashMap<>(linkedHashMap)`.
    #[test]
    fn hash_map_order_matches_openjdk() {
        for (input, java) in [
            ("type,properties,required,$defs", "$defs,type,properties,required"),
            ("a,b,c,d,e,f,g,h,i,j,k,l,m", "a,b,c,d,e,f,g,h,i,j,k,l,m"),
            (
                "city,unit,date,days,query,limit,offset,sort,filter,lang,page,size,verbose,format,timezone,country,region",
                "date,country,offset,city,timezone,query,format,sort,verbose,filter,unit,size,limit,days,page,lang,region",
            ),
            ("名前,値,x_y,Zeta,alpha,BETA,gamma2,10,2", "Zeta,2,x_y,値,gamma2,alpha,名前,BETA,10"),
        ] {
            let map: Map<String, Value> = input.split(',').map(|k| (k.to_string(), json!(1))).collect();
            let ordered = hash_map_order(&map);
            let order: Vec<&str> = ordered.keys().map(String::as_str).collect();
            assert_eq!(order.join(","), java, "{input}");
        }
    }

    /// `Double.toString` as OpenJDK prints it.
    #[test]
    fn doubles_as_java_prints_them() {
        for (f, java) in [
            (1.0, "1.0"),
            (36.3, "36.3"),
            (1e20, "1.0E20"),
            (1e-4, "1.0E-4"),
            (0.001, "0.001"),
            (1234567.0, "1234567.0"),
            (12345678.0, "1.2345678E7"),
            (0.1 + 0.2, "0.30000000000000004"),
            (5e-324, "4.9E-324"),
            (1.7976931348623157e308, "1.7976931348623157E308"),
        ] {
            assert_eq!(java_double(f), java, "{f}");
        }
    }

    #[test]
    fn writes_like_jackson() {
        assert_eq!(
            write(&json!({"a": [1, 36.3, "é\u{1}"]})),
            "{\"a\":[1,36.3,\"é\\u0001\"]}"
        );
        assert_eq!(java_double(1e20), "1.0E20");
    }
}
