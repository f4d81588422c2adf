//! `rules print`: every kind of every game in `games/` prints; the pages are checked with
//! poppler (`pdfinfo`, `pdftotext`, `pdftoppm`, from Debian's `poppler-utils`, which `.ci/run`
//! installs). With `CI=true` a missing poppler fails the test; elsewhere it is said and skipped.
//! The laid-out text boxes are measured against their cards without poppler.

use rules::limits::Limits;
use rules::print::face::Op;
use rules::print::sheet::{CardSize, Paper};
use rules::print::{Options, Selection};
use std::path::{Path, PathBuf};
use std::process::Command;

const GAMES: [&str; 5] = [
    "games/the-establishment.rules",
    "games/hegemony",
    "games/statecraft",
    "games/ambition",
    "games/deep-state",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn poppler() -> bool {
    let found = Command::new("pdftoppm").arg("-v").output().is_ok()
        && Command::new("pdftotext").arg("-v").output().is_ok()
        && Command::new("pdfinfo").arg("-v").output().is_ok();
    if !found {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "poppler-utils (pdftoppm, pdftotext, pdfinfo) is missing: .ci/run installs it"
        );
        eprintln!("skipped: poppler-utils is not installed (apt-get install poppler-utils)");
    }
    found
}

fn a4_poker() -> Options {
    Options {
        size: CardSize::parse("poker").expect("size"),
        paper: Paper::parse("a4").expect("paper"),
        bleed_mm: 0.0,
        backs: false,
    }
}

/// Every text box on every page of every game lies inside its card, and its text inside its box;
/// no card's text had to be cut.
#[test]
fn every_text_fits_its_box() {
    for g in GAMES {
        let c = rules::check_path(&root().join(g), &Limits::default());
        let prog = c.program.expect("checks");
        let cards = rules::print::select(&prog, &c.sources, &Selection::default()).expect("cards");
        for backs in [false, true] {
            let opts = Options {
                backs,
                ..a4_poker()
            };
            let (sheet, pages) =
                rules::print::pages(&prog, &cards, &opts, &Limits::default()).expect("pages");
            let mut n = 0;
            for page in &pages {
                let rects: Vec<_> = (0..page.cards.len())
                    .map(|i| sheet.card_rect(i, page.back))
                    .collect();
                for op in &page.ops {
                    let Op::Text { area, fit, .. } = op else {
                        continue;
                    };
                    n += 1;
                    assert!(
                        rects.iter().any(|r| r.contains(area)),
                        "{g}: a text box outside every card: {area:?} {:?}",
                        fit.lines
                    );
                    assert!(
                        fit.width <= area.w + 0.01 && fit.height <= area.h + 0.01,
                        "{g}: {:?} at {} pt overflows {area:?}",
                        fit.lines,
                        fit.size
                    );
                    assert!(fit.complete, "{g}: cut to fit: {:?}", fit.lines);
                }
            }
            assert!(
                n >= cards.len() * 2,
                "{g}: {n} texts for {} cards",
                cards.len()
            );
        }
    }
}

fn pdf_of(game: &str, out: &Path, extra: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_rules"))
        .arg("print")
        .arg(game)
        .arg("--pdf")
        .arg(out)
        .args(extra)
        .current_dir(root())
        .output()
        .expect("rules print");
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "rules print {game}: {err}");
    err
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Each game's whole deck as a PDF: the page count and size poppler reads, every card's title
/// found in the text, and every page rendered to PNG (kept under target/print-pages).
#[test]
fn every_game_prints_and_poppler_reads_it() {
    if !poppler() {
        return;
    }
    let dir = root().join("target/print-pages");
    std::fs::create_dir_all(&dir).expect("dir");
    for g in GAMES {
        let name = Path::new(g)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("game");
        let pdf = dir.join(format!("{name}.pdf"));
        pdf_of(g, &pdf, &[]);
        let c = rules::check_path(&root().join(g), &Limits::default());
        let prog = c.program.expect("checks");
        let cards = rules::print::select(&prog, &c.sources, &Selection::default()).expect("cards");
        let faces = rules::print::faces(&prog, &cards, &Limits::default()).expect("faces");
        let info = Command::new("pdfinfo").arg(&pdf).output().expect("pdfinfo");
        let info = String::from_utf8_lossy(&info.stdout);
        let pages = cards.len().div_ceil(9);
        let read: Option<usize> = info
            .lines()
            .find_map(|l| l.strip_prefix("Pages:"))
            .and_then(|n| n.trim().parse().ok());
        assert_eq!(read, Some(pages), "{g}: {info}");
        assert!(info.contains("(A4)"), "{g}: {info}");
        let text = Command::new("pdftotext")
            .arg(&pdf)
            .arg("-")
            .output()
            .expect("pdftotext");
        let text = squash(&String::from_utf8_lossy(&text.stdout));
        for f in &faces {
            assert!(
                text.contains(&squash(&f.title)),
                "{g}: `{}` not in the PDF's text",
                f.title
            );
        }
        let png = Command::new("pdftoppm")
            .args(["-r", "40", "-png"])
            .arg(&pdf)
            .arg(dir.join(name))
            .status()
            .expect("pdftoppm");
        assert!(png.success(), "{g}: pdftoppm failed");
    }
}

/// Backs double the pages; Letter holds nine poker cards too; a file's own cards alone.
#[test]
fn backs_letter_and_one_file() {
    if !poppler() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("rules-print-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let pdf = dir.join("crises.pdf");
    let err = pdf_of(
        "games/hegemony",
        &pdf,
        &["--kind", "Crisis", "--backs", "--paper", "letter"],
    );
    assert!(err.contains("14 cards on 4 pages"), "{err}");
    let info = Command::new("pdfinfo").arg(&pdf).output().expect("pdfinfo");
    let info = String::from_utf8_lossy(&info.stdout);
    assert!(info.contains("612 x 792 pts (letter)"), "{info}");
    let err = pdf_of("games/hegemony", &pdf, &["--file", "final-crises.rules"]);
    let text = Command::new("pdftotext")
        .arg(&pdf)
        .arg("-")
        .output()
        .expect("pdftotext");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("FinalCrisis") && !text.contains("Plague Ship"),
        "{err}\n{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Mistakes on the command line are usage errors (exit 2) that say what is wrong.
#[test]
fn bad_requests_are_refused() {
    let run = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_rules"))
            .arg("print")
            .args(args)
            .current_dir(root())
            .output()
            .expect("rules print");
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    let out = std::env::temp_dir().join("rules-print-refused.pdf");
    let out = out.to_str().unwrap_or("x.pdf");
    for (args, says) in [
        (
            vec!["games/hegemony", "--kind", "Crises", "--pdf", out],
            "did you mean `Crisis`",
        ),
        (
            vec!["games/hegemony", "--cards", "@nope", "--pdf", out],
            "no card `@nope`",
        ),
        (
            vec!["games/hegemony", "--size", "9x9mm", "--pdf", out],
            "outside 20 to 200 mm",
        ),
        (
            vec!["games/hegemony", "--paper", "a3", "--pdf", out],
            "not a paper size",
        ),
        (
            vec!["games/hegemony", "--bleed", "40", "--pdf", out],
            "outside 0 to 10 mm",
        ),
        (
            vec!["games/hegemony", "--file", "ours.rules", "--pdf", out],
            "not one of the game's files",
        ),
    ] {
        let (code, err) = run(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// Names and text in Latin with diacritics, Greek and Cyrillic print as themselves (poppler reads
/// them back); a card in a script the bundled font lacks is named in a warning, and still prints.
#[test]
fn other_scripts_print_or_are_warned_about() {
    let dir = root().join("target/print-pages");
    std::fs::create_dir_all(&dir).expect("dir");
    let pdf = dir.join("scripts.pdf");
    let err = pdf_of("tests/print/scripts", &pdf, &[]);
    assert!(err.contains("print::glyph"), "{err}");
    assert!(err.contains("@tokyo"), "{err}");
    assert!(err.contains("東 (U+6771)"), "{err}");
    for ok in ["@aero", "@athens", "@moscow"] {
        assert!(!err.contains(ok), "{ok} warned about: {err}");
    }
    if !poppler() {
        return;
    }
    let text = Command::new("pdftotext")
        .arg(&pdf)
        .arg("-")
        .output()
        .expect("pdftotext");
    let text = squash(&String::from_utf8_lossy(&text.stdout));
    for name in [
        "Ærøskøbing",
        "Straße, Łódź, naïve café — “quoted”.",
        "Αθήνα",
        "Φίλιππος ο Β΄ της Μακεδονίας.",
        "Москва",
        "Царь и ёлка.",
    ] {
        assert!(
            text.contains(name),
            "`{name}` not in the PDF's text: {text}"
        );
    }
    let png = Command::new("pdftoppm")
        .args(["-r", "60", "-png"])
        .arg(&pdf)
        .arg(dir.join("scripts"))
        .status()
        .expect("pdftoppm");
    assert!(png.success(), "pdftoppm failed");
}
