//! One diagnostic type for parse, check and runtime errors, rendered by miette.

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode};
use std::fmt;
use std::sync::Arc;

/// A byte range in one source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: u32,
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// Whether `other` lies inside this span (same file).
    pub fn contains(&self, other: Span) -> bool {
        self.file == other.file && self.start <= other.start && other.end <= self.end
    }
    pub fn new(file: u32, start: usize, end: usize) -> Self {
        Span {
            file,
            start: start.min(u32::MAX as usize) as u32,
            end: end.min(u32::MAX as usize) as u32,
        }
    }
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
    /// The span used for values the language itself made (builtins).
    pub const BUILTIN: Span = Span {
        file: u32::MAX,
        start: 0,
        end: 0,
    };
}

#[derive(Debug, Clone)]
pub struct SourceFile {
    pub name: String,
    pub text: Arc<str>,
    /// Where each line starts (a line ends at `\n`, `\r\n` or a lone `\r`, as miette counts):
    /// computed once, so locating a diagnostic never scans the file again.
    pub line_starts: Arc<[usize]>,
}

/// The start of every line of `text`.
fn line_starts(text: &str) -> Arc<[usize]> {
    let bytes = text.as_bytes();
    // Without `\r` a line ends only at `\n`, found by a fast search.
    if !bytes.contains(&b'\r') {
        return std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
    }
    let mut starts = vec![0];
    for (i, &b) in bytes.iter().enumerate() {
        let ends = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
        if ends {
            starts.push(i + 1);
        }
    }
    starts.into()
}

impl SourceFile {
    /// The 0-based line holding byte `at`.
    pub fn line_of(&self, at: usize) -> usize {
        self.line_starts
            .partition_point(|&s| s <= at)
            .saturating_sub(1)
    }
}

/// All source files read so far; spans index into this.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    pub files: Vec<SourceFile>,
}

impl Sources {
    pub fn add(&mut self, name: String, text: String) -> u32 {
        self.files.push(SourceFile {
            name,
            line_starts: line_starts(&text),
            text: Arc::from(text),
        });
        (self.files.len() - 1) as u32
    }
    pub fn get(&self, file: u32) -> Option<&SourceFile> {
        self.files.get(file as usize)
    }
    pub fn text_of(&self, span: Span) -> &str {
        self.get(span.file)
            .and_then(|f| f.text.get(span.start as usize..span.end as usize))
            .unwrap_or("")
    }
    /// 1-based line and column of a span start.
    pub fn line_col(&self, span: Span) -> (usize, usize) {
        let Some(f) = self.get(span.file) else {
            return (0, 0);
        };
        let at = (span.start as usize).min(f.text.len());
        let line = f.line_of(at);
        let start = f.line_starts.get(line).copied().unwrap_or(0);
        let col = f
            .text
            .get(start..at)
            .map(|s| s.chars().count())
            .unwrap_or(0)
            + 1;
        (line + 1, col)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

#[derive(Debug, Clone)]
pub struct Label {
    pub span: Span,
    pub text: String,
}

/// A result whose error is a diagnostic: what running a game (the interpreter, the builtins it
/// calls) gives.
pub type R<T> = Result<T, Box<Diag>>;

/// A problem found in a rules file, in a REPL line or while running a game.
#[derive(Debug, Clone)]
pub struct Diag {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    pub labels: Vec<Label>,
    pub help: Option<String>,
}

impl Diag {
    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        Diag {
            severity: Severity::Error,
            code,
            message: message.into(),
            labels: Vec::new(),
            help: None,
        }
    }
    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Diag {
            severity: Severity::Warning,
            ..Diag::error(code, message)
        }
    }
    pub fn label(mut self, span: Span, text: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            text: text.into(),
        });
        self
    }
    pub fn maybe_label(self, span: Option<Span>, text: impl Into<String>) -> Self {
        match span {
            Some(s) => self.label(s, text),
            None => self,
        }
    }
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    pub fn maybe_help(mut self, help: Option<String>) -> Self {
        if help.is_some() {
            self.help = help;
        }
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
    pub fn primary_span(&self) -> Option<Span> {
        self.labels.first().map(|l| l.span)
    }

    /// Render with miette, without colour, in a fixed width (used by tests and `--color never`).
    pub fn render(&self, sources: &Sources) -> String {
        self.render_with(sources, false)
    }

    /// `color`: coloured for a terminal, and then safe to write as it is: a diagnostic whose
    /// text or source lines hold control characters comes without colour, each of them escaped
    /// (`term::escape`), so only the colours are sequences the terminal acts on.
    pub fn render_with(&self, sources: &Sources, color: bool) -> String {
        if color {
            let plain = self.render_plain(sources, false);
            if let std::borrow::Cow::Owned(escaped) = crate::term::escape(&plain) {
                return escaped;
            }
        }
        self.render_plain(sources, color)
    }

    fn render_plain(&self, sources: &Sources, color: bool) -> String {
        let theme = if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        let handler = GraphicalReportHandler::new_themed(theme).with_width(100);
        let report = Report::new(self, sources);
        let mut out = String::new();
        if handler.render_report(&mut out, &report).is_err() {
            out = format!("{}: {}\n", self.code, self.message);
        }
        // The labels in other files, under it, one file each.
        for part in &report.others {
            let mut more = String::new();
            if handler.render_report(&mut more, part).is_ok() {
                out.push('\n');
                out.push_str(&more);
            }
        }
        out
    }
}

/// Longest source line drawn under a diagnostic.
const MAX_DRAWN_LINE: usize = 2000;

fn line_len_at(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    let at = at.min(bytes.len());
    let start = bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let end = bytes[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| at + i);
    end - start
}

/// A diagnostic bound to the one file its first label points into, for miette. Its labels in
/// other files (a declaration in the standard library, a card in another file) are drawn under
/// it, one part per file (`Part`), in the order the labels come.
struct Report<'a> {
    diag: &'a Diag,
    source: Option<Windowed>,
    file: Option<u32>,
    location: String,
    others: Vec<Part<'a>>,
}

/// The labels of a diagnostic that lie in one other file, drawn under it.
struct Part<'a> {
    labels: Vec<&'a Label>,
    source: Windowed,
    name: String,
}

impl<'a> Report<'a> {
    fn new(diag: &'a Diag, sources: &Sources) -> Self {
        let file = diag.primary_span().map(|s| s.file);
        // miette cannot lay out a label on an enormous line (it panics); such a diagnostic is
        // shown with its location only.
        let drawable = diag.labels.iter().all(|l| {
            sources
                .get(l.span.file)
                .map(|f| line_len_at(&f.text, l.span.start as usize) <= MAX_DRAWN_LINE)
                .unwrap_or(true)
        });
        let source = file
            .filter(|_| drawable)
            .and_then(|f| sources.get(f))
            .map(|f| Windowed(f.clone()));
        let location = match (diag.primary_span(), file.and_then(|f| sources.get(f))) {
            (Some(span), Some(f)) => {
                let (l, c) = sources.line_col(span);
                format!(" ({}:{l}:{c})", f.name)
            }
            _ => String::new(),
        };
        let mut others: Vec<Part<'a>> = Vec::new();
        if source.is_some() {
            for l in diag.labels.iter().filter(|l| Some(l.span.file) != file) {
                if let Some(p) = others
                    .iter_mut()
                    .find(|p| p.labels[0].span.file == l.span.file)
                {
                    p.labels.push(l);
                } else if let Some(f) = sources.get(l.span.file) {
                    others.push(Part {
                        labels: vec![l],
                        source: Windowed(f.clone()),
                        name: f.name.clone(),
                    });
                }
            }
        }
        Report {
            diag,
            source,
            file,
            location,
            others,
        }
    }
}

impl fmt::Debug for Part<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "in {}", self.name)
    }
}

impl fmt::Display for Part<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "in {}", self.name)
    }
}

impl std::error::Error for Part<'_> {}

impl Diagnostic for Part<'_> {
    fn severity(&self) -> Option<miette::Severity> {
        Some(miette::Severity::Advice)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().map(|l| labeled(l))))
    }
}

/// A label for miette; one without text is drawn as its underline alone.
fn labeled(l: &Label) -> LabeledSpan {
    LabeledSpan::new(
        (!l.text.is_empty()).then(|| l.text.clone()),
        l.span.start as usize,
        (l.span.end.saturating_sub(l.span.start)) as usize,
    )
}

/// A file as miette reads it: only the lines around a span, found with the file's line starts,
/// so drawing a diagnostic costs the lines it shows, not the whole file before them.
struct Windowed(SourceFile);

impl SourceCode for Windowed {
    fn read_span<'a>(
        &'a self,
        span: &miette::SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        let f = &self.0;
        let text = f.text.as_bytes();
        if span.offset() > text.len() {
            return Err(miette::MietteError::OutOfBounds);
        }
        let first = f.line_of(span.offset());
        let last = f.line_of(
            span.offset()
                .saturating_add(span.len())
                .saturating_sub(1)
                .max(span.offset()),
        );
        // One line more than asked: miette treats a span at the very start of its input apart.
        let w0 = first.saturating_sub(before.saturating_add(1));
        let start = f.line_starts.get(w0).copied().unwrap_or(0);
        let end = f
            .line_starts
            .get(last.saturating_add(after).saturating_add(2))
            .copied()
            .unwrap_or(text.len());
        let window = text.get(start..end).unwrap_or(&[]);
        let inner_span = miette::SourceSpan::new((span.offset() - start).into(), span.len());
        let inner = window.read_span(&inner_span, before, after)?;
        Ok(Box::new(miette::MietteSpanContents::new_named(
            f.name.clone(),
            inner.data(),
            miette::SourceSpan::new((inner.span().offset() + start).into(), inner.span().len()),
            inner.line() + w0,
            inner.column(),
            inner.line_count() + w0,
        )))
    }
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.diag.message)
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.source.is_none() {
            write!(f, "{}{}", self.diag.message, self.location)
        } else {
            write!(f, "{}", self.diag.message)
        }
    }
}

impl std::error::Error for Report<'_> {}

impl Diagnostic for Report<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(self.diag.code))
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diag.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }
    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.diag
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let file = self.file?;
        let labels: Vec<LabeledSpan> = self
            .diag
            .labels
            .iter()
            .filter(|l| l.span.file == file)
            .map(labeled)
            .collect();
        Some(Box::new(labels.into_iter()))
    }
}

/// Edit distance (optimal string alignment: a swap of neighbours counts one), for
/// "did you mean" suggestions. Case differences are free.
pub fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().map(|c| c.to_ascii_lowercase()).collect();
    let b: Vec<char> = b.chars().map(|c| c.to_ascii_lowercase()).collect();
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        d[i * w] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(w) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[a.len() * w + b.len()]
}

/// Longest name (in bytes) compared for "did you mean": a longer name is no typo.
pub const MAX_SUGGEST_LEN: usize = 64;

/// Cells of edit-distance tables one check may fill for suggestions (a few milliseconds of work).
/// Once spent, further problems are reported without a suggestion, so a file of thousands of
/// unknown names against thousands of names in scope still checks in bounded time.
pub const SUGGEST_BUDGET: u64 = 10_000_000;

thread_local! {
    static SUGGEST_LEFT: std::cell::Cell<u64> = const { std::cell::Cell::new(SUGGEST_BUDGET) };
}

/// Give suggestions a fresh budget (at the start of each check).
pub fn reset_suggest_budget() {
    SUGGEST_LEFT.with(|c| c.set(SUGGEST_BUDGET));
}

/// Take `cost` cells from the budget; false when it is spent.
fn spend_suggest(cost: u64) -> bool {
    SUGGEST_LEFT.with(|c| {
        let left = c.get();
        if left < cost {
            c.set(0);
            false
        } else {
            c.set(left - cost);
            true
        }
    })
}

/// The closest candidate to `name`, if one is close enough to be a likely typo. Names longer
/// than `MAX_SUGGEST_LEN` are not compared, and the work is charged to `SUGGEST_BUDGET`.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    if name.len() > MAX_SUGGEST_LEN || name.is_empty() {
        return None;
    }
    let mut best: Option<(usize, &str)> = None;
    let mut by_prefix: Vec<&str> = Vec::new();
    let name_chars = name.chars().count();
    for c in candidates {
        if c.len() > MAX_SUGGEST_LEN {
            continue;
        }
        let shared = name
            .chars()
            .zip(c.chars())
            .take_while(|(a, b)| a == b)
            .count();
        if shared >= 4 && c != name && by_prefix.len() < 2 {
            by_prefix.push(c);
        }
        if c == name {
            continue;
        }
        let c_chars = c.chars().count();
        let limit = (name_chars.max(c_chars) / 3).max(1);
        // The distance is at least the difference in length.
        if name_chars.abs_diff(c_chars) > limit {
            continue;
        }
        if !spend_suggest(((name_chars + 1) * (c_chars + 1)) as u64) {
            return None;
        }
        let d = levenshtein(name, c);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    // `scoring` for `score`: a long shared start is a likely slip too, when only one shares it.
    best.map(|(_, c)| c.to_string())
        .or_else(|| (by_prefix.len() == 1).then(|| by_prefix[0].to_string()))
}

pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    suggest(name, candidates).map(|s| format!("did you mean `{s}`?"))
}

#[cfg(test)]
mod window_tests {
    use super::*;
    use miette::SourceSpan;

    /// The window gives miette exactly what reading the whole file gives.
    #[test]
    fn a_window_reads_like_the_whole_file() {
        let text = "a\nbb\r\nccc\rdddd\n\neeeee\nf\ngg\nlast line without end";
        let mut sources = Sources::default();
        let id = sources.add("t.rules".into(), text.to_string());
        let file = sources.get(id).cloned().expect("file");
        let w = Windowed(file);
        for offset in 0..text.len() {
            for len in [0usize, 1, 3, 9] {
                if offset + len > text.len() {
                    continue;
                }
                for (before, after) in [(0, 0), (1, 1), (2, 3), (5, 0)] {
                    let span = SourceSpan::new(offset.into(), len);
                    let whole = text.as_bytes().read_span(&span, before, after);
                    let part = w.read_span(&span, before, after);
                    match (whole, part) {
                        (Ok(a), Ok(b)) => {
                            let at = format!("{offset}+{len} ({before}, {after})");
                            assert_eq!(a.data(), b.data(), "{at}");
                            assert_eq!(a.span(), b.span(), "{at}");
                            assert_eq!(a.line(), b.line(), "{at}");
                            assert_eq!(a.column(), b.column(), "{at}");
                            assert_eq!(a.line_count(), b.line_count(), "{at}");
                        }
                        (Err(_), Err(_)) => {}
                        (a, b) => panic!("{offset}+{len}: {:?} vs {:?}", a.is_ok(), b.is_ok()),
                    }
                }
            }
        }
    }
}
