//! Benchmark: NLI pairs per second, the full `run` pipeline against bare `session.run` calls.
//!
//! Model: the real-size all-MiniLM-L6-v2 cross-encoder from `ci/make-minilm.sh`
//! (target/models/minilm-xenc: the real encoder's cost, a random head, so speed only).
//! Pairs: every distinct (sentence window, claim) pair of the shipped Larkspur suite.
//!
//! - full: `run_suite` with the `nli` checker and no cache: window building, tokenising, length
//!   checks, sorting, batching, inference, softmax and verdicts; pairs / wall time.
//! - bare: the same pairs pre-tokenised into length-sorted batches of the same size, timing only
//!   the ONNX Runtime session calls: the limit for this model on this machine.
//!
//! `cargo bench --bench nli_run` (median of 5 of each); `-- --quick` runs each once.

use faithprobe::check::nli::{ModelSettings, NliChecker};
use faithprobe::check::onnx::Model;
use faithprobe::check::windows::{passage_sentences, windows_of};
use faithprobe::engine::run::{cases, run_suite};
use faithprobe::model::suite::Suite;
use faithprobe::mutate::{generate, Rules};
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

/// The binary's allocator (src/main.rs), so the bench measures what the binary does.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const BATCH: usize = 32;

/// CPU seconds this process has used (user + system, all threads).
fn cpu_seconds() -> f64 {
    // SAFETY: rusage is plain data that getrusage fills
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    // the pipeline against bare session.run on the same pairs: every window is scored
    faithprobe::check::nli::set_full_scan(true);
    let quick = std::env::args().any(|a| a == "--quick");
    let reps = if quick { 1 } else { 5 };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let model_dir = root.join("target/models/minilm-xenc");
    assert!(
        model_dir.join("model.onnx").is_file(),
        "run `bash ci/make-minilm.sh` first"
    );
    let suite = Suite::load(&root.join("suites/larkspur.yaml")).unwrap();
    let mutants = generate(&suite, &Rules::builtin()).unwrap();
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);

    // the distinct pairs the run needs
    let mut pairs = BTreeSet::new();
    for c in cases(&suite, &mutants) {
        let ctx = &suite.contexts[c.context];
        for w in windows_of(&passage_sentences(&ctx.passages), 2) {
            pairs.insert((w.text, c.claim.clone()));
        }
    }
    let pairs: Vec<(String, String)> = pairs.into_iter().collect();
    println!(
        "model: {} ({} threads, batch {BATCH}); {} distinct pairs from suites/larkspur.yaml",
        model_dir.display(),
        threads,
        pairs.len()
    );

    let settings = ModelSettings {
        batch_size: BATCH,
        threads,
        ..ModelSettings::defaults("nli")
    };
    let checker = NliChecker::new("bench", &model_dir, settings, None).unwrap();
    let (full, cpu_use) = full_rates(&suite, &mutants, &checker, reps, threads, pairs.len());
    let (bare, fixed) = bare_rates(&model_dir, &pairs, threads, reps);
    println!(
        "bare, fixed padding to 128 (the tokenizer.json setting faithprobe overrides): median {:.0} pairs/s",
        median(fixed)
    );
    println!(
        "full run pipeline CPU use: median {:.0}% of {threads} cores (runs: {})",
        100.0 * median(cpu_use.clone()),
        cpu_use
            .iter()
            .map(|x| format!("{:.0}%", 100.0 * x))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (f, b) = (median(full.clone()), median(bare.clone()));
    println!(
        "full run pipeline     median {f:>8.0} pairs/s  (runs: {})",
        show(&full)
    );
    println!(
        "bare session.run      median {b:>8.0} pairs/s  (runs: {})",
        show(&bare)
    );
    println!("ratio full / bare: {:.2}", f / b);

    int8_report(root, &suite, &mutants, &checker, reps, threads, pairs.len());
    let (long, rates) = long_passages_report(&checker, reps, threads, quick);
    nli_top_windows(&model_dir, &checker, &long, &rates, reps, threads);
    top_windows_report(root, reps, &long);
}

/// `top_windows: K` on the cross-encoder over the long passages: the pairs it does not score are
/// inference saved (`rates`: the full scan's pairs per second).
fn nli_top_windows(
    model_dir: &Path,
    checker: &NliChecker,
    long: &[faithprobe::answers::LoggedAnswer],
    rates: &[f64],
    reps: usize,
    threads: usize,
) {
    let decomposer = faithprobe::answers::decompose::Sentences;
    // top_windows on the cross-encoder: the pairs it does not score are inference saved
    for k in [3, 5] {
        let topk = NliChecker::new(
            "bench-top",
            model_dir,
            ModelSettings {
                batch_size: BATCH,
                threads,
                top_windows: Some(k),
                ..ModelSettings::defaults("nli")
            },
            None,
        )
        .unwrap();
        let mut secs = Vec::new();
        for _ in 0..reps {
            let t = Instant::now();
            faithprobe::answers::score::score_chunk(long, &decomposer, &topk, &mut |_, _| {});
            secs.push(t.elapsed().as_secs_f64());
        }
        let u = topk.last_use();
        let full_secs = checker.last_use().scored as f64 / median(rates.to_vec());
        println!(
            "nli top_windows K={k} (long passages): {} distinct pairs scored instead of {} ({} of {} claim-window pairs left out), median {:.2} s vs {:.2} s ({:.1}x)",
            u.scored,
            checker.last_use().scored,
            u.skipped,
            u.considered,
            median(secs.clone()),
            full_secs,
            full_secs / median(secs).max(1e-9)
        );
    }
}

/// Pairs per second of the full `run` pipeline (no cache), and its CPU use as a share of the
/// cores; `pairs`: the distinct pairs the run must score.
fn full_rates(
    suite: &Suite,
    mutants: &faithprobe::mutate::MutantSet,
    checker: &NliChecker,
    reps: usize,
    threads: usize,
    pairs: usize,
) -> (Vec<f64>, Vec<f64>) {
    let mut full = Vec::new();
    let mut cpu_use = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        let c0 = cpu_seconds();
        let run = run_suite(suite, mutants, checker, &mut |_, _| {});
        let secs = t.elapsed().as_secs_f64();
        cpu_use.push((cpu_seconds() - c0) / (secs * threads as f64));
        assert_eq!(run.errors(), 0);
        assert_eq!(
            checker.last_use().scored,
            pairs,
            "the run scored a different pair set"
        );
        full.push(pairs as f64 / secs);
    }
    (full, cpu_use)
}

/// Pairs per second of the bare ONNX Runtime session calls on the pairs, pre-tokenised into
/// length-sorted batches: as faithprobe pads them (to the longest in the batch), and with the
/// tokenizer.json's own fixed padding to 128.
fn bare_rates(
    model_dir: &Path,
    pairs: &[(String, String)],
    threads: usize,
    reps: usize,
) -> (Vec<f64>, Vec<f64>) {
    let model = Model::load(model_dir, threads).unwrap();
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    let lens: Vec<usize> = pairs
        .iter()
        .map(|(p, c)| model.token_len(p, Some(c)).unwrap())
        .collect();
    order.sort_by_key(|&i| lens[i]);
    let batches: Vec<_> = order
        .chunks(BATCH)
        .map(|chunk| {
            let items: Vec<(&str, Option<&str>)> = chunk
                .iter()
                .map(|&i| (pairs[i].0.as_str(), Some(pairs[i].1.as_str())))
                .collect();
            model.encode(&items).unwrap()
        })
        .collect();
    let mut bare = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        for (ids, mask, types) in &batches {
            model.run_arrays(ids, mask, types).unwrap();
        }
        bare.push(pairs.len() as f64 / t.elapsed().as_secs_f64());
    }
    // what the tokenizer.json's own setting (fixed padding to 128) would cost
    let padded: Vec<_> = batches
        .iter()
        .map(|(ids, mask, types)| {
            let pad = |a: &ndarray::Array2<i64>| {
                let mut p = ndarray::Array2::<i64>::zeros((a.nrows(), 128.max(a.ncols())));
                p.slice_mut(ndarray::s![.., ..a.ncols()]).assign(a);
                p
            };
            (pad(ids), pad(mask), pad(types))
        })
        .collect();
    let mut fixed = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        for (ids, mask, types) in &padded {
            model.run_arrays(ids, mask, types).unwrap();
        }
        fixed.push(pairs.len() as f64 / t.elapsed().as_secs_f64());
    }
    (bare, fixed)
}

/// Runs per second, listed.
fn show(v: &[f64]) -> String {
    v.iter()
        .map(|x| format!("{x:.0}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The same run on the dynamically quantised copy of the model, when there is one: its speed
/// and how far its verdicts and scores move from fp32 (`pairs`: the distinct pairs of a run).
fn int8_report(
    root: &Path,
    suite: &Suite,
    mutants: &faithprobe::mutate::MutantSet,
    checker: &NliChecker,
    reps: usize,
    threads: usize,
    pairs: usize,
) {
    // int8: the same run on the dynamically quantised copy (ci/quantize.py), and how far its
    // scores move
    let int8_dir = root.join("target/models/minilm-xenc-int8");
    if int8_dir.join("model.onnx").is_file() {
        let int8 = NliChecker::new(
            "bench-int8",
            &int8_dir,
            ModelSettings {
                batch_size: BATCH,
                threads,
                ..ModelSettings::defaults("nli")
            },
            None,
        )
        .unwrap();
        let fp32_run = run_suite(suite, mutants, checker, &mut |_, _| {});
        let mut q = Vec::new();
        let mut last = None;
        for _ in 0..reps {
            let t = Instant::now();
            let run = run_suite(suite, mutants, &int8, &mut |_, _| {});
            q.push(pairs as f64 / t.elapsed().as_secs_f64());
            assert_eq!(run.errors(), 0);
            last = Some(run);
        }
        let run = last.unwrap();
        let diffs: Vec<f64> = fp32_run
            .results
            .iter()
            .zip(&run.results)
            .map(|(a, b)| {
                (a.result.as_ref().unwrap().score.unwrap()
                    - b.result.as_ref().unwrap().score.unwrap())
                .abs()
            })
            .collect();
        let same = fp32_run
            .results
            .iter()
            .zip(&run.results)
            .filter(|(a, b)| a.result.as_ref().unwrap().label == b.result.as_ref().unwrap().label)
            .count();
        println!(
            "int8 (dynamic quantisation) full run pipeline median {:.0} pairs/s (runs: {}); {same}/{} verdicts as fp32, largest score change {:.3}",
            median(q.clone()),
            show(&q),
            run.results.len(),
            diffs.iter().copied().fold(0.0, f64::max)
        );
    } else {
        println!("int8: target/models/minilm-xenc-int8 missing (bash ci/make-minilm.sh makes it)");
    }
}

/// Long passages (news-like sources of 30 sentences) scored through `score` as a log would be:
/// pairs per second and CPU use. The answers and the rates of the runs, for the `top_windows`
/// runs.
fn long_passages_report(
    checker: &NliChecker,
    reps: usize,
    threads: usize,
    quick: bool,
) -> (Vec<faithprobe::answers::LoggedAnswer>, Vec<f64>) {
    // long passages: news-like sources of 30 sentences, scored through `score` as a log would be
    let long = long_passage_answers(if quick { 2 } else { 6 });
    let decomposer = faithprobe::answers::decompose::Sentences;
    let mut rates = Vec::new();
    let mut uses = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        let c0 = cpu_seconds();
        let results =
            faithprobe::answers::score::score_chunk(&long, &decomposer, checker, &mut |_, _| {});
        let secs = t.elapsed().as_secs_f64();
        uses.push((cpu_seconds() - c0) / (secs * threads as f64));
        assert!(results
            .iter()
            .all(|a| a.error.is_none() && a.claims.iter().all(|c| c.error.is_none())));
        rates.push(checker.last_use().scored as f64 / secs);
    }
    println!(
        "long passages ({} answers, {} pairs): median {:.0} pairs/s (runs: {}), CPU use median {:.0}% of {threads} cores (runs: {})",
        long.len(),
        checker.last_use().scored,
        median(rates.clone()),
        show(&rates),
        100.0 * median(uses.clone()),
        uses.iter().map(|x| format!("{:.0}%", 100.0 * x)).collect::<Vec<_>>().join(", ")
    );
    (long, rates)
}

/// `top_windows: K` with the real MiniLM embedding model (verdicts that mean something): the
/// work saved and the verdicts that stay the same as the full scan, on Larkspur and on the long
/// passages.
fn top_windows_report(root: &Path, reps: usize, long: &[faithprobe::answers::LoggedAnswer]) {
    use faithprobe::check::similarity::SimilarityChecker;
    let dir = root.join("target/models/minilm-embed");
    if !dir.join("model.onnx").is_file() {
        println!(
            "top_windows: target/models/minilm-embed missing (bash ci/make-minilm.sh makes it)"
        );
        return;
    }
    let suite = Suite::load(&root.join("suites/larkspur.yaml")).unwrap();
    let mutants = generate(&suite, &Rules::builtin()).unwrap();
    let decomposer = faithprobe::answers::decompose::Sentences;
    let checker = |k: Option<usize>| {
        SimilarityChecker::new(
            "sim",
            &dir,
            ModelSettings {
                top_windows: k,
                ..ModelSettings::defaults("similarity")
            },
            None,
        )
        .unwrap()
    };
    let verdicts_suite = |c: &SimilarityChecker| -> (Vec<String>, f64, usize) {
        let mut secs = Vec::new();
        let mut v = Vec::new();
        for _ in 0..reps {
            let t = Instant::now();
            let run = run_suite(&suite, &mutants, c, &mut |_, _| {});
            secs.push(t.elapsed().as_secs_f64());
            v = run
                .results
                .iter()
                .map(|r| r.result.as_ref().unwrap().label.as_str().to_string())
                .collect();
        }
        (v, median(secs), c.last_use().needed)
    };
    let verdicts_long = |c: &SimilarityChecker| -> (Vec<String>, f64, usize) {
        let mut secs = Vec::new();
        let mut v = Vec::new();
        for _ in 0..reps {
            let t = Instant::now();
            let res = faithprobe::answers::score::score_chunk(long, &decomposer, c, &mut |_, _| {});
            secs.push(t.elapsed().as_secs_f64());
            v = res
                .iter()
                .flat_map(|a| a.claims.iter().map(|c| format!("{:?}", c.verdict)))
                .collect();
        }
        (v, median(secs), c.last_use().needed)
    };
    for (what, f) in [
        (
            "larkspur",
            &verdicts_suite as &dyn Fn(&SimilarityChecker) -> (Vec<String>, f64, usize),
        ),
        ("long passages", &verdicts_long),
    ] {
        let full = checker(None);
        let (base, base_secs, base_texts) = f(&full);
        println!(
            "top_windows ({what}, MiniLM similarity): full scan {} verdicts, {base_texts} texts embedded, median {base_secs:.2} s",
            base.len()
        );
        for k in [1, 3, 5] {
            let c = checker(Some(k));
            let (v, secs, texts) = f(&c);
            let same = v.iter().zip(&base).filter(|(a, b)| a == b).count();
            let u = c.last_use();
            println!(
                "  K={k}: {same}/{} verdicts as the full scan; {texts} texts embedded ({:.0}% fewer), {} of {} claim-window pairs left out; median {secs:.2} s ({:.1}x)",
                v.len(),
                100.0 * (1.0 - texts as f64 / base_texts.max(1) as f64),
                u.skipped,
                u.considered,
                base_secs / secs.max(1e-9)
            );
        }
    }
}

/// Answers of four claims over one source of 30 sentences of ~25 words each.
fn long_passage_answers(n: usize) -> Vec<faithprobe::answers::LoggedAnswer> {
    (0..n)
        .map(|i| {
            let source: Vec<String> = (0..30)
                .map(|k| format!(
                    "On day {k} of the inquiry, council member number {} told reporters in Harbor City that the ferry terminal plan worth $ {} million would be reviewed again before the vote in March {}.",
                    i * 31 + k, 100 + k, 2020 + k % 7
                ))
                .collect();
            faithprobe::answers::LoggedAnswer {
                id: format!("a{i}"),
                question: "What did the council say about the ferry terminal?".into(),
                answer: format!(
                    "Here is a summary:\n\n- Council member number {} spoke on day 3.\n- The plan is worth $ {} million.\n- The vote is in March 2023.\n- The terminal will close for two years.",
                    i * 31 + 3, 103
                ),
                passages: vec![faithprobe::answers::LoggedPassage {
                    id: format!("src-{i}"),
                    text: source.join(" "),
                }]
                .into(),
                ..Default::default()
            }
        })
        .collect()
}
