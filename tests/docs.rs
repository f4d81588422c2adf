//! The language reference stays true: every code block in `grammar/README.md`'s rulebook
//! sections checks clean with the real checker.

use rules::limits::Limits;

#[test]
fn rulebook_sections_of_the_reference_check_clean() {
    let text = std::fs::read_to_string("grammar/README.md").expect("read the reference");
    let start = text
        .find("# How each rulebook is written")
        .expect("rulebook part");
    let part = &text[start..];
    let mut checked = 0;
    let mut rest = part;
    while let Some(open) = rest.find("```rules\n") {
        let body = &rest[open + 9..];
        let close = body.find("```").expect("closed block");
        let code = &body[..close];
        let c = rules::check_text(
            &format!("grammar/README.md block {}", checked + 1),
            code,
            &Limits::default(),
        );
        assert_eq!(c.errors(), 0, "block {}:\n{}", checked + 1, c.render());
        checked += 1;
        rest = &body[close + 3..];
    }
    assert!(
        checked >= 5,
        "expected a block per rulebook, found {checked}"
    );
}
