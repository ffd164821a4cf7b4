//! Benchmark: `faithprobe score` on long news passages with an int8 NLI cross-encoder, the scan
//! that stops at a claim's most promising window against `--full-scan`, and both against bare
//! ONNX Runtime (`benches/bare_ort.py`, same threads) on the pairs a full scan scores.
//!
//! Workload (written here, deterministic): answers in the shape of news summaries, each citing
//! one article of 20-40 sentences (councils, budgets, companies, people quoted, dates and
//! amounts), with a summary of 4-8 sentences: most copied from the article, some paraphrased
//! (other words, clauses swapped), some with a number or a name changed. Checker: the int8
//! MiniLM cross-encoder `ci/make-minilm.sh` makes, `top_windows: 5`, two-sentence windows,
//! 2 threads, batches of 32.
//!
//! The model's head is random (no trained NLI model can be fetched here), so its threshold is
//! set where a trained model would put faithful summaries: at the 25th percentile of the
//! full scan's claim scores, so that about three claims in four are supported. How many claims
//! the first window settles depends on that share; the pairs, the verdicts compared and the
//! times are real.
//!
//! Prints answers/s, pairs scored per claim, the scoring process's peak resident memory, the
//! share of claim verdicts equal to `--full-scan`, and the ratio of faithprobe's wall time to
//! bare ONNX Runtime's on the full scan's pairs. Each round runs the full scan, the early scan and
//! one pass of bare ONNX Runtime in turn, and the ratio is the median of the rounds' own ratios.
//! `cargo bench --bench long_passages` (median of 3 of each); `-- --quick`: 40 answers, once;
//! `-- --keep`: the folder (log, config, pairs) is kept and named at the end, to rerun
//! `faithprobe score` on it by hand.

use faithprobe::check::windows::{passage_sentences, top_windows, topic_words, windows_of};
use faithprobe::model::suite::Passage;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

const CITIES: [&str; 8] = [
    "Larkspur",
    "Ashford",
    "Millbrook",
    "Eastvale",
    "Corrin",
    "Halden",
    "Brookmere",
    "Tallis",
];
const PEOPLE: [&str; 8] = [
    "Maria Okafor",
    "James Whitley",
    "Ana Duarte",
    "Tomasz Nowak",
    "Priya Raman",
    "Lena Hart",
    "Omar Haddad",
    "Grace Lin",
];
const ROLES: [&str; 4] = [
    "the mayor",
    "the finance director",
    "a council member",
    "the spokesperson",
];
const DAYS: [&str; 5] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];

/// One article sentence and its paraphrase.
fn sentence(r: &mut Lcg, city: &str) -> (String, String) {
    let n = 2 + r.next(90);
    let p = PEOPLE[r.next(PEOPLE.len())];
    let role = ROLES[r.next(ROLES.len())];
    let day = DAYS[r.next(DAYS.len())];
    match r.next(8) {
        0 => (
            format!("The {city} city council approved a budget of $ {n} million on {day}."),
            format!("On {day}, a ${n} million budget was approved by the {city} council."),
        ),
        1 => (
            format!("{p}, {role}, said the plan would add {n} new bus routes by next spring."),
            format!("According to {p}, the plan adds {n} bus routes by next spring."),
        ),
        2 => (
            format!("Unemployment in {city} fell to {}.{} per cent in the third quarter.", n % 12, n % 10),
            format!("In the third quarter, {city}'s jobless rate dropped to {}.{} per cent.", n % 12, n % 10),
        ),
        3 => (
            format!("\"We expect the new library to open in {}\", {p} told reporters.", 2026 + n % 4),
            format!("{p} told reporters the library should open in {}.", 2026 + n % 4),
        ),
        4 => (
            format!("The company behind the project employs {n}0 people and is based in {city}."),
            format!("Based in {city}, the firm has a staff of {n}0."),
        ),
        5 => (
            format!("Tickets for the festival cost €{},50 and sold out within {} hours.", n % 40, n % 24 + 1),
            format!("The festival sold out in {} hours at €{},50 a ticket.", n % 24 + 1, n % 40),
        ),
        6 => (
            format!("Residents raised concerns about traffic on the northern bridge, which carries {n}00 cars a day."),
            format!("The northern bridge, used by {n}00 cars daily, worried residents."),
        ),
        _ => (
            format!("The school district hired {n} teachers ahead of the new term, {role} said."),
            format!("Ahead of the term, {n} teachers were hired by the school district."),
        ),
    }
}

/// Writes the log; returns its path.
fn write_log(dir: &Path, answers: usize) -> PathBuf {
    let path = dir.join("news.jsonl");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut r = Lcg(7);
    for i in 0..answers {
        let city = CITIES[r.next(CITIES.len())];
        let n = 20 + r.next(21);
        let pairs: Vec<(String, String)> = (0..n).map(|_| sentence(&mut r, city)).collect();
        let article = pairs
            .iter()
            .map(|(s, _)| s.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let k = 4 + r.next(5);
        let mut summary = vec!["Here is a summary:".to_string()];
        for _ in 0..k {
            let (orig, para) = &pairs[r.next(n)];
            let s = match r.next(10) {
                0..=5 => orig.clone(),
                6..=8 => para.clone(),
                // a changed number: a real error
                _ => orig.replacen(|c: char| c.is_ascii_digit(), "9", 1),
            };
            summary.push(s);
        }
        let line = serde_json::json!({
            "id": format!("news-{i}"),
            "question": format!("Summarise the article about {city}."),
            "answer": summary.join(" "),
            "passages": [{"id": format!("article-{i}"), "text": article}],
        });
        writeln!(w, "{line}").unwrap();
    }
    path
}

struct Scored {
    seconds: f64,
    peak_mb: f64,
    pairs: usize,
    claims: Vec<(String, String)>,
    verdicts: Vec<String>,
    scores: Vec<f64>,
}

/// Runs `faithprobe score`; the child is reaped by `wait4` (for its peak resident memory), not
/// by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn score(dir: &Path, log: &Path, checker: &str, extra: &[&str]) -> Scored {
    use std::io::Read;
    let t = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_faithprobe"))
        .current_dir(dir)
        .args([
            "score",
            log.to_str().unwrap(),
            "--checker",
            checker,
            "--no-cache",
            "--format",
            "json",
        ])
        .args(extra)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        stderr.read_to_end(&mut v).unwrap();
        v
    });
    let mut stdout = Vec::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut stdout)
        .unwrap();
    let stderr = err_reader.join().unwrap();
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for the child we spawned and reaps it
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    let peak_mb = usage.ru_maxrss as f64 / 1024.0;
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    let seconds = t.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&stderr);
    assert!(code.is_some_and(|c| c <= 1), "{err}");
    // "nli: 1234 distinct premise-claim pairs: 0 from the cache, 1234 scored by the model ..."
    let pairs = err
        .lines()
        .find_map(|l| {
            l.split(" from the cache, ")
                .nth(1)?
                .split(' ')
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("{err}"));
    let v: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
    let mut s = Scored {
        seconds,
        peak_mb,
        pairs,
        claims: Vec::new(),
        verdicts: Vec::new(),
        scores: Vec::new(),
    };
    for a in v["answers"].as_array().unwrap() {
        let passage = a["id"].as_str().unwrap().replace("news-", "article-");
        for c in a["claims"].as_array().unwrap() {
            s.claims
                .push((passage.clone(), c["text"].as_str().unwrap().to_string()));
            s.verdicts
                .push(c["verdict"].as_str().unwrap_or("error").to_string());
            s.scores.push(c["score"].as_f64().unwrap_or(0.0));
        }
    }
    s
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Writes the distinct pairs a full scan scores, built as the checker builds them (two-sentence
/// windows, the 5 sharing most topic words with the claim), for bare ONNX Runtime; their count.
fn write_pairs(log: &Path, claims: &[(String, String)], pairs_file: &Path) -> usize {
    let text: std::collections::HashMap<String, String> = std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["passages"][0]["id"].as_str().unwrap().to_string(),
                v["passages"][0]["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut w = std::io::BufWriter::new(std::fs::File::create(pairs_file).unwrap());
    let mut seen = std::collections::HashSet::new();
    for (pid, claim) in claims {
        let ps = [Passage {
            id: pid.clone(),
            text: text[pid].clone(),
        }];
        let windows = windows_of(&passage_sentences(&ps), 2);
        let words: Vec<_> = windows.iter().map(|w| topic_words(&w.text)).collect();
        for i in top_windows(&topic_words(claim), &words, 5) {
            if seen.insert((windows[i].text.clone(), claim.clone())) {
                writeln!(
                    w,
                    "{}\t{}",
                    windows[i].text.replace('\t', " "),
                    claim.replace('\t', " ")
                )
                .unwrap();
            }
        }
    }
    drop(w);
    seen.len()
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let keep = std::env::args().any(|a| a == "--keep");
    let (answers, reps) = if quick { (40, 1) } else { (150, 3) };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = root.join("target/models/minilm-xenc-int8");
    assert!(
        model.join("model.onnx").is_file(),
        "run `bash ci/setup.sh && bash ci/make-minilm.sh` first"
    );
    let dir = tempfile::tempdir().unwrap();
    let log = write_log(dir.path(), answers);
    let config = |threshold: f64| {
        std::fs::write(
            dir.path().join("faithprobe.yaml"),
            format!(
                "checkers:\n  nli:\n    kind: nli\n    model: {}\n    top_windows: 5\n    max_window_sentences: 2\n    threads: 2\n    batch_size: 32\n    threshold: {threshold}\n",
                model.display()
            ),
        )
        .unwrap();
    };
    // the threshold at which about three claims in four are supported (see the header)
    config(0.5);
    let probe = score(dir.path(), &log, "nli", &["--full-scan"]);
    let mut sorted = probe.scores.clone();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let threshold = sorted[sorted.len() / 4];
    config(threshold);

    // the pairs a full scan scores: the probe's claims are the full scan's
    let pairs_file = dir.path().join("pairs.tsv");
    let bare_pairs = write_pairs(&log, &probe.claims, &pairs_file);
    let py = root.join("target/venv/bin/python");
    // one pass of bare ONNX Runtime; its seconds
    let bare_once = || -> f64 {
        let out = Command::new(&py)
            .arg(root.join("benches/bare_ort.py"))
            .arg(model.join("model.onnx"))
            .arg(model.join("tokenizer.json"))
            .arg(&pairs_file)
            .args(["--threads", "2", "--batch", "32", "--reps", "1"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bare = String::from_utf8_lossy(&out.stdout);
        bare.split_whitespace().next().unwrap().parse().unwrap()
    };

    // each round runs the full scan, the early scan and bare ONNX Runtime one after the other,
    // so a round's ratios compare runs made at the same moment (this machine's speed moves by
    // more than the ratios between rounds)
    let mut full_t = Vec::new();
    let mut early_t = Vec::new();
    let mut bare_t = Vec::new();
    let (mut full, mut early) = (None, None);
    let (mut full_mb, mut early_mb) = (0f64, 0f64);
    for _ in 0..reps {
        let f = score(dir.path(), &log, "nli", &["--full-scan"]);
        full_t.push(f.seconds);
        full_mb = full_mb.max(f.peak_mb);
        full = Some(f);
        let e = score(dir.path(), &log, "nli", &[]);
        early_t.push(e.seconds);
        early_mb = early_mb.max(e.peak_mb);
        early = Some(e);
        bare_t.push(bare_once());
    }
    let (full, early) = (full.unwrap(), early.unwrap());
    assert_eq!(
        full.claims, probe.claims,
        "the full scan reads the same claims"
    );
    let claims = full.claims.len();
    let same = full
        .verdicts
        .iter()
        .zip(&early.verdicts)
        .filter(|(a, b)| a == b)
        .count();
    let supported = full.verdicts.iter().filter(|v| *v == "supported").count();

    let bare_s = median(bare_t.clone());
    let ratio = |t: &[f64]| median(t.iter().zip(&bare_t).map(|(a, b)| a / b).collect());
    let (ft, et) = (median(full_t.clone()), median(early_t.clone()));
    println!("long_passages: {answers} answers, {claims} claims ({supported} supported under the full scan at threshold {threshold:.4}), int8 MiniLM, top_windows 5, 2 threads");
    println!("  --full-scan: {:.2} s median of {reps} ({:?}), {:.1} answers/s, {} pairs ({:.2} per claim), peak RSS {full_mb:.0} MB", ft, full_t, answers as f64 / ft, full.pairs, full.pairs as f64 / claims as f64);
    println!("  default:     {:.2} s median of {reps} ({:?}), {:.1} answers/s, {} pairs ({:.2} per claim), peak RSS {early_mb:.0} MB", et, early_t, answers as f64 / et, early.pairs, early.pairs as f64 / claims as f64);
    println!(
        "  verdicts equal to --full-scan: {same} of {claims} ({:.1}%)",
        100.0 * same as f64 / claims as f64
    );
    println!("  bare ONNX Runtime on the full scan's {bare_pairs} pairs: {bare_s:.2} s median of {reps} ({bare_t:?}; length-sorted batches of 32, 2 threads)");
    println!(
        "  faithprobe / bare, median of the rounds' ratios: default {:.2}, --full-scan {:.2} (ratios of the medians: {:.2}, {:.2})",
        ratio(&early_t),
        ratio(&full_t),
        et / bare_s,
        ft / bare_s
    );
    if keep {
        println!(
            "  kept: {} (faithprobe.yaml, news.jsonl, pairs.tsv)",
            dir.keep().display()
        );
    }
}
