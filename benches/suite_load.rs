//! Benchmark: loading a large suite (parse, validate, locate ids, generate mutants), which used
//! to be quadratic in the number of context sets.
//!
//! Writes a ~50 MB suite (10,000 context sets of 20 passages and 5 verified claims, entity
//! groups and reviews) to a temp file, loads it several times, and prints the median seconds and
//! the peak resident memory of the process (VmHWM). `-- --quick` loads a 5 MB suite once (used by
//! the test command to keep this target working); `-- --contexts N` sets another size, and
//! `-- --operators 13` keeps only the thirteen operators of the first 48 MB measurement.

use faithprobe::model::suite::Suite;
use faithprobe::mutate::{generate, Rules};
use std::fmt::Write;
use std::time::Instant;

/// The binary's allocator (src/main.rs), so the bench measures what the binary does.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn suite_text(contexts: usize) -> String {
    let mut y = String::from("suite: large\nentities:\n  plan: [Basic, Pro, Max]\ncontexts:\n");
    for c in 0..contexts {
        let _ = writeln!(
            y,
            "  - id: ctx-{c}\n    question: \"What does plan {c} include?\"\n    passages:"
        );
        for p in 0..20 {
            let _ = writeln!(
                y,
                "      - {{id: p{p}, text: \"The Pro plan stores report {c}-{p} data for {} months and cannot export it. Admins can delete a ticket within 14 days of creating it, unless it is locked. Each seat costs €{} per month.\"}}",
                2 + (c + p) % 40,
                5 + p
            );
        }
        let _ = writeln!(y, "    faithful:");
        for f in 0..5 {
            let _ = writeln!(
                y,
                "      - {{id: f{c}-{f}, claim: \"The Pro plan stores report {c}-{f} data for {} months.\"}}",
                2 + (c + f) % 40
            );
        }
    }
    y
}

/// The registry's operators on 2026-11-30, when the suite-load baseline was measured.
const THIRTEEN: [&str; 13] = [
    "number_swap",
    "negation_flip",
    "entity_swap",
    "dropped_condition",
    "added_detail",
    "attribution_swap",
    "date_shift",
    "hedge_drop",
    "link_swap",
    "number_rewrite",
    "predicate_shift",
    "quantifier_shift",
    "wording_rewrite",
];

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let (mut contexts, runs) = if quick { (1_000, 1) } else { (10_000, 3) };
    // `--contexts N` for another size (the baseline comparison in BENCHMARKS.md)
    if let Some(n) = args
        .iter()
        .position(|a| a == "--contexts")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
    {
        contexts = n;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("large.yaml");
    let text = suite_text(contexts);
    std::fs::write(&path, &text).unwrap();
    drop(text);
    let mb = std::fs::metadata(&path).unwrap().len() as f64 / 1e6;
    // `--operators 13`: only the thirteen operators the registry had when the 6.35 s baseline
    // of BENCHMARKS.md was measured (2026-11-30), for a like-for-like figure
    let thirteen = args
        .iter()
        .position(|a| a == "--operators")
        .and_then(|i| args.get(i + 1))
        .is_some_and(|n| n == "13");
    let rules = if thirteen {
        Rules::builtin().keeping(&THIRTEEN)
    } else {
        Rules::builtin()
    };
    let operators = rules.operators().count();
    let mut secs = Vec::new();
    let mut parse_secs = Vec::new();
    let mut mutants = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let suite = Suite::load(&path).unwrap();
        parse_secs.push(t.elapsed().as_secs_f64());
        let set = generate(&suite, &rules).unwrap();
        secs.push(t.elapsed().as_secs_f64());
        mutants = set.mutants.len();
    }
    secs.sort_by(f64::total_cmp);
    parse_secs.sort_by(f64::total_cmp);
    println!(
        "suite_load: {mb:.1} MB, {contexts} context sets, {} verified claims, {operators} operators, {mutants} mutants: median {:.2} s of {runs} (runs: {}; of which reading the suite {:.2} s), peak RSS {:.0} MB",
        contexts * 5,
        secs[secs.len() / 2],
        secs.iter().map(|s| format!("{s:.2}")).collect::<Vec<_>>().join(", "),
        parse_secs[parse_secs.len() / 2],
        peak_rss_mb()
    );
}
