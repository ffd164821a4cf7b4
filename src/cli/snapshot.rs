//! `faithprobe snapshot accept`: promote reviewed snapshot changes.

use clap::Subcommand;
use faithprobe::error::Exit;
use faithprobe::snapshot;
use std::path::PathBuf;

/// Manage snapshots.
#[derive(Subcommand)]
pub enum SnapshotAction {
    /// Promote every `.snap.new` in the folder over its `.snap`.
    Accept {
        /// The snapshot folder.
        #[arg(default_value = "snapshots")]
        dir: PathBuf,
    },
}

pub fn run(action: SnapshotAction) -> anyhow::Result<Exit> {
    let SnapshotAction::Accept { dir } = action;
    let done = snapshot::accept(&dir)?;
    let mut o = String::new();
    if done.is_empty() {
        outln!(o, "no .snap.new files in {}", dir.display());
    }
    for p in done {
        outln!(o, "accepted {}", p.display());
    }
    super::out::emit(&o)
}
