//! Drawing laid-out pages into a PDF with krilla: fonts embedded (subset), text kept as text so
//! it can be selected and searched.

use super::face::Op;
use super::sheet::Sheet;
use super::text::{line_x, LineDir, Metrics, BOLD, REGULAR};
use super::Page;
use krilla::color::rgb;
use krilla::geom::{PathBuilder, Point};
use krilla::num::NormalizedF32;
use krilla::page::PageSettings;
use krilla::paint::{Fill, Stroke};
use krilla::text::{Font, TextDirection};
use krilla::Document;

pub fn write(sheet: &Sheet, pages: &[Page], title: &str) -> Result<Vec<u8>, String> {
    let regular =
        Font::new(krilla::Data::from(REGULAR), 0).ok_or("the bundled font is unreadable")?;
    let bold = Font::new(krilla::Data::from(BOLD), 0).ok_or("the bundled font is unreadable")?;
    let metrics = (
        Metrics::new(REGULAR).ok_or("the bundled font is unreadable")?,
        Metrics::new(BOLD).ok_or("the bundled font is unreadable")?,
    );
    let mut doc = Document::new();
    doc.set_metadata(
        krilla::metadata::Metadata::new()
            .title(title.to_string())
            .creator("rules print".to_string()),
    );
    for page in pages {
        let settings = PageSettings::from_wh(sheet.page_w, sheet.page_h)
            .ok_or("the page size is not a size")?;
        let mut p = doc.start_page_with(settings);
        let mut s = p.surface();
        for op in &page.ops {
            match op {
                Op::Rect { r, fill, stroke } => {
                    let mut pb = PathBuilder::new();
                    if let Some(rect) = krilla::geom::Rect::from_xywh(r.x, r.y, r.w, r.h) {
                        pb.push_rect(rect);
                    }
                    let Some(path) = pb.finish() else { continue };
                    s.set_fill(fill.map(|c| Fill {
                        paint: colour(c).into(),
                        opacity: NormalizedF32::ONE,
                        rule: Default::default(),
                    }));
                    s.set_stroke(stroke.map(|(c, w)| Stroke {
                        paint: colour(c).into(),
                        width: w,
                        ..Default::default()
                    }));
                    s.draw_path(&path);
                }
                Op::Line {
                    from,
                    to,
                    colour: c,
                    width,
                } => {
                    let mut pb = PathBuilder::new();
                    pb.move_to(from.0, from.1);
                    pb.line_to(to.0, to.1);
                    let Some(path) = pb.finish() else { continue };
                    s.set_fill(None);
                    s.set_stroke(Some(Stroke {
                        paint: colour(*c).into(),
                        width: *width,
                        ..Default::default()
                    }));
                    s.draw_path(&path);
                }
                Op::Text {
                    area,
                    fit,
                    bold: b,
                    colour: c,
                    centred,
                    ..
                } => {
                    let (font, m) = if *b {
                        (bold.clone(), &metrics.1)
                    } else {
                        (regular.clone(), &metrics.0)
                    };
                    s.set_stroke(None);
                    s.set_fill(Some(Fill {
                        paint: colour(*c).into(),
                        opacity: NormalizedF32::ONE,
                        rule: Default::default(),
                    }));
                    let none = LineDir::default();
                    for (i, line) in fit.lines.iter().enumerate() {
                        let dir = fit.dirs.get(i).unwrap_or(&none);
                        let mut x = line_x(area, m.width(line, fit.size), *centred, dir.rtl);
                        let y = area.y + m.ascent * fit.size + i as f32 * m.line_height(fit.size);
                        // Each run at its place left to right, drawn in reading order (the
                        // order a reader of the PDF's text finds them), shaped in its direction.
                        let mut runs: Vec<(f32, usize, &str, bool)> = Vec::new();
                        for (run, rtl, at) in dir.runs(line) {
                            runs.push((x, at, run, rtl));
                            x += m.width(run, fit.size);
                        }
                        runs.sort_by_key(|r| r.1);
                        for (x, _, run, rtl) in runs {
                            s.draw_text(
                                Point::from_xy(x, y),
                                font.clone(),
                                fit.size,
                                run,
                                false,
                                if rtl {
                                    TextDirection::RightToLeft
                                } else {
                                    TextDirection::LeftToRight
                                },
                            );
                        }
                    }
                }
            }
        }
        s.finish();
        p.finish();
    }
    doc.finish()
        .map_err(|e| format!("the PDF could not be made: {e:?}"))
}

fn colour(c: [u8; 3]) -> rgb::Color {
    rgb::Color::new(c[0], c[1], c[2])
}
