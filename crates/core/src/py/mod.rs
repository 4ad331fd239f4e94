//! Python semantics the reference depends on.
//!
//! AgentScope is Python: its output depends on `repr()`, `json.dumps`, float
//! formatting, `base64.b64decode`'s leniency and the exceptions that dynamic
//! typing raises on odd input. Everything here reproduces those rules so the
//! formatters can be written as faithful transliterations over
//! `serde_json::Value`.

mod base64;
mod error;
mod json;
mod json_error;
mod ops;
mod printable;
pub mod pydantic;
mod repr;

pub use self::base64::{b64decode, b64encode};
pub use error::PyErr;
pub use json::{dumps, normalize_numbers, python_float_repr, python_number_text};
pub use json_error::loads_error;
pub use ops::{
    field, get_item, get_str_method_target, iterate, join_strs, py_get, str_concat, truthy,
    type_name,
};
pub use repr::{push_py_str, py_repr, py_str};
mod literal;
pub use literal::{
    literal, literal_lenient, msg_repr, LenientLiteral, LiteralError, LiteralErrorKind, MsgRepr,
};
