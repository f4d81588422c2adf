//! Reading untrusted files: regular files only, with a size cap applied while reading.
//!
//! The length in a file's metadata is not trusted (a FIFO, `/dev/zero` or a file growing while
//! it is read report a length that has nothing to do with what `read` returns): a FIFO or device
//! is refused before it is opened and again on the open handle, and at most `max + 1` bytes are
//! ever read, so the answer "too large" costs `max` bytes of memory at most.

use std::fmt;
use std::io::Read;
use std::path::Path;

/// Why a file could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// A folder, FIFO, socket or device.
    NotAFile,
    /// Longer than the cap (in bytes).
    TooLarge(usize),
    /// Not UTF-8 text.
    NotText,
    Io(std::io::Error),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotAFile => write!(f, "it is not a regular file"),
            ReadError::TooLarge(max) => write!(f, "it is larger than {max} bytes"),
            ReadError::NotText => write!(f, "it is not UTF-8 text"),
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Open `path` for reading without blocking on a FIFO (whose `open` waits for a writer).
fn open(path: &Path) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK: a FIFO opens at once (and is refused below) instead of waiting.
        o.custom_flags(0o4000);
    }
    o.open(path)
}

/// Read a regular file of at most `max` bytes.
pub fn read_bytes(path: &Path, max: usize) -> Result<Vec<u8>, ReadError> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => {}
        Ok(_) => return Err(ReadError::NotAFile),
        Err(e) => return Err(ReadError::Io(e)),
    }
    let f = open(path).map_err(ReadError::Io)?;
    match f.metadata() {
        Ok(m) if m.is_file() => {}
        Ok(_) => return Err(ReadError::NotAFile),
        Err(e) => return Err(ReadError::Io(e)),
    }
    let mut out = Vec::new();
    let cap = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
    f.take(cap).read_to_end(&mut out).map_err(ReadError::Io)?;
    if out.len() > max {
        return Err(ReadError::TooLarge(max));
    }
    Ok(out)
}

/// Read a regular UTF-8 text file of at most `max` bytes.
pub fn read_text(path: &Path, max: usize) -> Result<String, ReadError> {
    String::from_utf8(read_bytes(path, max)?).map_err(|_| ReadError::NotText)
}

/// The folder a game lives in: the folder itself, or the folder holding the entry file.
pub fn game_root(game: &Path) -> std::path::PathBuf {
    let dir = if game.is_dir() {
        game
    } else {
        match game.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        }
    };
    dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf())
}

/// `target` written relative to the folder `from` (both made absolute first), as a save names
/// its game relative to itself. Falls back to `target` as given.
pub fn relative_to(target: &Path, from: &Path) -> std::path::PathBuf {
    let (Ok(t), Ok(f)) = (target.canonicalize(), from.canonicalize()) else {
        return target.to_path_buf();
    };
    let tc: Vec<_> = t.components().collect();
    let fc: Vec<_> = f.components().collect();
    let shared = tc.iter().zip(&fc).take_while(|(a, b)| a == b).count();
    let mut out = std::path::PathBuf::new();
    for _ in shared..fc.len() {
        out.push("..");
    }
    for c in tc.iter().skip(shared) {
        out.push(c.as_os_str());
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// Where a save's game is: its `game` path taken relative to the save file's folder, and only
/// if it lies (after symbolic links) inside `root`. `Err` says why not.
pub fn save_game_path(
    save_file: &Path,
    game: &str,
    root: &Path,
) -> Result<std::path::PathBuf, String> {
    let base = match save_file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let path = base.join(game);
    let canon = path
        .canonicalize()
        .map_err(|e| format!("the save's game `{game}` cannot be found: {e}"))?;
    if !canon.starts_with(root) {
        return Err(format!(
            "the save's game `{game}` is outside `{}`, the folder this REPL was started on; \
             nothing was loaded",
            root.display()
        ));
    }
    Ok(path)
}
