//! Sentence splitting: where a person reading an answer or a passage sees one sentence end and
//! the next begin.

/// Words that end with a full stop without ending a sentence (compared in lower case).
const ABBREVIATIONS: [&str; 56] = [
    "e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "no", "nos",
    "fig", "figs", "approx", "incl", "inc", "ltd", "co", "corp", "dept", "est", "vol", "ca", "cf",
    "al", "u.s", "u.k", "a.m", "p.m", "jan", "feb", "gov", "sen", "rep", "gen", "col", "lt", "sgt",
    "capt", "cmdr", "adm", "rev", "hon", "pres", "supt", "mt", "ft", "aug", "sept", "oct", "nov",
    "dec", "ave",
];

/// Abbreviations that may also end a sentence ("at 4 p.m. The board...", "Chris Eubank Jr. Chris
/// Eubank competed"): a capitalised word after one starts a new sentence. The others (titles,
/// "e.g.", "No.") never end one.
const ENDING_ABBREVIATIONS: [&str; 11] = [
    "etc", "a.m", "p.m", "jr", "sr", "inc", "ltd", "co", "corp", "approx", "al",
];

/// A list marker at the start of a line (`- `, `* `, `• `, `1. `, `2) `): its length in bytes.
fn list_marker(line: &str) -> Option<usize> {
    let t = line.trim_start();
    let indent = line.len() - t.len();
    for m in ["- ", "* ", "• ", "– ", "+ "] {
        if t.starts_with(m) {
            return Some(indent + m.len());
        }
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if (1..=3).contains(&digits) {
        let rest = &t[digits..];
        if rest.starts_with(". ") || rest.starts_with(") ") {
            return Some(indent + digits + 2);
        }
    }
    None
}

/// Splits text into sentences, the way a person reads an answer or a passage:
/// - at `.`, `!`, `?` (and `…`) followed by space and the start of a sentence, in any case, so
///   lower-cased text splits too; closing quotes and brackets stay with their sentence;
/// - at a full stop glued to the next sentence ("(AP).Less") when a lower-case word or a bracket
///   ends before it and a capitalised word starts after it;
/// - never after an abbreviation ("e.g.", "Dr.", "Jr.", "U.S."), an initial ("J.", "J.R.R."), or
///   inside a number ("3.5", "1,000.50");
/// - at blank lines, at list items (`- `, `* `, `1. `, `2) `: the marker is dropped), and at a
///   line break after a line that ends a sentence or with a colon; a line break inside a wrapped
///   sentence joins the lines.
pub fn split_sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    // first, blocks of lines that belong together
    let mut blocks: Vec<&str> = Vec::new();
    let mut start: Option<usize> = None;
    let mut prev_end = 0;
    let mut prev_line: &str = "";
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let line = raw.trim_end_matches(['\n', '\r']);
        let here = offset;
        offset += raw.len();
        if line.trim().is_empty() {
            if let Some(s) = start.take() {
                blocks.push(&text[s..prev_end]);
            }
            prev_line = "";
            continue;
        }
        let marker = list_marker(line);
        let body_start = here + marker.unwrap_or(0);
        let p = prev_line.trim_end();
        let continues = start.is_some()
            && marker.is_none()
            && !p.ends_with(['.', '!', '?', ':', '…', ';'])
            && !line.trim_start().starts_with('#')
            && !p.trim_start().starts_with('#');
        if !continues {
            if let Some(s) = start.take() {
                blocks.push(&text[s..prev_end]);
            }
            start = Some(body_start);
        }
        prev_end = here + line.len();
        prev_line = line;
    }
    if let Some(s) = start {
        blocks.push(&text[s..prev_end]);
    }
    for block in blocks {
        split_block(block, &mut out);
    }
    out
}

/// Splits one block (no blank lines, no list items) at sentence ends.
#[allow(clippy::too_many_lines)] // the sentence-end rules read best as one loop
fn split_block<'a>(text: &'a str, out: &mut Vec<&'a str>) {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    // quote counts before each character, and where the last quotes are: each full stop asks
    // whether it is inside a quotation in constant time (a scan per stop is quadratic in the
    // length of a passage)
    let mut before: Vec<[u32; 3]> = Vec::with_capacity(chars.len() + 1);
    let mut counts = [0u32; 3];
    let (mut last_straight, mut last_close) = (None, None);
    for (at, ch) in &chars {
        before.push(counts);
        match ch {
            '"' => {
                counts[0] += 1;
                last_straight = Some(*at);
            }
            '“' => counts[1] += 1,
            '”' => {
                counts[2] += 1;
                last_close = Some(*at);
            }
            _ => {}
        }
    }
    before.push(counts);
    let mut start = 0;
    let mut start_i = 0;
    let mut i = 0;
    let push = |out: &mut Vec<&'a str>, s: &'a str| {
        let s = s.trim();
        if !s.is_empty() && s.chars().any(char::is_alphanumeric) {
            out.push(s);
        }
    };
    while i < chars.len() {
        let (at, c) = chars[i];
        if !matches!(c, '.' | '!' | '?' | '…') {
            i += 1;
            continue;
        }
        // the run of ending punctuation and closing quotes or brackets
        let mut j = i + 1;
        while j < chars.len() && matches!(chars[j].1, '.' | '!' | '?' | '…') {
            j += 1;
        }
        while j < chars.len() && matches!(chars[j].1, '"' | '\'' | ')' | ']' | '”' | '’') {
            j += 1;
        }
        let end = chars.get(j).map_or(text.len(), |x| x.0);
        let mut k = j;
        while k < chars.len() && chars[k].1.is_whitespace() {
            k += 1;
        }
        let spaced = k > j;
        let next = chars.get(k).map(|x| x.1);
        // the word the punctuation ends
        let word_start = chars[..i]
            .iter()
            .rposition(|(_, ch)| ch.is_whitespace() || matches!(ch, '(' | '"' | '“'))
            .map_or(0, |p| chars[p].0 + chars[p].1.len_utf8());
        let word = &text[word_start..at];
        let lower = word.to_lowercase();
        let letters: Vec<char> = word.chars().filter(|ch| ch.is_alphabetic()).collect();
        let stem = lower.trim_end_matches('.');
        // "4 p.m. The board": an abbreviation that may end a sentence, before a capitalised word
        let ends_here = ENDING_ABBREVIATIONS.contains(&stem)
            && spaced
            && chars
                .get(k)
                .is_some_and(|x| x.1.is_uppercase() || x.1 == '"' || x.1 == '“');
        let abbreviation = c == '.'
            && !ends_here
            && (ABBREVIATIONS.contains(&stem)
                // an initial or a run of initials: "J.", "J.R.R.", "U.S."
                || (!letters.is_empty()
                    && word
                        .split('.')
                        .all(|part| part.chars().count() <= 1)
                    && letters.iter().all(|ch| ch.is_uppercase())));
        let prev = if i > 0 { Some(chars[i - 1].1) } else { None };
        let in_number = c == '.'
            && prev.is_some_and(|p| p.is_ascii_digit())
            && next.is_some_and(|n| n.is_ascii_digit())
            && !spaced;
        // anything but punctuation that continues a clause can start the next sentence
        let starts_sentence = |n: char| !matches!(n, ',' | ';' | ':' | ')' | ']' | '}' | '%');
        // inside a quotation that closes later in the block: the quotation's own full stops do
        // not end the sentence ("'It's too late. You're food.'")
        let within = |q: usize| before[i][q] - before[start_i][q];
        let opened = within(0) % 2 == 1 || within(1) > within(2);
        let closes_later =
            last_straight.is_some_and(|p| p >= end) || last_close.is_some_and(|p| p >= end);
        let in_quote = opened && closes_later && end <= text.len();
        let split = match next {
            None => false,
            _ if in_quote => false,
            Some(n) if spaced => starts_sentence(n) && !abbreviation && !in_number,
            // glued: "(AP).Less", "word.Next" (not "3.5", not "e.g.the", not "example.com")
            Some(n) => {
                c == '.'
                    && n.is_uppercase()
                    && prev.is_some_and(|p| p.is_lowercase() || p == ')')
                    && !abbreviation
                    && chars.get(k + 1).is_some_and(|x| x.1.is_lowercase())
            }
        };
        if split {
            push(out, &text[start..end]);
            start = chars[k].0;
            start_i = k;
            i = k;
            continue;
        }
        i = j.max(i + 1);
    }
    push(out, &text[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts and the sentences a person reads in them.
    const SENTENCES: &[(&str, &[&str])] = &[
        // plain prose
        (
            "Team plans are billed monthly. They can be cancelled.",
            &["Team plans are billed monthly.", "They can be cancelled."],
        ),
        (
            "Is it billed monthly? Yes! It is.",
            &["Is it billed monthly?", "Yes!", "It is."],
        ),
        (
            "One sentence without a stop",
            &["One sentence without a stop"],
        ),
        ("", &[]),
        ("   ", &[]),
        ("...", &[]),
        ("Wait... What happened?", &["Wait...", "What happened?"]),
        ("It ended… Then it began.", &["It ended…", "Then it began."]),
        // quotes and brackets close with their sentence
        (
            "He said \"stop.\" Then he left.",
            &["He said \"stop.\"", "Then he left."],
        ),
        (
            "It is cheap (about €12.) Buy it.",
            &["It is cheap (about €12.)", "Buy it."],
        ),
        (
            "The plan is \"Pro\". The rest is free.",
            &["The plan is \"Pro\".", "The rest is free."],
        ),
        ("“Yes.” She agreed.", &["“Yes.”", "She agreed."]),
        // lower-case text
        (
            "the film was released in 2001. it grossed $ 160 million.",
            &[
                "the film was released in 2001.",
                "it grossed $ 160 million.",
            ],
        ),
        (
            "prices rose. costs fell. profits doubled.",
            &["prices rose.", "costs fell.", "profits doubled."],
        ),
        // numbers, decimals, money
        (
            "It costs 3.5 million dollars. That is a lot.",
            &["It costs 3.5 million dollars.", "That is a lot."],
        ),
        (
            "Revenue was $1,000.50 in Q3. It rose.",
            &["Revenue was $1,000.50 in Q3.", "It rose."],
        ),
        (
            "Version 2.0.1 is out. Update now.",
            &["Version 2.0.1 is out.", "Update now."],
        ),
        (
            "The rate is 4.5%. It was 3.9% before.",
            &["The rate is 4.5%.", "It was 3.9% before."],
        ),
        ("Call 555.123.4567 today.", &["Call 555.123.4567 today."]),
        (
            "It ended in 1999. 2000 was different.",
            &["It ended in 1999.", "2000 was different."],
        ),
        (
            "It costs €12. €15 with tax.",
            &["It costs €12.", "€15 with tax."],
        ),
        // abbreviations
        (
            "Some plans, e.g. Team, are monthly. Others are not.",
            &["Some plans, e.g. Team, are monthly.", "Others are not."],
        ),
        (
            "Use a list, i.e. a bullet list. Then stop.",
            &["Use a list, i.e. a bullet list.", "Then stop."],
        ),
        (
            "Dr. Smith saw Mr. Jones. They talked.",
            &["Dr. Smith saw Mr. Jones.", "They talked."],
        ),
        (
            "Martin Luther King Jr. spoke. People listened.",
            &["Martin Luther King Jr. spoke.", "People listened."],
        ),
        (
            "Apples, pears, etc. are fruit. Carrots are not.",
            &["Apples, pears, etc. are fruit.", "Carrots are not."],
        ),
        (
            "See fig. 3 for details. It is clear.",
            &["See fig. 3 for details.", "It is clear."],
        ),
        (
            "It opens at 9 a.m. and closes at 5 p.m. daily.",
            &["It opens at 9 a.m. and closes at 5 p.m. daily."],
        ),
        (
            "Acme Inc. reported gains. Shares rose.",
            &["Acme Inc. reported gains.", "Shares rose."],
        ),
        (
            "Cats vs. dogs is an old debate. Neither wins.",
            &["Cats vs. dogs is an old debate.", "Neither wins."],
        ),
        (
            "Order No. 4021 shipped. It arrives soon.",
            &["Order No. 4021 shipped.", "It arrives soon."],
        ),
        (
            "Smith et al. found it. Others agreed.",
            &["Smith et al. found it.", "Others agreed."],
        ),
        // initials
        (
            "J.R.R. Tolkien wrote it. It sold well.",
            &["J.R.R. Tolkien wrote it.", "It sold well."],
        ),
        (
            "George W. Bush spoke. The crowd cheered.",
            &["George W. Bush spoke.", "The crowd cheered."],
        ),
        (
            "The U.S. economy grew. Jobs rose.",
            &["The U.S. economy grew.", "Jobs rose."],
        ),
        (
            "Written by J. K. Rowling. Published in 1997.",
            &["Written by J. K. Rowling.", "Published in 1997."],
        ),
        // missing spaces
        (
            "WASHINGTON (AP).Less than a year ago it began.",
            &["WASHINGTON (AP).", "Less than a year ago it began."],
        ),
        (
            "It was cold.The roads froze.",
            &["It was cold.", "The roads froze."],
        ),
        (
            "Visit example.com for more. It is free.",
            &["Visit example.com for more.", "It is free."],
        ),
        (
            "The file is report.PDF and big.",
            &["The file is report.PDF and big."],
        ),
        // line breaks and framing
        (
            "Here is a concise summary:\n\nThe film was a hit. It made money.",
            &[
                "Here is a concise summary:",
                "The film was a hit.",
                "It made money.",
            ],
        ),
        (
            "Here is a summary:\nThe film was a hit.",
            &["Here is a summary:", "The film was a hit."],
        ),
        (
            "The film was a hit\nwith critics and audiences.",
            &["The film was a hit\nwith critics and audiences."],
        ),
        (
            "First paragraph.\n\nSecond paragraph.",
            &["First paragraph.", "Second paragraph."],
        ),
        ("Line one.\nLine two.", &["Line one.", "Line two."]),
        (
            "Windows line.\r\nNext line.",
            &["Windows line.", "Next line."],
        ),
        ("Title\n\nBody text here.", &["Title", "Body text here."]),
        (
            "## Summary\nThe plan is monthly.",
            &["## Summary", "The plan is monthly."],
        ),
        // lists
        (
            "Key points:\n- Team plans are monthly.\n- SSO needs Enterprise.",
            &[
                "Key points:",
                "Team plans are monthly.",
                "SSO needs Enterprise.",
            ],
        ),
        ("* one item\n* two items", &["one item", "two items"]),
        (
            "1. First step.\n2. Second step.",
            &["First step.", "Second step."],
        ),
        (
            "1) Open settings\n2) Click export",
            &["Open settings", "Click export"],
        ),
        ("• Bullet one\n• Bullet two", &["Bullet one", "Bullet two"]),
        (
            "Steps:\n  - indented item\n  - another",
            &["Steps:", "indented item", "another"],
        ),
        (
            "- A list item that wraps\n  onto a second line.\n- Next item.",
            &[
                "A list item that wraps\n  onto a second line.",
                "Next item.",
            ],
        ),
        (
            "The answer has - a dash inside. It stays.",
            &["The answer has - a dash inside.", "It stays."],
        ),
        // refusals and hedges stay sentences (the decomposer drops them)
        (
            "I apologize, but I cannot help. The passage does not say.",
            &[
                "I apologize, but I cannot help.",
                "The passage does not say.",
            ],
        ),
        (
            "Based on the provided text, refunds take 14 days.",
            &["Based on the provided text, refunds take 14 days."],
        ),
        // other scripts and punctuation
        ("Café au lait. Très bien!", &["Café au lait.", "Très bien!"]),
        (
            "Das kostet 12,50 €. Danke.",
            &["Das kostet 12,50 €.", "Danke."],
        ),
        ("It's done. 🙂 Next one.", &["It's done.", "🙂 Next one."]),
        ("Really?! Yes.", &["Really?!", "Yes."]),
        (
            "A sentence; another clause. End.",
            &["A sentence; another clause.", "End."],
        ),
    ];

    #[test]
    fn sentences_split_as_a_person_reads_them() {
        let table = SENTENCES;
        assert!(table.len() >= 60, "{} cases", table.len());
        for (input, want) in table {
            assert_eq!(&split_sentences(input), want, "input: {input:?}");
        }
    }

    #[test]
    fn sentences_split_at_terminal_punctuation_before_a_capital() {
        let s = split_sentences(
            "The Team plan costs €12 per user per month and includes up to 10 users. Single sign-on (SSO) is available only on the Enterprise plan.",
        );
        assert_eq!(s.len(), 2);
        assert!(s[1].starts_with("Single"));
    }

    #[test]
    fn abbreviations_and_decimals_do_not_end_sentences() {
        let s = split_sentences("Pay e.g. by card. It costs 3.5 euros. Done");
        assert_eq!(s, vec!["Pay e.g. by card.", "It costs 3.5 euros.", "Done"]);
    }
}
