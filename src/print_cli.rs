//! The command line of `rules print`: which cards, what sizes, where to write.

use rules::limits::Limits;
use rules::print::sheet::{CardSize, Paper};
use rules::print::{Options, Selection};
use std::path::PathBuf;
use std::process::ExitCode;

/// Print-and-play sheets of a game's cards, as a PDF (fonts embedded) or SVG pages
#[derive(clap::Args)]
pub struct PrintArgs {
    /// A `.rules` file or a game folder
    game: PathBuf,
    /// Only this kind of card
    #[arg(long)]
    kind: Option<String>,
    /// Only these cards, by id: `--cards @famine,@plague_ship`
    #[arg(long, value_delimiter = ',')]
    cards: Vec<String>,
    /// Only the cards declared in this file of the game (a group's own set)
    #[arg(long)]
    file: Option<String>,
    /// Write a PDF here
    #[arg(long, conflicts_with = "svg", required_unless_present = "svg")]
    pdf: Option<PathBuf>,
    /// Write one SVG per page into this folder (page-01.svg, ...): a new or empty folder, or
    /// one holding only an earlier print's pages (which are replaced)
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Card size: poker (63x88mm), bridge (57x89mm), tarot (70x120mm) or WxHmm
    #[arg(long, default_value = "poker")]
    size: String,
    /// Paper: a4 or letter
    #[arg(long, default_value = "a4")]
    paper: String,
    /// A page of card backs after each page of faces, placed for double-sided printing
    /// (flip on the long edge)
    #[arg(long)]
    backs: bool,
    /// Bleed around each card, in millimetres (0 to 10)
    #[arg(long, default_value_t = 0.0)]
    bleed: f32,
}

pub fn print(a: PrintArgs, limits: &Limits, show: impl Fn(&rules::Checked)) -> ExitCode {
    let usage = |m: String| {
        errln!("error: {m}");
        ExitCode::from(2)
    };
    let size = match CardSize::parse(&a.size) {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    let paper = match Paper::parse(&a.paper) {
        Ok(p) => p,
        Err(e) => return usage(e),
    };
    if !a.bleed.is_finite() {
        return usage("the bleed must be a number of millimetres".into());
    }
    if let Err(e) = rules::print::sheet::Sheet::new(paper, size, a.bleed) {
        return usage(e);
    }
    let c = rules::check_path(&a.game, limits);
    show(&c);
    let Some(prog) = &c.program else {
        errln!("{}: the game has errors; fix them first", a.game.display());
        return ExitCode::from(1);
    };
    let sel = Selection {
        kind: a.kind,
        ids: a.cards,
        file: a.file,
    };
    let cards = match rules::print::select(prog, &c.sources, &sel) {
        Ok(c) => c,
        Err(e) => return usage(e),
    };
    let opts = Options {
        size,
        paper,
        bleed_mm: a.bleed,
        backs: a.backs,
    };
    let (sheet, pages) = match rules::print::pages(prog, &cards, &opts, limits) {
        Ok(p) => p,
        Err(d) => {
            show(&rules::Checked {
                program: None,
                diags: vec![*d],
                sources: c.sources.clone(),
            });
            return ExitCode::from(1);
        }
    };
    match rules::print::unprintable(prog, &cards, limits) {
        Ok(mut warnings) => {
            warnings.extend(rules::print::cut_warnings(prog, &pages, size));
            rules::check::cap_diags(&mut warnings, limits.max_diags);
            if !warnings.is_empty() {
                show(&rules::Checked {
                    program: None,
                    diags: warnings,
                    sources: c.sources.clone(),
                });
            }
        }
        Err(d) => {
            show(&rules::Checked {
                program: None,
                diags: vec![*d],
                sources: c.sources.clone(),
            });
            return ExitCode::from(1);
        }
    }
    let faces = pages.iter().filter(|p| !p.back).count();
    if let Some(path) = &a.pdf {
        let bytes = match rules::print::pdf::write(&sheet, &pages, &prog.game.name) {
            Ok(b) => b,
            Err(e) => {
                errln!("error: {e}");
                return ExitCode::from(1);
            }
        };
        if let Err(e) = rules::files::write_report(path, &bytes) {
            errln!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(1);
        }
        errln!(
            "{}: {} card{} on {} page{}{}",
            path.display(),
            cards.len(),
            if cards.len() == 1 { "" } else { "s" },
            pages.len(),
            if pages.len() == 1 { "" } else { "s" },
            if a.backs {
                format!(" ({faces} of faces, each followed by its backs)")
            } else {
                String::new()
            }
        );
    }
    if let Some(dir) = &a.svg {
        if let Err(e) = rules::print::svg::write_folder(dir, &sheet, &pages) {
            errln!("error: {e}");
            return ExitCode::from(1);
        }
        errln!(
            "{}: {} card(s) on {} SVG page(s)",
            dir.display(),
            cards.len(),
            pages.len()
        );
    }
    ExitCode::SUCCESS
}
