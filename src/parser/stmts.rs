//! Pairs to AST for blocks and statements.

use super::*;

impl Builder {
    pub(super) fn block(&mut self, pair: Pair<Rule>) -> Block {
        let span = self.span(&pair);
        if !self.enter(span) {
            return Block {
                stmts: vec![],
                span,
            };
        }
        let stmts = children(pair).filter_map(|p| self.stmt(p)).collect();
        self.leave();
        Block { stmts, span }
    }

    /// `reveal e [to players]`: the cards, then the players after `to`, if any.
    pub(super) fn reveal_stmt(&mut self, mut it: Pairs<Rule>) -> Option<StmtKind> {
        let what = self.expr(it.next()?);
        let to = it.find(|p| p.as_rule() == Rule::expr).map(|p| self.expr(p));
        Some(StmtKind::Reveal(what, to))
    }

    pub(super) fn stmt(&mut self, pair: Pair<Rule>) -> Option<Stmt> {
        let span = self.span(&pair);
        let rule = pair.as_rule();
        let mut it = children(pair);
        let kind = match rule {
            Rule::let_stmt => {
                let name = self.ident(it.next()?);
                let mut next = it.next()?;
                let ty = if next.as_rule() == Rule::type_expr {
                    let t = self.type_expr(next);
                    next = it.next()?;
                    Some(t)
                } else {
                    None
                };
                StmtKind::Let(name, ty, self.expr(next))
            }
            Rule::set_stmt => {
                let target = self.expr(it.next()?);
                let op = match it.next()?.as_str() {
                    "+=" => AssignOp::Add,
                    "-=" => AssignOp::Sub,
                    _ => AssignOp::Set,
                };
                StmtKind::Set(target, op, self.expr(it.next()?))
            }
            Rule::move_stmt => {
                let what = self.expr(it.next()?);
                let to = self.expr(it.next()?);
                let mut pos = Position::Bottom;
                let mut face = None;
                for p in it.by_ref() {
                    match p.as_rule() {
                        Rule::position if p.as_str() == "top" => pos = Position::Top,
                        Rule::move_face => {
                            face = p.into_inner().last().map(|d| d.as_str() == "up");
                        }
                        _ => {}
                    }
                }
                StmtKind::Move(what, to, pos, face)
            }
            Rule::draw_stmt => {
                let n = self.expr(it.next()?);
                let from = self.expr(it.next()?);
                StmtKind::Draw(n, from, self.expr(it.next()?))
            }
            Rule::shuffle_stmt => StmtKind::Shuffle(self.expr(it.next()?)),
            Rule::flip_stmt => {
                let what = self.expr(it.next()?);
                let dir = it.next().map(|p| p.as_str() == "up");
                StmtKind::Flip(what, dir)
            }
            Rule::reveal_stmt => self.reveal_stmt(it)?,
            Rule::for_stmt => {
                let var = self.ident(it.next()?);
                let src = self.expr(it.next()?);
                StmtKind::For(var, src, self.block(it.next()?))
            }
            Rule::repeat_stmt => {
                let head = it.next()?;
                let body = self.block(it.next()?);
                return self.repeat(head, body, span);
            }
            Rule::end_stmt => StmtKind::EndGame,
            Rule::eliminate_stmt => StmtKind::Eliminate(self.expr(it.nth(1)?)),
            Rule::emit_stmt => {
                let name = self.ident(it.nth(1)?);
                let args = it.next().map(children);
                let args = args.map(|a| a.map(|p| self.value(p)).collect());
                StmtKind::Emit(name, args.unwrap_or_default())
            }
            Rule::break_stmt => StmtKind::Break,
            Rule::continue_stmt => StmtKind::Continue,
            Rule::while_stmt => {
                let head = it.nth(1)?;
                let body = self.block(it.next()?);
                return self.while_loop(head, body, span);
            }
            Rule::say_stmt => StmtKind::Say(self.expr(it.next()?)),
            Rule::return_stmt => StmtKind::Return(it.next().map(|p| self.expr(p))),
            Rule::secretly_stmt => StmtKind::Secretly(self.block(it.next()?)),
            Rule::step_stmt => {
                let name = self.ident(it.next()?);
                StmtKind::Step(name, self.block(it.next()?))
            }
            Rule::expr_stmt => StmtKind::Expr(self.expr(it.next()?)),
            _ => return None,
        };
        Some(Stmt { kind, span })
    }
}
