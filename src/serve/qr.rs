//! A link as a QR code in the terminal, two rows of modules per line with half blocks, dark on
//! light with the quiet zone around it, so a phone can read it off the screen.

use qrcode::{Color, QrCode};

pub fn draw(link: &str) -> String {
    let Ok(code) = QrCode::new(link.as_bytes()) else {
        return String::new();
    };
    let w = code.width();
    let colors = code.to_colors();
    let quiet = 2usize;
    let dark = |x: usize, y: usize| -> bool {
        let (Some(x), Some(y)) = (x.checked_sub(quiet), y.checked_sub(quiet)) else {
            return false;
        };
        x < w && y < w && colors.get(y * w + x) == Some(&Color::Dark)
    };
    let size = w + 2 * quiet;
    let mut s = String::new();
    for y in (0..size).step_by(2) {
        for x in 0..size {
            // Light modules are drawn, dark ones left blank, so the code reads on a dark
            // terminal as a light square with dark modules.
            s.push(match (dark(x, y), dark(x, y + 1)) {
                (false, false) => '█',
                (false, true) => '▀',
                (true, false) => '▄',
                (true, true) => ' ',
            });
        }
        s.push('\n');
    }
    s
}
