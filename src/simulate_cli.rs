//! `rules simulate` and `rules simulate merge` at the command line: checking the request,
//! Ctrl-C, progress, and writing the report (the work is in `rules::simulate`).

use super::{one_game, playable, print_diags, signal};
use rules::limits::Limits;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Set by Ctrl-C during `rules simulate`: no new game starts, and the report covers the games
/// finished.
static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_interrupt(_: i32) {
    STOP.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// The less common settings of `rules simulate`.
pub struct Extra {
    pub until_ci: Option<f64>,
    pub shard: Option<String>,
    pub without: Vec<String>,
    pub impact: Option<String>,
    pub html: Option<PathBuf>,
    pub skill: Option<u32>,
    pub matchup: Option<String>,
}

#[allow(clippy::too_many_arguments)]
pub fn simulate(
    game: PathBuf,
    players: Option<u32>,
    games: u64,
    seed: u64,
    agent: String,
    set: Vec<String>,
    jobs: Option<usize>,
    json: Option<PathBuf>,
    extra: Extra,
    limits: &Limits,
) -> ExitCode {
    let Extra {
        until_ci,
        shard,
        without,
        impact,
        html,
        skill,
        matchup,
    } = extra;
    if let Err(code) = one_game(&game) {
        return code;
    }
    let c = rules::check_path(&game, limits);
    print_diags(&c.diags, &c.sources);
    let Some(prog) = c.program else {
        errln!("{}: the game has errors; nothing was run", game.display());
        return ExitCode::from(1);
    };
    let n = players.unwrap_or_else(|| rules::default_players(&prog));
    if let Err(code) = playable(&prog, &game, n) {
        return code;
    }
    if let Err(e) = rules::options::parse_sets(&prog, &set) {
        errln!("error: {e}");
        return ExitCode::from(2);
    }
    if let Err(code) = super::unattended_agents(&agent, n, &prog, "a simulation") {
        return code;
    }
    let jobs = jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, 256);
    let whole = rules::simulate::Plan {
        game: game.clone(),
        players: n,
        games,
        seed,
        agent,
        sets: set,
        jobs,
        without: Vec::new(),
        track: false,
    };
    // Cards named by `--without` (and the kind of `--impact`) must exist.
    let mut out_ids = Vec::new();
    for w in &without {
        let id = w.trim_start_matches('@');
        if !prog.cards.iter().any(|c| c.id.to_string() == id) {
            errln!("error: there is no card `@{id}` in {}", game.display());
            return ExitCode::from(2);
        }
        out_ids.push(id.to_string());
    }
    let whole = rules::simulate::Plan {
        without: out_ids,
        ..whole
    };
    // `--impact KIND`, or `--impact FILE`: the cards written in one file of the game.
    let impact_cards: Vec<String> = match &impact {
        None => Vec::new(),
        Some(k) => match prog.kind_by_name(k) {
            Some(kind) => prog
                .cards
                .iter()
                .filter(|c| c.kind == kind)
                .map(|c| c.id.to_string())
                .collect(),
            None => match impact_file(k, &c.sources) {
                Some(file) => {
                    let cards: Vec<String> = prog
                        .cards
                        .iter()
                        .filter(|c| c.span.file == file)
                        .map(|c| c.id.to_string())
                        .collect();
                    if cards.is_empty() {
                        errln!("error: `{k}` holds no cards of {}", game.display());
                        return ExitCode::from(2);
                    }
                    cards
                }
                None => {
                    errln!(
                        "error: there is no kind `{k}` in {}, nor a file of it by that name",
                        game.display()
                    );
                    return ExitCode::from(2);
                }
            },
        },
    };
    // `--impact` notes which cards enter play in the plain run (exposure, and the games each
    // card entered play in).
    let whole = rules::simulate::Plan {
        track: !impact_cards.is_empty(),
        ..whole
    };
    let not_removable = rules::simulate::ablate::blockers(
        &prog,
        &[whole.without.clone(), impact_cards.clone()].concat(),
    );
    if shard.is_some() && (impact.is_some() || !whole.without.is_empty()) {
        errln!("error: --shard plays the plain game: leave out --impact and --without");
        return ExitCode::from(2);
    }
    let slice = match shard.as_deref().map(|s| {
        s.split_once('/')
            .and_then(|(i, n)| Some((i.parse::<u64>().ok()?, n.parse::<u64>().ok()?)))
            .filter(|(i, n)| *i >= 1 && i <= n)
    }) {
        None => None,
        Some(Some(s)) if until_ci.is_none() && json.is_some() => Some(s),
        Some(_) => {
            errln!("error: --shard takes i/n (1 <= i <= n), with --json FILE for the games and without --until-ci");
            return ExitCode::from(2);
        }
    };
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        const SIGINT: i32 = 2;
        signal(SIGINT, on_interrupt as extern "C" fn(i32) as usize);
    }
    // A progress bar on the terminal as games finish (none when stderr is not a terminal),
    // counting the reruns of `--impact` too.
    let tty = std::io::stderr().is_terminal();
    let match_agents = match matchup.as_deref().map(rules::simulate::matchup::parse) {
        None => None,
        Some(Ok(a)) => Some(a),
        Some(Err(e)) => {
            errln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let total = match (skill, &match_agents) {
        // Two matches (K against 2K, 2K against 4K), each once per seat.
        (Some(_), _) => games.saturating_mul(2).saturating_mul(u64::from(n)),
        // Each agent's seating.
        (None, Some(a)) => games.saturating_mul(a.len() as u64),
        (None, None) => games.saturating_mul(1 + impact_cards.len() as u64),
    };
    let bar = if tty {
        let bar = indicatif::ProgressBar::new(total);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} games, {rate} games/s, {eta} left",
        ) {
            bar.set_style(style.with_key(
                "rate",
                |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{}", rules::simulate::report::rate(s.per_sec()));
                },
            ));
        }
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let progress = || bar.inc(1);
    if let Some(w) = until_ci {
        if !(w > 0.0 && w <= 1.0) {
            errln!("error: --until-ci takes a width between 0 and 1, like 0.05");
            return ExitCode::from(2);
        }
    }
    if let Some(agents) = &match_agents {
        if skill.is_some()
            || shard.is_some()
            || impact.is_some()
            || until_ci.is_some()
            || html.is_some()
            || whole.agent != "random"
        {
            errln!("error: --match seats its own agents and plays its own games: leave out --agent, --skill, --shard, --impact, --until-ci and --html");
            return ExitCode::from(2);
        }
        let m = match rules::simulate::matchup::run(&whole, agents, *limits, &STOP, &progress) {
            Ok(m) => m,
            Err(e) => {
                errln!("error: {e}");
                return ExitCode::from(1);
            }
        };
        bar.finish_and_clear();
        out!("{}", rules::simulate::matchup::text(&m));
        if let Some(path) = &json {
            let text = serde_json::to_string_pretty(&m).unwrap_or_default();
            if let Err(e) = rules::files::write_report(path, (text + "\n").as_bytes()) {
                errln!("error: cannot write `{}`: {e}", path.display());
                return ExitCode::from(2);
            }
        }
        return if m.errors > 0 {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        };
    }
    if let Some(k) = skill {
        if shard.is_some() || impact.is_some() || until_ci.is_some() || html.is_some() {
            errln!("error: --skill plays its own matches: leave out --shard, --impact, --until-ci and --html");
            return ExitCode::from(2);
        }
        let skill = match rules::simulate::skill::run(&whole, k, *limits, &STOP, &progress) {
            Ok(s) => s,
            Err(e) => {
                errln!("error: {e}");
                return ExitCode::from(1);
            }
        };
        bar.finish_and_clear();
        out!("{}", rules::simulate::skill::text(&skill));
        if let Some(path) = &json {
            let text = serde_json::to_string_pretty(&skill).unwrap_or_default();
            if let Err(e) = rules::files::write_report(path, (text + "\n").as_bytes()) {
                errln!("error: cannot write `{}`: {e}", path.display());
                return ExitCode::from(2);
            }
        }
        return if skill.errors > 0 {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        };
    }
    if let (Some(shard), Some(path)) = (slice, &json) {
        let digest = rules::simulate::shard::game_digest(&c.sources);
        return write_shard(&whole, shard, path, &digest, limits, &progress);
    }
    // The games are counted as they come, in seed order: none is kept, only (for `--impact`)
    // a digest of each game's outcome, to count the games a card changed.
    let mut tally = rules::simulate::tally::Tally::new(n);
    let mut outcomes: Vec<u64> = Vec::new();
    let keep_outcomes = !impact_cards.is_empty();
    let index_of = |id: &str| {
        prog.cards
            .iter()
            .position(|d| d.id.to_string() == id)
            .map(|i| i as u32)
    };
    // Exposure counts every card of the kinds asked about: the others give each kind's typical.
    let shown: Vec<u32> = impact_cards.iter().filter_map(|id| index_of(id)).collect();
    let shown_kinds: Vec<u32> = shown
        .iter()
        .filter_map(|&c| prog.cards.get(c as usize).map(|d| d.kind))
        .collect();
    let mut exposure = rules::simulate::exposure::Exposure::new(
        prog.cards
            .iter()
            .enumerate()
            .filter(|(_, d)| shown_kinds.contains(&d.kind))
            .map(|(i, d)| (i as u32, d.id.to_string()))
            .collect(),
        prog.cards.iter().map(|d| d.kind).collect(),
    );
    // Per card, the games of the plain run it entered play in (for the placebo's choice).
    let mut entered_in: Vec<u64> = vec![0; prog.cards.len()];
    let mut count = |r: rules::simulate::GameResult| {
        tally.add(&r);
        if keep_outcomes {
            outcomes.push(r.outcome_digest());
            if r.error.is_none() {
                exposure.add(&r);
                for (c, _) in &r.entered {
                    if let Some(k) = entered_in.get_mut(*c as usize) {
                        *k += 1;
                    }
                }
            }
        }
        Ok(())
    };
    let ran = match until_ci {
        Some(w) => rules::simulate::run_until(&whole, w, *limits, &STOP, &progress, &mut count)
            .map(|(_, narrow)| {
                if narrow {
                    rules::simulate::report::Stopped::UntilCi { width: w }
                } else {
                    rules::simulate::report::Stopped::UntilCiNotReached { width: w }
                }
            }),
        None => rules::simulate::run_streamed(&whole, *limits, &STOP, &progress, &mut count)
            .map(|_| rules::simulate::report::Stopped::Games),
    };
    let stopped = match ran {
        Ok(s) => s,
        Err(e) => {
            errln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    if impact_cards.is_empty() {
        bar.finish_and_clear();
    }
    let mut interrupted = STOP.load(std::sync::atomic::Ordering::Relaxed);
    let plan = whole;
    let mut report = rules::simulate::report::build(&plan, &tally, interrupted);
    // Ablation: the same seeds once per card of the kind, that card taken out. A card whose
    // games Ctrl-C cut short is not compared on fewer seeds: it is named as unfinished.
    let mut runs: Vec<(String, rules::simulate::report::Report, u64)> = Vec::new();
    type Run = (String, rules::simulate::report::Report, u64);
    let ablate = |card: &str, interrupted: &mut bool| -> Result<Option<Run>, ExitCode> {
        let without = rules::simulate::Plan {
            without: [plan.without.clone(), vec![card.to_string()]].concat(),
            games: tally.games,
            track: false,
            ..plan.clone()
        };
        let mut other = rules::simulate::tally::Tally::new(n);
        let mut changed = 0u64;
        let mut at = 0usize;
        let got = rules::simulate::run_streamed(&without, *limits, &STOP, &progress, &mut |r| {
            other.add(&r);
            if outcomes.get(at) != Some(&r.outcome_digest()) {
                changed += 1;
            }
            at += 1;
            Ok(())
        });
        let got = match got {
            Ok(g) => g,
            Err(e) => {
                errln!("error: {e}");
                return Err(ExitCode::from(1));
            }
        };
        *interrupted = STOP.load(std::sync::atomic::Ordering::Relaxed);
        if got < tally.games {
            *interrupted = true;
            return Ok(None);
        }
        let other = rules::simulate::report::build(&without, &other, false);
        Ok(Some((card.to_string(), other, changed)))
    };
    for (k, card) in impact_cards.iter().enumerate() {
        let done = if interrupted {
            false
        } else {
            match ablate(card, &mut interrupted) {
                Ok(Some(run)) => {
                    runs.push(run);
                    true
                }
                Ok(None) => false,
                Err(code) => return code,
            }
        };
        if !done {
            report.impact_unfinished = impact_cards[k..].to_vec();
            interrupted = true;
            break;
        }
    }
    // The placebo of each kind: an ordinary card of it taken out. With three or more of the
    // kind in the set that entered play, the one of those whose largest change is the median;
    // otherwise a card of the kind from outside the set (the one whose count of games in play is
    // the median, of those that entered play and can be taken out entirely), played once more.
    let entered_of = |id: &str| index_of(id).and_then(|c| entered_in.get(c as usize).copied());
    let kind_of = |id: &str| {
        index_of(id)
            .and_then(|c| prog.cards.get(c as usize))
            .map(|d| d.kind)
    };
    let mut kinds: Vec<u32> = impact_cards.iter().filter_map(|c| kind_of(c)).collect();
    kinds.sort_unstable();
    kinds.dedup();
    let mut placebo_of: Vec<(u32, String)> = Vec::new();
    let mut extra: Vec<Run> = Vec::new();
    if report.impact_unfinished.is_empty() {
        for &kind in &kinds {
            let in_set: Vec<&(String, rules::simulate::report::Report, u64)> = runs
                .iter()
                .filter(|(c, _, _)| kind_of(c) == Some(kind))
                .filter(|(c, _, _)| entered_of(c).is_some_and(|k| k > 0))
                .collect();
            let pick = if in_set.len() >= 3 {
                let mut by: Vec<(f64, String)> = in_set
                    .iter()
                    .map(|(c, r, ch)| {
                        let i = rules::simulate::report::impact(c, n, &report, r, *ch);
                        (i.largest.abs(), c.clone())
                    })
                    .collect();
                by.sort_by(|a, b| {
                    a.0.partial_cmp(&b.0)
                        .unwrap_or(std::cmp::Ordering::Equal)
                        .then_with(|| a.1.cmp(&b.1))
                });
                by.get(by.len() / 2).map(|(_, c)| c.clone())
            } else {
                let blocked = rules::simulate::ablate::blockers(
                    &prog,
                    &prog
                        .cards
                        .iter()
                        .filter(|d| d.kind == kind)
                        .map(|d| d.id.to_string())
                        .collect::<Vec<_>>(),
                );
                let mut by: Vec<(u64, String)> = prog
                    .cards
                    .iter()
                    .filter(|d| d.kind == kind)
                    .map(|d| d.id.to_string())
                    .filter(|id| !impact_cards.contains(id))
                    .filter(|id| !blocked.iter().any(|(b, _)| b == id))
                    .filter_map(|id| Some((entered_of(&id).filter(|&k| k > 0)?, id)))
                    .collect();
                by.sort();
                let pick = by.get(by.len() / 2).map(|(_, c)| c.clone());
                if let Some(p) = &pick {
                    if interrupted {
                        None
                    } else {
                        match ablate(p, &mut interrupted) {
                            Ok(Some(run)) => {
                                extra.push(run);
                                pick
                            }
                            Ok(None) => None,
                            Err(code) => return code,
                        }
                    }
                } else {
                    None
                }
            };
            if let Some(p) = pick {
                placebo_of.push((kind, p));
            }
        }
    }
    runs.extend(extra);
    for (card, other, changed) in &runs {
        let entered = entered_of(card).filter(|_| impact_cards.contains(card));
        let placebo = kind_of(card).and_then(|k| placebo_of.iter().find(|(x, _)| *x == k));
        match placebo {
            Some((_, p)) if p == card => {
                let e = entered_of(card);
                let i = rules::simulate::report::impact_against(
                    card, n, &report, other, *changed, e, None,
                );
                // A placebo of the set keeps its row (against the game) among the others.
                if impact_cards.contains(card) {
                    report.impact.push(rules::simulate::report::impact_against(
                        card, n, &report, other, *changed, e, None,
                    ));
                }
                report.placebos.push(i);
            }
            Some((_, p)) => {
                let Some((_, base, _)) = runs.iter().find(|(c, _, _)| c == p) else {
                    continue;
                };
                let i = rules::simulate::report::impact_against(
                    card,
                    n,
                    base,
                    other,
                    *changed,
                    entered,
                    Some(p),
                );
                report.impact.push(i);
            }
            None => report.impact.push(rules::simulate::report::impact_against(
                card, n, &report, other, *changed, entered, None,
            )),
        }
    }
    bar.finish_and_clear();
    report.impact.sort_by(|a, b| {
        b.largest
            .abs()
            .partial_cmp(&a.largest.abs())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.card.cmp(&b.card))
    });
    if !impact_cards.is_empty() {
        let view = rules::interp::View {
            prog: &prog,
            n_players: n,
            zone_base: &[],
        };
        report.exposure = exposure.report(&|c| view.card_name(c), &shown);
    }
    if report.impact_unfinished.is_empty() {
        if let Some(what) = &impact {
            report.impact_warnings = rules::simulate::report::impact_warnings(&report, what);
        }
    }
    report.not_removable = not_removable;
    report.interrupted = interrupted;
    report.stopped = if interrupted {
        rules::simulate::report::Stopped::Interrupted
    } else {
        stopped
    };
    if let Some(path) = &html {
        if let Err(code) = write_html(path, &report, &tally) {
            return code;
        }
    }
    out!("{}", rules::simulate::report::text(&report));
    write_json(json.as_deref(), &report)
}

/// The file `--impact FILE` names, among the files the game loaded (compared as canonical
/// paths, so `games/x/crises.rules` and `./games/x/crises.rules` are the same).
fn impact_file(name: &str, sources: &rules::diag::Sources) -> Option<u32> {
    let want = std::fs::canonicalize(name).ok()?;
    sources
        .files
        .iter()
        .position(|f| std::fs::canonicalize(&f.name).ok().as_ref() == Some(&want))
        .and_then(|i| u32::try_from(i).ok())
}

/// `--shard i/n`: play the slice and write its games as they finish (`simulate::shard`).
fn write_shard(
    whole: &rules::simulate::Plan,
    shard: (u64, u64),
    path: &Path,
    digest: &str,
    limits: &Limits,
    progress: &(dyn Fn() + Sync),
) -> ExitCode {
    let Some((start, len)) = rules::simulate::shard_range(whole.games, shard.0, shard.1) else {
        errln!("error: {}/{} is not a shard", shard.0, shard.1);
        return ExitCode::from(2);
    };
    let first = whole.seed.wrapping_add(start);
    let plan = rules::simulate::Plan {
        seed: first,
        games: len,
        ..whole.clone()
    };
    let mut w =
        match rules::simulate::shard::ShardWriter::create(path, whole, digest, shard, (first, len))
        {
            Ok(w) => w,
            Err(e) => {
                errln!("error: {e}");
                return ExitCode::from(2);
            }
        };
    let ran = rules::simulate::run_streamed(&plan, *limits, &STOP, progress, &mut |r| w.add(&r));
    let interrupted = STOP.load(std::sync::atomic::Ordering::Relaxed);
    match ran {
        Ok(got) if got == len && !interrupted => match w.finish() {
            Ok(written) => {
                outln!(
                    "shard {}/{}: {written} games written to {}",
                    shard.0,
                    shard.1,
                    path.display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                errln!("error: {e}");
                ExitCode::from(2)
            }
        },
        Ok(_) => {
            w.abandon();
            errln!("error: interrupted; the shard is incomplete and was not written");
            ExitCode::from(1)
        }
        Err(e) => {
            w.abandon();
            errln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Write the report as JSON (when asked); the exit code says whether every game ran clean.
fn write_json(json: Option<&Path>, report: &rules::simulate::report::Report) -> ExitCode {
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(report).unwrap_or_default();
        if let Err(e) = rules::files::write_report(path, (text + "\n").as_bytes()) {
            errln!("error: cannot write `{}`: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if report.errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn write_html(
    path: &std::path::Path,
    report: &rules::simulate::report::Report,
    tally: &rules::simulate::tally::Tally,
) -> Result<(), ExitCode> {
    let page = rules::simulate::html::html(report, tally).map_err(|e| {
        errln!("error: cannot draw the charts: {e}");
        ExitCode::from(1)
    })?;
    rules::files::write_report(path, page.as_bytes()).map_err(|e| {
        errln!("error: cannot write `{}`: {e}", path.display());
        ExitCode::from(2)
    })
}

/// `rules simulate merge`: the shards of one run, put back together into its report.
pub fn merge_shards(
    files: Vec<PathBuf>,
    json: Option<PathBuf>,
    html: Option<PathBuf>,
    limits: &Limits,
) -> ExitCode {
    let max = limits.max_log_bytes.saturating_mul(16);
    let read = |f: &Path| -> Result<rules::simulate::Shard, String> {
        let text = rules::files::read_text(f, max)
            .map_err(|e| format!("cannot read `{}`: {e}", f.display()))?;
        serde_json::from_str::<rules::simulate::Shard>(&text)
            .map_err(|e| format!("`{}` is not a shard file: {e}", f.display()))
    };
    let (plan, tally) = match rules::simulate::shard::merge(&files, &read) {
        Ok(m) => m,
        Err(e) => {
            errln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let report = rules::simulate::report::build(&plan, &tally, false);
    out!("{}", rules::simulate::report::text(&report));
    if let Some(path) = &html {
        if let Err(code) = write_html(path, &report, &tally) {
            return code;
        }
    }
    write_json(json.as_deref(), &report)
}
