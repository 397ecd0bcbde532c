//! Files named from outside (a cassette, a CA bundle): read only when they are regular files
//! of bounded size, so a path to a device (`/dev/zero`), a FIFO or a directory gets an error
//! at once instead of a read that never ends or never starts.

use std::io::{self, Read};
use std::path::Path;

/// The whole file at `path`, if it is a regular file (after symbolic links) of at most `max`
/// bytes; otherwise an error of kind `InvalidInput` that says why.
pub(crate) fn read_regular(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let metadata = std::fs::metadata(path)?;
    if !metadata.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is not a regular file (a device, FIFO, socket or directory is not read)",
        ));
    }
    let too_large = || {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("is larger than the limit of {max} bytes"),
        )
    };
    if metadata.len() > max {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    // The file may have grown since: the limit holds for what is read, not only the size.
    std::fs::File::open(path)?
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_a_directory_and_a_file_over_the_limit_are_refused_and_a_file_within_it_is_read() {
        let dir = std::env::temp_dir().join(format!("mcp-decoy-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let file = dir.join("small.json");
        std::fs::write(&file, b"{}").expect("write");

        assert_eq!(read_regular(&file, 2).expect("within the limit"), b"{}");
        let over = read_regular(&file, 1).expect_err("over the limit");
        assert_eq!(over.kind(), io::ErrorKind::InvalidInput);
        assert!(over.to_string().contains("limit of 1 bytes"), "{over}");
        for not_regular in [Path::new("/dev/zero"), dir.as_path()] {
            let error = read_regular(not_regular, 1 << 20).expect_err("not a regular file");
            assert!(
                error.to_string().contains("not a regular file"),
                "{}: {error}",
                not_regular.display()
            );
        }
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
