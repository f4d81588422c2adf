//! Text to syntax tree: the pre-pass that bounds nesting, pest, and pairs to AST.
//! One function per grammar rule; operator precedence with pest's `PrattParser`.

use crate::ast::*;
use crate::diag::{Diag, Span};
use crate::limits::Limits;
use pest::iterators::{Pair, Pairs};
use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest::Parser as _;
use std::sync::LazyLock;

mod errors;
pub(crate) use errors::STATEMENT_KEYWORDS;
mod exprs;
mod flow;
mod items;
mod stmts;

pub use errors::rule_name;
use errors::*;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/rules.pest"]
pub struct RulesParser;

static PRATT: LazyLock<PrattParser<Rule>> = LazyLock::new(|| {
    PrattParser::new()
        .op(Op::infix(Rule::range_op, Assoc::Left))
        .op(Op::infix(Rule::or_op, Assoc::Left))
        .op(Op::infix(Rule::and_op, Assoc::Left))
        .op(Op::prefix(Rule::not_op))
        .op(Op::infix(Rule::eq, Assoc::Left)
            | Op::infix(Rule::ne, Assoc::Left)
            | Op::infix(Rule::lt, Assoc::Left)
            | Op::infix(Rule::le, Assoc::Left)
            | Op::infix(Rule::gt, Assoc::Left)
            | Op::infix(Rule::ge, Assoc::Left))
        .op(Op::infix(Rule::add, Assoc::Left) | Op::infix(Rule::sub, Assoc::Left))
        .op(Op::infix(Rule::mul, Assoc::Left)
            | Op::infix(Rule::div, Assoc::Left)
            | Op::infix(Rule::rem, Assoc::Left))
        .op(Op::prefix(Rule::neg))
});

/// What a parse produced: the tree (when the text parsed) and every problem found.
pub struct Parsed<T> {
    pub value: Option<T>,
    pub diags: Vec<Diag>,
}

/// Parse a whole `.rules` file.
pub fn parse_file(text: &str, file: u32, limits: &Limits) -> Parsed<File> {
    parse_with(text, file, limits, Rule::file, |b, pair| b.file(pair))
}

/// `parse_file` with the grammar's speed shortcuts off (the lookaheads and the literal fast
/// paths, see `detailing` in the grammar): the plain grammar, for tests that the shortcuts
/// change no tree.
#[doc(hidden)]
pub fn parse_file_without_shortcuts(text: &str, file: u32, limits: &Limits) -> Parsed<File> {
    parse_with(
        text,
        file,
        limits,
        Rule::file_detailed,
        |b, pair| match children(pair).next() {
            Some(f) => b.file(f),
            None => File { items: Vec::new() },
        },
    )
}

/// Parse statements typed at the REPL as one block.
pub fn parse_repl_line(text: &str, file: u32, limits: &Limits) -> Parsed<Block> {
    parse_with(text, file, limits, Rule::repl_line, |b, pair| {
        let span = b.span(&pair);
        let stmts = children(pair).filter_map(|p| b.stmt(p)).collect();
        Block { stmts, span }
    })
}

fn parse_with<T>(
    text: &str,
    file: u32,
    limits: &Limits,
    rule: Rule,
    build: impl FnOnce(&mut Builder, Pair<Rule>) -> T,
) -> Parsed<T> {
    if text.len() > limits.max_file_bytes {
        return Parsed {
            value: None,
            diags: vec![Diag::error(
                "limit::file_size",
                format!(
                    "this file is {} bytes; the limit is {} bytes",
                    text.len(),
                    limits.max_file_bytes
                ),
            )
            .label(Span::new(file, 0, 0), "file starts here")
            .help("split the card sets into several files and import them")],
        };
    }
    if let Some(d) = nesting_prepass(text, file, limits.max_depth) {
        return Parsed {
            value: None,
            diags: vec![d],
        };
    }
    match parse_bounded(rule, text, limits) {
        Ok(mut pairs) => {
            let Some(pair) = pairs.next() else {
                return Parsed {
                    value: None,
                    diags: vec![Diag::error("parse::empty", "nothing to parse")],
                };
            };
            let mut b = Builder {
                file,
                text_len: text.len(),
                depth: 0,
                max_depth: limits.max_depth,
                diags: Vec::new(),
            };
            let value = build(&mut b, pair);
            let ok = !b.diags.iter().any(|d| d.is_error());
            Parsed {
                value: ok.then_some(value),
                diags: b.diags,
            }
        }
        Err(e) if out_of_work(&e) => Parsed {
            value: None,
            diags: vec![parse_work_error(&e, text, file, limits)],
        },
        Err(e) => {
            let e = match detailed(rule, text, limits) {
                Some(d) if !out_of_work(&d) => d,
                _ => e,
            };
            Parsed {
                value: None,
                diags: vec![syntax_error(&e, text, file)],
            }
        }
    }
}

/// Held while pest parses: its call budget and its error details are settings of the whole
/// process, read when a parse starts.
static PEST: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Parse with pest's call budget set for this text (`Limits::max_parse_steps_per_byte`), so no
/// text can make the parser backtrack without end: it stops with "call limit reached".
pub(crate) fn parse_bounded<'t>(
    rule: Rule,
    text: &'t str,
    limits: &Limits,
) -> Result<pest::iterators::Pairs<'t, Rule>, pest::error::Error<Rule>> {
    let _held = PEST.lock().unwrap_or_else(|e| e.into_inner());
    pest::set_call_limit(std::num::NonZeroUsize::new(parse_budget(text, limits)));
    RulesParser::parse(rule, text)
}

/// The most pest calls a text may take: so many a byte, with a floor for short texts.
fn parse_budget(text: &str, limits: &Limits) -> usize {
    limits
        .max_parse_steps_per_byte
        .saturating_mul(text.len().max(256))
        .max(1)
}

/// Whether pest stopped because the call budget ran out.
fn out_of_work(e: &pest::error::Error<Rule>) -> bool {
    matches!(&e.variant, pest::error::ErrorVariant::CustomError { message }
        if message == "call limit reached")
}

/// The diagnostic for a text that ran out of parsing work, at the furthest point reached.
fn parse_work_error(e: &pest::error::Error<Rule>, text: &str, file: u32, limits: &Limits) -> Diag {
    let pos = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let pos = e.parse_attempts().map_or(pos, |a| a.max_position.max(pos));
    let pos = pos.min(text.len());
    Diag::error(
        "limit::parse_work",
        format!(
            "this text takes more than {} parser steps ({} a byte); the parser gave up",
            parse_budget(text, limits),
            limits.max_parse_steps_per_byte
        ),
    )
    .label(Span::new(file, pos, pos), "the parser had reached here")
    .help("look for brackets opened and never closed; real files take under 15 steps a byte")
}

/// The error of a text that did not parse, found again with pest's error details (what it
/// expected, and in which rules). Collecting them slows every token down several times, so the
/// first parse goes without them: only a text with a syntax error is read twice, and then
/// through `file_detailed`, where the grammar's shortcuts are off (see `detailing`).
fn detailed(rule: Rule, text: &str, limits: &Limits) -> Option<pest::error::Error<Rule>> {
    let _held = PEST.lock().unwrap_or_else(|e| e.into_inner());
    let rule = match rule {
        Rule::repl_line => Rule::repl_line_detailed,
        _ => Rule::file_detailed,
    };
    pest::set_call_limit(std::num::NonZeroUsize::new(parse_budget(text, limits)));
    pest::set_error_detail(true);
    let again = RulesParser::parse(rule, text);
    pest::set_error_detail(false);
    again.err()
}

/// Bounds nesting on the raw text before pest runs, so pest's recursion is bounded too.
/// Counts brackets (outside strings and comments) and the constructs that nest without them:
/// runs of prefix operators (`-`, `not`), `list of list of ...` types, and `else if` chains.
fn nesting_prepass(text: &str, file: u32, max_depth: usize) -> Option<Diag> {
    let bytes = text.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut depth = 0usize;
    let mut i = 0usize;
    let mut prefix_run = 0usize;
    let mut of_run = 0usize;
    // Per bracket depth: how long the `} else if ... {` chain at that depth has grown.
    let mut else_runs: Vec<usize> = vec![0];
    // A `}` just brought the text back to this depth (an `else` may follow).
    let mut closed_to: Option<usize> = None;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'#' => {
                // The comment runs to the end of the line (a fast search).
                i = text
                    .get(i..)
                    .and_then(|rest| rest.find('\n'))
                    .map_or(bytes.len(), |n| i + n);
                continue;
            }
            b'"' => {
                i += 1;
                // Up to its end or its first `{`, a string is found by a fast search.
                loop {
                    match bytes
                        .get(i..)
                        .and_then(|rest| memchr::memchr3(b'"', b'\\', b'{', rest))
                    {
                        Some(n) if bytes.get(i + n) == Some(&b'\\') => i += n + 2,
                        Some(n) => {
                            i += n;
                            break;
                        }
                        None => {
                            i = bytes.len();
                            break;
                        }
                    }
                }
                // From a `{` on, byte by byte (`}` closes it).
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    } else if bytes[i] == b'{' {
                        depth += 1;
                        if depth > max_depth {
                            return Some(too_deep(file, i, max_depth));
                        }
                    } else if bytes[i] == b'}' {
                        depth = depth.saturating_sub(1);
                    }
                    i += 1;
                }
                prefix_run = 0;
                closed_to = None;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth + prefix_run > max_depth {
                    return Some(too_deep(file, i, max_depth));
                }
                while else_runs.len() <= depth {
                    else_runs.push(0);
                }
                else_runs[depth] = 0;
                closed_to = None;
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                prefix_run = 0;
                of_run = 0;
                closed_to = (c == b'}').then_some(depth);
            }
            b'-' => {
                prefix_run += 1;
                if depth + prefix_run > max_depth {
                    return Some(too_deep(file, i, max_depth));
                }
                closed_to = None;
            }
            b' ' | b'\t' | b'\r' | b'\n' => {
                // Columns are aligned with runs of spaces.
                while bytes.get(i + 1) == Some(&b' ') {
                    i += 1;
                }
            }
            _ if is_word(c) => {
                let start = i;
                while i < bytes.len() && is_word(bytes[i]) {
                    i += 1;
                }
                let word = text.get(start..i).unwrap_or("");
                match word {
                    "not" => prefix_run += 1,
                    "of" => of_run += 1,
                    "else" if closed_to == Some(depth) => {
                        if let Some(run) = else_runs.get_mut(depth) {
                            *run += 1;
                            if depth + *run > max_depth {
                                return Some(too_deep(file, start, max_depth));
                            }
                        }
                    }
                    _ => {}
                }
                if word != "not" {
                    prefix_run = 0;
                }
                // `list of`, `table 1..3 of` and `table -3..-1 of` nest types without brackets.
                let in_type = matches!(word, "of" | "list" | "table")
                    || word.bytes().all(|b| b.is_ascii_digit());
                if !in_type {
                    of_run = 0;
                }
                if word != "else" && closed_to == Some(depth) {
                    if let Some(run) = else_runs.get_mut(depth) {
                        *run = 0;
                    }
                }
                if depth + prefix_run.max(of_run) > max_depth {
                    return Some(too_deep(file, start, max_depth));
                }
                closed_to = None;
                continue;
            }
            _ => {
                prefix_run = 0;
                if c != b'.' {
                    of_run = 0;
                }
                if closed_to == Some(depth) {
                    if let Some(run) = else_runs.get_mut(depth) {
                        *run = 0;
                    }
                }
                closed_to = None;
            }
        }
        i += 1;
    }
    None
}

/// How many brackets are still open at the end of `text` (outside strings and comments).
/// Linear; the REPL uses it to tell unfinished input without parsing it again.
pub fn open_brackets(text: &str) -> usize {
    open_brackets_from(0, text)
}

/// `open_brackets` continued from `depth` brackets already open (one line after another).
pub fn open_brackets_from(depth: usize, text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut depth = depth;
    let mut i = 0usize;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    depth
}

/// The `##` lines right above byte `start` of `text`, when only spaces precede it on its line.
/// Plain `#` comment lines among them and below them are passed over: a comment never changes
/// what a file means, so one between a doc and its declaration does not detach the doc.
pub fn doc_above(text: &str, start: usize) -> Option<String> {
    let before = text.get(..start)?;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    if !before
        .get(line_start..)
        .is_some_and(|l| l.bytes().all(|b| b == b' ' || b == b'\t'))
    {
        return None;
    }
    let mut lines = Vec::new();
    let mut rest = before.get(..line_start.saturating_sub(1))?;
    loop {
        let from = rest.rfind('\n').map_or(0, |i| i + 1);
        let line = rest.get(from..).unwrap_or("").trim();
        if let Some(doc) = line.strip_prefix("##") {
            let doc = doc.strip_prefix(' ').unwrap_or(doc).trim_end();
            lines.push(doc.to_string());
        } else if !line.starts_with('#') {
            break;
        }
        if from == 0 {
            break;
        }
        rest = rest.get(..from - 1).unwrap_or("");
    }
    if lines.is_empty() {
        return None;
    }
    lines.reverse();
    Some(lines.join("\n"))
}

fn too_deep(file: u32, at: usize, max: usize) -> Diag {
    Diag::error(
        "limit::nesting",
        format!("this is nested more than {max} levels deep"),
    )
    .label(Span::new(file, at, at + 1), "too deep here")
    .help("split the expression with `let` bindings or helper functions")
}

struct Builder {
    file: u32,
    /// The length of the text parsed.
    text_len: usize,
    depth: usize,
    max_depth: usize,
    diags: Vec<Diag>,
}

fn children(pair: Pair<Rule>) -> Pairs<Rule> {
    pair.into_inner()
}

impl Builder {
    /// The pair's span, without the spaces and comments pest skipped after its last token
    /// (a repetition that found nothing more still consumed them).
    fn span(&self, pair: &Pair<Rule>) -> Span {
        let s = pair.as_span();
        // What pest skips after a pair ends with a space or a line break, unless a comment runs
        // to the end of the text: a pair that ends on something else before the end is as
        // written.
        let last = s.as_str().as_bytes().last();
        if s.end() < self.text_len && last.is_some_and(|b| b.is_ascii() && !b.is_ascii_whitespace())
        {
            return Span::new(self.file, s.start(), s.end());
        }
        Span::new(self.file, s.start(), s.start() + written_len(s.as_str()))
    }

    /// The doc comment of the item starting at `pair`: the `##` lines right above it (no blank
    /// line between), each without its `##` and one space, joined by line breaks.
    fn doc(&self, pair: &Pair<Rule>) -> Option<String> {
        let s = pair.as_span();
        doc_above(s.get_input(), s.start())
    }

    fn ident(&self, pair: Pair<Rule>) -> Ident {
        Spanned::new(pair.as_str().to_string(), self.span(&pair))
    }

    fn int_value(&mut self, pair: &Pair<Rule>) -> i64 {
        match pair.as_str().parse::<i64>() {
            Ok(n) => n,
            Err(_) => {
                self.diags.push(
                    Diag::error("parse::number", "this number is too large")
                        .label(self.span(pair), "does not fit in 64 bits"),
                );
                0
            }
        }
    }

    fn enter(&mut self, span: Span) -> bool {
        self.depth += 1;
        if self.depth > self.max_depth {
            if !self.diags.iter().any(|d| d.code == "limit::nesting") {
                self.diags.push(
                    Diag::error(
                        "limit::nesting",
                        format!("this is nested more than {} levels deep", self.max_depth),
                    )
                    .label(span, "too deep here")
                    .help("split the expression with `let` bindings or helper functions"),
                );
            }
            return false;
        }
        true
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
}

fn visibility_of(s: &str) -> Visibility {
    match s {
        "owner" => Visibility::Owner,
        "hidden" => Visibility::Hidden,
        _ => Visibility::Public,
    }
}

fn unescape(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

trait DefaultIdent {
    fn unwrap_or_default_ident(self) -> Ident;
}

impl DefaultIdent for Option<Ident> {
    fn unwrap_or_default_ident(self) -> Ident {
        self.unwrap_or_else(|| Spanned::new(String::new(), Span::default()))
    }
}

/// The parts of a `card_row`: copies, id and cells, the cells of a `row_lits` among them.
pub(crate) fn row_parts<'i>(row: &Pair<'i, Rule>) -> Vec<Pair<'i, Rule>> {
    let mut out = Vec::new();
    for p in row.clone().into_inner() {
        if p.as_rule() == Rule::row_lits {
            out.extend(p.into_inner());
        } else {
            out.push(p);
        }
    }
    out
}

/// The length of `text` without trailing whitespace and `#` comments.
pub(crate) fn written_len(text: &str) -> usize {
    // Most pairs end with what was written, perhaps followed by white space, on a last line
    // without `#`. Only the last line is looked at (fast searches), so a span costs what its
    // line does.
    let trimmed = text.trim_end().as_bytes();
    let line_start = memchr::memrchr(b'\n', trimmed).map_or(0, |i| i + 1);
    if memchr::memchr(b'#', trimmed.get(line_start..).unwrap_or(&[])).is_none() {
        return trimmed.len();
    }
    let mut end = text.len();
    loop {
        let trimmed = text.get(..end).unwrap_or("").trim_end();
        end = trimmed.len();
        // A comment on the last line: a `#` outside a string.
        let line_start = trimmed.rfind('\n').map_or(0, |i| i + 1);
        let line = trimmed.get(line_start..).unwrap_or("");
        let mut in_string = false;
        let mut comment = None;
        let mut prev = ' ';
        for (i, ch) in line.char_indices() {
            match ch {
                '"' if prev != '\\' => in_string = !in_string,
                '#' if !in_string => {
                    comment = Some(i);
                    break;
                }
                _ => {}
            }
            prev = ch;
        }
        match comment {
            Some(i) if line_start + i < end => end = line_start + i,
            _ => return end,
        }
    }
}

/// Infix and prefix operators of an `expr` pair: each adds a level to the tree.
fn is_operator(r: Rule) -> bool {
    matches!(
        r,
        Rule::add
            | Rule::sub
            | Rule::mul
            | Rule::div
            | Rule::rem
            | Rule::eq
            | Rule::ne
            | Rule::lt
            | Rule::le
            | Rule::gt
            | Rule::ge
            | Rule::and_op
            | Rule::or_op
            | Rule::range_op
            | Rule::neg
            | Rule::not_op
    )
}
