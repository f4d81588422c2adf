//! `cards` tables: rows in aligned columns, comments at the ends of rows aligned too.

use super::{end, start, tend, Trailing, P};
use crate::fmt::layout::Out;
use crate::parser::{row_parts, Rule};

impl Out<'_> {
    /// `cards Kind (a, b) { rows }`: rows in aligned columns, comments at the ends of rows
    /// aligned too. A row written over several lines or holding a comment is printed as it
    /// comes and, if that still takes several lines or a comment, left out of the alignment.
    pub(super) fn cards_decl(&mut self, p: &P, k: &[P]) {
        self.w("cards ");
        let rows: Vec<P> = k
            .iter()
            .filter(|c| c.as_rule() == Rule::card_row)
            .cloned()
            .collect();
        let head: Vec<P> = k
            .iter()
            .filter(|c| c.as_rule() != Rule::card_row)
            .cloned()
            .collect();
        if let Some((kind, cols)) = head.split_first() {
            self.tok(kind);
            self.sp();
            // No trailing comma: the grammar takes none after the columns.
            let open = self.next_bracket('(');
            self.seq_with(open, cols, "(", ")", false, Trailing::Never, |o, x| {
                o.tok(x)
            });
        }
        self.w(" {");
        self.indent += 1;
        let mut lines: Vec<Line> = Vec::new();
        for r in &rows {
            self.table_gap(start(r), &mut lines);
            let e = tend(r, self.src);
            let simple =
                !self.has_nl(start(r), e) && !crate::fmt::has_comment(self.src, start(r), e);
            if simple {
                let cells = self.row_cells(r);
                lines.push(Line::Row(cells, None));
            } else {
                // Printed as it comes; if that is one line with no comment (a list's line
                // break dropped, say), it is a row like the others, as it will be when the
                // output is formatted again.
                let saved = (self.pos, self.bol, self.pending, self.printed_comments);
                let text = self.capture(|o| o.row_direct(r));
                if text.contains('\n') || self.printed_comments != saved.3 {
                    lines.push(Line::Raw(text));
                } else {
                    (self.pos, self.bol, self.pending, self.printed_comments) = saved;
                    let cells = self.row_cells(r);
                    lines.push(Line::Row(cells, None));
                }
            }
        }
        self.table_gap(end(p), &mut lines);
        self.render_table(&lines);
        self.indent -= 1;
        if rows.is_empty() && lines.is_empty() && !self.pending {
            self.w("}");
        } else {
            self.nl();
            self.w("}");
        }
    }

    /// Comments and blank lines before a table row, as lines of the table.
    fn table_gap(&mut self, upto: usize, lines: &mut Vec<Line>) {
        let g = self.gap_until(upto);
        for c in g.comments {
            self.printed_comments += 1;
            if !c.own_line {
                match lines.last_mut() {
                    Some(Line::Row(_, t @ None)) => {
                        *t = Some(c.text);
                        continue;
                    }
                    None => {
                        // After the opening brace: the line ends with it.
                        self.sp();
                        self.out.push_str(&c.text);
                        self.pending = true;
                        continue;
                    }
                    _ => {}
                }
            }
            if c.blank_before && !lines.is_empty() {
                lines.push(Line::Blank);
            }
            lines.push(Line::Comment(c.text));
        }
        if g.blank_end && !lines.is_empty() {
            lines.push(Line::Blank);
        }
    }

    /// A row's cells: `id:` and each value with its comma.
    fn row_cells(&mut self, r: &P) -> Vec<String> {
        let k = row_parts(r);
        let mut cells = Vec::new();
        let mut first = String::new();
        let mut values = Vec::new();
        for c in &k {
            match c.as_rule() {
                Rule::copies | Rule::card_id => {
                    let s = self.capture(|o| o.node(c));
                    if !first.is_empty() {
                        first.push(' ');
                    }
                    first.push_str(&s);
                }
                _ => values.push(c.clone()),
            }
        }
        first.push(':');
        cells.push(first);
        let n = values.len();
        for (i, v) in values.iter().enumerate() {
            let mut s = self.capture(|o| o.expr(v));
            if i + 1 < n {
                s.push(',');
            }
            cells.push(s);
        }
        cells
    }

    fn row_direct(&mut self, r: &P) {
        let mut values = 0;
        for c in row_parts(r) {
            match c.as_rule() {
                Rule::copies => {
                    self.node(&c);
                    self.sp();
                }
                Rule::card_id => {
                    self.node(&c);
                    self.w(":");
                }
                _ => {
                    if values > 0 {
                        self.w(",");
                    }
                    let brk = self.has_nl(self.pos, start(&c));
                    if brk {
                        self.indent += 1;
                        self.line(start(&c));
                        self.indent -= 1;
                    } else {
                        self.sp();
                    }
                    self.expr(&c);
                    values += 1;
                }
            }
        }
    }

    fn render_table(&mut self, lines: &[Line]) {
        let mut widths: Vec<usize> = Vec::new();
        for l in lines.iter().filter(|_| !self.compact_tables) {
            if let Line::Row(cells, _) = l {
                for (i, c) in cells.iter().enumerate() {
                    let w = c.chars().count();
                    match widths.get_mut(i) {
                        Some(x) => *x = (*x).max(w),
                        None => widths.push(w),
                    }
                }
            }
        }
        let rows: Vec<String> = lines
            .iter()
            .map(|l| match l {
                Line::Row(cells, _) => {
                    let mut s = String::new();
                    let n = cells.len();
                    for (i, c) in cells.iter().enumerate() {
                        s.push_str(c);
                        if i + 1 < n {
                            let w = widths.get(i).copied().unwrap_or(0);
                            let pad = w.saturating_sub(c.chars().count()) + 1;
                            s.extend(std::iter::repeat_n(' ', pad));
                        }
                    }
                    s
                }
                _ => String::new(),
            })
            .collect();
        let comment_col = lines
            .iter()
            .zip(&rows)
            .filter(|(l, _)| matches!(l, Line::Row(_, Some(_))) && !self.compact_tables)
            .map(|(_, r)| r.chars().count())
            .max()
            .unwrap_or(0);
        for (l, r) in lines.iter().zip(&rows) {
            match l {
                Line::Row(_, trailing) => {
                    self.nl();
                    self.w(r);
                    if let Some(t) = trailing {
                        let pad = comment_col.saturating_sub(r.chars().count()) + 1;
                        let spaces: String = std::iter::repeat_n(' ', pad).collect();
                        self.out.push_str(&spaces);
                        self.out.push_str(t);
                    }
                }
                Line::Raw(text) => {
                    self.nl();
                    self.w(text);
                }
                Line::Comment(t) => {
                    self.nl();
                    self.w(t);
                }
                Line::Blank => self.blank(),
            }
        }
    }
}

enum Line {
    /// An aligned row, with the comment at its end.
    Row(Vec<String>, Option<String>),
    /// A row printed as it comes (several lines, or a comment inside).
    Raw(String),
    Comment(String),
    Blank,
}
