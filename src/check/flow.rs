//! Game flow: options, a phase's body (and its items, `phase turns for p in ...`), custom events
//! (declarations, `emit`, their triggers and the keys an `enter` trigger binds), `end game`,
//! `eliminate` and `repeat up to ... until ...`.

use super::*;
use crate::ast;
use crate::diag::{did_you_mean, Diag};
use crate::program::*;
use crate::value::Value;

impl Checker {
    /// A phase's body, and with `for x in list` the local `x` (each item of the list, which
    /// is worked out as the phase begins) and the list. The body is not a loop's: `break` and
    /// `continue` stay errors there.
    pub(super) fn phase_body(&mut self, p: &ast::PhaseDecl) -> (Option<(u32, Expr)>, Block) {
        let Some((var, list)) = &p.each else {
            return (None, self.block(&p.body));
        };
        let (x, t) = self.loop_source(
            list,
            "a phase runs `for` each item of",
            Some("like `phase turns for p in rotate(players, first) { ... }`"),
        );
        self.statement_word(var, "a phase's variable");
        self.push_scope();
        let slot = self.bind(&var.node, t.elem());
        let body = self.block(&p.body);
        self.pop_scope();
        (Some((slot, x)), body)
    }

    /// What a `for` (or a phase's `for`) walks: a list, a zone or a range, else an error that
    /// begins with `what` ("`for` needs").
    pub(super) fn loop_source(
        &mut self,
        src: &ast::Expr,
        what: &str,
        help: Option<&str>,
    ) -> (Expr, Ty) {
        let (x, t) = self.expr(src);
        if !matches!(t, Ty::Any | Ty::List(_) | Ty::Zone(_)) {
            let g = self.ty_name(&t);
            let mut d = Diag::error(
                "check::type",
                format!("{what} a list, a zone or a range, found {g}"),
            )
            .label(src.span, format!("this is {g}"));
            if let Some(h) = help {
                d = d.help(h);
            }
            self.err(d);
        }
        (x, t)
    }

    /// `option name: type in lo..hi = default`: a bool, a bounded or unbounded int, or an enum.
    pub(super) fn option_decl(&mut self, id: usize, o: &ast::OptionDecl) {
        let mut ty = self.resolve_type(&o.ty);
        if !matches!(ty, Ty::Bool | Ty::Int | Ty::Enum(_) | Ty::Any) {
            let g = self.ty_name(&ty);
            self.err(
                Diag::error(
                    "check::option",
                    format!("an option is a bool, an int or an enum, not {g}"),
                )
                .label(o.ty.span, "not an option type")
                .help("write `option solo: bool = false`, `option hand: int in 3..6 = 4` or `option mode: SomeEnum = First`"),
            );
            ty = Ty::Any; // reported once: the default is not checked against it
        }
        let bounds = o.bounds.map(|ast::Bounds { lo, hi, span, .. }| {
            let hi = hi.unwrap_or(i64::MAX);
            if lo > hi {
                self.err(
                    Diag::error("check::bounds", "the lower bound is above the upper")
                        .label(span, format!("{lo} > {hi}")),
                );
            }
            if ty != Ty::Int {
                self.err(
                    Diag::error("check::bounds", "only `int` options can have bounds")
                        .label(span, "bounds on an option that is not an int"),
                );
            }
            (lo, hi)
        });
        let default = self.const_value(&o.default).unwrap_or(Value::None);
        let fits = match (&ty, &default) {
            (Ty::Bool, Value::Bool(_)) | (Ty::Any, _) => true,
            (Ty::Int, Value::Int(n)) => bounds.is_none_or(|(lo, hi)| (lo..=hi).contains(n)),
            (Ty::Enum(e), Value::Enum(e2, _)) => e == e2,
            _ => false,
        };
        if !fits {
            let want = self.ty_name(&ty);
            let extra = match bounds {
                Some((lo, hi)) if ty == Ty::Int => format!(" in {lo}..{hi}"),
                _ => String::new(),
            };
            self.err(
                Diag::error(
                    "check::option",
                    format!(
                        "the default of option `{}` must be {want}{extra}",
                        o.name.node
                    ),
                )
                .label(o.default.span, "not a possible value"),
            );
        }
        let od = &mut self.prog.options[id];
        od.ty = ty;
        od.bounds = bounds;
        od.default = default;
    }

    /// `event name(p: player, amount: int)`
    pub(super) fn event_decl(&mut self, id: usize, e: &ast::EventDecl) {
        let mut params: Vec<(String, Ty)> = Vec::new();
        for p in &e.params {
            let ty =
                p.ty.as_ref()
                    .map(|t| self.resolve_type(t))
                    .unwrap_or(Ty::Any);
            if params.iter().any(|(n, _)| *n == p.name.node) {
                self.err(
                    Diag::error(
                        "check::duplicate_param",
                        format!("parameter `{}` is listed twice", p.name.node),
                    )
                    .label(p.name.span, "again here"),
                );
            }
            params.push((p.name.node.clone(), ty));
        }
        self.prog.events[id].params = params;
    }

    /// The event a trigger or an `emit` names.
    fn event_named(&mut self, name: &ast::Ident) -> Option<Id> {
        match self.globals.get(&name.node).copied() {
            Some((Global::Event(e), _)) => Some(e),
            other => {
                let help = did_you_mean(&name.node, self.prog.events.iter().map(|e| e.name.as_str()))
                    .unwrap_or_else(|| {
                        format!(
                            "declare it first: `event {}(p: player)`; the built-in events are enter, flip, round_start, round_end, phase_start and phase_end",
                            name.node
                        )
                    });
                let msg = match other {
                    Some((g, _)) => format!("`{}` is {}, not an event", name.node, g.what()),
                    None => format!("unknown event `{}`", name.node),
                };
                self.err(
                    Diag::error("check::unknown_event", msg)
                        .label(name.span, "no `event` has this name")
                        .help(help),
                );
                None
            }
        }
    }

    /// `on name(a, b)`: binds the event's arguments, in order, to the names given.
    pub(super) fn custom_trigger(
        &mut self,
        t: &ast::TriggerDecl,
    ) -> (Option<Id>, Vec<Option<u32>>) {
        let Some(name) = &t.target else {
            return (None, vec![]);
        };
        let Some(e) = self.event_named(name) else {
            // Bind the names anyway, so the body reports its own mistakes only.
            let binds = t
                .params
                .iter()
                .map(|p| Some(self.bind(&p.node, Ty::Any)))
                .collect();
            return (None, binds);
        };
        let params = self.prog.events[e as usize].params.clone();
        if params.len() != t.params.len() {
            let sig = params
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            self.err(
                Diag::error(
                    "check::arity",
                    format!(
                        "event `{}` has {} parameter{}, the trigger names {}",
                        name.node,
                        params.len(),
                        if params.len() == 1 { "" } else { "s" },
                        t.params.len()
                    ),
                )
                .label(t.event.span, "here")
                .label(self.prog.events[e as usize].span, "declared here")
                .help(format!("write `on {}({sig})`", name.node)),
            );
        }
        let binds = t
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let ty = params.get(i).map(|x| x.1.clone()).unwrap_or(Ty::Any);
                Some(self.bind(&p.node, ty))
            })
            .collect();
        (Some(e), binds)
    }

    /// `enter hand[p] as c`: names for the keys of the zone a card entered (`_` skips one).
    pub(super) fn enter_keys(
        &mut self,
        zone: Option<Id>,
        t: &ast::TriggerDecl,
    ) -> Vec<Option<u32>> {
        if t.params.is_empty() {
            return vec![];
        }
        let domains = zone
            .map(|z| self.prog.zones[z as usize].keys.clone())
            .unwrap_or_default();
        if zone.is_some() && domains.len() != t.params.len() {
            let name = t
                .target
                .as_ref()
                .map(|z| z.node.clone())
                .unwrap_or_default();
            let span = t.params.first().map(|p| p.span).unwrap_or(t.event.span);
            self.err(
                Diag::error(
                    "check::keys",
                    format!(
                        "`{name}` takes {} key{}, the trigger names {}",
                        domains.len(),
                        if domains.len() == 1 { "" } else { "s" },
                        t.params.len()
                    ),
                )
                .label(span, "wrong number of keys")
                .help("name one local per key, `_` for a key you do not need"),
            );
        }
        t.params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                if p.node == "_" {
                    return None;
                }
                let ty = match domains.get(i) {
                    Some(KeyDomain::Player) => Ty::Player,
                    Some(KeyDomain::Enum(e)) => Ty::Enum(*e),
                    Some(KeyDomain::Range(..)) => Ty::Int,
                    None => Ty::Any,
                };
                Some(self.bind(&p.node, ty))
            })
            .collect()
    }

    /// The statements of game flow; `None` for the others.
    pub(super) fn flow_stmt(&mut self, s: &ast::Stmt) -> Option<Option<StmtKind>> {
        use ast::StmtKind as S;
        Some(Some(match &s.kind {
            S::EndGame => {
                self.calls_finish = true;
                StmtKind::EndGame
            }
            S::Eliminate(e) => {
                let (x, t) = self.expr(e);
                // A game that named something `eliminate` has been told so at the declaration;
                // the statement's argument would only repeat that mistake.
                if !self.shadowed_words.iter().any(|w| w == "eliminate") {
                    self.expect_ty(&Ty::Player, &t, e.span, "`eliminate`'s player");
                }
                StmtKind::Eliminate(x)
            }
            S::RepeatUntil(n, cond, body) => {
                let (nx, nt) = self.expr(n);
                self.expect_ty(&Ty::Int, &nt, n.span, "`repeat up to`'s bound");
                let cx = match cond {
                    Some(c) => {
                        let (cx, ct) = self.expr(c);
                        self.expect_ty(&Ty::Bool, &ct, c.span, "an `until` condition");
                        cx
                    }
                    None => const_expr(Value::Bool(false), n.span),
                };
                StmtKind::RepeatUntil(nx, cx, self.loop_body(body))
            }
            S::Emit(name, args) => {
                let lowered: Vec<(Expr, Ty, Span)> = args
                    .iter()
                    .map(|a| {
                        let (x, t) = self.expr(a);
                        (x, t, a.span)
                    })
                    .collect();
                let Some(e) = self.event_named(name) else {
                    return Some(None);
                };
                let ed = self.prog.events[e as usize].clone();
                if ed.params.len() != lowered.len() {
                    let sig = ed
                        .params
                        .iter()
                        .map(|(p, t)| format!("{p}: {}", self.ty_name(t)))
                        .collect::<Vec<_>>()
                        .join(", ");
                    self.err(
                        Diag::error(
                            "check::arity",
                            format!(
                                "event `{}` takes {} argument{}, found {}",
                                ed.name,
                                ed.params.len(),
                                if ed.params.len() == 1 { "" } else { "s" },
                                lowered.len()
                            ),
                        )
                        .label(s.span, "wrong number of arguments")
                        .label(ed.span, "declared here")
                        .help(format!("`emit {}({sig})`", ed.name)),
                    );
                }
                for ((pname, pty), (_, aty, aspan)) in ed.params.iter().zip(lowered.iter()) {
                    if !compatible(pty, aty) {
                        let (w, g) = (self.ty_name(pty), self.ty_name(aty));
                        self.err(
                            Diag::error(
                                "check::arg_type",
                                format!(
                                    "argument `{pname}` of event `{}` must be {w}, found {g}",
                                    ed.name
                                ),
                            )
                            .label(*aspan, format!("this is {g}"))
                            .label(ed.span, "declared here"),
                        );
                    }
                }
                StmtKind::Emit(e, lowered.into_iter().map(|l| l.0).collect())
            }
            _ => return None,
        }))
    }
}
