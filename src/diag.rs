//! One diagnostic type for parse, check and runtime errors, rendered by miette.

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode,
};
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
        let upto = f.text.get(..span.start as usize).unwrap_or(&f.text);
        let line = upto.matches('\n').count() + 1;
        let col = upto
            .rsplit('\n')
            .next()
            .map(|s| s.chars().count())
            .unwrap_or(0)
            + 1;
        (line, col)
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

    pub fn render_with(&self, sources: &Sources, color: bool) -> String {
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

/// A diagnostic bound to the one file its first label points into, for miette.
struct Report<'a> {
    diag: &'a Diag,
    source: Option<NamedSource<Arc<str>>>,
    file: Option<u32>,
    location: String,
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
            .map(|f| NamedSource::new(f.name.clone(), f.text.clone()));
        let location = match (diag.primary_span(), file.and_then(|f| sources.get(f))) {
            (Some(span), Some(f)) => {
                let (l, c) = sources.line_col(span);
                format!(" ({}:{l}:{c})", f.name)
            }
            _ => String::new(),
        };
        Report {
            diag,
            source,
            file,
            location,
        }
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
            .map(|l| {
                LabeledSpan::new(
                    Some(l.text.clone()),
                    l.span.start as usize,
                    (l.span.end.saturating_sub(l.span.start)) as usize,
                )
            })
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
