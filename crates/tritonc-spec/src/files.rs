//! Reading files a user names (specs, kernels, `.npy` data, sources to lint or compile):
//! only regular files. A FIFO, socket or device named by mistake would make `read` wait
//! for a writer forever (a FIFO) or never end (`/dev/zero`); it is refused instead, with
//! an error saying what it is.

use std::io::{Error, ErrorKind, Read};
use std::path::Path;

/// The contents of `path` if it is a regular file (symbolic links followed). A directory
/// is the usual `IsADirectory` error; a FIFO, socket or device is an `InvalidInput` error
/// whose message names what it is (`a FIFO, not a regular file`).
///
/// The file is opened without blocking (a FIFO's open would otherwise wait for a writer)
/// and checked through the open descriptor, so nothing can swap it in between.
pub fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let mut file = options.open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(Error::new(ErrorKind::IsADirectory, "is a directory"));
    }
    if !meta.is_file() {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!("{}, not a regular file", special_kind(&meta)),
        ));
    }
    // O_NONBLOCK has no effect on reading a regular file.
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0).min(1 << 30));
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// [`read_regular`] as UTF-8 text (`InvalidData` otherwise, as `fs::read_to_string`).
pub fn read_regular_to_string(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read_regular(path)?)
        .map_err(|_| Error::new(ErrorKind::InvalidData, "stream did not contain valid UTF-8"))
}

/// What a file that is neither regular nor a directory is, in words.
fn special_kind(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    let _ = meta;
    "a special file"
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("tritonc-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("writable");
        dir
    }

    #[test]
    fn a_fifo_is_refused_at_once() {
        let dir = scratch("fifo");
        let fifo = dir.join("kernel.py");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(status.success());
        let start = std::time::Instant::now();
        let err = read_regular(&fifo).unwrap_err();
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert_eq!(err.to_string(), "a FIFO (named pipe), not a regular file");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn devices_and_directories_are_refused_and_files_read() {
        let err = read_regular(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(err.to_string(), "a character device, not a regular file");
        let dir = scratch("dir");
        assert_eq!(read_regular(&dir).unwrap_err().kind(), ErrorKind::IsADirectory);
        std::fs::write(dir.join("a.py"), "x = 1\n").expect("writable");
        assert_eq!(read_regular(&dir.join("a.py")).unwrap(), b"x = 1\n");
        assert_eq!(read_regular_to_string(&dir.join("a.py")).unwrap(), "x = 1\n");
        std::fs::write(dir.join("b.py"), [0xff, 0xfe]).expect("writable");
        assert_eq!(
            read_regular_to_string(&dir.join("b.py")).unwrap_err().kind(),
            ErrorKind::InvalidData
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
