//! What each fuzz target does with one input, shared by `fuzz/fuzz_targets/` and the in-tree
//! replay test `tests/fuzz_corpus.rs`. Every function must return without a panic, an abort
//! or a hang for any input; the limits are tight so one input runs in milliseconds.

#![allow(dead_code)]

use rules::limits::Limits;
use std::path::Path;
use std::rc::Rc;

/// Tight limits: small budgets make every input fast, so the fuzzer explores more.
pub fn limits() -> Limits {
    Limits {
        max_steps: 20_000,
        max_list_len: 1_000,
        max_options: 1_000,
        max_file_bytes: 64 << 10,
        max_text_bytes: 64 << 10,
        max_slots: 10_000,
        max_log_bytes: 64 << 10,
        max_line_bytes: 4 << 10,
        ..Limits::default()
    }
}

/// Parse and check one file, and render every diagnostic.
pub fn check_file(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let c = rules::check_text("fuzz.rules", &text, &limits());
    let _ = c.render();
}

/// Check one file and, when it is a playable game, run it with random agents (the seed comes
/// from the input's length).
pub fn run_game(data: &[u8]) {
    let limits = limits();
    let text = String::from_utf8_lossy(data);
    let c = rules::check_text("fuzz.rules", &text, &limits);
    let _ = c.render();
    let Some(prog) = c.program else { return };
    if prog.game.max_players == 0 || prog.game.round_phases.is_empty() {
        return;
    }
    let n = rules::default_players(&prog);
    let Ok(agents) = rules::agent::make_agents("random", n, data.len() as u64) else {
        return;
    };
    if let Ok(mut i) = rules::interp::Interp::new(&prog, n, 1, agents, limits) {
        if let Err(d) = i.run() {
            let _ = d.render(&c.sources);
        }
    }
}

/// The game the save and REPL targets play, from the repository (`repo_dir`: this file is built
/// into the fuzz crate in `fuzz/` and into tests at the root).
fn game_path() -> std::path::PathBuf {
    repo_dir().join("games/the-establishment.rules")
}

/// Whether the game the save and REPL targets play was found and checks clean (without it they
/// test nothing).
pub fn game_checks() -> bool {
    game().is_some()
}

thread_local! {
    /// The Establishment, checked once per process and shared by every input's session (an
    /// `Rc`: never cloned, so it is compiled once too): checking it, or cloning and compiling
    /// it, for every input would make the save and REPL targets spend most of their time there.
    static GAME: (Option<Rc<rules::program::Program>>, rules::diag::Sources) = {
        let c = rules::check_path(&game_path(), &limits());
        (c.program.map(Rc::new), c.sources)
    };
}

fn game() -> Option<Rc<rules::program::Program>> {
    GAME.with(|g| g.0.clone())
}

fn fresh_repl() -> Option<rules::repl::Repl> {
    let limits = limits();
    let path = game_path();
    let prog = game()?;
    let n = rules::default_players(&prog);
    let s = rules::session::Session::with_options(prog, n, 1, Vec::new(), limits).ok()?;
    Some(rules::repl::Repl::new(s, path))
}

/// Read the input as a save file of the Establishment and replay it; then step back and forth
/// through what it loaded (the redo material a save leaves past where its replay stopped
/// included), and save it again.
pub fn load_save(data: &[u8]) {
    let _ = load_save_loaded(data);
}

/// `load_save`, saying whether the input was a save that loaded (the in-tree replay counts
/// them: a replay where none loads tests only the JSON reader).
pub fn load_save_loaded(data: &[u8]) -> bool {
    let Ok(save) = serde_json::from_slice::<rules::session::SaveFile>(data) else {
        return false;
    };
    let Some(prog) = game() else { return false };
    match rules::session::Session::load(prog, &save, limits()) {
        Ok((mut s, _)) => {
            let _ = s.where_now();
            s.undo(2);
            let _ = s.where_now();
            s.redo();
            s.redo();
            let again = s.save(&save.game);
            let _ = serde_json::to_string(&again);
            true
        }
        Err(d) => GAME.with(|g| {
            let _ = d.render(&g.1);
            false
        }),
    }
}

/// Type the input's lines at a REPL on the Establishment (at most 64 lines; no `:save`,
/// which would write files, and no `:load`, which `load_save` covers).
pub fn repl_lines(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Some(mut repl) = fresh_repl() else { return };
    for line in text.lines().take(64) {
        let t = line.trim_start();
        if t.starts_with(":save") || t.starts_with(":load") || t.starts_with(":reload") {
            continue;
        }
        let (keep, _) = repl.handle(line);
        if !keep {
            break;
        }
    }
}

/// The repository: `fuzz/`'s parent for the fuzz targets, the crate itself when
/// `tests/fuzz_corpus.rs` or `tests/lsp.rs` includes this file.
pub fn repo_dir() -> std::path::PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let repo = if here.join("games").is_dir() {
        here.to_path_buf()
    } else {
        here.join("..")
    };
    repo.canonicalize().unwrap_or(repo)
}

/// The workspace folder of language-server sessions: a small game.
pub fn lsp_root() -> std::path::PathBuf {
    repo_dir().join("tests/lsp/fixture")
}

/// `line` with each `$NAME` of `names` replaced by its text.
fn substitute(line: &[u8], names: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut out = Vec::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.iter().position(|&b| b == b'$') {
        out.extend_from_slice(&rest[..i]);
        rest = &rest[i..];
        match names.iter().find(|(from, _)| rest.starts_with(from)) {
            Some((from, to)) => {
                out.extend_from_slice(to);
                rest = &rest[from.len()..];
            }
            None => {
                out.push(b'$');
                rest = &rest[1..];
            }
        }
    }
    out.extend_from_slice(rest);
    out
}

/// A language-server session written as text, one message a line (at most 256): a line of JSON
/// is sent with its `Content-Length` header; a line starting `RAW ` is sent as it is, with `\r`,
/// `\n` and `\\` written as escapes. `$ROOT` stands for the workspace folder (`lsp_root`), `$REPO`
/// for the repository. `tests/lsp/raw/*.txt` are such sessions, and so are the inputs of the
/// `lsp_messages` fuzz target.
pub fn lsp_stream(data: &[u8]) -> Vec<u8> {
    let repo = repo_dir().display().to_string();
    let root = lsp_root().display().to_string();
    let mut out = Vec::new();
    for line in data.split(|&b| b == b'\n').take(256) {
        let line = substitute(
            line,
            &[(b"$ROOT", root.as_bytes()), (b"$REPO", repo.as_bytes())],
        );
        if let Some(raw) = line.strip_prefix(b"RAW ") {
            let mut i = 0;
            while i < raw.len() {
                match (raw[i], raw.get(i + 1)) {
                    (b'\\', Some(b'r')) => out.push(b'\r'),
                    (b'\\', Some(b'n')) => out.push(b'\n'),
                    (b'\\', Some(b'\\')) => out.push(b'\\'),
                    (b, _) => {
                        out.push(b);
                        i += 1;
                        continue;
                    }
                }
                i += 2;
            }
        } else if !line.trim_ascii().is_empty() {
            out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", line.len()).as_bytes());
            out.extend_from_slice(&line);
        }
    }
    out
}

/// The messages of a language-server session as the server wrote them (each must be a framed
/// JSON-RPC 2.0 message).
pub fn lsp_answers(out: &[u8]) -> Vec<serde_json::Value> {
    let mut answers = Vec::new();
    let mut rest = out;
    while !rest.is_empty() {
        let head = rest
            .strip_prefix(b"Content-Length: ")
            .expect("each answer starts with its length");
        let end = head
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a header ends with a blank line");
        let n: usize = std::str::from_utf8(&head[..end])
            .expect("an ASCII length")
            .parse()
            .expect("a length");
        let body = &head[end + 4..end + 4 + n];
        let v: serde_json::Value = serde_json::from_slice(body).expect("an answer is JSON");
        assert_eq!(v["jsonrpc"], "2.0", "{v}");
        let answer = v.get("id").is_some();
        assert!(
            answer != v.get("method").is_some(),
            "an answer or a notification: {v}"
        );
        if answer {
            assert!(
                v.get("result").is_some() != v.get("error").is_some(),
                "a result or an error: {v}"
            );
        }
        answers.push(v);
        rest = &head[end + 4 + n..];
    }
    answers
}

/// Serve the input, as a session after `initialize` on `lsp_root`, in-process: the server must
/// answer every request once and never stop before `exit` or the end of the input.
pub fn lsp_messages(data: &[u8]) {
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":"init","method":"initialize","params":{{"capabilities":{{}},"rootUri":"file://{}"}}}}"#,
        lsp_root().display()
    );
    let mut input = lsp_stream(init.as_bytes());
    input.extend(lsp_stream(data));
    let limits = Limits {
        max_lsp_message_bytes: 1 << 20,
        max_lsp_games: 2,
        max_lsp_open_bytes: 256 << 10,
        ..limits()
    };
    let mut out = Vec::new();
    rules::lsp::serve(&input[..], &mut out, limits).expect("in-memory streams do not fail");
    let answers = lsp_answers(&out);
    assert_eq!(
        answers.first().map(|a| a["id"].clone()),
        Some("init".into())
    );
}

/// The diagnostics of a check without their positions (formatting moves every span).
fn diag_signature(c: &rules::Checked) -> Vec<String> {
    c.diags
        .iter()
        .map(|d| {
            let labels: Vec<&str> = d.labels.iter().map(|l| l.text.as_str()).collect();
            format!(
                "{:?} {} {} {:?} {:?}",
                d.severity, d.code, d.message, labels, d.help
            )
        })
        .collect()
}

/// `rules fmt` on a file that parses: it is formatted (never refused), the result parses to the
/// same syntax tree, checks with the same diagnostics (clean for a file that checks clean), and
/// formats to itself. The same again with one to three comments put between tokens (where and
/// which picked from the input's bytes): the fuzzer's mutations seldom make comments in the
/// middle of expressions, where the parser and the formatter once lost or moved them.
pub fn fmt_roundtrip(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    roundtrip(text);
    let Some(tokens) = rules::fmt::token_spans(text) else {
        return;
    };
    // The gaps between two tokens that hold white space: right after the one and right
    // before the other, a comment may go.
    let mut gaps = Vec::new();
    for w in tokens.windows(2) {
        if let [(_, a), (b, _)] = w {
            let gap = text.get(*a..*b).unwrap_or("");
            if gap.starts_with(char::is_whitespace) {
                gaps.push(*a);
            }
            if b > a && gap.ends_with(char::is_whitespace) {
                gaps.push(*b);
            }
        }
    }
    if gaps.is_empty() {
        return;
    }
    const COMMENTS: [&str; 4] = [" # => where as , ) (\n", "\n# c\n", " #\n", "\n\n# c\n\n"];
    // FNV-1a of the input, then a few steps of a linear congruential generator.
    let mut seed = data.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let mut next = || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize
    };
    let n = 1 + next() % 3;
    let mut cuts: Vec<(usize, &str)> = (0..n)
        .filter_map(|_| {
            let at = *gaps.get(next() % gaps.len())?;
            Some((at, *COMMENTS.get(next() % COMMENTS.len())?))
        })
        .collect();
    cuts.sort();
    cuts.dedup_by_key(|c| c.0);
    let mut commented = String::with_capacity(text.len() + 64);
    let mut pos = 0;
    for (at, comment) in cuts {
        commented.push_str(text.get(pos..at).unwrap_or(""));
        commented.push_str(comment);
        pos = at;
    }
    commented.push_str(text.get(pos..).unwrap_or(""));
    roundtrip(&commented);
}

fn roundtrip(text: &str) {
    let limits = limits();
    let Some(tree) = rules::fmt::syntax_signature(text, &limits) else {
        return;
    };
    let formatted = match rules::fmt::format_source("fuzz.rules", text, &limits) {
        Ok(f) => f,
        Err(d) => panic!("fmt refused a file that parses: {}\n{text}", d.message),
    };
    assert!(
        Some(&tree) == rules::fmt::syntax_signature(&formatted, &limits).as_ref(),
        "fmt changed the syntax tree:\n{text}\n---- formatted:\n{formatted}"
    );
    let c = rules::check_text("fuzz.rules", text, &limits);
    let c2 = rules::check_text("fuzz.rules", &formatted, &limits);
    assert_eq!(
        diag_signature(&c),
        diag_signature(&c2),
        "fmt changed the diagnostics:\n{text}\n---- formatted:\n{formatted}"
    );
    match rules::fmt::format_source("fuzz.rules", &formatted, &limits) {
        Ok(again) => assert!(
            again == formatted,
            "fmt is not idempotent:\n{text}\n---- once:\n{formatted}\n---- twice:\n{again}"
        ),
        Err(d) => panic!("fmt refused its own output: {}\n{formatted}", d.message),
    }
}

/// The tokens of the served game in `serve_requests`: P1's, P2's, then the spectators'.
pub const SERVE_TOKENS: [&str; 3] = [
    "0123456789abcdef0123456789abcde1",
    "0123456789abcdef0123456789abcde2",
    "0123456789abcdef0123456789abcde3",
];

/// What only each of P1, P2 and the spectators is sent: a connection whose requests name none
/// of the others' tokens must never be sent theirs.
const SERVE_SECRETS: [&str; 3] = ["secret-of-P1", "secret-of-P2", "secret-of-spectators"];

/// `data` split into connections at lines `@@` (at most 16, each at most 16 KiB), with `$P1`,
/// `$P2` and `$S` standing for the tokens (`SERVE_TOKENS`) and `$Q` for the number of the
/// question waiting when the connection opens (right-aligned in two characters, as long as
/// `$Q`: a `Content-Length` counted with `$Q` stays right). The bytes go as they are: HTTP's
/// `\r\n` must be written (a bare `\n` is what the server makes of it).
pub fn serve_connections(data: &[u8]) -> Vec<Vec<u8>> {
    let mut conns = Vec::new();
    let mut current = Vec::new();
    for line in data.split_inclusive(|&b| b == b'\n') {
        if line.strip_suffix(b"\n").unwrap_or(line) == b"@@" {
            conns.push(std::mem::take(&mut current));
        } else {
            current.extend_from_slice(line);
        }
    }
    conns.push(current);
    conns.truncate(16);
    for c in &mut conns {
        c.truncate(16 << 10);
    }
    conns
}

/// The web server of `rules serve` under the requests of `data` (`serve_connections`), each
/// connection over an in-memory pipe through the code that serves a socket's
/// (`rules::serve::http::connection`: its slot, hyper with the head's deadline, the routes), on
/// a runtime whose clock moves only when every task waits (a long poll, an event stream's
/// keep-alive, an idle or head deadline passes at once). Up to four connections stay open
/// unread at once (their slots held; the caps are small here), then each is read until it
/// closes or 30 s of that clock pass (an event stream never ends). A small game stands in for
/// the game's thread: each answer passed on moves it to a new question for the other seat, a
/// take-back request publishes again under the same number, and every connection's request
/// makes a change the event streams see. Every answer must be HTTP, and no connection may be
/// sent a message of a seat (or the spectators) whose token it never named.
pub fn serve_requests(data: &[u8]) {
    let _ = serve_exchange(data);
}

/// `serve_requests`, giving what each connection sent and was sent back (the in-tree replay
/// checks the seeds reach the routes).
pub fn serve_exchange(data: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    use rules::serve::hub::{HostCmd, Hub, Question};
    use std::sync::Arc;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let limits = Limits {
        max_serve_connections: 3,
        max_serve_seat_connections: 2,
        max_serve_spectator_connections: 2,
        ..limits()
    };
    let (tx, rx) = std::sync::mpsc::sync_channel(limits.max_serve_queue);
    let messages = |version: u64| -> Vec<Arc<str>> {
        SERVE_SECRETS
            .iter()
            .map(|s| Arc::from(format!(r#"{{"version":{version},"for":"{s}"}}"#)))
            .collect()
    };
    let hub = Arc::new(Hub::new(
        SERVE_TOKENS.iter().map(|t| t.to_string()).collect(),
        messages(0),
        tx,
        limits,
    ));
    hub.publish(
        messages(0),
        Some(Question {
            id: 1,
            seat: 0,
            count: 3,
            taken: false,
        }),
    );
    let mut version = 0u64;
    let mut game = |hub: &Hub| {
        let mut question = hub.lock().question.clone();
        while let Ok(cmd) = rx.try_recv() {
            match cmd {
                HostCmd::Answer {
                    seat, question: q, ..
                } => {
                    question = Some(Question {
                        id: q + 1,
                        seat: 1 - seat.min(1),
                        count: 3,
                        taken: false,
                    });
                }
                HostCmd::Undo { .. } | HostCmd::Line(_) => {}
            }
        }
        version += 1;
        hub.publish(messages(version), question);
    };
    let conns = serve_connections(data);
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
    else {
        return Vec::new();
    };
    let answers = rt.block_on(async {
        let app = rules::serve::http::router(hub.clone(), &limits);
        let idle = std::time::Duration::from_secs(limits.serve_idle_seconds.max(1));
        let head = std::time::Duration::from_secs(limits.serve_head_seconds.max(1));
        let mut answers = Vec::new();
        let mut waiting = Vec::new();
        let n = conns.len();
        for (i, raw) in conns.iter().enumerate() {
            let q = hub.lock().question.as_ref().map_or(0, |q| q.id);
            let bytes = substitute(
                raw,
                &[
                    (b"$P1", SERVE_TOKENS[0].as_bytes()),
                    (b"$P2", SERVE_TOKENS[1].as_bytes()),
                    (b"$S", SERVE_TOKENS[2].as_bytes()),
                    (b"$Q", format!("{q:>2}").as_bytes()),
                ],
            );
            let (mut client, server) = tokio::io::duplex(16 << 10);
            let conn = rules::serve::http::connection(server, hub.clone(), app.clone(), idle, head);
            tokio::spawn(conn);
            let _ = client.write_all(&bytes).await;
            let _ = client.shutdown().await;
            // Let the server take the request in before the game moves.
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
            game(&hub);
            waiting.push((bytes, client));
            if waiting.len() >= 4 || i + 1 == n {
                for (bytes, mut client) in waiting.drain(..) {
                    let mut got = Vec::new();
                    let wait = std::time::Duration::from_secs(30);
                    let _ = tokio::time::timeout(wait, client.read_to_end(&mut got)).await;
                    answers.push((bytes, got));
                }
            }
        }
        answers
    });
    for (sent, got) in &answers {
        assert!(
            got.is_empty() || got.starts_with(b"HTTP/1."),
            "not an HTTP answer: {:?}",
            String::from_utf8_lossy(got)
        );
        let named = |t: &str| {
            let t = t.as_bytes();
            sent.windows(t.len()).any(|w| w.eq_ignore_ascii_case(t))
        };
        for (token, secret) in SERVE_TOKENS.iter().zip(SERVE_SECRETS) {
            if !named(token) {
                assert!(
                    !got.windows(secret.len()).any(|w| w == secret.as_bytes()),
                    "{secret} sent to a connection that never named its token:\n{}\n---- got:\n{}",
                    String::from_utf8_lossy(sent),
                    String::from_utf8_lossy(got)
                );
            }
        }
    }
    answers
}
