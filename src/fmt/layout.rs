//! The writer under the formatter: lines, indentation, and the comments found between tokens.
//!
//! The parse tree has no comments (the grammar skips them), so the printer asks for the source
//! text between the last token it printed and the next one, and prints any comment found there:
//! a comment on the same line as the previous token stays at the end of that line, a comment on
//! a line of its own stays on a line of its own, and one blank line before it is kept.

/// One comment found between two tokens.
pub struct Comment {
    pub text: String,
    /// It started a line (there was a newline between the previous token and it).
    pub own_line: bool,
    /// A blank line came before it.
    pub blank_before: bool,
}

/// What lay between two tokens.
pub struct Gap {
    pub comments: Vec<Comment>,
    /// A blank line right before the next token (after the last comment, if any).
    pub blank_end: bool,
}

/// Scan `text` (source between two tokens: spaces, punctuation, keywords and comments; never a
/// string, since strings are tokens) for comments.
pub fn scan(text: &str) -> Gap {
    let mut comments = Vec::new();
    let mut newlines = 0usize;
    let mut seen_newline = false;
    let mut rest = text;
    while let Some(i) = rest.find(['#', '\n']) {
        let (before, from) = rest.split_at(i);
        if before.chars().any(|c| !c.is_whitespace()) {
            // A bracket or keyword between the line breaks: no blank line.
            newlines = 0;
        }
        if from.starts_with('\n') {
            newlines += 1;
            seen_newline = true;
            rest = from.get(1..).unwrap_or("");
            continue;
        }
        let end = from.find('\n').unwrap_or(from.len());
        let (c, after) = from.split_at(end);
        comments.push(Comment {
            text: c.trim_end().to_string(),
            own_line: seen_newline,
            blank_before: newlines >= 2,
        });
        newlines = 0;
        rest = after;
    }
    if rest.chars().any(|c| !c.is_whitespace()) {
        newlines = 0;
    }
    Gap {
        comments,
        blank_end: newlines >= 2,
    }
}

/// The output being built.
pub struct Out<'a> {
    pub src: &'a str,
    pub out: String,
    pub indent: usize,
    /// Source offset up to which comments have been printed.
    pub pos: usize,
    /// At the start of a line (nothing written on it yet).
    pub bol: bool,
    /// A comment ended the current line: the next token starts a new one.
    pub pending: bool,
    /// How many comments have been printed (a table row with one is not aligned).
    pub printed_comments: usize,
    /// Comments at the ends of lines are marked with `MARK`, then aligned (`align_comments`);
    /// off when the source itself holds that character.
    pub align: bool,
    /// Card tables with one space between cells instead of aligned columns (when aligning
    /// would take the file past its size limit).
    pub compact_tables: bool,
}

/// Marks where a comment at the end of a line starts, until `align_comments` lines them up.
pub const MARK: char = '\u{1}';

/// Line up the comments at the ends of consecutive lines (one column per run of such lines)
/// and remove the marks.
pub fn align_comments(text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        if !line.contains(MARK) {
            out.push_str(line);
            i += 1;
            if i < lines.len() {
                out.push('\n');
            }
            continue;
        }
        let run: Vec<&str> = lines
            .get(i..)
            .unwrap_or(&[])
            .iter()
            .take_while(|l| l.contains(MARK))
            .copied()
            .collect();
        let col = run
            .iter()
            .filter_map(|l| l.split_once(MARK))
            .map(|(code, _)| code.trim_end().chars().count())
            .max()
            .unwrap_or(0);
        for l in &run {
            if let Some((code, comment)) = l.split_once(MARK) {
                let code = code.trim_end();
                out.push_str(code);
                let pad = col.saturating_sub(code.chars().count()) + 1;
                out.extend(std::iter::repeat_n(' ', pad));
                out.push_str(comment);
            }
            i += 1;
            if i < lines.len() {
                out.push('\n');
            }
        }
    }
    out
}

const INDENT: &str = "  ";

impl<'a> Out<'a> {
    pub fn new(src: &'a str) -> Self {
        Out {
            src,
            out: String::new(),
            indent: 0,
            pos: 0,
            bol: true,
            pending: false,
            printed_comments: 0,
            align: !src.contains(MARK),
            compact_tables: false,
        }
    }

    /// Write a token on the current line (starting a continuation line after a comment).
    pub fn w(&mut self, s: &str) {
        if self.pending {
            self.nl();
            self.indent += 1;
            self.push_indent();
            self.indent -= 1;
        } else if self.bol {
            self.push_indent();
        }
        self.out.push_str(s);
        self.bol = false;
    }

    fn push_indent(&mut self) {
        for _ in 0..self.indent {
            self.out.push_str(INDENT);
        }
        self.bol = false;
    }

    /// One space, unless at the start of a line.
    pub fn sp(&mut self) {
        if !self.bol && !self.pending && !self.out.ends_with(' ') {
            self.out.push(' ');
        }
    }

    /// End the current line.
    pub fn nl(&mut self) {
        let trimmed = self.out.trim_end_matches(' ').len();
        self.out.truncate(trimmed);
        if !self.bol && !self.out.is_empty() {
            self.out.push('\n');
        }
        self.bol = true;
        self.pending = false;
    }

    /// A blank line, except at the top of the file or right after an opening bracket.
    pub fn blank(&mut self) {
        self.nl();
        let last = self.out.trim_end_matches('\n').chars().last();
        if matches!(last, None | Some('{' | '(' | '[')) || self.out.ends_with("\n\n") {
            return;
        }
        self.out.push('\n');
    }

    /// Whether the source has a line break between `a` and `b`.
    pub fn has_nl(&self, a: usize, b: usize) -> bool {
        self.src.get(a..b).is_some_and(|t| t.contains('\n'))
    }

    /// Whether the source has a comment between `a` and `b` (outside strings: checked by the
    /// caller's token walk, here only used on spans holding no string with `#`).
    pub fn gap_until(&mut self, upto: usize) -> Gap {
        let text = self.src.get(self.pos..upto).unwrap_or("");
        let g = scan(text);
        if upto > self.pos {
            self.pos = upto;
        }
        g
    }

    fn comment(&mut self, c: &Comment) {
        self.printed_comments += 1;
        // At the end of the line, unless one already ends it (it would swallow this one).
        if !c.own_line && !self.bol && !self.pending {
            self.sp();
            if self.align {
                self.out.push(MARK);
            }
            self.out.push_str(&c.text);
            self.pending = true;
        } else {
            self.nl();
            if c.blank_before {
                self.blank();
            }
            self.push_indent();
            self.out.push_str(&c.text);
            self.nl();
        }
    }

    /// Print the comments before a token inside a line.
    pub fn lead(&mut self, upto: usize) {
        let g = self.gap_until(upto);
        for c in &g.comments {
            self.comment(c);
        }
    }

    /// Start a new line for an item, a statement or an entry at `upto`: the comments before
    /// it, and one blank line where the source had one (never as the first thing in a block).
    pub fn line(&mut self, upto: usize) {
        let g = self.gap_until(upto);
        for c in &g.comments {
            self.comment(c);
        }
        if g.blank_end {
            self.blank();
        } else {
            self.nl();
        }
    }

    /// Leaf token: copied as written.
    pub fn leaf(&mut self, start: usize, end: usize) {
        self.lead(start);
        let s = self.src.get(start..end).unwrap_or("");
        // A string may hold line breaks: copy it whole, then carry on after it.
        self.w(s);
        if s.ends_with('\n') {
            self.bol = false;
        }
        self.pos = end;
    }

    /// Run `f` writing into a fresh buffer, as if in the middle of a line; return what it wrote.
    pub fn capture(&mut self, f: impl FnOnce(&mut Self)) -> String {
        let saved = std::mem::take(&mut self.out);
        let bol = std::mem::replace(&mut self.bol, false);
        f(self);
        let got = std::mem::replace(&mut self.out, saved);
        self.bol = bol;
        self.pending = false;
        got
    }
}
