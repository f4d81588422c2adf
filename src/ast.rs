//! The syntax tree. Every node carries the byte span of the text it came from.

use crate::diag::Span;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spanned<T> {
    pub node: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub fn new(node: T, span: Span) -> Self {
        Spanned { node, span }
    }
}

pub type Ident = Spanned<String>;

#[derive(Debug, Clone)]
pub struct File {
    pub items: Vec<Item>,
}

#[derive(Debug, Clone)]
pub enum Item {
    Import(Spanned<String>),
    Game(GameDecl),
    Enum(EnumDecl),
    Kind(KindDecl),
    Card(CardDecl),
    Zone(ZoneDecl),
    Var(VarDecl),
    Const(ConstDecl),
    Fn(FnDecl),
    Phase(PhaseDecl),
    Setup(Block),
    Trigger(TriggerDecl),
    Table(TableDecl),
    Check(Box<CheckDecl>),
    Face(FaceDecl),
    Screen(ScreenDecl),
    Bot(BotDecl),
    Option(OptionDecl),
    Event(EventDecl),
    Allow(AllowDecl),
}

/// `allow check::ace "the book prints both"`: the authors have read these warnings.
#[derive(Debug, Clone)]
pub struct AllowDecl {
    pub code: Spanned<String>,
    pub reason: Spanned<String>,
    pub span: Span,
}

/// `option solo: bool = false`: a setting chosen before the game starts.
#[derive(Debug, Clone)]
pub struct OptionDecl {
    pub name: Ident,
    pub ty: Spanned<TypeExpr>,
    pub bounds: Option<Bounds>,
    pub default: Expr,
    /// The `##` lines written just above it.
    pub doc: Option<String>,
}

/// `event challenged(by: player, amount: int)`: a game's own event.
#[derive(Debug, Clone)]
pub struct EventDecl {
    pub name: Ident,
    pub params: Vec<Param>,
}

/// `face c in Kind { title: c.name, corner: c.cost, ... }`: how `rules print` lays out the
/// kind's cards. Each entry is a slot's name and the value it shows for card `c`.
#[derive(Debug, Clone)]
pub struct FaceDecl {
    pub var: Ident,
    pub kind: Ident,
    pub entries: Vec<(Ident, Expr)>,
    pub span: Span,
}

/// `screen p { "Bank": bank[p], "Hand": hand[p] }`: what seat `p` reads before it is asked,
/// one labelled line each (the label a text, the value any expression).
#[derive(Debug, Clone)]
pub struct ScreenDecl {
    pub seat: Ident,
    pub lines: Vec<(Expr, Expr)>,
    pub span: Span,
}

/// `bot Greedy(me) { prefer c in Card => c.value }`: a designer's own player, which `--agent
/// P2=bot:Greedy` seats. `seat` names the seat it plays.
#[derive(Debug, Clone)]
pub struct BotDecl {
    pub name: Ident,
    pub seat: Ident,
    pub rules: Vec<PreferRule>,
    /// The `##` lines written just above it.
    pub doc: Option<String>,
    pub span: Span,
}

/// `prefer c in Card where c.cost <= 3 => c.value`: how a bot ranks the options of one type: a
/// score (an int, the highest wins) or a preference list (of the option's type, earliest wins).
#[derive(Debug, Clone)]
pub struct PreferRule {
    pub var: Ident,
    pub ty: Spanned<TypeExpr>,
    pub cond: Option<Expr>,
    pub value: Expr,
    pub span: Span,
}

/// `check c in Kind where cond require cond else "message" at field help "..."`.
#[derive(Debug, Clone)]
pub struct CheckDecl {
    pub warn: bool,
    pub var: Ident,
    pub source: Expr,
    pub filter: Option<Expr>,
    pub require: Expr,
    pub message: Expr,
    pub at: Option<Ident>,
    pub help: Option<Expr>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct GameDecl {
    pub name: Spanned<String>,
    pub entries: Vec<GameEntry>,
    pub span: Span,
}

/// `key: value` in the `game` block; `end_when: cond at round end` says when it is asked.
#[derive(Debug, Clone)]
pub struct GameEntry {
    pub key: Ident,
    pub value: Expr,
    /// Where `at round end` is written, if it is.
    pub at_round_end: Option<Span>,
    /// `at setup` or `at end` (when `rules simulate` reads `groups`), and where it is written.
    pub at: Option<(GroupsAt, Span)>,
}

/// When `rules simulate` reads each seat's groups (`groups: [...] at setup`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub enum GroupsAt {
    /// When the game first sets them: the first value that is not `none` (or an empty list),
    /// read after setup and after every phase until each seat has one; else at the end.
    #[default]
    FirstSet,
    /// Once setup is done.
    Setup,
    /// When the game is over.
    End,
}

#[derive(Debug, Clone)]
pub struct EnumDecl {
    pub name: Ident,
    pub variants: Vec<Ident>,
    /// How players read each variant, when the game says (`Pro "Pro-Earth"`).
    pub shown: Vec<Option<String>>,
}

#[derive(Debug, Clone)]
pub enum TypeExpr {
    Named(Ident),
    List(Box<Spanned<TypeExpr>>),
    /// `table lo..hi of T`: a table literal covering every key in lo..hi exactly once.
    Table(i64, i64, Box<Spanned<TypeExpr>>),
    /// `(Resource, int)`: a tuple of typed elements.
    Tuple(Vec<Spanned<TypeExpr>>),
    /// `fn(p: player) -> int`: a field whose value is code written per card.
    Fn(
        Vec<(Ident, Spanned<TypeExpr>)>,
        Option<Box<Spanned<TypeExpr>>>,
    ),
}

#[derive(Debug, Clone)]
pub struct FieldDecl {
    pub mutable: bool,
    pub name: Ident,
    pub ty: Spanned<TypeExpr>,
    /// `in lo..hi` (hi open when absent).
    pub bounds: Option<Bounds>,
    pub unique: bool,
    pub default: Option<Expr>,
}

/// `in lo..hi clamp` or `in lo..hi refuse` (hi open when absent; `clamp` when not said).
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    pub lo: i64,
    pub hi: Option<i64>,
    pub refuse: bool,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct KindDecl {
    pub name: Ident,
    pub fields: Vec<FieldDecl>,
    /// `describe "..."`: how a card of the kind reads on one line (each may write one; more is
    /// an error the checker reports).
    pub describe: Vec<Expr>,
    /// The `##` lines written just above it.
    pub doc: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CardId {
    Name(String),
    Num(i64),
}

impl std::fmt::Display for CardId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CardId::Name(s) => write!(f, "{s}"),
            CardId::Num(n) => write!(f, "{n}"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct CardDecl {
    pub kind: Ident,
    pub id: Spanned<CardId>,
    pub fields: Vec<(Ident, Expr)>,
    pub span: Span,
    /// For a row `3 x guard: ...`: which copy this is (1-based) and the row's first id.
    pub copy: Option<(u32, CardId)>,
}

#[derive(Debug, Clone)]
pub enum KeyType {
    Named(Ident),
    Range(i64, i64, Span),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    Public,
    Owner,
    Hidden,
}

#[derive(Debug, Clone)]
pub struct ZoneDecl {
    pub name: Ident,
    pub kind: Option<Ident>,
    pub per: Vec<KeyType>,
    pub visibility: Visibility,
}

#[derive(Debug, Clone)]
pub struct VarDecl {
    pub name: Ident,
    pub ty: Spanned<TypeExpr>,
    pub bounds: Option<Bounds>,
    pub per: Vec<KeyType>,
    pub visibility: Visibility,
    /// `internal`: the rules' own bookkeeping, left off a player's screen.
    pub internal: bool,
    pub init: Expr,
}

#[derive(Debug, Clone)]
pub struct ConstDecl {
    pub name: Ident,
    pub value: Expr,
}

#[derive(Debug, Clone)]
pub struct Param {
    pub name: Ident,
    pub ty: Option<Spanned<TypeExpr>>,
}

#[derive(Debug, Clone)]
pub struct FnDecl {
    pub name: Ident,
    pub params: Vec<Param>,
    pub ret: Option<Spanned<TypeExpr>>,
    pub body: Expr,
    /// The `##` lines written just above it.
    pub doc: Option<String>,
}

#[derive(Debug, Clone)]
pub struct PhaseDecl {
    pub name: Ident,
    /// `for p in list`: the body runs once per item of the list, worked out as the phase begins.
    pub each: Option<(Ident, Expr)>,
    pub body: Block,
    /// The `##` lines written just above it: what the phase is, for `rules explain`.
    pub doc: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Enter,
    Flip,
    PhaseStart,
    PhaseEnd,
    RoundStart,
    RoundEnd,
    /// A game's own event, declared with `event` and fired with `emit`.
    Custom,
}

#[derive(Debug, Clone)]
pub struct TriggerDecl {
    pub event: Spanned<EventKind>,
    /// The zone, the phase, or the custom event's name.
    pub target: Option<Ident>,
    /// `enter hand[p]`: names bound to the entered zone's keys; `on name(a, b)`: the event's
    /// parameters.
    pub params: Vec<Ident>,
    pub binding: Option<Ident>,
    pub condition: Option<Expr>,
    pub body: Block,
}

#[derive(Debug, Clone)]
pub struct TableDecl {
    pub name: Ident,
    pub key_ty: Spanned<TypeExpr>,
    pub val_ty: Spanned<TypeExpr>,
    pub entries: Vec<(Spanned<Pattern>, Expr)>,
}

#[derive(Debug, Clone)]
pub enum Pattern {
    Wildcard,
    Int(i64),
    Range(i64, i64),
    /// A range written with a name at either end, like `A..10` or `J..K` (card ranks).
    NamedRange(String, String),
    Text(String),
    Name(String),
}

#[derive(Debug, Clone)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssignOp {
    Set,
    Add,
    Sub,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    Top,
    Bottom,
}

#[derive(Debug, Clone)]
pub enum StmtKind {
    /// `let name = e` or `let name: T = e`.
    Let(Ident, Option<Spanned<TypeExpr>>, Expr),
    Set(Expr, AssignOp, Expr),
    /// `move e to z [top|bottom] [face up|face down]`: the side the cards are turned to as they
    /// move (`Some(true)`: face up), if one is given.
    Move(Expr, Expr, Position, Option<bool>),
    Draw(Expr, Expr, Expr),
    Shuffle(Expr),
    Flip(Expr, Option<bool>),
    /// `reveal e [to players]`: no target reveals to everybody.
    Reveal(Expr, Option<Expr>),
    For(Ident, Expr, Block),
    Repeat(Expr, Block),
    /// `repeat up to n until cond { }` (the condition is `None` when it was left out: an error).
    RepeatUntil(Expr, Option<Expr>, Block),
    Say(Expr),
    Return(Option<Expr>),
    Secretly(Block),
    Step(Ident, Block),
    /// `end game`
    EndGame,
    /// `eliminate p`
    Eliminate(Expr),
    /// `emit name(args)`
    Emit(Ident, Vec<Expr>),
    /// `break`: leave the innermost `for` or `repeat`.
    Break,
    /// `continue`: go on with the innermost loop's next pass.
    Continue,
    Expr(Expr),
}

#[derive(Debug, Clone)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Range,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Range => "..",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggKind {
    Count,
    Sum,
    Min,
    Max,
    Any,
    All,
    Filter,
    Map,
    Best,
    First,
    Sort,
    /// `flatten(map(x in l => v))`, fused by the checker: the lists `v` gives, joined, without
    /// building the list of lists (never written directly).
    FlatMap,
}

impl AggKind {
    pub fn name(self) -> &'static str {
        match self {
            AggKind::Count => "count",
            AggKind::Sum => "sum",
            AggKind::Min => "min",
            AggKind::Max => "max",
            AggKind::Any => "any",
            AggKind::All => "all",
            AggKind::Filter => "filter",
            AggKind::Map => "map",
            AggKind::Best => "best",
            AggKind::First => "first",
            AggKind::Sort => "sort",
            AggKind::FlatMap => "flatten(map)",
        }
    }
}

#[derive(Debug, Clone)]
pub enum StrPart {
    Text(String),
    Expr(Expr),
}

#[derive(Debug, Clone)]
pub struct MatchArm {
    pub patterns: Vec<Spanned<Pattern>>,
    pub body: Expr,
}

#[derive(Debug, Clone)]
pub enum ExprKind {
    Int(i64),
    Text(Vec<StrPart>),
    Bool(bool),
    None,
    CardRef(CardId),
    Name(String),
    List(Vec<Expr>),
    Tuple(Vec<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Field(Box<Expr>, Ident),
    Index(Box<Expr>, Vec<Expr>),
    Call(Box<Expr>, Vec<Expr>),
    If(Box<Expr>, Block, Option<Box<Expr>>),
    Match(Box<Expr>, Vec<MatchArm>),
    Agg {
        kind: AggKind,
        var: Ident,
        source: Box<Expr>,
        filter: Option<Box<Expr>>,
        map: Option<Box<Expr>>,
    },
    Block(Block),
    /// `table { 1..2: a, 3: b }`
    TableLit(Vec<(Spanned<Pattern>, Expr)>),
    /// `fn(p) { ... }` or `fn(p) = e`: a card's code, the value of a `fn` field.
    FnLit(Vec<Ident>, Box<Expr>),
}

#[derive(Debug, Clone)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}
