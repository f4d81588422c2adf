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

use super::seen::PlayerView;
use super::*;
use serde::{Deserialize, Serialize};
use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;

/// The state at the last segment boundary, and the choices asked since (secret or not,
/// forced or not).
#[derive(Clone)]
pub(super) struct Track {
    pos: Pos,
    state: State,
    asked: Vec<Asked>,
    /// Who has seen each card since the boundary: who knew it there, and who learnt it since
    /// (`Interp::saw`). A card the seat saw on the way (shown, then taken back into a hand) is
    /// not re-dealt, as a card it knows now is not.
    pub(super) seen: Vec<Players>,
    /// Boundaries passed since this one while it held the replay back (`holds_back`).
    held: u32,
    /// The var that held it back too long (`MAX_HELD`) and whose values cannot be dealt
    /// (`dealable`): a search refuses.
    refused: Option<u32>,
    /// Vars that held it back too long whose entries a determinisation deals afresh from every
    /// value of their type (`SearchPoint::deal_values`): they hold the replay back no longer.
    /// Kept from boundary to boundary.
    dealt: Vec<u32>,
}

/// A choice asked since the boundary: who answered, with which option, whether in secret.
/// Forced choices (one option) are kept too: in a copy where the chooser holds other cards the
/// same choice may offer more, or none.
#[derive(Clone, Debug)]
struct Asked {
    player: u32,
    index: usize,
    /// How many options it had.
    count: usize,
    secret: bool,
    /// The option taken.
    taken: Value,
}

/// What a playout interpreter answers with, instead of agents.
pub(super) struct Playout {
    /// The choices since the boundary, and the choice as the seat sees it: one per choice
    /// searched, shared by its playouts.
    want: Rc<Wanted>,
    seat: u32,
    count: usize,
    option: usize,
    /// How another player's secret choices in the replay are answered.
    hidden: Hidden,
    /// The game's randomness from the choice on.
    future: Option<ChaCha8Rng>,
    /// Every player's answers after the choice.
    answers: ChaCha8Rng,
    asked: usize,
    branched: bool,
    /// Who answers the choices after the one searched (a tree search's policy); random
    /// answers when `None`.
    policy: Option<Box<dyn Policy>>,
    /// How many choices after the one searched a playout answers before it is scored where it
    /// stands (`None`: to the end of the game).
    horizon: Option<usize>,
    /// The game's bot that answers every seat's choices after the one searched (`mc:50/bot:NAME`),
    /// as that seat on this copy, but one answer in `BOT_RANDOM_ONE_IN` (and every choice it
    /// scores no option of) at random; `None`: random answers.
    bot: Option<Rc<str>>,
    /// Why the replay rejected this copy, once it has.
    why: Option<Why>,
}

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

/// In a playout driven by a bot, one answer in this many is random, so the playouts of one
/// position differ (drawn from the playout's own stream: deterministic from the seed).
pub const BOT_RANDOM_ONE_IN: u32 = 4;

/// What a playout must meet: the choices since the boundary, and the choice searched as the
/// seat sees it. Made once per choice searched and shared by its playouts.
pub(super) struct Wanted {
    /// The choices since the boundary, forced ones too.
    replay: Vec<Asked>,
    /// Each card's class among those a determinisation deals (`NOT_DEALT` for the others):
    /// another player's answer the seat saw is replayed as an option that reads the same to the
    /// seat (`pick_alike`).
    class_of: Vec<u32>,
    /// The real position at the choice and its options: a playout whose position matches them
    /// (`looks_same`) reads the same to the seat without building its view. The options' labels
    /// are not compared: a silent run (`simulate`, a playout) never builds their texts while
    /// `run` does, and a search must see the same under both (one game per seed); labels are
    /// worked out from the state and the options, which are compared.
    now: State,
    options: Vec<Value>,
    /// The options' texts and the view as the seat sees them, built when a playout's position
    /// does not plainly match (`seen`).
    seen: OnceCell<(Vec<String>, PlayerView)>,
}

impl Wanted {
    /// The options' texts and the seat's view of the real position.
    fn seen(&self, prog: &Program, seat: u32) -> &(Vec<String>, PlayerView) {
        self.seen.get_or_init(|| {
            let view = View {
                prog,
                n_players: self.now.n_players,
                zone_base: &self.now.zone_base,
            };
            let labels = (0..self.options.len())
                .map(|i| seen_label(&view, &self.options, &self.now.known, seat, i))
                .collect();
            (labels, super::seen::player_view(prog, &self.now, seat))
        })
    }
}

/// Whether `v` reads the same to `seat` in two states whose card knowledge is `a` and `b`: every
/// card in it known to the seat in both or in neither (a value as text depends on nothing else
/// of the state: `View::show_parts`).
fn known_alike(v: &Value, a: &[Players], b: &[Players], seat: u32) -> bool {
    match v {
        Value::Card(c) => {
            let k = |s: &[Players]| s.get(*c as usize).map(|&x| holds(x, seat));
            k(a) == k(b)
        }
        Value::List(items) | Value::Tuple(items) => {
            items.iter().all(|x| known_alike(x, a, b, seat))
        }
        _ => true,
    }
}

/// Whether the seat's view (`seen::player_view`) of `a` is plainly the same as of `b`, from the
/// states themselves: the same round and phase, in every zone slot the same cards where the
/// seat knows them (with their faces and var fields) and hidden cards where it knows neither,
/// and every var the seat may read the same (its value, and whether it holds its first value;
/// of a var it may not read, nothing). `true` only when the views are equal; `false` says nothing (the views may
/// still be equal: build them to know).
fn looks_same(prog: &Program, a: &State, b: &State, seat: u32) -> bool {
    if a.round != b.round
        || a.phase != b.phase
        || a.zones.len() != b.zones.len()
        || a.vars.len() != b.vars.len()
        || a.n_players != b.n_players
    {
        return false;
    }
    let knows = |s: &State, c: u32| holds(s.known.get(c as usize).copied().unwrap_or(0), seat);
    fn card_vars<'s>(prog: &Program, s: &'s State, c: u32) -> Option<&'s [Value]> {
        let kind = prog.cards.get(c as usize)?.kind;
        let n = prog.kinds.get(kind as usize)?.var_count as usize;
        let base = *s.card_var_base.get(c as usize)? as usize;
        s.card_vars.get(base..base + n)
    }
    for (za, zb) in a.zones.iter().zip(&b.zones) {
        if za.len() != zb.len() {
            return false;
        }
        for (&ca, &cb) in za.iter().zip(zb) {
            let k = knows(a, ca);
            if k != knows(b, cb) {
                return false;
            }
            if !k {
                continue;
            }
            if ca != cb || a.face_up.get(ca as usize) != b.face_up.get(cb as usize) {
                return false;
            }
            match (card_vars(prog, a, ca), card_vars(prog, b, cb)) {
                (Some(x), Some(y)) => {
                    if x != y || !x.iter().all(|v| known_alike(v, &a.known, &b.known, seat)) {
                        return false;
                    }
                }
                (None, None) => {}
                _ => return false,
            }
        }
    }
    if a.var_base != b.var_base {
        return false;
    }
    let view = View {
        prog,
        n_players: a.n_players,
        zone_base: &a.zone_base,
    };
    for (id, vd) in prog.vars.iter().enumerate() {
        let base = a.var_base.get(id).copied().unwrap_or(0) as usize;
        let size: u32 = vd
            .keys
            .iter()
            .map(|k| key_count(k, a.n_players, prog))
            .product::<u32>()
            .max(1);
        let (fa, fb) = (a.var_first.get(id), b.var_first.get(id));
        for off in 0..size {
            let (x, y) = (
                a.vars.get(base + off as usize),
                b.vars.get(base + off as usize),
            );
            // A var the seat may not read shows nothing, not even whether it holds its first
            // value (`seen::player_view`).
            if !holds(view.var_readers(id as u32, off), seat) {
                continue;
            }
            if (x.is_some() && x == fa) != (y.is_some() && y == fb) {
                return false;
            }
            {
                match (x, y) {
                    (Some(x), Some(y)) if x == y && known_alike(x, &a.known, &b.known, seat) => {}
                    (None, None) => {}
                    _ => return false,
                }
            }
        }
    }
    true
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

/// What `player` sees of option `v`, as a key: the same for two options exactly when they read
/// alike to that player (a card it knows by its id, a card it does not know as one unknown
/// card; numbers, words and the rest as they are). Deterministic (SipHash with fixed keys).
pub fn option_key(v: &Value, known: &[Players], player: u32) -> u64 {
    use std::hash::Hasher;
    fn feed(v: &Value, known: &[Players], player: u32, h: &mut std::hash::DefaultHasher) {
        use std::hash::Hash;
        match v {
            Value::Card(c) => {
                if known.get(*c as usize).is_some_and(|&k| holds(k, player)) {
                    h.write_u8(1);
                    h.write_u32(*c);
                } else {
                    h.write_u8(2);
                }
            }
            Value::List(items) | Value::Tuple(items) => {
                h.write_u8(if matches!(v, Value::List(_)) { 3 } else { 4 });
                h.write_usize(items.len());
                for x in items.iter() {
                    feed(x, known, player, h);
                }
            }
            other => {
                h.write_u8(5);
                other.hash(h);
            }
        }
    }
    let mut h = std::hash::DefaultHasher::new();
    feed(v, known, player, &mut h);
    h.finish()
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

/// Answering the secret choices of other players that the replay meets.
enum Hidden {
    /// A playout: each answer drawn from its proposal (`SearchPoint::prepare`); `weight`
    /// gathers prior / proposal over the answers drawn.
    Drawn {
        repick: Box<ChaCha8Rng>,
        proposals: Rc<[Proposal]>,
        weight: f64,
    },
    /// A probe: every answer as given except replayed choice `at`, answered `alt` (as given
    /// when `None`); it notes that choice's number of options and stops at the choice
    /// searched, accepted or rejected.
    Probe {
        at: usize,
        alt: Option<usize>,
        count: usize,
    },
}

/// How a playout draws the answer to another player's secret choice it replays.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Proposal {
    /// Uniformly among all options (every answer the probes tried fitted, or the choice is
    /// not another player's secret).
    Uniform,
    /// Uniformly among these answers (the one given, and those the probes found to lead back
    /// to the choice as the seat sees it), but for one draw in `WIDE_OF`, uniform among all.
    Among(Vec<usize>),
}

/// One draw in `WIDE_OF` of a narrowed proposal is uniform among all options, so that every
/// answer can be drawn and the weights stay finite.
const WIDE_OF: u32 = 256;

/// Up to this many options, the probes try every other answer; above it, `PROBES` of them.
const PROBE_ALL: usize = 12;
const PROBES: usize = 8;

/// The probes spent on the game's own draws (`NATURE`) per choice searched, the first draws
/// first: a replay that goes back far may hold hundreds (a shuffle is a draw per card), and
/// those past the budget are drawn uniformly, as the game draws them (exact, only more copies
/// are rejected where the seat saw the draw).
const NATURE_PROBES: usize = 48;

/// The signal a playout whose replay no longer fits the position unwinds with.
const REJECT: &str = "search::reject";

/// The signal a playout unwinds with at its horizon: it is scored where it stands.
const HORIZON: &str = "search::horizon";

/// The signal a probe unwinds with once the replay reached the choice as the seat saw it.
const ACCEPT: &str = "search::accept";

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

/// What a determinisation deals, the same for every copy of one choice searched: the cards the
/// seat does not know, by class (each class sorted by id), and the places holding them, named
/// by the card lying there in the boundary state, class by class in slot order.
#[derive(Default)]
pub(super) struct Dealing {
    classes: Vec<Vec<u32>>,
    places: Vec<u32>,
    /// Var entries hidden from the seat that hold a card in no zone (`held_places`): the slot
    /// of each in `State::vars`, in slot order, with the pool it is dealt from.
    held: Vec<(usize, usize)>,
    /// The pools: the cards of one class in no zone that nothing the seat reads names (or,
    /// when that leaves none, every card of the class in no zone), sorted by id.
    pools: Vec<Vec<u32>>,
}

/// Option `i` as player `seat` sees it, as text (a card they do not know is hidden).
fn seen_label(view: &View, options: &[Value], known: &[Players], seat: u32, i: usize) -> String {
    options
        .get(i)
        .map(|v| view.show_parts(v, known).for_viewer(seat).text())
        .unwrap_or_default()
}

/// A value with every card renamed by `sigma` (`None` when nothing changes).
fn relabel(v: &Value, sigma: &[u32]) -> Option<Value> {
    match v {
        Value::Card(c) => sigma
            .get(*c as usize)
            .filter(|&&n| n != *c)
            .map(|&n| Value::Card(n)),
        Value::List(items) | Value::Tuple(items) => {
            let mut changed = false;
            let new: Vec<Value> = items
                .iter()
                .map(|x| match relabel(x, sigma) {
                    Some(n) => {
                        changed = true;
                        n
                    }
                    None => x.clone(),
                })
                .collect();
            changed.then(|| match v {
                Value::List(_) => Value::list(new),
                _ => Value::tuple(new),
            })
        }
        _ => None,
    }
}

fn relabel_all(values: &mut [Value], sigma: &[u32]) {
    for v in values.iter_mut() {
        if let Some(n) = relabel(v, sigma) {
            *v = n;
        }
    }
}

/// Rename the cards of `st` by `sigma` (a permutation): the cards in the zones, and references
/// to them in vars, card vars and the items of the phase under way. Where a card lies, its face and who knows it belong to the
/// place, so they go with the card now lying there.
fn relabel_state(st: &mut State, sigma: &[u32]) {
    for zone in st.zones.iter_mut() {
        for c in zone.iter_mut() {
            *c = sigma.get(*c as usize).copied().unwrap_or(*c);
        }
    }
    let (zone_of, face, known) = (st.card_zone.clone(), st.face_up.clone(), st.known.clone());
    for (old, &new) in sigma.iter().enumerate() {
        let new = new as usize;
        if new == old {
            continue;
        }
        if let (Some(z), Some(&v)) = (st.card_zone.get_mut(new), zone_of.get(old)) {
            *z = v;
        }
        if let (Some(f), Some(&v)) = (st.face_up.get_mut(new), face.get(old)) {
            *f = v;
        }
        if let (Some(k), Some(&v)) = (st.known.get_mut(new), known.get(old)) {
            *k = v;
        }
    }
    relabel_all(&mut st.vars, sigma);
    relabel_all(&mut st.card_vars, sigma);
    // The items of a phase under way (`phase turns for c in ...`) refer to places too.
    if let Some(items) = &st.phase_items {
        if let Some(Value::List(l)) = relabel(&Value::List(items.clone()), sigma) {
            st.phase_items = Some(l);
        }
    }
    // Remembered calls may hold the cards' old names.
    st.memo = super::Memo::default();
}

/// Every card named in `v`.
fn each_card(v: &Value, f: &mut dyn FnMut(u32)) {
    match v {
        Value::Card(c) => f(*c),
        Value::List(items) | Value::Tuple(items) => {
            for x in items.iter() {
                each_card(x, f);
            }
        }
        _ => {}
    }
}

/// The var entries hidden from `seat` that a determinisation deals (`Dealing::held`): an entry,
/// of a var of one card (`Ty::Card`, maybe `none`), that holds a card in no zone. Its slot in
/// `State::vars` and the card, in slot order.
fn held_places(prog: &Program, st: &State, seat: u32) -> Vec<(usize, u32)> {
    let view = View {
        prog,
        n_players: st.n_players,
        zone_base: &st.zone_base,
    };
    let mut out = Vec::new();
    for (id, vd) in prog.vars.iter().enumerate() {
        if vd.visibility == crate::ast::Visibility::Public || !holds_one_card(&vd.ty) {
            continue;
        }
        let base = st.var_base.get(id).copied().unwrap_or(0) as usize;
        let size = family_size(&vd.keys, st.n_players, prog).unwrap_or(0);
        for off in 0..size {
            let slot = base + off as usize;
            if let Some(&Value::Card(c)) = st.vars.get(slot) {
                if st.card_zone.get(c as usize) == Some(&NOWHERE)
                    && !holds(view.var_readers(id as u32, off), seat)
                {
                    out.push((slot, c));
                }
            }
        }
    }
    out
}

/// Whether a var of type `ty` holds one card (or `none`): its entries holding a card in no zone
/// are dealt (`held_places`).
fn holds_one_card(ty: &Ty) -> bool {
    match ty {
        Ty::Card(_) => true,
        Ty::Opt(t) => holds_one_card(t),
        _ => false,
    }
}

/// The cards `seat` sees named, by card: in a var entry it may read, a var field of a card it
/// knows in a zone, the items of the phase under way.
fn seen_names(prog: &Program, st: &State, seat: u32) -> Vec<bool> {
    let view = View {
        prog,
        n_players: st.n_players,
        zone_base: &st.zone_base,
    };
    let mut named = vec![false; st.card_zone.len()];
    let mut mark = |c: u32| {
        if let Some(n) = named.get_mut(c as usize) {
            *n = true;
        }
    };
    for (id, vd) in prog.vars.iter().enumerate() {
        let base = st.var_base.get(id).copied().unwrap_or(0) as usize;
        let size = family_size(&vd.keys, st.n_players, prog).unwrap_or(0);
        for off in 0..size {
            if holds(view.var_readers(id as u32, off), seat) {
                if let Some(v) = st.vars.get(base + off as usize) {
                    each_card(v, &mut mark);
                }
            }
        }
    }
    // The var fields of the cards the seat knows, in a zone (those of a card it does not know
    // are as hidden as the card).
    for (c, &z) in st.card_zone.iter().enumerate() {
        if z == NOWHERE || !holds(st.known.get(c).copied().unwrap_or(0), seat) {
            continue;
        }
        let n = prog
            .cards
            .get(c)
            .and_then(|d| prog.kinds.get(d.kind as usize))
            .map_or(0, |k| k.var_count) as usize;
        let base = st.card_var_base.get(c).copied().unwrap_or(0) as usize;
        for v in st.card_vars.get(base..base + n).unwrap_or(&[]) {
            each_card(v, &mut mark);
        }
    }
    for v in st.phase_items.iter().flat_map(|l| l.iter()) {
        each_card(v, &mut mark);
    }
    named
}

/// Whether a var held back too long can be dealt from the values of its type (`deal_values`):
/// one player, enum value or boolean, or a number within its bounds (at most `MAX_DEALT`
/// values), each maybe `none`.
fn dealable(prog: &Program, id: u32) -> bool {
    prog.vars
        .get(id as usize)
        .is_some_and(|vd| !values_of(prog, vd, 1, true).is_empty())
}

/// The most values a var's type may have for its entries to be dealt (`dealable`).
const MAX_DEALT: i64 = 1024;

/// Every value of var `vd`'s type with `n` players, `none` first when `none` is one of them;
/// empty for a type whose values are not few (text, cards, lists, unbounded numbers).
fn values_of(prog: &Program, vd: &VarDef, n: u32, none: bool) -> Vec<Value> {
    let (ty, opt) = match &vd.ty {
        Ty::Opt(t) => (&**t, true),
        t => (t, false),
    };
    let mut out: Vec<Value> = match ty {
        Ty::Player => (0..n).map(Value::Player).collect(),
        Ty::Bool => vec![Value::Bool(false), Value::Bool(true)],
        Ty::Enum(e) => {
            let count = prog.enums.get(*e as usize).map_or(0, |d| d.variants.len()) as u32;
            (0..count).map(|x| Value::Enum(*e, x)).collect()
        }
        Ty::Int => match vd.bounds {
            Some((lo, hi)) if hi >= lo && hi.saturating_sub(lo) < MAX_DEALT => {
                (lo..=hi).map(Value::Int).collect()
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    if !out.is_empty() && (none || opt) {
        out.insert(0, Value::None);
    }
    out
}

/// Who "answers" a draw of the game's randomness kept in a track (`Interp::draw_below`).
const NATURE: u32 = u32::MAX;

/// Whether values of type `ty` name cards only (a card, `none`, a list of cards): what such a
/// var holds may follow the cards a determinisation re-deals (`Track::holds_back`).
fn names_cards(ty: &Ty) -> bool {
    match ty {
        Ty::Card(_) | Ty::None => true,
        Ty::Opt(t) | Ty::List(t) => names_cards(t),
        _ => false,
    }
}

impl Playout {
    /// The signal a replay that no longer fits unwinds with, noting why.
    fn reject(&mut self, why: Why) -> Box<Diag> {
        self.why.get_or_insert(why);
        signal(REJECT)
    }

    /// A draw in `0..n` met in a playout (`real`, the copy's own stream): while the replay is
    /// under way, the draw the track kept there answered afresh; after the choice searched, or
    /// where the copy draws where the game did not, a draw of the playout's own.
    fn draw(&mut self, n: u32, real: u32) -> u32 {
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

/// A replay held back (`Track::holds_back`) goes back at most this many boundaries, and replays
/// at most `MAX_HELD_STEPS` steps of the game: past them, a var that holds the track back has
/// stood hidden too long to be replayed from where it was made (every copy, and every probe,
/// would replay it), and a search refuses rather than read it. Ambition's secret pacts hold it
/// back up to 6 segments and 10,300 steps (2 and 4 players, `mc:2`, 62 games); Hegemony's
/// agendas, dealt at setup and kept all game, pass 20,000 steps by the fifth segment.
const MAX_HELD: u32 = 24;
const MAX_HELD_STEPS: u64 = 20_000;

impl Track {
    /// The var, if any, for which the replay must go on from this track's boundary rather than
    /// from the boundary the game is at (`now`): one hidden from some player, written since
    /// this boundary, with a slot some player may not read that is not back at its first value
    /// and whose value a determinisation would not re-deal. That is a value (a number, a word,
    /// a player: from a later boundary it would be the real one in every copy), or a card
    /// someone who may not read the var knows or that lies in no zone (which card the var names
    /// is then the secret; a card in a zone that nobody but the var's readers knows is
    /// re-dealt, and the var follows it). From this
    /// boundary, the draws and other players' secret answers that made the value are replayed
    /// afresh. A track starts at the game's setup (every var at its first value) or where no
    /// such var was written since the last start, so what such vars hold there, every seat
    /// knows.
    fn holds_back(&self, prog: &Program, now: &State) -> Option<u32> {
        let since = self.state.var_clock;
        let view = View {
            prog,
            n_players: now.n_players,
            zone_base: &now.zone_base,
        };
        (0..prog.vars.len() as u32).find(|&id| {
            let Some(vd) = prog.vars.get(id as usize) else {
                return false;
            };
            if vd.visibility == crate::ast::Visibility::Public
                || self.dealt.contains(&id)
                || now.var_stamp.get(id as usize).is_none_or(|&s| s <= since)
            {
                return false;
            }
            let cards = names_cards(&vd.ty);
            let base = now.var_base.get(id as usize).copied().unwrap_or(0) as usize;
            let size = family_size(&vd.keys, now.n_players, prog).unwrap_or(0);
            let first = now.var_first.get(id as usize);
            (0..size).any(|off| {
                let Some(v) = now.vars.get(base + off as usize) else {
                    return false;
                };
                let readers = view.var_readers(id, off);
                if Some(v) == first || readers == everyone(now.n_players) {
                    return false;
                }
                if !cards {
                    return true;
                }
                // One card in no zone, in a var of one card: dealt (`held_places`).
                if let Value::Card(c) = v {
                    if holds_one_card(&vd.ty) && now.card_zone.get(*c as usize) == Some(&NOWHERE) {
                        return false;
                    }
                }
                let mut told = false;
                each_card(v, &mut |c| {
                    let known = now.known.get(c as usize).copied().unwrap_or(0);
                    let nowhere = now.card_zone.get(c as usize).is_none_or(|&z| z == NOWHERE);
                    told |= nowhere || known & !readers != 0;
                });
                told
            })
        })
    }

    /// Why a search may not search from this track: the var that held it back past `MAX_HELD`
    /// boundaries or `MAX_HELD_STEPS` steps.
    pub(super) fn refused(&self) -> Option<u32> {
        self.refused
    }

    pub(super) fn at(pos: Pos, state: &State) -> Track {
        Track {
            pos,
            state: state.clone(),
            asked: Vec::new(),
            seen: state.known.clone(),
            held: 0,
            refused: None,
            dealt: Vec::new(),
        }
    }

    /// A choice answered in the game (forced or not).
    pub(super) fn asked(&mut self, player: u32, options: &[Value], index: usize, secret: bool) {
        self.asked.push(Asked {
            player,
            index,
            count: options.len(),
            secret,
            taken: options.get(index).cloned().unwrap_or_default(),
        });
    }
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
        Some(format!(
            "P{}'s search cannot keep `{}` hidden: the var, hidden from some players, was drawn or chosen in secret more than {MAX_HELD} segments or {MAX_HELD_STEPS} steps ago, and a search would have to replay the game from there in every copy; set it back to its starting value once it has done its work (a search then replays only from there), or play this seat with `random`, `bot:NAME` or a person",
            u64::from(self.seat) + 1,
            vd.name
        ))
    }

    fn want(&self) -> &Rc<Wanted> {
        self.want.get_or_init(|| {
            let d = self.dealing.get_or_init(|| self.dealing());
            let mut class_of = vec![NOT_DEALT; self.track.state.known.len()];
            for (k, group) in d.classes.iter().enumerate() {
                for &c in group {
                    if let Some(x) = class_of.get_mut(c as usize) {
                        *x = k as u32;
                    }
                }
            }
            Rc::new(Wanted {
                replay: self.track.asked.clone(),
                class_of,
                now: self.now.clone(),
                options: self.options.to_vec(),
                seen: OnceCell::new(),
            })
        })
    }

    /// A copy of the position at the last boundary, for the seat, dealt afresh (`fresh`); its
    /// playouts are steps of a Metropolis chain over the copies that lead back to the choice as
    /// the seat sees it (`playout_inner`, and the module's account).
    pub fn determinise(&self, rng: &mut ChaCha8Rng) -> World {
        let mut world = self.fresh(rng);
        world.local = rng::draw_u64(rng);
        world
    }

    /// A step of the chain from its copy (`st`, answers drawn from `repick`), drawn from `rng`:
    /// the copy with the other players' secret answers and the game's draws drawn afresh, or
    /// (one time in two) with two cards of one class exchanged (`exchange`), its answers as
    /// drawn. The stream of the answers the step's copy draws.
    fn step(&self, st: &mut State, repick: u64, rng: &mut ChaCha8Rng) -> u64 {
        if rng::below(rng, 2) == 0 || !self.exchange(st, rng) {
            rng::draw_u64(rng)
        } else {
            repick
        }
    }

    /// A determinisation drawn afresh: the cards the seat does not know re-dealt at random
    /// among the places holding such cards (see the module's account), the var entries hidden
    /// from it dealt, and a fresh stream for the replay's secret answers and draws.
    fn fresh(&self, rng: &mut ChaCha8Rng) -> World {
        let mut st = self.track.state.clone();
        let sigma = self.deal(rng);
        if let Some(sigma) = sigma {
            relabel_state(&mut st, &sigma);
        }
        self.deal_held(&mut st, rng);
        self.deal_values(&mut st, rng);
        World {
            state: st,
            repick: rng::draw_u64(rng),
            verdict: Rc::default(),
            local: 0,
        }
    }

    /// Exchange two cards of one class that a determinisation deals, in a copy (`st`): the
    /// first drawn uniformly among the dealt cards of classes of two or more, the second among
    /// the other cards of its class. A step of the chain, symmetric (each exchange is drawn
    /// with the same chance from either side). `false` when no class has two cards.
    fn exchange(&self, st: &mut State, rng: &mut ChaCha8Rng) -> bool {
        let d = self.dealing.get_or_init(|| self.dealing());
        let total: usize = d.classes.iter().filter(|g| g.len() > 1).map(Vec::len).sum();
        if total == 0 {
            return false;
        }
        let mut k = rng::below(rng, total.min(u32::MAX as usize) as u32) as usize;
        for group in d.classes.iter().filter(|g| g.len() > 1) {
            if k >= group.len() {
                k -= group.len();
                continue;
            }
            let other = rng::below(rng, (group.len() - 1).min(u32::MAX as usize) as u32) as usize;
            let other = if other >= k { other + 1 } else { other };
            let (Some(&a), Some(&b)) = (group.get(k), group.get(other)) else {
                return false;
            };
            let mut sigma: Vec<u32> = (0..st.known.len() as u32).collect();
            if a as usize >= sigma.len() || b as usize >= sigma.len() {
                return false;
            }
            // In bounds: checked just above.
            sigma.swap(a as usize, b as usize);
            relabel_state(st, &sigma);
            return true;
        }
        false
    }

    /// A copy rejected, for `why` (`None`: the game asked the choice early, ended without it,
    /// or stopped on an error).
    fn note(&self, why: Option<Why>) {
        let why = why.unwrap_or(Why::Ended);
        let mut counts = self.why.get();
        if let Some(n) = counts.get_mut(why as usize) {
            *n = n.saturating_add(1);
        }
        self.why.set(counts);
    }

    /// Proposals the chain refused so far at this choice, each replaced by the chain's last
    /// copy given again (`determinise`).
    pub fn refused_copies(&self) -> u64 {
        self.refused.get()
    }

    /// The permutation of cards a determinisation makes of the boundary state: the cards the
    /// seat has not seen since the boundary (nor sees now), shuffled within their class and dealt back
    /// into the places holding such cards. `None` when it renames no card.
    fn deal(&self, rng: &mut ChaCha8Rng) -> Option<Vec<u32>> {
        let d = self.dealing.get_or_init(|| self.dealing());
        if d.places.is_empty() {
            return None;
        }
        let mut sigma: Vec<u32> = (0..self.track.state.known.len() as u32).collect();
        let mut into = d.places.iter();
        for group in &d.classes {
            let mut dealt: Vec<u32> = group.clone();
            rng::shuffle(rng, &mut dealt);
            for (&new, &place) in dealt.iter().zip(into.by_ref()) {
                if let Some(s) = sigma.get_mut(place as usize) {
                    *s = new;
                }
            }
        }
        sigma
            .iter()
            .enumerate()
            .any(|(i, &s)| i as u32 != s)
            .then_some(sigma)
    }

    /// Deal the var entries hidden from the seat that hold a card in no zone (`Dealing::held`):
    /// each pool shuffled and dealt out to its entries in slot order, shuffled again when it
    /// runs out (an entry's card may be another entry's too: the game may deal the same card
    /// of its list to several players, as Hegemony's factions each deal from all the agendas).
    fn deal_held(&self, st: &mut State, rng: &mut ChaCha8Rng) {
        let d = self.dealing.get_or_init(|| self.dealing());
        if d.held.is_empty() {
            return;
        }
        let mut decks: Vec<Vec<u32>> = vec![Vec::new(); d.pools.len()];
        for &(slot, pool) in &d.held {
            let (Some(deck), Some(cards)) = (decks.get_mut(pool), d.pools.get(pool)) else {
                continue;
            };
            if deck.is_empty() {
                *deck = cards.clone();
                rng::shuffle(rng, deck);
            }
            if let (Some(c), Some(v)) = (deck.pop(), st.vars.get_mut(slot)) {
                *v = Value::Card(c);
            }
        }
        // Remembered calls may hold the cards dealt before.
        st.memo = super::Memo::default();
    }

    /// Deal the entries hidden from the seat of the vars held back too long (`Track::dealt`):
    /// each a value of the var's type drawn uniformly (`dealable`), `none` among them where the
    /// var starts at `none`. The seat knows of them only their type: a value made by secret
    /// answers and draws so long ago that replaying them in every copy would cost too much.
    fn deal_values(&self, st: &mut State, rng: &mut ChaCha8Rng) {
        if self.track.dealt.is_empty() {
            return;
        }
        let view = View {
            prog: self.prog,
            n_players: st.n_players,
            zone_base: &st.zone_base,
        };
        let mut changed = false;
        for &id in &self.track.dealt {
            let Some(vd) = self.prog.vars.get(id as usize) else {
                continue;
            };
            let first = st.var_first.get(id as usize).cloned().unwrap_or_default();
            let values = values_of(self.prog, vd, st.n_players, first == Value::None);
            if values.is_empty() {
                continue;
            }
            let base = st.var_base.get(id as usize).copied().unwrap_or(0) as usize;
            let size = family_size(&vd.keys, st.n_players, self.prog).unwrap_or(0);
            for off in 0..size {
                if holds(view.var_readers(id, off), self.seat) {
                    continue;
                }
                let pick = rng::below(rng, values.len() as u32) as usize;
                if let (Some(v), Some(x)) = (st.vars.get_mut(base + off as usize), values.get(pick))
                {
                    *v = x.clone();
                    changed = true;
                }
            }
        }
        if changed {
            // Remembered calls may have read the values dealt over.
            st.memo = super::Memo::default();
        }
    }

    /// What every determinisation of this choice deals (`deal`): worked out once.
    fn dealing(&self) -> Dealing {
        let st = &self.track.state;
        let seat = self.seat;
        let unknown = |c: u32| {
            let since = self.track.seen.get(c as usize).copied().unwrap_or(0);
            let now = self.now.known.get(c as usize).copied().unwrap_or(0);
            !holds(since, seat) && !holds(now, seat)
        };
        // A card's class: its kind and the values of its var fields (a card re-dealt keeps its
        // own; only cards alike in both are exchanged, so `c.owner` still says whose deck a
        // card goes back to). Compared in place, without copying the values.
        let kind_of = |c: u32| self.prog.cards.get(c as usize).map_or(0, |d| d.kind);
        let vars_of = |c: u32| -> &[Value] {
            let n = self
                .prog
                .kinds
                .get(kind_of(c) as usize)
                .map_or(0, |k| k.var_count) as usize;
            let base = st.card_var_base.get(c as usize).copied().unwrap_or(0) as usize;
            st.card_vars.get(base..base + n).unwrap_or(&[])
        };
        let class = |a: u32, b: u32| {
            kind_of(a)
                .cmp(&kind_of(b))
                .then_with(|| vars_of(a).cmp(vars_of(b)))
        };
        // The places holding cards the seat does not know: (slot, index, card).
        let mut places: Vec<(u32, usize, u32)> = Vec::new();
        for (slot, zone) in st.zones.iter().enumerate() {
            for (i, &c) in zone.iter().enumerate() {
                if unknown(c) {
                    places.push((slot as u32, i, c));
                }
            }
        }
        // Canonical: the cards by class, then id (the multiset); the places by class, then
        // slot order. Each class's cards are shuffled and dealt into that class's places.
        let mut cards: Vec<u32> = places.iter().map(|p| p.2).collect();
        cards.sort_unstable_by(|&a, &b| class(a, b).then(a.cmp(&b)));
        places.sort_unstable_by(|a, b| class(a.2, b.2).then((a.0, a.1).cmp(&(b.0, b.1))));
        let mut d = Dealing {
            classes: cards
                .chunk_by(|&a, &b| class(a, b).is_eq())
                .map(<[u32]>::to_vec)
                .collect(),
            places: places.iter().map(|p| p.2).collect(),
            held: Vec::new(),
            pools: Vec::new(),
        };
        // Var entries hidden from the seat holding a card in no zone (a secret agenda dealt
        // from the card list): each gets a card of its class in no zone. Which card an entry
        // holds is what the seat does not know; the pool is worked out from what it does: the
        // cards of the class in no zone (never in a zone: a card cannot go back to no zone),
        // less those a var the seat reads, a var field of a card it knows or the phase's items
        // name, for the seat knows where those are. The entry's own card is in its pool only when every other
        // place names it (then it is every card of the class in no zone).
        let held = held_places(self.prog, st, seat);
        if held.is_empty() {
            return d;
        }
        let named = seen_names(self.prog, st, seat);
        for (slot, c) in held {
            let pool = match d
                .pools
                .iter()
                .position(|p| p.first().is_some_and(|&x| class(x, c).is_eq()))
            {
                Some(i) => i,
                None => {
                    let nowhere = |x: &u32| {
                        st.card_zone.get(*x as usize) == Some(&NOWHERE) && class(*x, c).is_eq()
                    };
                    let all: Vec<u32> = (0..st.card_zone.len() as u32).filter(nowhere).collect();
                    let free: Vec<u32> = all
                        .iter()
                        .copied()
                        .filter(|&x| named.get(x as usize) != Some(&true))
                        .collect();
                    d.pools.push(if free.is_empty() { all } else { free });
                    d.pools.len() - 1
                }
            };
            d.held.push((slot, pool));
        }
        d
    }

    /// Run a playout interpreter from the boundary state `state` to the end of the game (or,
    /// for a probe, to the choice searched).
    fn run(&self, state: State, playout: Playout) -> R<(R<()>, Interp<'_>)> {
        let mut it = Interp::from_state(self.prog, self.seed, self.limits, state)?;
        it.record = false;
        it.unshown = true;
        it.remember = self.remember;
        it.playout = Some(Box::new(playout));
        let mut pos = self.track.pos;
        while pos != Pos::Done {
            match it.step(pos) {
                Ok(next) => pos = next,
                Err(d) if d.code == HORIZON => {
                    // Scored where it stands, as the game would score it now.
                    return Ok(match it.winner() {
                        Ok(o) => {
                            it.outcome = Some(o);
                            (Ok(()), it)
                        }
                        Err(d) => (Err(d), it),
                    });
                }
                Err(d) => return Ok((Err(d), it)),
            }
        }
        Ok((Ok(()), it))
    }

    fn playout_for(&self, option: usize, hidden: Hidden, seed: u64) -> Playout {
        let mut seeds = rng::new_rng(seed);
        Playout {
            want: self.want().clone(),
            seat: self.seat,
            count: self.options.len(),
            option,
            hidden,
            future: Some(rng::new_rng(rng::draw_u64(&mut seeds))),
            answers: rng::new_rng(rng::draw_u64(&mut seeds)),
            asked: 0,
            branched: false,
            policy: None,
            horizon: None,
            bot: None,
            why: None,
        }
    }

    /// One probe: replay the real boundary state with replayed choice `at` answered `alt`
    /// (as given for `None`) and every other answer as given. Whether it led back to the
    /// choice as the seat sees it, and the number of options choice `at` had.
    fn probe(&self, at: usize, alt: Option<usize>) -> (bool, usize) {
        let hidden = Hidden::Probe { at, alt, count: 0 };
        match self.run(self.track.state.clone(), self.playout_for(0, hidden, 0)) {
            Ok((end, it)) => {
                let count = match it.playout.as_deref() {
                    Some(Playout {
                        hidden: Hidden::Probe { count, .. },
                        ..
                    }) => *count,
                    _ => 0,
                };
                (matches!(end, Err(d) if d.code == ACCEPT), count)
            }
            Err(_) => (false, 0),
        }
    }

    /// Decide, once per choice searched, how a playout draws the answers to other players'
    /// secret choices since the boundary. Probes change one such answer at a time (every other
    /// answer as given): every other answer when the choice had at most `PROBE_ALL` options,
    /// else `PROBES` drawn at random. If every answer tried led back to the choice as the seat
    /// sees it, the choice is drawn uniformly. Otherwise it is drawn among the answers that fit
    /// (`Proposal::Among`): with every answer tried, those and the one given, which is exactly
    /// what the seat can infer; with a sample, only those found (the one given would be over-
    /// represented among a few), or the one given alone when nothing else fitted. The playout's
    /// weight (`Played::weight`) corrects for the narrowing, and one draw in `WIDE_OF` stays
    /// uniform among all, so what a search estimates is what uniform draws give, only with far
    /// fewer copies rejected. The probes replay the real boundary state: they shape the
    /// proposal, never what it is weighed against. The game's own draws since the boundary
    /// (`NATURE`) are probed alike, up to `NATURE_PROBES` probes.
    pub fn prepare(&self, rng: &mut ChaCha8Rng) {
        if self.proposals.get().is_some() {
            return;
        }
        let replay = &self.want().replay;
        let mut proposals = vec![Proposal::Uniform; replay.len()];
        let as_went = OnceCell::new();
        let mut nature_budget = NATURE_PROBES;
        for (at, a) in replay.iter().enumerate() {
            let (who, index, secret) = (a.player, a.index, a.secret);
            if !secret || who == self.seat {
                continue;
            }
            let (fits, n) = if who == NATURE {
                // A draw: its number of values is kept, and the replay as it went is the same
                // for every draw, so it is tried once.
                let n = a.count;
                if n < 2 || index >= n || nature_budget < n.min(PROBE_ALL) {
                    // Past the budget: drawn uniformly, as the game draws it.
                    continue;
                }
                nature_budget -= n.min(PROBE_ALL);
                (*as_went.get_or_init(|| self.probe(usize::MAX, None).0), n)
            } else {
                self.probe(at, None)
            };
            if !fits || n < 2 || index >= n {
                // The replay does not come back as it went: nothing to narrow.
                continue;
            }
            let alts: Vec<usize> = if n <= PROBE_ALL {
                (0..n).filter(|&a| a != index).collect()
            } else {
                (0..PROBES)
                    .map(|_| {
                        let a = rng::below(rng, (n - 1).min(u32::MAX as usize) as u32) as usize;
                        if a >= index {
                            a + 1
                        } else {
                            a
                        }
                    })
                    .collect()
            };
            let every = n <= PROBE_ALL;
            let mut fitted: Vec<usize> = Vec::new();
            let mut all_fit = true;
            for &a in &alts {
                if !self.probe(at, Some(a)).0 {
                    all_fit = false;
                } else if !fitted.contains(&a) {
                    fitted.push(a);
                }
            }
            if all_fit {
                continue;
            }
            // Every answer tried: those that fit are the seat's inference, the one given among
            // them. A sample: the ones found stand for all that fit, and the one given is left
            // out (it was not found by chance), unless nothing else fitted.
            if every || fitted.is_empty() {
                fitted.push(index);
            }
            fitted.sort_unstable();
            proposals[at] = Proposal::Among(fitted);
        }
        let _ = self.proposals.set(proposals.into());
    }

    /// Another copy of `world`, to play out with another option (paired comparisons).
    pub fn copy(&self, world: &World) -> World {
        World {
            state: world.state.clone(),
            repick: world.repick,
            verdict: world.verdict.clone(),
            local: world.local,
        }
    }

    /// Play `world` out with option `option` taken at this choice: the game's randomness and
    /// every answer after it come from `seed`. Bounded by the game's step budget.
    pub fn playout(&self, world: &World, option: usize, seed: u64) -> Played {
        self.playout_by(world, option, seed, None)
    }

    /// `playout`, with every choice after this one answered by the game's bot `bot` (as the
    /// seat that chooses, on the copy), one answer in `BOT_RANDOM_ONE_IN` at random; random
    /// answers when `None`.
    pub fn playout_by(
        &self,
        world: &World,
        option: usize,
        seed: u64,
        bot: Option<&Rc<str>>,
    ) -> Played {
        let copy = self.copy(world);
        self.playout_inner(copy, option, seed, None, None, bot.cloned())
            .0
    }

    /// `playout`, with the choices after this one answered by `policy` (a tree search's), which
    /// is handed back with the result. The copy is played out in place (a tree search plays
    /// each copy once). With a `horizon`, a game that has a score is scored where it stands
    /// once that many choices after this one are answered (the winner as the game would name
    /// it then), instead of being played to its end. The choices the policy leaves to the
    /// playout are answered by the game's bot `bot` as `playout_by` does (random when `None`).
    pub fn playout_with(
        &self,
        world: World,
        option: usize,
        seed: u64,
        policy: Box<dyn Policy>,
        horizon: Option<usize>,
        bot: Option<Rc<str>>,
    ) -> (Played, Option<Box<dyn Policy>>) {
        let horizon = horizon.filter(|_| self.has_score());
        self.playout_inner(world, option, seed, Some(policy), horizon, bot)
    }

    /// A playout of `world`, as a step of the chain of copies (`determinise`). Its first
    /// playout decides which copy it stands for, by delayed rejection: the copy dealt afresh if
    /// it leads back to the choice; else, once the chain has a copy, a step from that copy
    /// (`step`) if it leads back; else the chain's copy itself. The chain moves to the copy
    /// that led back, and every later playout of `world` plays the copy decided.
    fn playout_inner(
        &self,
        world: World,
        option: usize,
        seed: u64,
        policy: Option<Box<dyn Policy>>,
        horizon: Option<usize>,
        bot: Option<Rc<str>>,
    ) -> (Played, Option<Box<dyn Policy>>) {
        let World {
            state,
            repick,
            verdict,
            local,
        } = world;
        let settings = |policy| (policy, horizon, bot.clone());
        match verdict.get() {
            Some(Some((st, r))) => {
                let (played, policy, _) =
                    self.play_copy(st.clone(), *r, option, seed, settings(policy));
                return (played, policy);
            }
            Some(None) => {
                let (played, policy, _) =
                    self.play_copy(state, repick, option, seed, settings(policy));
                return (played, policy);
            }
            None => {}
        }
        let kept = state.clone();
        let (played, policy, rejected) =
            self.play_copy(state, repick, option, seed, settings(policy));
        if !rejected {
            let _ = verdict.set(None);
            *self.chain.borrow_mut() = Some((kept, repick));
            return (played, policy);
        }
        let Some((mut st, r)) = self.chain.borrow().clone() else {
            return (played, policy);
        };
        let refuse = || self.refused.set(self.refused.get().saturating_add(1));
        refuse();
        let held = (st.clone(), r);
        let r2 = self.step(&mut st, r, &mut rng::new_rng(local));
        let kept = st.clone();
        let (played, policy, rejected) = self.play_copy(st, r2, option, seed, settings(policy));
        if !rejected {
            let _ = verdict.set(Some((kept.clone(), r2)));
            *self.chain.borrow_mut() = Some((kept, r2));
            return (played, policy);
        }
        refuse();
        let (st, r) = held;
        let _ = verdict.set(Some((st.clone(), r)));
        let (played, policy, _) = self.play_copy(st, r, option, seed, settings(policy));
        (played, policy)
    }

    /// Play the copy `state` out, its replay's answers drawn from `repick`: how it ended, the
    /// policy handed back, and whether the replay rejected it (counted by why).
    fn play_copy(
        &self,
        state: State,
        repick: u64,
        option: usize,
        seed: u64,
        (policy, horizon, bot): (Option<Box<dyn Policy>>, Option<usize>, Option<Rc<str>>),
    ) -> (Played, Option<Box<dyn Policy>>, bool) {
        let hidden = Hidden::Drawn {
            repick: Box::new(rng::new_rng(repick)),
            proposals: self
                .proposals
                .get()
                .cloned()
                .unwrap_or_else(|| Rc::from([])),
            weight: 1.0,
        };
        let mut playout = self.playout_for(option, hidden, seed);
        playout.policy = policy;
        playout.horizon = horizon;
        playout.bot = bot;
        let (end, mut it) = match self.run(state, playout) {
            Ok(r) => r,
            Err(d) => {
                let end = PlayoutEnd::Error(d.message);
                return (Played { end, weight: 0.0 }, None, false);
            }
        };
        let mut pl = it.playout.take();
        let policy = pl.as_mut().and_then(|p| p.policy.take());
        let branched = pl.as_ref().is_some_and(|p| p.branched);
        let weight = match pl.as_deref() {
            Some(Playout {
                hidden: Hidden::Drawn { weight, .. },
                ..
            }) => *weight,
            _ => 1.0,
        };
        let rejected = match &end {
            Err(d) => d.code == REJECT || !branched,
            Ok(()) => !branched,
        };
        if rejected {
            self.note(pl.as_ref().and_then(|p| p.why));
        }
        let end = match end {
            Err(d) if d.code == REJECT || !branched => PlayoutEnd::Rejected,
            Err(d) if d.code == "run::bot_hidden" => {
                let message = format!("{}: {}", d.code, d.message);
                let _ = self.peeked.set(message.clone());
                PlayoutEnd::Error(message)
            }
            Err(d) => PlayoutEnd::Error(format!("{}: {}", d.code, d.message)),
            // The game ended before asking the choice again.
            Ok(()) if !branched => PlayoutEnd::Rejected,
            Ok(()) => PlayoutEnd::Finished(it.outcome.take().unwrap_or(Outcome {
                winners: Vec::new(),
                scores: Vec::new(),
            })),
        };
        (Played { end, weight }, policy, rejected)
    }
}

/// What a search keeps of the game so far (`Track`), opaque: a session that resumes a game from
/// a boundary of its own (the REPL, `serve`) hands it back, so a search replays from where it
/// would in `rules run` (a boundary held back, `Track::holds_back`, is earlier than the one
/// resumed from).
#[derive(Clone, Default)]
pub struct SearchMemory(Option<Box<Track>>);

impl Interp<'_> {
    /// What a search keeps now, to resume from (`set_search_memory`).
    pub fn search_memory(&self) -> SearchMemory {
        SearchMemory(self.search.clone())
    }

    /// Resume with what a search kept (`search_memory`), and keep it from now on whoever
    /// answers (a person may hand a seat to a search later).
    pub fn set_search_memory(&mut self, memory: SearchMemory) {
        self.searching = true;
        self.search = memory.0;
    }

    /// At a segment boundary: keep the state, when an agent searches, unless the state kept
    /// must stay (`Track::holds_back`): then the replay goes on from the earlier boundary.
    pub(super) fn track_boundary(&mut self, pos: Pos) {
        if !self.searching {
            return;
        }
        let mut dealt = Vec::new();
        if let Some(t) = self.search.as_deref_mut() {
            if t.holds_back(self.prog, &self.state).is_some() {
                t.held = t.held.saturating_add(1);
                let steps = self.state.steps().saturating_sub(t.state.steps());
                if t.held <= MAX_HELD && steps <= MAX_HELD_STEPS {
                    return;
                }
            }
            // Held back too long: a var whose every value can be dealt is dealt afresh in each
            // copy from now on (what it holds, the seat learns only from the game); another
            // makes the search refuse.
            while let Some(var) = t.holds_back(self.prog, &self.state) {
                if !dealable(self.prog, var) {
                    t.refused.get_or_insert(var);
                    return;
                }
                t.dealt.push(var);
            }
            dealt = std::mem::take(&mut t.dealt);
        }
        let mut track = Track::at(pos, &self.state);
        track.dealt = dealt;
        self.search = Some(Box::new(track));
    }

    /// A draw of the game's own randomness, uniform in `0..n` (`roll`, `roll_dice`,
    /// `pick_random`, `shuffled`): the game's stream as ever. When an agent searches, the draw
    /// is kept in the track, as a secret answer of nobody's (`NATURE`); a playout replaying the
    /// track answers it afresh (`answer_hidden`: drawn among the values the probes found to
    /// fit what the seat saw, weighted back to uniform), so a value the seat never saw, a die
    /// kept in a var hidden from it, is re-rolled in every copy. The game's stream is drawn from
    /// all the same, so the draws after it (a shuffle) stay where they were.
    pub(crate) fn draw_below(&mut self, n: u32) -> u32 {
        let real = rng::below(&mut self.state.rng, n);
        if n <= 1 {
            return real;
        }
        if let Some(pl) = self.playout.as_deref_mut() {
            return pl.draw(n, real);
        }
        if let Some(t) = self.search.as_deref_mut() {
            t.asked.push(Asked {
                player: NATURE,
                index: real as usize,
                count: n as usize,
                secret: true,
                taken: Value::Int(i64::from(real)),
            });
        }
        real
    }

    /// Players `who` have just learnt card `c` (`visibility.rs`): kept since the boundary, when
    /// an agent searches.
    #[inline]
    pub(super) fn saw(&mut self, c: u32, who: Players) {
        if let Some(s) = self
            .search
            .as_deref_mut()
            .and_then(|t| t.seen.get_mut(c as usize))
        {
            *s |= who;
        }
    }

    /// In a playout, a forced choice (one option): while the choices since the boundary are
    /// replayed, it must stand for the one the game met there, which in a copy where its chooser
    /// holds other cards may have offered more.
    pub(super) fn playout_forced(&mut self, player: u32, options: &[Value]) -> R<()> {
        let Some(pl) = self.playout.as_mut() else {
            return Ok(());
        };
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
    pub(super) fn playout_answer(
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
                        |rng: &mut ChaCha8Rng| super::random_answer(rng, count, allocation);
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
                None => Ok(super::random_answer(
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
}

impl Interp<'_> {
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
        Ok(super::random_answer(rng, count, self.allocation))
    }

    /// Whether the choice being asked (`options`) reads to `seat` as the choice searched did:
    /// its options as the seat sees them, and the seat's view. Plainly the same states and
    /// options (`looks_same`) are; otherwise both are built and compared.
    fn seen_as_wanted(&self, want: &Wanted, options: &[Value], seat: u32) -> bool {
        let count = options.len();
        let plain = count == want.options.len()
            && options
                .iter()
                .zip(&want.options)
                .all(|(x, y)| x == y && known_alike(x, &self.state.known, &want.now.known, seat))
            && looks_same(self.prog, &self.state, &want.now, seat);
        if plain {
            return true;
        }
        let (want_labels, want_view) = want.seen(self.prog, seat);
        let view = self.view();
        let same_labels = count == want_labels.len()
            && (0..count).all(|i| {
                want_labels.get(i).map(String::as_str)
                    == Some(seen_label(&view, options, &self.state.known, seat, i).as_str())
            });
        same_labels && super::seen::player_view(self.prog, &self.state, seat) == *want_view
    }
}

/// A card's class when no determinisation deals it (`Wanted::class_of`).
const NOT_DEALT: u32 = u32::MAX;

/// Whether option `v` of a determinised copy reads to the seat as option `taken` of the real
/// game did, in its cards: a card either the same or, where the seat knows neither, one of the
/// same class that a determinisation deals (the seat cannot tell them apart), in lists and
/// tuples of the same shape. With `strict`, the other parts (numbers, words, players) are equal
/// too; without, any such part is alike, since it may come from a card the seat does not see
/// (the value of a card discarded face down), and a copy must not be rejected for that.
fn reads_alike(taken: &Value, v: &Value, class_of: &[u32], strict: bool) -> bool {
    match (taken, v) {
        (Value::Card(a), Value::Card(b)) => {
            a == b || {
                let ca = class_of.get(*a as usize).copied().unwrap_or(NOT_DEALT);
                ca != NOT_DEALT && class_of.get(*b as usize) == Some(&ca)
            }
        }
        (Value::List(x), Value::List(y)) | (Value::Tuple(x), Value::Tuple(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|(a, b)| reads_alike(a, b, class_of, strict))
        }
        (Value::Card(_) | Value::List(_) | Value::Tuple(_), _)
        | (_, Value::Card(_) | Value::List(_) | Value::Tuple(_)) => false,
        _ => !strict || taken == v,
    }
}

/// The answer to replayed choice `j`, another player's choice the seat saw made (answered
/// `index` in the real game): an option of the copy alike in every part to the one taken
/// (`reads_alike`, strict), or where none is, alike in its cards; drawn uniformly when several
/// are, `None` when none is alike even in its cards. A probe replays the real position, where
/// the option given is one. What the seat sees of the consequences is checked at the choice.
fn pick_alike(
    want: &Wanted,
    hidden: &mut Hidden,
    j: usize,
    index: usize,
    options: &[Value],
) -> Option<usize> {
    let taken = &want.replay.get(j)?.taken;
    let alike = |v: &Value, strict: bool| reads_alike(taken, v, &want.class_of, strict);
    match hidden {
        Hidden::Probe { .. } => options.get(index).filter(|v| alike(v, true)).map(|_| index),
        Hidden::Drawn { repick, .. } => {
            let among = |strict: bool| -> Vec<usize> {
                (0..options.len())
                    .filter(|&i| options.get(i).is_some_and(|v| alike(v, strict)))
                    .collect()
            };
            let mut fits = among(true);
            if fits.is_empty() {
                fits = among(false);
            }
            match fits.len() {
                0 => None,
                1 => fits.first().copied(),
                n => {
                    let k = rng::below(repick, n.min(u32::MAX as usize) as u32) as usize;
                    fits.get(k).copied()
                }
            }
        }
    }
}

/// The answer to replayed choice `j`, another player's secret choice of `count` options that
/// was answered `index`: drawn from its proposal (with its weight), or a probe's answer.
fn answer_hidden(hidden: &mut Hidden, j: usize, index: usize, count: usize) -> usize {
    let n = count.clamp(1, u32::MAX as usize);
    match hidden {
        Hidden::Probe { at, alt, count } => {
            if *at != j {
                return index;
            }
            *count = n;
            alt.filter(|&a| a < n).unwrap_or(index)
        }
        Hidden::Drawn {
            repick,
            proposals,
            weight,
        } => {
            let among = match proposals.get(j) {
                Some(Proposal::Among(a)) if a.iter().all(|&x| x < n) && !a.is_empty() => a,
                _ => return rng::below(repick, n as u32) as usize,
            };
            let answer = if rng::below(repick, WIDE_OF) == 0 {
                rng::below(repick, n as u32) as usize
            } else {
                let k = rng::below(repick, among.len().min(u32::MAX as usize) as u32) as usize;
                among.get(k).copied().unwrap_or(index)
            };
            // Prior 1/n over the proposal: e/n + (1 - e)/|among| if the answer is among them.
            let e = 1.0 / f64::from(WIDE_OF);
            let narrowed = if among.contains(&answer) {
                (1.0 - e) * n as f64 / among.len() as f64
            } else {
                0.0
            };
            *weight /= e + narrowed;
            answer
        }
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
        self.worlds = self.worlds.saturating_add(o.worlds);
        self.rejected = self.rejected.saturating_add(o.rejected);
        self.playouts = self.playouts.saturating_add(o.playouts);
        for (a, b) in self.why.iter_mut().zip(o.why) {
            *a = a.saturating_add(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HANDS: &str = r#"
kind Prize { value: int }
cards Prize (value) {
  gold: 10
  tin: 1
  lead: 2
  iron: 3
}
zone deck: Prize hidden
zone hand: Prize per player owner
var points: int per player = 0
game "Hands" { players: 2, rounds: 1, round: [play], score: score_of }
fn score_of(p: player) -> int = points[p]
setup {
  move Prize to deck
  shuffle deck
  draw 1 from deck to hand[P1]
  draw 1 from deck to hand[P2]
}
phase play {
  set points[P1] = 1
}
"#;

    /// The state after setup of the game above.
    fn dealt(prog: &Program) -> State {
        let mut it = Interp::new(prog, 2, 5, Vec::new(), Limits::default()).expect("interp");
        it.init().expect("init");
        it.step(Pos::Setup).expect("setup");
        it.state
    }

    const HELD: &str = r#"
kind Token { value: int }
cards Token (value) {
  a: 1
  b: 2
  c: 3
  d: 4
}
zone pile: Token public
var secret: Token per player owner = none
var shown: Token = none
game "Held" { players: 2, rounds: 1, round: [play], score: score_of }
fn score_of(p: player) -> int = 0
setup {
  move @d to pile
}
phase play {
  set shown = @c
}
"#;

    /// A var entry hidden from the seat that holds a card in no zone is dealt (it holds no
    /// replay back); the pool leaves out the cards the seat sees named. A card in a zone that
    /// others know does hold the replay back.
    #[test]
    fn a_hidden_entry_holding_a_card_in_no_zone_is_dealt() {
        let c = crate::check_text("held.rules", HELD, &Limits::default());
        assert_eq!(c.errors(), 0, "{}", c.render());
        let prog = c.program.expect("program");
        let mut st = dealt(&prog);
        let track = Track::at(Pos::Setup, &st);
        let id = |n: &str| prog.vars.iter().position(|v| v.name == n).expect("var");
        let card = |n: &str| {
            prog.cards
                .iter()
                .position(|c| c.id.to_string() == n)
                .expect("card") as u32
        };
        let secret = st.var_base[id("secret")] as usize;
        st.var_clock += 1;
        st.var_stamp[id("secret")] = st.var_clock;
        st.vars[secret] = Value::Card(card("b"));
        st.vars[secret + 1] = Value::Card(card("a"));
        st.vars[st.var_base[id("shown")] as usize] = Value::Card(card("c"));
        assert_eq!(track.holds_back(&prog, &st), None);
        // P1 may not read P2's entry: it is dealt; its own is not.
        assert_eq!(held_places(&prog, &st, 0), vec![(secret + 1, card("a"))]);
        let named = seen_names(&prog, &st, 0);
        let named: Vec<u32> = (0..4).filter(|&c| named[c as usize]).collect();
        // P1 reads its own entry (b), the public var (c) and sees the pile (d, in a zone: not
        // in the pool anyway).
        assert_eq!(named, vec![card("b"), card("c")]);
        // A card in a public zone, known to all: the entry holds the replay back.
        st.vars[secret + 1] = Value::Card(card("d"));
        assert_eq!(track.holds_back(&prog, &st), Some(id("secret") as u32));
    }

    /// Swap the cards at two places, as a determinisation does.
    fn swap(st: &mut State, (z1, i1): (usize, usize), (z2, i2): (usize, usize)) {
        let (a, b) = (st.zones[z1][i1], st.zones[z2][i2]);
        st.zones[z1][i1] = b;
        st.zones[z2][i2] = a;
        let (za, zb) = (st.card_zone[a as usize], st.card_zone[b as usize]);
        st.card_zone[a as usize] = zb;
        st.card_zone[b as usize] = za;
        let (ka, kb) = (st.known[a as usize], st.known[b as usize]);
        st.known[a as usize] = kb;
        st.known[b as usize] = ka;
    }

    /// A determinisation renames the cards of the state, the items of a phase under way too
    /// (they name cards by their places, as vars do).
    #[test]
    fn a_renaming_reaches_the_items_of_the_phase_under_way() {
        let c = crate::check_text("hands.rules", HANDS, &Limits::default());
        assert_eq!(c.errors(), 0, "{}", c.render());
        let prog = c.program.expect("program");
        let mut st = dealt(&prog);
        st.phase_items = match Value::list(vec![Value::Card(0), Value::Card(3), Value::Int(7)]) {
            Value::List(l) => Some(l),
            _ => None,
        };
        // Cards 0 and 1 exchanged, 2 and 3 kept.
        relabel_state(&mut st, &[1, 0, 2, 3]);
        let items: Vec<Value> = st
            .phase_items
            .iter()
            .flat_map(|l| l.iter().cloned())
            .collect();
        assert_eq!(items, vec![Value::Card(1), Value::Card(3), Value::Int(7)]);
    }

    /// `looks_same` says "the same" only when the seat's views are equal: for a copy, for
    /// hidden cards exchanged, and never for a changed hand or var.
    #[test]
    fn looks_same_only_when_the_views_are_equal() {
        let c = crate::check_text("hands.rules", HANDS, &Limits::default());
        assert_eq!(c.errors(), 0, "{}", c.render());
        let prog = c.program.expect("program");
        let real = dealt(&prog);
        let deck = prog
            .zones
            .iter()
            .position(|z| z.name == "deck")
            .expect("deck");
        let hand = prog
            .zones
            .iter()
            .position(|z| z.name == "hand")
            .expect("hand");
        let deck = real.zone_base[deck] as usize;
        let p2_hand = real.zone_base[hand] as usize + 1;
        let view = |s: &State, p: u32| super::super::seen::player_view(&prog, s, p);
        let agrees = |a: &State, p: u32| {
            let same = looks_same(&prog, a, &real, p);
            if same {
                assert_eq!(
                    view(a, p),
                    view(&real, p),
                    "looks_same for P{} but the views differ",
                    p + 1
                );
            }
            same
        };
        // A copy.
        assert!(agrees(&real.clone(), 0) && agrees(&real.clone(), 1));
        // Two deck cards exchanged: nobody sees the difference.
        let mut deck_swapped = real.clone();
        swap(&mut deck_swapped, (deck, 0), (deck, 1));
        assert!(agrees(&deck_swapped, 0) && agrees(&deck_swapped, 1));
        // P2's card exchanged with a deck card: the same to P1, not to P2.
        let mut hand_swapped = real.clone();
        swap(&mut hand_swapped, (p2_hand, 0), (deck, 0));
        assert!(agrees(&hand_swapped, 0));
        assert!(!agrees(&hand_swapped, 1));
        assert_ne!(view(&hand_swapped, 1), view(&real, 1));
        // A public var changed: different to both.
        let mut scored = real.clone();
        scored.vars[0] = Value::Int(7);
        assert!(!agrees(&scored, 0) && !agrees(&scored, 1));
    }

    /// Another player's answer is replayed as what the seat saw: a card the seat knows by its
    /// id, one a determinisation deals as any card of its class so dealt; the rest as it is.
    #[test]
    fn answers_read_alike_by_what_the_seat_saw() {
        // Cards 0 and 1 are dealt (class 0), card 2 too (class 1); card 3 is known.
        let class_of = [0, 0, 1, NOT_DEALT];
        let alike = |a: &Value, b: &Value| reads_alike(a, b, &class_of, true);
        let loose = |a: &Value, b: &Value| reads_alike(a, b, &class_of, false);
        assert!(alike(&Value::Card(0), &Value::Card(1)));
        assert!(!alike(&Value::Card(0), &Value::Card(2)));
        assert!(!alike(&Value::Card(0), &Value::Card(3)));
        assert!(alike(&Value::Card(3), &Value::Card(3)));
        assert!(!alike(&Value::Card(3), &Value::Card(0)));
        let pair =
            |c: u32, n: i64| Value::Tuple(Rc::new(Items::new(vec![Value::Card(c), Value::Int(n)])));
        assert!(alike(&pair(0, 4), &pair(1, 4)));
        assert!(!alike(&pair(0, 4), &pair(1, 5)));
        assert!(!alike(
            &pair(0, 4),
            &Value::List(Rc::new(Items::new(vec![Value::Card(1), Value::Int(4)])))
        ));
        assert!(alike(&Value::None, &Value::None));
        // Loosely, the numbers and words may differ (they may come from an unseen card); the
        // cards and the shape may not.
        assert!(loose(&pair(0, 4), &pair(1, 5)));
        assert!(loose(&Value::Int(1), &Value::Text(Rc::new("a".into()))));
        assert!(!loose(&pair(0, 4), &pair(3, 4)));
        assert!(!loose(&Value::Card(0), &Value::Int(0)));
    }

    /// An option reads to its chooser by what the chooser knows: a card by its id when known,
    /// any unknown card alike; lists and tuples item by item.
    #[test]
    fn option_keys_are_what_the_chooser_sees() {
        let known: Vec<Players> = vec![one(0), one(1), 0];
        let key = |v: &Value, p: u32| option_key(v, &known, p);
        assert_ne!(key(&Value::Card(0), 0), key(&Value::Card(2), 0));
        assert_eq!(key(&Value::Card(1), 0), key(&Value::Card(2), 0));
        assert_ne!(key(&Value::Card(1), 1), key(&Value::Card(2), 1));
        assert_ne!(key(&Value::Int(1), 0), key(&Value::Int(2), 0));
        let pair = |c: u32| Value::Tuple(Rc::new(Items::new(vec![Value::Card(c), Value::Int(3)])));
        assert_eq!(key(&pair(1), 0), key(&pair(2), 0));
        assert_ne!(key(&pair(0), 0), key(&pair(2), 0));
    }
}
