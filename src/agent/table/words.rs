//! What a person types and reads at the terminal: an answer matched to an option
//! (`match_answer`), and a question's lines within the page (`question_lines`).

use crate::interp::ChoiceRequest;

/// Where a yes/no question's answers are, when the options are `true` and `false` (a choice of
/// a bool; a forced one has one of them): (yes, no).
pub(super) fn yes_no(
    count: usize,
    label: &dyn Fn(usize) -> String,
) -> Option<(Option<usize>, Option<usize>)> {
    if !(1..=2).contains(&count) {
        return None;
    }
    let (mut yes, mut no) = (None, None);
    for i in 0..count {
        match label(i).as_str() {
            "true" if yes.is_none() => yes = Some(i),
            "false" if no.is_none() => no = Some(i),
            _ => return None,
        }
    }
    Some((yes, no))
}

/// An answer as a person reads it: a bool as yes or no, anything else as it is.
pub(super) fn in_words(answer: String) -> String {
    match answer.as_str() {
        "true" => "yes".into(),
        "false" => "no".into(),
        _ => answer,
    }
}

/// An entry of a split typed in one line with the lines named: `M B 2` (Military vs Faction B).
#[derive(Debug, PartialEq)]
pub(super) struct Named {
    words: Vec<String>,
    pub amount: i64,
    pub text: String,
    pub used: bool,
}

/// A split typed as named lines, `M B 2, M C 7, R 1`: each entry some words and an amount,
/// at least one with words (a line of amounts alone is the lines in order).
pub(super) fn named_entries(line: &str) -> Option<Vec<Named>> {
    let entries: Vec<Named> = line
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|e| {
            let (name, amount) = e.rsplit_once(char::is_whitespace)?;
            Some(Named {
                words: words_of(name),
                amount: amount.parse().ok()?,
                text: e.to_string(),
                used: false,
            })
        })
        .collect::<Option<_>>()?;
    let worded = |e: &Named| e.words.iter().any(|w| w.chars().any(char::is_alphabetic));
    let named = !entries.is_empty() && entries.iter().all(worded);
    named.then_some(entries)
}

/// The line of a split a question asks for (`Military vs Faction B`), as the interpreter
/// tells it (`ChoiceRequest::split`: the split's labels and the lines given so far), never read
/// back out of the prompt's wording.
pub(super) fn split_category<'a>(req: &ChoiceRequest<'a>) -> Option<&'a str> {
    let sp = req.split?;
    sp.labels.get(sp.given.len()).map(String::as_str)
}

/// The amount `entries` give the line `category`: the first entry not used yet that names it
/// (its first word begins the line's first word, its other words begin later words, in
/// order), else 0.
pub(super) fn named_amount(entries: &mut [Named], category: &str) -> i64 {
    let cat = words_of(category);
    let names = |e: &Named| {
        let (Some(first), Some(head)) = (e.words.first(), cat.first()) else {
            return false;
        };
        let mut rest = cat.iter().skip(1);
        head.starts_with(first.as_str())
            && e.words
                .iter()
                .skip(1)
                .all(|w| rest.any(|c| c.starts_with(w.as_str())))
    };
    match entries.iter_mut().find(|e| !e.used && names(e)) {
        Some(e) => {
            e.used = true;
            e.amount
        }
        None => 0,
    }
}

/// The whole numbers the options are, when every option is one.
fn amounts(count: usize, label: &dyn Fn(usize) -> String) -> Option<Vec<i64>> {
    (0..count).map(|i| label(i).trim().parse().ok()).collect()
}

/// `0-5, 7, 9-12`: numbers in runs.
fn number_runs(ns: &[i64]) -> String {
    let runs = ns.chunk_by(|a, b| a.checked_add(1) == Some(*b));
    runs.map(|run| match run {
        [one] => one.to_string(),
        [first, .., last] => format!("{first}-{last}"),
        [] => String::new(),
    })
    .collect::<Vec<_>>()
    .join(", ")
}

/// The words of a text as a person types them: letters and digits, without case.
fn words_of(t: &str) -> Vec<String> {
    t.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether every word of `typed` is found in `words`, in the same order.
fn in_order(typed: &[String], words: &[String]) -> bool {
    let mut rest = words.iter();
    !typed.is_empty() && typed.iter().all(|w| rest.any(|x| x == w))
}

/// Text compared as a person types it: no case, no spaces.
fn squash(t: &str) -> String {
    t.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The option a person's answer names: `#3` is the third option; a number is that amount when
/// the options are amounts, else the option with that number; otherwise an option's text, a
/// beginning only one option has, or else a part of only one option's text (case and spaces do
/// not matter).
pub fn match_answer(
    t: &str,
    count: usize,
    label: &dyn Fn(usize) -> String,
) -> Result<usize, String> {
    let t = t.trim();
    let numbered = |n: &str| -> Result<usize, String> {
        match n.trim().parse::<usize>() {
            Ok(n) if n >= 1 && n <= count => Ok(n - 1),
            _ => Err(format!(
                "`{t}` is not an option; the options are #1 to #{count}"
            )),
        }
    };
    if t.is_empty() {
        return Err(format!(
            "type a number from 1 to {count}, or an option's name"
        ));
    }
    if let Some(n) = t.strip_prefix('#') {
        return numbered(n);
    }
    if let Some((yes, no)) = yes_no(count, label) {
        let (want, word) = match t.to_lowercase().as_str() {
            "y" | "yes" | "true" => (yes, "yes"),
            "n" | "no" | "false" => (no, "no"),
            _ if t.parse::<usize>().is_ok() => return numbered(t),
            _ => return Err(format!("`{t}` is no answer here; type yes or no")),
        };
        return want.ok_or_else(|| format!("`{word}` is not an answer you may give here"));
    }
    if let Ok(n) = t.parse::<i64>() {
        if let Some(ns) = amounts(count, label) {
            return ns.iter().position(|&x| x == n).ok_or_else(|| {
                format!(
                    "{n} is not one of the amounts you may choose: {}",
                    number_runs(&ns)
                )
            });
        }
        return numbered(t)
            .map_err(|_| format!("`{t}` is not an option; type a number from 1 to {count}"));
    }
    let want = squash(t);
    let labels: Vec<String> = (0..count).map(|i| squash(&label(i))).collect();
    if let Some(i) = labels.iter().position(|l| *l == want) {
        return Ok(i);
    }
    let with = |found: &dyn Fn(&str) -> bool| -> Vec<usize> {
        (0..labels.len())
            .filter(|&i| labels.get(i).is_some_and(|l| found(l)))
            .collect()
    };
    // A beginning only one option has; else a part of one option's text only.
    let mut starts = with(&|l: &str| l.starts_with(&want));
    if starts.is_empty() {
        starts = with(&|l: &str| l.contains(&want));
    }
    if starts.is_empty() {
        // Words of the option in their order, some left out: `ilya on row 1 right` for
        // `Ilya Brandt (Law 2) on row 1, Right`.
        let typed = words_of(t);
        starts = (0..count)
            .filter(|&i| in_order(&typed, &words_of(&label(i))))
            .collect();
    }
    match starts.as_slice() {
        [i] => Ok(*i),
        [] => Err(format!(
            "no option is `{t}`; type a number from 1 to {count}, or an option's name"
        )),
        many => Err(format!(
            "`{t}` could be {}; type more of it, or the number",
            many.iter()
                .take(5)
                .map(|&i| format!("{}) {}", i + 1, label(i)))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// `text` in lines of at most `width` characters, broken at spaces where it can be.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(10);
    // The text's own indent starts every line.
    let body = text.trim_start_matches(' ');
    let indent = " ".repeat((text.len() - body.len()).min(width / 2));
    let mut lines = Vec::new();
    let mut cur = indent.clone();
    for word in body.split(' ') {
        let len = cur.chars().count();
        let blank = cur.trim().is_empty();
        if !blank && len + 1 + word.chars().count() > width {
            lines.push(std::mem::replace(&mut cur, indent.clone()));
        }
        if !cur.trim().is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
        // A word longer than the line is cut where the line ends.
        while cur.chars().count() > width {
            let head: String = cur.chars().take(width).collect();
            let tail: String = cur.chars().skip(width).collect();
            lines.push(head);
            cur = tail;
        }
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

/// The question's lines: the prompt, then the options (amounts as their runs; many short
/// options in columns; a long one over several lines), all within `cols` columns.
pub(super) fn question_lines(
    req: &ChoiceRequest,
    label: &dyn Fn(usize) -> String,
    cols: usize,
) -> (Vec<String>, String) {
    let cols = cols.max(30);
    let head = format!(
        "{}: {}{}",
        req.player_name,
        req.prompt,
        if req.secret { " (secret)" } else { "" }
    );
    let mut lines = wrap(&head, cols);
    if let Some((yes, no)) = yes_no(req.count, label) {
        let ask = match (yes, no) {
            (Some(_), Some(_)) => "choose yes or no> ",
            (Some(_), None) => {
                lines.push("    (the only answer: yes)".into());
                "choose yes> "
            }
            _ => {
                lines.push("    (the only answer: no)".into());
                "choose no> "
            }
        };
        return (lines, ask.into());
    }
    if let Some(ns) = amounts(req.count, label) {
        let runs = number_runs(&ns);
        lines.extend(wrap(&format!("    an amount: {runs}"), cols));
        if let Some(left) = req.allocation.filter(|l| *l > 2 && req.count > 1) {
            let further = left - 2;
            lines.extend(wrap(
                &format!(
                    "    (or several in a row: this line and up to {further} after it, like \"3 0 2\")"
                ),
                cols,
            ));
            // Lines named by the start of their words: this one's capitals, `M F B 2`.
            if let Some(cat) = split_category(req) {
                let initials: Vec<String> = cat
                    .split_whitespace()
                    .filter_map(|w| w.chars().next().filter(|c| c.is_uppercase()))
                    .map(String::from)
                    .collect();
                if !initials.is_empty() {
                    lines.extend(wrap(
                        &format!(
                            "    (or by name, the others 0: \"{} 2, ...\" for {cat})",
                            initials.join(" ")
                        ),
                        cols,
                    ));
                }
            }
        }
        let ask = match (ns.first(), ns.last()) {
            (Some(a), _) if ns.len() == 1 => format!("choose {a} (Enter takes it)> "),
            (Some(a), Some(b)) if runs == format!("{a}-{b}") => format!("choose {a}-{b}> "),
            _ => "choose an amount> ".to_string(),
        };
        return (lines, ask);
    }
    let labels: Vec<String> = (0..req.count).map(label).collect();
    let widest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    // `  12) label` then two spaces before the next column.
    let cell = widest + 7;
    let across = (cols / cell.max(1)).max(1);
    let notes = req
        .notes
        .filter(|ns| ns.iter().any(|n| !n.is_empty()))
        .unwrap_or_default();
    if !notes.is_empty() {
        // Each option with what the game says beside it: on the same line when both fit,
        // else under it.
        for (i, l) in labels.iter().enumerate() {
            let note = notes.get(i).map(String::as_str).unwrap_or("");
            let both = format!("  {:>3}) {l:<widest$}  {note}", i + 1);
            if !note.is_empty() && both.chars().count() <= cols {
                lines.push(both);
                continue;
            }
            for (k, part) in wrap(l, cols - 7).into_iter().enumerate() {
                lines.push(if k == 0 {
                    format!("  {:>3}) {part}", i + 1)
                } else {
                    format!("       {part}")
                });
            }
            if !note.is_empty() {
                lines.extend(wrap(&format!("         {note}"), cols));
            }
        }
    } else if req.count > 12 && across > 1 {
        let down = req.count.div_ceil(across);
        for r in 0..down {
            let mut line = String::new();
            for c in 0..across {
                let i = c * down + r;
                if let Some(l) = labels.get(i) {
                    line.push_str(&format!("  {:>3}) {:<w$}", i + 1, l, w = widest));
                }
            }
            lines.push(line.trim_end().to_string());
        }
    } else {
        for (i, l) in labels.iter().enumerate() {
            for (k, part) in wrap(l, cols - 7).into_iter().enumerate() {
                lines.push(if k == 0 {
                    format!("  {:>3}) {part}", i + 1)
                } else {
                    format!("       {part}")
                });
            }
        }
    }
    (lines, format!("choose 1-{}> ", req.count))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(ls: &'static [&'static str]) -> impl Fn(usize) -> String {
        move |i| ls.get(i).map(|s| s.to_string()).unwrap_or_default()
    }

    #[test]
    fn a_number_is_an_amount_when_the_options_are_amounts() {
        let l = labels(&["0", "1", "2", "3"]);
        assert_eq!(match_answer("3", 4, &l), Ok(3));
        assert_eq!(match_answer("#3", 4, &l), Ok(2));
        assert!(match_answer("4", 4, &l).is_err());
        let l = labels(&["4", "5"]);
        assert_eq!(match_answer("4", 2, &l), Ok(0));
        assert_eq!(match_answer("#2", 2, &l), Ok(1));
        assert!(match_answer("#3", 2, &l).unwrap_err().contains("#1 to #2"));
    }

    #[test]
    fn an_options_words_in_order_pick_it_out() {
        let l = labels(&[
            "Ilya Brandt (Law 2) on row 1, Left",
            "Ilya Brandt (Law 2) on row 1, Right",
            "Kala (Street 1) on row 1, Right",
        ]);
        assert_eq!(match_answer("ilya brandt on row 1, right", 3, &l), Ok(1));
        assert_eq!(match_answer("kala right", 3, &l), Ok(2));
        // Words out of order, or words of two options, pick nothing.
        assert!(match_answer("right ilya", 3, &l).is_err());
        assert!(match_answer("row 1 right", 3, &l).is_err());
    }

    #[test]
    fn names_match_without_case_or_spaces() {
        let l = labels(&["Covert operation", "Infiltrate", "Influence"]);
        assert_eq!(match_answer("CovertOperation", 3, &l), Ok(0));
        assert_eq!(match_answer("covert op", 3, &l), Ok(0));
        assert_eq!(match_answer("2", 3, &l), Ok(1));
        assert!(match_answer("inf", 3, &l).unwrap_err().contains("could be"));
        let l = labels(&["a raid at dawn", "Covert operation"]);
        assert_eq!(match_answer("raid", 2, &l), Ok(0));
        assert_eq!(match_answer("operation", 2, &l), Ok(1));
        assert!(match_answer("a", 2, &l).is_ok(), "a beginning first");
        assert!(match_answer("r", 2, &l).unwrap_err().contains("could be"));
    }

    #[test]
    fn long_text_wraps_at_spaces() {
        assert_eq!(wrap("aaaa bbbb cccc", 10), vec!["aaaa bbbb", "cccc"]);
        assert_eq!(wrap("abcdefghijkl", 10), vec!["abcdefghij", "kl"]);
        assert_eq!(wrap("", 10), vec![""]);
        assert_eq!(wrap("    an amount: 0-15", 40), vec!["    an amount: 0-15"]);
        assert_eq!(wrap("  aaaa bbbb cccc", 12), vec!["  aaaa bbbb", "  cccc"]);
    }

    #[test]
    fn a_bool_is_answered_yes_or_no() {
        let l = labels(&["true", "false"]);
        for (typed, want) in [
            ("y", 0),
            ("Yes", 0),
            ("n", 1),
            ("NO", 1),
            ("true", 0),
            ("2", 1),
        ] {
            assert_eq!(match_answer(typed, 2, &l), Ok(want), "{typed}");
        }
        assert!(match_answer("maybe", 2, &l)
            .unwrap_err()
            .contains("yes or no"));
        let only_no = labels(&["false"]);
        assert_eq!(match_answer("no", 1, &only_no), Ok(0));
        assert!(match_answer("y", 1, &only_no).is_err());
        // Options that only look like it are not a yes/no question.
        assert_eq!(yes_no(2, &labels(&["true", "maybe"])), None);
        assert_eq!(yes_no(2, &labels(&["true", "true"])), None);
    }

    #[test]
    fn a_split_names_its_lines_by_the_start_of_their_words() {
        let mut es = named_entries("M B 2, m c 7, R 1").expect("named");
        assert_eq!(named_amount(&mut es, "Military vs Faction C"), 7);
        assert_eq!(named_amount(&mut es, "Foreign Affairs vs Faction B"), 0);
        assert_eq!(named_amount(&mut es, "Military vs Faction B"), 2);
        assert_eq!(named_amount(&mut es, "Research"), 1);
        assert!(es.iter().all(|e| e.used));
        // `F B` is not Military vs Faction B: the first word names the line's first word.
        let mut es = named_entries("F B 3").expect("named");
        assert_eq!(named_amount(&mut es, "Military vs Faction B"), 0);
        assert_eq!(named_amount(&mut es, "Foreign Affairs vs Faction B"), 3);
        // Amounts alone are no names; nor is an entry without an amount.
        assert_eq!(named_entries("3, 0 2"), None);
        assert_eq!(named_entries("1 1 1"), None);
        assert_eq!(named_entries("M B, R 1"), None);
    }

    #[test]
    fn amounts_read_as_runs() {
        assert_eq!(number_runs(&[0, 1, 2, 3, 5, 7, 8]), "0-3, 5, 7-8");
    }
}
