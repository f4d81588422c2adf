//! Laid-out pages as SVG, one file per page. The text is real text in the bundled font's family
//! (the SVG names it; a viewer without it substitutes a similar sans-serif).

use super::face::Op;
use super::sheet::Sheet;
use super::text::{line_x, Metrics, BOLD, REGULAR};
use super::Page;
use std::fmt::Write;
use std::path::Path;

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
                ..
            } => {
                let m = if *b { &bold } else { &regular };
                for (i, line) in fit.lines.iter().enumerate() {
                    let rtl = fit.dirs.get(i).is_some_and(|d| d.rtl);
                    let w = m.width(line, fit.size);
                    let x = line_x(area, w, *centred, rtl);
                    let y = area.y + m.ascent * fit.size + i as f32 * m.line_height(fit.size);
                    // The viewer reorders a line's mixed directions itself; a right-to-left
                    // paragraph's line says so, and starts at its right end.
                    let (x, dir) = if rtl {
                        (x + w, r#" direction="rtl""#)
                    } else {
                        (x, "")
                    };
                    let _ = writeln!(
                        out,
                        r#"<text x="{x:.2}" y="{y:.2}"{dir} font-family="DejaVu Sans Condensed, DejaVu Sans, sans-serif" font-size="{}" font-weight="{}" fill="{}">{}</text>"#,
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

/// `s` as XML character data: markup escaped, and the characters XML 1.0 does not allow in a
/// document (C0 controls other than tab, and U+FFFE and U+FFFF) are left out,
/// as are newlines (a `<text>` is one line), so a page is always well-formed XML.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if (c as u32) < 0x20 && c != '\t' => {}
            '\u{FFFE}' | '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// Whether `name` is one of the pages `write_folder` writes (`page-01.svg`, `page-123.svg`).
fn is_page_name(name: &str) -> bool {
    name.strip_prefix("page-")
        .and_then(|n| n.strip_suffix(".svg"))
        .is_some_and(|n| n.len() >= 2 && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Write each page into `dir` as `page-01.svg`, `page-02.svg`, ...: the folder is made if it is
/// missing; one holding anything but the pages of an earlier print (plain files named so) is
/// refused, naming what is there, and nothing is written; an earlier print's pages are removed
/// first, so none is left beside the new ones. Each page is a new file, created exclusively:
/// a symbolic link or anything else put at a page's name is never followed or written through.
pub fn write_folder(dir: &Path, sheet: &Sheet, pages: &[Page]) -> Result<(), String> {
    let shown = dir.display();
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {shown}: {e}"))?;
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let mut old = Vec::new();
    let mut others = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {shown}: {e}"))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        // The entry itself, never what a link points to.
        let plain = entry.file_type().is_ok_and(|t| t.is_file());
        if plain && is_page_name(&name) {
            old.push(entry.path());
            continue;
        }
        let what = match entry.file_type() {
            Ok(t) if t.is_symlink() => format!("`{name}` (a symbolic link)"),
            Ok(t) if t.is_dir() => format!("`{name}` (a folder)"),
            Ok(t) if !t.is_file() => format!("`{name}` (not a regular file)"),
            _ => format!("`{name}`"),
        };
        others.push(what);
        if others.len() > 3 {
            break;
        }
    }
    if !others.is_empty() {
        let more = if others.len() > 3 { ", ..." } else { "" };
        others.truncate(3);
        return Err(format!(
            "{shown} holds {}{more}, not only the pages of an earlier print; \
             nothing was written: name a new or empty folder",
            others.join(", ")
        ));
    }
    for p in old {
        std::fs::remove_file(&p)
            .map_err(|e| format!("cannot remove the earlier page {}: {e}", p.display()))?;
    }
    for (i, page) in pages.iter().enumerate() {
        let path = dir.join(format!("page-{:02}.svg", i + 1));
        crate::files::write_new(&path, write(sheet, page).as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}
