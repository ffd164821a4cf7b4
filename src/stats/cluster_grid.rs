//! The clustered interval's coverage grid and width table (tests only).
//!
//! Populations of C parent claims with 1-5 or 1-12 mutants each (uniform), a catch rate mu and an
//! intra-claim correlation rho: a claim's mutants are caught with its own probability p_i, drawn
//! from a beta law (beta-binomial outcomes) or a logit-normal one with mean mu and variance
//! rho mu (1 - mu); rho = 0 is independent cases. Each replication draws a suite and asks whether
//! the 95% interval holds mu. Seeded, so every run gives the same figures.
//!
//! `cargo test --lib stats::cluster_grid` runs the grid with few replications (a few seconds);
//! `cargo test --release --lib stats::cluster_grid -- --ignored --nocapture` prints the
//! The guide's figures (docs/src/concepts/gate-statistics.md): the grid with 2,000 replications a cell and the width table.

use super::cluster::{cluster_rate, cluster_rate_by_sizes};
use super::wilson;
use super::TestRng;

const RATES: [f64; 5] = [0.5, 0.8, 0.9, 0.95, 0.99];
const CLAIMS: [usize; 4] = [10, 20, 50, 100];
const MOST_MUTANTS: [u64; 2] = [5, 12];
const ICCS: [f64; 4] = [0.0, 0.1, 0.3, 0.6];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Effect {
    /// rho = 0: every case on its own.
    Independent,
    BetaBinomial,
    LogitNormal,
}

/// A number in (0, 1), never 0 (for logarithms).
fn open01(rng: &mut TestRng) -> f64 {
    loop {
        let u = rng.next_f64();
        if u > 0.0 && u < 1.0 {
            return u;
        }
    }
}

fn normal(rng: &mut TestRng) -> f64 {
    let (u, v) = (open01(rng), open01(rng));
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// log of a Gamma(shape, 1) draw (Marsaglia and Tsang; shapes below 1 by Gamma(a + 1) U^(1/a),
/// in logs so that tiny shapes do not underflow).
fn ln_gamma_draw(rng: &mut TestRng, shape: f64) -> f64 {
    if shape < 1.0 {
        return ln_gamma_draw(rng, shape + 1.0) + open01(rng).ln() / shape;
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(rng);
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = open01(rng);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return (d * v).ln();
        }
    }
}

fn expit(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The mean and variance of expit(b + sigma Z), Z standard normal (a fine trapezoid rule).
fn logit_normal_moments(b: f64, sigma: f64) -> (f64, f64) {
    let steps = 1200;
    let (lo, hi) = (-9.0f64, 9.0f64);
    let h = (hi - lo) / steps as f64;
    let (mut m1, mut m2) = (0.0, 0.0);
    for i in 0..=steps {
        let z = lo + h * i as f64;
        let w = if i == 0 || i == steps { 0.5 } else { 1.0 } * h * (-0.5 * z * z).exp()
            / (2.0 * std::f64::consts::PI).sqrt();
        let p = expit(b + sigma * z);
        m1 += w * p;
        m2 += w * p * p;
    }
    (m1, m2 - m1 * m1)
}

/// (b, sigma) of the logit-normal law with mean `mu` and correlation `rho` (variance
/// rho mu (1 - mu)), by bisection in each.
fn logit_normal_for(mu: f64, rho: f64) -> (f64, f64) {
    let b_for = |sigma: f64| {
        let (mut lo, mut hi) = (-60.0f64, 60.0f64);
        for _ in 0..60 {
            let mid = (lo + hi) / 2.0;
            if logit_normal_moments(mid, sigma).0 < mu {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        (lo + hi) / 2.0
    };
    let (mut lo, mut hi) = (0.0f64, 40.0f64);
    for _ in 0..40 {
        let mid = (lo + hi) / 2.0;
        let (_, var) = logit_normal_moments(b_for(mid), mid);
        if var / (mu * (1.0 - mu)) < rho {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let sigma = (lo + hi) / 2.0;
    (b_for(sigma), sigma)
}

/// [`logit_normal_for`] once per (rate, correlation): the grid asks for each many times.
fn logit_normal_cached(mu: f64, rho: f64) -> (f64, f64) {
    use std::collections::HashMap;
    use std::sync::Mutex;
    type Laws = HashMap<(u64, u64), (f64, f64)>;
    static CACHE: Mutex<Option<Laws>> = Mutex::new(None);
    let key = (mu.to_bits(), rho.to_bits());
    let mut cache = CACHE.lock().unwrap();
    *cache
        .get_or_insert_with(HashMap::new)
        .entry(key)
        .or_insert_with(|| logit_normal_for(mu, rho))
}

/// One population of the grid.
#[derive(Debug, Clone, Copy)]
struct Population {
    rate: f64,
    claims: usize,
    most_mutants: u64,
    icc: f64,
    effect: Effect,
    /// (b, sigma) for the logit-normal law.
    logit: (f64, f64),
}

impl Population {
    fn new(rate: f64, claims: usize, most_mutants: u64, icc: f64, effect: Effect) -> Population {
        let logit = if effect == Effect::LogitNormal {
            logit_normal_cached(rate, icc)
        } else {
            (0.0, 0.0)
        };
        Population {
            rate,
            claims,
            most_mutants,
            icc,
            effect,
            logit,
        }
    }

    /// A claim's catch probability.
    fn claim_rate(&self, rng: &mut TestRng) -> f64 {
        match self.effect {
            Effect::Independent => self.rate,
            Effect::BetaBinomial => {
                let scale = (1.0 - self.icc) / self.icc;
                let a = ln_gamma_draw(rng, self.rate * scale);
                let b = ln_gamma_draw(rng, (1.0 - self.rate) * scale);
                1.0 / (1.0 + (b - a).exp())
            }
            Effect::LogitNormal => expit(self.logit.0 + self.logit.1 * normal(rng)),
        }
    }

    /// One suite: (caught, mutants) per claim.
    fn draw(&self, rng: &mut TestRng) -> Vec<(u64, u64)> {
        (0..self.claims)
            .map(|_| {
                let m =
                    (1 + (rng.next_f64() * self.most_mutants as f64) as u64).min(self.most_mutants);
                let p = self.claim_rate(rng);
                let y = (0..m).filter(|_| rng.next_f64() < p).count() as u64;
                (y, m)
            })
            .collect()
    }
}

/// Every population of the grid: rates x claims x sizes x (independent, then each correlation
/// above 0 under both laws).
fn grid() -> Vec<Population> {
    let mut out = Vec::new();
    for &rate in &RATES {
        for &claims in &CLAIMS {
            for &most in &MOST_MUTANTS {
                for &icc in &ICCS {
                    if icc == 0.0 {
                        out.push(Population::new(
                            rate,
                            claims,
                            most,
                            0.0,
                            Effect::Independent,
                        ));
                    } else {
                        for effect in [Effect::BetaBinomial, Effect::LogitNormal] {
                            out.push(Population::new(rate, claims, most, icc, effect));
                        }
                    }
                }
            }
        }
    }
    out
}

/// Coverage and mean width of the three intervals over `reps` suites of one population.
#[derive(Debug, Clone, Copy)]
struct Cell {
    population: Population,
    /// (new clustered, clustered by sizes alone, plain Wilson)
    covered: [f64; 3],
    width: [f64; 3],
}

fn measure(population: Population, reps: usize, rng: &mut TestRng) -> Cell {
    let (mut covered, mut width) = ([0usize; 3], [0.0f64; 3]);
    for _ in 0..reps {
        let clusters = population.draw(rng);
        let k: u64 = clusters.iter().map(|c| c.0).sum();
        let n: u64 = clusters.iter().map(|c| c.1).sum();
        let new = cluster_rate(&clusters, 0.95);
        let intervals = [
            (new.ci_low, new.ci_high),
            cluster_rate_by_sizes(&clusters, 0.95),
            wilson(k, n, 0.95),
        ];
        for (i, (lo, hi)) in intervals.iter().enumerate() {
            covered[i] += usize::from(*lo <= population.rate && population.rate <= *hi);
            width[i] += hi - lo;
        }
    }
    Cell {
        population,
        covered: covered.map(|c| c as f64 / reps as f64),
        width: width.map(|w| w / reps as f64),
    }
}

fn run_grid(reps: usize, seed: u64) -> Vec<Cell> {
    let mut rng = TestRng(seed);
    grid()
        .into_iter()
        .map(|p| measure(p, reps, &mut rng))
        .collect()
}

/// The least coverage a 95% interval may show over `reps` replications: 0.95 less two Monte Carlo
/// standard errors.
fn floor(reps: usize) -> f64 {
    0.95 - 2.0 * (0.95 * 0.05 / reps as f64).sqrt()
}

fn label(p: &Population) -> String {
    let effect = match p.effect {
        Effect::Independent => "independent",
        Effect::BetaBinomial => "beta-binomial",
        Effect::LogitNormal => "logit-normal",
    };
    format!(
        "rate {:.2}, {:>3} claims of 1-{:<2}, icc {:.1} {effect}",
        p.rate, p.claims, p.most_mutants, p.icc
    )
}

fn report(cells: &[Cell], reps: usize) {
    eprintln!(
        "{} cells, {reps} replications each; floor 0.95 - 2 sqrt(0.95 0.05 / {reps}) = {:.4}",
        cells.len(),
        floor(reps)
    );
    for (i, name) in ["new clustered", "by sizes (before)", "plain Wilson"]
        .iter()
        .enumerate()
    {
        let low = cells
            .iter()
            .min_by(|a, b| a.covered[i].total_cmp(&b.covered[i]))
            .unwrap();
        let under = cells.iter().filter(|c| c.covered[i] < floor(reps)).count();
        let under_95 = cells.iter().filter(|c| c.covered[i] < 0.95).count();
        eprintln!(
            "{name:>18}: lowest {:.4} ({}); {under} cells under the floor, {under_95} under 0.95",
            low.covered[i],
            label(&low.population)
        );
    }
}

#[test]
fn the_clustered_interval_covers_its_level_in_every_cell_of_the_grid() {
    // 280 populations, 200 suites each: the floor is 0.95 - 2 sqrt(0.95 0.05 / 200) = 0.919
    let reps = 200;
    let cells = run_grid(reps, 20270118);
    report(&cells, reps);
    let floor = floor(reps);
    let under: Vec<String> = cells
        .iter()
        .filter(|c| c.covered[0] < floor)
        .map(|c| format!("{}: {:.3}", label(&c.population), c.covered[0]))
        .collect();
    assert!(under.is_empty(), "under {floor:.4}: {under:#?}");
}

/// The guide's grid: 2,000 replications a cell, the lowest coverage of each interval and the
/// cells under 95% (`-- --ignored --nocapture`, in release: about a minute).
#[test]
#[ignore = "a measurement for the guide, about a minute in release: cargo test --release --lib stats::cluster_grid -- --ignored --nocapture"]
fn coverage_grid_for_the_readme() {
    let reps = 2000;
    let cells = run_grid(reps, 20270116);
    report(&cells, reps);
    for c in &cells {
        if c.covered.iter().any(|x| *x < 0.95) {
            eprintln!(
                "{}: new {:.4}, by sizes {:.4}, Wilson {:.4}",
                label(&c.population),
                c.covered[0],
                c.covered[1],
                c.covered[2]
            );
        }
    }
    // the lowest cell of each layout, for the guide
    for &claims in &CLAIMS {
        for &most in &MOST_MUTANTS {
            let of: Vec<&Cell> = cells
                .iter()
                .filter(|c| c.population.claims == claims && c.population.most_mutants == most)
                .collect();
            let low = |i: usize| of.iter().map(|c| c.covered[i]).fold(1.0, f64::min);
            eprintln!(
                "| {claims} | 1-{most} | {:.3} | {:.3} | {:.3} |",
                low(0),
                low(1),
                low(2)
            );
        }
    }
}

/// The guide's width table: at correlation 0, the mean width of each interval per layout and
/// rate, and the clustered ones as multiples of plain Wilson (`-- --ignored --nocapture`).
#[test]
#[ignore = "a measurement for the guide: cargo test --release --lib stats::cluster_grid -- --ignored --nocapture"]
fn width_table_for_the_readme() {
    let reps = 2000;
    let mut rng = TestRng(20270117);
    println!(
        "| claims | mutants per claim | rate | plain Wilson | new clustered | by sizes (before) |"
    );
    println!("|---|---|---|---|---|---|");
    for &claims in &CLAIMS {
        for &most in &MOST_MUTANTS {
            for &rate in &RATES {
                let p = Population::new(rate, claims, most, 0.0, Effect::Independent);
                let c = measure(p, reps, &mut rng);
                println!(
                    "| {claims} | 1-{most} | {rate} | {:.3} | {:.3} ({:.2}x) | {:.3} ({:.2}x) |",
                    c.width[2],
                    c.width[0],
                    c.width[0] / c.width[2],
                    c.width[1],
                    c.width[1] / c.width[2]
                );
            }
        }
    }
}

#[test]
fn the_populations_have_the_rate_and_correlation_asked() {
    // the logit-normal law's moments, and the beta law's, checked by drawing
    let mut rng = TestRng(7);
    for (mu, rho) in [(0.8, 0.3), (0.99, 0.6), (0.5, 0.1)] {
        for effect in [Effect::BetaBinomial, Effect::LogitNormal] {
            let p = Population::new(mu, 10, 5, rho, effect);
            let draws: Vec<f64> = (0..40_000).map(|_| p.claim_rate(&mut rng)).collect();
            let mean = draws.iter().sum::<f64>() / draws.len() as f64;
            let var = draws.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / draws.len() as f64;
            let icc = var / (mu * (1.0 - mu));
            assert!(
                (mean - mu).abs() < 0.01,
                "{effect:?} {mu} {rho}: mean {mean}"
            );
            assert!((icc - rho).abs() < 0.05, "{effect:?} {mu} {rho}: icc {icc}");
        }
    }
}

/// The grid's hardest cells at 20,000 replications (Monte Carlo error about 0.0015), for both
/// clustered intervals (`-- --ignored --nocapture`, in release).
#[test]
#[ignore = "a measurement for the guide, in release: cargo test --release --lib stats::cluster_grid -- --ignored --nocapture"]
fn hardest_cells_at_twenty_thousand_replications() {
    let reps = 20_000;
    let mut rng = TestRng(20270119);
    for (rate, claims, most, icc, effect) in [
        (0.99, 20, 5, 0.6, Effect::LogitNormal),
        (0.99, 20, 5, 0.6, Effect::BetaBinomial),
        (0.99, 20, 12, 0.6, Effect::LogitNormal),
        (0.9, 100, 12, 0.6, Effect::BetaBinomial),
    ] {
        let c = measure(
            Population::new(rate, claims, most, icc, effect),
            reps,
            &mut rng,
        );
        eprintln!(
            "{}: new {:.4}, by sizes {:.4}, Wilson {:.4}",
            label(&c.population),
            c.covered[0],
            c.covered[1],
            c.covered[2]
        );
    }
}
