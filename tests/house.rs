//! The house rules, read from the source tree (docs/architecture.md draws the rooms they keep apart).
//!
//! A *room* is a folder of `actors/src/` (an actor such as `job_router`, or a shared service with
//! folders of its own: `store`, `runtime`, `connector`); its `mod.rs` is its *face*.
//!
//! 1. The front (`src/`, and the tests, benches and examples) names no path below a room's face:
//!    `docsieve_actors::<room>::<submodule>` is refused, `docsieve_actors::<room>::<Item>` (a
//!    re-export of the face) is how things are reached.
//! 2. No `pub mod` inside a room's folder: its submodules are private (`mod`, or `pub(crate)` /
//!    `pub(super)` for a room's own nested modules), and its face re-exports what others need.
//! 3. Inside the actors crate, a room reaches another only through its face (no
//!    `crate::<other room>::<submodule>`), the rooms' imports of each other form no cycle, and
//!    docs/architecture.md's table of who reaches whom is that graph.
//! 4. No production file is over 700 lines, the PII engine's included (its long tables live in data
//!    files and its rules one a file); unit-test files (`tests.rs`, `tests/`) do not count.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 700;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The rooms (folders of `actors/src/`) and the submodules each one holds.
fn rooms() -> BTreeMap<String, BTreeSet<String>> {
    let mut rooms = BTreeMap::new();
    let actors = root().join("actors/src");
    for entry in fs::read_dir(&actors).expect("actors/src").flatten() {
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let submodules = fs::read_dir(&path)
            .expect("a room's folder")
            .flatten()
            .map(|e| {
                let file = e.file_name().to_string_lossy().into_owned();
                file.strip_suffix(".rs").unwrap_or(&file).to_string()
            })
            .filter(|m| m != "mod")
            .collect();
        rooms.insert(name, submodules);
    }
    rooms
}

/// The source without comments and with every string and char literal emptied, so that only code
/// is read; the lines stay where they were.
fn code_of(source: &str) -> String {
    let bytes = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    // Skips `length` bytes, keeping their line breaks, and writes `instead`.
    let skip = |out: &mut String, i: &mut usize, length: usize, instead: &str| {
        out.push_str(instead);
        out.extend(source[*i..*i + length].matches('\n'));
        *i += length;
    };
    while i < bytes.len() {
        let rest = &source[i..];
        if rest.starts_with("//") {
            skip(&mut out, &mut i, rest.find('\n').unwrap_or(rest.len()), "");
        } else if rest.starts_with("/*") {
            let length = rest.find("*/").map_or(rest.len(), |end| end + 2);
            skip(&mut out, &mut i, length, "");
        } else if rest.starts_with("r#\"") || rest.starts_with("r\"") {
            let hashes = rest[1..].bytes().take_while(|&b| b == b'#').count();
            let close = format!("\"{}", "#".repeat(hashes));
            let body = 2 + hashes;
            let length = rest[body..]
                .find(&close)
                .map_or(rest.len(), |end| body + end + close.len());
            skip(&mut out, &mut i, length, "\"\"");
        } else if bytes[i] == b'"' {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != b'"' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            let length = (j + 1).min(bytes.len()) - i;
            skip(&mut out, &mut i, length, "\"\"");
        } else if bytes[i] == b'\'' && is_char_literal(rest) {
            let length = rest[1..].find('\'').map_or(rest.len(), |e| e + 2);
            skip(&mut out, &mut i, length, "' '");
        } else {
            let c = rest.chars().next().expect("a char");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// `'a'` or `'\n'` rather than a lifetime `'a`.
fn is_char_literal(rest: &str) -> bool {
    let mut chars = rest.chars().skip(1);
    matches!(
        (chars.next(), chars.next()),
        (Some('\\'), _) | (Some(_), Some('\''))
    )
}

/// Every path named after `prefix::` in `code`, use-trees expanded: `a::{b, c::d}` gives `a::b`
/// and `a::c::d`.
fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find(prefix) {
        let start = from + at;
        from = start + prefix.len();
        let before = code[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        tree(code, &mut from.clone(), Vec::new(), &mut paths);
    }
    paths
}

fn skip_space(code: &str, at: &mut usize) {
    while code[*at..].starts_with(char::is_whitespace) {
        *at += code[*at..].chars().next().map_or(1, char::len_utf8);
    }
}

fn tree(code: &str, at: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    skip_space(code, at);
    if code[*at..].starts_with('{') {
        *at += 1;
        loop {
            skip_space(code, at);
            if *at >= code.len() || code[*at..].starts_with('}') {
                *at += 1;
                return;
            }
            tree(code, at, prefix.clone(), out);
            skip_space(code, at);
            if code[*at..].starts_with(',') {
                *at += 1;
            } else if !code[*at..].starts_with('}') {
                // Not a use-tree after all (an expression): stop reading it.
                return;
            }
        }
    }
    let name: String = code[*at..]
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '*')
        .collect();
    if name.is_empty() {
        out.push(prefix);
        return;
    }
    *at += name.len();
    let mut path = prefix;
    path.push(name);
    let mut look = *at;
    skip_space(code, &mut look);
    if code[look..].starts_with("::") && !code[look + 2..].trim_start().starts_with('<') {
        *at = look + 2;
        tree(code, at, path, out);
    } else {
        out.push(path);
    }
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The names each room's face re-exports (`pub use ...;` in its `mod.rs`).
fn face_exports(room: &str) -> BTreeSet<String> {
    let face = root().join("actors/src").join(room).join("mod.rs");
    let code = code_of(&fs::read_to_string(face).unwrap_or_default());
    let mut names = BTreeSet::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("pub use ") {
        let start = from + at + "pub use ".len();
        let end = code[start..].find(';').map_or(code.len(), |e| start + e);
        let words = code[start..end].split(|c: char| !(c.is_alphanumeric() || c == '_'));
        names.extend(words.filter(|w| !w.is_empty()).map(str::to_string));
        from = end;
    }
    names
}

/// Where a path goes below a room's face: `(room, submodule)`. A path that stops at a name the
/// face re-exports is the re-export (an item may share its module's name: `document_csv`).
fn below_face<'a>(
    path: &'a [String],
    rooms: &BTreeMap<String, BTreeSet<String>>,
) -> Option<(&'a str, &'a str)> {
    let room = path.first()?;
    let next = path.get(1)?;
    let submodules = rooms.get(room)?;
    // The face is read only for a path that names a submodule (rare), not for every path.
    let below =
        submodules.contains(next) && !(path.len() == 2 && face_exports(room).contains(next));
    below.then_some((room.as_str(), next.as_str()))
}

#[test]
fn the_front_names_no_path_below_a_face() {
    let rooms = rooms();
    let mut files = Vec::new();
    for dir in ["src", "tests", "examples", "actors/tests", "actors/benches"] {
        rust_files(&root().join(dir), &mut files);
    }
    let mut found = Vec::new();
    for file in &files {
        let code = code_of(&fs::read_to_string(file).expect("a source file"));
        for path in paths_after(&code, "docsieve_actors::") {
            if let Some((room, submodule)) = below_face(&path, &rooms) {
                found.push(format!(
                    "{}: docsieve_actors::{room}::{submodule}",
                    relative(file)
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "paths below a face:\n{}",
        found.join("\n")
    );
}

#[test]
fn no_room_declares_a_public_submodule() {
    let mut files = Vec::new();
    for room in rooms().keys() {
        rust_files(&root().join("actors/src").join(room), &mut files);
    }
    let codes: Vec<(PathBuf, String, String)> = files
        .into_iter()
        .map(|file| {
            let source = fs::read_to_string(&file).expect("a source file");
            (file, code_of(&source), source)
        })
        .collect();
    // Test support (compiled only for tests and benches, behind `test-support`) is published as
    // modules for the benches: a `pub mod` right under that `cfg`, and everything in its folder.
    let mut test_support: Vec<PathBuf> = Vec::new();
    for (file, code, source) in &codes {
        let raw: Vec<&str> = source.lines().collect();
        let lines: Vec<&str> = code.lines().map(str::trim).collect();
        for (n, line) in lines.iter().enumerate() {
            let gated = n > 0 && raw[n - 1].contains("feature = \"test-support\"");
            if let (true, Some(name)) = (gated, line.strip_prefix("pub mod ")) {
                let name = name.trim_end_matches(';');
                let folder = file.parent().expect("a folder");
                test_support.push(folder.join(format!("{name}.rs")));
                test_support.push(folder.join(name));
            }
        }
    }
    let mut found = Vec::new();
    for (file, code, source) in &codes {
        if test_support.iter().any(|support| file.starts_with(support)) {
            continue;
        }
        let raw: Vec<&str> = source.lines().collect();
        let lines: Vec<&str> = code.lines().map(str::trim).collect();
        for (n, line) in lines.iter().enumerate() {
            let gated = n > 0 && raw[n - 1].contains("feature = \"test-support\"");
            if line.starts_with("pub mod ") && !gated {
                found.push(format!("{}:{}: {line}", relative(file), n + 1));
            }
        }
    }
    assert!(found.is_empty(), "public submodules:\n{}", found.join("\n"));
}

#[test]
fn rooms_meet_at_their_faces_and_in_no_cycle() {
    let rooms = rooms();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut found = Vec::new();
    for room in rooms.keys() {
        let mut files = Vec::new();
        rust_files(&root().join("actors/src").join(room), &mut files);
        for file in &files {
            let code = code_of(&fs::read_to_string(file).expect("a source file"));
            for path in paths_after(&code, "crate::") {
                let Some(other) = path
                    .first()
                    .filter(|o| *o != room && rooms.contains_key(*o))
                else {
                    continue;
                };
                edges.entry(room.clone()).or_default().insert(other.clone());
                if let Some((other, submodule)) = below_face(&path, &rooms) {
                    found.push(format!("{}: crate::{other}::{submodule}", relative(file)));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "paths below another room's face:\n{}",
        found.join("\n")
    );
    // Depth-first search for a cycle.
    fn visit(
        room: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        trail: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = trail.iter().position(|r| r == room) {
            let mut cycle = trail[at..].to_vec();
            cycle.push(room.to_string());
            return Some(cycle);
        }
        if done.contains(room) {
            return None;
        }
        trail.push(room.to_string());
        for next in edges.get(room).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, trail, done) {
                return Some(cycle);
            }
        }
        trail.pop();
        done.insert(room.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for room in rooms.keys() {
        if let Some(cycle) = visit(room, &edges, &mut Vec::new(), &mut done) {
            panic!("rooms import each other: {}", cycle.join(" -> "));
        }
    }
    // docs/architecture.md draws the same graph: one row per room that reaches another.
    let mut table = String::from("| room | reaches |\n|---|---|\n");
    for (room, others) in &edges {
        let others: Vec<String> = others.iter().map(|o| format!("`{o}`")).collect();
        table.push_str(&format!("| `{room}` | {} |\n", others.join(", ")));
    }
    let page = fs::read_to_string(root().join("docs/architecture.md")).expect("the page");
    assert!(
        page.contains(&table),
        "docs/architecture.md's table of who reaches whom should read:\n{table}"
    );
}

#[test]
fn no_production_file_is_over_the_size_bar() {
    let mut files = Vec::new();
    for dir in ["src", "actors/src", "migrations/src"] {
        rust_files(&root().join(dir), &mut files);
    }
    let mut found = Vec::new();
    for file in &files {
        let name = relative(file);
        let is_test = name.ends_with("/tests.rs") || name.contains("/tests/");
        if is_test {
            continue;
        }
        let lines = fs::read_to_string(file)
            .expect("a source file")
            .lines()
            .count();
        if lines > MAX_LINES {
            found.push(format!("{name}: {lines} lines"));
        }
    }
    assert!(
        found.is_empty(),
        "files over {MAX_LINES} lines:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_reader_expands_use_trees_and_skips_comments() {
    let code = code_of(
        "use crate::a::{b, c::{d, E}}; // crate::x::y\nlet s = \"crate::q::r\"; crate::f::g(1);",
    );
    let paths: Vec<String> = paths_after(&code, "crate::")
        .into_iter()
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(paths, ["a::b", "a::c::d", "a::c::E", "f::g"]);
    let rooms = rooms();
    let path = |p: &str| p.split("::").map(str::to_string).collect::<Vec<_>>();
    assert_eq!(
        below_face(&path("connector::sync::run_sync"), &rooms),
        Some(("connector", "sync"))
    );
    assert_eq!(below_face(&path("connector::run_sync"), &rooms), None);
    // A function re-exported under its module's name is the face's.
    assert_eq!(
        below_face(&path("dataset_exporter::document_csv"), &rooms),
        None
    );
    assert_eq!(
        below_face(
            &path("dataset_exporter::document_csv::TABULAR_FORMATS"),
            &rooms
        ),
        Some(("dataset_exporter", "document_csv"))
    );
}
