//! Shards (`rules simulate --shard i/n --json FILE`) and putting them back together
//! (`rules simulate merge`). A shard file says what was played (the game's digest, players,
//! agents, options, the run's first seed and games, which slice it is and its seeds) and holds
//! its games with a digest of them. Merging takes a file only when it is one of the slices of the
//! same run as the others, every slice once, holding exactly its own seeds' games unaltered; each
//! refusal names the file. The files are read twice, one at a time (first checked, then counted
//! in seed order), so a merge holds one shard at a time.
//!
//! The digests are FNV-1a (64 bits): they catch shards of other games or settings, damaged or
//! edited results and mixed-up files, not a forgery made on purpose.

use super::tally::Tally;
use super::{GameResult, Plan};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const SHARD_FORMAT: u32 = 2;

/// The partial results of one shard: the run's parameters, which slice of its seeds this is,
/// and the games, for `rules simulate merge`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Shard {
    pub format: u32,
    /// The game as it was named, and the digest of its text (every file it loaded, in order).
    pub game: String,
    pub game_digest: String,
    pub players: u32,
    pub agent: String,
    pub options: Vec<String>,
    /// The whole run: its first seed and its games.
    pub first_seed: u64,
    pub games: u64,
    /// 1-based index and count.
    pub shard: (u64, u64),
    /// This slice: its first seed and how many games it plays.
    pub seeds: (u64, u64),
    pub results: Vec<GameResult>,
    /// The digest of `results` (`Digest::result`, in order).
    pub results_digest: String,
}

/// The seeds' slice of shard `i` of `n` (1-based): contiguous, the first ones one longer when
/// the games do not divide evenly. Returns (offset from the first seed, games); `None` when `i`
/// is not a shard of `n`.
pub fn shard_range(games: u64, i: u64, n: u64) -> Option<(u64, u64)> {
    if i == 0 || i > n {
        return None;
    }
    let (base, extra) = (games / n, games % n);
    let k = i - 1;
    let start = k.checked_mul(base)?.checked_add(k.min(extra))?;
    let len = base + u64::from(k < extra);
    Some((start, len))
}

/// FNV-1a, 64 bits.
#[derive(Clone, Copy)]
pub struct Digest(u64);

impl Default for Digest {
    fn default() -> Self {
        Digest(0xcbf2_9ce4_8422_2325)
    }
}

impl Digest {
    pub fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= u64::from(x);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// A piece of text, length first, so pieces cannot run into each other.
    pub fn text(&mut self, t: &str) {
        self.bytes(&(t.len() as u64).to_le_bytes());
        self.bytes(t.as_bytes());
    }

    /// One game's result, as its JSON.
    pub fn result(&mut self, r: &GameResult) {
        self.text(&serde_json::to_string(r).unwrap_or_default());
    }

    pub fn value(&self) -> u64 {
        self.0
    }

    pub fn hex(&self) -> String {
        format!("fnv1a64:{:016x}", self.0)
    }
}

/// The digest of a game's text: every file it loaded (the library's included), in order.
pub fn game_digest(sources: &crate::diag::Sources) -> String {
    let mut d = Digest::default();
    for f in &sources.files {
        d.text(&f.text);
    }
    d.hex()
}

/// Writes a shard file as its games come, to `FILE.partial`, renamed to `FILE` once complete:
/// an interrupted or failed shard leaves no file that looks whole. A FIFO or device named as
/// `FILE` is written in place, never replaced; a folder is refused (`files::open_report`).
pub struct ShardWriter {
    path: PathBuf,
    out: crate::files::ReportFile,
    digest: Digest,
    count: u64,
}

/// The fields of a shard file before its games.
#[derive(Serialize)]
struct Header<'a> {
    format: u32,
    game: &'a str,
    game_digest: &'a str,
    players: u32,
    agent: &'a str,
    options: &'a [String],
    first_seed: u64,
    games: u64,
    shard: (u64, u64),
    seeds: (u64, u64),
}

fn cannot(path: &Path, e: impl std::fmt::Display) -> String {
    format!("cannot write `{}`: {e}", path.display())
}

impl ShardWriter {
    /// Start shard `shard` of the run `plan` (its whole run: first seed and games), playing
    /// `seeds` (first seed, games).
    pub fn create(
        path: &Path,
        plan: &Plan,
        game_digest: &str,
        shard: (u64, u64),
        seeds: (u64, u64),
    ) -> Result<ShardWriter, String> {
        let out = crate::files::open_report(path).map_err(|e| cannot(path, e))?;
        let mut w = ShardWriter {
            path: path.to_path_buf(),
            out,
            digest: Digest::default(),
            count: 0,
        };
        let header = Header {
            format: SHARD_FORMAT,
            game: &plan.game.display().to_string(),
            game_digest,
            players: plan.players,
            agent: &plan.agent,
            options: &plan.sets,
            first_seed: plan.seed,
            games: plan.games,
            shard,
            seeds,
        };
        let mut text = serde_json::to_string(&header).map_err(|e| cannot(path, e))?;
        // The header's closing brace gives way to the games.
        text.pop();
        text.push_str(",\"results\":[");
        w.write(text.as_bytes())?;
        Ok(w)
    }

    fn write(&mut self, b: &[u8]) -> Result<(), String> {
        let r = self.out.write_all(b);
        r.map_err(|e| cannot(self.out.writing(), e))
    }

    /// The next game of the slice.
    pub fn add(&mut self, r: &GameResult) -> Result<(), String> {
        self.digest.result(r);
        let text = serde_json::to_string(r).map_err(|e| cannot(&self.path, e))?;
        if self.count > 0 {
            self.write(b",\n")?;
        }
        self.write(text.as_bytes())?;
        self.count += 1;
        Ok(())
    }

    /// Close the file and give it its name; returns the games written.
    pub fn finish(mut self) -> Result<u64, String> {
        let tail = format!("],\"results_digest\":\"{}\"}}\n", self.digest.hex());
        self.write(tail.as_bytes())?;
        let count = self.count;
        self.out.finish().map_err(|e| cannot(&self.path, e))?;
        Ok(count)
    }

    /// Remove the unfinished file.
    pub fn abandon(self) {
        self.out.abandon();
    }
}

/// What a shard says about its run, kept from the first pass of a merge.
struct Head {
    file: PathBuf,
    game: String,
    game_digest: String,
    players: u32,
    agent: String,
    options: Vec<String>,
    first_seed: u64,
    games: u64,
    shard: (u64, u64),
}

/// Check one shard on its own: a known format, a playable number of players, a slice of its run
/// with its own seeds' games, each once, in order, as its digest says. The numbers are checked
/// before they size anything.
fn check_one(file: &Path, s: &Shard) -> Result<(), String> {
    let name = file.display();
    if s.format != SHARD_FORMAT {
        return Err(format!(
            "`{name}` is a shard of format {} (this rules reads {SHARD_FORMAT}): play it again",
            s.format
        ));
    }
    if !(1..=64).contains(&s.players) {
        return Err(format!(
            "`{name}` is a shard of {} players: a game has 1 to 64",
            s.players
        ));
    }
    let (i, n) = s.shard;
    let Some((start, len)) = shard_range(s.games, i, n) else {
        return Err(format!(
            "`{name}` says it is shard {i}/{n}, which is not a shard of {n}"
        ));
    };
    let first = s.first_seed.wrapping_add(start);
    if s.seeds != (first, len) {
        return Err(format!(
            "`{name}` holds {} games from seed {}, but shard {i}/{n} of {} games from seed {} plays {len} from seed {first}",
            s.seeds.1, s.seeds.0, s.games, s.first_seed
        ));
    }
    if s.results.len() as u64 != len {
        return Err(format!(
            "`{name}` holds {} games, but shard {i}/{n} plays {len}: the counts do not add up",
            s.results.len()
        ));
    }
    let mut d = Digest::default();
    for (k, r) in (0u64..).zip(&s.results) {
        let want = first.wrapping_add(k);
        if r.seed != want {
            return Err(format!(
                "`{name}`: game {} of shard {i}/{n} has seed {}, not {want}: the file holds games of another slice, or the same game twice",
                k + 1,
                r.seed
            ));
        }
        d.result(r);
    }
    if d.hex() != s.results_digest {
        return Err(format!(
            "`{name}`: the games do not match their digest (the file was edited or damaged)"
        ));
    }
    Ok(())
}

/// Put the shards of one run back together: every file checked on its own, then all against the
/// first (the same game text, players, agents, options, seeds and shard count; every slice once),
/// then counted in seed order. `read` reads one file. Returns the run's plan and its tally.
pub fn merge(
    files: &[PathBuf],
    read: &dyn Fn(&Path) -> Result<Shard, String>,
) -> Result<(Plan, Tally), String> {
    if files.is_empty() {
        return Err("no shard files given".into());
    }
    let mut heads: Vec<Head> = Vec::new();
    for f in files {
        let s = read(f)?;
        check_one(f, &s)?;
        heads.push(Head {
            file: f.clone(),
            game: s.game,
            game_digest: s.game_digest,
            players: s.players,
            agent: s.agent,
            options: s.options,
            first_seed: s.first_seed,
            games: s.games,
            shard: s.shard,
        });
    }
    let Some(first) = heads.first() else {
        return Err("no shard files given".into());
    };
    let n = first.shard.1;
    for h in &heads {
        let name = h.file.display();
        let differs = if h.game_digest != first.game_digest {
            Some("the game's text")
        } else if h.players != first.players {
            Some("the players")
        } else if h.agent != first.agent {
            Some("the agents")
        } else if h.options != first.options {
            Some("the options")
        } else if h.first_seed != first.first_seed || h.games != first.games {
            Some("the seeds or the number of games")
        } else if h.shard.1 != n {
            Some("the number of shards")
        } else {
            None
        };
        if let Some(what) = differs {
            return Err(format!(
                "`{name}` is a shard of another run than `{}`: {what} differ",
                first.file.display()
            ));
        }
    }
    // Every slice once: sorted by index, the files must be 1, 2, ..., n.
    let mut order: Vec<usize> = (0..heads.len()).collect();
    order.sort_by_key(|&k| heads[k].shard.0);
    for pair in order.windows(2) {
        let (a, b) = (&heads[pair[0]], &heads[pair[1]]);
        if a.shard.0 == b.shard.0 {
            return Err(format!(
                "shard {}/{n} is given twice: `{}` and `{}`",
                a.shard.0,
                a.file.display(),
                b.file.display()
            ));
        }
    }
    if heads.len() as u64 != n {
        let have: Vec<u64> = order.iter().map(|&k| heads[k].shard.0).collect();
        let missing = (1..=n)
            .find(|i| have.binary_search(i).is_err())
            .unwrap_or(n);
        return Err(format!(
            "shard {missing}/{n} is missing: {} of {n} shard files given ({} is shard {}/{n})",
            heads.len(),
            first.file.display(),
            first.shard.0
        ));
    }
    let mut tally = Tally::new(first.players);
    for &k in &order {
        let s = read(&heads[k].file)?;
        // The file may have changed since it was checked: check it again.
        check_one(&heads[k].file, &s)?;
        if s.game_digest != first.game_digest || s.shard != heads[k].shard {
            return Err(format!(
                "`{}` changed during the merge",
                heads[k].file.display()
            ));
        }
        for r in &s.results {
            tally.add(r);
        }
    }
    let plan = Plan {
        game: PathBuf::from(&first.game),
        players: first.players,
        games: first.games,
        seed: first.first_seed,
        agent: first.agent.clone(),
        sets: first.options.clone(),
        jobs: 1,
        without: Vec::new(),
        track: false,
    };
    Ok((plan, tally))
}
