//! Choices: asking a player's agent, with the option limit and the choice log.

use super::ask::{ChoiceRequest, PENDING, QUIT, TAKE_BACK};
use super::*;
use crate::diag::{Diag, Span};
use crate::events::Event;
use crate::value::Value;
use search::SearchPoint;

impl<'p> Interp<'p> {
    /// Ask a player's agent. Forced choices (one option) are taken without asking, except a
    /// secret one of a seat whose answerer asks for it (a person: `Agent::asks_forced`).
    pub(crate) fn decide(
        &mut self,
        player: u32,
        options: &[Value],
        prompt: &str,
        span: Span,
    ) -> R<Option<usize>> {
        self.decide_labelled(player, options, None, None, prompt, span)
    }

    /// Ask a choice; `labels`, when given (one per option), is how the options are shown, and
    /// `notes` what is said beside each.
    pub(crate) fn decide_labelled(
        &mut self,
        player: u32,
        options: &[Value],
        labels: Option<&[Value]>,
        notes: Option<&[Value]>,
        prompt: &str,
        span: Span,
    ) -> R<Option<usize>> {
        let labels = labels.filter(|l| l.len() == options.len());
        let notes = notes.filter(|l| l.len() == options.len());
        // A player out of the game is never asked: the choice comes back empty.
        if options.is_empty() || !self.is_in(player) {
            return Ok(None);
        }
        if let Some(w) = self.watch.as_mut() {
            w(
                self.prog,
                Watched::Choice {
                    state: &self.state,
                    player,
                    options,
                },
            );
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
        // Offering the options is work in their number (an agent or a person may look at
        // each): charged, so choices in a loop (`choose_many` over a long list) stay bounded.
        self.charge(options.len() as u64, span)?;
        let secret = self.secret_depth > 0;
        let idx = if options.len() == 1 {
            self.state.forced_choices += 1;
            if self.playout.is_some() {
                self.playout_forced(player, options)?;
            } else {
                // A person is asked a secret one all the same (its answer is not logged), so
                // being waited on tells nobody that the seat had no choice. Silent runs never
                // record, and ask nobody.
                // So is one whose option others cannot see (a card of a hidden hand).
                if self.record
                    && self
                        .agents
                        .get(player as usize)
                        .is_some_and(|a| a.asks_forced(player))
                    && (secret || self.veiled(player, options, labels))
                {
                    let i = self.ask_agent(player, options, labels, notes, prompt, secret, span)?;
                    if i != 0 {
                        return Err(rt(span, "the agent answered an option that does not exist"));
                    }
                }
                if let Some(t) = self.search.as_mut() {
                    t.asked(player, options, 0, secret);
                }
            }
            0
        } else {
            let i = if self.playout.is_some() {
                // A playout of a search answers for everyone (`search/answer.rs`).
                self.playout_answer(player, options, span)?
            } else {
                self.ask_agent(player, options, labels, notes, prompt, secret, span)?
            };
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
            if let Some(t) = self.search.as_mut() {
                t.asked(player, options, i, secret);
            }
            i
        };
        if self.record {
            let chosen = labels.and_then(|l| l.get(idx)).unwrap_or(&options[idx]);
            let choice = self.view().show_parts(chosen, &self.state.known);
            self.push_event(Event::Choice {
                player: format!("P{}", player + 1),
                prompt: prompt.to_string(),
                choice: Some(choice),
                index: Some(idx + 1),
                options: Some(options.len()),
                secret,
                draws: self.state.rng.get_word_pos(),
            });
        }
        Ok(Some(idx))
    }

    /// Whether another player may not know a card among the options or their labels: a choice
    /// among cards of a hidden hand, whose answer others read as `a hidden card`.
    fn veiled(&self, player: u32, options: &[Value], labels: Option<&[Value]>) -> bool {
        let others = (0..self.state.n_players.min(64))
            .filter(|&p| p != player && self.is_in(p))
            .fold(0u64, |m, p| m | super::visibility::one(p));
        let mut cards = Vec::new();
        for v in options.iter().chain(labels.unwrap_or(&[])) {
            cards_in(v, &mut cards);
        }
        cards.iter().any(|&c| self.known(c) & others != others)
    }

    /// Ask the player's agent: it sees the options as the player does, their view, and (when
    /// it searches) the position to play out.
    #[allow(clippy::too_many_arguments)]
    fn ask_agent(
        &mut self,
        player: u32,
        options: &[Value],
        labels: Option<&[Value]>,
        notes: Option<&[Value]>,
        prompt: &str,
        secret: bool,
        span: Span,
    ) -> R<usize> {
        // An agent that answers from the number of options alone (a random one) needs no
        // request, nor the screen, notes, labels and view that go into one.
        let allocation = self.allocation;
        if let Some(i) = self
            .agents
            .get_mut(player as usize)
            .and_then(|a| a.answer_blind(options.len(), allocation))
        {
            return Ok(i);
        }
        // A seat a bot of the game plays: its answer, worked out as the seat sees the game. For
        // a search the bot drives, only an option the bot scores (its prior: `agent::prior`);
        // where it scores none, the bot has no answer to start from, as in a playout.
        let bot = match self.agents.get(player as usize).and_then(|a| {
            a.bot(player)
                .or_else(|| {
                    a.game_playouts(player)
                        .then(|| self.prog.game.playouts.clone())
                        .flatten()
                })
                .map(|name| (name, a.searches()))
        }) {
            Some((name, true)) => self.bot_pick(&name, player, options, span)?,
            Some((name, false)) => Some(self.bot_answer(&name, player, options, span)?),
            None => None,
        };
        // What a person reads besides the options: the game's own screen, and the notes (the
        // REPL shows the notes alone).
        let (person, noted) = self
            .agents
            .get(player as usize)
            .map_or((false, false), |a| (a.wants_screen(), a.wants_notes()));
        let screen = if person {
            self.screen_lines(player)
        } else {
            None
        };
        let notes: Option<Vec<String>> = notes.filter(|_| noted).map(|ns| {
            let view = self.view();
            ns.iter()
                .map(|n| match n {
                    Value::None => String::new(),
                    n => view
                        .show_parts(n, &self.state.known)
                        .for_viewer(player)
                        .words(),
                })
                .collect()
        });
        let fallback;
        let name: &str = match super::SEAT_NAMES.get(player as usize) {
            Some(n) => n,
            None => {
                fallback = format!("P{}", u64::from(player) + 1);
                &fallback
            }
        };
        let view = View {
            prog: self.prog,
            n_players: self.state.n_players,
            zone_base: &self.state.zone_base,
        };
        // The chooser sees the options as they may (a card they do not know is hidden) and
        // reads enum values in words.
        let known = &self.state.known;
        let labeler = |i: usize| {
            let v = labels.and_then(|l| l.get(i)).or(options.get(i));
            v.map(|v| view.option_parts(v, known).for_viewer(player).words())
                .unwrap_or_default()
        };
        let (prog, state) = (self.prog, &self.state);
        // Only a person at the table reads it (`Agent::ask` of the human agent): in words.
        let player_view = || super::seen::player_view_words(prog, state, player);
        let events = &self.events;
        let hindsight =
            |k: usize| super::hindsight::seen_since(events, state.rng.get_word_pos(), player, k);
        let search = self.search.as_deref().map(|track| SearchPoint {
            prog,
            limits: self.limits,
            remember: self.remember,
            seed: self.seed,
            track,
            now: state,
            seat: player,
            options,
            want: Default::default(),
            dealing: Default::default(),
            proposals: Default::default(),
            peeked: Default::default(),
            why: Default::default(),
            chain: Default::default(),
            refused: Default::default(),
        });
        let req = ChoiceRequest {
            player,
            player_name: name,
            prompt,
            count: options.len(),
            secret,
            round: state.round,
            phase: state.phase,
            number: self.choice_log.len(),
            view: &player_view,
            search: search.as_ref(),
            allocation: self.allocation,
            split: self.split.as_ref(),
            screen: screen.as_deref(),
            notes: notes.as_deref(),
            bot,
            hindsight: &hindsight,
        };
        let Some(agent) = self.agents.get_mut(player as usize) else {
            return Err(rt(span, format!("no agent plays P{}", player + 1)));
        };
        agent.decide(&req, &labeler).map_err(|m| {
            if m == PENDING {
                // Not an error: an interactive session stops here to ask a person.
                Box::new(Diag::error(PENDING, "a choice is waiting"))
            } else if let Some(code) = [QUIT, TAKE_BACK].into_iter().find(|c| *c == m) {
                // Not errors: the person stopped the game, or takes an answer back.
                Box::new(Diag::error(
                    code,
                    "the person at the terminal stopped the game",
                ))
            } else {
                Box::new(Diag::error("run::agent", m).label(span, "while asking for this choice"))
            }
        })
    }
}

/// The cards a value holds (in lists and tuples too).
fn cards_in(v: &Value, out: &mut Vec<u32>) {
    match v {
        Value::Card(c) => out.push(*c),
        Value::List(_) | Value::Tuple(_) | Value::Packed(_) => {
            if let Some(items) = v.seq_items() {
                items.iter().for_each(|x| cards_in(x, out))
            }
        }
        _ => {}
    }
}
