//! The links' tokens: 128 bits each from the operating system's generator (never the game's,
//! whose seed `--seed` makes public and the end of a game shows), one per seat and one for
//! spectators, kept beside the log in a file only its owner may read (`files::write_private`),
//! so `--resume` gives everyone the same links.

use std::path::Path;

/// A token's length in hex digits (128 bits).
const HEX: usize = 32;

fn token() -> Result<String, String> {
    crate::seed::os_hex(HEX / 2).map_err(|e| format!("cannot make the links: {e}"))
}

/// One token per seat, then the spectators'.
pub fn fresh(players: u32) -> Result<Vec<String>, String> {
    (0..=players).map(|_| token()).collect()
}

/// Write the tokens beside `log` (`LOG.tokens`), readable and writable by the owner only.
pub fn store(log: &Path, tokens: &[String]) -> Result<(), String> {
    let path = super::tokens_path(log);
    let text = tokens.join("\n") + "\n";
    crate::files::write_private(&path, text.as_bytes())
        .map_err(|e| format!("cannot write the links' tokens `{}`: {e}", path.display()))
}

/// Read the tokens kept beside `log`: one per seat and the spectators', each 32 hex digits, not
/// all zeros, and no two alike (a repeated token would let one link open another's seat: P2's,
/// or the spectators', P1's).
pub fn load(log: &Path, players: u32) -> Result<Vec<String>, String> {
    let path = super::tokens_path(log);
    let text = crate::files::read_text(&path, 64 * 1024)
        .map_err(|e| format!("cannot read the links' tokens `{}`: {e}", path.display()))?;
    let tokens: Vec<String> = text.lines().map(|l| l.trim().to_string()).collect();
    let fits = tokens.len() == players as usize + 1
        && tokens
            .iter()
            .all(|t| t.len() == HEX && t.bytes().all(|b| b.is_ascii_hexdigit()));
    if !fits {
        return Err(format!(
            "`{}` does not hold {} tokens of {HEX} hex digits, one per line",
            path.display(),
            u64::from(players) + 1
        ));
    }
    if let Some(k) = tokens.iter().position(|t| t.bytes().all(|b| b == b'0')) {
        return Err(format!(
            "`{}`: token {} is all zeros, a link anyone could guess; write a new one (`openssl rand -hex 16`)",
            path.display(),
            k + 1
        ));
    }
    for (k, t) in tokens.iter().enumerate() {
        if let Some(j) = tokens
            .iter()
            .take(k)
            .position(|u| u.eq_ignore_ascii_case(t))
        {
            return Err(format!(
                "`{}`: tokens {} and {} are the same, so one link would open the other's seat; \
                 give each its own (`openssl rand -hex 16`)",
                path.display(),
                j + 1,
                k + 1
            ));
        }
    }
    Ok(tokens)
}
