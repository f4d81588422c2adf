//! Statements, bodies and the fixed point: what locals hold, function summaries, the texts
//! shown and the vars written, each checked against who sees them.

use super::*;

impl<'a> Flow<'a> {
    pub(super) fn summary(&mut self, key: FnKey, secret: bool) -> Summary {
        if let Some(s) = self.fns.get(&(key, secret)) {
            return s.clone();
        }
        self.fns.insert((key, secret), Summary::default());
        self.changed = true;
        Summary::default()
    }

    /// A summarised body: its parameters' slots, its locals, its code.
    pub(super) fn callee(&self, key: FnKey) -> Option<(Vec<u32>, u32, Callee<'a>)> {
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
    pub(super) fn summarise(&mut self, key: FnKey, secret: bool) {
        let Some((params, locals, code)) = self.callee(key) else {
            return;
        };
        // A body nothing calls in this mode shows nothing in it: its texts are not reported.
        self.muted = !self.asked.contains(&(key, secret));
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
                    sel: Sight::one(Atom::ArgSel(i as u32), span),
                };
                s.term = (!mutable).then_some(Term::Param(i as u32));
            }
        }
        let r = match code {
            Callee::Expr(e, _) => self.expr(&mut b, e),
            Callee::Trigger(t) => {
                if let Some(c) = &t.condition {
                    let c = self.expr(&mut b, c);
                    b.enter(c.decides());
                }
                self.block(&mut b, &t.body);
                Sec::all()
            }
        };
        let mut sum = b.summary.take().unwrap_or_default();
        sum.ret.meet(&r);
        if let Callee::Expr(e, _) = code {
            // Never empty as written, and no `return` gives anything else.
            sum.nonempty = self.known_nonempty(&b, e) && {
                let mut ret = false;
                crate::program::walk::walk(crate::program::walk::Node::Expr(e), &mut |x| {
                    if let crate::program::walk::Node::Stmt(s) = x {
                        ret |= matches!(s.kind, StmtKind::Return(_));
                    }
                });
                !ret
            };
        }
        sum.ret = sum.ret.map(&mut |a, at| match a {
            Atom::Seat(Term::Local(..), v) => Sight::one(Atom::Nobody(v), at),
            a => Sight::one(a, at),
        });
        self.muted = false;
        let old = self.fns.get(&(key, secret));
        if !old.is_some_and(|o| o.same(&sum)) {
            self.changed = true;
            self.fns.insert((key, secret), sum);
        }
    }

    pub(super) fn body(&self, locals: u32, secret: bool, summary: Option<Summary>) -> Body {
        Body {
            slots: vec![Slot::default(); locals as usize],
            bound: Vec::new(),
            secret,
            summary,
            observed: false,
            pc: Vec::new(),
            jump: Sight::all(),
            ret: Sight::all(),
            id: {
                let n = self.bodies.get();
                self.bodies.set(n.wrapping_add(1));
                n
            },
            asked: false,
            said: None,
            undo: Vec::new(),
        }
    }

    pub(super) fn bind(&self, b: &mut Body, slot: u32, sec: Sec, site: u64, term: Option<Term>) {
        let mutable = self.mutable.contains(&(slot, site));
        if let Some(s) = b.slots.get_mut(slot as usize) {
            *s = Slot {
                sec,
                site,
                nonempty: false,
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
    pub(super) fn leave(&self, b: &mut Body, mark: usize, v: Sec) -> Sec {
        if b.bound.len() <= mark {
            return v;
        }
        let gone: Vec<(u32, u64)> = b.bound.split_off(mark);
        let names = |s: &Sight| {
            s.0.iter().any(
                |x| matches!(x.0, Atom::Seat(Term::Local(s, site), _) if gone.contains(&(s, site))),
            )
        };
        if !names(&v.val) && !names(&v.cards) && !names(&v.sel) {
            return v;
        }
        v.map(&mut |a, at| match a {
            Atom::Seat(Term::Local(s, site), v) if gone.contains(&(s, site)) => {
                Sight::one(Atom::Nobody(v), at)
            }
            a => Sight::one(a, at),
        })
    }

    pub(super) fn block(&mut self, b: &mut Body, bl: &Block) -> Sec {
        let mark = b.bound.len();
        let mut last = Sec::all();
        for s in &bl.stmts {
            last = self.stmt(b, s);
        }
        self.leave(b, mark, last)
    }

    /// A text shown to `viewers` (or a var they read written): report what they may not read,
    /// keep what depends on the arguments.
    pub(super) fn sink(
        &mut self,
        b: &mut Body,
        sink: Sink,
        at: Span,
        viewers: Viewers,
        sight: Sight,
    ) {
        if matches!(sink, Sink::Write(_) | Sink::WriteField(_))
            && !sight.has(Atom::Answer)
            && !has_args(&sight)
        {
            return;
        }
        // A write is warned of for what a var's declared visibility hides. What is known of a
        // card, and an answer given in secret, the rules tell as the game goes (a challenge
        // shows the card it is about, an answer is acted on in the open), which the checker
        // cannot follow into vars.
        let stored = matches!(sink, Sink::Stored(_) | Sink::StoredField(_));
        if self.report
            && !self.muted
            && (!matches!(sink, Sink::Write(_) | Sink::WriteField(_)) || sight.has(Atom::Answer))
        {
            for &(a, read) in &sight.0 {
                if stored && matches!(a, Atom::Nobody(false) | Atom::Seat(_, false)) {
                    continue;
                }
                let (hidden, var) = match a {
                    Atom::Nobody(v) => (true, v),
                    Atom::Seat(t, v) => (viewers != Viewers::One(Some(t)), v),
                    _ => (false, false),
                };
                if !hidden {
                    continue;
                }
                if stored {
                    // One warning per write, and per hidden read within a body: the writes a
                    // hidden condition decides all tell the same; a write already reported as
                    // another mistake (an answer written) is not reported again.
                    let told = self.found.iter().any(|f| {
                        (f.at == at && f.sink != sink)
                            || (matches!(f.sink, Sink::Stored(_) | Sink::StoredField(_))
                                && f.body == b.id
                                && f.read == read
                                && f.at != at)
                    });
                    if told {
                        continue;
                    }
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
                        who: None,
                        body: b.id,
                    }),
                }
            }
        }
        // A write is kept even when nothing of the arguments decides it: the call may be made
        // only as a secret says.
        if has_args(&sight) || stored {
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
                let full = sum.obs.len() >= MAX_OBS;
                match sum.obs.iter_mut().find(|o| o.at == at && o.sink == sink) {
                    Some(o) => o.sight.meet(&keep),
                    // Past `MAX_OBS`, a text joins one of its kind already kept (checked with
                    // the meet of both: a leak in either is still reported, at the first).
                    None if full => {
                        let same = sum
                            .obs
                            .iter_mut()
                            .find(|o| o.sink == sink && o.viewers == viewers);
                        match same {
                            Some(o) => o.sight.meet(&keep),
                            None => sum.obs.push(Ob {
                                sink,
                                at,
                                viewers,
                                sight: keep,
                            }),
                        }
                    }
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

    pub(super) fn stmt(&mut self, b: &mut Body, s: &Stmt) -> Sec {
        let at = s.span;
        match &s.kind {
            StmtKind::Let(slot, e) => {
                let v = self.expr(b, e);
                let term = self.term(b, e);
                let nonempty = self.known_nonempty(b, e);
                self.bind(b, *slot, v, site(at), term);
                if let Some(s) = b.slots.get_mut(*slot as usize) {
                    s.nonempty = nonempty && s.term.is_some();
                }
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
                            x.nonempty = false;
                        }
                    }
                    Place::Var(id, keys) => {
                        let domains = self.prog.vars.get(*id as usize).map(|v| &v.keys[..]);
                        let (k, _) = self.keys(b, domains.unwrap_or(&[]), keys);
                        let mut sight = v.told();
                        sight.meet(&k);
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
                            if b.secret {
                                self.sink(b, Sink::Write(*id), at, viewers, sight);
                            }
                            let stored = stored_sight(b, &v, &k);
                            self.sink(b, Sink::Stored(*id), at, viewers, stored);
                        }
                    }
                    Place::Field(card, sym) => {
                        // A card's `var` field is seen with the card: by who knows it.
                        let c = self.expr(b, card);
                        let viewers = match &c.cards.0[..] {
                            [] => Some(Viewers::Everyone),
                            [(Atom::Seat(t, _), _)] => Some(Viewers::One(Some(*t))),
                            _ => None,
                        };
                        if let Some(viewers) = viewers {
                            if b.secret {
                                let sight = v.told();
                                self.sink(b, Sink::WriteField(*sym), at, viewers, sight);
                            }
                            let stored = stored_sight(b, &v, &Sight::all());
                            self.sink(b, Sink::StoredField(*sym), at, viewers, stored);
                        }
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
                    self.now_known(b, *slot, seen);
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
                        self.term(b, p)
                            .map(|t| Sight::one(Atom::Seat(t, false), p.span))
                    }
                    None => Some(Sight::all()),
                };
                // The cards a local holds are known, from now on, to whom they were shown.
                if let (ExprKind::Local(slot), Some(t)) = (&e.kind, t) {
                    self.now_known(b, *slot, t);
                }
            }
            StmtKind::Shuffle(e) | StmtKind::Flip(e, _) | StmtKind::Eliminate(e) => {
                self.expr(b, e);
            }
            StmtKind::For(slot, src, body) => {
                let v = self.expr(b, src);
                // The body runs once per element: as often as the list is long.
                let runs = v.emptiness();
                self.looped(b, &runs, |me, b| {
                    let mark = b.bound.len();
                    me.bind(b, *slot, v.clone(), site(at), None);
                    me.block(b, body);
                    b.bound.truncate(mark);
                });
            }
            StmtKind::Repeat(n, body) => {
                let runs = self.expr(b, n).decides();
                self.looped(b, &runs, |me, b| {
                    me.block(b, body);
                });
            }
            StmtKind::RepeatUntil(n, c, body) => {
                let runs = self.expr(b, n).decides();
                self.looped(b, &runs, |me, b| {
                    // Whether it runs again is the condition's.
                    let c = me.expr(b, c).decides();
                    let mark = b.enter(c);
                    me.block(b, body);
                    b.leave(mark);
                });
            }
            StmtKind::Say(e) => {
                let before = b.observed;
                b.observed = true;
                let v = self.expr(b, e);
                b.observed = before;
                self.sink(b, Sink::Say, e.span, Viewers::Everyone, v.val);
                b.said = Some(b.runs());
                // A local said in full, whatever else runs, is told to the table: what is
                // decided by it later tells nothing more (its cards are shown as each viewer
                // knows them).
                if b.runs().0.is_empty() {
                    if let ExprKind::Text(parts) = &e.kind {
                        for p in parts {
                            if let TextPart::Expr(x) = p {
                                let x = match &x.kind {
                                    ExprKind::Builtin(def, args) if def.name == "join" => {
                                        args.first()
                                    }
                                    _ => Some(x),
                                };
                                if let Some(ExprKind::Local(slot)) = x.map(|x| &x.kind) {
                                    if let Some(s) = b.slots.get_mut(*slot as usize) {
                                        s.sec.val = Sight::all();
                                        s.sec.sel = Sight::all();
                                    }
                                }
                            }
                        }
                    }
                }
            }
            StmtKind::Return(e) => {
                if let Some(e) = e {
                    let v = self.expr(b, e);
                    if let Some(sum) = b.summary.as_mut() {
                        sum.ret.meet(&v);
                    }
                }
                // The rest of the body runs only when this did not.
                let runs = b.jumps();
                b.ret.meet(&runs);
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
            StmtKind::Break | StmtKind::Continue => {
                // The rest of the loop runs only when this did not.
                let runs = b.jumps();
                b.jump.meet(&runs);
            }
            StmtKind::EndGame => {}
            StmtKind::Expr(e) => return self.expr(b, e),
        }
        Sec::all()
    }

    /// The cards of local `slot` are known, from now on, to who `seen` says. Shown to everyone,
    /// what was decided by them is no longer hidden: the conditions around are cleared of
    /// them, and a parameter shown before anything was asked is noted in the summary.
    pub(super) fn now_known(&mut self, b: &mut Body, slot: u32, seen: Sight) {
        let Some(x) = b.slots.get_mut(slot as usize) else {
            return;
        };
        if x.term.is_none() {
            return;
        }
        let mut old = std::mem::replace(&mut x.sec.cards, seen);
        b.undo.push((slot, old.clone(), x.sec.sel.clone()));
        if !x.sec.cards.0.is_empty() {
            return;
        }
        // The table sees which card it is: that it was selected tells them nothing more.
        old.meet(&std::mem::take(&mut x.sec.sel));
        let term = x.term;
        let first = !b.asked && b.always();
        if let (Some(Term::Param(i)), Some(sum)) = (term, b.summary.as_mut()) {
            if first && !sum.shows.contains(&i) {
                sum.shows.push(i);
            }
        }
        b.shown(&old);
    }

    /// A loop's body, walked again while what its locals hold grows (at most a few times: each
    /// walk can only add atoms), or what decides a `break`, `continue` or `return` in it (the
    /// next time round runs only when they did not). `runs`: what decides how often it runs.
    pub(super) fn looped(
        &mut self,
        b: &mut Body,
        runs: &Sight,
        mut body: impl FnMut(&mut Self, &mut Body),
    ) {
        let jump = std::mem::take(&mut b.jump);
        let pc = b.enter(runs.clone());
        let mut done = false;
        for _ in 0..4 {
            let before: Vec<Sec> = b.slots.iter().map(|s| s.sec.clone()).collect();
            let (j, r) = (b.jump.clone(), b.ret.clone());
            body(self, b);
            let same = b.slots.iter().zip(&before).all(|(s, o)| s.sec.atoms_eq(o))
                && b.jump.atoms_eq(&j)
                && b.ret.atoms_eq(&r);
            if same {
                done = true;
                break;
            }
        }
        // A `break` or `continue` decides no more once the loop is left.
        b.leave(pc);
        b.jump = jump;
        if done {
            return;
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
    pub(super) fn root(
        &mut self,
        locals: u32,
        stmts: &Block,
        binds: &[(u32, Sec, Option<Term>)],
        site: u64,
    ) {
        let mut b = self.body(locals, false, None);
        for (slot, sec, term) in binds {
            self.bind(&mut b, *slot, sec.clone(), site, *term);
        }
        self.block(&mut b, stmts);
    }

    pub(super) fn pass(&mut self) {
        let prog = self.prog;
        for p in &prog.phases {
            let mut b = self.body(p.locals, false, None);
            if let Some((slot, e)) = &p.each {
                let v = self.expr(&mut b, e);
                b.enter(v.emptiness());
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
                            ty: Sort::Any,
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
                                sel: Sight::all(),
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
                                sel: Sight::all(),
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
                let c = self.expr(&mut b, c);
                b.enter(c.decides());
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
        let order = std::mem::take(&mut self.order);
        for &(k, secret) in &order {
            self.summarise(k, secret);
        }
        self.order = order;
    }
}

/// What a write to a var (or a card's `var` field) tells those who read it: the value written
/// (its cards as the viewer knows them, so not their identities; a list's length, which is what
/// selected it), the entry it goes to, and whether it is written at all (the conditions around
/// it). Of these, `sink` warns only of what a var's declared visibility hides.
fn stored_sight(b: &Body, v: &Sec, keys: &Sight) -> Sight {
    let mut s = v.val.clone();
    s.meet(&v.sel);
    s.meet(keys);
    s.meet(&b.runs());
    s
}
