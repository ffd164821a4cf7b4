//! The rows a gate decides on, by name.

use serde::Serialize;

/// One row of a suite comparison. The order is the order of the report: false alarms and
/// invariance, each fault type by name, then all faults.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum RowKey {
    FalseAlarms,
    Invariance,
    FaultType(String),
    AllFaults,
}

impl RowKey {
    /// The row's name as reports print it.
    pub fn name(&self) -> String {
        match self {
            RowKey::FalseAlarms => "false alarms".into(),
            RowKey::Invariance => "invariance".into(),
            RowKey::FaultType(t) => t.clone(),
            RowKey::AllFaults => "all faults".into(),
        }
    }

    /// Whether the row counts faithful cases (a rate where lower is better).
    pub fn faithful(&self) -> bool {
        matches!(self, RowKey::FalseAlarms | RowKey::Invariance)
    }
}

/// A row's name as `--gate-on` spells it: `false_alarms`, `invariance`, `all_faults`, or the
/// fault type.
pub fn row_key(group: &str) -> String {
    group.replace(' ', "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_sort_as_the_report_prints_them() {
        let mut keys = [
            RowKey::AllFaults,
            RowKey::FaultType("number_swap".into()),
            RowKey::Invariance,
            RowKey::FaultType("date_shift".into()),
            RowKey::FalseAlarms,
        ];
        keys.sort();
        let names: Vec<String> = keys.iter().map(RowKey::name).collect();
        assert_eq!(
            names,
            [
                "false alarms",
                "invariance",
                "date_shift",
                "number_swap",
                "all faults"
            ]
        );
        assert_eq!(row_key("all faults"), "all_faults");
    }
}
