//! Built-in functions. Each builtin is declared once, in the file of its family: its name, its
//! parameters, what it may do to the game (for the purity check), its result type for the checker
//! and its evaluation, side by side. Adding a builtin touches one place: a `BuiltinDef` in one of
//! these files.
//!
//! The builtins sit below the interpreter: an evaluation asks the game it runs in through the
//! `Host` trait (`host.rs`), which the interpreter implements.

mod choices;
mod game;
mod host;
mod lists;
mod numbers;
mod random;

pub(crate) use choices::labels_arg;
pub use host::{AnyHost, Host, HostKind, Split};

use crate::diag::{Diag, Span, R};
use crate::program::Ty;
use crate::value::{Items, Value};
use std::marker::PhantomData;
use std::rc::Rc;

/// The type a parameter accepts, as the checker sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum P {
    Int,
    Player,
    Text,
    Card,
    List,
    Any,
}

impl P {
    pub fn ty(self) -> Ty {
        match self {
            P::Int => Ty::Int,
            P::Player => Ty::Player,
            P::Text => Ty::Text,
            P::Card => Ty::Card(None),
            P::List => Ty::List(Box::new(Ty::Any)),
            P::Any => Ty::Any,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            P::Int => "int",
            P::Player => "player",
            P::Text => "text",
            P::Card => "card",
            P::List => "list",
            P::Any => "any",
        }
    }
}

/// What calling a builtin may do beyond computing its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Nothing: the result depends only on the arguments and the state.
    Pure,
    /// Draws from the game's random stream.
    Random,
    /// Asks a player to choose.
    Choice,
    /// Changes the game state (ends the game, eliminates a player, ...).
    Changes,
}

impl Effect {
    /// How the purity check names it.
    pub fn verb(self) -> &'static str {
        match self {
            Effect::Pure => "computes",
            Effect::Random => "rolls or shuffles",
            Effect::Choice => "asks a player to choose",
            Effect::Changes => "changes the game",
        }
    }
}

/// What a builtin's result tells of the cards it is given: who may read the result follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Secrets {
    /// The values themselves, reordered or cut (`top`, `take`, `shuffled`): cards stay cards,
    /// each as secret as it was.
    Passes,
    /// Only how many (`len`): a count is public.
    Counts,
    /// It may compare, name or place them (`contains`, `join`, `distinct`): the result is as
    /// secret as the cards.
    Reads,
}

/// The most arguments a builtin takes (its parameters are evaluated into an array this long).
pub const MAX_ARGS: usize = 5;

/// How a builtin is evaluated on a host of kind `K`: statically, on the host type itself.
/// A builtin's value straight from plain arguments (`BuiltinDef::plain`).
pub type Plain = fn(&[Value]) -> Option<Value>;

pub type Eval<K> = for<'p, 'm> fn(&'m mut <K as HostKind>::At<'p>, &Args<'_>) -> R<Value>;

/// One builtin. Its tables are generic over the host that evaluates it (`HostKind`): the
/// interpreter evaluates through its own instantiation, everything else reads the default one.
pub struct BuiltinDef<K: HostKind = AnyHost> {
    pub name: &'static str,
    /// What a call gives, in words, for the reference's table of builtins
    /// (`grammar/README.md`, which `tests/docs.rs` holds to these texts).
    pub returns: &'static str,
    pub params: &'static [(&'static str, P)],
    /// Parameters after the first `min_args` are optional.
    pub min_args: usize,
    pub effect: Effect,
    /// Given no zone, it computes on its arguments' values only and reads nothing else of the
    /// game (no card's place or fields, no player's state, no round) but who is still in, so a
    /// function calling it may be remembered (`interp/compile/memo.rs`, which lets no zone
    /// reach it and forgets what it remembered when a player leaves).
    pub values_only: bool,
    /// What it tells of the cards it is given, for the checker's account of secrets
    /// (`check/secrets/`).
    pub secrets: Secrets,
    /// Arguments for showing the choice (its prompt and labels): they may not change the game.
    /// Silent runs (`bench`, `simulate`, a search's playouts) work them out all the same, so
    /// they fail where `run` fails (labels of the wrong number, a field of `none`), but build
    /// no text (the interpreter's `sketching`). They are the last parameters.
    pub shown_only: &'static [usize],
    /// Its value straight from plain arguments (numbers, booleans, enum values, players,
    /// cards), for a call compiled with the program: what `eval` gives them, or `None` to
    /// leave the call to `eval` (which charges and reports the errors). `Some` only for
    /// plain arguments, so nothing is skipped but the walk through `eval`'s arguments; only
    /// for builtins that compute on their values alone (`Pure`, nothing for showing).
    pub plain: Option<Plain>,
    /// The result type, given the argument types.
    pub ret: fn(&[Ty]) -> Ty,
    /// The evaluation, given the evaluated arguments.
    pub eval: Eval<K>,
}

impl<K: HostKind> std::fmt::Debug for BuiltinDef<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "builtin `{}`", self.name)
    }
}

impl<K: HostKind> BuiltinDef<K> {
    /// `name(a: int, b: list)` for help lines.
    pub fn signature(&self) -> String {
        let ps: Vec<String> = self
            .params
            .iter()
            .enumerate()
            .map(|(i, (n, p))| {
                let opt = if i >= self.min_args { "?" } else { "" };
                format!("{n}{opt}: {}", p.name())
            })
            .collect();
        format!("{}({})", self.name, ps.join(", "))
    }
}

/// Every builtin, evaluated on hosts of kind `K`.
pub struct Table<K>(PhantomData<K>);

impl<K: HostKind> Table<K> {
    const FAMILIES: &'static [&'static [BuiltinDef<K>]] = &[
        lists::Family::<K>::DEFS,
        numbers::Family::<K>::DEFS,
        random::Family::<K>::DEFS,
        game::Family::<K>::DEFS,
        choices::Family::<K>::DEFS,
    ];

    /// What `twin` gives for a builtin of no family (none: the tables are one list of
    /// definitions, instantiated twice): its evaluation is an error.
    const MISSING: &'static BuiltinDef<K> = &BuiltinDef {
        name: "?",
        returns: "",
        params: &[],
        min_args: 0,
        effect: Effect::Pure,
        values_only: false,
        secrets: Secrets::Reads,
        shown_only: &[],
        plain: None,
        ret: ret_none,
        eval: |_, a| Err(a.err("no such builtin")),
    };

    /// Every builtin.
    pub fn all() -> impl Iterator<Item = &'static BuiltinDef<K>> {
        Self::FAMILIES.iter().flat_map(|f| f.iter())
    }

    /// The builtin called `name`.
    pub fn find(name: &str) -> Option<&'static BuiltinDef<K>> {
        Self::all().find(|b| b.name == name)
    }

    /// The same builtin as `b` (of the default table, as the program holds it), in this
    /// table: looked up once, where a call is compiled.
    pub fn twin(b: &BuiltinDef) -> &'static BuiltinDef<K> {
        Self::find(b.name).unwrap_or(Self::MISSING)
    }
}

/// Every builtin.
pub fn all() -> impl Iterator<Item = &'static BuiltinDef> {
    Table::<AnyHost>::all()
}

/// The builtin called `name`.
pub fn find(name: &str) -> Option<&'static BuiltinDef> {
    Table::<AnyHost>::find(name)
}

/// The evaluated arguments of one call, with where each was written.
pub struct Args<'a> {
    pub vals: &'a [Value],
    /// Where each argument was written.
    pub spans: &'a [Span],
    pub span: Span,
}

#[cold]
#[inline(never)]
fn rt(span: Span, msg: impl Into<String>) -> Box<Diag> {
    Box::new(Diag::error("run::error", msg).label(span, "while evaluating this"))
}

impl Args<'_> {
    pub fn span_of(&self, i: usize) -> Span {
        self.spans.get(i).copied().unwrap_or(self.span)
    }
    pub fn get(&self, i: usize) -> Option<&Value> {
        self.vals.get(i)
    }
    #[inline]
    pub fn int(&self, i: usize) -> R<i64> {
        match self.vals.get(i) {
            Some(Value::Int(n)) => Ok(*n),
            _ => Err(self.not_a(i, "a number")),
        }
    }
    #[inline]
    pub fn player(&self, i: usize) -> R<u32> {
        match self.vals.get(i) {
            Some(Value::Player(p)) => Ok(*p),
            _ => Err(self.not_a(i, "a player")),
        }
    }
    /// Argument `i` is missing or not `what` (out of line: the accessors above stay small).
    #[cold]
    #[inline(never)]
    fn not_a(&self, i: usize, what: &str) -> Box<Diag> {
        match self.vals.get(i) {
            Some(other) => rt(
                self.span_of(i),
                format!("expected {what}, found {}", other.type_name()),
            ),
            None => rt(self.span, "missing argument"),
        }
    }
    pub fn list<H: Host + ?Sized>(&self, me: &H, i: usize) -> R<Rc<Items>> {
        match self.vals.get(i) {
            Some(v) => me.as_list(v, self.span_of(i)),
            None => Err(rt(self.span, "missing argument")),
        }
    }
    /// An optional text argument, shown as text for people, enum values in words (the
    /// default is not copied: a choice's prompt is often left out, and never worked out when
    /// nothing shows it).
    pub fn text<'d, H: Host + ?Sized>(
        &self,
        me: &H,
        i: usize,
        default: &'d str,
    ) -> std::borrow::Cow<'d, str> {
        match self.vals.get(i) {
            Some(v) => std::borrow::Cow::Owned(me.words(v)),
            None => std::borrow::Cow::Borrowed(default),
        }
    }
    /// A choice's prompt: its text when something shows the choice, the default in a silent
    /// run (where the prompt's code has still run, for its errors, but built no text).
    pub fn prompt<'d, H: Host + ?Sized>(
        &self,
        me: &H,
        i: usize,
        default: &'d str,
    ) -> std::borrow::Cow<'d, str> {
        if me.record() {
            self.text(me, i, default)
        } else {
            std::borrow::Cow::Borrowed(default)
        }
    }
    pub fn err(&self, msg: impl Into<String>) -> Box<Diag> {
        rt(self.span, msg)
    }
    pub fn err_at(&self, i: usize, msg: impl Into<String>) -> Box<Diag> {
        rt(self.span_of(i), msg)
    }
}

// Result types shared by several families.
pub(crate) fn ret_int(_: &[Ty]) -> Ty {
    Ty::Int
}
pub(crate) fn ret_bool(_: &[Ty]) -> Ty {
    Ty::Bool
}
pub(crate) fn ret_player(_: &[Ty]) -> Ty {
    Ty::Player
}
pub(crate) fn ret_none(_: &[Ty]) -> Ty {
    Ty::None
}
pub(crate) fn arg0(args: &[Ty]) -> Ty {
    args.first().cloned().unwrap_or(Ty::Any)
}
/// The element type of the first argument.
pub(crate) fn elem0(args: &[Ty]) -> Ty {
    arg0(args).elem()
}
/// The first argument's element as a list (`flatten` of a list of zones gives their cards).
pub(crate) fn elem_list0(args: &[Ty]) -> Ty {
    match elem0(args) {
        Ty::Zone(k) => Ty::List(Box::new(Ty::Card(k))),
        t => t,
    }
}
/// The first argument as a list (a zone reads as a list of its cards).
pub(crate) fn list0(args: &[Ty]) -> Ty {
    match arg0(args) {
        Ty::Zone(k) => Ty::List(Box::new(Ty::Card(k))),
        t => t,
    }
}

#[cfg(test)]
mod tests {
    /// Arguments are evaluated into an array of `MAX_ARGS`.
    #[test]
    fn no_builtin_takes_more_than_max_args() {
        for b in super::all() {
            assert!(b.params.len() <= super::MAX_ARGS, "{}", b.name);
        }
    }

    /// The compiled call takes the plain arguments into an array and the shown-only ones apart
    /// (skipping them when they are constants and no labels need counting), so they must be the
    /// last parameters, and optional.
    #[test]
    fn shown_only_arguments_are_trailing_and_optional() {
        for b in super::all() {
            for (k, &i) in b.shown_only.iter().enumerate() {
                assert!(i >= b.min_args, "{}: argument {i} is required", b.name);
                assert_eq!(
                    i + b.shown_only.len() - k,
                    b.params.len(),
                    "{}: shown-only arguments must come last",
                    b.name
                );
            }
        }
    }
}
