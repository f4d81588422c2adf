//! Calls of a function of one finite argument that reads nothing else, such as
//! `other(side: Side) -> Side = if side == Left { Right } else { Left }`: its value for each
//! value of the argument is worked out the first time the call site meets it, with the steps it
//! took, and then given again, its steps charged, without running the body.
//!
//! What it takes, decided on the tree:
//! - one parameter, of an enum type or `bool` (a domain of a few values, each an index);
//! - a body that reads its parameter, its own locals and values written out, and nothing of the
//!   game: no var, zone, card, player list, round, option or named constant, no call and no
//!   builtin (so nothing that asks who is still in), no loop; it changes only its own locals;
//! - a call whose argument is a local or a value written out (read in place, nothing to work
//!   out twice), and that `inline` compiles in place (so not while profiling, which counts every
//!   call).
//!
//! So the value and the steps are the same for every call with that argument, in every game of
//! the program: the call gives what running it gives, and charges what running it charges. An
//! error (the body divides by zero) is never kept: that call is run each time, and fails each
//! time in the same place. As with a remembered call (`memo`), a game whose budget runs out
//! inside the body is stopped at the call once its value is kept. With an observer (a player's
//! view) nothing changes: the body reads nothing that one could not see.

use super::{code, Code};
use crate::diag::Span;
use crate::interp::{Interp, R};
use crate::program::walk::{walk, Node};
use crate::program::*;
use crate::value::Value;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// The argument's domain: an enum's id and its number of values, or `bool`.
#[derive(Clone, Copy)]
enum Domain {
    Enum(Id, u32),
    Bool,
}

impl Domain {
    fn size(self) -> usize {
        match self {
            Domain::Enum(_, n) => n as usize,
            Domain::Bool => 2,
        }
    }

    /// The index of `v` in the domain, if it is one of its values.
    #[inline(always)]
    fn index(self, v: &Value) -> Option<usize> {
        match (self, v) {
            (Domain::Enum(e, n), Value::Enum(e2, x)) if e == *e2 && *x < n => Some(*x as usize),
            (Domain::Bool, Value::Bool(b)) => Some(usize::from(*b)),
            _ => None,
        }
    }
}

thread_local! {
    /// Per function of the program being compiled, its argument's domain if its calls may be
    /// kept so.
    static FINITE: RefCell<Vec<Option<Domain>>> = const { RefCell::new(Vec::new()) };
}

/// Run `f` (a compilation of `prog`) knowing which of its functions qualify.
pub(super) fn with_program<T>(prog: &Program, f: impl FnOnce() -> T) -> T {
    let domains = prog.fns.iter().map(|fd| domain_of(prog, fd)).collect();
    let old = FINITE.with(|t| t.replace(domains));
    let r = f();
    FINITE.with(|t| *t.borrow_mut() = old);
    r
}

/// The domain of `fd`'s one parameter, if `fd` qualifies (see the module's comment).
fn domain_of(prog: &Program, fd: &FnDef) -> Option<Domain> {
    let [(_, ty)] = &fd.params[..] else {
        return None;
    };
    let domain = match ty {
        Ty::Enum(id) => {
            let n = prog.enums.get(*id as usize)?.variants.len();
            Domain::Enum(*id, u32::try_from(n).ok()?)
        }
        Ty::Bool => Domain::Bool,
        _ => return None,
    };
    let mut ok = true;
    walk(Node::Expr(&fd.body), &mut |n| {
        ok &= match n {
            Node::Expr(e) => matches!(
                e.kind,
                ExprKind::Const(_)
                    | ExprKind::Local(_)
                    | ExprKind::Unary(..)
                    | ExprKind::Binary(..)
                    | ExprKind::If(..)
                    | ExprKind::Match(..)
                    | ExprKind::Block(_)
                    | ExprKind::List(_)
                    | ExprKind::Tuple(_)
                    | ExprKind::TupleIndex(..)
                    | ExprKind::Index(..)
            ),
            Node::Stmt(s) => matches!(
                s.kind,
                StmtKind::Let(..)
                    | StmtKind::Assign(Place::Local(_), _, _)
                    | StmtKind::Return(_)
                    | StmtKind::Expr(_)
            ),
        };
    });
    ok.then_some(domain)
}

/// The domain of `f` and the argument of `f(es)`, when `call` keeps its values: one argument,
/// a local or a value of the domain written out.
fn kept_call(f: Id, es: &[Expr]) -> Option<(Domain, Arg)> {
    let domain = FINITE.with(|t| t.borrow().get(f as usize).copied().flatten())?;
    let arg = match es {
        [Expr {
            kind: ExprKind::Local(slot),
            ..
        }] => Arg::Local(*slot),
        [Expr {
            kind: ExprKind::Const(v),
            ..
        }] => Arg::Index(domain.index(v)?),
        _ => return None,
    };
    Some((domain, arg))
}

/// Whether `call` keeps the values of `f(es)` (a condition then leaves the call to it).
pub(super) fn keeps(f: Id, es: &[Expr]) -> bool {
    kept_call(f, es).is_some()
}

/// `f(es)` kept per value of its argument, around `inlined` (the call compiled in place), if
/// `f` and the call qualify.
pub(super) fn call(f: Id, es: &[Expr], inlined: Code, span: Span) -> Result<Code, Code> {
    let Some((domain, arg)) = kept_call(f, es) else {
        return Err(inlined);
    };
    let kept: Kept = Rc::new(RefCell::new(vec![None; domain.size()]));
    Ok(code(move |me: &mut Interp<'_>| {
        let at = match arg {
            Arg::Local(slot) => me.local_ref(slot).and_then(|v| domain.index(v)),
            Arg::Index(i) => Some(i),
        };
        let Some(at) = at else {
            // Not a value of the domain (a `none`): the call as written, and its error.
            return inlined(me);
        };
        if let Some((v, steps)) = kept.borrow().get(at).and_then(Option::as_ref) {
            // What the call does first (`InlineCall::run`): its step, the depth check; then
            // the steps its body took.
            me.tick(span)?;
            me.check_call_depth(span)?;
            me.charge(steps.saturating_sub(1), span)?;
            return Ok(v.clone());
        }
        let before = me.state.steps();
        let v = inlined(me)?;
        let steps = me.state.steps().saturating_sub(before);
        if let Some(slot) = kept.borrow_mut().get_mut(at) {
            *slot = Some((v.clone(), steps));
        }
        Ok(v)
    }))
}

/// Per value of the argument, its call's value and steps once worked out.
type Kept = Rc<RefCell<Vec<Option<(Value, u64)>>>>;

/// A key of a zone or var family that is a kept call (`supporters[row, other(side)]`): per
/// value of the argument, the key's index in its domain and the steps the call took, so a key
/// met again is neither worked out nor made a value. The steps charged and the errors are the
/// call's own (`call`): the call's code runs for a value of the argument not met yet, for one
/// outside the domain (a `none`), and for a key its domain refuses, each time.
pub(super) struct KeyCall {
    domain: Domain,
    slot: u32,
    /// The call as `call` compiles it (kept per value too, so steps and errors are its own).
    code: Code,
    /// Per value of the argument: the key's index and its domain's size, and the call's steps.
    table: Vec<Cell<Option<(u32, u32, u64)>>>,
    span: Span,
}

impl KeyCall {
    /// The kept call `f(es)` as a key, if it is one whose argument is a local.
    pub(super) fn new(f: Id, es: &[Expr], span: Span) -> Option<KeyCall> {
        let domain = FINITE.with(|t| t.borrow().get(f as usize).copied().flatten())?;
        let [Expr {
            kind: ExprKind::Local(slot),
            ..
        }] = es
        else {
            return None;
        };
        if super::memo::remembers(f) {
            return None;
        }
        let inlined = super::inline::call(f, es, span)?;
        let code = call(f, es, inlined, span).ok()?;
        Some(KeyCall {
            domain,
            slot: *slot,
            code,
            table: vec![Cell::new(None); domain.size()],
            span,
        })
    }

    /// The key's index and its domain's size, as `index_of` gives them for the call's value
    /// (`None`: a value outside the key's domain, as that value).
    #[inline(always)]
    pub(super) fn index(
        &self,
        me: &mut Interp<'_>,
        index_of: impl Fn(&Value) -> Option<(u32, u32)>,
    ) -> R<Result<(u32, u32), Value>> {
        if let Some(kept) = self.kept(me)? {
            return Ok(Ok(kept));
        }
        let at = me.local_ref(self.slot).and_then(|v| self.domain.index(v));
        let before = me.state.steps();
        let v = (self.code)(me)?;
        let Some((j, n)) = index_of(&v) else {
            return Ok(Err(v));
        };
        if let Some(slot) = at.and_then(|at| self.table.get(at)) {
            let steps = me.state.steps().saturating_sub(before);
            slot.set(Some((j, n, steps)));
        }
        Ok(Ok((j, n)))
    }

    /// The key's index and its domain's size when kept for the argument's value, charged as
    /// the call (`call`: its step, the depth check, the rest); `None` when not kept yet.
    #[inline(always)]
    pub(super) fn kept(&self, me: &mut Interp<'_>) -> R<Option<(u32, u32)>> {
        let at = me.local_ref(self.slot).and_then(|v| self.domain.index(v));
        let Some((j, n, steps)) = at.and_then(|at| self.table.get(at)).and_then(Cell::get) else {
            return Ok(None);
        };
        me.tick(self.span)?;
        me.check_call_depth(self.span)?;
        me.charge(steps.saturating_sub(1), self.span)?;
        Ok(Some((j, n)))
    }
}

/// Where the argument comes from.
#[derive(Clone, Copy)]
enum Arg {
    Local(u32),
    /// A value written out, as its index.
    Index(usize),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Limits;

    /// Which functions qualify: one enum or `bool` parameter, a body that reads nothing else.
    #[test]
    fn only_functions_of_their_argument_alone_qualify() {
        let text = "enum Side { Left, Right }\nvar zero: int = 0\n\
            game \"g\" { players: 2, rounds: 1, round: [p] }\n\
            fn other(s: Side) -> Side = if s == Left { Right } else { Left }\n\
            fn flag(b: bool) -> int { let n = if b { 1 } else { 2 }\n n * 3 }\n\
            fn reads(s: Side) -> int = zero\n\
            fn two(s: Side, t: Side) -> bool = s == t\n\
            fn number(n: int) -> int = n + 1\n\
            fn asks(s: Side) -> int = len(players)\n\
            phase p { let a = other(Left)\n let b = flag(true)\n let c = reads(a)\n \
            let d = two(a, a)\n let e = number(1)\n let f = asks(a) }\n";
        let c = crate::check_text("finite.rules", text, &Limits::default());
        assert_eq!(c.errors(), 0, "{}", c.render());
        let prog = c.program.expect("program");
        let qualifies: Vec<(&str, bool)> = prog
            .fns
            .iter()
            .map(|fd| (fd.name.as_str(), domain_of(&prog, fd).is_some()))
            .collect();
        assert_eq!(
            qualifies,
            [
                ("other", true),
                ("flag", true),
                ("reads", false),
                ("two", false),
                ("number", false),
                ("asks", false)
            ]
        );
    }

    /// A kept call runs its body once per value of its argument, then gives the value kept,
    /// charging the steps the body took.
    #[test]
    fn a_call_runs_the_body_once_per_value() {
        use std::cell::Cell;
        let text = "enum Side { Left, Right }\n\
            game \"g\" { players: 2, rounds: 1, round: [p] }\n\
            fn other(s: Side) -> Side = if s == Left { Right } else { Left }\n\
            phase p { let a = other(Left) }\n";
        let c = crate::check_text("finite.rules", text, &Limits::default());
        assert_eq!(c.errors(), 0, "{}", c.render());
        let prog = c.program.expect("program");
        let side = prog
            .enums
            .iter()
            .position(|e| e.name == "Side")
            .expect("Side") as Id;
        let f = prog
            .fns
            .iter()
            .position(|fd| fd.name == "other")
            .expect("other") as Id;
        let span = Span::default();
        // The body stands in for the inlined call: three steps, the other side, and a count.
        let runs = Rc::new(Cell::new(0u32));
        let counted = runs.clone();
        let body: Code = code(move |me: &mut Interp<'_>| {
            counted.set(counted.get() + 1);
            me.charge(3, span)?;
            match me.local_ref(0) {
                Some(Value::Enum(_, 0)) => Ok(Value::Enum(side, 1)),
                _ => Ok(Value::Enum(side, 0)),
            }
        });
        let site = [Expr::new(ExprKind::Local(0), span)];
        let kept = with_program(&prog, || call(f, &site, body, span))
            .ok()
            .expect("the call is kept");
        let agents = crate::agent::make_agents("first", 2, 1).expect("agents");
        let mut me = Interp::new(&prog, 2, 1, agents, Limits::default()).expect("interp");
        let before = me.state.steps();
        for x in [0, 1, 0, 0, 1, 1] {
            me.set_local(0, Value::Enum(side, x));
            let v = kept(&mut me).expect("a value");
            assert_eq!(v, Value::Enum(side, 1 - x));
        }
        assert_eq!(runs.get(), 2, "the body ran once per value");
        // Six calls of three steps each, kept or not.
        assert_eq!(me.state.steps() - before, 18);
        // A call whose argument is neither a local nor a value written out is not kept.
        let other_site = [Expr::new(ExprKind::Special(Special::Round), span)];
        let plain: Code = code(|_: &mut Interp<'_>| Ok(Value::None));
        assert!(with_program(&prog, || call(f, &other_site, plain, span)).is_err());
    }
}
