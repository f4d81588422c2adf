//! Every rule without a printer of its own: types, bounds, function bodies, event patterns,
//! `game` entries.

use super::{end, kids, start, Trailing, P};
use crate::fmt::layout::Out;
use crate::parser::Rule;

impl Out<'_> {
    /// Any other rule.
    pub(super) fn node(&mut self, p: &P) {
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
}
