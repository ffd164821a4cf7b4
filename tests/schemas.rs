//! The JSON Schemas in `schemas/`: the committed files are the ones the Rust types give
//! (`FAITHPROBE_UPDATE_SCHEMAS=1 cargo test --test main schemas` rewrites them), the files
//! faithprobe ships and writes are valid under them, and what the schema refuses the loader
//! refuses too.

use crate::common::{faithprobe, faithprobe_in, output, parse_yaml, root};
use faithprobe::engine::schemas::{self, MODELINE_PREFIX};
use serde_json::Value;
use std::path::Path;

fn schema(name: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("schemas").join(name)).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    jsonschema::draft7::new(&v).unwrap_or_else(|e| panic!("schemas/{name}: {e}"))
}

/// The errors of `instance` under `validator`, one per line; empty when it is valid.
fn errors(validator: &jsonschema::Validator, instance: &Value) -> String {
    validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A YAML file as the JSON value a schema sees.
fn yaml_file(path: &Path) -> Value {
    serde_json::to_value(parse_yaml(&std::fs::read_to_string(path).unwrap())).unwrap()
}

#[test]
fn the_committed_schemas_are_the_ones_the_types_give() {
    let dir = root().join("schemas");
    let update = std::env::var_os("FAITHPROBE_UPDATE_SCHEMAS").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (name, text) in schemas::all() {
        let path = dir.join(name);
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &text).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(format!("schemas/{name}"));
        }
    }
    assert!(
        stale.is_empty(),
        "{} not what the types give; regenerate with FAITHPROBE_UPDATE_SCHEMAS=1 cargo test --test main schemas",
        stale.join(", ")
    );
}

#[test]
fn the_shipped_suites_name_their_schema_and_are_valid_under_it() {
    let suite = schema("suite.json");
    let mut checked = 0;
    for entry in std::fs::read_dir(root().join("suites")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text.lines().next(),
            Some(format!("{MODELINE_PREFIX}../schemas/suite.json").as_str()),
            "{}: the first line names the schema for editors",
            path.display()
        );
        let e = errors(&suite, &yaml_file(&path));
        assert!(e.is_empty(), "{}:\n{e}", path.display());
        checked += 1;
    }
    assert!(checked >= 2);
    for fixture in [
        "clinic.yaml",
        "judge-suite.yaml",
        "real-errors.yaml",
        "realism.yaml",
        "realism-300.yaml",
    ] {
        let path = root().join("tests/fixtures").join(fixture);
        let e = errors(&suite, &yaml_file(&path));
        assert!(e.is_empty(), "{}:\n{e}", path.display());
    }
}

#[test]
fn what_init_writes_is_valid_under_the_schemas() {
    let d = tempfile::tempdir().unwrap();
    let (code, _, err) = output(faithprobe_in(d.path()).arg("init"));
    assert_eq!(code, 0, "{err}");
    let e = errors(
        &schema("suite.json"),
        &yaml_file(&d.path().join("suites/starter.yaml")),
    );
    assert!(e.is_empty(), "{e}");
    let e = errors(
        &schema("faithprobe.json"),
        &yaml_file(&d.path().join("faithprobe.yaml")),
    );
    assert!(e.is_empty(), "{e}");
    let e = errors(
        &schema("faithprobe.json"),
        &yaml_file(&root().join("tests/fixtures/empty-config.yaml")),
    );
    assert!(e.is_empty(), "{e}");
}

/// A config with every kind of checker, decomposer and mutator and most of their settings.
const EVERY_KIND: &str = r#"
checkers:
  words: {kind: lexical, threshold: 0.9, topic_floor: 0.5, max_window_sentences: 2}
  nli:
    kind: nli
    model: models/nli
    threshold: 0.5
    batch_size: 16
    threads: 2
    labels: {supported: entailment, contradicted: 0}
    template: "premise: {premise} hypothesis: {claim}"
    providers: [cuda, cpu]
    top_windows: 3
  embed: {kind: similarity, model: models/embed, threshold: 0.7}
  judge:
    kind: judge
    base_url: http://127.0.0.1:8000/v1
    model: m
    api_key_env: JUDGE_API_KEY
    prompt: prompts/judge-v1.md
    mode: batch
    batch_size: 8
    concurrency: 4
    timeout_s: 30
    max_retries: 2
    backoff_ms: 100
    max_wait_s: 10
  both: {kind: cascade, front: words, back: judge, route_below: 0.6, settle_below: 0.2}
  mine: {kind: command, argv: [python3, checker.py], timeout_s: 60, total_timeout_s: 600}
decomposers:
  plain: {kind: sentences}
  llm: {kind: llm, base_url: http://127.0.0.1:8000/v1, model: m}
mutators:
  rules: my-rules
  subtle: {kind: llm, base_url: http://127.0.0.1:8000/v1, model: m, faults: [reasoning_error]}
"#;

#[test]
fn a_config_of_every_kind_loads_and_is_valid_and_what_the_schema_refuses_does_not_load() {
    let config = schema("faithprobe.json");
    faithprobe::engine::config::Config::from_yaml(Path::new("faithprobe.yaml"), EVERY_KIND)
        .unwrap();
    let v = serde_json::to_value(parse_yaml(EVERY_KIND)).unwrap();
    let e = errors(&config, &v);
    assert!(e.is_empty(), "{e}");
    for wrong in [
        "checkers:\n  a: {kind: lexical, treshold: 0.9}\n",
        "checkers:\n  a: {kind: lexicon}\n",
        "checkers:\n  a: {kind: nli}\n",
        "checkers:\n  a: {kind: command, argv: python3}\n",
        "checker:\n  a: {kind: lexical}\n",
        "mutators:\n  subtle: {kind: llm, model: m}\n",
    ] {
        let v = serde_json::to_value(parse_yaml(wrong)).unwrap();
        assert!(
            !errors(&config, &v).is_empty(),
            "the schema takes {wrong:?}"
        );
        assert!(
            faithprobe::engine::config::Config::from_yaml(Path::new("faithprobe.yaml"), wrong)
                .is_err(),
            "the loader takes {wrong:?}"
        );
    }
    // and a suite with a misspelt key or a label that is none
    let suite = schema("suite.json");
    for wrong in [
        "suite: s\ncontexts: []\nreview: {}\n",
        "suite: s\ncontexts:\n  - id: c\n    passages: [{id: p, text: t}]\n    hard_cases: [{id: h, type: x, claim: c, label: wrong}]\n",
    ] {
        let v = serde_json::to_value(parse_yaml(wrong)).unwrap();
        assert!(!errors(&suite, &v).is_empty(), "the schema takes {wrong:?}");
        assert!(
            faithprobe::model::suite::Suite::from_yaml(Path::new("s.yaml"), wrong).is_err(),
            "the loader takes {wrong:?}"
        );
    }
}

#[test]
fn run_and_score_records_are_valid_under_their_schemas() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run.json");
    let (code, _, err) = output(faithprobe().args([
        "run",
        "suites/larkspur.yaml",
        "tests/fixtures/clinic.yaml",
        "--record",
        run.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&run).unwrap()).unwrap();
    let e = errors(&schema("run-record.json"), &v);
    assert!(e.is_empty(), "{e}");
    assert!(
        !errors(&schema("score-record.json"), &v).is_empty(),
        "a run record is no score record"
    );
    let score = d.path().join("score.json");
    let (code, _, err) = output(faithprobe().args([
        "score",
        "tests/fixtures/answers.jsonl",
        "--record",
        score.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&score).unwrap()).unwrap();
    let e = errors(&schema("score-record.json"), &v);
    assert!(e.is_empty(), "{e}");
    assert!(
        !errors(&schema("run-record.json"), &v).is_empty(),
        "a score record is no run record"
    );
}
