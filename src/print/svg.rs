//! Laid-out pages as SVG, one file per page. The text is real text in the bundled font's family
//! (the SVG names it; a viewer without it substitutes a similar sans-serif).

use super::face::Op;
use super::sheet::Sheet;
use super::text::{Metrics, BOLD, REGULAR};
use super::Page;
use std::fmt::Write;

pub fn write(sheet: &Sheet, page: &Page) -> String {
    let (Some(regular), Some(bold)) = (Metrics::new(REGULAR), Metrics::new(BOLD)) else {
        return String::new();
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}pt" height="{h}pt" viewBox="0 0 {w} {h}">"#,
        w = sheet.page_w,
        h = sheet.page_h
    );
    let _ = writeln!(out, r#"<rect width="100%" height="100%" fill="white"/>"#);
    for op in &page.ops {
        match op {
            Op::Rect { r, fill, stroke } => {
                let fill = fill.map(hex).unwrap_or_else(|| "none".into());
                let (sc, sw) = stroke
                    .map(|(c, w)| (hex(c), w))
                    .unwrap_or(("none".into(), 0.0));
                let _ = writeln!(
                    out,
                    r#"<rect x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="{fill}" stroke="{sc}" stroke-width="{sw}"/>"#,
                    r.x, r.y, r.w, r.h
                );
            }
            Op::Line {
                from,
                to,
                colour,
                width,
            } => {
                let _ = writeln!(
                    out,
                    r#"<line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}" stroke="{}" stroke-width="{width}"/>"#,
                    from.0,
                    from.1,
                    to.0,
                    to.1,
                    hex(*colour)
                );
            }
            Op::Text {
                area,
                fit,
                bold: b,
                colour,
                centred,
            } => {
                let m = if *b { &bold } else { &regular };
                for (i, line) in fit.lines.iter().enumerate() {
                    let x = if *centred {
                        area.x + (area.w - m.width(line, fit.size)).max(0.0) / 2.0
                    } else {
                        area.x
                    };
                    let y = area.y + m.ascent * fit.size + i as f32 * m.line_height(fit.size);
                    let _ = writeln!(
                        out,
                        r#"<text x="{x:.2}" y="{y:.2}" font-family="DejaVu Sans Condensed, DejaVu Sans, sans-serif" font-size="{}" font-weight="{}" fill="{}">{}</text>"#,
                        fit.size,
                        if *b { "bold" } else { "normal" },
                        hex(*colour),
                        escape(line)
                    );
                }
            }
        }
    }
    out.push_str("</svg>\n");
    out
}

fn hex(c: [u8; 3]) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if (c as u32) < 0x20 && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}
