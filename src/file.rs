//! Files named from outside (a cassette, a CA bundle): read only when they are regular files
//! of bounded size, so a path to a device (`/dev/zero`), a FIFO or a directory gets an error
//! at once instead of a read that never ends or an open that never returns.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

/// Why a file was not read.
#[derive(Debug)]
pub(crate) enum Refused {
    /// It could not be opened or read.
    Io(io::Error),
    /// It is a device, FIFO, socket or directory.
    NotRegular,
    /// It holds more than this many bytes.
    TooLarge(u64),
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refused::Io(error) => write!(f, "{error}"),
            Refused::NotRegular => f.write_str(
                "is not a regular file (a device, FIFO, socket or directory is not read)",
            ),
            Refused::TooLarge(max) => write!(f, "is larger than the limit of {max} bytes"),
        }
    }
}

impl From<Refused> for io::Error {
    fn from(refused: Refused) -> io::Error {
        match refused {
            Refused::Io(error) => error,
            other => io::Error::new(io::ErrorKind::InvalidInput, other.to_string()),
        }
    }
}

/// The whole file at `path`, if it is a regular file (after symbolic links) of at most `max`
/// bytes. What is checked is the file opened, not the path, so a path swapped between the
/// check and the read changes nothing.
pub(crate) fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, Refused> {
    let file = open(path).map_err(Refused::Io)?;
    let metadata = file.metadata().map_err(Refused::Io)?;
    if !metadata.is_file() {
        return Err(Refused::NotRegular);
    }
    if metadata.len() > max {
        return Err(Refused::TooLarge(max));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    // The file may have grown since: the limit holds for what is read, not only the size.
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Refused::Io)?;
    if bytes.len() as u64 > max {
        return Err(Refused::TooLarge(max));
    }
    Ok(bytes)
}

/// Opens `path` for reading without waiting: opening a FIFO waits for a writer, so it is
/// opened at once and then refused for what it is. A regular file reads the same either way.
fn open(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_a_fifo_a_directory_and_a_file_over_the_limit_are_refused_and_one_within_it_read() {
        let dir = std::env::temp_dir().join(format!("mcp-decoy-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let file = dir.join("small.json");
        std::fs::write(&file, b"{}").expect("write");
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("run mkfifo");
        assert!(made.success(), "mkfifo");

        assert_eq!(read_regular(&file, 2).expect("within the limit"), b"{}");
        let over = read_regular(&file, 1).expect_err("over the limit");
        assert!(matches!(over, Refused::TooLarge(1)), "{over}");
        assert!(over.to_string().contains("limit of 1 bytes"), "{over}");
        for not_regular in [Path::new("/dev/zero"), &fifo, dir.as_path()] {
            let error = read_regular(not_regular, 1 << 20).expect_err("not a regular file");
            assert!(
                matches!(error, Refused::NotRegular),
                "{}: {error}",
                not_regular.display()
            );
        }
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
