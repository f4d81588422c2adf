//! Positions and addresses: byte offsets against LSP's (line, UTF-16 column), and `file://`
//! URIs against paths. Every conversion is total: a position past the end is clamped.

use lsp_types::{Position, Range, Uri};
use std::path::{Component, Path, PathBuf};

/// Byte offsets to LSP positions for one text, each in logarithmic time: the start of every
/// line, and every `STRIDE` bytes a mark of how many UTF-16 units come before it. Building it
/// is one pass over the text, so a request that places any number of names (symbols,
/// references, diagnostics) stays linear in its document.
#[derive(Debug, Default)]
pub struct Positions {
    /// Byte offset of each line's start.
    lines: Vec<usize>,
    /// (byte offset on a char boundary, UTF-16 units before it), in order; the first is (0, 0).
    marks: Vec<(usize, usize)>,
}

/// Bytes between two marks: a lookup counts at most this many bytes (plus one char).
const STRIDE: usize = 64;

impl Positions {
    pub fn new(text: &str) -> Positions {
        let mut lines = vec![0];
        let mut marks = vec![(0, 0)];
        let mut units = 0usize;
        let mut next = STRIDE;
        for (i, c) in text.char_indices() {
            if i >= next {
                marks.push((i, units));
                next = i.saturating_add(STRIDE);
            }
            if c == '\n' {
                lines.push(i + 1);
            }
            units = units.saturating_add(c.len_utf16());
        }
        Positions { lines, marks }
    }

    /// UTF-16 units in `text` before byte `at` (rounded down to a char boundary).
    fn units(&self, text: &str, at: usize) -> usize {
        let i = self.marks.partition_point(|m| m.0 <= at).saturating_sub(1);
        let (from, before) = self.marks.get(i).copied().unwrap_or((0, 0));
        let counted: usize = text
            .get(from..)
            .unwrap_or("")
            .char_indices()
            .take_while(|(j, c)| from + j + c.len_utf8() <= at)
            .map(|(_, c)| c.len_utf16())
            .sum();
        before.saturating_add(counted)
    }

    /// The LSP position of byte `at` in `text` (the text this was built from; clamped to it).
    pub fn position(&self, text: &str, at: usize) -> Position {
        let at = at.min(text.len());
        let line = self.lines.partition_point(|&s| s <= at).saturating_sub(1);
        let start = self.lines.get(line).copied().unwrap_or(0);
        let col = self.units(text, at).saturating_sub(self.units(text, start));
        Position::new(
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(col).unwrap_or(u32::MAX),
        )
    }

    pub fn range(&self, text: &str, start: usize, end: usize) -> Range {
        Range::new(
            self.position(text, start),
            self.position(text, end.max(start)),
        )
    }
}

/// The byte offset of an LSP position in `text` (clamped to the text): linear in the text.
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
    Positions::new(text).range(text, start, end)
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

/// `path` with `.` and `..` worked out on its text alone (no file is looked at); `None` for
/// a relative path.
pub fn normalize(path: &Path) -> Option<PathBuf> {
    if !path.is_absolute() {
        return None;
    }
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::Prefix(_) | Component::RootDir | Component::Normal(_) => out.push(c),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
        }
    }
    Some(out)
}

/// The absolute path of a `file://` URI (`file:///...` or `file://localhost/...`).
pub fn path_of(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str().strip_prefix("file://")?;
    let s = s.strip_prefix("localhost").unwrap_or(s);
    if !s.starts_with('/') {
        return None;
    }
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

    fn position(text: &str, at: usize) -> Position {
        Positions::new(text).position(text, at)
    }

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
    fn positions_agree_with_counting_from_the_start() {
        let mut text = String::new();
        for i in 0..400 {
            text.push_str(["a", "é", "𝄞", "\n", "bc", "\r\n"][i % 6]);
            if i % 97 == 0 {
                text.push_str(&"x".repeat(150));
            }
        }
        let p = Positions::new(&text);
        for at in 0..=text.len() + 2 {
            let at_ = at.min(text.len());
            let cut = (0..=at_)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            let before = &text[..cut];
            let line = before.matches('\n').count() as u32;
            let start = before.rfind('\n').map_or(0, |i| i + 1);
            let col: usize = before[start..].chars().map(char::len_utf16).sum();
            assert_eq!(
                p.position(&text, at),
                Position::new(line, col as u32),
                "at {at}"
            );
        }
    }

    #[test]
    fn paths_are_absolute_and_normalized() {
        let u = |s: &str| s.parse::<Uri>().expect("uri");
        assert_eq!(path_of(&u("file://host/a.rules")), None);
        assert_eq!(
            path_of(&u("file://localhost/a.rules")).as_deref(),
            Some(Path::new("/a.rules"))
        );
        let p = path_of(&u("file:///w/x/../../etc/./a.rules")).expect("path");
        assert_eq!(normalize(&p).as_deref(), Some(Path::new("/etc/a.rules")));
        assert_eq!(normalize(Path::new("a/b")), None);
    }

    #[test]
    fn uris_round_trip() {
        let p = Path::new("/tmp/a b/c%.rules");
        let u = uri_of(p).expect("uri");
        assert_eq!(u.as_str(), "file:///tmp/a%20b/c%25.rules");
        assert_eq!(path_of(&u).as_deref(), Some(p));
    }
}
