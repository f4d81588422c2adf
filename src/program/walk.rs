//! The one walk over a compiled program's trees (`Expr`, `Stmt`): the checker's analyses and the
//! interpreter's compiler both visit nodes with it, and rewrite them with `children_mut`.

use super::*;

/// A node of a tree, as `walk` visits it.
#[derive(Clone, Copy)]
pub(crate) enum Node<'a> {
    Expr(&'a Expr),
    Stmt(&'a Stmt),
}

/// A node of a tree, as `shift` changes it.
pub(crate) enum NodeMut<'a> {
    Expr(&'a mut Expr),
    Stmt(&'a mut Stmt),
}

/// Visit every expression and statement of a tree, each before those under it.
pub(crate) fn walk<'a>(n: Node<'a>, f: &mut impl FnMut(Node<'a>)) {
    f(n);
    children(n, &mut |c| walk(c, f));
}

/// Visit every node of the rules' code, each tree from its root: functions, cards' code, phases
/// (and the list a phase runs for each item of), setup, triggers, constants, vars' first values
/// and the game's tables (card checks and the screen left aside).
pub(crate) fn walk_code<'a>(prog: &'a Program, f: &mut impl FnMut(Node<'a>)) {
    let mut visit = f;
    for d in prog.fns.iter().chain(&prog.card_fns) {
        walk(Node::Expr(&d.body), &mut visit);
    }
    for p in &prog.phases {
        if let Some((_, e)) = &p.each {
            walk(Node::Expr(e), &mut visit);
        }
        p.body
            .stmts
            .iter()
            .for_each(|s| walk(Node::Stmt(s), &mut visit));
    }
    for (b, _) in &prog.setup {
        b.stmts.iter().for_each(|s| walk(Node::Stmt(s), &mut visit));
    }
    for t in &prog.triggers {
        if let Some(c) = &t.condition {
            walk(Node::Expr(c), &mut visit);
        }
        t.body
            .stmts
            .iter()
            .for_each(|s| walk(Node::Stmt(s), &mut visit));
    }
    for c in &prog.consts {
        walk(Node::Expr(&c.value), &mut visit);
    }
    for v in &prog.vars {
        walk(Node::Expr(&v.init), &mut visit);
    }
    for t in &prog.tables {
        for (_, e, _) in &t.entries {
            walk(Node::Expr(e), &mut visit);
        }
    }
}

/// Writes a function giving `f` each node right under a node, in order: the one description of
/// the tree's shape, which `walk` and `shift` share. The same text makes `children`, on shared
/// nodes, and `children_mut`, on nodes to change: its patterns bind shared or mutable references
/// as the node holds, and `into_iter` on those gives the same.
macro_rules! children {
    ($name:ident, $node:ident) => {
        pub(crate) fn $name<'a>(n: $node<'a>, f: &mut impl FnMut($node<'a>)) {
            match n {
                $node::Expr(Expr { kind, .. }) => match kind {
                    ExprKind::Const(_)
                    | ExprKind::Local(_)
                    | ExprKind::ConstRef(_)
                    | ExprKind::Option(_)
                    | ExprKind::KindCards(_)
                    | ExprKind::Special(_) => {}
                    ExprKind::Var(_, es)
                    | ExprKind::Zone(_, es)
                    | ExprKind::Call(_, es)
                    | ExprKind::Builtin(_, es)
                    | ExprKind::List(es)
                    | ExprKind::Tuple(es) => es.into_iter().for_each(|e| f($node::Expr(e))),
                    ExprKind::Field(b, _)
                    | ExprKind::CardBuiltinField(b, _)
                    | ExprKind::TupleIndex(b, _)
                    | ExprKind::Table(_, b)
                    | ExprKind::Unary(_, b)
                    | ExprKind::InBounds(b, _, _) => f($node::Expr(b)),
                    ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => {
                        f($node::Expr(a));
                        f($node::Expr(b));
                    }
                    ExprKind::CallField(b, _, es) => {
                        f($node::Expr(b));
                        es.into_iter().for_each(|e| f($node::Expr(e)));
                    }
                    ExprKind::If(c, Block { stmts, .. }, other) => {
                        f($node::Expr(c));
                        stmts.into_iter().for_each(|s| f($node::Stmt(s)));
                        if let Some(o) = other {
                            f($node::Expr(o));
                        }
                    }
                    ExprKind::Match(s, arms) => {
                        f($node::Expr(s));
                        arms.into_iter().for_each(|(_, e)| f($node::Expr(e)));
                    }
                    ExprKind::Agg {
                        source,
                        filter,
                        map,
                        ..
                    } => {
                        f($node::Expr(source));
                        filter
                            .into_iter()
                            .chain(map)
                            .for_each(|e| f($node::Expr(e)));
                    }
                    ExprKind::Text(parts) => {
                        for p in parts {
                            if let TextPart::Expr(e) = p {
                                f($node::Expr(e));
                            }
                        }
                    }
                    ExprKind::Block(Block { stmts, .. }) => {
                        stmts.into_iter().for_each(|s| f($node::Stmt(s)))
                    }
                },
                $node::Stmt(Stmt { kind, .. }) => match kind {
                    StmtKind::Let(_, e)
                    | StmtKind::Shuffle(e)
                    | StmtKind::Flip(e, _)
                    | StmtKind::Say(e)
                    | StmtKind::Eliminate(e)
                    | StmtKind::Expr(e) => f($node::Expr(e)),
                    StmtKind::Assign(place, _, e) => {
                        match place {
                            Place::Local(_) => {}
                            Place::Var(_, keys) => keys.into_iter().for_each(|k| f($node::Expr(k))),
                            Place::Field(b, _) => f($node::Expr(b)),
                        }
                        f($node::Expr(e));
                    }
                    StmtKind::Move(a, b, ..) => {
                        f($node::Expr(a));
                        f($node::Expr(b));
                    }
                    StmtKind::Draw(a, b, c) => {
                        f($node::Expr(a));
                        f($node::Expr(b));
                        f($node::Expr(c));
                    }
                    StmtKind::Reveal(a, b) => {
                        f($node::Expr(a));
                        if let Some(b) = b {
                            f($node::Expr(b));
                        }
                    }
                    StmtKind::For(_, e, Block { stmts, .. })
                    | StmtKind::Repeat(e, Block { stmts, .. }) => {
                        f($node::Expr(e));
                        stmts.into_iter().for_each(|s| f($node::Stmt(s)));
                    }
                    StmtKind::RepeatUntil(a, c, Block { stmts, .. }) => {
                        f($node::Expr(a));
                        f($node::Expr(c));
                        stmts.into_iter().for_each(|s| f($node::Stmt(s)));
                    }
                    StmtKind::Return(e) => {
                        if let Some(e) = e {
                            f($node::Expr(e));
                        }
                    }
                    StmtKind::Secretly(Block { stmts, .. })
                    | StmtKind::Step(_, Block { stmts, .. }) => {
                        stmts.into_iter().for_each(|s| f($node::Stmt(s)))
                    }
                    StmtKind::EndGame | StmtKind::Break | StmtKind::Continue => {}
                    StmtKind::Emit(_, es) => es.into_iter().for_each(|e| f($node::Expr(e))),
                },
            }
        }
    };
}

children!(children, Node);
children!(children_mut, NodeMut);
