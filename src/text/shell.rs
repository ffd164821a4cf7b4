//! Quoting for a POSIX shell: the commands faithprobe prints for a person to run.

/// `w` as one word for a POSIX shell: as it is when it holds only plain path characters, else in
/// single quotes. Every command faithprobe prints for a person to run quotes its paths this way.
pub fn shell_word(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,=:@".contains(c))
    {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}
