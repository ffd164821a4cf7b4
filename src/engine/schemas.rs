//! The JSON Schemas faithprobe publishes in `schemas/`, generated from the serde types that read
//! each file (`schemars`, JSON Schema draft 7 for the widest editor support): a suite, the
//! config, a run record and a score record. Types whose `Deserialize` is written by hand give
//! their schema by hand too (`LabelRef`, the config's `mutators:`). A test holds the committed
//! files equal to these (`FAITHPROBE_UPDATE_SCHEMAS=1 cargo test --test main schemas` rewrites
//! them), and validates the shipped suites and configs against them.

use crate::answers::score::{ScoreRecord, SCORE_RECORD_VERSION};
use crate::engine::record::{Record, RECORD_VERSION};
use schemars::generate::SchemaSettings;
use schemars::{Schema, SchemaGenerator};

/// The first line of a YAML file that names its schema for editors (yaml-language-server).
pub const MODELINE_PREFIX: &str = "# yaml-language-server: $schema=";

/// Each published schema: its file name under `schemas/` and its text.
pub fn all() -> Vec<(&'static str, String)> {
    [
        (
            "suite.json",
            titled(
                crate::model::suite::schema::json_schema(generator()),
                "faithprobe suite",
                "A faithprobe suite: passages, the claims a person verified against them, labelled hard cases and reviews of generated mutants (see docs/src/reference/suite-format.md).",
            ),
        ),
        (
            "faithprobe.json",
            {
                let mut s = titled(
                    crate::engine::config::json_schema(generator()),
                    "faithprobe.yaml",
                    "faithprobe's config: named checkers, decomposers and mutators (see docs/src/how-to/checkers.md).",
                );
                // a file of comments only is an empty config
                s.insert("type".into(), serde_json::json!(["object", "null"]));
                s
            },
        ),
        (
            "run-record.json",
            record(
                generator().into_root_schema_for::<Record>(),
                "run",
                RECORD_VERSION,
                "faithprobe run record",
                "What `faithprobe run --record FILE.json` writes: every case of every suite with its verdict and outcome.",
            ),
        ),
        (
            "score-record.json",
            record(
                generator().into_root_schema_for::<ScoreRecord>(),
                "score",
                SCORE_RECORD_VERSION,
                "faithprobe score record",
                "What `faithprobe score LOG --record FILE.json` writes: every answer of a log with its claims and their verdicts.",
            ),
        ),
    ]
    .into_iter()
    .map(|(name, schema)| {
        let text = serde_json::to_string_pretty(&schema).expect("a schema is JSON");
        (name, text + "\n")
    })
    .collect()
}

fn generator() -> SchemaGenerator {
    SchemaSettings::draft07().into_generator()
}

fn titled(mut schema: Schema, title: &str, description: &str) -> Schema {
    schema.insert("title".into(), title.into());
    schema.insert("description".into(), description.into());
    schema
}

/// A record's schema: the type's, with the `type` tag (`run` or `score`) a record file carries
/// and its format version.
fn record(schema: Schema, tag: &str, version: u32, title: &str, description: &str) -> Schema {
    let mut schema = titled(schema, title, description);
    if let Some(props) = schema.get_mut("properties").and_then(|p| p.as_object_mut()) {
        props.insert(
            "type".into(),
            serde_json::json!({"const": tag, "description": "what the record is"}),
        );
        props.insert(
            "version".into(),
            serde_json::json!({"const": version, "description": "the record format's version"}),
        );
    }
    if let Some(required) = schema.get_mut("required").and_then(|r| r.as_array_mut()) {
        required.insert(0, "type".into());
    }
    schema
}
