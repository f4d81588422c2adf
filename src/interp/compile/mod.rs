//! The checked tree compiled into closures, once per program: every expression and statement
//! becomes a `Code` that calls its children's closures directly, so a game pays for the match
//! on the tree's forms once, when it is compiled, not at every node it evaluates. Common shapes
//! (a field of a local, a comparison with a constant, a call) get closures of their own.
//!
//! The tree walk (`exprs`, `stmts`) stays the reference: the compiled code and the walk share
//! every helper that works on values (operators, aggregates, builtins, keys, moves, calls), and
//! the rare forms compile to a closure that walks their subtree. `Ev` is what both evaluate.
//!
//! `exprs.rs`: expressions. `aggs.rs`: aggregates (`map`, `filter`, `count`...) and what they
//! walk. `calls.rs`: calls and their arguments. `inline.rs`: small functions compiled into their
//! callers. `forms.rs`: the less common expression forms. `conds.rs`: conditions, compiled to
//! their truth as a word.
//! `invariant.rs`: a loop's condition that starts with a value its elements do not change.
//! `index.rs`: an aggregate over a kind's cards narrowed by equalities on printed fields, looked up.
//! `scan.rs`: an aggregate whose condition compares the element's field with a key, compared in
//! place. `truth.rs`: an inlined call used as a condition, its body compiled for its truth. `keys.rs`: zone and var keys, by domain. `stmts.rs`: statements and blocks.

mod aggs;
mod calls;
mod conds;
mod exprs;
mod facts;
mod finite;
mod forms;
mod index;
mod inline;
mod invariant;
mod keys;
mod memo;
pub mod profile;
mod scan;
mod stmts;
mod truth;

pub use memo::{remembered, Memo};

use super::*;
use crate::diag::Span;
use crate::program::*;
use crate::value::Value;
use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

/// A compiled expression or statement: evaluates against the interpreter's state.
pub(crate) type Code = Box<dyn for<'a> Fn(&mut Interp<'a>) -> R<Value>>;

/// Box a closure as `Code` (names the higher-ranked signature for the closure's inference).
pub(super) fn code<F>(f: F) -> Code
where
    F: for<'a> Fn(&mut Interp<'a>) -> R<Value> + 'static,
{
    Box::new(f)
}

/// Where a value read by an expression was made, worked out from the tree once: a local (its
/// `let` or `set`), or a function (what it returned). Errors about a wrong value point there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    Nowhere,
    Local(u32),
    Call(Id),
}

impl Origin {
    pub(crate) fn of(e: &Expr) -> Origin {
        match &e.kind {
            ExprKind::Local(slot) => Origin::Local(*slot),
            ExprKind::Call(f, _) => Origin::Call(*f),
            ExprKind::Field(base, _) | ExprKind::TupleIndex(base, _) => Origin::of(base),
            _ => Origin::Nowhere,
        }
    }
}

/// Something that evaluates to a value: a tree expression (walked) or a compiled one.
pub(crate) trait Ev {
    fn ev(&self, me: &mut Interp<'_>) -> R<Value>;
    fn span(&self) -> Span;
    fn origin(&self) -> Origin;
    /// The local it is, when it is one (a call's parameter then takes the local's origin).
    fn local_slot(&self) -> Option<u32> {
        None
    }
}

impl Ev for Expr {
    #[inline]
    fn ev(&self, me: &mut Interp<'_>) -> R<Value> {
        me.eval(self)
    }
    fn span(&self) -> Span {
        self.span
    }
    fn origin(&self) -> Origin {
        Origin::of(self)
    }
    fn local_slot(&self) -> Option<u32> {
        match self.kind {
            ExprKind::Local(slot) => Some(slot),
            _ => None,
        }
    }
}

impl<T: Ev + ?Sized> Ev for Box<T> {
    #[inline]
    fn ev(&self, me: &mut Interp<'_>) -> R<Value> {
        (**self).ev(me)
    }
    fn span(&self) -> Span {
        (**self).span()
    }
    fn origin(&self) -> Origin {
        (**self).origin()
    }
    fn local_slot(&self) -> Option<u32> {
        (**self).local_slot()
    }
}

/// A compiled expression with where it was written.
pub(crate) struct CExpr {
    pub code: Code,
    pub span: Span,
    pub origin: Origin,
}

impl Ev for CExpr {
    #[inline(always)]
    fn ev(&self, me: &mut Interp<'_>) -> R<Value> {
        (self.code)(me)
    }
    fn span(&self) -> Span {
        self.span
    }
    fn origin(&self) -> Origin {
        self.origin
    }
}

/// A user function or a card's code, compiled: its body and the size of its frame.
pub(crate) struct CFn {
    pub body: Code,
    pub locals: usize,
}

/// A phase compiled: its body, and the list whose items it runs for (`phase NAME for x in ...`).
pub(crate) struct CPhase {
    pub each: Option<CExpr>,
    pub body: Code,
}

/// A trigger compiled: its condition and body.
pub(crate) struct CTrigger {
    pub condition: Option<CExpr>,
    pub body: Code,
}

/// A whole program compiled.
pub struct Compiled {
    pub(crate) fns: Vec<CFn>,
    pub(crate) card_fns: Vec<CFn>,
    pub(crate) phases: Vec<CPhase>,
    pub(crate) triggers: Vec<CTrigger>,
    pub(crate) setup: Vec<Code>,
    /// Per table, each entry's value and the frame they need.
    pub(crate) tables: Vec<(Vec<Code>, u32)>,
    /// Each constant's value and each var's first value, with the frame each needs.
    pub(crate) consts: Vec<(Code, u32)>,
    pub(crate) var_inits: Vec<(Code, u32)>,
    /// Whether a remembered function reads zones: then changes to zones are dated
    /// (`State::zone_stamp`).
    pub(crate) dates_zones: bool,
}

impl Compiled {
    /// `prog` compiled; with `profiling`, each function, phase and the setup counted in its row
    /// of the profile (`profile::names` gives the rows) and no call compiled in place.
    fn new(prog: &Program, profiling: bool) -> Compiled {
        let counted = |row: usize, body: Code| {
            if profiling {
                profile::counted(row, body)
            } else {
                body
            }
        };
        // Each root's frame grows by the slots of the calls inlined into it.
        let cfn = |row: usize, fd: &FnDef| {
            let base = fd.locals.max(fd.params.len() as u32);
            let body = inline::lift_returns(&fd.body);
            let (body, locals) = inline::root(base, || exprs::expr(&body));
            CFn {
                body: counted(row, body),
                locals: locals as usize,
            }
        };
        let block = |b: &Block, base: u32| {
            let (body, locals) = inline::root(base, || stmts::block(b));
            inline::grown(body, base, locals)
        };
        // A body and an expression worked out in the same frame (a trigger's condition, the
        // list a phase runs for), both grown by the slots of the calls inlined into either.
        let with_body = |e: Option<&Expr>, b: &Block, base: u32| {
            let ((e, body), locals) = inline::root(base, || (e.map(exprs::cexpr), stmts::block(b)));
            let e = e.map(|c| CExpr {
                code: inline::grown(c.code, base, locals),
                ..c
            });
            (e, inline::grown(body, base, locals))
        };
        let trigger = |t: &TriggerDef| {
            let (condition, body) = with_body(t.condition.as_ref(), &t.body, t.locals);
            CTrigger { condition, body }
        };
        let (fns, card_fns, phases) = (prog.fns.len(), prog.card_fns.len(), prog.phases.len());
        let phase = |i: usize, p: &PhaseDef| {
            let (each, body) = with_body(p.each.as_ref().map(|e| &e.1), &p.body, p.locals);
            let body = counted(fns + card_fns + i, body);
            CPhase { each, body }
        };
        let setup_row = fns + card_fns + phases;
        SITES.with(|n| n.set(0));
        keys::with_families(prog, || {
            memo::with_program(prog, || {
                finite::with_program(prog, || {
                    facts::with_program(prog, || {
                        inline::with_program(prog, !profiling, || Compiled {
                            fns: prog
                                .fns
                                .iter()
                                .enumerate()
                                .map(|(i, f)| cfn(i, f))
                                .collect(),
                            card_fns: (prog.card_fns.iter().enumerate())
                                .map(|(i, f)| cfn(fns + i, f))
                                .collect(),
                            phases: prog
                                .phases
                                .iter()
                                .enumerate()
                                .map(|(i, p)| phase(i, p))
                                .collect(),
                            triggers: prog.triggers.iter().map(trigger).collect(),
                            setup: (prog.setup.iter())
                                .map(|(b, l)| counted(setup_row, block(b, *l)))
                                .collect(),
                            tables: prog
                                .tables
                                .iter()
                                .map(|td| {
                                    inline::root(td.locals, || {
                                        td.entries.iter().map(|(_, v, _)| exprs::expr(v)).collect()
                                    })
                                })
                                .collect(),
                            consts: prog
                                .consts
                                .iter()
                                .map(|cd| inline::root(cd.locals, || exprs::expr(&cd.value)))
                                .collect(),
                            var_inits: prog
                                .vars
                                .iter()
                                .map(|v| inline::root(v.locals, || exprs::expr(&v.init)))
                                .collect(),
                            dates_zones: memo::any_reads_zones(),
                        })
                    })
                })
            })
        })
    }
}

thread_local! {
    /// Whether the program being compiled checks each typed value (`CodeCache::check_sorts`).
    static SORTS_CHECKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The choice sites numbered so far in the program being compiled (`next_site`).
    static SITES: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Whether the program being compiled checks each typed value against its sort.
pub(super) fn sorts_checked() -> bool {
    SORTS_CHECKED.with(|c| c.get())
}

/// A number for a call with texts for showing (a choice's prompt, labels, notes), unique within
/// its program: a silent game works each site's texts out once (`Interp::sketched`). Compiling a
/// program is done start to finish on one thread, which numbers its sites from 0.
pub(super) fn next_site() -> u32 {
    SITES.with(|n| {
        let site = n.get();
        n.set(site.saturating_add(1));
        site
    })
}

/// The compiled form of a `Program`, made the first time a game is played and kept in the
/// program (`Program::code`, a `Derived`: a copy of a program starts without it, and so compiles
/// its own). It also keeps the layout of the last number of players played (`Layout`).
#[derive(Default)]
pub struct CodeCache(
    OnceCell<Compiled>,
    RefCell<Option<Rc<Layout>>>,
    std::cell::Cell<Mode>,
);

/// How a program is compiled: for `rules bench --profile`, and with every value checked against
/// the type the checker gave its expression (`CodeCache::check_sorts`).
#[derive(Default, Clone, Copy)]
struct Mode {
    profiling: bool,
    sorts_checked: bool,
}

impl CodeCache {
    /// The cache kept in `prog`, made empty the first time.
    pub(crate) fn of(prog: &Program) -> R<&CodeCache> {
        prog.code.get_or_init(CodeCache::default).ok_or_else(|| {
            Box::new(crate::diag::Diag::error(
                "run::internal",
                "the program keeps something other than its compiled code",
            ))
        })
    }

    pub(crate) fn get(&self, prog: &Program) -> &Compiled {
        let mode = self.2.get();
        self.0.get_or_init(|| {
            SORTS_CHECKED.with(|c| c.set(mode.sorts_checked));
            let compiled = Compiled::new(prog, mode.profiling);
            SORTS_CHECKED.with(|c| c.set(false));
            compiled
        })
    }

    /// Compile `prog` again when it is next played, for `rules bench --profile` (`profile.rs`).
    /// The rows of the profile are `profile_names(prog)`.
    pub fn profile(prog: &mut Program) {
        CodeCache::recompile(
            prog,
            Mode {
                profiling: true,
                sorts_checked: false,
            },
        );
    }

    /// Compile `prog` again when it is next played, with every expression the checker typed
    /// checked as it is worked out: a value of another type is the error `run::internal`
    /// naming the type and the expression. Slower; for the tests that hold the checker's types
    /// to what the games make (issue 45 item 3: code compiled over those types relies on them).
    pub fn check_sorts(prog: &mut Program) {
        CodeCache::recompile(
            prog,
            Mode {
                profiling: false,
                sorts_checked: true,
            },
        );
    }

    /// Drop `prog`'s compiled code; it is compiled in `mode` when it is next played.
    fn recompile(prog: &mut Program, mode: Mode) {
        prog.code.reset();
        let cache = CodeCache::default();
        cache.2.set(mode);
        let _ = prog.code.get_or_init(|| cache);
    }

    /// The layout of `prog` for `n_players` under `limits`: the one kept, or a new one (then
    /// kept).
    pub(crate) fn layout(&self, prog: &Program, n_players: u32, limits: &Limits) -> R<Rc<Layout>> {
        if let Some(l) = self
            .1
            .borrow()
            .as_ref()
            .filter(|l| l.fits(n_players, limits))
        {
            return Ok(l.clone());
        }
        let l = Rc::new(Layout::new(prog, n_players, limits)?);
        *self.1.borrow_mut() = Some(l.clone());
        Ok(l)
    }
}

/// The rows of a profile of `prog` (`CodeCache::profile`): its functions, its cards' code, its
/// phases, then the setup.
pub fn profile_names(prog: &Program) -> Vec<String> {
    (prog.fns.iter().map(|f| f.name.clone()))
        .chain(prog.card_fns.iter().map(|f| f.name.clone()))
        .chain(prog.phases.iter().map(|p| format!("phase {}", p.name)))
        .chain(std::iter::once("setup".to_string()))
        .collect()
}
