//! Scaled copies of a game's card sets, to measure the checker on large inputs
//! (`rules bench GAME --check --scale N`).
//!
//! Every `card` declaration and every `cards` row is written `N` times: the first as it was, the
//! others with fresh ids (`kala__s2`, `32` + 2 × 10^k) and with their `unique` text fields
//! suffixed (` #2`), so the copy checks as cleanly as the game. Kinds with a `unique` field of
//! another type (an enum or a number) cannot take fresh values and are left as they were.

use crate::limits::Limits;
use crate::parser::{row_parts, written_len, Rule};
use pest::iterators::Pair;
use std::collections::{BTreeMap, BTreeSet};

/// A scaled game: the new text of each file that declares cards.
pub struct Scaled {
    /// `(index into the files given, new text)` for each file that changed.
    pub texts: Vec<(usize, String)>,
    /// Kinds whose cards were not copied, each with the reason.
    pub kept: Vec<(String, String)>,
}

/// Writes each card `factor` times. `files` are the game's texts (every file, so that kinds
/// declared in one file and used in another are seen). The cards of the kinds in `keep` are left
/// as they are. A file that does not parse is an error.
pub fn scale(files: &[&str], factor: u32, keep: &[String]) -> Result<Scaled, String> {
    let mut parsed = Vec::new();
    for (i, text) in files.iter().enumerate() {
        let file = crate::parser::parse_bounded(Rule::file, text, &Limits::default())
            .map_err(|e| format!("file {} does not parse:\n{e}", i + 1))?
            .next()
            .ok_or_else(|| format!("file {} is empty", i + 1))?;
        parsed.push(file);
    }
    // The `unique` fields of each kind: text fields take a suffix, any other type stops the kind
    // from being copied.
    let mut unique_text: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut kept: Vec<(String, String)> = keep
        .iter()
        .map(|k| (k.clone(), "asked to keep them (--keep)".to_string()))
        .collect();
    let mut max_num: u64 = 0;
    for file in &parsed {
        for item in file.clone().into_inner() {
            match item.as_rule() {
                Rule::kind_decl => {
                    let mut it = item.into_inner();
                    let Some(name) = it.next() else { continue };
                    for f in it {
                        let inner: Vec<Pair<Rule>> = f.into_inner().collect();
                        let unique = inner.iter().any(|p| p.as_rule() == Rule::unique_kw);
                        let var = inner.iter().any(|p| p.as_rule() == Rule::var_kw);
                        if !unique || var {
                            continue;
                        }
                        let fname = inner.iter().find(|p| p.as_rule() == Rule::ident);
                        let ty = inner.iter().find(|p| p.as_rule() == Rule::type_expr);
                        let (Some(fname), Some(ty)) = (fname, ty) else {
                            continue;
                        };
                        if ty.as_str().trim() == "text" {
                            unique_text
                                .entry(name.as_str().to_string())
                                .or_default()
                                .insert(fname.as_str().to_string());
                        } else if !kept.iter().any(|(k, _)| k == name.as_str()) {
                            kept.push((
                                name.as_str().to_string(),
                                format!(
                                    "their field `{}` is `unique` and not text",
                                    fname.as_str()
                                ),
                            ));
                        }
                    }
                }
                Rule::card_decl | Rule::cards_decl => {
                    let ids = item.into_inner().flat_map(|p| match p.as_rule() {
                        Rule::card_row => p.into_inner().collect(),
                        _ => vec![p],
                    });
                    for p in ids.filter(|p| p.as_rule() == Rule::card_id) {
                        if let Ok(n) = p.as_str().trim().parse::<u64>() {
                            max_num = max_num.max(n);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let kept_kinds: BTreeSet<&str> = kept.iter().map(|(k, _)| k.as_str()).collect();
    // Numbered copies step by a power of ten above every number used.
    let mut step: u64 = 1000;
    while step <= max_num {
        step = step
            .checked_mul(10)
            .ok_or("card numbers are too large to copy")?;
    }
    let fresh = |id: &str, k: u32| -> Result<String, String> {
        let id = id.trim();
        match id.parse::<u64>() {
            Ok(n) => step
                .checked_mul(u64::from(k - 1))
                .and_then(|s| s.checked_add(n))
                .filter(|&m| m <= i64::MAX as u64)
                .map(|m| m.to_string())
                .ok_or_else(|| "card numbers are too large to copy".to_string()),
            Err(_) => Ok(format!("{id}__s{k}")),
        }
    };
    let mut texts = Vec::new();
    for (fi, file) in parsed.iter().enumerate() {
        let text = files.get(fi).copied().unwrap_or("");
        // Insertions (at a byte offset of the file) in order.
        let mut inserts: Vec<(usize, String)> = Vec::new();
        for item in file.clone().into_inner() {
            let rule = item.as_rule();
            if rule != Rule::card_decl && rule != Rule::cards_decl {
                continue;
            }
            let mut it = item.clone().into_inner();
            let Some(kind) = it.next() else { continue };
            if kept_kinds.contains(kind.as_str()) {
                continue;
            }
            let uniques = unique_text.get(kind.as_str());
            let is_unique = |f: &str| uniques.is_some_and(|u| u.contains(f));
            if rule == Rule::card_decl {
                let start = item.as_span().start();
                let body = item.as_str().trim_end();
                let mut edits: Edits = Vec::new();
                for p in it {
                    match p.as_rule() {
                        Rule::card_id => edits.push(span_of(&p, start, Edit::Id)),
                        Rule::field_init => {
                            let mut f = p.into_inner();
                            if let (Some(n), Some(v)) = (f.next(), f.next()) {
                                if is_unique(n.as_str()) {
                                    if let Some(s) = plain_string(v) {
                                        edits.push(span_of(&s, start, Edit::Suffix));
                                    }
                                }
                            }
                        }
                        _ => {}
                    }
                }
                let mut out = String::new();
                for k in 2..=factor {
                    out.push_str("\n\n");
                    apply(body, &edits, k, &fresh, &mut out)?;
                }
                inserts.push((start + body.len(), out));
            } else {
                let mut columns = Vec::new();
                let mut rows = Vec::new();
                for p in it {
                    match p.as_rule() {
                        Rule::ident => columns.push(p.as_str().to_string()),
                        Rule::card_row => rows.push(p),
                        _ => {}
                    }
                }
                let mut copies: Vec<(&str, Edits)> = Vec::new();
                let mut end = 0;
                for row in &rows {
                    let start = row.as_span().start();
                    let mut edits = Vec::new();
                    let mut row_end = start;
                    let mut col = 0;
                    for p in row_parts(row) {
                        row_end = p.as_span().end();
                        match p.as_rule() {
                            Rule::card_id => edits.push(span_of(&p, start, Edit::Id)),
                            Rule::copies => {}
                            _ => {
                                if columns.get(col).is_some_and(|c| is_unique(c)) {
                                    if let Some(s) = plain_string(p) {
                                        edits.push(span_of(&s, start, Edit::Suffix));
                                    }
                                }
                                col += 1;
                            }
                        }
                    }
                    let row_text = text.get(start..row_end).unwrap_or("");
                    let row_text = row_text.get(..written_len(row_text)).unwrap_or("");
                    end = start + row_text.len();
                    copies.push((row_text, edits));
                }
                let mut out = String::new();
                for k in 2..=factor {
                    for (row_text, edits) in &copies {
                        out.push_str("\n  ");
                        apply(row_text, edits, k, &fresh, &mut out)?;
                    }
                }
                if !copies.is_empty() {
                    inserts.push((end, out));
                }
            }
        }
        if inserts.is_empty() {
            continue;
        }
        let mut out = String::with_capacity(text.len() * factor as usize);
        let mut at = 0;
        for (pos, s) in inserts {
            out.push_str(text.get(at..pos).unwrap_or(""));
            out.push_str(&s);
            at = pos;
        }
        out.push_str(text.get(at..).unwrap_or(""));
        texts.push((fi, out));
    }
    Ok(Scaled { texts, kept })
}

/// Byte ranges of a declaration (relative to its start) and what to do to each in a copy.
type Edits = Vec<(usize, usize, Edit)>;

#[derive(Clone, Copy)]
enum Edit {
    /// A card id: replaced by a fresh one.
    Id,
    /// A text literal: ` #k` goes before its closing quote.
    Suffix,
}

/// The edit of `p`, as a byte range relative to `base`.
fn span_of(p: &Pair<Rule>, base: usize, e: Edit) -> (usize, usize, Edit) {
    let s = p.as_span();
    let text = p.as_str();
    let end = s.start() + text.trim_end().len();
    (s.start() - base, end - base, e)
}

/// The string literal an expression is made of, if it is nothing else.
fn plain_string(expr: Pair<Rule>) -> Option<Pair<Rule>> {
    if expr.as_rule() == Rule::string {
        return Some(expr);
    }
    let mut it = expr.into_inner();
    let post = it.next()?;
    if it.next().is_some() || post.as_rule() != Rule::postfix_expr {
        return None;
    }
    let mut it = post.into_inner();
    let s = it.next()?;
    (it.next().is_none() && s.as_rule() == Rule::string).then_some(s)
}

/// Writes `body` with its edits made for copy `k`.
fn apply(
    body: &str,
    edits: &[(usize, usize, Edit)],
    k: u32,
    fresh: &dyn Fn(&str, u32) -> Result<String, String>,
    out: &mut String,
) -> Result<(), String> {
    let mut at = 0;
    for &(a, b, e) in edits {
        let piece = body.get(a..b).unwrap_or("");
        out.push_str(body.get(at..a).unwrap_or(""));
        match e {
            Edit::Id => out.push_str(&fresh(piece, k)?),
            Edit::Suffix => {
                let inner = piece.strip_suffix('"').unwrap_or(piece);
                out.push_str(inner);
                out.push_str(&format!(" #{k}\""));
            }
        }
        at = b;
    }
    out.push_str(body.get(at..).unwrap_or(""));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_cards_are_copied_with_fresh_ids_and_unique_names() {
        let kinds = "kind K { name: text unique, n: int }\nkind E { e: int unique }\n";
        let cards = "cards K (name, n) {\n  a: \"A\", 1\n  7: \"B\", 2 # b\n}\ncard K c { name: \"C\", n: 3 }\ncards E (e) { x: 1 }\n";
        let s = match scale(&[kinds, cards], 3, &[]) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(s.kept.len(), 1);
        assert_eq!(s.kept[0].0, "E");
        assert_eq!(s.texts.len(), 1);
        let t = &s.texts[0].1;
        assert_eq!(
            t,
            "cards K (name, n) {\n  a: \"A\", 1\n  7: \"B\", 2\n  a__s2: \"A #2\", 1\n  1007: \"B #2\", 2\n  a__s3: \"A #3\", 1\n  2007: \"B #3\", 2 # b\n}\ncard K c { name: \"C\", n: 3 }\n\ncard K c__s2 { name: \"C #2\", n: 3 }\n\ncard K c__s3 { name: \"C #3\", n: 3 }\ncards E (e) { x: 1 }\n"
        );
    }
}
