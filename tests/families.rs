//! The checkers people run: BERT, RoBERTa and DeBERTa cross-encoders, binary classifiers whose
//! labels are not NLI words, and single-logit scorers. Each family's tiny model (made by
//! tests/fixtures/make_models.py) is checked for parity with the Python reference: the token ids
//! faithprobe feeds equal those of the `tokenizers` library, and its outputs equal Python
//! onnxruntime's for the same inputs. Then the non-NLI models run on Larkspur through a `labels:`
//! mapping, and a model faithprobe cannot read is an error that shows the mapping to write.

use crate::common;

use crate::common::{faithprobe_in, output, root};
use faithprobe::check::onnx::{Family, Model};
use std::io::Write;
use std::path::PathBuf;

fn models() -> PathBuf {
    root().join("tests/fixtures/models")
}

fn venv_python() -> PathBuf {
    let p = root().join("target/venv/bin/python");
    assert!(
        p.exists(),
        "missing target/venv (Python tokenizers and onnxruntime for the parity check): run `bash ci/setup.sh`"
    );
    p
}

/// Real-looking pairs: currency with spaces, a multi-byte dash and accents, line breaks and a
/// list, an apostrophe, numbers glued to units.
const PAIRS: &[(&str, &str)] = &[
    (
        "The Team plan costs €12 per user per month and includes up to 10 users.",
        "The Team plan costs $ 160 million.",
    ),
    (
        "SSO — Enterprise plan only. Café staff can’t export data.",
        "Single sign-on is available on the Team plan.",
    ),
    (
        "Here is a summary:\n\n- Exports are ZIP files.\n- Links expire after 7 days.",
        "Export links expire after 7 days.",
    ),
    ("Storage: 50GB/user, pooled.", "Each user gets 50 GB."),
];

/// A pair's length is its texts' counted alone plus the special tokens, and a batch joined from
/// texts read alone is the batch the tokenizer makes (the checker reads each window and claim
/// once that way), on every text, odd ones too.
fn reads_join_as_the_tokenizer_joins(m: &Model, name: &str) {
    let odd = [
        "",
        " ",
        "[SEP] <s></s> [CLS]",
        "\u{7}tab\there\u{200b}zero-width",
        "日本語のテキスト 😀",
    ];
    for a in PAIRS.iter().flat_map(|(a, b)| [*a, *b]).chain(odd) {
        for b in PAIRS.iter().flat_map(|(a, b)| [*a, *b]).chain(odd) {
            let (ra, rb) = (m.read_alone(a).unwrap(), m.read_alone(b).unwrap());
            assert_eq!(
                ra.len() + rb.len() + m.pair_specials(),
                m.token_len(a, Some(b)).unwrap(),
                "{name}: {a:?} + {b:?}"
            );
        }
    }
    // and a batch of pairs joined from texts read alone is the batch the tokenizer makes
    let texts: Vec<&str> = PAIRS
        .iter()
        .flat_map(|(a, b)| [*a, *b])
        .chain(odd)
        .collect();
    let batch: Vec<(&str, &str)> = texts
        .iter()
        .flat_map(|a| texts.iter().map(move |b| (*a, *b)))
        .collect();
    let reads: Vec<_> = batch
        .iter()
        .map(|(a, b)| (m.read_alone(a).unwrap(), m.read_alone(b).unwrap()))
        .collect();
    let refs: Vec<_> = reads.iter().map(|(a, b)| (a, b)).collect();
    let direct: Vec<(&str, Option<&str>)> = batch.iter().map(|(a, b)| (*a, Some(*b))).collect();
    assert_eq!(
        m.encode_joined(&refs).unwrap(),
        m.encode(&direct).unwrap(),
        "{name}: joined and direct batches"
    );
}

#[test]
#[ignore = "needs target/venv (ONNX Runtime, Python onnxruntime and tokenizers): bash ci/setup.sh, or bash ci/test.sh, which runs it"]
fn each_family_feeds_the_tokens_python_tokenizers_gives_and_gets_python_onnxruntimes_outputs() {
    common::require_onnxruntime();
    let python = venv_python();
    for (name, family, max_len) in [
        ("tiny-nli", Family::Other("tiny-test-model".into()), 64),
        ("tiny-roberta", Family::Roberta, 64),
        ("tiny-deberta", Family::Deberta, 64),
        ("tiny-binary", Family::Bert, 64),
        ("tiny-single", Family::Bert, 64),
    ] {
        let dir = models().join(name);
        let m = Model::load(&dir, 1).unwrap();
        assert_eq!(m.family, family, "{name}");
        assert_eq!(m.max_len, max_len, "{name}: the real limit");
        reads_join_as_the_tokenizer_joins(&m, name);
        let pairs: Vec<(&str, Option<&str>)> = PAIRS.iter().map(|(a, b)| (*a, Some(*b))).collect();
        let (ids, mask, types) = m.encode(&pairs).unwrap();
        let (shape, logits) = m.run_arrays(&ids, &mask, &types).unwrap();
        let rows = |a: &ndarray::Array2<i64>| -> Vec<Vec<i64>> {
            a.outer_iter().map(|r| r.to_vec()).collect()
        };
        let req = serde_json::json!({
            "dir": dir,
            "pairs": PAIRS.iter().map(|(a, b)| [a, b]).collect::<Vec<_>>(),
            "ids": rows(&ids), "mask": rows(&mask), "types": rows(&types),
        });
        let mut child = std::process::Command::new(&python)
            .arg(root().join("tests/fixtures/parity.py"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(req.to_string().as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{name}: parity.py failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let py: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let py_rows = |k: &str| -> Vec<Vec<i64>> { serde_json::from_value(py[k].clone()).unwrap() };
        assert_eq!(rows(&ids), py_rows("ids"), "{name}: token ids");
        assert_eq!(rows(&mask), py_rows("mask"), "{name}: attention mask");
        assert_eq!(rows(&types), py_rows("types"), "{name}: token type ids");
        let py_logits: Vec<Vec<f32>> = serde_json::from_value(py["logits"].clone()).unwrap();
        assert_eq!(shape, vec![PAIRS.len(), py_logits[0].len()], "{name}");
        for (a, b) in logits.iter().zip(py_logits.iter().flatten()) {
            assert!((a - b).abs() <= 1e-5, "{name}: {a} vs {b}");
        }
        if name == "tiny-roberta" {
            // `<s> A </s></s> B </s>`, padded with <pad> (id 1), no token types
            let r = &rows(&ids)[0];
            assert_eq!(r[0], 0, "<s> opens");
            assert!(
                r.windows(2).any(|w| w == [2, 2]),
                "</s></s> between the texts: {r:?}"
            );
            assert!(
                rows(&ids).iter().any(|r| r.last() == Some(&1)),
                "padded with <pad>"
            );
            assert!(!m.inputs.iter().any(|p| p.name == "token_type_ids"));
        }
    }
}

fn setup() -> (tempfile::TempDir, PathBuf) {
    common::require_onnxruntime();
    let d = tempfile::tempdir().unwrap();
    let m = models();
    let m = m.display();
    let cfg = format!(
        "checkers:
  roberta: {{kind: nli, model: {m}/tiny-roberta}}
  deberta: {{kind: nli, model: {m}/tiny-deberta}}
  binary: {{kind: nli, model: {m}/tiny-binary, labels: {{supported: LABEL_1, contradicted: LABEL_0}}}}
  binary-by-index: {{kind: nli, model: {m}/tiny-binary, labels: {{supported: 1}}}}
  binary-unmapped: {{kind: nli, model: {m}/tiny-binary}}
  single: {{kind: nli, model: {m}/tiny-single, labels: {{supported: 0}}}}
  single-inverted: {{kind: nli, model: {m}/tiny-single, labels: {{unsupported: 0}}}}
  single-unmapped: {{kind: nli, model: {m}/tiny-single}}
  templated: {{kind: nli, model: {m}/tiny-binary, labels: {{supported: 1}}, template: \"premise: {{premise}} hypothesis: {{claim}}\"}}
"
    );
    let p = d.path().join("faithprobe.yaml");
    std::fs::write(&p, cfg).unwrap();
    (d, p)
}

fn run_json(
    dir: &std::path::Path,
    cfg: &std::path::Path,
    checker: &str,
) -> (i32, serde_json::Value, String) {
    let (code, out, err) = output(faithprobe_in(dir).args([
        "--config",
        cfg.to_str().unwrap(),
        "run",
        root().join("suites/larkspur.yaml").to_str().unwrap(),
        "--checker",
        checker,
        "--format",
        "json",
        "--no-cache",
    ]));
    (code, serde_json::from_str(&out).unwrap_or_default(), err)
}

#[test]
#[ignore = "needs ONNX Runtime (target/venv): bash ci/setup.sh, or bash ci/test.sh, which runs it"]
fn every_family_and_mapped_model_runs_on_larkspur() {
    let (d, cfg) = setup();
    for checker in [
        "roberta",
        "deberta",
        "binary",
        "binary-by-index",
        "single",
        "single-inverted",
        "templated",
    ] {
        let (code, v, err) = run_json(d.path(), &cfg, checker);
        assert!(code == 0 || code == 1, "{checker}: {err}");
        let cases = v["cases"].as_array().unwrap();
        assert_eq!(cases.len(), crate::common::LARKSPUR_CASES, "{checker}");
        assert_eq!(v["summary"]["errors"], 0, "{checker}: {err}");
        assert!(cases.iter().all(|c| c["score"]
            .as_f64()
            .is_some_and(|s| (0.0..=1.0).contains(&s))));
        if checker.starts_with("single") || checker == "binary-by-index" || checker == "templated" {
            // no contradicted output: an unsupported claim is not_found
            assert!(
                cases.iter().all(|c| c["verdict"] != "contradicted"),
                "{checker}"
            );
        }
    }
    // the same single logit read both ways: on one pair the probabilities are complements
    let probe = |checker: &str| -> f64 {
        let (code, out, err) = output(faithprobe_in(d.path()).args([
            "--config",
            cfg.to_str().unwrap(),
            "check",
            "--checker",
            checker,
            "--premise",
            "Export links expire after 7 days.",
            "--claim",
            "Export links expire after 30 days.",
        ]));
        assert_eq!(code, 0, "{err}");
        out.lines()
            .find(|l| l.trim_start().starts_with("supported"))
            .and_then(|l| l.split_whitespace().last())
            .and_then(|x| x.parse().ok())
            .unwrap_or_else(|| panic!("{out}"))
    };
    let (p, q) = (probe("single"), probe("single-inverted"));
    assert!((p + q - 1.0).abs() < 2e-3, "{p} + {q}");
    // the mapping by name and by index read the same output
    let (_, by_name, _) = run_json(d.path(), &cfg, "binary");
    let (_, by_index, _) = run_json(d.path(), &cfg, "binary-by-index");
    let scores = |v: &serde_json::Value| -> Vec<f64> {
        v["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["score"].as_f64().unwrap())
            .collect()
    };
    assert_eq!(scores(&by_name), scores(&by_index));
    // the template changes what the model reads
    let (_, templated, _) = run_json(d.path(), &cfg, "templated");
    assert_ne!(scores(&templated), scores(&by_index));
}

#[test]
#[ignore = "needs ONNX Runtime (target/venv): bash ci/setup.sh, or bash ci/test.sh, which runs it"]
fn a_model_whose_outputs_faithprobe_cannot_read_is_an_error_that_shows_the_mapping() {
    let (d, cfg) = setup();
    let (code, _, err) = run_json(d.path(), &cfg, "binary-unmapped");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("0: label_0, 1: label_1"), "{err}");
    assert!(
        err.contains("labels: {supported: label_1, contradicted: label_0}"),
        "{err}"
    );
    let (code, _, err) = run_json(d.path(), &cfg, "single-unmapped");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("one output (a score)") && err.contains("labels: {supported: 0}"),
        "{err}"
    );
    // and doctor says what it recognised, what it feeds, how it reads the outputs
    let (code, out, _) =
        output(faithprobe_in(d.path()).args(["--config", cfg.to_str().unwrap(), "doctor"]));
    assert_eq!(code, 2, "two checkers cannot be read: {out}");
    for want in [
        "family RoBERTa (byte-level BPE; <s> A </s></s> B </s>)",
        "family DeBERTa (SentencePiece; [CLS] A [SEP] B [SEP])",
        "limit  64 tokens per input",
        "reads  softmax over 3 outputs; supported = `entailment` (output 2); contradicted = `contradiction` (output 0) (from id2label)",
        "reads  softmax over 2 outputs; supported = `label_1` (output 1); contradicted = `label_0` (output 0) (from `labels:` in the config)",
        "reads  one logit; sigmoid = probability of unsupported",
        "input text: the template \"premise: {premise} hypothesis: {claim}\"",
        "PROBLEM: model",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
}

#[test]
fn labels_and_templates_are_checked_when_the_config_loads() {
    let d = tempfile::tempdir().unwrap();
    for (body, want) in [
        (
            "checkers:\n  s: {kind: similarity, model: m, labels: {supported: 0}}\n",
            "settings of `kind: nli`",
        ),
        (
            "checkers:\n  n: {kind: nli, model: m, template: \"{premise} only\"}\n",
            "must contain `{premise}` and `{claim}` once each",
        ),
        (
            "checkers:\n  n: {kind: nli, model: m, labels: {supported: 0, entailed: 1}}\n",
            "unknown field",
        ),
        (
            "checkers:\n  n: {kind: nli, model: m, labels: {supported: -1}}\n",
            "-1 is not an output index",
        ),
    ] {
        let p = d.path().join("faithprobe.yaml");
        std::fs::write(&p, body).unwrap();
        let (code, _, err) = output(
            faithprobe_in(d.path())
                .args(["run", root().join("suites/larkspur.yaml").to_str().unwrap()]),
        );
        assert_eq!(code, 2, "{body}: {err}");
        assert!(
            err.contains(want) && err.contains("faithprobe.yaml:2"),
            "{body}: {err}"
        );
    }
}

#[test]
#[ignore = "needs ONNX Runtime (target/venv): bash ci/setup.sh, or bash ci/test.sh, which runs it"]
fn asking_for_a_gpu_the_runtime_lacks_is_an_error_never_a_silent_cpu_run() {
    common::require_onnxruntime();
    let d = tempfile::tempdir().unwrap();
    let m = models().join("tiny-nli");
    let cfg = d.path().join("faithprobe.yaml");
    std::fs::write(
        &cfg,
        format!(
            "checkers:\n  gpu: {{kind: nli, model: {0}, providers: [cuda]}}\n  gpu-or-cpu: {{kind: nli, model: {0}, providers: [cuda, cpu]}}\n  cpu: {{kind: nli, model: {0}, providers: [cpu]}}\n",
            m.display()
        ),
    )
    .unwrap();
    let fg = |args: &[&str]| {
        output(
            faithprobe_in(d.path())
                .args(["--config", cfg.to_str().unwrap()])
                .args(args),
        )
    };
    let (_, doctor, _) = fg(&["doctor"]);
    let offered = doctor
        .lines()
        .find(|l| l.trim_start().starts_with("execution providers:"))
        .and_then(|l| l.split(" (").next())
        .unwrap_or_else(|| panic!("{doctor}"))
        .to_string();
    let larkspur = root().join("suites/larkspur.yaml");
    let run = |checker: &str| {
        fg(&[
            "run",
            larkspur.to_str().unwrap(),
            "--checker",
            checker,
            "--no-cache",
        ])
    };
    let (code, _, err) = run("gpu");
    if offered.contains("cuda") {
        assert!(code == 0 || code == 1, "{err}");
    } else {
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("providers [cuda] were asked for") && err.contains("offers only [cpu]"),
            "{err}"
        );
        assert!(doctor.contains("checker gpu: PROBLEM"), "{doctor}");
        // with cpu in the list the run goes ahead, and says where it runs
        let (code, _, err) = run("gpu-or-cpu");
        assert!(code == 0 || code == 1, "{err}");
        assert!(
            err.contains("providers cuda are not in this ONNX Runtime; running on cpu"),
            "{err}"
        );
    }
    let (code, _, err) = run("cpu");
    assert!(code == 0 || code == 1, "{err}");
    assert!(doctor.contains("runs on cpu"), "{doctor}");
}

#[test]
#[ignore = "needs target/venv (ONNX Runtime, Python onnxruntime and tokenizers): bash ci/setup.sh, or bash ci/test.sh, which runs it"]
fn a_dynamically_quantised_model_runs_and_compares_with_its_fp32_original() {
    common::require_onnxruntime();
    let d = tempfile::tempdir().unwrap();
    let q = d.path().join("tiny-nli-int8");
    let out = std::process::Command::new(venv_python())
        .arg(root().join("ci/quantize.py"))
        .arg(models().join("tiny-nli"))
        .arg(&q)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fp32 = std::fs::metadata(models().join("tiny-nli/model.onnx"))
        .unwrap()
        .len();
    let int8 = std::fs::metadata(q.join("model.onnx")).unwrap().len();
    assert!(int8 < fp32, "{int8} >= {fp32}");
    let cfg = d.path().join("faithprobe.yaml");
    std::fs::write(
        &cfg,
        format!(
            "checkers:\n  fp32: {{kind: nli, model: {}}}\n  int8: {{kind: nli, model: {}}}\n",
            models().join("tiny-nli").display(),
            q.display()
        ),
    )
    .unwrap();
    let (code, json, err) = output(faithprobe_in(d.path()).args([
        "--config",
        cfg.to_str().unwrap(),
        "compare",
        "--cluster-by",
        "claim",
        "--checker",
        "fp32",
        "--checker",
        "int8",
        root().join("suites/larkspur.yaml").to_str().unwrap(),
        "--no-cache",
        "--format",
        "json",
    ]));
    // the random-head model checks the plumbing only: every case scored by both, one decision
    assert!(code == 0 || code == 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["group"] == "false alarms"), "{v}");
    assert!(!err.contains("not scored"), "{err}");
}

#[test]
#[ignore = "needs ONNX Runtime (target/venv): bash ci/setup.sh, or bash ci/test.sh, which runs it"]
fn top_windows_scores_fewer_pairs_and_says_how_many_it_left_out() {
    common::require_onnxruntime();
    let d = tempfile::tempdir().unwrap();
    let cfg = d.path().join("faithprobe.yaml");
    let m = models();
    std::fs::write(
        &cfg,
        format!(
            "checkers:\n  all: {{kind: nli, model: {0}/tiny-nli}}\n  top2: {{kind: nli, model: {0}/tiny-nli, top_windows: 2}}\n  sim2: {{kind: similarity, model: {0}/tiny-embed, top_windows: 2}}\n",
            m.display()
        ),
    )
    .unwrap();
    let run = |checker: &str| {
        output(faithprobe_in(d.path()).args([
            "--config",
            cfg.to_str().unwrap(),
            "run",
            root().join("suites/larkspur.yaml").to_str().unwrap(),
            "--checker",
            checker,
            "--no-cache",
            "--full-scan",
            "--format",
            "json",
        ]))
    };
    let pairs = |err: &str| -> usize {
        // "all: 470 distinct premise-claim pairs: ..."
        err.lines()
            .find_map(|l| {
                l.split(" distinct ")
                    .next()?
                    .rsplit(' ')
                    .next()?
                    .parse()
                    .ok()
            })
            .unwrap_or_else(|| panic!("{err}"))
    };
    let (code, _, all_err) = run("all");
    assert!(code == 0 || code == 1, "{all_err}");
    let (code, v, err) = run("top2");
    assert!(code == 0 || code == 1, "{err}");
    assert!(
        err.contains("top_windows left out") && err.contains("claim-window pairs"),
        "{err}"
    );
    assert!(pairs(&err) < pairs(&all_err), "{err}\n{all_err}");
    let v: serde_json::Value = serde_json::from_str(&v).unwrap();
    assert_eq!(v["summary"]["errors"], 0);
    let (code, _, err) = run("sim2");
    assert!(code == 0 || code == 1, "{err}");
    assert!(err.contains("top_windows left out"), "{err}");
    std::fs::write(
        &cfg,
        format!(
            "checkers:\n  zero: {{kind: nli, model: {}/tiny-nli, top_windows: 0}}\n",
            m.display()
        ),
    )
    .unwrap();
    let (code, _, err) = run("zero");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("faithprobe.yaml:2") && err.contains("top_windows is 0"),
        "{err}"
    );
}
