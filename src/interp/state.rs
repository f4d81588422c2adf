//! Reading the state: zone and var slots by key, cards of a value, lists, typed reads, the
//! origins of values for error messages, card fields.

use super::compile::{Ev, Origin};
use super::*;
use crate::ast::BinOp;
use crate::diag::{Diag, Span};
use crate::program::*;
use crate::value::{Items, Value};
use std::rc::Rc;

impl<'p> Interp<'p> {
    // ================================================================ helpers

    pub fn view(&self) -> View<'_> {
        View {
            prog: self.prog,
            n_players: self.state.n_players,
            zone_base: &self.state.zone_base,
        }
    }

    pub fn zone_def_of_slot(&self, slot: u32) -> u32 {
        match self.slot_info.get(slot as usize) {
            Some(info) => info.def,
            None => self.view().zone_def_of_slot(slot),
        }
    }

    pub(super) fn flat_key<E: Ev>(
        &mut self,
        domains: &[KeyDomain],
        dims_of: (bool, Id),
        keys: &[E],
        span: Span,
    ) -> R<u32> {
        if keys.len() != domains.len() {
            return Err(rt(span, "wrong number of keys"));
        }
        let mut idx = 0u32;
        for (i, (d, k)) in domains.iter().zip(keys).enumerate() {
            let v = k.ev(self)?;
            let dims = if dims_of.0 {
                &self.zone_dims
            } else {
                &self.var_dims
            };
            let n = dims[dims_of.1 as usize][i];
            let j = match (d, &v) {
                (KeyDomain::Player, Value::Player(p)) if *p < n => *p,
                (KeyDomain::Enum(e), Value::Enum(e2, x)) if e == e2 && *x < n => *x,
                // In 128 bits: on a negative range `x - lo` may not fit in 64.
                (KeyDomain::Range(lo, _), Value::Int(x))
                    if *x >= *lo && i128::from(*x) - i128::from(*lo) < i128::from(n) =>
                {
                    u32::try_from(i128::from(*x) - i128::from(*lo))
                        .map_err(|_| self.bad_key(d, &v, k.span(), dims_of))?
                }
                _ => return Err(self.bad_key(d, &v, k.span(), dims_of)),
            };
            idx = idx
                .checked_mul(n)
                .and_then(|i| i.checked_add(j))
                .ok_or_else(|| self.bad_key(d, &v, k.span(), dims_of))?;
        }
        Ok(idx)
    }

    #[cold]
    pub(super) fn bad_key(
        &self,
        d: &KeyDomain,
        v: &Value,
        span: Span,
        family: (bool, Id),
    ) -> Box<Diag> {
        let name = if family.0 {
            &self.prog.zones[family.1 as usize].name
        } else {
            &self.prog.vars[family.1 as usize].name
        };
        let domain = match d {
            KeyDomain::Player => format!("the players P1..P{}", self.state.n_players),
            KeyDomain::Enum(e) => format!("`{}`", self.prog.enums[*e as usize].name),
            KeyDomain::Range(a, b) => format!("{a}..{b}"),
        };
        Box::new(
            Diag::error(
                "run::key",
                format!("`{}` is not a key of `{name}`", self.show(v)),
            )
            .label(span, format!("this is {}", self.show(v)))
            .help(format!("`{name}` is kept per {domain}")),
        )
    }

    pub(super) fn var_slot<E: Ev>(&mut self, id: Id, keys: &[E], span: Span) -> R<usize> {
        let prog = self.prog;
        let off = self.flat_key(&prog.vars[id as usize].keys, (false, id), keys, span)?;
        Ok((self.state.var_base[id as usize] + off) as usize)
    }

    pub(super) fn zone_slot<E: Ev + ?Sized>(&mut self, e: &E) -> R<u32> {
        match e.ev(self)? {
            Value::Zone(z) => Ok(z),
            other => Err(rt(
                e.span(),
                format!("expected a zone, found {}", other.type_name()),
            )),
        }
    }

    pub(super) fn cards_of(&mut self, e: &Expr) -> R<Vec<u32>> {
        let v = self.eval(e)?;
        let mut out = Vec::new();
        self.collect_cards(&v, &mut out, e.span)?;
        Ok(out)
    }

    pub(super) fn collect_cards(&self, v: &Value, out: &mut Vec<u32>, span: Span) -> R<()> {
        match v {
            Value::None => {}
            Value::Card(c) => out.push(*c),
            Value::Zone(z) => out.extend_from_slice(self.zone_cards(*z)),
            Value::List(items) => {
                // Room for a list of cards at once (a nested list grows it as it must).
                out.reserve(items.len());
                for i in items.iter() {
                    self.collect_cards(i, out, span)?;
                }
            }
            other => {
                return Err(rt(
                    span,
                    format!("expected cards, found {}", other.type_name()),
                ))
            }
        }
        Ok(())
    }

    /// What an aggregate or `for` walks: a list, a zone (read live) or an integer range,
    /// without building a list for the last two.
    pub(super) fn eval_source(&mut self, e: &Expr) -> R<Source> {
        if let ExprKind::Binary(BinOp::Range, a, b) = &e.kind {
            let lo = self.int(&**a)?;
            let hi = self.int(&**b)?;
            return Ok(Source::Range(lo, hi));
        }
        let v = self.eval(e)?;
        self.source_of(v, e.span)
    }

    /// What an aggregate or `for` walks, given the value of its source.
    #[inline(always)]
    pub(super) fn source_of(&mut self, v: Value, span: Span) -> R<Source> {
        Ok(match v {
            Value::Zone(z) => Source::Zone(z),
            Value::List(l) => Source::List(l),
            Value::None => Source::Cards(Vec::new()),
            other => return Err(not_a_list(&other, span)),
        })
    }

    pub(crate) fn as_list(&self, v: &Value, span: Span) -> R<Rc<Items>> {
        match v {
            Value::List(l) => Ok(l.clone()),
            Value::Zone(z) => Ok(Rc::new(Items::new(
                self.zone_cards(*z)
                    .iter()
                    .map(|&c| Value::Card(c))
                    .collect(),
            ))),
            Value::None => Ok(Rc::new(Items::default())),
            other => Err(rt(
                span,
                format!("expected a list, found {}", other.type_name()),
            )),
        }
    }

    #[inline(always)]
    pub(super) fn int<E: Ev + ?Sized>(&mut self, e: &E) -> R<i64> {
        match e.ev(self)? {
            Value::Int(n) => Ok(n),
            other => Err(self.not_a(e, &other, "a number")),
        }
    }

    #[inline(always)]
    pub(super) fn boolean<E: Ev + ?Sized>(&mut self, e: &E) -> R<bool> {
        match e.ev(self)? {
            Value::Bool(b) => Ok(b),
            other => Err(self.not_a(e, &other, "true or false")),
        }
    }

    /// `e` gave `v`, not the `what` it should have.
    #[cold]
    #[inline(never)]
    fn not_a<E: Ev + ?Sized>(&self, e: &E, v: &Value, what: &str) -> Box<Diag> {
        self.not_a_at(e.span(), e.origin(), v, what)
    }

    /// `not_a` for an expression written at `span`, whose value was made at `origin`.
    #[cold]
    #[inline(never)]
    pub(super) fn not_a_at(&self, span: Span, origin: Origin, v: &Value, what: &str) -> Box<Diag> {
        let d = rt(span, format!("expected {what}, found {}", v.type_name()));
        match self.origin(origin) {
            Some((at, text)) => Box::new(d.label(at, text)),
            None => d,
        }
    }

    #[cold]
    pub(super) fn not_while_displaying(&self, span: Span) -> Box<Diag> {
        Box::new(
            Diag::error("run::display_effect", "a `say` or a choice's labels cannot change the game")
                .label(span, "this would change the game")
                .help("text for showing is only worked out when something shows it; make the change in a statement of its own"),
        )
    }

    pub(super) fn set_origin(&mut self, slot: u32, span: Span) {
        let at = self.slot_at(slot);
        if let Some(o) = self.origins.get_mut(at) {
            *o = span;
        }
    }

    /// Where the value of an expression was made, when that is somewhere else: the `let` or
    /// `set` of a local, or the function that returned it.
    pub(super) fn origin(&self, o: Origin) -> Option<(Span, String)> {
        match o {
            Origin::Local(slot) => self
                .origins
                .get(self.slot_at(slot))
                .filter(|s| **s != Span::default())
                .map(|s| (*s, "the value was made here".to_string())),
            Origin::Call(f) => self
                .prog
                .fns
                .get(f as usize)
                .map(|fd| (fd.body.span, format!("returned by `{}`", fd.name))),
            Origin::Nowhere => None,
        }
    }

    #[cold]
    pub(super) fn with_origin<E: Ev + ?Sized>(&self, d: Box<Diag>, e: &E) -> Box<Diag> {
        match self.origin(e.origin()) {
            Some((span, text)) => Box::new(d.label(span, text)),
            None => d,
        }
    }

    pub fn zone_name(&self, slot: u32) -> String {
        self.view().zone_name(slot)
    }

    pub fn card_name(&self, c: u32) -> String {
        self.view().card_name(c)
    }

    /// A value as text, enum values by their names (as the observer, if any, may see it):
    /// for diagnostics and the REPL; text for people is `words`.
    pub fn show(&self, v: &Value) -> String {
        match self.observer {
            None => self.view().show(v),
            o => self.show_for(v, o),
        }
    }

    /// `words(v)` written at the end of `out`.
    pub fn words_append(&self, v: &Value, out: &mut String) {
        match self.observer {
            None => self.view().words_append(v, out),
            o => out.push_str(&self.words_for(v, o)),
        }
    }

    /// A value as people read it, for `say`, interpolation, prompts and labels: enum values in
    /// words (as the observer, if any, may see it).
    pub fn words(&self, v: &Value) -> String {
        match self.observer {
            None => self.view().words(v),
            o => self.words_for(v, o),
        }
    }

    /// A field read through a one-entry cache of (kind, slot): a site reads the same kind of
    /// card almost always, so the kind's slot table is looked up once. Reads exactly as
    /// `field` does (the same observer check, the same errors).
    #[inline(always)]
    pub(crate) fn field_cached(
        &self,
        c: u32,
        sym: Id,
        cache: &std::cell::Cell<FieldSlot>,
        span: Span,
    ) -> R<Value> {
        if let Some(v) = self.field_in_place(c, cache) {
            return Ok(v.clone());
        }
        self.field_uncached(c, sym, cache, span)
    }

    /// `field_cached` when the site's cache does not know this card's kind (or an observer
    /// reads): out of line, so a cached read calls nothing.
    #[inline(never)]
    fn field_uncached(
        &self,
        c: u32,
        sym: Id,
        cache: &std::cell::Cell<FieldSlot>,
        span: Span,
    ) -> R<Value> {
        // Not cached for this card's kind: remember where the field lies in it.
        let prog = self.prog;
        if let (None, Some(cd)) = (self.observer, prog.cards.get(c as usize)) {
            if let Some(Some((var, index))) = prog
                .kinds
                .get(cd.kind as usize)
                .and_then(|kd| kd.slot_of.get(sym as usize))
            {
                cache.set(FieldSlot {
                    kind: cd.kind,
                    var: *var,
                    index: *index,
                });
            }
        }
        self.field(c, sym, span)
    }

    /// A field's value in place, when there is no observer and the site's cache knows where it
    /// lies in this card's kind (else `None`: read it with `field_cached`).
    #[inline(always)]
    pub(crate) fn field_in_place(
        &self,
        c: u32,
        cache: &std::cell::Cell<FieldSlot>,
    ) -> Option<&Value> {
        if self.observer.is_some() {
            return None;
        }
        let cd = self.prog.cards.get(c as usize)?;
        let hit = cache.get();
        if hit.kind != cd.kind {
            return None;
        }
        if hit.var {
            let at = self
                .state
                .card_var_base
                .get(c as usize)?
                .checked_add(hit.index)?;
            self.state.card_vars.get(at as usize)
        } else {
            cd.fields.get(hit.index as usize)
        }
    }

    #[inline]
    pub fn field(&self, c: u32, sym: Id, span: Span) -> R<Value> {
        if self.observer.is_some() {
            self.peek(c, span)?;
        }
        let prog = self.prog;
        let Some(cd) = prog.cards.get(c as usize) else {
            return Err(rt(span, "this card does not exist"));
        };
        let kd = prog.kinds.get(cd.kind as usize);
        match kd.and_then(|kd| kd.slot_of.get(sym as usize).copied().flatten()) {
            Some((false, i)) => match cd.fields.get(i as usize) {
                Some(v) => Ok(v.clone()),
                None => Err(self.no_field(c, sym, span)),
            },
            Some((true, i)) => {
                let at = self
                    .state
                    .card_var_base
                    .get(c as usize)
                    .and_then(|b| b.checked_add(i));
                match at.and_then(|at| self.state.card_vars.get(at as usize)) {
                    Some(v) => Ok(v.clone()),
                    None => Err(self.no_field(c, sym, span)),
                }
            }
            None => Err(self.no_field(c, sym, span)),
        }
    }

    #[cold]
    #[inline(never)]
    fn no_field(&self, c: u32, sym: Id, span: Span) -> Box<Diag> {
        let prog = self.prog;
        let Some(cd) = prog.cards.get(c as usize) else {
            return rt(span, "this card does not exist");
        };
        let kind = prog
            .kinds
            .get(cd.kind as usize)
            .map_or("?", |k| k.name.as_str());
        let name = prog.symbols.get(sym as usize).map_or("?", |s| s.as_str());
        rt(
            span,
            format!("card `{}` ({kind}) has no field `{name}`", cd.id),
        )
    }
}

/// A field's place in one kind of card, as `Interp::field_cached` remembers it (`kind` is
/// `u32::MAX` while nothing is cached).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FieldSlot {
    pub kind: u32,
    pub var: bool,
    pub index: u32,
}

impl Default for FieldSlot {
    fn default() -> FieldSlot {
        FieldSlot {
            kind: u32::MAX,
            var: false,
            index: 0,
        }
    }
}

#[cold]
#[inline(never)]
fn not_a_list(v: &Value, span: Span) -> Box<Diag> {
    rt(span, format!("expected a list, found {}", v.type_name()))
}
