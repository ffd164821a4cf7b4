//! The layering of `src/`, held by a test: ARCHITECTURE.md states these layers and these rules.
//!
//! Every file of `src/` belongs to a unit: the top-level module it is in (`check`, `mutate`,
//! `report`, ...), or, inside the folders that group former top-level modules (`model/`,
//! `engine/`, `gate/`, `io/`), the file or folder directly under it (`engine::run`,
//! `model::suite`). A unit's code may name only units of its own layer or below; the units form
//! no cycle; and nothing below `report` names `report`, `review` or `cli`. References are read
//! from the code as written (`crate::x`, `faithprobe::x`, `super::x` at the top of a group),
//! with comments, strings and `#[cfg(test)]` modules left out. And only `src/io/yaml.rs` names
//! the YAML crate: swapping it for a fork is one file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first. A unit may use its own layer and the layers below it.
const LAYERS: &[(&str, &[&str])] = &[
    ("base", &["error", "text", "stats"]),
    ("io", &["io"]),
    ("model", &["model"]),
    ("components", &["mutate", "check"]),
    ("answers", &["answers"]),
    ("engines", &["engine", "import"]),
    ("gate", &["gate"]),
    ("report", &["report"]),
    ("review", &["review"]),
    ("cli", &["cli", "main", "lib", "fuzz"]),
];

/// Folders whose direct children are units of their own.
const GROUPS: &[&str] = &["model", "engine", "gate", "io"];

fn layer_of(unit: &str) -> usize {
    let top = unit.split("::").next().unwrap();
    LAYERS
        .iter()
        .position(|(_, tops)| tops.contains(&top))
        .unwrap_or_else(|| {
            panic!("src/{top}: not in any layer of tests/layers.rs; add it to LAYERS and to ARCHITECTURE.md")
        })
}

/// The unit a file of `src/` belongs to.
fn unit_of(rel: &Path) -> String {
    let parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    let parts: Vec<&str> = parts
        .iter()
        .map(String::as_str)
        .filter(|p| *p != "mod")
        .collect();
    match parts.as_slice() {
        [] => "lib".into(),
        [top] => top.to_string(),
        [top, second, ..] if GROUPS.contains(top) => format!("{top}::{second}"),
        [top, ..] => top.to_string(),
    }
}

/// The unit a path named in code refers to (`engine::run::Case` -> `engine::run`).
fn unit_named(path: &str) -> Option<String> {
    let mut segs = path.split("::").filter(|s| !s.is_empty());
    let top = segs.next()?;
    if !top.chars().next()?.is_ascii_lowercase() {
        return None;
    }
    if GROUPS.contains(&top) {
        match segs.next() {
            Some(second) if second.chars().next()?.is_ascii_lowercase() => {
                Some(format!("{top}::{second}"))
            }
            _ => Some(top.to_string()),
        }
    } else {
        Some(top.to_string())
    }
}

/// Code without comments, string literals and `#[cfg(test)]` modules.
fn code_of(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if text[i..].starts_with("//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if text[i..].starts_with("/*") {
            let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            i = end;
        } else if text[i..].starts_with("r#\"") {
            let end = text[i + 3..].find("\"#").map_or(b.len(), |e| i + 3 + e + 2);
            out.push_str("\"\"");
            i = end;
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            out.push_str("\"\"");
            i += 1;
        } else if b[i] == b'\'' && i + 2 < b.len() && (b[i + 2] == b'\'' || b[i + 1] == b'\\') {
            // a char literal ('"', '\n'): skip it so a quote inside opens no string
            let end = text[i + 1..].find('\'').map_or(b.len(), |e| i + 1 + e + 1);
            let end = if b[i + 1] == b'\\' {
                text[i + 3..].find('\'').map_or(b.len(), |e| i + 3 + e + 1)
            } else {
                end
            };
            out.push_str("' '");
            i = end;
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    match out.find("#[cfg(test)]\nmod ") {
        Some(at) => out[..at].to_string(),
        None => out,
    }
}

/// How much of `rest` is one path: identifiers, `::` and balanced `{...}` groups.
fn balanced_len(rest: &str) -> usize {
    let mut depth = 0;
    for (k, c) in rest.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            c if depth > 0 || c.is_alphanumeric() || c == '_' || c == ':' => {}
            _ => return k,
        }
    }
    rest.len()
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e`.
fn expand(prefix: &str, path: &str, out: &mut Vec<String>) {
    let path = path.trim();
    match path.find('{') {
        None => out.push(format!("{prefix}{path}")),
        Some(open) => {
            let head = format!("{prefix}{}", &path[..open]);
            let inner = &path[open + 1..path.rfind('}').unwrap_or(path.len())];
            let mut depth = 0;
            let mut item = String::new();
            for c in inner.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand(&head, &item, out);
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            if !item.trim().is_empty() {
                expand(&head, &item, out);
            }
        }
    }
}

/// Every path a piece of code names after `prefix::`, groups (`{a::b, c}`) expanded.
fn named_paths(code: &str, prefix: &str) -> Vec<String> {
    let mut found = Vec::new();
    let pat = format!("{prefix}::");
    let mut from = 0;
    while let Some(at) = code[from..].find(&pat) {
        let start = from + at;
        from = start + pat.len();
        let before = code[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[from..];
        let len = balanced_len(rest);
        expand("", &rest[..len], &mut found);
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// unit -> unit -> the files and names behind the edge
type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

fn graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut edges = Graph::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap().to_path_buf();
        let from = unit_of(&rel);
        let code = code_of(&std::fs::read_to_string(&file).unwrap());
        let in_bin = from == "cli" || from == "main";
        let mut named: Vec<String> = Vec::new();
        if in_bin {
            named.extend(named_paths(&code, "faithprobe"));
        } else {
            named.extend(named_paths(&code, "crate"));
        }
        // `super::x` from a file directly under a group folder names a sibling unit
        if let [top, _] = rel
            .iter()
            .map(|p| p.to_string_lossy())
            .collect::<Vec<_>>()
            .as_slice()
        {
            if GROUPS.contains(&top.as_ref()) && !rel.ends_with("mod.rs") {
                named.extend(
                    named_paths(&code, "super")
                        .into_iter()
                        .map(|p| format!("{top}::{p}")),
                );
            }
        }
        for path in named {
            let Some(to) = unit_named(&path) else {
                continue;
            };
            if to == from || (in_bin && to == "cli") {
                continue;
            }
            edges
                .entry(from.clone())
                .or_default()
                .entry(to)
                .or_default()
                .insert(format!("src/{}: {path}", rel.display()));
        }
    }
    edges
}

#[test]
fn every_unit_uses_only_its_layer_and_below() {
    let mut wrong = Vec::new();
    for (from, tos) in graph() {
        for (to, why) in tos {
            if layer_of(&to) > layer_of(&from) {
                wrong.push(format!(
                    "{from} (layer {}) uses {to} (layer {}): {}",
                    LAYERS[layer_of(&from)].0,
                    LAYERS[layer_of(&to)].0,
                    why.into_iter().collect::<Vec<_>>().join(", ")
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "upward imports:\n{}", wrong.join("\n"));
}

#[test]
fn no_engine_names_a_reporter_or_the_command_line() {
    let report = layer_of("report");
    let mut wrong = Vec::new();
    for (from, tos) in graph() {
        if layer_of(&from) >= report {
            continue;
        }
        for (to, why) in tos {
            if ["report", "review", "cli"].contains(&to.split("::").next().unwrap()) {
                wrong.push(format!("{from} uses {to}: {why:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_units_form_no_cycle() {
    let g = graph();
    // depth-first search; a grey node met again closes a cycle
    fn visit(
        n: &str,
        g: &Graph,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
        cycles: &mut Vec<String>,
    ) {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        let tos: Vec<String> = g
            .get(n)
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default();
        for to in tos {
            match state.get(&to).copied().unwrap_or(0) {
                0 => visit(&to, g, state, stack, cycles),
                1 => {
                    let at = stack.iter().position(|s| *s == to).unwrap();
                    let mut c = stack[at..].to_vec();
                    c.push(to.clone());
                    cycles.push(c.join(" -> "));
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
    }
    let mut state = BTreeMap::new();
    let mut cycles = Vec::new();
    for n in g.keys() {
        if state.get(n).copied().unwrap_or(0) == 0 {
            visit(n, &g, &mut state, &mut Vec::new(), &mut cycles);
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

/// The YAML crate, spelt so that this file does not name it.
const YAML_CRATE: &str = concat!("serde", "_yaml");

#[test]
fn only_io_yaml_names_the_yaml_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches"] {
        if root.join(dir).is_dir() {
            rust_files(&root.join(dir), &mut files);
        }
    }
    let naming: Vec<String> = files
        .iter()
        .filter(|f| !f.ends_with("src/io/yaml.rs"))
        .filter(|f| std::fs::read_to_string(f).unwrap().contains(YAML_CRATE))
        .map(|f| f.strip_prefix(root).unwrap().display().to_string())
        .collect();
    assert!(
        naming.is_empty(),
        "only src/io/yaml.rs may name {YAML_CRATE} (call crate::io::yaml instead): {naming:?}"
    );
    let yaml = std::fs::read_to_string(root.join("src/io/yaml.rs")).unwrap();
    assert!(yaml.contains(&format!("{YAML_CRATE}::from_str")));
}

#[test]
fn the_reader_sees_groups_and_skips_comments() {
    let code = code_of(
        "use crate::{engine::run::Case, model::{case, suite::Suite}};\n// crate::report::x\nlet s = \"crate::cli\";\n#[cfg(test)]\nmod tests { use crate::report; }\n",
    );
    let paths = named_paths(&code, "crate");
    assert_eq!(
        paths,
        ["engine::run::Case", "model::case", "model::suite::Suite"]
    );
    assert_eq!(unit_named(&paths[0]).as_deref(), Some("engine::run"));
    assert_eq!(unit_named(&paths[1]).as_deref(), Some("model::case"));
    assert_eq!(unit_of(Path::new("engine/run.rs")), "engine::run");
    assert_eq!(unit_of(Path::new("model/suite/side.rs")), "model::suite");
    assert_eq!(unit_of(Path::new("report/run/human.rs")), "report");
}
