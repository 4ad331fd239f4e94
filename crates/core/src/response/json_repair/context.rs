//! `utils/json_context.py`: where the parser is (object key, object value,
//! array), as a stack.

/// `ContextValues`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextValue {
    ObjectKey,
    ObjectValue,
    Array,
}

/// `JsonContext`.
#[derive(Debug, Default)]
pub struct JsonContext {
    pub context: Vec<ContextValue>,
    pub current: Option<ContextValue>,
    pub empty: bool,
}

impl JsonContext {
    pub fn new() -> JsonContext {
        JsonContext {
            context: Vec::new(),
            current: None,
            empty: true,
        }
    }

    /// `JsonContext.set`.
    pub fn set(&mut self, value: ContextValue) {
        self.context.push(value);
        self.current = Some(value);
        self.empty = false;
    }

    /// `JsonContext.reset`: pop, then `current = context[-1]` or, on
    /// IndexError, None and empty.
    pub fn reset(&mut self) {
        self.context.pop();
        match self.context.last() {
            Some(&c) => self.current = Some(c),
            None => {
                self.current = None;
                self.empty = true;
            }
        }
    }

    /// `JsonContext.clear`.
    pub fn clear(&mut self) {
        self.context.clear();
        self.current = None;
        self.empty = true;
    }

    /// `value in self.context.context`.
    pub fn contains(&self, value: ContextValue) -> bool {
        self.context.contains(&value)
    }
}
