//! Game flow: constants and vars, setup, rounds and phases, the end and the winner.

use super::*;
use crate::ast::EventKind;
use crate::events::Event;
use crate::program::*;
use crate::value::Value;

impl<'p> Interp<'p> {
    // ================================================================ game flow

    /// Evaluate constants and initial values of vars: the state before setup.
    pub fn init(&mut self) -> R<()> {
        let prog = self.prog;
        let (name, n, seed) = (prog.game.name.clone(), self.state.n_players, self.seed);
        self.emit(|me| match &me.secret_seed {
            Some(salt) => Event::Start {
                game: name,
                players: n,
                seed: None,
                seed_sha256: Some(crate::seed::commitment(seed, salt)),
            },
            None => Event::Start {
                game: name,
                players: n,
                seed: Some(seed),
                seed_sha256: None,
            },
        });
        let code = self.code;
        for &c in &prog.const_order {
            let Some((value, locals)) = code.consts.get(c as usize) else {
                continue;
            };
            let v = self.with_frame(*locals, |me| value(me))?;
            if let Some(slot) = self.state.consts.get_mut(c as usize) {
                *slot = v;
            }
        }
        let mut first = Vec::with_capacity(prog.vars.len());
        for ((i, v), (init, locals)) in prog.vars.iter().enumerate().zip(&code.var_inits) {
            let init = self.with_frame(*locals, |me| init(me))?;
            let init = self.bounded(init, v.bounds, v.refuse, &v.name, v.span, v.init.span)?;
            first.push(init.clone());
            let base = self.state.var_base[i] as usize;
            let size = family_size(&v.keys, self.state.n_players, prog).unwrap_or(0) as usize;
            for slot in base..base + size {
                self.state.vars[slot] = init.clone();
            }
            self.stamp_var(i as Id);
        }
        self.state.var_first = std::rc::Rc::from(first);
        // Calls remembered while constants were still being worked out may have read one
        // before it was set (constants are not dated).
        self.state.memo = Memo::default();
        Ok(())
    }

    pub fn setup(&mut self) -> R<()> {
        let prog = self.prog;
        let code = self.code;
        for ((_, locals), b) in prog.setup.iter().zip(&code.setup) {
            self.with_frame(*locals, |me| b(me).map(|_| Value::None))?;
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
        self.track_boundary(pos);
        let r = self.segment(pos);
        if matches!(&r, Err(d) if d.code == END_CODE) && self.state.ended_by.is_none() {
            self.state.ended_by = Some(EndReason::EndGame);
        }
        match r {
            // `end game`: the rest of the segment, the round and later phases do not run (nor
            // their `phase_end` and `round_end` triggers); the `finish` phase and scoring do.
            Err(d) if d.code == END_CODE => Ok(match pos {
                Pos::Finish | Pos::Done => {
                    let prog = self.prog;
                    let outcome = self.winner().map_err(|d| {
                        if d.code == END_CODE {
                            let mut d = Diag::error(
                                "run::end_game",
                                "`end game` while the winner is worked out",
                            )
                            .help("the game has already ended when it is scored: say `end game` in a phase or a trigger");
                            for f in prog.game.score.iter().chain(&prog.game.tiebreaks) {
                                d = d.label(prog.fns[*f as usize].span, "this scores the game");
                            }
                            Box::new(d)
                        } else {
                            d
                        }
                    })?;
                    self.outcome = Some(outcome);
                    Pos::Done
                }
                _ => Pos::Finish,
            }),
            other => other,
        }
    }

    fn segment(&mut self, pos: Pos) -> R<Pos> {
        let prog = self.prog;
        match pos {
            Pos::Setup => {
                self.setup()?;
                // Between segments the state already names the round about to start.
                self.state.round = 1;
                Ok(Pos::Phase {
                    round: 1,
                    index: 0,
                    item: 0,
                })
            }
            Pos::Phase { round, index, item } => {
                let Some(&phase) = prog.game.round_phases.get(index) else {
                    return Ok(Pos::Finish);
                };
                if index == 0 && item == 0 {
                    self.state.round = round;
                    self.emit(|_| Event::Round { round });
                    self.fire_simple(EventKind::RoundStart, None)?;
                }
                let next = self.phase_part(phase, item)?;
                if self.state.finished {
                    self.state.ended_by.get_or_insert(EndReason::FinishGame);
                    return Ok(Pos::Finish);
                }
                if let Some(item) = next {
                    return Ok(Pos::Phase { round, index, item });
                }
                // `end_when` is asked after every phase, or, `at round end`, once the round
                // is over (after its `round_end` triggers).
                let every_phase = !prog.game.end_at_round_end;
                if every_phase && self.end_reached()? {
                    self.state.ended_by = Some(EndReason::EndWhen);
                    return Ok(Pos::Finish);
                }
                if index + 1 < prog.game.round_phases.len() {
                    return Ok(Pos::Phase {
                        round,
                        index: index + 1,
                        item: 0,
                    });
                }
                self.fire_simple(EventKind::RoundEnd, None)?;
                if !every_phase && self.end_reached()? {
                    self.state.ended_by = Some(EndReason::EndWhen);
                    return Ok(Pos::Finish);
                }
                if self.last_round(round)? {
                    self.state.ended_by = Some(EndReason::Rounds);
                    return Ok(Pos::Finish);
                }
                self.state.round = round + 1;
                Ok(Pos::Phase {
                    round: round + 1,
                    index: 0,
                    item: 0,
                })
            }
            Pos::Finish => {
                // A phase cut short by `end game` keeps no items.
                self.state.phase_items = None;
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

    /// Whether `round` is the game's last (`rounds:`, worked out from constants and options).
    fn last_round(&mut self, round: i64) -> R<bool> {
        let prog = self.prog;
        let Some((e, locals)) = &prog.game.rounds else {
            return Ok(false);
        };
        match self.with_frame(*locals, |me| me.eval(e))? {
            Value::Int(max) => Ok(round >= max),
            other => Err(rt(
                e.span,
                format!("`rounds` must be a number, found {}", other.type_name()),
            )),
        }
    }

    pub(super) fn end_reached(&mut self) -> R<bool> {
        let prog = self.prog;
        match &prog.game.end_when {
            Some((e, locals)) => {
                let v = self.with_frame(*locals, |me| me.eval(e))?;
                Ok(v == Value::Bool(true))
            }
            None => Ok(false),
        }
    }

    /// Run phase `p` whole (the `finish` phase: every item of one that runs `for` each, in one
    /// segment).
    pub fn run_phase(&mut self, p: Id) -> R<()> {
        let mut item = 0;
        while let Some(next) = self.phase_part(p, item)? {
            item = next;
        }
        Ok(())
    }

    /// The segment of phase `p` that begins at `item`: the whole phase, or, for one that runs
    /// `for` each item of a list, that item's run (the phase's start, with the list worked out,
    /// before the first; its end after the last). The next item, while there is one.
    fn phase_part(&mut self, p: Id, item: usize) -> R<Option<usize>> {
        let prog = self.prog;
        let Some(pd) = prog.phases.get(p as usize) else {
            return Err(rt(Span::default(), "this phase is missing"));
        };
        let code = self.code;
        let Some(cp) = code.phases.get(p as usize) else {
            return Err(rt(pd.span, "this phase is missing"));
        };
        if item == 0 {
            self.state.phase = Some(p);
            // The name is copied only when the event is recorded.
            self.emit(|_| Event::Phase {
                phase: pd.name.clone(),
            });
            self.fire_simple(EventKind::PhaseStart, Some(p))?;
        }
        match (&pd.each, &cp.each) {
            (Some((slot, list)), Some(clist)) => {
                if item == 0 {
                    let v = self.with_frame(pd.locals, |me| super::compile::Ev::ev(clist, me))?;
                    self.state.phase_items = Some(self.as_list(&v, list.span)?);
                }
                let items = self.state.phase_items.clone();
                let len = items.as_ref().map_or(0, |l| l.len());
                if let Some(v) = items.as_ref().and_then(|l| l.get(item)).cloned() {
                    let slot = *slot;
                    self.with_frame(pd.locals, |me| {
                        me.set_local(slot, v);
                        (cp.body)(me).map(|_| Value::None)
                    })?;
                }
                if item + 1 < len {
                    return Ok(Some(item + 1));
                }
                self.state.phase_items = None;
            }
            _ => {
                self.with_frame(pd.locals, |me| (cp.body)(me).map(|_| Value::None))?;
            }
        }
        self.fire_simple(EventKind::PhaseEnd, Some(p))?;
        Ok(None)
    }

    /// Every player's score now (the game's `score` function; `None` without one). The checker
    /// proves scores only read the game, so this can be asked at any point between segments.
    pub fn scores_now(&mut self) -> R<Option<Vec<i64>>> {
        let prog = self.prog;
        let Some(score) = prog.game.score else {
            return Ok(None);
        };
        let span = prog.fns[score as usize].span;
        let mut out = Vec::new();
        for p in 0..self.state.n_players {
            out.push(match self.call_fn(score, vec![Value::Player(p)], span)? {
                Value::Int(i) => i,
                Value::Bool(b) => b as i64,
                _ => 0,
            });
        }
        Ok(Some(out))
    }

    pub(super) fn winner(&mut self) -> R<Outcome> {
        let prog = self.prog;
        let n = self.state.n_players;
        let Some(score) = prog.game.score else {
            self.emit(|me| Event::End {
                winners: vec![],
                scores: vec![],
                seed: me.secret_seed.as_ref().map(|_| me.seed),
                seed_key: me
                    .secret_seed
                    .as_ref()
                    .map(|s| crate::seed::key(me.seed, s)),
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
        // Only players still in can win (everyone, if no one is); `winner: lowest` turns the
        // comparison round, for the score and the tiebreaks alike.
        let mut contenders: Vec<u32> = (0..n).filter(|&p| self.is_in(p)).collect();
        if contenders.is_empty() {
            contenders = (0..n).collect();
        }
        let candidates = contenders.iter().filter_map(|&p| keys.get(p as usize));
        let best = if prog.game.lowest_wins {
            candidates.min()
        } else {
            candidates.max()
        }
        .cloned()
        .unwrap_or_default();
        let winners: Vec<u32> = contenders
            .into_iter()
            .filter(|&p| keys.get(p as usize) == Some(&best))
            .collect();
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
        self.emit(|me| Event::End {
            winners: wn,
            scores: sc,
            seed: me.secret_seed.as_ref().map(|_| me.seed),
            seed_key: me
                .secret_seed
                .as_ref()
                .map(|s| crate::seed::key(me.seed, s)),
        });
        Ok(Outcome { winners, scores })
    }

    /// Evaluate a block lowered on its own (a REPL line) in a fresh frame whose first locals
    /// are `init`; returns the value and the frame's locals afterwards.
    pub fn eval_block(&mut self, b: &Block, locals: u32, init: &[Value]) -> R<(Value, Vec<Value>)> {
        let n = (locals as usize).max(init.len());
        let old_bp = self.bp;
        let bp = self.push_frame(n);
        self.bp = bp;
        // `push_frame` made room for the `n` locals: the frame is all there.
        if let Some(frame) = self.stack.get_mut(bp..) {
            for (slot, v) in frame.iter_mut().zip(init) {
                *slot = v.clone();
            }
        }
        let r = self.exec_block(b);
        let frame = self
            .stack
            .get(bp..bp.saturating_add(n))
            .map(<[Value]>::to_vec)
            .unwrap_or_default();
        self.sp = bp;
        self.bp = old_bp;
        r.map(|v| (v, frame))
    }
}
