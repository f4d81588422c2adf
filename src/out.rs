//! Standard output and standard error for the command line, without panics. `println!` panics
//! when stdout cannot be written (`rules check GAME > /dev/full`); here the first failure is
//! kept, later writes to stdout are skipped, and `main` ends the command with a message and exit
//! code 74 (`EX_IOERR`), whatever the command would have returned: an account, a report or a
//! list that was lost is never a success. Writes to stderr that fail are dropped (there is
//! nowhere left to say so).
//!
//! Both escape control characters (`rules::term::escape`): game text reaches the terminal
//! visibly, never as a sequence the terminal acts on. Only `err_raw` writes as given, for the
//! coloured diagnostics, whose text is escaped before it is coloured (`Diag::render_with`).

use std::io::Write;
use std::sync::Mutex;

/// Exit code of a command whose output could not be written.
pub const WRITE_FAILED: u8 = 74;

static FAILED: Mutex<Option<String>> = Mutex::new(None);

/// Write to stdout and flush, so a failure is seen now and not lost in the flush at exit.
pub fn out(args: std::fmt::Arguments) {
    let mut failed = FAILED.lock().unwrap_or_else(|e| e.into_inner());
    if failed.is_some() {
        return;
    }
    let text = args.to_string();
    let mut o = std::io::stdout().lock();
    let written = o.write_all(rules::term::escape(&text).as_bytes());
    if let Err(e) = written.and_then(|()| o.flush()) {
        *failed = Some(e.to_string());
    }
}

/// Write to stderr; a failure is dropped.
pub fn err(args: std::fmt::Arguments) {
    err_raw(&rules::term::escape(&args.to_string()));
}

/// Write to stderr as given (control characters included); a failure is dropped.
pub fn err_raw(text: &str) {
    let mut e = std::io::stderr().lock();
    let _ = e.write_all(text.as_bytes());
    let _ = e.flush();
}

/// Why stdout could not be written, if it could not.
pub fn failed() -> Option<String> {
    FAILED.lock().unwrap_or_else(|e| e.into_inner()).clone()
}
