//! `rules bench --profile`: the steps each function of the rules takes, so a designer sees where
//! a game's work goes (a menu worked out at every choice, a count over every card) before making
//! it faster.
//!
//! Only a program compiled for profiling (`CodeCache::profile`, before its first game) pays for
//! it: each function's body (cards' code included), each phase's and the setup's is wrapped in a
//! closure that notes the steps on entry and adds them up on exit, and no call is compiled in
//! place of another (`inline`), so every call is seen. (The bench also turns remembered calls
//! off: a remembered result charges the steps of the run it stands for, so the steps are those of
//! a plain run either way.) A game run this way takes the steps it takes otherwise, within a few
//! per game: a silent run skips a choice's prompt when it is a constant, but one passed through a
//! parameter of a function no longer compiled in place is a local, worked out and charged for its
//! length (`Interp::charge_args`).
//!
//! Each interpreter keeps its own stack of open calls (`Interp::profiling`), so the playouts a
//! searching agent runs inside a choice count for their own functions, not for the function that
//! asked the choice. The counts are added up per thread, over every interpreter it runs.

use super::{code, Code};
use crate::interp::Interp;
use std::cell::RefCell;

/// One row of the profile: a function, a phase or the setup.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Row {
    pub name: String,
    /// How many times it ran.
    pub calls: u64,
    /// The steps taken in it, its callees included (a recursive function's outermost calls in
    /// each interpreter).
    pub with_callees: u64,
    /// The steps taken in it, its callees left out.
    pub own: u64,
}

/// A call under way in one interpreter: its row, the steps taken when it began, and the steps
/// its callees took.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Open {
    row: usize,
    at: u64,
    callees: u64,
}

thread_local! {
    static ROWS: RefCell<Vec<Row>> = const { RefCell::new(Vec::new()) };
}

/// Start counting on this thread, with one row per name (rows are numbered as `names`).
pub fn start(names: Vec<String>) {
    ROWS.with(|r| {
        *r.borrow_mut() = names
            .into_iter()
            .map(|name| Row {
                name,
                ..Row::default()
            })
            .collect()
    });
}

/// The rows counted on this thread since `start`, and the counting stopped.
pub fn finish() -> Vec<Row> {
    ROWS.with(|r| std::mem::take(&mut *r.borrow_mut()))
}

/// `body`, counted in row `row`.
pub(super) fn counted(row: usize, body: Code) -> Code {
    code(move |me| {
        me.profile_enter(row);
        let r = body(me);
        me.profile_exit();
        r
    })
}

impl Interp<'_> {
    fn profile_enter(&mut self, row: usize) {
        let at = self.state.steps();
        self.profiling.push(Open {
            row,
            at,
            callees: 0,
        });
        ROWS.with(|r| {
            if let Some(x) = r.borrow_mut().get_mut(row) {
                x.calls = x.calls.saturating_add(1);
            }
        });
    }

    fn profile_exit(&mut self) {
        let Some(open) = self.profiling.pop() else {
            return;
        };
        let took = self.state.steps().saturating_sub(open.at);
        if let Some(caller) = self.profiling.last_mut() {
            caller.callees = caller.callees.saturating_add(took);
        }
        // A recursive call's steps are in its outermost call's already (in this interpreter: a
        // playout's calls count on their own, whatever the game that searches has open).
        let outermost = !self.profiling.iter().any(|o| o.row == open.row);
        ROWS.with(|r| {
            if let Some(x) = r.borrow_mut().get_mut(open.row) {
                x.own = x.own.saturating_add(took.saturating_sub(open.callees));
                if outermost {
                    x.with_callees = x.with_callees.saturating_add(took);
                }
            }
        });
    }
}
