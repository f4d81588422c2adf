//! Helpers more than one test file uses (each test file includes this with `mod common;` and
//! uses what it needs).
#![allow(dead_code)]

use rules::limits::Limits;
use std::process::Command;

/// The five games of the rulebooks, as the tests load them.
pub const GAMES: &[&str] = &[
    "games/the-establishment.rules",
    "games/hegemony",
    "games/ambition",
    "games/statecraft",
    "games/deep-state",
];

/// Run the `rules` binary from the project root: (exit code, stdout, stderr).
pub fn rules(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rules"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run rules");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// Run the `rules` binary from the project root with `input` typed on stdin: (exit code,
/// stdout, stderr).
pub fn typed(args: &[&str], input: &str) -> (i32, String, String) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_rules"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rules");
    let mut stdin = child.stdin.take().expect("stdin");
    // The game may stop reading before all of it is written (a closed pipe is fine).
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// The functions of the deepest evaluation `limits` allow: `f0` is `leaf` (a body of type int),
/// and each of `f1` to `fN` (N is `max_call_depth - 2`) adds `(1 + ...)` nested as deep as a file
/// may be around a call of the one before. Returns the source and N; `fN()` is N times the
/// nesting plus `f0()`.
pub fn deepest_calls(limits: &Limits, leaf: &str) -> (String, usize, usize) {
    let mut text = format!("fn f0() -> int = {leaf}\n");
    // Each level is a bracket and an operator: two nesting levels per `(1 + ...)`.
    let per_fn = limits.max_depth / 2 - 2;
    let fns = limits.max_call_depth - 2;
    for i in 1..=fns {
        text.push_str(&format!(
            "fn f{i}() -> int = {}f{}(){}\n",
            "(1 + ".repeat(per_fn),
            i - 1,
            ")".repeat(per_fn)
        ));
    }
    (text, fns, per_fn)
}

/// `text` checked (it must have no errors), kept for the rest of the test run.
pub fn checked(name: &str, text: &str) -> &'static rules::program::Program {
    let c = rules::check_text(name, text, &Limits::default());
    assert_eq!(c.errors(), 0, "{}", c.render());
    Box::leak(Box::new(c.program.expect("program")))
}

/// A game of `prog` for two players, seed 1, each taking the first option, nothing recorded:
/// the interpreter after it, and how it ended.
pub fn play_quietly(
    prog: &'static rules::program::Program,
    limits: Limits,
) -> (
    rules::interp::Interp<'static>,
    Result<(), Box<rules::diag::Diag>>,
) {
    let agents = rules::agent::make_agents("first", 2, 1).expect("agents");
    let mut i = rules::interp::Interp::new(prog, 2, 1, agents, limits).expect("interp");
    i.record = false;
    let r = i.run().map(|_| ());
    (i, r)
}

/// The source text under an error's first label.
pub fn labelled<'t>(text: &'t str, d: &rules::diag::Diag) -> &'t str {
    let span = d.labels.first().expect("label").span;
    &text[span.start as usize..span.end as usize]
}

/// A fast path's test game and the same game left to the general code: `game` followed by
/// `phase` with each `{t}` left out, then with each `{t}` replaced by `marker` (`true and `, which
/// leaves an aggregate to the walk; ` == true`, which leaves a call to its value).
pub fn fast_and_general(game: &str, phase: &str, marker: &str) -> (String, String) {
    (
        format!("{game}{}", phase.replace("{t}", "")),
        format!("{game}{}", phase.replace("{t}", marker)),
    )
}

/// A game whose aggregates a fast path takes (`fast`, its text and program) against the same
/// game with `true and ` in front of each condition, which leaves them to the walk (`walked`):
/// at every step budget below what the first needs, both run out of steps, at the same text
/// (`true and ` aside) and with the same vars.
pub fn runs_out_as_walked(
    fast: (&str, &'static rules::program::Program),
    walked: (&str, &'static rules::program::Program),
) {
    runs_out_alike(fast, walked, "true and ");
}

/// `runs_out_as_walked` for any change that leaves a fast path to the general code: `marker`,
/// what the second text adds, is left out of the texts compared.
pub fn runs_out_alike(
    fast: (&str, &'static rules::program::Program),
    walked: (&str, &'static rules::program::Program),
    marker: &str,
) {
    let (full, r) = play_quietly(fast.1, Limits::default());
    r.expect("runs");
    for max_steps in 0..full.state.steps() {
        let limits = Limits {
            max_steps,
            ..Limits::default()
        };
        let (a, ra) = play_quietly(fast.1, limits);
        let (b, rb) = play_quietly(walked.1, limits);
        let (ea, eb) = (ra.expect_err("out of steps"), rb.expect_err("out of steps"));
        assert_eq!(ea.code, "limit::steps", "at {max_steps}: {ea:?}");
        let under = |d: &rules::diag::Diag, text: &str| labelled(text, d).replace(marker, "");
        assert_eq!(
            (under(&ea, fast.0), &a.state.vars),
            (under(&eb, walked.0), &b.state.vars),
            "at {max_steps}"
        );
    }
}

/// Two programs that must play alike (a fast path's and the general code's): both run to the
/// end with the default limits, with the same vars and the same steps; the first's game, for
/// what else a test looks at.
pub fn plays_alike(
    fast: &'static rules::program::Program,
    general: &'static rules::program::Program,
) -> rules::interp::Interp<'static> {
    let (a, ra) = play_quietly(fast, Limits::default());
    let (b, rb) = play_quietly(general, Limits::default());
    ra.expect("the fast path runs");
    rb.expect("the general code runs");
    assert_eq!(a.state.vars, b.state.vars);
    assert_eq!(a.state.steps(), b.state.steps());
    a
}

/// How many tuples the list `v` holds (either form: packed or shared), if it is a list.
pub fn tuples_in(v: Option<&rules::value::Value>) -> Option<usize> {
    let items = v?.seq_items()?;
    Some(items.iter().filter(|x| x.tuple_items().is_some()).count())
}
