//! Words in text: whole-word and name search, capitals, lower-casing, tidying a claim after an
//! edit, and whether a text has anything a person could read.

/// `s` in small letters, the same string as [`str::to_lowercase`] gives: runs of ASCII are
/// lowered a run at a time (the standard one goes a character at a time once it has met a
/// character that is not ASCII, as every passage with a "€" has), other characters by
/// [`char::to_lowercase`]. A text with a capital sigma, whose small form depends on the letters
/// around it, is left to the standard one.
pub fn lowercase(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    if s.contains('\u{3a3}') {
        return s.to_lowercase();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while !rest.is_empty() {
        let ascii = rest
            .bytes()
            .position(|b| !b.is_ascii())
            .unwrap_or(rest.len());
        let (run, tail) = rest.split_at(ascii);
        out.push_str(run);
        let from = out.len() - run.len();
        // lowering ASCII letters in place keeps the text valid UTF-8
        out[from..].make_ascii_lowercase();
        let mut chars = tail.chars();
        if let Some(c) = chars.next() {
            out.extend(c.to_lowercase());
        }
        rest = chars.as_str();
    }
    out
}

/// `w` with its first letter in capitals.
pub fn capitalised(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        None => String::new(),
        // most words open with an ASCII letter: one allocation, no case table
        Some(f) if f.is_ascii() => {
            let mut out = String::with_capacity(w.len());
            out.push(f.to_ascii_uppercase());
            out.push_str(c.as_str());
            out
        }
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
    }
}

/// `w` without every trailing `suffix` (as [`str::trim_end_matches`] with a string, without
/// building a substring searcher for each call).
pub fn strip_all_suffixes<'a>(mut w: &'a str, suffix: &str) -> &'a str {
    while let Some(rest) = w.strip_suffix(suffix) {
        w = rest;
    }
    w
}

/// `s` cut to at most `n` characters, with an ellipsis where it was cut.
pub fn cut_chars(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let mut out: String = s.chars().take(n.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Tidies a claim after a piece was cut out: single spaces, no space before punctuation, and a
/// capital first letter.
pub(crate) fn tidy(text: &str) -> String {
    let mut s = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for p in [" .", " ,", " ;", " :", " !", " ?"] {
        while let Some(pos) = s.find(p) {
            s.remove(pos);
        }
    }
    while s.contains(",.") || s.contains(", .") {
        s = s.replace(", .", ".").replace(",.", ".");
    }
    let s = s.trim().trim_start_matches([',', ';']).trim().to_string();
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

/// Finds the first whole-word occurrence of `word` at or after byte `from`: it must not touch a
/// letter or digit on either side.
pub fn find_word(text: &str, word: &str, from: usize) -> Option<usize> {
    if word.is_empty() || from > text.len() || !text.is_char_boundary(from) {
        return None; // an empty word matches nowhere (and would never advance)
    }
    // the word's first byte found with memchr, then the rest compared: most calls search a
    // short word in a sentence or a passage, where building a substring searcher for each call
    // cost more than the search (the first byte of a UTF-8 word never occurs inside a character,
    // so every hit is at a character boundary)
    let needle = word.as_bytes();
    find_word_opening(text, needle[0], &needle[1..], from)
}

/// [`find_word`] of the word whose first byte is `first` and whose other bytes are `rest`
/// (`first` must open a character: an ASCII byte or a lead byte), so that a word can be looked
/// for with another first letter without building it.
pub(crate) fn find_word_opening(text: &str, first: u8, rest: &[u8], from: usize) -> Option<usize> {
    if from > text.len() || !text.is_char_boundary(from) {
        return None;
    }
    let hay = text.as_bytes();
    let len = 1 + rest.len();
    let mut start = from;
    while let Some(pos) = memchr::memchr(first, &hay[start..]) {
        let at = start + pos;
        if !hay[at + 1..].starts_with(rest) {
            start = at + 1;
            continue;
        }
        let before = text[..at].chars().next_back();
        let after = text[at + len..].chars().next();
        let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
        if boundary(before) && boundary(after) {
            return Some(at);
        }
        start = at + len;
        while !text.is_char_boundary(start) {
            start += 1;
        }
    }
    None
}

/// Like [`find_word`], ignoring case: the first whole-word match of `word` at or after byte
/// `from`, as (start, end) byte offsets into `text` (the match may differ in length from `word`).
pub(crate) fn find_word_ignoring_case(
    text: &str,
    word: &str,
    from: usize,
) -> Option<(usize, usize)> {
    if word.is_empty() || from > text.len() || !text.is_char_boundary(from) {
        return None;
    }
    let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    let want: Vec<char> = word.chars().flat_map(char::to_lowercase).collect();
    for (start, _) in text[from..].char_indices().map(|(i, c)| (i + from, c)) {
        if !boundary(text[..start].chars().next_back()) {
            continue;
        }
        // walk the text while its lowercase form matches the word's
        let mut got = 0;
        let mut end = start;
        for (i, c) in text[start..].char_indices() {
            if got == want.len() {
                break;
            }
            // the character's lower-case form (one or more characters) must come next in the
            // word, all of it
            let mut k = got;
            let whole = c.to_lowercase().all(|l| {
                let same = want.get(k) == Some(&l);
                k += 1;
                same
            });
            if !whole {
                break;
            }
            got = k;
            end = start + i + c.len_utf8();
        }
        if got == want.len() && boundary(text[end..].chars().next()) {
            return Some((start, end));
        }
    }
    None
}

/// Whether a name is written in capitals (an acronym such as `EU`, `US`, `SSO`, `R&D`): at least
/// two letters, none of them lower case.
pub fn is_acronym(name: &str) -> bool {
    name.chars().filter(|c| c.is_alphabetic()).count() >= 2 && !name.chars().any(char::is_lowercase)
}

/// The first whole-word match of an entity name at or after byte `from`: a name written in
/// capitals matches only in capitals ("US" is not "us"), any other name ignoring case.
pub fn find_name(text: &str, name: &str, from: usize) -> Option<(usize, usize)> {
    if !is_acronym(name) {
        return find_word_ignoring_case(text, name, from);
    }
    let mut at = from;
    while let Some((s, e)) = find_word_ignoring_case(text, name, at) {
        if &text[s..e] == name {
            return Some((s, e));
        }
        at = e;
    }
    None
}

/// True when a text has nothing a person could read: only whitespace, control characters and
/// invisible format characters (zero-width spaces and joiners, byte-order marks).
pub fn is_blank(s: &str) -> bool {
    s.chars().all(|c| {
        c.is_whitespace()
            || c.is_control()
            || matches!(
                c,
                '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}' | '\u{00ad}'
            )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercase_is_the_standard_lower_casing() {
        for s in [
            "",
            "Each Seat Costs €3,50 per month.",
            "ÜBER 17 PER CENT",
            "ΟΔΟΣ ΣΑΣ Σ",
            "İstanbul, DŽ and ǅ",
            "Ça coûte $ 160 MILLION",
            "\u{0}A\u{7f}Z\u{80}",
        ] {
            assert_eq!(lowercase(s), s.to_lowercase(), "{s:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn lowercase_agrees_with_the_standard_one_on_any_text(s in "\\PC*", t in "[A-Za-zΣσΑ-Ωа-яА-ЯİÀ-ÿ€ .,]*") {
            proptest::prop_assert_eq!(lowercase(&s), s.to_lowercase());
            proptest::prop_assert_eq!(lowercase(&t), t.to_lowercase());
        }
    }

    #[test]
    fn invisible_text_is_blank() {
        assert!(is_blank("\u{200b}"));
        assert!(is_blank(" \u{feff}\t\n"));
        assert!(!is_blank("\u{200b}a"));
    }

    /// [`find_word`] as it was written before the memchr search: the reference it must equal.
    fn find_word_by_str_find(text: &str, word: &str, from: usize) -> Option<usize> {
        if word.is_empty() || from > text.len() || !text.is_char_boundary(from) {
            return None;
        }
        let mut start = from;
        while let Some(pos) = text[start..].find(word) {
            let at = start + pos;
            let before = text[..at].chars().next_back();
            let after = text[at + word.len()..].chars().next();
            let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
            if boundary(before) && boundary(after) {
                return Some(at);
            }
            start = at + word.len().max(1);
            while !text.is_char_boundary(start) {
                start += 1;
            }
        }
        None
    }

    #[test]
    fn a_whole_word_is_found_where_a_substring_search_finds_it() {
        let texts = [
            "aaa aa a",
            "the theme of the day: thé, THE the",
            "€3,50 or €3 — 3-1 at 3",
            "ÉTÉ été étéé été",
            "",
            "x",
            "nonon no non-no",
            "São Paulo's São",
        ];
        let words = [
            "a", "aa", "the", "thé", "3", "€3", "été", "no", "non", "São", "x", "", "o",
        ];
        for t in texts {
            for w in words {
                for from in 0..=t.len() + 1 {
                    assert_eq!(
                        find_word(t, w, from),
                        find_word_by_str_find(t, w, from),
                        "{t:?} {w:?} {from}"
                    );
                }
            }
        }
    }

    /// [`find_word_ignoring_case`] as it was written before it stopped collecting each
    /// character's lower case: the reference it must equal.
    fn ignoring_case_by_collecting(text: &str, word: &str, from: usize) -> Option<(usize, usize)> {
        if word.is_empty() || from > text.len() || !text.is_char_boundary(from) {
            return None;
        }
        let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
        let want: Vec<char> = word.chars().flat_map(char::to_lowercase).collect();
        for (start, _) in text[from..].char_indices().map(|(i, c)| (i + from, c)) {
            if !boundary(text[..start].chars().next_back()) {
                continue;
            }
            let mut got = 0;
            let mut end = start;
            for (i, c) in text[start..].char_indices() {
                if got == want.len() {
                    break;
                }
                let lower: Vec<char> = c.to_lowercase().collect();
                if want.get(got..got + lower.len()) != Some(lower.as_slice()) {
                    break;
                }
                got += lower.len();
                end = start + i + c.len_utf8();
            }
            if got == want.len() && boundary(text[end..].chars().next()) {
                return Some((start, end));
            }
        }
        None
    }

    #[test]
    fn a_case_blind_search_equals_the_one_that_collected_each_lower_case() {
        // İ lower-cases to two characters, the Kelvin sign to an ASCII k, Σ by its place
        let texts = [
            "İstanbul and istanbul, i̇stanbul",
            "\u{212a}ELVIN kelvin Kelvin",
            "ΟΔΟΣ οδος ΟΔΟΣ. Σ σ ς",
            "Straße STRASSE straße",
            "the THE thé Thé",
            "",
            "İ",
        ];
        let words = [
            "istanbul",
            "i̇stanbul",
            "İstanbul",
            "kelvin",
            "\u{212a}elvin",
            "οδος",
            "οδοσ",
            "σ",
            "straße",
            "the",
            "thé",
            "i",
            "İ",
            "",
        ];
        for t in texts {
            for w in words {
                for from in 0..=t.len() + 1 {
                    assert_eq!(
                        find_word_ignoring_case(t, w, from),
                        ignoring_case_by_collecting(t, w, from),
                        "{t:?} {w:?} {from}"
                    );
                }
            }
        }
    }

    #[test]
    fn whole_words_ignoring_case() {
        assert_eq!(
            find_word_ignoring_case("Books are lent", "books", 0),
            Some((0, 5))
        );
        assert_eq!(find_word_ignoring_case("the DVDs", "dvds", 0), Some((4, 8)));
        assert_eq!(find_word_ignoring_case("bookshelf", "books", 0), None);
        assert_eq!(find_word_ignoring_case("ÉTÉ été", "été", 0), Some((0, 5)));
        assert_eq!(find_word_ignoring_case("ÉTÉ été", "été", 2), Some((6, 11)));
        assert_eq!(
            find_word_ignoring_case("ÉTÉ été", "été", 1),
            None,
            "not a char boundary"
        );
        assert_eq!(find_word_ignoring_case("x", "", 0), None);
    }

    #[test]
    fn whole_words_only() {
        assert_eq!(find_word("cannot can", "can", 0), Some(7));
        assert_eq!(find_word("is this", "is", 0), Some(0));
        assert_eq!(find_word("this", "is", 0), None);
        assert_eq!(find_word("anything", "", 0), None);
        assert_eq!(find_word("é", "x", 1), None);
    }

    #[test]
    fn tidy_fixes_spacing_and_capitalises() {
        assert_eq!(tidy("export links expire ."), "Export links expire.");
        assert_eq!(tidy("a ,  b"), "A, b");
    }
}
