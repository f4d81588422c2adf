//! Names for Tab completion: every name the game declares, and what `:show` can show.

use super::commands::COMMANDS;
use super::Repl;

impl Repl {
    /// What `:show` can show: zones, vars, players and cards (`@id`).
    pub fn show_words(&self) -> Vec<String> {
        let prog = &self.session.prog;
        let mut w: Vec<String> = prog.zones.iter().map(|z| z.name.clone()).collect();
        w.extend(prog.vars.iter().map(|v| v.name.clone()));
        w.extend(prog.cards.iter().map(|c| format!("@{}", c.id)));
        w.extend((1..=self.session.players).map(|p| format!("P{p}")));
        w.sort();
        w.dedup();
        w
    }

    /// Names for tab completion.
    pub fn words(&self) -> Vec<String> {
        let prog = &self.session.prog;
        let mut w: Vec<String> = COMMANDS.iter().map(|s| s.to_string()).collect();
        w.extend(prog.zones.iter().map(|z| z.name.clone()));
        w.extend(prog.vars.iter().map(|v| v.name.clone()));
        w.extend(prog.fns.iter().map(|f| f.name.clone()));
        w.extend(prog.enums.iter().flat_map(|e| e.variants.iter().cloned()));
        w.extend(prog.kinds.iter().map(|k| k.name.clone()));
        w.extend(prog.cards.iter().map(|c| format!("@{}", c.id)));
        w.extend((1..=self.session.players).map(|p| format!("P{p}")));
        w.extend(
            ["phase", "round", "end", "all", "human", "random", "first"]
                .iter()
                .map(|s| s.to_string()),
        );
        w.sort();
        w.dedup();
        w
    }
}

/// Tab completion of the word before the cursor: after `:show` only what it can show, after
/// `:agent`/`:as` players (then agents), after `:step` and `:auto` their words, else every name.
pub fn complete(
    upto: &str,
    words: &[String],
    show_words: &[String],
    players: u32,
) -> (usize, Vec<String>) {
    let start = upto
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '@' || c == ':'))
        .map(|i| i + 1)
        .unwrap_or(0);
    let word = upto.get(start..).unwrap_or("");
    let before: Vec<&str> = upto.get(..start).unwrap_or("").split_whitespace().collect();
    let seats = || (1..=players).map(|p| format!("P{p}"));
    let pool: Vec<String> = match before.as_slice() {
        [":show"] => show_words.to_vec(),
        [":as"] => seats().chain(["all".to_string()]).collect(),
        [":agent"] => seats().chain(["all".to_string()]).collect(),
        [":agent", _] => ["human", "random", "first", "mc:", "script:"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        [":step"] => vec!["phase".into(), "round".into()],
        [":auto"] => vec!["phase".into(), "round".into(), "end".into()],
        [":help" | ":log" | ":state" | ":redo" | ":reload" | ":quit" | ":choices", ..] => {
            Vec::new()
        }
        _ => words.to_vec(),
    };
    let found = pool.into_iter().filter(|w| w.starts_with(word)).collect();
    (start, found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_completes_only_what_it_can_show() {
        let words: Vec<String> = ["hand", "score", "deal", ":show"]
            .map(String::from)
            .to_vec();
        let show: Vec<String> = ["hand", "score", "@kala", "P1"].map(String::from).to_vec();
        assert_eq!(
            complete(":show h", &words, &show, 2),
            (6, vec!["hand".to_string()])
        );
        assert_eq!(
            complete(":show @k", &words, &show, 2).1,
            vec!["@kala".to_string()]
        );
        assert_eq!(complete("de", &words, &show, 2).1, vec!["deal".to_string()]);
        assert_eq!(
            complete(":agent P2 r", &words, &show, 2).1,
            vec!["random".to_string()]
        );
        assert_eq!(
            complete(":as ", &words, &show, 2).1,
            vec!["P1".to_string(), "P2".to_string(), "all".to_string()]
        );
    }
}
