//! A secret seed, as a careful card room keeps it: where people play (`rules serve`, `rules run`
//! with a human seat) and no `--seed` was given, the seed is drawn from the operating system,
//! no seat, spectator or screen is shown it while the game goes on, and the account starts with
//! a commitment to it instead: the SHA-256 of its key, `SEED:SALT` (the salt, 128 random bits,
//! keeps the 64-bit seed from being found by hashing every seed in turn). The game's end shows
//! the key, and anyone checks it with `printf %s SEED:SALT | sha256sum`. The log keeps the seed
//! and the salt, so the game replays exactly and a resumed game shows the same commitment.

use rand::RngCore;
use sha2::{Digest, Sha256};

/// A salt's length in hex digits (128 bits).
pub const SALT_HEX: usize = 32;

/// `n` bytes from the operating system's generator, as hex digits.
pub fn os_hex(n: usize) -> std::io::Result<String> {
    let mut bytes = vec![0u8; n];
    rand::rngs::OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| std::io::Error::other(format!("the system gives no random numbers: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A fresh secret seed and its salt, from the operating system.
pub fn draw() -> Result<(u64, String), String> {
    let mut bytes = [0u8; 8];
    rand::rngs::OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| format!("the system gives no random numbers for a secret seed: {e}"))?;
    let salt = os_hex(SALT_HEX / 2).map_err(|e| e.to_string())?;
    Ok((u64::from_le_bytes(bytes), salt))
}

/// Whether `salt` is one this module draws (a log or a save may hold anything).
pub fn salt_fits(salt: &str) -> bool {
    salt.len() == SALT_HEX && salt.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The text a commitment is the hash of: `SEED:SALT`.
pub fn key(seed: u64, salt: &str) -> String {
    format!("{seed}:{salt}")
}

/// The commitment shown at the start: the SHA-256 of the key, in lowercase hex (what
/// `sha256sum` prints).
pub fn commitment(seed: u64, salt: &str) -> String {
    Sha256::digest(key(seed, salt).as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash of a known text, as `printf %s 1:0123... | sha256sum` prints it.
    #[test]
    fn the_commitment_is_the_sha256_of_the_key() {
        let salt = "00112233445566778899aabbccddeeff";
        assert_eq!(key(1, salt), "1:00112233445566778899aabbccddeeff");
        assert_eq!(
            commitment(1, salt),
            "13f9f7e956548b3d058e58d37264a456bf901bde0dc074762a44518c1172ee04"
        );
    }

    #[test]
    fn two_draws_differ() {
        let (a, sa) = draw().expect("draw");
        let (b, sb) = draw().expect("draw");
        assert!(a != b || sa != sb);
        assert!(salt_fits(&sa) && salt_fits(&sb));
        assert!(!salt_fits("xyz"));
    }
}
