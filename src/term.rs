//! Game text on a terminal: control characters written visibly, never raw. A card name, a
//! `say` line, a prompt, a label or a comment could otherwise colour, clear or retitle the
//! terminal, hide part of a line, or write the clipboard (OSC 52). Every writer to a terminal
//! goes through `escape` or `Escaped` (written `\u001b`): the binary's `out!`/`err!`, the table's account,
//! screens and questions, the REPL, the `serve` banner. `rules check` refuses such characters
//! in a game's files first (`check::control`), so designers hear of them; this is the net under
//! every other path (a save, a log, a REPL line). JSON output is escaped by serde and left alone.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};

/// A character a terminal acts on instead of showing: C0 controls but tab and newline, DEL,
/// C1 controls (a terminal may take U+009B as CSI), and the bidirectional embeddings,
/// overrides and isolates (U+202A-U+202E, U+2066-U+2069), which reorder what follows them.
pub fn is_control(c: char) -> bool {
    matches!(c, '\0'..='\x08' | '\x0b'..='\x1f' | '\x7f'..='\u{9f}') || is_bidi_control(c)
}

/// The bidirectional embeddings, overrides and isolates.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with each control character written as `\u001b` (four hex digits, as JSON and JavaScript
/// write it: inside a JSON string it reads back as the same character, so a JSON stream passing
/// through stays valid and means the same); a carriage return before a newline (a line end
/// written on Windows) is kept. Borrowed when there is nothing to escape.
pub fn escape(s: &str) -> Cow<'_, str> {
    let mut chars = s.chars().peekable();
    let mut found = false;
    while let Some(c) = chars.next() {
        if is_control(c) && !(c == '\r' && chars.peek() == Some(&'\n')) {
            found = true;
            break;
        }
    }
    if !found {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if is_control(c) && !(c == '\r' && chars.peek() == Some(&'\n')) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A writer that escapes control characters (`escape`) in what passes through it; bytes that
/// are not UTF-8 are written as `\x{9b}`. A character split between two writes is held until
/// its end arrives. `raw` reaches the writer underneath, for the program's own sequences (the
/// table's screen clear).
pub struct Escaped<W: Write> {
    inner: W,
    pending: Vec<u8>,
}

impl<W: Write> Escaped<W> {
    pub fn new(inner: W) -> Self {
        Escaped {
            inner,
            pending: Vec::new(),
        }
    }
    /// The writer underneath, unescaped.
    pub fn raw(&mut self) -> &mut W {
        &mut self.inner
    }
}

impl<W: Write> Write for Escaped<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        let mut text = String::new();
        let mut start = 0;
        while let Some(rest) = self.pending.get(start..) {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    text.push_str(&escape(s));
                    start = self.pending.len();
                    break;
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    if let Ok(s) = std::str::from_utf8(rest.get(..valid).unwrap_or(&[])) {
                        text.push_str(&escape(s));
                    }
                    start += valid;
                    let Some(bad) = e.error_len() else {
                        // The start of a character whose end has not come yet.
                        break;
                    };
                    for b in self.pending.get(start..start + bad).unwrap_or(&[]) {
                        let _ = write!(text, "\\x{{{b:x}}}");
                    }
                    start += bad;
                }
            }
        }
        self.pending.drain(..start.min(self.pending.len()));
        self.inner.write_all(text.as_bytes())?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_written_visibly() {
        assert!(matches!(escape("plain\tline\r\n"), Cow::Borrowed(_)));
        assert_eq!(escape("a\rb"), "a\\u000db");
        assert_eq!(
            escape("a\x1b]52;c;aGk=\x07b\u{9b}c\u{202e}d\x7f"),
            "a\\u001b]52;c;aGk=\\u0007b\\u009bc\\u202ed\\u007f"
        );
        let mut w = Escaped::new(Vec::new());
        // ESC, then U+009B split over two writes, then a byte that is no UTF-8.
        w.write_all(b"x\x1b[2J").expect("write");
        w.write_all(&[0xc2]).expect("write");
        w.write_all(&[0x9b, b'y', 0xff, b'\n']).expect("write");
        assert_eq!(
            String::from_utf8(w.inner).expect("utf8"),
            "x\\u001b[2J\\u009by\\x{ff}\n"
        );
    }
}
