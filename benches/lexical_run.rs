//! Benchmark: the whole `run` pipeline with the lexical checker on a generated suite of 20,000
//! verified claims over 500 context sets, all four operators firing.
//!
//! Each context set has 20 passages of 10 sentences (a claim's source sentence among filler),
//! so a claim has about 380 windows to be compared with.
//!
//! `cargo bench --bench lexical_run` prints cases per second (median of several runs) for the
//! word-indexed checker and for the baseline that compares every claim with every window.
//! Pass `-- --quick` for one smaller run (used by the test suite to keep this target working).

use faithprobe::check::lexical::{LexicalChecker, LexicalSettings};
use faithprobe::engine::run::run_suite;
use faithprobe::engine::summary::summarize;
use faithprobe::model::suite::Suite;
use faithprobe::mutate::{generate, Rules};
use faithprobe::report::{run::human, Paint};
use std::path::Path;
use std::time::Instant;

/// The binary's allocator (src/main.rs), so the bench measures what the binary does.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const NOUNS: [&str; 20] = [
    "invoice",
    "archive",
    "dashboard",
    "report",
    "ticket",
    "calendar",
    "backup",
    "webhook",
    "template",
    "board",
    "comment",
    "upload",
    "folder",
    "label",
    "badge",
    "widget",
    "queue",
    "policy",
    "session",
    "token",
];

/// A suite of `contexts` context sets with `per_context` verified claims each, as YAML text.
fn synthetic_suite(contexts: usize, per_context: usize) -> String {
    let mut y = String::from(
        "suite: synthetic\nentities:\n  plan: [Basic, Pro, Max]\n  role: [owners, admins, members]\ncontexts:\n",
    );
    let plans = ["Basic", "Pro", "Max"];
    let roles = ["owners", "admins", "members"];
    for c in 0..contexts {
        let mut sentences = Vec::new();
        for i in 0..per_context {
            let noun = NOUNS[(c + i) % NOUNS.len()];
            let tag = format!("{noun}{}", c * 7 + i);
            let plan = plans[(c + i) % 3];
            let role = roles[(c + 2 * i) % 3];
            let n = 2 + (c * 13 + i * 7) % 90;
            let s = match i % 5 {
                0 => format!("The {plan} plan stores {tag} data for {n} months."),
                1 => format!("Workspace {role} can delete a {tag} within {n} days of creating it."),
                2 => format!("A {tag} is not shared with {role} on the {plan} plan."),
                3 => format!("The {tag} limit is {n} per workspace if the {plan} plan is active."),
                _ => format!("Deleted {tag} entries are kept for {n} hours before removal."),
            };
            sentences.push(s);
        }
        // realistic chunks: each claim's sentence sits among four sentences no claim is about
        let mut text_sentences = Vec::new();
        for (i, s) in sentences.iter().enumerate() {
            text_sentences.push(s.clone());
            for f in 0..4 {
                let noun = NOUNS[(c * 3 + i + f) % NOUNS.len()];
                text_sentences.push(format!(
                    "Support staff review {noun} requests in batch {} every week.",
                    c * 200 + i * 4 + f
                ));
            }
        }
        y.push_str(&format!("  - id: ctx{c}\n    passages:\n"));
        for (p, chunk) in text_sentences.chunks(10).enumerate() {
            y.push_str(&format!(
                "      - {{id: p{p}, text: \"{}\"}}\n",
                chunk.join(" ")
            ));
        }
        y.push_str("    faithful:\n");
        for (i, s) in sentences.iter().enumerate() {
            y.push_str(&format!("      - {{id: c{c}-{i}, claim: \"{s}\"}}\n"));
        }
    }
    y
}

/// One whole run: parse, mutate, check, summarise, render. Returns (cases, seconds).
fn whole_run(yaml: &str, indexed: bool) -> (usize, f64) {
    let started = Instant::now();
    let suite = Suite::from_yaml(Path::new("synthetic.yaml"), yaml).expect("valid suite");
    let set = generate(&suite, &Rules::builtin()).expect("mutants");
    let checker = LexicalChecker::new(
        "lexical",
        LexicalSettings {
            indexed,
            ..Default::default()
        },
    );
    let t_mut = started.elapsed().as_secs_f64();
    let run = run_suite(&suite, &set, &checker, &mut |_, _| {});
    if std::env::var_os("FG_PHASES").is_some() {
        eprintln!(
            "parse+mutate {:.3}s, check {:.3}s",
            t_mut,
            started.elapsed().as_secs_f64() - t_mut
        );
    }
    let summary = summarize(&run, 0.95);
    let text = human::render(&run, &summary, Paint { color: false });
    assert!(text.contains("number_swap"));
    // the synthetic claims have numbers, negations, entities and conditions; the newer
    // operators need dates, sources or hedges that they do not have
    for (op, n) in set.counts() {
        let seed_operator = [
            "number_swap",
            "negation_flip",
            "entity_swap",
            "dropped_condition",
        ]
        .contains(&op);
        assert!(n > 0 || !seed_operator, "{op} produced no mutant");
    }
    (run.results.len(), started.elapsed().as_secs_f64())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (contexts, per_context, reps) = if quick { (20, 40, 1) } else { (500, 40, 5) };
    let yaml = synthetic_suite(contexts, per_context);
    println!(
        "suite: {} verified claims over {contexts} context sets ({} KiB of YAML)",
        contexts * per_context,
        yaml.len() / 1024
    );
    let mut results = Vec::new();
    for (label, indexed) in [("indexed", true), ("every window (baseline)", false)] {
        let mut rates = Vec::new();
        let mut cases = 0;
        for _ in 0..reps {
            let (n, secs) = whole_run(&yaml, indexed);
            cases = n;
            rates.push(n as f64 / secs);
        }
        let m = median(rates.clone());
        println!(
            "{label:<24} {cases} cases  median {m:>10.0} cases/s  (runs: {})",
            rates
                .iter()
                .map(|r| format!("{r:.0}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        results.push(m);
    }
    println!("ratio indexed / baseline: {:.2}x", results[0] / results[1]);
}
