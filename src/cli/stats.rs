//! `faithgate stats`: the quick sums. Reads no configuration.

use clap::Subcommand;
use faithgate::error::{Error, Exit};
use faithgate::report::fmt_rate;
use faithgate::stats;

/// Quick sums: Wilson intervals, exact McNemar p-values, sample sizes.
#[derive(Subcommand)]
pub enum StatsCommand {
    /// Wilson interval for K successes in N trials.
    Wilson {
        /// Successes.
        k: u64,
        /// Trials.
        n: u64,
        /// Confidence level (between 0 and 1).
        #[arg(long, default_value_t = 0.95)]
        confidence: f64,
    },
    /// Exact two-sided McNemar p-value for B and C discordant pairs.
    Mcnemar {
        /// Pairs bad in the base and good in the candidate.
        b: u64,
        /// Pairs good in the base and bad in the candidate.
        c: u64,
    },
    /// Labelled cases needed to pin a rate near P to within ±E.
    SampleSize {
        /// The rate you expect (0 to 1).
        #[arg(long)]
        rate: f64,
        /// The half-width you want (0 to 1).
        #[arg(long)]
        margin: f64,
        /// Confidence level (between 0 and 1).
        #[arg(long, default_value_t = 0.95)]
        confidence: f64,
    },
}

pub fn run(what: StatsCommand) -> anyhow::Result<Exit> {
    match what {
        StatsCommand::Wilson { k, n, confidence } => {
            super::check_confidence(confidence)?;
            if k > n {
                return Err(Error::Usage(format!("K ({k}) cannot exceed N ({n})")).into());
            }
            let r = stats::Rate::new(k, n, confidence);
            println!(
                "{k}/{n}  rate {}  {}% Wilson interval [{:.4}, {:.4}]",
                fmt_rate(r.rate),
                (confidence * 100.0).round(),
                r.ci_low,
                r.ci_high
            );
        }
        StatsCommand::Mcnemar { b, c } => {
            let total = b.checked_add(c).filter(|t| *t <= stats::MAX_DISCORDANT);
            let Some(total) = total else {
                return Err(Error::Usage(format!(
                    "B + C ({b} + {c}) is more than {} discordant pairs, the most counted exactly",
                    stats::MAX_DISCORDANT
                ))
                .into());
            };
            println!(
                "b={b} c={c}  exact two-sided McNemar p = {:.4} ({total} discordant pairs)",
                stats::mcnemar_exact(b, c),
            );
        }
        StatsCommand::SampleSize {
            rate,
            margin,
            confidence,
        } => {
            super::check_confidence(confidence)?;
            if !((0.0..=1.0).contains(&rate) && margin > 0.0 && margin < 1.0) {
                return Err(
                    Error::Usage("--rate must be in [0, 1] and --margin in (0, 1)".into()).into(),
                );
            }
            println!(
                "{} labelled cases to pin a rate near {rate} to within ±{margin} at {}% confidence",
                stats::sample_size(rate, margin, confidence),
                (confidence * 100.0).round()
            );
        }
    }
    Ok(Exit::Ok)
}
