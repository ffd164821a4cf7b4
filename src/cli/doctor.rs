//! `faithprobe doctor`: what faithprobe found and what to fix. It always starts: a broken config is
//! one of the problems it reports, never a reason not to run.

use super::Ctx;
use faithprobe::check::onnx::{self, Model};
use faithprobe::engine::config::CheckerConfig;
use faithprobe::error::Exit;

/// Builds checker `name` and checks one claim against one passage with it, as a run would.
fn try_one(config: &faithprobe::engine::config::Config, name: &str) -> Result<String, String> {
    use faithprobe::check::{CheckInput, ClaimToCheck, ContextSet};
    let checker = config.checker(name, None).map_err(|e| e.to_string())?;
    let sets = [ContextSet::single(
        "doctor",
        "p",
        "Export links expire after 7 days.",
    )];
    let input = CheckInput {
        contexts: &sets,
        entities: &[],
        claims: vec![ClaimToCheck {
            context: 0,
            text: "Export links expire after 7 days.",
        }],
    };
    let extra: String = checker
        .doctor_notes()
        .iter()
        .map(|n| format!("\n  batch  {n}"))
        .collect();
    match checker.check(&input, &mut |_| {}).into_iter().next() {
        Some(Ok(v)) => Ok(format!(
            "one claim against one passage: {} ({}){extra}",
            v.label.as_str(),
            v.score
                .map(|s| format!("score {s:.3}"))
                .unwrap_or_else(|| "no score".into())
        )),
        Some(Err(e)) => Err(format!("one claim against one passage failed: {e}")),
        None => Err("one claim against one passage gave no verdict".into()),
    }
}

/// What doctor says about the mutation rules every run builds: the rule folder, and each LLM
/// mutator's prompt, key variable and server. False when a run would stop on any of them.
fn report_mutators(o: &mut String, config: &faithprobe::engine::config::Config) -> bool {
    match config.rules(None) {
        Err(e) => {
            outln!(o, "mutators: PROBLEM: {e}");
            false
        }
        Ok(rules) => {
            let from = match &config.mutators {
                Some(dir) => format!("rules from {}", dir.display()),
                None => "the built-in rules".into(),
            };
            outln!(
                o,
                "mutators: {} operators, {from}",
                rules.operators().count()
            );
            let mut ok = true;
            for (name, m) in &config.llm_mutators {
                if let Some(var) = m
                    .api_key_env
                    .as_ref()
                    .filter(|v| std::env::var_os(v).is_none())
                {
                    ok = false;
                    outln!(
                        o,
                        "mutator {name}: PROBLEM: the environment variable {var} (api_key_env) is not set"
                    );
                    continue;
                }
                let url = m.base_url.clone();
                match faithprobe::io::llm::ping(&url, std::time::Duration::from_secs(3)) {
                    Ok(status) => outln!(
                        o,
                        "mutator {name}: kind llm, server {} answers (HTTP {status} on /models)",
                        faithprobe::io::llm::display_url(&url)
                    ),
                    Err(e) => {
                        ok = false;
                        outln!(
                            o,
                            "mutator {name}: PROBLEM: the server does not answer: {e}"
                        );
                    }
                }
            }
            ok
        }
    }
}

/// What doctor says about one configured checker: its problems, its server or model, and one
/// real claim through it. False when anything is wrong.
fn report_checker(
    o: &mut String,
    config: &faithprobe::engine::config::Config,
    name: &str,
    c: &CheckerConfig,
) -> bool {
    let mut ok = true;
    let problems = config.problems(name);
    if !problems.is_empty() {
        ok = false;
        for p in problems {
            outln!(o, "checker {name}: PROBLEM: {p}");
        }
        return ok;
    }
    if let CheckerConfig::Judge(j) = c {
        return report_judge(o, name, j);
    }
    let Some(dir) = config.model_dir(name) else {
        outln!(o, "checker {name}: kind {}", c.kind());
        return ok;
    };
    let providers = match c {
        CheckerConfig::Nli(m) | CheckerConfig::Similarity(m) => {
            m.providers.clone().unwrap_or_default()
        }
        _ => Vec::new(),
    };
    match Model::load_on(&dir, 1, &providers) {
        Ok(m) => {
            outln!(
                o,
                "checker {name}: kind {}, model {} (sha256 {}…)",
                c.kind(),
                dir.display(),
                m.hash,
            );
            outln!(o, "  family {}", m.family);
            outln!(
                o,
                "  runs on {}{}",
                m.providers.join(", "),
                if providers.is_empty() {
                    " (no `providers:` in the config)"
                } else {
                    ""
                }
            );
            outln!(
            o,
                "  limit  {} tokens per input, special tokens included (longer sentences are scored in overlapping pieces; nothing is truncated)",
                m.max_len
            );
            for p in &m.inputs {
                let fed = match p.name.as_str() {
                    "input_ids" | "attention_mask" | "token_type_ids" => "fed",
                    _ => "NOT FED: faithprobe feeds input_ids, attention_mask and token_type_ids only",
                };
                outln!(o, "  input  {:<20} {} ({fed})", p.name, p.description);
            }
            for p in &m.outputs {
                outln!(o, "  output {:<20} {}", p.name, p.description);
            }
            if let CheckerConfig::Nli(mc) = c {
                ok &= report_nli(o, name, &m, mc);
            }
            // all good only after one real input went through the model as a run sends it
            match try_one(config, name) {
                Ok(line) => outln!(o, "  tried  {line}"),
                Err(e) => {
                    ok = false;
                    outln!(o, "checker {name}: PROBLEM: {e}");
                }
            }
        }
        Err(e) => {
            ok = false;
            outln!(o, "checker {name}: PROBLEM: {e}");
        }
    }
    ok
}

/// A judge checker: whether its server answers.
fn report_judge(o: &mut String, name: &str, j: &faithprobe::check::judge::JudgeConfig) -> bool {
    let mut ok = true;
    match faithprobe::io::llm::ping(&j.endpoint.base_url, std::time::Duration::from_secs(3)) {
        Ok(status) => outln!(
            o,
            "checker {name}: kind judge, server {} answers (HTTP {status} on /models)",
            faithprobe::io::llm::display_url(&j.endpoint.base_url)
        ),
        Err(e) => {
            ok = false;
            outln!(
                o,
                "checker {name}: PROBLEM: the server does not answer: {e}"
            );
        }
    }
    ok
}

/// An nli checker's labels and how its outputs are read (or why they cannot be), and the text
/// its model is given. False when the outputs cannot be read.
fn report_nli(
    o: &mut String,
    name: &str,
    m: &Model,
    mc: &faithprobe::check::onnx::ModelConfig,
) -> bool {
    let mut ok = true;
    if !m.labels.is_empty() {
        outln!(o, "  id2label {}", m.labels.join(", "));
    }
    match faithprobe::check::nli::head::resolve_head(m, mc.labels.as_ref()) {
        Ok(h) => outln!(
            o,
            "  reads  {}{}",
            h.describe(&m.labels),
            if mc.labels.is_some() {
                " (from `labels:` in the config)"
            } else {
                " (from id2label)"
            }
        ),
        Err(e) => {
            ok = false;
            outln!(o, "checker {name}: PROBLEM: {e}");
        }
    }
    match &mc.template {
        Some(t) => outln!(o, "  input text: the template {t:?} (one text per pair)"),
        None => outln!(
            o,
            "  input text: the pair (premise, claim) through the tokenizer's pair template"
        ),
    }
    ok
}

pub fn run(ctx: &Ctx) -> anyhow::Result<Exit> {
    let mut o = String::new();
    let mut ok = true;
    let mut runtime_missing = None;
    match onnx::runtime() {
        Ok(rt) => {
            outln!(
                o,
                "onnx runtime: {} (version {})",
                rt.path.display(),
                onnx::runtime_version(&rt.path)
            );
            match onnx::available_providers() {
                Ok(p) => outln!(
                o,
                    "  execution providers: {} (ask for others with `providers:` in a checker; the onnxruntime-gpu wheel brings cuda and tensorrt)",
                    p.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(", ")
                ),
                Err(e) => outln!(o, "  execution providers: unknown: {e}"),
            }
        }
        Err(e) => runtime_missing = Some(e.to_string()),
    }
    let config = match ctx.config() {
        Ok(c) => c,
        Err(e) => {
            if let Some(e) = &runtime_missing {
                outln!(o, "onnx runtime: MISSING: {e}");
            }
            outln!(o, "config: PROBLEM: {e}");
            outln!(o, "checker lexical: built in, always available");
            return super::out::emit_then(&o, Exit::Usage);
        }
    };
    if let Some(e) = &runtime_missing {
        // only a problem when a configured checker runs a model
        let needed: Vec<&String> = config
            .checkers
            .iter()
            .filter(|(_, c)| matches!(c, CheckerConfig::Nli(_) | CheckerConfig::Similarity(_)))
            .map(|(n, _)| n)
            .collect();
        if needed.is_empty() {
            outln!(o, "onnx runtime: not found, and not needed: no nli or similarity checker is configured (install it with `python3 -m pip install onnxruntime==1.31.1` before adding one)");
        } else {
            ok = false;
            outln!(
                o,
                "onnx runtime: MISSING (needed by {}): {e}",
                needed
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    match &config.path {
        Some(p) => outln!(o, "config: {}", p.display()),
        None => {
            outln!(
                o,
                "config: none (no ./faithprobe.yaml; only the built-in `lexical` checker)"
            )
        }
    }
    outln!(o, "checker lexical: built in, always available");
    for (name, c) in &config.checkers {
        ok &= report_checker(&mut o, &config, name, c);
    }
    ok &= report_mutators(&mut o, &config);
    if ok {
        outln!(o, "all good");
        super::out::emit(&o)
    } else {
        super::out::emit_then(&o, Exit::Usage)
    }
}
