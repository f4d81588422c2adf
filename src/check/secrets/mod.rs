//! Secrets in text: a choice's prompt, labels and notes, a `say` line and a card's `face` must not
//! show a value to a player who may not read it; an answer given inside `secretly` must not be
//! written where others read it (a var, a card's `var` field).
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
//! builtins, calls of functions, card code and event triggers (each body summarised per mode,
//! asked in secret or not: its result and the texts it shows that depend on its arguments;
//! bodies are summarised callees first from the static call graph, then again until nothing
//! changes, so a chain is followed in two passes and only cycles through card code or events
//! take more; past `MAX_PASSES` the checker says it could not prove). A local's cards revealed
//! or moved into a zone are known as that says from then on. A branch taken is not followed (a
//! line said only when a hidden value is high), nor the player a key names (a player picked by a
//! condition on hidden cards still names a public seat); a number or an enum value as a key or an
//! index is (the entry picked tells it). A body the game
//! never runs in a mode (`reached`) is summarised but not reported.
//!
//! What each text's viewers are: a choice's prompt and its chosen label go to every player and
//! spectator, unless the choice is inside `secretly` (then to the chooser alone); its notes, to
//! the chooser alone. A `say` line is worked out again as each viewer (`interp/visibility.rs`), so
//! a var or a card's field read in its braces shows `(hidden)`: only a value worked out before
//! (a local) can carry a secret into it, which is a warning (`check::hidden_said`), as the rules
//! may mean to announce it. A `screen` line is worked out as its seat and is never flagged.
//!
//! Whether a choice is asked is seen by every player (the chooser is named even inside
//! `secretly`; an empty list asks nobody): what decides it is the conditions around it (`Body::pc`,
//! `ret`, `jump`) and its options list's emptiness (its value and `Sec::sel`, what selected it);
//! a hidden atom there is `check::hidden_asked`, once per choice (or call that asks) and per read
//! within a body. A body's summary keeps, as an `Ob` of `Sink::Asked`, that it may ask and what
//! of its arguments decides it, so a call under a hidden condition is warned at the call.
//!
//! A var that players read is a text too, kept: a `set` of one (or of a card's `var` field seen
//! with the card) whose value, entry or conditions around it read what some of its readers may
//! not is `check::hidden_stored` (`if agenda[o] == Rivalry { set points[o] += 3 }` with `points`
//! public tells the table whose agenda is a rivalry), once per write and per hidden read within a
//! body; a write in a function is kept in its summary as what of its arguments decides it, and
//! checked at each call with the conditions the call runs under. An answer given in secret is
//! left out, as for a choice asked: outside `secretly` the rules act on it and tell it.

use super::*;
use crate::ast::{EventKind, Visibility};
use crate::builtins::{BuiltinDef, Effect};
use crate::diag::{Diag, Span};
use crate::program::*;
use crate::value::Value;

mod asked;
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
    /// A choice asked (or a call that may ask one): every player sees who is asked, so
    /// whether it is asked must not depend on what some player may not read.
    Asked,
    /// A var some players read, written: its value, the entry written and whether it is
    /// written at all must not depend on what they may not read (`check::hidden_stored`).
    Stored(Id),
    /// A card's `var` field (by symbol) written, seen with the card: the same.
    StoredField(Id),
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

/// Where a choice's chooser is written (`None`: a call that asks inside).
type Who = Option<Span>;

#[derive(Clone, Default, Debug)]
struct Summary {
    ret: Sec,
    obs: Vec<Ob>,
    /// The parameters whose cards the body shows to everyone (moves face up into a `public`
    /// zone, reveals) before anything else, before it may ask a choice.
    shows: Vec<u32>,
    /// The body gives a list that is never empty as written (`known_nonempty`).
    nonempty: bool,
}

impl Summary {
    fn same(&self, o: &Summary) -> bool {
        self.ret.atoms_eq(&o.ret)
            && self.shows == o.shows
            && self.nonempty == o.nonempty
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
    /// For `Sink::Asked`: the chooser of a choice, or `None` for a call that asks. For
    /// `Sink::Stored`: the write inside the function, when `at` is a call that makes it.
    who: Who,
    /// The body walked when it was found (`Body::id`).
    body: u32,
}

/// One local slot: what it holds, where it was bound, the player it names, whether `set` ever
/// changes it in its body.
#[derive(Clone, Default)]
struct Slot {
    sec: Sec,
    /// Where it was bound (`site`).
    site: u64,
    term: Option<Term>,
    /// A list never empty as written (`Flow::known_nonempty`), never changed by `set`.
    nonempty: bool,
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
    /// What decides whether the code walked now runs: the conditions of the `if`s, `match`es,
    /// `and`s, `or`s and loops around it, pushed and popped as the walk enters and leaves them
    /// (met only where a choice is asked: `runs`).
    pc: Vec<Sight>,
    /// What decided a `break` or `continue` seen in the loop walked now (the rest of the loop
    /// runs only when it did not happen).
    jump: Sight,
    /// What decided a `return` seen in the body so far (the rest of the body runs only when it
    /// did not happen).
    ret: Sight,
    /// Which body this is, among those walked (`Flow::bodies`).
    id: u32,
    /// A choice may have been asked in the body walked so far.
    asked: bool,
    /// What decided whether the latest `say` was said (`runs`): a `return` under the same
    /// conditions right after tells the table nothing more.
    said: Option<Sight>,
    /// The cards of locals made known by a `move` or `reveal` (`Flow::now_known`), each with
    /// what was known before (its cards, what selected it): an `if`'s branches each start from
    /// what was known before it.
    undo: Vec<(u32, Sight, Sight)>,
}

impl Body {
    /// What `old` held is known to everyone now: what it decided is no longer hidden.
    fn shown(&mut self, old: &Sight) {
        if old.0.is_empty() {
            return;
        }
        let shown = |s: &mut Sight| {
            s.0.retain(|x| !old.0.iter().any(|o| o.0 == x.0 && o.1 == x.1))
        };
        self.pc.iter_mut().for_each(shown);
        shown(&mut self.jump);
        shown(&mut self.ret);
    }

    /// Walk what runs only as `s` says: `enter`, then `leave` with what it gave.
    fn enter(&mut self, s: Sight) -> usize {
        let mark = self.pc.len();
        if !s.0.is_empty() {
            self.pc.push(s);
        }
        mark
    }

    fn leave(&mut self, mark: usize) {
        self.pc.truncate(mark);
    }

    /// Nothing decides whether the code walked now runs.
    fn always(&self) -> bool {
        self.pc.iter().all(|s| s.0.is_empty()) && self.jump.0.is_empty() && self.ret.0.is_empty()
    }

    /// What a `return`, `break` or `continue` here decides: what decides whether it runs,
    /// unless a `say` under the same conditions told the table already.
    fn jumps(&self) -> Sight {
        let runs = self.runs();
        match &self.said {
            Some(s) if s.atoms_eq(&runs) => Sight::all(),
            _ => runs,
        }
    }

    /// What decides whether the code walked now runs.
    fn runs(&self) -> Sight {
        let mut s = self.jump.clone();
        for p in &self.pc {
            s.meet(p);
        }
        s.meet(&self.ret);
        s
    }
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
    /// Every body in each mode, each after the bodies it calls.
    order: Vec<(FnKey, bool)>,
    /// The bodies the game runs in each mode (their texts are shown).
    asked: std::collections::BTreeSet<(FnKey, bool)>,
    /// Summarising a body nothing calls in its mode: nothing is reported.
    muted: bool,
    /// The bodies walked so far (each `Body` gets the next number).
    bodies: std::cell::Cell<u32>,
}

/// The most texts a summary keeps apart; past it, texts of one kind shown to the same viewers
/// are checked together (a chain of functions each passing its argument on to a text).
const MAX_OBS: usize = 32;

/// The most passes over the game before the checker gives up proving (each pass summarises
/// every body, callees first, so a game without cycles through card code or events needs two
/// or three).
const MAX_PASSES: u32 = 64;

fn has_args(s: &Sight) -> bool {
    s.0.iter()
        .any(|x| matches!(x.0, Atom::ArgVal(_) | Atom::ArgCards(_) | Atom::ArgSel(_)))
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
            order: callees_first(prog),
            asked: reached(prog),
            muted: false,
            bodies: std::cell::Cell::new(0),
        };
        for &k in &flow.order {
            flow.fns.insert(k, Summary::default());
        }
        let mut rounds = 0;
        while flow.changed && rounds < MAX_PASSES {
            flow.changed = false;
            flow.pass();
            rounds += 1;
        }
        let unproven = flow
            .changed
            .then(|| prog.phases.first().map(|p| p.span).unwrap_or_default());
        flow.report = true;
        flow.pass();
        let found = std::mem::take(&mut flow.found);
        if let Some(at) = unproven {
            // Not proven: say so rather than pass what was not followed to the end.
            self.err(
                Diag::warning(
                    "check::secrets_unproven",
                    format!(
                        "the checker could not follow every value into the texts that show it \
                         within {MAX_PASSES} passes"
                    ),
                )
                .label(at, "in this game")
                .help(
                    "card code or events that call each other in long cycles; the texts reported \
                     below may not be all that read a secret",
                ),
            );
        }
        let diags: Vec<Diag> = found.iter().map(|f| self.secret_diag(f)).collect();
        for d in diags {
            self.err(d);
        }
    }
}

/// Every function, card code and event trigger, in both modes (asked in secret or not), each
/// after the bodies it calls: a depth-first walk without recursion, a cycle cut where it closes.
fn callees_first(prog: &Program) -> Vec<(FnKey, bool)> {
    let mut keys: Vec<FnKey> = (0..prog.fns.len() as Id).map(FnKey::Fn).collect();
    keys.extend((0..prog.card_fns.len() as Id).map(FnKey::Card));
    keys.extend(
        (0..prog.triggers.len() as Id)
            .filter(|&t| {
                prog.triggers
                    .get(t as usize)
                    .is_some_and(|t| t.event == EventKind::Custom)
            })
            .map(FnKey::Trigger),
    );
    let calls = |k: FnKey| -> Vec<FnKey> {
        let mut out = calls_of(prog, &body_of(prog, k), false);
        out.sort();
        out.dedup();
        out
    };
    let deps: std::collections::BTreeMap<FnKey, Vec<FnKey>> =
        keys.iter().map(|&k| (k, calls(k))).collect();
    let mut order = Vec::with_capacity(keys.len() * 2);
    let mut seen = std::collections::BTreeSet::new();
    for &k in &keys {
        if !seen.insert(k) {
            continue;
        }
        let mut stack = vec![(k, 0usize)];
        while let Some((n, i)) = stack.pop() {
            match deps.get(&n).and_then(|d| d.get(i)) {
                Some(&d) => {
                    stack.push((n, i + 1));
                    if seen.insert(d) {
                        stack.push((d, 0));
                    }
                }
                None => order.push(n),
            }
        }
    }
    // The secret mode of a body may be asked from the plain mode of its caller (`secretly`):
    // all secret summaries first, each after its callees, then the plain ones.
    order
        .iter()
        .map(|&k| (k, true))
        .chain(order.iter().map(|&k| (k, false)))
        .collect()
}

/// The parts of a summarised body.
fn body_of(prog: &Program, k: FnKey) -> Vec<crate::program::walk::Node<'_>> {
    let mut out = Vec::new();
    match k {
        FnKey::Fn(f) => {
            if let Some(f) = prog.fns.get(f as usize) {
                out.push(crate::program::walk::Node::Expr(&f.body));
            }
        }
        FnKey::Card(f) => {
            if let Some(f) = prog.card_fns.get(f as usize) {
                out.push(crate::program::walk::Node::Expr(&f.body));
            }
        }
        FnKey::Trigger(t) => {
            if let Some(t) = prog.triggers.get(t as usize) {
                out.extend(t.condition.iter().map(crate::program::walk::Node::Expr));
                out.extend(t.body.stmts.iter().map(crate::program::walk::Node::Stmt));
            }
        }
    }
    out
}

/// The bodies `nodes` call (a function, the card code a field may run, an event's triggers);
/// with `secret`, only the calls inside a `secretly` there.
fn calls_of(prog: &Program, nodes: &[crate::program::walk::Node], secret: bool) -> Vec<FnKey> {
    let mut out = Vec::new();
    let visit = |n: crate::program::walk::Node, out: &mut Vec<FnKey>| {
        crate::program::walk::walk(n, &mut |x| match x {
            crate::program::walk::Node::Expr(e) => match &e.kind {
                ExprKind::Call(f, _) => out.push(FnKey::Fn(*f)),
                ExprKind::CallField(_, sym, _) => out.extend(
                    (0..prog.card_fns.len() as Id)
                        .filter(|&i| prog.card_fn_fields.get(i as usize) == Some(sym))
                        .map(FnKey::Card),
                ),
                _ => {}
            },
            crate::program::walk::Node::Stmt(s) => {
                if let StmtKind::Emit(id, _) = &s.kind {
                    out.extend(
                        (0..prog.triggers.len() as Id)
                            .filter(|&t| {
                                prog.triggers.get(t as usize).is_some_and(|t| {
                                    t.event == EventKind::Custom && t.target == Some(*id)
                                })
                            })
                            .map(FnKey::Trigger),
                    );
                }
            }
        })
    };
    if secret {
        let mut blocks: Vec<&Block> = Vec::new();
        for &n in nodes {
            crate::program::walk::walk(n, &mut |x| {
                if let crate::program::walk::Node::Stmt(s) = x {
                    if let StmtKind::Secretly(b) = &s.kind {
                        blocks.push(b);
                    }
                }
            });
        }
        for b in blocks {
            for s in &b.stmts {
                visit(crate::program::walk::Node::Stmt(s), &mut out);
            }
        }
    } else {
        for &n in nodes {
            visit(n, &mut out);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The bodies the game runs, in the mode each is run in (inside `secretly` or not), from its
/// phases, setup, triggers, screen and faces: what is reported (a body nothing runs shows no
/// text).
fn reached(prog: &Program) -> std::collections::BTreeSet<(FnKey, bool)> {
    let mut roots: Vec<crate::program::walk::Node> = Vec::new();
    for p in &prog.phases {
        roots.extend(
            p.each
                .iter()
                .map(|e| crate::program::walk::Node::Expr(&e.1)),
        );
        roots.extend(p.body.stmts.iter().map(crate::program::walk::Node::Stmt));
    }
    for (bl, _) in &prog.setup {
        roots.extend(bl.stmts.iter().map(crate::program::walk::Node::Stmt));
    }
    for t in prog
        .triggers
        .iter()
        .filter(|t| t.event != EventKind::Custom)
    {
        roots.extend(t.condition.iter().map(crate::program::walk::Node::Expr));
        roots.extend(t.body.stmts.iter().map(crate::program::walk::Node::Stmt));
    }
    if let Some(sc) = &prog.screen {
        for (l, v) in &sc.lines {
            roots.push(crate::program::walk::Node::Expr(l));
            roots.push(crate::program::walk::Node::Expr(v));
        }
    }
    for fd in &prog.faces {
        roots.extend(
            fd.slots
                .iter()
                .map(|x| crate::program::walk::Node::Expr(&x.1)),
        );
        roots.extend(
            fd.show
                .iter()
                .flatten()
                .map(|x| crate::program::walk::Node::Expr(&x.1)),
        );
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut work: Vec<(FnKey, bool)> = Vec::new();
    for m in [false, true] {
        for k in calls_of(prog, &roots, m) {
            if seen.insert((k, m)) {
                work.push((k, m));
            }
        }
    }
    while let Some((k, m)) = work.pop() {
        let body = body_of(prog, k);
        // Everything it calls runs in its mode; what it calls inside `secretly`, in secret.
        let mut next: Vec<(FnKey, bool)> = calls_of(prog, &body, false)
            .into_iter()
            .map(|c| (c, m))
            .collect();
        if !m {
            next.extend(calls_of(prog, &body, true).into_iter().map(|c| (c, true)));
        }
        for x in next {
            if seen.insert(x) {
                work.push(x);
            }
        }
    }
    seen
}
