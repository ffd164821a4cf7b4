//! Escaping text for output: HTML and XML, Markdown cells and code spans, and the terminal (the
//! one path everything faithprobe prints goes through).

/// Escapes text for HTML and XML (element text and double-quoted attributes): the one escaper
/// every HTML page, SVG chart, JUnit file and judge prompt uses.
pub fn escape_markup(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            // XML 1.0 cannot carry most control characters (nor U+FFFE, U+FFFF), even escaped
            c if !xml_char(c) || (c.is_control() && !matches!(c, '\n' | '\t' | '\r')) => {
                o.push('\u{fffd}')
            }
            c => o.push(c),
        }
    }
    o
}

/// True for a character of XML 1.0's `Char` production: tab, line feed, carriage return,
/// U+0020-U+D7FF, U+E000-U+FFFD and U+10000 up (a Rust `char` is never a surrogate).
pub fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// Escapes text from input (claims, answers, ids, types, titles) for Markdown, in a table cell,
/// a list item or a heading: the one Markdown escaper of every report. Nothing in it goes live
/// in a pull-request comment: HTML (`</details>`, `<img>`) is shown as text, link and image
/// brackets are escaped, a `|` cannot split a table row, line breaks become spaces and control
/// characters are shown as `\u{..}`.
pub fn escape_md_cell(s: &str) -> String {
    let one_line = s.replace("\r\n", " ").replace(['\n', '\r'], " ");
    let mut o = String::with_capacity(one_line.len());
    let mut chars = printable(&one_line)
        .chars()
        .collect::<Vec<_>>()
        .into_iter()
        .peekable();
    while let Some(c) = chars.next() {
        match c {
            // a link or image needs `](` or `][`: escaping that `]` is enough, so intervals
            // (`[0.61, 1.00]`) read as they are; `_` is left alone too, as GitHub never reads
            // it inside a word (`number_swap`), and backquotes (a code span only makes HTML
            // and links inert)
            ']' if matches!(chars.peek(), Some('(' | '[')) => o.push_str("\\]"),
            '\\' | '|' | '*' | '~' => {
                o.push('\\');
                o.push(c);
            }
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            c => o.push(c),
        }
    }
    o
}

/// Text from input for inside a Markdown code span (`` `...` ``), where backslash escapes do not
/// work: a backquote (which would end the span) becomes `'`, line breaks spaces, control
/// characters `\u{..}`; HTML and links are inert inside the span.
pub fn escape_md_code(s: &str) -> String {
    printable(&s.replace("\r\n", " ").replace(['\n', '\r'], " ")).replace('`', "'")
}

/// Text safe to print to a terminal: escape sequences, carriage returns and every other control
/// character (C0, DEL, C1; all but tab and line feed) shown as `\u{..}`, so suite or program text
/// cannot drive the terminal. The one escaping path of everything faithprobe prints: the stdout
/// and stderr writers of the CLI pass all their text through it.
pub fn printable(s: &str) -> String {
    printable_with(s, false)
}

/// [`printable`], keeping the colour sequences (SGR: `ESC [ digits;... m`) faithprobe's own
/// painter writes when colour is on. Input text is escaped before it is painted, so what is left
/// raw can only be those.
pub fn printable_keeping_color(s: &str) -> String {
    printable_with(s, true)
}

fn printable_with(s: &str, keep_sgr: bool) -> String {
    // control characters, and the invisible ones that reorder or hide text (bidi overrides
    // and isolates, zero-width characters, the byte-order mark): "Trojan source" in a terminal
    // or a PR comment
    let unsafe_char = |c: char| {
        (c.is_control() && !matches!(c, '\n' | '\t'))
            || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}' | '\u{2060}'..='\u{2064}')
    };
    if !s.chars().any(unsafe_char) {
        return s.to_string();
    }
    let mut o = String::with_capacity(s.len() + 16);
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if keep_sgr && c == '\u{1b}' {
            if let Some(len) = sgr_len(rest) {
                o.push_str(&rest[..len]);
                rest = &rest[len..];
                continue;
            }
        }
        if unsafe_char(c) {
            o.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            o.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    o
}

/// The length of the SGR sequence `s` starts with (`ESC [`, digits and `;`, `m`), if it does.
fn sgr_len(s: &str) -> Option<usize> {
    let body = s.strip_prefix("\u{1b}[")?;
    let params = body
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b';')
        .count();
    (body.as_bytes().get(params) == Some(&b'm')).then_some(2 + params + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_markdown_cells_are_escaped_once_and_completely() {
        assert_eq!(
            escape_markup(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;'&amp;'&lt;/a&gt;"
        );
        assert_eq!(escape_markup("bell\u{7}"), "bell\u{fffd}");
        assert_eq!(escape_md_cell("a|b\nc\r\nd"), "a\\|b c d");
    }

    #[test]
    fn markdown_from_input_never_goes_live() {
        assert_eq!(
            escape_md_cell("</details><img src=x onerror=alert(1)>"),
            "&lt;/details&gt;&lt;img src=x onerror=alert(1)&gt;"
        );
        assert_eq!(
            escape_md_cell("[link](https://evil.example) ![i](x) [ref][1] [0.61, 1.00]"),
            "[link\\](https://evil.example) ![i\\](x) [ref\\][1] [0.61, 1.00]"
        );
        // a backslash cannot undo the escape of the pipe after it
        assert_eq!(escape_md_cell("a\\|b"), "a\\\\\\|b");
        assert_eq!(
            escape_md_cell("R&D **bold** `x`"),
            "R&amp;D \\*\\*bold\\*\\* `x`"
        );
        assert_eq!(
            escape_md_cell("bell\u{7}\u{1b}[2J"),
            "bell\\\\u{7}\\\\u{1b}[2J"
        );
        assert_eq!(escape_md_code("a`b\nc\u{7}"), "a'b c\\u{7}");
    }

    #[test]
    fn control_characters_are_shown_not_sent_to_the_terminal() {
        assert_eq!(printable("red \u{1b}[31mX"), "red \\u{1b}[31mX");
        assert_eq!(printable("a\tb\nc"), "a\tb\nc");
    }
}
