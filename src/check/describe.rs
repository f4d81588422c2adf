//! Card text: a kind's `describe` line, lowered with the card's fields as names, and the proof
//! that it reads only what is printed on cards.
//!
//! A line is worked out once per card, before any game (`interp::card_lines`), and shown
//! wherever the card is offered or listed. So it may read the card's printed fields, other
//! cards' printed fields, constants that read nothing else, tables, enums and functions of these;
//! never a var, a zone, a `var` field, an option, the players or the round, which differ from
//! game to game and moment to moment (and may be hidden from whoever reads the line).

use super::*;
use crate::ast;
use crate::diag::{Diag, Span};
use crate::program::*;

/// What a `describe` line reads that is not printed: where, what, and the calls that reach it
/// (innermost first).
#[derive(Debug, Clone)]
struct Unprinted {
    span: Span,
    what: String,
    calls: Vec<(Span, String)>,
}

#[derive(Clone)]
enum Memo {
    Unknown,
    Visiting,
    Known(Option<Unprinted>),
}

struct Walk<'a> {
    prog: &'a Program,
    fns: Vec<Memo>,
    consts: Vec<Memo>,
    tables: Vec<Memo>,
    /// Symbols that name a `var` field in some kind.
    var_syms: Vec<bool>,
    /// In the line itself: the local slots bound to fields it may not read, with what they are.
    banned: Vec<(u32, String)>,
}

impl Checker {
    /// Lower kind `id`'s `describe` line: each field of the kind is a name in it.
    pub(super) fn kind_describe(&mut self, id: usize, k: &ast::KindDecl) {
        let Some((first, rest)) = k.describe.split_first() else {
            return;
        };
        for again in rest {
            self.err(
                Diag::error(
                    "check::describe",
                    format!("kind `{}` says `describe` twice", k.name.node),
                )
                .label(again.span, "again here")
                .label(first.span, "first here")
                .help("a card reads one way on one line: keep one `describe`"),
            );
        }
        let Some(kd) = self.prog.kinds.get(id) else {
            return;
        };
        // Each field's name, type and slot (whether it is a var, and its index).
        type Field = (String, Ty, Option<(bool, u32)>);
        let fields: Vec<Field> = kd
            .fields
            .iter()
            .map(|f| {
                let slot = kd.slot_of.get(f.sym as usize).copied().flatten();
                (f.name.clone(), f.ty.clone(), slot)
            })
            .collect();
        self.begin(Ctx::Other);
        let mut binds = Vec::new();
        for (name, ty, slot) in fields {
            let local = self.bind(&name, ty);
            if let Some((false, i)) = slot {
                binds.push((i, local));
            }
        }
        let (text, _) = self.expr(first);
        let locals = self.end();
        if let Some(kd) = self.prog.kinds.get_mut(id) {
            kd.describe = Some(Describe {
                text,
                binds,
                locals,
            });
        }
    }

    /// Report every `describe` line that reads what is not printed on cards.
    pub(super) fn check_printed(&mut self) {
        let prog = &self.prog;
        if prog.kinds.iter().all(|k| k.describe.is_none()) {
            return;
        }
        let mut var_syms = vec![false; prog.symbols.len()];
        for kd in &prog.kinds {
            for f in kd.fields.iter().filter(|f| f.mutable) {
                if let Some(v) = var_syms.get_mut(f.sym as usize) {
                    *v = true;
                }
            }
        }
        let mut w = Walk {
            prog,
            fns: vec![Memo::Unknown; prog.fns.len()],
            consts: vec![Memo::Unknown; prog.consts.len()],
            tables: vec![Memo::Unknown; prog.tables.len()],
            var_syms,
            banned: Vec::new(),
        };
        let mut found = Vec::new();
        for kd in &prog.kinds {
            let Some(d) = &kd.describe else {
                continue;
            };
            // The names bound to `var` and code fields: the line may not read them.
            let bound: Vec<u32> = d.binds.iter().map(|b| b.1).collect();
            w.banned = kd
                .fields
                .iter()
                .enumerate()
                .filter_map(|(i, f)| {
                    let slot = i as u32;
                    (!bound.contains(&slot)).then(|| {
                        (
                            slot,
                            format!("`{}`, a `var` field, which changes during a game", f.name),
                        )
                    })
                })
                .collect();
            if let Some(u) = w.expr(&d.text) {
                found.push((kd.name.clone(), d.text.span, u));
            }
        }
        for (kind, at, u) in found {
            let mut d = Diag::error(
                "check::describe",
                format!("the `describe` line of `{kind}` reads what is not printed on the card"),
            )
            .label(u.span, format!("this reads {}", u.what));
            for (span, text) in &u.calls {
                d = d.label(*span, text.clone());
            }
            if !u.calls.is_empty() || !at.contains(u.span) {
                d = d.label(at, "in this line");
            }
            self.err(d.help(
                "a card's line is worked out once, before the game: it may read the card's printed fields, other cards', constants, tables and functions of these",
            ));
        }
    }
}

impl Walk<'_> {
    fn func(&mut self, f: Id) -> Option<Unprinted> {
        match self.fns.get(f as usize) {
            Some(Memo::Known(r)) => return r.clone(),
            Some(Memo::Visiting) | None => return None,
            Some(Memo::Unknown) => {}
        }
        self.fns[f as usize] = Memo::Visiting;
        let prog = self.prog;
        // A function's locals are its own: the line's banned slots mean nothing there.
        let banned = std::mem::take(&mut self.banned);
        let r = self.expr(&prog.fns[f as usize].body);
        self.banned = banned;
        self.fns[f as usize] = Memo::Known(r.clone());
        r
    }

    fn constant(&mut self, c: Id) -> Option<Unprinted> {
        match self.consts.get(c as usize) {
            Some(Memo::Known(r)) => return r.clone(),
            Some(Memo::Visiting) | None => return None,
            Some(Memo::Unknown) => {}
        }
        self.consts[c as usize] = Memo::Visiting;
        let prog = self.prog;
        let banned = std::mem::take(&mut self.banned);
        let r = self.expr(&prog.consts[c as usize].value);
        self.banned = banned;
        self.consts[c as usize] = Memo::Known(r.clone());
        r
    }

    fn table(&mut self, t: Id) -> Option<Unprinted> {
        match self.tables.get(t as usize) {
            Some(Memo::Known(r)) => return r.clone(),
            Some(Memo::Visiting) | None => return None,
            Some(Memo::Unknown) => {}
        }
        self.tables[t as usize] = Memo::Visiting;
        let prog = self.prog;
        let banned = std::mem::take(&mut self.banned);
        let r = prog.tables[t as usize]
            .entries
            .iter()
            .find_map(|(_, e, _)| self.expr(e));
        self.banned = banned;
        self.tables[t as usize] = Memo::Known(r.clone());
        r
    }

    fn block(&mut self, b: &Block) -> Option<Unprinted> {
        b.stmts.iter().find_map(|s| self.stmt(s))
    }

    fn exprs(&mut self, es: &[Expr]) -> Option<Unprinted> {
        es.iter().find_map(|e| self.expr(e))
    }

    /// Statements that change the game are the purity check's to report; here only what
    /// they read.
    fn stmt(&mut self, s: &Stmt) -> Option<Unprinted> {
        match &s.kind {
            StmtKind::Let(_, e) | StmtKind::Expr(e) | StmtKind::Assign(_, _, e) => self.expr(e),
            StmtKind::For(_, src, body) | StmtKind::Repeat(src, body) => {
                self.expr(src).or_else(|| self.block(body))
            }
            StmtKind::RepeatUntil(n, cond, body) => self
                .expr(n)
                .or_else(|| self.expr(cond))
                .or_else(|| self.block(body)),
            StmtKind::Return(e) => e.as_ref().and_then(|e| self.expr(e)),
            StmtKind::Secretly(b) | StmtKind::Step(_, b) => self.block(b),
            StmtKind::Move(..)
            | StmtKind::Draw(..)
            | StmtKind::Shuffle(_)
            | StmtKind::Flip(..)
            | StmtKind::Reveal(..)
            | StmtKind::Say(_)
            | StmtKind::EndGame
            | StmtKind::Eliminate(_)
            | StmtKind::Emit(..)
            | StmtKind::Break
            | StmtKind::Continue => None,
        }
    }

    fn expr(&mut self, e: &Expr) -> Option<Unprinted> {
        let here = |what: String| {
            Some(Unprinted {
                span: e.span,
                what,
                calls: Vec::new(),
            })
        };
        let prog = self.prog;
        match &e.kind {
            ExprKind::Const(_) | ExprKind::KindCards(_) => None,
            ExprKind::Local(slot) => match self.banned.iter().find(|b| b.0 == *slot) {
                Some((_, what)) => here(what.clone()),
                None => None,
            },
            ExprKind::Var(v, _) => here(format!(
                "the var `{}`",
                prog.vars.get(*v as usize).map_or("", |d| d.name.as_str())
            )),
            ExprKind::Zone(z, _) => here(format!(
                "the zone `{}`",
                prog.zones.get(*z as usize).map_or("", |d| d.name.as_str())
            )),
            ExprKind::Option(o) => here(format!(
                "the game option `{}`, set for each game",
                prog.options
                    .get(*o as usize)
                    .map_or("", |d| d.name.as_str())
            )),
            ExprKind::Special(s) => here(
                match s {
                    Special::Players => "the players",
                    Special::PlayerCount => "the number of players",
                    Special::Round => "the round",
                    Special::AllPlayers => "the players",
                }
                .to_string(),
            ),
            ExprKind::ConstRef(c) => {
                let mut u = self.constant(*c)?;
                let name = prog.consts.get(*c as usize).map_or("", |d| d.name.as_str());
                u.calls.push((
                    e.span,
                    format!("reads `{name}`, which reads {} there", u.what),
                ));
                Some(u)
            }
            ExprKind::Field(b, sym) => {
                if self.var_syms.get(*sym as usize).copied().unwrap_or(false) {
                    let name = prog.symbols.get(*sym as usize).map_or("", |s| s.as_str());
                    return here(format!("`{name}`, a `var` field"));
                }
                self.expr(b)
            }
            ExprKind::CardBuiltinField(b, f) => match f {
                CardField::FaceUp => here("whether a card is face up".into()),
                CardField::Id | CardField::Kind => self.expr(b),
            },
            ExprKind::TupleIndex(b, _) | ExprKind::Unary(_, b) | ExprKind::InBounds(b, ..) => {
                self.expr(b)
            }
            ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => {
                self.expr(a).or_else(|| self.expr(b))
            }
            ExprKind::Table(t, k) => self.expr(k).or_else(|| self.table(*t)),
            ExprKind::Call(f, args) => self.exprs(args).or_else(|| {
                let mut u = self.func(*f)?;
                let name = prog.fns.get(*f as usize).map_or("", |d| d.name.as_str());
                u.calls.push((
                    e.span,
                    format!("calls `{name}`, which reads {} there", u.what),
                ));
                Some(u)
            }),
            ExprKind::CallField(..) => here("a card's code, run during a game".into()),
            ExprKind::Builtin(def, args) => {
                if ["zone_of", "next", "eliminated"].contains(&def.name) {
                    return here(format!("where the game stands (`{}`)", def.name));
                }
                self.exprs(args)
            }
            ExprKind::If(c, then, els) => self
                .expr(c)
                .or_else(|| self.block(then))
                .or_else(|| els.as_ref().and_then(|x| self.expr(x))),
            ExprKind::Match(s, arms) => self
                .expr(s)
                .or_else(|| arms.iter().find_map(|(_, body)| self.expr(body))),
            ExprKind::Agg {
                source,
                filter,
                map,
                ..
            } => self
                .expr(source)
                .or_else(|| filter.as_ref().and_then(|f| self.expr(f)))
                .or_else(|| map.as_ref().and_then(|m| self.expr(m))),
            ExprKind::List(items) | ExprKind::Tuple(items) => self.exprs(items),
            ExprKind::Text(parts) => parts.iter().find_map(|p| match p {
                TextPart::Lit(_) => None,
                TextPart::Expr(x) => self.expr(x),
            }),
            ExprKind::Block(b) => self.block(b),
        }
    }
}
