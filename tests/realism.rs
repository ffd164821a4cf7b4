//! How real the faults are: every operator on a fixture of 51 real-looking claims (news, policy,
//! product FAQ, medical, finance) with no declared entity groups. Per operator: the share of
//! claims that get a mutant, impossible values (must be 0) and mutants that only reorder the
//! claim's words (must be 0). `cargo test realism -- --nocapture` prints the table BENCHMARKS.md
//! records, with three examples per operator.
//!
//! On the larger fixture, each operator's output is checked apart from the grammar guard: no
//! broken text, no impossible value, no added phrase that dominates; a conflation uses no word
//! its passages lack, an invented name part or modifier adds only words they never use.

use faithprobe::model::suite::Suite;
use faithprobe::mutate::{generate, Mutant, Purpose, Rules, REGISTRY};
use std::collections::BTreeMap;
use std::path::Path;

const MONTHS: [(&str, u32); 12] = [
    ("January", 31),
    ("February", 29),
    ("March", 31),
    ("April", 30),
    ("May", 31),
    ("June", 30),
    ("July", 31),
    ("August", 31),
    ("September", 30),
    ("October", 31),
    ("November", 30),
    ("December", 31),
];

fn numbers_after(text: &str, word: &str) -> Vec<u32> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(word) {
        let rest = &text[from + at + word.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(n) = digits.parse() {
            out.push(n);
        }
        from += at + word.len();
    }
    out
}

/// Every value in `text` that no calendar, clock or percentage allows, as a description. `latest`
/// is the latest year the passages mention.
fn impossible(text: &str, latest: u32) -> Vec<String> {
    let mut out = Vec::new();
    let words: Vec<&str> = text.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '%' && c != ':');
        // percentages
        if let Some(p) = bare.strip_suffix('%') {
            if p.parse::<f64>().is_ok_and(|v| v > 100.0) {
                out.push(format!("percentage {bare}"));
            }
        }
        if let Ok(v) = bare.parse::<f64>() {
            let next = words.get(i + 1).copied().unwrap_or("");
            let next2 = words.get(i + 2).copied().unwrap_or("");
            if ((next == "per" && next2.starts_with("cent")) || next.starts_with("percent"))
                && v > 100.0
            {
                out.push(format!("percentage {v}"));
            }
            // years: four digits, never far past the passages
            if bare.len() == 4 && v.fract() == 0.0 && (1000.0..=9999.0).contains(&v) {
                let y = v as u32;
                if y > latest + 3 {
                    out.push(format!("year {y} (latest in the passages {latest})"));
                }
            }
            // clock hours
            if ["a.m.", "p.m.", "a.m.,", "p.m.,"].contains(&next) && !(1.0..=12.0).contains(&v) {
                out.push(format!("hour {v} {next}"));
            }
            // ages
            let prev = if i > 0 { words[i - 1] } else { "" };
            if (prev == "aged" || (prev == "over" && i > 1 && words[i - 2] == "adults"))
                && v > 120.0
            {
                out.push(format!("age {v}"));
            }
        }
        // "22:75"
        if let Some((h, m)) = bare.split_once(':') {
            if let (Ok(h), Ok(m)) = (h.parse::<u32>(), m.parse::<u32>()) {
                if h > 23 || m > 59 {
                    out.push(format!("time {bare}"));
                }
            }
        }
        // ordinals: "22th"
        let digits: String = bare.chars().take_while(char::is_ascii_digit).collect();
        let suffix = &bare[digits.len()..];
        if !digits.is_empty() && ["st", "nd", "rd", "th"].contains(&suffix) {
            let n: u64 = digits.parse().unwrap();
            let want = match (n % 10, n % 100) {
                (_, 11..=13) => "th",
                (1, _) => "st",
                (2, _) => "nd",
                (3, _) => "rd",
                _ => "th",
            };
            if suffix != want {
                out.push(format!("ordinal {bare}"));
            }
        }
    }
    // days of the month, written either way round
    for (month, days) in MONTHS {
        for d in numbers_after(text, &format!("{month} ")) {
            if d == 0 || (d > days && d < 100) {
                out.push(format!("{month} {d}"));
            }
        }
        let mut from = 0;
        while let Some(at) = text[from..].find(&format!(" {month}")) {
            let before = &text[..from + at];
            let digits: String = before
                .chars()
                .rev()
                .take_while(char::is_ascii_digit)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            if let Ok(d) = digits.parse::<u32>() {
                if d == 0 || d > days {
                    out.push(format!("{d} {month}"));
                }
            }
            from += at + month.len() + 1;
        }
    }
    out
}

fn words(s: &str) -> Vec<String> {
    let mut w: Vec<String> = s
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    w.sort();
    w
}

#[test]
fn the_impossible_value_check_finds_what_it_should() {
    for bad in [
        "It was released in 3990.",
        "It aired on November 56, 1972.",
        "Due on February 44.",
        "110% of undergraduates.",
        "It came 22th.",
        "At 14 p.m.",
        "At 10:75.",
    ] {
        assert!(!impossible(bad, 2024).is_empty(), "{bad}");
    }
    assert!(impossible("On 22 July 1947 at 10:30, 99% came 21st.", 2024).is_empty());
}

#[test]
#[allow(clippy::too_many_lines)] // one measurement over every operator
fn the_fault_model_is_realistic_on_real_looking_claims() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/realism.yaml");
    let suite = Suite::load(&path).unwrap();
    assert!(suite.entities.is_empty(), "no declared groups");
    let claims: Vec<(&str, &str, usize)> = suite
        .contexts
        .iter()
        .enumerate()
        .flat_map(|(ci, c)| {
            c.faithful
                .iter()
                .map(move |f| (f.id.as_str(), f.text.as_str(), ci))
        })
        .collect();
    assert!(claims.len() >= 40, "{} claims", claims.len());
    let set = generate(&suite, &Rules::builtin()).unwrap();
    let latest: Vec<u32> = suite
        .contexts
        .iter()
        .map(|c| {
            c.passages
                .iter()
                .flat_map(|p| {
                    p.text
                        .split(|ch: char| !ch.is_ascii_digit())
                        .filter(|d| d.len() == 4)
                        .filter_map(|d| d.parse::<u32>().ok())
                        .filter(|y| (1000..=2100).contains(y))
                        .collect::<Vec<_>>()
                })
                .max()
                .unwrap_or(2026)
        })
        .collect();
    let parent_text: BTreeMap<&str, &str> = claims.iter().map(|(id, t, _)| (*id, *t)).collect();

    let mut table = String::from(
        "| operator | purpose | claims with one | mutants | impossible values | word order only |\n|---|---|---|---|---|---|\n",
    );
    let mut examples = String::new();
    let mut with_mutants = 0;
    let mut problems = Vec::new();
    for op in REGISTRY {
        let of: Vec<_> = set
            .mutants
            .iter()
            .filter(|m| m.operator == op.name)
            .collect();
        let parents: std::collections::BTreeSet<&str> =
            of.iter().map(|m| m.parent.as_str()).collect();
        let mut impossible_n = 0;
        let mut order_only = 0;
        for m in &of {
            let parent = parent_text[m.parent.as_str()];
            let bad = impossible(&m.text, latest[m.context]);
            // a value the claim already had is the claim's, not the operator's
            let own: Vec<String> = bad
                .into_iter()
                .filter(|b| !impossible(parent, latest[m.context]).contains(b))
                .collect();
            if !own.is_empty() {
                impossible_n += 1;
                problems.push(format!("{}: {} ({own:?})", op.name, m.text));
            }
            if op.purpose == Purpose::Fault && words(&m.text) == words(parent) {
                order_only += 1;
                problems.push(format!("{}: word order only: {}", op.name, m.text));
            }
        }
        if op.purpose == Purpose::Fault && !of.is_empty() {
            with_mutants += 1;
        }
        table.push_str(&format!(
            "| {} | {} | {}/{} ({:.0}%) | {} | {impossible_n} | {order_only} |\n",
            op.name,
            if op.purpose == Purpose::Fault {
                "fault"
            } else {
                "rewrite"
            },
            parents.len(),
            claims.len(),
            100.0 * parents.len() as f64 / claims.len() as f64,
            of.len(),
        ));
        examples.push_str(&format!("\n{}:\n", op.name));
        // three examples from three different contexts where there are
        let mut seen = Vec::new();
        for m in of
            .iter()
            .filter(|m| {
                let fresh = !seen.contains(&m.context);
                if fresh {
                    seen.push(m.context);
                }
                fresh
            })
            .take(3)
        {
            examples.push_str(&format!(
                "  {}\n    -> {}\n",
                parent_text[m.parent.as_str()],
                m.text
            ));
        }
    }
    println!("{table}{examples}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        with_mutants >= 8,
        "{with_mutants} fault types have mutants:\n{table}"
    );
    for op in ["entity_swap", "attribution_swap"] {
        assert!(
            set.mutants.iter().any(|m| m.operator == op),
            "{op} made nothing from the passages alone"
        );
    }
}

/// What an edit left that no English sentence has: a pluralised function word ("ofs", "ins",
/// "everies"), a range whose ends are out of order ("8 to 6 hours"), or a negated month ("May
/// not 2017"). Written apart from the guard, so the guard is checked, not trusted.
fn broken(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let lower: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    for w in &lower {
        if [
            "ofs", "ins", "ors", "tos", "ands", "thes", "ats", "ons", "fors", "withs", "everies",
            "eachs", "pers", "thans",
        ]
        .contains(&w.as_str())
        {
            out.push(format!("pluralised function word {w}"));
        }
    }
    for t in lower.windows(3) {
        if let (Ok(a), "to", Ok(b)) = (t[0].parse::<f64>(), t[1].as_str(), t[2].parse::<f64>()) {
            if a > b {
                out.push(format!("range {a} to {b}"));
            }
        }
        if MONTHS.iter().any(|(m, _)| m.eq_ignore_ascii_case(&t[0]))
            && t[1] == "not"
            && t[2].starts_with(|c: char| c.is_ascii_digit())
        {
            out.push(format!("negated month {} not {}", t[0], t[2]));
        }
    }
    out
}

/// The words of `a` (lower-cased) that `b` does not have, each as often as `a` has it more.
fn multiset_minus(a: &str, b: &str) -> Vec<String> {
    let mut rest = words(b);
    let mut out = Vec::new();
    for w in words(a) {
        match rest.iter().position(|x| *x == w) {
            Some(i) => {
                rest.remove(i);
            }
            None => out.push(w),
        }
    }
    out
}

#[test]
#[allow(clippy::too_many_lines)] // one measurement over every operator
fn no_operator_writes_broken_text_on_555_real_looking_claims_and_no_detail_dominates() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/realism-300.yaml");
    let suite = Suite::load(&path).unwrap();
    let claims: BTreeMap<&str, (&str, &str)> = suite
        .contexts
        .iter()
        .flat_map(|c| {
            c.faithful
                .iter()
                .map(move |f| (f.id.as_str(), (f.text.as_str(), c.id.as_str())))
        })
        .collect();
    assert!(claims.len() >= 300, "{} claims", claims.len());
    // each context's words, lower-cased
    let passage_words: BTreeMap<&str, std::collections::BTreeSet<String>> = suite
        .contexts
        .iter()
        .map(|c| {
            let words = c.passages.iter().flat_map(|p| words(&p.text)).collect();
            (c.id.as_str(), words)
        })
        .collect();
    let set = generate(&suite, &Rules::builtin()).unwrap();
    let mut problems = Vec::new();
    let mut table = String::from(
        "| operator | claims reached | mutants | refused by the grammar guard | other skips | commonest added phrase |\n|---|---|---|---|---|---|\n",
    );
    for op in REGISTRY {
        let of: Vec<_> = set
            .mutants
            .iter()
            .filter(|m| m.operator == op.name)
            .collect();
        let reached: std::collections::BTreeSet<&str> =
            of.iter().map(|m| m.parent.as_str()).collect();
        let skips: Vec<_> = set
            .skipped
            .iter()
            .filter(|s| s.operator == op.name)
            .collect();
        let guard = skips
            .iter()
            .filter(|s| s.why.starts_with("the edit") || s.why.starts_with("the changed"))
            .count();
        for m in &of {
            let parent = claims[m.parent.as_str()].0;
            let own: Vec<String> = broken(&m.text)
                .into_iter()
                .filter(|b| !broken(parent).contains(b))
                .collect();
            let impossible_own: Vec<String> = impossible(&m.text, 2100)
                .into_iter()
                .filter(|b| !impossible(parent, 2100).contains(b))
                .collect();
            if !own.is_empty() || !impossible_own.is_empty() {
                problems.push(format!(
                    "{}: {} ({own:?} {impossible_own:?})",
                    op.name, m.text
                ));
            }
        }
        words_of_their_own(op.name, &of, &claims, &passage_words, &mut problems);
        let phrases = added_phrases(op.name, &of, &claims);
        let commonest = phrases.iter().max_by_key(|(_, n)| **n);
        let share = commonest.map(|(_, n)| *n as f64 / of.len().max(1) as f64);
        table.push_str(&format!(
            "| {} | {}/{} ({:.0}%) | {} | {guard} | {} | {} |\n",
            op.name,
            reached.len(),
            claims.len(),
            100.0 * reached.len() as f64 / claims.len() as f64,
            of.len(),
            skips.len() - guard,
            match commonest {
                Some((p, n)) => format!(
                    "\"{p}\" {n}/{} ({:.0}%)",
                    of.len(),
                    100.0 * share.unwrap_or(0.0)
                ),
                None => "-".into(),
            }
        ));
        if op.name == "name_part" {
            assert!(
                share.unwrap_or(0.0) <= 0.20,
                "one word makes {:?} of name_part's mutants: {commonest:?}",
                share
            );
        }
        if op.name == "added_detail" {
            assert!(
                share.unwrap_or(0.0) <= 0.10,
                "one phrase makes {:?} of added_detail's mutants: {commonest:?}",
                share
            );
        }
    }
    // entity or reference mutants (entity_swap, attribution_swap, pronoun_swap) on the news
    // contexts, with no declared entity groups
    let news: Vec<&str> = claims
        .iter()
        .filter(|(_, (_, ctx))| ctx.starts_with("news"))
        .map(|(id, _)| *id)
        .collect();
    let referenced: std::collections::BTreeSet<&str> = set
        .mutants
        .iter()
        .filter(|m| ["entity_swap", "attribution_swap", "pronoun_swap"].contains(&m.operator))
        .map(|m| m.parent.as_str())
        .filter(|p| news.contains(p))
        .collect();
    let guard_total = set
        .skipped
        .iter()
        .filter(|s| s.why.starts_with("the edit") || s.why.starts_with("the changed"))
        .count();
    println!(
        "{table}\nentity or reference mutants reach {}/{} news claims ({:.0}%); the grammar guard refused {guard_total} edits in all",
        referenced.len(),
        news.len(),
        100.0 * referenced.len() as f64 / news.len().max(1) as f64
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        referenced.len() * 4 >= news.len(),
        "entity or reference mutants reach {}/{} news claims, under a quarter",
        referenced.len(),
        news.len()
    );
}

/// Claim id -> (claim, context id).
type Claims<'a> = BTreeMap<&'a str, (&'a str, &'a str)>;

/// The words a conflation or an invented name part adds, checked against its passages' words:
/// a conflation adds none of its own, a name part only words the passages never use.
fn words_of_their_own(
    op: &str,
    of: &[&Mutant],
    claims: &Claims,
    passage_words: &BTreeMap<&str, std::collections::BTreeSet<String>>,
    problems: &mut Vec<String>,
) {
    // a conflation combines the passages' own words wrongly: none of its words is new; an
    // invented name part or modifier adds words none of which the passages use
    for m in of {
        let (parent, ctx) = claims[m.parent.as_str()];
        let new: Vec<String> = multiset_minus(&m.text, parent);
        if op == "conflation" {
            // (an amount keeps the claim's scale letter: "€410m" for the passages' "€410
            // million")
            let number = |w: &String| {
                let digits = w.trim_end_matches(['m', 'k', 'b', 'n']);
                let digits = if digits.chars().all(|c| c.is_ascii_digit()) {
                    digits
                } else {
                    w
                };
                digits.to_string()
            };
            let foreign: Vec<&String> = new
                .iter()
                .filter(|w| !passage_words[ctx].contains(&number(w)))
                .collect();
            if !foreign.is_empty() {
                problems.push(format!(
                    "conflation: {} has {foreign:?}, not words of the passages",
                    m.text
                ));
            }
        }
        if op == "name_part" {
            let added: Vec<&String> = new
                .iter()
                .filter(|w| !["a", "an"].contains(&w.as_str()))
                .collect();
            if added.is_empty() || added.iter().any(|w| passage_words[ctx].contains(*w)) {
                problems.push(format!(
                    "name_part: {} adds {added:?}, which must be words the passages never use",
                    m.text
                ));
            }
        }
    }
}

/// How often each phrase an operator adds is added: the words of an invented name part, the
/// text `added_detail` puts after the claim.
fn added_phrases(op: &str, of: &[&Mutant], claims: &Claims) -> BTreeMap<String, usize> {
    // the added phrase: what the mutant has after the claim's text (without its stop), or
    // the word an invented name part or modifier adds
    let mut phrases: BTreeMap<String, usize> = BTreeMap::new();
    if op == "name_part" {
        for m in of {
            let parent = claims[m.parent.as_str()].0;
            for w in multiset_minus(&m.text, parent) {
                if !["a", "an"].contains(&w.as_str()) {
                    *phrases.entry(w).or_default() += 1;
                }
            }
        }
    }
    if op == "added_detail" {
        for m in of {
            let parent = claims[m.parent.as_str()].0.trim_end_matches('.');
            if let Some(added) = m.text.strip_prefix(parent) {
                *phrases
                    .entry(added.trim_end_matches('.').trim().to_string())
                    .or_default() += 1;
            }
        }
    }
    phrases
}
