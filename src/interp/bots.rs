//! The designers' own players (`bot Greedy(me) { prefer c in Card => c.value }`), worked out
//! for the seat a bot plays, as that seat: the seat is the observer, so a rule that reads what
//! the seat may not see (a var hidden from it, a field of a card it does not know, a comparison
//! with such a card) stops the game with an error that names the bot, and an option that is or
//! holds a card the seat does not know matches only a rule whose part there is `any`. The work
//! is charged to the game's steps, like any agent's answer worked out by the rules.
//!
//! Each option takes the first rule (in the order written) whose type it has and whose `where`
//! holds; a score rule gives it its int, a preference list gives it minus its place in the list
//! (0 for the first), and an option absent from its list, or with no rule, has no score. The
//! option with the highest score wins, the first in order on ties; with no score at all, the
//! first option.

use super::*;
use crate::diag::{Diag, Span};
use crate::program::{BotDef, BotScore, Ty};
use crate::value::Value;

impl<'p> Interp<'p> {
    /// The answer of the game's bot `name`, playing `seat`, among `options`.
    pub(crate) fn bot_answer(
        &mut self,
        name: &str,
        seat: u32,
        options: &[Value],
        span: Span,
    ) -> R<usize> {
        Ok(self.bot_pick(name, seat, options, span)?.unwrap_or(0))
    }

    /// The option the bot scores highest, or `None` when it scores none (then a seat the bot
    /// plays answers the first option, and a search's playout driven by the bot answers at
    /// random: `search/answer.rs`).
    pub(crate) fn bot_pick(
        &mut self,
        name: &str,
        seat: u32,
        options: &[Value],
        span: Span,
    ) -> R<Option<usize>> {
        let prog = self.prog;
        let Some(bot) = prog.bots.iter().find(|b| b.name == name) else {
            return Err(Box::new(
                Diag::error("run::agent", format!("the game has no bot `{name}`"))
                    .label(span, "while asking for this choice"),
            ));
        };
        let before = self.observer.replace(seat);
        self.displaying += 1;
        let r = self.with_frame(bot.locals, |me| {
            me.set_local(bot.seat, Value::Player(seat));
            let mut best: Option<(i64, usize)> = None;
            for (i, o) in options.iter().enumerate() {
                if let Some(key) = me.bot_key(bot, o, span)? {
                    if best.is_none_or(|(b, _)| key > b) {
                        best = Some((key, i));
                    }
                }
            }
            Ok(best.map_or(Value::None, |(_, i)| Value::Int(i as i64)))
        });
        self.displaying -= 1;
        self.observer = before;
        match r {
            Ok(Value::Int(i)) => Ok(usize::try_from(i).ok()),
            Ok(_) => Ok(None),
            Err(d) if d.code == "repl::hidden" => Err(self.bot_peeked(bot, seat, *d)),
            Err(d) => Err(d),
        }
    }

    /// Option `o`'s score under the bot's first rule that takes it, if any.
    fn bot_key(&mut self, bot: &BotDef, o: &Value, span: Span) -> R<Option<i64>> {
        for rule in &bot.rules {
            if !self.bot_fits(&rule.ty, o) {
                continue;
            }
            self.charge(1, span)?;
            self.set_local(rule.slot, o.clone());
            if let Some(c) = &rule.cond {
                match self.eval(c)? {
                    Value::Bool(true) => {}
                    Value::Bool(false) => continue,
                    other => {
                        return Err(rt(
                            c.span,
                            format!(
                                "a bot rule's `where` gave `{}`, not a bool",
                                self.show(&other)
                            ),
                        ))
                    }
                }
            }
            let v = self.eval(&rule.value)?;
            return match (rule.score, v) {
                (BotScore::Score, Value::Int(n)) => Ok(Some(n)),
                (BotScore::Preference, v) => self.bot_place(&v, o, rule.value.span),
                (BotScore::Score, other) => Err(rt(
                    rule.value.span,
                    format!("a bot's score gave `{}`, not an int", self.show(&other)),
                )),
            };
        }
        Ok(None)
    }

    /// Minus the place of `o` in a preference list (or zone): 0 for the first; `None` when it
    /// is not there. Each element passed is looked at as the seat may (a card it does not know
    /// cannot be compared).
    fn bot_place(&mut self, list: &Value, o: &Value, span: Span) -> R<Option<i64>> {
        let cards: Vec<Value>;
        let items: &[Value] = match list {
            Value::List(l) => l,
            Value::Zone(z) => {
                cards = self
                    .zone_cards(*z)
                    .iter()
                    .map(|&c| Value::Card(c))
                    .collect();
                &cards
            }
            Value::None => return Ok(None),
            other => {
                return Err(rt(
                    span,
                    format!("a bot's preference gave `{}`, not a list", self.show(other)),
                ))
            }
        };
        for (i, x) in items.iter().enumerate() {
            self.peek_value(x, span)?;
            if x == o {
                return Ok(Some(-(i as i64)));
            }
        }
        Ok(None)
    }

    /// Whether option `o` is of the rule's type, as the observer sees it: a card it does not
    /// know is of no kind it can tell (only `any` takes it).
    fn bot_fits(&self, ty: &Ty, o: &Value) -> bool {
        match (ty, o) {
            (Ty::Any, _) => true,
            (Ty::Int, Value::Int(_))
            | (Ty::Bool, Value::Bool(_))
            | (Ty::Text, Value::Text(_))
            | (Ty::Player, Value::Player(_)) => true,
            (Ty::Enum(e), Value::Enum(f, _)) => e == f,
            (Ty::Card(k), Value::Card(c)) => {
                let seen = self.observer.is_none_or(|s| holds(self.known(*c), s));
                seen && k.is_none_or(|k| {
                    self.prog
                        .cards
                        .get(*c as usize)
                        .is_some_and(|d| d.kind == k)
                })
            }
            // A tuple however it is held: shared, or packed (`value::Packed`).
            (Ty::Tuple(ts), Value::Tuple(_) | Value::Packed(_)) => {
                o.tuple_items().is_some_and(|xs| {
                    ts.len() == xs.len()
                        && ts.iter().zip(xs.iter()).all(|(t, x)| self.bot_fits(t, x))
                })
            }
            _ => false,
        }
    }

    /// A bot's rule read what its seat may not see: the reading, the bot, and what to do.
    #[cold]
    fn bot_peeked(&self, bot: &BotDef, seat: u32, d: Diag) -> Box<Diag> {
        let mut out = Diag::error(
            "run::bot_hidden",
            format!(
                "the bot `{}` playing P{} read what P{} may not see: {}",
                bot.name,
                u64::from(seat) + 1,
                u64::from(seat) + 1,
                d.message
            ),
        );
        if let Some(at) = d.primary_span() {
            out = out.label(at, "read here");
        }
        Box::new(
            out.label(bot.span, "the bot")
                .help("a bot reads the game as its seat does: rank the options by what the seat knows (its own zones and vars, public ones, the cards it has seen)"),
        )
    }
}
