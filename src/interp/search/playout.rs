//! Playing copies out: the chain of copies (`determinise`, `copy`, and `playout_inner`, which
//! moves it by delayed rejection), and a playout interpreter run from a copy (`run`,
//! `play_copy`).

use super::answer::Playout;
use super::replay::Hidden;
use super::*;

/// How a playout goes past the choice: the tree search's policy, if any, how many choices it
/// answers before it is scored (`None`: to the end) and the bot that plays it out.
type PlayoutWith = (Option<Box<dyn Policy>>, Option<usize>, Option<Rc<str>>);

impl SearchPoint<'_> {
    /// A copy of the position at the last boundary, for the seat, dealt afresh (`fresh`); its
    /// playouts are steps of a Metropolis chain over the copies that lead back to the choice as
    /// the seat sees it (`playout_inner`, and the module's account).
    pub fn determinise(&self, rng: &mut ChaCha8Rng) -> World {
        let mut world = self.fresh(rng);
        world.local = rng::draw_u64(rng);
        world
    }

    /// Another copy of `world`, to play out with another option (paired comparisons).
    pub fn copy(&self, world: &World) -> World {
        World {
            state: world.state.clone(),
            repick: world.repick,
            verdict: world.verdict.clone(),
            local: world.local,
        }
    }

    /// Play `world` out with option `option` taken at this choice: the game's randomness and
    /// every answer after it come from `seed`. Bounded by the game's step budget.
    pub fn playout(&self, world: &World, option: usize, seed: u64) -> Played {
        self.playout_by(world, option, seed, None)
    }

    /// `playout`, with every choice after this one answered by the game's bot `bot` (as the
    /// seat that chooses, on the copy), one answer in `BOT_RANDOM_ONE_IN` at random; random
    /// answers when `None`.
    pub fn playout_by(
        &self,
        world: &World,
        option: usize,
        seed: u64,
        bot: Option<&Rc<str>>,
    ) -> Played {
        let copy = self.copy(world);
        self.playout_inner(copy, option, seed, None, None, bot.cloned())
            .0
    }

    /// `playout`, with the choices after this one answered by `policy` (a tree search's), which
    /// is handed back with the result. The copy is played out in place (a tree search plays
    /// each copy once). With a `horizon`, a game that has a score is scored where it stands
    /// once that many choices after this one are answered (the winner as the game would name
    /// it then), instead of being played to its end. The choices the policy leaves to the
    /// playout are answered by the game's bot `bot` as `playout_by` does (random when `None`).
    pub fn playout_with(
        &self,
        world: World,
        option: usize,
        seed: u64,
        policy: Box<dyn Policy>,
        horizon: Option<usize>,
        bot: Option<Rc<str>>,
    ) -> (Played, Option<Box<dyn Policy>>) {
        let horizon = horizon.filter(|_| self.has_score());
        self.playout_inner(world, option, seed, Some(policy), horizon, bot)
    }

    /// A playout of `world`, as a step of the chain of copies (`determinise`). Its first
    /// playout decides which copy it stands for, by delayed rejection: the copy dealt afresh if
    /// it leads back to the choice; else, once the chain has a copy, a step from that copy
    /// (`step`) if it leads back; else the chain's copy itself. The chain moves to the copy
    /// that led back, and every later playout of `world` plays the copy decided.
    fn playout_inner(
        &self,
        world: World,
        option: usize,
        seed: u64,
        policy: Option<Box<dyn Policy>>,
        horizon: Option<usize>,
        bot: Option<Rc<str>>,
    ) -> (Played, Option<Box<dyn Policy>>) {
        let World {
            state,
            repick,
            verdict,
            local,
        } = world;
        let settings = |policy| (policy, horizon, bot.clone());
        match verdict.get() {
            Some(Some((st, r))) => {
                let (played, policy, _) =
                    self.play_copy(st.clone(), *r, option, seed, settings(policy));
                return (played, policy);
            }
            Some(None) => {
                let (played, policy, _) =
                    self.play_copy(state, repick, option, seed, settings(policy));
                return (played, policy);
            }
            None => {}
        }
        let kept = state.clone();
        let (played, policy, rejected) =
            self.play_copy(state, repick, option, seed, settings(policy));
        if !rejected {
            let _ = verdict.set(None);
            *self.chain.borrow_mut() = Some((kept, repick));
            return (played, policy);
        }
        let Some((mut st, r)) = self.chain.borrow().clone() else {
            return (played, policy);
        };
        let refuse = || self.refused.set(self.refused.get().saturating_add(1));
        refuse();
        let held = (st.clone(), r);
        let r2 = self.step(&mut st, r, &mut rng::new_rng(local));
        let kept = st.clone();
        let (played, policy, rejected) = self.play_copy(st, r2, option, seed, settings(policy));
        if !rejected {
            let _ = verdict.set(Some((kept.clone(), r2)));
            *self.chain.borrow_mut() = Some((kept, r2));
            return (played, policy);
        }
        refuse();
        let (st, r) = held;
        let _ = verdict.set(Some((st.clone(), r)));
        let (played, policy, _) = self.play_copy(st, r, option, seed, settings(policy));
        (played, policy)
    }

    /// Play the copy `state` out, its replay's answers drawn from `repick`: how it ended, the
    /// policy handed back, and whether the replay rejected it (counted by why).
    fn play_copy(
        &self,
        state: State,
        repick: u64,
        option: usize,
        seed: u64,
        (policy, horizon, bot): PlayoutWith,
    ) -> (Played, Option<Box<dyn Policy>>, bool) {
        let hidden = Hidden::Drawn {
            repick: Box::new(rng::new_rng(repick)),
            proposals: self
                .proposals
                .get()
                .cloned()
                .unwrap_or_else(|| Rc::from([])),
            weight: 1.0,
        };
        let mut playout = self.playout_for(option, hidden, seed);
        playout.policy = policy;
        playout.horizon = horizon;
        playout.bot = bot;
        let (end, mut it) = match self.run(state, playout) {
            Ok(r) => r,
            Err(d) => {
                let end = PlayoutEnd::Error(d.message);
                return (Played { end, weight: 0.0 }, None, false);
            }
        };
        let mut pl = it.playout.take();
        let policy = pl.as_mut().and_then(|p| p.policy.take());
        let branched = pl.as_ref().is_some_and(|p| p.branched);
        let weight = match pl.as_deref() {
            Some(Playout {
                hidden: Hidden::Drawn { weight, .. },
                ..
            }) => *weight,
            _ => 1.0,
        };
        let rejected = match &end {
            Err(d) => d.code == REJECT || !branched,
            Ok(()) => !branched,
        };
        if rejected {
            self.note(pl.as_ref().and_then(|p| p.why));
        }
        let end = match end {
            Err(d) if d.code == REJECT || !branched => PlayoutEnd::Rejected,
            Err(d) if d.code == "run::bot_hidden" => {
                let message = format!("{}: {}", d.code, d.message);
                let _ = self.peeked.set(message.clone());
                PlayoutEnd::Error(message)
            }
            Err(d) => PlayoutEnd::Error(format!("{}: {}", d.code, d.message)),
            // The game ended before asking the choice again.
            Ok(()) if !branched => PlayoutEnd::Rejected,
            Ok(()) => PlayoutEnd::Finished(it.outcome.take().unwrap_or(Outcome {
                winners: Vec::new(),
                scores: Vec::new(),
            })),
        };
        (Played { end, weight }, policy, rejected)
    }

    /// Run a playout interpreter from the boundary state `state` to the end of the game (or,
    /// for a probe, to the choice searched).
    pub(super) fn run(&self, state: State, playout: Playout) -> R<(R<()>, Interp<'_>)> {
        let mut it = Interp::from_state(self.prog, self.seed, self.limits, state)?;
        it.record = false;
        it.unshown = true;
        it.remember = self.remember;
        it.playout = Some(Box::new(playout));
        let mut pos = self.track.pos;
        while pos != Pos::Done {
            match it.step(pos) {
                Ok(next) => pos = next,
                Err(d) if d.code == HORIZON => {
                    // Scored where it stands, as the game would score it now.
                    return Ok(match it.winner() {
                        Ok(o) => {
                            it.outcome = Some(o);
                            (Ok(()), it)
                        }
                        Err(d) => (Err(d), it),
                    });
                }
                Err(d) => return Ok((Err(d), it)),
            }
        }
        Ok((Ok(()), it))
    }

    pub(super) fn playout_for(&self, option: usize, hidden: Hidden, seed: u64) -> Playout {
        let mut seeds = rng::new_rng(seed);
        Playout {
            want: self.want().clone(),
            seat: self.seat,
            count: self.options.len(),
            option,
            hidden,
            future: Some(rng::new_rng(rng::draw_u64(&mut seeds))),
            answers: rng::new_rng(rng::draw_u64(&mut seeds)),
            asked: 0,
            branched: false,
            policy: None,
            horizon: None,
            bot: None,
            why: None,
        }
    }
}
