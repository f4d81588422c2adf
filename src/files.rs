//! Reading untrusted files: regular files only, with a size cap applied while reading; and
//! writing files that hold secrets (a seed, secret answers, the links' tokens), readable by
//! their owner only and never through a symbolic link (`write_private`, `create_private_in`);
//! and new files that never replace or follow anything there (`write_new`).
//!
//! The length in a file's metadata is not trusted (a FIFO, `/dev/zero` or a file growing while
//! it is read report a length that has nothing to do with what `read` returns): a FIFO or device
//! is refused before it is opened and again on the open handle, and at most `max + 1` bytes are
//! ever read, so the answer "too large" costs `max` bytes of memory at most.

use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

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

/// Create a new file, exclusively: `O_EXCL` refuses any name already there, a symbolic link
/// (dangling or not) included, so nothing is ever opened or followed. `private`: readable and
/// writable by its owner only (0600).
fn create_exclusive(path: &Path, private: bool) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = private;
    o.open(path)
}

/// Create a new file readable and writable by its owner only (0600), exclusively.
fn create_new_private(path: &Path) -> std::io::Result<std::fs::File> {
    create_exclusive(path, true)
}

/// Write `bytes` to `path` as a new file (with the usual permissions), created exclusively: a
/// name already taken, by a file or a symbolic link, is an `AlreadyExists` error, never opened
/// or followed. A file left half written by a failed write is removed.
pub fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = create_exclusive(path, false)?;
    if let Err(e) = f.write_all(bytes) {
        let _ = std::fs::remove_file(path);
        return Err(e);
    }
    Ok(())
}

/// Write `bytes` to a new file in `dir` named `{prefix}{16 random hex digits}{suffix}`, created
/// exclusively and readable by its owner only; a name already taken (by anything, a planted
/// link too) is never opened: another is drawn. Returns the file's path.
pub fn create_private_in(
    dir: &Path,
    prefix: &str,
    suffix: &str,
    bytes: &[u8],
) -> std::io::Result<PathBuf> {
    for _ in 0..16 {
        let path = dir.join(format!("{prefix}{}{suffix}", crate::seed::os_hex(8)?));
        let mut f = match create_new_private(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        if let Err(e) = f.write_all(bytes) {
            let _ = std::fs::remove_file(&path);
            return Err(e);
        }
        return Ok(path);
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        format!("no unused file name was found in `{}`", dir.display()),
    ))
}

/// `Ok` when `write_private` may write `path`: it is absent or a regular file; what it is
/// otherwise (never followed). Asked before a game starts, so nobody plays one whose log
/// cannot be kept.
pub fn replaceable(path: &Path) -> std::io::Result<()> {
    let kind = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_file() => return Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
        Ok(m) if m.file_type().is_symlink() => "a symbolic link",
        Ok(m) if m.is_dir() => "a folder",
        Ok(_) => "not a regular file (a FIFO, socket or device)",
    };
    Err(std::io::Error::other(format!(
        "it is {kind}; nothing was written"
    )))
}

/// Write a file that holds secrets (a log, a save, the links' tokens): the text goes to a new
/// file beside `path`, created exclusively with an unpredictable name and readable by its owner
/// only, which then replaces `path` in one step, so a reader never sees half a file. `path` is
/// replaced only when it is absent or a regular file: a symbolic link, folder, FIFO or device
/// there is refused, never followed or opened.
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replaceable(path)?;
    let Some(name) = path.file_name() else {
        return Err(std::io::Error::other("it names no file"));
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    let tmp = create_private_in(dir, &prefix, ".part", bytes)?;
    // Looked at again just before: a link planted meanwhile is replaced, not followed.
    let done = replaceable(path).and_then(|()| std::fs::rename(&tmp, path));
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done
}

/// A report being written (`open_report`): a simulation's report or shard, a PDF, an HTML page.
/// Not a secret, and written where it is told, but never by replacing what is not a file.
pub struct ReportFile {
    file: std::io::BufWriter<std::fs::File>,
    path: PathBuf,
    /// `FILE.partial`, renamed to `FILE` by `finish`; `None` when written in place.
    partial: Option<PathBuf>,
}

/// Open `path` for a report. Absent or a regular file: the report goes to `FILE.partial` beside
/// it (a stale one, or a link planted there, is removed first, never followed), renamed over it
/// by `finish`, so a reader never sees half a report. A FIFO or a character device, or a link
/// (to one, or to a file): written in place, through the link, as the shell's `>` would:
/// `--json /dev/stdout` and a FIFO a reader waits on are fair uses, and a device node or link is
/// never replaced by a file. A folder, a socket or a block device is refused.
pub fn open_report(path: &Path) -> std::io::Result<ReportFile> {
    let in_place = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) => return Err(e),
        Ok(m) if m.file_type().is_file() => false,
        Ok(_) => {
            // Followed: what the name (or the link) is.
            match std::fs::metadata(path) {
                Ok(m) => writable_in_place(&m)?,
                // A dangling link: the file it names is made, as `>` would.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
            true
        }
    };
    if in_place {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        // Looked at again on the open handle: what was opened is what was allowed.
        writable_in_place(&file.metadata()?)?;
        return Ok(ReportFile {
            file: std::io::BufWriter::new(file),
            path: path.to_path_buf(),
            partial: None,
        });
    }
    let mut name = path.as_os_str().to_os_string();
    name.push(".partial");
    let partial = PathBuf::from(name);
    match std::fs::symlink_metadata(&partial) {
        Ok(m) if m.is_dir() => {
            return Err(std::io::Error::other(format!(
                "`{}` is a folder",
                partial.display()
            )))
        }
        Ok(_) => std::fs::remove_file(&partial)?,
        Err(_) => {}
    }
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&partial)?;
    Ok(ReportFile {
        file: std::io::BufWriter::new(file),
        path: path.to_path_buf(),
        partial: Some(partial),
    })
}

/// `Ok` for what a report may be written into in place: a regular file, a FIFO, a character
/// device; what it is otherwise.
fn writable_in_place(m: &std::fs::Metadata) -> std::io::Result<()> {
    let t = m.file_type();
    #[cfg(unix)]
    let ok = {
        use std::os::unix::fs::FileTypeExt;
        t.is_file() || t.is_fifo() || t.is_char_device()
    };
    #[cfg(not(unix))]
    let ok = t.is_file();
    if ok {
        return Ok(());
    }
    let kind = if t.is_dir() {
        "a folder"
    } else {
        "a socket or a block device"
    };
    Err(std::io::Error::other(format!(
        "it is {kind}; nothing was written"
    )))
}

impl ReportFile {
    /// Flush, and give a report written beside its target the target's name.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.file.flush()?;
        if let Some(partial) = self.partial.take() {
            std::fs::rename(&partial, &self.path).inspect_err(|_| {
                let _ = std::fs::remove_file(&partial);
            })?;
        }
        Ok(())
    }
    /// Stop: a report written beside its target is removed (one written in place stays as far
    /// as it got).
    pub fn abandon(self) {
        if let Some(p) = &self.partial {
            let _ = std::fs::remove_file(p);
        }
    }
    /// Where an error is to be blamed: the file being written.
    pub fn writing(&self) -> &Path {
        self.partial.as_deref().unwrap_or(&self.path)
    }
}

impl Write for ReportFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Write a whole report to `path` (`open_report`).
pub fn write_report(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = open_report(path)?;
    if let Err(e) = f.write_all(bytes) {
        f.abandon();
        return Err(e);
    }
    f.finish()
}

#[cfg(all(test, unix))]
mod private {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("rules-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch");
        dir
    }

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).expect("meta").permissions().mode() & 0o777
    }

    #[test]
    fn a_private_file_is_0600_and_replaces_a_regular_file() {
        let dir = scratch("replace");
        let f = dir.join("log.json");
        std::fs::write(&f, "old").expect("write");
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        write_private(&f, b"new").expect("written");
        assert_eq!(std::fs::read_to_string(&f).expect("read"), "new");
        assert_eq!(mode(&f), 0o600);
        // Nothing is left beside it.
        assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_link_folder_or_fifo_at_the_target_is_refused_and_not_followed() {
        let dir = scratch("link");
        let victim = dir.join("victim");
        std::fs::write(&victim, "keep").expect("write");
        let link = dir.join("log.json");
        std::os::unix::fs::symlink(&victim, &link).expect("symlink");
        let e = write_private(&link, b"secret").expect_err("refused");
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read_to_string(&victim).expect("read"), "keep");
        let folder = dir.join("sub");
        std::fs::create_dir(&folder).expect("mkdir");
        let e = write_private(&folder, b"secret").expect_err("refused");
        assert!(e.to_string().contains("folder"), "{e}");
        // A FIFO is never opened (a write would wait for a reader).
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        let entries = if made.is_ok_and(|s| s.success()) {
            let e = write_private(&fifo, b"secret").expect_err("refused");
            assert!(e.to_string().contains("FIFO"), "{e}");
            4
        } else {
            3
        };
        // None left a file behind.
        assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), entries);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The temporary file is made with `O_EXCL`: a link planted at its name, dangling or not,
    /// is refused (and another name drawn), never followed.
    #[test]
    fn a_link_planted_at_a_new_files_name_is_not_followed() {
        let dir = scratch("planted");
        let victim = dir.join("victim");
        std::fs::write(&victim, "keep").expect("write");
        let link = dir.join("rules-x-0123456789abcdef.log");
        std::os::unix::fs::symlink(&victim, &link).expect("symlink");
        let e = create_new_private(&link).expect_err("refused");
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        let dangling = dir.join("dangling");
        std::os::unix::fs::symlink(dir.join("nowhere"), &dangling).expect("symlink");
        let e = create_new_private(&dangling).expect_err("refused");
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        assert!(!dir.join("nowhere").exists());
        assert_eq!(std::fs::read_to_string(&victim).expect("read"), "keep");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A report beside a regular target: a link planted at `FILE.partial` is removed, not
    /// written through; a dangling link named as the report is written through, still a link.
    #[test]
    fn a_report_never_writes_through_a_planted_partial_and_keeps_a_link() {
        let dir = scratch("report");
        let victim = dir.join("victim");
        std::fs::write(&victim, "keep").expect("write");
        let target = dir.join("report.json");
        std::os::unix::fs::symlink(&victim, dir.join("report.json.partial")).expect("symlink");
        write_report(&target, b"new").expect("written");
        assert_eq!(std::fs::read_to_string(&victim).expect("read"), "keep");
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "new");
        assert!(!dir.join("report.json.partial").exists());
        let link = dir.join("out.json");
        std::os::unix::fs::symlink(dir.join("made.json"), &link).expect("symlink");
        write_report(&link, b"through").expect("written");
        assert!(std::fs::symlink_metadata(&link)
            .expect("meta")
            .file_type()
            .is_symlink());
        assert_eq!(
            std::fs::read_to_string(dir.join("made.json")).expect("read"),
            "through"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_new_private_file_gets_a_fresh_name() {
        let dir = scratch("new");
        let a = create_private_in(&dir, "rules-x-", ".log", b"a").expect("a");
        let b = create_private_in(&dir, "rules-x-", ".log", b"b").expect("b");
        assert_ne!(a, b);
        assert_eq!(mode(&a), 0o600);
        assert_eq!(std::fs::read_to_string(&b).expect("read"), "b");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
