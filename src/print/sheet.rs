//! Where cards go on a page: card and paper sizes, the grid, crop marks, and the mirrored order
//! of card backs for double-sided printing. All lengths in points (1/72 inch), y downwards.

/// Points in a millimetre.
pub const MM: f32 = 72.0 / 25.4;

/// A card size, in millimetres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CardSize {
    pub w: f32,
    pub h: f32,
}

impl CardSize {
    /// `poker`, `bridge`, `tarot`, or `WxHmm` (`63x88mm`).
    pub fn parse(s: &str) -> Result<CardSize, String> {
        match s {
            "poker" => return Ok(CardSize { w: 63.0, h: 88.0 }),
            "bridge" => return Ok(CardSize { w: 57.0, h: 89.0 }),
            "tarot" => return Ok(CardSize { w: 70.0, h: 120.0 }),
            _ => {}
        }
        let dims = s.strip_suffix("mm").unwrap_or(s);
        let (w, h) = dims.split_once('x').ok_or_else(|| {
            format!("`{s}` is not a card size: poker, bridge, tarot or WxHmm (63x88mm)")
        })?;
        let num = |t: &str| -> Result<f32, String> {
            let v: f32 = t
                .trim()
                .parse()
                .map_err(|_| format!("`{t}` in `{s}` is not a number of millimetres"))?;
            if (20.0..=200.0).contains(&v) {
                Ok(v)
            } else {
                Err(format!("a card side of {v} mm is outside 20 to 200 mm"))
            }
        };
        Ok(CardSize {
            w: num(w)?,
            h: num(h)?,
        })
    }
}

/// A paper size, in millimetres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Paper {
    pub w: f32,
    pub h: f32,
}

impl Paper {
    pub fn parse(s: &str) -> Result<Paper, String> {
        match s {
            "a4" | "A4" => Ok(Paper { w: 210.0, h: 297.0 }),
            "letter" | "Letter" => Ok(Paper { w: 215.9, h: 279.4 }),
            _ => Err(format!("`{s}` is not a paper size: a4 or letter")),
        }
    }
}

/// The least margin left around the grid for crop marks and printers' edges.
const MARGIN_MM: f32 = 5.0;

/// A page's grid of cards.
#[derive(Debug, Clone, PartialEq)]
pub struct Sheet {
    pub page_w: f32,
    pub page_h: f32,
    pub card_w: f32,
    pub card_h: f32,
    pub bleed: f32,
    pub cols: usize,
    pub rows: usize,
    /// The top-left corner of the first cell (a card with its bleed).
    pub x0: f32,
    pub y0: f32,
}

/// A rectangle, in points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

impl Rect {
    pub fn contains(&self, r: &Rect) -> bool {
        let e = 0.01;
        r.x >= self.x - e
            && r.y >= self.y - e
            && r.x + r.w <= self.x + self.w + e
            && r.y + r.h <= self.y + self.h + e
    }
}

impl Sheet {
    pub fn new(paper: Paper, card: CardSize, bleed_mm: f32) -> Result<Sheet, String> {
        if !(0.0..=10.0).contains(&bleed_mm) {
            return Err(format!("a bleed of {bleed_mm} mm is outside 0 to 10 mm"));
        }
        let cell_w = card.w + 2.0 * bleed_mm;
        let cell_h = card.h + 2.0 * bleed_mm;
        let cols = ((paper.w - 2.0 * MARGIN_MM) / cell_w).floor();
        let rows = ((paper.h - 2.0 * MARGIN_MM) / cell_h).floor();
        if cols < 1.0 || rows < 1.0 {
            return Err(format!(
                "a {} x {} mm card with {bleed_mm} mm bleed does not fit on a {} x {} mm page",
                card.w, card.h, paper.w, paper.h
            ));
        }
        Ok(Sheet {
            page_w: paper.w * MM,
            page_h: paper.h * MM,
            card_w: card.w * MM,
            card_h: card.h * MM,
            bleed: bleed_mm * MM,
            cols: cols as usize,
            rows: rows as usize,
            x0: (paper.w - cols * cell_w) / 2.0 * MM,
            y0: (paper.h - rows * cell_h) / 2.0 * MM,
        })
    }

    pub fn per_page(&self) -> usize {
        self.cols * self.rows
    }

    /// The card's own rectangle (the cut line) in cell `i` of a page; `back` mirrors the
    /// columns, so a card's back lands behind its face when the sheet is turned over its long
    /// edge.
    pub fn card_rect(&self, i: usize, back: bool) -> Rect {
        let (row, col) = (i / self.cols.max(1), i % self.cols.max(1));
        let col = if back { self.cols - 1 - col } else { col };
        let cell_w = self.card_w + 2.0 * self.bleed;
        let cell_h = self.card_h + 2.0 * self.bleed;
        Rect {
            x: self.x0 + col as f32 * cell_w + self.bleed,
            y: self.y0 + row as f32 * cell_h + self.bleed,
            w: self.card_w,
            h: self.card_h,
        }
    }

    /// Crop marks: short lines in the margins, in line with every card's edges, never over a
    /// card. Each is (x1, y1, x2, y2).
    pub fn crop_marks(&self) -> Vec<(f32, f32, f32, f32)> {
        let len = 4.0 * MM;
        let gap = 1.0 * MM;
        let (top, bottom) = (self.y0, self.page_h - self.y0);
        let (left, right) = (self.x0, self.page_w - self.x0);
        let mut marks = Vec::new();
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        for c in 0..self.cols {
            let r = self.card_rect(c, false);
            xs.extend([r.x, r.x + r.w]);
        }
        for row in 0..self.rows {
            let r = self.card_rect(row * self.cols, false);
            ys.extend([r.y, r.y + r.h]);
        }
        for x in xs {
            marks.push((x, (top - gap - len).max(0.0), x, top - gap));
            marks.push((x, bottom + gap, x, (bottom + gap + len).min(self.page_h)));
        }
        for y in ys {
            marks.push(((left - gap - len).max(0.0), y, left - gap, y));
            marks.push((right + gap, y, (right + gap + len).min(self.page_w), y));
        }
        marks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nine_poker_cards_on_a4_and_letter() {
        for paper in ["a4", "letter"] {
            let p = Paper::parse(paper).expect("paper");
            let s = Sheet::new(p, CardSize::parse("poker").expect("size"), 0.0).expect("sheet");
            assert_eq!((s.cols, s.rows), (3, 3), "{paper}");
            let page = Rect {
                x: 0.0,
                y: 0.0,
                w: s.page_w,
                h: s.page_h,
            };
            for i in 0..9 {
                assert!(page.contains(&s.card_rect(i, false)));
            }
        }
    }

    #[test]
    fn backs_mirror_the_columns() {
        let s = Sheet::new(
            Paper::parse("a4").expect("a4"),
            CardSize::parse("poker").expect("p"),
            0.0,
        )
        .expect("sheet");
        assert_eq!(s.card_rect(0, true).x, s.card_rect(2, false).x);
        assert_eq!(s.card_rect(4, true).x, s.card_rect(4, false).x);
    }

    #[test]
    fn crop_marks_stay_off_the_cards() {
        let s = Sheet::new(
            Paper::parse("a4").expect("a4"),
            CardSize::parse("poker").expect("p"),
            3.0,
        )
        .expect("sheet");
        for (x1, y1, x2, y2) in s.crop_marks() {
            for i in 0..s.per_page() {
                let r = s.card_rect(i, false);
                let inside = |x: f32, y: f32| x > r.x && x < r.x + r.w && y > r.y && y < r.y + r.h;
                assert!(!inside((x1 + x2) / 2.0, (y1 + y2) / 2.0));
            }
        }
    }

    #[test]
    fn sizes_are_parsed_and_refused() {
        assert_eq!(
            CardSize::parse("70x120mm"),
            Ok(CardSize { w: 70.0, h: 120.0 })
        );
        assert!(CardSize::parse("9x9mm").is_err());
        assert!(CardSize::parse("huge").is_err());
        assert!(Sheet::new(
            Paper::parse("a4").expect("a4"),
            CardSize { w: 200.0, h: 290.0 },
            0.0
        )
        .is_err());
    }
}
