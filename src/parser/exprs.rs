//! Pairs to AST for expressions: operators by precedence (`PrattParser`), postfix chains,
//! primaries, patterns and strings.

use super::*;

impl Builder {
    pub(super) fn expr(&mut self, pair: Pair<Rule>) -> Expr {
        if self.depth < self.max_depth {
            // One operand and no operator (a card's cell, an argument): no precedence to
            // resolve, and the span of `pair` is not needed.
            let mut operands = pair.clone().into_inner();
            if let (Some(only), None) = (operands.next(), operands.next()) {
                if only.as_rule() == Rule::postfix_expr {
                    self.depth += 1;
                    let e = self.postfix_expr(only);
                    self.leave();
                    return e;
                }
            }
        }
        let span = self.span(&pair);
        if !self.enter(span) {
            return Expr {
                kind: ExprKind::None,
                span,
            };
        }
        // A chain of operators builds a tree as deep as the chain is long (`1 + 1 + ... + 1`), and
        // every later walk over the tree recurses that deep: each operator counts as a level, so
        // the depth limit bounds the tree, whatever the stack.
        let ops = pair
            .clone()
            .into_inner()
            .filter(|p| is_operator(p.as_rule()))
            .count();
        for entered in 0..ops {
            if !self.enter(span) {
                for _ in 0..=entered {
                    self.leave();
                }
                return Expr {
                    kind: ExprKind::None,
                    span,
                };
            }
        }
        let file = self.file;
        let result = PRATT
            .map_primary(|p| self.postfix_expr(p))
            .map_prefix(|op, rhs| {
                let sp = Span::new(file, op.as_span().start(), 0).to(rhs.span);
                let sp = Span {
                    start: op.as_span().start() as u32,
                    ..sp
                };
                let op = if op.as_rule() == Rule::neg {
                    UnOp::Neg
                } else {
                    UnOp::Not
                };
                Expr {
                    kind: ExprKind::Unary(op, Box::new(rhs)),
                    span: sp,
                }
            })
            .map_infix(|lhs, op, rhs| {
                let bop = match op.as_rule() {
                    Rule::add => BinOp::Add,
                    Rule::sub => BinOp::Sub,
                    Rule::mul => BinOp::Mul,
                    Rule::div => BinOp::Div,
                    Rule::rem => BinOp::Rem,
                    Rule::eq => BinOp::Eq,
                    Rule::ne => BinOp::Ne,
                    Rule::lt => BinOp::Lt,
                    Rule::le => BinOp::Le,
                    Rule::gt => BinOp::Gt,
                    Rule::ge => BinOp::Ge,
                    Rule::and_op => BinOp::And,
                    Rule::or_op => BinOp::Or,
                    _ => BinOp::Range,
                };
                let sp = lhs.span.to(rhs.span);
                Expr {
                    kind: ExprKind::Binary(bop, Box::new(lhs), Box::new(rhs)),
                    span: sp,
                }
            })
            .parse(pair.into_inner());
        for _ in 0..=ops {
            self.leave();
        }
        result
    }

    /// A value where the grammar takes a `lit` (one literal, see `lit` in the grammar) or an
    /// `expr`: card cells and fields, list items, arguments. A literal counts a level, as the
    /// `expr` around it would have.
    pub(super) fn value(&mut self, pair: Pair<Rule>) -> Expr {
        if pair.as_rule() == Rule::expr {
            return self.expr(pair);
        }
        let span = self.span(&pair);
        if !self.enter(span) {
            return Expr {
                kind: ExprKind::None,
                span,
            };
        }
        let e = self.primary(pair);
        self.leave();
        e
    }

    pub(super) fn postfix_expr(&mut self, pair: Pair<Rule>) -> Expr {
        let mut it = children(pair);
        let Some(first) = it.next() else {
            return Expr {
                kind: ExprKind::None,
                span: Span::default(),
            };
        };
        // Each `.field`, `[key]` or `(args)` wraps the tree once more: a level each (see `expr`).
        let Some(post) = it.next() else {
            return self.primary(first);
        };
        let posts: Vec<Pair<Rule>> = std::iter::once(post).chain(it).collect();
        let span0 = self.span(&first);
        for entered in 0..posts.len() {
            if !self.enter(span0) {
                for _ in 0..=entered {
                    self.leave();
                }
                return Expr {
                    kind: ExprKind::None,
                    span: span0,
                };
            }
        }
        let n_posts = posts.len();
        let e = self.postfix_chain(first, posts);
        for _ in 0..n_posts {
            self.leave();
        }
        e
    }

    pub(super) fn postfix_chain(&mut self, first: Pair<Rule>, posts: Vec<Pair<Rule>>) -> Expr {
        let mut e = self.primary(first);
        for post in posts {
            let pspan = self.span(&post);
            let span = e.span.to(pspan);
            let kind = match post.as_rule() {
                Rule::field_access => {
                    let Some(name) = children(post).next() else {
                        continue;
                    };
                    let name = self.ident(name);
                    ExprKind::Field(Box::new(e), name)
                }
                Rule::index => {
                    let args = children(post).map(|p| self.value(p)).collect();
                    ExprKind::Index(Box::new(e), args)
                }
                Rule::call_args => {
                    let args = children(post).map(|p| self.value(p)).collect();
                    ExprKind::Call(Box::new(e), args)
                }
                _ => continue,
            };
            e = Expr { kind, span };
        }
        e
    }

    pub(super) fn primary(&mut self, pair: Pair<Rule>) -> Expr {
        let span = self.span(&pair);
        let kind = match pair.as_rule() {
            Rule::int => ExprKind::Int(self.int_value(&pair)),
            Rule::string => ExprKind::Text(self.string(pair)),
            Rule::true_lit => ExprKind::Bool(true),
            Rule::false_lit => ExprKind::Bool(false),
            Rule::none_lit => ExprKind::None,
            Rule::card_ref => {
                let body = pair.as_str().get(1..).unwrap_or("");
                ExprKind::CardRef(match body.parse::<i64>() {
                    Ok(n) if body.bytes().all(|b| b.is_ascii_digit()) => CardId::Num(n),
                    _ => CardId::Name(body.to_string()),
                })
            }
            Rule::if_expr => return self.if_expr(pair),
            Rule::match_expr => {
                let mut it = children(pair);
                let Some(scrut) = it.next() else {
                    return Expr {
                        kind: ExprKind::None,
                        span,
                    };
                };
                let scrut = self.expr(scrut);
                let mut arms = Vec::new();
                for arm in it {
                    let mut patterns = Vec::new();
                    let mut body = None;
                    for p in children(arm) {
                        match p.as_rule() {
                            Rule::pattern => patterns.push(self.pattern(p)),
                            _ => body = Some(self.expr(p)),
                        }
                    }
                    if let Some(body) = body {
                        arms.push(MatchArm { patterns, body });
                    }
                }
                ExprKind::Match(Box::new(scrut), arms)
            }
            Rule::aggregate => {
                let mut kind = AggKind::Count;
                let mut var = None;
                let mut source = None;
                let mut filter = None;
                let mut map = None;
                // The tree tells the source, `where cond` and `=> value` apart (never the text
                // between them, which may hold comments).
                for p in children(pair) {
                    match p.as_rule() {
                        Rule::agg_kw => {
                            kind = match p.as_str() {
                                "sum" => AggKind::Sum,
                                "min" => AggKind::Min,
                                "max" => AggKind::Max,
                                "any" => AggKind::Any,
                                "all" => AggKind::All,
                                "filter" => AggKind::Filter,
                                "map" => AggKind::Map,
                                "best" => AggKind::Best,
                                "first" => AggKind::First,
                                "sort" => AggKind::Sort,
                                _ => AggKind::Count,
                            }
                        }
                        Rule::ident => var = Some(self.ident(p)),
                        Rule::expr => source = Some(Box::new(self.expr(p))),
                        Rule::agg_where => {
                            filter = children(p).next().map(|e| Box::new(self.expr(e)));
                        }
                        Rule::agg_map => {
                            map = children(p).next().map(|e| Box::new(self.expr(e)));
                        }
                        _ => {}
                    }
                }
                ExprKind::Agg {
                    kind,
                    var: var.unwrap_or_default_ident(),
                    source: source.unwrap_or_else(|| {
                        Box::new(Expr {
                            kind: ExprKind::None,
                            span,
                        })
                    }),
                    filter,
                    map,
                }
            }
            Rule::block => ExprKind::Block(self.block(pair)),
            Rule::fn_lit => {
                let mut params = Vec::new();
                let mut body = None;
                for p in children(pair) {
                    match p.as_rule() {
                        Rule::ident => params.push(self.ident(p)),
                        Rule::fn_body => {
                            let bspan = self.span(&p);
                            if let Some(inner) = children(p).next() {
                                body = Some(match inner.as_rule() {
                                    Rule::block => Expr {
                                        kind: ExprKind::Block(self.block(inner)),
                                        span: bspan,
                                    },
                                    _ => self.expr(inner),
                                });
                            }
                        }
                        _ => {}
                    }
                }
                let body = body.unwrap_or(Expr {
                    kind: ExprKind::None,
                    span,
                });
                ExprKind::FnLit(params, Box::new(body))
            }
            Rule::table_lit => {
                let mut entries = Vec::new();
                for e in children(pair) {
                    let mut it = children(e);
                    if let (Some(pat), Some(v)) = (it.next(), it.next()) {
                        let pat = self.pattern(pat);
                        entries.push((pat, self.expr(v)));
                    }
                }
                ExprKind::TableLit(entries)
            }
            Rule::list_lit => {
                if !self.enter(span) {
                    return Expr {
                        kind: ExprKind::None,
                        span,
                    };
                }
                let items = children(pair).map(|p| self.value(p)).collect();
                self.leave();
                ExprKind::List(items)
            }
            Rule::paren => {
                let mut trailing_comma = false;
                let mut items: Vec<Expr> = Vec::new();
                for p in children(pair) {
                    if p.as_rule() == Rule::trailing_comma {
                        trailing_comma = true;
                    } else {
                        items.push(self.value(p));
                    }
                }
                if items.len() == 1 && !trailing_comma {
                    let mut e = items.remove(0);
                    e.span = span;
                    return e;
                }
                ExprKind::Tuple(items)
            }
            Rule::ident => ExprKind::Name(pair.as_str().to_string()),
            _ => ExprKind::None,
        };
        Expr { kind, span }
    }

    pub(super) fn if_expr(&mut self, pair: Pair<Rule>) -> Expr {
        let span = self.span(&pair);
        let mut it = children(pair);
        let (Some(c), Some(b)) = (it.next(), it.next()) else {
            return Expr {
                kind: ExprKind::None,
                span,
            };
        };
        let cond = self.expr(c);
        let then = self.block(b);
        let els = it.next().map(|p| {
            let pspan = self.span(&p);
            Box::new(match p.as_rule() {
                Rule::if_expr => {
                    if self.enter(pspan) {
                        let e = self.if_expr(p);
                        self.leave();
                        e
                    } else {
                        Expr {
                            kind: ExprKind::None,
                            span: pspan,
                        }
                    }
                }
                _ => Expr {
                    kind: ExprKind::Block(self.block(p)),
                    span: pspan,
                },
            })
        });
        Expr {
            kind: ExprKind::If(Box::new(cond), then, els),
            span,
        }
    }

    pub(super) fn string(&mut self, pair: Pair<Rule>) -> Vec<StrPart> {
        let mut parts = Vec::new();
        for p in children(pair) {
            match p.as_rule() {
                Rule::str_text => parts.push(StrPart::Text(unescape(p.as_str()))),
                Rule::interp => {
                    if let Some(e) = children(p).next() {
                        parts.push(StrPart::Expr(self.expr(e)));
                    }
                }
                _ => {}
            }
        }
        parts
    }
}
