//! JSON-RPC messages in the LSP's framing (`Content-Length: N`, a blank line, then N bytes of
//! JSON), read from a stream no one vouches for. Whatever arrives, the reader gives back either
//! a message or a problem to answer with an error, and goes on with the next message:
//!
//! - header lines may end in `\r\n` or a lone `\n`; a header longer than
//!   `Limits::LSP_HEADER_BYTES` is read to its blank line without being kept;
//! - a body longer than `Limits::max_lsp_message_bytes` is read and dropped in small pieces,
//!   never held; a shorter one is read as it arrives, so a message that claims more bytes than
//!   it holds costs only what it holds;
//! - a lone UTF-16 surrogate written as a `\uD800`..`\uDFFF` escape (an editor may send one: a
//!   JavaScript string can hold it) becomes U+FFFD, one UTF-16 unit like the half it replaces,
//!   so the positions the editor sends still match the text.

use crate::limits::Limits;
use serde_json::{json, Value};
use std::io::{self, BufRead, Read, Write};

/// JSON-RPC's error codes, and the LSP's own.
pub mod code {
    pub const PARSE_ERROR: i32 = -32700;
    pub const INVALID_REQUEST: i32 = -32600;
    pub const METHOD_NOT_FOUND: i32 = -32601;
    pub const INVALID_PARAMS: i32 = -32602;
    pub const INTERNAL_ERROR: i32 = -32603;
    pub const SERVER_NOT_INITIALIZED: i32 = -32002;
    pub const REQUEST_FAILED: i32 = -32803;
}

/// What one read from the stream gives.
#[derive(Debug)]
pub enum Frame {
    /// A message's JSON.
    Message(Value),
    /// Bytes that make no message: they were skipped, and the sender hears this error
    /// (with a `null` id, as no request can be named).
    Bad { code: i32, message: String },
    /// The end of the stream.
    End,
}

/// One line of a header, read with `read_line`.
enum Line {
    /// The line (without its line end) is in the buffer.
    Text,
    /// The line was longer than the cap: it was read to its end, and not kept.
    TooLong,
    /// The stream ended after some bytes of a line.
    Cut,
    /// The stream ended before the line began.
    End,
}

pub struct Reader<R> {
    input: R,
    max_body: usize,
    ended: bool,
}

impl<R: BufRead> Reader<R> {
    pub fn new(input: R, limits: &Limits) -> Reader<R> {
        Reader {
            input,
            max_body: limits.max_lsp_message_bytes,
            ended: false,
        }
    }

    /// The next message, or the problem with the bytes where it should have been. Only an
    /// error of the stream itself (not of what it holds) is an `Err`.
    pub fn next(&mut self) -> io::Result<Frame> {
        if self.ended {
            return Ok(Frame::End);
        }
        let mut length: Option<u64> = None;
        let mut problem: Option<String> = None;
        let mut header_bytes = 0usize;
        let mut lines = 0usize;
        let mut line = Vec::new();
        loop {
            match read_line(&mut self.input, &mut line, Limits::LSP_HEADER_BYTES)? {
                Line::End if lines == 0 => {
                    self.ended = true;
                    return Ok(Frame::End);
                }
                Line::End | Line::Cut => {
                    self.ended = true;
                    return Ok(parse_error("the stream ended inside a message's header"));
                }
                Line::TooLong => {
                    lines += 1;
                    problem.get_or_insert_with(|| {
                        format!(
                            "a header line is longer than {} bytes",
                            Limits::LSP_HEADER_BYTES
                        )
                    });
                }
                // Blank lines between messages are passed over.
                Line::Text if line.is_empty() && lines == 0 => {}
                Line::Text if line.is_empty() => break,
                Line::Text => {
                    lines += 1;
                    header_bytes = header_bytes.saturating_add(line.len());
                    if header_bytes > Limits::LSP_HEADER_BYTES {
                        problem.get_or_insert_with(|| {
                            format!(
                                "a message's header is longer than {} bytes",
                                Limits::LSP_HEADER_BYTES
                            )
                        });
                    }
                    if let Err(p) = header(&line, &mut length) {
                        problem.get_or_insert(p);
                    }
                }
            }
        }
        if let Some(p) = problem {
            // A length that could be read still says where the next message begins.
            if let Some(n) = length.filter(|&n| n != u64::MAX) {
                self.skip(n)?;
            }
            return Ok(parse_error(&p));
        }
        let Some(n) = length else {
            return Ok(parse_error("a message's header has no `Content-Length`"));
        };
        if n > self.max_body as u64 {
            self.skip(n)?;
            return Ok(Frame::Bad {
                code: code::INVALID_REQUEST,
                message: format!(
                    "a message may hold at most {} bytes; this one declares {n}",
                    self.max_body
                ),
            });
        }
        // Read as it comes: the buffer grows with the bytes that arrive, not with the claim.
        let mut body = Vec::new();
        (&mut self.input).take(n).read_to_end(&mut body)?;
        if (body.len() as u64) < n {
            self.ended = true;
            return Ok(parse_error(&format!(
                "the stream ended {} bytes into a body of {n}",
                body.len()
            )));
        }
        mend_surrogates(&mut body);
        Ok(match serde_json::from_slice::<Value>(&body) {
            Ok(v) => Frame::Message(v),
            Err(e) => parse_error(&format!("the message is not JSON: {e}")),
        })
    }
}

impl<R: BufRead> Reader<R> {
    /// Read `n` bytes and drop them, in small pieces: nothing the size of `n` is ever held.
    fn skip(&mut self, n: u64) -> io::Result<()> {
        let skipped = io::copy(&mut (&mut self.input).take(n), &mut io::sink())?;
        if skipped < n {
            self.ended = true;
        }
        Ok(())
    }
}

fn parse_error(message: &str) -> Frame {
    Frame::Bad {
        code: code::PARSE_ERROR,
        message: message.to_string(),
    }
}

/// One header field, `Name: value`; only `Content-Length` is read, the others are ignored.
fn header(line: &[u8], length: &mut Option<u64>) -> Result<(), String> {
    let shown = || {
        let s = String::from_utf8_lossy(line);
        let cut: String = s.chars().take(60).collect();
        if cut.len() < s.len() {
            format!("{cut}...")
        } else {
            cut
        }
    };
    let Some(colon) = memchr::memchr(b':', line) else {
        return Err(format!(
            "`{}` is not a header field (`Name: value`)",
            shown()
        ));
    };
    let name = line.get(..colon).unwrap_or_default();
    let value = line.get(colon + 1..).unwrap_or_default();
    if !name.trim_ascii().eq_ignore_ascii_case(b"content-length") {
        return Ok(());
    }
    let value = value.trim_ascii();
    let n = std::str::from_utf8(value)
        .ok()
        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|v| v.parse::<u64>().ok())
        .ok_or_else(|| format!("`{}`: the length is not a number of bytes", shown()))?;
    match length {
        // Which one is right cannot be told: no body is skipped.
        Some(m) if *m != n => {
            *length = Some(u64::MAX);
            Err("a message's header gives two different lengths".to_string())
        }
        _ => {
            *length = Some(n);
            Ok(())
        }
    }
}

/// Read one line into `line` (without its `\n` and a `\r` before it), keeping at most `cap`
/// bytes: a longer line is read to its end and dropped.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>, cap: usize) -> io::Result<Line> {
    line.clear();
    let mut any = false;
    let mut over = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(if any { Line::Cut } else { Line::End });
        }
        any = true;
        let (part, used, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (buf.get(..i).unwrap_or_default(), i + 1, true),
            None => (buf, buf.len(), false),
        };
        if !over && line.len().saturating_add(part.len()) <= cap.saturating_add(1) {
            line.extend_from_slice(part);
        } else {
            over = true;
            line.clear();
        }
        input.consume(used);
        if done {
            if over {
                return Ok(Line::TooLong);
            }
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if line.len() > cap {
                return Ok(Line::TooLong);
            }
            return Ok(Line::Text);
        }
    }
}

/// Rewrite each `\uXXXX` escape of a lone UTF-16 surrogate as `\uFFFD`, in place (the same
/// length). A backslash outside a string makes the JSON invalid whatever this does, so escapes
/// are found without following strings: `\\` is passed over as one escape, as in a string.
fn mend_surrogates(body: &mut [u8]) {
    let hex4 = |b: &[u8], at: usize| -> Option<u32> {
        let digits = b.get(at..at.checked_add(4)?)?;
        let s = std::str::from_utf8(digits).ok()?;
        if !s.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(s, 16).ok()
    };
    let high = 0xD800..0xDC00;
    let low = 0xDC00..0xE000;
    let mut i = 0usize;
    while let Some(found) = body.get(i..).and_then(|rest| memchr::memchr(b'\\', rest)) {
        i += found;
        if body.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        let Some(unit) = hex4(body, i + 2) else {
            i += 2;
            continue;
        };
        let paired = high.contains(&unit)
            && body.get(i + 6) == Some(&b'\\')
            && body.get(i + 7) == Some(&b'u')
            && hex4(body, i + 8).is_some_and(|u| low.contains(&u));
        if paired {
            i += 12;
            continue;
        }
        if high.contains(&unit) || low.contains(&unit) {
            if let Some(digits) = body.get_mut(i + 2..i + 6) {
                digits.copy_from_slice(b"FFFD");
            }
        }
        i += 6;
    }
}

/// A message as it arrived, sorted by what it asks for.
#[derive(Debug)]
pub enum Incoming {
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    /// An answer to a request of ours (the server sends none, so it is dropped).
    Response,
    /// Not a JSON-RPC 2.0 message: answered with `InvalidRequest` (the id, when it is one).
    Invalid {
        id: Value,
        message: String,
    },
}

/// Sort a message by its fields, as JSON-RPC 2.0 defines them; an id is a number or a text.
pub fn classify(v: Value) -> Incoming {
    let Value::Object(mut m) = v else {
        return Incoming::Invalid {
            id: Value::Null,
            message: "a message is a JSON object".into(),
        };
    };
    let id = match m.remove("id") {
        None => None,
        Some(id @ (Value::Number(_) | Value::String(_))) => Some(id),
        Some(_) => {
            return Incoming::Invalid {
                id: Value::Null,
                message: "a request's `id` is a number or a text".into(),
            }
        }
    };
    if m.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Incoming::Invalid {
            id: id.unwrap_or(Value::Null),
            message: "a message says `\"jsonrpc\": \"2.0\"`".into(),
        };
    }
    let params = m.remove("params").unwrap_or(Value::Null);
    match (m.remove("method"), id) {
        (Some(Value::String(method)), Some(id)) => Incoming::Request { id, method, params },
        (Some(Value::String(method)), None) => Incoming::Notification { method, params },
        (Some(_), id) => Incoming::Invalid {
            id: id.unwrap_or(Value::Null),
            message: "a message's `method` is a text".into(),
        },
        (None, Some(_)) if m.contains_key("result") || m.contains_key("error") => {
            Incoming::Response
        }
        (None, id) => Incoming::Invalid {
            id: id.unwrap_or(Value::Null),
            message: "a request or notification names its `method`".into(),
        },
    }
}

pub fn ok(id: Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

pub fn error(id: Value, code: i32, message: impl Into<String>) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message.into() } })
}

pub fn notification(method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": method, "params": params })
}

/// Write one message in the LSP's framing, and flush it.
pub fn write(out: &mut impl Write, msg: &Value) -> io::Result<()> {
    let body = serde_json::to_vec(msg)?;
    write!(out, "Content-Length: {}\r\n\r\n", body.len())?;
    out.write_all(&body)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8], max_body: usize) -> Vec<String> {
        let limits = Limits {
            max_lsp_message_bytes: max_body,
            ..Limits::default()
        };
        let mut r = Reader::new(input, &limits);
        let mut out = Vec::new();
        loop {
            match r.next().expect("read") {
                Frame::End => return out,
                Frame::Message(v) => out.push(v.to_string()),
                Frame::Bad { code, .. } => out.push(code.to_string()),
            }
        }
    }

    #[test]
    fn framing_problems_are_reported_and_skipped() {
        let input = b"Content-Length: 2\r\n\r\n{}\
            Content-Length: 2\n\n[]\
            \r\n\r\n\
            Content-Length: 3\r\nContent-Type: x\r\n\r\n{x}\
            garbage\r\n\r\n\
            Content-Length: 99\r\n\r\n0123456789\
            ";
        assert_eq!(
            frames(input, 50),
            ["{}", "[]", "-32700", "-32700", "-32600"]
        );
        assert_eq!(frames(b"Content-Length: 5\r\n\r\n{}", 50), ["-32700"]);
        assert_eq!(frames(b"Content-Len", 50), ["-32700"]);
        assert_eq!(
            frames(b"Content-Length: 18446744073709551615\r\n\r\n{}", 50),
            ["-32600"]
        );
        // The header is refused; what follows it is read as the next header.
        assert_eq!(
            frames(b"Content-Length: -1\r\n\r\n{}", 50),
            ["-32700", "-32700"]
        );
        let long = [b"X: ".as_slice(), &[b'a'; 10_000], b"\r\n\r\n"].concat();
        assert_eq!(frames(&long, 50), ["-32700"]);
        // A header with a bad line but a length: the body is skipped, the next message read.
        assert_eq!(
            frames(
                b"bad\r\nContent-Length: 2\r\n\r\n{}Content-Length: 2\r\n\r\n[]",
                50
            ),
            ["-32700", "[]"]
        );
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let mut b =
            br#"["\ud800", "\udc00x", "\ud83d\ude00", "\\ud800", "\ud800\u0041", "\u12"]"#.to_vec();
        mend_surrogates(&mut b);
        assert_eq!(
            String::from_utf8_lossy(&b),
            r#"["\uFFFD", "\uFFFDx", "\ud83d\ude00", "\\ud800", "\uFFFD\u0041", "\u12"]"#
        );
    }
}
