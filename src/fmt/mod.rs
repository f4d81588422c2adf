//! `rules fmt`: one canonical layout for `.rules` files, keeping every comment.
//!
//! `layout.rs`: the writer (lines, indentation, comments found between tokens). `print/`: the
//! layout of each grammar rule, printed from pest's parse tree. This file: the entry point and
//! the safety net: the result is parsed again and must give the same syntax tree (ignoring
//! positions), the same parse tree (ignoring layout), the same diagnostics (ignoring positions)
//! and the same comments in the same order, and must format to itself, or nothing is written.

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
    if let Some(d) = parsed.diags.iter().find(|d| d.is_error()) {
        return Err(Box::new(d.clone()));
    }
    let formatted = layout_of(name, text, limits)?;
    // A formatted text past a limit the input is within (its size: indentation and aligned
    // columns add bytes) is refused naming that limit, not blamed on the formatter.
    if formatted.len() > limits.max_file_bytes {
        return Err(Box::new(
            Diag::error(
                "limit::file_size",
                format!(
                    "formatted, {name} would be {} bytes (it is {} now); the limit on a `.rules` \
                     file is {} bytes, so the file was left as it is",
                    formatted.len(),
                    text.len(),
                    limits.max_file_bytes
                ),
            )
            .label(Span::new(0, 0, 0), "this file")
            .help("split the card sets into several files and import them"),
        ));
    }
    // The safety net: the same meaning and the same comments, or the file is left alone.
    let again = parse_file(&formatted, 0, limits);
    if let Some(d) = again
        .diags
        .iter()
        .find(|d| d.is_error() && d.code.starts_with("limit::"))
    {
        return Err(Box::new(
            Diag::error(
                d.code,
                format!(
                    "formatted, {name} would pass a limit the file is within: {}; the file \
                     was left as it is",
                    d.message
                ),
            )
            .label(Span::new(0, 0, 0), "this file"),
        ));
    }
    if again.value.is_none() || again.diags.iter().any(|d| d.is_error()) {
        return Err(internal(name, "the formatted text does not parse"));
    }
    if ast_signature(parsed.value.as_ref()) != ast_signature(again.value.as_ref()) {
        return Err(internal(name, "the formatted text means something else"));
    }
    if diag_signature(&parsed.diags) != diag_signature(&again.diags) {
        return Err(internal(name, "the formatted text has other diagnostics"));
    }
    let (Some(tree), Some(tree2)) = (parse_tree(text), parse_tree(&formatted)) else {
        return Err(internal(name, "the formatted text does not parse"));
    };
    if signature(tree.clone()) != signature(tree2.clone()) {
        return Err(internal(name, "the formatted text parses differently"));
    }
    if comments(tree, text) != comments(tree2, &formatted) {
        return Err(internal(name, "the formatted text moved or lost a comment"));
    }
    // Formatting is idempotent: what `rules fmt` writes, `rules fmt --check` accepts.
    if formatted != text && layout_of(name, &formatted, limits)? != formatted {
        return Err(internal(name, "formatting it again would change it again"));
    }
    Ok(formatted)
}

/// The canonical layout of a text that parses. When aligning the columns of card tables and
/// the comments at the ends of lines would take it past the file size limit (a very wide
/// cell pads every row of its table), the whole file is laid out without that padding: one
/// space between cells and before such comments. The choice depends on the tokens only, so a
/// second run makes the same one.
fn layout_of(name: &str, text: &str, limits: &Limits) -> Result<String, Box<Diag>> {
    let aligned = layout_with(name, text, false)?;
    if aligned.len() <= limits.max_file_bytes {
        return Ok(aligned);
    }
    layout_with(name, text, true)
}

fn layout_with(name: &str, text: &str, compact: bool) -> Result<String, Box<Diag>> {
    let tree = parse_tree(text).ok_or_else(|| internal(name, "the file did not parse twice"))?;
    let mut out = layout::Out::new(text);
    if compact {
        out.align = false;
        out.compact_tables = true;
    }
    out.file(tree);
    Ok(if out.align {
        layout::align_comments(&out.out)
    } else {
        out.out
    })
}

/// The syntax tree without positions: its `Debug` text with every `Span { .. }` left out
/// (outside the quoted texts the tree holds).
fn ast_signature(file: Option<&crate::ast::File>) -> String {
    let text = format!("{file:?}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    const SPAN: &str = "Span { ";
    loop {
        // The next quoted text or span, whichever comes first.
        let quote = rest.find('"');
        let span = rest.find(SPAN);
        match (quote, span) {
            (Some(q), s) if s.is_none_or(|s| q < s) => {
                let (before, from) = rest.split_at(q);
                out.push_str(before);
                // Copy the quoted text whole: `\"` is an escaped quote inside it.
                let mut end = from.len();
                let mut escaped = false;
                for (i, ch) in from.char_indices().skip(1) {
                    match ch {
                        _ if escaped => escaped = false,
                        '\\' => escaped = true,
                        '"' => {
                            end = i + 1;
                            break;
                        }
                        _ => {}
                    }
                }
                let (quoted, after) = from.split_at(end);
                out.push_str(quoted);
                rest = after;
            }
            (_, Some(s)) => {
                out.push_str(rest.get(..s).unwrap_or(""));
                let from = rest.get(s..).unwrap_or("");
                let end = from.find('}').map_or(from.len(), |e| e + 1);
                out.push_str("Span");
                rest = from.get(end..).unwrap_or("");
            }
            _ => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

/// The diagnostics without positions: severity, code, message, label texts and help.
fn diag_signature(diags: &[Diag]) -> Vec<String> {
    diags
        .iter()
        .map(|d| {
            let labels: Vec<&str> = d.labels.iter().map(|l| l.text.as_str()).collect();
            format!(
                "{:?} {} {} {:?} {:?}",
                d.severity, d.code, d.message, labels, d.help
            )
        })
        .collect()
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
/// is a tuple (a trailing comma); other trailing commas are layout.
fn signature(p: Pair<Rule>) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![p];
    while let Some(p) = stack.pop() {
        let rule = p.as_rule();
        if rule == Rule::string {
            out.push(format!("{rule:?} {}", p.as_str()));
            continue;
        }
        // A trailing comma counts only where it makes a tuple of one.
        let all: Vec<Pair<Rule>> = p.clone().into_inner().collect();
        let commas = all.len();
        let kids: Vec<Pair<Rule>> = all
            .into_iter()
            .filter(|k| k.as_rule() != Rule::trailing_comma)
            .collect();
        if kids.is_empty() {
            let t: String = p.as_str().split_whitespace().collect();
            out.push(format!("{rule:?} {t}"));
        } else {
            let tuple = rule == Rule::paren && kids.len() == 1 && commas == 2;
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

/// Every comment, in order, with the number of leaves of the tree before it: a comment never
/// moves past a name, a number, a string or an operator, only past the keywords and brackets
/// around them. (A trailing comma is not counted: the layout decides where one is written.)
fn comments(p: Pair<Rule>, text: &str) -> Vec<(usize, String)> {
    let mut starts = Vec::new();
    let mut stack = vec![p.clone()];
    while let Some(q) = stack.pop() {
        let kids: Vec<Pair<Rule>> = q.clone().into_inner().collect();
        if q.as_rule() == Rule::string || kids.is_empty() {
            if q.as_rule() != Rule::trailing_comma {
                starts.push(q.as_span().start());
            }
        } else {
            stack.extend(kids.into_iter().rev());
        }
    }
    let mut out = Vec::new();
    let mut pos = 0;
    for (a, b) in tokens(p).into_iter().chain([(text.len(), text.len())]) {
        if a >= pos {
            let g = layout::scan(text.get(pos..a).unwrap_or(""));
            let before = starts.partition_point(|&s| s < a);
            out.extend(g.comments.into_iter().map(|c| (before, c.text)));
        }
        pos = pos.max(b);
    }
    out
}

/// The tokens of a parse tree, in order, as byte ranges: each string whole, and the pieces of
/// every other leaf between its spaces and comments (an empty `{ }`, `( )` or `[ ]` is a leaf
/// of the tree, and may hold a comment). What lies between two tokens is white space, comments,
/// and the keywords and punctuation the tree does not keep.
fn tokens(p: Pair<Rule>) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut stack = vec![p];
    while let Some(p) = stack.pop() {
        let kids: Vec<Pair<Rule>> = p.clone().into_inner().collect();
        let (start, end) = (p.as_span().start(), p.as_span().end());
        if p.as_rule() == Rule::string {
            spans.push((start, end));
        } else if kids.is_empty() {
            pieces(p.as_str(), start, &mut spans);
        } else {
            stack.extend(kids.into_iter().rev());
        }
    }
    spans
}

/// The runs of `text` (at `base`) between white space and comments.
fn pieces(text: &str, base: usize, out: &mut Vec<(usize, usize)>) {
    let mut from = None;
    let mut comment = false;
    for (i, ch) in text.char_indices() {
        let gap = comment || ch.is_whitespace() || ch == '#';
        if ch == '#' {
            comment = true;
        } else if ch == '\n' {
            comment = false;
        }
        match (gap, from) {
            (true, Some(f)) => {
                out.push((base + f, base + i));
                from = None;
            }
            (false, None) => from = Some(i),
            _ => {}
        }
    }
    if let Some(f) = from {
        out.push((base + f, base + text.len()));
    }
}

/// The tokens of a text that parses (see `tokens`), or `None`. For the tests and the fuzz
/// target that put comments between tokens, where they must change nothing.
#[doc(hidden)]
pub fn token_spans(text: &str) -> Option<Vec<(usize, usize)>> {
    parse_tree(text).map(tokens)
}

/// The syntax tree of a text without its positions, or `None` when it does not parse: two
/// texts with the same one mean the same (the tests and the fuzz target compare them).
#[doc(hidden)]
pub fn syntax_signature(text: &str, limits: &Limits) -> Option<String> {
    let parsed = parse_file(text, 0, limits);
    if parsed.diags.iter().any(|d| d.is_error()) {
        return None;
    }
    parsed.value.as_ref().map(|f| ast_signature(Some(f)))
}
