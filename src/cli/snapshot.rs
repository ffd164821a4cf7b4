//! `faithprobe snapshot accept|reject|pending`: decide on snapshot changes, as scripts do.

use clap::Subcommand;
use faithprobe::error::Exit;
use faithprobe::report::snapshot;
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
    /// Delete every `.snap.new` in the folder: the changes are rejected, the snapshots stay.
    Reject {
        /// The snapshot folder.
        #[arg(default_value = "snapshots")]
        dir: PathBuf,
    },
    /// List the `.snap.new` files waiting for a decision; exits 1 when there are any.
    Pending {
        /// The snapshot folder.
        #[arg(default_value = "snapshots")]
        dir: PathBuf,
    },
}

pub fn run(action: SnapshotAction) -> anyhow::Result<Exit> {
    let mut o = String::new();
    match action {
        SnapshotAction::Accept { dir } => {
            let done = snapshot::accept(&dir)?;
            if done.is_empty() {
                outln!(o, "no .snap.new files in {}", dir.display());
            }
            for p in done {
                outln!(o, "accepted {}", p.display());
            }
        }
        SnapshotAction::Reject { dir } => {
            let done = snapshot::reject(&dir)?;
            if done.is_empty() {
                outln!(o, "no .snap.new files in {}", dir.display());
            }
            for p in done {
                outln!(o, "rejected {}", p.display());
            }
        }
        SnapshotAction::Pending { dir } => {
            let pending = snapshot::pending(&dir)?;
            for p in &pending {
                outln!(o, "{}", p.display());
            }
            return super::out::emit_then(
                &o,
                if pending.is_empty() {
                    Exit::Ok
                } else {
                    Exit::GateFailed
                },
            );
        }
    }
    super::out::emit(&o)
}
