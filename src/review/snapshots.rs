//! Snapshot changes one verdict at a time.
//!
//! A pending change is a `.snap.new` beside its `.snap` (see [`crate::report::snapshot`]). Each line that
//! differs between them (a case's verdict, score, evidence or outcome; a case added or gone; the
//! header with the checker's settings) is one [`Change`]. Accepting one copies it into the
//! `.snap`; rejecting it copies the old line into the `.snap.new`. Either way the two files get
//! one difference closer, each write is atomic, and once they agree the `.snap.new` is removed:
//! a walk can stop anywhere and the next one finds only the changes still undecided.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// A snapshot file split into its header (through `---`) and its case lines by id.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapText {
    pub header: Vec<String>,
    pub rows: Vec<(String, String)>,
}

impl SnapText {
    pub fn parse(text: &str) -> SnapText {
        let mut header = Vec::new();
        let mut rows = Vec::new();
        let mut in_rows = false;
        for line in text.lines() {
            if in_rows {
                let id = line.split('\t').next().unwrap_or("").to_string();
                rows.push((id, line.to_string()));
            } else {
                header.push(line.to_string());
                in_rows = line == "---";
            }
        }
        SnapText { header, rows }
    }

    pub fn render(&self) -> String {
        let mut o = String::new();
        for l in self.header.iter().chain(self.rows.iter().map(|(_, l)| l)) {
            o.push_str(l);
            o.push('\n');
        }
        o
    }

    fn row(&self, id: &str) -> Option<&str> {
        self.rows
            .iter()
            .find(|(i, _)| i == id)
            .map(|(_, l)| l.as_str())
    }

    /// Sets the line of `id` (keeping its place, or where `render` puts it when new: sorted by
    /// kind and id), or removes it.
    fn set_row(&mut self, id: &str, line: Option<&str>) {
        let at = self.rows.iter().position(|(i, _)| i == id);
        match (at, line) {
            (Some(at), Some(l)) => self.rows[at].1 = l.to_string(),
            (Some(at), None) => {
                self.rows.remove(at);
            }
            (None, Some(l)) => {
                let key = row_key(id, l);
                let pos = self
                    .rows
                    .iter()
                    .position(|(i, r)| row_key(i, r) > key)
                    .unwrap_or(self.rows.len());
                self.rows.insert(pos, (id.to_string(), l.to_string()));
            }
            (None, None) => {}
        }
    }

    /// The header's `key: value`.
    pub fn field(&self, key: &str) -> Option<&str> {
        self.header
            .iter()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix(": "))
    }
}

/// One difference between a snapshot and its `.snap.new`.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// No `.snap` yet: the whole new snapshot is one decision.
    NewSnapshot { cases: usize },
    /// The header differs (the checker's settings changed).
    Header { old: Vec<String>, new: Vec<String> },
    /// A case's line: `old` is `None` for a new case, `new` is `None` for a case gone.
    Case {
        id: String,
        old: Option<String>,
        new: Option<String>,
    },
}

/// A `.snap.new` waiting for decisions, with its `.snap`.
#[derive(Debug, Clone)]
pub struct Pending {
    pub path: PathBuf,
    pub new_path: PathBuf,
    pub old: Option<SnapText>,
    pub new: SnapText,
}

impl Pending {
    /// Reads the pair of a `.snap.new` file.
    pub fn load(new_path: &Path) -> Result<Pending> {
        let path = new_path.with_extension("");
        let new = SnapText::parse(&crate::error::read_input(new_path)?);
        let old = match std::fs::read_to_string(&path) {
            Ok(s) => Some(SnapText::parse(&s)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(Error::io(&path, e)),
        };
        Ok(Pending {
            path,
            new_path: new_path.to_path_buf(),
            old,
            new,
        })
    }

    /// Every difference, the header first, then the cases in the new file's order, then the
    /// cases that are gone.
    pub fn changes(&self) -> Vec<Change> {
        let Some(old) = &self.old else {
            return vec![Change::NewSnapshot {
                cases: self.new.rows.len(),
            }];
        };
        let mut out = Vec::new();
        if old.header != self.new.header {
            out.push(Change::Header {
                old: old.header.clone(),
                new: self.new.header.clone(),
            });
        }
        for (id, line) in &self.new.rows {
            match old.row(id) {
                Some(o) if o == line => {}
                o => out.push(Change::Case {
                    id: id.clone(),
                    old: o.map(str::to_string),
                    new: Some(line.clone()),
                }),
            }
        }
        for (id, line) in &old.rows {
            if self.new.row(id).is_none() {
                out.push(Change::Case {
                    id: id.clone(),
                    old: Some(line.clone()),
                    new: None,
                });
            }
        }
        out
    }

    /// Takes the change into the `.snap`.
    pub fn accept(&mut self, change: &Change) -> Result<()> {
        match change {
            Change::NewSnapshot { .. } => {
                self.old = Some(self.new.clone());
            }
            Change::Header { new, .. } => {
                if let Some(old) = &mut self.old {
                    old.header = new.clone();
                }
            }
            Change::Case { id, new, .. } => {
                if let Some(old) = &mut self.old {
                    old.set_row(id, new.as_deref());
                }
            }
        }
        self.write_old()?;
        self.settle()
    }

    /// Takes the old line back into the `.snap.new`.
    pub fn reject(&mut self, change: &Change) -> Result<()> {
        match change {
            Change::NewSnapshot { .. } => {
                std::fs::remove_file(&self.new_path)
                    .map_err(|e| Error::write(&self.new_path, e))?;
                return Ok(());
            }
            Change::Header { old, .. } => self.new.header = old.clone(),
            Change::Case { id, old, .. } => self.new.set_row(id, old.as_deref()),
        }
        crate::io::write::write_atomic(&self.new_path, self.new.render().as_bytes())?;
        self.settle()
    }

    fn write_old(&self) -> Result<()> {
        match &self.old {
            Some(old) => crate::io::write::write_atomic(&self.path, old.render().as_bytes()),
            None => Ok(()),
        }
    }

    /// Removes the `.snap.new` once nothing is left to decide (the `.snap` then holds the
    /// decided text: the accepted lines, and the old ones where changes were rejected).
    fn settle(&mut self) -> Result<()> {
        if self.changes().is_empty() {
            match std::fs::remove_file(&self.new_path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(Error::write(&self.new_path, e));
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Where a line sorts in a snapshot: by its case kind, then its id (as [`crate::report::snapshot::render`]).
fn row_key(id: &str, line: &str) -> (Option<crate::model::case::CaseKind>, String) {
    let kind = line.split('\t').nth(1).and_then(|k| {
        serde_json::from_value::<crate::model::case::CaseKind>(serde_json::Value::String(k.into()))
            .ok()
    });
    (kind, id.to_string())
}

/// The columns of a snapshot line, by name.
fn fields(line: &str) -> Vec<&str> {
    line.splitn(10, '\t').collect()
}

/// The screen of one change.
pub fn screen(p: &Pending, change: &Change, at: usize, of: usize) -> String {
    let header = p.old.as_ref().unwrap_or(&p.new);
    let mut o = format!(
        "faithprobe review --snapshots · {} · change {at} of {of}\n\n",
        p.path.display()
    );
    o.push_str(&format!(
        "suite     {}\nchecker   {} ({})\n",
        header.field("suite").unwrap_or("?"),
        p.new.field("checker").unwrap_or("?"),
        p.new.field("kind").unwrap_or("?"),
    ));
    let printable = crate::text::escape::printable;
    match change {
        Change::NewSnapshot { cases } => o.push_str(&format!(
            "new       no snapshot yet: {} with {cases} verdicts\n",
            p.new_path.display()
        )),
        Change::Header { old, new } => {
            o.push_str("header    the checker's settings or the columns changed\n");
            for l in old.iter().filter(|l| !new.contains(l)) {
                o.push_str(&format!("  before  {}\n", printable(l)));
            }
            for l in new.iter().filter(|l| !old.contains(l)) {
                o.push_str(&format!("  after   {}\n", printable(l)));
            }
        }
        Change::Case { id, old, new } => {
            let any = new.as_deref().or(old.as_deref()).unwrap_or("");
            let f = fields(any);
            let get = |i: usize| f.get(i).copied().unwrap_or("-");
            o.push_str(&format!(
                "case      {id} ({}, fault type {}, expected {}, role {})\n",
                get(1),
                get(2),
                get(3),
                get(4)
            ));
            o.push_str(&format!("claim     {}\n", printable(get(9))));
            let side = |line: &Option<String>| match line {
                None => "(no such case)".to_string(),
                Some(l) => {
                    let f = fields(l);
                    let g = |i: usize| f.get(i).copied().unwrap_or("-");
                    format!(
                        "verdict {} · score {} · evidence {} · {}",
                        g(5),
                        g(6),
                        g(7),
                        g(8)
                    )
                }
            };
            o.push_str(&format!("before    {}\n", printable(&side(old))));
            o.push_str(&format!("after     {}\n", printable(&side(new))));
        }
    }
    o.push_str("\n[a] accept  [r] reject  [s] skip  [?] help  [q] quit\n");
    o
}

/// The help screen of a snapshot walk.
pub const HELP: &str = "\
Each change is one verdict that differs between a snapshot and its .snap.new:
  a  accept: the new line goes into the .snap
  r  reject: the old line goes back into the .snap.new
  s  skip: decide later
  q  quit: every decision is already written
Once a snapshot and its .snap.new agree, the .snap.new is removed.
Press any key to go back.";

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "# s\nsuite: s\nchecker: lexical\nkind: lexical\nsettings: {threshold=0.75}\ncolumns: x\n---\na1\toriginal\t-\tsupported\tfalse_alarm_opportunity\tsupported\t1.000\tp1\tpassed\tA.\nm-1\tmutant\tnumber_swap\tflagged\tfault\tsupported\t0.900\tp1\tmissed\tB.\nm-2\tmutant\tnumber_swap\tflagged\tfault\tnot_found\t0.500\tp1\tcaught\tC.\n";

    #[test]
    fn accepting_one_change_and_rejecting_the_other_settles_the_pair() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.lexical.snap");
        let new_path = dir.path().join("s.lexical.snap.new");
        std::fs::write(&path, OLD).unwrap();
        let new =
            OLD.replace(
                "supported\t0.900\tp1\tmissed",
                "contradicted\t0.300\tp1\tcaught",
            )
            .replace(
                "m-2\tmutant\tnumber_swap\tflagged\tfault\tnot_found\t0.500\tp1\tcaught\tC.\n",
                "",
            ) + "m-3\tmutant\tnegation_flip\tflagged\tfault\tcontradicted\t0.300\tp1\tcaught\tD.\n";
        std::fs::write(&new_path, &new).unwrap();
        let mut p = Pending::load(&new_path).unwrap();
        let changes = p.changes();
        assert_eq!(changes.len(), 3, "{changes:?}");
        p.accept(&changes[0]).unwrap(); // m-1 now caught
        p.reject(&changes[2]).unwrap(); // m-2 stays
        assert!(new_path.exists());
        p.accept(&changes[1]).unwrap(); // m-3 added
        assert!(!new_path.exists(), "settled");
        let snap = std::fs::read_to_string(&path).unwrap();
        assert!(snap.contains("m-1\tmutant\tnumber_swap\tflagged\tfault\tcontradicted"));
        assert!(snap.contains("m-2\t"));
        assert!(snap.ends_with(
            "m-3\tmutant\tnegation_flip\tflagged\tfault\tcontradicted\t0.300\tp1\tcaught\tD.\n"
        ));
    }
}
