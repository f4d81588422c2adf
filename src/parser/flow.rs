//! Pairs to AST for game flow: options, custom events and their triggers, bounded
//! player-ended loops, and card copies in `cards` tables.

use super::*;

/// The most copies one `cards` row may make.
const MAX_COPIES: i64 = 1000;

impl Builder {
    /// `option name: type in lo..hi = default`
    pub(super) fn option_decl(&mut self, pair: Pair<Rule>) -> Option<OptionDecl> {
        let span = self.span(&pair);
        let doc = self.doc(&pair);
        let (mut name, mut ty, mut bounds, mut default) = (None, None, None, None);
        for p in children(pair) {
            match p.as_rule() {
                Rule::ident => name = Some(self.ident(p)),
                Rule::type_expr => ty = Some(self.type_expr(p)),
                Rule::bounds => bounds = Some(self.bounds(p)),
                Rule::expr => default = Some(self.expr(p)),
                _ => {}
            }
        }
        Some(OptionDecl {
            name: name?,
            ty: ty?,
            bounds,
            default: default.unwrap_or(Expr {
                kind: ExprKind::None,
                span,
            }),
            doc,
        })
    }

    /// `event name(p: player, amount: int)`
    pub(super) fn event_decl(&mut self, pair: Pair<Rule>) -> Option<EventDecl> {
        let mut name = None;
        let mut params = Vec::new();
        for p in children(pair) {
            match p.as_rule() {
                Rule::ident => name = Some(self.ident(p)),
                Rule::params => {
                    for param in children(p) {
                        let mut it = children(param);
                        let pname = it.next().map(|p| self.ident(p)).unwrap_or_default_ident();
                        let ty = it.next().map(|t| self.type_expr(t));
                        params.push(Param { name: pname, ty });
                    }
                }
                _ => {}
            }
        }
        Some(EventDecl {
            name: name?,
            params,
        })
    }

    /// `on name(a, b)`: a custom event's trigger. Returns false for the built-in events.
    pub(super) fn custom_event(
        &mut self,
        pair: &Pair<Rule>,
        event: &mut Spanned<EventKind>,
        target: &mut Option<Ident>,
        params: &mut Vec<Ident>,
    ) -> bool {
        let Some(ev) = pair.clone().into_inner().next() else {
            return false;
        };
        if ev.as_rule() != Rule::custom_ev {
            return false;
        }
        let mut it = children(ev);
        if let Some(name) = it.next() {
            let name = self.ident(name);
            *event = Spanned::new(EventKind::Custom, name.span);
            *target = Some(name);
        }
        *params = it.map(|p| self.ident(p)).collect();
        true
    }

    /// `repeat n { }`, `repeat up to n until cond { }`; `until` without `up to` (and `up to`
    /// without `until`) are reported here, with the fix.
    pub(super) fn repeat(&mut self, head: Pair<Rule>, body: Block, span: Span) -> Option<Stmt> {
        let hspan = self.span(&head);
        let kind = match head.as_rule() {
            Rule::repeat_upto => {
                let mut exprs = children(head).filter(|p| p.as_rule() == Rule::expr);
                let npair = exprs.next()?;
                let ntext = npair.as_str().trim().to_string();
                let n = self.expr(npair);
                let cond = exprs.next().map(|c| self.expr(c));
                if cond.is_none() {
                    self.diags.push(
                        Diag::error(
                            "parse::repeat_until",
                            "`repeat up to N` needs `until condition`",
                        )
                        .label(hspan, "no `until` here")
                        .help(format!(
                            "write `repeat up to {} until done {{ ... }}`, or `repeat {} {{ ... }}` for a fixed count",
                            ntext, ntext
                        )),
                    );
                }
                StmtKind::RepeatUntil(n, cond, body)
            }
            Rule::repeat_until => {
                let cond = children(head).find(|p| p.as_rule() == Rule::expr);
                self.diags.push(
                    Diag::error("parse::repeat_bound", "`repeat until` needs a bound")
                        .label(hspan, "how many times at most?")
                        .help("every loop is bounded: write `repeat up to 10 until condition { ... }`"),
                );
                let cond = cond.map(|c| self.expr(c));
                StmtKind::RepeatUntil(
                    Expr {
                        kind: ExprKind::Int(0),
                        span: hspan,
                    },
                    cond,
                    body,
                )
            }
            _ => StmtKind::Repeat(self.expr(head), body),
        };
        Some(Stmt { kind, span })
    }

    /// `while cond { }`: there is no `while` (every loop is bounded). Reported here with the
    /// bounded loop that says the same; the loop is kept as `repeat up to 0 until not cond`, so
    /// the condition and the body are still checked.
    pub(super) fn while_loop(&mut self, cond: Pair<Rule>, body: Block, span: Span) -> Option<Stmt> {
        let cspan = self.span(&cond);
        let text = cond.as_str().trim().to_string();
        let head = Span {
            end: cspan.end,
            ..span
        };
        let negated = if text.contains(char::is_whitespace) {
            format!("not ({text})")
        } else {
            format!("not {text}")
        };
        self.diags.push(
            Diag::error("parse::while", "there is no `while`: every loop is bounded")
                .label(head, "a loop with no bound")
                .help(format!(
                    "write `repeat up to N until {negated} {{ ... }}`, with N the most passes the loop may make"
                )),
        );
        let cond = self.expr(cond);
        let not = Expr {
            span: cond.span,
            kind: ExprKind::Unary(UnOp::Not, Box::new(cond)),
        };
        let bound = Expr {
            kind: ExprKind::Int(0),
            span: head,
        };
        Some(Stmt {
            kind: StmtKind::RepeatUntil(bound, Some(not), body),
            span,
        })
    }

    /// `3 x`: how many copies a `cards` row makes.
    pub(super) fn copies(&mut self, pair: Pair<Rule>) -> u32 {
        let span = self.span(&pair);
        let n = children(pair)
            .next()
            .map(|p| self.int_value(&p))
            .unwrap_or(1);
        if !(1..=MAX_COPIES).contains(&n) {
            self.diags.push(
                Diag::error(
                    "parse::copies",
                    format!("a row makes 1 to {MAX_COPIES} copies, not {n}"),
                )
                .label(span, "here"),
            );
            return 1;
        }
        n as u32
    }
}

/// The cards one row makes: `3 x guard` is `guard`, `guard_2` and `guard_3`.
pub(super) fn copies_of(
    kind: Ident,
    id: Spanned<CardId>,
    fields: Vec<(Ident, Expr)>,
    span: Span,
    copies: Option<u32>,
) -> Vec<CardDecl> {
    let Some(n) = copies else {
        return vec![CardDecl {
            kind,
            id,
            fields,
            span,
            copy: None,
        }];
    };
    (1..=n)
        .map(|i| {
            let cid = if i == 1 {
                id.node.clone()
            } else {
                CardId::Name(format!("{}_{i}", id.node))
            };
            CardDecl {
                kind: kind.clone(),
                id: Spanned::new(cid, id.span),
                fields: fields.clone(),
                span,
                copy: Some((i, id.node.clone())),
            }
        })
        .collect()
}
