//! Names as players read them, worked out from the names written in the rules.

/// An enum value's name as a player reads it: `CovertOperation` is "Covert operation",
/// `FactionA` "Faction A", `HOCMove` "HOC move" (a capital alone or a run of capitals stays).
pub fn words(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut words: Vec<String> = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
        let next = chars.get(i + 1).copied();
        let starts = match prev {
            None => false,
            Some(p) if c == '_' || p == '_' => true,
            Some(p) => {
                c.is_uppercase()
                    && (p.is_lowercase()
                        || p.is_ascii_digit()
                        || (p.is_uppercase() && next.is_some_and(char::is_lowercase)))
            }
        };
        if starts && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        if c != '_' {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    let mut out = String::with_capacity(name.len() + words.len());
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
            // A word of one capital or of capitals only (`A`, `HOC`) keeps them.
            if w.chars().skip(1).any(char::is_lowercase) {
                out.extend(w.chars().flat_map(char::to_lowercase));
                continue;
            }
        }
        out.push_str(w);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn enum_names_read_as_words() {
        for (name, want) in [
            ("CovertOperation", "Covert operation"),
            ("InnerLeft", "Inner left"),
            ("FactionA", "Faction A"),
            ("HOCMove", "HOC move"),
            ("Left", "Left"),
            ("UN", "UN"),
            ("deep_state", "deep state"),
            ("Level2Boss", "Level2 boss"),
        ] {
            assert_eq!(words(name), want, "{name}");
        }
    }
}
