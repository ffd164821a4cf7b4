//! The side file of a suite: where `faithprobe review` writes a person's decisions.
//!
//! A suite is a file people write and comment, so the tool never rewrites it. Decisions go to
//! `NAME.reviews.yaml` beside `NAME.yaml`, one flow mapping a line in the order they were made,
//! and every write replaces the whole file atomically (a temp file, flushed, renamed): a kill
//! leaves the file as it was before or after a decision, never half of one. [`Suite::load`]
//! merges it; a mutant reviewed both in the suite and in its side file is an error, so no review
//! silently overrides another.
//!
//! Several writers may share one side file (twelve `review --set` at once, a terminal review
//! open while a script decides): every change is read-merge-write under an exclusive lock on
//! `NAME.reviews.yaml.lock` ([`SideFile::update`]), so no decision reported as saved is lost,
//! and a mutant another writer decided differently meanwhile is a conflict, never overwritten.

use super::schema::{self, ReviewKind};
use super::{Review, Suite};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// The side file of the suite at `suite`: `larkspur.yaml` -> `larkspur.reviews.yaml`.
pub fn path_of(suite: &Path) -> PathBuf {
    let stem = suite
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "suite".into());
    suite.with_file_name(format!("{stem}.reviews.yaml"))
}

use crate::io::write::Lock;

/// The suite whose side file `path` is (`larkspur.reviews.yaml` -> `larkspur.yaml`), when
/// `path` is named as a side file and that suite exists.
pub fn suite_of(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let stem = name
        .strip_suffix(".reviews.yaml")
        .filter(|s| !s.is_empty())?;
    Some(path.with_file_name(format!("{stem}.yaml"))).filter(|s| s.is_file())
}

/// One decision of a person about one mutant or rewrite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub kind: ReviewKind,
    pub why: Option<String>,
    /// A pending claim made a hard case: its type.
    pub case_type: Option<String>,
    /// A pending claim decided `borderline`: the label its rule gives it.
    pub label: Option<crate::model::case::HardCaseLabel>,
}

/// A side file: its decisions in the order they were made.
#[derive(Debug, Clone, PartialEq)]
pub struct SideFile {
    pub path: PathBuf,
    /// (mutant id, decision, line in the file when read from disk)
    pub entries: Vec<(String, Decision, Option<usize>)>,
}

#[derive(serde::Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a side file of reviews: a mapping with `reviews:` only"
)]
struct SideYaml {
    #[serde(default)]
    reviews: crate::io::yaml::Mapping,
}

const HELP: &str = "each line under `reviews:` is `MUTANT_ID: {review: fault}` or `MUTANT_ID: {review: equivalent, why: \"...\"}`; `faithprobe review SUITE` writes this file, or delete the line to undo a decision";

impl SideFile {
    /// An empty side file at `path`.
    pub fn new(path: PathBuf) -> SideFile {
        SideFile {
            path,
            entries: Vec::new(),
        }
    }

    /// Reads the side file at `path`, or `None` when there is none.
    pub fn load(path: &Path) -> Result<Option<SideFile>> {
        Ok(SideFile::read(path)?.map(|(file, _)| file))
    }

    /// Reads the side file at `path`, or starts an empty one there.
    pub fn load_or_new(path: PathBuf) -> Result<SideFile> {
        Ok(SideFile::load(&path)?.unwrap_or_else(|| SideFile::new(path)))
    }

    /// The side file at `path` with the text it was read from, or `None` when there is none.
    pub fn read(path: &Path) -> Result<Option<(SideFile, String)>> {
        match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            _ => {}
        }
        let text = crate::error::read_input(path)?;
        Ok(Some((SideFile::parse(path, &text)?, text)))
    }

    /// Parses side-file text; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<SideFile> {
        schema::check_plain_text(path, text, "write reasons as plain text")?;
        let file: SideYaml = if text.trim().is_empty() {
            SideYaml {
                reviews: Default::default(),
            }
        } else {
            crate::io::yaml::parse(path, text, HELP)?
        };
        let loc = super::Locator::new(text);
        let mut entries = Vec::new();
        for (k, v) in file.reviews {
            let Some(id) = k.as_str().map(str::to_string) else {
                return Err(Error::input(
                    path,
                    None,
                    format!(
                        "a review is keyed by `{}`, not by a mutant id",
                        crate::io::yaml::to_string(&k).unwrap_or_default().trim()
                    ),
                    HELP,
                ));
            };
            let line = loc.key(&id);
            let r: schema::ReviewFile = crate::io::yaml::from_value(v).map_err(|e| {
                Error::input(path, line, format!("the review of `{id}`: {e}"), HELP)
            })?;
            let why = r.why.filter(|w| !crate::text::words::is_blank(w));
            if let Some((message, help)) = super::validate::decision_problem(
                &id,
                r.review,
                why.as_deref(),
                r.case_type.as_deref(),
                r.label,
            ) {
                return Err(Error::input(path, line, message, help));
            }
            entries.push((
                id,
                Decision {
                    kind: r.review,
                    why,
                    case_type: r.case_type.filter(|t| !crate::text::words::is_blank(t)),
                    label: r.label,
                },
                line,
            ));
        }
        Ok(SideFile {
            path: path.to_path_buf(),
            entries,
        })
    }

    /// Adds this file's reviews to `suite` (read from `suite_text`) and folds the file's text
    /// into the suite's fingerprint. A mutant reviewed in both files is an error at the side
    /// file's line.
    pub fn merge_into(&self, suite: &mut Suite, suite_text: &str, side_text: &str) -> Result<()> {
        for (id, d, line) in &self.entries {
            if let Some(r) = suite.reviews.get(id) {
                return Err(Error::input(
                    &self.path,
                    *line,
                    format!(
                        "`{id}` is reviewed here and in {}{}",
                        r.file.display(),
                        r.line.map(|l| format!(":{l}")).unwrap_or_default()
                    ),
                    "keep one review: delete this line, or the one in the suite",
                ));
            }
            suite.reviews.insert(
                id.clone(),
                Review {
                    kind: d.kind,
                    why: d.why.clone(),
                    case_type: d.case_type.clone(),
                    label: d.label,
                    file: self.path.clone(),
                    line: *line,
                },
            );
        }
        suite.sha256 = crate::text::hash::sha256_hex(
            format!("{suite_text}\0{side_text}").as_bytes(),
            usize::MAX,
        );
        suite.side_file = Some(self.path.clone());
        Ok(())
    }

    /// The decision about `id`, if any.
    pub fn get(&self, id: &str) -> Option<&Decision> {
        self.entries
            .iter()
            .find(|(i, _, _)| i == id)
            .map(|(_, d, _)| d)
    }

    /// Records a decision (a new one goes last; a changed one moves last) or, with `None`,
    /// removes it. Returns the decision it replaced.
    pub fn set(&mut self, id: &str, decision: Option<Decision>) -> Option<Decision> {
        let old = self
            .entries
            .iter()
            .position(|(i, _, _)| i == id)
            .map(|at| self.entries.remove(at).1);
        if let Some(d) = decision {
            self.entries.push((id.to_string(), d, None));
        }
        old
    }

    /// The file's text: a header saying what it is, then one line per decision.
    pub fn render(&self, suite: &Path) -> String {
        let name = suite
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut o = format!(
            "# The reviews of {name}, written by `faithprobe review` as they are made (newest last).\n# faithprobe reads them with the suite. A line is `MUTANT_ID: {{review: fault}}` or\n# `MUTANT_ID: {{review: equivalent, why: \"...\"}}`, and for a pending claim\n# `CLAIM_ID: {{review: supported}}` or `CLAIM_ID: {{review: contradicted, type: T}}`;\n# delete a line to undo a decision.\nreviews:\n"
        );
        for (id, d, _) in &self.entries {
            let mut fields = vec![format!("review: {}", d.kind.as_str())];
            if let Some(t) = &d.case_type {
                fields.push(format!("type: {}", quote(t)));
            }
            if let Some(l) = d.label {
                fields.push(format!("label: {}", l.as_str()));
            }
            if let Some(why) = &d.why {
                fields.push(format!("why: {}", quote(why)));
            }
            // an id from a log can hold anything: quoted unless it is a plain YAML word
            let key = if !id.is_empty()
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.+-".contains(c))
                && !id.starts_with(['-', '.', '+'])
            {
                id.clone()
            } else {
                quote(id)
            };
            o.push_str(&format!("  {key}: {{{}}}\n", fields.join(", ")));
        }
        o
    }

    /// Changes the side file at `path` as another writer may be changing it too: under the
    /// file's lock, reads what is on disk now, lets `change` edit it (an error leaves the file as
    /// it was), writes it, and gives back what `change` returned and the file as written.
    pub fn update<T>(
        path: &Path,
        suite: &Path,
        change: impl FnOnce(&mut SideFile) -> Result<T>,
    ) -> Result<(T, SideFile)> {
        let _lock = Lock::acquire(path)?;
        let mut file = SideFile::load_or_new(path.to_path_buf())?;
        let before = file.entries.clone();
        let got = change(&mut file)?;
        if file.entries != before {
            file.save(suite)?;
        }
        Ok((got, file))
    }

    /// The line of `id` in the file as read, if it was read from disk.
    pub fn line_of(&self, id: &str) -> Option<usize> {
        self.entries
            .iter()
            .find(|(i, _, _)| i == id)
            .and_then(|(_, _, l)| *l)
    }

    /// Writes the file atomically; with no decisions left, removes it.
    pub fn save(&self, suite: &Path) -> Result<()> {
        if self.entries.is_empty() {
            return match std::fs::remove_file(&self.path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(Error::write(&self.path, e))
                }
                _ => Ok(()),
            };
        }
        crate::io::write::write_atomic(&self.path, self.render(suite).as_bytes())
    }
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.kind.as_str())?;
        if let Some(t) = &self.case_type {
            write!(f, " as {}", crate::text::escape::printable(t))?;
        }
        if let Some(l) = self.label {
            write!(f, " -> {}", l.as_str())?;
        }
        if let Some(why) = &self.why {
            write!(f, " ({})", crate::text::escape::printable(why))?;
        }
        Ok(())
    }
}

/// The error for a mutant another writer decided differently while this one was deciding it:
/// `now` is in the file, `ours` is what this writer meant to save. Nothing is overwritten.
pub fn conflict(file: &SideFile, id: &str, now: &Decision, ours: &Decision) -> Error {
    Error::input(
        &file.path,
        file.line_of(id),
        format!(
            "`{id}` was decided `{now}` by another review while this one decided `{ours}`: a conflict, so nothing was overwritten"
        ),
        "look at the mutant again (`faithprobe mutants SUITE`), then keep the line in the file or change it with `faithprobe review SUITE --set ID=DECISION`",
    )
}

/// A reason as a one-line YAML double-quoted scalar: line breaks and other control characters
/// become spaces (a reason is one line), quotes and backslashes are escaped.
fn quote(why: &str) -> String {
    let one_line: String = why
        .chars()
        .map(|c| {
            if c.is_control() || c == '\u{2028}' || c == '\u{2029}' || c == '\u{85}' {
                ' '
            } else {
                c
            }
        })
        .collect();
    serde_json::to_string(one_line.trim()).unwrap_or_default()
}

/// A reason as a person typed it, cleaned the way the side file stores it.
pub fn clean_reason(why: &str) -> Option<String> {
    let q = quote(why);
    let s: String = serde_json::from_str(&q).unwrap_or_default();
    (!crate::text::words::is_blank(&s)).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_side_file_sits_beside_the_suite() {
        assert_eq!(
            path_of(Path::new("suites/larkspur.yaml")),
            Path::new("suites/larkspur.reviews.yaml")
        );
        let dir = tempfile::tempdir().unwrap();
        let suite = dir.path().join("larkspur.yaml");
        let side = dir.path().join("larkspur.reviews.yaml");
        assert_eq!(suite_of(&side), None, "no such suite");
        std::fs::write(&suite, "suite: x\n").unwrap();
        assert_eq!(suite_of(&side), Some(suite.clone()));
        assert_eq!(suite_of(&suite), None);
    }

    #[test]
    fn a_written_file_reads_back_the_same_decisions_in_order() {
        let mut f = SideFile::new(PathBuf::from("s.reviews.yaml"));
        f.set(
            "m-2222222222222222",
            Some(Decision {
                kind: ReviewKind::Equivalent,
                why: clean_reason("still true: \"14 days\" is\nthe same\u{2028}as two weeks \\ ok"),
                case_type: None,
                label: None,
            }),
        );
        f.set(
            "m-1111111111111111",
            Some(Decision {
                kind: ReviewKind::Fault,
                why: None,
                case_type: None,
                label: None,
            }),
        );
        let text = f.render(Path::new("s.yaml"));
        let back = SideFile::parse(Path::new("s.reviews.yaml"), &text).unwrap();
        let ids: Vec<&str> = back.entries.iter().map(|(i, _, _)| i.as_str()).collect();
        assert_eq!(ids, ["m-2222222222222222", "m-1111111111111111"]);
        assert_eq!(
            back.entries[0].1.why.as_deref(),
            Some("still true: \"14 days\" is the same as two weeks \\ ok")
        );
        assert_eq!(back.entries[1].2, Some(8));
    }

    #[test]
    fn an_update_starts_from_the_file_on_disk_so_another_writers_decision_stays() {
        let dir = tempfile::tempdir().unwrap();
        let suite = dir.path().join("s.yaml");
        let path = path_of(&suite);
        let fault = || Decision {
            kind: ReviewKind::Fault,
            why: None,
            case_type: None,
            label: None,
        };
        // this writer read an empty file; another one saved a decision since
        let stale_view = SideFile::load_or_new(path.clone()).unwrap();
        let mut other = SideFile::new(path.clone());
        other.set("m-1111111111111111", Some(fault()));
        other.save(&suite).unwrap();
        let (_, written) = SideFile::update(&path, &suite, |f| {
            f.set("m-2222222222222222", Some(fault()));
            Ok(())
        })
        .unwrap();
        assert!(stale_view.entries.is_empty());
        let ids: Vec<&str> = written.entries.iter().map(|(i, _, _)| i.as_str()).collect();
        assert_eq!(ids, ["m-1111111111111111", "m-2222222222222222"]);
        assert_eq!(SideFile::load(&path).unwrap().unwrap().entries.len(), 2);
        assert!(
            crate::io::write::lock_path_of(&path).exists(),
            "the lock file stays"
        );
        // a change that fails writes nothing
        let e = SideFile::update(&path, &suite, |f| {
            f.set("m-1111111111111111", None);
            Err::<(), _>(Error::Usage("no".into()))
        });
        assert!(e.is_err());
        assert_eq!(SideFile::load(&path).unwrap().unwrap().entries.len(), 2);
    }

    #[test]
    fn an_equivalent_without_a_reason_names_its_line() {
        let e = SideFile::parse(
            Path::new("s.reviews.yaml"),
            "reviews:\n  m-1: {review: fault}\n  m-2: {review: equivalent}\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("s.reviews.yaml:3"), "{e}");
    }
}

#[cfg(test)]
mod claim_decisions {
    use super::*;
    use crate::model::case::HardCaseLabel;

    #[test]
    fn a_claim_decision_reads_back_with_its_type_label_and_rule() {
        let mut f = SideFile::new(PathBuf::from("s.reviews.yaml"));
        f.set(
            "r2-2",
            Some(Decision {
                kind: ReviewKind::Borderline,
                why: clean_reason("Issued refunds only: \"any refund\" counts as supported"),
                case_type: Some("overgeneralisation".into()),
                label: Some(HardCaseLabel::Supported),
            }),
        );
        let back =
            SideFile::parse(Path::new("s.reviews.yaml"), &f.render(Path::new("s.yaml"))).unwrap();
        assert_eq!(back.entries[0].1, f.entries[0].1);
    }

    #[test]
    fn an_id_from_a_log_that_is_no_plain_word_is_written_quoted_and_reads_back() {
        let mut f = SideFile::new(PathBuf::from("s.reviews.yaml"));
        for id in ["a: b\"1-1", "#7-1", "- x", "ok-1"] {
            f.set(
                id,
                Some(Decision {
                    kind: ReviewKind::Supported,
                    why: None,
                    case_type: None,
                    label: None,
                }),
            );
        }
        let text = f.render(Path::new("s.yaml"));
        let back = SideFile::parse(Path::new("s.reviews.yaml"), &text).unwrap();
        let ids: Vec<&str> = back.entries.iter().map(|(i, _, _)| i.as_str()).collect();
        assert_eq!(ids, ["a: b\"1-1", "#7-1", "- x", "ok-1"], "{text}");
        assert!(text.contains("  ok-1: {review: supported}"), "{text}");
    }

    #[test]
    fn a_claim_decision_missing_what_it_needs_names_its_line() {
        for (line, says) in [
            ("r1: {review: contradicted}", "without a `type`"),
            ("r1: {review: borderline, type: t}", "without a `label`"),
            ("r1: {review: supported, type: t}", "with a `type`"),
            (
                "r1: {review: not_found, type: t, label: supported}",
                "with a `label`",
            ),
        ] {
            let e = SideFile::parse(
                Path::new("s.reviews.yaml"),
                &format!("reviews:\n  m-1: {{review: fault}}\n  {line}\n"),
            )
            .unwrap_err()
            .to_string();
            assert!(
                e.starts_with("s.reviews.yaml:3") && e.contains(says),
                "{line}: {e}"
            );
        }
    }
}
