//! What a playout interpreter answers with instead of agents (`Playout`): the choices since
//! the boundary replayed, the option tried at the choice searched, then random answers, the
//! game's bot's or a tree search's `Policy`; and the `Interp` hooks `choices.rs` calls in a
//! playout (`playout_forced`, `playout_answer`).

use super::replay::{answer_hidden, option_key, pick_alike, Hidden, Wanted};
use super::stats::Why;
use super::*;

/// What a playout interpreter answers with, instead of agents.
pub(in crate::interp) struct Playout {
    /// The choices since the boundary, and the choice as the seat sees it: one per choice
    /// searched, shared by its playouts.
    pub(super) want: Rc<Wanted>,
    pub(super) seat: u32,
    pub(super) count: usize,
    pub(super) option: usize,
    /// How another player's secret choices in the replay are answered.
    pub(super) hidden: Hidden,
    /// The game's randomness from the choice on.
    pub(super) future: Option<ChaCha8Rng>,
    /// Every player's answers after the choice.
    pub(super) answers: ChaCha8Rng,
    pub(super) asked: usize,
    pub(super) branched: bool,
    /// Who answers the choices after the one searched (a tree search's policy); random
    /// answers when `None`.
    pub(super) policy: Option<Box<dyn Policy>>,
    /// How many choices after the one searched a playout answers before it is scored where it
    /// stands (`None`: to the end of the game).
    pub(super) horizon: Option<usize>,
    /// The game's bot that answers every seat's choices after the one searched (`mc:50/bot:NAME`),
    /// as that seat on this copy, but one answer in `BOT_RANDOM_ONE_IN` (and every choice it
    /// scores no option of) at random; `None`: random answers.
    pub(super) bot: Option<Rc<str>>,
    /// Why the replay rejected this copy, once it has.
    pub(super) why: Option<Why>,
}

impl Playout {
    /// The signal a replay that no longer fits unwinds with, noting why.
    fn reject(&mut self, why: Why) -> Box<Diag> {
        self.why.get_or_insert(why);
        signal(REJECT)
    }

    /// Past the game's draws that the replay has reached when the copy asks a choice: how many
    /// times the game drew at random is no part of what a player sees (an event tells who chose
    /// what, never how far the random stream went), so a copy that drew less before a choice is
    /// not told apart from the game by it, and the draws it did not make are passed over. (One
    /// that draws more draws afresh, `draw`.) Hegemony's setup rolls a factional gift again
    /// when it comes up twice: a copy without that second roll was rejected at the Leader's
    /// choice of gifts, which the seat sees the same either way.
    fn pass_draws(&mut self) {
        if self.branched {
            return;
        }
        while self
            .want
            .replay
            .get(self.asked)
            .is_some_and(|a| a.player == NATURE)
        {
            self.asked += 1;
        }
    }

    /// A draw in `0..n` met in a playout (`real`, the copy's own stream): while the replay is
    /// under way, the draw the track kept there answered afresh; after the choice searched, or
    /// where the copy draws where the game did not, a draw of the playout's own.
    pub(super) fn draw(&mut self, n: u32, real: u32) -> u32 {
        if self.branched {
            return real;
        }
        let j = self.asked;
        let kept = self
            .want
            .replay
            .get(j)
            .filter(|a| a.player == NATURE && a.count == n as usize)
            .map(|a| a.index);
        match (kept, &mut self.hidden) {
            (Some(index), hidden) => {
                self.asked += 1;
                answer_hidden(hidden, j, index, n as usize) as u32
            }
            // Not the game's draw: never the real stream's next value, which is the game's
            // future.
            (None, Hidden::Drawn { repick, .. }) => rng::below(repick, n),
            (None, Hidden::Probe { .. }) => real,
        }
    }
}

impl Interp<'_> {
    /// In a playout, a forced choice (one option): while the choices since the boundary are
    /// replayed, it must stand for the one the game met there, which in a copy where its chooser
    /// holds other cards may have offered more.
    pub(in crate::interp) fn playout_forced(&mut self, player: u32, options: &[Value]) -> R<()> {
        let Some(pl) = self.playout.as_mut() else {
            return Ok(());
        };
        pl.pass_draws();
        let j = pl.asked;
        let len = pl.want.replay.len();
        if j > len {
            return Ok(());
        }
        pl.asked += 1;
        let Some(a) = pl.want.replay.get(j) else {
            // The game asked the choice searched here.
            return Err(pl.reject(Why::Ended));
        };
        if a.player != player {
            return Err(pl.reject(Why::Player));
        }
        let fits = if a.secret && player != pl.seat {
            true
        } else if player != pl.seat {
            pick_alike(&pl.want, &mut pl.hidden, j, 0, options) == Some(0)
        } else {
            a.count == 1
        };
        if fits {
            Ok(())
        } else {
            Err(pl.reject(Why::Forced))
        }
    }

    /// In a playout, the answer to a choice: the replayed one, the option tried, or a random one.
    pub(in crate::interp) fn playout_answer(
        &mut self,
        player: u32,
        options: &[Value],
        span: Span,
    ) -> R<usize> {
        let Some(mut pl) = self.playout.take() else {
            return Err(signal(REJECT));
        };
        let r = self.playout_answer_with(&mut pl, player, options, span);
        self.playout = Some(pl);
        r
    }

    fn playout_answer_with(
        &mut self,
        pl: &mut Playout,
        player: u32,
        options: &[Value],
        span: Span,
    ) -> R<usize> {
        let count = options.len();
        pl.pass_draws();
        let j = pl.asked;
        pl.asked += 1;
        if let Some(a) = pl.want.replay.get(j) {
            let (who, index, secret) = (a.player, a.index, a.secret);
            if who != player {
                return Err(pl.reject(Why::Player));
            }
            if secret && who != pl.seat {
                // The seat never saw this answer.
                return Ok(answer_hidden(&mut pl.hidden, j, index, count));
            }
            if who != pl.seat {
                // Another player's answer, as the seat saw it: where the determinisation gave
                // them other cards, the option the seat saw may stand elsewhere or not at all.
                return pick_alike(&pl.want, &mut pl.hidden, j, index, options)
                    .ok_or_else(|| pl.reject(Why::Alike));
            }
            // The seat's own choice: it saw its options, so they must be as many.
            return if index < count && count == a.count {
                Ok(index)
            } else {
                Err(pl.reject(Why::Own))
            };
        }
        if j > pl.want.replay.len() {
            if pl.horizon.is_some_and(|h| j - pl.want.replay.len() > h) {
                return Err(signal(HORIZON));
            }
            if let Some(policy) = pl.policy.as_mut() {
                let hidden = self.secret_depth > 0 && player != pl.seat;
                let keys: Vec<u64> = if policy.wants_keys() && !hidden {
                    options
                        .iter()
                        .map(|o| option_key(o, &self.state.known, player))
                        .collect()
                } else {
                    Vec::new()
                };
                let met = Met {
                    player,
                    count,
                    hidden,
                    allocation: self.allocation,
                    keys: &keys,
                };
                let Some(bot) = pl.bot.as_ref() else {
                    let allocation = self.allocation;
                    let mut random =
                        |rng: &mut ChaCha8Rng| crate::interp::random_answer(rng, count, allocation);
                    return Ok(policy
                        .answer(met, &mut pl.answers, &mut random)
                        .min(count.saturating_sub(1)));
                };
                let mut failed = None;
                let mut by_bot = |rng: &mut ChaCha8Rng| {
                    self.bot_playout_answer(bot, player, options, span, rng)
                        .unwrap_or_else(|d| {
                            failed = Some(d);
                            0
                        })
                };
                let i = policy.answer(met, &mut pl.answers, &mut by_bot);
                return match failed {
                    Some(d) => Err(d),
                    None => Ok(i.min(count.saturating_sub(1))),
                };
            }
            return match pl.bot.as_ref() {
                None => Ok(crate::interp::random_answer(
                    &mut pl.answers,
                    count,
                    self.allocation,
                )),
                Some(bot) => self.bot_playout_answer(bot, player, options, span, &mut pl.answers),
            };
        }
        // The choice searched: it must look to the seat as it does in the real game.
        if player != pl.seat {
            return Err(pl.reject(Why::Player));
        }
        if count != pl.count || pl.option >= count {
            return Err(pl.reject(Why::View));
        }
        let want = pl.want.clone();
        if !self.seen_as_wanted(&want, options, pl.seat) {
            return Err(pl.reject(Why::View));
        }
        if matches!(pl.hidden, Hidden::Probe { .. }) {
            return Err(signal(ACCEPT));
        }
        if let Some(future) = pl.future.take() {
            self.state.rng = future;
        }
        pl.branched = true;
        Ok(pl.option)
    }

    /// A playout's answer by the game's bot `bot` for `player`, worked out as that player on the
    /// playout's copy (never the real game): one answer in `BOT_RANDOM_ONE_IN`, and a choice the
    /// bot scores no option of, at random from `rng`.
    fn bot_playout_answer(
        &mut self,
        bot: &str,
        player: u32,
        options: &[Value],
        span: Span,
        rng: &mut ChaCha8Rng,
    ) -> R<usize> {
        let count = options.len();
        if rng::below(rng, BOT_RANDOM_ONE_IN) != 0 {
            if let Some(i) = self.bot_pick(bot, player, options, span)? {
                return Ok(i);
            }
        }
        Ok(crate::interp::random_answer(rng, count, self.allocation))
    }
}
