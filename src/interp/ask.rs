//! The question the interpreter asks and the interface of whoever answers it. The interpreter
//! owns both: terminal people, scripts, random and searching agents, and web seats implement
//! [`Agent`] from above (`crate::agent`, `crate::serve`), so a new kind of seat is a new file,
//! never a change to the interpreter.

use super::search::{SearchPoint, SearchStats};
use super::seen::{PlayerView, ScreenLine};

/// One decision asked of a player: pick one of `count` options. Everything in it is what the
/// player may see: `view` builds their view of the game (on demand: most agents never look).
pub struct ChoiceRequest<'a> {
    pub player: u32,
    pub player_name: &'a str,
    pub prompt: &'a str,
    pub count: usize,
    pub secret: bool,
    /// The round and phase the choice is asked in, and how many choices came before it.
    pub round: i64,
    pub phase: Option<u32>,
    pub number: usize,
    /// The player's view of the game now, to be read by a person (`player_view_words`:
    /// lists and tuples in words).
    pub view: &'a dyn Fn() -> PlayerView,
    /// The position to search, for an agent that [`Agent::searches`] (`mc`): playouts of
    /// copies in which what the player does not know is re-dealt. `None` for the others.
    pub search: Option<&'a SearchPoint<'a>>,
    /// A line of an `allocate`: how many lines are still to share what is left, this one
    /// included (the options are the amounts `0..=left`, in order). `None` for other choices.
    pub allocation: Option<u64>,
    /// The whole `allocate` that line belongs to, for an answerer that shows it as one form
    /// (a served page) or names its lines (the table: the line asked is `labels[given.len()]`);
    /// `None` for other choices and in silent runs.
    pub split: Option<&'a Split>,
    /// The game's own `screen` for this seat, worked out only for an agent that
    /// [`Agent::wants_screen`] and a game that declares one.
    pub screen: Option<&'a [ScreenLine]>,
    /// What the game says beside each option (`choose`'s `notes`), when it says anything, to
    /// an answerer that reads it ([`Agent::wants_notes`]).
    pub notes: Option<&'a [String]>,
    /// For an agent that plays one of the game's bots ([`Agent::bot`]): the option that bot
    /// picks, worked out by the interpreter as the seat sees the game (`interp/bots.rs`). For
    /// a search the bot drives ([`Agent::searches`]), the option it scores highest, `None` when
    /// it scores none (the search's prior, `agent::prior`).
    pub bot: Option<usize>,
    /// Why this seat's answer number `k` (0-based among the answers logged, as
    /// `Interp::choice_log` counts them) may no longer be taken back, if it may not: something
    /// hidden reached the seat since (`interp::hindsight`). Worked out only when called (`:undo`).
    pub hindsight: &'a dyn Fn(usize) -> Option<super::hindsight::Since>,
}

/// An `allocate` as its chooser reads it (made by the builtin, `builtins::Split`).
pub use crate::builtins::Split;

/// A uniformly random legal answer: an option of a choice, or, for a line of an allocation,
/// the amount that makes every way to split the total equally likely (`rng::split_first`),
/// not each line uniform on what is left.
pub fn random_answer(
    rng: &mut rand_chacha::ChaCha8Rng,
    count: usize,
    allocation: Option<u64>,
) -> usize {
    match allocation {
        Some(lines) if lines >= 2 && count >= 1 => {
            let left = (count - 1) as u64;
            crate::rng::split_first(rng, left, lines) as usize
        }
        _ => crate::rng::below(rng, count.min(u32::MAX as usize) as u32) as usize,
    }
}

/// What an agent answers to stop the game at a choice a person must make (the REPL's agents).
pub const PENDING: &str = "run::pending";
/// What an agent answers when the person stopped the game (`:quit`, end of input, Ctrl-C).
pub const QUIT: &str = "run::quit";
/// What an agent answers when the person takes their last answer back (`:undo`).
pub const TAKE_BACK: &str = "run::take_back";

/// What answers a player's choices: the interpreter's answerer interface.
pub trait Agent {
    /// Return the 0-based index of the chosen option. `label(i)` renders option i as the
    /// chooser sees it (a card they do not know is `a hidden card`); `req.view` is all the
    /// game they may look at.
    fn decide(
        &mut self,
        req: &ChoiceRequest,
        label: &dyn Fn(usize) -> String,
    ) -> Result<usize, String>;

    /// The game is being replayed (`rules run --resume`, a person's `:undo`): this choice was
    /// answered `answer` before. An agent that keeps state between choices (a random agent's
    /// draws, a script's place) moves on as if it had answered.
    fn replayed(&mut self, _req: &ChoiceRequest, _label: &dyn Fn(usize) -> String, _answer: usize) {
    }

    /// Whether a forced choice made in secret (one legal option, inside `secretly` or a card
    /// another player does not know) is asked of `seat` all the same: a person's is, so that
    /// being waited on says nothing of what the seat holds. The question then has `count == 1`, and its answer is not logged (a game played
    /// by agents alone never asks it, and the log is the same). Asked only when the game is
    /// recorded (not in `rules simulate`, `bench` or a search's playouts).
    fn asks_forced(&self, _seat: u32) -> bool {
        false
    }

    /// Whether this agent reads the game's own `screen` (`req.screen`): a person does.
    fn wants_screen(&self) -> bool {
        false
    }

    /// Whether this agent reads what the game says beside each option (`req.notes`): a person
    /// does, and so does the REPL, which shows them with the options of a waiting choice.
    fn wants_notes(&self) -> bool {
        self.wants_screen()
    }

    /// Whether this agent searches the position (`req.search`): the interpreter then keeps
    /// what a search replays from.
    fn searches(&self) -> bool {
        false
    }

    /// The game's bot (`bot Greedy(me) { ... }`) this agent plays for `seat`, by name: the
    /// interpreter then works its answer out and hands it over in `req.bot`.
    fn bot(&self, _seat: u32) -> Option<std::rc::Rc<str>> {
        None
    }

    /// Whether this agent is a search given no playout policy of its own (`mc:N`, `ismcts:N`;
    /// not `mc:N/random` or `mc:N/bot:NAME`): it plays out with the bot the game's `playouts:`
    /// names, if any, and the interpreter works that bot's answer out as for [`Agent::bot`].
    fn game_playouts(&self, _seat: u32) -> bool {
        false
    }

    /// What a searching agent's searches came to so far (`rules simulate` reports them).
    fn search_stats(&self) -> Option<SearchStats> {
        None
    }

    /// The answer, for an agent that works it out from the number of options alone (and, for a
    /// line of an `allocate`, `allocation`, as `ChoiceRequest::allocation`): the interpreter then
    /// builds no request. A random agent does (`random_answer`); `None` for the others, which are
    /// asked through `decide`.
    fn answer_blind(&mut self, _count: usize, _allocation: Option<u64>) -> Option<usize> {
        None
    }
}
