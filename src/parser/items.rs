//! Pairs to AST for declarations: game, enums, kinds, cards, zones, vars, functions, phases,
//! triggers, tables and card rules.

use super::*;

impl Builder {
    pub(super) fn file(&mut self, pair: Pair<Rule>) -> File {
        let mut items = Vec::new();
        for p in children(pair) {
            if p.as_rule() == Rule::EOI {
                continue;
            }
            if p.as_rule() == Rule::cards_decl {
                items.extend(self.cards_decl(p).into_iter().map(Item::Card));
            } else if let Some(item) = self.item(p) {
                items.push(item);
            }
        }
        File { items }
    }

    pub(super) fn item(&mut self, pair: Pair<Rule>) -> Option<Item> {
        Some(match pair.as_rule() {
            Rule::import_decl => Item::Import(self.import_decl(pair)),
            Rule::game_decl => Item::Game(self.game_decl(pair)),
            Rule::enum_decl => Item::Enum(self.enum_decl(pair)),
            Rule::kind_decl => Item::Kind(self.kind_decl(pair)),
            Rule::card_decl => Item::Card(self.card_decl(pair)),
            Rule::zone_decl => Item::Zone(self.zone_decl(pair)),
            Rule::var_decl => Item::Var(self.var_decl(pair)),
            Rule::const_decl => Item::Const(self.const_decl(pair)),
            Rule::fn_decl => Item::Fn(self.fn_decl(pair)),
            Rule::phase_decl => Item::Phase(self.phase_decl(pair)),
            Rule::setup_decl => Item::Setup(self.setup_decl(pair)),
            Rule::trigger_decl => Item::Trigger(self.trigger_decl(pair)),
            Rule::table_decl => Item::Table(self.table_decl(pair)),
            Rule::check_decl => Item::Check(Box::new(self.check_decl(pair))),
            Rule::face_decl => Item::Face(self.face_decl(pair)),
            Rule::screen_decl => Item::Screen(self.screen_decl(pair)),
            Rule::bot_decl => Item::Bot(self.bot_decl(pair)),
            Rule::option_decl => Item::Option(self.option_decl(pair)?),
            Rule::event_decl => Item::Event(self.event_decl(pair)?),
            Rule::allow_decl => Item::Allow(self.allow_decl(pair)),
            _ => return None,
        })
    }

    pub(super) fn import_decl(&mut self, pair: Pair<Rule>) -> Spanned<String> {
        let span = self.span(&pair);
        let s = children(pair).next().map(|p| self.plain_string(p));
        Spanned::new(s.unwrap_or_default(), span)
    }

    pub(super) fn allow_decl(&mut self, pair: Pair<Rule>) -> AllowDecl {
        let span = self.span(&pair);
        let mut code = Spanned::new(String::new(), span);
        let mut reason = Spanned::new(String::new(), span);
        for p in children(pair) {
            match p.as_rule() {
                Rule::diag_code => code = Spanned::new(p.as_str().to_string(), self.span(&p)),
                _ => {
                    let s = self.span(&p);
                    reason = Spanned::new(self.plain_string(p), s);
                }
            }
        }
        AllowDecl { code, reason, span }
    }

    pub(super) fn plain_string(&mut self, pair: Pair<Rule>) -> String {
        let mut out = String::new();
        for p in children(pair) {
            match p.as_rule() {
                Rule::str_text => out.push_str(&unescape(p.as_str())),
                _ => {
                    self.diags.push(
                        Diag::error("parse::interpolation", "interpolation is not allowed here")
                            .label(self.span(&p), "a plain text is expected"),
                    );
                }
            }
        }
        out
    }

    pub(super) fn game_decl(&mut self, pair: Pair<Rule>) -> GameDecl {
        let span = self.span(&pair);
        let mut it = children(pair);
        let name_pair = it.next();
        let name = match name_pair {
            Some(p) => {
                let sp = self.span(&p);
                Spanned::new(self.plain_string(p), sp)
            }
            None => Spanned::new(String::new(), span),
        };
        let mut entries = Vec::new();
        for e in it {
            let mut inner = children(e);
            if let (Some(k), Some(v)) = (inner.next(), inner.next()) {
                let key = self.ident(k);
                let value = self.expr(v);
                let (mut at_round_end, mut at) = (None, None);
                if let Some(p) = inner.next() {
                    let span = self.span(&p);
                    match p.as_rule() {
                        Rule::at_setup => at = Some((crate::ast::GroupsAt::Setup, span)),
                        Rule::at_end => at = Some((crate::ast::GroupsAt::End, span)),
                        _ => at_round_end = Some(span),
                    }
                }
                entries.push(GameEntry {
                    key,
                    value,
                    at_round_end,
                    at,
                });
            }
        }
        GameDecl {
            name,
            entries,
            span,
        }
    }

    pub(super) fn enum_decl(&mut self, pair: Pair<Rule>) -> EnumDecl {
        let mut name = None;
        let mut variants = Vec::new();
        let mut shown = Vec::new();
        for p in children(pair) {
            match p.as_rule() {
                Rule::ident => name = Some(self.ident(p)),
                Rule::variant => {
                    let mut parts = children(p);
                    if let Some(v) = parts.next() {
                        variants.push(self.ident(v));
                        shown.push(parts.next().map(|s| self.plain_string(s)));
                    }
                }
                _ => {}
            }
        }
        EnumDecl {
            name: name.unwrap_or_else(|| Spanned::new(String::new(), Span::default())),
            variants,
            shown,
        }
    }

    pub(super) fn type_expr(&mut self, pair: Pair<Rule>) -> Spanned<TypeExpr> {
        let span = self.span(&pair);
        let Some(inner) = children(pair).next() else {
            return Spanned::new(TypeExpr::Named(Spanned::new(String::new(), span)), span);
        };
        match inner.as_rule() {
            Rule::table_type => {
                let mut lo = 0;
                let mut hi = 0;
                let mut elem = None;
                for p in children(inner) {
                    match p.as_rule() {
                        Rule::key_range => {
                            let nums: Vec<Pair<Rule>> = children(p).collect();
                            lo = nums.first().map(|p| self.int_value(p)).unwrap_or(0);
                            hi = nums.get(1).map(|p| self.int_value(p)).unwrap_or(0);
                        }
                        Rule::type_expr => elem = Some(self.type_expr(p)),
                        _ => {}
                    }
                }
                let elem = elem.unwrap_or_else(|| {
                    Spanned::new(TypeExpr::Named(Spanned::new("any".into(), span)), span)
                });
                Spanned::new(TypeExpr::Table(lo, hi, Box::new(elem)), span)
            }
            Rule::list_type => {
                let elem = children(inner)
                    .next()
                    .map(|p| self.type_expr(p))
                    .unwrap_or_else(|| {
                        Spanned::new(TypeExpr::Named(Spanned::new("any".into(), span)), span)
                    });
                Spanned::new(TypeExpr::List(Box::new(elem)), span)
            }
            Rule::tuple_type => {
                let elems = children(inner).map(|p| self.type_expr(p)).collect();
                Spanned::new(TypeExpr::Tuple(elems), span)
            }
            Rule::fn_type => {
                let mut params = Vec::new();
                let mut ret = None;
                for p in children(inner) {
                    match p.as_rule() {
                        Rule::fn_type_param => {
                            let mut it = children(p);
                            if let (Some(n), Some(t)) = (it.next(), it.next()) {
                                params.push((self.ident(n), self.type_expr(t)));
                            }
                        }
                        Rule::type_expr => ret = Some(Box::new(self.type_expr(p))),
                        _ => {}
                    }
                }
                Spanned::new(TypeExpr::Fn(params, ret), span)
            }
            _ => Spanned::new(TypeExpr::Named(self.ident(inner)), span),
        }
    }

    pub(super) fn kind_decl(&mut self, pair: Pair<Rule>) -> KindDecl {
        let doc = self.doc(&pair);
        let mut it = children(pair);
        let name = it.next().map(|p| self.ident(p)).unwrap_or_default_ident();
        let (mut fields, mut describe) = (Vec::new(), Vec::new());
        for p in it {
            if p.as_rule() == Rule::describe_decl {
                let text = children(p).find(|c| c.as_rule() == Rule::string);
                if let Some(t) = text {
                    describe.push(self.primary(t));
                }
            } else {
                fields.push(self.field_decl(p));
            }
        }
        KindDecl {
            name,
            fields,
            describe,
            doc,
        }
    }

    pub(super) fn field_decl(&mut self, pair: Pair<Rule>) -> FieldDecl {
        let span = self.span(&pair);
        let mut mutable = false;
        let mut name = Spanned::new(String::new(), span);
        let mut ty = None;
        let mut default = None;
        let mut bounds = None;
        let mut unique = false;
        for p in children(pair) {
            match p.as_rule() {
                Rule::var_kw => mutable = true,
                Rule::unique_kw => unique = true,
                Rule::ident => name = self.ident(p),
                Rule::type_expr => ty = Some(self.type_expr(p)),
                Rule::bounds => bounds = Some(self.bounds(p)),
                Rule::expr => default = Some(self.expr(p)),
                _ => {}
            }
        }
        FieldDecl {
            mutable,
            bounds,
            unique,
            name,
            ty: ty.unwrap_or_else(|| {
                Spanned::new(TypeExpr::Named(Spanned::new("any".into(), span)), span)
            }),
            default,
        }
    }

    pub(super) fn card_id(&mut self, pair: Pair<Rule>) -> Spanned<CardId> {
        let span = self.span(&pair);
        let inner = children(pair).next();
        let id = match inner {
            Some(p) if p.as_rule() == Rule::int => CardId::Num(self.int_value(&p)),
            Some(p) => CardId::Name(p.as_str().to_string()),
            None => CardId::Name(String::new()),
        };
        Spanned::new(id, span)
    }

    pub(super) fn card_decl(&mut self, pair: Pair<Rule>) -> CardDecl {
        let span = self.span(&pair);
        let mut it = children(pair);
        let kind = it.next().map(|p| self.ident(p)).unwrap_or_default_ident();
        let id = match it.next() {
            Some(p) => self.card_id(p),
            None => Spanned::new(CardId::Name(String::new()), span),
        };
        let mut fields = Vec::new();
        for f in it {
            let mut inner = children(f);
            if let (Some(k), Some(v)) = (inner.next(), inner.next()) {
                let k = self.ident(k);
                fields.push((k, self.value(v)));
            }
        }
        CardDecl {
            kind,
            id,
            fields,
            span,
            copy: None,
        }
    }

    /// A `cards` table becomes one card declaration per row.
    pub(super) fn cards_decl(&mut self, pair: Pair<Rule>) -> Vec<CardDecl> {
        let mut kind = None;
        let mut columns: Vec<Ident> = Vec::new();
        let mut out = Vec::new();
        for p in children(pair) {
            match p.as_rule() {
                Rule::ident if kind.is_none() => kind = Some(self.ident(p)),
                Rule::ident => columns.push(self.ident(p)),
                Rule::card_row => {
                    let span = self.span(&p);
                    let mut it = children(p).peekable();
                    let copies = match it.peek() {
                        Some(c) if c.as_rule() == Rule::copies => it.next().map(|c| self.copies(c)),
                        _ => None,
                    };
                    let id = match it.next() {
                        Some(idp) => self.card_id(idp),
                        None => continue,
                    };
                    let mut values: Vec<Expr> = Vec::with_capacity(columns.len());
                    for v in it {
                        if v.as_rule() == Rule::row_lits {
                            values.extend(children(v).map(|c| self.value(c)));
                        } else {
                            values.push(self.value(v));
                        }
                    }
                    if values.len() != columns.len() {
                        self.diags.push(
                            Diag::error(
                                "parse::row_width",
                                format!(
                                    "this row has {} values but the table has {} columns",
                                    values.len(),
                                    columns.len()
                                ),
                            )
                            .label(span, "in this row")
                            .help(format!(
                                "the columns are: {}",
                                columns
                                    .iter()
                                    .map(|c| c.node.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )),
                        );
                        continue;
                    }
                    let fields: Vec<(Ident, Expr)> = columns.iter().cloned().zip(values).collect();
                    let kind = kind.clone().unwrap_or_default_ident();
                    out.extend(flow::copies_of(kind, id, fields, span, copies));
                }
                _ => {}
            }
        }
        out
    }

    pub(super) fn per_clause(&mut self, pair: Pair<Rule>) -> Vec<KeyType> {
        let mut keys = Vec::new();
        for k in children(pair) {
            let span = self.span(&k);
            let Some(inner) = children(k).next() else {
                continue;
            };
            match inner.as_rule() {
                Rule::key_range => {
                    let nums: Vec<Pair<Rule>> = children(inner).collect();
                    let lo = nums.first().map(|p| self.int_value(p)).unwrap_or(0);
                    let hi = nums.get(1).map(|p| self.int_value(p)).unwrap_or(0);
                    keys.push(KeyType::Range(lo, hi, span));
                }
                _ => keys.push(KeyType::Named(self.ident(inner))),
            }
        }
        keys
    }

    pub(super) fn zone_decl(&mut self, pair: Pair<Rule>) -> ZoneDecl {
        let mut name = None;
        let mut kind = None;
        let mut per = Vec::new();
        let mut visibility = Visibility::Public;
        for p in children(pair) {
            match p.as_rule() {
                Rule::ident if name.is_none() => name = Some(self.ident(p)),
                Rule::ident => kind = Some(self.ident(p)),
                Rule::per_clause => per = self.per_clause(p),
                Rule::visibility => visibility = visibility_of(p.as_str()),
                _ => {}
            }
        }
        ZoneDecl {
            name: name.unwrap_or_default_ident(),
            kind,
            per,
            visibility,
        }
    }

    pub(super) fn var_decl(&mut self, pair: Pair<Rule>) -> VarDecl {
        let span = self.span(&pair);
        let mut name = None;
        let mut ty = None;
        let mut bounds = None;
        let mut per = Vec::new();
        let mut visibility = Visibility::Public;
        let mut internal = false;
        let mut init = None;
        for p in children(pair) {
            match p.as_rule() {
                Rule::ident => name = Some(self.ident(p)),
                Rule::type_expr => ty = Some(self.type_expr(p)),
                Rule::bounds => bounds = Some(self.bounds(p)),
                Rule::per_clause => per = self.per_clause(p),
                Rule::visibility => visibility = visibility_of(p.as_str()),
                Rule::internal_kw => internal = true,
                Rule::expr => init = Some(self.expr(p)),
                _ => {}
            }
        }
        VarDecl {
            name: name.unwrap_or_default_ident(),
            ty: ty.unwrap_or_else(|| {
                Spanned::new(TypeExpr::Named(Spanned::new("any".into(), span)), span)
            }),
            bounds,
            per,
            visibility,
            internal,
            init: init.unwrap_or(Expr {
                kind: ExprKind::None,
                span,
            }),
        }
    }

    pub(super) fn bounds(&mut self, pair: Pair<Rule>) -> Bounds {
        let mut span = self.span(&pair);
        // The span ends with the last thing written, not the space after it.
        if let Some(last) = children(pair.clone()).last() {
            span.end = self.span(&last).end;
        }
        let mut refuse = false;
        let mut nums: Vec<Pair<Rule>> = Vec::new();
        for p in children(pair) {
            match p.as_rule() {
                Rule::bound_policy => refuse = p.as_str() == "refuse",
                _ => nums.push(p),
            }
        }
        let lo = nums.first().map(|p| self.int_value(p)).unwrap_or(0);
        let hi = nums.get(1).map(|p| self.int_value(p));
        Bounds {
            lo,
            hi,
            refuse,
            span,
        }
    }

    pub(super) fn face_decl(&mut self, pair: Pair<Rule>) -> FaceDecl {
        let span = self.span(&pair);
        let mut it = children(pair).filter(|p| p.as_rule() != Rule::face_kw);
        let var = it.next().map(|p| self.ident(p)).unwrap_or_default_ident();
        let kind = it.next().map(|p| self.ident(p)).unwrap_or_default_ident();
        let mut entries = Vec::new();
        for e in it {
            let mut parts = children(e);
            if let (Some(name), Some(value)) = (parts.next(), parts.next()) {
                entries.push((self.ident(name), self.expr(value)));
            }
        }
        FaceDecl {
            var,
            kind,
            entries,
            span,
        }
    }

    pub(super) fn screen_decl(&mut self, pair: Pair<Rule>) -> ScreenDecl {
        let span = self.span(&pair);
        let mut it = children(pair).filter(|p| p.as_rule() != Rule::screen_kw);
        let seat = it.next().map(|p| self.ident(p)).unwrap_or_default_ident();
        let mut lines = Vec::new();
        for e in it {
            let mut parts = children(e);
            if let (Some(label), Some(value)) = (parts.next(), parts.next()) {
                let span = self.span(&label);
                let label = Expr {
                    kind: ExprKind::Text(self.string(label)),
                    span,
                };
                lines.push((label, self.expr(value)));
            }
        }
        ScreenDecl { seat, lines, span }
    }

    pub(super) fn bot_decl(&mut self, pair: Pair<Rule>) -> BotDecl {
        let span = self.span(&pair);
        let doc = self.doc(&pair);
        let mut it = children(pair).filter(|p| p.as_rule() != Rule::bot_kw);
        let name = it.next().map(|p| self.ident(p)).unwrap_or_default_ident();
        let seat = it.next().map(|p| self.ident(p)).unwrap_or_default_ident();
        let rules = it.map(|r| self.prefer_rule(r)).collect();
        BotDecl {
            name,
            seat,
            rules,
            doc,
            span,
        }
    }

    pub(super) fn prefer_rule(&mut self, pair: Pair<Rule>) -> PreferRule {
        let span = self.span(&pair);
        let (mut var, mut ty, mut cond, mut value) = (None, None, None, None);
        for p in children(pair) {
            match p.as_rule() {
                Rule::ident => var = Some(self.ident(p)),
                Rule::type_expr => ty = Some(self.type_expr(p)),
                Rule::prefer_where => cond = children(p).next().map(|e| self.expr(e)),
                Rule::prefer_value => value = children(p).next().map(|e| self.expr(e)),
                _ => {}
            }
        }
        PreferRule {
            var: var.unwrap_or_else(|| Spanned::new(String::new(), span)),
            ty: ty.unwrap_or_else(|| {
                Spanned::new(TypeExpr::Named(Spanned::new("any".into(), span)), span)
            }),
            cond,
            value: value.unwrap_or(Expr {
                kind: ExprKind::None,
                span,
            }),
            span,
        }
    }

    pub(super) fn check_decl(&mut self, pair: Pair<Rule>) -> CheckDecl {
        let span = self.span(&pair);
        let mut warn = false;
        let mut var = None;
        let mut exprs: Vec<Expr> = Vec::new();
        let mut filter = None;
        let mut require = None;
        let mut help = None;
        let mut at = None;
        for p in children(pair) {
            match p.as_rule() {
                Rule::check_kw => warn = p.as_str() == "warn",
                Rule::ident if var.is_none() => var = Some(self.ident(p)),
                Rule::ident => at = Some(self.ident(p)),
                Rule::check_where => filter = children(p).next().map(|e| self.expr(e)),
                Rule::check_require => require = children(p).next().map(|e| self.expr(e)),
                Rule::check_help => help = children(p).next().map(|e| self.expr(e)),
                Rule::expr => exprs.push(self.expr(p)),
                _ => {}
            }
        }
        let none = || Expr {
            kind: ExprKind::None,
            span,
        };
        let mut exprs = exprs.into_iter();
        let source = exprs.next().unwrap_or_else(none);
        let message = exprs.next().unwrap_or_else(none);
        CheckDecl {
            warn,
            var: var.unwrap_or_default_ident(),
            source,
            filter,
            require: require.unwrap_or_else(none),
            message,
            at,
            help,
            span,
        }
    }

    pub(super) fn const_decl(&mut self, pair: Pair<Rule>) -> ConstDecl {
        let span = self.span(&pair);
        let mut it = children(pair);
        let name = it.next().map(|p| self.ident(p)).unwrap_or_default_ident();
        let value = it.next().map(|p| self.expr(p)).unwrap_or(Expr {
            kind: ExprKind::None,
            span,
        });
        ConstDecl { name, value }
    }

    pub(super) fn fn_decl(&mut self, pair: Pair<Rule>) -> FnDecl {
        let span = self.span(&pair);
        let doc = self.doc(&pair);
        let mut name = None;
        let mut params = Vec::new();
        let mut ret = None;
        let mut body = None;
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
                Rule::type_expr => ret = Some(self.type_expr(p)),
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
        FnDecl {
            name: name.unwrap_or_default_ident(),
            params,
            ret,
            body: body.unwrap_or(Expr {
                kind: ExprKind::None,
                span,
            }),
            doc,
        }
    }

    pub(super) fn phase_decl(&mut self, pair: Pair<Rule>) -> PhaseDecl {
        let span = self.span(&pair);
        let doc = self.doc(&pair);
        let mut it = children(pair);
        let name = it.next().map(|p| self.ident(p)).unwrap_or_default_ident();
        let mut each = None;
        let mut next = it.next();
        if let Some(p) = next.clone().filter(|p| p.as_rule() == Rule::phase_each) {
            let mut parts = children(p);
            let var = parts
                .next()
                .map(|p| self.ident(p))
                .unwrap_or_default_ident();
            if let Some(list) = parts.next().map(|e| self.expr(e)) {
                each = Some((var, list));
            }
            next = it.next();
        }
        let body = next.map(|b| self.block(b)).unwrap_or(Block {
            stmts: vec![],
            span,
        });
        PhaseDecl {
            name,
            each,
            body,
            doc,
        }
    }

    pub(super) fn setup_decl(&mut self, pair: Pair<Rule>) -> Block {
        let span = self.span(&pair);
        children(pair)
            .next()
            .map(|b| self.block(b))
            .unwrap_or(Block {
                stmts: vec![],
                span,
            })
    }

    pub(super) fn trigger_decl(&mut self, pair: Pair<Rule>) -> TriggerDecl {
        let span = self.span(&pair);
        let mut event = Spanned::new(EventKind::RoundStart, span);
        let mut target = None;
        let mut binding = None;
        let mut params = Vec::new();
        let mut condition = None;
        let mut body = Block {
            stmts: vec![],
            span,
        };
        for p in children(pair) {
            match p.as_rule() {
                Rule::event_pat if self.custom_event(&p, &mut event, &mut target, &mut params) => {}
                Rule::event_pat => {
                    // The target comes before `as`, the binding after it.
                    let mut after_as = false;
                    for q in children(p) {
                        match q.as_rule() {
                            Rule::ev_name => {
                                let k = match q.as_str() {
                                    "enter" => EventKind::Enter,
                                    "flip" => EventKind::Flip,
                                    "phase_start" => EventKind::PhaseStart,
                                    "phase_end" => EventKind::PhaseEnd,
                                    "round_end" => EventKind::RoundEnd,
                                    _ => EventKind::RoundStart,
                                };
                                event = Spanned::new(k, self.span(&q));
                            }
                            Rule::ev_keys => params = children(q).map(|k| self.ident(k)).collect(),
                            Rule::as_kw => after_as = true,
                            Rule::ident if after_as => binding = Some(self.ident(q)),
                            Rule::ident => target = Some(self.ident(q)),
                            _ => {}
                        }
                    }
                }
                Rule::expr => condition = Some(self.expr(p)),
                Rule::block => body = self.block(p),
                _ => {}
            }
        }
        TriggerDecl {
            event,
            target,
            params,
            binding,
            condition,
            body,
        }
    }

    pub(super) fn table_decl(&mut self, pair: Pair<Rule>) -> TableDecl {
        let span = self.span(&pair);
        let mut name = None;
        let mut types = Vec::new();
        let mut entries = Vec::new();
        for p in children(pair) {
            match p.as_rule() {
                Rule::ident => name = Some(self.ident(p)),
                Rule::type_expr => types.push(self.type_expr(p)),
                Rule::table_entry => {
                    let mut it = children(p);
                    if let (Some(pat), Some(v)) = (it.next(), it.next()) {
                        let pat = self.pattern(pat);
                        entries.push((pat, self.expr(v)));
                    }
                }
                _ => {}
            }
        }
        let any = || Spanned::new(TypeExpr::Named(Spanned::new("any".into(), span)), span);
        let mut types = types.into_iter();
        TableDecl {
            name: name.unwrap_or_default_ident(),
            key_ty: types.next().unwrap_or_else(any),
            val_ty: types.next().unwrap_or_else(any),
            entries,
        }
    }

    pub(super) fn pattern(&mut self, pair: Pair<Rule>) -> Spanned<Pattern> {
        let span = self.span(&pair);
        let Some(inner) = children(pair).next() else {
            return Spanned::new(Pattern::Wildcard, span);
        };
        let pat = match inner.as_rule() {
            Rule::wildcard => Pattern::Wildcard,
            Rule::pat_range => {
                let atoms: Vec<Pair<Rule>> =
                    children(inner).filter_map(|a| children(a).next()).collect();
                let is_int = |p: &Pair<Rule>| p.as_rule() == Rule::neg_int;
                match atoms.as_slice() {
                    [a] if is_int(a) => Pattern::Int(self.int_value(a)),
                    [a] => Pattern::Name(a.as_str().to_string()),
                    [a, b] if is_int(a) && is_int(b) => {
                        let (x, y) = (self.int_value(a), self.int_value(b));
                        Pattern::Range(x, y)
                    }
                    [a, b] => Pattern::NamedRange(a.as_str().to_string(), b.as_str().to_string()),
                    _ => Pattern::Wildcard,
                }
            }
            Rule::string => Pattern::Text(self.plain_string(inner)),
            _ => Pattern::Name(inner.as_str().to_string()),
        };
        Spanned::new(pat, span)
    }
}
