//! Blocks and statements.

use super::{end, kids, start, P};
use crate::fmt::layout::Out;
use crate::parser::Rule;

impl Out<'_> {
    pub(super) fn block(&mut self, p: &P) {
        // The comments before the brace stay before it; after one, the brace starts a line.
        self.lead(start(p));
        if self.pending {
            self.nl();
        }
        let stmts = kids(p);
        let has_comment = crate::fmt::has_comment(self.src, start(p), end(p));
        if stmts.is_empty() && !has_comment {
            self.w("{}");
            self.pos = self.pos.max(end(p));
            return;
        }
        if !has_comment && !self.has_nl(start(p), end(p)) {
            self.w("{ ");
            for (i, s) in stmts.iter().enumerate() {
                if i > 0 {
                    self.w("; ");
                }
                self.stmt(s);
            }
            self.w(" }");
            return;
        }
        self.w("{");
        self.indent += 1;
        for (i, s) in stmts.iter().enumerate() {
            self.line(start(s));
            self.stmt(s);
            // `f()` then `-x` on the next line would read as one subtraction, and a statement
            // that is only a keyword's word (`emit`, a name the checker refuses) would take the
            // next line as its own.
            let next = stmts.get(i + 1);
            if next.is_some_and(|n| n.as_str().starts_with(['-', '(', '[']))
                || (next.is_some() && only_a_keyword(s.as_str()))
            {
                self.w(";");
            }
        }
        self.lead(end(p));
        self.indent -= 1;
        self.nl();
        self.w("}");
    }

    fn stmt(&mut self, p: &P) {
        let k = kids(p);
        match p.as_rule() {
            Rule::let_stmt => {
                self.w("let ");
                self.decl_parts(&k);
            }
            Rule::set_stmt => {
                self.w("set ");
                self.spaced(&k);
            }
            Rule::move_stmt => self.keyword_parts("move ", &k, &[" to ", " "]),
            Rule::draw_stmt => self.keyword_parts("draw ", &k, &[" from ", " to "]),
            Rule::shuffle_stmt => self.keyword_parts("shuffle ", &k, &[]),
            Rule::flip_stmt => self.keyword_parts("flip ", &k, &[" "]),
            Rule::reveal_stmt => {
                self.w("reveal ");
                self.spaced(&k);
            }
            Rule::for_stmt => self.keyword_parts("for ", &k, &[" in ", " "]),
            Rule::repeat_stmt => {
                self.w("repeat ");
                self.spaced(&k);
            }
            Rule::say_stmt => self.keyword_parts("say ", &k, &[]),
            Rule::return_stmt => {
                self.w("return");
                for c in &k {
                    self.sp();
                    self.node(c);
                }
            }
            Rule::secretly_stmt => self.keyword_parts("secretly ", &k, &[]),
            Rule::step_stmt => self.keyword_parts("step ", &k, &[" "]),
            Rule::end_stmt => self.spaced(&k),
            Rule::eliminate_stmt => {
                self.w("eliminate ");
                self.each(k.get(1..).unwrap_or(&[]));
            }
            Rule::emit_stmt => {
                self.w("emit ");
                if let (Some(name), Some(args)) = (k.get(1), k.get(2)) {
                    self.tok(name);
                    let items = kids(args);
                    self.seq(start(args), &items, "(", ")", false, |o, x| o.expr(x));
                }
            }
            Rule::break_stmt => self.w("break"),
            Rule::continue_stmt => self.w("continue"),
            Rule::while_stmt => self.keyword_parts("while ", k.get(1..).unwrap_or(&[]), &[" "]),
            Rule::expr_stmt => self.each(&k),
            _ => self.node(p),
        }
    }

    /// A statement: its keyword, then its parts with the words between them.
    pub(super) fn keyword_parts(&mut self, kw: &str, k: &[P], seps: &[&str]) {
        self.w(kw);
        for (i, c) in k.iter().enumerate() {
            if i > 0 {
                self.w(seps.get(i - 1).copied().unwrap_or(" "));
            }
            self.node(c);
        }
    }
}

/// Whether a statement's text (which may end in white space and comments) is one word that
/// begins a statement, like `emit`: the next statement on its own line would be read as its
/// argument.
fn only_a_keyword(text: &str) -> bool {
    let word_end = text
        .find(|c: char| c.is_whitespace() || c == '#')
        .unwrap_or(text.len());
    let (word, rest) = text.split_at(word_end);
    crate::parser::STATEMENT_KEYWORDS.contains(&word)
        && rest
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
}
