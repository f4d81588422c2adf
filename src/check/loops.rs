//! `break` and `continue`: where they may stand. They leave (or go on with) the innermost `for`
//! or `repeat` of the same body, from its statements or the blocks of the `if`s, `match`es,
//! `secretly`s and `step`s among them; never from inside a value being worked out (an
//! aggregate's condition, an argument, a `let`'s value), which has no loop to leave.

use super::*;
use crate::ast;

/// Where the statement being lowered stands, for `break` and `continue`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum Jump {
    /// Not in a loop of this body (a function, a phase, a trigger...).
    #[default]
    Outside,
    /// In a loop's body, at the level of its statements.
    Loop,
    /// In a loop's body, inside a value being worked out.
    Value,
    /// In a loop's body, inside an aggregate (`count`, `filter`, `map`, ...).
    Aggregate,
}

impl Checker {
    /// A loop's body: `break` and `continue` in it are this loop's.
    pub(super) fn loop_body(&mut self, b: &ast::Block) -> Block {
        let outer = std::mem::replace(&mut self.jump, Jump::Loop);
        let b = self.block(b);
        self.jump = outer;
        b
    }

    /// Lower a statement that may hold a `break` only inside a value: the blocks inside it
    /// cannot leave the loop.
    pub(super) fn in_value<T>(&mut self, aggregate: bool, f: impl FnOnce(&mut Self) -> T) -> T {
        let outer = std::mem::replace(
            &mut self.jump,
            if aggregate {
                Jump::Aggregate
            } else {
                Jump::Value
            },
        );
        let r = f(self);
        self.jump = outer;
        r
    }

    /// `break` or `continue`: an error where there is no loop for it to leave.
    pub(super) fn loop_jump(&mut self, s: &ast::Stmt) -> StmtKind {
        let (word, kind) = match s.kind {
            ast::StmtKind::Continue => ("continue", StmtKind::Continue),
            _ => ("break", StmtKind::Break),
        };
        let (label, help) = match self.jump {
            Jump::Loop => return kind,
            Jump::Outside => (
                "not inside a `for` or `repeat` of this body".to_string(),
                format!(
                    "`{word}` belongs in the body of a `for` or a `repeat` loop; a function called from a loop cannot leave it: `return` a value and test it in the loop"
                ),
            ),
            Jump::Aggregate => (
                "inside an aggregate, which is not a loop it can leave".to_string(),
                "an aggregate walks its whole list: to stop at the first match use `first(x in l where ...)` or `any(...)`, to skip elements `filter(...)`".to_string(),
            ),
            Jump::Value => (
                "inside a value being worked out".to_string(),
                format!("`{word}` leaves a loop from its statements (or the blocks of an `if` or a `match` among them), not from inside a value: test the condition in an `if` around the statement"),
            ),
        };
        let message = match self.jump {
            Jump::Outside => format!("`{word}` outside a loop"),
            _ => format!("`{word}` cannot leave the loop from here"),
        };
        self.err(
            Diag::error("check::break", message)
                .label(s.span, label)
                .help(help),
        );
        kind
    }
}

/// Whether a statement keeps a loop's `break` and `continue` usable in the blocks inside it.
pub(super) fn keeps_jumps(s: &ast::StmtKind) -> bool {
    matches!(
        s,
        ast::StmtKind::Expr(_)
            | ast::StmtKind::Secretly(_)
            | ast::StmtKind::Step(..)
            | ast::StmtKind::Break
            | ast::StmtKind::Continue
    )
}
