//! The `cascade` checker: every claim goes to the front checker; claims it does not clearly
//! support (score below `route_below`, or flagged) go to the back checker, whose verdict stands.
//! With `settle_below`, claims the front rejects with a score under it are settled without the
//! back checker: the confident ends are cheap, the uncertain middle goes to the judge.
//!
//! Claims the front checker wrongly passes never reach the back one, so a cascade inherits the
//! front's blind spots; the run reports catch rates for the cascade as a whole.

use super::{CheckError, CheckInput, CheckResult, Checker, ClaimToCheck};
use std::collections::BTreeMap;
use std::sync::Mutex;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Routing {
    pub claims: usize,
    pub front_passed: usize,
    pub front_rejected: usize,
    pub to_back: usize,
}

pub struct CascadeChecker {
    name: String,
    front: Box<dyn Checker>,
    back: Box<dyn Checker>,
    route_below: f64,
    settle_below: Option<f64>,
    routing: Mutex<Routing>,
}

impl CascadeChecker {
    pub fn new(
        name: &str,
        front: Box<dyn Checker>,
        back: Box<dyn Checker>,
        route_below: f64,
        settle_below: Option<f64>,
    ) -> Self {
        CascadeChecker {
            name: name.to_string(),
            front,
            back,
            route_below,
            settle_below,
            routing: Mutex::new(Routing::default()),
        }
    }

    /// Whether front and back are one configured checker.
    fn same_checker(&self) -> bool {
        self.front.name() == self.back.name() && self.front.kind() == self.back.kind()
    }

    /// How the last run was routed.
    pub fn routing(&self) -> Routing {
        self.routing.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Checker for CascadeChecker {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> &'static str {
        "cascade"
    }

    fn settings(&self) -> BTreeMap<String, String> {
        let mut s = BTreeMap::from([
            (
                "front".to_string(),
                format!("{} ({})", self.front.name(), self.front.kind()),
            ),
            (
                "back".to_string(),
                format!("{} ({})", self.back.name(), self.back.kind()),
            ),
            ("route_below".to_string(), format!("{}", self.route_below)),
        ]);
        if let Some(t) = self.settle_below {
            s.insert("settle_below".into(), format!("{t}"));
        }
        // a back checker that is the front checker is described once (a chain of cascades over
        // one checker would otherwise double its settings at every level)
        let subs: Vec<(&str, &dyn Checker)> = if self.same_checker() {
            vec![("front.", self.front.as_ref())]
        } else {
            vec![
                ("front.", self.front.as_ref()),
                ("back.", self.back.as_ref()),
            ]
        };
        for (prefix, c) in &subs {
            for (k, v) in c.settings() {
                s.insert(format!("{prefix}{k}"), v);
            }
        }
        s
    }

    fn start_notes(&self) {
        if let Ok(mut r) = self.routing.lock() {
            *r = Routing::default();
        }
        self.front.start_notes();
        if !self.same_checker() {
            self.back.start_notes();
        }
    }

    fn cost(&self) -> Option<Result<f64, String>> {
        let back = if self.same_checker() {
            None
        } else {
            self.back.cost()
        };
        match (self.front.cost(), back) {
            (None, None) => None,
            (Some(Err(m)), _) | (_, Some(Err(m))) => Some(Err(m)),
            (a, b) => Some(Ok(
                a.and_then(Result::ok).unwrap_or(0.0) + b.and_then(Result::ok).unwrap_or(0.0)
            )),
        }
    }

    fn notes(&self) -> Vec<String> {
        let r = self.routing();
        let mut out = vec![format!(
            "{}: {} claims; the front checker ({}) settled {} as supported and {} as rejected; the back checker ({}) saw {} ({:.0}%); alone it would have seen all {}",
            self.name,
            r.claims,
            self.front.name(),
            r.front_passed,
            r.front_rejected,
            self.back.name(),
            r.to_back,
            if r.claims > 0 { 100.0 * r.to_back as f64 / r.claims as f64 } else { 0.0 },
            r.claims
        )];
        out.extend(self.front.notes());
        if !self.same_checker() {
            out.extend(self.back.notes());
        }
        out
    }

    fn check(&self, input: &CheckInput<'_>, progress: &mut dyn FnMut(usize)) -> Vec<CheckResult> {
        let n = input.claims.len();
        let front = self.front.check(input, &mut |d| progress(d / 2));
        // the same checker as back: its verdicts on the routed claims are the ones it just gave
        // (checking them again costs as much and says the same), so a chain of cascades over one
        // checker costs one pass per level, not two
        let again: Option<Vec<CheckResult>> = self.same_checker().then(|| front.clone());
        let mut routing = Routing {
            claims: n,
            ..Default::default()
        };
        let mut routed = Vec::new();
        let mut out: Vec<Option<CheckResult>> = vec![None; n];
        for (i, r) in front.into_iter().enumerate() {
            match r {
                Ok(v) => {
                    let score = v.score.unwrap_or(0.0);
                    let flagged = v.label.flagged();
                    if flagged && self.settle_below.is_some_and(|t| score < t) {
                        routing.front_rejected += 1;
                        out[i] = Some(Ok(v));
                    } else if flagged || score < self.route_below {
                        routed.push(i);
                    } else {
                        routing.front_passed += 1;
                        out[i] = Some(Ok(v));
                    }
                }
                // the front could not score it: the back checker decides
                Err(_) => routed.push(i),
            }
        }
        routing.to_back = routed.len();
        if let Ok(mut r) = self.routing.lock() {
            r.claims += routing.claims;
            r.front_passed += routing.front_passed;
            r.front_rejected += routing.front_rejected;
            r.to_back += routing.to_back;
        }
        if !routed.is_empty() {
            let sub = CheckInput {
                contexts: input.contexts,
                entities: input.entities,
                claims: routed
                    .iter()
                    .map(|&i| ClaimToCheck {
                        context: input.claims[i].context,
                        text: input.claims[i].text,
                    })
                    .collect(),
            };
            let back = match &again {
                Some(front) => routed.iter().map(|&i| front[i].clone()).collect(),
                None => self.back.check(&sub, &mut |d| {
                    progress(n / 2 + d * (n - n / 2) / routed.len().max(1))
                }),
            };
            for (&i, r) in routed.iter().zip(back) {
                out[i] = Some(r.map(|mut v| {
                    v.reason = format!("routed to {}: {}", self.back.name(), v.reason);
                    v
                }));
            }
        }
        progress(n);
        out.into_iter()
            .map(|r| r.unwrap_or(Err(CheckError::NoVerdict)))
            .collect()
    }
}

/// `kind: cascade` settings.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "cascade settings: `front`, `back`, `route_below` and optional `settle_below`"
)]
pub struct CascadeConfig {
    pub front: String,
    pub back: String,
    pub route_below: Option<f64>,
    pub settle_below: Option<f64>,
}

impl CascadeConfig {
    /// The settings' own checks; that `front` and `back` exist and form no loop is the config's.
    pub fn validate(&self) -> Result<(), super::SettingsProblem> {
        super::unit("route_below", self.route_below)?;
        super::unit("settle_below", self.settle_below)
    }
}
