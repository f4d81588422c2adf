//! `rules fmt`: one canonical layout for `.rules` files, keeping every comment.
//!
//! `layout.rs`: the writer (lines, indentation, comments found between tokens). `print.rs`: the
//! layout of each grammar rule, printed from pest's parse tree. This file: the entry point and
//! the safety net: the result is parsed again and must give the same tree (ignoring positions
//! and layout) and the same comments in the same order, or nothing is written.

mod files;
mod layout;
mod print;

pub use files::{format_files, rules_files, Report};

use crate::diag::{Diag, Span};
use crate::limits::Limits;
use crate::parser::{parse_file, Rule};
use pest::iterators::Pair;

/// Format one `.rules` file. `name` is used only in messages. A file that does not parse is
/// refused with its first error (the diagnostic's spans are in file 0, this text).
pub fn format_source(name: &str, text: &str, limits: &Limits) -> Result<String, Box<Diag>> {
    let parsed = parse_file(text, 0, limits);
    if let Some(d) = parsed.diags.into_iter().find(|d| d.is_error()) {
        return Err(Box::new(d));
    }
    let tree = parse_tree(text).ok_or_else(|| internal(name, "the file did not parse twice"))?;
    let mut out = layout::Out::new(text);
    out.file(tree.clone());
    let formatted = if out.align {
        layout::align_comments(&out.out)
    } else {
        out.out
    };
    // The safety net: the same tree and the same comments, or the file is left alone.
    let again = parse_file(&formatted, 0, limits);
    let Some(tree2) = again
        .value
        .is_some()
        .then(|| parse_tree(&formatted))
        .flatten()
    else {
        return Err(internal(name, "the formatted text does not parse"));
    };
    if signature(tree.clone()) != signature(tree2.clone()) {
        return Err(internal(name, "the formatted text parses differently"));
    }
    if comments(tree, text) != comments(tree2, &formatted) {
        return Err(internal(name, "the formatted text moved or lost a comment"));
    }
    Ok(formatted)
}

fn internal(name: &str, why: &str) -> Box<Diag> {
    Box::new(
        Diag::error(
            "fmt::internal",
            format!(
                "`rules fmt` could not format {name} safely: {why}; the file was left as it is"
            ),
        )
        .label(Span::new(0, 0, 0), "this file")
        .help("this is a bug in the formatter: please report it with the file"),
    )
}

fn parse_tree(text: &str) -> Option<Pair<'_, Rule>> {
    crate::parser::parse_bounded(Rule::file, text, &Limits::default())
        .ok()?
        .next()
}

/// Whether the source between `a` and `b` may hold a comment (any `#`, strings included: a
/// cautious answer only keeps the source's line breaks).
pub(crate) fn has_comment(src: &str, a: usize, b: usize) -> bool {
    src.get(a..b).is_some_and(|t| t.contains('#'))
}

/// The tree without positions or layout: each rule, and the text of each token (strings
/// exactly, other tokens without spaces); a parenthesis with one element records whether it
/// is a tuple (a trailing comma).
fn signature(p: Pair<Rule>) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![p];
    while let Some(p) = stack.pop() {
        let rule = p.as_rule();
        if rule == Rule::string {
            out.push(format!("{rule:?} {}", p.as_str()));
            continue;
        }
        let kids: Vec<Pair<Rule>> = p.clone().into_inner().collect();
        if kids.is_empty() {
            let t: String = p.as_str().split_whitespace().collect();
            out.push(format!("{rule:?} {t}"));
        } else {
            let tuple = rule == Rule::paren
                && kids.len() == 1
                && p.as_str().trim_end_matches(')').trim_end().ends_with(',');
            out.push(format!(
                "{rule:?}{} {}",
                if tuple { " tuple" } else { "" },
                kids.len()
            ));
        }
        stack.extend(kids.into_iter().rev());
    }
    out
}

/// Every comment, in order: the text between consecutive tokens (strings are tokens).
fn comments(p: Pair<Rule>, text: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut stack = vec![p];
    while let Some(p) = stack.pop() {
        let kids: Vec<Pair<Rule>> = p.clone().into_inner().collect();
        if p.as_rule() == Rule::string || kids.is_empty() {
            spans.push((p.as_span().start(), p.as_span().end()));
            continue;
        }
        stack.extend(kids.into_iter().rev());
    }
    let mut out = Vec::new();
    let mut pos = 0;
    for (a, b) in spans.into_iter().chain([(text.len(), text.len())]) {
        if a >= pos {
            let g = layout::scan(text.get(pos..a).unwrap_or(""));
            out.extend(g.comments.into_iter().map(|c| c.text));
        }
        pos = pos.max(b);
    }
    out
}
