//! Text on a printed card: the bundled fonts, widths measured by shaping (rustybuzz, the shaper
//! krilla draws with), lines broken where Unicode allows (unicode-linebreak), and a size found
//! that fits the text in its box. Text never leaves its box: what does not fit at the smallest
//! size is cut at a line's end with an ellipsis, and the fit says so.

/// DejaVu Sans Condensed (Bitstream Vera licence, `assets/fonts/LICENSE-DejaVu.txt`): narrow
/// enough for rules text on a poker card, with Latin, Greek and Cyrillic.
pub static REGULAR: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansCondensed.ttf");
pub static BOLD: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansCondensed-Bold.ttf");

/// What a shaping plan is made for.
type PlanKey = (
    rustybuzz::Direction,
    rustybuzz::Script,
    Option<rustybuzz::Language>,
);

/// A font for measuring: its shaping face and its line metrics, in units of the em.
pub struct Metrics {
    face: rustybuzz::Face<'static>,
    /// Shaping plans made so far, one per direction, script and language met: making a plan
    /// costs far more than shaping a word with it.
    #[allow(clippy::type_complexity)]
    plans: std::cell::RefCell<Vec<(PlanKey, rustybuzz::ShapePlan)>>,
    units: f32,
    /// Height above the baseline, and below it (positive), per point of size.
    pub ascent: f32,
    pub descent: f32,
}

impl Metrics {
    pub fn new(data: &'static [u8]) -> Option<Metrics> {
        let face = rustybuzz::Face::from_slice(data, 0)?;
        let units = (face.units_per_em() as f32).max(1.0);
        let ascent = f32::from(face.ascender()) / units;
        let descent = -f32::from(face.descender()) / units;
        Some(Metrics {
            face,
            plans: Default::default(),
            units,
            ascent,
            descent,
        })
    }

    /// The advance of `text` at `size` points, as shaped.
    pub fn width(&self, text: &str, size: f32) -> f32 {
        if text.is_empty() {
            return 0.0;
        }
        let glyphs = self.shape(text);
        let total: i64 = glyphs
            .glyph_positions()
            .iter()
            .map(|p| i64::from(p.x_advance))
            .sum();
        total as f32 / self.units * size
    }

    /// `text` shaped with the plan for its direction, script and language (made once).
    fn shape(&self, text: &str) -> rustybuzz::GlyphBuffer {
        let mut buf = rustybuzz::UnicodeBuffer::new();
        buf.push_str(text);
        buf.guess_segment_properties();
        let key = (buf.direction(), buf.script(), buf.language());
        let mut plans = self.plans.borrow_mut();
        let i = match plans.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                let plan =
                    rustybuzz::ShapePlan::new(&self.face, key.0, Some(key.1), key.2.as_ref(), &[]);
                plans.push((key, plan));
                plans.len() - 1
            }
        };
        match plans.get(i) {
            Some((_, plan)) => rustybuzz::shape_with_plan(&self.face, plan, buf),
            None => rustybuzz::shape(&self.face, &[], buf),
        }
    }

    /// The clusters of `piece` (which starts at byte `offset` of its paragraph), shaped once, in
    /// the order of the text, each with its advance at a size of one point.
    fn clusters(&self, piece: &str, offset: usize, out: &mut Vec<Cluster>) {
        if piece.is_empty() {
            return;
        }
        let glyphs = self.shape(piece);
        // Advances by cluster (a cluster is the byte offset of its first character); a
        // right-to-left piece has its glyphs in visual order, so they are sorted back.
        let mut by: Vec<(usize, i64)> = glyphs
            .glyph_infos()
            .iter()
            .zip(glyphs.glyph_positions())
            .map(|(i, p)| (i.cluster as usize, i64::from(p.x_advance)))
            .collect();
        by.sort_by_key(|&(c, _)| c);
        let first = out.len();
        for (c, adv) in by {
            let mine = out.len() > first;
            match out.last_mut() {
                Some(last) if mine && last.at == offset + c => {
                    last.advance += adv as f64 / f64::from(self.units);
                }
                _ => out.push(Cluster {
                    at: offset + c,
                    advance: adv as f64 / f64::from(self.units),
                    space: piece
                        .get(c..)
                        .and_then(|t| t.chars().next())
                        .is_some_and(char::is_whitespace),
                }),
            }
        }
    }

    /// The characters of `text` this font has no glyph for (they would print as empty boxes),
    /// each once, in order of first appearance. Spaces and control characters are not drawn.
    pub fn missing(&self, text: &str) -> Vec<char> {
        let mut out: Vec<char> = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for c in text.chars() {
            if c.is_whitespace() || c.is_control() {
                continue;
            }
            if self.face.glyph_index(c).is_none() && seen.insert(c) {
                out.push(c);
            }
        }
        out
    }

    /// Distance from one baseline to the next.
    pub fn line_height(&self, size: f32) -> f32 {
        (self.ascent + self.descent) * size * 1.08
    }
}

/// Text laid out in a box: its size, its lines, and whether it all fitted.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    pub size: f32,
    /// The lines, each in logical (reading) order.
    pub lines: Vec<String>,
    /// How each line is drawn, one per line: its direction and its runs in visual order.
    pub dirs: Vec<LineDir>,
    /// The widest line's width and the lines' total height, at `size`.
    pub width: f32,
    pub height: f32,
    /// False when even the smallest size could not hold it all: the last line ends in "…".
    pub complete: bool,
    /// How many bytes of the text were printed (all of it when `complete`); what follows was
    /// left out.
    pub shown: usize,
    /// What was left out: how many characters, and the first of them.
    pub left_out: usize,
    pub left_out_start: String,
}

/// A line's bidirectional layout: whether its paragraph reads right to left (then the line is
/// set against the right edge), and its runs as byte ranges of the line, left to right as drawn,
/// each `true` when it is set right to left. No runs: the line is one left-to-right run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LineDir {
    pub rtl: bool,
    pub runs: Vec<(std::ops::Range<usize>, bool)>,
}

impl LineDir {
    /// The runs of `line` (which this describes), left to right as drawn: each its text,
    /// whether it is set right to left, and where it starts in the line.
    pub fn runs<'a>(&'a self, line: &'a str) -> Vec<(&'a str, bool, usize)> {
        if self.runs.is_empty() {
            return vec![(line, false, 0)];
        }
        self.runs
            .iter()
            .filter_map(|(r, rtl)| line.get(r.clone()).map(|t| (t, *rtl, r.start)))
            .collect()
    }
}

/// Where a line of `width` starts in `area`: at its left edge, its centre, or (for a paragraph
/// read right to left) against its right edge.
pub fn line_x(area: &super::sheet::Rect, width: f32, centred: bool, rtl: bool) -> f32 {
    let spare = (area.w - width).max(0.0);
    if centred {
        area.x + spare / 2.0
    } else if rtl {
        area.x + spare
    } else {
        area.x
    }
}

/// One shaped cluster of a paragraph: where it starts (a byte offset), its advance at a size of
/// one point, and whether it is white space (trimmed at a line's end).
#[derive(Clone, Copy)]
struct Cluster {
    at: usize,
    advance: f64,
    space: bool,
}

/// A paragraph measured once: its clusters, shaped piece by piece (a piece runs from one place
/// a line may break to the next), with running sums, so the width of any run of clusters is a
/// subtraction. Wrapping at any size and width is then arithmetic: no text is shaped again, so
/// the work is linear in the text however long its words.
struct Measured<'t> {
    text: &'t str,
    clusters: Vec<Cluster>,
    /// `sum[i]`: the advance of clusters `0..i`.
    sum: Vec<f64>,
    /// `ink[i]`: one past the last cluster before `i` that is not white space (0 if none).
    ink: Vec<usize>,
    /// Where lines may break, as cluster indices (the last is the paragraph's end).
    breaks: Vec<usize>,
    /// Whether any of it may read right to left (then its lines are reordered for drawing).
    rtl: bool,
}

impl<'t> Measured<'t> {
    fn new(m: &Metrics, text: &'t str) -> Measured<'t> {
        let mut clusters = Vec::new();
        let mut breaks = Vec::new();
        let mut start = 0;
        for (end, _) in unicode_linebreak::linebreaks(text) {
            let Some(piece) = text.get(start..end) else {
                continue;
            };
            m.clusters(piece, start, &mut clusters);
            breaks.push(clusters.len());
            start = end;
        }
        let mut sum = Vec::with_capacity(clusters.len() + 1);
        let mut ink = Vec::with_capacity(clusters.len() + 1);
        let (mut total, mut last) = (0.0, 0);
        sum.push(total);
        ink.push(last);
        for (i, c) in clusters.iter().enumerate() {
            total += c.advance;
            if !c.space {
                last = i + 1;
            }
            sum.push(total);
            ink.push(last);
        }
        Measured {
            text,
            clusters,
            sum,
            ink,
            breaks,
            rtl: text.chars().any(maybe_rtl),
        }
    }

    fn at(&self, i: usize) -> usize {
        self.clusters.get(i).map_or(self.text.len(), |c| c.at)
    }

    /// The width of clusters `a..b`, white space at the end left out, at one point.
    fn trimmed(&self, a: usize, b: usize) -> f64 {
        let end = self.ink.get(b).copied().unwrap_or(0).max(a);
        self.sum.get(end).copied().unwrap_or(0.0) - self.sum.get(a).copied().unwrap_or(0.0)
    }

    fn advance(&self, i: usize) -> f64 {
        self.clusters.get(i).map_or(0.0, |c| c.advance)
    }

    /// Lines no wider than `width` (at one point) as cluster ranges.
    fn wrap(&self, width: f64) -> Vec<(usize, usize)> {
        let mut lines = Vec::new();
        let mut line = 0;
        let mut prev = 0;
        for &b in &self.breaks {
            // The piece `prev..b` joins the line if it fits, else starts the next one.
            if line < prev && self.trimmed(line, b) > width {
                lines.push((line, prev));
                line = prev;
            }
            prev = b;
            // A piece wider than the line on its own: break it between clusters.
            while self.trimmed(line, b) > width && b.saturating_sub(line) > 1 {
                let mut head = line + 1;
                let mut w = self.advance(line);
                while head < b && w + self.advance(head) <= width {
                    w += self.advance(head);
                    head += 1;
                }
                if self.ink.get(b).copied().unwrap_or(0) <= head {
                    break;
                }
                lines.push((line, head));
                line = head;
            }
        }
        lines.push((line, self.clusters.len()));
        lines
    }
}

/// Break `text` into lines no wider than `width` at `size`. Explicit newlines are kept; a word
/// wider than the line is broken between characters.
pub fn wrap(m: &Metrics, text: &str, size: f32, width: f32) -> Vec<String> {
    let mut out = Vec::new();
    for para in text.split('\n') {
        let p = Measured::new(m, para);
        for (a, b) in p.wrap(f64::from(width) / f64::from(size.max(0.01))) {
            let line = para.get(p.at(a)..p.at(b)).unwrap_or("");
            out.push(line.trim_end().to_string());
        }
    }
    out
}

/// The largest size from `max` down to `min` (in half points) at which `text` fits a box of
/// `width` by `height`; at `min`, the lines that fit, the last one ended with "…". Each piece
/// of the text is shaped once, whatever the sizes tried.
pub fn fit(m: &Metrics, text: &str, width: f32, height: f32, max: f32, min: f32) -> Fit {
    Shaped::new(m, text).fit(width, height, max, min)
}

/// A text shaped once, paragraph by paragraph, to be wrapped and fitted at any size by
/// arithmetic (a card's body tries sizes for its rows and text together).
pub struct Shaped<'t> {
    m: &'t Metrics,
    text: &'t str,
    /// Each paragraph with the byte offset it starts at.
    paras: Vec<(usize, Measured<'t>)>,
}

impl<'t> Shaped<'t> {
    pub fn new(m: &'t Metrics, text: &'t str) -> Shaped<'t> {
        let mut paras = Vec::new();
        let mut offset = 0;
        for para in text.split('\n') {
            paras.push((offset, Measured::new(m, para)));
            offset += para.len() + 1;
        }
        Shaped { m, text, paras }
    }

    /// The height of the text wrapped to `width` at `size`, uncut.
    pub fn height(&self, width: f32, size: f32) -> f32 {
        let unit = f64::from(width) / f64::from(size.max(0.01));
        let lines: usize = self.paras.iter().map(|(_, p)| p.wrap(unit).len()).sum();
        lines as f32 * self.m.line_height(size)
    }

    /// As `fit`, on the text shaped already.
    pub fn fit(&self, width: f32, height: f32, max: f32, min: f32) -> Fit {
        let m = self.m;
        let mut size = max;
        loop {
            let unit = f64::from(width) / f64::from(size.max(0.01));
            let room = (height / m.line_height(size)).floor().max(0.0) as usize;
            let last = size - 0.5 < min;
            let keep = room.saturating_add(2);
            // Each line: its paragraph and its cluster range. Past the lines that fit, counting
            // is enough (unless this is the last size tried, where one more says "cut").
            let mut lines: Vec<(usize, usize, usize)> = Vec::new();
            let mut count = 0usize;
            for (i, (_, p)) in self.paras.iter().enumerate() {
                for (a, b) in p.wrap(unit) {
                    count += 1;
                    if lines.len() < keep {
                        lines.push((i, a, b));
                    }
                }
            }
            let complete = count as f32 * m.line_height(size) <= height;
            if complete || last {
                return finish(
                    m,
                    self.text,
                    &self.paras,
                    lines,
                    complete,
                    size,
                    width,
                    room,
                );
            }
            size -= 0.5;
        }
    }
}

/// The fit of the lines found: their text, widths and directions; when cut, the lines that fit
/// `room` with the last ending in "…" within `width`.
#[allow(clippy::too_many_arguments)]
fn finish(
    m: &Metrics,
    text: &str,
    paras: &[(usize, Measured)],
    mut lines: Vec<(usize, usize, usize)>,
    complete: bool,
    size: f32,
    width: f32,
    room: usize,
) -> Fit {
    let mut shown = text.len();
    let mut cut_last = None;
    if !complete {
        lines.truncate(room);
        if let Some(&(i, a, b)) = lines.last() {
            if let Some((_, p)) = paras.get(i) {
                // As many clusters as fit beside the ellipsis.
                let unit = f64::from(width) / f64::from(size.max(0.01));
                let ell = f64::from(m.width("…", 1.0));
                let mut k = a;
                while k < b && p.trimmed(a, k + 1) + ell <= unit {
                    k += 1;
                }
                cut_last = Some(k);
            }
        }
        shown = match (lines.last(), cut_last) {
            (Some(&(i, _, _)), Some(k)) => paras.get(i).map_or(0, |(o, p)| o + p.at(k)),
            _ => 0,
        };
    }
    let n = lines.len();
    let mut out = Vec::with_capacity(n);
    let mut dirs = Vec::with_capacity(n);
    let mut bidi: Option<(usize, unicode_bidi::ParagraphBidiInfo)> = None;
    for (j, &(i, a, b)) in lines.iter().enumerate() {
        let Some((_, p)) = paras.get(i) else { continue };
        let cut = if j + 1 == n { cut_last } else { None };
        let end = p.at(cut.unwrap_or(b));
        let body = p.text.get(p.at(a)..end).unwrap_or("").trim_end();
        let start = p.at(a);
        // Bidirectional levels are found for the whole paragraph, once, when it has any
        // right-to-left text; each line is then reordered on its own.
        let dir = if p.rtl {
            if bidi.as_ref().is_none_or(|(k, _)| *k != i) {
                bidi = Some((i, unicode_bidi::ParagraphBidiInfo::new(p.text, None)));
            }
            match &bidi {
                Some((_, info)) => line_dir(info, start..start + body.len(), cut.is_some()),
                None => LineDir::default(),
            }
        } else {
            LineDir::default()
        };
        let line = if cut.is_some() {
            format!("{body}…")
        } else {
            body.to_string()
        };
        out.push(line);
        dirs.push(dir);
    }
    let w = out.iter().map(|l| m.width(l, size)).fold(0.0, f32::max);
    let rest = text.get(shown..).unwrap_or("").trim_start();
    Fit {
        left_out: if complete { 0 } else { rest.chars().count() },
        left_out_start: if complete {
            String::new()
        } else {
            rest.chars().take(40).collect()
        },
        size,
        height: out.len() as f32 * m.line_height(size),
        lines: out,
        dirs,
        width: w,
        complete,
        shown,
    }
}

/// A character that makes text run right to left: a letter of Hebrew, Arabic or another
/// right-to-left script, or an explicit right-to-left mark, embedding, override or isolate.
fn maybe_rtl(c: char) -> bool {
    use unicode_bidi::BidiClass::{AL, R, RLE, RLI, RLO};
    matches!(unicode_bidi::bidi_class(c), R | AL | RLE | RLO | RLI)
}

/// The runs of the line at `range` of a paragraph, in visual order, as ranges of the line; an
/// ellipsis added at its end (`ellipsis`) is a run of its own at the paragraph's end.
fn line_dir(
    info: &unicode_bidi::ParagraphBidiInfo,
    range: std::ops::Range<usize>,
    ellipsis: bool,
) -> LineDir {
    let rtl = info.paragraph_level.is_rtl();
    let start = range.start;
    let len = range.len();
    let mut runs: Vec<(std::ops::Range<usize>, bool)> = Vec::new();
    if len > 0 {
        let (levels, visual) = info.visual_runs(range);
        for r in visual {
            let level_rtl = levels.get(r.start).is_some_and(|l| l.is_rtl());
            let a = r.start.saturating_sub(start);
            let b = r.end.saturating_sub(start).min(len);
            if a < b {
                runs.push((a..b, level_rtl));
            }
        }
    }
    if ellipsis {
        let e = len..len + "…".len();
        if rtl {
            runs.insert(0, (e, true));
        } else {
            runs.push((e, false));
        }
    }
    LineDir { rtl, runs }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_lines_fit_their_width() {
        let m = Metrics::new(REGULAR).expect("font");
        let text = "Each faction must put at least two steel into Domestic, or lose two Control.";
        for w in [40.0, 80.0, 150.0] {
            for line in wrap(&m, text, 8.0, w) {
                assert!(m.width(&line, 8.0) <= w + 0.01, "{line:?} wider than {w}");
            }
        }
        let one = wrap(&m, "Supercalifragilisticexpialidocious", 8.0, 30.0);
        assert!(one.len() > 2, "{one:?}");
    }

    #[test]
    fn fit_shrinks_then_cuts() {
        let m = Metrics::new(REGULAR).expect("font");
        let long = "word ".repeat(200);
        let f = fit(&m, &long, 100.0, 60.0, 9.0, 5.0);
        assert!(!f.complete);
        assert_eq!(f.size, 5.0);
        assert!(f.height <= 60.0 && f.width <= 100.0);
        assert!(f.lines.last().is_some_and(|l| l.ends_with('…')));
        let short = fit(&m, "Plague Ship", 100.0, 60.0, 9.0, 5.0);
        assert!(short.complete && short.size == 9.0 && short.lines.len() == 1);
    }

    #[test]
    fn a_long_word_is_broken_between_characters_and_loses_none() {
        let m = Metrics::new(REGULAR).expect("font");
        let word = "abcdefghij".repeat(500);
        let lines = wrap(&m, &word, 8.0, 50.0);
        assert!(lines.len() > 50, "{}", lines.len());
        for line in &lines {
            assert!(m.width(line, 8.0) <= 50.01, "{line:?}");
        }
        assert_eq!(lines.concat(), word);
    }

    #[test]
    fn mixed_directions_are_drawn_in_visual_order() {
        let m = Metrics::new(REGULAR).expect("font");
        let f = fit(&m, "שלום abc 123", 200.0, 50.0, 8.0, 5.0);
        let line = &f.lines[0];
        let dir = &f.dirs[0];
        assert!(dir.rtl, "{dir:?}");
        // The space between belongs to the right-to-left run (it is at the paragraph's level).
        let runs: Vec<(&str, bool)> = dir
            .runs(line)
            .into_iter()
            .map(|(t, r, _)| (t.trim(), r))
            .collect();
        assert_eq!(runs.first(), Some(&("abc 123", false)), "{runs:?}");
        assert_eq!(runs.last(), Some(&("שלום", true)), "{runs:?}");
        let plain = fit(&m, "all left to right", 200.0, 50.0, 8.0, 5.0);
        assert!(plain.dirs.iter().all(|d| !d.rtl && d.runs.is_empty()));
    }
}
