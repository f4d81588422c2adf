//! Expressions: operators and their continuation lines, postfix field reads, indexes and calls,
//! primaries (literals, lists, tuples, `if`, `match`, aggregates, function literals).

use super::{end, kids, start, Trailing, P};
use crate::fmt::layout::Out;
use crate::parser::Rule;

impl Out<'_> {
    pub(super) fn expr(&mut self, p: &P) {
        // A value the grammar took as one literal (`lit`) where it takes an `expr`.
        if matches!(
            p.as_rule(),
            Rule::string
                | Rule::ident
                | Rule::int
                | Rule::card_ref
                | Rule::true_lit
                | Rule::false_lit
                | Rule::none_lit
                | Rule::list_lit
                | Rule::paren
        ) {
            self.primary(p);
            return;
        }
        let k = kids(p);
        let mut broke = false;
        let mut prev_end = start(p);
        let mut i = 0;
        while let Some(c) = k.get(i) {
            match c.as_rule() {
                Rule::neg => {
                    self.lead(start(c));
                    self.w("-");
                }
                Rule::not_op => {
                    self.lead(start(c));
                    self.w("not ");
                }
                Rule::postfix_expr => {
                    self.postfix(c);
                    prev_end = end(c);
                }
                Rule::range_op => {
                    self.lead(start(c));
                    self.w("..");
                }
                _ => {
                    // An infix operator: keep a line break the source had around it. A comment
                    // before it stays before it, and the operator starts the next line.
                    let next = k.get(i + 1).map_or(end(c), start);
                    self.lead(start(c));
                    let commented = self.pending;
                    let brk = if commented {
                        self.has_nl(end(c), next)
                    } else {
                        self.has_nl(prev_end, next)
                    };
                    if (brk || commented) && !broke {
                        broke = true;
                        self.indent += 1;
                    }
                    if commented {
                        self.nl();
                    } else {
                        self.sp();
                    }
                    self.w(c.as_str());
                    if brk {
                        self.line(next);
                    } else {
                        self.sp();
                    }
                }
            }
            i += 1;
        }
        if broke {
            self.indent -= 1;
        }
    }

    fn postfix(&mut self, p: &P) {
        for c in kids(p) {
            match c.as_rule() {
                Rule::field_access => {
                    self.w(".");
                    self.each(&kids(&c));
                }
                Rule::index => {
                    let items = kids(&c);
                    // No trailing comma: the grammar takes none in an index.
                    let comma = Trailing::Never;
                    self.seq_with(start(&c), &items, "[", "]", false, comma, |o, x| o.expr(x));
                }
                Rule::call_args => {
                    let items = kids(&c);
                    self.seq(start(&c), &items, "(", ")", false, |o, x| o.expr(x));
                }
                _ => self.primary(&c),
            }
        }
    }

    pub(super) fn primary(&mut self, p: &P) {
        let k = kids(p);
        match p.as_rule() {
            Rule::fn_lit => {
                let mut it = k.iter();
                if let Some(kw) = it.next() {
                    self.tok(kw);
                }
                let params: Vec<P> = k
                    .iter()
                    .filter(|c| c.as_rule() == Rule::ident)
                    .cloned()
                    .collect();
                let open = self.next_bracket('(');
                self.seq(open, &params, "(", ")", false, |o, x| o.tok(x));
                if let Some(b) = k.iter().find(|c| c.as_rule() == Rule::fn_body) {
                    self.node(b);
                }
            }
            Rule::if_expr => {
                self.lead(start(p));
                self.w("if ");
                for (i, c) in k.iter().enumerate() {
                    match i {
                        0 => self.expr(c),
                        1 => {
                            self.sp();
                            self.block(c);
                        }
                        _ => {
                            // `else` on a line of its own stays there (after a block on one line).
                            let prev = k.get(i - 1).map_or(0, end);
                            if self.has_nl(prev, start(c)) && self.block_was_inline(k.get(i - 1)) {
                                self.line(start(c));
                                self.w("else ");
                            } else {
                                self.w(" else ");
                            }
                            if c.as_rule() == Rule::if_expr {
                                self.primary(c);
                            } else {
                                self.block(c);
                            }
                        }
                    }
                }
            }
            Rule::match_expr => {
                self.lead(start(p));
                self.w("match ");
                let mut it = k.iter();
                if let Some(e) = it.next() {
                    self.expr(e);
                }
                let arms: Vec<P> = it.cloned().collect();
                let inline = !self.has_nl(start(p), end(p))
                    && !crate::fmt::has_comment(self.src, start(p), end(p));
                if inline {
                    self.w(" {");
                    for (i, a) in arms.iter().enumerate() {
                        self.w(if i == 0 { " " } else { ", " });
                        self.arm(a);
                    }
                    self.w(if arms.is_empty() { "}" } else { " }" });
                } else {
                    self.w(" {");
                    self.indent += 1;
                    for a in &arms {
                        self.line(start(a));
                        self.arm(a);
                        self.w(",");
                    }
                    self.lead(end(p));
                    self.indent -= 1;
                    self.nl();
                    self.w("}");
                }
            }
            Rule::aggregate => {
                let mut it = k.iter();
                if let (Some(kw), Some(var), Some(src)) = (it.next(), it.next(), it.next()) {
                    self.tok(kw);
                    self.w("(");
                    self.tok(var);
                    self.w(" in ");
                    self.expr(src);
                    self.clauses(it, Rule::agg_where, Rule::agg_map);
                    self.lead(end(p));
                    self.w(")");
                }
            }
            Rule::table_lit => {
                self.lead(start(p));
                self.w("table ");
                let open = self.next_bracket('{');
                self.seq(open, &k, "{", "}", true, |o, x| o.node(x));
            }
            Rule::block => self.block(p),
            Rule::list_lit => {
                self.lead(start(p));
                self.seq(start(p), &k, "[", "]", false, |o, x| o.expr(x));
            }
            Rule::paren => {
                self.lead(start(p));
                let items: Vec<P> = k
                    .iter()
                    .filter(|c| c.as_rule() != Rule::trailing_comma)
                    .cloned()
                    .collect();
                let tuple_of_one = items.len() < k.len() && items.len() == 1;
                // `(x,)` is a tuple of one and keeps its comma; `(x)` is `x` and gets none.
                let comma = match items.len() {
                    1 if tuple_of_one => Trailing::Always,
                    1 => Trailing::Never,
                    _ => Trailing::Multi,
                };
                self.seq_with(start(p), &items, "(", ")", false, comma, |o, x| o.expr(x));
            }
            _ => self.tok(p),
        }
    }

    /// Whether a block was printed on one line (so an `else` after it may start a line).
    fn block_was_inline(&self, b: Option<&P>) -> bool {
        b.is_some_and(|b| {
            !self.has_nl(start(b), end(b)) && !crate::fmt::has_comment(self.src, start(b), end(b))
        })
    }

    /// Print `c` after a space, or on a continuation line where the source broke the line.
    pub(super) fn break_or_space(&mut self, c: &P, f: impl FnOnce(&mut Self, &P)) {
        if self.has_nl(self.pos, start(c)) {
            self.indent += 1;
            self.line(start(c));
            f(self, c);
            self.indent -= 1;
        } else {
            self.sp();
            f(self, c);
        }
    }

    fn arm(&mut self, a: &P) {
        let k = kids(a);
        let n = k.len();
        for (i, c) in k.iter().enumerate() {
            if i + 1 == n {
                self.w(" => ");
                self.expr(c);
            } else {
                if i > 0 {
                    self.w(" | ");
                }
                self.tok(c);
            }
        }
    }
}
