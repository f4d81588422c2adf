//! The grammar's speed shortcuts (lookaheads before alternatives, literals taken without the
//! expression rules, rows of literals in one rule) must not change what a text means: every
//! `.rules` file in the repository parses to the same tree, spans included, with and without them.

use rules::limits::Limits;
use rules::parser::{parse_file, parse_file_without_shortcuts};
use std::path::{Path, PathBuf};

fn rules_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            rules_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rules") {
            out.push(p);
        }
    }
}

#[test]
fn the_shortcuts_change_no_tree() {
    let mut files = Vec::new();
    for dir in ["games", "stdlib", "tests", "benches", "docs"] {
        rules_files(Path::new(dir), &mut files);
    }
    files.sort();
    let limits = Limits::default();
    let mut parsed = 0;
    for p in &files {
        let text = std::fs::read_to_string(p).expect("read");
        let fast = parse_file(&text, 0, &limits);
        let plain = parse_file_without_shortcuts(&text, 0, &limits);
        assert_eq!(
            format!("{:?}", fast.value),
            format!("{:?}", plain.value),
            "{}",
            p.display()
        );
        assert_eq!(
            format!("{:?}", fast.diags),
            format!("{:?}", plain.diags),
            "{}",
            p.display()
        );
        parsed += usize::from(fast.value.is_some());
    }
    assert!(parsed > 50, "only {parsed} files parsed");
}

/// Texts made to sit on the edges of the shortcuts: literals followed by what continues an
/// expression, rows that end in something else than a literal, keywords in cells.
#[test]
fn texts_on_the_edges_of_the_shortcuts_parse_alike() {
    let texts = [
        "cards K (a, b) {\n  x: 1, 2\n  y: \"a\", @x\n}\n",
        "cards K (a, b) {\n  x: 1, 2 + 3\n  y: -1, none\n}\n",
        "cards K (a, b) {\n  x: [1, 2], (1, 2)\n  3 x y: true, false\n  12: a.b, f(1)\n}\n",
        "cards K (a, b) {\n  x: 1, table { 1: 2 }\n  y: and, or\n}\n",
        "cards K (a, b) {\n  x: 1, b and c\n  order: 1, 2\n}\n",
        "cards K (a, b) {\n  x: 1, 2 # a comment\n  # another\n  y: 1, 2,\n}\n",
        "cards K (a, b) {\n  x: 1 ..3, \"a\" \"b\"\n}\n",
        "cards K (a, b) {\n  x: 1,\n     2\n  y: x\n     .y, 1\n}\n",
        "cards K (a) {\n  x: fn(p) { set a = 1 }\n  y: if c { 1 } else { 2 }\n}\n",
        "card K x { a: 1, b: [x, y], c: (1, \"t\"), d: 2 * 3 e: f }\n",
        "card K x { a: 1\n b: c or d\n c: sum(x in y => x) }\n",
        "fn f() -> int = g(1, a, \"b\", [c], (d), -e, f[1, 2], x.y[1](2))\n",
        "cards K (a, b) {\n  x: 1, 2",
        "cards K (a, b) {\n  x: 1, , 2\n}\n",
        "cards K (a, b) {\n  x: 1 2\n}\n",
        "cards K (a, b) {\n  x: \"unclosed, 2\n}\n",
        "card K x { a: 1,, b: 2 }\n",
        "fn f() = g(1, 2 3)\n",
        // Calls named like statements: a call in both parses, not the statement.
        "fn f() { say_hi(); reveal_all(); return_x(); shuffle_it(); let_go(); set_up() }\n",
        "fn f() { reveal_all( }\n",
    ];
    let limits = Limits::default();
    for text in texts {
        let fast = parse_file(text, 0, &limits);
        let plain = parse_file_without_shortcuts(text, 0, &limits);
        assert_eq!(
            format!("{:?}", fast.value),
            format!("{:?}", plain.value),
            "{text}"
        );
        assert_eq!(
            format!("{:?}", fast.diags),
            format!("{:?}", plain.diags),
            "{text}"
        );
    }
}
