//! What an expression reads: its `Sec`, and the texts shown in it (a choice's prompt, labels,
//! notes).

use super::*;
use crate::builtins::Secrets;

impl<'a> Flow<'a> {
    /// The player an expression names, when it is one the analysis can follow.
    pub(super) fn term(&self, b: &Body, e: &Expr) -> Option<Term> {
        match &e.kind {
            ExprKind::Const(Value::Player(k)) => Some(Term::Player(*k)),
            ExprKind::Local(s) => b.slots.get(*s as usize).and_then(|s| s.term),
            _ => None,
        }
    }

    /// The sight of the player-keyed slot of `keys` (`owner`): that player's, or nobody's.
    pub(super) fn seat_of(
        &self,
        b: &Body,
        keys: &[KeyDomain],
        args: &[Expr],
        at: Span,
        var: bool,
    ) -> Sight {
        let t = keys
            .iter()
            .position(|k| *k == KeyDomain::Player)
            .and_then(|i| args.get(i))
            .and_then(|e| self.term(b, e));
        match t {
            Some(t) => Sight::one(Atom::Seat(t, var), at),
            None => Sight::one(Atom::Nobody(var), at),
        }
    }

    /// Who knows the cards of a zone: its visibility, and whether cards lie face down in it.
    pub(super) fn zone_cards(&self, b: &Body, id: Id, keys: &[Expr], at: Span) -> Sight {
        let Some(z) = self.prog.zones.get(id as usize) else {
            return Sight::one(Atom::Nobody(false), at);
        };
        match z.visibility {
            Visibility::Hidden => Sight::one(Atom::Nobody(false), at),
            Visibility::Owner => self.seat_of(b, &z.keys, keys, at, false),
            Visibility::Public if self.face_down.may(z.kind) => {
                self.seat_of(b, &z.keys, keys, at, false)
            }
            Visibility::Public => Sight::all(),
        }
    }

    /// What a var's or a zone's keys tell by the entry they pick: a number or an enum value
    /// does (`points[d]` tells `d`); a player does not (a player chosen from hidden cards still
    /// names a public seat, and an `owner` entry is judged by its player).
    pub(super) fn keys(&mut self, b: &mut Body, domains: &[KeyDomain], keys: &[Expr]) -> Sight {
        let mut s = Sight::all();
        for (i, k) in keys.iter().enumerate() {
            let v = self.expr(b, k);
            if domains.get(i) != Some(&KeyDomain::Player) {
                s.meet(&if b.observed { v.val } else { v.told() });
            }
        }
        s
    }

    pub(super) fn expr(&mut self, b: &mut Body, e: &Expr) -> Sec {
        let at = e.span;
        match &e.kind {
            ExprKind::Const(_)
            | ExprKind::ConstRef(_)
            | ExprKind::Option(_)
            | ExprKind::KindCards(_)
            | ExprKind::Special(_) => Sec::all(),
            ExprKind::Local(s) => {
                let sec = b
                    .slots
                    .get(*s as usize)
                    .map(|s| s.sec.clone())
                    .unwrap_or_default();
                if b.observed {
                    // A card is shown as the viewer knows it; its fields are read as them.
                    Sec {
                        val: sec.val,
                        cards: Sight::all(),
                    }
                } else {
                    sec
                }
            }
            ExprKind::Var(id, keys) => {
                let domains = self.prog.vars.get(*id as usize).map(|v| &v.keys[..]);
                let mut val = self.keys(b, domains.unwrap_or(&[]), keys);
                if b.observed {
                    return Sec {
                        val,
                        cards: Sight::all(),
                    };
                }
                let own = match self.prog.vars.get(*id as usize) {
                    Some(v) => match v.visibility {
                        Visibility::Public => Sight::all(),
                        Visibility::Owner => self.seat_of(b, &v.keys, keys, at, true),
                        Visibility::Hidden => Sight::one(Atom::Nobody(true), at),
                    },
                    None => Sight::one(Atom::Nobody(true), at),
                };
                val.meet(&own);
                // A card held in a var is known as the var is read.
                Sec {
                    cards: val.clone(),
                    val,
                }
            }
            ExprKind::Zone(id, keys) => {
                let domains = self.prog.zones.get(*id as usize).map(|z| &z.keys[..]);
                let val = self.keys(b, domains.unwrap_or(&[]), keys);
                let cards = if b.observed {
                    Sight::all()
                } else {
                    self.zone_cards(b, *id, keys, at)
                };
                Sec { val, cards }
            }
            ExprKind::Field(base, _) | ExprKind::CardBuiltinField(base, _) => {
                let s = self.expr(b, base);
                if b.observed {
                    return Sec {
                        val: s.val,
                        cards: Sight::all(),
                    };
                }
                let t = s.told();
                Sec {
                    val: t.clone(),
                    cards: t,
                }
            }
            ExprKind::TupleIndex(base, _) => self.expr(b, base),
            ExprKind::Index(l, i) => {
                // The element picked tells the index.
                let mut s = self.expr(b, l);
                let k = self.expr(b, i);
                s.val.meet(&if b.observed { k.val } else { k.told() });
                s
            }
            ExprKind::Table(_, k) => {
                let t = self.expr(b, k).told();
                Sec {
                    val: t.clone(),
                    cards: t,
                }
            }
            ExprKind::Call(f, args) => self.call(b, FnKey::Fn(*f), args, at, None),
            ExprKind::CallField(card, sym, args) => {
                let c = self.expr(b, card);
                let mut r = Sec::all();
                let keys: Vec<Id> = (0..self.prog.card_fns.len() as Id)
                    .filter(|&i| self.prog.card_fn_fields.get(i as usize) == Some(sym))
                    .collect();
                let told = c.told();
                for k in keys {
                    let s = self.call(b, FnKey::Card(k), args, at, Some(&told));
                    r.meet(&s);
                }
                r.val.meet(&told);
                r
            }
            ExprKind::Builtin(def, args) => self.builtin(b, def, args, at),
            ExprKind::Unary(_, x) => {
                let t = self.expr(b, x).told();
                Sec {
                    val: t,
                    cards: Sight::all(),
                }
            }
            ExprKind::Binary(op, l, r) => {
                let (x, y) = (self.expr(b, l), self.expr(b, r));
                if b.observed {
                    // A comparison of cards is checked as the viewer.
                    let mut v = x.val;
                    v.meet(&y.val);
                    return Sec {
                        val: v,
                        cards: Sight::all(),
                    };
                }
                let _ = op;
                let mut v = x.told();
                v.meet(&y.told());
                Sec {
                    val: v,
                    cards: Sight::all(),
                }
            }
            // The branch taken is not followed: only the values the branches give.
            ExprKind::If(c, then, els) => {
                self.expr(b, c);
                let mut r = self.block(b, then);
                if let Some(x) = els {
                    r.meet(&self.expr(b, x));
                }
                r
            }
            ExprKind::Match(scrut, arms) => {
                self.expr(b, scrut);
                let mut r = Sec::all();
                for (_, body) in arms {
                    r.meet(&self.expr(b, body));
                }
                r
            }
            ExprKind::Agg {
                kind,
                slot,
                source,
                filter,
                map,
            } => {
                let src = self.expr(b, source);
                let mark = b.bound.len();
                self.bind(b, *slot, src.clone(), site(at), None);
                let mut r = Sec {
                    val: src.val.clone(),
                    cards: src.cards.clone(),
                };
                let counted = matches!(
                    kind,
                    crate::ast::AggKind::Count
                        | crate::ast::AggKind::Any
                        | crate::ast::AggKind::All
                        | crate::ast::AggKind::Sum
                        | crate::ast::AggKind::Min
                        | crate::ast::AggKind::Max
                );
                if let Some(f) = filter {
                    // A count (or sum, ...) of what meets a condition is worked out from it; a
                    // selection (`filter`, `first`, ...) is a branch taken, not followed.
                    let s = self.expr(b, f).told();
                    if counted {
                        r.val.meet(&s);
                    }
                }
                if let Some(m) = map {
                    let s = self.expr(b, m);
                    match kind {
                        crate::ast::AggKind::Map | crate::ast::AggKind::FlatMap => {
                            r.val.meet(&s.val);
                            r.cards = src.val.clone();
                            r.cards.meet(&s.cards);
                        }
                        _ if counted => r.val.meet(&s.told()),
                        // `best` and `sort` select and order by it: not followed.
                        _ => {}
                    }
                }
                if counted {
                    r.cards = Sight::all();
                }
                self.leave(b, mark, r)
            }
            ExprKind::List(items) | ExprKind::Tuple(items) => {
                let mut r = Sec::all();
                for x in items {
                    r.meet(&self.expr(b, x));
                }
                r
            }
            ExprKind::Text(parts) => {
                let mut v = Sight::all();
                for p in parts {
                    if let TextPart::Expr(x) = p {
                        let s = self.expr(b, x);
                        // A card written into a text is named (in a `say`, as the viewer knows it).
                        if b.observed {
                            v.meet(&s.val);
                        } else {
                            v.meet(&s.told());
                        }
                    }
                }
                Sec {
                    val: v,
                    cards: Sight::all(),
                }
            }
            ExprKind::Block(bl) => self.block(b, bl),
            ExprKind::InBounds(x, _, _) => {
                let t = self.expr(b, x).told();
                Sec {
                    val: t,
                    cards: Sight::all(),
                }
            }
        }
    }

    pub(super) fn call(
        &mut self,
        b: &mut Body,
        key: FnKey,
        args: &[Expr],
        at: Span,
        card: Option<&Sight>,
    ) -> Sec {
        let secs: Vec<Sec> = args.iter().map(|a| self.expr(b, a)).collect();
        if b.observed {
            // Worked out as the viewer: only what the arguments carry in.
            let mut v = Sight::all();
            for s in &secs {
                v.meet(&s.val);
            }
            return Sec {
                val: v,
                cards: Sight::all(),
            };
        }
        let terms: Vec<Option<Term>> = args.iter().map(|a| self.term(b, a)).collect();
        let sum = self.summary(key, b.secret);
        let mut subst = |a: Atom, sp: Span| -> Sight {
            match a {
                Atom::ArgVal(i) => secs
                    .get(i as usize)
                    .map(|s| s.val.clone())
                    .unwrap_or_default(),
                Atom::ArgCards(i) => secs
                    .get(i as usize)
                    .map(|s| s.cards.clone())
                    .unwrap_or_default(),
                Atom::Seat(Term::Param(i), v) => match terms.get(i as usize).copied().flatten() {
                    Some(t) => Sight::one(Atom::Seat(t, v), sp),
                    None => Sight::one(Atom::Nobody(v), sp),
                },
                a => Sight::one(a, sp),
            }
        };
        let mut r = sum.ret.map(&mut subst);
        if let Some(c) = card {
            r.val.meet(c);
        }
        for ob in &sum.obs {
            let sight = ob.sight.map(&mut subst);
            let viewers = match ob.viewers {
                Viewers::One(Some(Term::Param(i))) => {
                    Viewers::One(terms.get(i as usize).copied().flatten())
                }
                v => v,
            };
            self.sink(b, ob.sink, ob.at, viewers, sight);
        }
        let _ = at;
        r
    }

    pub(super) fn builtin(
        &mut self,
        b: &mut Body,
        def: &BuiltinDef,
        args: &[Expr],
        at: Span,
    ) -> Sec {
        if def.effect == Effect::Choice {
            return self.choice(b, def, args, at);
        }
        let secs: Vec<Sec> = args.iter().map(|a| self.expr(b, a)).collect();
        let mut val = Sight::all();
        let mut cards = Sight::all();
        for s in &secs {
            val.meet(&s.val);
            cards.meet(&s.cards);
        }
        if b.observed {
            return Sec {
                val,
                cards: Sight::all(),
            };
        }
        // As the builtin's declaration says (`builtins::Secrets`).
        match def.secrets {
            Secrets::Passes => Sec { val, cards },
            Secrets::Counts => Sec {
                val,
                cards: Sight::all(),
            },
            Secrets::Reads => {
                val.meet(&cards);
                Sec { val, cards }
            }
        }
    }

    pub(super) fn choice(
        &mut self,
        b: &mut Body,
        def: &BuiltinDef,
        args: &[Expr],
        at: Span,
    ) -> Sec {
        let chooser = args.first().and_then(|p| self.term(b, p));
        let secs: Vec<Sec> = args.iter().map(|a| self.expr(b, a)).collect();
        let shown = if b.secret {
            Viewers::One(chooser)
        } else {
            Viewers::Everyone
        };
        let labels = crate::builtins::labels_arg(def);
        for (i, s) in secs.iter().enumerate() {
            if !def.shown_only.contains(&i) {
                continue;
            }
            let (sink, viewers) = if Some(i) == labels {
                // `allocate`'s labels are written into each prompt.
                (Sink::Label, shown)
            } else if def.name == "choose" && i == 4 {
                (Sink::Note, Viewers::One(chooser))
            } else {
                (Sink::Prompt, shown)
            };
            let at = args.get(i).map(|a| a.span).unwrap_or(at);
            self.sink(b, sink, at, viewers, s.val.clone());
        }
        // `allocate` without labels writes each category into its prompt as it reads.
        if def.name == "allocate" && labels.is_some_and(|l| args.len() <= l) {
            if let (Some(c), Some(a)) = (secs.get(2), args.get(2)) {
                self.sink(b, Sink::Label, a.span, shown, c.told());
            }
        }
        let opts = secs.get(1).cloned().unwrap_or_default();
        let mut r = match def.name {
            "choose" | "choose_many" => Sec {
                val: opts.val,
                cards: opts.cards,
            },
            _ => Sec::all(),
        };
        if b.secret {
            // An answer is the rules' to tell once every answer is in: not a var's declared secret.
            let seat = match chooser {
                Some(t) => Sight::one(Atom::Seat(t, false), at),
                None => Sight::one(Atom::Nobody(false), at),
            };
            r.val.meet(&seat);
            r.val.meet(&Sight::one(Atom::Answer, at));
        }
        r
    }
}
