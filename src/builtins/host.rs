//! What a builtin's evaluation may ask of the game running it: the interpreter implements
//! `Host` (`interp/builtins.rs`), so the builtins sit below it and name no interpreter type.
//!
//! Evaluation is static: a family's table is generic over a `HostKind`, and the interpreter
//! takes its own instantiation (`BuiltinDef<Interp's kind>`), whose evaluations call it
//! directly, with nothing to look up per call. The checker and the program description read the
//! default instantiation (`AnyHost`): the same names, signatures and typing.

use crate::diag::{Span, R};
use crate::limits::Limits;
use crate::value::{Items, Value};
use std::rc::Rc;

/// The operations builtins need of the game that runs them.
pub trait Host {
    /// Charge `n` steps of work against the game's step limit.
    fn charge(&mut self, n: u64, span: Span) -> R<()>;
    /// Refuse a list of `n` elements when it passes the limit.
    fn check_len(&self, n: usize, span: Span) -> R<()>;
    /// The game's limits (options of a choice, bytes of a text).
    fn limits(&self) -> &Limits;
    /// A value as a list: a list itself, a zone's cards.
    fn as_list(&self, v: &Value, span: Span) -> R<Rc<Items>>;
    /// A value as people read it (enum values in words, as the observer may see it).
    fn words(&self, v: &Value) -> String;
    /// `words`, appended to `out`.
    fn words_append(&self, v: &Value, out: &mut String);
    /// Whether something shows the game: a choice's prompt and labels are worth building.
    fn record(&self) -> bool;
    /// Whether reading is watched for a seat (the REPL under `:as`): every card read is peeked.
    fn observed(&self) -> bool;
    /// Refuse to read card `c` when the observer may not see it.
    fn peek(&self, c: u32, span: Span) -> R<()>;
    /// `peek` for each card in a value.
    fn peek_value(&self, v: &Value, span: Span) -> R<()>;
    /// Tell the watcher, if any, of a value a table gave (`lookup`).
    fn watch_read(&mut self, v: &Value);
    /// A number in `0..n` from the game's random stream (a search replays it).
    fn draw_below(&mut self, n: u32) -> u32;
    /// Ask `player` to choose among `options`; `labels` and `notes`, when given, one per option.
    fn decide_labelled(
        &mut self,
        player: u32,
        options: &[Value],
        labels: Option<&[Value]>,
        notes: Option<&[Value]>,
        prompt: &str,
        span: Span,
    ) -> R<Option<usize>>;
    /// `decide_labelled` without labels or notes.
    fn decide(
        &mut self,
        player: u32,
        options: &[Value],
        prompt: &str,
        span: Span,
    ) -> R<Option<usize>>;
    /// While `allocate` asks one line: the lines still to split among, this one included, and
    /// the whole allocation as its chooser reads it (only when the game is recorded); `None`
    /// once the line is answered.
    fn allocating(&mut self, lines: Option<u64>, split: Option<Split>);
    /// How many seats the game has.
    fn n_players(&self) -> u32;
    /// Whether player `p` is still in the game.
    fn is_in(&self, p: u32) -> bool;
    /// The players still in, in seat order.
    fn players_in(&self) -> Rc<Items>;
    /// End the game after the current phase.
    fn finish_game(&mut self);
    /// How many cards a zone slot holds.
    fn zone_len(&self, z: u32) -> usize;
    /// The cards in a zone slot, top first.
    fn zone_cards(&self, z: u32) -> &[u32];
    /// The top card of a zone slot, or `none`.
    fn zone_top(&self, z: u32) -> Value;
    /// The zone slot a card is in, if any.
    fn zone_of(&self, c: u32) -> Option<u32>;
}

/// A family of host types, one per lifetime (the interpreter borrows its program): the type a
/// table of builtins is instantiated for.
pub trait HostKind: 'static {
    type At<'p>: Host + ?Sized;
}

/// Any host, through `dyn Host`: the instantiation the checker, the program description and the
/// reference read (for the signatures; the interpreter evaluates through its own).
pub enum AnyHost {}

impl HostKind for AnyHost {
    type At<'p> = dyn Host + 'p;
}

/// An `allocate` as its chooser reads it: each category's label, the total, and what the lines
/// before the one asked were given (the line asked is `given.len()`; the last line takes what
/// is left, unasked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub labels: Vec<String>,
    pub total: i64,
    pub given: Vec<i64>,
}
