//! The tree-walking interpreter. A game is a function of (program, seed, choices).

use crate::agent::{Agent, ChoiceRequest};
use crate::ast::{AggKind, AssignOp, BinOp, CardId, EventKind, Position, UnOp};
use crate::diag::{Diag, Span};
use crate::events::Event;
use crate::limits::Limits;
use crate::program::*;
use crate::rng;
use crate::value::{Items, Value};
use rand_chacha::ChaCha8Rng;
use std::rc::Rc;

const NOWHERE: u32 = u32::MAX;

pub type R<T> = Result<T, Box<Diag>>;

fn rt(span: Span, msg: impl Into<String>) -> Box<Diag> {
    Box::new(Diag::error("run::error", msg).label(span, "while evaluating this"))
}

/// Everything that changes during a game. Cloning it is cheap enough to snapshot.
#[derive(Debug, Clone)]
pub struct State {
    pub n_players: u32,
    pub round: i64,
    pub phase: Option<Id>,
    pub vars: Vec<Value>,
    pub var_base: Vec<u32>,
    pub zones: Vec<Vec<u32>>,
    pub zone_base: Vec<u32>,
    pub card_zone: Vec<u32>,
    pub face_up: Vec<bool>,
    pub card_vars: Vec<Value>,
    pub card_var_base: Vec<u32>,
    pub consts: Vec<Value>,
    pub rng: ChaCha8Rng,
    pub finished: bool,
    pub steps: u64,
    pub choices_made: u64,
}

/// One answered choice, as written to a `--log` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChoiceRecord {
    pub player: u32,
    pub index: usize,
    pub label: String,
}

/// Where a game stands between segments.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(tag = "at", rename_all = "snake_case")]
pub enum Pos {
    /// Before setup (constants and vars are initialised).
    Setup,
    /// Before phase `index` of the round's list in round `round`.
    Phase { round: i64, index: usize },
    /// Before the `finish` phase and the winner.
    Finish,
    /// The game is over.
    Done,
}

#[derive(Debug, Clone)]
pub struct Outcome {
    pub winners: Vec<u32>,
    pub scores: Vec<i64>,
}

pub struct Interp<'p> {
    pub prog: &'p Program,
    pub state: State,
    pub limits: Limits,
    pub agents: Vec<Box<dyn Agent>>,
    /// Collected events, when recording.
    pub events: Vec<Event>,
    pub record: bool,
    pub choice_log: Vec<ChoiceRecord>,
    /// Locals of every active frame. It only grows; `sp` marks its live top. The checker
    /// guarantees a local is written before it is read, so frames are not cleared.
    stack: Vec<Value>,
    /// For each stack slot, the span of the `let` or `set` that last wrote it, so an error about
    /// a local's value can point at the rule that made it.
    origins: Vec<Span>,
    sp: usize,
    bp: usize,
    call_depth: usize,
    trigger_depth: usize,
    /// Spans of the triggers now running, innermost last.
    trigger_chain: Vec<Span>,
    secret_depth: usize,
    enter_triggers: Vec<Vec<usize>>,
    /// The size of each key domain of each zone family and var family, for this player count.
    zone_dims: Vec<Vec<u32>>,
    /// `players`, built once.
    players: Rc<Items>,
    var_dims: Vec<Vec<u32>>,
    seed: u64,
    /// The value of a `return` on its way out to `call_fn`.
    returning: Option<Value>,
    /// The result, once the game is over.
    pub outcome: Option<Outcome>,
    /// Inside a `say` or a choice's labels: nothing may change the game.
    displaying: u32,
}

const RETURN_CODE: &str = "run::return";

/// How many keys a key domain has in a game of `n_players`.
pub fn key_count(d: &KeyDomain, n_players: u32, prog: &Program) -> u32 {
    match d {
        KeyDomain::Player => n_players,
        KeyDomain::Enum(e) => prog.enums[*e as usize].variants.len() as u32,
        KeyDomain::Range(a, b) => (b - a + 1) as u32,
    }
}

fn family_size(keys: &[KeyDomain], n: u32, prog: &Program) -> u32 {
    keys.iter()
        .map(|k| key_count(k, n, prog))
        .product::<u32>()
        .max(1)
}

impl<'p> Interp<'p> {
    pub fn new(
        prog: &'p Program,
        n_players: u32,
        seed: u64,
        agents: Vec<Box<dyn Agent>>,
        limits: Limits,
    ) -> R<Self> {
        let g = &prog.game;
        // A card set without a `game` block (max 0) can still be inspected and checked.
        if g.max_players > 0 && (n_players < g.min_players || n_players > g.max_players) {
            let allowed = if g.min_players == g.max_players {
                format!("{}", g.min_players)
            } else {
                format!("{} to {}", g.min_players, g.max_players)
            };
            return Err(Box::new(
                Diag::error(
                    "run::players",
                    format!("{} is played by {allowed} players, not {n_players}", g.name),
                )
                .help(format!("use `--players` with a number from {allowed}")),
            ));
        }
        let mut var_base = Vec::new();
        let mut total = 0u32;
        for v in &prog.vars {
            var_base.push(total);
            total += family_size(&v.keys, n_players, prog);
        }
        let vars = vec![Value::None; total as usize];
        let mut zone_base = Vec::new();
        let mut ztotal = 0u32;
        for z in &prog.zones {
            zone_base.push(ztotal);
            ztotal += family_size(&z.keys, n_players, prog);
        }
        let mut card_vars = Vec::new();
        let mut card_var_base = Vec::new();
        for c in &prog.cards {
            card_var_base.push(card_vars.len() as u32);
            card_vars.extend(c.vars.iter().cloned());
        }
        let mut enter_triggers = vec![Vec::new(); prog.zones.len()];
        for (i, t) in prog.triggers.iter().enumerate() {
            if t.event == EventKind::Enter {
                if let Some(z) = t.target {
                    enter_triggers[z as usize].push(i);
                }
            }
        }
        let state = State {
            n_players,
            round: 0,
            phase: None,
            vars,
            var_base,
            zones: vec![Vec::new(); ztotal as usize],
            zone_base,
            card_zone: vec![NOWHERE; prog.cards.len()],
            face_up: vec![true; prog.cards.len()],
            card_vars,
            card_var_base,
            consts: vec![Value::None; prog.consts.len()],
            rng: rng::new_rng(seed),
            finished: false,
            steps: 0,
            choices_made: 0,
        };
        Ok(Interp {
            prog,
            state,
            limits,
            agents,
            events: Vec::new(),
            record: true,
            choice_log: Vec::new(),
            stack: vec![Value::None; 256],
            origins: vec![Span::default(); 256],
            sp: 0,
            bp: 0,
            call_depth: 0,
            trigger_depth: 0,
            trigger_chain: Vec::new(),
            secret_depth: 0,
            enter_triggers,
            players: Rc::new(Items::new((0..n_players).map(Value::Player).collect())),
            zone_dims: prog
                .zones
                .iter()
                .map(|z| {
                    z.keys
                        .iter()
                        .map(|k| key_count(k, n_players, prog))
                        .collect()
                })
                .collect(),
            var_dims: prog
                .vars
                .iter()
                .map(|v| {
                    v.keys
                        .iter()
                        .map(|k| key_count(k, n_players, prog))
                        .collect()
                })
                .collect(),
            seed,
            returning: None,
            outcome: None,
            displaying: 0,
        })
    }

    fn emit(&mut self, e: impl FnOnce(&Self) -> Event) {
        if self.record {
            let ev = e(self);
            self.events.push(ev);
        }
    }

    // ================================================================ game flow

    /// Evaluate constants and initial values of vars: the state before setup.
    pub fn init(&mut self) -> R<()> {
        let prog = self.prog;
        let (name, n, seed) = (prog.game.name.clone(), self.state.n_players, self.seed);
        self.emit(|_| Event::Start {
            game: name,
            players: n,
            seed,
        });
        for &c in &prog.const_order {
            let cd = &prog.consts[c as usize];
            let v = self.with_frame(cd.locals, |me| me.eval(&cd.value))?;
            self.state.consts[c as usize] = v;
        }
        for (i, v) in prog.vars.iter().enumerate() {
            let init = self.with_frame(v.locals, |me| me.eval(&v.init))?;
            let init = match (v.bounds, &init) {
                (Some((lo, hi)), Value::Int(x)) => Value::Int((*x).clamp(lo, hi)),
                _ => init,
            };
            let base = self.state.var_base[i] as usize;
            let size = family_size(&v.keys, self.state.n_players, prog) as usize;
            for slot in base..base + size {
                self.state.vars[slot] = init.clone();
            }
        }
        Ok(())
    }

    pub fn setup(&mut self) -> R<()> {
        let prog = self.prog;
        for (b, locals) in &prog.setup {
            self.with_frame(*locals, |me| me.exec_block(b).map(|_| Value::None))?;
        }
        Ok(())
    }

    /// Play a whole game: init, setup, rounds, finish, winner.
    pub fn run(&mut self) -> R<Outcome> {
        self.init()?;
        let mut pos = Pos::Setup;
        while pos != Pos::Done {
            pos = self.step(pos)?;
        }
        Ok(self.outcome.take().unwrap_or(Outcome {
            winners: vec![],
            scores: vec![],
        }))
    }

    /// Run the segment of the game at `pos` (setup, one phase, or the finish) and return where
    /// the game goes next. Between segments the whole game is its `State`, so a caller can
    /// snapshot it there and resume later (the REPL's undo does).
    pub fn step(&mut self, pos: Pos) -> R<Pos> {
        let prog = self.prog;
        match pos {
            Pos::Setup => {
                self.setup()?;
                // Between segments the state already names the round about to start.
                self.state.round = 1;
                Ok(Pos::Phase { round: 1, index: 0 })
            }
            Pos::Phase { round, index } => {
                let Some(&phase) = prog.game.round_phases.get(index) else {
                    return Ok(Pos::Finish);
                };
                if index == 0 {
                    self.state.round = round;
                    self.emit(|_| Event::Round { round });
                    self.fire_simple(EventKind::RoundStart, None)?;
                }
                self.run_phase(phase)?;
                if self.state.finished || self.end_reached()? {
                    return Ok(Pos::Finish);
                }
                if index + 1 < prog.game.round_phases.len() {
                    return Ok(Pos::Phase {
                        round,
                        index: index + 1,
                    });
                }
                self.fire_simple(EventKind::RoundEnd, None)?;
                match prog.game.rounds {
                    Some(max) if round >= max => Ok(Pos::Finish),
                    _ => {
                        self.state.round = round + 1;
                        Ok(Pos::Phase {
                            round: round + 1,
                            index: 0,
                        })
                    }
                }
            }
            Pos::Finish => {
                if let Some(f) = prog.game.finish {
                    self.run_phase(f)?;
                }
                let outcome = self.winner()?;
                self.outcome = Some(outcome);
                Ok(Pos::Done)
            }
            Pos::Done => Ok(Pos::Done),
        }
    }

    fn end_reached(&mut self) -> R<bool> {
        let prog = self.prog;
        match &prog.game.end_when {
            Some((e, locals)) => {
                let v = self.with_frame(*locals, |me| me.eval(e))?;
                Ok(v == Value::Bool(true))
            }
            None => Ok(false),
        }
    }

    pub fn run_phase(&mut self, p: Id) -> R<()> {
        let prog = self.prog;
        let pd = &prog.phases[p as usize];
        self.state.phase = Some(p);
        let name = pd.name.clone();
        self.emit(|_| Event::Phase { phase: name });
        self.fire_simple(EventKind::PhaseStart, Some(p))?;
        self.with_frame(pd.locals, |me| me.exec_block(&pd.body).map(|_| Value::None))?;
        self.fire_simple(EventKind::PhaseEnd, Some(p))?;
        Ok(())
    }

    fn winner(&mut self) -> R<Outcome> {
        let prog = self.prog;
        let n = self.state.n_players;
        let Some(score) = prog.game.score else {
            self.emit(|_| Event::End {
                winners: vec![],
                scores: vec![],
            });
            return Ok(Outcome {
                winners: vec![],
                scores: vec![],
            });
        };
        let mut keys: Vec<Vec<i64>> = Vec::new();
        for p in 0..n {
            let mut k = Vec::new();
            for f in std::iter::once(score).chain(prog.game.tiebreaks.iter().copied()) {
                let v = self.call_fn(f, vec![Value::Player(p)], prog.fns[f as usize].span)?;
                k.push(match v {
                    Value::Int(i) => i,
                    Value::Bool(b) => b as i64,
                    _ => 0,
                });
            }
            keys.push(k);
        }
        let best = keys.iter().max().cloned().unwrap_or_default();
        let winners: Vec<u32> = (0..n).filter(|&p| keys[p as usize] == best).collect();
        let scores: Vec<i64> = keys
            .iter()
            .map(|k| k.first().copied().unwrap_or(0))
            .collect();
        let (wn, sc) = (
            winners.iter().map(|p| format!("P{}", p + 1)).collect(),
            scores
                .iter()
                .enumerate()
                .map(|(p, s)| (format!("P{}", p + 1), *s))
                .collect(),
        );
        self.emit(|_| Event::End {
            winners: wn,
            scores: sc,
        });
        Ok(Outcome { winners, scores })
    }

    fn fire_simple(&mut self, kind: EventKind, target: Option<Id>) -> R<()> {
        let prog = self.prog;
        for t in &prog.triggers {
            if t.event == kind && (target.is_none() || t.target == target) {
                self.run_trigger(t, None)?;
            }
        }
        Ok(())
    }

    fn run_trigger(&mut self, t: &TriggerDef, bound: Option<Value>) -> R<()> {
        if self.trigger_depth >= self.limits.max_trigger_depth {
            let mut d = Diag::error(
                "limit::triggers",
                format!(
                    "triggers fired triggers more than {} deep",
                    self.limits.max_trigger_depth
                ),
            )
            .label(t.span, "this trigger fired once too often");
            // Every distinct trigger in the running chain, so a loop of several shows whole.
            let mut seen = vec![t.span];
            for s in self.trigger_chain.iter().rev() {
                if !seen.contains(s) {
                    seen.push(*s);
                    d = d.label(*s, "part of the same chain");
                }
            }
            let help = if seen.len() > 1 {
                "these triggers keep causing each other's events; add a `where` condition to one"
            } else {
                "this trigger causes its own event; add a `where` condition"
            };
            return Err(Box::new(d.help(help)));
        }
        self.trigger_depth += 1;
        self.trigger_chain.push(t.span);
        let r = self.with_frame(t.locals, |me| {
            if let (Some(slot), Some(v)) = (t.binding, bound) {
                me.set_local(slot, v);
            }
            if let Some(c) = &t.condition {
                if me.eval(c)? != Value::Bool(true) {
                    return Ok(Value::None);
                }
            }
            me.exec_block(&t.body).map(|_| Value::None)
        });
        self.trigger_depth -= 1;
        self.trigger_chain.pop();
        r.map(|_| ())
    }

    /// Evaluate a block lowered on its own (a REPL line) in a fresh frame whose first locals
    /// are `init`; returns the value and the frame's locals afterwards.
    pub fn eval_block(&mut self, b: &Block, locals: u32, init: &[Value]) -> R<(Value, Vec<Value>)> {
        let n = (locals as usize).max(init.len());
        let old_bp = self.bp;
        let bp = self.push_frame(n);
        self.bp = bp;
        for (i, v) in init.iter().enumerate() {
            self.stack[bp + i] = v.clone();
        }
        let r = self.exec_block(b);
        let frame = self.stack[bp..bp + n].to_vec();
        self.sp = bp;
        self.bp = old_bp;
        r.map(|v| (v, frame))
    }

    // ================================================================ frames

    #[inline(always)]
    fn push_frame(&mut self, locals: usize) -> usize {
        let new_bp = self.sp;
        self.sp = new_bp + locals;
        if self.sp > self.stack.len() {
            let n = self.sp.max(self.stack.len() * 2);
            self.stack.resize(n, Value::None);
            self.origins.resize(n, Span::default());
        }
        new_bp
    }

    pub fn with_frame(&mut self, locals: u32, f: impl FnOnce(&mut Self) -> R<Value>) -> R<Value> {
        let old_bp = self.bp;
        let new_bp = self.push_frame(locals as usize);
        self.bp = new_bp;
        let r = f(self);
        self.sp = new_bp;
        self.bp = old_bp;
        r
    }

    #[inline(always)]
    fn set_local(&mut self, slot: u32, v: Value) {
        let i = self.bp + slot as usize;
        if let Some(cell) = self.stack.get_mut(i) {
            *cell = v;
        }
    }

    #[inline(always)]
    fn local(&self, slot: u32) -> Value {
        self.stack
            .get(self.bp + slot as usize)
            .cloned()
            .unwrap_or(Value::None)
    }

    #[inline(always)]
    fn tick(&mut self, span: Span) -> R<()> {
        self.state.steps += 1;
        if self.state.steps > self.limits.max_steps {
            return Err(self.out_of_steps(span));
        }
        Ok(())
    }

    #[cold]
    fn out_of_steps(&self, span: Span) -> Box<Diag> {
        Box::new(
            Diag::error(
                "limit::steps",
                format!(
                    "the game took more than {} evaluation steps",
                    self.limits.max_steps
                ),
            )
            .label(span, "the budget ran out here")
            .help("a loop or trigger probably runs far more often than intended"),
        )
    }

    // ================================================================ statements

    fn exec_block(&mut self, b: &Block) -> R<Value> {
        let mut last = Value::None;
        for s in &b.stmts {
            last = self.exec(s)?;
        }
        Ok(last)
    }

    fn exec(&mut self, s: &Stmt) -> R<Value> {
        self.tick(s.span)?;
        if self.displaying > 0 {
            let changes = match &s.kind {
                StmtKind::Assign(Place::Local(_), _, _) => false,
                StmtKind::Assign(..)
                | StmtKind::Move(..)
                | StmtKind::Draw(..)
                | StmtKind::Shuffle(_)
                | StmtKind::Flip(..)
                | StmtKind::Reveal(_) => true,
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
            StmtKind::Move(what, to, pos) => {
                let v = self.eval(what)?;
                let dest = self.zone_slot(to)?;
                if let Value::Card(c) = v {
                    self.move_cards(&[c], dest, *pos, to.span)?;
                } else {
                    let mut cards = Vec::new();
                    self.collect_cards(&v, &mut cards, what.span)?;
                    self.move_cards(&cards, dest, *pos, to.span)?;
                }
            }
            StmtKind::Draw(n, from, to) => {
                let n = self.int(n)?;
                let src = self.zone_slot(from)?;
                let dest = self.zone_slot(to)?;
                let take = (n.max(0) as usize).min(self.state.zones[src as usize].len());
                let cards: Vec<u32> = self.state.zones[src as usize][..take].to_vec();
                self.move_cards(&cards, dest, Position::Bottom, to.span)?;
            }
            StmtKind::Shuffle(z) => {
                let slot = self.zone_slot(z)?;
                let mut cards = std::mem::take(&mut self.state.zones[slot as usize]);
                rng::shuffle(&mut self.state.rng, &mut cards);
                self.state.zones[slot as usize] = cards;
                self.emit(|me| Event::Shuffle {
                    zone: me.zone_name(slot),
                });
            }
            StmtKind::Flip(what, dir) => {
                let cards = self.cards_of(what)?;
                for c in cards {
                    let now = match dir {
                        Some(up) => *up,
                        None => !self.state.face_up[c as usize],
                    };
                    self.state.face_up[c as usize] = now;
                    self.emit(|me| Event::Flip {
                        card: me.card_name(c),
                        face_up: now,
                    });
                    let prog = self.prog;
                    for t in &prog.triggers {
                        if t.event == EventKind::Flip {
                            self.run_trigger(t, Some(Value::Card(c)))?;
                        }
                    }
                }
            }
            StmtKind::Reveal(what) => {
                let v = self.eval(what)?;
                let items = self.as_list(&v, what.span)?;
                self.emit(|me| Event::Reveal {
                    cards: items.iter().map(|v| me.show(v)).collect(),
                });
            }
            StmtKind::For(slot, src, body) => {
                // `for` walks a snapshot: the body may move the cards it iterates over.
                let items = match self.eval_source(src)? {
                    Source::Zone(z) => Source::Cards(self.state.zones[z as usize].clone()),
                    other => other,
                };
                for i in 0..items.len(&self.state) {
                    let Some(item) = items.get(&self.state, i) else {
                        break;
                    };
                    self.tick(s.span)?;
                    self.set_local(*slot, item);
                    self.exec_block(body)?;
                }
            }
            StmtKind::Repeat(n, body) => {
                let n = self.int(n)?;
                for _ in 0..n.max(0) {
                    self.tick(s.span)?;
                    self.exec_block(body)?;
                }
            }
            StmtKind::Say(e) => {
                // Only evaluated when something shows it, so it may not change the game.
                if self.record {
                    self.displaying += 1;
                    let v = self.eval(e);
                    self.displaying -= 1;
                    let text = self.show(&v?);
                    self.events.push(Event::Say { text });
                }
            }
            StmtKind::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(e)?,
                    None => Value::None,
                };
                self.returning = Some(v);
                // The signal carries no text: `call_fn` catches it by its code.
                return Err(Box::new(Diag {
                    severity: crate::diag::Severity::Error,
                    code: RETURN_CODE,
                    message: String::new(),
                    labels: Vec::new(),
                    help: None,
                }));
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

    fn assign(&mut self, place: &Place, op: AssignOp, v: Value, span: Span) -> R<()> {
        let combine = |old: &Value, v: Value| -> R<Value> {
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
        };
        match place {
            Place::Local(slot) => {
                let old = self.local(*slot);
                let nv = combine(&old, v)?;
                self.set_local(*slot, nv);
                self.set_origin(*slot, span);
            }
            Place::Var(id, keys) => {
                let slot = self.var_slot(*id, keys, span)?;
                let old = self.state.vars[slot].clone();
                let mut nv = combine(&old, v)?;
                if let (Some((lo, hi)), Value::Int(x)) = (self.prog.vars[*id as usize].bounds, &nv)
                {
                    nv = Value::Int((*x).clamp(lo, hi));
                }
                self.state.vars[slot] = nv;
            }
            Place::Field(card, sym) => {
                let c = match self.eval(card)? {
                    Value::Card(c) => c,
                    other => {
                        return Err(rt(
                            card.span,
                            format!("expected a card, found {}", other.type_name()),
                        ))
                    }
                };
                let prog = self.prog;
                let cd = &prog.cards[c as usize];
                let kd = &prog.kinds[cd.kind as usize];
                match kd.slot_of.get(*sym as usize).copied().flatten() {
                    Some((true, i)) => {
                        let idx = (self.state.card_var_base[c as usize] + i) as usize;
                        let old = self.state.card_vars[idx].clone();
                        self.state.card_vars[idx] = combine(&old, v)?;
                    }
                    _ => {
                        return Err(rt(
                            span,
                            format!(
                                "card `{}` ({}) has no var field `{}`",
                                cd.id, kd.name, prog.symbols[*sym as usize]
                            ),
                        ))
                    }
                }
            }
        }
        Ok(())
    }

    pub fn move_cards(&mut self, cards: &[u32], dest: u32, pos: Position, span: Span) -> R<()> {
        let prog = self.prog;
        let dest_def = self.zone_def_of_slot(dest);
        if let Some(kind) = prog.zones[dest_def as usize].kind {
            for &c in cards {
                if prog.cards[c as usize].kind != kind {
                    return Err(rt(
                        span,
                        format!(
                            "card `{}` is a {}, but zone `{}` holds only {} cards",
                            prog.cards[c as usize].id,
                            prog.kinds[prog.cards[c as usize].kind as usize].name,
                            prog.zones[dest_def as usize].name,
                            prog.kinds[kind as usize].name
                        ),
                    ));
                }
            }
        }
        for (i, &c) in cards.iter().enumerate() {
            let from = self.state.card_zone[c as usize];
            if from != NOWHERE {
                let z = &mut self.state.zones[from as usize];
                if let Some(p) = z.iter().position(|&x| x == c) {
                    z.remove(p);
                }
            }
            let z = &mut self.state.zones[dest as usize];
            match pos {
                Position::Bottom => z.push(c),
                Position::Top => z.insert(i.min(z.len()), c),
            }
            self.state.card_zone[c as usize] = dest;
        }
        if !cards.is_empty() {
            self.emit(|me| Event::Move {
                cards: cards.iter().map(|&c| me.card_name(c)).collect(),
                to: me.zone_name(dest),
            });
        }
        if !self.enter_triggers[dest_def as usize].is_empty() {
            let triggers = self.enter_triggers[dest_def as usize].clone();
            for &c in cards {
                for &t in &triggers {
                    let td = &prog.triggers[t];
                    self.run_trigger(td, Some(Value::Card(c)))?;
                }
            }
        }
        Ok(())
    }

    // ================================================================ helpers

    pub fn view(&self) -> View<'_> {
        View {
            prog: self.prog,
            n_players: self.state.n_players,
            zone_base: &self.state.zone_base,
        }
    }

    pub fn zone_def_of_slot(&self, slot: u32) -> u32 {
        self.view().zone_def_of_slot(slot)
    }

    fn flat_key(
        &mut self,
        domains: &[KeyDomain],
        dims_of: (bool, Id),
        keys: &[Expr],
        span: Span,
    ) -> R<u32> {
        if keys.len() != domains.len() {
            return Err(rt(span, "wrong number of keys"));
        }
        let mut idx = 0u32;
        for (i, (d, k)) in domains.iter().zip(keys).enumerate() {
            let v = self.eval(k)?;
            let dims = if dims_of.0 {
                &self.zone_dims
            } else {
                &self.var_dims
            };
            let n = dims[dims_of.1 as usize][i];
            let j = match (d, &v) {
                (KeyDomain::Player, Value::Player(p)) if *p < n => *p,
                (KeyDomain::Enum(e), Value::Enum(e2, x)) if e == e2 && *x < n => *x,
                (KeyDomain::Range(lo, _), Value::Int(x)) if *x >= *lo && x - lo < n as i64 => {
                    (x - lo) as u32
                }
                _ => return Err(self.bad_key(d, &v, k.span, dims_of)),
            };
            idx = idx * n + j;
        }
        Ok(idx)
    }

    #[cold]
    fn bad_key(&self, d: &KeyDomain, v: &Value, span: Span, family: (bool, Id)) -> Box<Diag> {
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

    fn var_slot(&mut self, id: Id, keys: &[Expr], span: Span) -> R<usize> {
        let prog = self.prog;
        let off = self.flat_key(&prog.vars[id as usize].keys, (false, id), keys, span)?;
        Ok((self.state.var_base[id as usize] + off) as usize)
    }

    fn zone_slot(&mut self, e: &Expr) -> R<u32> {
        match self.eval(e)? {
            Value::Zone(z) => Ok(z),
            other => Err(rt(
                e.span,
                format!("expected a zone, found {}", other.type_name()),
            )),
        }
    }

    fn cards_of(&mut self, e: &Expr) -> R<Vec<u32>> {
        let v = self.eval(e)?;
        let mut out = Vec::new();
        self.collect_cards(&v, &mut out, e.span)?;
        Ok(out)
    }

    fn collect_cards(&self, v: &Value, out: &mut Vec<u32>, span: Span) -> R<()> {
        match v {
            Value::None => {}
            Value::Card(c) => out.push(*c),
            Value::Zone(z) => out.extend(self.state.zones[*z as usize].iter().copied()),
            Value::List(items) => {
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
    fn eval_source(&mut self, e: &Expr) -> R<Source> {
        if let ExprKind::Binary(BinOp::Range, a, b) = &e.kind {
            let lo = self.int(a)?;
            let hi = self.int(b)?;
            return Ok(Source::Range(lo, hi));
        }
        Ok(match self.eval(e)? {
            Value::Zone(z) => Source::Zone(z),
            Value::List(l) => Source::List(l),
            Value::None => Source::Cards(Vec::new()),
            other => {
                return Err(rt(
                    e.span,
                    format!("expected a list, found {}", other.type_name()),
                ))
            }
        })
    }

    fn as_list(&self, v: &Value, span: Span) -> R<Rc<Items>> {
        match v {
            Value::List(l) => Ok(l.clone()),
            Value::Zone(z) => Ok(Rc::new(Items::new(
                self.state.zones[*z as usize]
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

    fn int(&mut self, e: &Expr) -> R<i64> {
        match self.eval(e)? {
            Value::Int(n) => Ok(n),
            other => Err(self.with_origin(
                rt(
                    e.span,
                    format!("expected a number, found {}", other.type_name()),
                ),
                e,
            )),
        }
    }

    fn boolean(&mut self, e: &Expr) -> R<bool> {
        match self.eval(e)? {
            Value::Bool(b) => Ok(b),
            other => Err(self.with_origin(
                rt(
                    e.span,
                    format!("expected true or false, found {}", other.type_name()),
                ),
                e,
            )),
        }
    }

    #[cold]
    fn not_while_displaying(&self, span: Span) -> Box<Diag> {
        Box::new(
            Diag::error("run::display_effect", "a `say` or a choice's labels cannot change the game")
                .label(span, "this would change the game")
                .help("text for showing is only worked out when something shows it; make the change in a statement of its own"),
        )
    }

    fn set_origin(&mut self, slot: u32, span: Span) {
        if let Some(o) = self.origins.get_mut(self.bp + slot as usize) {
            *o = span;
        }
    }

    /// Where the value of `e` was made, when that is somewhere else: the `let` or `set` of a
    /// local, or the function that returned it.
    fn origin(&self, e: &Expr) -> Option<(Span, String)> {
        match &e.kind {
            ExprKind::Local(slot) => self
                .origins
                .get(self.bp + *slot as usize)
                .filter(|s| **s != Span::default())
                .map(|s| (*s, "the value was made here".to_string())),
            ExprKind::Call(f, _) => self
                .prog
                .fns
                .get(*f as usize)
                .map(|fd| (fd.body.span, format!("returned by `{}`", fd.name))),
            ExprKind::Field(base, _) | ExprKind::TupleIndex(base, _) => self.origin(base),
            _ => None,
        }
    }

    #[cold]
    fn with_origin(&self, d: Box<Diag>, e: &Expr) -> Box<Diag> {
        match self.origin(e) {
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

    /// A value as text, for `say`, interpolation and option labels.
    pub fn show(&self, v: &Value) -> String {
        self.view().show(v)
    }

    pub fn field(&self, c: u32, sym: Id, span: Span) -> R<Value> {
        let prog = self.prog;
        let cd = &prog.cards[c as usize];
        let kd = &prog.kinds[cd.kind as usize];
        match kd.slot_of.get(sym as usize).copied().flatten() {
            Some((false, i)) => Ok(cd.fields[i as usize].clone()),
            Some((true, i)) => Ok(self.state.card_vars
                [(self.state.card_var_base[c as usize] + i) as usize]
                .clone()),
            None => Err(rt(
                span,
                format!(
                    "card `{}` ({}) has no field `{}`",
                    cd.id, kd.name, prog.symbols[sym as usize]
                ),
            )),
        }
    }

    // ================================================================ expressions

    pub fn eval(&mut self, e: &Expr) -> R<Value> {
        // Steps are counted on statements, loop iterations and calls: an expression without
        // those is bounded by its own size, so this still bounds every runaway.
        match &e.kind {
            ExprKind::Const(v) => Ok(v.clone()),
            ExprKind::Local(slot) => Ok(self.local(*slot)),
            ExprKind::Field(base, sym) => match self.eval(base)? {
                Value::Card(c) => self.field(c, *sym, e.span),
                other => Err(self.not_a_card(base, &other, *sym)),
            },
            ExprKind::Call(f, args) => self.call_with_args(*f, args, e.span),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e.span),
            _ => self.eval_slow(e),
        }
    }

    #[cold]
    fn not_a_card(&self, base: &Expr, v: &Value, sym: Id) -> Box<Diag> {
        match v {
            Value::None => self.with_origin(
                Box::new(
                    Diag::error(
                        "run::none",
                        format!("this is `none`, so it has no field `{}`", self.prog.symbols[sym as usize]),
                    )
                    .label(base.span, "this is `none`")
                    .help("an empty zone's `top` or an empty choice gives `none`; check with `if x != none { ... }`"),
                ),
                base,
            ),
            other => self.with_origin(rt(base.span, format!("expected a card, found {}", other.type_name())), base),
        }
    }

    /// The less frequent expression forms, kept out of `eval` so its frame stays small.
    #[inline(never)]
    fn eval_slow(&mut self, e: &Expr) -> R<Value> {
        Ok(match &e.kind {
            ExprKind::Const(v) => v.clone(),
            ExprKind::Local(s) => self.local(*s),
            ExprKind::Var(id, keys) => {
                let slot = self.var_slot(*id, keys, e.span)?;
                self.state.vars[slot].clone()
            }
            ExprKind::Zone(id, keys) => {
                let prog = self.prog;
                let off =
                    self.flat_key(&prog.zones[*id as usize].keys, (true, *id), keys, e.span)?;
                Value::Zone(self.state.zone_base[*id as usize] + off)
            }
            ExprKind::ConstRef(c) => self.state.consts[*c as usize].clone(),
            ExprKind::KindCards(k) => Value::list(
                self.prog
                    .cards
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.kind == *k)
                    .map(|(i, _)| Value::Card(i as u32))
                    .collect(),
            ),
            ExprKind::Special(s) => match s {
                Special::Players => Value::List(self.players.clone()),
                Special::PlayerCount => Value::Int(self.state.n_players as i64),
                Special::Round => Value::Int(self.state.round),
            },
            ExprKind::Field(base, sym) => match self.eval(base)? {
                Value::Card(c) => self.field(c, *sym, e.span)?,
                Value::None => {
                    return Err(rt(
                        base.span,
                        format!(
                            "this is `none`, so it has no field `{}`",
                            self.prog.symbols[*sym as usize]
                        ),
                    ))
                }
                other => {
                    return Err(rt(
                        base.span,
                        format!("expected a card, found {}", other.type_name()),
                    ))
                }
            },
            ExprKind::CardBuiltinField(base, f) => match self.eval(base)? {
                Value::Card(c) => match f {
                    CardField::Id => Value::text(&self.prog.cards[c as usize].id.to_string()),
                    CardField::FaceUp => Value::Bool(self.state.face_up[c as usize]),
                    CardField::Kind => Value::text(
                        &self.prog.kinds[self.prog.cards[c as usize].kind as usize].name,
                    ),
                },
                other => {
                    return Err(rt(
                        base.span,
                        format!("expected a card, found {}", other.type_name()),
                    ))
                }
            },
            ExprKind::TupleIndex(base, i) => match self.eval(base)? {
                Value::Tuple(items) => items
                    .get(*i)
                    .cloned()
                    .ok_or_else(|| rt(e.span, format!("this tuple has no element {i}")))?,
                other => {
                    return Err(rt(
                        base.span,
                        format!("expected a tuple, found {}", other.type_name()),
                    ))
                }
            },
            ExprKind::Index(base, idx) => {
                let b = self.eval(base)?;
                let i = self.int(idx)?;
                let list = self.as_list(&b, base.span)?;
                if i < 0 || i as usize >= list.len() {
                    return Err(Box::new(
                        Diag::error(
                            "run::index",
                            format!("index {i} is outside a list of {}", list.len()),
                        )
                        .label(idx.span, format!("this is {i}"))
                        .help(if list.is_empty() {
                            "the list is empty".to_string()
                        } else {
                            format!(
                                "lists count from 0: the indexes here are 0 to {}",
                                list.len() - 1
                            )
                        }),
                    ));
                }
                list[i as usize].clone()
            }
            ExprKind::Table(t, key) => {
                let k = self.eval(key)?;
                let prog = self.prog;
                let td = &prog.tables[*t as usize];
                let mut found = None;
                for (pat, val, _) in &td.entries {
                    if pat_matches(pat, &k) {
                        found = Some(val);
                        break;
                    }
                }
                match found {
                    Some(val) => self.with_frame(td.locals, |me| me.eval(val))?,
                    None => {
                        return Err(Box::new(
                            Diag::error(
                                "run::table",
                                format!("table `{}` has no entry for `{}`", td.name, self.show(&k)),
                            )
                            .label(e.span, "looked up here")
                            .label(td.span, "table declared here")
                            .help(format!(
                                "add an entry for `{}` to `{}`, or a catch-all `_: ...`",
                                self.show(&k),
                                td.name
                            )),
                        ))
                    }
                }
            }
            ExprKind::Call(f, args) => self.call_with_args(*f, args, e.span)?,
            ExprKind::Builtin(b, args) => self.builtin(*b, args, e.span)?,
            ExprKind::Unary(op, x) => match op {
                UnOp::Neg => Value::Int(
                    self.int(x)?
                        .checked_neg()
                        .ok_or_else(|| rt(e.span, "number overflow"))?,
                ),
                UnOp::Not => Value::Bool(!self.boolean(x)?),
            },
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e.span)?,
            ExprKind::If(c, then, els) => {
                if self.boolean(c)? {
                    self.exec_block(then)?
                } else if let Some(x) = els {
                    self.eval(x)?
                } else {
                    Value::None
                }
            }
            ExprKind::Match(scrut, arms) => {
                let v = self.eval(scrut)?;
                for (pats, body) in arms {
                    if pats.iter().any(|p| pat_matches(p, &v)) {
                        return self.eval(body);
                    }
                }
                return Err(rt(e.span, format!("no arm matches `{}`", self.show(&v))));
            }
            ExprKind::Agg {
                kind,
                slot,
                source,
                filter,
                map,
            } => self.aggregate(
                *kind,
                *slot,
                source,
                filter.as_deref(),
                map.as_deref(),
                e.span,
            )?,
            ExprKind::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for i in items {
                    out.push(self.eval(i)?);
                }
                self.nest(Value::list(out), e.span)?
            }
            ExprKind::Tuple(items) => {
                let mut out = Vec::with_capacity(items.len());
                for i in items {
                    out.push(self.eval(i)?);
                }
                self.nest(Value::tuple(out), e.span)?
            }
            ExprKind::Text(parts) => {
                let mut s = String::new();
                for p in parts {
                    match p {
                        TextPart::Lit(t) => s.push_str(t),
                        TextPart::Expr(x) => {
                            let v = self.eval(x)?;
                            s.push_str(&self.show(&v));
                        }
                    }
                }
                Value::text(&s)
            }
            ExprKind::Block(b) => self.exec_block(b)?,
        })
    }

    fn check_call_depth(&self, span: Span) -> R<()> {
        if self.call_depth >= self.limits.max_call_depth {
            return Err(Box::new(
                Diag::error(
                    "limit::calls",
                    format!("calls nested more than {} deep", self.limits.max_call_depth),
                )
                .label(span, "this call"),
            ));
        }
        Ok(())
    }

    /// Call a user function, evaluating its arguments straight into the new frame.
    fn call_with_args(&mut self, f: Id, args: &[Expr], span: Span) -> R<Value> {
        self.tick(span)?;
        self.check_call_depth(span)?;
        let prog = self.prog;
        let fd = &prog.fns[f as usize];
        let new_bp = self.push_frame((fd.locals as usize).max(args.len()));
        for (i, a) in args.iter().enumerate() {
            // Arguments are evaluated in the caller's frame; nested calls push above ours.
            let v = match self.eval(a) {
                Ok(v) => v,
                Err(e) => {
                    self.sp = new_bp;
                    return Err(e);
                }
            };
            self.stack[new_bp + i] = v;
        }
        let old_bp = self.bp;
        self.bp = new_bp;
        self.call_depth += 1;
        let r = match self.eval(&fd.body) {
            Err(d) if d.code == RETURN_CODE => Ok(self.returning.take().unwrap_or(Value::None)),
            other => other,
        };
        self.call_depth -= 1;
        self.sp = new_bp;
        self.bp = old_bp;
        r
    }

    pub fn call_fn(&mut self, f: Id, args: Vec<Value>, span: Span) -> R<Value> {
        self.check_call_depth(span)?;
        let prog = self.prog;
        let fd = &prog.fns[f as usize];
        self.call_depth += 1;
        let r = self.with_frame(fd.locals, |me| {
            for (i, a) in args.into_iter().enumerate() {
                me.set_local(i as u32, a);
            }
            match me.eval(&fd.body) {
                Err(d) if d.code == RETURN_CODE => Ok(me.returning.take().unwrap_or(Value::None)),
                other => other,
            }
        });
        self.call_depth -= 1;
        r
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, span: Span) -> R<Value> {
        match op {
            BinOp::And => return Ok(Value::Bool(self.boolean(a)? && self.boolean(b)?)),
            BinOp::Or => return Ok(Value::Bool(self.boolean(a)? || self.boolean(b)?)),
            _ => {}
        }
        let x = self.eval(a)?;
        let y = self.eval(b)?;
        let ints = |x: &Value, y: &Value| -> R<(i64, i64)> {
            match (x, y) {
                (Value::Int(p), Value::Int(q)) => Ok((*p, *q)),
                _ => Err(rt(
                    span,
                    format!(
                        "`{}` needs two numbers, found {} and {}",
                        op.symbol(),
                        x.type_name(),
                        y.type_name()
                    ),
                )),
            }
        };
        let overflow = || rt(span, "number overflow");
        Ok(match op {
            BinOp::Add => {
                let (p, q) = ints(&x, &y)?;
                Value::Int(p.checked_add(q).ok_or_else(overflow)?)
            }
            BinOp::Sub => {
                let (p, q) = ints(&x, &y)?;
                Value::Int(p.checked_sub(q).ok_or_else(overflow)?)
            }
            BinOp::Mul => {
                let (p, q) = ints(&x, &y)?;
                Value::Int(p.checked_mul(q).ok_or_else(overflow)?)
            }
            BinOp::Div | BinOp::Rem => {
                let (p, q) = ints(&x, &y)?;
                if q == 0 {
                    return Err(Box::new(
                        Diag::error("run::div_zero", "division by zero").label(b.span, "this is 0"),
                    ));
                }
                Value::Int(if op == BinOp::Div {
                    p.div_euclid(q)
                } else {
                    p.rem_euclid(q)
                })
            }
            BinOp::Eq => Value::Bool(x == y),
            BinOp::Ne => Value::Bool(x != y),
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let (p, q) = ints(&x, &y)?;
                Value::Bool(match op {
                    BinOp::Lt => p < q,
                    BinOp::Le => p <= q,
                    BinOp::Gt => p > q,
                    _ => p >= q,
                })
            }
            BinOp::Range => {
                let (p, q) = ints(&x, &y)?;
                if q >= p && (q - p) as u64 >= self.limits.max_list_len as u64 {
                    return Err(Box::new(
                        Diag::error(
                            "limit::list",
                            format!(
                                "the range {p}..{q} is longer than {} elements",
                                self.limits.max_list_len
                            ),
                        )
                        .label(span, "this range"),
                    ));
                }
                Value::list((p..=q).map(Value::Int).collect())
            }
            BinOp::And | BinOp::Or => Value::None,
        })
    }

    fn aggregate(
        &mut self,
        kind: AggKind,
        slot: u32,
        source: &Expr,
        filter: Option<&Expr>,
        map: Option<&Expr>,
        span: Span,
    ) -> R<Value> {
        let src = self.eval_source(source)?;
        let items = &src;
        let mut count = 0i64;
        let mut sum = 0i64;
        let mut extreme: Option<i64> = None;
        let mut out: Vec<Value> = Vec::new();
        let mut keyed: Vec<(Value, Value)> = Vec::new();
        let mut best: Option<(Value, Value)> = None;
        for i in 0..items.len(&self.state) {
            let Some(item) = items.get(&self.state, i) else {
                break;
            };
            self.tick(span)?;
            // Only the forms that keep or return the element need a copy of it.
            let keep = if matches!(
                kind,
                AggKind::First
                    | AggKind::Filter
                    | AggKind::Best
                    | AggKind::Sort
                    | AggKind::Sum
                    | AggKind::Min
                    | AggKind::Max
                    | AggKind::Map
            ) {
                Some(item.clone())
            } else {
                None
            };
            self.set_local(slot, item);
            let item = &keep.unwrap_or(Value::None);
            if let Some(f) = filter {
                if !self.boolean(f)? {
                    continue;
                }
            }
            match kind {
                AggKind::Count => count += 1,
                AggKind::Any => return Ok(Value::Bool(true)),
                AggKind::All => {}
                AggKind::First => return Ok(item.clone()),
                AggKind::Filter => out.push(item.clone()),
                AggKind::Sum | AggKind::Min | AggKind::Max => {
                    let v = match map {
                        Some(m) => self.int(m)?,
                        None => match item {
                            Value::Int(n) => *n,
                            other => {
                                return Err(rt(
                                    span,
                                    format!(
                                        "`{}` needs numbers, found {}",
                                        kind.name(),
                                        other.type_name()
                                    ),
                                ))
                            }
                        },
                    };
                    match kind {
                        AggKind::Sum => {
                            sum = sum
                                .checked_add(v)
                                .ok_or_else(|| rt(span, "number overflow"))?
                        }
                        AggKind::Min => extreme = Some(extreme.map_or(v, |e| e.min(v))),
                        _ => extreme = Some(extreme.map_or(v, |e| e.max(v))),
                    }
                }
                AggKind::Map => {
                    let v = match map {
                        Some(m) => self.eval(m)?,
                        None => item.clone(),
                    };
                    if out.len() >= self.limits.max_list_len {
                        return Err(rt(span, "this list grew past the list-length limit"));
                    }
                    out.push(v);
                }
                AggKind::Sort | AggKind::Best => {
                    let k = match map {
                        Some(m) => self.eval(m)?,
                        None => item.clone(),
                    };
                    if kind == AggKind::Best {
                        let better = match &best {
                            None => true,
                            Some((bk, _)) => compare(&k, bk, span)? == std::cmp::Ordering::Greater,
                        };
                        if better {
                            best = Some((k, item.clone()));
                        }
                    } else {
                        keyed.push((k, item.clone()));
                    }
                }
            }
            if kind == AggKind::All {
                // filter passed for every element so far; `all` checks the `where` condition
            }
        }
        Ok(match kind {
            AggKind::Count => Value::Int(count),
            AggKind::Any => Value::Bool(false),
            AggKind::All => {
                // `all(x in l where c)`: true when every element satisfies c.
                let Some(f) = filter else {
                    return Ok(Value::Bool(true));
                };
                for i in 0..items.len(&self.state) {
                    let Some(item) = items.get(&self.state, i) else {
                        break;
                    };
                    self.set_local(slot, item);
                    if !self.boolean(f)? {
                        return Ok(Value::Bool(false));
                    }
                }
                Value::Bool(true)
            }
            AggKind::First => Value::None,
            AggKind::Filter => Value::list(out),
            AggKind::Map => self.nest(Value::list(out), span)?,
            AggKind::Sum => Value::Int(sum),
            AggKind::Min | AggKind::Max => extreme.map(Value::Int).unwrap_or(Value::None),
            AggKind::Best => best.map(|(_, v)| v).unwrap_or(Value::None),
            AggKind::Sort => {
                let mut err = None;
                keyed.sort_by(|a, b| match compare(&a.0, &b.0, span) {
                    Ok(o) => o,
                    Err(e) => {
                        err = Some(e);
                        std::cmp::Ordering::Equal
                    }
                });
                if let Some(e) = err {
                    return Err(e);
                }
                Value::list(keyed.into_iter().map(|(_, v)| v).collect())
            }
        })
    }

    fn builtin(&mut self, b: Builtin, args: &[Expr], span: Span) -> R<Value> {
        // Fast paths that need no list: the size or top of a zone.
        if let (Builtin::Len | Builtin::Top, [arg]) = (b, args) {
            match self.eval(arg)? {
                Value::Zone(z) => {
                    let zone = &self.state.zones[z as usize];
                    return Ok(if b == Builtin::Len {
                        Value::Int(zone.len() as i64)
                    } else {
                        zone.first().map(|&c| Value::Card(c)).unwrap_or(Value::None)
                    });
                }
                other => {
                    let l = self.as_list(&other, arg.span)?;
                    return Ok(if b == Builtin::Len {
                        Value::Int(l.len() as i64)
                    } else {
                        l.first().cloned().unwrap_or(Value::None)
                    });
                }
            }
        }
        // Builtins take at most four arguments (checked), so they fit on the stack.
        let mut buf: [Value; 4] = [Value::None, Value::None, Value::None, Value::None];
        for (i, a) in args.iter().enumerate().take(4) {
            if b == Builtin::Choose && i == 3 {
                // Labels are for showing: evaluated only when something shows them, and they
                // may not change the game.
                if self.record {
                    self.displaying += 1;
                    let v = self.eval(a);
                    self.displaying -= 1;
                    buf[i] = v?;
                }
                continue;
            }
            buf[i] = self.eval(a)?;
        }
        if self.displaying > 0 && changes_the_game(b) {
            return Err(self.not_while_displaying(span));
        }
        let given = if b == Builtin::Choose && !self.record {
            args.len().min(3)
        } else {
            args.len()
        };
        let vals = &buf[..given.min(4)];
        let arg_span = |i: usize| args.get(i).map(|a| a.span).unwrap_or(span);
        let int_at = |vals: &[Value], i: usize| -> R<i64> {
            match vals.get(i) {
                Some(Value::Int(n)) => Ok(*n),
                Some(other) => Err(rt(
                    arg_span(i),
                    format!("expected a number, found {}", other.type_name()),
                )),
                None => Err(rt(span, "missing argument")),
            }
        };
        let player_at = |vals: &[Value], i: usize| -> R<u32> {
            match vals.get(i) {
                Some(Value::Player(p)) => Ok(*p),
                Some(other) => Err(rt(
                    arg_span(i),
                    format!("expected a player, found {}", other.type_name()),
                )),
                None => Err(rt(span, "missing argument")),
            }
        };
        let text_at = |me: &Self, vals: &[Value], i: usize, default: &str| -> String {
            match vals.get(i) {
                Some(v) => me.show(v),
                None => default.to_string(),
            }
        };
        let list_at = |me: &Self, vals: &[Value], i: usize| -> R<Rc<Items>> {
            match vals.get(i) {
                Some(v) => me.as_list(v, arg_span(i)),
                None => Err(rt(span, "missing argument")),
            }
        };
        Ok(match b {
            Builtin::Len => Value::Int(list_at(self, vals, 0)?.len() as i64),
            Builtin::Top => list_at(self, vals, 0)?
                .first()
                .cloned()
                .unwrap_or(Value::None),
            Builtin::Reverse => {
                let mut l = list_at(self, vals, 0)?.to_vec();
                l.reverse();
                Value::list(l)
            }
            Builtin::Concat => {
                let mut l = list_at(self, vals, 0)?.to_vec();
                l.extend(list_at(self, vals, 1)?.iter().cloned());
                self.check_len(l.len(), span)?;
                Value::list(l)
            }
            Builtin::Flatten => {
                let mut out = Vec::new();
                for inner in list_at(self, vals, 0)?.iter() {
                    out.extend(self.as_list(inner, arg_span(0))?.iter().cloned());
                    self.check_len(out.len(), span)?;
                }
                Value::list(out)
            }
            Builtin::Rotate => {
                let mut l = list_at(self, vals, 0)?.to_vec();
                let k = int_at(vals, 1)?;
                if !l.is_empty() {
                    let k = k.rem_euclid(l.len() as i64) as usize;
                    l.rotate_left(k);
                }
                Value::list(l)
            }
            Builtin::Take | Builtin::Drop => {
                let l = list_at(self, vals, 0)?;
                let k = (int_at(vals, 1)?.max(0) as usize).min(l.len());
                Value::list(if b == Builtin::Take {
                    l[..k].to_vec()
                } else {
                    l[k..].to_vec()
                })
            }
            Builtin::Contains => {
                let l = list_at(self, vals, 0)?;
                Value::Bool(vals.get(1).is_some_and(|x| l.contains(x)))
            }
            Builtin::IndexOf => {
                let l = list_at(self, vals, 0)?;
                match vals.get(1).and_then(|x| l.iter().position(|y| y == x)) {
                    Some(i) => Value::Int(i as i64),
                    None => Value::None,
                }
            }
            Builtin::Abs => Value::Int(
                int_at(vals, 0)?
                    .checked_abs()
                    .ok_or_else(|| rt(span, "number overflow"))?,
            ),
            Builtin::Min2 => Value::Int(int_at(vals, 0)?.min(int_at(vals, 1)?)),
            Builtin::Max2 => Value::Int(int_at(vals, 0)?.max(int_at(vals, 1)?)),
            Builtin::Clamp => {
                let (x, lo, hi) = (int_at(vals, 0)?, int_at(vals, 1)?, int_at(vals, 2)?);
                if lo > hi {
                    return Err(rt(span, format!("clamp bounds {lo} > {hi}")));
                }
                Value::Int(x.clamp(lo, hi))
            }
            Builtin::Roll => {
                let n = int_at(vals, 0)?;
                if !(1..=1_000_000).contains(&n) {
                    return Err(rt(
                        arg_span(0),
                        format!("a die needs 1 to 1000000 sides, not {n}"),
                    ));
                }
                Value::Int(rng::below(&mut self.state.rng, n as u32) as i64 + 1)
            }
            Builtin::RollDice => {
                let (n, s) = (int_at(vals, 0)?, int_at(vals, 1)?);
                if !(0..=1000).contains(&n) || !(1..=1_000_000).contains(&s) {
                    return Err(rt(span, format!("cannot roll {n} dice of {s} sides")));
                }
                let mut t = 0;
                for _ in 0..n {
                    t += rng::below(&mut self.state.rng, s as u32) as i64 + 1;
                }
                Value::Int(t)
            }
            Builtin::Shuffled => {
                let mut l = list_at(self, vals, 0)?.to_vec();
                rng::shuffle(&mut self.state.rng, &mut l);
                Value::list(l)
            }
            Builtin::PickRandom => {
                let l = list_at(self, vals, 0)?;
                if l.is_empty() {
                    Value::None
                } else {
                    l[rng::below(&mut self.state.rng, l.len() as u32) as usize].clone()
                }
            }
            Builtin::ZoneOf => match vals.first() {
                Some(Value::Card(c)) => match self.state.card_zone[*c as usize] {
                    NOWHERE => Value::None,
                    z => Value::Zone(z),
                },
                _ => Value::None,
            },
            Builtin::Text => Value::text(&text_at(self, vals, 0, "")),
            Builtin::Seat => Value::Int(player_at(vals, 0)? as i64),
            Builtin::Next => Value::Player((player_at(vals, 0)? + 1) % self.state.n_players.max(1)),
            Builtin::FinishGame => {
                self.state.finished = true;
                Value::None
            }
            Builtin::Choose => {
                let p = player_at(vals, 0)?;
                let options = list_at(self, vals, 1)?;
                let prompt = text_at(self, vals, 2, "Choose");
                let labels = match vals.get(3) {
                    Some(v) => {
                        let l = self.as_list(v, arg_span(3))?;
                        if l.len() != options.len() {
                            return Err(rt(
                                arg_span(3),
                                format!("{} labels for {} options", l.len(), options.len()),
                            ));
                        }
                        Some(l)
                    }
                    None => None,
                };
                match self.decide_labelled(
                    p,
                    &options,
                    labels.as_deref().map(|l| l.as_slice()),
                    &prompt,
                    span,
                )? {
                    Some(i) => options[i].clone(),
                    None => Value::None,
                }
            }
            Builtin::ChooseMany => {
                let p = player_at(vals, 0)?;
                let mut options = list_at(self, vals, 1)?.to_vec();
                let k = int_at(vals, 2)?.max(0) as usize;
                let prompt = text_at(self, vals, 3, "Choose");
                let mut out = Vec::new();
                for n in 0..k.min(options.len()) {
                    let pr = format!("{prompt} ({} of {k})", n + 1);
                    match self.decide(p, &options, &pr, span)? {
                        Some(i) => out.push(options.remove(i)),
                        None => break,
                    }
                }
                Value::list(out)
            }
            Builtin::ChooseNumber => {
                let p = player_at(vals, 0)?;
                let (lo, hi) = (int_at(vals, 1)?, int_at(vals, 2)?);
                if hi < lo || (hi - lo) as u64 >= self.limits.max_options as u64 {
                    return Err(rt(span, format!("cannot offer the numbers {lo}..{hi}")));
                }
                let options: Vec<Value> = (lo..=hi).map(Value::Int).collect();
                let prompt = text_at(self, vals, 3, "Choose a number");
                match self.decide(p, &options, &prompt, span)? {
                    Some(i) => options[i].clone(),
                    None => Value::None,
                }
            }
            Builtin::Ask => {
                let p = player_at(vals, 0)?;
                let prompt = text_at(self, vals, 1, "Yes or no?");
                let options = [Value::Bool(true), Value::Bool(false)];
                Value::Bool(self.decide(p, &options, &prompt, span)? == Some(0))
            }
            Builtin::ChoosePlayer => {
                let p = player_at(vals, 0)?;
                let prompt = text_at(self, vals, 1, "Choose a player");
                let options: Vec<Value> = (0..self.state.n_players).map(Value::Player).collect();
                match self.decide(p, &options, &prompt, span)? {
                    Some(i) => options[i].clone(),
                    None => Value::None,
                }
            }
            Builtin::Lookup => {
                // A table value: a list of (first key, last key, value); the first entry
                // covering the key wins.
                let entries = list_at(self, vals, 0)?;
                let key = int_at(vals, 1)?;
                let mut found = Value::None;
                for e in entries.iter() {
                    if let Value::Tuple(t) = e {
                        if let (Some(Value::Int(a)), Some(Value::Int(b)), Some(v)) =
                            (t.first(), t.get(1), t.get(2))
                        {
                            if *a <= key && key <= *b {
                                found = v.clone();
                                break;
                            }
                        }
                    }
                }
                found
            }
            Builtin::Allocate => {
                let p = player_at(vals, 0)?;
                let total = int_at(vals, 1)?;
                let cats = list_at(self, vals, 2)?;
                let prompt = text_at(self, vals, 3, "Allocate");
                if total < 0 || total as u64 > self.limits.max_options as u64 {
                    return Err(rt(arg_span(1), format!("cannot allocate {total} points")));
                }
                let mut left = total;
                let mut out = Vec::new();
                for (i, c) in cats.iter().enumerate() {
                    if i + 1 == cats.len() {
                        out.push(Value::Int(left));
                        break;
                    }
                    let options: Vec<Value> = (0..=left).map(Value::Int).collect();
                    let pr = format!("{prompt}: how many to {} ({left} left)", self.show(c));
                    let n = match self.decide(p, &options, &pr, span)? {
                        Some(i) => i as i64,
                        None => 0,
                    };
                    left -= n;
                    out.push(Value::Int(n));
                }
                Value::list(out)
            }
        })
    }

    /// A list or tuple just built: refuse it if it nests deeper than the limit, so no value can
    /// make dropping, comparing or printing recurse without bound.
    fn nest(&self, v: Value, span: Span) -> R<Value> {
        if v.depth() as usize > self.limits.max_depth {
            return Err(Box::new(
                Diag::error(
                    "limit::value_depth",
                    format!(
                        "this builds lists nested more than {} deep",
                        self.limits.max_depth
                    ),
                )
                .label(span, "nested once too often here")
                .help("a loop probably wraps a list in another list each time round"),
            ));
        }
        Ok(v)
    }

    fn check_len(&self, n: usize, span: Span) -> R<()> {
        if n > self.limits.max_list_len {
            return Err(Box::new(
                Diag::error(
                    "limit::list",
                    format!("a list grew past {} elements", self.limits.max_list_len),
                )
                .label(span, "here"),
            ));
        }
        Ok(())
    }

    /// Ask a player's agent. Forced choices (one option) are taken without asking.
    fn decide(
        &mut self,
        player: u32,
        options: &[Value],
        prompt: &str,
        span: Span,
    ) -> R<Option<usize>> {
        self.decide_labelled(player, options, None, prompt, span)
    }

    /// Ask a choice; `labels`, when given (one per option), is how the options are shown.
    fn decide_labelled(
        &mut self,
        player: u32,
        options: &[Value],
        labels: Option<&[Value]>,
        prompt: &str,
        span: Span,
    ) -> R<Option<usize>> {
        let labels = labels.filter(|l| l.len() == options.len());
        if options.is_empty() {
            return Ok(None);
        }
        if options.len() > self.limits.max_options {
            return Err(Box::new(
                Diag::error(
                    "limit::options",
                    format!(
                        "a choice of {} options is more than {}",
                        options.len(),
                        self.limits.max_options
                    ),
                )
                .label(span, "this choice"),
            ));
        }
        let secret = self.secret_depth > 0;
        let idx = if options.len() == 1 {
            0
        } else {
            let name = format!("P{}", player + 1);
            let req = ChoiceRequest {
                player,
                player_name: &name,
                prompt,
                count: options.len(),
                secret,
                round: self.state.round,
                phase: self.state.phase,
                number: self.choice_log.len(),
            };
            let view = View {
                prog: self.prog,
                n_players: self.state.n_players,
                zone_base: &self.state.zone_base,
            };
            let labeler =
                |i: usize| view.show(labels.and_then(|l| l.get(i)).unwrap_or(&options[i]));
            let Some(agent) = self.agents.get_mut(player as usize) else {
                return Err(rt(span, format!("no agent plays P{}", player + 1)));
            };
            let i = agent.decide(&req, &labeler).map_err(|m| {
                if m == crate::agent::PENDING {
                    // Not an error: an interactive session stops here to ask a person.
                    Box::new(Diag::error(crate::agent::PENDING, "a choice is waiting"))
                } else {
                    Box::new(
                        Diag::error("run::agent", m).label(span, "while asking for this choice"),
                    )
                }
            })?;
            if i >= options.len() {
                return Err(rt(span, "the agent answered an option that does not exist"));
            }
            self.state.choices_made += 1;
            let label = if self.record {
                self.show(labels.and_then(|l| l.get(i)).unwrap_or(&options[i]))
            } else {
                String::new()
            };
            self.choice_log.push(ChoiceRecord {
                player,
                index: i,
                label,
            });
            i
        };
        if self.record {
            let choice = self.show(labels.and_then(|l| l.get(idx)).unwrap_or(&options[idx]));
            self.events.push(Event::Choice {
                player: format!("P{}", player + 1),
                prompt: prompt.to_string(),
                choice,
                index: idx + 1,
                options: options.len(),
                secret,
            });
        }
        Ok(Some(idx))
    }
}

/// Builtins that change the game: not allowed while working out text to show.
fn changes_the_game(b: Builtin) -> bool {
    matches!(
        b,
        Builtin::Roll
            | Builtin::RollDice
            | Builtin::Shuffled
            | Builtin::PickRandom
            | Builtin::FinishGame
            | Builtin::Choose
            | Builtin::ChooseMany
            | Builtin::ChooseNumber
            | Builtin::Ask
            | Builtin::ChoosePlayer
            | Builtin::Allocate
    )
}

/// The elements an aggregate or a `for` loop walks.
enum Source {
    List(Rc<Items>),
    Zone(u32),
    Cards(Vec<u32>),
    Range(i64, i64),
}

impl Source {
    fn len(&self, st: &State) -> usize {
        match self {
            Source::List(l) => l.len(),
            Source::Zone(z) => st.zones.get(*z as usize).map_or(0, |z| z.len()),
            Source::Cards(c) => c.len(),
            Source::Range(lo, hi) => {
                if hi < lo {
                    0
                } else {
                    usize::try_from(hi.saturating_sub(*lo).saturating_add(1)).unwrap_or(usize::MAX)
                }
            }
        }
    }
    fn get(&self, st: &State, i: usize) -> Option<Value> {
        match self {
            Source::List(l) => l.get(i).cloned(),
            Source::Zone(z) => st.zones.get(*z as usize)?.get(i).map(|&c| Value::Card(c)),
            Source::Cards(c) => c.get(i).map(|&c| Value::Card(c)),
            Source::Range(lo, _) => Some(Value::Int(lo + i as i64)),
        }
    }
}

/// Run the program's `check` / `warn` rules over its cards. Each failure is a diagnostic
/// labelled at the card field it names (`at field`), or at the card.
pub fn run_checks(prog: &Program, limits: Limits) -> Vec<Diag> {
    let mut out = Vec::new();
    if prog.checks.is_empty() {
        return out;
    }
    let n = prog.game.min_players.max(1);
    let mut interp = match Interp::new(prog, n, 0, Vec::new(), limits) {
        Ok(i) => i,
        Err(d) => return vec![*d],
    };
    interp.record = false;
    if let Err(d) = interp.init() {
        return vec![*d];
    }
    for c in &prog.checks {
        let r = interp.with_frame(c.locals, |me| {
            let src = me.eval(&c.source)?;
            let items = me.as_list(&src, c.source.span)?;
            for item in items.iter() {
                me.set_local(c.slot, item.clone());
                if let Some(f) = &c.filter {
                    if !me.boolean(f)? {
                        continue;
                    }
                }
                if me.boolean(&c.require)? {
                    continue;
                }
                let message = match me.eval(&c.message)? {
                    Value::Text(t) => t.to_string(),
                    other => me.show(&other),
                };
                let help = match &c.help {
                    Some(h) => {
                        let v = me.eval(h)?;
                        Some(me.show(&v))
                    }
                    None => None,
                };
                let (span, label) = match item {
                    Value::Card(card) => {
                        let cd = &prog.cards[*card as usize];
                        let at = c.at.and_then(|sym| {
                            cd.field_spans
                                .iter()
                                .find(|(s, _)| *s == sym)
                                .map(|(_, sp)| *sp)
                        });
                        match at {
                            Some(sp) => (sp, format!("on card `{}`", cd.id)),
                            None => (cd.span, format!("card `{}`", cd.id)),
                        }
                    }
                    other => (c.span, format!("for {}", me.show(other))),
                };
                let d = if c.warn {
                    Diag::warning("check::rule", message)
                } else {
                    Diag::error("check::rule", message)
                };
                let d = d
                    .label(span, label)
                    .label(c.require.span, "required by this rule")
                    .maybe_help(help);
                out.push(d);
            }
            Ok(Value::None)
        });
        if let Err(d) = r {
            out.push(*d);
        }
    }
    out
}

/// Approximate bytes of game state held in memory (vectors and their contents).
pub fn state_size(s: &State) -> usize {
    use std::mem::size_of;
    let value = size_of::<Value>();
    let deep = |v: &Value| -> usize {
        match v {
            Value::List(l) | Value::Tuple(l) => l.len() * value,
            Value::Text(t) => t.len(),
            _ => 0,
        }
    };
    size_of::<State>()
        + s.vars.iter().map(|v| value + deep(v)).sum::<usize>()
        + s.card_vars.iter().map(|v| value + deep(v)).sum::<usize>()
        + s.consts.iter().map(|v| value + deep(v)).sum::<usize>()
        + s.zones
            .iter()
            .map(|z| size_of::<Vec<u32>>() + z.capacity() * 4)
            .sum::<usize>()
        + (s.var_base.len() + s.zone_base.len() + s.card_zone.len() + s.card_var_base.len()) * 4
        + s.face_up.len()
}

/// Display of values, needing only the program and the zone layout.
pub struct View<'a> {
    pub prog: &'a Program,
    pub n_players: u32,
    pub zone_base: &'a [u32],
}

impl View<'_> {
    pub fn zone_def_of_slot(&self, slot: u32) -> u32 {
        // The last family whose base is at or below the slot (empty families share bases).
        let i = self.zone_base.partition_point(|&b| b <= slot);
        i.saturating_sub(1) as u32
    }

    pub fn zone_name(&self, slot: u32) -> String {
        let def = self.zone_def_of_slot(slot);
        let Some(zd) = self.prog.zones.get(def as usize) else {
            return format!("zone#{slot}");
        };
        if zd.keys.is_empty() {
            return zd.name.clone();
        }
        let Some(&base) = self.zone_base.get(def as usize) else {
            return zd.name.clone();
        };
        let mut off = slot.saturating_sub(base);
        let mut parts = Vec::new();
        for d in zd.keys.iter().rev() {
            let n = key_count(d, self.n_players, self.prog).max(1);
            let i = off % n;
            off /= n;
            parts.push(match d {
                KeyDomain::Player => format!("P{}", i + 1),
                KeyDomain::Enum(e) => self.prog.enums[*e as usize]
                    .variants
                    .get(i as usize)
                    .cloned()
                    .unwrap_or_default(),
                KeyDomain::Range(lo, _) => (lo + i as i64).to_string(),
            });
        }
        parts.reverse();
        format!("{}[{}]", zd.name, parts.join(", "))
    }

    pub fn card_name(&self, c: u32) -> String {
        let prog = self.prog;
        let Some(cd) = prog.cards.get(c as usize) else {
            return format!("card#{c}");
        };
        let kd = &prog.kinds[cd.kind as usize];
        for f in ["name", "title"] {
            if let Some(sym) = prog.symbol(f) {
                if let Some(Some((false, i))) = kd.slot_of.get(sym as usize) {
                    if let Some(Value::Text(t)) = cd.fields.get(*i as usize) {
                        if !t.is_empty() {
                            return match &cd.id {
                                CardId::Num(n) => format!("#{n} {t}"),
                                CardId::Name(_) => t.to_string(),
                            };
                        }
                    }
                }
            }
        }
        format!("@{}", cd.id)
    }

    pub fn show(&self, v: &Value) -> String {
        match v {
            Value::None => "none".into(),
            Value::Int(n) => n.to_string(),
            Value::Bool(b) => {
                if *b {
                    "yes".into()
                } else {
                    "no".into()
                }
            }
            Value::Text(t) => t.to_string(),
            Value::Enum(e, x) => self.prog.enums[*e as usize]
                .variants
                .get(*x as usize)
                .cloned()
                .unwrap_or_default(),
            Value::Card(c) => self.card_name(*c),
            Value::Player(p) => format!("P{}", p + 1),
            Value::Zone(z) => self.zone_name(*z),
            Value::List(items) => format!(
                "[{}]",
                items
                    .iter()
                    .map(|i| self.show(i))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Value::Tuple(items) => items
                .iter()
                .map(|i| self.show(i))
                .collect::<Vec<_>>()
                .join(" / "),
        }
    }
}

fn pat_matches(p: &Pat, v: &Value) -> bool {
    match (p, v) {
        (Pat::Wildcard, _) => true,
        (Pat::Int(n), Value::Int(x)) => n == x,
        (Pat::Range(a, b), Value::Int(x)) => a <= x && x <= b,
        (Pat::Value(pv), v) => pv == v,
        _ => false,
    }
}

fn compare(a: &Value, b: &Value, span: Span) -> R<std::cmp::Ordering> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Ok(x.cmp(y)),
        (Value::Tuple(x), Value::Tuple(y)) => {
            for (p, q) in x.iter().zip(y.iter()) {
                let o = compare(p, q, span)?;
                if o != std::cmp::Ordering::Equal {
                    return Ok(o);
                }
            }
            Ok(x.len().cmp(&y.len()))
        }
        (Value::Bool(x), Value::Bool(y)) => Ok(x.cmp(y)),
        (Value::Text(x), Value::Text(y)) => Ok(x.cmp(y)),
        (Value::Enum(_, x), Value::Enum(_, y)) => Ok(x.cmp(y)),
        _ => Err(rt(
            span,
            format!("cannot order {} against {}", a.type_name(), b.type_name()),
        )),
    }
}
