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
        text.contains("The Long Unrest") && !text.contains("Plague Ship"),
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

/// `rules print` with a hang guard: the run is killed after `secs` (a guard against a hang, not
/// a measure of speed). The exit code (None when killed) and the standard error.
fn print_guarded(args: &[&str], secs: u64) -> (Option<i32>, String) {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_rules"))
        .arg("print")
        .args(args)
        .current_dir(root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("rules print");
    let mut stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let start = std::time::Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code();
        }
        if start.elapsed().as_secs() > secs {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    (code, reader.join().unwrap_or_default())
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rules-print-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch");
    dir
}

/// A 200,000-letter word prints: wrapping shapes each piece of text once (it used to shape the
/// rest of a word again for every line it broke, hours for a word this long). The guard only
/// stops a hang; a debug build takes seconds.
#[test]
fn a_very_long_word_prints() {
    let dir = scratch("long");
    let game = dir.join("long.rules");
    let word = "a".repeat(200_000);
    std::fs::write(
        &game,
        format!(
            "kind Note {{\n  name: text unique\n  text: text = \"\"\n}}\n\
             cards Note (name, text) {{\n  big: \"Big\", \"{word}\"\n}}\n\
             phase play {{\n  say \"hi\"\n}}\n\
             game \"Long\" {{\n  players: 2\n  rounds: 1\n  round: [play]\n}}\n"
        ),
    )
    .expect("write");
    let pdf = dir.join("long.pdf");
    let (code, err) = print_guarded(
        &[
            game.to_str().expect("path"),
            "--pdf",
            pdf.to_str().expect("path"),
        ],
        600,
    );
    assert_eq!(code, Some(0), "{err}");
    // It does not fit a poker card: the warning says so, naming the card.
    assert!(err.contains("print::cut") && err.contains("@big"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// On a card too small for its text, a warning names the card and what was left out (the text
/// used to vanish, or end in "…", with nothing said).
#[test]
fn text_that_does_not_fit_is_warned_about() {
    let dir = scratch("small");
    let pdf = dir.join("small.pdf");
    let pdf = pdf.to_str().expect("path");
    for (size, says) in [
        ("25x25mm", "characters left out, from “"),
        ("20x20mm", "none of it printed"),
        ("200x20mm", "none of it printed"),
    ] {
        let (code, err) = print_guarded(
            &[
                "tests/print/hostile",
                "--cards",
                "@wordy",
                "--size",
                size,
                "--pdf",
                pdf,
            ],
            300,
        );
        assert_eq!(code, Some(0), "{size}: {err}");
        assert!(err.contains("print::cut"), "{size}: {err}");
        assert!(err.contains("@wordy"), "{size}: {err}");
        assert!(err.contains("the rules text"), "{size}: {err}");
        assert!(err.contains(says), "{size}: {err}");
    }
    // At a size where all of it fits, nothing is said.
    let (code, err) = print_guarded(
        &["tests/print/hostile", "--cards", "@wordy", "--pdf", pdf],
        300,
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("print::cut"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Text mixing right-to-left and left-to-right is drawn run by run and read back (in the
/// PDF's content order) in reading order; it used to print reversed ("321 cba שלום").
#[test]
fn mixed_direction_text_reads_in_logical_order() {
    if !poppler() {
        return;
    }
    let dir = scratch("bidi");
    let pdf = dir.join("bidi.pdf");
    pdf_of("tests/print/hostile", &pdf, &["--cards", "@shalom,@mixed"]);
    let text = Command::new("pdftotext")
        .arg("-raw")
        .arg(&pdf)
        .arg("-")
        .output()
        .expect("pdftotext");
    // poppler marks right-to-left words with embedding controls; they are not the text.
    let text: String = String::from_utf8_lossy(&text.stdout)
        .chars()
        .filter(|c| !('\u{202A}'..='\u{202E}').contains(c))
        .collect();
    let text = squash(&text);
    for line in ["שלום abc 123", "play עברית first, then 42 more."] {
        assert!(
            text.contains(line),
            "`{line}` not in the PDF's text: {text}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The characters XML does not allow are not written into an SVG page: every character is one
/// XML 1.0 allows, and the elements nest (a minimal well-formedness check).
#[test]
fn svg_pages_are_well_formed_xml() {
    let dir = scratch("xml");
    let (code, err) = print_guarded(
        &[
            "tests/print/hostile",
            "--svg",
            dir.join("pages").to_str().expect("path"),
        ],
        300,
    );
    assert_eq!(code, Some(0), "{err}");
    let svg = std::fs::read_to_string(dir.join("pages/page-01.svg")).expect("page");
    for c in svg.chars() {
        let ok = matches!(u32::from(c),
            0x9 | 0xA | 0xD | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF);
        assert!(ok, "U+{:04X} in an SVG page", u32::from(c));
    }
    // Every element closed in order.
    let mut open: Vec<String> = Vec::new();
    let mut rest = svg.as_str();
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let end = rest.find('>').expect("a tag ends");
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if tag.starts_with('/') {
            assert_eq!(open.pop().as_deref(), Some(name.as_str()), "</{name}>");
        } else if !tag.ends_with('/') {
            open.push(name);
        }
    }
    assert!(open.is_empty(), "unclosed: {open:?}");
    assert!(svg.contains("half  and  here"), "{svg}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `--svg DIR` never writes through a symbolic link at a page's name, refuses a folder holding
/// anything but an earlier print's pages, and replaces those pages (none is left stale).
#[cfg(unix)]
#[test]
fn svg_folder_is_never_written_through_a_link() {
    let dir = scratch("svgdir");
    let pages = dir.join("pages");
    std::fs::create_dir_all(&pages).expect("mkdir");
    let victim = dir.join("victim");
    std::fs::write(&victim, "keep").expect("write");
    std::os::unix::fs::symlink(&victim, pages.join("page-01.svg")).expect("symlink");
    let p = pages.to_str().expect("path");
    let (code, err) = print_guarded(&["tests/print/hostile", "--svg", p], 300);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "keep");
    std::fs::remove_file(pages.join("page-01.svg")).expect("rm");
    // Another file there: refused, left alone.
    std::fs::write(pages.join("notes.txt"), "mine").expect("write");
    let (code, err) = print_guarded(&["tests/print/hostile", "--svg", p], 300);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("notes.txt"), "{err}");
    assert!(!pages.join("page-01.svg").exists());
    std::fs::remove_file(pages.join("notes.txt")).expect("rm");
    // Two pages, then one: the earlier second page is gone.
    let (code, err) = print_guarded(&["games/hegemony", "--kind", "Crisis", "--svg", p], 300);
    assert_eq!(code, Some(0), "{err}");
    assert!(pages.join("page-02.svg").exists());
    let (code, err) = print_guarded(&["tests/print/hostile", "--svg", p], 300);
    assert_eq!(code, Some(0), "{err}");
    assert!(pages.join("page-01.svg").exists());
    assert!(!pages.join("page-02.svg").exists(), "a stale page was left");
    std::fs::remove_dir_all(&dir).ok();
}

/// A copy of Hegemony with a group's own card file beside it (`tests/print/ours`): a crisis with
/// no turning point, and technologies written as the game's own are, with no word about printing.
fn hegemony_and_ours(name: &str) -> PathBuf {
    let dir = scratch(name);
    let game = dir.join("hegemony");
    std::fs::create_dir_all(&game).expect("mkdir");
    for src in [
        root().join("games/hegemony"),
        root().join("tests/print/ours"),
    ] {
        for e in std::fs::read_dir(&src).expect("read_dir").flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "rules") {
                std::fs::copy(&p, game.join(e.file_name())).expect("copy");
            }
        }
    }
    game
}

/// Every Hegemony card (the game's and a group's own) reads as a printed card: no technology
/// shows the fields the engine keeps for itself, and a turning point that adds nothing is left
/// off (it used to print "Turning point: roll a d6 and add 1-6: nothing").
#[test]
fn printed_cards_show_no_bookkeeping_and_no_empty_turning_point() {
    let game = hegemony_and_ours("ours");
    let c = rules::check_path(&game, &Limits::default());
    let prog = c.program.expect("checks");
    let cards = rules::print::select(&prog, &c.sources, &Selection::default()).expect("cards");
    let faces = rules::print::faces(&prog, &cards, &Limits::default()).expect("faces");
    let bookkeeping = [
        "unique supreme",
        "effect:",
        "Double resource",
        "usable in",
        "one use:",
        "table:",
        "activation:",
        "tier:",
    ];
    let mut techs = 0;
    for (f, &card) in faces.iter().zip(&cards) {
        let cd = &prog.cards[card];
        let kind = &prog.kinds[cd.kind as usize].name;
        let all = format!(
            "{}\n{}\n{}\n{}",
            f.title,
            f.subtitle,
            f.rows
                .iter()
                .map(|(l, v)| format!("{l}: {v}"))
                .collect::<Vec<_>>()
                .join("\n"),
            f.text
        );
        if kind == "Technology" {
            techs += 1;
            for word in bookkeeping {
                assert!(!all.contains(word), "@{}: `{word}` printed: {all}", cd.id);
            }
        }
        assert!(
            !all.contains(": nothing.") && !all.contains("1-6: nothing"),
            "@{}: an empty turning point printed: {all}",
            cd.id
        );
        if cd.id.to_string() == "comet_strike" {
            assert!(!all.contains("Turning point"), "{all}");
            assert!(all.contains("Needs 2 Research, 1 Domestic."), "{all}");
        }
    }
    assert!(techs >= 14, "{techs} technologies");
    // The group's own cards, as poppler reads them from the PDF.
    if !poppler() {
        return;
    }
    let pdf = game.with_extension("pdf");
    pdf_of(
        game.to_str().expect("path"),
        &pdf,
        &["--file", "ours.rules"],
    );
    let text = Command::new("pdftotext")
        .arg(&pdf)
        .arg("-")
        .output()
        .expect("pdftotext");
    let text = squash(&String::from_utf8_lossy(&text.stdout));
    for name in ["Comet Strike", "Orbital Mirrors", "Treaty Engine"] {
        assert!(text.contains(name), "`{name}` not printed: {text}");
    }
    for word in bookkeeping.iter().chain(&["Turning point", "nothing"]) {
        assert!(!text.contains(word), "`{word}` printed: {text}");
    }
    if let Some(dir) = game.parent() {
        std::fs::remove_dir_all(dir).ok();
    }
}

/// A deck the game keeps apart has a back of its own: Hegemony's session-1 crises are shuffled
/// apart from the others, and their backs say so (both used to read "Crisis").
#[test]
fn a_deck_kept_apart_has_its_own_back() {
    let c = rules::check_path(&root().join("games/hegemony"), &Limits::default());
    let prog = c.program.expect("checks");
    let sel = Selection {
        kind: Some("Crisis".into()),
        ..Selection::default()
    };
    let cards = rules::print::select(&prog, &c.sources, &sel).expect("cards");
    let opts = Options {
        backs: true,
        ..a4_poker()
    };
    let (_, pages) = rules::print::pages(&prog, &cards, &opts, &Limits::default()).expect("pages");
    let minor = |card: usize| {
        let kd = &prog.kinds[prog.cards[card].kind as usize];
        let f = kd.fields.iter().find(|f| f.name == "minor").expect("minor");
        rules::cards::field_value(&prog, card, f.sym) == rules::value::Value::Bool(true)
    };
    // Each back's words (the text that is not the game's name), by whether its card is minor.
    let mut backs: [std::collections::BTreeSet<String>; 2] = Default::default();
    for page in pages.iter().filter(|p| p.back) {
        let words: Vec<String> = page
            .ops
            .iter()
            .filter_map(|op| match op {
                Op::Text { fit, part, .. } if part.contains("back") && !part.contains("game") => {
                    Some(fit.lines.join(" "))
                }
                _ => None,
            })
            .collect();
        assert_eq!(words.len(), page.cards.len());
        for (w, &card) in words.into_iter().zip(&page.cards) {
            backs[usize::from(minor(card))].insert(w);
        }
    }
    assert_eq!(backs[0].len(), 1, "{backs:?}");
    assert_eq!(backs[1].len(), 1, "{backs:?}");
    assert_ne!(
        backs[0], backs[1],
        "session-1 crises share the others' back"
    );
    if !poppler() {
        return;
    }
    let dir = scratch("backs");
    let pdf = dir.join("crises.pdf");
    pdf_of("games/hegemony", &pdf, &["--kind", "Crisis", "--backs"]);
    let text = Command::new("pdftotext")
        .arg(&pdf)
        .arg("-")
        .output()
        .expect("pdftotext");
    let text = squash(&String::from_utf8_lossy(&text.stdout));
    for w in backs.iter().flatten() {
        assert!(text.contains(w.as_str()), "`{w}` not on a back: {text}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Text is sized to fill its card: a few words are set at the largest body size, a long text
/// steps down until it fits (it used to be one size, 8.5 pt, however short the text).
#[test]
fn text_is_sized_to_fill_the_card() {
    let game = hegemony_and_ours("sizes");
    let c = rules::check_path(&game, &Limits::default());
    let prog = c.program.expect("checks");
    let sel = Selection {
        ids: vec!["orbital_mirrors".into(), "treaty_engine".into()],
        ..Selection::default()
    };
    let cards = rules::print::select(&prog, &c.sources, &sel).expect("cards");
    let (_, pages) =
        rules::print::pages(&prog, &cards, &a4_poker(), &Limits::default()).expect("pages");
    let sizes: Vec<(f32, bool, usize)> = pages[0]
        .ops
        .iter()
        .filter_map(|op| match op {
            Op::Text { fit, part, .. } if *part == "the rules text" => {
                Some((fit.size, fit.complete, fit.lines.len()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(sizes.len(), 2, "{sizes:?}");
    let (short, long) = (sizes[0], sizes[1]);
    assert!(short.1 && long.1, "cut: {sizes:?}");
    assert_eq!(short.0, rules::print::face::BODY_MAX, "{sizes:?}");
    assert!(long.0 < short.0, "{sizes:?}");
    assert!(long.0 >= rules::print::face::BODY_MIN, "{sizes:?}");
    if let Some(dir) = game.parent() {
        std::fs::remove_dir_all(dir).ok();
    }
}

/// Every kind the five games print has a `face`: what a player reads, chosen by the game, not
/// every field the engine keeps.
#[test]
fn every_kind_printed_has_a_face() {
    for g in GAMES {
        let c = rules::check_path(&root().join(g), &Limits::default());
        let prog = c.program.expect("checks");
        let cards = rules::print::select(&prog, &c.sources, &Selection::default()).expect("cards");
        let mut bare: Vec<&str> = cards
            .iter()
            .filter_map(|&card| prog.cards.get(card))
            .filter(|cd| !prog.faces.iter().any(|f| f.kind == cd.kind))
            .filter_map(|cd| prog.kinds.get(cd.kind as usize))
            .map(|k| k.name.as_str())
            .collect();
        bare.dedup();
        assert!(
            bare.is_empty(),
            "{g}: kinds printed without a face: {bare:?}"
        );
    }
}

/// A kind without a `face` prints its fields, but not a table none of whose entries holds
/// anything (a turning point that adds nothing); a table that adds something still prints.
#[test]
fn a_default_face_leaves_off_a_table_that_adds_nothing() {
    let dir = scratch("empty-table");
    let game = dir.join("t.rules");
    std::fs::write(
        &game,
        "kind Crisis {\n  name: text unique\n  twist: table 1..6 of list of int = table { _: [] }\n}\n\
         card Crisis calm { name: \"Calm\" }\n\
         card Crisis storm { name: \"Storm\", twist: table { 1..3: [], 4..6: [2] } }\n\
         phase play {\n  say \"hi\"\n}\n\
         game \"Tables\" {\n  players: 2\n  rounds: 1\n  round: [play]\n}\n",
    )
    .expect("write");
    let c = rules::check_path(&game, &Limits::default());
    let prog = c.program.expect("checks");
    let cards = rules::print::select(&prog, &c.sources, &Selection::default()).expect("cards");
    let faces = rules::print::faces(&prog, &cards, &Limits::default()).expect("faces");
    let rows = |title: &str| -> Vec<String> {
        let f = faces.iter().find(|f| f.title == title).expect("face");
        f.rows.iter().map(|(l, _)| l.clone()).collect()
    };
    assert!(rows("Calm").is_empty(), "{:?}", rows("Calm"));
    assert_eq!(rows("Storm"), vec!["twist".to_string()]);
    std::fs::remove_dir_all(&dir).ok();
}
