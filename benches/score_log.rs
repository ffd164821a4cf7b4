//! Benchmark: `faithprobe score` on logs of 1k, 10k, 18k and 100k answers, for answers/s and the
//! peak resident memory of the scoring process (exact, from `wait4`'s rusage), which must stay
//! flat as the log grows.
//!
//! Each answer looks like a production log line (about 3 KB): a question, an answer of five
//! sentences opening with a framing line, three passages of about 800 characters with numbers,
//! a model tag and extra keys. The release binary is run with the built-in lexical checker and
//! `--record` (the record is streamed to disk too). `-- --quick` runs 1k answers once (used by
//! the test command to keep this target working); `-- --sizes 1000,10000` picks sizes.
//!
//! `-- --shared 10,100,1000` instead scores 512 answers (two chunks of 256) that all cite one
//! shared context of 10 KB, 100 KB and 1 MB from a contexts file (`--contexts`), as logs of one
//! long document do: memory must not grow with the context times the answers of a chunk.

use std::io::Write;
use std::process::Command;
use std::time::Instant;

fn write_log(path: &std::path::Path, answers: usize, plain: bool) -> f64 {
    let f = std::fs::File::create(path).unwrap();
    let mut w = std::io::BufWriter::new(f);
    for i in 0..answers {
        let n = i % 997;
        let passages: Vec<serde_json::Value> = (0..3)
            .map(|p| {
                serde_json::json!({
                    "id": format!("doc-{n}-{p}"),
                    "text": format!(
                        "Plan {n} costs $ {} million a year and includes up to {} seats. Storage is pooled across the workspace, and each seat gets {} GB. \
                         Annual contracts for plan {n} can be refunded in full within 14 days of signing; after that they are not refundable. \
                         Single sign-on is available only on the Enterprise tier, and audit logs are kept for {} days. \
                         Support replies within {} hours on weekdays. Exports are delivered as ZIP files and links expire after 7 days. \
                         The plan was introduced in {} and is sold in {} countries. Prices exclude VAT. Discounts need a signed order form.",
                        1 + (n + p) % 9, 10 + p * 5, 50 + p * 10, 90 + p, 4 + p, 2010 + p, 20 + n % 30
                    )
                })
            })
            .collect();
        let answer = format!(
            "Here is a summary of plan {n}:\n\n- Plan {n} costs ${} million a year and includes up to 10 seats.\n- Each seat gets {} GB of pooled storage.\n- Annual contracts can be refunded within {} days of signing.\n\nSupport replies within {} hours on weekdays, and exports are encrypted.",
            1 + n % 9,
            if i % 4 == 0 { 60 } else { 50 },
            if i % 5 == 0 { 30 } else { 14 },
            4 + i % 2
        );
        let line = if plain {
            // what faithprobe before streaming accepted: string ids, no extra keys
            serde_json::json!({
                "id": format!("{i}"),
                "question": format!("What does plan {n} cost and include?"),
                "answer": answer,
                "passages": passages,
                "tag": format!("model-{}", i % 3),
            })
        } else {
            serde_json::json!({
                "id": i,
                "question": format!("What does plan {n} cost and include?"),
                "answer": answer,
                "passages": passages,
                "tag": format!("model-{}", i % 3),
                "request_id": format!("req-{i:08x}"),
                "latency_ms": 300 + i % 700,
            })
        };
        serde_json::to_writer(&mut w, &line).unwrap();
        w.write_all(b"\n").unwrap();
    }
    w.flush().unwrap();
    std::fs::metadata(path).unwrap().len() as f64 / 1e6
}

/// A log of `answers` answers that all cite context `doc` of a contexts file holding one passage
/// of about `kb` KB of help-center prose with numbers; returns (log, contexts).
fn write_shared(
    dir: &std::path::Path,
    answers: usize,
    kb: usize,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let mut text = String::new();
    let mut i = 0;
    while text.len() < kb * 1024 {
        text.push_str(&format!(
            "Section {i}: plan {i} costs $ {} million a year and includes up to {} seats; refunds are possible within {} days of signing. ",
            1 + i % 9,
            10 + i % 40,
            7 + i % 21
        ));
        i += 1;
    }
    let contexts = dir.join(format!("contexts-{kb}.jsonl"));
    std::fs::write(
        &contexts,
        serde_json::json!({"id": "doc", "passages": [{"id": "manual", "text": text}]}).to_string()
            + "\n",
    )
    .unwrap();
    let log = dir.join(format!("shared-{kb}.jsonl"));
    let mut w = std::io::BufWriter::new(std::fs::File::create(&log).unwrap());
    for a in 0..answers {
        let n = a % 50;
        let line = serde_json::json!({
            "id": a,
            "question": format!("What does plan {n} cost?"),
            "answer": format!("Here is what the manual says:\n\n- Plan {n} costs $ {} million a year.\n- It includes up to {} seats.", 1 + n % 9, 10 + n % 40),
            "context": "doc",
            "tag": format!("model-{}", a % 3),
        });
        serde_json::to_writer(&mut w, &line).unwrap();
        w.write_all(b"\n").unwrap();
    }
    w.flush().unwrap();
    (log, contexts)
}

/// Runs the binary; returns (seconds, peak RSS in MB). The child is reaped by `wait4` (for its
/// rusage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn score(
    binary: &str,
    log: &std::path::Path,
    record: &std::path::Path,
    old: bool,
    contexts: Option<&std::path::Path>,
) -> (f64, f64) {
    let t = Instant::now();
    let mut args = vec!["score", log.to_str().unwrap(), "--no-cache", "--record"];
    let rec = record.to_str().unwrap();
    args.push(rec);
    if let Some(c) = contexts {
        args.extend(["--contexts", c.to_str().unwrap()]);
    }
    if !old {
        args.extend(["--show", "none"]);
    }
    let child = Command::new(binary)
        .args(&args)
        .env(
            "FAITHPROBE_CONFIG",
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/empty-config.yaml"
            ),
        )
        .env_remove("CI")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for the child we spawned and reaps it
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    let secs = t.elapsed().as_secs_f64();
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "score failed: status {status}"
    );
    (secs, usage.ru_maxrss as f64 / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let mut sizes = if quick {
        vec![1_000]
    } else {
        vec![1_000, 10_000, 18_000, 100_000]
    };
    if let Some(s) = args
        .iter()
        .position(|a| a == "--sizes")
        .and_then(|i| args.get(i + 1))
    {
        sizes = s.split(',').filter_map(|x| x.parse().ok()).collect();
    }
    let runs = if quick { 1 } else { 3 };
    // `--binary PATH --old`: another faithprobe (the baseline) on logs it can read
    let binary = args
        .iter()
        .position(|a| a == "--binary")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_faithprobe").to_string());
    let old = args.iter().any(|a| a == "--old");
    let dir = tempfile::tempdir().unwrap();
    let shared: Vec<usize> = match args
        .iter()
        .position(|a| a == "--shared")
        .and_then(|i| args.get(i + 1))
    {
        Some(s) => s.split(',').filter_map(|x| x.parse().ok()).collect(),
        None if quick => vec![10],
        None => Vec::new(),
    };
    for kb in &shared {
        let (log, contexts) = write_shared(dir.path(), 512, *kb);
        let record = dir.path().join("record.json");
        let mut results: Vec<(f64, f64)> = (0..runs)
            .map(|_| score(&binary, &log, &record, old, Some(&contexts)))
            .collect();
        results.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (secs, _) = results[results.len() / 2];
        let peak = results.iter().map(|r| r.1).fold(0.0, f64::max);
        println!(
            "score_log shared context: 512 answers citing one {kb} KB context: median {secs:.2} s of {runs} ({:.0} answers/s), peak RSS {peak:.0} MB",
            512.0 / secs
        );
    }
    if args.iter().any(|a| a == "--shared") {
        return;
    }
    for n in sizes {
        let log = dir.path().join(format!("log-{n}.jsonl"));
        let mb = write_log(&log, n, old);
        let record = dir.path().join("record.json");
        let mut results: Vec<(f64, f64)> = (0..runs)
            .map(|_| score(&binary, &log, &record, old, None))
            .collect();
        results.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (secs, _) = results[results.len() / 2];
        let peak = results.iter().map(|r| r.1).fold(0.0, f64::max);
        println!(
            "score_log{}: {n} answers ({mb:.1} MB of log): median {secs:.2} s of {runs} ({:.0} answers/s), peak RSS {peak:.0} MB (runs: {})",
            if old { " (baseline binary)" } else { "" },
            n as f64 / secs,
            results
                .iter()
                .map(|r| format!("{:.2} s/{:.0} MB", r.0, r.1))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}
