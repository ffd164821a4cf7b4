//! The verdict cache: a SQLite file shared by every checker kind, so a re-run pays for nothing
//! twice.
//!
//! Keyed by the checker's fingerprint (kind, model file hash, settings that change what the model
//! computes) and the exact premise and claim. It stores raw model outputs (label probabilities or
//! an embedding), not verdicts, so a threshold change reuses them. Rows are committed batch by
//! batch: a run killed midway keeps what it paid for.

use rusqlite::{params, Connection, OptionalExtension};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The default cache file.
pub const DEFAULT_CACHE: &str = ".faithprobe/cache.sqlite";

pub struct Cache {
    path: PathBuf,
    conn: Mutex<Connection>,
}

fn way_out(path: &Path, what: impl std::fmt::Display) -> String {
    format!(
        "verdict cache {}: {what}; delete or move the file, point --cache elsewhere, or run with --no-cache",
        path.display()
    )
}

impl Cache {
    /// Opens (creating if needed) the cache file. A corrupt or locked file is a clear error.
    pub fn open(path: &Path) -> Result<Cache, String> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| way_out(path, format!("cannot create its folder: {e}")))?;
        }
        let conn = Connection::open(path).map_err(|e| way_out(path, e))?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(|e| way_out(path, e))?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| way_out(path, format!("cannot be used ({e})")))?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS outputs (
                fingerprint TEXT NOT NULL,
                premise TEXT NOT NULL,
                claim TEXT NOT NULL,
                value BLOB NOT NULL,
                PRIMARY KEY (fingerprint, premise, claim)
            ) WITHOUT ROWID;",
        )
        .map_err(|e| way_out(path, format!("cannot be used ({e})")))?;
        Ok(Cache {
            path: path.to_path_buf(),
            conn: Mutex::new(conn),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The stored output (f32 values) for a key, if any.
    pub fn get(
        &self,
        fingerprint: &str,
        premise: &str,
        claim: &str,
    ) -> Result<Option<Vec<f32>>, String> {
        Ok(self.get_bytes(fingerprint, premise, claim)?.map(|b| {
            b.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        }))
    }

    /// Stores a batch of f32 outputs in one transaction.
    pub fn put_many(&self, fingerprint: &str, rows: &[(&str, &str, &[f32])]) -> Result<(), String> {
        let blobs: Vec<(&str, &str, Vec<u8>)> = rows
            .iter()
            .map(|(p, c, v)| (*p, *c, v.iter().flat_map(|x| x.to_le_bytes()).collect()))
            .collect();
        let refs: Vec<(&str, &str, &[u8])> = blobs
            .iter()
            .map(|(p, c, b)| (*p, *c, b.as_slice()))
            .collect();
        self.put_bytes(fingerprint, &refs)
    }

    /// The stored bytes for a key (a judge stores its verdict as JSON), if any.
    pub fn get_bytes(
        &self,
        fingerprint: &str,
        premise: &str,
        claim: &str,
    ) -> Result<Option<Vec<u8>>, String> {
        let conn = self
            .conn
            .lock()
            .map_err(|_| "cache lock poisoned".to_string())?;
        let blob: Option<Vec<u8>> = conn
            .query_row(
                "SELECT value FROM outputs WHERE fingerprint = ?1 AND premise = ?2 AND claim = ?3",
                params![fingerprint, premise, claim],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| way_out(&self.path, e))?;
        Ok(blob)
    }

    /// Stores a batch of byte values in one transaction.
    pub fn put_bytes(&self, fingerprint: &str, rows: &[(&str, &str, &[u8])]) -> Result<(), String> {
        let mut conn = self
            .conn
            .lock()
            .map_err(|_| "cache lock poisoned".to_string())?;
        let tx = conn.transaction().map_err(|e| way_out(&self.path, e))?;
        {
            let mut stmt = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO outputs (fingerprint, premise, claim, value) VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(|e| way_out(&self.path, e))?;
            for (premise, claim, value) in rows {
                stmt.execute(params![fingerprint, premise, claim, value])
                    .map_err(|e| way_out(&self.path, e))?;
            }
        }
        tx.commit().map_err(|e| way_out(&self.path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_outputs_come_back_under_their_fingerprint_only() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::open(&dir.path().join("c.sqlite")).unwrap();
        c.put_many("fp1", &[("p", "c", &[0.25, 0.75])]).unwrap();
        assert_eq!(c.get("fp1", "p", "c").unwrap(), Some(vec![0.25, 0.75]));
        assert_eq!(c.get("fp2", "p", "c").unwrap(), None);
    }

    #[test]
    fn a_corrupt_file_is_a_clear_error_with_the_way_out() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.sqlite");
        std::fs::write(
            &p,
            b"this is not a database, just some bytes that fill a page or so..........",
        )
        .unwrap();
        let e = Cache::open(&p).err().unwrap();
        assert!(e.contains("--no-cache"), "{e}");
        assert!(e.contains("c.sqlite"), "{e}");
    }
}
