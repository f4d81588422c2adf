//! Lines typed at the REPL, lowered against an already checked program.

use super::*;
use crate::ast::{self};
use crate::diag::{Diag, Span};
use crate::program::*;

/// A REPL line lowered: its block, its number of locals, and the slot of each top-level `let`.
pub type ReplLine = (Block, u32, Vec<(String, u32)>);

impl Checker {
    /// A checker that knows every name of an already checked program (for REPL lines).
    pub fn from_program(prog: &Program) -> Checker {
        let mut c = Checker::new(prog.sources.clone());
        c.prog = prog.clone();
        let put = |c: &mut Checker, name: &str, g: Global, span: Span| {
            c.globals.insert(name.to_string(), (g, span));
        };
        for (i, e) in prog.enums.iter().enumerate() {
            put(&mut c, &e.name, Global::Enum(i as Id), e.span);
            for (v, name) in e.variants.iter().enumerate() {
                put(&mut c, name, Global::Variant(i as Id, v as u32), e.span);
            }
        }
        for (i, k) in prog.kinds.iter().enumerate() {
            put(&mut c, &k.name, Global::Kind(i as Id), k.span);
        }
        for (i, z) in prog.zones.iter().enumerate() {
            put(&mut c, &z.name, Global::Zone(i as Id), z.span);
        }
        for (i, v) in prog.vars.iter().enumerate() {
            put(&mut c, &v.name, Global::Var(i as Id), v.span);
        }
        for (i, k) in prog.consts.iter().enumerate() {
            put(&mut c, &k.name, Global::Const(i as Id), k.span);
        }
        for (i, f) in prog.fns.iter().enumerate() {
            put(&mut c, &f.name, Global::Fn(i as Id), f.span);
        }
        for (i, p) in prog.phases.iter().enumerate() {
            put(&mut c, &p.name, Global::Phase(i as Id), p.span);
        }
        for (i, t) in prog.tables.iter().enumerate() {
            put(&mut c, &t.name, Global::Table(i as Id), t.span);
        }
        for (i, o) in prog.options.iter().enumerate() {
            put(&mut c, &o.name, Global::Option(i as Id), o.span);
        }
        for (i, e) in prog.events.iter().enumerate() {
            put(&mut c, &e.name, Global::Event(i as Id), e.span);
        }
        for (i, card) in prog.cards.iter().enumerate() {
            c.card_index.insert(card_key(&card.id), i as Id);
        }
        c.calls = vec![Vec::new(); prog.fns.len()];
        c.const_refs = vec![Vec::new(); prog.consts.len()];
        c.referenced_phases = vec![true; prog.phases.len()];
        c
    }

    /// Lower statements typed at the REPL. Names bound by earlier lines (`env`) are the first
    /// locals; returns the block, its number of locals, and the slot of each top-level `let`.
    pub fn lower_repl(
        &mut self,
        block: &ast::Block,
        env: &[(String, Ty)],
    ) -> Result<ReplLine, Vec<Diag>> {
        self.begin(Ctx::Other);
        for (name, ty) in env {
            self.bind(name, ty.clone());
        }
        // The line's statements share the environment's scope, so its `let`s outlive it.
        let mut stmts = Vec::new();
        let mut lets = Vec::new();
        for (i, st) in block.stmts.iter().enumerate() {
            if i + 1 == block.stmts.len() {
                if let ast::StmtKind::Expr(e) = &st.kind {
                    let (x, _) = self.expr(e);
                    stmts.push(Stmt {
                        kind: StmtKind::Expr(x),
                        span: st.span,
                    });
                    continue;
                }
            }
            if let Some(lowered) = self.stmt(st) {
                if let (StmtKind::Let(slot, _), ast::StmtKind::Let(name, _, _)) =
                    (&lowered.kind, &st.kind)
                {
                    lets.push((name.node.clone(), *slot));
                }
                stmts.push(lowered);
            }
        }
        let b = Block {
            stmts,
            span: block.span,
        };
        let locals = self.end();
        let errors: Vec<Diag> = self.diags.drain(..).filter(|d| d.is_error()).collect();
        if errors.is_empty() {
            Ok((b, locals, lets))
        } else {
            Err(errors)
        }
    }
}
