//! What a search came to: copies rejected, by reason (`Why`), and a searching agent's
//! totals over a game (`SearchStats`).

use super::*;
use serde::{Deserialize, Serialize};

/// Why a replay rejected a copy, counted per reason (`SearchStats::why`): what a narrower
/// deal has to aim at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Why {
    /// The replay met a choice of another player than the game did there.
    Player = 0,
    /// A forced choice (one option) that the copy offers otherwise.
    Forced = 1,
    /// Another player's answer the seat saw, with no option of the copy alike in its cards.
    Alike = 2,
    /// The seat's own choice, with another number of options.
    Own = 3,
    /// At the choice searched, the copy shows the seat another position or other options.
    View = 4,
    /// The copy asked the choice searched before the replay was over, or ended without it.
    Ended = 5,
}

/// How many reasons `Why` has.
pub const WHY_COUNT: usize = 6;

/// The reasons' names, in `Why`'s order (`rules bench`).
pub const WHY_NAMES: [&str; WHY_COUNT] = [
    "another player asked",
    "a forced choice differs",
    "no answer alike",
    "the seat's own choice differs",
    "another view at the choice",
    "the choice came early or never",
];

impl SearchPoint<'_> {
    /// A copy rejected, for `why` (`None`: the game asked the choice early, ended without it,
    /// or stopped on an error).
    pub(super) fn note(&self, why: Option<Why>) {
        let why = why.unwrap_or(Why::Ended);
        let mut counts = self.why.get();
        if let Some(n) = counts.get_mut(why as usize) {
            *n = n.saturating_add(1);
        }
        self.why.set(counts);
    }
}

/// What a searching agent's (`mc`) searches came to in one game (`rules simulate` adds them up).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchStats {
    /// Choices searched (those with two options or more).
    pub decisions: u64,
    /// Of those, the choices where no determinised copy led back to the choice as the seat
    /// saw it, so the pick was random (seeded), or the bot's answer where a bot drives the
    /// playouts (counted again in `by_bot`).
    pub fallbacks: u64,
    /// Of the fallbacks, those the playouts' bot answered (`mc:N/bot:NAME`).
    #[serde(default)]
    pub by_bot: u64,
    /// Choices searched with the playouts' bot's answer as the prior (`agent::prior`): those
    /// where another option had the best mean but the copies did not tell it apart from the
    /// bot's answer, so the bot's was kept, and those where another replaced it.
    #[serde(default)]
    pub kept_bot: u64,
    #[serde(default)]
    pub beat_bot: u64,
    /// Determinised copies played out, and copies the replay rejected.
    pub worlds: u64,
    pub rejected: u64,
    /// Games played out from the choice (`mc:N`: every option on every copy; `ismcts`: one
    /// per iteration), the measure of a search's effort that does not depend on the machine.
    #[serde(default)]
    pub playouts: u64,
    /// The copies rejected, by reason (`Why`, named in `WHY_NAMES`): printed by `rules bench`,
    /// kept out of reports.
    #[serde(skip)]
    pub why: [u64; WHY_COUNT],
}

impl SearchStats {
    pub fn add(&mut self, o: &SearchStats) {
        // Saturating: a shard file may hold any counts.
        self.decisions = self.decisions.saturating_add(o.decisions);
        self.fallbacks = self.fallbacks.saturating_add(o.fallbacks);
        self.by_bot = self.by_bot.saturating_add(o.by_bot);
        self.kept_bot = self.kept_bot.saturating_add(o.kept_bot);
        self.beat_bot = self.beat_bot.saturating_add(o.beat_bot);
        self.worlds = self.worlds.saturating_add(o.worlds);
        self.rejected = self.rejected.saturating_add(o.rejected);
        self.playouts = self.playouts.saturating_add(o.playouts);
        for (a, b) in self.why.iter_mut().zip(o.why) {
            *a = a.saturating_add(b);
        }
    }
}
