//! The event stream of a game: the readable account and `--json` are two views of it.

use serde::{Serialize, Serializer};

/// A viewer who is no player: `for_viewer(PUBLIC)` keeps only what every player may see.
pub const PUBLIC: u32 = 64;

/// The words a hidden card is shown as.
pub const HIDDEN_CARD: &str = "a hidden card";

/// A card as an event names it. `known` is the set of players (one bit per seat) who know the
/// card at the moment of the event, so a viewer's stream is exact at that moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CardRef {
    Shown {
        id: String,
        name: String,
        known: u64,
        /// Known to every player in the game: what a viewer who is no player (`PUBLIC`, a
        /// spectator) may see.
        public: bool,
    },
    Hidden,
}

impl CardRef {
    /// The card as `viewer` may see it.
    pub fn for_viewer(&self, viewer: u32) -> CardRef {
        match self {
            CardRef::Shown { public: true, .. } if viewer >= PUBLIC => self.clone(),
            CardRef::Shown { known, .. } if known & 1u64.checked_shl(viewer).unwrap_or(0) != 0 => {
                self.clone()
            }
            _ => CardRef::Hidden,
        }
    }

    pub fn text(&self) -> String {
        match self {
            CardRef::Shown { name, .. } => name.clone(),
            CardRef::Hidden => HIDDEN_CARD.into(),
        }
    }
}

/// `{"id": "32", "name": "#32 Riot"}`, or `{"hidden": true}`.
impl Serialize for CardRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(2))?;
        match self {
            CardRef::Shown { id, name, .. } => {
                m.serialize_entry("id", id)?;
                m.serialize_entry("name", name)?;
            }
            CardRef::Hidden => m.serialize_entry("hidden", &true)?,
        }
        m.end()
    }
}

/// A piece of shown text: words, a card that a viewer may not know, or an enum value (its name
/// as the rules write it, and as a player reads it: `CovertOperation`, "Covert operation").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Text(String),
    Card(CardRef),
    Word { name: String, words: String },
}

/// Text that may name cards (an option's label), serialised as the plain text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Shown(pub Vec<Part>);

impl Shown {
    pub fn text(&self) -> String {
        self.0
            .iter()
            .map(|p| match p {
                Part::Text(t) => t.clone(),
                Part::Card(c) => c.text(),
                Part::Word { name, .. } => name.clone(),
            })
            .collect()
    }

    /// The text as a player reads it: enum values in words (`Covert operation`).
    pub fn words(&self) -> String {
        self.0
            .iter()
            .map(|p| match p {
                Part::Text(t) => t.clone(),
                Part::Card(c) => c.text(),
                Part::Word { words, .. } => words.clone(),
            })
            .collect()
    }

    /// The text as `viewer` may see it.
    pub fn for_viewer(&self, viewer: u32) -> Shown {
        Shown(
            self.0
                .iter()
                .map(|p| match p {
                    Part::Card(c) => Part::Card(c.for_viewer(viewer)),
                    other => other.clone(),
                })
                .collect(),
        )
    }
}

impl Serialize for Shown {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Start {
        game: String,
        players: u32,
        /// `null` while the seed is secret (`crate::seed`): then `seed_sha256` commits to it.
        seed: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        seed_sha256: Option<String>,
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
        /// What each player may read of the line, by seat, then what every player may read,
        /// when that differs from `text` (a hidden value in it is written `(hidden)`); empty
        /// when the line is the same for everyone. `for_viewer` keeps one.
        #[serde(skip)]
        views: Vec<String>,
    },
    Choice {
        player: String,
        prompt: String,
        /// `null` for a secret choice shown to somebody else.
        choice: Option<Shown>,
        index: Option<usize>,
        /// How many options there were; `null` for a secret choice shown to somebody else
        /// (the number can tell what the chooser holds).
        options: Option<usize>,
        secret: bool,
        /// How far the game's random stream had gone when the answer was given (its word
        /// position): a later event with another tells that the game drew at random in
        /// between (`interp::hindsight`). Not in the JSON.
        #[serde(skip)]
        draws: u128,
    },
    Move {
        cards: Vec<CardRef>,
        /// The zone each card left, in the order of `cards` (`null`: it was in no zone).
        from: Vec<Option<String>>,
        to: String,
        /// The side the cards were turned to as they moved (`move ... face down`), if given.
        #[serde(skip_serializing_if = "Option::is_none")]
        face_up: Option<bool>,
        /// The players who learnt a card by it, one they did not know before (a draw from a
        /// hidden deck): `interp::hindsight`. Not in the JSON; a viewer's stream keeps only
        /// the viewer's own bit.
        #[serde(skip)]
        learnt: u64,
    },
    Shuffle {
        zone: String,
    },
    Flip {
        card: CardRef,
        face_up: bool,
        /// The players who learnt the card as it turned (as `Move`'s).
        #[serde(skip)]
        learnt: u64,
    },
    Reveal {
        cards: Vec<CardRef>,
        /// The players shown the cards; absent when shown to everybody.
        #[serde(skip_serializing_if = "Option::is_none")]
        to: Option<Vec<String>>,
        /// The players who learnt a card they did not know (as `Move`'s).
        #[serde(skip)]
        learnt: u64,
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
        /// A secret seed, shown now the game is over, and its key (`SEED:SALT`), whose SHA-256
        /// is the start's `seed_sha256`; absent when the seed was never secret.
        #[serde(skip_serializing_if = "Option::is_none")]
        seed: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        seed_key: Option<String>,
    },
}

impl Event {
    /// The event as player `viewer` may see it: cards they do not know at that moment are
    /// hidden (a reveal to others names only the cards the viewer knew already), another
    /// player's secret choice has no prompt, no answer and no number of options.
    pub fn for_viewer(&self, viewer: u32) -> Event {
        let me = format!("P{}", viewer + 1);
        let hide = |cards: &[CardRef]| cards.iter().map(|c| c.for_viewer(viewer)).collect();
        let mine = 1u64.checked_shl(viewer).unwrap_or(0);
        match self {
            Event::Choice {
                player,
                prompt,
                choice,
                index,
                options,
                secret,
                draws,
            } => {
                let blind = *secret && *player != me;
                let shown = choice.as_ref().map(|c| c.for_viewer(viewer));
                // An answer the viewer reads as a hidden card: how many options there were
                // could tell what the chooser holds (and one would read as no choice at all).
                let veiled = *player != me
                    && shown.as_ref().is_some_and(|c| {
                        c.0.iter().any(|p| matches!(p, Part::Card(CardRef::Hidden)))
                    });
                Event::Choice {
                    player: player.clone(),
                    // A secret question is the chooser's: its prompt may read what only they may.
                    prompt: if blind { String::new() } else { prompt.clone() },
                    choice: if blind { None } else { shown },
                    index: if blind { None } else { *index },
                    options: if blind || veiled { None } else { *options },
                    secret: *secret,
                    draws: *draws,
                }
            }
            Event::Say { text, views } if !views.is_empty() => {
                // The last view is the public one: for a viewer who is no seat.
                let at = (viewer as usize).min(views.len() - 1);
                Event::Say {
                    text: views.get(at).unwrap_or(text).clone(),
                    views: Vec::new(),
                }
            }
            Event::Move {
                cards,
                from,
                to,
                face_up,
                learnt,
            } => Event::Move {
                cards: hide(cards),
                from: from.clone(),
                to: to.clone(),
                face_up: *face_up,
                learnt: learnt & mine,
            },
            Event::Flip {
                card,
                face_up,
                learnt,
            } => Event::Flip {
                card: card.for_viewer(viewer),
                face_up: *face_up,
                learnt: learnt & mine,
            },
            // A card carries who knows it after the reveal: the players shown it, and whoever
            // knew it before (a card in the viewer's own hand stays named to them).
            Event::Reveal { cards, to, learnt } => Event::Reveal {
                cards: hide(cards),
                to: to.clone(),
                learnt: learnt & mine,
            },
            other => other.clone(),
        }
    }

    /// The line of the readable account for this event, if it has one.
    pub fn text(&self) -> Option<String> {
        match self {
            Event::Start {
                game,
                players,
                seed: Some(seed),
                ..
            } => Some(format!("== {game}: {players} players, seed {seed} ==")),
            Event::Start {
                game,
                players,
                seed: None,
                seed_sha256,
            } => Some(format!(
                "== {game}: {players} players, secret seed (SHA-256 {}) ==",
                seed_sha256.as_deref().unwrap_or("")
            )),
            Event::Round { round } => Some(format!("\n=== Round {round} ===")),
            Event::Phase { phase } => Some(format!("-- {} --", phase.replace('_', " "))),
            Event::Step { .. } => None,
            Event::Say { text, .. } => Some(text.clone()),
            // Secret choices stay secret in the account (the rules report what is revealed), and a
            // choice with one option was no choice at all; `--json` keeps both.
            Event::Choice { secret: true, .. } => None,
            Event::Choice {
                options: Some(1), ..
            } => None,
            Event::Choice {
                player,
                prompt,
                choice,
                ..
            } => Some(format!(
                "  {player}: {prompt} -> {}",
                choice.as_ref().map(|c| c.words()).unwrap_or_default()
            )),
            Event::Move { .. } | Event::Shuffle { .. } | Event::Flip { .. } => None,
            Event::Reveal { cards, to, .. } => {
                let names: Vec<String> = cards.iter().map(|c| c.text()).collect();
                let blind = cards.iter().all(|c| *c == CardRef::Hidden);
                Some(match to {
                    None => format!("  revealed: {}", names.join(", ")),
                    Some(to) if blind => format!(
                        "  {} saw {} card{}",
                        to.join(", "),
                        cards.len(),
                        if cards.len() == 1 { "" } else { "s" }
                    ),
                    Some(to) => format!("  revealed to {}: {}", to.join(", "), names.join(", ")),
                })
            }
            Event::Eliminated { player } => Some(format!("  {player} is out of the game")),
            Event::GameEnded => Some("  The game ends.".to_string()),
            Event::End {
                winners,
                scores,
                seed,
                seed_key,
            } => {
                let mut s = String::from("\n=== Game over ===");
                if !scores.is_empty() {
                    for (p, sc) in scores {
                        s.push_str(&format!("\n  {p}: {sc}"));
                    }
                }
                if !winners.is_empty() {
                    s.push_str(&format!("\n  Winner: {}", winners.join(", ")));
                } else if scores.is_empty() {
                    // A game without a `score` (The Establishment): its own last lines, just
                    // above, are the outcome.
                    s.push_str(
                        "\n  The rules name no winner: the game's last lines tell how it came out.",
                    );
                }
                if let (Some(seed), Some(key)) = (seed, seed_key) {
                    s.push_str(&format!(
                        "\n  The secret seed was {seed}: `printf %s {key} | sha256sum` gives the SHA-256 shown at the start"
                    ));
                }
                Some(s)
            }
        }
    }
}

#[cfg(test)]
mod public_viewer {
    use super::*;

    fn card(known: u64, public: bool) -> CardRef {
        CardRef::Shown {
            id: "c".into(),
            name: "Card".into(),
            known,
            public,
        }
    }

    /// A viewer who is no player sees a card every player knows, and no other.
    #[test]
    fn a_spectator_sees_what_every_player_knows() {
        assert_eq!(card(0b111, true).for_viewer(PUBLIC), card(0b111, true));
        assert_eq!(card(0b001, false).for_viewer(PUBLIC), CardRef::Hidden);
        assert_eq!(card(0b001, false).for_viewer(0), card(0b001, false));
        assert_eq!(card(0b001, false).for_viewer(1), CardRef::Hidden);
    }
}
