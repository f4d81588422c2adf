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
    /// Also what selected the keys (`Sec::sel`).
    pub(super) fn keys(
        &mut self,
        b: &mut Body,
        domains: &[KeyDomain],
        keys: &[Expr],
    ) -> (Sight, Sight) {
        let mut s = Sight::all();
        let mut sel = Sight::all();
        for (i, k) in keys.iter().enumerate() {
            let v = self.expr(b, k);
            sel.meet(&v.sel);
            if domains.get(i) != Some(&KeyDomain::Player) {
                s.meet(&if b.observed { v.val } else { v.told() });
            }
        }
        (s, sel)
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
                        sel: sec.sel,
                    }
                } else {
                    sec
                }
            }
            ExprKind::Var(id, keys) => {
                let domains = self.prog.vars.get(*id as usize).map(|v| &v.keys[..]);
                let (mut val, sel) = self.keys(b, domains.unwrap_or(&[]), keys);
                if b.observed {
                    return Sec {
                        val,
                        cards: Sight::all(),
                        sel,
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
                let mut sel = sel;
                sel.meet(&val);
                // A card held in a var is known as the var is read.
                Sec {
                    cards: val.clone(),
                    val,
                    sel,
                }
            }
            ExprKind::Zone(id, keys) => {
                let domains = self.prog.zones.get(*id as usize).map(|z| &z.keys[..]);
                let (val, mut sel) = self.keys(b, domains.unwrap_or(&[]), keys);
                let cards = if b.observed {
                    Sight::all()
                } else {
                    self.zone_cards(b, *id, keys, at)
                };
                // How many cards a zone holds is public: which zone it is, not.
                sel.meet(&val);
                Sec { val, cards, sel }
            }
            ExprKind::Field(base, _) | ExprKind::CardBuiltinField(base, _) => {
                let s = self.expr(b, base);
                if b.observed {
                    return Sec {
                        val: s.val,
                        cards: Sight::all(),
                        sel: s.sel,
                    };
                }
                let t = s.told();
                let mut sel = s.sel;
                sel.meet(&t);
                Sec {
                    val: t.clone(),
                    cards: t,
                    sel,
                }
            }
            ExprKind::TupleIndex(base, _) => self.expr(b, base),
            ExprKind::Index(l, i) => {
                // The element picked tells the index.
                let mut s = self.expr(b, l);
                let k = self.expr(b, i);
                s.sel.meet(&k.sel);
                s.val.meet(&if b.observed { k.val } else { k.told() });
                s.sel.meet(&s.val);
                s
            }
            ExprKind::Table(_, k) => {
                let k = self.expr(b, k);
                let t = k.told();
                let mut sel = k.sel;
                sel.meet(&t);
                Sec {
                    val: t.clone(),
                    cards: t,
                    sel,
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
                r.sel.meet(&c.sel);
                r.sel.meet(&told);
                r
            }
            ExprKind::Builtin(def, args) => self.builtin(b, def, args, at),
            ExprKind::Unary(_, x) => {
                let x = self.expr(b, x);
                Sec {
                    val: x.told(),
                    cards: Sight::all(),
                    sel: x.sel,
                }
            }
            ExprKind::Binary(op, l, r) => {
                let x = self.expr(b, l);
                // The right side of `and` and `or` is worked out only as the left side says.
                let y = if matches!(op, crate::ast::BinOp::And | crate::ast::BinOp::Or) {
                    let mark = b.enter(x.decides());
                    let y = self.expr(b, r);
                    b.leave(mark);
                    y
                } else {
                    self.expr(b, r)
                };
                let mut sel = x.sel.clone();
                sel.meet(&y.sel);
                if b.observed {
                    // A comparison of cards is checked as the viewer.
                    let mut v = x.val;
                    v.meet(&y.val);
                    return Sec {
                        val: v,
                        cards: Sight::all(),
                        sel,
                    };
                }
                // Whether a value is `none` is not which card it is: it is what selected it
                // (`first(c in hand where ...)` is none as nothing there meets the condition).
                let none = |e: &Expr| matches!(e.kind, ExprKind::Const(Value::None));
                let is_none = matches!(op, crate::ast::BinOp::Eq | crate::ast::BinOp::Ne)
                    && (none(l) || none(r));
                let read = |s: Sec| {
                    if is_none {
                        let mut t = s.val;
                        t.meet(&s.sel);
                        t
                    } else {
                        s.told()
                    }
                };
                let mut v = read(x);
                v.meet(&read(y));
                Sec {
                    val: v,
                    cards: Sight::all(),
                    sel,
                }
            }
            // The branch taken is not followed: only the values the branches give. What runs in
            // a branch runs as the condition says (`Body::pc`).
            ExprKind::If(c, then, els) => {
                let c = self.expr(b, c).decides();
                let mark = b.enter(c);
                let n = if els.is_some() { 2 } else { 1 };
                let r = self.branches(b, n, els.is_none(), |me, b, i| match (i, els) {
                    (0, _) => me.block(b, then),
                    (_, Some(x)) => me.expr(b, x),
                    _ => Sec::all(),
                });
                b.leave(mark);
                r
            }
            ExprKind::Match(scrut, arms) => {
                let c = self.expr(b, scrut).decides();
                let mark = b.enter(c);
                // A match with no arm taken gives `none`: as if with an arm that does nothing.
                let r = self.branches(b, arms.len(), true, |me, b, i| match arms.get(i) {
                    Some((_, body)) => me.expr(b, body),
                    None => Sec::all(),
                });
                b.leave(mark);
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
                let mut r = src.clone();
                // The condition and the value are worked out once per element.
                let before = b.enter(src.emptiness());
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
                    // selection (`filter`, `first`, ...) is a branch taken, not followed, but
                    // what is left tells it by its length (`Sec::sel`).
                    let f = self.expr(b, f);
                    let s = f.told();
                    r.sel.meet(&f.decides());
                    b.enter(r.sel.clone());
                    if counted {
                        r.val.meet(&s);
                    }
                }
                if let Some(m) = map {
                    let s = self.expr(b, m);
                    match kind {
                        // The lists joined are as long as they are.
                        crate::ast::AggKind::FlatMap => {
                            r.sel.meet(&s.val);
                            r.sel.meet(&s.sel);
                        }
                        // The element picked is the best by it.
                        crate::ast::AggKind::Best => r.sel.meet(&s.decides()),
                        // A list made of values is as long as its source.
                        _ => {}
                    }
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
                b.leave(before);
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
                let mut sel = Sight::all();
                for p in parts {
                    if let TextPart::Expr(x) = p {
                        let s = self.expr(b, x);
                        sel.meet(&s.sel);
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
                    sel,
                }
            }
            ExprKind::Block(bl) => self.block(b, bl),
            ExprKind::InBounds(x, _, _) => {
                let x = self.expr(b, x);
                Sec {
                    val: x.told(),
                    cards: Sight::all(),
                    sel: x.sel,
                }
            }
        }
    }

    /// `n` branches, one of which runs (`or_none`: or none of them): each walked from what was
    /// known of the locals' cards before them; after, each local's cards are known as every
    /// way through says. The meet of the values they give.
    pub(super) fn branches(
        &mut self,
        b: &mut Body,
        n: usize,
        or_none: bool,
        mut arm: impl FnMut(&mut Self, &mut Body, usize) -> Sec,
    ) -> Sec {
        let mark = b.undo.len();
        let mut r = Sec::all();
        // Each local some branch made known: its cards and what selected it, as each branch
        // left them.
        type Left = (usize, Sight, Sight);
        let mut ends: Vec<(u32, Vec<Left>)> = Vec::new();
        let mut logs: Vec<(u32, Sight, Sight)> = Vec::new();
        for i in 0..n {
            r.meet(&arm(self, b, i));
            if b.undo.len() <= mark {
                continue;
            }
            let log: Vec<(u32, Sight, Sight)> = b.undo.split_off(mark);
            for (slot, cards, sel) in log.iter().rev() {
                if let Some(x) = b.slots.get_mut(*slot as usize) {
                    let c = std::mem::replace(&mut x.sec.cards, cards.clone());
                    let s = std::mem::replace(&mut x.sec.sel, sel.clone());
                    // The first met going back is where this branch left it.
                    match ends.iter_mut().find(|e| e.0 == *slot) {
                        Some(e) => {
                            if e.1.last().map(|x| x.0) != Some(i) {
                                e.1.push((i, c, s));
                            }
                        }
                        None => ends.push((*slot, vec![(i, c, s)])),
                    }
                }
            }
            logs.extend(log);
        }
        for (slot, seen) in ends {
            if let Some(x) = b.slots.get_mut(slot as usize) {
                // A branch that left it alone (or none taken) keeps what was known before.
                if seen.len() == n && !or_none {
                    x.sec.cards = Sight::all();
                    x.sec.sel = Sight::all();
                }
                for (_, c, s) in &seen {
                    x.sec.cards.meet(c);
                    x.sec.sel.meet(s);
                }
            }
        }
        // An `if` around this one starts its other branches from before both.
        b.undo.extend(logs);
        r
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
            let mut sel = Sight::all();
            for s in &secs {
                v.meet(&s.val);
                sel.meet(&s.sel);
            }
            return Sec {
                val: v,
                cards: Sight::all(),
                sel,
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
                Atom::ArgSel(i) => secs
                    .get(i as usize)
                    .map(|s| s.sel.clone())
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
        // Whether the body asks a choice: as its own conditions say, with the arguments given,
        // and as this call runs (one diagnostic at the call, however many it asks).
        let mut asks: Option<Sight> = None;
        for ob in &sum.obs {
            let sight = ob.sight.map(&mut subst);
            if ob.sink == Sink::Asked {
                asks.get_or_insert_with(Sight::all).meet(&sight);
                continue;
            }
            let viewers = match ob.viewers {
                Viewers::One(Some(Term::Param(i))) => {
                    Viewers::One(terms.get(i as usize).copied().flatten())
                }
                v => v,
            };
            if matches!(ob.sink, Sink::Stored(_) | Sink::StoredField(_)) {
                // A write the callee makes is made as this call runs: warned at the call (the
                // write named), as a choice asked inside is.
                let mut s = sight;
                s.meet(&b.runs());
                self.sink(b, ob.sink, at, viewers, s);
                if let Some(f) = self
                    .found
                    .iter_mut()
                    .find(|f| f.at == at && f.sink == ob.sink && f.who.is_none())
                {
                    f.who = Some(ob.at);
                }
                continue;
            }
            self.sink(b, ob.sink, ob.at, viewers, sight);
        }
        // The cards it shows before asking are known to everyone when it asks.
        for &i in &sum.shows {
            if let Some(s) = secs.get(i as usize) {
                b.shown(&s.cards);
                b.shown(&s.sel);
            }
        }
        if let Some(mut s) = asks {
            s.meet(&b.runs());
            self.asked(b, at, None, s);
        }
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
        let mut sel = Sight::all();
        for s in &secs {
            val.meet(&s.val);
            cards.meet(&s.cards);
            sel.meet(&s.sel);
        }
        if b.observed {
            return Sec {
                val,
                cards: Sight::all(),
                sel,
            };
        }
        // As the builtin's declaration says (`builtins::Secrets`).
        if def.secrets == Secrets::Reads {
            val.meet(&cards);
        }
        // A list in another order, or without its repeats, is empty as its argument is; any
        // other result depends on all it reads.
        if !matches!(
            def.name,
            "distinct" | "shuffled" | "reverse" | "sort" | "rotate"
        ) {
            sel.meet(&val);
        }
        match def.secrets {
            Secrets::Counts => Sec {
                val,
                cards: Sight::all(),
                sel,
            },
            _ => Sec { val, cards, sel },
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
        // Asked as the code around it runs, and only when there is something to choose (an
        // empty list asks nobody; `allocate` asks from the second category on).
        let mut runs = b.runs();
        let list = match def.name {
            "choose" | "choose_many" => Some(1),
            "allocate" => Some(2),
            _ => None,
        };
        if let Some(i) = list {
            if let (Some(e), Some(s)) = (args.get(i), secs.get(i)) {
                if !self.known_nonempty(b, e) || def.name == "allocate" {
                    runs.meet(&s.emptiness());
                }
            }
        }
        if def.name == "choose_many" {
            if let Some(k) = secs.get(2) {
                runs.meet(&k.decides());
            }
        }
        self.asked(b, at, args.first().map(|p| p.span), runs);
        let opts = secs.get(1).cloned().unwrap_or_default();
        // The answer is one of the options; what selected them decided whether it was asked
        // (warned above, once), not which it is.
        let mut r = match def.name {
            "choose" => Sec {
                val: opts.val,
                cards: opts.cards,
                sel: Sight::all(),
            },
            // As many as asked for.
            "choose_many" => Sec {
                val: opts.val,
                cards: opts.cards,
                sel: secs.get(2).map(|k| k.decides()).unwrap_or_default(),
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
