//! Every file faithprobe writes goes through [`write_atomic`]: a temp file in the same folder
//! (`tempfile::NamedTempFile`), flushed to disk, then renamed over the target (`persist`). A reader never sees half a file, a failed write
//! leaves nothing behind, and anything that is not a regular file is never replaced.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically. Refuses to replace a directory, a symlink or any other
/// non-regular file; on any error the temp file is removed and the target is untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, &mut |w| w.write_all(bytes))
}

/// Like [`write_atomic`], for output written piece by piece (a record of a large log streamed
/// from disk): `fill` writes into a buffered temp file; the target appears only when it finished.
pub fn write_atomic_with(
    path: &Path,
    fill: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_file() {
            let what = if meta.file_type().is_dir() {
                "a directory"
            } else if meta.file_type().is_symlink() {
                "a symbolic link"
            } else {
                "not a regular file"
            };
            return Err(Error::write(
                path,
                std::io::Error::other(format!(
                    "{what}; faithprobe only replaces regular files, so give a file path"
                )),
            ));
        }
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    // beside the target, so the rename never crosses a file system; created exclusively under a
    // fresh random name; 0666 less the umask, as a plain create would (tempfile's own default,
    // 0600, would become the output's mode at the rename). Dropped on any error, it is removed.
    let result = (|| -> std::io::Result<()> {
        let mut tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
            .tempfile_in(&dir)?;
        let mut w = std::io::BufWriter::with_capacity(1 << 16, tmp.as_file_mut());
        fill(&mut w)?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        tmp.persist(path).map(drop).map_err(|e| e.error)
    })();
    result.map_err(|e| Error::write(path, e))
}

/// Like [`write_atomic_with`], for output built from a source that can fail on its own (a spool
/// read back): `fill` returns faithprobe errors, its write errors already mapped with
/// [`Error::write`]. Any error leaves nothing behind and is returned as it is.
pub fn write_atomic_from(
    path: &Path,
    fill: &mut dyn FnMut(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    let mut failure: Option<Error> = None;
    let res = write_atomic_with(path, &mut |w| {
        fill(w).map_err(|e| {
            failure = Some(e);
            std::io::Error::other("the output's source failed")
        })
    });
    match failure {
        Some(e) => Err(e),
        None => res,
    }
}

/// The lock file of the file at `side`: `larkspur.reviews.yaml.lock`, `llm-mutants.json.lock`.
/// It is never removed (removing a lock file lets two writers hold two locks).
pub fn lock_path_of(side: &Path) -> PathBuf {
    let mut name = side.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    side.with_file_name(name)
}

/// An exclusive lock on a file that several processes update (a side file of reviews, the LLM
/// mutant cache), held until dropped: read, merge and write under it.
pub struct Lock {
    _file: std::fs::File,
}

impl Lock {
    /// Waits for the exclusive lock on the file at `side`.
    pub fn acquire(side: &Path) -> Result<Lock> {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::OpenOptionsExt;
        let path = lock_path_of(side);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)
            .map_err(|e| Error::write(&path, e))?;
        loop {
            // SAFETY: flock on a descriptor this function owns
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
                return Ok(Lock { _file: file });
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(Error::write(&path, e));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_replaces_the_file_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_directory_or_symlink_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let err = write_atomic(&sub, b"x").unwrap_err().to_string();
        assert!(err.contains("a directory"), "{err}");
        let target = dir.path().join("target.txt");
        std::fs::write(&target, "keep").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let err = write_atomic(&link, b"x").unwrap_err().to_string();
        assert!(err.contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    }

    #[test]
    fn a_full_disk_is_an_error_and_leaves_nothing() {
        // /dev/full exists on Linux: every write to it fails with ENOSPC
        let err = write_atomic(Path::new("/dev/full"), b"x").unwrap_err();
        assert!(err.to_string().contains("/dev/full"), "{err}");
        assert_eq!(err.exit(), crate::error::Exit::OutputFailed);
    }

    #[test]
    fn a_missing_folder_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("no/such/dir/r.json");
        let err = write_atomic(&p, b"x").unwrap_err().to_string();
        assert!(err.contains("r.json"), "{err}");
    }

    #[test]
    fn a_written_file_has_the_mode_a_plain_create_gives_and_a_failed_fill_leaves_nothing() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let (ours, plain) = (dir.path().join("r.json"), dir.path().join("plain.json"));
        write_atomic(&ours, b"x").unwrap();
        std::fs::write(&plain, b"x").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&ours), mode(&plain));
        let err = write_atomic_with(&ours, &mut |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("the source ran dry"))
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("the source ran dry"), "{err}");
        assert_eq!(std::fs::read_to_string(&ours).unwrap(), "x");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}
