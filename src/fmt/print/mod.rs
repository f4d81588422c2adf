//! The canonical layout, one function per grammar rule, printed from pest's parse tree (which
//! keeps every token with its position, so comments can be found between them).
//!
//! By grammar area: `items.rs` the top-level declarations (`item`), with their entries one per
//! line; `stmts.rs` blocks and statements; `exprs.rs` expressions; `nodes.rs` every other rule
//! (types, bounds, function bodies, event patterns, entries); `cards.rs` `cards` tables in
//! aligned columns; `brackets.rs` bracketed lists and where the next bracket or keyword is in
//! the source. This file: the file as a whole and the small printers they all share.

mod brackets;
mod cards;
mod exprs;
mod items;
mod nodes;
mod stmts;

use super::layout::Out;
use crate::parser::Rule;
use pest::iterators::Pair;

type P<'i> = Pair<'i, Rule>;

fn kids<'i>(p: &P<'i>) -> Vec<P<'i>> {
    p.clone().into_inner().collect()
}

fn start(p: &P) -> usize {
    p.as_span().start()
}

fn end(p: &P) -> usize {
    p.as_span().end()
}

/// Where the pair's text really ends: pest may count spaces and comments skipped after its
/// last token as part of it. After its last leaf come only the brackets and keywords the tree
/// does not keep, and comments (no strings: a string is a leaf).
fn tend(p: &P, src: &str) -> usize {
    let mut last = p.clone();
    while let Some(k) = last.clone().into_inner().last() {
        if last.as_rule() == Rule::string {
            break;
        }
        last = k;
    }
    let from = end(&last);
    let tail = src.get(from..end(p)).unwrap_or("");
    let mut upto = 0;
    let mut comment = false;
    for (i, ch) in tail.char_indices() {
        match ch {
            '\n' => comment = false,
            '#' => comment = true,
            _ if comment || ch.is_whitespace() => {}
            _ => upto = i + ch.len_utf8(),
        }
    }
    from + upto
}

/// Where a bracketed list gets a comma after its last element.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Trailing {
    /// When it is printed one element per line.
    Multi,
    Always,
    Never,
}

impl Out<'_> {
    pub fn file(&mut self, p: P) {
        for item in kids(&p) {
            if item.as_rule() == Rule::EOI {
                self.line(start(&item));
                continue;
            }
            self.line(start(&item));
            self.item(item);
        }
        self.nl();
    }

    /// Print a pair token by token.
    fn tok(&mut self, p: &P) {
        self.leaf(start(p), end(p));
    }

    fn kw(&mut self, s: &str) {
        self.w(s);
    }

    fn tok_list(&mut self, k: &[P], sep: &str) {
        for (i, c) in k.iter().enumerate() {
            if i > 0 {
                self.w(sep);
            }
            self.node(c);
        }
    }

    /// Children separated by single spaces.
    fn spaced(&mut self, k: &[P]) {
        for (i, c) in k.iter().enumerate() {
            if i > 0 {
                self.sp();
            }
            self.node(c);
        }
    }

    fn each(&mut self, k: &[P]) {
        for c in k {
            self.node(c);
        }
    }

    /// The `where c` and `=> v` clauses of an aggregate or a bot's rule (`cond` and `value`
    /// name their rules), each word after a comment that stood before it.
    fn clauses<'a>(&mut self, parts: impl Iterator<Item = &'a P<'a>>, cond: Rule, value: Rule) {
        for part in parts {
            let word = match part.as_rule() {
                r if r == cond => "where",
                r if r == value => "=>",
                _ => continue,
            };
            // A comment before the word stays before it.
            self.lead(start(part));
            self.sp();
            self.w(word);
            self.pos = self.pos.max(start(part) + word.len());
            if let Some(e) = kids(part).first() {
                self.break_or_space(e, |o, e| o.expr(e));
            }
        }
    }

    /// `name: value` or `name = value`.
    fn entry(&mut self, k: &[P], sep: &str) {
        if let Some((a, rest)) = k.split_first() {
            self.node(a);
            for c in rest {
                self.w(sep);
                self.node(c);
            }
        }
    }
}
