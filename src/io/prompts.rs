//! The prompt templates that ship with faithprobe, compiled into the binary so an installed copy
//! (a pip wheel, `cargo install`) has them wherever it runs. The repository's `prompts/` files are
//! the same texts and serve as copies to edit: a prompt file that exists is always read from disk;
//! a missing file whose path names a built-in prompt (`prompts/judge-v1.md`, or the bare file
//! name) is served from the binary.

use std::path::Path;

/// The built-in prompts by file name.
pub const BUILTIN: &[(&str, &str)] = &[
    ("judge-v1.md", include_str!("../../prompts/judge-v1.md")),
    (
        "decompose-v1.md",
        include_str!("../../prompts/decompose-v1.md"),
    ),
    (
        "omissions-v1.md",
        include_str!("../../prompts/omissions-v1.md"),
    ),
    ("mutate-v1.md", include_str!("../../prompts/mutate-v1.md")),
];

/// The default judge prompt, as written in a config.
pub const JUDGE: &str = "prompts/judge-v1.md";
/// The default decomposer prompt.
pub const DECOMPOSE: &str = "prompts/decompose-v1.md";
/// The default omissions prompt.
pub const OMISSIONS: &str = "prompts/omissions-v1.md";
/// The default prompt of the LLM mutator.
pub const MUTATE: &str = "prompts/mutate-v1.md";

/// The built-in text a path as written names, if any: `prompts/NAME` or `NAME` (with or without
/// a leading `./`), where NAME is a built-in prompt's file name.
pub fn builtin(written: &Path) -> Option<&'static str> {
    let s = written.to_string_lossy().replace('\\', "/");
    let s = s.strip_prefix("./").unwrap_or(&s);
    let name = s.strip_prefix("prompts/").unwrap_or(s);
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// A prompt's text and where it came from (the file, or "built-in prompts/NAME"): the file at
/// `resolved` when it exists, else the built-in prompt that `written` names, else an error that
/// says which file could not be read.
pub fn read(written: &Path, resolved: &Path) -> Result<(String, String), String> {
    match std::fs::read_to_string(resolved) {
        Ok(text) => Ok((text, resolved.display().to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match builtin(written) {
            Some(text) => Ok((
                text.to_string(),
                format!(
                    "built-in prompts/{}",
                    written.file_name().unwrap_or_default().to_string_lossy()
                ),
            )),
            None => Err(format!("cannot read prompt {}: {e}", resolved.display())),
        },
        Err(e) => Err(format!("cannot read prompt {}: {e}", resolved.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_that_names_a_builtin_prompt_is_served_from_the_binary() {
        let d = tempfile::tempdir().unwrap();
        for written in [
            "prompts/judge-v1.md",
            "./prompts/judge-v1.md",
            "judge-v1.md",
        ] {
            let (text, from) = read(Path::new(written), &d.path().join(written)).unwrap();
            assert!(text.contains("{claims}"), "{written}");
            assert_eq!(from, "built-in prompts/judge-v1.md");
        }
    }

    #[test]
    fn a_file_on_disk_overrides_the_builtin_and_an_unknown_missing_file_is_an_error() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("prompts")).unwrap();
        let p = d.path().join("prompts/judge-v1.md");
        std::fs::write(&p, "mine {claims} {passages}").unwrap();
        let (text, from) = read(Path::new("prompts/judge-v1.md"), &p).unwrap();
        assert_eq!(text, "mine {claims} {passages}");
        assert_eq!(from, p.display().to_string());
        let err = read(
            Path::new("prompts/judge-v2.md"),
            &d.path().join("prompts/judge-v2.md"),
        )
        .unwrap_err();
        assert!(err.contains("judge-v2.md"), "{err}");
    }

    #[test]
    fn the_builtin_prompts_are_the_repositorys_files() {
        for (name, text) in BUILTIN {
            let disk = std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("prompts")
                    .join(name),
            )
            .unwrap();
            assert_eq!(&disk, text, "{name}");
        }
    }
}
