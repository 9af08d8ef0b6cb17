//! Where a value starts and ends inside a Python literal, and what a backslash escape in a string
//! writes: the transitions ``PyLiteral::step`` hands over to.

use super::{Flow, Frame, Num, Number, PyLiteral, Quote, State};

impl PyLiteral {
    /// A character after a backslash in a string body.
    pub(super) fn on_str_escape(&mut self, quote: Quote, c: char, out: &mut String) -> Flow {
        if c == '\0' {
            return Flow::Fail;
        }
        self.state = State::Str(quote);
        if quote.raw {
            // raw strings keep the backslash and the character after it (which cannot close
            // the string)
            self.emit_text(out, "\\");
            self.emit_char(out, c);
            return Flow::Next;
        }
        let decoded = match c {
            '\n' => return Flow::Next, // line continuation: nothing
            '\\' | '\'' | '"' => c,
            'a' => '\x07',
            'b' => '\x08',
            'f' => '\x0c',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\x0b',
            '0'..='7' => {
                self.state = State::StrOctal {
                    quote,
                    value: c as u32 - '0' as u32,
                    digits: 1,
                };
                return Flow::Next;
            }
            'x' | 'u' | 'U' => {
                let left = match c {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                self.state = State::StrHex {
                    quote,
                    value: 0,
                    left,
                };
                return Flow::Next;
            }
            'N' => return Flow::Fail, // \N{NAME} is not supported
            _ => {
                // an unknown escape keeps its backslash, as Python does
                self.emit_text(out, "\\");
                c
            }
        };
        self.emit_char(out, decoded);
        Flow::Next
    }

    /// A code point from an escape; lone surrogates (which Python keeps) become U+FFFD.
    pub(super) fn emit_code(&mut self, out: &mut String, value: u32) {
        self.emit_char(out, char::from_u32(value).unwrap_or('\u{FFFD}'));
    }

    /// Write the separator before a container's next element (or note that one is needed).
    pub(super) fn separator(&mut self, out: &mut String) {
        if let Some(
            Frame::List { sep }
            | Frame::Tuple { sep }
            | Frame::Set { sep }
            | Frame::Dict { key: true, sep },
        ) = self.stack.last_mut()
        {
            if *sep {
                self.emit(out, ", ");
            } else {
                *sep = true;
            }
        }
    }

    /// Does `c` close the innermost container: a list, tuple or set (written as a JSON list),
    /// or a dict expecting a key (`key`: after a trailing comma) or not (after a value)? Then it
    /// is closed.
    fn close(&mut self, c: char, key: bool, out: &mut String) -> bool {
        let json = match (c, self.stack.last()) {
            (']', Some(Frame::List { .. }))
            | (')', Some(Frame::Tuple { .. }))
            | ('}', Some(Frame::Set { .. })) => "]",
            ('}', Some(&Frame::Dict { key: k, .. })) if k == key => "}",
            _ => return false,
        };
        self.stack.pop();
        self.emit(out, json);
        true
    }

    /// First non-whitespace character in `Value`: a closing bracket or the start of a value.
    pub(super) fn start_value(&mut self, c: char, out: &mut String) -> Flow {
        if matches!(c, ']' | ')' | '}') {
            // closing right after the opening bracket or after a trailing comma
            match (c, self.stack.last()) {
                (')', Some(&Frame::Paren { mark, seq })) => {
                    self.stack.pop();
                    self.resolve(&[(mark, seq, '[')], out); // `()` is an empty tuple
                    self.emit(out, "]");
                }
                ('}', Some(&Frame::Brace { mark, seq, .. })) => {
                    self.stack.pop();
                    self.resolve(&[(mark, seq, '{')], out); // `{}` is an empty dict
                    self.emit(out, "}");
                }
                _ => {
                    if !self.close(c, true, out) {
                        return Flow::Fail;
                    }
                }
            }
            self.state = State::AfterValue;
            return Flow::Next;
        }
        let key = self.in_key();
        self.separator(out);
        self.state = State::Value;
        match c {
            '[' | '{' if key => return Flow::Fail, // unhashable key (or set element)
            '[' => {
                self.emit(out, "[");
                self.stack.push(Frame::List { sep: false });
            }
            '{' => {
                self.stack.push(Frame::Brace {
                    mark: self.hold.len(),
                    seq: self.opened,
                    key: None,
                });
                self.opened += 1;
                self.undecided += 1;
            }
            '(' if key => self.stack.push(Frame::Group),
            '(' => {
                self.stack.push(Frame::Paren {
                    mark: self.hold.len(),
                    seq: self.opened,
                });
                self.opened += 1;
                self.undecided += 1;
            }
            '\'' | '"' => {
                self.emit(out, "\"");
                self.state = State::StrOpen {
                    q: c,
                    raw: false,
                    quotes: 1,
                };
            }
            '+' | '-' => {
                self.state = State::Signed {
                    neg: c == '-',
                    groups: 0,
                }
            }
            '0'..='9' | '.' => self.state = new_number(c, false, 0),
            _ if c.is_ascii_alphabetic() || c == '_' => {
                self.state = State::Name {
                    buf: c.to_string(),
                    concat: false,
                }
            }
            _ => return Flow::Fail,
        }
        Flow::Next
    }

    /// First non-whitespace character after a complete value.
    pub(super) fn after_value(&mut self, c: char, out: &mut String) -> Flow {
        self.state = State::AfterValue;
        let Some(top) = self.stack.last_mut() else {
            self.state = State::Done;
            return Flow::Done;
        };
        match (top, c) {
            (Frame::List { .. } | Frame::Tuple { .. } | Frame::Set { .. }, ',') => {
                self.state = State::Value;
            }
            (Frame::Dict { key, .. }, ',') if !*key => {
                *key = true;
                self.state = State::Value;
            }
            (Frame::Dict { key, .. }, ':') if *key => {
                *key = false;
                self.emit(out, ": ");
                self.state = State::Value;
            }
            (&mut Frame::Paren { mark, seq }, ',') => {
                self.stack.pop();
                self.stack.push(Frame::Tuple { sep: true });
                self.resolve(&[(mark, seq, '[')], out); // `(x, ...` is a tuple
                self.state = State::Value;
            }
            (Frame::Paren { .. }, ')') => {
                self.stack.pop();
                self.resolve(&[], out); // `(x)` is just x
            }
            (&mut Frame::Brace { mark, seq, key }, ':') => {
                // a dict: `{`, and quotes around a first key that is not a string
                self.stack.pop();
                self.stack.push(Frame::Dict {
                    key: false,
                    sep: true,
                });
                self.emit(out, ": ");
                let mut inserts = vec![(mark, seq, '{')];
                if let Some((start, end)) = key {
                    inserts.push((start, self.opened, '"'));
                    inserts.push((end, self.opened, '"'));
                }
                self.resolve(&inserts, out);
                self.state = State::Value;
            }
            (&mut Frame::Brace { mark, seq, .. }, ',' | '}') => {
                // a set: written as a list
                self.stack.pop();
                if c == ',' {
                    self.stack.push(Frame::Set { sep: true });
                    self.state = State::Value;
                } else {
                    self.emit(out, "]");
                }
                self.resolve(&[(mark, seq, '[')], out);
            }
            (Frame::Group, ')') => {
                self.stack.pop();
            }
            _ => {
                if !self.close(c, false, out) {
                    return Flow::Fail;
                }
            }
        }
        Flow::Next
    }
}

pub(super) fn new_number(c: char, neg: bool, groups: usize) -> State {
    State::Number(Number {
        part: if c == '.' { Num::LeadDot } else { Num::Int },
        buf: c.to_string(),
        radix: 10,
        neg,
        groups,
    })
}
