//! Sessions: the conversation a user edits, loaded from any accepted shape.

mod load;
mod locate;
mod msg;
mod openai_body;
mod save;

pub use load::{parse_session, read_session, InputShape, Session, SessionError};
pub use locate::locate_pointer;
pub use msg::{Msg, Role};
pub use save::write_atomic;
