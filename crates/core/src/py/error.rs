use std::fmt;

/// An exception as the Python reference would raise it: the exception class
/// name (`ValueError`, `KeyError`, ...) and `str(exception)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PyErr {
    pub kind: &'static str,
    pub message: String,
}

impl PyErr {
    pub fn new(kind: &'static str, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
    pub fn value(message: impl Into<String>) -> Self {
        Self::new("ValueError", message)
    }
    pub fn type_error(message: impl Into<String>) -> Self {
        Self::new("TypeError", message)
    }
    pub fn assertion(message: impl Into<String>) -> Self {
        Self::new("AssertionError", message)
    }
    /// `KeyError(key)`: `str()` of it is the key's repr.
    pub fn key(key: &str) -> Self {
        Self::new("KeyError", super::py_repr(&serde_json::Value::from(key)))
    }
    pub fn attribute(type_name: &str, attr: &str) -> Self {
        Self::new(
            "AttributeError",
            format!("'{type_name}' object has no attribute '{attr}'"),
        )
    }
}

impl fmt::Display for PyErr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(f, "{}", self.kind)
        } else {
            write!(f, "{}: {}", self.kind, self.message)
        }
    }
}

impl std::error::Error for PyErr {}
