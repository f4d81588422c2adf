//! Reading files passed between strangers (choice logs, saves): regular files only, read with a
//! size cap, never trusting the length the file system reports.

use std::io::Read;
use std::path::Path;

/// Read a regular file of at most `max` bytes as text. FIFOs, devices and folders are refused
/// before anything is read; a longer file is refused after reading `max + 1` bytes at most.
pub fn read_capped(path: &Path, max: usize) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    file.take(max as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| e.to_string())?;
    if buf.len() > max {
        return Err(format!("larger than {max} bytes"));
    }
    String::from_utf8(buf).map_err(|_| "not UTF-8 text".into())
}
