//! `parse_string.py`'s lookahead helpers: whether a `}`, a code fence, a
//! comment or a quote met inside a string ends it or belongs to it, read
//! ahead without moving the cursor (`parse_string.rs` decides with them).

use super::parse_string::{
    inline_closer, matching_string_delimiter, StringParseState, INLINE_CONTAINER_OPENERS,
};
use super::parser::{in_list, is_delim, JsonParser, STRING_DELIMITERS};
use super::pystr::{isalnum, isdigit, isspace};

impl JsonParser {
    /// `_brace_before_code_fence_belongs_to_string`: a `}` then a code
    /// fence inside a value; true when the fence is a literal snippet
    /// inside the string rather than the end of a wrapper.
    pub(super) fn brace_before_code_fence_belongs_to_string(
        &self,
        state: &mut StringParseState,
        fence_idx: isize,
    ) -> bool {
        let mut quote_search_idx = fence_idx + 3;
        let next_content_idx = self.scroll_comment_prefixed_member_start(quote_search_idx);
        let mut keep_post_fence_container = false;
        if in_list(
            self.get_char_at(next_content_idx),
            &INLINE_CONTAINER_OPENERS,
        ) {
            if let Some(container_end_idx) = self.skip_inline_container(next_content_idx) {
                if self.post_fence_container_starts_next_member(container_end_idx) {
                    return false;
                }
                keep_post_fence_container = true;
                quote_search_idx = container_end_idx;
            }
        }

        let mut quote_idx = self.skip_to_character(&[state.rstring_delimiter], quote_search_idx);
        while self.get_char_at(quote_idx) == Some(state.rstring_delimiter) {
            let after_quote_idx = self.scroll_whitespaces(quote_idx + 1);
            let after_quote = self.get_char_at(after_quote_idx);
            if matches!(after_quote, Some(',' | '}' | ']') | None) {
                if keep_post_fence_container {
                    state.pending_inline_container = true;
                }
                return true;
            }
            quote_idx = self.skip_to_character(&[state.rstring_delimiter], quote_idx + 1);
        }
        false
    }

    /// `_bare_key_is_followed_by_colon`.
    fn bare_key_is_followed_by_colon(&self, mut key_idx: isize) -> bool {
        match self.get_char_at(key_idx) {
            Some(c) if isalnum(c) || c == '_' => {}
            _ => return false,
        }
        while let Some(c) = self.get_char_at(key_idx) {
            if !(isalnum(c) || c == '_' || c == '-') {
                break;
            }
            key_idx += 1;
        }
        let key_idx = self.scroll_whitespaces(key_idx);
        self.get_char_at(key_idx) == Some(':')
    }

    /// `_post_fence_container_starts_next_member`.
    fn post_fence_container_starts_next_member(&self, container_end_idx: isize) -> bool {
        let after_container_idx = self.scroll_whitespaces(container_end_idx);
        let after_container = self.get_char_at(after_container_idx);
        if matches!(after_container, Some('}') | None) {
            return true;
        }
        if after_container != Some(',') {
            return false;
        }
        let next_member_idx = self.scroll_comment_prefixed_member_start(after_container_idx + 1);
        matches!(self.get_char_at(next_member_idx), Some('}') | None)
            || self.object_member_starts_at(next_member_idx)
    }

    /// `_starts_nested_inline_container`.
    fn starts_nested_inline_container(&self, idx: isize) -> bool {
        let opening_delimiter = self.get_char_at(idx);
        let mut prev_idx = idx - 1;
        while prev_idx >= 0 {
            let Some(prev_char) = self.get_char_at(prev_idx) else {
                return true;
            };
            if !isspace(prev_char) {
                if INLINE_CONTAINER_OPENERS.contains(&prev_char) {
                    return true;
                }
                if prev_char != ',' && prev_char != ':' {
                    return false;
                }
                let next_idx = self.scroll_whitespaces(idx + 1);
                let next_char = self.get_char_at(next_idx);
                if matches!(opening_delimiter, Some('[' | '(')) {
                    return match next_char {
                        Some(c) => {
                            matches!(c, ']' | ')' | '-' | 't' | 'f' | 'n')
                                || STRING_DELIMITERS.contains(&c)
                                || INLINE_CONTAINER_OPENERS.contains(&c)
                                || isdigit(c)
                        }
                        None => false,
                    };
                }
                if opening_delimiter != Some('{') {
                    return false;
                }
                if next_char == Some('}') || is_delim(next_char) {
                    return true;
                }
                return prev_char == ':' && self.bare_key_is_followed_by_colon(next_idx);
            }
            prev_idx -= 1;
        }
        true
    }

    /// `_skip_inline_container`: the offset just past the balanced
    /// container opening at `idx`, or None when it is not closed.
    pub fn skip_inline_container(&self, idx: isize) -> Option<isize> {
        let opening = self.get_char_at(idx);
        let Some(closer) = opening.and_then(inline_closer) else {
            return Some(idx);
        };
        let mut stack = vec![closer];
        let mut i = idx + 1;
        while let Some(&top) = stack.last() {
            let ch = self.get_char_at(i)?;
            if STRING_DELIMITERS.contains(&ch) {
                let end_delimiter = matching_string_delimiter(ch);
                i = self.skip_to_character(&[end_delimiter], i + 1);
                if self.get_char_at(i) != Some(end_delimiter) {
                    return None;
                }
            } else if let Some(c) =
                inline_closer(ch).filter(|_| self.starts_nested_inline_container(i))
            {
                stack.push(c);
            } else if ch == top {
                stack.pop();
                if stack.is_empty() {
                    return Some(i + 1);
                }
            }
            i += 1;
        }
        None
    }

    /// `_scroll_comment_prefixed_member_start`: past whitespace and
    /// comments.
    fn scroll_comment_prefixed_member_start(&self, idx: isize) -> isize {
        let mut idx = self.scroll_whitespaces(idx);
        loop {
            let mut ch = self.get_char_at(idx);
            if ch == Some('#') {
                while ch.is_some_and(|c| c != '\n' && c != '\r') {
                    idx += 1;
                    ch = self.get_char_at(idx);
                }
                idx = self.scroll_whitespaces(idx);
                continue;
            }
            if ch == Some('/') {
                let next_char = self.get_char_at(idx + 1);
                if next_char == Some('/') {
                    idx += 2;
                    ch = self.get_char_at(idx);
                    while ch.is_some_and(|c| c != '\n' && c != '\r') {
                        idx += 1;
                        ch = self.get_char_at(idx);
                    }
                    idx = self.scroll_whitespaces(idx);
                    continue;
                }
                if next_char == Some('*') {
                    idx += 2;
                    loop {
                        match self.get_char_at(idx) {
                            None => return idx,
                            Some('*') if self.get_char_at(idx + 1) == Some('/') => {
                                idx += 2;
                                break;
                            }
                            Some(_) => idx += 1,
                        }
                    }
                    idx = self.scroll_whitespaces(idx);
                    continue;
                }
            }
            return idx;
        }
    }

    /// `_quoted_object_member_follows`: `, "key":` (or a bare key) next.
    pub(super) fn quoted_object_member_follows(&self, quote_idx: isize) -> bool {
        let comma_idx = self.scroll_whitespaces(quote_idx + 1);
        if self.get_char_at(comma_idx) != Some(',') {
            return false;
        }
        let next_member_idx = self.scroll_comment_prefixed_member_start(comma_idx + 1);
        self.object_member_starts_at(next_member_idx)
    }

    /// `_object_member_starts_at`.
    fn object_member_starts_at(&self, next_member_idx: isize) -> bool {
        let Some(next_member) = self.get_char_at(next_member_idx) else {
            return false;
        };
        if next_member == '}' {
            return false;
        }
        if STRING_DELIMITERS.contains(&next_member) {
            let key_end_delimiter = matching_string_delimiter(next_member);
            let key_end_idx = self.skip_to_character(&[key_end_delimiter], next_member_idx + 1);
            if self.get_char_at(key_end_idx) != Some(key_end_delimiter) {
                return false;
            }
            let after_key_idx = self.scroll_whitespaces(key_end_idx + 1);
            return self.get_char_at(after_key_idx) == Some(':');
        }
        if isalnum(next_member) || next_member == '_' {
            return self.bare_key_is_followed_by_colon(next_member_idx);
        }
        false
    }
}
