//! Comments change nothing, wherever they are: every `.rules` file of the repository that parses,
//! with a comment put into every gap between two tokens that holds white space (after the first
//! token and before the second), parses to the same syntax tree, and `rules fmt` formats it
//! (its safety net compares trees, diagnostics and comments) to a text it leaves as it is.

use rules::fmt::{format_source, syntax_signature, token_spans};
use rules::limits::Limits;
use std::path::{Path, PathBuf};

fn rules_files(dir: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    rules::fmt::rules_files(Path::new(dir), &mut out);
    out
}

/// `text` with `comment` (a line's end: it holds its separator before and ends with a line
/// break) in every gap between tokens that holds white space: right after the token before and
/// right before the token after.
fn with_comments(text: &str, comment: &str) -> String {
    let tokens = token_spans(text).expect("parses");
    let mut cuts = Vec::new();
    for w in tokens.windows(2) {
        let (a, b) = (w[0].1, w[1].0);
        let gap = &text[a..b];
        if gap.starts_with(char::is_whitespace) {
            cuts.push(a);
        }
        if b > a + 1 && gap.ends_with(char::is_whitespace) {
            cuts.push(b);
        }
    }
    let mut out = String::with_capacity(text.len() * 2);
    let mut pos = 0;
    for c in cuts {
        out.push_str(&text[pos..c]);
        // A comment on a line of its own at a line's start: no blank line with it (a blank
        // line is not a comment, and it ends a `##` doc comment).
        let comment = match comment.strip_prefix('\n') {
            Some(own) if out.ends_with('\n') => own,
            _ => comment,
        };
        out.push_str(comment);
        out.push('\n');
        pos = c;
    }
    out.push_str(&text[pos..]);
    out
}

fn files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["games", "stdlib", "tests"] {
        files.extend(rules_files(dir));
    }
    files
}

#[test]
fn a_comment_between_any_two_tokens_changes_nothing() {
    let limits = Limits::default();
    let mut n = 0;
    for f in files() {
        let text = std::fs::read_to_string(&f).expect("read");
        let Some(plain) = syntax_signature(&text, &limits) else {
            continue;
        };
        // At the end of a line: one holding the words and brackets the parser once looked
        // for, and one holding nothing; and on a line of its own.
        for comment in [" # where => as , ) ( #", " #", "\n# where ( =>"] {
            let commented = with_comments(&text, comment);
            assert!(commented.len() > text.len() || text.trim().is_empty());
            let name = format!("{} with comments `{comment}`", f.display());
            assert_eq!(
                syntax_signature(&commented, &limits).as_deref(),
                Some(plain.as_str()),
                "{name}: the comments changed the syntax tree:\n{commented}"
            );
            let once = match format_source(&name, &commented, &limits) {
                Ok(s) => s,
                Err(d) => panic!("{name} did not format: {d:?}\n{commented}"),
            };
            let twice = format_source(&name, &once, &limits).expect("formats again");
            assert_eq!(once, twice, "{name}: a second run changed it");
        }
        n += 1;
    }
    assert!(n > 100, "only {n} files parse");
}

/// The places where the parser once told parts apart by the text before them, so that a comment
/// there changed what the file meant (issue 32): the condition of an aggregate read as its
/// source (`where # ...`), its value dropped (`=> # ...`), a trigger's binding read as its target
/// (`as # ...`), a tuple of one read as a plain value (`(x, # ...`), and a `##` doc comment
/// detached from its declaration by a comment line.
#[test]
fn comments_where_the_parser_read_the_text() {
    let limits = Limits::default();
    let head = "kind Card { v: int }\ncard Card a { v: 1 }\nzone hand: Card public\n";
    let cases = [
        (
            "const n = count(c in Card where # c\n c.v > 0)",
            "const n = count(c in Card where c.v > 0)",
        ),
        (
            "const n = count(c in Card # c\n where c.v > 0)",
            "const n = count(c in Card where c.v > 0)",
        ),
        (
            "const n = map(c in Card => # c\n c.v)",
            "const n = map(c in Card => c.v)",
        ),
        (
            "const n = sum(c in Card where # a\n c.v > 0 => # b\n c.v)",
            "const n = sum(c in Card where c.v > 0 => c.v)",
        ),
        (
            "on enter hand as # c\n c { say \"{c.v}\" }",
            "on enter hand as c { say \"{c.v}\" }",
        ),
        ("const t = (1, # c\n)", "const t = (1,)"),
        (
            "## A doc.\n# c\n## More of it.\n  # c\nfn f() -> int = 1",
            "## A doc.\n## More of it.\nfn f() -> int = 1",
        ),
        ("const t = (1 # c,\n)", "const t = (1)"),
    ];
    for (commented, plain) in cases {
        let a = format!("{head}{commented}\n");
        let b = format!("{head}{plain}\n");
        let sa = syntax_signature(&a, &limits);
        assert!(sa.is_some(), "{commented} does not parse");
        assert_eq!(sa, syntax_signature(&b, &limits), "{commented}");
        let checked = rules::check_text("c.rules", &a, &limits);
        assert_eq!(checked.errors(), 0, "{commented}: {}", checked.render());
    }
}
