//! `faithprobe merge`: joins the records of `--shard 1/N` ... `--shard N/N` into one.

use clap::Args;
use faithprobe::engine::record::AnyRecord;
use faithprobe::error::Exit;
use std::path::PathBuf;

/// Join the shard records of a sharded `run` or `score` (`--shard K/N --record FILE`) into the
/// record the unsharded command would have written, for `compare`, `sweep` and `report`.
#[derive(Args)]
pub struct MergeArgs {
    /// The shard records, in any order: every shard 1/N..N/N exactly once.
    #[arg(required = true)]
    pub records: Vec<PathBuf>,
    /// Where to write the merged record.
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(args: MergeArgs) -> anyhow::Result<Exit> {
    let inputs: Vec<(&str, &std::path::Path)> = args
        .records
        .iter()
        .map(|p| ("a shard record", p.as_path()))
        .collect();
    faithprobe::io::paths::check_outputs(&inputs, &[("--out", &args.out)])?;
    let merged = faithprobe::engine::merge::merge_files(&args.records)?;
    let what = match &merged {
        AnyRecord::Score(s) => format!("{} answers", s.answers.len()),
        AnyRecord::Run(r) => format!(
            "{} cases over {} suite(s)",
            r.runs.iter().map(|x| x.cases.len()).sum::<usize>(),
            r.runs.len()
        ),
    };
    merged.write(&args.out)?;
    errln!(
        "merged {} shard records ({what}) into {}",
        args.records.len(),
        args.out.display()
    );
    Ok(Exit::Ok)
}
