//! `screen p { "Bank": bank[p], "Hand": hand[p] }`: the lines a seat reads before it is asked.
//! Each label and value is checked with `p` a player; the values must only read the game
//! (`purity.rs`), and the interpreter works them out as that seat may see them.

use super::*;
use crate::ast;
use crate::diag::Diag;
use crate::program::{ScreenDef, Ty};

impl Checker {
    pub(super) fn screen_item(&mut self, s: &ast::ScreenDecl) {
        if let Some(prev) = &self.prog.screen {
            let prev = prev.span;
            self.err(
                Diag::error("check::duplicate_screen", "the game has two `screen`s")
                    .label(s.seat.span, "a second screen")
                    .label(prev, "the first")
                    .help("a seat reads one screen: keep one `screen` and put every line in it"),
            );
            return;
        }
        self.begin(Ctx::Other);
        let slot = self.bind(&s.seat.node, Ty::Player);
        let mut lines = Vec::with_capacity(s.lines.len());
        for (label, value) in &s.lines {
            let (l, _) = self.expr(label);
            let (v, ty) = self.expr(value);
            if matches!(ty, Ty::Fn(_, _)) {
                self.err(
                    Diag::error("check::screen", "a screen line shows a value, not code")
                        .label(value.span, "this is code (a `fn` value)")
                        .help("call it, or show the card's text with its `describe` line"),
                );
                continue;
            }
            lines.push((l, v));
        }
        let locals = self.end();
        self.prog.screen = Some(ScreenDef {
            slot,
            locals,
            lines,
            span: s.span,
        });
    }
}
