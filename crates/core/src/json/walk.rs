//! One way to walk a JSON value, whether it is a tree (`&Value`) or packed
//! bytes read in place ([`crate::json::View`]): a printer of either walks
//! them alike, and a packed request is printed without being unpacked
//! first (a one-group session's request is one string of 18 MB).

use serde_json::Value;

/// A JSON value to walk.
pub trait Json<'a>: Sized {
    type Items: ExactSizeIterator<Item = Self>;
    type Members: ExactSizeIterator<Item = (&'a str, Self)>;
    fn kind(self) -> Kind<'a, Self>;
}

/// What a [`Json`] value is.
pub enum Kind<'a, J: Json<'a>> {
    /// `null`, `true`, `false` or a number: its JSON text (a number's as
    /// it was written).
    Scalar(&'a str),
    String(&'a str),
    Array(J::Items),
    Object(J::Members),
}

type ValueMember<'a> = (&'a str, &'a Value);

fn value_member<'a>((key, value): (&'a String, &'a Value)) -> ValueMember<'a> {
    (key, value)
}

impl<'a> Json<'a> for &'a Value {
    type Items = std::slice::Iter<'a, Value>;
    type Members =
        std::iter::Map<serde_json::map::Iter<'a>, fn((&'a String, &'a Value)) -> ValueMember<'a>>;

    fn kind(self) -> Kind<'a, Self> {
        match self {
            Value::Null => Kind::Scalar("null"),
            Value::Bool(true) => Kind::Scalar("true"),
            Value::Bool(false) => Kind::Scalar("false"),
            Value::Number(n) => Kind::Scalar(n.as_str()),
            Value::String(s) => Kind::String(s),
            Value::Array(items) => Kind::Array(items.iter()),
            Value::Object(map) => Kind::Object(map.iter().map(value_member as fn(_) -> _)),
        }
    }
}
