//! The canonical layout, one function per grammar rule, printed from pest's parse tree (which
//! keeps every token with its position, so comments can be found between them).

use super::layout::Out;
use crate::parser::{row_parts, Rule};
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

    fn item(&mut self, p: P) {
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
                self.params(&p, k.get(2));
            }
            Rule::fn_decl => {
                self.kw("fn ");
                let mut it = k.iter().peekable();
                if let Some(name) = it.next() {
                    self.tok(name);
                }
                let params = it.next_if(|c| c.as_rule() == Rule::params);
                self.params(&p, params);
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
    fn decl_parts(&mut self, k: &[P]) {
        for (i, c) in k.iter().enumerate() {
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
                    let _ = i;
                    self.sp();
                    self.node(c);
                }
            }
        }
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

    /// `(a: T, b)` after a name; `params` is the params pair, if any.
    fn params(&mut self, parent: &P, params: Option<&P>) {
        let _ = parent;
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
        for part in it {
            let word = match part.as_rule() {
                Rule::prefer_where => "where",
                Rule::prefer_value => "=>",
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
                        && !super::has_comment(self.src, pe.min(self.pos), start(it)) =>
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

    /// A bracketed, comma-separated list. Its elements stay on one line unless the source broke
    /// the line there: a break after the opening bracket puts one element per line (with a
    /// trailing comma); a break between two elements is kept as a continuation line.
    fn seq(
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
    fn seq_with(
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
    fn next_bracket(&self, ch: char) -> usize {
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
    fn keyword_line(&mut self, kw: &str) {
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

    fn block(&mut self, p: &P) {
        // The comments before the brace stay before it; after one, the brace starts a line.
        self.lead(start(p));
        if self.pending {
            self.nl();
        }
        let stmts = kids(p);
        let has_comment = super::has_comment(self.src, start(p), end(p));
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
    fn keyword_parts(&mut self, kw: &str, k: &[P], seps: &[&str]) {
        self.w(kw);
        for (i, c) in k.iter().enumerate() {
            if i > 0 {
                self.w(seps.get(i - 1).copied().unwrap_or(" "));
            }
            self.node(c);
        }
    }

    /// Any other rule.
    fn node(&mut self, p: &P) {
        let k = kids(p);
        match p.as_rule() {
            Rule::string | Rule::pattern => self.tok(p),
            Rule::block => self.block(p),
            Rule::expr | Rule::check_where | Rule::check_require | Rule::check_help => self.expr(p),
            // A value taken as one literal (`lit` in the grammar).
            Rule::list_lit | Rule::paren => self.primary(p),
            Rule::type_expr | Rule::card_id | Rule::key_type => self.each(&k),
            Rule::phase_each => self.keyword_parts("for ", &k, &[" in "]),
            Rule::list_type => {
                self.w("list of ");
                self.each(&k);
            }
            Rule::tuple_type => {
                let open = self.pos;
                self.seq(open, &k, "(", ")", false, |o, x| o.node(x));
            }
            Rule::table_type => {
                self.w("table ");
                self.keyword_parts("", &k, &[" of "]);
            }
            Rule::fn_type => {
                let mut it = k.iter();
                if let Some(kw) = it.next() {
                    self.tok(kw);
                }
                let params: Vec<P> = k
                    .iter()
                    .filter(|c| c.as_rule() == Rule::fn_type_param)
                    .cloned()
                    .collect();
                let open = self.next_bracket('(');
                self.seq(open, &params, "(", ")", false, |o, x| {
                    o.entry(&kids(x), ": ");
                });
                if let Some(ret) = k.iter().skip(1).find(|c| c.as_rule() == Rule::type_expr) {
                    self.w(" -> ");
                    self.node(ret);
                }
            }
            Rule::key_range => self.tok_list(&k, ".."),
            Rule::per_clause => {
                self.w("per ");
                self.tok_list(&k, ", ");
            }
            Rule::bounds => {
                self.w("in ");
                let ints: Vec<&P> = k.iter().filter(|c| c.as_rule() == Rule::neg_int).collect();
                if let Some(lo) = ints.first() {
                    self.tok(lo);
                }
                self.w("..");
                if let Some(hi) = ints.get(1) {
                    self.tok(hi);
                }
                for c in k.iter().filter(|c| c.as_rule() == Rule::bound_policy) {
                    self.sp();
                    self.tok(c);
                }
            }
            Rule::param | Rule::fn_type_param => self.entry(&k, ": "),
            Rule::fn_body => {
                for c in &k {
                    if c.as_rule() == Rule::block {
                        self.sp();
                        self.block(c);
                    } else {
                        self.w(" =");
                        self.break_or_space(c, |o, c| o.expr(c));
                    }
                }
            }
            Rule::event_pat => self.event_pat(&k),
            Rule::custom_ev => {
                if let Some((name, ps)) = k.split_first() {
                    self.tok(name);
                    let open = self.next_bracket('(');
                    self.seq(open, ps, "(", ")", false, |o, x| o.tok(x));
                }
            }
            Rule::ev_keys => {
                // No trailing comma: the grammar takes none here.
                let open = start(p);
                self.seq_with(open, &k, "[", "]", false, Trailing::Never, |o, x| o.tok(x));
            }
            Rule::repeat_upto | Rule::repeat_until | Rule::move_face => {
                for (i, c) in k.iter().enumerate() {
                    if i > 0 {
                        self.sp();
                    }
                    self.node(c);
                }
            }
            Rule::game_entry => match k.split_last() {
                // `at round end`, `at setup`, `at end`: each word after the comments before it
                // (they stay before it).
                Some((last, rest))
                    if matches!(
                        last.as_rule(),
                        Rule::at_round_end | Rule::at_setup | Rule::at_end
                    ) =>
                {
                    self.entry(rest, ": ");
                    for w in kids(last) {
                        self.lead(start(&w));
                        self.sp();
                        self.tok(&w);
                    }
                }
                _ => self.entry(&k, ": "),
            },
            Rule::table_entry | Rule::field_init => self.entry(&k, ": "),
            Rule::copies => self.tok_list(&k, " "),
            _ if k.is_empty() => self.tok(p),
            _ => self.spaced(&k),
        }
    }

    fn event_pat(&mut self, k: &[P]) {
        for c in k {
            match c.as_rule() {
                Rule::ident => {
                    self.sp();
                    self.tok(c);
                }
                Rule::as_kw => {
                    self.lead(start(c));
                    self.sp();
                    self.w("as");
                    self.pos = end(c);
                }
                _ => self.node(c),
            }
        }
    }

    fn expr(&mut self, p: &P) {
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

    fn primary(&mut self, p: &P) {
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
                    && !super::has_comment(self.src, start(p), end(p));
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
                    for part in it {
                        let word = match part.as_rule() {
                            Rule::agg_where => "where",
                            Rule::agg_map => "=>",
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
            !self.has_nl(start(b), end(b)) && !super::has_comment(self.src, start(b), end(b))
        })
    }

    /// Print `c` after a space, or on a continuation line where the source broke the line.
    fn break_or_space(&mut self, c: &P, f: impl FnOnce(&mut Self, &P)) {
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

    /// `cards Kind (a, b) { rows }`: rows in aligned columns, comments at the ends of rows
    /// aligned too. A row written over several lines or holding a comment is printed as it
    /// comes and, if that still takes several lines or a comment, left out of the alignment.
    fn cards_decl(&mut self, p: &P, k: &[P]) {
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
            let simple = !self.has_nl(start(r), e) && !super::has_comment(self.src, start(r), e);
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
