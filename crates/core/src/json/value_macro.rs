//! `json!` as serde_json writes it, with one change: an interpolated value
//! is moved in (or, given by reference, cloned) with [`IntoJson`], not
//! re-serialised with `to_value`.
//!
//! serde_json's `json!` runs every interpolated `Value` through
//! `to_value(..).unwrap()`, which with `arbitrary_precision` re-parses each
//! number's text and panics on the numbers Python's `json` reads and JSON
//! has no text for (`NaN`, `Infinity`, from `1e400`). A session may hold
//! them, so the core builds values with this macro. And `to_value` takes
//! its value by reference: a formatter's history text, content list or
//! tool calls, put into the message it builds, were each copied whole and
//! the original freed (a fifth of formatting 100,000 messages).
//!
//! The macro body is serde_json 1.0.154's (MIT OR Apache-2.0), renamed.

#[macro_export]
macro_rules! json {
    // Hide distracting implementation details from the generated rustdoc.
    ($($json:tt)+) => {
        $crate::value_internal!($($json)+)
    };
}

// Rocket relies on this because they export their own `json!` with a different
// doc comment than ours, and various Rust bugs prevent them from calling our
// `json!` from their `json!` so they call `value_internal!` directly. Check with
// @SergioBenitez before making breaking changes to this macro.
//
// Changes are fine as long as `value_internal!` does not call any new helper
// macros and can still be invoked as `value_internal!($($json)+)`.
#[macro_export]
macro_rules! value_internal {
    //////////////////////////////////////////////////////////////////////////
    // TT muncher for parsing the inside of an array [...]. Produces a vec![...]
    // of the elements.
    //
    // Must be invoked as: value_internal!(@array [] $($tt)*)
    //////////////////////////////////////////////////////////////////////////

    // Done with trailing comma.
    (@array [$($elems:expr,)*]) => {
        ::std::vec![$($elems,)*]
    };

    // Done without trailing comma.
    (@array [$($elems:expr),*]) => {
        ::std::vec![$($elems),*]
    };

    // Next element is `null`.
    (@array [$($elems:expr,)*] null $($rest:tt)*) => {
        $crate::value_internal!(@array [$($elems,)* $crate::value_internal!(null)] $($rest)*)
    };

    // Next element is `true`.
    (@array [$($elems:expr,)*] true $($rest:tt)*) => {
        $crate::value_internal!(@array [$($elems,)* $crate::value_internal!(true)] $($rest)*)
    };

    // Next element is `false`.
    (@array [$($elems:expr,)*] false $($rest:tt)*) => {
        $crate::value_internal!(@array [$($elems,)* $crate::value_internal!(false)] $($rest)*)
    };

    // Next element is an array.
    (@array [$($elems:expr,)*] [$($array:tt)*] $($rest:tt)*) => {
        $crate::value_internal!(@array [$($elems,)* $crate::value_internal!([$($array)*])] $($rest)*)
    };

    // Next element is a map.
    (@array [$($elems:expr,)*] {$($map:tt)*} $($rest:tt)*) => {
        $crate::value_internal!(@array [$($elems,)* $crate::value_internal!({$($map)*})] $($rest)*)
    };

    // Next element is an expression followed by comma.
    (@array [$($elems:expr,)*] $next:expr, $($rest:tt)*) => {
        $crate::value_internal!(@array [$($elems,)* $crate::value_internal!($next),] $($rest)*)
    };

    // Last element is an expression with no trailing comma.
    (@array [$($elems:expr,)*] $last:expr) => {
        $crate::value_internal!(@array [$($elems,)* $crate::value_internal!($last)])
    };

    // Comma after the most recent element.
    (@array [$($elems:expr),*] , $($rest:tt)*) => {
        $crate::value_internal!(@array [$($elems,)*] $($rest)*)
    };

    // Unexpected token after most recent element.
    (@array [$($elems:expr),*] $unexpected:tt $($rest:tt)*) => {
        $crate::value_unexpected!($unexpected)
    };

    //////////////////////////////////////////////////////////////////////////
    // TT muncher for parsing the inside of an object {...}. Each entry is
    // inserted into the given map variable.
    //
    // Must be invoked as: value_internal!(@object $map () ($($tt)*) ($($tt)*))
    //
    // We require two copies of the input tokens so that we can match on one
    // copy and trigger errors on the other copy.
    //////////////////////////////////////////////////////////////////////////

    // Done.
    (@object $object:ident () () ()) => {};

    // Insert the current entry followed by trailing comma.
    (@object $object:ident [$($key:tt)+] ($value:expr) , $($rest:tt)*) => {
        let _ = $object.insert(($($key)+).into(), $value);
        $crate::value_internal!(@object $object () ($($rest)*) ($($rest)*));
    };

    // Current entry followed by unexpected token.
    (@object $object:ident [$($key:tt)+] ($value:expr) $unexpected:tt $($rest:tt)*) => {
        $crate::value_unexpected!($unexpected);
    };

    // Insert the last entry without trailing comma.
    (@object $object:ident [$($key:tt)+] ($value:expr)) => {
        let _ = $object.insert(($($key)+).into(), $value);
    };

    // Next value is `null`.
    (@object $object:ident ($($key:tt)+) (: null $($rest:tt)*) $copy:tt) => {
        $crate::value_internal!(@object $object [$($key)+] ($crate::value_internal!(null)) $($rest)*);
    };

    // Next value is `true`.
    (@object $object:ident ($($key:tt)+) (: true $($rest:tt)*) $copy:tt) => {
        $crate::value_internal!(@object $object [$($key)+] ($crate::value_internal!(true)) $($rest)*);
    };

    // Next value is `false`.
    (@object $object:ident ($($key:tt)+) (: false $($rest:tt)*) $copy:tt) => {
        $crate::value_internal!(@object $object [$($key)+] ($crate::value_internal!(false)) $($rest)*);
    };

    // Next value is an array.
    (@object $object:ident ($($key:tt)+) (: [$($array:tt)*] $($rest:tt)*) $copy:tt) => {
        $crate::value_internal!(@object $object [$($key)+] ($crate::value_internal!([$($array)*])) $($rest)*);
    };

    // Next value is a map.
    (@object $object:ident ($($key:tt)+) (: {$($map:tt)*} $($rest:tt)*) $copy:tt) => {
        $crate::value_internal!(@object $object [$($key)+] ($crate::value_internal!({$($map)*})) $($rest)*);
    };

    // Next value is an expression followed by comma.
    (@object $object:ident ($($key:tt)+) (: $value:expr , $($rest:tt)*) $copy:tt) => {
        $crate::value_internal!(@object $object [$($key)+] ($crate::value_internal!($value)) , $($rest)*);
    };

    // Last value is an expression with no trailing comma.
    (@object $object:ident ($($key:tt)+) (: $value:expr) $copy:tt) => {
        $crate::value_internal!(@object $object [$($key)+] ($crate::value_internal!($value)));
    };

    // Missing value for last entry. Trigger a reasonable error message.
    (@object $object:ident ($($key:tt)+) (:) $copy:tt) => {
        // "unexpected end of macro invocation"
        $crate::value_internal!();
    };

    // Missing colon and value for last entry. Trigger a reasonable error
    // message.
    (@object $object:ident ($($key:tt)+) () $copy:tt) => {
        // "unexpected end of macro invocation"
        $crate::value_internal!();
    };

    // Misplaced colon. Trigger a reasonable error message.
    (@object $object:ident () (: $($rest:tt)*) ($colon:tt $($copy:tt)*)) => {
        // Takes no arguments so "no rules expected the token `:`".
        $crate::value_unexpected!($colon);
    };

    // Found a comma inside a key. Trigger a reasonable error message.
    (@object $object:ident ($($key:tt)*) (, $($rest:tt)*) ($comma:tt $($copy:tt)*)) => {
        // Takes no arguments so "no rules expected the token `,`".
        $crate::value_unexpected!($comma);
    };

    // Key is fully parenthesized. This avoids clippy double_parens false
    // positives because the parenthesization may be necessary here.
    (@object $object:ident () (($key:expr) : $($rest:tt)*) $copy:tt) => {
        $crate::value_internal!(@object $object ($key) (: $($rest)*) (: $($rest)*));
    };

    // Refuse to absorb colon token into key expression.
    (@object $object:ident ($($key:tt)*) (: $($unexpected:tt)+) $copy:tt) => {
        $crate::value_expect_expr_comma!($($unexpected)+);
    };

    // Munch a token into the current key.
    (@object $object:ident ($($key:tt)*) ($tt:tt $($rest:tt)*) $copy:tt) => {
        $crate::value_internal!(@object $object ($($key)* $tt) ($($rest)*) ($($rest)*));
    };

    //////////////////////////////////////////////////////////////////////////
    // The main implementation.
    //
    // Must be invoked as: value_internal!($($json)+)
    //////////////////////////////////////////////////////////////////////////

    (null) => {
        ::serde_json::Value::Null
    };

    (true) => {
        ::serde_json::Value::Bool(true)
    };

    (false) => {
        ::serde_json::Value::Bool(false)
    };

    ([]) => {
        ::serde_json::Value::Array(::std::vec![])
    };

    ([ $($tt:tt)+ ]) => {
        ::serde_json::Value::Array($crate::value_internal!(@array [] $($tt)+))
    };

    ({}) => {
        ::serde_json::Value::Object(::serde_json::Map::new())
    };

    ({ $($tt:tt)+ }) => {
        ::serde_json::Value::Object({
            let mut object = ::serde_json::Map::new();
            $crate::value_internal!(@object object () ($($tt)+) ($($tt)+));
            object
        })
    };

    // Anything [`IntoJson`]: a Value, a string, a number, a bool, an
    // Option..., moved in; a reference is cloned. Must be below every
    // other rule.
    ($other:expr) => {
        $crate::json::IntoJson::into_json($other)
    };
}

#[macro_export]
macro_rules! value_unexpected {
    () => {};
}

#[macro_export]
macro_rules! value_expect_expr_comma {
    ($e:expr , $($tt:tt)*) => {};
}

use serde_json::{Map, Value};
use std::sync::Arc;

/// What `json!` can interpolate: a clone into a `Value`, with no
/// serialisation round trip.
pub trait ToJson {
    fn to_json(&self) -> Value;
}

impl ToJson for Value {
    fn to_json(&self) -> Value {
        self.clone()
    }
}

impl ToJson for Map<String, Value> {
    fn to_json(&self) -> Value {
        Value::Object(self.clone())
    }
}

impl ToJson for str {
    fn to_json(&self) -> Value {
        Value::String(self.to_string())
    }
}

impl ToJson for String {
    fn to_json(&self) -> Value {
        Value::String(self.clone())
    }
}

impl ToJson for bool {
    fn to_json(&self) -> Value {
        Value::Bool(*self)
    }
}

macro_rules! to_json_via_from {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn to_json(&self) -> Value {
                Value::from(*self)
            }
        }
    )*};
}
to_json_via_from!(i32, i64, u8, u32, u64, usize, f64);

impl<T: ToJson + ?Sized> ToJson for &T {
    fn to_json(&self) -> Value {
        (**self).to_json()
    }
}

impl<T: ToJson + ?Sized> ToJson for Arc<T> {
    fn to_json(&self) -> Value {
        (**self).to_json()
    }
}

impl<T: ToJson + ?Sized> ToJson for Box<T> {
    fn to_json(&self) -> Value {
        (**self).to_json()
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn to_json(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToJson::to_json)
    }
}

impl<T: ToJson> ToJson for [T] {
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(ToJson::to_json).collect())
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn to_json(&self) -> Value {
        self.as_slice().to_json()
    }
}

/// What `json!` interpolates: an owned value moves in, a reference is
/// cloned ([`ToJson`]).
pub trait IntoJson {
    fn into_json(self) -> Value;
}

impl<T: ToJson + ?Sized> IntoJson for &T {
    fn into_json(self) -> Value {
        self.to_json()
    }
}

impl IntoJson for Value {
    fn into_json(self) -> Value {
        self
    }
}

impl IntoJson for Map<String, Value> {
    fn into_json(self) -> Value {
        Value::Object(self)
    }
}

impl IntoJson for String {
    fn into_json(self) -> Value {
        Value::String(self)
    }
}

impl<T: IntoJson> IntoJson for Vec<T> {
    fn into_json(self) -> Value {
        Value::Array(self.into_iter().map(IntoJson::into_json).collect())
    }
}

impl<T: IntoJson> IntoJson for Option<T> {
    fn into_json(self) -> Value {
        self.map_or(Value::Null, IntoJson::into_json)
    }
}

macro_rules! into_json_by_copy {
    ($($t:ty),*) => {$(
        impl IntoJson for $t {
            fn into_json(self) -> Value {
                self.to_json()
            }
        }
    )*};
}
into_json_by_copy!(bool, i32, i64, u8, u32, u64, usize, f64);

#[cfg(test)]
mod tests {
    use crate::json;
    use serde_json::Value;

    #[test]
    fn numbers_python_reads_but_json_cannot_write_are_interpolated() {
        let input = json::parse(b"{\"x\": NaN, \"y\": Infinity}", Default::default())
            .unwrap()
            .value;
        let block =
            json!({"type": "tool_use", "input": input, "n": 3, "s": "a", "o": None::<Value>});
        assert_eq!(
            block.to_string(),
            r#"{"type":"tool_use","input":{"x":NaN,"y":Infinity},"n":3,"s":"a","o":null}"#
        );
    }

    /// A formatter's history text is put into its message without a copy
    /// of its bytes; a value given by reference is cloned and left as it was.
    #[test]
    fn an_owned_value_moves_in_and_a_reference_is_cloned() {
        let text = "line\n".repeat(10_000);
        let bytes_at = text.as_ptr();
        let message = json!({"role": "user", "content": [{"type": "text", "text": text}]});
        assert_eq!(
            message["content"][0]["text"].as_str().map(str::as_ptr),
            Some(bytes_at)
        );
        let name = String::from("Alice");
        let block = json!({"name": &name});
        assert_eq!(block["name"], "Alice");
        assert_ne!(block["name"].as_str().map(str::as_ptr), Some(name.as_ptr()));
    }

    /// Why this copy stays: serde_json's own `json!` panics on the same
    /// value (a session with `NaN` in a tool's input would crash a view).
    #[test]
    fn serde_jsons_own_macro_panics_where_this_one_does_not() {
        let input = json::parse(b"{\"x\": NaN}", Default::default())
            .unwrap()
            .value;
        let theirs = std::panic::catch_unwind(|| serde_json::json!({ "input": input.clone() }));
        assert!(
            theirs.is_err(),
            "serde_json's json! now takes NaN: retire the copy"
        );
        assert_eq!(
            json!({ "input": input }).to_string(),
            r#"{"input":{"x":NaN}}"#
        );
    }
}
