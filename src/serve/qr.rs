//! The links as QR codes in the terminal: each as small as it can be (the lowest error
//! correction, the smallest version that holds it; the link in capitals, which a QR code holds
//! in fewer bits), two rows of modules per line with
//! half blocks, dark on light with a quiet zone around it, and as many codes side by side as the
//! terminal is wide, so a group's links fit on one screen (the spectators' only where it takes
//! no line more: theirs is printed as a link in any case).

use qrcode::{Color, EcLevel, QrCode};

/// The light margin around each code, in modules (phones read a code off a screen with this).
const QUIET: usize = 2;
/// Columns between two codes side by side.
const GAP: usize = 2;

/// A code's lines, each `width` characters.
fn lines(link: &str) -> Vec<String> {
    let Ok(code) = QrCode::with_error_correction_level(for_code(link).as_bytes(), EcLevel::L)
    else {
        return Vec::new();
    };
    let w = code.width();
    let colors = code.to_colors();
    let dark = |x: usize, y: usize| -> bool {
        let (Some(x), Some(y)) = (x.checked_sub(QUIET), y.checked_sub(QUIET)) else {
            return false;
        };
        x < w && y < w && colors.get(y * w + x) == Some(&Color::Dark)
    };
    let size = w + 2 * QUIET;
    (0..size)
        .step_by(2)
        .map(|y| {
            (0..size)
                .map(|x| {
                    // Light modules are drawn, dark ones left blank, so the code reads on a
                    // dark terminal as a light square with dark modules.
                    match (dark(x, y), dark(x, y + 1)) {
                        (false, false) => '█',
                        (false, true) => '▀',
                        (true, false) => '▄',
                        (true, true) => ' ',
                    }
                })
                .collect()
        })
        .collect()
}

/// The link as coded: in capitals (a scheme and host are read alike in any case, and the server
/// takes `/S/` and a token's hex digits in capitals too), all in the QR code's alphanumeric
/// mode, so a link of up to 77 characters takes version 3 (29 modules a side).
pub fn for_code(link: &str) -> String {
    link.to_ascii_uppercase()
}

/// One code.
pub fn draw(link: &str) -> String {
    lines(link).into_iter().map(|l| l + "\n").collect()
}

/// Codes side by side, as many as fit in `cols` columns, each under its label; `spare` too when
/// it fits in the last row without making another (or when it is the only one).
pub fn grid(items: &[(String, String)], spare: Option<(String, String)>, cols: usize) -> String {
    let mut drawn: Vec<(String, Vec<String>)> = items
        .iter()
        .map(|(label, link)| (label.clone(), lines(link)))
        .collect();
    let spare = spare.map(|(label, link)| (label, lines(&link)));
    let width = drawn
        .iter()
        .chain(spare.iter())
        .map(|(_, l)| l.first().map_or(0, |r| r.chars().count()))
        .max()
        .unwrap_or(0);
    if width == 0 {
        return String::new();
    }
    let per_row = ((cols + GAP) / (width + GAP)).max(1);
    if let Some(spare) = spare {
        if drawn.is_empty() || !drawn.len().is_multiple_of(per_row) {
            drawn.push(spare);
        }
    }
    let mut out = String::new();
    for row in drawn.chunks(per_row) {
        let height = row.iter().map(|(_, l)| l.len()).max().unwrap_or(0);
        let labels: Vec<String> = row
            .iter()
            .map(|(label, _)| {
                let mut l: String = label.chars().take(width).collect();
                let pad = width.saturating_sub(l.chars().count());
                l.extend(std::iter::repeat_n(' ', pad));
                l
            })
            .collect();
        out.push_str(labels.join(&" ".repeat(GAP)).trim_end());
        out.push('\n');
        for y in 0..height {
            let line: Vec<String> = row
                .iter()
                .map(|(_, l)| {
                    let mut r = l.get(y).cloned().unwrap_or_default();
                    let pad = width.saturating_sub(r.chars().count());
                    r.extend(std::iter::repeat_n(' ', pad));
                    r
                })
                .collect();
            out.push_str(line.join(&" ".repeat(GAP)).trim_end());
            out.push('\n');
        }
    }
    out
}
