//! The guide under `docs/` cannot drift: its internal links and anchors resolve, `SUMMARY.md`
//! lists every page, the pages generated from code (the CLI reference from `--help`, the
//! operators from the registry) are current (`FAITHPROBE_UPDATE_DOCS=1 cargo test --test main
//! docs::` rewrites them), the exit-code page is the `Exit` enum's table, and every test the
//! guarantees name exists.

use crate::common::{faithprobe_in, output, root};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    root().join("docs/src")
}

fn update() -> bool {
    std::env::var_os("FAITHPROBE_UPDATE_DOCS").is_some_and(|v| v == "1")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `.md` file under `dir`, as paths relative to it with `/` separators, sorted.
fn pages(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, base, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                let rel = path.strip_prefix(base).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The lines of a Markdown text outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut inside = false;
    text.lines()
        .filter(|l| {
            if l.trim_start().starts_with("```") {
                inside = !inside;
                return false;
            }
            !inside
        })
        .collect()
}

/// The id mdBook gives a heading: lower case, spaces to `-`, only letters, digits, `_` and `-`.
fn heading_id(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_lowercase().next().unwrap())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The anchors of a page: each heading's id (mdBook's `-1`, `-2` for repeats).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for line in prose(text) {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if hashes == 0 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let id = heading_id(line[hashes..].trim());
        let mut unique = id.clone();
        let mut n = 1;
        while seen.contains(&unique) {
            unique = format!("{id}-{n}");
            n += 1;
        }
        seen.insert(unique);
    }
    seen
}

/// The targets of the inline links `[text](target)` in the prose of a page (code spans and
/// blocks left out).
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose(text) {
        // drop code spans, where `](` is no link
        let mut plain = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                plain.push_str(part);
            }
        }
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

/// The problems of the links of `page` (a file under `base`): a file that does not exist, an
/// anchor no heading of the target gives.
fn broken_links(base: &Path, page: &str, text: &str) -> Vec<String> {
    let mut broken = Vec::new();
    let dir = Path::new(page).parent().unwrap_or(Path::new(""));
    for target in link_targets(text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (file, anchor) = match target.split_once('#') {
            Some((f, a)) => (f, Some(a)),
            None => (target.as_str(), None),
        };
        let resolved = if file.is_empty() {
            base.join(page)
        } else {
            base.join(dir).join(file)
        };
        if !resolved.exists() {
            broken.push(format!("{page}: ({target}): no such file"));
            continue;
        }
        if let Some(anchor) = anchor {
            if !anchors(&read(&resolved)).contains(anchor) {
                broken.push(format!("{page}: ({target}): no heading gives #{anchor}"));
            }
        }
    }
    broken
}

#[test]
fn every_internal_link_of_the_guide_and_the_front_pages_points_at_a_page_and_heading_that_exist() {
    let mut broken = Vec::new();
    let mut links = 0;
    for page in pages(&src()) {
        let text = read(&src().join(&page));
        links += link_targets(&text).len();
        broken.extend(broken_links(&src(), &page, &text));
    }
    for page in ["README.md", "CONTRIBUTING.md", "CHANGELOG.md"] {
        broken.extend(broken_links(&root(), page, &read(&root().join(page))));
    }
    assert!(
        links > 50,
        "only {links} links found: is the link reader broken?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_summary_lists_every_page_of_the_guide_once() {
    let summary = read(&src().join("SUMMARY.md"));
    let listed: Vec<String> = link_targets(&summary);
    let mut seen = BTreeSet::new();
    for l in &listed {
        assert!(seen.insert(l.clone()), "SUMMARY.md lists {l} twice");
        assert!(
            src().join(l).is_file(),
            "SUMMARY.md lists {l}, which does not exist"
        );
    }
    let missing: Vec<String> = pages(&src())
        .into_iter()
        .filter(|p| p != "SUMMARY.md" && !seen.contains(p))
        .collect();
    assert!(
        missing.is_empty(),
        "pages SUMMARY.md does not list: {missing:?}"
    );
}

#[test]
fn a_quoted_see_names_a_heading_that_exists() {
    // `see "Heading"` in prose, unlinked, must still name a heading (or a bold paragraph lead)
    let mut headings = BTreeSet::new();
    let mut texts = Vec::new();
    for page in pages(&src()) {
        let text = read(&src().join(&page));
        for line in prose(&text) {
            let h = line.trim_start_matches('#');
            if h.len() < line.len() && h.starts_with(' ') {
                headings.insert(h.trim().to_string());
            }
            let mut rest = line;
            while let Some(at) = rest.find("**") {
                let after = &rest[at + 2..];
                let Some(end) = after.find("**") else { break };
                headings.insert(after[..end].trim_end_matches('.').to_string());
                rest = &after[end + 2..];
            }
        }
        texts.push((page, text));
    }
    let mut unknown = Vec::new();
    for (page, text) in &texts {
        for line in prose(text) {
            let mut rest = line;
            while let Some(at) = rest.find("see \"") {
                let after = &rest[at + 5..];
                let Some(end) = after.find('"') else { break };
                let name = &after[..end];
                if !headings.contains(name) {
                    unknown.push(format!("{page}: see \"{name}\""));
                }
                rest = &after[end..];
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "references to no heading:\n{}",
        unknown.join("\n")
    );
}

/// The help of `faithprobe ARGS --help`, as a newcomer's terminal shows it (no config, no colour).
fn help(args: &[&str]) -> String {
    let mut c = faithprobe_in(&root());
    c.args(args).arg("--help");
    let (code, out, err) = output(&mut c);
    assert_eq!(code, 0, "{args:?} --help: {err}");
    out
}

/// The subcommands a help text lists under `Commands:` (without `help`).
fn subcommands(help: &str) -> Vec<String> {
    let Some((_, list)) = help.split_once("\nCommands:\n") else {
        return Vec::new();
    };
    list.lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// The page of one command: its help, then each subcommand's, depth first.
fn command_page(name: &str) -> String {
    let mut page = format!(
        "# faithprobe {name}\n\n<!-- generated from `faithprobe {name} --help` by tests/docs.rs: do not edit; FAITHPROBE_UPDATE_DOCS=1 cargo test --test main docs:: rewrites it -->\n\n"
    );
    let mut queue = vec![vec![name.to_string()]];
    while let Some(path) = queue.pop() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let text = help(&args);
        if path.len() > 1 {
            page.push_str(&format!("## faithprobe {}\n\n", path.join(" ")));
        }
        page.push_str("```text\n");
        page.push_str(text.trim_end());
        page.push_str("\n```\n\n");
        let mut subs: Vec<Vec<String>> = subcommands(&text)
            .into_iter()
            .map(|s| {
                let mut p = path.clone();
                p.push(s);
                p
            })
            .collect();
        subs.reverse();
        queue.extend(subs);
    }
    page.truncate(page.trim_end().len());
    page.push('\n');
    page
}

/// Writes `text` to `path` under FAITHPROBE_UPDATE_DOCS=1, else says whether it is what is there.
fn current(path: &Path, text: &str) -> bool {
    if update() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        true
    } else {
        std::fs::read_to_string(path).ok().as_deref() == Some(text)
    }
}

#[test]
fn the_cli_reference_is_every_commands_help_as_the_binary_prints_it() {
    let dir = src().join("reference/cli");
    let commands = subcommands(&help(&[]));
    assert!(
        commands.len() > 10 && commands.iter().any(|c| c == "run"),
        "{commands:?}"
    );
    let mut stale = Vec::new();
    for name in &commands {
        let path = dir.join(format!("{name}.md"));
        if !current(&path, &command_page(name)) {
            stale.push(format!("docs/src/reference/cli/{name}.md"));
        }
    }
    // no page of a command that is gone
    for page in pages(&dir) {
        let name = page.trim_end_matches(".md");
        if name != "index" && !commands.iter().any(|c| c == name) {
            stale.push(format!("docs/src/reference/cli/{page} (no such command)"));
        }
    }
    assert!(
        stale.is_empty(),
        "{} not what `--help` prints; regenerate with FAITHPROBE_UPDATE_DOCS=1 cargo test --test main docs::",
        stale.join(", ")
    );
    // the overview links every command's page
    let index = read(&dir.join("index.md"));
    for name in &commands {
        assert!(
            index.contains(&format!("]({name}.md)")),
            "reference/cli/index.md does not link {name}.md"
        );
    }
}

/// The operators page: every registry entry with what it stands for, its typologies, its rule
/// file and its example.
fn operators_page() -> String {
    use faithprobe::mutate::{Purpose, REGISTRY};
    let mut page = String::from(
        "# Operators\n\n<!-- generated from `faithprobe::mutate::REGISTRY` by tests/docs.rs: do not edit; FAITHPROBE_UPDATE_DOCS=1 cargo test --test main docs:: rewrites it -->\n\nEvery operator in report order, as `faithprobe mutants --list` prints it: its fault type (the\nname of its row), what it stands for, its names in the public typologies, its rule file (in\n`mutators/`, compiled in; a `--mutators DIR` folder overrides it) and one claim with one of its\nmutants (a unit test checks that the operator makes it). How each works, and its limits:\n[Fault types](../concepts/fault-types.md); rewrites: [Invariance](../concepts/invariance.md).\n\n",
    );
    for op in REGISTRY {
        let kind = match op.purpose {
            Purpose::Fault => "fault",
            Purpose::Invariance => "rewrite (invariance: the checker should pass it)",
        };
        page.push_str(&format!(
            "## `{}`\n\n- kind: {kind}\n- stands for: {}\n- typologies: {}\n- rule file: `mutators/{}`\n- example: \"{}\" -> \"{}\"\n\n",
            op.name, op.stands_for, op.typologies, op.rules, op.example[0], op.example[1]
        ));
    }
    page.truncate(page.trim_end().len());
    page.push('\n');
    page
}

#[test]
fn the_operators_page_is_the_registry() {
    assert!(
        current(&src().join("reference/operators.md"), &operators_page()),
        "docs/src/reference/operators.md is not what the registry gives; regenerate with FAITHPROBE_UPDATE_DOCS=1 cargo test --test main docs::"
    );
}

#[test]
fn the_exit_code_page_lists_every_code_of_exit() {
    use faithprobe::error::Exit;
    let page = read(&src().join("reference/exit-codes.md"));
    let documented: Vec<u8> = page
        .lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split(' ').next()?.parse().ok())
        .collect();
    let codes: Vec<u8> = {
        let mut c: Vec<u8> = Exit::PRECEDENCE.iter().map(|e| e.code()).collect();
        c.sort();
        c
    };
    assert_eq!(
        documented, codes,
        "the exit-code table is not the codes of `Exit`"
    );
    // the precedence sentence is Exit::PRECEDENCE (Ok last, not named)
    let order: Vec<String> = Exit::PRECEDENCE
        .iter()
        .filter(|e| **e != Exit::Ok)
        .map(|e| e.code().to_string())
        .collect();
    let sentence = format!("the first of {} is the code", order.join(", "));
    assert!(
        page.contains(&sentence),
        "the exit-code page does not say `{sentence}`"
    );
}

/// Every identifier of a test or function named in the last column of the tables of `page`.
fn named_tests(page: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in page.lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.trim_end_matches('|').split(" | ").collect();
        let last = cells.last().unwrap();
        for (i, part) in last.split('`').enumerate() {
            // a test's name: snake case with at least two underscores, nothing else
            if i % 2 == 1
                && part.matches('_').count() >= 2
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            {
                names.push(part.to_string());
            }
        }
    }
    names
}

/// The text of every `.rs` file under `dir`.
fn rust_sources(dir: &Path, out: &mut String) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push_str(&read(&path));
        }
    }
}

#[test]
fn every_test_the_guarantees_and_the_gate_simulations_name_exists() {
    let mut code = String::new();
    rust_sources(&root().join("src"), &mut code);
    rust_sources(&root().join("tests"), &mut code);
    let mut missing = Vec::new();
    let mut checked = 0;
    for page in ["reference/guarantees.md", "concepts/gate-statistics.md"] {
        for name in named_tests(&read(&src().join(page))) {
            checked += 1;
            if !code.contains(&format!("fn {name}(")) && !code.contains(&format!("fn {name}<")) {
                missing.push(format!("{page}: {name}"));
            }
        }
    }
    assert!(
        checked > 60,
        "only {checked} test names found: is the reader broken?"
    );
    assert!(
        missing.is_empty(),
        "tests named in the guide that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_readmes_loop_builds_and_runs_the_suite_as_the_tested_walk_through_does() {
    // the walk-through's commands are run as printed by tests/from_log.rs; the README's loop
    // shows its first and last step word for word
    let readme = read(&root().join("README.md"));
    let walk = read(&src().join("getting-started/walk-through.md"));
    let loop_block = readme
        .split_once("## The loop")
        .expect("README has 'The loop'")
        .1
        .split_once("```sh\n")
        .unwrap()
        .1
        .split_once("```")
        .unwrap()
        .0;
    let shared: Vec<&str> = loop_block
        .lines()
        .filter(|l| l.starts_with("faithprobe suite from-log") || l.starts_with("faithprobe run"))
        .collect();
    assert_eq!(shared.len(), 2, "{loop_block}");
    for line in shared {
        assert!(
            walk.lines().any(|l| l == line),
            "README's `{line}` is not a line of the walk-through"
        );
    }
}
