//! The event stream of a game: the readable account and `--json` are two views of it.

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Start {
        game: String,
        players: u32,
        seed: u64,
    },
    Round {
        round: i64,
    },
    Phase {
        phase: String,
    },
    Step {
        step: String,
    },
    Say {
        text: String,
    },
    Choice {
        player: String,
        prompt: String,
        choice: String,
        index: usize,
        options: usize,
        secret: bool,
    },
    Move {
        cards: Vec<String>,
        to: String,
    },
    Shuffle {
        zone: String,
    },
    Flip {
        card: String,
        face_up: bool,
    },
    Reveal {
        cards: Vec<String>,
    },
    /// A player is out of the game (`eliminate p`).
    Eliminated {
        player: String,
    },
    /// `end game`: the game stops at once.
    GameEnded,
    End {
        winners: Vec<String>,
        scores: Vec<(String, i64)>,
    },
}

impl Event {
    /// The line of the readable account for this event, if it has one.
    pub fn text(&self) -> Option<String> {
        match self {
            Event::Start {
                game,
                players,
                seed,
            } => Some(format!("== {game}: {players} players, seed {seed} ==")),
            Event::Round { round } => Some(format!("\n=== Round {round} ===")),
            Event::Phase { phase } => Some(format!("-- {} --", phase.replace('_', " "))),
            Event::Step { .. } => None,
            Event::Say { text } => Some(text.clone()),
            // Secret choices stay secret in the account (the rules report what is revealed), and a
            // choice with one option was no choice at all; `--json` keeps both.
            Event::Choice { secret: true, .. } => None,
            Event::Choice { options: 1, .. } => None,
            Event::Choice {
                player,
                prompt,
                choice,
                ..
            } => Some(format!("  {player}: {prompt} -> {choice}")),
            Event::Move { .. } | Event::Shuffle { .. } | Event::Flip { .. } => None,
            Event::Reveal { cards } => Some(format!("  revealed: {}", cards.join(", "))),
            Event::Eliminated { player } => Some(format!("  {player} is out of the game")),
            Event::GameEnded => Some("  The game ends.".to_string()),
            Event::End { winners, scores } => {
                let mut s = String::from("\n=== Game over ===");
                if !scores.is_empty() {
                    for (p, sc) in scores {
                        s.push_str(&format!("\n  {p}: {sc}"));
                    }
                }
                if !winners.is_empty() {
                    s.push_str(&format!("\n  Winner: {}", winners.join(", ")));
                }
                Some(s)
            }
        }
    }
}
