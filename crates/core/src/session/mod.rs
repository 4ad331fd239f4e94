//! Sessions: the conversation a user edits, loaded from any accepted shape.

mod load;
mod locate;
mod message;
mod msg;
mod openai_body;
mod save;
mod save_over;
pub mod settings;
mod sniff;

pub use load::{
    parse_session, parse_session_bytes, read_session, read_session_bytes, InputShape, Messages,
    Session, SessionError,
};
pub use locate::{locate_pointer, Locator};
pub use message::{live_items, msgs_of, MsgItem, PackedMessage, PackedMsg, Texts, ToolIds};
pub use msg::{Msg, Role};
pub use save::{
    read_only, render_saved, resolved, write_atomic, write_beside, write_session_file, SaveError,
    Written,
};
pub use save_over::render_saved_over;
pub use sniff::{looks_like_session, session_shape, SNIFF_BYTES};
