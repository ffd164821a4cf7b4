//! Property tests of the mutation operators.

use faithprobe::model::suite::{EntityGroup, Suite};
use faithprobe::mutate::{generate, Input, Mutator, Rules};
use faithprobe::text::tokens::tokenize;
use proptest::prelude::*;
use std::path::Path;
use std::sync::LazyLock;

/// The built-in operators, built once: building them compiles the rule regexes.
static RULES: LazyLock<Rules> = LazyLock::new(Rules::builtin);

fn op(name: &str) -> &'static dyn Mutator {
    RULES.get(name).unwrap()
}

const SUBJECTS: [&str; 4] = [
    "Team plans",
    "The Enterprise plan",
    "Refunds",
    "Export links",
];
const VERBS: [&str; 6] = ["are", "are not", "can be", "cannot be", "is", "is not"];
const TAILS: [&str; 6] = [
    "cancelled at any time",
    "billed monthly",
    "issued within 14 days of signing",
    "kept for 30 days",
    "refunded if the item arrived damaged",
    "priced at €12 per user",
];

fn claim() -> impl Strategy<Value = String> {
    (0..SUBJECTS.len(), 0..VERBS.len(), 0..TAILS.len(), 0u32..500).prop_map(|(s, v, t, n)| {
        format!("{} {} {} for {} users.", SUBJECTS[s], VERBS[v], TAILS[t], n)
    })
}

fn groups() -> Vec<EntityGroup> {
    vec![EntityGroup {
        name: "plan".into(),
        members: vec!["Team".into(), "Enterprise".into()],
    }]
}

fn suite_yaml(claims: &[String]) -> String {
    let mut s = String::from("suite: p\nentities:\n  plan: [Team, Enterprise]\ncontexts:\n  - id: c\n    passages:\n      - {id: p, text: \"Anything.\"}\n    faithful:\n");
    for (i, c) in claims.iter().enumerate() {
        s.push_str(&format!("      - {{id: f{i}, claim: \"{c}\"}}\n"));
    }
    s
}

fn numbers(s: &str) -> Vec<f64> {
    tokenize(s)
        .iter()
        .filter_map(|t| t.number.map(|n| n.value))
        .collect()
}

fn words(s: &str) -> Vec<String> {
    tokenize(s)
        .into_iter()
        .filter(|t| t.number.is_none())
        .map(|t| s[t.start..t.end].to_string())
        .collect()
}

proptest! {
    #[test]
    fn every_mutant_differs_from_its_parent(c in claim()) {
        let groups = groups();
        let passages = ["Team plans are billed monthly by Larkspur Ltd in Leeds, Dr Ann Lee said on Monday, June 3, 2024."];
        let input = Input { claim: &c, passages: &passages, entities: &groups, elsewhere: &passages, real_errors: &[], shared: None };
        for (op, m) in RULES.operators() {
            for m in m.mutate(&input) {
                prop_assert_ne!(&m, &c, "{} returned its input", op.name);
                prop_assert!(!m.trim().is_empty());
            }
        }
    }

    #[test]
    fn a_shared_reading_of_the_passages_gives_the_same_mutants(c in claim(), odd in "[A-Za-zÉé'Σς -]{0,30}") {
        // what generation reads once per context is what each claim would read alone
        let groups = groups();
        let second = format!("Dr Ann Lee of Larkspur Ltd said {odd}. ΣΟΦΟΣ was late-night billing.");
        let passages = ["Team plans are billed monthly by Larkspur Ltd in Leeds, Dr Ann Lee said on Monday, June 3, 2024.", second.as_str()];
        let shared = faithprobe::mutate::Shared::new(&passages, &passages);
        let alone = Input { claim: &c, passages: &passages, entities: &groups, elsewhere: &passages, real_errors: &[], shared: None };
        let with = Input { shared: Some(&shared), ..alone };
        for (op, m) in RULES.operators() {
            prop_assert_eq!(m.mutate(&alone), m.mutate(&with), "{}", op.name);
        }
    }

    #[test]
    fn number_swap_changes_exactly_one_number(c in claim()) {
        let before = numbers(&c);
        let mutants = op("number_swap").mutate(&Input::bare(&c));
        prop_assert_eq!(mutants.len(), before.len(), "one mutant per number");
        for m in mutants {
            let after = numbers(&m);
            prop_assert_eq!(after.len(), before.len());
            let changed = before.iter().zip(&after).filter(|(a, b)| a != b).count();
            prop_assert_eq!(changed, 1, "{} -> {}", c, m);
            prop_assert_eq!(words(&m), words(&c), "only the number changes");
        }
    }

    #[test]
    fn a_flip_of_a_flip_gives_back_the_parent(c in claim()) {
        let flip = op("negation_flip");
        let once = flip.mutate(&Input::bare(&c));
        prop_assert_eq!(once.len(), 1, "every generated claim has a cue");
        let twice = flip.mutate(&Input::bare(&once[0]));
        prop_assert_eq!(&twice[0], &c);
    }

    #[test]
    fn mutant_ids_are_stable_under_reordering_of_the_suite(
        claims in proptest::collection::vec(claim(), 1..8),
        seed in any::<u64>(),
    ) {
        let rules = Rules::builtin();
        let a = Suite::from_yaml(Path::new("a.yaml"), &suite_yaml(&claims)).unwrap();
        // reorder the claims but keep each claim's id
        let mut order: Vec<usize> = (0..claims.len()).collect();
        let mut x = seed;
        for i in (1..order.len()).rev() {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            order.swap(i, (x >> 33) as usize % (i + 1));
        }
        let mut yaml = String::from("suite: p\nentities:\n  plan: [Team, Enterprise]\ncontexts:\n  - id: c\n    passages:\n      - {id: p, text: \"Anything.\"}\n    faithful:\n");
        for &i in &order {
            yaml.push_str(&format!("      - {{id: f{i}, claim: \"{}\"}}\n", claims[i]));
        }
        let b = Suite::from_yaml(Path::new("b.yaml"), &yaml).unwrap();
        let mut ma: Vec<_> = generate(&a, &rules).unwrap().mutants.into_iter().map(|m| (m.id, m.text)).collect();
        let mut mb: Vec<_> = generate(&b, &rules).unwrap().mutants.into_iter().map(|m| (m.id, m.text)).collect();
        ma.sort();
        mb.sort();
        prop_assert_eq!(ma, mb);
    }
}

#[test]
fn the_larkspur_suite_yields_the_seed_counts() {
    let s =
        Suite::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("suites/larkspur.yaml")).unwrap();
    let set = generate(&s, &Rules::builtin()).unwrap();
    assert_eq!(
        [
            "number_swap",
            "negation_flip",
            "entity_swap",
            "dropped_condition"
        ]
        .map(|op| set
            .counts()
            .into_iter()
            .find(|(name, _)| *name == op)
            .unwrap()),
        [
            ("number_swap", 6),
            ("negation_flip", 8),
            ("entity_swap", 9),
            // the seed's third edit, f07 without its 14-day limit, is hard case h06 word for
            // word: it is left to the hard case so the same claim is not counted twice
            ("dropped_condition", 2)
        ]
    );
    assert_eq!(set.same_as_hard_case.len(), 1);
    // the help centre has no dates, sources, hedges or causal links to change
    assert_eq!(
        set.empty_operators,
        [
            "attribution_swap",
            "pronoun_swap",
            "role_reversal",
            "dropped_qualifier",
            "date_shift",
            "relative_date",
            "hedge_drop",
            "link_swap"
        ]
    );
}

#[test]
fn rules_from_a_folder_change_the_mutants_without_code_changes() {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("mutators");
    // one operator overridden; the others inherit the built-in rules
    let shipped = std::fs::read_to_string(src.join("number_swap.yaml")).unwrap();
    let start = shipped.find("\nchanges:").unwrap() + 1;
    let end = shipped.find("# Four-digit").unwrap();
    let changed = format!(
        "{}changes:\n  - add: 5\n\n{}",
        &shipped[..start],
        &shipped[end..]
    );
    std::fs::write(dir.path().join("number_swap.yaml"), changed).unwrap();
    let rules = Rules::from_dir(dir.path()).unwrap();
    assert_eq!(
        rules
            .get("number_swap")
            .unwrap()
            .mutate(&Input::bare("Links expire after 7 days.")),
        vec!["Links expire after 12 days."]
    );
    assert_eq!(
        rules
            .get("negation_flip")
            .unwrap()
            .mutate(&Input::bare("Links expire after 7 days.")),
        op("negation_flip").mutate(&Input::bare("Links expire after 7 days."))
    );
}
