//! The diagnostics: one per text (or write), naming the read hidden from some who see it.

use super::*;

impl Checker {
    pub(super) fn secret_diag(&self, f: &Found) -> Diag {
        if f.sink == Sink::Asked {
            return self.asked_diag(f);
        }
        if matches!(f.sink, Sink::Stored(_) | Sink::StoredField(_)) {
            return self.stored_diag(f);
        }
        let src = &self.prog.sources;
        let text = src.text_of(f.read);
        let read = if text.is_empty() || text.len() > 60 || text.contains('\n') {
            "a hidden value".to_string()
        } else {
            format!("`{text}`")
        };
        let who = if f.nobody {
            "which not every player may read"
        } else {
            "which only one player may read"
        };
        // The read gets a label of its own when it is near the text (a far one would draw every
        // line between them); else the message says where it is.
        let (l1, l2) = (src.line_col(f.at).0, src.line_col(f.read).0);
        let near = f.read.file == f.at.file && l1.abs_diff(l2) <= 8;
        let (read, far) = if near || f.read == Span::default() {
            (read, None)
        } else {
            let file = src
                .get(f.read.file)
                .map(|x| x.name.clone())
                .unwrap_or_default();
            (
                format!("{read} ({file}:{l2})"),
                Some(format!("{text} is read at {file}:{l2}")),
            )
        };
        let seen = match f.viewers {
            _ if f.sink == Sink::Face => "printed for every player",
            Viewers::Everyone => "shown to every player",
            Viewers::One(_) => "shown to the chooser",
        };
        let inside =
            f.read.file == f.at.file && f.read.start >= f.at.start && f.read.end <= f.at.end;
        let mut main = String::new();
        let mut d = match f.sink {
            Sink::Write(_) | Sink::WriteField(_) => {
                let name = match f.sink {
                    Sink::Write(id) => self.prog.vars.get(id as usize).map(|v| v.name.clone()),
                    Sink::WriteField(sym) => self.prog.symbols.get(sym as usize).cloned(),
                    _ => None,
                }
                .unwrap_or_default();
                let readers = match f.viewers {
                    Viewers::Everyone => "every player reads",
                    Viewers::One(_) => "another player may read",
                };
                Diag::error(
                    "check::secret_written",
                    format!("an answer given in secret is written to `{name}`, which {readers}"),
                )
                .with_main(&mut main, format!("`{name}` is not secret from the others"))
                .help(if matches!(f.sink, Sink::Write(_)) {
                    format!(
                        "keep the answer in a local until every answer is in, or declare `{name}` \
                         `owner` (keyed by the player), so that only its player reads it until \
                         the rules tell it"
                    )
                } else {
                    format!(
                        "`{name}` is a field of a card the others see: keep the answer in a local \
                         until every answer is in, or in an `owner` var"
                    )
                })
            }
            Sink::Say => Diag::warning(
                "check::hidden_said",
                format!("this line is said to every player, but it shows {read}, {who}"),
            )
            .with_main(&mut main, "said to every player".into())
            .help(
                "read it inside the braces instead (a `say` shows a var or a card's field as \
                 `(hidden)` to whoever may not read it); if the rules mean to announce it here, \
                 acknowledge it with `allow check::hidden_said \"why\"`",
            ),
            sink => {
                let (what, verb) = match sink {
                    Sink::Prompt => ("this prompt is", "it reads"),
                    Sink::Label => ("these labels are", "they read"),
                    Sink::Face => ("this part of the card's face is", "it reads"),
                    _ => ("these notes are", "they read"),
                };
                let help = match (sink, f.viewers) {
                    (Sink::Face, _) => {
                        "a face is printed on the card, for every player to read: show the \
                         card's own fields, not a var"
                    }
                    (Sink::Note, _) | (_, Viewers::One(_)) => {
                        "the chooser may not read it: leave it out, or show only what the chooser \
                         may read (their own vars and cards, public ones)"
                    }
                    _ => {
                        "ask inside `secretly { }`, where only the chooser sees the question, or \
                         show the value on the game's `screen`, which each seat reads as it may"
                    }
                };
                if f.var {
                    Diag::error(
                        "check::hidden_shown",
                        format!("{what} {seen}, but {verb} {read}, {who}"),
                    )
                    .with_main(&mut main, seen.into())
                    .help(help)
                } else {
                    // What a player knows of a card changes as the game goes, and a secret
                    // answer is the rules' to tell: they may be known by the time the text is
                    // read, which the checker cannot tell.
                    Diag::warning(
                        "check::unknown_shown",
                        format!(
                            "{what} {seen}, but {verb} {read}, a card or a secret answer that not \
                             every one of them may know"
                        ),
                    )
                    .with_main(&mut main, seen.into())
                    .help(format!(
                        "{help}; if it is known to them by then (revealed, face up on the table, \
                         or told once every answer is in), acknowledge it with \
                         `allow check::unknown_shown \"why\"`"
                    ))
                }
            }
        };
        let what = match f.sink {
            Sink::Write(_) | Sink::WriteField(_) => "answered inside `secretly` here",
            _ => "hidden from some who see it",
        };
        if inside && far.is_none() {
            // One label where the secret is read, inside the text it is shown in.
            let text = match f.sink {
                Sink::Write(_) | Sink::WriteField(_) => format!("answered in secret here; {main}"),
                _ => format!("read here, {main}"),
            };
            d = d.label(f.read, text);
        } else {
            d = d.label(f.at, main);
            if far.is_none() && f.read != Span::default() {
                d = d.label(f.read, what);
            }
        }
        d
    }
}

impl Checker {
    /// `check::hidden_asked`: whether a choice is asked (or a call asks one) depends on what
    /// some player may not read, and every player sees who is asked.
    fn asked_diag(&self, f: &Found) -> Diag {
        let src = &self.prog.sources;
        let short = |at: Span| {
            let t = src.text_of(at);
            (!t.is_empty() && t.len() <= 60 && !t.contains('\n')).then(|| format!("`{t}`"))
        };
        // A long read (a choice's answer) by its start.
        let read = short(f.read).unwrap_or_else(|| {
            let t = src.text_of(f.read);
            let head: String = t
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .chars()
                .take(40)
                .collect();
            if head.is_empty() {
                "a hidden value".to_string()
            } else {
                format!("`{head}...`")
            }
        });
        let (read, who, far) = self.hidden_read(f, read);
        let (message, main) = match f.who {
            Some(p) => (
                format!(
                    "whether {} is asked here depends on {read}, {who}: the table sees who is \
                     asked",
                    short(p).unwrap_or_else(|| "the player".to_string())
                ),
                "every player sees whether this is asked",
            ),
            None => (
                format!(
                    "this call asks a player to choose, and whether it does depends on {read}, \
                     {who}: the table sees who is asked"
                ),
                "every player sees whether this call asks",
            ),
        };
        let mut d = Diag::warning("check::hidden_asked", message).help(
            "ask every such player inside `secretly`, giving those without a choice a single \
             option such as `[none]` (`choose(p, if len(l) > 0 { l } else { [none] })`), so \
             that being asked tells nothing; if the table may know it, acknowledge it with \
             `allow check::hidden_asked \"why\"`",
        );
        // A read inside the choice (its options) gets the one label (miette draws labels
        // inside labels apart).
        let inside =
            f.read.file == f.at.file && f.read.start >= f.at.start && f.read.end <= f.at.end;
        if inside && !far {
            d = d.label(
                f.read,
                "hidden from some players, and every player sees whether this choice is asked",
            );
        } else {
            d = d.label(f.at, main);
            if !far {
                d = d.label(f.read, "hidden from some players");
            }
        }
        d
    }
}

impl Checker {
    /// `check::hidden_stored`: a var (or a card's `var` field) that players read is written
    /// with a value, at an entry or under conditions that read what some of them may not.
    fn stored_diag(&self, f: &Found) -> Diag {
        let src = &self.prog.sources;
        let name = match f.sink {
            Sink::Stored(id) => self.prog.vars.get(id as usize).map(|v| v.name.clone()),
            Sink::StoredField(sym) => self.prog.symbols.get(sym as usize).cloned(),
            _ => None,
        }
        .unwrap_or_default();
        let text = src.text_of(f.read);
        let read = if text.is_empty() || text.len() > 60 || text.contains('\n') {
            "a hidden value".to_string()
        } else {
            format!("`{text}`")
        };
        let (read, who, far) = self.hidden_read(f, read);
        let (readers, field) = match (f.sink, f.viewers) {
            (Sink::StoredField(_), _) => ("whoever sees the card", true),
            (_, Viewers::Everyone) => ("every player", false),
            (_, Viewers::One(_)) => ("its player", false),
        };
        let (written, main) = match f.who {
            // A call that writes inside: the write named by its place.
            Some(w) => {
                // Named by the function that writes it (not by its line: the message stays the
                // same when the file is laid out again).
                let inside = |b: Span| b.file == w.file && b.start <= w.start && w.end <= b.end;
                let by = self
                    .prog
                    .fns
                    .iter()
                    .filter(|fd| inside(fd.body.span))
                    .min_by_key(|fd| fd.body.span.end.saturating_sub(fd.body.span.start))
                    .map(|fd| format!(" (in `{}`)", fd.name))
                    .unwrap_or_default();
                (
                    format!("this call writes `{name}`{by}"),
                    format!("this call writes `{name}`, which {readers} reads"),
                )
            }
            None => (
                format!("`{name}` is written here"),
                format!("{readers} reads `{name}`"),
            ),
        };
        let mut d = Diag::warning(
            "check::hidden_stored",
            format!(
                "{written}, and {readers} reads it, but what is written, or whether it is, \
                 depends on {read}, {who}"
            ),
        )
        .help(if field {
            format!(
                "keep what depends on the secret in a var its holder alone reads (`owner`) \
                 rather than in `{name}`; if the table may know it, acknowledge it with \
                 `allow check::hidden_stored \"why\"`"
            )
        } else {
            format!(
                "declare `{name}` `owner` (keyed by the player) or `hidden`, and tell it when the \
                 rules reveal it; if the table may know it, acknowledge it with \
                 `allow check::hidden_stored \"why\"`"
            )
        });
        let inside =
            f.read.file == f.at.file && f.read.start >= f.at.start && f.read.end <= f.at.end;
        if inside && !far {
            d = d.label(f.read, format!("hidden from some who read `{name}`"));
        } else {
            d = d.label(f.at, main);
            if !far {
                d = d.label(f.read, "hidden from some of them");
            }
        }
        d
    }
}

impl Checker {
    /// The hidden read of a choice asked or a var written, as the message names it (`read`, with
    /// its place when it is far from the choice or write), who may not read it, and whether it
    /// is far (then it gets no label of its own).
    fn hidden_read(&self, f: &Found, read: String) -> (String, String, bool) {
        let src = &self.prog.sources;
        // A var is read; a card (or a secret answer) is known, as the game goes.
        let verb = if f.var { "read" } else { "know" };
        let who = if f.nobody {
            format!("which not every player may {verb}")
        } else {
            format!("which other players may not {verb}")
        };
        let (l1, l2) = (src.line_col(f.at).0, src.line_col(f.read).0);
        let near = f.read.file == f.at.file && l1.abs_diff(l2) <= 8;
        let far = !(near || f.read == Span::default());
        let read = if far {
            let file = src
                .get(f.read.file)
                .map(|x| x.name.clone())
                .unwrap_or_default();
            format!("{read} ({file}:{l2})")
        } else {
            read
        };
        (read, who, far)
    }
}

/// The main label's text, kept until it is known where it goes.
trait WithMain {
    fn with_main(self, main: &mut String, text: String) -> Self;
}

impl WithMain for Diag {
    fn with_main(self, main: &mut String, text: String) -> Self {
        *main = text;
        self
    }
}
