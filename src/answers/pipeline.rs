//! The streaming pipeline of `score`, as a library: read a log in chunks, decompose and verify
//! each chunk's claims in one checker call (so model checkers batch), find omissions when asked,
//! add every result to the summary built one answer at a time and to a disk spool, and stop
//! cleanly on Ctrl-C. Memory is bounded by a chunk, not by the log. The binary only parses
//! flags, draws progress and writes the outputs.

use super::decompose::Decomposer;
use super::log::LogReader;
use super::score::{find_omissions, score_chunk, ScoreRecord};
use super::spool::Spool;
use super::tally::Tally;
use crate::check::Checker;
use crate::error::{Error, Result};
use crate::io::llm::LlmClient;

/// Answers scored per checker call: large enough to batch, small enough to bound memory.
pub const CHUNK: usize = 256;
/// Malformed log lines kept one by one for the report; the rest are counted.
pub(crate) const MAX_SHOWN_ERRORS: usize = 20;
/// Answers kept for the omissions review queue of the human report.
pub(crate) const MAX_QUEUE: usize = 500;

/// One answer's omissions: the conditions found, or why the check failed.
pub type Omissions = (String, std::result::Result<Vec<String>, String>);

/// What scoring a log produced.
pub struct Scored {
    /// The record's head, with the log's SHA-256 and the lines not read filled in.
    pub head: ScoreRecord,
    /// The summary so far (complete unless interrupted).
    pub tally: Tally,
    /// Every scored answer, in log order, on disk.
    pub spool: Spool,
    /// Answers scored.
    pub done: usize,
    /// The first malformed records (each names its line), and how many more there were.
    pub bad_lines: Vec<Error>,
    pub more_bad: usize,
    /// Answers with omissions found (or an omissions check that failed), for review.
    pub queue: Vec<Omissions>,
    /// Ctrl-C (or SIGTERM, SIGHUP) stopped it after the chunk in flight.
    pub interrupted: bool,
    /// Answers that have no passage text: (id, line).
    pub without_passages: Vec<(String, Option<usize>)>,
    /// Labels of the side file that matched no answer.
    pub unmatched_labels: Vec<String>,
}

/// Scores every answer `reader` yields. `progress` is called after each chunk with the number of
/// answers scored so far and the bytes of the log read so far (the work done: later answers with
/// longer passages cost more than earlier short ones). An I/O error reading the log ends it with that error; a malformed
/// record is kept (named by its line) and the rest is scored.
pub fn score_log(
    mut reader: LogReader,
    decomposer: &dyn Decomposer,
    checker: &dyn Checker,
    omissions: Option<&LlmClient>,
    mut tally: Tally,
    mut head: ScoreRecord,
    progress: &mut dyn FnMut(usize, u64),
) -> Result<Scored> {
    let mut spool = Spool::new()?;
    let mut bad_lines: Vec<Error> = Vec::new();
    let mut more_bad = 0usize;
    let mut done = 0usize;
    let mut queue: Vec<Omissions> = Vec::new();
    let mut chunk = Vec::with_capacity(CHUNK);
    let mut ended = false;
    while !ended {
        chunk.clear();
        while chunk.len() < CHUNK {
            match reader.next() {
                None => {
                    ended = true;
                    break;
                }
                Some(Ok(a)) => chunk.push(a),
                Some(Err(e @ Error::Input { .. })) => {
                    if bad_lines.len() < MAX_SHOWN_ERRORS {
                        bad_lines.push(e);
                    } else {
                        more_bad += 1;
                    }
                }
                Some(Err(e)) => return Err(e),
            }
        }
        if chunk.is_empty() {
            break;
        }
        let mut results = score_chunk(&chunk, decomposer, checker, &mut |_, _| {});
        if let Some(client) = omissions {
            find_omissions(&mut results, &chunk, client);
        }
        for r in &results {
            if let Some(o) = &r.omissions {
                if queue.len() < MAX_QUEUE && o.as_ref().map_or(true, |l| !l.is_empty()) {
                    queue.push((r.id.clone(), o.clone()));
                }
            }
            tally.add(r);
            spool.push(r)?;
        }
        done += results.len();
        progress(done, reader.bytes_read());
        if crate::io::interrupt::requested() {
            break;
        }
    }
    head.log_sha256 = reader.sha256();
    head.lines_not_read = bad_lines.len() + more_bad;
    tally.without_passages = reader.without_passages.len();
    Ok(Scored {
        head,
        tally,
        spool,
        done,
        bad_lines,
        more_bad,
        queue,
        interrupted: crate::io::interrupt::requested(),
        unmatched_labels: reader.unmatched_labels(),
        without_passages: std::mem::take(&mut reader.without_passages),
    })
}
