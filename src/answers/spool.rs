//! A temp file of scored answers, one JSON line each, so a log of any size is scored in bounded
//! memory and its outputs (record, JSON, HTML, the full human report) are written afterwards
//! from disk. Removed when dropped.

use super::score::AnswerResult;
use crate::error::{Error, Result};
use std::io::{BufRead, BufWriter, Write};
use std::path::PathBuf;

pub struct Spool {
    path: PathBuf,
    writer: Option<BufWriter<std::fs::File>>,
    pub len: usize,
}

impl Spool {
    /// A new spool in the system temp folder (`TMPDIR`).
    pub fn new() -> Result<Spool> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let path = std::env::temp_dir().join(format!(
            "faithprobe-score-{}-{nanos}.jsonl",
            std::process::id()
        ));
        let f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| {
                Error::write(
                    &path,
                    std::io::Error::other(format!(
                        "{e}; the scored answers are spooled in the temp folder: set TMPDIR to a writable folder"
                    )),
                )
            })?;
        Ok(Spool {
            path,
            writer: Some(BufWriter::with_capacity(1 << 16, f)),
            len: 0,
        })
    }

    pub fn push(&mut self, a: &AnswerResult) -> Result<()> {
        let w = self.writer.as_mut().expect("push before reading");
        serde_json::to_writer(&mut *w, a)
            .map_err(std::io::Error::from)
            .and_then(|_| w.write_all(b"\n"))
            .map_err(|e| Error::write(&self.path, e))?;
        self.len += 1;
        Ok(())
    }

    /// Every answer pushed, in order. Flushes first; may be called more than once.
    pub fn answers(&mut self) -> Result<impl Iterator<Item = Result<AnswerResult>> + '_> {
        if let Some(w) = self.writer.as_mut() {
            w.flush().map_err(|e| Error::write(&self.path, e))?;
        }
        let f = std::fs::File::open(&self.path).map_err(|e| Error::io(&self.path, e))?;
        let path = self.path.clone();
        Ok(std::io::BufReader::with_capacity(1 << 16, f)
            .lines()
            .map(move |l| {
                let l = l.map_err(|e| Error::io(&path, e))?;
                serde_json::from_str(&l).map_err(|e| {
                    crate::error::Refusal::Damaged
                        .with(format!("spool {} is damaged: {e}", path.display()))
                })
            }))
    }
}

impl Drop for Spool {
    fn drop(&mut self) {
        self.writer = None;
        let _ = std::fs::remove_file(&self.path);
    }
}
