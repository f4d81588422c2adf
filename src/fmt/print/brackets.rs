//! Bracketed, comma-separated lists (kept on one line, one element per line, or broken where
//! the source broke them), and where the next bracket, keyword or closing bracket is in the
//! source.

use super::{start, tend, Trailing, P};
use crate::fmt::layout::Out;

impl Out<'_> {
    /// A bracketed, comma-separated list. Its elements stay on one line unless the source broke
    /// the line there: a break after the opening bracket puts one element per line (with a
    /// trailing comma); a break between two elements is kept as a continuation line.
    pub(super) fn seq(
        &mut self,
        open_at: usize,
        items: &[P],
        open: &str,
        close: &str,
        pad: bool,
        f: impl Fn(&mut Self, &P),
    ) {
        self.seq_with(open_at, items, open, close, pad, Trailing::Multi, f);
    }

    /// `seq`, with the trailing comma given: a parenthesis's decides what it is.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn seq_with(
        &mut self,
        open_at: usize,
        items: &[P],
        open: &str,
        close: &str,
        pad: bool,
        comma: Trailing,
        f: impl Fn(&mut Self, &P),
    ) {
        // The comments before the bracket stay before it.
        self.lead(open_at);
        self.w(open);
        let multi = items
            .first()
            .is_some_and(|x| self.has_nl(open_at, start(x)));
        self.indent += 1;
        for (i, x) in items.iter().enumerate() {
            if i == 0 {
                if multi {
                    self.line(start(x));
                } else if pad {
                    self.w(" ");
                }
            } else {
                self.w(",");
                // Where the previous item's own text ends: its span may run on over white space
                // and a comment (a `table` entry's optional comma is looked for past them).
                let prev_end = items.get(i - 1).map_or(0, |p| tend(p, self.src));
                if self.has_nl(prev_end, start(x)) {
                    self.line(start(x));
                } else {
                    self.sp();
                }
            }
            self.lead(start(x));
            f(self, x);
        }
        self.indent -= 1;
        // Where the closing bracket is looked for: after the last element, or the opening
        // bracket of an empty list.
        let after = items
            .last()
            .map_or(open_at + open.len(), |x| tend(x, self.src));
        if comma == Trailing::Always || (multi && comma == Trailing::Multi) {
            self.w(",");
        }
        if multi {
            self.indent += 1;
            self.lead(self.close_of(after));
            self.indent -= 1;
            self.nl();
        } else {
            let c = self.close_of(after);
            self.lead(c);
            if pad && !items.is_empty() {
                self.sp();
            }
        }
        self.w(close);
    }

    /// Where the next `ch` outside comments is, from the last position printed: the bracket
    /// about to be printed, with only white space, comments and keywords before it.
    pub(super) fn next_bracket(&self, ch: char) -> usize {
        let rest = self.src.get(self.pos..).unwrap_or("");
        let mut comment = false;
        for (i, c) in rest.char_indices() {
            match c {
                '\n' => comment = false,
                '#' => comment = true,
                _ if c == ch && !comment => return self.pos + i,
                _ => {}
            }
        }
        self.pos
    }

    /// Start a line with the keyword `kw` (the next code in the source): the comments and blank
    /// line before it stay before it, and those after it after it.
    pub(super) fn keyword_line(&mut self, kw: &str) {
        let at = self.next_code();
        self.line(at);
        self.w(kw);
        self.w(" ");
        if self.src.get(at..).is_some_and(|t| t.starts_with(kw)) {
            self.pos = at + kw.len();
        }
    }

    /// Where the next thing that is not white space, a comment or a closing bracket is, from the
    /// last position printed (a keyword about to be printed; a list's closing bracket is printed
    /// without moving the position past it).
    fn next_code(&self) -> usize {
        let rest = self.src.get(self.pos..).unwrap_or("");
        let mut comment = false;
        for (i, c) in rest.char_indices() {
            match c {
                '\n' => comment = false,
                '#' => comment = true,
                _ if comment || c.is_whitespace() || matches!(c, ')' | ']' | '}') => {}
                _ => return self.pos + i,
            }
        }
        self.pos + rest.len()
    }

    /// Where the closing bracket of the list being printed is, from `from` (after its last
    /// element): past white space, comments and commas.
    fn close_of(&self, from: usize) -> usize {
        let from = from.max(self.pos);
        let rest = self.src.get(from..).unwrap_or("");
        // Comments may sit before the bracket; skip them.
        let mut off = 0;
        let mut r = rest;
        loop {
            let t = r.trim_start();
            off += r.len() - t.len();
            if t.starts_with('#') {
                let n = t.find('\n').unwrap_or(t.len());
                off += n;
                r = t.get(n..).unwrap_or("");
            } else if t.starts_with(',') {
                off += 1;
                r = t.get(1..).unwrap_or("");
            } else {
                break;
            }
        }
        from + off
    }
}
