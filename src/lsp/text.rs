//! Positions and addresses: byte offsets against LSP's (line, UTF-16 column), and `file://`
//! URIs against paths. Every conversion is total: a position past the end is clamped.

use lsp_types::{Position, Range, Uri};
use std::path::{Path, PathBuf};

/// The LSP position of byte `at` in `text`.
pub fn position(text: &str, at: usize) -> Position {
    let at = at.min(text.len());
    let mut line = 0u32;
    let mut line_start = 0usize;
    for (i, b) in text.as_bytes().iter().enumerate().take(at) {
        if *b == b'\n' {
            line = line.saturating_add(1);
            line_start = i + 1;
        }
    }
    let col: usize = text
        .get(line_start..at)
        .map(|s| s.chars().map(char::len_utf16).sum())
        .unwrap_or(0);
    Position::new(line, u32::try_from(col).unwrap_or(u32::MAX))
}

/// The byte offset of an LSP position in `text` (clamped to the text).
pub fn offset(text: &str, pos: Position) -> usize {
    let mut start = 0usize;
    for _ in 0..pos.line {
        match text.get(start..).and_then(|r| r.find('\n')) {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let line = text.get(start..).unwrap_or("");
    let line = line.split('\n').next().unwrap_or("");
    let mut units = 0u32;
    for (i, c) in line.char_indices() {
        if units >= pos.character {
            return start + i;
        }
        units = units.saturating_add(c.len_utf16() as u32);
    }
    start + line.len()
}

pub fn range(text: &str, start: usize, end: usize) -> Range {
    Range::new(position(text, start), position(text, end.max(start)))
}

/// `file:///a/b c.rules` for `/a/b c.rules`.
pub fn uri_of(path: &Path) -> Option<Uri> {
    let mut s = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            s.push(char::from(b));
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s.parse().ok()
}

/// The path of a `file://` URI.
pub fn path_of(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str().strip_prefix("file://")?;
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (bytes.get(i), bytes.get(i + 1..i + 3)) {
            (Some(b'%'), Some(hex)) => {
                let h = std::str::from_utf8(hex)
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match h {
                    Some(v) => {
                        out.push(v);
                        i += 3;
                    }
                    None => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            (Some(&b), _) => {
                out.push(b);
                i += 1;
            }
            (None, _) => break,
        }
    }
    Some(PathBuf::from(String::from_utf8_lossy(&out).to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_and_round_trip() {
        let text = "ab\nçé𝄞x\n";
        assert_eq!(position(text, 0), Position::new(0, 0));
        assert_eq!(position(text, 3), Position::new(1, 0));
        // ç (2 bytes, 1 unit), é (2, 1), 𝄞 (4 bytes, 2 units)
        assert_eq!(position(text, 3 + 8), Position::new(1, 4));
        for at in [0, 1, 2, 3, 5, 7, 11, 12, 13] {
            assert_eq!(offset(text, position(text, at)), at);
        }
        assert_eq!(offset(text, Position::new(9, 9)), text.len());
        assert_eq!(position(text, 999), position(text, text.len()));
    }

    #[test]
    fn uris_round_trip() {
        let p = Path::new("/tmp/a b/c%.rules");
        let u = uri_of(p).expect("uri");
        assert_eq!(u.as_str(), "file:///tmp/a%20b/c%25.rules");
        assert_eq!(path_of(&u).as_deref(), Some(p));
    }
}
