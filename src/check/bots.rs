//! `bot Greedy(me) { prefer c in Card => c.value }`: a designer's own player. Each rule ranks
//! the options of one type: its `where` is a `bool`, its value an `int` (a score: the highest
//! wins) or a list of the option's type (a preference: the earliest wins). Both only read the
//! game (`purity.rs`); the interpreter works them out as the bot's seat may see them
//! (`interp/bots.rs`).

use super::types::none_help;
use super::*;
use crate::ast;
use crate::diag::Diag;
use crate::program::{BotDef, BotRule, BotScore, Ty};

impl Checker {
    pub(super) fn bot_item(&mut self, b: &ast::BotDecl) {
        if let Some(prev) = self.prog.bots.iter().find(|p| p.name == b.name.node) {
            let prev = prev.span;
            self.err(
                Diag::error(
                    "check::duplicate_bot",
                    format!("the game has two bots named `{}`", b.name.node),
                )
                .label(b.name.span, "a second bot of this name")
                .label(prev, "the first")
                .help("`--agent` names a bot: give each bot a name of its own"),
            );
            return;
        }
        self.begin(Ctx::Other);
        let seat = self.bind(&b.seat.node, Ty::Player);
        let mut rules = Vec::with_capacity(b.rules.len());
        for r in &b.rules {
            self.push_scope();
            let told = self.diags.len();
            let ty = self.resolve_type(&r.ty);
            // An unknown type has been reported: one mistake, one error.
            let rankable = self.diags.len() > told || self.rankable(&ty);
            if !rankable {
                let t = self.ty_name(&ty);
                self.err(
                    Diag::error(
                        "check::bot_type",
                        format!("a bot cannot rank options of type {t}"),
                    )
                    .label(r.ty.span, "no choice offers options of this type")
                    .help("a rule is for the options of one choice: a kind, an enum, int, bool, text, player, card, or a tuple of these (`any` inside a tuple matches anything)"),
                );
            }
            let slot = self.bind(&r.var.node, ty.clone());
            let cond = r.cond.as_ref().map(|c| {
                let (e, t) = self.expr(c);
                self.expect_ty(&Ty::Bool, &t, c.span, "a bot rule's `where`");
                e
            });
            let (value, vt) = self.expr(&r.value);
            let score = match &vt {
                Ty::Int | Ty::Any => Some(BotScore::Score),
                Ty::List(elem) if compatible(&ty, elem) => Some(BotScore::Preference),
                Ty::Zone(_) if compatible(&ty, &vt.elem()) => Some(BotScore::Preference),
                _ => None,
            };
            let score = match score {
                Some(s) => s,
                None => {
                    if rankable {
                        let (t, g) = (self.ty_name(&ty), self.ty_name(&vt));
                        let help = if maybe_none(&vt) {
                            none_help()
                        } else {
                            format!("give an int (the highest scores win) or a list of {t} (the options in order of preference)")
                        };
                        self.err(
                            Diag::error(
                                "check::bot_score",
                                format!("a bot's rule for {t} must give an int or a list of {t}, found {g}"),
                            )
                            .label(r.value.span, format!("this is {g}"))
                            .help(help),
                        );
                    }
                    BotScore::Score
                }
            };
            self.pop_scope();
            rules.push(BotRule {
                slot,
                ty,
                cond,
                value,
                score,
                span: r.span,
            });
        }
        let locals = self.end();
        self.prog.bots.push(BotDef {
            name: b.name.node.clone(),
            doc: b.doc.clone(),
            seat,
            locals,
            rules,
            span: b.name.span,
        });
    }

    /// Whether a choice can offer options of this type: plain values, cards, and tuples of
    /// them (`any` only as a tuple's part).
    fn rankable(&self, t: &Ty) -> bool {
        fn part(t: &Ty) -> bool {
            matches!(
                t,
                Ty::Int | Ty::Bool | Ty::Text | Ty::Player | Ty::Enum(_) | Ty::Card(_) | Ty::Any
            )
        }
        match t {
            Ty::Tuple(ts) => ts.iter().all(part),
            Ty::Any => false,
            t => part(t),
        }
    }
}
