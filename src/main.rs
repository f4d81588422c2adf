//! The `rules` command line: check, run and benchmark games.

mod out;

/// `print!`, `println!`, `eprint!` and `eprintln!` without their panics (`out.rs`).
macro_rules! out {
    ($($t:tt)*) => { $crate::out::out(format_args!($($t)*)) };
}
macro_rules! outln {
    () => { $crate::out::out(format_args!("\n")) };
    ($($t:tt)*) => { $crate::out::out(format_args!("{}\n", format_args!($($t)*))) };
}
macro_rules! err {
    ($($t:tt)*) => { $crate::out::err(format_args!($($t)*)) };
}
macro_rules! errln {
    ($($t:tt)*) => { $crate::out::err(format_args!("{}\n", format_args!($($t)*))) };
}

mod bench_cli;
mod print_cli;
mod run_cli;
mod simulate_cli;

use clap::{Parser, Subcommand};
use rules::diag::Diag;
use rules::limits::Limits;
use simulate_cli::{merge_shards, simulate, Extra};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "rules",
    version,
    about = "Check, run and explore card games written in the rules language"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check games (files or folders); exit 0 when clean, 1 with errors
    ///
    /// Exit codes: 0 when every game checks clean (warnings allowed unless --deny-warnings), 1
    /// when one has errors, 2 on a usage error (a path that does not exist).
    Check {
        /// `.rules` files, game folders, or folders of games (each game is checked on its own)
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Fail (exit 1) on warnings too
        #[arg(long)]
        deny_warnings: bool,
    },
    /// Play a game and print an account of it
    Run {
        /// A `.rules` file or a game folder
        game: PathBuf,
        /// Number of players (default: the game's `default_players`, else 4 when the game
        /// allows it, else its minimum)
        #[arg(long)]
        players: Option<u32>,
        /// Seed of the game's random generator (default 1; with a human seat, a secret seed
        /// drawn from the system, committed to by its SHA-256 at the start and shown at the end)
        #[arg(long)]
        seed: Option<u64>,
        /// Who answers the choices: random (the default), first, human, mc:N (N playouts per
        /// option), ismcts:N (N iterations of tree search, or ismcts:200ms; playouts scored
        /// 40 choices on, 10 per player in larger games, or ismcts:N:H for H, ismcts:N:end to
        /// the end; mc:N/bot:NAME or ismcts:N/bot:NAME play out with the game's bot NAME),
        /// bot:NAME (a bot the
        /// game declares: `bot NAME(me) { prefer ... }`; `rules explain` lists them) or
        /// script:FILE, for every seat, or per seat like `P1=human,P2=bot:Greedy,random` (the
        /// last plain entry is for the other seats)
        #[arg(long)]
        agent: Option<String>,
        /// Write every answered choice to FILE (also when a person stops the game with Ctrl-C,
        /// end of input or :quit); `--resume FILE` goes on from it, `--agent script:FILE`
        /// replays it
        #[arg(long)]
        log: Option<PathBuf>,
        /// Go on with a game stopped before: replay the answers of its log (with its seed,
        /// players, options and agents), then hand the human seats back to the people; the
        /// game is written back into that log (without --log) when it stops again or ends
        #[arg(long, value_name = "LOG")]
        resume: Option<PathBuf>,
        /// Show people at the terminal everything they may see before each question, with
        /// nothing folded (the vars a game marks `internal` too)
        #[arg(long)]
        full: bool,
        /// Print one JSON event per line, as it happens, instead of the readable account
        /// (the events are described in docs/events.md)
        #[arg(long)]
        json: bool,
        /// Whose eyes the account is seen through: a player (P2) or `all` (everything). With
        /// one human seat it is that player; with several (hot-seat), each person reads it
        /// through their own eyes when they are at the keyboard (and `--json` shows only what
        /// all may see)
        #[arg(long)]
        viewer: Option<String>,
        /// Set a game option, like `--set solo=true` (`rules check` lists a game's options)
        #[arg(long = "set", value_name = "NAME=VALUE")]
        set: Vec<String>,
        /// With a person at the table (or the account read through one seat's eyes, `--viewer
        /// P2`), a seat a search or a bot plays answers each question this long after the
        /// answer before it (500ms, 2s; 0: at once), so how long it thought tells nobody what it
        /// holds [default: 500ms]
        #[arg(long, value_name = "PACE", value_parser = rules::agent::pace::parse)]
        pace: Option<std::time::Duration>,
    },
    /// List a game's cards as tables, one per kind (or only `--kind KIND`), or one card in full
    /// (`rules cards GAME @id`)
    Cards {
        /// A `.rules` file, a game folder, or a card set
        game: PathBuf,
        /// One card to show in full: its line, its rules text and every field (`@id`)
        card: Option<String>,
        /// Only this kind of card (its name, as declared with `kind`)
        #[arg(long)]
        kind: Option<String>,
        /// Show long cells (rules text, lines) whole instead of cutting them short
        #[arg(long)]
        wide: bool,
    },
    /// How to play a game: its goal and summary, player counts, options, the round's phases in
    /// order, the cards, and how it ends and is scored (all from what its files declare)
    Explain {
        /// A `.rules` file or a game folder
        game: PathBuf,
    },
    /// Step through a game at a prompt: choose, look inside, undo, save, reload edited rules
    Repl {
        /// A `.rules` file or a game folder
        game: PathBuf,
        /// Number of players (default: the game's `default_players`, else 4 when the game
        /// allows it, else its minimum)
        #[arg(long)]
        players: Option<u32>,
        /// Seed of the game's random generator
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Load a saved session (`:save`) into GAME instead of starting a new game
        #[arg(long)]
        load: Option<PathBuf>,
        /// Who answers each seat's choices (default: you answer every seat), like
        /// `P2=random,P3=script:game.log`, `P2=bot:Greedy` (a bot the game declares) or
        /// `P1=human,random`
        #[arg(long)]
        agent: Option<String>,
        /// Set a game option, like `--set solo=true` (`rules check` lists a game's options)
        #[arg(long = "set", value_name = "NAME=VALUE")]
        set: Vec<String>,
        /// While the REPL shows one seat's view (`:as P2`), a seat a search or a bot plays
        /// answers each question this long after the answer before it (500ms, 2s; 0: at once)
        /// [default: 500ms]
        #[arg(long, value_name = "PACE", value_parser = rules::agent::pace::parse)]
        pace: Option<std::time::Duration>,
    },
    /// Play many seeded games on every core and report balance: win rates per seat with 95%
    /// intervals, first-player advantage, scores, game length (docs/simulate.md)
    ///
    /// Game i plays with seed SEED + i; the report depends on the seeds only, never on --jobs.
    /// Ctrl-C stops starting new games and reports the ones finished.
    #[command(args_conflicts_with_subcommands = true)]
    Simulate {
        #[command(subcommand)]
        merge: Option<SimulateCommand>,
        /// A `.rules` file or a game folder
        game: Option<PathBuf>,
        /// Number of players (default: the game's `default_players`, else 4 when the game
        /// allows it, else its minimum)
        #[arg(long)]
        players: Option<u32>,
        /// How many games to play
        #[arg(long, default_value_t = 1000)]
        games: u64,
        /// The first game's seed
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Who answers the choices, for every seat or per seat (`P1=bot:Greedy,random`): random,
        /// first, mc:N, ismcts:N (with /bot:NAME, the game's bot plays the playouts out),
        /// bot:NAME (a bot the game declares) or script:FILE
        #[arg(long, default_value = "random")]
        agent: String,
        /// Set a game option, like `--set solo=true`
        #[arg(long = "set", value_name = "NAME=VALUE")]
        set: Vec<String>,
        /// Worker threads (default: every core)
        #[arg(long)]
        jobs: Option<usize>,
        /// Also write the report as JSON to FILE
        #[arg(long)]
        json: Option<PathBuf>,
        /// Stop once every seat's 95% win-rate interval is narrower than W (like 0.05), in
        /// batches of 200 seeds; --games is then the most to play
        #[arg(long, value_name = "W")]
        until_ci: Option<f64>,
        /// Also write the report as an HTML page with charts to FILE
        #[arg(long)]
        html: Option<PathBuf>,
        /// Take a card out of every game (after setup), like `--without @black_market`
        #[arg(long, value_name = "@CARD")]
        without: Vec<String>,
        /// For each card of KIND (or each card written in FILE), play the same seeds without it
        /// and report how each seat's and group's win rate and mean score change, with
        /// intervals and a verdict per card, largest first
        #[arg(long, value_name = "KIND|FILE")]
        impact: Option<String>,
        /// Play only the i-th of n slices of the seeds and write its games to --json FILE,
        /// for `rules simulate merge`
        #[arg(long, value_name = "i/n")]
        shard: Option<String>,
        /// Skill against luck (Ludii's SkillTrace): ismcts with budgets K, 2K and 4K iterations
        /// (K is 25 when not given) plays against the budget half its own, on the same seeds with
        /// the stronger seat rotated round the table; --games per seat
        #[arg(long, value_name = "K", num_args = 0..=1, default_missing_value = "25",
              value_parser = clap::value_parser!(u32).range(1..=100_000))]
        skill: Option<u32>,
        /// A seat-balanced match between agents, like `--match ismcts:50,mc:10`: the same
        /// --games seeds once per agent, the agents rotated over the seats so each plays every
        /// seat equally often; each agent's win rate with its 95% interval against a fair share
        #[arg(long = "match", value_name = "AGENT,AGENT,...")]
        matchup: Option<String>,
    },
    /// A language server for editors, on stdin and stdout: diagnostics as you type, hover, go
    /// to definition, references, completion and document symbols (see editors/README.md)
    Lsp,
    /// Serve one game over the web: a page per seat, each showing only what that seat may see
    ///
    /// Prints one link per human seat (each with an unguessable token) and a spectators' link,
    /// with a QR code of each. Agents play the other seats. The answers are written to the log
    /// as the game goes; `--resume LOG` continues it with the same links (a log that holds a
    /// game is refused without it, or `--new`; Ctrl-C prints the command). At the terminal,
    /// `P2 random` hands a seat to an agent and `P2 human` back; `quit` ends.
    Serve {
        /// A `.rules` file or a game folder
        game: PathBuf,
        /// Number of players (default: the game's `default_players`)
        #[arg(long)]
        players: Option<u32>,
        /// Seed of the game's random generator (default: a secret seed drawn from the system,
        /// committed to by its SHA-256 at the start and shown at the end)
        #[arg(long)]
        seed: Option<u64>,
        /// Who plays each seat: human (a browser), random, first, mc:N or bot:NAME (a bot the game
        /// declares), per seat like `P1=human,P2=human,random`
        #[arg(long, default_value = "human")]
        agent: String,
        /// Set a game option, like `--set solo=true`
        #[arg(long = "set", value_name = "NAME=VALUE")]
        set: Vec<String>,
        /// The port to listen on (0: any free port; default 8080, or with --resume the one
        /// the game was served on)
        #[arg(long)]
        port: Option<u16>,
        /// The address to listen on (default 127.0.0.1, or with --resume the one the game was
        /// served on); anything but a loopback address lets other machines in, and with
        /// 0.0.0.0 the links name this machine's address on its network
        #[arg(long, conflicts_with = "lan")]
        bind: Option<std::net::IpAddr>,
        /// Let the phones and laptops of this network in: listen on every interface (as
        /// `--bind 0.0.0.0`), the links naming this machine's address on the network
        #[arg(long)]
        lan: bool,
        /// Where the game's log goes (default: GAME-SEED.serve.json here with --seed, else
        /// GAME-HASH.serve.json, HASH the commitment's start); the links' tokens are kept
        /// beside it in LOG.tokens
        #[arg(long)]
        log: Option<PathBuf>,
        /// Continue the game of this log, with the same links (its port and address too)
        #[arg(long, value_name = "LOG", conflicts_with_all = ["players", "seed", "agent", "set", "log"])]
        resume: Option<PathBuf>,
        /// Start a new game even when the log holds one (a stopped game there is lost; without
        /// it, a log that holds a game is refused)
        #[arg(long, conflicts_with = "resume")]
        new: bool,
        /// Leave out the QR codes
        #[arg(long)]
        no_qr: bool,
        /// A seat a search or a bot plays answers each question this long after the answer
        /// before it (500ms, 2s; 0: at once), so how long it thought tells nobody what it holds
        /// [default: 500ms]
        #[arg(long, value_name = "PACE", value_parser = rules::agent::pace::parse)]
        pace: Option<std::time::Duration>,
        /// Seconds a connection may go with nothing read or written before it is dropped
        #[arg(long, hide = true)]
        idle_seconds: Option<u64>,
        /// Seconds a client has to send a request's head
        #[arg(long, hide = true)]
        head_seconds: Option<u64>,
        /// Requests a second each seat may make
        #[arg(long, hide = true)]
        requests_per_second: Option<u32>,
    },
    /// Format `.rules` files in place in the one canonical layout, keeping every comment
    ///
    /// Exit codes: 0 when done (with --check: when every file is formatted already), 1 when a
    /// file would change under --check or could not be formatted (a syntax error, or not a
    /// regular file: symbolic links, FIFOs and devices are never read; nothing is written), 2
    /// when a path does not exist.
    Fmt {
        /// Report the files that would change (exit 1 if any) instead of rewriting them
        #[arg(long)]
        check: bool,
        /// `.rules` files, or folders searched for them
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    Print(print_cli::PrintArgs),
    /// Measure full random games per second on one core, and the time to check the game
    Bench(bench_cli::BenchArgs),
}

#[derive(Subcommand)]
enum SimulateCommand {
    /// Combine the shard files of one run into the report a single run gives
    Merge {
        /// The files `--shard i/n --json FILE` wrote, every shard once
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Also write the report as JSON to FILE
        #[arg(long)]
        json: Option<PathBuf>,
        /// Also write the report as an HTML page with charts to FILE
        #[arg(long)]
        html: Option<PathBuf>,
    },
}

/// Whose eyes `rules run` shows the game through.
#[derive(Clone, Copy)]
enum Viewer {
    All,
    Seat(u32),
    /// What every player may see (several people share the terminal).
    Public,
}

fn print_diags(diags: &[Diag], sources: &rules::diag::Sources) {
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    for d in diags {
        // Coloured, it is escaped already (`render_with`).
        if color {
            out::err_raw(&d.render_with(sources, color));
        } else {
            err!("{}", d.render(sources));
        }
    }
}

/// Refuse a folder that holds several games (`rules run games`): say which they are.
fn one_game(game: &std::path::Path) -> Result<(), ExitCode> {
    if !game.is_dir() {
        return Ok(());
    }
    let games = rules::games_in(game);
    if games.len() > 1 {
        errln!(
            "error: `{}` holds {} games, not one; name one of them:",
            game.display(),
            games.len()
        );
        for g in &games {
            errln!("  {}", g.display());
        }
        return Err(ExitCode::from(2));
    }
    Ok(())
}

/// Say that a game without a `game` block is a card set, not something to play.
fn not_playable(prog: &rules::program::Program, game: &std::path::Path) -> ExitCode {
    if prog.game.name.is_empty() {
        let what = if prog.cards.is_empty() {
            "a library".to_string()
        } else {
            format!("a card set ({})", count(prog.cards.len(), "card"))
        };
        errln!(
            "{}: this is {what}, not a game: it has no `game` block. Import it from a game's files to play with it.",
            game.display(),
        );
    } else {
        errln!(
            "{}: this is not a playable game (its `game` block has no phases)",
            game.display()
        );
    }
    ExitCode::from(2)
}

/// A game's interpreter for `n` seats with the agents made for it, or the message and exit 2
/// (an agent spec that cannot be made, a table the limits refuse).
fn interp_with<'p>(
    prog: &'p rules::program::Program,
    sources: &rules::diag::Sources,
    (n, seed): (u32, u64),
    agents: Result<Vec<Box<dyn rules::interp::Agent>>, String>,
    limits: Limits,
) -> Result<rules::interp::Interp<'p>, ExitCode> {
    let agents = agents.map_err(|e| {
        errln!("error: {e}");
        ExitCode::from(2)
    })?;
    rules::interp::Interp::new(prog, n, seed, agents, limits).map_err(|d| {
        print_diags(&[*d], sources);
        ExitCode::from(2)
    })
}

/// `--agent` for `n` seats where nobody sits at the keyboard (`what`: "a bench", "a
/// simulation"): the seat specs, the bots they name, and no `human`.
fn unattended_agents(
    agent: &str,
    n: u32,
    prog: &rules::program::Program,
    what: &str,
) -> Result<(), ExitCode> {
    if let Err(e) = rules::agent::seat_specs(agent, n, "random")
        .and_then(|specs| rules::agent::check_bots(&specs, prog))
    {
        errln!("error: {e}");
        return Err(ExitCode::from(2));
    }
    if agent.contains("human") {
        errln!("error: {what} has no people at the keyboard: use random, first, mc:N, ismcts:N, bot:NAME or script agents");
        return Err(ExitCode::from(2));
    }
    Ok(())
}

/// A game that can be played with `n` players, checked before anything is built for them.
fn playable(
    prog: &rules::program::Program,
    game: &std::path::Path,
    n: u32,
) -> Result<(), ExitCode> {
    if prog.phases.is_empty() || prog.game.round_phases.is_empty() {
        return Err(not_playable(prog, game));
    }
    let g = &prog.game;
    if n < g.min_players || n > g.max_players {
        errln!(
            "error: {} is played by {} to {} players, not {n}",
            g.name,
            g.min_players,
            g.max_players
        );
        return Err(ExitCode::from(2));
    }
    Ok(())
}

fn main() -> ExitCode {
    // Writing to a closed pipe (`rules check ... | head`) ends the program quietly: restore
    // the default SIGPIPE action that the Rust runtime turns off.
    #[cfg(unix)]
    // SAFETY: restoring a signal's default action.
    unsafe {
        const SIGPIPE: i32 = 13;
        const SIG_DFL: usize = 0;
        signal(SIGPIPE, SIG_DFL);
    }
    // `--help`, `--version` and usage errors: printed here, so a help text that could not be
    // written is not a success either.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            if let Err(w) = e.print() {
                errln!("error: cannot write the output: {w}");
                return ExitCode::from(out::WRITE_FAILED);
            }
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    // Every walk over a game's code is bounded by the limits (nesting within a function times
    // calls nested within calls), so a stack of a known size always suffices: the work runs on
    // a thread with `Limits::STACK_BYTES` of it, whatever the platform's main thread has.
    let work = std::thread::Builder::new()
        .name("rules".into())
        .stack_size(Limits::STACK_BYTES)
        .spawn(move || run(cli));
    match work.map(|h| h.join()) {
        Ok(Ok(code)) => match out::failed() {
            Some(e) => {
                errln!("error: cannot write the output: {e}");
                ExitCode::from(out::WRITE_FAILED)
            }
            None => code,
        },
        _ => {
            errln!("error: the rules thread could not run");
            ExitCode::from(70)
        }
    }
}

fn run(cli: Cli) -> ExitCode {
    let limits = Limits::default();
    match cli.command {
        Command::Check {
            paths,
            deny_warnings,
        } => {
            let mut failed = false;
            let mut games = Vec::new();
            for p in &paths {
                if !p.exists() {
                    errln!("error: `{}` does not exist", p.display());
                    return ExitCode::from(2);
                }
                // A folder of games is checked one game at a time.
                if p.is_dir() {
                    games.extend(rules::games_in(p));
                } else {
                    games.push(p.clone());
                }
            }
            for p in &games {
                let c = rules::check_path(p, &limits);
                print_diags(&c.diags, &c.sources);
                let errors = c.errors();
                let warnings = c.diags.len() - errors;
                let warned = if warnings > 0 {
                    format!(", {}", count(warnings, "warning"))
                } else {
                    String::new()
                };
                if errors > 0 || (deny_warnings && warnings > 0) {
                    failed = true;
                    if errors > 0 {
                        errln!("{}: {}{warned}", p.display(), count(errors, "error"));
                    } else {
                        errln!(
                            "{}: {} (denied by --deny-warnings)",
                            p.display(),
                            count(warnings, "warning")
                        );
                    }
                } else if let Some(prog) = c.program.as_ref().filter(|p| p.game.name.is_empty()) {
                    outln!(
                        "{}: ok ({}, {}; {}: no `game` block{warned})",
                        p.display(),
                        count(c.sources.files.len(), "file"),
                        count(prog.cards.len(), "card"),
                        if prog.cards.is_empty() {
                            "a library"
                        } else {
                            "a card set"
                        },
                    );
                } else if let Some(prog) = &c.program {
                    outln!(
                        "{}: ok ({}, {}, {}{warned})",
                        p.display(),
                        count(c.sources.files.len(), "file"),
                        count(prog.cards.len(), "card"),
                        count(prog.phases.len(), "phase"),
                    );
                    for line in rules::options::describe(prog) {
                        outln!("  option {line}");
                    }
                }
            }
            if failed {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        Command::Run {
            game,
            players,
            seed,
            agent,
            log,
            json,
            viewer,
            set,
            full,
            resume,
            pace,
        } => run_cli::run(
            run_cli::RunArgs {
                game,
                players,
                seed,
                agent,
                log,
                json,
                viewer,
                set,
                full,
                resume,
                pace: pace.unwrap_or(std::time::Duration::from_millis(
                    rules::agent::pace::DEFAULT_MS,
                )),
            },
            limits,
        ),
        Command::Cards {
            game,
            card,
            kind,
            wide,
        } => {
            if let Err(code) = one_game(&game) {
                return code;
            }
            let c = rules::check_path(&game, &limits);
            print_diags(&c.diags, &c.sources);
            let Some(prog) = c.program else {
                errln!("{}: the game has errors; fix them first", game.display());
                return ExitCode::from(1);
            };
            let shown = match &card {
                Some(id) => rules::cards::card(&prog, id),
                None => rules::cards::tables(&prog, kind.as_deref(), wide),
            };
            match shown {
                Ok(text) => {
                    out!("{text}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    errln!("error: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Command::Explain { game } => {
            if let Err(code) = one_game(&game) {
                return code;
            }
            let c = rules::check_path(&game, &limits);
            print_diags(&c.diags, &c.sources);
            let Some(prog) = c.program else {
                errln!("{}: the game has errors; fix them first", game.display());
                return ExitCode::from(1);
            };
            if prog.game.round_phases.is_empty() {
                return not_playable(&prog, &game);
            }
            out!("{}", rules::explain::explain(&prog));
            ExitCode::SUCCESS
        }
        Command::Repl {
            game,
            players,
            seed,
            load,
            agent,
            set,
            pace,
        } => {
            if let Err(code) = one_game(&game) {
                return code;
            }
            let c = rules::check_path(&game, &limits);
            print_diags(&c.diags, &c.sources);
            let Some(prog) = c.program else {
                errln!("{}: the game has errors; fix them first", game.display());
                return ExitCode::from(1);
            };
            if prog.game.round_phases.is_empty() {
                return not_playable(&prog, &game);
            }
            let n = players.unwrap_or_else(|| rules::default_players(&prog));
            if let Err(e) = rules::options::parse_sets(&prog, &set) {
                errln!("error: {e}");
                return ExitCode::from(2);
            }
            let session = match rules::session::Session::with_options(prog, n, seed, set, limits) {
                Ok(s) => s,
                Err(d) => {
                    print_diags(&[*d], &c.sources);
                    return ExitCode::from(2);
                }
            };
            let mut repl = rules::repl::Repl::new(session, game);
            repl.pace = pace.unwrap_or(std::time::Duration::from_millis(
                rules::agent::pace::DEFAULT_MS,
            ));
            if let Some(spec) = agent {
                let seats = match rules::agent::seat_specs(&spec, n, "human") {
                    Ok(s) => s,
                    Err(e) => {
                        errln!("error: {e}");
                        return ExitCode::from(2);
                    }
                };
                for (k, s) in seats.iter().enumerate() {
                    let (_, said) = repl.handle(&format!(":agent P{} {s}", k + 1));
                    if said.iter().any(|l| !l.contains("is now played by")) {
                        errln!("error: {}", said.join("\n"));
                        return ExitCode::from(2);
                    }
                }
            }
            repl.view_as_the_person();
            let first = load.map(|f| f.display().to_string());
            match rules::repl::run(repl, first) {
                Ok(()) => ExitCode::SUCCESS,
                // The terminal could not be read or written: the session ends.
                Err(e) => {
                    errln!("error: the REPL stopped: {e}");
                    ExitCode::from(out::WRITE_FAILED)
                }
            }
        }
        Command::Simulate {
            merge: Some(SimulateCommand::Merge { files, json, html }),
            ..
        } => merge_shards(files, json, html, &limits),
        Command::Simulate { game: None, .. } => {
            errln!("error: name a game to simulate (or `rules simulate merge FILES...`)");
            ExitCode::from(2)
        }
        Command::Simulate {
            game: Some(game),
            players,
            games,
            seed,
            agent,
            set,
            jobs,
            json,
            until_ci,
            shard,
            without,
            impact,
            html,
            skill,
            matchup,
            merge: None,
        } => simulate(
            game,
            players,
            games,
            seed,
            agent,
            set,
            jobs,
            json,
            Extra {
                until_ci,
                shard,
                without,
                impact,
                html,
                skill,
                matchup,
            },
            &limits,
        ),
        Command::Lsp => match rules::lsp::run() {
            Ok(code) => ExitCode::from(code),
            Err(e) => {
                errln!("error: the language server stopped: {e}");
                ExitCode::from(1)
            }
        },
        Command::Serve {
            game,
            players,
            seed,
            agent,
            set,
            port,
            bind,
            lan,
            log,
            resume,
            new,
            no_qr,
            pace,
            idle_seconds,
            head_seconds,
            requests_per_second,
        } => {
            let cfg = rules::serve::Config {
                game,
                players,
                seed,
                agent,
                set,
                port,
                bind: bind.or(lan.then_some(std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED))),
                log,
                resume,
                new,
                qr: !no_qr,
                pace: pace.unwrap_or(std::time::Duration::from_millis(
                    rules::agent::pace::DEFAULT_MS,
                )),
                limits: rules::limits::Limits {
                    serve_idle_seconds: idle_seconds.unwrap_or(limits.serve_idle_seconds).max(1),
                    serve_head_seconds: head_seconds.unwrap_or(limits.serve_head_seconds).max(1),
                    serve_requests_per_second: requests_per_second
                        .unwrap_or(limits.serve_requests_per_second)
                        .max(1),
                    ..limits
                },
            };
            // The banner and the host's messages name the game and its seats: escaped.
            let mut out = rules::term::Escaped::new(std::io::stdout());
            match rules::serve::run(cfg, &mut out) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    errln!("error: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Command::Print(args) => {
            print_cli::print(args, &limits, |c| print_diags(&c.diags, &c.sources))
        }
        Command::Fmt { check, paths } => {
            let mut files = Vec::new();
            for p in &paths {
                // A dangling symbolic link exists: `format_files` says what it is.
                if std::fs::symlink_metadata(p).is_err() {
                    errln!("error: `{}` does not exist", p.display());
                    return ExitCode::from(2);
                }
                rules::fmt::rules_files(p, &mut files);
            }
            let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            let report = rules::fmt::format_files(&files, check, &limits, color);
            for r in &report.refused {
                // Coloured, it is escaped already (`Diag::render_with`).
                if color {
                    out::err_raw(r);
                } else {
                    err!("{r}");
                }
            }
            for f in &report.changed {
                outln!("{}", f.display());
            }
            if !report.refused.is_empty() || (check && !report.changed.is_empty()) {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Command::Bench(args) => bench_cli::bench(args, limits),
    }
}

#[cfg(unix)]
extern "C" {
    fn signal(sig: i32, handler: usize) -> usize;
}

/// `1 file`, `3 files`.
fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn every_argument_of_every_subcommand_is_described() {
        let cli = Cli::command();
        for sub in cli.get_subcommands() {
            assert!(
                sub.get_about().is_some(),
                "`{}` has no description",
                sub.get_name()
            );
            for arg in sub.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                assert!(
                    arg.get_help().is_some(),
                    "`rules {} --help`: `{id}` has no description",
                    sub.get_name()
                );
            }
        }
    }
}

#[global_allocator]
static GLOBAL: rules::allocator::Mi = rules::allocator::Mi;
