//! How far back a player's answer may be taken back: never past something hidden that reached
//! the player after it. A seeded game replays the same way, so a person who saw another
//! player's secret answer, a card they did not know, or a random draw, and then took their
//! answer back, would answer again knowing what is to come (the agents answer the same again,
//! the dice fall the same).
//!
//! The rule is worked out from the event stream, which carries what the interpreter's knowledge
//! tracking (`State::known`, `visibility.rs`) found at each event: a move, a flip or a reveal
//! names the players who learnt a card by it (`learnt`), and each answer the random stream's
//! position (`draws`). Since an answer of seat P (the k-th answer logged), these stop it:
//! - another seat's secret answer (inside `secretly`): what came of it may show it to P (the
//!   rules reveal it, or the account reads differently); one with a single option too, since P
//!   cannot tell it from a real one;
//! - a card P did not know becoming known to P: drawn from a hidden deck, revealed to P, turned
//!   up where P sees it;
//! - any draw of the game's random stream (a die, a shuffle, a pick), seen or not: it is the
//!   game's future, and the same seed draws it again.
//!
//! Other players' public answers are not hidden, and stop nothing here (`rules run` keeps its
//! own rule for hot-seat: nobody else may have sat down since).

use crate::events::Event;

/// What a player saw since an answer that keeps it from being taken back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Since {
    /// Another seat answered in secret (`P2`).
    SecretAnswer(String),
    /// A card the player did not know came into their sight: drawn, moved where they see it.
    CardDrawn,
    /// A card was revealed to the player.
    CardRevealed,
    /// A card was turned face up where the player sees it.
    CardTurned,
    /// The game drew at random (dice, a shuffle, a pick).
    Random,
    /// The events do not reach back to the answer (nothing was recorded).
    Unrecorded,
}

impl Since {
    /// Why, in words, for `who` (`you`, or a seat's name): "P2 has answered in secret since".
    pub fn why(&self, who: &str) -> String {
        let has = if who == "you" { "have" } else { "has" };
        match self {
            Since::SecretAnswer(p) => {
                format!("{p} has answered in secret since, and {who} may have seen what came of it")
            }
            Since::CardDrawn => format!("{who} {has} seen a card since that was hidden from {who}"),
            Since::CardRevealed => format!("a card was revealed to {who} since"),
            Since::CardTurned => format!("a card {who} did not know was turned up since"),
            Since::Random => {
                "the game has drawn at random since (dice, a shuffle or a pick), and would draw the same again".to_string()
            }
            Since::Unrecorded => "the game's account does not reach back to it".to_string(),
        }
    }
}

/// Why seat `seat`'s answer number `answer` (0-based, counted among the logged answers: one
/// per choice of two or more options) may no longer be taken back, given the game's events so
/// far and the random stream's position now (`draws_now`); `None` while it may. An answer the
/// events do not hold (not recorded) may not be taken back either.
pub fn seen_since(events: &[Event], draws_now: u128, seat: u32, answer: usize) -> Option<Since> {
    let me = format!("P{}", u64::from(seat) + 1);
    let bit = 1u64.checked_shl(seat).unwrap_or(0);
    let mut logged = 0usize;
    let mut at = None;
    for (i, ev) in events.iter().enumerate() {
        if let Event::Choice { options, draws, .. } = ev {
            if *options == Some(1) {
                continue;
            }
            if logged == answer {
                at = Some((i, *draws));
                break;
            }
            logged += 1;
        }
    }
    let Some((i, from)) = at else {
        return Some(Since::Unrecorded);
    };
    for ev in events.get(i + 1..).unwrap_or(&[]) {
        match ev {
            Event::Choice { draws, .. } if *draws != from => return Some(Since::Random),
            Event::Choice {
                player,
                secret: true,
                ..
            } if *player != me => return Some(Since::SecretAnswer(player.clone())),
            Event::Move { learnt, .. } if learnt & bit != 0 => return Some(Since::CardDrawn),
            Event::Reveal { learnt, .. } if learnt & bit != 0 => return Some(Since::CardRevealed),
            Event::Flip { learnt, .. } if learnt & bit != 0 => return Some(Since::CardTurned),
            _ => {}
        }
    }
    (draws_now != from).then_some(Since::Random)
}
