//! Card effects as code: a kind's field typed `fn(p: player)` (or `fn(...) -> T`) holds code
//! written per card, `fn(p) { ... }` or `fn(p) = expr`. The code is type-checked with the kind's
//! declaration (parameter types come from it; the card only names them), lowered like a
//! function body, and stored in `Program::card_fns`; the card's field holds `Value::Fn(index)`.
//! Rules run it with a call on the field: `c.effect(p)`.

use super::*;
use crate::ast;
use crate::diag::{Diag, Span};
use crate::program::*;
use crate::value::Value;

/// A value written where a card's code belongs: its diagnostic, whose help names the code's
/// parameters as the game's own cards do once they are all read.
pub(super) struct CodeHelp {
    diag: usize,
    kind: String,
    field: String,
    arity: usize,
    ret_help: String,
}

/// Code found in a card, lowered after the constants (so it sees their types).
pub(super) struct PendingFn {
    id: Id,
    params: Vec<ast::Ident>,
    body: ast::Expr,
}

impl Checker {
    /// The value of a `fn` field written in a card (or as a kind's default): the code, checked
    /// later, or `none` (an effect that does nothing). `card` is the card it is written in (none
    /// for a kind's default).
    pub(super) fn card_fn_value(
        &mut self,
        kind: &str,
        owner: &str,
        card: Option<Id>,
        field: &str,
        ty: &Ty,
        e: &ast::Expr,
    ) -> Option<Value> {
        let Ty::Fn(param_tys, ret) = ty else {
            return None;
        };
        match &e.kind {
            ast::ExprKind::None if **ret == Ty::None => Some(Value::None),
            ast::ExprKind::FnLit(params, body) => {
                if params.len() != param_tys.len() {
                    let t = self.ty_name(ty);
                    self.err(
                        Diag::error(
                            "check::arity",
                            format!(
                                "field `{field}` is `{t}`: its code takes {} parameter{}, this takes {}",
                                param_tys.len(),
                                if param_tys.len() == 1 { "" } else { "s" },
                                params.len()
                            ),
                        )
                        .label(e.span, "wrong number of parameters")
                        .help("name one parameter for each in the kind's declaration; their types come from it"),
                    );
                    return Some(Value::None);
                }
                let id = self.prog.card_fns.len() as Id;
                let sym = self.symbol(field);
                self.prog.card_fn_fields.push(sym);
                self.prog.card_fn_cards.push(card);
                self.prog.card_fns.push(FnDef {
                    name: format!("{owner}.{field}"),
                    params: params
                        .iter()
                        .zip(param_tys)
                        .map(|(p, t)| (p.node.clone(), t.clone()))
                        .collect(),
                    ret: (**ret).clone(),
                    body: Expr {
                        kind: ExprKind::Const(Value::None),
                        span: body.span,
                        ty: Sort::Any,
                    },
                    locals: 0,
                    span: e.span,
                    doc: None,
                });
                self.pending_card_fns.push(PendingFn {
                    id,
                    params: params.clone(),
                    body: (**body).clone(),
                });
                Some(Value::Fn(id))
            }
            _ => {
                let t = self.ty_name(ty);
                let params: Vec<&str> = ["p", "q", "r", "s"]
                    .iter()
                    .copied()
                    .take(param_tys.len())
                    .collect();
                let ret_help = if **ret == Ty::None {
                    "{ ... }".to_string()
                } else {
                    "= ...".to_string()
                };
                // The parameters' names are put in once every card is read, from the game's
                // own cards of the kind or its declaration (`code_helps`).
                self.code_helps.push(CodeHelp {
                    diag: self.diags.len(),
                    kind: kind.to_string(),
                    field: field.to_string(),
                    arity: param_tys.len(),
                    ret_help: ret_help.clone(),
                });
                self.err(
                    Diag::error(
                        "check::field_type",
                        format!("field `{field}` holds code (`{t}`), not a value"),
                    )
                    .label(e.span, "not code")
                    .help(format!(
                        "write the card's code: `{field}: fn({}) {ret_help}`",
                        params.join(", ")
                    )),
                );
                Some(Value::None)
            }
        }
    }

    /// The help of a value written where a card's code belongs, in the game's own idiom: the
    /// parameter names most cards of the kind give that field's code (`fn(f)`), else those of
    /// the kind's declaration (`penalty: fn(f: Faction)`). Only on that error's path.
    pub(super) fn code_helps(&mut self, items: &[&ast::Item]) {
        for h in std::mem::take(&mut self.code_helps) {
            let mut seen: Vec<(Vec<&str>, usize)> = Vec::new();
            for item in items {
                let ast::Item::Card(c) = item else { continue };
                if c.kind.node != h.kind {
                    continue;
                }
                for (f, e) in &c.fields {
                    if let ast::ExprKind::FnLit(ps, _) = &e.kind {
                        if f.node == h.field && ps.len() == h.arity {
                            let names: Vec<&str> = ps.iter().map(|p| p.node.as_str()).collect();
                            match seen.iter_mut().find(|s| s.0 == names) {
                                Some(s) => s.1 += 1,
                                None => seen.push((names, 1)),
                            }
                        }
                    }
                }
            }
            // The most used (the first written on ties).
            let mut names: Option<Vec<&str>> = None;
            let mut most = 0;
            for (n, count) in seen {
                if count > most {
                    most = count;
                    names = Some(n);
                }
            }
            let declared = || {
                items.iter().find_map(|item| match item {
                    ast::Item::Kind(k) if k.name.node == h.kind => {
                        k.fields.iter().find_map(|f| match &f.ty.node {
                            ast::TypeExpr::Fn(ps, _)
                                if f.name.node == h.field && ps.len() == h.arity =>
                            {
                                Some(ps.iter().map(|p| p.0.node.as_str()).collect())
                            }
                            _ => None,
                        })
                    }
                    _ => None,
                })
            };
            let Some(names) = names.or_else(declared) else {
                continue;
            };
            if let Some(d) = self.diags.get_mut(h.diag) {
                d.help = Some(format!(
                    "write the card's code: `{}: fn({}) {}`",
                    h.field,
                    names.join(", "),
                    h.ret_help
                ));
            }
        }
    }

    /// Lower every card's code, each like a function body of its own.
    pub(super) fn lower_card_fns(&mut self) {
        for p in std::mem::take(&mut self.pending_card_fns) {
            let Some(def) = self.prog.card_fns.get(p.id as usize) else {
                continue;
            };
            let (tys, ret, name) = (
                def.params.iter().map(|x| x.1.clone()).collect::<Vec<_>>(),
                def.ret.clone(),
                def.name.clone(),
            );
            self.begin(Ctx::CardFn(p.id));
            for (param, t) in p.params.iter().zip(tys) {
                self.statement_word(param, "a parameter");
                self.bind(&param.node, t);
            }
            let (body, ty) = self.expr(&p.body);
            let returns = matches!(&p.body.kind, ast::ExprKind::Block(b) if ends_in_return(b));
            if !returns && ret != Ty::None {
                let what = format!("the result of `{name}`");
                self.expect_assign(&ret, &ty, p.body.span, &what, None);
            }
            let locals = self.end();
            if let Some(def) = self.prog.card_fns.get_mut(p.id as usize) {
                def.body = body;
                def.locals = locals;
            }
        }
    }

    /// `c.field(args)`: a call of the code in a card's `fn` field.
    pub(super) fn call_field(
        &mut self,
        base: &ast::Expr,
        name: &ast::Ident,
        args: Vec<(Expr, Ty, Span)>,
        span: Span,
    ) -> (Expr, Ty) {
        let mk = |kind| Expr::new(kind, span);
        let (b, bt) = self.expr(base);
        if !matches!(bt, Ty::Any | Ty::Card(_)) {
            let g = self.ty_name(&bt);
            self.err(
                Diag::error("check::call", format!("{g} has no fields to call"))
                    .label(base.span, format!("this is {g}")),
            );
            return (mk(ExprKind::Const(Value::None)), Ty::Any);
        }
        let Some(sym) = self.field_sym(&bt, name, false) else {
            return (mk(ExprKind::Const(Value::None)), Ty::Any);
        };
        let info = self.field_info(&bt, sym, &name.node);
        let Ty::Fn(params, ret) = &info.ty else {
            let t = self.ty_name(&info.ty);
            self.err(
                Diag::error(
                    "check::call",
                    format!("field `{}` is {t}, not code to run", name.node),
                )
                .label(name.span, "called here")
                .maybe_label(info.decl, format!("declared as {t} here"))
                .help("only fields declared `fn(...)` in the kind hold code that can be called"),
            );
            return (mk(ExprKind::Const(Value::None)), Ty::Any);
        };
        if params.len() != args.len() {
            self.err(
                Diag::error(
                    "check::arity",
                    format!(
                        "`{}` takes {} argument{}, found {}",
                        name.node,
                        params.len(),
                        if params.len() == 1 { "" } else { "s" },
                        args.len()
                    ),
                )
                .label(span, "wrong number of arguments")
                .maybe_label(info.decl, "declared here"),
            );
        }
        for (i, (want, (_, got, aspan))) in params.iter().zip(args.iter()).enumerate() {
            if !compatible(want, got) {
                let (w, g) = (self.ty_name(want), self.ty_name(got));
                self.err(
                    Diag::error(
                        "check::arg_type",
                        format!(
                            "argument {} of `{}` must be {w}, found {g}",
                            i + 1,
                            name.node
                        ),
                    )
                    .label(*aspan, format!("this is {g}")),
                );
            }
        }
        let ret = (**ret).clone();
        (
            mk(ExprKind::CallField(
                Box::new(b),
                sym,
                args.into_iter().map(|a| a.0).collect(),
            )),
            ret,
        )
    }
}
