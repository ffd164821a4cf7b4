//! `faithprobe init`: a starter suite and config to edit, and the next three commands.

use clap::Args;
use faithprobe::error::{Error, Exit};
use std::path::PathBuf;

/// Write a commented starter suite (`suites/starter.yaml`) and a `faithprobe.yaml` with the
/// built-in lexical checker and commented examples for nli, judge and command checkers, then
/// print the next three commands to run. Existing files are never overwritten.
#[derive(Args)]
pub struct InitArgs {
    /// The folder to set up (default: the current one).
    #[arg(default_value = ".")]
    pub dir: PathBuf,
}

const SUITE: &str = r#"# A starter faithprobe suite: replace the passages and claims with your own.
# Every claim under `faithful` must be one a person checked against the passages of its context.
suite: starter
description: Refund policy answers (replace with your domain)

# Names the entity_swap operator exchanges: a plan, a product, a team, a country...
entities:
  plan: [Team, Enterprise]

contexts:
  - id: refunds                        # one context set: the passages that were in one prompt
    question: Can I get my money back?
    passages:
      - id: policy
        text: "Team plans are billed monthly and can be cancelled at any time. Annual Enterprise contracts can be refunded in full within 14 days of signing."
    faithful:                          # claims a person verified as supported
      - {id: f1, claim: "Team plans are billed monthly."}
      - {id: f2, claim: "Annual Enterprise contracts can be refunded in full within 14 days of signing."}
    hard_cases:                        # label: supported | contradicted | not_found | misleading
      - {id: h1, type: paraphrase, claim: "Team plans are charged every month.", label: supported}
      - {id: h2, type: added_fact, claim: "Refunds are paid within 3 business days.", label: not_found}

# Reviews of the generated mutants go here: run `faithprobe mutants suites/starter.yaml --format yaml`
# and paste its block, then mark as `equivalent` (with a `why`) any mutant still supported.
"#;

const CONFIG: &str = r#"# faithprobe.yaml: named checkers. Paths are relative to this file's folder.
checkers:
  # the built-in word-overlap baseline, with a stricter threshold
  strict-lexical: {kind: lexical, threshold: 0.9}

  # An NLI cross-encoder exported to ONNX (model.onnx, tokenizer.json, config.json):
  # nli:
  #   kind: nli
  #   model: models/nli-deberta-v3-base
  #   threshold: 0.5

  # An LLM judge behind any OpenAI-compatible server (vLLM, llama.cpp, Ollama, a hosted API):
  # judge:
  #   kind: judge
  #   base_url: http://127.0.0.1:8000/v1
  #   model: Qwen/Qwen3-4B-Instruct-2507
  #   api_key_env: JUDGE_API_KEY        # the variable's name, never the key
  #   prompt: prompts/judge-v1.md       # optional: built in; a file at this path overrides it

  # Your own checker as a program speaking JSON Lines on stdin/stdout:
  # mine:
  #   kind: command
  #   argv: [python3, my_checker.py]
  #   timeout_s: 60
"#;

pub fn run(args: InitArgs) -> anyhow::Result<Exit> {
    let suite = args.dir.join("suites").join("starter.yaml");
    let config = args.dir.join("faithprobe.yaml");
    for p in [&suite, &config] {
        if p.exists() {
            return Err(Error::Usage(format!(
                "{} already exists; init never overwrites a file (remove it or pick another folder)",
                p.display()
            ))
            .into());
        }
    }
    std::fs::create_dir_all(args.dir.join("suites")).map_err(|e| Error::write(&args.dir, e))?;
    faithprobe::io::write::write_atomic(&suite, SUITE.as_bytes())?;
    faithprobe::io::write::write_atomic(&config, CONFIG.as_bytes())?;
    let text = next_steps(&args.dir, &suite, &config);
    super::out::emit(&text)
}

/// What `init` prints: the files written and the next three commands, each of which works as
/// printed from the folder `init` was run in (the config is named when it is not `./`).
fn next_steps(dir: &std::path::Path, suite: &std::path::Path, config: &std::path::Path) -> String {
    let here = dir.as_os_str().is_empty() || dir == std::path::Path::new(".");
    let s = faithprobe::text::shell::shell_word(&suite.display().to_string());
    let cfg = if here {
        String::new()
    } else {
        format!(
            " --config {}",
            faithprobe::text::shell::shell_word(&config.display().to_string())
        )
    };
    let snaps = faithprobe::text::shell::shell_word(&dir.join("snapshots").display().to_string());
    let mut t = format!(
        "wrote {}\nwrote {}\n\nnext:\n",
        suite.display(),
        config.display()
    );
    t.push_str(&format!("  faithprobe{cfg} review {s}                    # decide each generated fault in a terminal: f real, e equivalent, b broken\n"));
    t.push_str(&format!(
        "  faithprobe run {s}                       # false alarms and catch rates with intervals\n"
    ));
    t.push_str(&format!("  faithprobe{cfg} run {s} --checker strict-lexical --snapshot {snaps}   # pin every verdict for review\n"));
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_starter_files_load_and_run() {
        let suite =
            faithprobe::model::suite::Suite::from_yaml(std::path::Path::new("starter.yaml"), SUITE)
                .unwrap();
        let set =
            faithprobe::mutate::generate(&suite, &faithprobe::mutate::Rules::builtin()).unwrap();
        assert!(set.mutants.len() >= 4, "every operator has something to do");
        let cfg = faithprobe::engine::config::Config::from_yaml(
            std::path::Path::new("faithprobe.yaml"),
            CONFIG,
        )
        .unwrap();
        assert!(cfg.checker("strict-lexical", None).is_ok());
    }
}
