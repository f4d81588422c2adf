//! Secrets in text: a choice's prompt, labels and notes, and a `say` line, must not show a value
//! to a player who may not read it; an answer given inside `secretly` must not be written where
//! others read it.
//!
//! Who may read a value is worked out on the lowered tree, as a set of atoms whose readers all
//! must allow (`Sight`): `Nobody` (a `hidden` var, a card in a `hidden` zone), `Seat(t)` (an
//! `owner` var or zone keyed by the player `t`: a player written out, a function's parameter, or
//! a local bound at one place), and, inside a function, the sight of an argument (`ArgVal`,
//! `ArgCards`), substituted at each call. A value carries two sights: its own (`val`) and the
//! cards it holds (`cards`), for a card's identity is shown as the viewer knows it (`a hidden
//! card`) wherever a value is shown as parts, but its fields, a comparison of it, and its name
//! written into a text tell which card it is.
//!
//! The flow is explicit: through `let`s, a local changed with `set` (which keeps the meet of all
//! it was given, and no player's local: the loop may rebind it), operators, aggregates,
//! builtins, function calls (each function summarised once per mode, its result and the texts
//! it shows that depend on its arguments, to a fixed point), a card's code, and a game's own
//! events. A branch taken is not followed (a line said only when a hidden value is high).
//!
//! What each text's viewers are: a choice's prompt and its chosen label go to every player and
//! spectator, unless the choice is inside `secretly` (then to the chooser alone); its notes, to
//! the chooser alone. A `say` line is worked out again as each viewer (`interp/visibility.rs`), so
//! a var or a card's field read in its braces shows `(hidden)`: only a value worked out before
//! (a local) can carry a secret into it, which is a warning (`check::hidden_said`), as the rules
//! may mean to announce it. A `screen` line is worked out as its seat and is never flagged.

use super::*;
use crate::ast::{EventKind, Visibility};
use crate::builtins::{BuiltinDef, Effect};
use crate::diag::{Diag, Span};
use crate::program::*;
use crate::value::Value;

/// A player a value names, as the rules write it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Term {
    /// `P1`, 0-based.
    Player(u32),
    /// A parameter of the function being summarised.
    Param(u32),
    /// A local: its slot and the place it is bound (a slot is reused by another scope).
    Local(u32, u64),
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Atom {
    /// Known to no player the analysis can name. `true`: a var's declared visibility; `false`:
    /// what is known of a card, or an answer given in secret, which the rules may tell later.
    Nobody(bool),
    Seat(Term, bool),
    ArgVal(u32),
    ArgCards(u32),
    /// Made of an answer given inside `secretly`.
    Answer,
}

/// Who may read a value: those every atom allows (no atom: everyone), each atom with the place
/// of the read it came from. Sorted by atom, each once.
#[derive(Clone, Default, Debug)]
struct Sight(Vec<(Atom, Span)>);

/// The most atoms a sight keeps; past it, its seats become `Nobody`.
const MAX_ATOMS: usize = 12;

impl Sight {
    fn one(a: Atom, at: Span) -> Sight {
        Sight(vec![(a, at)])
    }
    fn all() -> Sight {
        Sight(Vec::new())
    }
    fn atoms_eq(&self, o: &Sight) -> bool {
        self.0.len() == o.0.len() && self.0.iter().zip(&o.0).all(|(a, b)| a.0 == b.0)
    }
    fn has(&self, a: Atom) -> bool {
        self.0.iter().any(|x| x.0 == a)
    }
    fn meet(&mut self, o: &Sight) {
        for &(a, at) in &o.0 {
            match self.0.binary_search_by(|x| x.0.cmp(&a)) {
                Ok(_) => {}
                Err(i) => self.0.insert(i, (a, at)),
            }
        }
        self.normalize();
    }
    /// A `Nobody` makes the seats of its kind (and the card seats, for a var's) redundant;
    /// past `MAX_ATOMS`, the seats become `Nobody`.
    fn normalize(&mut self) {
        let var = self.0.iter().any(|x| x.0 == Atom::Nobody(true));
        let card = self.0.iter().any(|x| x.0 == Atom::Nobody(false));
        if var {
            self.0
                .retain(|x| !matches!(x.0, Atom::Seat(..) | Atom::Nobody(false)));
        } else if card {
            self.0.retain(|x| !matches!(x.0, Atom::Seat(_, false)));
        }
        if self.0.len() > MAX_ATOMS {
            let seat = self
                .0
                .iter()
                .find(|x| matches!(x.0, Atom::Seat(..)))
                .map(|x| (x.1, matches!(x.0, Atom::Seat(_, true))));
            if let Some((at, v)) = seat {
                self.0.retain(|x| !matches!(x.0, Atom::Seat(..)));
                let mut n = Sight::one(Atom::Nobody(v), at);
                std::mem::swap(self, &mut n);
                self.meet(&n);
            }
        }
    }
    /// Every atom of `f` mapped (seats of locals bound in a scope left, parameters at a call).
    fn map(&self, f: &mut impl FnMut(Atom, Span) -> Sight) -> Sight {
        let mut out = Sight::all();
        for &(a, at) in &self.0 {
            out.meet(&f(a, at));
        }
        out
    }
}

#[derive(Clone, Default, Debug)]
struct Sec {
    val: Sight,
    cards: Sight,
}

impl Sec {
    fn all() -> Sec {
        Sec::default()
    }
    fn meet(&mut self, o: &Sec) {
        self.val.meet(&o.val);
        self.cards.meet(&o.cards);
    }
    /// The value with its cards' identities folded in (a text naming them, a comparison).
    fn told(&self) -> Sight {
        let mut s = self.val.clone();
        s.meet(&self.cards);
        s
    }
    fn map(&self, f: &mut impl FnMut(Atom, Span) -> Sight) -> Sec {
        Sec {
            val: self.val.map(f),
            cards: self.cards.map(f),
        }
    }
    fn atoms_eq(&self, o: &Sec) -> bool {
        self.val.atoms_eq(&o.val) && self.cards.atoms_eq(&o.cards)
    }
}

/// Who sees a text: everybody, or one player (`None`: a player the analysis cannot name).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Viewers {
    Everyone,
    One(Option<Term>),
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Sink {
    Prompt,
    Label,
    Note,
    Say,
    /// A part of a `face`, printed on the card for everybody.
    Face,
    /// A var written inside `secretly`.
    Write(Id),
}

/// A text shown (or a var written) whose sight depends on the arguments of the function it is
/// in: checked at each call, with the arguments' sights.
#[derive(Clone, Debug)]
struct Ob {
    sink: Sink,
    at: Span,
    viewers: Viewers,
    sight: Sight,
}

#[derive(Clone, Default, Debug)]
struct Summary {
    ret: Sec,
    obs: Vec<Ob>,
}

impl Summary {
    fn same(&self, o: &Summary) -> bool {
        self.ret.atoms_eq(&o.ret)
            && self.obs.len() == o.obs.len()
            && self
                .obs
                .iter()
                .zip(&o.obs)
                .all(|(a, b)| a.at == b.at && a.sight.atoms_eq(&b.sight))
    }
}

/// A leak found: the text (or write), who sees it, the read that is hidden from them.
struct Found {
    sink: Sink,
    at: Span,
    viewers: Viewers,
    read: Span,
    nobody: bool,
    /// What is hidden is a var's value (or a secret answer), not what is known of a card.
    var: bool,
}

/// One local slot: what it holds, where it was bound, the player it names, whether `set` ever
/// changes it in its body.
#[derive(Clone, Default)]
struct Slot {
    sec: Sec,
    /// Where it was bound (`site`).
    site: u64,
    term: Option<Term>,
}

/// A place a local is bound, unique in the game: its file and offset.
fn site(at: Span) -> u64 {
    (u64::from(at.file) << 32) | u64::from(at.start)
}

/// The walk of one body.
struct Body {
    slots: Vec<Slot>,
    /// Bindings made in the scopes open now, innermost last.
    bound: Vec<(u32, u64)>,
    /// Inside `secretly`.
    secret: bool,
    /// A function's body: obligations that depend on its arguments are kept.
    summary: Option<Summary>,
    /// A `say` line (or a screen line): reads of vars and fields are worked out as the viewer.
    observed: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum FnKey {
    Fn(Id),
    Card(Id),
    /// A trigger of a game's own event: `emit` calls it with the event's arguments.
    Trigger(Id),
}

struct Flow<'a> {
    prog: &'a Program,
    /// Per function and mode (normal, secret): its summary, once asked for.
    fns: std::collections::BTreeMap<(FnKey, bool), Summary>,
    changed: bool,
    report: bool,
    found: Vec<Found>,
    /// The kinds whose cards can lie face down (in a public zone, only its player knows them).
    face_down: FaceDown,
    /// The bindings of locals that a `set` changes (slot, site): they name no player.
    mutable: std::collections::BTreeSet<(u32, u64)>,
}

impl<'a> Flow<'a> {
    fn summary(&mut self, key: FnKey, secret: bool) -> Summary {
        if let Some(s) = self.fns.get(&(key, secret)) {
            return s.clone();
        }
        self.fns.insert((key, secret), Summary::default());
        self.changed = true;
        Summary::default()
    }

    /// A summarised body: its parameters' slots, its locals, its code.
    fn callee(&self, key: FnKey) -> Option<(Vec<u32>, u32, Callee<'a>)> {
        let prog = self.prog;
        match key {
            FnKey::Fn(f) | FnKey::Card(f) => {
                let f = match key {
                    FnKey::Fn(_) => prog.fns.get(f as usize)?,
                    _ => prog.card_fns.get(f as usize)?,
                };
                let n = f.params.len() as u32;
                Some((
                    (0..n).collect(),
                    f.locals.max(n),
                    Callee::Expr(&f.body, f.span),
                ))
            }
            FnKey::Trigger(t) => {
                let t = prog.triggers.get(t as usize)?;
                let slots = t.binds.iter().map(|b| b.unwrap_or(u32::MAX)).collect();
                Some((slots, t.locals, Callee::Trigger(t)))
            }
        }
    }

    /// Work out a body's summary again.
    fn summarise(&mut self, key: FnKey, secret: bool) {
        let Some((params, locals, code)) = self.callee(key) else {
            return;
        };
        let span = match code {
            Callee::Expr(_, sp) => sp,
            Callee::Trigger(t) => t.span,
        };
        let mut b = self.body(locals, secret, Some(Summary::default()));
        for (i, &slot) in params.iter().enumerate() {
            let at = site(span);
            let mutable = self.mutable.contains(&(slot, at));
            if let Some(s) = b.slots.get_mut(slot as usize) {
                s.site = at;
                s.sec = Sec {
                    val: Sight::one(Atom::ArgVal(i as u32), span),
                    cards: Sight::one(Atom::ArgCards(i as u32), span),
                };
                s.term = (!mutable).then_some(Term::Param(i as u32));
            }
        }
        let r = match code {
            Callee::Expr(e, _) => self.expr(&mut b, e),
            Callee::Trigger(t) => {
                if let Some(c) = &t.condition {
                    self.expr(&mut b, c);
                }
                self.block(&mut b, &t.body);
                Sec::all()
            }
        };
        let mut sum = b.summary.take().unwrap_or_default();
        sum.ret.meet(&r);
        sum.ret = sum.ret.map(&mut |a, at| match a {
            Atom::Seat(Term::Local(..), v) => Sight::one(Atom::Nobody(v), at),
            a => Sight::one(a, at),
        });
        let old = self.fns.get(&(key, secret));
        if !old.is_some_and(|o| o.same(&sum)) {
            self.changed = true;
            self.fns.insert((key, secret), sum);
        }
    }

    fn body(&self, locals: u32, secret: bool, summary: Option<Summary>) -> Body {
        Body {
            slots: vec![Slot::default(); locals as usize],
            bound: Vec::new(),
            secret,
            summary,
            observed: false,
        }
    }

    fn bind(&self, b: &mut Body, slot: u32, sec: Sec, site: u64, term: Option<Term>) {
        let mutable = self.mutable.contains(&(slot, site));
        if let Some(s) = b.slots.get_mut(slot as usize) {
            *s = Slot {
                sec,
                site,
                term: if mutable {
                    None
                } else {
                    Some(term.unwrap_or(Term::Local(slot, site)))
                },
            };
        }
        b.bound.push((slot, site));
    }

    /// Leave the scopes opened since `mark`: the seats of locals bound there become `Nobody`
    /// in `v`, which outlives them.
    fn leave(&self, b: &mut Body, mark: usize, v: Sec) -> Sec {
        if b.bound.len() <= mark {
            return v;
        }
        let gone: Vec<(u32, u64)> = b.bound.split_off(mark);
        v.map(&mut |a, at| match a {
            Atom::Seat(Term::Local(s, site), v) if gone.contains(&(s, site)) => {
                Sight::one(Atom::Nobody(v), at)
            }
            a => Sight::one(a, at),
        })
    }

    /// The player an expression names, when it is one the analysis can follow.
    fn term(&self, b: &Body, e: &Expr) -> Option<Term> {
        match &e.kind {
            ExprKind::Const(Value::Player(k)) => Some(Term::Player(*k)),
            ExprKind::Local(s) => b.slots.get(*s as usize).and_then(|s| s.term),
            _ => None,
        }
    }

    /// The sight of the player-keyed slot of `keys` (`owner`): that player's, or nobody's.
    fn seat_of(&self, b: &Body, keys: &[KeyDomain], args: &[Expr], at: Span, var: bool) -> Sight {
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
    fn zone_cards(&self, b: &Body, id: Id, keys: &[Expr], at: Span) -> Sight {
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

    /// A var's or a zone's keys: walked (a choice may stand there), but which entry is read is a
    /// selection, not followed (a player chosen from hidden cards still names a public seat).
    fn keys(&mut self, b: &mut Body, keys: &[Expr]) -> Sight {
        for k in keys {
            self.expr(b, k);
        }
        Sight::all()
    }

    fn expr(&mut self, b: &mut Body, e: &Expr) -> Sec {
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
                let mut val = self.keys(b, keys);
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
                let val = self.keys(b, keys);
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
                let s = self.expr(b, l);
                self.expr(b, i);
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

    fn block(&mut self, b: &mut Body, bl: &Block) -> Sec {
        let mark = b.bound.len();
        let mut last = Sec::all();
        for s in &bl.stmts {
            last = self.stmt(b, s);
        }
        self.leave(b, mark, last)
    }

    fn call(
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

    /// A text shown to `viewers` (or a var they read written): report what they may not read,
    /// keep what depends on the arguments.
    fn sink(&mut self, b: &mut Body, sink: Sink, at: Span, viewers: Viewers, sight: Sight) {
        if matches!(sink, Sink::Write(_)) && !sight.has(Atom::Answer) && !has_args(&sight) {
            return;
        }
        if self.report && (!matches!(sink, Sink::Write(_)) || sight.has(Atom::Answer)) {
            for &(a, read) in &sight.0 {
                let (hidden, var) = match a {
                    Atom::Nobody(v) => (true, v),
                    Atom::Seat(t, v) => (viewers != Viewers::One(Some(t)), v),
                    _ => (false, false),
                };
                if !hidden {
                    continue;
                }
                match self.found.iter_mut().find(|f| f.at == at) {
                    // A var read outweighs a card's for the report.
                    Some(f) if var && !f.var => {
                        f.read = read;
                        f.var = true;
                        f.nobody = matches!(a, Atom::Nobody(_));
                    }
                    Some(_) => {}
                    None => self.found.push(Found {
                        sink,
                        at,
                        viewers,
                        read,
                        nobody: matches!(a, Atom::Nobody(_)),
                        var,
                    }),
                }
            }
        }
        if has_args(&sight) {
            if let Some(sum) = b.summary.as_mut() {
                let keep = Sight(
                    sight
                        .0
                        .iter()
                        .filter(|x| {
                            matches!(x.0, Atom::ArgVal(_) | Atom::ArgCards(_) | Atom::Answer)
                        })
                        .copied()
                        .collect(),
                );
                let viewers = match viewers {
                    Viewers::One(Some(Term::Local(..))) => Viewers::One(None),
                    v => v,
                };
                match sum.obs.iter_mut().find(|o| o.at == at && o.sink == sink) {
                    Some(o) => o.sight.meet(&keep),
                    None => sum.obs.push(Ob {
                        sink,
                        at,
                        viewers,
                        sight: keep,
                    }),
                }
            }
        }
    }

    fn builtin(&mut self, b: &mut Body, def: &BuiltinDef, args: &[Expr], at: Span) -> Sec {
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
        match def.name {
            // The values themselves, reordered or cut: cards stay cards.
            "top" | "reverse" | "concat" | "flatten" | "rotate" | "take" | "drop" | "shuffled"
            | "pick_random" | "lookup" => Sec { val, cards },
            // How many: counts are public.
            "len" => Sec {
                val,
                cards: Sight::all(),
            },
            // Anything else may compare, name or place the cards it is given.
            _ => {
                val.meet(&cards);
                Sec { val, cards }
            }
        }
    }

    fn choice(&mut self, b: &mut Body, def: &BuiltinDef, args: &[Expr], at: Span) -> Sec {
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

    fn stmt(&mut self, b: &mut Body, s: &Stmt) -> Sec {
        let at = s.span;
        match &s.kind {
            StmtKind::Let(slot, e) => {
                let v = self.expr(b, e);
                let term = self.term(b, e);
                self.bind(b, *slot, v, site(at), term);
            }
            StmtKind::Assign(place, _, e) => {
                let v = self.expr(b, e);
                match place {
                    Place::Local(slot) => {
                        // It may outlive any local's binding, and be rebound by a loop.
                        let v = v.map(&mut |a, sp| match a {
                            Atom::Seat(Term::Local(..), x) => Sight::one(Atom::Nobody(x), sp),
                            a => Sight::one(a, sp),
                        });
                        if let Some(x) = b.slots.get_mut(*slot as usize) {
                            x.sec.meet(&v);
                            // A local changed by `set` names no player: a loop may rebind it.
                            if self.mutable.insert((*slot, x.site)) {
                                self.changed = true;
                            }
                            x.term = None;
                        }
                    }
                    Place::Var(id, keys) => {
                        let k = self.keys(b, keys);
                        let mut sight = v.told();
                        sight.meet(&k);
                        if b.secret {
                            let viewers = match self.prog.vars.get(*id as usize) {
                                Some(vd) => match vd.visibility {
                                    Visibility::Public => Some(Viewers::Everyone),
                                    Visibility::Owner => {
                                        let t = vd
                                            .keys
                                            .iter()
                                            .position(|k| *k == KeyDomain::Player)
                                            .and_then(|i| keys.get(i))
                                            .and_then(|e| self.term(b, e));
                                        Some(Viewers::One(t))
                                    }
                                    Visibility::Hidden => None,
                                },
                                None => None,
                            };
                            if let Some(viewers) = viewers {
                                self.sink(b, Sink::Write(*id), at, viewers, sight);
                            }
                        }
                    }
                    Place::Field(card, _) => {
                        self.expr(b, card);
                    }
                }
            }
            StmtKind::Move(a, z, _, face) => {
                self.expr(b, a);
                self.expr(b, z);
                // The cards a local holds are known, from now on, to who sees them where they
                // went (a card moved face down, only to the zone's player).
                if let (ExprKind::Local(slot), ExprKind::Zone(id, keys)) = (&a.kind, &z.kind) {
                    let seen = match self.prog.zones.get(*id as usize) {
                        Some(zd) if *face == Some(false) && zd.visibility != Visibility::Hidden => {
                            self.seat_of(b, &zd.keys, keys, z.span, false)
                        }
                        _ => self.zone_cards(b, *id, keys, z.span),
                    };
                    if let Some(x) = b.slots.get_mut(*slot as usize) {
                        if x.term.is_some() {
                            x.sec.cards = seen;
                        }
                    }
                }
            }
            StmtKind::Draw(a, c, d) => {
                self.expr(b, a);
                self.expr(b, c);
                self.expr(b, d);
            }
            StmtKind::Reveal(e, to) => {
                self.expr(b, e);
                let t = match to {
                    Some(p) => {
                        self.expr(b, p);
                        match self.term(b, p) {
                            Some(t) => Some(Sight::one(Atom::Seat(t, false), p.span)),
                            None => None,
                        }
                    }
                    None => Some(Sight::all()),
                };
                // The cards a local holds are known, from now on, to whom they were shown.
                if let (ExprKind::Local(slot), Some(t)) = (&e.kind, t) {
                    if let Some(x) = b.slots.get_mut(*slot as usize) {
                        if x.term.is_some() {
                            x.sec.cards = t;
                        }
                    }
                }
            }
            StmtKind::Shuffle(e) | StmtKind::Flip(e, _) | StmtKind::Eliminate(e) => {
                self.expr(b, e);
            }
            StmtKind::For(slot, src, body) => {
                let v = self.expr(b, src);
                self.looped(b, |me, b| {
                    let mark = b.bound.len();
                    me.bind(b, *slot, v.clone(), site(at), None);
                    me.block(b, body);
                    b.bound.truncate(mark);
                });
            }
            StmtKind::Repeat(n, body) => {
                self.expr(b, n);
                self.looped(b, |me, b| {
                    me.block(b, body);
                });
            }
            StmtKind::RepeatUntil(n, c, body) => {
                self.expr(b, n);
                self.looped(b, |me, b| {
                    me.expr(b, c);
                    me.block(b, body);
                });
            }
            StmtKind::Say(e) => {
                let before = b.observed;
                b.observed = true;
                let v = self.expr(b, e);
                b.observed = before;
                self.sink(b, Sink::Say, e.span, Viewers::Everyone, v.val);
            }
            StmtKind::Return(e) => {
                if let Some(e) = e {
                    let v = self.expr(b, e);
                    if let Some(sum) = b.summary.as_mut() {
                        sum.ret.meet(&v);
                    }
                }
            }
            StmtKind::Secretly(body) => {
                let before = b.secret;
                b.secret = true;
                self.block(b, body);
                b.secret = before;
            }
            StmtKind::Step(_, body) => {
                self.block(b, body);
            }
            StmtKind::Emit(id, args) => {
                // Each trigger of the event runs as a call with the event's arguments.
                let prog = self.prog;
                let ts: Vec<Id> = (0..prog.triggers.len() as Id)
                    .filter(|&i| {
                        prog.triggers
                            .get(i as usize)
                            .is_some_and(|t| t.event == EventKind::Custom && t.target == Some(*id))
                    })
                    .collect();
                if ts.is_empty() {
                    for a in args {
                        self.expr(b, a);
                    }
                }
                for t in ts {
                    self.call(b, FnKey::Trigger(t), args, at, None);
                }
            }
            StmtKind::EndGame | StmtKind::Break | StmtKind::Continue => {}
            StmtKind::Expr(e) => return self.expr(b, e),
        }
        Sec::all()
    }

    /// A loop's body, walked again while what its locals hold grows (at most a few times: each
    /// walk can only add atoms).
    fn looped(&mut self, b: &mut Body, mut body: impl FnMut(&mut Self, &mut Body)) {
        for _ in 0..4 {
            let before: Vec<Sec> = b.slots.iter().map(|s| s.sec.clone()).collect();
            body(self, b);
            let same = b
                .slots
                .iter()
                .zip(&before)
                .enumerate()
                .all(|(_, (s, o))| s.sec.atoms_eq(o));
            if same {
                return;
            }
        }
        // Still growing: what the changed locals hold is nobody's.
        for s in b.slots.iter_mut() {
            if s.term.is_none() {
                s.sec
                    .val
                    .meet(&Sight::one(Atom::Nobody(true), Span::default()));
            }
        }
    }

    /// A root: a phase, a trigger, the setup, the screen.
    fn root(&mut self, locals: u32, stmts: &Block, binds: &[(u32, Sec, Option<Term>)], site: u64) {
        let mut b = self.body(locals, false, None);
        for (slot, sec, term) in binds {
            self.bind(&mut b, *slot, sec.clone(), site, *term);
        }
        self.block(&mut b, stmts);
    }

    fn pass(&mut self) {
        let prog = self.prog;
        for p in &prog.phases {
            let mut b = self.body(p.locals, false, None);
            if let Some((slot, e)) = &p.each {
                let v = self.expr(&mut b, e);
                self.bind(&mut b, *slot, v, site(p.span), None);
            }
            self.block(&mut b, &p.body);
        }
        for (bl, locals) in &prog.setup {
            self.root(*locals, bl, &[], site(bl.span));
        }
        for t in &prog.triggers {
            let site = site(t.span);
            let mut binds = Vec::new();
            match t.event {
                EventKind::Enter => {
                    let keys: Vec<Option<u32>> = t.binds.iter().skip(1).copied().collect();
                    let key_exprs: Vec<Expr> = keys
                        .iter()
                        .map(|k| Expr {
                            kind: match k {
                                Some(s) => ExprKind::Local(*s),
                                None => ExprKind::Const(Value::None),
                            },
                            span: t.span,
                        })
                        .collect();
                    let mut b = self.body(t.locals, false, None);
                    for s in keys.iter().flatten() {
                        self.bind(&mut b, *s, Sec::all(), site, None);
                        binds.push((*s, Sec::all(), None));
                    }
                    if let Some(Some(c)) = t.binds.first() {
                        let cards = match t.target {
                            Some(z) => self.zone_cards(&b, z, &key_exprs, t.span),
                            None => Sight::one(Atom::Nobody(false), t.span),
                        };
                        binds.push((
                            *c,
                            Sec {
                                val: Sight::all(),
                                cards,
                            },
                            None,
                        ));
                    }
                }
                EventKind::Flip => {
                    if let Some(Some(c)) = t.binds.first() {
                        let cards = Sight::one(Atom::Nobody(false), t.span);
                        binds.push((
                            *c,
                            Sec {
                                val: Sight::all(),
                                cards,
                            },
                            None,
                        ));
                    }
                }
                // Run where they are emitted, as calls.
                EventKind::Custom => continue,
                _ => {}
            }
            let mut b = self.body(t.locals, false, None);
            for (slot, sec, term) in binds {
                self.bind(&mut b, slot, sec, site, term);
            }
            if let Some(c) = &t.condition {
                self.expr(&mut b, c);
            }
            self.block(&mut b, &t.body);
        }
        for fd in &prog.faces {
            let mut b = self.body(fd.locals, false, None);
            self.bind(&mut b, fd.slot, Sec::all(), site(fd.span), None);
            let shown = fd.slots.iter().map(|x| &x.1);
            for e in shown.chain(fd.show.iter().flatten().map(|x| &x.1)) {
                let v = self.expr(&mut b, e).told();
                self.sink(&mut b, Sink::Face, e.span, Viewers::Everyone, v);
            }
        }
        if let Some(sc) = &prog.screen {
            let mut b = self.body(sc.locals, false, None);
            self.bind(&mut b, sc.slot, Sec::all(), site(sc.span), None);
            b.observed = true;
            for (l, v) in &sc.lines {
                self.expr(&mut b, l);
                self.expr(&mut b, v);
            }
        }
        let keys: Vec<(FnKey, bool)> = self.fns.keys().copied().collect();
        for (k, secret) in keys {
            self.summarise(k, secret);
        }
    }
}

fn has_args(s: &Sight) -> bool {
    s.0.iter()
        .any(|x| matches!(x.0, Atom::ArgVal(_) | Atom::ArgCards(_)))
}

#[derive(Clone, Copy)]
enum Callee<'a> {
    Expr(&'a Expr, Span),
    Trigger(&'a TriggerDef),
}

/// The kinds of card that the rules may turn face down: moved `face down`, or flipped (a card
/// keeps its side as it moves). `all` when a flipped card's kind cannot be told.
struct FaceDown {
    all: bool,
    kinds: Vec<bool>,
}

impl FaceDown {
    fn may(&self, kind: Option<Id>) -> bool {
        match kind {
            _ if self.all => true,
            Some(k) => self.kinds.get(k as usize) == Some(&true),
            None => self.kinds.iter().any(|k| *k),
        }
    }

    fn of(prog: &Program) -> FaceDown {
        let mut fd = FaceDown {
            all: false,
            kinds: vec![false; prog.kinds.len()],
        };
        let mut bodies: Vec<crate::interp::Node> = Vec::new();
        for p in &prog.phases {
            bodies.extend(p.body.stmts.iter().map(crate::interp::Node::Stmt));
        }
        for t in &prog.triggers {
            bodies.extend(t.body.stmts.iter().map(crate::interp::Node::Stmt));
        }
        for (bl, _) in &prog.setup {
            bodies.extend(bl.stmts.iter().map(crate::interp::Node::Stmt));
        }
        for f in prog.fns.iter().chain(&prog.card_fns) {
            bodies.push(crate::interp::Node::Expr(&f.body));
        }
        // What each local slot is bound to, per body (a slot reused takes every binding).
        for n in bodies {
            let mut binds: Vec<(u32, &Expr)> = Vec::new();
            let mut turned: Vec<&Expr> = Vec::new();
            let mut zones: Vec<&Expr> = Vec::new();
            crate::interp::walk(n, &mut |x| match x {
                crate::interp::Node::Stmt(s) => match &s.kind {
                    StmtKind::Let(slot, e) | StmtKind::For(slot, e, _) => binds.push((*slot, e)),
                    StmtKind::Move(_, to, _, Some(false)) => zones.push(to),
                    StmtKind::Flip(e, dir) if *dir != Some(true) => turned.push(e),
                    _ => {}
                },
                crate::interp::Node::Expr(e) => {
                    if let ExprKind::Agg { slot, source, .. } = &e.kind {
                        binds.push((*slot, source));
                    }
                }
            });
            for e in turned.into_iter().chain(zones) {
                match kind_of(prog, e, &binds, 0) {
                    Some(k) => {
                        if let Some(x) = fd.kinds.get_mut(k as usize) {
                            *x = true;
                        }
                    }
                    None => fd.all = true,
                }
            }
        }
        fd
    }
}

/// The kind of the cards an expression gives, when it can be told without types.
fn kind_of(prog: &Program, e: &Expr, binds: &[(u32, &Expr)], depth: u32) -> Option<Id> {
    if depth > 8 {
        return None;
    }
    let d = depth + 1;
    match &e.kind {
        ExprKind::Zone(id, _) => prog.zones.get(*id as usize)?.kind,
        ExprKind::KindCards(k) => Some(*k),
        ExprKind::Const(Value::Card(c)) => prog.cards.get(*c as usize).map(|c| c.kind),
        ExprKind::Agg { source, .. } => kind_of(prog, source, binds, d),
        ExprKind::Index(l, _) => kind_of(prog, l, binds, d),
        ExprKind::Builtin(def, args)
            if matches!(
                def.name,
                "top"
                    | "take"
                    | "drop"
                    | "shuffled"
                    | "pick_random"
                    | "reverse"
                    | "rotate"
                    | "distinct"
            ) =>
        {
            kind_of(prog, args.first()?, binds, d)
        }
        ExprKind::Local(slot) => {
            let mut kind = None;
            for (s, src) in binds {
                if s == slot {
                    let k = kind_of(prog, src, binds, d)?;
                    if kind.is_some_and(|x| x != k) {
                        return None;
                    }
                    kind = Some(k);
                }
            }
            kind
        }
        _ => None,
    }
}

impl Checker {
    /// Report texts that show a value to players who may not read it, and secret answers
    /// written where others read them. Run only on a program without errors (no cascade).
    pub(super) fn check_secrets(&mut self) {
        let prog = &self.prog;
        let face_down = FaceDown::of(prog);
        let mut flow = Flow {
            prog,
            fns: std::collections::BTreeMap::new(),
            changed: true,
            report: false,
            found: Vec::new(),
            face_down,
            mutable: std::collections::BTreeSet::new(),
        };
        let mut rounds = 0;
        while flow.changed && rounds < 40 {
            flow.changed = false;
            flow.pass();
            rounds += 1;
        }
        flow.report = true;
        flow.pass();
        let found = std::mem::take(&mut flow.found);
        let diags: Vec<Diag> = found.iter().map(|f| self.secret_diag(f)).collect();
        for d in diags {
            self.err(d);
        }
    }

    fn secret_diag(&self, f: &Found) -> Diag {
        let src = &self.prog.sources;
        let text = src.text_of(f.read);
        let read = if text.is_empty() || text.len() > 60 || text.contains('\n') {
            "a hidden value".to_string()
        } else {
            format!("`{text}`")
        };
        let who = if f.nobody {
            "which not every player may read"
        } else {
            "which only one player may read"
        };
        // The read gets a label of its own when it is near the text (a far one would draw every
        // line between them); else the message says where it is.
        let (l1, l2) = (src.line_col(f.at).0, src.line_col(f.read).0);
        let near = f.read.file == f.at.file && l1.abs_diff(l2) <= 8;
        let (read, far) = if near || f.read == Span::default() {
            (read, None)
        } else {
            let file = src
                .get(f.read.file)
                .map(|x| x.name.clone())
                .unwrap_or_default();
            (
                format!("{read} ({file}:{l2})"),
                Some(format!("{text} is read at {file}:{l2}")),
            )
        };
        let seen = match f.viewers {
            _ if f.sink == Sink::Face => "printed for every player",
            Viewers::Everyone => "shown to every player",
            Viewers::One(_) => "shown to the chooser",
        };
        let inside = f.read.file == f.at.file
            && f.read.start >= f.at.start
            && f.read.end <= f.at.end
            && f.read != f.at;
        let mut main = String::new();
        let mut d = match f.sink {
            Sink::Write(id) => {
                let name = self
                    .prog
                    .vars
                    .get(id as usize)
                    .map(|v| v.name.clone())
                    .unwrap_or_default();
                let readers = match f.viewers {
                    Viewers::Everyone => "every player reads",
                    Viewers::One(_) => "another player may read",
                };
                Diag::error(
                    "check::secret_written",
                    format!("an answer given in secret is written to `{name}`, which {readers}"),
                )
                .with_main(&mut main, format!("`{name}` is not secret from the others"))
                .help(format!(
                    "keep the answer in a local until every answer is in, or declare `{name}` \
                     `owner` (keyed by the player), so that only its player reads it until the \
                     rules tell it"
                ))
            }
            Sink::Say => Diag::warning(
                "check::hidden_said",
                format!("this line is said to every player, but it shows {read}, {who}"),
            )
            .with_main(&mut main, "said to every player".into())
            .help(
                "read it inside the braces instead (a `say` shows a var or a card's field as \
                 `(hidden)` to whoever may not read it); if the rules mean to announce it here, \
                 acknowledge it with `allow check::hidden_said \"why\"`",
            ),
            sink => {
                let (what, verb) = match sink {
                    Sink::Prompt => ("this prompt is", "it reads"),
                    Sink::Label => ("these labels are", "they read"),
                    Sink::Face => ("this part of the card's face is", "it reads"),
                    _ => ("these notes are", "they read"),
                };
                let help = match (sink, f.viewers) {
                    (Sink::Face, _) => {
                        "a face is printed on the card, for every player to read: show the \
                         card's own fields, not a var"
                    }
                    (Sink::Note, _) | (_, Viewers::One(_)) => {
                        "the chooser may not read it: leave it out, or show only what the chooser \
                         may read (their own vars and cards, public ones)"
                    }
                    _ => {
                        "ask inside `secretly { }`, where only the chooser sees the question, or \
                         show the value on the game's `screen`, which each seat reads as it may"
                    }
                };
                if f.var {
                    Diag::error(
                        "check::hidden_shown",
                        format!("{what} {seen}, but {verb} {read}, {who}"),
                    )
                    .with_main(&mut main, seen.into())
                    .help(help)
                } else {
                    // What a player knows of a card changes as the game goes, and a secret
                    // answer is the rules' to tell: they may be known by the time the text is
                    // read, which the checker cannot tell.
                    Diag::warning(
                        "check::unknown_shown",
                        format!(
                            "{what} {seen}, but {verb} {read}, a card or a secret answer that not \
                             every one of them may know"
                        ),
                    )
                    .with_main(&mut main, seen.into())
                    .help(format!(
                        "{help}; if it is known to them by then (revealed, face up on the table, \
                         or told once every answer is in), acknowledge it with \
                         `allow check::unknown_shown \"why\"`"
                    ))
                }
            }
        };
        let what = match f.sink {
            Sink::Write(_) => "answered inside `secretly` here",
            _ => "hidden from some who see it",
        };
        if inside && far.is_none() {
            // One label where the secret is read, inside the text it is shown in.
            let text = match f.sink {
                Sink::Write(_) => format!("answered in secret here; {main}"),
                _ => format!("read here, {main}"),
            };
            d = d.label(f.read, text);
        } else {
            d = d.label(f.at, main);
            if far.is_none() && f.read != Span::default() {
                d = d.label(f.read, what);
            }
        }
        d
    }
}

/// The main label's text, kept until it is known where it goes.
trait WithMain {
    fn with_main(self, main: &mut String, text: String) -> Self;
}

impl WithMain for Diag {
    fn with_main(self, main: &mut String, text: String) -> Self {
        *main = text;
        self
    }
}
