//! The fuzz harness: every parser and text routine that reads input a user or a server controls,
//! fed arbitrary text (and structured YAML that is almost right). The property is always the same:
//! no panic, no hang (each call finishes within a generous bound), and where a file is at fault
//! the error names it. `FAITHPROBE_FUZZ_CASES` sets the inputs per target (default 256; CI runs
//! the default, `cargo test fuzz` with a larger number runs longer).

use crate::check::lexical::{LexicalChecker, LexicalSettings};
use crate::check::{CheckInput, Checker, ClaimToCheck, ContextSet};
use crate::model::suite::{EntityGroup, Passage, Suite};
use crate::mutate::{Input, Rules};
use proptest::prelude::*;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// Far beyond any honest call on these small inputs; only a hang reaches it.
const HANG: Duration = Duration::from_secs(30);

fn cases() -> u32 {
    std::env::var("FAITHPROBE_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

/// Runs `f` on its own thread; a panic or a hang fails the property.
fn bounded<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(HANG) {
        Ok(v) => {
            let _ = handle.join();
            v
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what}: no answer within {HANG:?}: a hang"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{what}: panicked"),
    }
}

/// Text that looks like what people and models write, with the characters that break byte
/// indexing and splitting mixed in.
fn text() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "Team",
        "Enterprise",
        "plan",
        "a",
        "an",
        "An",
        "is",
        "is not",
        "cannot",
        "can",
        "not",
        "$ 160 million",
        "€12",
        "12",
        "1.5",
        "50 GB",
        "14 days",
        "within 24 hours",
        "if",
        "unless",
        "—",
        "–",
        "…",
        "é",
        "ß",
        "日本",
        "🙂",
        "\u{200b}",
        "\u{feff}",
        "\u{1b}[31m",
        "\t",
        "\n",
        "\r\n",
        ".",
        ",",
        ";",
        ":",
        "!",
        "?",
        "\"",
        "'",
        "(",
        ")",
        "[",
        "]",
        "{claims}",
        "J.R.R.",
        "Dr.",
        "e.g.",
        "3.",
        " ",
        "  ",
        "-",
        "*",
        "#",
        "%",
        "0",
        "9",
        "1,000",
        "twelve",
        "",
    ]);
    prop_oneof![
        prop::collection::vec(pieces.clone(), 0..24).prop_map(|v| v.join(" ")),
        prop::collection::vec(pieces, 0..24).prop_map(|v| v.concat()),
        any::<String>(),
    ]
}

fn entity_groups() -> impl Strategy<Value = Vec<EntityGroup>> {
    prop::collection::vec(
        prop::collection::vec(
            prop_oneof![
                Just("Team".to_string()),
                Just("Enterprise".to_string()),
                Just("日本".to_string()),
                Just("Café".to_string()),
                "[A-Za-zé—]{1,6}",
            ],
            2..4,
        ),
        0..3,
    )
    .prop_map(|groups| {
        groups
            .into_iter()
            .enumerate()
            .map(|(i, mut members)| {
                members.sort();
                members.dedup();
                EntityGroup {
                    name: format!("g{i}"),
                    members,
                }
            })
            .filter(|g| g.members.len() >= 2)
            .collect()
    })
}

/// A suite that is almost valid: the Larkspur shape with one field replaced by arbitrary text.
fn almost_a_suite() -> impl Strategy<Value = String> {
    (text(), text(), 0usize..6).prop_map(|(a, b, which)| {
        let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
        let fields = [
            format!("suite: {}\ncontexts:\n  - id: c\n    passages: [{{id: p, text: \"x\"}}]\n", q(&a)),
            format!("suite: s\ncontexts:\n  - id: c\n    passages: [{{id: p, text: {}}}]\n    faithful: [{{id: f, claim: {}}}]\n", q(&a), q(&b)),
            format!("suite: s\nentities: {{plan: [{}, {}]}}\ncontexts:\n  - id: c\n    passages: [{{id: p, text: {}}}]\n    faithful: [{{id: f, claim: {}}}]\n", q(&a), q(&b), q(&a), q(&b)),
            format!("suite: s\ncontexts:\n  - id: c\n    passages: [{{id: p, text: x}}]\n    hard_cases: [{{id: h, type: {}, claim: {}, label: supported}}]\n", q(&a), q(&b)),
            format!("suite: s\ncontexts: []\nreviews: {{{}: {{review: fault}}}}\n", q(&a)),
            a.clone(),
        ];
        fields[which].clone()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn fuzz_every_mutator_on_any_claim(claim in text(), groups in entity_groups()) {
        bounded("mutators", move || {
            let passages = [claim.as_str()];
            let input = Input { claim: &claim, passages: &passages, entities: &groups, elsewhere: &passages, real_errors: &[], shared: None };
            for (op, m) in Rules::builtin().operators() {
                for m in m.mutate(&input) {
                    assert_ne!(m, claim, "{} returned its input", op.name);
                }
            }
        });
    }

    #[test]
    fn fuzz_text_routines(t in text(), word in text()) {
        bounded("text", move || {
            let _ = crate::text::sentences::split_sentences(&t);
            let _ = crate::text::tokens::tokenize(&t);
            let _ = crate::text::words::tidy(&t);
            let _ = crate::text::escape::printable(&t);
            let _ = crate::text::escape::escape_markup(&t);
            let _ = crate::text::escape::escape_md_cell(&t);
            let _ = crate::text::words::find_word(&t, &word, 0);
            let _ = crate::answers::numbers::check(&t, &[&word], "");
            let _ = crate::answers::decompose::is_refusal(&t);
            {
                use crate::answers::decompose::Decomposer;
                let _ = crate::answers::decompose::Sentences.decompose_explained(&word, &t);
            }
            let _ = crate::io::llm::render_template(&t, &[("claims", &word), ("passages", &t)]);
            let _ = crate::io::llm::redact(&t, &word);
            let _ = crate::io::llm::parse_retry_after(&t);
        });
    }

    #[test]
    fn fuzz_the_lexical_checker(passage in text(), claim in text(), groups in entity_groups()) {
        bounded("lexical", move || {
            let sets = [ContextSet {
                id: "c".into(),
                question: None,
                passages: vec![Passage { id: "p".into(), text: passage }].into(),
            }];
            let input = CheckInput {
                contexts: &sets,
                entities: &groups,
                claims: vec![ClaimToCheck { context: 0, text: &claim }],
            };
            let v = LexicalChecker::new("lexical", LexicalSettings::default()).check(&input, &mut |_| {});
            assert_eq!(v.len(), 1);
            if let Ok(v) = &v[0] {
                assert!(v.score.is_none_or(|s| (0.0..=1.0).contains(&s)), "{v:?}");
            }
        });
    }

    #[test]
    fn fuzz_suite_loading(yaml in almost_a_suite()) {
        bounded("suite", move || {
            if let Ok(suite) = Suite::from_yaml(Path::new("fuzz.yaml"), &yaml) {
                // a suite that loads generates its mutants without panicking; a bad review is an
                // error that names the file
                if let Err(e) = crate::mutate::generate(&suite, &Rules::builtin()) {
                    assert!(e.to_string().contains("fuzz.yaml"), "{e}");
                }
            } else if let Err(e) = Suite::from_yaml(Path::new("fuzz.yaml"), &yaml) {
                assert!(e.to_string().contains("fuzz.yaml"), "an error names the file: {e}");
            }
        });
    }

    #[test]
    fn fuzz_judge_and_decomposer_replies(reply in text(), n in 0usize..4) {
        bounded("replies", move || {
            let passages = [Passage { id: "p".into(), text: "Team plans are billed monthly.".into() }];
            let claims = vec!["Team plans are billed monthly."; n];
            let _ = crate::check::judge::validate(&reply, &claims, &passages);
            let _ = crate::answers::decompose::parse_claims(&reply);
        });
    }

    /// Whatever a verdict list says and whatever text surrounds it: a reply that echoes the
    /// prompt's passages is never read, and verdicts numbered out of place are never mapped by
    /// position.
    #[test]
    fn judge_replies_are_read_only_as_their_own_answer(
        labels in proptest::collection::vec(prop::sample::select(vec!["supported", "not_found", "contradicted"]), 1..4),
        order in proptest::collection::vec(0usize..4, 1..4),
        around in text(),
    ) {
        bounded("reply semantics", move || {
            let passages = [Passage { id: "p".into(), text: "Team plans are billed monthly.".into() }];
            let claims = vec!["Team plans are billed monthly."; labels.len()];
            let list = |numbers: &[usize]| -> String {
                let items: Vec<String> = labels
                    .iter()
                    .zip(numbers)
                    .map(|(l, n)| format!("{{\"claim\": {n}, \"label\": \"{l}\", \"quote\": \"Team plans are billed monthly\"}}"))
                    .collect();
                format!("[{}]", items.join(", "))
            };
            let in_place: Vec<usize> = (1..=labels.len()).collect();
            // the reply's own list, in place, reads
            assert!(crate::check::judge::validate(&list(&in_place), &claims, &passages).is_ok());
            // an echo of the prompt with that list inside is never read
            let echo = format!("{around}<passages>\n<passage id=\"p\">{}</passage>\n</passages>{around}", list(&in_place));
            assert!(crate::check::judge::validate(&echo, &claims, &passages).is_err());
            // numbers out of place are never mapped by position
            let numbers: Vec<usize> = order.iter().cycle().take(labels.len()).map(|n| n + 1).collect();
            if numbers != in_place {
                assert!(crate::check::judge::validate(&list(&numbers), &claims, &passages).is_err());
            }
        });
    }

    #[test]
    fn fuzz_command_checker_lines(line in text()) {
        bounded("command lines", move || {
            let _ = crate::check::command::parse_line(&line);
        });
    }

    #[test]
    fn fuzz_config_records_and_logs(body in text()) {
        bounded("files", move || {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("input");
            std::fs::write(&p, &body).unwrap();
            if let Err(e) = crate::engine::config::Config::from_yaml(&p, &body) {
                assert!(e.to_string().contains("input"), "{e}");
            }
            if let Err(e) = crate::engine::record::AnyRecord::load(&p) {
                assert!(e.to_string().contains("input"), "{e}");
            }
            let _ = crate::answers::load_log(&p);
            // the same text as a contexts file, a labels file and RAGTruth's two files
            let log = dir.path().join("log.jsonl");
            std::fs::write(&log, "{\"id\": 1, \"answer\": \"It opened in 1998.\", \"context\": \"c\"}\n").unwrap();
            if let Ok(r) = crate::answers::log::LogReader::open(&log, Some(&p), Some(&p), None) {
                for a in r {
                    let _ = a;
                }
            }
            std::fs::write(dir.path().join("response.jsonl"), &body).unwrap();
            std::fs::write(dir.path().join("source_info.jsonl"), &body).unwrap();
            if let Err(e) = crate::import::ragtruth(dir.path(), &dir.path().join("o.jsonl"), &dir.path().join("c.jsonl"), Some(&dir.path().join("s.yaml"))) {
                assert!(e.to_string().contains(".jsonl"), "{e}");
            }
        });
    }

    #[test]
    fn fuzz_ragtruth_spans(text in text(), spans in proptest::collection::vec((0usize..400, 0usize..400), 0..6)) {
        // spans anywhere, over any characters: an error or an import, never a panic
        bounded("ragtruth spans", move || {
            let dir = tempfile::tempdir().unwrap();
            let labels: Vec<serde_json::Value> = spans.iter().map(|(s, e)| serde_json::json!({"start": s, "end": e, "label_type": "Evident Conflict"})).collect();
            let resp = serde_json::json!({"id": "r1", "source_id": "s1", "model": "m", "response": text, "labels": labels});
            std::fs::write(dir.path().join("response.jsonl"), format!("{resp}\n")).unwrap();
            std::fs::write(dir.path().join("source_info.jsonl"), "{\"source_id\": \"s1\", \"source_info\": \"The library opened in 1998.\"}\n").unwrap();
            let _ = crate::import::ragtruth(dir.path(), &dir.path().join("o.jsonl"), &dir.path().join("c.jsonl"), Some(&dir.path().join("s.yaml")));
        });
    }
}
