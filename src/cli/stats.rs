//! `faithprobe stats`: the quick sums. Reads no configuration.

use clap::Subcommand;
use faithprobe::error::{Error, Exit};
use faithprobe::report::fmt_rate;
use faithprobe::stats;

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
    /// The smallest drop in a catch rate that N paired cases detect with the gate's one-sided
    /// exact test (best case: the candidate only loses cases), or the power to detect a given drop.
    Power {
        /// Paired cases in the row (faults of a type, or faithful cases).
        #[arg(long)]
        n: u64,
        /// The level the row must meet (alpha, or alpha over the gating rows under Holm).
        #[arg(long, default_value_t = 0.05)]
        alpha: f64,
        /// The power wanted.
        #[arg(long, default_value_t = 0.8)]
        power: f64,
        /// Print the power to detect this drop instead.
        #[arg(long)]
        drop: Option<f64>,
        /// The share of cases the candidate also fixes (default 0: the best case, where no case
        /// improves; any fix makes a drop harder to see).
        #[arg(long, default_value_t = 0.0)]
        fix_rate: f64,
    },
    /// Labelled cases needed to pin a rate near P to within ±E: the smallest n from which every
    /// larger n meets the margin, and how often that many cases give it.
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
    let mut o = String::new();
    match what {
        StatsCommand::Wilson { k, n, confidence } => {
            super::check_confidence(confidence)?;
            if k > n {
                return Err(Error::Usage(format!("K ({k}) cannot exceed N ({n})")).into());
            }
            let r = stats::Rate::new(k, n, confidence);
            outln!(
                o,
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
            outln!(
                o,
                "b={b} c={c}  exact two-sided McNemar p = {} ({total} discordant pairs)",
                faithprobe::stats::fmt_p(stats::mcnemar_exact(b, c)),
            );
        }
        StatsCommand::Power {
            n,
            alpha,
            power,
            drop,
            fix_rate,
        } => {
            if !(0.0..1.0).contains(&fix_rate) {
                return Err(
                    Error::Usage(format!("--fix-rate {fix_rate} must be in [0, 1)")).into(),
                );
            }
            let case = if fix_rate > 0.0 {
                format!("when the candidate also fixes {fix_rate} of the cases")
            } else {
                "best case: no case improves; --fix-rate F for a candidate that also fixes some"
                    .to_string()
            };
            for (name, v) in [("--alpha", alpha), ("--power", power)] {
                if !(v > 0.0 && v < 1.0) {
                    return Err(Error::Usage(format!("{name} {v} must be between 0 and 1")).into());
                }
            }
            let need = stats::power::pairs_needed(alpha);
            match drop {
                Some(d) if (0.0..=1.0).contains(&d) => outln!(
                o,
                    "power {:.3} to detect a drop of {d} with {n} paired cases at alpha {alpha} (the gate's one-sided exact McNemar test; {case})",
                    stats::power::power_with_fixes(n, d, fix_rate, alpha)
                ),
                Some(d) => {
                    return Err(Error::Usage(format!("--drop {d} must be in [0, 1]")).into())
                }
                None => match stats::power::detectable_drop_with_fixes(n, fix_rate, alpha, power) {
                    Some(d) => outln!(
                o,
                        "{n} paired cases detect a drop of {} with power {power} at alpha {alpha} (the gate's one-sided exact McNemar test: at least {need} one-way discordant pairs; {case})",
                        sig3(d)
                    ),
                    None => outln!(
                o,
                        "{n} paired cases cannot detect any drop with power {power} at alpha {alpha}: the gate's one-sided exact McNemar test needs at least {need} one-way discordant pairs"
                    ),
                },
            }
        }
        StatsCommand::SampleSize {
            rate,
            margin,
            confidence,
        } => sample_size(&mut o, rate, margin, confidence)?,
    }
    super::out::emit(&o)
}

/// `stats sample-size`: the smallest n from which every larger n meets the margin, and the share
/// of outcomes that do at that n.
fn sample_size(o: &mut String, rate: f64, margin: f64, confidence: f64) -> anyhow::Result<()> {
    super::check_confidence(confidence)?;
    if !((0.0..=1.0).contains(&rate) && margin > 0.0 && margin < 1.0) {
        return Err(Error::Usage("--rate must be in [0, 1] and --margin in (0, 1)".into()).into());
    }
    let n = stats::sample_size(rate, margin, confidence);
    let share = stats::sample_size::share_meeting(rate, margin, confidence, n);
    outln!(
        o,
        "{n} labelled cases to pin a rate near {rate} to within ±{margin} at {}% confidence (every larger n meets it too, at the count the rate gives)",
        (confidence * 100.0).round()
    );
    outln!(
        o,
        "  at a true rate of {rate}, {:.1}% of the outcomes of {n} cases give a Wilson interval within ±{margin}",
        share * 100.0
    );
    Ok(())
}

/// A small figure to three significant figures (0.0823, 0.000934), never rounded to zero.
fn sig3(x: f64) -> String {
    if x <= 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let decimals = (2 - x.log10().floor() as i32).max(0) as usize;
    format!("{x:.decimals$}")
}
