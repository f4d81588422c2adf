//! Small user functions inlined where they are called. A call to a function whose body is small
//! compiles to its body, with the callee's locals moved to fresh slots of the caller's frame
//! (the body is copied with every slot shifted, then compiled as usual, so every check, error
//! and span is the body's own), and its arguments evaluated straight into those slots. What a
//! call does besides is kept: it ticks once, counts towards the call-depth limit, and catches a
//! `return` of the inlined body (`InlineCall`).
//!
//! The slots of an inlined call are used like a frame: they are taken when its body is compiled
//! and given back after, so calls one after the other share them, while a call nested in
//! another's arguments or body gets slots above. Each compiled root (a function, a card's code,
//! a phase, a trigger, a setup block) records the highest slot it reached (`root`), and its
//! frame is that large.
//!
//! The checker refuses recursion; the inliner keeps its own guard (a function being inlined is
//! not inlined again inside itself) and bounds nesting and the code copied, per root and per
//! program.

use super::calls::CArg;
use super::{code, exprs, Code, Ev, Origin};
use crate::diag::Span;
use crate::interp::{Interp, R, RETURN_CODE};
use crate::program::walk::{children_mut, walk, Node, NodeMut};
use crate::program::*;
use crate::value::Value;
use std::cell::RefCell;
use std::rc::Rc;

/// The largest body (in tree nodes) that is inlined.
const MAX_BODY: usize = 80;
/// How deep inlined calls nest inside one another.
const MAX_NESTING: usize = 4;
/// The most code (in tree nodes) inlined into one root.
const MAX_PER_ROOT: usize = 2_000;
/// The most code (in tree nodes) inlined into a whole program: many small roots each calling
/// many small functions must not make a program's compiled code much larger than its text.
const MAX_PER_PROGRAM: usize = 200_000;

/// A function that may be inlined.
struct Callee {
    body: Expr,
    params: u32,
    /// The callee's frame size.
    locals: u32,
    size: usize,
    /// Whether its body contains a `return`, which the inlined call must catch.
    returns: bool,
    /// For each parameter, whether the body never changes it (nor binds its slot).
    fixed: Vec<bool>,
    /// Whether the body runs nothing that counts call depth (`leaf`).
    leaf: bool,
}

/// The frame of the root being compiled.
struct Frame {
    /// The first free slot.
    top: u32,
    /// The highest slot taken so far, plus one.
    high: u32,
    /// Tree nodes inlined so far.
    copied: usize,
}

/// What the inliner knows during one compilation.
struct Ctx {
    callees: Vec<Option<Rc<Callee>>>,
    frame: Option<Frame>,
    /// The functions being inlined, innermost last.
    nesting: Vec<Id>,
    /// Tree nodes that may still be inlined in this program.
    left: usize,
    /// Per function, whether it changes nothing but its own locals (`invariant::pure_fns`).
    pure: Vec<bool>,
    /// The names of the fields that are vars of some kind (a card's other fields never change).
    var_fields: Vec<Id>,
}

thread_local! {
    static CTX: RefCell<Option<Ctx>> = const { RefCell::new(None) };
}

/// Run `f` (a compilation of `prog`) with its small functions at hand for inlining (none without
/// `inline`: a profile sees every call).
pub(super) fn with_program<T>(prog: &Program, inline: bool, f: impl FnOnce() -> T) -> T {
    let callees = prog
        .fns
        .iter()
        .map(|fd| {
            let size = size(&fd.body);
            (inline && size <= MAX_BODY).then(|| {
                let body = lift_returns(&fd.body);
                let params = fd.params.len() as u32;
                Rc::new(Callee {
                    returns: returns(&body),
                    fixed: (0..params).map(|p| !binds(&body, p)).collect(),
                    leaf: leaf(&body),
                    body,
                    params,
                    locals: fd.locals.max(fd.params.len() as u32),
                    size,
                })
            })
        })
        .collect();
    let ctx = Ctx {
        callees,
        frame: None,
        nesting: Vec::new(),
        left: MAX_PER_PROGRAM,
        pure: super::invariant::pure_fns(prog),
        var_fields: prog
            .kinds
            .iter()
            .flat_map(|k| &k.fields)
            .filter(|fd| fd.mutable)
            .map(|fd| fd.sym)
            .collect(),
    };
    let old = CTX.with(|c| c.replace(Some(ctx)));
    let r = f();
    CTX.with(|c| *c.borrow_mut() = old);
    r
}

/// Compile a root whose frame has `base` slots (`f`); also returns the frame size it needs,
/// inlined calls included.
pub(super) fn root<T>(base: u32, f: impl FnOnce() -> T) -> (T, u32) {
    let fresh = Frame {
        top: base,
        high: base,
        copied: 0,
    };
    let old = CTX.with(|c| c.borrow_mut().as_mut().and_then(|c| c.frame.replace(fresh)));
    let r = f();
    let done = CTX.with(|c| {
        c.borrow_mut()
            .as_mut()
            .and_then(|c| std::mem::replace(&mut c.frame, old))
    });
    (r, done.map_or(base, |fr| fr.high.max(base)))
}

/// A root's code run in a frame of `base` slots (as the program declares it) that needs
/// `needed`: it first grows the frame.
pub(super) fn grown(body: Code, base: u32, needed: u32) -> Code {
    if needed <= base {
        return body;
    }
    code(move |me| {
        me.grow_frame(needed);
        body(me)
    })
}

impl Interp<'_> {
    /// Make the current frame at least `locals` slots large (it is the innermost one).
    pub(super) fn grow_frame(&mut self, locals: u32) {
        let top = self.bp.saturating_add(locals as usize);
        if self.sp < top {
            self.push_frame(top - self.sp);
        }
    }
}

/// `f(es)` inlined, if `f` is small and the budgets allow.
pub(super) fn call(f: Id, es: &[Expr], span: Span) -> Option<Code> {
    call_parts(f, es, span, None).map(Inlined::code)
}

/// A call inlined, before it is made a closure: its caller may fold its own step into it
/// (`ticked`, `let_local`).
pub(super) struct Inlined {
    call: InlineCall,
    /// The body may `return`.
    catch: bool,
    /// The body may run code that checks the call depth.
    nests: bool,
    /// The first slot of the caller's frame the callee's locals were moved to.
    base: u32,
}

impl Inlined {
    /// The call as an expression.
    fn code(self) -> Code {
        let call = self.call;
        match (self.catch, self.nests) {
            (true, _) => code(move |me| call.run(me, true, true)),
            (false, false) => code(move |me| call.run(me, false, false)),
            (false, true) => code(move |me| call.run(me, false, true)),
        }
    }

    /// `not f(...)`: the call's answer turned over, without a closure of its own for the `not`
    /// (an answer that is not true or false is the error `not` gives).
    pub(super) fn negated(self) -> Code {
        let call = self.call;
        macro_rules! not_with {
            ($catch:expr, $nests:expr) => {
                code(move |me| match call.run(me, $catch, $nests)? {
                    Value::Bool(b) => Ok(Value::Bool(!b)),
                    other => {
                        Err(me.not_a_at(call.span, Origin::Call(call.f), &other, "true or false"))
                    }
                })
            };
        }
        match (self.catch, self.nests) {
            (true, _) => not_with!(true, true),
            (false, false) => not_with!(false, false),
            (false, true) => not_with!(false, true),
        }
    }

    /// `not f(...)` as a condition (`conds`): the answer turned over, as a word.
    pub(super) fn negated_word(self) -> super::conds::WCode {
        let call = self.call;
        macro_rules! not_with {
            ($catch:expr, $nests:expr) => {
                Box::new(move |me: &mut Interp<'_>| Ok(call.run_word(me, $catch, $nests)? ^ 1))
            };
        }
        match (self.catch, self.nests) {
            (true, _) => not_with!(true, true),
            (false, false) => not_with!(false, false),
            (false, true) => not_with!(false, true),
        }
    }

    /// The call as a condition (`conds`): its truth as a word.
    pub(super) fn word(self) -> super::conds::WCode {
        let call = self.call;
        match (self.catch, self.nests) {
            (true, _) => Box::new(move |me| call.run_word(me, true, true)),
            (false, false) => Box::new(move |me| call.run_word(me, false, false)),
            (false, true) => Box::new(move |me| call.run_word(me, false, true)),
        }
    }

    /// The call as the value of a statement: the statement's step, then the call.
    pub(super) fn ticked(self, tick: Span) -> Code {
        let call = self.call;
        match (self.catch, self.nests) {
            (true, _) => code(move |me| {
                me.tick(tick)?;
                call.run(me, true, true)
            }),
            (false, false) => code(move |me| {
                me.tick(tick)?;
                call.run(me, false, false)
            }),
            (false, true) => code(move |me| {
                me.tick(tick)?;
                call.run(me, false, true)
            }),
        }
    }

    /// `let x = f(...)` (statement `span`, value at `at`): its step, the call, the local set.
    pub(super) fn let_local(self, slot: u32, at: Span, span: Span) -> super::stmts::SCode {
        let call = self.call;
        let (catch, nests) = (self.catch, self.nests);
        macro_rules! let_with {
            ($catch:expr, $nests:expr) => {
                Box::new(move |me: &mut Interp<'_>| {
                    me.tick(span)?;
                    let v = call.run(me, $catch, $nests)?;
                    me.set_local(slot, v);
                    me.set_origin(slot, at);
                    Ok(())
                })
            };
        }
        match (catch, nests) {
            (true, _) => let_with!(true, true),
            (false, false) => let_with!(false, false),
            (false, true) => let_with!(false, true),
        }
    }
}

/// `f(es)` inlined, as parts (see `call`).
///
/// `word`: the call is a condition; a body without a `return` is compiled for its truth
/// (`truth`), and a value that is not true or false is reported at `word`'s call.
pub(super) fn call_parts(
    f: Id,
    es: &[Expr],
    span: Span,
    word: Option<super::truth::Leaf>,
) -> Option<Inlined> {
    let (callee, base) = CTX.with(|c| {
        let mut c = c.borrow_mut();
        let c = c.as_mut()?;
        let callee = c.callees.get(f as usize)?.clone()?;
        if callee.params as usize != es.len()
            || c.nesting.len() >= MAX_NESTING
            || c.nesting.contains(&f)
        {
            return None;
        }
        let left = c.left.checked_sub(callee.size)?;
        let fr = c.frame.as_mut()?;
        let copied = fr.copied.checked_add(callee.size)?;
        let top = fr.top.checked_add(callee.locals)?;
        if copied > MAX_PER_ROOT {
            return None;
        }
        c.left = left;
        let base = fr.top;
        fr.copied = copied;
        fr.top = top;
        fr.high = fr.high.max(top);
        c.nesting.push(f);
        Some((callee, base))
    })?;
    // A parameter the callee never changes, given a constant or a local of the caller (which
    // nothing can change while the callee runs), is read from there: the body is written with
    // it, and nothing is copied. Reading a constant or a local does nothing else (no step, no
    // error), and the parameter's origin is the local's, as a call gives it (`param_origin`).
    // For a callee that changes nothing but its own locals, so does a field that is not a var
    // of a local (`c.realm`), or a zone slot whose keys are locals or constants
    // (`supporters[row, side]`): it is read again where the body uses it, and its reading is
    // checked where the argument would have been worked out (`Arg::Check`), with the same
    // errors in the same order.
    let (pure, var_fields) = CTX.with(|c| {
        c.borrow().as_ref().map_or((false, Vec::new()), |c| {
            (
                c.pure.get(f as usize).copied().unwrap_or(false),
                c.var_fields.clone(),
            )
        })
    });
    let put: Vec<Option<ExprKind>> = es
        .iter()
        .zip(&callee.fixed)
        .map(|(e, fixed)| match &e.kind {
            ExprKind::Local(_) | ExprKind::Const(_) if *fixed => Some(e.kind.clone()),
            _ if *fixed && pure && Check::of(e, &var_fields).is_some() => Some(e.kind.clone()),
            _ => None,
        })
        .collect();
    // Arguments are compiled as the caller's code: a call among them takes slots above ours.
    let args: Vec<Arg> = (base..)
        .zip(es.iter().zip(&put))
        .filter_map(|(slot, (e, put))| match put {
            None => Some(Arg::Copy(slot, CArg::new(e))),
            Some(ExprKind::Local(_) | ExprKind::Const(_)) => None,
            Some(_) => Check::of(e, &var_fields).map(Arg::Check),
        })
        .collect();
    let body = shifted(&callee.body, base, &put);
    let leaf = word.unwrap_or(super::truth::Leaf { span, f });
    let body = match word {
        Some(leaf) if !callee.returns => Body::Word(super::truth::WBody::new(&body, leaf)),
        _ => Body::new(&body),
    };
    CTX.with(|c| {
        if let Some(c) = c.borrow_mut().as_mut() {
            c.nesting.pop();
            if let Some(fr) = c.frame.as_mut() {
                fr.top = base;
            }
        }
    });
    Some(Inlined {
        call: InlineCall {
            args,
            body,
            span,
            f,
            leaf,
        },
        catch: callee.returns,
        nests: callee.returns || !callee.leaf,
        base,
    })
}

/// What `invariant` looks at in a function that may be inlined, before any budget is taken.
pub(super) struct Shape<'a> {
    /// Its body, with early returns lifted (`lift_returns`).
    pub body: &'a Expr,
    pub params: u32,
    /// Whether the body still has a `return`.
    pub returns: bool,
    /// Per parameter, whether the body never changes it.
    pub fixed: &'a [bool],
}

/// `k` of the shape of `f`, if `f` may be inlined (small, not remembered).
pub(super) fn with_callee<T>(f: Id, k: impl FnOnce(Shape<'_>) -> T) -> Option<T> {
    let callee = CTX.with(|c| c.borrow().as_ref()?.callees.get(f as usize)?.clone())?;
    Some(k(Shape {
        body: &callee.body,
        params: callee.params,
        returns: callee.returns,
        fixed: &callee.fixed,
    }))
}

/// Whether function `f` changes nothing but its own locals (`invariant::pure_fns`).
pub(super) fn pure_fn(f: Id) -> bool {
    CTX.with(|c| {
        c.borrow()
            .as_ref()
            .and_then(|c| c.pure.get(f as usize).copied())
            .unwrap_or(false)
    })
}

impl Inlined {
    /// The call's parts, for `invariant`: the call, whether its body may run code that checks
    /// the call depth, where its locals start; `None` if the body may `return` or there are
    /// arguments to copy.
    pub(super) fn without_copies(self) -> Option<(InlineCall, bool, u32)> {
        (!self.catch && self.call.args.is_empty()).then_some((self.call, self.nests, self.base))
    }
}

impl InlineCall {
    pub(super) fn span(&self) -> Span {
        self.span
    }

    /// For a body compiled for its truth (`truth`): its statements before its value, and its
    /// value as a word.
    pub(super) fn word_block(&self) -> Option<(&[super::stmts::SCode], &super::conds::WCode)> {
        match &self.body {
            Body::Word(w) => Some((&w.rest, &w.last)),
            Body::Block(..) | Body::Expr(_) => None,
        }
    }
}

/// What a call inlined does with an argument, in order: copy it to its parameter's slot, or,
/// for one put in the body that could fail, check that it can be read.
enum Arg {
    Copy(u32, CArg),
    Check(Check),
}

/// An argument put in the body whose reading may fail, checked where it would have been
/// worked out: a field of a local (it must be a card with that field), or a zone slot (its
/// keys must be in their domains). With `true`, a check that cannot fail where nothing
/// observes (`facts`): run only under an observer.
enum Check {
    Field(exprs::Opnd, bool),
    Zone(super::keys::ZonePlace, bool),
}

impl Check {
    /// `e` as a check, if it is a field that is not a var (`var_fields`) of a local, or a zone
    /// slot whose keys are locals or constants.
    fn of(e: &Expr, var_fields: &[Id]) -> Option<Check> {
        match &e.kind {
            ExprKind::Field(base, sym)
                if matches!(base.kind, ExprKind::Local(_)) && !var_fields.contains(sym) =>
            {
                let sure = super::facts::sure_field(base, *sym);
                Some(Check::Field(exprs::Opnd::new(e), sure))
            }
            ExprKind::Zone(id, keys)
                if keys
                    .iter()
                    .all(|k| matches!(k.kind, ExprKind::Local(_) | ExprKind::Const(_))) =>
            {
                let sure = super::facts::sure_keys(*id, keys);
                super::keys::ZonePlace::new(*id, keys).map(|z| Check::Zone(z, sure))
            }
            _ => None,
        }
    }

    /// What working the argument out would do, but for the value: its errors.
    #[inline(always)]
    fn run(&self, me: &mut Interp<'_>) -> R<()> {
        match self {
            Check::Field(f, sure) => {
                if !(*sure && me.observer.is_none()) && f.peek(me).is_none() {
                    f.ev(me)?;
                }
            }
            Check::Zone(z, sure) => {
                if !(*sure && me.observer.is_none()) {
                    z.slot(me)?;
                }
            }
        }
        Ok(())
    }
}

/// A call inlined: what it does with its arguments (those put in the body and certain to be
/// read need nothing), its body.
pub(super) struct InlineCall {
    args: Vec<Arg>,
    body: Body,
    span: Span,
    /// The function called (where its value was made, for errors about it).
    f: Id,
    /// For a call that is a condition: where a value of its that is not true or false is
    /// reported (the call itself, or the call whose value it is: `truth`).
    leaf: super::truth::Leaf,
}

/// An inlined body. A block's statements are run by the call itself, not by a closure of the
/// block's.
enum Body {
    Block(Vec<super::stmts::SCode>, Code),
    Expr(Code),
    /// For its truth, where the call is a condition (`truth`).
    Word(super::truth::WBody),
}

impl Body {
    fn new(e: &Expr) -> Body {
        match &e.kind {
            ExprKind::Block(b) if !b.stmts.is_empty() => {
                let (rest, last) = super::stmts::block_parts(b);
                Body::Block(rest, last)
            }
            _ => Body::Expr(exprs::expr(e)),
        }
    }

    #[inline(always)]
    fn run(&self, me: &mut Interp<'_>) -> R<Value> {
        match self {
            Body::Block(rest, last) => {
                for s in rest {
                    s(me)?;
                }
                last(me)
            }
            Body::Expr(e) => e(me),
            Body::Word(w) => Ok(Value::Bool(w.run(me)? != 0)),
        }
    }

    /// The body's truth; a value other than true or false is `leaf`'s error.
    #[inline(always)]
    fn word(&self, me: &mut Interp<'_>, leaf: super::truth::Leaf) -> R<u64> {
        match self {
            Body::Word(w) => w.run(me),
            other => {
                let v = other.run(me)?;
                leaf.word(me, v)
            }
        }
    }
}

/// What a call inlined does before its body: its step, the depth check, its arguments worked
/// out into their slots (or checked), in order. (A macro, not a function: written in each of
/// `run` and `run_word` as before, so their code is what it was; a function, even inlined,
/// moved The Establishment by +0.66%, measured 2026-12-07.)
macro_rules! enter {
    ($call:expr, $me:expr) => {
        $me.tick($call.span)?;
        $me.check_call_depth($call.span)?;
        for a in &$call.args {
            match a {
                Arg::Copy(slot, a) => {
                    let v = a.ev($me)?;
                    let origin = $me.param_origin(a);
                    $me.store_param($me.slot_at(*slot), v, origin);
                }
                Arg::Check(c) => c.run($me)?,
            }
        }
    };
}

impl InlineCall {
    /// What `Interp::call_compiled` does, in the caller's frame.
    #[inline(always)]
    /// `catch`: the body may `return`. `nests`: the body may run code that checks the call
    /// depth (otherwise the depth it would see is never looked at, and is not counted).
    fn run(&self, me: &mut Interp<'_>, catch: bool, nests: bool) -> R<Value> {
        enter!(self, me);
        if !nests {
            return self.body.run(me);
        }
        // Below the depth limit here (`check_call_depth`), so neither step wraps.
        me.call_depth = me.call_depth.wrapping_add(1);
        let r = self.body.run(me);
        me.call_depth = me.call_depth.wrapping_sub(1);
        if catch {
            me.caught_return(r)
        } else {
            r
        }
    }

    /// `run` for the call's truth (a condition): the value that is not true or false is the
    /// error the condition gives on receiving it.
    #[inline(always)]
    fn run_word(&self, me: &mut Interp<'_>, catch: bool, nests: bool) -> R<u64> {
        let leaf = self.leaf();
        if catch {
            let v = self.run(me, true, true)?;
            return leaf.word(me, v);
        }
        enter!(self, me);
        if !nests {
            return self.body.word(me, leaf);
        }
        // Below the depth limit here (`check_call_depth`), so neither step wraps.
        me.call_depth = me.call_depth.wrapping_add(1);
        let r = self.body.word(me, leaf);
        me.call_depth = me.call_depth.wrapping_sub(1);
        r
    }

    fn leaf(&self) -> super::truth::Leaf {
        self.leaf
    }
}

impl Interp<'_> {
    /// Where the value of an argument was made, for its parameter: the origin of the local
    /// passed, or nowhere (errors about a parameter's value point where it was made).
    #[inline(always)]
    pub(in crate::interp) fn param_origin<E: Ev + ?Sized>(&self, a: &E) -> Span {
        match a.local_slot() {
            Some(slot) => self
                .origins
                .get(self.slot_at(slot))
                .copied()
                .unwrap_or_default(),
            None => Span::default(),
        }
    }

    /// A parameter's value and origin, stored at stack index `at`.
    #[inline(always)]
    pub(in crate::interp) fn store_param(&mut self, at: usize, v: Value, origin: Span) {
        if let Some(cell) = self.stack.get_mut(at) {
            // Stored before the old value is dropped (see `set_local`).
            let old = std::mem::replace(cell, v);
            drop(old);
        }
        if let Some(o) = self.origins.get_mut(at) {
            *o = origin;
        }
    }

    /// A function body's result, with its `return` caught.
    #[inline(always)]
    pub(in crate::interp) fn caught_return(&mut self, r: R<Value>) -> R<Value> {
        match r {
            Err(d) if d.code == RETURN_CODE => {
                self.spare_return = Some(d);
                Ok(self.returning.take().unwrap_or(Value::None))
            }
            other => other,
        }
    }
}

/// A function's body with its early returns made branches: `{ a; if c { b; return x }; rest }`
/// becomes `{ a; if c { b; x } else { rest } }`, which does exactly the same (the same
/// statements tick, the same values are made) without unwinding. Only `if`s at the top level of
/// the body (and then of each `else` made) are changed; other `return`s stay.
pub(super) fn lift_returns(body: &Expr) -> Expr {
    let mut body = body.clone();
    if let ExprKind::Block(b) = &mut body.kind {
        lift_block(b);
    }
    body
}

fn lift_block(b: &mut Block) {
    let at = b.stmts.iter().position(|s| match &s.kind {
        StmtKind::Expr(Expr {
            kind: ExprKind::If(_, then, None),
            ..
        }) => matches!(
            then.stmts.last(),
            Some(Stmt {
                kind: StmtKind::Return(_),
                ..
            })
        ),
        _ => false,
    });
    let Some(at) = at else { return };
    let rest: Vec<Stmt> = b.stmts.split_off(at.saturating_add(1));
    let Some(Stmt {
        kind:
            StmtKind::Expr(Expr {
                kind: ExprKind::If(_, then, els),
                ..
            }),
        ..
    }) = b.stmts.last_mut()
    else {
        return;
    };
    if let Some(last) = then.stmts.last_mut() {
        if let StmtKind::Return(v) = &mut last.kind {
            // `return x` ticks and makes `x`, as the statement `x` does.
            let v = v.take().unwrap_or(Expr {
                kind: ExprKind::Const(Value::None),
                span: last.span,
                ty: Sort::Any,
            });
            last.kind = StmtKind::Expr(v);
        }
    }
    if let (Some(first), Some(end)) = (rest.first(), rest.last()) {
        let span = Span {
            start: first.span.start,
            ..end.span
        };
        let mut rest = Block { stmts: rest, span };
        lift_block(&mut rest);
        *els = Some(Box::new(Expr {
            kind: ExprKind::Block(rest),
            span,
            ty: Sort::Any,
        }));
    }
}

/// The number of nodes of a tree.
fn size(e: &Expr) -> usize {
    let mut n = 0usize;
    walk(Node::Expr(e), &mut |_| n = n.saturating_add(1));
    n
}

/// Whether a tree contains a `return`.
fn returns(e: &Expr) -> bool {
    let mut found = false;
    walk(Node::Expr(e), &mut |n| {
        found |= matches!(
            n,
            Node::Stmt(Stmt {
                kind: StmtKind::Return(_),
                ..
            })
        );
    });
    found
}

/// Whether a tree binds or changes local `slot` (`let`, `set`, `for`, an aggregate).
pub(super) fn binds(e: &Expr, slot: u32) -> bool {
    binds_in(Node::Expr(e), slot)
}

/// `binds` for any node (a statement).
pub(super) fn binds_in(n: Node<'_>, slot: u32) -> bool {
    let mut found = false;
    walk(n, &mut |n| {
        found |= match n {
            Node::Expr(Expr {
                kind: ExprKind::Agg { slot: s, .. },
                ..
            }) => *s == slot,
            Node::Stmt(s) => match &s.kind {
                StmtKind::Let(s, _)
                | StmtKind::For(s, _, _)
                | StmtKind::Assign(Place::Local(s), _, _) => *s == slot,
                _ => false,
            },
            Node::Expr(_) => false,
        };
    });
    found
}

/// Whether a body only computes: it calls no function, card's code or table, uses only pure
/// builtins, and has only statements that bind or change locals, loop or return (nothing that
/// fires a trigger, asks a player or shows anything). Nothing it runs looks at the call depth.
fn leaf(e: &Expr) -> bool {
    let mut ok = true;
    walk(Node::Expr(e), &mut |n| {
        ok &= match n {
            Node::Expr(e) => match &e.kind {
                // A table's entry is code of its own, which may call functions.
                ExprKind::Call(..) | ExprKind::CallField(..) | ExprKind::Table(..) => false,
                ExprKind::Builtin(b, _) => b.effect == crate::builtins::Effect::Pure,
                _ => true,
            },
            Node::Stmt(s) => matches!(
                s.kind,
                StmtKind::Let(..)
                    | StmtKind::Assign(Place::Local(_), _, _)
                    | StmtKind::For(..)
                    | StmtKind::Repeat(..)
                    | StmtKind::RepeatUntil(..)
                    | StmtKind::Return(_)
                    | StmtKind::Break
                    | StmtKind::Continue
                    | StmtKind::Expr(_)
            ),
        };
    });
    ok
}

/// A copy of a tree with every local slot moved up by `by`, and the parameters in `put` replaced
/// by what is given for them (each use keeps its span).
fn shifted(e: &Expr, by: u32, put: &[Option<ExprKind>]) -> Expr {
    let mut e = e.clone();
    shift(NodeMut::Expr(&mut e), &Shift { by, put });
    e
}

/// How `shift` rewrites slots.
struct Shift<'a> {
    by: u32,
    put: &'a [Option<ExprKind>],
}

/// Rewrite the slots a node uses or binds itself (a parameter put in the body is replaced
/// whole), then those of every node under it.
fn shift(mut n: NodeMut<'_>, by: &Shift<'_>) {
    let up = |slot: &mut u32| *slot = slot.saturating_add(by.by);
    match &mut n {
        NodeMut::Expr(e) => {
            if let ExprKind::Local(slot) = e.kind {
                if let Some(Some(kind)) = by.put.get(slot as usize) {
                    e.kind = kind.clone();
                    return;
                }
            }
            if let ExprKind::Local(slot) | ExprKind::Agg { slot, .. } = &mut e.kind {
                up(slot);
            }
        }
        NodeMut::Stmt(s) => {
            if let StmtKind::Let(slot, _)
            | StmtKind::For(slot, _, _)
            | StmtKind::Assign(Place::Local(slot), _, _) = &mut s.kind
            {
                up(slot);
            }
        }
    }
    children_mut(n, &mut |c| shift(c, by));
}
