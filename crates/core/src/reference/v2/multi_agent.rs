//! The skeleton every 2.x `*MultiAgentFormatter` shares: a leading system
//! message formatted on its own, then runs of tool-sequence messages (through
//! the provider's chat formatter) and agent messages (one history message per
//! run, the prompt on the first run that produced something).

use super::base::group_messages;
use super::msgs::Msg;
use crate::py::PyErr;
use serde_json::Value;

pub fn skeleton(
    msgs: &[Msg],
    mut system: impl FnMut(&Msg) -> Result<Value, PyErr>,
    mut tool_sequence: impl FnMut(&[Msg]) -> Result<Vec<Value>, PyErr>,
    mut agent_group: impl FnMut(&[Msg], bool) -> Result<Vec<Value>, PyErr>,
) -> Result<Vec<Value>, PyErr> {
    let mut out = Vec::new();
    let mut rest = msgs;
    if let Some(first) = msgs.first() {
        if first.role == "system" {
            out.push(system(first)?);
            rest = &msgs[1..];
        }
    }
    let mut is_first = true;
    for (tools, group) in group_messages(rest) {
        if tools {
            out.extend(tool_sequence(group)?);
        } else {
            let formatted = agent_group(group, is_first)?;
            if !formatted.is_empty() {
                is_first = false;
            }
            out.extend(formatted);
        }
    }
    Ok(out)
}
