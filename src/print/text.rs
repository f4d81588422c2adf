//! Text on a printed card: the bundled fonts, widths measured by shaping (rustybuzz, the shaper
//! krilla draws with), lines broken where Unicode allows (unicode-linebreak), and a size found
//! that fits the text in its box. Text never leaves its box: what does not fit at the smallest
//! size is cut at a line's end with an ellipsis, and the fit says so.

/// DejaVu Sans Condensed (Bitstream Vera licence, `assets/fonts/LICENSE-DejaVu.txt`): narrow
/// enough for rules text on a poker card, with Latin, Greek and Cyrillic.
pub static REGULAR: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansCondensed.ttf");
pub static BOLD: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansCondensed-Bold.ttf");

/// A font for measuring: its shaping face and its line metrics, in units of the em.
pub struct Metrics {
    face: rustybuzz::Face<'static>,
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
        let mut buf = rustybuzz::UnicodeBuffer::new();
        buf.push_str(text);
        let glyphs = rustybuzz::shape(&self.face, &[], buf);
        let total: i64 = glyphs
            .glyph_positions()
            .iter()
            .map(|p| i64::from(p.x_advance))
            .sum();
        total as f32 / self.units * size
    }

    /// The characters of `text` this font has no glyph for (they would print as empty boxes),
    /// each once, in order of first appearance. Spaces and control characters are not drawn.
    pub fn missing(&self, text: &str) -> Vec<char> {
        let mut out: Vec<char> = Vec::new();
        for c in text.chars() {
            if c.is_whitespace() || c.is_control() || out.contains(&c) {
                continue;
            }
            if self.face.glyph_index(c).is_none() {
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
    pub lines: Vec<String>,
    /// The widest line's width and the lines' total height, at `size`.
    pub width: f32,
    pub height: f32,
    /// False when even the smallest size could not hold it all: the last line ends in "…".
    pub complete: bool,
}

/// Break `text` into lines no wider than `width` at `size`. Explicit newlines are kept; a word
/// wider than the line is broken between characters.
pub fn wrap(m: &Metrics, text: &str, size: f32, width: f32) -> Vec<String> {
    let mut lines = Vec::new();
    for para in text.split('\n') {
        let mut line = String::new();
        let mut start = 0;
        for (end, _) in unicode_linebreak::linebreaks(para) {
            let Some(piece) = para.get(start..end) else {
                continue;
            };
            start = end;
            let piece = piece.trim_end_matches('\n');
            let candidate = format!("{line}{piece}");
            if line.is_empty() || m.width(candidate.trim_end(), size) <= width {
                line = candidate;
            } else {
                lines.push(line.trim_end().to_string());
                line = piece.to_string();
            }
            // A piece wider than the line on its own: break it between characters.
            while m.width(line.trim_end(), size) > width && line.chars().count() > 1 {
                let mut head = String::new();
                let mut rest = line.chars().peekable();
                while let Some(&c) = rest.peek() {
                    let next = format!("{head}{c}");
                    if !head.is_empty() && m.width(&next, size) > width {
                        break;
                    }
                    head = next;
                    rest.next();
                }
                let tail: String = rest.collect();
                if tail.is_empty() {
                    break;
                }
                lines.push(head);
                line = tail;
            }
        }
        lines.push(line.trim_end().to_string());
    }
    lines
}

/// The largest size from `max` down to `min` (in half points) at which `text` fits a box of
/// `width` by `height`; at `min`, the lines that fit, the last one ended with "…".
pub fn fit(m: &Metrics, text: &str, width: f32, height: f32, max: f32, min: f32) -> Fit {
    let mut size = max;
    loop {
        let lines = wrap(m, text, size, width);
        let h = lines.len() as f32 * m.line_height(size);
        if h <= height || size - 0.5 < min {
            let complete = h <= height;
            let lines = if complete {
                lines
            } else {
                cut(m, lines, size, width, height)
            };
            let w = lines.iter().map(|l| m.width(l, size)).fold(0.0, f32::max);
            let height = lines.len() as f32 * m.line_height(size);
            return Fit {
                size,
                lines,
                width: w,
                height,
                complete,
            };
        }
        size -= 0.5;
    }
}

/// The lines that fit `height`, the last ending in "…" within `width`.
fn cut(m: &Metrics, mut lines: Vec<String>, size: f32, width: f32, height: f32) -> Vec<String> {
    let room = (height / m.line_height(size)).floor().max(0.0) as usize;
    lines.truncate(room);
    if let Some(last) = lines.last_mut() {
        let mut s = last.clone();
        while !s.is_empty() && m.width(&format!("{s}…"), size) > width {
            s.pop();
        }
        *last = format!("{}…", s.trim_end());
    }
    lines
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
}
