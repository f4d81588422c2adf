//! Triggers: firing the triggers for an event, with the depth limit.

use super::*;
use crate::ast::EventKind;
use crate::diag::Diag;
use crate::program::*;
use crate::value::Value;

impl<'p> Interp<'p> {
    pub(super) fn fire_simple(&mut self, kind: EventKind, target: Option<Id>) -> R<()> {
        let prog = self.prog;
        for (i, t) in prog.triggers.iter().enumerate() {
            if t.event == kind && (target.is_none() || t.target == target) {
                self.run_trigger(i, &[])?;
            }
        }
        Ok(())
    }

    /// Run one trigger with the event's values (`bound`, in the order of `t.binds`).
    pub(super) fn run_trigger(&mut self, i: usize, bound: &[Value]) -> R<()> {
        let prog = self.prog;
        let code = self.code;
        let (Some(t), Some(ct)) = (prog.triggers.get(i), code.triggers.get(i)) else {
            return Ok(());
        };
        if self.trigger_depth >= self.limits.max_trigger_depth {
            let mut d = Diag::error(
                "limit::triggers",
                format!(
                    "triggers fired triggers more than {} deep",
                    self.limits.max_trigger_depth
                ),
            )
            .label(t.span, "this trigger fired once too often");
            // Every distinct trigger in the running chain, so a loop of several shows whole.
            let mut seen = vec![t.span];
            for s in self.trigger_chain.iter().rev() {
                if !seen.contains(s) {
                    seen.push(*s);
                    d = d.label(*s, "part of the same chain");
                }
            }
            let help = if seen.len() > 1 {
                "these triggers keep causing each other's events; add a `where` condition to one"
            } else {
                "this trigger causes its own event; add a `where` condition"
            };
            return Err(Box::new(d.help(help)));
        }
        self.trigger_depth += 1;
        self.trigger_chain.push(t.span);
        let r = self.with_frame(t.locals, |me| {
            for (slot, v) in t.binds.iter().zip(bound) {
                if let Some(slot) = slot {
                    me.set_local(*slot, v.clone());
                }
            }
            if let Some(c) = &ct.condition {
                if (c.code)(me)? != Value::Bool(true) {
                    return Ok(Value::None);
                }
            }
            (ct.body)(me).map(|_| Value::None)
        });
        self.trigger_depth -= 1;
        self.trigger_chain.pop();
        r.map(|_| ())
    }
}
