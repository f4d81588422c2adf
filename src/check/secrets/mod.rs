//! Secrets in text: a choice's prompt, labels and notes, and a `say` line, must not show a value
//! to a player who may not read it; an answer given inside `secretly` must not be written where
//! others read it.
//!
//! Who may read a value is worked out on the lowered tree, as a set of atoms whose readers all
//! must allow (`Sight`): `Nobody` (a `hidden` var, a card in a `hidden` zone), `Seat(t)` (an
//! `owner` var or zone keyed by the player `t`: a player written out, a function's parameter, or
//! a local bound at one place), and, inside a function, the sight of an argument (`ArgVal`,
//! `ArgCards`), substituted at each call. A value carries two sights: its own (`val`) and the
//! cards it holds (`cards`), for a card's identity is shown as the viewer knows it (`a hidden
//! card`) wherever a value is shown as parts, but its fields, a comparison of it, and its name
//! written into a text tell which card it is.
//!
//! The flow is explicit: through `let`s, a local changed with `set` (which keeps the meet of all
//! it was given, and no player's local: the loop may rebind it), operators, aggregates,
//! builtins, function calls (each function summarised once per mode, its result and the texts
//! it shows that depend on its arguments, to a fixed point), a card's code, and a game's own
//! events. A branch taken is not followed (a line said only when a hidden value is high).
//!
//! What each text's viewers are: a choice's prompt and its chosen label go to every player and
//! spectator, unless the choice is inside `secretly` (then to the chooser alone); its notes, to
//! the chooser alone. A `say` line is worked out again as each viewer (`interp/visibility.rs`), so
//! a var or a card's field read in its braces shows `(hidden)`: only a value worked out before
//! (a local) can carry a secret into it, which is a warning (`check::hidden_said`), as the rules
//! may mean to announce it. A `screen` line is worked out as its seat and is never flagged.

use super::*;
use crate::ast::{EventKind, Visibility};
use crate::builtins::{BuiltinDef, Effect};
use crate::diag::{Diag, Span};
use crate::program::*;
use crate::value::Value;

mod exprs;
mod face_down;
mod flow;
mod report;
mod sight;

use face_down::FaceDown;
use sight::*;

/// Who sees a text: everybody, or one player (`None`: a player the analysis cannot name).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Viewers {
    Everyone,
    One(Option<Term>),
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Sink {
    Prompt,
    Label,
    Note,
    Say,
    /// A part of a `face`, printed on the card for everybody.
    Face,
    /// A var written inside `secretly`.
    Write(Id),
    /// A card's `var` field (by symbol) written inside `secretly`: seen with the card.
    WriteField(Id),
}

/// A text shown (or a var written) whose sight depends on the arguments of the function it is
/// in: checked at each call, with the arguments' sights.
#[derive(Clone, Debug)]
struct Ob {
    sink: Sink,
    at: Span,
    viewers: Viewers,
    sight: Sight,
}

#[derive(Clone, Default, Debug)]
struct Summary {
    ret: Sec,
    obs: Vec<Ob>,
}

impl Summary {
    fn same(&self, o: &Summary) -> bool {
        self.ret.atoms_eq(&o.ret)
            && self.obs.len() == o.obs.len()
            && self
                .obs
                .iter()
                .zip(&o.obs)
                .all(|(a, b)| a.at == b.at && a.sight.atoms_eq(&b.sight))
    }
}

/// A leak found: the text (or write), who sees it, the read that is hidden from them.
struct Found {
    sink: Sink,
    at: Span,
    viewers: Viewers,
    read: Span,
    nobody: bool,
    /// What is hidden is a var's value (or a secret answer), not what is known of a card.
    var: bool,
}

/// One local slot: what it holds, where it was bound, the player it names, whether `set` ever
/// changes it in its body.
#[derive(Clone, Default)]
struct Slot {
    sec: Sec,
    /// Where it was bound (`site`).
    site: u64,
    term: Option<Term>,
}

/// A place a local is bound, unique in the game: its file and offset.
fn site(at: Span) -> u64 {
    (u64::from(at.file) << 32) | u64::from(at.start)
}

/// The walk of one body.
struct Body {
    slots: Vec<Slot>,
    /// Bindings made in the scopes open now, innermost last.
    bound: Vec<(u32, u64)>,
    /// Inside `secretly`.
    secret: bool,
    /// A function's body: obligations that depend on its arguments are kept.
    summary: Option<Summary>,
    /// A `say` line (or a screen line): reads of vars and fields are worked out as the viewer.
    observed: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum FnKey {
    Fn(Id),
    Card(Id),
    /// A trigger of a game's own event: `emit` calls it with the event's arguments.
    Trigger(Id),
}

struct Flow<'a> {
    prog: &'a Program,
    /// Per function and mode (normal, secret): its summary, once asked for.
    fns: std::collections::BTreeMap<(FnKey, bool), Summary>,
    changed: bool,
    report: bool,
    found: Vec<Found>,
    /// The kinds whose cards can lie face down (in a public zone, only its player knows them).
    face_down: FaceDown,
    /// The bindings of locals that a `set` changes (slot, site): they name no player.
    mutable: std::collections::BTreeSet<(u32, u64)>,
}

fn has_args(s: &Sight) -> bool {
    s.0.iter()
        .any(|x| matches!(x.0, Atom::ArgVal(_) | Atom::ArgCards(_)))
}

#[derive(Clone, Copy)]
enum Callee<'a> {
    Expr(&'a Expr, Span),
    Trigger(&'a TriggerDef),
}

impl Checker {
    /// Report texts that show a value to players who may not read it, and secret answers
    /// written where others read them. Run only on a program without errors (no cascade).
    pub(super) fn check_secrets(&mut self) {
        let prog = &self.prog;
        let face_down = FaceDown::of(prog);
        let mut flow = Flow {
            prog,
            fns: std::collections::BTreeMap::new(),
            changed: true,
            report: false,
            found: Vec::new(),
            face_down,
            mutable: std::collections::BTreeSet::new(),
        };
        let mut rounds = 0;
        while flow.changed && rounds < 40 {
            flow.changed = false;
            flow.pass();
            rounds += 1;
        }
        flow.report = true;
        flow.pass();
        let found = std::mem::take(&mut flow.found);
        let diags: Vec<Diag> = found.iter().map(|f| self.secret_diag(f)).collect();
        for d in diags {
            self.err(d);
        }
    }
}
