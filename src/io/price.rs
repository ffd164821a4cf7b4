//! What LLM calls cost: a model's price from `prices:` in faithprobe.yaml (nothing is
//! hard-coded), and the process's budget (`--max-cost`) that online calls and batch
//! submissions are both held to.

use std::sync::Mutex;

/// A model's price in the user's currency per million tokens (`prices:` in faithprobe.yaml;
/// nothing is hard-coded).
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input_per_million: f64,
    pub output_per_million: f64,
    /// The share of the price a provider's batch API charges (e.g. 0.5), for batch mode.
    #[serde(default)]
    pub batch_discount: Option<f64>,
}

impl Price {
    /// What `prompt` and `completion` tokens cost.
    pub fn cost(&self, prompt: u64, completion: u64) -> f64 {
        (prompt as f64 * self.input_per_million + completion as f64 * self.output_per_million) / 1e6
    }

    /// What they cost through a provider's batch API: the price times `batch_discount` (the
    /// full price when the table gives no discount).
    pub fn batch_cost(&self, prompt: u64, completion: u64) -> f64 {
        self.cost(prompt, completion) * self.batch_discount.unwrap_or(1.0)
    }
}

/// The run's budget (`--max-cost`) and what every LLM client of the process spent against it.
pub(crate) struct Budget {
    pub(crate) max: Option<f64>,
    pub(crate) spent: f64,
}

pub(crate) static BUDGET: Mutex<Budget> = Mutex::new(Budget {
    max: None,
    spent: 0.0,
});

/// Sets the process's budget for LLM calls (`--max-cost`); None: no budget.
pub fn set_max_cost(max: Option<f64>) {
    if let Ok(mut b) = BUDGET.lock() {
        b.max = max;
        b.spent = 0.0;
    }
}

/// The process's budget (`--max-cost`), if one is set.
pub fn max_cost() -> Option<f64> {
    BUDGET.lock().ok().and_then(|b| b.max)
}

/// What the process's LLM calls have cost so far, by the prices of their models.
pub fn spent() -> f64 {
    BUDGET.lock().map(|b| b.spent).unwrap_or(0.0)
}

/// The completion tokens a verdict on one claim is taken to cost in an estimate.
pub const ESTIMATED_COMPLETION_TOKENS_PER_CLAIM: u64 = 40;

/// The characters a prompt token is taken to hold in an estimate.
pub const ESTIMATED_CHARS_PER_TOKEN: usize = 4;
