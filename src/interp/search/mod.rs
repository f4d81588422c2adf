//! Searching a position without peeking: what `--agent mc:N` plays out.
//!
//! A choice is asked in the middle of a phase, deep in the interpreter; the only resumable
//! positions are the boundaries between segments (`Interp::step`). So when an agent searches,
//! the interpreter keeps the state at the last boundary (`Track`), and a playout replays from
//! there: a fresh interpreter takes the boundary state, answers the choices made since with the
//! answers given, reaches the choice being searched, takes the option tried, and plays on with
//! random answers to the end.
//!
//! Before a playout the boundary state is *determinised* for the searching seat (`determinise`):
//! the cards the seat has not seen since the boundary (it knew them neither there, nor at any
//! moment since, nor now: `State::known`, and `Track::seen`, which keeps what was learnt on the
//! way, a card shown and taken back into a hand) are sorted by id, shuffled within each kind (a zone holds one kind, so the game stays well typed) and dealt back
//! into the places that held them, in slot order. Zone sizes, faces and who-knows-what stay with
//! the places; references to a re-dealt card (in vars and card vars) follow it to its new
//! identity, so "the card I put face down" is still the card lying there. What the seat does
//! not know thus enters only as the multiset of those cards and the places they fill: two
//! positions that differ in where hidden cards lie give the same determinised state.
//!
//! A var of one card whose entry, hidden from the seat, holds a card in no zone (a secret agenda
//! dealt from the card list) is dealt too (`deal_held`): each such entry gets a card of its
//! class in no zone, from a pool the seat could work out itself: those cards less the ones a var
//! it reads, a var field of a card it knows or the phase's items name (`seen_names`). A card
//! never goes back to no zone, so nobody has seen such a card in play; the pool is shuffled and
//! dealt to the entries in slot order, again when it runs out (a game may give one card of its
//! list to several players). Which entries hold a card, and of which class, stays as it is.
//!
//! The replay answers another player's *secret* choices since the boundary afresh, as the seat
//! never saw them, and so the game's own draws of values (`roll`, `pick_random`, `shuffled`:
//! `Interp::draw_below`, kept as secret answers of nobody's, `NATURE`); the order a `shuffle`
//! statement gives a zone is the real one, the cards in it being re-dealt already. A var hidden
//! from some player holds what such draws and answers made, so while one holds a value written
//! since the boundary kept (and not re-dealt with the cards), the boundary is not moved on
//! (`Track::holds_back`): the replay goes back to where the value was made, or, too far back,
//! the var's entries hidden from the seat are dealt afresh in every copy from then on, each a
//! value of its type (`SearchPoint::deal_values`, `Track::dealt`), or, for a type whose values
//! cannot be listed, the search refuses (`SearchPoint::refused`). A var hidden from the seat is never compared,
//! not even whether it holds its first value. Another player's other choices are replayed as what the seat saw of the
//! answer, not by its number: in a copy where that player holds other cards, the card they
//! played may stand elsewhere among their options, so the answer is an option that reads alike
//! to the seat (a card it knows, the same card; one it does not, any card so dealt), drawn
//! uniformly where several do; a copy where none does is rejected. Forced choices (one option)
//! are replayed too: in a copy the same choice may offer more. At the choice, the replayed position must look the same to the seat as
//! the real one (its `PlayerView` and the options as it sees them); a determinisation that does
//! not is rejected, and another drawn. From the choice on, the game's own randomness and every
//! player's answers come from the searcher's seeded stream.
//!
//! Most copies dealt afresh do not fit what the seat saw (Ambition, 4 players, `ismcts:20`: nine
//! rejected for each one played), so the copies played are the states of a *Metropolis chain*
//! over the copies whose replay leads back to the choice, moved by delayed rejection (Tierney
//! and Mira 1999; `SearchPoint::playout_inner`). A copy is dealt afresh, and its first playout
//! decides: if its replay leads back, the chain moves to it (so where copies fit, every copy is
//! independent, as before); if not, and the chain has a copy, a step from the chain's copy is
//! tried (`step`: two cards of one class exchanged, its answers as drawn, or the other players'
//! secret answers and the game's draws drawn afresh), and the chain moves to it if it leads
//! back; if that does not either, the chain's copy is played again. Both proposals are
//! symmetric and the deal makes every copy alike likely, so either is taken exactly when it
//! leads back and the chain draws from the copies that fit as rejection does (each copy still
//! weighted by its answers' proposal), giving a copy more than once where rejection would draw
//! again. Until a copy has fitted, a copy that does not is rejected, as before. The chain moves
//! only among copies it drew, never reading the real position, on the searcher's seeded stream.

//! Drawing those secret answers uniformly is exact but can starve: where the seat later sees
//! what was chosen (a leader choosing among plans its officers proposed in secret), almost no
//! draw leads back to the choice. So the answers are drawn by *importance sampling*
//! (`SearchPoint::prepare`): probes change one secret answer at a time to find which answers
//! fit what the seat saw; a playout draws each such answer uniformly among those that fit (and,
//! one time in `WIDE_OF`, among all), and each copy carries the weight prior / proposal of the
//! answers it drew, by which a searcher weighs its results. The weighted estimate is the one
//! uniform draws give; the proposal only decides how soon copies are found.

use super::*;
use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;

mod answer;
mod deal;
#[cfg(test)]
mod fixture;
mod playout;
mod probe;
mod replay;
mod stats;
mod track;

pub(super) use answer::Playout;
use deal::Dealing;
use replay::{Proposal, Wanted};
pub use stats::{SearchStats, WHY_COUNT, WHY_NAMES};
pub use track::SearchMemory;
pub(super) use track::Track;
use track::{MAX_HELD, MAX_HELD_STEPS};

/// A choice being asked, as a searching agent may use it: how many options, and playouts of
/// determinised copies of the position. It reads the game's state, but hands out nothing of it.
pub struct SearchPoint<'a> {
    pub(super) prog: &'a Program,
    pub(super) limits: Limits,
    /// Whether playouts remember calls, as the game searched does (`Interp::remember`).
    pub(super) remember: bool,
    pub(super) seed: u64,
    pub(super) track: &'a Track,
    pub(super) now: &'a State,
    pub(super) seat: u32,
    pub(super) options: &'a [Value],
    pub(super) want: OnceCell<Rc<Wanted>>,
    /// What its determinisations deal (`deal`), worked out at the first.
    pub(super) dealing: OnceCell<Dealing>,
    /// For each choice replayed: how a playout draws its answer (`prepare`).
    pub(super) proposals: OnceCell<Rc<[Proposal]>>,
    /// The first playout in which the game's bot driving it read what its seat may not see
    /// (`run::bot_hidden`): the search stops with it (`bot_peeked`), as the game would.
    pub(super) peeked: OnceCell<String>,
    /// Copies rejected so far, by reason (`Why`).
    pub(super) why: Cell<[u64; WHY_COUNT]>,
    /// The chain of copies (`determinise`): the last copy that led back to the choice.
    pub(super) chain: RefCell<Option<Chained>>,
    /// Copies the chain refused (their replay did not lead back to the choice), and the copies
    /// it gave again in their place.
    pub(super) refused: Cell<u64>,
}

impl SearchPoint<'_> {
    /// The bot the game's `playouts:` names, which plays out the playouts of a search given no
    /// policy of its own.
    pub fn game_playouts(&self) -> Option<Rc<str>> {
        self.prog.game.playouts.clone()
    }

    /// How many options the choice has.
    pub fn options(&self) -> usize {
        self.options.len()
    }

    /// The seat choosing.
    pub fn seat(&self) -> u32 {
        self.seat
    }

    /// How many players the game has.
    pub fn players(&self) -> u32 {
        self.now.n_players
    }

    /// Whether the game is won by the lowest score (`winner: lowest`).
    pub fn lowest_wins(&self) -> bool {
        self.prog.game.lowest_wins
    }

    /// Whether the game declares a score (without one, no game has a winner).
    pub fn has_score(&self) -> bool {
        self.prog.game.score.is_some()
    }

    /// The error of a bot driving the playouts that read what its seat may not see, in any
    /// playout so far (`mc:N/bot:NAME`): a search stops the game with it, as a seat the bot
    /// plays would.
    pub fn bot_peeked(&self) -> Option<String> {
        self.peeked.get().cloned()
    }

    /// The copies rejected so far at this choice, by reason (`SearchStats::why`).
    pub fn rejections(&self) -> [u64; WHY_COUNT] {
        self.why.get()
    }

    /// Why this choice may not be searched: a var hidden from some players held the replay
    /// back too long (`MAX_HELD`, `Track::holds_back`), and a copy from a later boundary would
    /// hold its real value. A searching agent answers with this error rather than read it.
    pub fn refused(&self) -> Option<String> {
        let vd = self.prog.vars.get(self.track.refused()? as usize)?;
        // An int without bounds is the one such var a line can fix: with bounds, a search deals
        // its hidden entries afresh (`deal::values_of`).
        let int = matches!(&vd.ty, Ty::Int) || matches!(&vd.ty, Ty::Opt(t) if **t == Ty::Int);
        let bound = if int && vd.bounds.is_none() {
            format!(
                "give it bounds (`var {}: int in 0..20 ...`: a search then deals its hidden entries afresh, each a value in them), ",
                vd.name
            )
        } else {
            String::new()
        };
        Some(format!(
            "P{}'s search cannot keep `{}` hidden: the var, hidden from some players, was drawn or chosen in secret more than {MAX_HELD} segments or {MAX_HELD_STEPS} steps ago, and a search would have to replay the game from there in every copy; {bound}set it back to its starting value once it has done its work (a search then replays only from there), or play this seat with `random`, `bot:NAME` or a person",
            u64::from(self.seat) + 1,
            vd.name
        ))
    }

    /// Proposals the chain refused so far at this choice, each replaced by the chain's last
    /// copy given again (`determinise`).
    pub fn refused_copies(&self) -> u64 {
        self.refused.get()
    }
}

/// A determinised copy of the position, for one or more playouts. Opaque: an agent can only
/// play it out.
pub struct World {
    state: State,
    repick: u64,
    /// What its first playout found, shared with its copies (`SearchPoint::copy`): unset before
    /// it; `None` when the copy led back to the choice; else the chain's copy given in its place
    /// (`SearchPoint::determinise`), which every playout of it plays.
    verdict: Rc<OnceCell<Option<Chained>>>,
    /// Seeds the step of the chain tried when this copy does not lead back (`step`).
    local: u64,
}

/// A copy of the chain (`SearchPoint::determinise`): the state and the stream of its answers.
type Chained = (State, u64);

/// How a playout ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayoutEnd {
    /// The game finished: winners and scores, as `Interp::run` gives them.
    Finished(Outcome),
    /// A runtime error (the step budget included) after the option was taken.
    Error(String),
    /// The determinised position did not lead back to this choice as the seat saw it.
    Rejected,
}

/// A playout's end, and the weight of its determinised copy: how much likelier the answers
/// drawn for other players' secret choices are at random than under the proposal that drew
/// them (`SearchPoint::prepare`). Every playout of one copy has the same weight.
#[derive(Debug, Clone, PartialEq)]
pub struct Played {
    pub end: PlayoutEnd,
    pub weight: f64,
}

/// A choice met in a playout after the one searched, as a tree search sees it: who chooses,
/// among how many options, and whether it is another player's secret (which the searching
/// seat never sees).
#[derive(Debug, Clone, Copy)]
pub struct Met<'a> {
    pub player: u32,
    pub count: usize,
    pub hidden: bool,
    /// A line of an allocation: the lines left, this one included (`ChoiceRequest::allocation`).
    pub allocation: Option<u64>,
    /// What the chooser sees of each option, as a key (`option_key`), when the policy asked for
    /// them (`Policy::wants_keys`) and the choice is not hidden; else empty.
    pub keys: &'a [u64],
}

/// How a tree search answers the choices of a playout after the one searched (`playout_with`).
/// `rng` is the playout's own stream of answers.
pub trait Policy {
    /// The answer to `met`. `playout` answers it as the playout would without a policy
    /// (random, or the game's bot the search names), for the choices the policy leaves to it.
    fn answer(
        &mut self,
        met: Met<'_>,
        rng: &mut ChaCha8Rng,
        playout: &mut dyn FnMut(&mut ChaCha8Rng) -> usize,
    ) -> usize;
    /// Whether the next choice's `Met::keys` are wanted (working them out costs a little).
    fn wants_keys(&self) -> bool {
        false
    }
    /// The policy as `Any`, for its search to take back what it learnt.
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
}

/// In a playout driven by a bot, one answer in this many is random, so the playouts of one
/// position differ (drawn from the playout's own stream: deterministic from the seed).
pub const BOT_RANDOM_ONE_IN: u32 = 4;

/// The signal a playout whose replay no longer fits the position unwinds with.
const REJECT: &str = "search::reject";

/// The signal a playout unwinds with at its horizon: it is scored where it stands.
const HORIZON: &str = "search::horizon";

/// The signal a probe unwinds with once the replay reached the choice as the seat saw it.
const ACCEPT: &str = "search::accept";

/// Who "answers" a draw of the game's randomness kept in a track (`Interp::draw_below`).
const NATURE: u32 = u32::MAX;
