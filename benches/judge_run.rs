//! Benchmark: judge throughput against a local OpenAI-compatible server that answers every
//! request after 200 ms, at concurrency 1, 4 and 16 (per-claim mode, no cache), on the 48 claims
//! of the shipped Larkspur suite. `cargo bench --bench judge_run` (median of 3 runs each);
//! `-- --quick` runs each once at concurrency 16 only.

#[path = "../tests/common/server.rs"]
mod server;

use faithprobe::check::judge::{JudgeChecker, JudgeSettings, Mode};
use faithprobe::engine::run::run_suite;
use faithprobe::io::llm::LlmSettings;
use faithprobe::model::suite::Suite;
use faithprobe::mutate::{generate, Rules};
use server::{Reply, Server};
use std::path::Path;
use std::time::{Duration, Instant};

/// The binary's allocator (src/main.rs), so the bench measures what the binary does.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite = Suite::load(&root.join("suites/larkspur.yaml")).unwrap();
    let mutants = generate(&suite, &Rules::builtin()).unwrap();
    let s = Server::start(|r, _| {
        Reply::chat(&server::good(&r.prompt())).after(Duration::from_millis(200))
    });
    let prompt = std::fs::read_to_string(root.join("prompts/judge-v1.md")).unwrap();
    let levels: &[usize] = if quick { &[16] } else { &[1, 4, 16] };
    let reps = if quick { 1 } else { 3 };
    println!(
        "server: {} answering after 200 ms; suite: larkspur (48 claims), per-claim mode, no cache",
        s.url
    );
    let mut base = None;
    for &c in levels {
        let judge = JudgeChecker::new(
            "bench",
            JudgeSettings {
                llm: LlmSettings {
                    base_url: s.url.clone(),
                    model: "stand-in".into(),
                    api_key_env: None,
                    prompt_path: "prompts/judge-v1.md".into(),
                    prompt: prompt.clone(),
                    timeout: Duration::from_secs(30),
                    max_retries: 0,
                    backoff: Duration::from_millis(10),
                    max_wait: Duration::from_secs(1),
                    price: None,
                    batch: None,
                },
                mode: Mode::PerClaim,
                batch_size: 16,
                concurrency: c,
            },
            None,
        )
        .unwrap();
        let mut rates = Vec::new();
        for _ in 0..reps {
            let t = Instant::now();
            let run = run_suite(&suite, &mutants, &judge, &mut |_, _| {});
            assert_eq!(run.errors(), 0);
            rates.push(run.results.len() as f64 / t.elapsed().as_secs_f64());
        }
        rates.sort_by(f64::total_cmp);
        let m = rates[rates.len() / 2];
        if c == 1 {
            base = Some(m);
        }
        println!(
            "concurrency {c:>2}: median {m:>6.1} claims/s  (runs: {}){}",
            rates
                .iter()
                .map(|r| format!("{r:.1}"))
                .collect::<Vec<_>>()
                .join(", "),
            // a ratio only against a concurrency-1 run that happened (quick mode skips it)
            base.map(|b| format!("  {:.1}x concurrency 1", m / b))
                .unwrap_or_default(),
        );
    }
}
