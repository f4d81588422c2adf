//! The lines of the account a person at the table reads: each event as their seat sees it, their
//! own answers echoed, and a run of choices made for them one after another with one option
//! each (an empty bank split line by line) told in one line.

use super::words::in_words;
use crate::events::{CardRef, Event, Part};

/// A seat's line of an event (already seen through its eyes).
pub(super) enum Line {
    Plain(String),
    /// A choice of the seat's own that had one option: held, to be told with the others
    /// that follow it.
    Forced(Forced),
}

/// Choices of one option each, made for a seat one after another.
pub(super) struct Forced {
    player: String,
    /// The first choice's prompt, and once several are held, what their prompts begin with
    /// (up to a `:`).
    prompt: String,
    stem: Option<String>,
    answers: Vec<String>,
    note: &'static str,
    /// The number of answers given when the first was made.
    pub at: usize,
}

impl Forced {
    /// Takes `next` in when it continues this run: the same seat and note, and prompts that
    /// begin alike up to a `:` (`Planning phase: split the bank's 0 steel: how many to ...`).
    pub fn join(&mut self, next: Forced) -> Result<(), Forced> {
        if next.player != self.player || next.note != self.note {
            return Err(next);
        }
        let stem = match &self.stem {
            Some(stem) => next
                .prompt
                .strip_prefix(stem.as_str())
                .filter(|rest| rest.starts_with(':'))
                .map(|_| stem.clone()),
            None => {
                let common: String = self
                    .prompt
                    .chars()
                    .zip(next.prompt.chars())
                    .take_while(|(a, b)| a == b)
                    .map(|(a, _)| a)
                    .collect();
                let stem = common.rfind(':').and_then(|i| common.get(..i));
                stem.filter(|s| !s.trim().is_empty()).map(str::to_string)
            }
        };
        let Some(stem) = stem else {
            return Err(next);
        };
        self.stem = Some(stem);
        self.answers.extend(next.answers);
        Ok(())
    }

    pub fn at(mut self, at: usize) -> Forced {
        self.at = at;
        self
    }

    /// The run in one line.
    pub fn line(&self) -> String {
        let Forced {
            player,
            prompt,
            answers,
            note,
            ..
        } = self;
        let prompt = self.stem.as_ref().unwrap_or(prompt);
        match answers.as_slice() {
            [one] => format!("  {player}: {prompt} -> {one}{note}"),
            [first, rest @ ..] if rest.iter().all(|a| a == first) => format!(
                "  {player}: {prompt}: {n} questions with one answer each -> {first} each{note}",
                n = answers.len()
            ),
            _ => format!(
                "  {player}: {prompt}: {n} questions with one answer each -> {}{note}",
                answers.join(", "),
                n = answers.len()
            ),
        }
    }
}

/// A seat's line of an event (already seen through its eyes): the account's line, with the
/// seat's own answers echoed, secret ones included, a choice taken for it announced, and enum
/// values and bools in words.
pub(super) fn seat_line(ev: &Event, seat: u32) -> Option<Line> {
    match ev {
        Event::Choice {
            player,
            prompt,
            choice: Some(choice),
            options,
            secret,
            ..
        } => {
            let mine = *player == format!("P{}", seat + 1);
            // A secret choice of one option was asked all the same (`Agent::asks_forced`), and
            // so was one of a card somebody else does not know.
            let veiled = choice
                .0
                .iter()
                .any(|p| matches!(p, Part::Card(CardRef::Shown { public: false, .. })));
            let note = match (mine, *options, *secret) {
                (true, _, true) => " (secret: only you see this)",
                (true, Some(1), _) if !veiled => " (the only option: taken for you)",
                (true, Some(1), _) => "",
                (false, Some(1), _) | (false, _, true) => return None,
                _ => "",
            };
            let answer = in_words(choice.words());
            if mine && *options == Some(1) && !veiled {
                return Some(Line::Forced(Forced {
                    player: player.clone(),
                    prompt: prompt.clone(),
                    stem: None,
                    answers: vec![answer],
                    note,
                    at: 0,
                }));
            }
            Some(Line::Plain(format!(
                "  {player}: {prompt} -> {answer}{note}"
            )))
        }
        other => other.text().map(Line::Plain),
    }
}
