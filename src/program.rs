//! The checked program: every name resolved to a slot, ready for the interpreter.

use crate::ast::{AggKind, AssignOp, BinOp, CardId, EventKind, Position, UnOp, Visibility};
use crate::diag::{Sources, Span};
use crate::value::Value;

mod names;
pub mod walk;

pub use names::words;

pub type Id = u32;

/// Static types, used by the checker. `Any` accepts everything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ty {
    Any,
    Int,
    Bool,
    Text,
    Player,
    Enum(Id),
    /// A card, of a known kind or any kind.
    Card(Option<Id>),
    Zone(Option<Id>),
    List(Box<Ty>),
    Tuple(Vec<Ty>),
    None,
    /// Code a card carries in a field: its parameters' types and its result (`none` for an
    /// effect).
    Fn(Vec<Ty>, Box<Ty>),
    /// A value of the type, or `none` where the type itself has no `none` (the result of
    /// `index_of`, or of `min`/`max` over an empty list).
    Opt(Box<Ty>),
}

impl Ty {
    /// The type of a value that may also be `none`: the type itself where it has a `none`
    /// (cards, players, enum values, zones, lists, tuples, text), `T or none` for an int or a
    /// bool, whose uses the checker then refuses until a test (`x != none`) rules `none` out.
    pub fn or_none(self) -> Ty {
        match self {
            Ty::Int | Ty::Bool => Ty::Opt(Box::new(self)),
            t => t,
        }
    }

    pub fn elem(&self) -> Ty {
        match self {
            Ty::List(t) => (**t).clone(),
            Ty::Zone(k) => Ty::Card(*k),
            Ty::Opt(t) => t.elem(),
            _ => Ty::Any,
        }
    }
}

#[derive(Debug, Clone)]
pub struct EnumDef {
    pub name: String,
    pub variants: Vec<String>,
    /// How players read each variant: the game's own words, when it gives them
    /// (`enum Tactic { CovertOperation "Covert op" }`), else its name in words
    /// (`program::words`), worked out once here.
    pub shown: Vec<String>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct FieldDef {
    pub name: String,
    pub sym: Id,
    pub ty: Ty,
    pub mutable: bool,
    /// `in lo..hi`: values must lie within (checked on every card, and on every change of a
    /// `var` field).
    pub bounds: Option<(i64, i64)>,
    /// `refuse`: a change that would leave the bounds is an error; otherwise it is clamped.
    pub refuse: bool,
    /// `unique`: no two cards of the kind may share a value.
    pub unique: bool,
    /// `table lo..hi of T`: every key in lo..hi covered exactly once.
    pub cover: Option<(i64, i64)>,
    /// The default value, if the field is optional.
    pub default: Option<Value>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct KindDef {
    pub name: String,
    pub fields: Vec<FieldDef>,
    /// For each field symbol: (is mutable, index into the card's static or var values).
    pub slot_of: Vec<Option<(bool, u32)>>,
    pub var_count: u32,
    pub span: Span,
    /// The card's rules text: the index, among the card's printed values, of its field named
    /// `text`.
    pub text_field: Option<u32>,
    /// `describe "..."`: how a card of the kind reads on one line.
    pub describe: Option<Describe>,
    /// The `##` lines above the declaration.
    pub doc: Option<String>,
}

/// A kind's `describe` line: a text worked out once per card, before the game, with each of the
/// card's printed fields bound to a local slot.
#[derive(Debug, Clone)]
pub struct Describe {
    pub text: Expr,
    /// (index among the card's printed values, local slot).
    pub binds: Vec<(u32, u32)>,
    pub locals: u32,
}

#[derive(Debug, Clone)]
pub struct CardDef {
    pub id: CardId,
    pub kind: Id,
    /// Values of the immutable fields, in field order (vars excluded).
    pub fields: Vec<Value>,
    /// Initial values of the `var` fields.
    pub vars: Vec<Value>,
    /// Where each given field's value was written, by field symbol.
    pub field_spans: Vec<(Id, Span)>,
    pub span: Span,
    /// A copy made by a `cards` row `3 x guard: ...`: which copy, and the row's first id.
    pub copy: Option<(u32, CardId)>,
}

/// `option name: type = default`: a setting chosen before the game (`--set name=value`).
#[derive(Debug, Clone)]
pub struct OptionDef {
    pub name: String,
    pub ty: Ty,
    pub bounds: Option<(i64, i64)>,
    pub default: Value,
    pub span: Span,
    /// The `##` lines above the declaration.
    pub doc: Option<String>,
}

/// `event name(params)`: a game's own event.
#[derive(Debug, Clone)]
pub struct EventDef {
    pub name: String,
    pub params: Vec<(String, Ty)>,
    pub span: Span,
}

/// A part of a printed card's face that a `face` declaration fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaceSlot {
    Title,
    Subtitle,
    Corner,
    Band,
    Text,
    /// The words on the card's back (the kind's name without it): cards the game keeps in a
    /// deck of their own say so on their backs.
    Back,
}

impl FaceSlot {
    pub const ALL: [(&'static str, FaceSlot); 6] = [
        ("title", FaceSlot::Title),
        ("subtitle", FaceSlot::Subtitle),
        ("corner", FaceSlot::Corner),
        ("band", FaceSlot::Band),
        ("text", FaceSlot::Text),
        ("back", FaceSlot::Back),
    ];
}

/// `face c in Kind { ... }`: the values shown on each of the kind's printed cards, worked out
/// with the card in local `slot`; `show` lists fields printed as labelled rows.
#[derive(Debug, Clone)]
pub struct FaceDef {
    pub kind: Id,
    pub slot: u32,
    pub locals: u32,
    pub slots: Vec<(FaceSlot, Expr)>,
    /// The rows: `None` keeps the default face's rows (every printed field), `show: []` none.
    pub show: Option<Vec<(String, Expr)>>,
    pub span: Span,
}

/// `screen p { "Bank": bank[p] }`: what a seat reads before it is asked. Each line is a label
/// (text) and a value, both worked out with `p` bound to the seat, as that seat may read them.
#[derive(Debug, Clone)]
pub struct ScreenDef {
    /// The seat's local slot.
    pub slot: u32,
    pub locals: u32,
    pub lines: Vec<(Expr, Expr)>,
    pub span: Span,
}

/// `bot Greedy(me) { prefer c in Card => c.value }`: a designer's own player, seated by
/// `--agent P2=bot:Greedy`. Its rules rank each choice's options (`interp/bots.rs`).
#[derive(Debug, Clone)]
pub struct BotDef {
    pub name: String,
    /// The `##` lines written just above it.
    pub doc: Option<String>,
    /// The local slot of the seat it plays.
    pub seat: u32,
    pub locals: u32,
    pub rules: Vec<BotRule>,
    /// Where its name is written.
    pub span: Span,
}

/// `prefer c in Card where cond => value`: the options of type `ty` (bound to `slot`) for which
/// `cond` holds are ranked by `value`.
#[derive(Debug, Clone)]
pub struct BotRule {
    pub slot: u32,
    pub ty: Ty,
    pub cond: Option<Expr>,
    pub value: Expr,
    pub score: BotScore,
    pub span: Span,
}

/// How a bot's rule ranks: by an int (the highest wins) or by a place in a list (the earliest
/// wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BotScore {
    Score,
    Preference,
}

/// A validation rule over cards, run by `rules check` (`check` / `warn`).
#[derive(Debug, Clone)]
pub struct CheckDef {
    pub warn: bool,
    pub slot: u32,
    pub source: Expr,
    pub filter: Option<Expr>,
    pub require: Expr,
    pub message: Expr,
    pub at: Option<Id>,
    pub help: Option<Expr>,
    pub locals: u32,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyDomain {
    Player,
    Enum(Id),
    Range(i64, i64),
}

#[derive(Debug, Clone)]
pub struct ZoneDef {
    pub name: String,
    pub kind: Option<Id>,
    pub keys: Vec<KeyDomain>,
    pub visibility: Visibility,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct VarDef {
    pub name: String,
    pub ty: Ty,
    pub bounds: Option<(i64, i64)>,
    /// `refuse`: a change that would leave the bounds is an error; otherwise it is clamped.
    pub refuse: bool,
    pub keys: Vec<KeyDomain>,
    /// Who may see it at the REPL (`public` by default, `owner` for per-player secrets).
    pub visibility: Visibility,
    /// `internal`: the rules' own bookkeeping, which a player's screen leaves out.
    pub internal: bool,
    pub init: Expr,
    pub locals: u32,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct ConstDef {
    pub name: String,
    pub value: Expr,
    /// The value's type (`any` for a constant used before its own declaration is checked).
    pub ty: Ty,
    pub locals: u32,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct FnDef {
    pub name: String,
    pub params: Vec<(String, Ty)>,
    pub ret: Ty,
    pub body: Expr,
    pub locals: u32,
    pub span: Span,
    /// The `##` lines above the declaration (none for a card's code).
    pub doc: Option<String>,
}

#[derive(Debug, Clone)]
pub struct PhaseDef {
    pub name: String,
    /// `phase NAME for x in list`: the local `x` and the list, worked out as the phase begins;
    /// the body runs once per item, each run a segment of its own (`interp::Pos::Phase`).
    pub each: Option<(u32, Expr)>,
    pub body: Block,
    pub locals: u32,
    pub span: Span,
    /// The `##` lines above the declaration: what happens in the phase.
    pub doc: Option<String>,
}

#[derive(Debug, Clone)]
pub struct TriggerDef {
    pub event: EventKind,
    /// Zone family for `enter`, phase for `phase_start` / `phase_end`, the event for a
    /// custom one.
    pub target: Option<Id>,
    /// The local slots bound to the event's values, in order: for `enter` the card and then
    /// the zone's keys, for `flip` the card, for a custom event its arguments.
    pub binds: Vec<Option<u32>>,
    pub condition: Option<Expr>,
    pub body: Block,
    pub locals: u32,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum Pat {
    Wildcard,
    Int(i64),
    Range(i64, i64),
    Value(Value),
}

#[derive(Debug, Clone)]
pub struct TableDef {
    pub name: String,
    /// The declared type of the values.
    pub ty: Ty,
    pub entries: Vec<(Pat, Expr, Span)>,
    pub locals: u32,
    pub span: Span,
}

#[derive(Debug, Clone, Default)]
pub struct GameInfo {
    pub name: String,
    pub min_players: u32,
    pub max_players: u32,
    /// The table `rules run` plays without `--players`.
    pub default_players: Option<u32>,
    /// `rounds: N`: the most rounds, worked out once constants and options are set (a number,
    /// an option, or a constant made of them: the checker proves it is at least 1).
    pub rounds: Option<(Expr, u32)>,
    pub round_phases: Vec<Id>,
    pub end_when: Option<(Expr, u32)>,
    /// `end_when: ... at round end`: asked once each round is over (after its last phase and
    /// its `round_end` triggers), not after every phase.
    pub end_at_round_end: bool,
    pub finish: Option<Id>,
    pub score: Option<Id>,
    pub tiebreaks: Vec<Id>,
    /// `groups: [faction, role]`: functions of a player naming the groups they belong to (a
    /// list names several), for `rules simulate`'s win rate per group.
    pub groups: Vec<Id>,
    /// When `rules simulate` reads the groups (`groups: [...] at setup`, `at end`; by default
    /// when the game first sets them).
    pub groups_at: crate::ast::GroupsAt,
    /// `figures: [crises_met]`: functions of no argument giving a count (int) or so many of so
    /// many ((int, int)), read when each game is over; `rules simulate` adds them up.
    pub figures: Vec<Id>,
    /// `measures: [in_hegemony]`: functions of a player giving an int or a bool, read for each
    /// seat when each game is over: what the game's cards are judged by (`rules simulate
    /// --impact` compares them for the seats and groups that got a card against the others).
    pub measures: Vec<Id>,
    /// `playouts: Steward`: the bot that plays out the playouts of a search given no policy of
    /// its own (`mc:N`, `ismcts:N`; `mc:N/random` still plays out at random).
    pub playouts: Option<std::rc::Rc<str>>,
    /// `winner: lowest`: the lowest score wins (and the lowest tiebreak value breaks ties).
    pub lowest_wins: bool,
    /// `goal: "..."`: how to win, in a sentence, shown to people at the start.
    pub goal: Option<String>,
    /// `summary: "..."`: what the game is about, in a few sentences (`rules explain`).
    pub summary: Option<String>,
    /// Whether some rule says `end game` or calls `finish_game()`.
    pub ended_by_rules: bool,
}

/// Names that read game state without arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    Players,
    PlayerCount,
    Round,
    /// Every player, eliminated or not.
    AllPlayers,
}

#[derive(Debug, Clone)]
pub enum TextPart {
    Lit(String),
    Expr(Expr),
}

#[derive(Debug, Clone)]
pub enum ExprKind {
    Const(Value),
    Local(u32),
    /// A `var` (keys evaluated at run time).
    Var(Id, Vec<Expr>),
    /// A zone (keys evaluated at run time).
    Zone(Id, Vec<Expr>),
    ConstRef(Id),
    /// A game option's value for this game.
    Option(Id),
    KindCards(Id),
    Special(Special),
    /// Field access by symbol; resolved against the card's kind at run time.
    Field(Box<Expr>, Id),
    CardBuiltinField(Box<Expr>, CardField),
    TupleIndex(Box<Expr>, usize),
    Index(Box<Expr>, Box<Expr>),
    Table(Id, Box<Expr>),
    Call(Id, Vec<Expr>),
    /// `c.effect(args)`: the code in a card's `fn` field (a `none` effect does nothing).
    CallField(Box<Expr>, Id, Vec<Expr>),
    Builtin(&'static crate::builtins::BuiltinDef, Vec<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    If(Box<Expr>, Block, Option<Box<Expr>>),
    Match(Box<Expr>, Vec<(Vec<Pat>, Expr)>),
    Agg {
        kind: AggKind,
        slot: u32,
        source: Box<Expr>,
        filter: Option<Box<Expr>>,
        map: Option<Box<Expr>>,
    },
    List(Vec<Expr>),
    Tuple(Vec<Expr>),
    Text(Vec<TextPart>),
    Block(Block),
    /// `fits(place, value)`: whether the value lies within the place's declared bounds.
    InBounds(Box<Expr>, i64, i64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardField {
    Id,
    FaceUp,
    Kind,
}

#[derive(Debug, Clone)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    /// What the checker proved of the value (`Sort::Any` where it proved nothing, and on
    /// every node made after checking).
    pub ty: Sort,
}

impl Expr {
    /// A node whose value nothing is known of.
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr {
            kind,
            span,
            ty: Sort::Any,
        }
    }
}

/// The type the checker gave an expression, as the compiler reads it (issue 45 item 3: code
/// compiled over static types). A number or a truth value is never `none`; the other shapes
/// may also be `none`, as their types may (`Ty::or_none`). `Any`: nothing proved (a type
/// that may be `none` where its own values cannot, `T or none`, is `Any`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sort {
    #[default]
    Any,
    Int,
    Bool,
    Text,
    Player,
    Enum(Id),
    /// A card, of this kind when the checker knows it.
    Card(Option<Id>),
    Zone,
    List,
    Tuple,
}

impl Sort {
    pub fn of(t: &Ty) -> Sort {
        match t {
            Ty::Int => Sort::Int,
            Ty::Bool => Sort::Bool,
            Ty::Text => Sort::Text,
            Ty::Player => Sort::Player,
            Ty::Enum(e) => Sort::Enum(*e),
            Ty::Card(k) => Sort::Card(*k),
            Ty::Zone(_) => Sort::Zone,
            Ty::List(_) => Sort::List,
            Ty::Tuple(_) => Sort::Tuple,
            // `none` also stands for "not known yet" in the checker (the element of `[none]`,
            // a branch's `none` beside a tuple's value): nothing proved.
            Ty::None | Ty::Any | Ty::Fn(..) | Ty::Opt(_) => Sort::Any,
        }
    }

    /// Whether `v` is a value of this sort in `prog` (a card of the kind, when it is known).
    pub fn holds(self, v: &Value, prog: &Program) -> bool {
        match (self, v) {
            (Sort::Any, _) => true,
            (Sort::Int | Sort::Bool, Value::None) => false,
            (_, Value::None) => true,
            (Sort::Int, Value::Int(_)) | (Sort::Bool, Value::Bool(_)) => true,
            (Sort::Text, Value::Text(_)) | (Sort::Player, Value::Player(_)) => true,
            (Sort::Enum(e), Value::Enum(f, _)) => e == *f,
            (Sort::Card(None), Value::Card(_)) | (Sort::Zone, Value::Zone(_)) => true,
            (Sort::Card(Some(k)), Value::Card(c)) => {
                prog.cards.get(*c as usize).is_some_and(|cd| cd.kind == k)
            }
            (Sort::List, Value::List(_)) => true,
            (Sort::Tuple, Value::Tuple(_) | Value::Packed(_)) => true,
            _ => false,
        }
    }
}

#[derive(Debug, Clone)]
pub enum Place {
    Local(u32),
    Var(Id, Vec<Expr>),
    Field(Expr, Id),
}

#[derive(Debug, Clone)]
pub enum StmtKind {
    Let(u32, Expr),
    Assign(Place, AssignOp, Expr),
    /// The cards, the zone, where in it, and the side they are turned to (`face up|down`).
    Move(Expr, Expr, Position, Option<bool>),
    Draw(Expr, Expr, Expr),
    Shuffle(Expr),
    Flip(Expr, Option<bool>),
    /// The cards, and the players they are shown to (`None`: everybody).
    Reveal(Expr, Option<Expr>),
    For(u32, Expr, Block),
    Repeat(Expr, Block),
    /// `repeat up to n until cond { }`
    RepeatUntil(Expr, Expr, Block),
    Say(Expr),
    Return(Option<Expr>),
    Secretly(Block),
    Step(String, Block),
    EndGame,
    Eliminate(Expr),
    Emit(Id, Vec<Expr>),
    /// `break`: leaves the innermost loop (a signal its loop catches, as `return` is its call's).
    Break,
    /// `continue`: ends this pass of the innermost loop.
    Continue,
    Expr(Expr),
}

#[derive(Debug, Clone)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Debug, Clone, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

/// A whole checked game.
#[derive(Debug, Clone, Default)]
pub struct Program {
    pub sources: Sources,
    pub game: GameInfo,
    pub enums: Vec<EnumDef>,
    pub kinds: Vec<KindDef>,
    pub cards: Vec<CardDef>,
    pub zones: Vec<ZoneDef>,
    pub vars: Vec<VarDef>,
    pub consts: Vec<ConstDef>,
    /// Constants in the order they must be evaluated.
    pub const_order: Vec<Id>,
    pub fns: Vec<FnDef>,
    /// The code written in cards' `fn` fields (`Value::Fn` indexes it); `name` is `card.field`.
    pub card_fns: Vec<FnDef>,
    /// The field symbol each of `card_fns` was written for.
    pub card_fn_fields: Vec<Id>,
    /// The card each of `card_fns` was written in (`None`: a kind's default code).
    pub card_fn_cards: Vec<Option<Id>>,
    pub phases: Vec<PhaseDef>,
    pub triggers: Vec<TriggerDef>,
    pub tables: Vec<TableDef>,
    pub checks: Vec<CheckDef>,
    /// `face` declarations: how `rules print` lays out each kind's cards.
    pub faces: Vec<FaceDef>,
    /// The game's `screen`, if it declares one (else a player's screen is the default one).
    pub screen: Option<ScreenDef>,
    /// The designers' own players (`bot`), in declaration order.
    pub bots: Vec<BotDef>,
    pub options: Vec<OptionDef>,
    pub events: Vec<EventDef>,
    pub setup: Vec<(Block, u32)>,
    /// Field names by symbol.
    pub symbols: Vec<String>,
    /// Each card's `describe` line (`None` when its kind has none), worked out once the program
    /// checks clean (`interp::card_lines`).
    pub card_lines: Vec<Option<String>>,
    /// What the interpreter makes of the program (its code compiled to closures), made when it
    /// is first played (`Derived`).
    pub code: Derived,
    /// Cards taken out of the game (`rules simulate --without`, `simulate::ablate`): by card,
    /// whether it is left out of every list of its kind's cards. Empty for a game as printed.
    pub removed: Vec<bool>,
}

/// What a runner works out from a program once and keeps with it: the interpreter's compiled code.
/// The program does not know its type (the interpreter sits above the program and says what it
/// keeps here); it is made by the first game played, and a copy of the program starts without
/// it (a copy may be changed, as the REPL's checker does, and so makes its own).
#[derive(Default)]
pub struct Derived(std::cell::OnceCell<Box<dyn std::any::Any>>);

impl Derived {
    /// What is kept, made by `make` if nothing is yet; `None` if something of another type is.
    pub fn get_or_init<T: 'static>(&self, make: impl FnOnce() -> T) -> Option<&T> {
        self.0.get_or_init(|| Box::new(make())).downcast_ref()
    }

    /// Forget what is kept, so the next game makes it again.
    pub fn reset(&mut self) {
        self.0 = std::cell::OnceCell::new();
    }
}

impl Clone for Derived {
    fn clone(&self) -> Self {
        Derived::default()
    }
}

impl std::fmt::Debug for Derived {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = if self.0.get().is_some() {
            "made"
        } else {
            "not made"
        };
        write!(f, "Derived({state})")
    }
}

impl Program {
    /// Every card of kind `k` in the game, in the order of the program (what the kind's name
    /// stands for in the rules: `s in Stage`): those `removed` left out.
    pub fn cards_of_kind(&self, k: Id) -> impl Iterator<Item = u32> + '_ {
        self.cards
            .iter()
            .enumerate()
            .filter(move |(i, c)| c.kind == k && !self.removed.get(*i).copied().unwrap_or(false))
            .map(|(i, _)| i as u32)
    }

    pub fn symbol(&self, name: &str) -> Option<Id> {
        self.symbols.iter().position(|s| s == name).map(|i| i as Id)
    }
    pub fn card_by_id(&self, id: &CardId) -> Option<Id> {
        self.cards.iter().position(|c| &c.id == id).map(|i| i as Id)
    }
    pub fn zone_by_name(&self, name: &str) -> Option<Id> {
        self.zones
            .iter()
            .position(|z| z.name == name)
            .map(|i| i as Id)
    }
    pub fn phase_by_name(&self, name: &str) -> Option<Id> {
        self.phases
            .iter()
            .position(|z| z.name == name)
            .map(|i| i as Id)
    }
    pub fn fn_by_name(&self, name: &str) -> Option<Id> {
        self.fns
            .iter()
            .position(|z| z.name == name)
            .map(|i| i as Id)
    }
    /// How card `c` reads on one line: its kind's `describe` line, else its name.
    pub fn card_line(&self, c: Id) -> Option<&str> {
        self.card_lines.get(c as usize)?.as_deref()
    }
    /// Card `c`'s rules text (its `text` field), when it has one that is not empty.
    pub fn card_text(&self, c: Id) -> Option<&str> {
        let cd = self.cards.get(c as usize)?;
        let i = self.kinds.get(cd.kind as usize)?.text_field?;
        match cd.fields.get(i as usize)? {
            Value::Text(t) if !t.trim().is_empty() => Some(t),
            _ => None,
        }
    }
    /// The card whose code `f` (an index into `card_fns`) is, when it was written in a card
    /// (not as a kind's default).
    pub fn card_of_fn(&self, f: Id) -> Option<Id> {
        *self.card_fn_cards.get(f as usize)?
    }
    pub fn kind_by_name(&self, name: &str) -> Option<Id> {
        self.kinds
            .iter()
            .position(|z| z.name == name)
            .map(|i| i as Id)
    }
}
