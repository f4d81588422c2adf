//! Names written as printed: a syntax error where bare words in a row (`Foreign Affairs`) read as
//! an enum value's words or a card's name is told with the name the rules use (`ForeignAffairs`,
//! `@border_skirmish`). The parser runs before any name is known, and a game with a syntax error
//! is not checked, so this is done here, on that error path only: the words around the error are
//! read again against the enums and cards of the files that parsed, and the enums the broken
//! file itself declares (read from its text: `enum Name { Value "words", ... }`).

use crate::ast;
use crate::diag::{Diag, Sources, Span};

/// A name the rules use, and what it is.
struct Known {
    /// Its letters and digits, lower case: `foreignaffairs`.
    key: String,
    written: String,
    what: String,
}

/// Letters and digits, lower case, as a name is compared with words.
fn key(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(|c| c.to_lowercase())
        .collect()
}

fn known_names(files: &[(u32, ast::File)]) -> Vec<Known> {
    let mut out = Vec::new();
    for item in files.iter().flat_map(|(_, f)| f.items.iter()) {
        match item {
            ast::Item::Enum(e) => {
                for (i, v) in e.variants.iter().enumerate() {
                    let what = format!("a value of enum `{}`", e.name.node);
                    out.push(Known {
                        key: key(&v.node),
                        written: v.node.clone(),
                        what: what.clone(),
                    });
                    if let Some(Some(shown)) = e.shown.get(i) {
                        out.push(Known {
                            key: key(shown),
                            written: v.node.clone(),
                            what,
                        });
                    }
                }
            }
            ast::Item::Card(c) => {
                let name = c.fields.iter().find_map(|(f, e)| match &e.kind {
                    ast::ExprKind::Text(parts) if f.node == "name" => match parts.as_slice() {
                        [ast::StrPart::Text(s)] => Some(s.clone()),
                        _ => None,
                    },
                    _ => None,
                });
                if let Some(name) = name {
                    out.push(Known {
                        key: key(&name),
                        written: format!("@{}", c.id.node),
                        what: format!("the {} card named \"{name}\"", c.kind.node),
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// The enums declared in a text that did not parse, read from the text: `enum Name {` at the
/// start of a line, then up to its `}` each value's name and the words in quotes after it.
fn enums_in_text(text: &str) -> Vec<Known> {
    let mut out = Vec::new();
    for line_at in std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)) {
        let Some(rest) = text
            .get(line_at..)
            .map(|t| t.trim_start_matches([' ', '\t']))
        else {
            continue;
        };
        let Some(rest) = rest.strip_prefix("enum ") else {
            continue;
        };
        let Some((name, body)) = rest.split_once('{') else {
            continue;
        };
        let name = name.trim();
        let Some((body, _)) = body.split_once('}') else {
            continue;
        };
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        for entry in body.split(',') {
            let entry = entry
                .lines()
                .map(|l| l.split('#').next().unwrap_or(""))
                .collect::<Vec<_>>()
                .join(" ");
            let entry = entry.trim();
            let (variant, shown) = match entry.split_once('"') {
                Some((v, s)) => (v.trim(), s.split('"').next()),
                None => (entry, None),
            };
            if variant.is_empty() || !variant.chars().all(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let what = format!("a value of enum `{name}`");
            for k in std::iter::once(variant).chain(shown) {
                out.push(Known {
                    key: key(k),
                    written: variant.to_string(),
                    what: what.clone(),
                });
            }
        }
    }
    out
}

/// The bare words on one line around byte `at` (each separated from the next by spaces only),
/// as byte ranges, and which of them holds `at` (or the first word after it, or else the last
/// word before it).
fn words_around(text: &str, at: usize) -> Option<(Vec<(usize, usize)>, usize)> {
    let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let bytes = text.as_bytes();
    let mut p = at.min(bytes.len());
    while p < bytes.len() && matches!(bytes[p], b' ' | b'\t') {
        p += 1;
    }
    if !bytes.get(p).is_some_and(|&b| is_word(b)) {
        // Where the parser stopped after the words (`Lesser Tech }`): the word before.
        p = at.min(bytes.len());
        while p > 0 && matches!(bytes[p - 1], b' ' | b'\t') {
            p -= 1;
        }
        if p == 0 || !is_word(bytes[p - 1]) {
            return None;
        }
        p -= 1;
    }
    let word_at = |mut s: usize| {
        while s > 0 && is_word(bytes[s - 1]) {
            s -= 1;
        }
        let mut e = s;
        while e < bytes.len() && is_word(bytes[e]) {
            e += 1;
        }
        (s, e)
    };
    let here = word_at(p);
    let mut words = vec![here];
    // Back: words before, spaces between.
    let mut s = here.0;
    while words.len() < 6 {
        let mut q = s;
        while q > 0 && matches!(bytes[q - 1], b' ' | b'\t') {
            q -= 1;
        }
        if q == s || q == 0 || !is_word(bytes[q - 1]) || bytes.get(q.wrapping_sub(1)) == Some(&b'.')
        {
            break;
        }
        let w = word_at(q - 1);
        if w.0 > 0 && matches!(bytes[w.0 - 1], b'.' | b'@') {
            break;
        }
        words.insert(0, w);
        s = w.0;
    }
    let index = words.len() - 1;
    let mut e = here.1;
    while words.len() < 12 {
        let mut q = e;
        while q < bytes.len() && matches!(bytes[q], b' ' | b'\t') {
            q += 1;
        }
        if q == e || !bytes.get(q).is_some_and(|&b| is_word(b)) {
            break;
        }
        let w = word_at(q);
        words.push(w);
        e = w.1;
    }
    Some((words, index))
}

/// Each syntax error whose words read as a name the rules know, told with that name.
pub(super) fn name_printed_words(
    diags: &mut [Diag],
    files: &[(u32, ast::File)],
    sources: &Sources,
) {
    let mut known: Option<Vec<Known>> = None;
    for d in diags.iter_mut().filter(|d| d.code == "parse::syntax") {
        let Some(span) = d.primary_span() else {
            continue;
        };
        let Some(text) = sources.get(span.file).map(|f| f.text.clone()) else {
            continue;
        };
        let Some((words, here)) = words_around(&text, span.start as usize) else {
            continue;
        };
        let known = known.get_or_insert_with(|| known_names(files));
        // And those of the file that did not parse.
        let mine = enums_in_text(&text);
        // The longest run of two or more words, the one at the error among them, that is a name.
        let mut best: Option<(usize, usize, &Known)> = None;
        for i in 0..=here {
            for j in here.max(i + 1)..words.len() {
                let (Some(a), Some(b)) = (words.get(i), words.get(j)) else {
                    continue;
                };
                let k = key(text.get(a.0..b.1).unwrap_or(""));
                let longer = best.is_none_or(|(x, y, _)| j - i > y - x);
                let name = known.iter().chain(mine.iter()).find(|n| n.key == k);
                if let Some(n) = name.filter(|_| longer) {
                    best = Some((i, j, n));
                }
            }
        }
        let Some((i, j, name)) = best else {
            continue;
        };
        let (Some(a), Some(b)) = (words.get(i), words.get(j)) else {
            continue;
        };
        let written = text.get(a.0..b.1).unwrap_or("");
        *d = Diag::error(
            "parse::syntax",
            format!(
                "syntax error: `{written}` is written as printed; the rules write `{}`",
                name.written
            ),
        )
        .label(
            Span::new(span.file, a.0, b.1),
            format!("write `{}`", name.written),
        )
        .help(if name.written.starts_with('@') {
            format!(
                "the rules name a card by its id after `@`: `{}` is {}",
                name.written, name.what
            )
        } else {
            format!(
                "`{}` is {}, which players read as \"{written}\"; in the rules a name is one word",
                name.written, name.what
            )
        });
    }
}
