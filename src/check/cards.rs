//! Cards and tables: constant field values, table keys and their coverage, `unique` fields,
//! card references, and `table` declarations.

use super::*;
use crate::ast::{self, CardId, UnOp};
use crate::diag::{did_you_mean, Diag, Span};
use crate::program::*;
use crate::value::Value;

/// The most cards one "missing field" diagnostic marks; it counts the rest.
const MAX_MARKED: usize = 5;

/// A card without some of its kind's required fields.
pub(super) struct MissingFields {
    kind: Id,
    fields: Vec<String>,
    card: String,
    span: Span,
}

impl Checker {
    /// One diagnostic for all the cards of a kind that miss the same required fields (a field
    /// added to a kind is missing from every card at once): it marks the first few and counts
    /// the rest, with one help line.
    pub(super) fn report_missing_fields(&mut self) {
        let all = std::mem::take(&mut self.missing_fields);
        let mut groups: Vec<(Id, &[String], Vec<&MissingFields>)> = Vec::new();
        for m in &all {
            match groups
                .iter_mut()
                .find(|(k, f, _)| *k == m.kind && *f == &m.fields[..])
            {
                Some((_, _, cards)) => cards.push(m),
                None => groups.push((m.kind, &m.fields, vec![m])),
            }
        }
        for (kind, fields, cards) in groups {
            let Some(kd) = self.prog.kinds.get(kind as usize) else {
                continue;
            };
            let kname = kd.name.clone();
            let list = fields
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let s = if fields.len() > 1 { "s" } else { "" };
            let d = match &cards[..] {
                [one] => Diag::error(
                    "check::missing_field",
                    format!("card `{}` is missing required field{s} {list}", one.card),
                )
                .label(one.span, format!("this `{kname}` card"))
                .help(format!(
                    "add {list} or give the field a default in `kind {kname}`"
                )),
                _ => {
                    let n = cards.len();
                    // Copies of one row share its place: each place is marked once.
                    let mut spans: Vec<Span> = Vec::new();
                    for m in &cards {
                        if !spans.contains(&m.span) {
                            spans.push(m.span);
                        }
                    }
                    let marked = spans.len().min(MAX_MARKED);
                    let mut d = Diag::error(
                        "check::missing_field",
                        format!("{n} `{kname}` cards are missing required field{s} {list}"),
                    );
                    for (i, span) in spans.iter().take(MAX_MARKED).enumerate() {
                        let text = if i == 0 {
                            format!("no {list}")
                        } else {
                            String::new()
                        };
                        d = d.label(*span, text);
                    }
                    for f in kd.fields.iter().filter(|f| fields.contains(&f.name)) {
                        d = d.label(f.span, "declared here without a default");
                    }
                    let which = if spans.len() > marked {
                        format!("each of the {n} cards (the first {marked} places are marked)")
                    } else {
                        format!("each of the {n} cards")
                    };
                    d.help(format!(
                        "add {list} to {which}, or give the field{s} a default in `kind {kname}`"
                    ))
                }
            };
            self.err(d);
        }
    }

    /// Checks one card. `kinds` are the kinds as pass 2 left them (shared by every card, so a
    /// card costs no copy of its kind).
    pub(super) fn card(&mut self, id: Id, c: &ast::CardDecl, kinds: &[std::rc::Rc<KindDef>]) {
        let Some(kind) = self.resolve_kind(&c.kind) else {
            return;
        };
        let Some(kd) = kinds.get(kind as usize) else {
            return;
        };
        let mut statics: Vec<Option<Value>> =
            vec![None; kd.fields.iter().filter(|f| !f.mutable).count()];
        let mut vars: Vec<Option<Value>> = vec![None; kd.var_count as usize];
        let mut seen: Vec<&str> = Vec::new();
        let mut field_spans = Vec::new();
        for (name, e) in &c.fields {
            if seen.contains(&name.node.as_str()) {
                self.err(
                    Diag::error(
                        "check::duplicate_field",
                        format!("field `{}` is given twice", name.node),
                    )
                    .label(name.span, "again here"),
                );
                continue;
            }
            seen.push(&name.node);
            let Some(fd) = kd.fields.iter().find(|f| f.name == name.node) else {
                let help = did_you_mean(&name.node, kd.fields.iter().map(|f| f.name.as_str()));
                self.err(
                    Diag::error(
                        "check::unknown_field",
                        format!("kind `{}` has no field `{}`", kd.name, name.node),
                    )
                    .label(name.span, "unknown field")
                    .maybe_help(help.or_else(|| {
                        Some(format!(
                            "the fields of `{}` are: {}",
                            kd.name,
                            kd.fields
                                .iter()
                                .map(|f| f.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                    })),
                );
                continue;
            };
            // A bad value is reported once; the field still counts as given.
            let v = if let Ty::Fn(..) = fd.ty {
                // Code: checked with the kind's declaration, lowered later.
                let owner = c.id.node.to_string();
                self.card_fn_value(&kd.name, &owner, Some(id), &fd.name, &fd.ty, e)
                    .unwrap_or(Value::None)
            } else {
                let v = self.const_value(e).unwrap_or(Value::None);
                self.check_value_ty(&v, &fd.ty, e, &fd.name);
                v
            };
            field_spans.push((fd.sym, e.span));
            if let (Some((lo, hi)), Value::Int(x)) = (fd.bounds, &v) {
                if *x < lo || *x > hi {
                    let range = if hi == i64::MAX {
                        format!("at least {lo}")
                    } else {
                        format!("within {lo}..{hi}")
                    };
                    self.err(
                        Diag::error(
                            "check::field_bounds",
                            format!("field `{}` must be {range}, found {x}", fd.name),
                        )
                        .label(e.span, format!("{x} is out of bounds"))
                        .label(
                            fd.span,
                            format!("`{}` is declared with bounds here", fd.name),
                        )
                        .help(if *x < 0 && lo >= 0 {
                            "costs and thresholds cannot be negative".to_string()
                        } else {
                            format!("use a value {range}")
                        }),
                    );
                }
            }
            let mut v = v;
            if let Some((lo, hi)) = fd.cover {
                // Entries that lose rank 1 to an `A` entry start at 2 in the stored table.
                for i in self.coverage(e, lo, hi, &fd.name) {
                    if let Value::List(items) = &mut v {
                        if let Some(t) = std::rc::Rc::make_mut(items).get_mut(i) {
                            if let Some(entry) = t.tuple_items() {
                                let mut entry = entry.to_vec();
                                if let Some(first) = entry.first_mut() {
                                    *first = Value::Int(2);
                                }
                                *t = Value::tuple(entry);
                            }
                        }
                    }
                }
            }
            if let Some(Some((m, slot))) = kd.slot_of.get(fd.sym as usize) {
                if *m {
                    vars[*slot as usize] = Some(v);
                } else {
                    statics[*slot as usize] = Some(v);
                }
            }
        }
        let mut missing = Vec::new();
        for fd in &kd.fields {
            let Some(Some((m, slot))) = kd.slot_of.get(fd.sym as usize).copied() else {
                continue;
            };
            let cell = if m {
                &mut vars[slot as usize]
            } else {
                &mut statics[slot as usize]
            };
            if cell.is_none() {
                match &fd.default {
                    Some(d) => *cell = Some(d.clone()),
                    None if m => *cell = Some(Value::None),
                    None => missing.push(fd.name.clone()),
                }
            }
        }
        if !missing.is_empty() {
            // Reported once for every card of the kind missing the same fields.
            self.missing_fields.push(MissingFields {
                kind,
                fields: missing,
                card: c.id.node.to_string(),
                span: c.id.span,
            });
        }
        let cd = &mut self.prog.cards[id as usize];
        cd.field_spans = field_spans;
        cd.kind = kind;
        cd.fields = statics
            .into_iter()
            .map(|v| v.unwrap_or(Value::None))
            .collect();
        cd.vars = vars.into_iter().map(|v| v.unwrap_or(Value::None)).collect();
    }

    /// The keys a table entry covers. In tables over card ranks 1..13, `A`, `J`, `Q` and `K`
    /// name 1, 11, 12 and 13. `_` is every key no other entry covers.
    pub(super) fn table_key(
        &mut self,
        p: &ast::Spanned<ast::Pattern>,
        domain: (i64, i64),
    ) -> Option<(i64, i64)> {
        match &p.node {
            ast::Pattern::Int(n) => Some((*n, *n)),
            ast::Pattern::Range(a, b) => {
                if a > b {
                    self.err(
                        Diag::error("check::table_key", "this key range is empty")
                            .label(p.span, format!("{a} > {b}")),
                    );
                    return None;
                }
                Some((*a, *b))
            }
            ast::Pattern::Wildcard => None,
            ast::Pattern::Name(n) if domain == (1, 13) && rank(n).is_some() => {
                rank(n).map(|k| (k, k))
            }
            ast::Pattern::NamedRange(a, b)
                if domain == (1, 13) && rank(a).is_some() && rank(b).is_some() =>
            {
                let (x, y) = (rank(a).unwrap_or(0), rank(b).unwrap_or(0));
                if x > y {
                    self.err(
                        Diag::error("check::table_key", "this key range is empty")
                            .label(p.span, format!("{a} > {b}")),
                    );
                    return None;
                }
                Some((x, y))
            }
            _ => {
                let help = if domain == (1, 13) {
                    "keys are numbers, ranges like `2..10`, the ranks `A`, `J`, `Q`, `K`, or `_` for the rest"
                } else {
                    "keys are numbers, ranges like `2..4`, or `_` for the rest"
                };
                self.err(
                    Diag::error("check::table_key", "this is not a table key")
                        .label(p.span, "not a key")
                        .help(help),
                );
                None
            }
        }
    }

    /// A table literal given for a `table lo..hi of T` field must cover every key exactly once.
    /// Over card ranks, an entry written `A` wins rank 1 over a number range starting at 1 (as in
    /// rulebooks that list "1-2" and "A"): returns the indexes of entries whose first key moves
    /// from 1 to 2, after a warning that says so.
    pub(super) fn coverage(&mut self, e: &ast::Expr, lo: i64, hi: i64, field: &str) -> Vec<usize> {
        let ast::ExprKind::TableLit(entries) = &e.kind else {
            return Vec::new();
        };
        let rank_table = (lo, hi) == (1, 13);
        let written_ace = |p: &ast::Pattern| {
            matches!(p, ast::Pattern::Name(n) if n == "A")
                || matches!(p, ast::Pattern::NamedRange(n, _) if n == "A")
        };
        let ace_entry = entries
            .iter()
            .find(|(p, _)| written_ace(&p.node))
            .map(|(p, _)| p.span);
        let mut shifted = Vec::new();
        let mut covered: std::collections::BTreeMap<i64, (i64, Span)> =
            std::collections::BTreeMap::new();
        let mut wildcard = false;
        for (i, (pat, _)) in entries.iter().enumerate() {
            if matches!(pat.node, ast::Pattern::Wildcard) {
                wildcard = true;
                continue;
            }
            let Some((mut a, mut b)) = self.table_key(pat, (lo, hi)) else {
                continue;
            };
            if a < lo || b > hi {
                self.err(
                    Diag::error(
                        "check::table_key",
                        format!(
                            "field `{field}` is a table over {lo}..{hi}; this key is outside it"
                        ),
                    )
                    .label(
                        pat.span,
                        format!(
                            "{} is not in {lo}..{hi}",
                            if a == b {
                                a.to_string()
                            } else {
                                format!("{a}..{b}")
                            }
                        ),
                    )
                    .help(if (lo, hi) == (1, 6) {
                        "a die has faces 1 to 6".to_string()
                    } else {
                        format!("keys run from {lo} to {hi}")
                    }),
                );
                // What lies inside the range still counts, so one mistake gives one error.
                a = a.max(lo);
                b = b.min(hi);
                if a > b {
                    continue;
                }
            }
            if let (true, Some(ace), false, 1) = (rank_table, ace_entry, written_ace(&pat.node), a)
            {
                let rest = if b > 1 {
                    format!("2..{b}")
                } else {
                    "nothing".to_string()
                };
                self.err(
                    Diag::warning("check::ace", "this table lists both `1` and `A`")
                        .label(ace, "`A` is the Ace: rank 1")
                        .label(pat.span, format!("so this entry covers {rest}"))
                        .help("the checker reads `A` as rank 1 and lets the `A` entry win it over a number range that starts at 1; write the range from 2 to say so and silence this warning"),
                );
                shifted.push(i);
                a = 2;
                if a > b {
                    continue;
                }
            }
            // `covered` holds disjoint, merged ranges by first key: an entry meets only its
            // neighbours, and merging keeps the walk O(n log n) in the number of entries.
            let mut lo_merge = a;
            let mut hi_merge = b;
            let mut merged_span = pat.span;
            let overlapping: Vec<i64> = covered
                .range(..=b)
                .rev()
                .take_while(|(_, (y, _))| *y >= a)
                .map(|(x, _)| *x)
                .collect();
            for x in overlapping.into_iter().rev() {
                let Some((y, span)) = covered.remove(&x) else {
                    continue;
                };
                let (p, q) = (a.max(x), b.min(y));
                let keys = if p == q {
                    format!("key {p} is")
                } else {
                    format!("keys {p}..{q} are")
                };
                self.err(
                    Diag::error(
                        "check::table_overlap",
                        format!("in field `{field}`, {keys} covered twice"),
                    )
                    .label(pat.span, "this entry")
                    .label(span, "overlaps this one")
                    .help("every key must be covered exactly once"),
                );
                if x < lo_merge {
                    merged_span = span;
                }
                lo_merge = lo_merge.min(x);
                hi_merge = hi_merge.max(y);
            }
            covered.insert(lo_merge, (hi_merge, merged_span));
        }
        if wildcard {
            return shifted;
        }
        let mut missing: Vec<String> = Vec::new();
        let name = |n: i64| -> String {
            match (rank_table, n) {
                (true, 1) => "A".into(),
                (true, 11) => "J".into(),
                (true, 12) => "Q".into(),
                (true, 13) => "K".into(),
                _ => n.to_string(),
            }
        };
        // The gaps between the covered ranges, in order (at most nine are named).
        let mut next = Some(lo);
        let gap = |start: i64, end: i64, missing: &mut Vec<String>| {
            missing.push(if start == end {
                name(start)
            } else {
                format!("{}..{}", name(start), name(end))
            });
        };
        for (&x, &(y, _)) in &covered {
            let Some(k) = next else { break };
            if missing.len() > 8 {
                break;
            }
            if x > k {
                gap(k, x - 1, &mut missing);
            }
            next = if y >= hi { None } else { Some(k.max(y + 1)) };
        }
        if let Some(k) = next {
            if missing.len() <= 8 {
                gap(k, hi, &mut missing);
            }
        }
        if !missing.is_empty() {
            let what = match (lo, hi) {
                (1, 6) => "die faces",
                (1, 13) => "ranks",
                _ => "keys",
            };
            self.err(
                Diag::error(
                    "check::table_gap",
                    format!(
                        "field `{field}` does not cover {what} {}",
                        missing.join(", ")
                    ),
                )
                .label(
                    e.span,
                    format!("this table must cover {lo}..{hi} exactly once"),
                )
                .help(format!(
                    "add entries for {}, or `_: ...` for every key not listed",
                    missing.join(", ")
                )),
            );
        }
        shifted
    }

    /// `unique` fields: no two cards of a kind may share a value.
    pub(super) fn check_unique(&mut self) {
        for (k, kd) in self.prog.kinds.clone().iter().enumerate() {
            for fd in kd.fields.iter().filter(|f| f.unique && !f.mutable) {
                let Some(Some((false, slot))) = kd.slot_of.get(fd.sym as usize).copied() else {
                    continue;
                };
                // Copies of one row (`3 x guard: ...`) share their values: they count once.
                let mut seen: std::collections::HashMap<&Value, Span> =
                    std::collections::HashMap::new();
                let mut rows: std::collections::HashSet<&CardId> = std::collections::HashSet::new();
                for cd in self.prog.cards.iter().filter(|c| c.kind == k as Id) {
                    let Some(v) = cd.fields.get(slot as usize) else {
                        continue;
                    };
                    if *v == Value::None {
                        continue;
                    }
                    if let Some((_, row)) = &cd.copy {
                        if !rows.insert(row) {
                            continue;
                        }
                    }
                    let span = cd
                        .field_spans
                        .iter()
                        .find(|(s, _)| *s == fd.sym)
                        .map(|(_, sp)| *sp)
                        .unwrap_or(cd.span);
                    if let Some(first) = seen.get(v) {
                        let shown = match v {
                            Value::Text(t) => format!("\"{t}\""),
                            Value::Int(n) => n.to_string(),
                            Value::Enum(e, x) => self
                                .prog
                                .enums
                                .get(*e as usize)
                                .and_then(|en| en.variants.get(*x as usize))
                                .map(|n| format!("`{n}`"))
                                .unwrap_or_else(|| "this value".into()),
                            _ => "this value".into(),
                        };
                        self.diags.push(
                            Diag::error(
                                "check::duplicate_value",
                                format!("two `{}` cards have the {} {shown}", kd.name, fd.name),
                            )
                            .label(span, "again here")
                            .label(*first, "first here")
                            .help(format!(
                                "`{}` is declared `unique` in `kind {}`",
                                fd.name, kd.name
                            )),
                        );
                    } else {
                        seen.insert(v, span);
                    }
                }
            }
        }
    }

    /// Card field values are constant: literals, variants, card references, lists, tuples.
    pub(super) fn const_value(&mut self, e: &ast::Expr) -> Option<Value> {
        use ast::ExprKind as E;
        Some(match &e.kind {
            E::Int(n) => Value::Int(*n),
            E::Bool(b) => Value::Bool(*b),
            E::None => Value::None,
            E::Text(parts) => {
                // Most texts are one piece: copied once.
                match parts.as_slice() {
                    [] => return Some(Value::text("")),
                    [ast::StrPart::Text(t)] => return Some(Value::text(t)),
                    _ => {}
                }
                let mut s = String::new();
                for p in parts {
                    match p {
                        ast::StrPart::Text(t) => s.push_str(t),
                        ast::StrPart::Expr(x) => {
                            self.err(
                                Diag::error(
                                    "check::not_constant",
                                    "card fields cannot interpolate",
                                )
                                .label(x.span, "a constant text is expected"),
                            );
                            return None;
                        }
                    }
                }
                Value::text(&s)
            }
            E::Unary(UnOp::Neg, inner) => match self.const_value(inner)? {
                Value::Int(n) => Value::Int(n.checked_neg().unwrap_or(i64::MAX)),
                _ => {
                    self.err(
                        Diag::error("check::type", "only numbers can be negated")
                            .label(e.span, "here"),
                    );
                    return None;
                }
            },
            E::CardRef(id) => Value::Card(self.card_ref(id, e.span)?),
            E::Name(n) => match self.globals.get(n) {
                Some((Global::Variant(en, v), _)) => Value::Enum(*en, *v),
                _ => {
                    let names: Vec<String> = self
                        .prog
                        .enums
                        .iter()
                        .flat_map(|en| en.variants.iter().cloned())
                        .collect();
                    let help = did_you_mean(n, names.iter().map(|s| s.as_str()));
                    self.err(
                        Diag::error("check::unknown_name", format!("unknown name `{n}`"))
                            .label(e.span, "not an enum variant")
                            .maybe_help(help),
                    );
                    return None;
                }
            },
            E::List(items) => {
                let mut out = Vec::new();
                for i in items {
                    out.push(self.const_value(i)?);
                }
                Value::list(out)
            }
            E::Tuple(items) => {
                let mut out = Vec::new();
                for i in items {
                    out.push(self.const_value(i)?);
                }
                Value::tuple(out)
            }
            E::TableLit(entries) => {
                let mut out = Vec::new();
                for (pat, v) in entries {
                    let (a, b) = match &pat.node {
                        ast::Pattern::Wildcard => (i64::MIN, i64::MAX),
                        _ => self.table_key(pat, (1, 13)).unwrap_or((i64::MIN, i64::MIN)),
                    };
                    let v = self.const_value(v)?;
                    out.push(Value::tuple(vec![Value::Int(a), Value::Int(b), v]));
                }
                Value::list(out)
            }
            _ => {
                self.err(
                    Diag::error("check::not_constant", "a card field must be a constant")
                        .label(e.span, "not a constant")
                        .help("use numbers, text, enum variants, card references like `@12`, or lists of those"),
                );
                return None;
            }
        })
    }

    pub(super) fn card_ref(&mut self, id: &CardId, span: Span) -> Option<Id> {
        let key = card_key(id);
        match self.card_index.get(&key) {
            Some(&c) => Some(c),
            None => {
                // In name order, so the suggestion never depends on the map's order.
                let mut ids: Vec<&str> = self.card_index.keys().map(|s| s.as_str()).collect();
                ids.sort_unstable();
                let mut help = did_you_mean(&key, ids);
                if let CardId::Num(n) = id {
                    let mut nums: Vec<i64> = self
                        .prog
                        .cards
                        .iter()
                        .filter_map(|c| match c.id {
                            CardId::Num(n) => Some(n),
                            _ => None,
                        })
                        .collect();
                    nums.sort();
                    if let (Some(lo), Some(hi)) = (nums.first(), nums.last()) {
                        help = Some(format!(
                            "numbered cards run from {lo} to {hi}; there is no card {n}"
                        ));
                    }
                }
                self.err(
                    Diag::error("check::unknown_card", format!("there is no card `@{key}`"))
                        .label(span, "this card does not exist")
                        .maybe_help(help),
                );
                None
            }
        }
    }

    /// Checks a card's (or a default's) value against its field's type, reporting the first
    /// element that does not fit, under that element where the value is written out as a list.
    /// One report per field: a list with several wrong elements is one mistake, written once.
    pub(super) fn check_value_ty(&mut self, v: &Value, want: &Ty, e: &ast::Expr, field: &str) {
        let Some((got_v, want_t, span, in_list)) = self.first_misfit(v, want, e, e.span, false)
        else {
            return;
        };
        let got = self.value_ty(got_v);
        let (w, g) = (self.ty_name(want_t), self.ty_name(&got));
        let help = match (want_t, got_v) {
            (Ty::Card(_), Value::Int(n)) => Some(format!("write a card reference: `@{n}`")),
            (Ty::Enum(e), _) => Some(format!(
                "`{}` is one of: {}",
                self.prog.enums[*e as usize].name,
                self.prog.enums[*e as usize].variants.join(", ")
            )),
            (Ty::Tuple(ts), _) if in_list && !matches!(got_v, Value::Tuple(_)) => {
                Some(self.tuple_help(v, ts))
            }
            (Ty::Tuple(ts), Value::Tuple(items)) if ts.len() != items.len() => {
                Some(format!("each element has {} parts: {w}", ts.len()))
            }
            _ => None,
        };
        let what = if in_list {
            format!("an element of field `{field}`")
        } else {
            format!("field `{field}`")
        };
        self.err(
            Diag::error(
                "check::field_type",
                format!("{what} must be {w}, found {g}"),
            )
            .label(span, format!("this is {g}"))
            .maybe_help(help),
        );
    }

    /// The first part of `v` that does not fit `want`: the value, the type it should have had,
    /// where it is written (an element's own span when `e` writes the list out), and whether it
    /// is an element of a list.
    fn first_misfit<'v>(
        &self,
        v: &'v Value,
        want: &'v Ty,
        e: &ast::Expr,
        span: Span,
        in_list: bool,
    ) -> Option<(&'v Value, &'v Ty, Span, bool)> {
        if let (Value::List(items), Ty::List(elem)) = (v, want) {
            let written = match &e.kind {
                ast::ExprKind::List(xs) if xs.len() == items.len() => Some(xs),
                _ => None,
            };
            return items.iter().enumerate().find_map(|(i, item)| {
                let x = written.and_then(|xs| xs.get(i));
                let (ex, sp) = match x {
                    Some(x) => (x, x.span),
                    None => (e, span),
                };
                self.first_misfit(item, elem, ex, sp, true)
            });
        }
        let got = self.value_ty(v);
        (!compatible(want, &got)).then_some((v, want, span, in_list))
    }

    /// A list of tuples written without their parentheses (`[Domestic, 1]` for
    /// `[(Domestic, 1)]`): say how to write it, and whether the elements read in groups fit.
    fn tuple_help(&self, v: &Value, ts: &[Ty]) -> String {
        let n = ts.len();
        let shape = ts
            .iter()
            .map(|t| self.ty_name(t))
            .collect::<Vec<_>>()
            .join(", ");
        let fits = match v {
            Value::List(items) if n > 0 && !items.is_empty() && items.len() % n == 0 => {
                items.chunks(n).all(|c| {
                    c.iter()
                        .zip(ts)
                        .all(|(x, t)| compatible(t, &self.value_ty(x)))
                })
            }
            _ => false,
        };
        if fits {
            format!(
                "each element is a ({shape}) in parentheses: `[(a, b), ...]`; this list's \
                 elements, read in groups of {n}, would fit"
            )
        } else {
            format!("each element is a ({shape}) in parentheses: `[(a, b), ...]`")
        }
    }

    pub(super) fn table(&mut self, id: usize, t: &ast::TableDecl) {
        let key_ty = self.resolve_type(&t.key_ty);
        let val_ty = self.resolve_type(&t.val_ty);
        self.begin(Ctx::Other);
        let mut entries = Vec::new();
        let mut covered = Vec::new();
        for (pat, e) in &t.entries {
            let p = self.pattern(pat, &key_ty);
            if let Pat::Int(n) = p {
                covered.push((n, n, pat.span));
            }
            if let Pat::Range(a, b) = p {
                covered.push((a, b, pat.span));
            }
            let (x, ty) = self.expr(e);
            self.expect_ty(&val_ty, &ty, e.span, "this table value");
            entries.push((p, x, pat.span));
        }
        // Overlapping integer keys are always a mistake.
        covered.sort_by_key(|c| c.0);
        for w in covered.windows(2) {
            if let [a, b] = w {
                if b.0 <= a.1 {
                    self.err(
                        Diag::error(
                            "check::table_overlap",
                            format!("table `{}` covers key {} twice", t.name.node, b.0),
                        )
                        .label(b.2, "this entry")
                        .label(a.2, "overlaps this one"),
                    );
                }
            }
        }
        let locals = self.end();
        let td = &mut self.prog.tables[id];
        td.entries = entries;
        td.locals = locals;
    }
}

/// A card rank written in a table key: a number, or `A`, `J`, `Q`, `K`.
pub(super) fn rank(s: &str) -> Option<i64> {
    match s {
        "A" => Some(1),
        "J" => Some(11),
        "Q" => Some(12),
        "K" => Some(13),
        n => n.parse().ok(),
    }
}
