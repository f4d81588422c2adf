//! Top-level declarations: imports, the `game` block, enums, kinds, zones, vars and options,
//! functions, phases, triggers, `check` rules, bots; entries in braces one per line.

use super::{end, kids, start, tend, P};
use crate::fmt::layout::Out;
use crate::parser::Rule;

impl Out<'_> {
    pub(super) fn item(&mut self, p: P) {
        let k = kids(&p);
        match p.as_rule() {
            Rule::import_decl => {
                self.kw("import ");
                self.each(&k);
            }
            Rule::game_decl => {
                self.kw("game ");
                let (name, entries) = k
                    .split_first()
                    .map_or((None, &[][..]), |(a, b)| (Some(a), b));
                if let Some(n) = name {
                    self.tok(n);
                }
                self.braced_lines(&p, entries, |o, e| o.node(e));
            }
            Rule::enum_decl => {
                self.kw("enum ");
                if let Some((name, vars)) = k.split_first() {
                    self.tok(name);
                    self.sp();
                    let open = self.next_bracket('{');
                    self.seq(open, vars, "{", "}", true, |o, v| {
                        // A variant, then how players read it, if given.
                        for (i, part) in kids(v).iter().enumerate() {
                            if i > 0 {
                                o.sp();
                            }
                            o.tok(part);
                        }
                    });
                }
            }
            Rule::kind_decl => {
                self.kw("kind ");
                if let Some((name, fields)) = k.split_first() {
                    self.tok(name);
                    self.braced_lines(&p, fields, |o, f| {
                        if f.as_rule() == Rule::describe_decl {
                            o.kw("describe ");
                            let k = kids(f);
                            o.each(k.get(1..).unwrap_or(&[]));
                        } else {
                            o.field_decl(f)
                        }
                    });
                }
            }
            Rule::card_decl => {
                self.kw("card ");
                let mut it = k.iter();
                if let (Some(kind), Some(id)) = (it.next(), it.next()) {
                    self.tok(kind);
                    self.sp();
                    self.tok(id);
                }
                let rest: Vec<P> = it.cloned().collect();
                self.braced_lines(&p, &rest, |o, f| o.entry(&kids(f), ": "));
            }
            Rule::cards_decl => self.cards_decl(&p, &k),
            Rule::zone_decl => {
                self.kw("zone ");
                for (i, c) in k.iter().enumerate() {
                    match c.as_rule() {
                        Rule::ident if i == 0 => self.tok(c),
                        Rule::ident => {
                            self.w(": ");
                            self.tok(c);
                        }
                        _ => {
                            self.sp();
                            self.node(c);
                        }
                    }
                }
            }
            Rule::var_decl | Rule::option_decl => {
                if p.as_rule() == Rule::var_decl {
                    self.kw("var ");
                }
                self.decl_parts(&k);
            }
            Rule::allow_decl => {
                self.kw("allow ");
                self.entry(&k, " ");
            }
            Rule::const_decl => {
                self.kw("const ");
                self.entry(&k, " = ");
            }
            Rule::event_decl => {
                self.tok_list(&k[..k.len().min(2)], " ");
                self.params(k.get(2));
            }
            Rule::fn_decl => {
                self.kw("fn ");
                let mut it = k.iter().peekable();
                if let Some(name) = it.next() {
                    self.tok(name);
                }
                let params = it.next_if(|c| c.as_rule() == Rule::params);
                self.params(params);
                if let Some(ret) = it.next_if(|c| c.as_rule() == Rule::type_expr) {
                    self.w(" -> ");
                    self.node(ret);
                }
                for c in it {
                    self.node(c);
                }
            }
            Rule::phase_decl => {
                self.kw("phase ");
                self.spaced(&k);
            }
            Rule::setup_decl => {
                self.kw("setup ");
                self.spaced(&k);
            }
            Rule::trigger_decl => {
                self.kw("on ");
                for (i, c) in k.iter().enumerate() {
                    if i > 0 {
                        self.sp();
                        if c.as_rule() == Rule::expr {
                            self.w("where ");
                        }
                    }
                    self.node(c);
                }
            }
            Rule::table_decl => {
                self.kw("table ");
                let mut it = k.iter();
                if let (Some(name), Some(kt), Some(vt)) = (it.next(), it.next(), it.next()) {
                    self.tok(name);
                    self.w(": ");
                    self.node(kt);
                    self.w(" -> ");
                    self.node(vt);
                }
                let rest: Vec<P> = it.cloned().collect();
                self.braced_lines(&p, &rest, |o, e| o.entry(&kids(e), ": "));
            }
            Rule::check_decl => self.check_decl(&k),
            Rule::face_decl => {
                self.kw("face ");
                let mut it = k.iter().filter(|c| c.as_rule() != Rule::face_kw);
                if let (Some(var), Some(kind)) = (it.next(), it.next()) {
                    self.tok(var);
                    self.w(" in ");
                    self.tok(kind);
                }
                let rest: Vec<P> = it.cloned().collect();
                self.braced_lines(&p, &rest, |o, e| o.entry(&kids(e), ": "));
            }
            Rule::screen_decl => {
                self.kw("screen ");
                let mut it = k.iter().filter(|c| c.as_rule() != Rule::screen_kw);
                if let Some(seat) = it.next() {
                    self.tok(seat);
                }
                let rest: Vec<P> = it.cloned().collect();
                self.braced_lines(&p, &rest, |o, e| o.entry(&kids(e), ": "));
            }
            Rule::bot_decl => {
                self.kw("bot ");
                let mut it = k.iter().filter(|c| c.as_rule() != Rule::bot_kw);
                if let (Some(name), Some(seat)) = (it.next(), it.next()) {
                    self.tok(name);
                    self.w("(");
                    self.tok(seat);
                    self.w(")");
                }
                let rest: Vec<P> = it.cloned().collect();
                self.braced_lines(&p, &rest, |o, r| o.prefer_rule(r));
            }
            _ => self.node(&p),
        }
    }

    /// `name: T in 0..9 per player public = e` (var and option declarations).
    pub(super) fn decl_parts(&mut self, k: &[P]) {
        for c in k {
            match c.as_rule() {
                Rule::option_kw => self.w("option "),
                Rule::ident => self.tok(c),
                Rule::type_expr => {
                    self.w(": ");
                    self.node(c);
                }
                Rule::expr => {
                    self.w(" = ");
                    self.node(c);
                }
                _ => {
                    self.sp();
                    self.node(c);
                }
            }
        }
    }

    /// `(a: T, b)` after a name; `params` is the params pair, if any.
    fn params(&mut self, params: Option<&P>) {
        match params {
            Some(ps) => {
                let items = kids(ps);
                let open = self.next_bracket('(');
                self.seq(open, &items, "(", ")", false, |o, x| o.node(x));
            }
            None => self.w("()"),
        }
    }

    fn field_decl(&mut self, p: &P) {
        for c in kids(p) {
            match c.as_rule() {
                Rule::var_kw => self.w("var "),
                Rule::ident => self.tok(&c),
                Rule::type_expr => {
                    self.w(": ");
                    self.node(&c);
                }
                Rule::expr => {
                    self.w(" = ");
                    self.node(&c);
                }
                _ => {
                    self.sp();
                    self.node(&c);
                }
            }
        }
    }

    fn check_decl(&mut self, k: &[P]) {
        let mut it = k.iter().peekable();
        if let Some(kw) = it.next() {
            self.tok(kw);
            self.sp();
        }
        if let (Some(var), Some(src)) = (it.next(), it.next()) {
            self.tok(var);
            self.w(" in ");
            self.node(src);
        }
        self.indent += 1;
        // `require`, `else`, `at` and `help` start lines: the comments and blank line before
        // each keyword stay before it.
        for c in it {
            match c.as_rule() {
                Rule::check_where => {
                    self.w(" where ");
                    self.each(&kids(c));
                }
                Rule::check_require => {
                    self.keyword_line("require");
                    self.each(&kids(c));
                }
                Rule::expr => {
                    self.keyword_line("else");
                    self.node(c);
                }
                Rule::ident => {
                    self.keyword_line("at");
                    self.tok(c);
                }
                Rule::check_help => {
                    self.keyword_line("help");
                    self.each(&kids(c));
                }
                _ => self.node(c),
            }
        }
        self.indent -= 1;
    }

    /// A bot's rule: `prefer c in Card where cond => score`.
    fn prefer_rule(&mut self, r: &P) {
        let k = kids(r);
        let mut it = k.iter();
        if let (Some(kw), Some(var), Some(ty)) = (it.next(), it.next(), it.next()) {
            self.tok(kw);
            self.sp();
            self.tok(var);
            self.w(" in ");
            self.node(ty);
        }
        self.clauses(it, Rule::prefer_where, Rule::prefer_value);
    }

    /// ` { ... }` with one child per line (`{}` when empty).
    fn braced_lines(&mut self, p: &P, items: &[P], f: impl Fn(&mut Self, &P)) {
        self.w(" {");
        self.indent += 1;
        let mut prev: Option<usize> = None;
        for it in items {
            // Entries the source wrote on one line stay on one line: nothing but white space
            // and the comma between them, from the last token printed (an entry may end in a
            // comment before its comma).
            match prev {
                Some(pe)
                    if !self.has_nl(pe.min(self.pos), start(it))
                        && !crate::fmt::has_comment(self.src, pe.min(self.pos), start(it)) =>
                {
                    self.w(", ");
                    self.lead(start(it));
                }
                _ => self.line(start(it)),
            }
            f(self, it);
            prev = Some(tend(it, self.src));
        }
        let before = self.printed_comments;
        self.lead(end(p));
        self.indent -= 1;
        if items.is_empty() && before == self.printed_comments {
            self.w("}");
        } else {
            self.nl();
            self.w("}");
        }
    }
}
