//! Statements: let, set, move, draw, shuffle, flip, reveal, loops, say, return.

use super::compile::Ev;
use super::*;
use crate::ast::{AssignOp, EventKind, Position};
use crate::diag::Span;
use crate::events::Event;
use crate::program::*;
use crate::rng;
use crate::value::Value;

impl<'p> Interp<'p> {
    // ================================================================ statements

    pub(super) fn exec_block(&mut self, b: &Block) -> R<Value> {
        let mut last = Value::None;
        for s in &b.stmts {
            last = self.exec(s)?;
        }
        Ok(last)
    }

    pub(super) fn exec(&mut self, s: &Stmt) -> R<Value> {
        self.tick(s.span)?;
        if self.displaying > 0 {
            let changes = match &s.kind {
                StmtKind::Assign(Place::Local(_), _, _) => false,
                StmtKind::Assign(..)
                | StmtKind::Move(..)
                | StmtKind::Draw(..)
                | StmtKind::Shuffle(_)
                | StmtKind::Flip(..)
                | StmtKind::Reveal(..)
                | StmtKind::EndGame
                | StmtKind::Eliminate(_)
                | StmtKind::Emit(..) => true,
                _ => false,
            };
            if changes {
                return Err(self.not_while_displaying(s.span));
            }
        }
        match &s.kind {
            StmtKind::Let(slot, e) => {
                let v = self.eval(e)?;
                self.set_local(*slot, v);
                self.set_origin(*slot, e.span);
            }
            StmtKind::Assign(place, op, e) => {
                let v = self.eval(e)?;
                self.assign(place, *op, v, s.span)?;
            }
            StmtKind::Move(what, to, pos, face) => {
                let v = self.eval(what)?;
                let dest = self.zone_slot(to)?;
                match face {
                    None => self.move_value(v, what.span, dest, *pos, to.span)?,
                    Some(up) => self.move_faced(v, what.span, dest, *pos, *up, to.span)?,
                }
            }
            StmtKind::Draw(n, from, to) => self.draw(n, from, to)?,
            StmtKind::Shuffle(z) => self.shuffle(z)?,
            StmtKind::Flip(what, dir) => {
                let v = self.eval(what)?;
                self.flip(v, *dir, what.span)?;
            }
            StmtKind::Reveal(what, to) => self.reveal(what, to.as_ref())?,
            StmtKind::For(slot, src, body) => {
                // `for` walks a snapshot: the body may move the cards it iterates over.
                let items = match self.eval_source(src)? {
                    Source::Zone(z) => Source::Cards(self.zone_cards(z).to_vec()),
                    other => other,
                };
                for i in 0..items.len(&self.state) {
                    let Some(item) = items.get(&self.state, i) else {
                        break;
                    };
                    self.tick(s.span)?;
                    self.set_local(*slot, item);
                    if self.pass(body)? {
                        break;
                    }
                }
            }
            StmtKind::Repeat(n, body) => {
                let n = self.int(n)?;
                for _ in 0..n.max(0) {
                    self.tick(s.span)?;
                    if self.pass(body)? {
                        break;
                    }
                }
            }
            StmtKind::Say(e) => {
                // Only evaluated when something shows it, so it may not change the game.
                if self.record {
                    self.displaying += 1;
                    let v = self.eval(e);
                    self.displaying -= 1;
                    self.record_say(&v?, e);
                }
            }
            StmtKind::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(e)?,
                    None => Value::None,
                };
                self.returning = Some(v);
                // The signal carries no text: `call_fn` catches it by its code.
                return Err(self
                    .spare_return
                    .take()
                    .unwrap_or_else(|| signal(RETURN_CODE)));
            }
            StmtKind::RepeatUntil(n, cond, body) => {
                let n = self.int(n)?;
                for _ in 0..n.max(0) {
                    self.tick(s.span)?;
                    if self.boolean(cond)? {
                        break;
                    }
                    if self.pass(body)? {
                        break;
                    }
                }
            }
            StmtKind::Break => return Err(self.jump(BREAK_CODE)),
            StmtKind::Continue => return Err(self.jump(CONTINUE_CODE)),
            StmtKind::EndGame => {
                self.state.finished = true;
                self.emit(|_| Event::GameEnded);
                return Err(signal(END_CODE));
            }
            StmtKind::Eliminate(p) => {
                let p = match self.eval(p)? {
                    Value::Player(p) => p,
                    other => {
                        return Err(rt(
                            s.span,
                            format!("`eliminate` needs a player, found {}", other.type_name()),
                        ))
                    }
                };
                if let Some(out) = self.state.eliminated.get_mut(p as usize) {
                    if !*out {
                        *out = true;
                        self.state.out = self.state.out.saturating_add(1);
                        self.emit(|_| Event::Eliminated {
                            player: format!("P{}", p + 1),
                        });
                    }
                }
            }
            StmtKind::Emit(ev, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a)?);
                }
                let prog = self.prog;
                for (i, t) in prog.triggers.iter().enumerate() {
                    if t.event == EventKind::Custom && t.target == Some(*ev) {
                        self.run_trigger(i, &vals)?;
                    }
                }
            }
            StmtKind::Secretly(b) => {
                self.secret_depth += 1;
                let r = self.exec_block(b);
                self.secret_depth -= 1;
                r?;
            }
            StmtKind::Step(name, b) => {
                let step = name.clone();
                self.emit(|_| Event::Step { step });
                self.exec_block(b)?;
            }
            StmtKind::Expr(e) => return self.eval(e),
        }
        Ok(Value::None)
    }

    /// One pass of a loop's body: `Ok(true)` when a `break` left the loop.
    fn pass(&mut self, body: &Block) -> R<bool> {
        match self.exec_block(body) {
            Ok(_) => Ok(false),
            Err(d) => self.caught(d),
        }
    }

    pub(super) fn assign(&mut self, place: &Place, op: AssignOp, v: Value, span: Span) -> R<()> {
        match place {
            Place::Local(slot) => self.assign_local(*slot, op, v, span),
            Place::Var(id, keys) => {
                let slot = self.var_slot(*id, &keys[..], span)?;
                self.assign_var(*id, slot, op, v, span)
            }
            Place::Field(card, sym) => {
                let c = self.card_place(card)?;
                self.assign_field(c, *sym, op, v, span)
            }
        }
    }

    #[inline]
    pub(super) fn assign_local(&mut self, slot: u32, op: AssignOp, v: Value, span: Span) -> R<()> {
        let nv = match op {
            AssignOp::Set => v,
            _ => combine(op, &self.local(slot), v, span)?,
        };
        self.set_local(slot, nv);
        self.set_origin(slot, span);
        Ok(())
    }

    /// The card a `set c.field` writes to.
    pub(super) fn card_place<E: Ev + ?Sized>(&mut self, card: &E) -> R<u32> {
        match card.ev(self)? {
            Value::Card(c) => Ok(c),
            other => Err(rt(
                card.span(),
                format!("expected a card, found {}", other.type_name()),
            )),
        }
    }

    pub(super) fn assign_var(
        &mut self,
        id: Id,
        slot: usize,
        op: AssignOp,
        v: Value,
        span: Span,
    ) -> R<()> {
        let prog = self.prog;
        let (Some(vd), Some(old)) = (prog.vars.get(id as usize), self.state.vars.get(slot)) else {
            return Err(rt(span, "this var has no such slot"));
        };
        let nv = match op {
            AssignOp::Set => v,
            _ => combine(op, old, v, span)?,
        };
        let nv = match vd.bounds {
            None => nv,
            Some(_) => self.bounded(nv, vd.bounds, vd.refuse, &vd.name, vd.span, span)?,
        };
        if let Some(cell) = self.state.vars.get_mut(slot) {
            *cell = nv;
        }
        self.stamp_var(id);
        Ok(())
    }

    pub(super) fn assign_field(
        &mut self,
        c: u32,
        sym: Id,
        op: AssignOp,
        v: Value,
        span: Span,
    ) -> R<()> {
        let prog = self.prog;
        let Some(cd) = prog.cards.get(c as usize) else {
            return Err(rt(span, "this card does not exist"));
        };
        let Some(kd) = prog.kinds.get(cd.kind as usize) else {
            return Err(rt(span, "this card's kind does not exist"));
        };
        // The slot of the card's var field, if it has one of that name.
        let slot = match kd.slot_of.get(sym as usize).copied().flatten() {
            Some((true, i)) => self
                .state
                .card_var_base
                .get(c as usize)
                .and_then(|b| b.checked_add(i))
                .map(|at| at as usize)
                .filter(|&at| at < self.state.card_vars.len()),
            _ => None,
        };
        let Some(idx) = slot else {
            let field = prog.symbols.get(sym as usize).map_or("?", String::as_str);
            return Err(rt(
                span,
                format!("card `{}` ({}) has no var field `{field}`", cd.id, kd.name),
            ));
        };
        let old = self.state.card_vars.get(idx).cloned().unwrap_or_default();
        let nv = combine(op, &old, v, span)?;
        let nv = match kd.fields.iter().find(|f| f.sym == sym) {
            Some(fd) if fd.bounds.is_some() => {
                let what = format!("{}.{}", cd.id, fd.name);
                self.bounded(nv, fd.bounds, fd.refuse, &what, fd.span, span)?
            }
            _ => nv,
        };
        if let Some(cell) = self.state.card_vars.get_mut(idx) {
            *cell = nv;
        }
        self.stamp_field(sym);
        Ok(())
    }

    /// `draw n from a to b`: the first `n` cards of `a` (fewer if it has fewer) to the bottom of
    /// `b`.
    pub(super) fn draw<E: Ev>(&mut self, n: &E, from: &E, to: &E) -> R<()> {
        let n = self.int(n)?;
        let src = self.zone_slot(from)?;
        let dest = self.zone_slot(to)?;
        let zone = self
            .state
            .zones
            .get(src as usize)
            .map_or(&[][..], |z| &z[..]);
        let take = usize::try_from(n.max(0))
            .unwrap_or(usize::MAX)
            .min(zone.len());
        let cards: Vec<u32> = zone.get(..take).unwrap_or_default().to_vec();
        self.move_cards(&cards, dest, Position::Bottom, to.span())
    }

    /// `shuffle z`: the zone's cards in a random order, known only to who sees their faces.
    pub(super) fn shuffle<E: Ev>(&mut self, z: &E) -> R<()> {
        let slot = self.zone_slot(z)?;
        let Some(zone) = self.state.zones.get_mut(slot as usize) else {
            return Ok(());
        };
        let mut cards = std::mem::take(zone);
        rng::shuffle(&mut self.state.rng, &mut cards);
        if let Some(zone) = self.state.zones.get_mut(slot as usize) {
            *zone = cards;
        }
        self.stamp_zone(slot);
        self.learn_shuffle(slot);
        self.emit(|me| Event::Shuffle {
            zone: me.zone_name(slot),
        });
        Ok(())
    }

    /// `flip v [up|down]`: each card of `v` turned (to the side given, else over), then the
    /// `flip` triggers run for it.
    pub(super) fn flip(&mut self, v: Value, dir: Option<bool>, span: Span) -> R<()> {
        // One card (the common case) without a list of them.
        if let Value::Card(c) = v {
            return self.flip_card(c, dir);
        }
        let mut cards = self.spare_cards();
        let mut r = self.collect_cards(&v, &mut cards, span);
        if r.is_ok() {
            for &c in &cards {
                r = self.flip_card(c, dir);
                if r.is_err() {
                    break;
                }
            }
        }
        self.recycle_cards(cards);
        r
    }

    /// An empty vector of cards, from the one kept for reuse when it is there.
    fn spare_cards(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.spare_cards)
    }

    /// Give a vector of cards back for reuse (emptied; a large one is let go).
    fn recycle_cards(&mut self, mut cards: Vec<u32>) {
        cards.clear();
        if cards.capacity() <= 1024 {
            self.spare_cards = cards;
        }
    }

    /// Turn card `c` (to side `dir`, else over), and run the `flip` triggers.
    fn flip_card(&mut self, c: u32, dir: Option<bool>) -> R<()> {
        let Some(face) = self.state.face_up.get_mut(c as usize) else {
            return Ok(());
        };
        let now = dir.unwrap_or(!*face);
        *face = now;
        let before = self.known(c);
        self.learn_flip(c);
        self.emit(|me| Event::Flip {
            card: me.view().card_ref(c, me.known(c)),
            face_up: now,
            learnt: me.known(c) & !before,
        });
        let prog = self.prog;
        for (i, t) in prog.triggers.iter().enumerate() {
            if t.event == EventKind::Flip {
                self.run_trigger(i, &[Value::Card(c)])?;
            }
        }
        Ok(())
    }

    /// `move v to dest`: a card, or every card of a list or zone.
    pub(super) fn move_value(
        &mut self,
        v: Value,
        what: Span,
        dest: u32,
        pos: Position,
        to: Span,
    ) -> R<()> {
        if let Value::Card(c) = v {
            self.move_card(c, dest, pos, to)
        } else {
            let mut cards = self.spare_cards();
            let r = self
                .collect_cards(&v, &mut cards, what)
                .and_then(|_| self.move_cards(&cards, dest, pos, to));
            self.recycle_cards(cards);
            r
        }
    }

    /// `move v to dest face up|down`: each card turned to that side as it moves (no `flip`
    /// event, no `flip` triggers), so who sees it there is worked out from that side.
    pub(super) fn move_faced(
        &mut self,
        v: Value,
        what: Span,
        dest: u32,
        pos: Position,
        up: bool,
        to: Span,
    ) -> R<()> {
        let mut cards = self.spare_cards();
        let r = self
            .collect_cards(&v, &mut cards, what)
            .and_then(|_| self.move_cards_as(&cards, dest, pos, Some(up), to));
        self.recycle_cards(cards);
        r
    }

    /// `reveal e [to players]`: the players learn the cards (everybody without `to`).
    fn reveal(&mut self, what: &Expr, to: Option<&Expr>) -> R<()> {
        let cards = self.cards_of(what)?;
        let (mask, names) = match to {
            None => (everyone(self.state.n_players), None),
            Some(to) => {
                let v = self.eval(to)?;
                let mut who = Vec::new();
                match &v {
                    Value::Player(p) => who.push(*p),
                    Value::List(items) => {
                        for x in items.iter() {
                            match x {
                                Value::Player(p) => who.push(*p),
                                other => {
                                    return Err(rt(
                                        to.span,
                                        format!("expected players, found {}", other.type_name()),
                                    ))
                                }
                            }
                        }
                    }
                    other => {
                        return Err(rt(
                            to.span,
                            format!("expected players, found {}", other.type_name()),
                        ))
                    }
                }
                who.sort_unstable();
                who.dedup();
                let mask = who.iter().fold(0, |m, &p| m | one(p));
                let names = who.iter().map(|p| format!("P{}", p + 1)).collect();
                (mask, Some(names))
            }
        };
        let mut learnt = 0;
        for &c in &cards {
            if let Some(k) = self.state.known.get_mut(c as usize) {
                learnt |= mask & !*k;
                *k |= mask;
            }
            self.saw(c, mask);
        }
        self.emit(|me| Event::Reveal {
            cards: cards
                .iter()
                .map(|&c| me.view().card_ref(c, me.known(c)))
                .collect(),
            to: names,
            learnt,
        });
        Ok(())
    }

    pub fn move_cards(&mut self, cards: &[u32], dest: u32, pos: Position, span: Span) -> R<()> {
        self.move_cards_as(cards, dest, pos, None, span)
    }

    /// `move_cards`, each card first turned to side `face` (`Some(true)`: face up) if given.
    fn move_cards_as(
        &mut self,
        cards: &[u32],
        dest: u32,
        pos: Position,
        face: Option<bool>,
        span: Span,
    ) -> R<()> {
        let prog = self.prog;
        let dest_def = self.zone_def_of_slot(dest);
        let Some(dest_zone) = prog.zones.get(dest_def as usize) else {
            return Err(rt(span, "this zone is missing"));
        };
        let fits = |c: u32| {
            prog.cards
                .get(c as usize)
                .is_some_and(|card| dest_zone.kind.is_none_or(|k| k == card.kind))
        };
        if !cards.iter().all(|&c| fits(c)) {
            return Err(self.move_refused(cards, dest_def, span));
        }
        // What the log says of the cards before they move (only when something records it).
        let seen = if self.record {
            Some(self.move_seen(cards))
        } else {
            None
        };
        for (i, &c) in cards.iter().enumerate() {
            if let (Some(up), Some(f)) = (face, self.state.face_up.get_mut(c as usize)) {
                *f = up;
            }
            self.place_card(c, i, dest, pos, span)?;
        }
        if !cards.is_empty() {
            self.stamp_zone(dest);
            if let Some(seen) = seen {
                self.record_move(cards, seen, dest, face);
            }
        }
        if self
            .enter_triggers
            .get(dest_def as usize)
            .is_some_and(|t| !t.is_empty())
        {
            return self.run_enter_triggers(cards, dest, dest_def);
        }
        Ok(())
    }

    /// `move_cards` for one card when nothing records the game: the same checks, changes and
    /// triggers, without a list of cards.
    pub(super) fn move_card(&mut self, c: u32, dest: u32, pos: Position, span: Span) -> R<()> {
        let prog = self.prog;
        let dest_def = self.zone_def_of_slot(dest);
        let fits = match (
            prog.zones.get(dest_def as usize),
            prog.cards.get(c as usize),
        ) {
            (Some(z), Some(card)) => z.kind.is_none_or(|k| k == card.kind),
            _ => false,
        };
        if self.record || !fits {
            return self.move_cards(&[c], dest, pos, span);
        }
        self.place_card(c, 0, dest, pos, span)?;
        self.stamp_zone(dest);
        if self
            .enter_triggers
            .get(dest_def as usize)
            .is_some_and(|t| !t.is_empty())
        {
            return self.run_enter_triggers(&[c], dest, dest_def);
        }
        Ok(())
    }

    /// Card `c`, the `i`th of a move, taken from where it lies and put in slot `dest`.
    #[inline(always)]
    fn place_card(&mut self, c: u32, i: usize, dest: u32, pos: Position, span: Span) -> R<()> {
        let from = self
            .state
            .card_zone
            .get(c as usize)
            .copied()
            .unwrap_or(NOWHERE);
        if from != NOWHERE {
            if let Some(z) = self.state.zones.get_mut(from as usize) {
                if let Some(p) = z.iter().position(|&x| x == c) {
                    z.remove(p);
                }
            }
            self.stamp_zone(from);
        }
        let Some(z) = self.state.zones.get_mut(dest as usize) else {
            return Err(rt(span, "this zone is missing"));
        };
        match pos {
            Position::Bottom => z.push(c),
            Position::Top => z.insert(i.min(z.len()), c),
        }
        if let Some(at) = self.state.card_zone.get_mut(c as usize) {
            *at = dest;
        }
        self.learn_move(c, from, dest);
        Ok(())
    }

    /// Why `move_cards` refuses these cards: the first that does not exist or is of a kind the
    /// zone does not hold.
    #[cold]
    #[inline(never)]
    fn move_refused(&self, cards: &[u32], dest_def: u32, span: Span) -> Box<Diag> {
        let prog = self.prog;
        let Some(dest_zone) = prog.zones.get(dest_def as usize) else {
            return rt(span, "this zone is missing");
        };
        for &c in cards {
            let Some(card) = prog.cards.get(c as usize) else {
                return rt(span, "this card does not exist");
            };
            if let Some(kind) = dest_zone.kind.filter(|&k| k != card.kind) {
                let kind_name = |k: Id| {
                    prog.kinds
                        .get(k as usize)
                        .map_or("?", |kd| kd.name.as_str())
                };
                return rt(
                    span,
                    format!(
                        "card `{}` is a {}, but zone `{}` holds only {} cards",
                        card.id,
                        kind_name(card.kind),
                        dest_zone.name,
                        kind_name(kind)
                    ),
                );
            }
        }
        rt(span, "this card cannot go there")
    }

    /// Who knew each card before a move (they saw it leave; nobody sees a card come out of
    /// no zone), and where each came from.
    #[inline(never)]
    fn move_seen(&self, cards: &[u32]) -> (Vec<u64>, Vec<Option<String>>) {
        let mut before = Vec::with_capacity(cards.len());
        let mut origins = Vec::with_capacity(cards.len());
        for &c in cards {
            let z = self
                .state
                .card_zone
                .get(c as usize)
                .copied()
                .unwrap_or(NOWHERE);
            if z == NOWHERE {
                before.push(0);
                origins.push(None);
            } else {
                before.push(self.known(c));
                origins.push(Some(self.zone_name(z)));
            }
        }
        (before, origins)
    }

    /// The event of a move, for the log.
    #[inline(never)]
    fn record_move(
        &mut self,
        cards: &[u32],
        seen: (Vec<u64>, Vec<Option<String>>),
        dest: u32,
        face_up: Option<bool>,
    ) {
        let (before, origins) = seen;
        // Who learnt a card by the move: knows it now, did not before (a card out of no zone
        // was known to nobody).
        let learnt = cards
            .iter()
            .zip(&before)
            .fold(0, |l, (&c, &b)| l | (self.known(c) & !b));
        self.emit(|me| Event::Move {
            cards: cards
                .iter()
                .zip(&before)
                .map(|(&c, &b)| me.view().card_ref(c, b | me.known(c)))
                .collect(),
            from: origins,
            to: me.zone_name(dest),
            face_up,
            learnt,
        });
    }

    /// The `on enter` triggers of the zone the cards entered, for each card.
    #[inline(never)]
    fn run_enter_triggers(&mut self, cards: &[u32], dest: u32, dest_def: u32) -> R<()> {
        // The table is shared: a copy of the handle, not of the list.
        let all = self.enter_triggers.clone();
        let triggers = all.get(dest_def as usize).map_or(&[][..], |t| &t[..]);
        // The card, then the keys of the zone it entered (`on enter hand[p] as c`).
        let mut bound = Vec::with_capacity(4);
        bound.push(Value::None);
        self.view().zone_keys(dest, &mut bound);
        for &c in cards {
            if let Some(b) = bound.first_mut() {
                *b = Value::Card(c);
            }
            for &t in triggers {
                self.run_trigger(t, &bound)?;
            }
        }
        Ok(())
    }

    /// A new value for a bounded var or field: clamped into its bounds, or refused with an error
    /// that names the rule (`refuse`).
    pub(super) fn bounded(
        &self,
        v: Value,
        bounds: Option<(i64, i64)>,
        refuse: bool,
        what: &str,
        decl: Span,
        span: Span,
    ) -> R<Value> {
        let (Some((lo, hi)), Value::Int(x)) = (bounds, &v) else {
            return Ok(v);
        };
        if (lo..=hi).contains(x) {
            return Ok(v);
        }
        if !refuse {
            return Ok(Value::Int((*x).clamp(lo, hi)));
        }
        let range = if hi == i64::MAX {
            format!("at least {lo}")
        } else {
            format!("within {lo}..{hi}")
        };
        Err(Box::new(
            Diag::error(
                "run::refused",
                format!("`{what}` must stay {range}; this would make it {x}"),
            )
            .label(span, format!("this would make it {x}"))
            .label(decl, "declared `refuse` here")
            .help("check first with `fits(...)`, or declare the bounds `clamp`"),
        ))
    }
}

/// `set`, `+=` and `-=` on the old value.
pub(super) fn combine(op: AssignOp, old: &Value, v: Value, span: Span) -> R<Value> {
    match op {
        AssignOp::Set => Ok(v),
        AssignOp::Add | AssignOp::Sub => match (old, &v) {
            (Value::Int(a), Value::Int(b)) => {
                let r = if op == AssignOp::Add {
                    a.checked_add(*b)
                } else {
                    a.checked_sub(*b)
                };
                r.map(Value::Int).ok_or_else(|| rt(span, "number overflow"))
            }
            _ => Err(rt(
                span,
                format!("cannot add {} to {}", v.type_name(), old.type_name()),
            )),
        },
    }
}
