//! Liveness and readiness, served beside `/metrics` for an orchestrator's probes.
//!
//! - `/healthz` answers 200 whenever the process answers at all: it is served by the same runtime as
//!   the stages, so a wedged runtime fails it.
//! - `/readyz` answers 200 once every stage of the process has passed each of its [`Check`]s, and
//!   503 with the checks still waiting otherwise. A stage is ready when it has started (models
//!   loaded, output store reachable: whatever its `start` does) and its consumer has joined its
//!   group (on Kafka, the first assignment arrived, even an empty one).
//!
//! Each stage's state is also exported as the `altflow_ready{stage}` gauge, so that an alert can
//! tell a group with no ready member.

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::sync::lock;

/// What a stage must have done to be ready.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Check {
    /// The stage's `start` returned: its models are loaded and its store answered.
    Started,
    /// Its consumer joined its group.
    Joined,
}

impl Check {
    const ALL: [Check; 2] = [Check::Started, Check::Joined];

    fn as_str(self) -> &'static str {
        match self {
            Check::Started => "started",
            Check::Joined => "joined",
        }
    }
}

/// Checks passed, per stage.
static STATE: Mutex<BTreeMap<&'static str, BTreeMap<Check, bool>>> = Mutex::new(BTreeMap::new());

/// Registers `stage`, with every check waiting. Called before the stage starts, so that `/readyz`
/// does not answer 200 in the moment between the server's start and the stage's.
pub fn expect(stage: &'static str) {
    let mut state = lock(&STATE);
    state.insert(stage, Check::ALL.iter().map(|c| (*c, false)).collect());
    crate::metrics::ready(stage, false);
}

/// Records whether `stage` passes `check` now.
pub fn set(stage: &'static str, check: Check, passed: bool) {
    let mut state = lock(&STATE);
    let checks = state.entry(stage).or_default();
    if checks.insert(check, passed) != Some(passed) {
        let ready = Check::ALL
            .iter()
            .all(|c| checks.get(c).copied().unwrap_or(false));
        crate::metrics::ready(stage, ready);
    }
}

/// Whether every registered stage is ready (false when none is registered), and a line per check.
pub fn readiness() -> (bool, String) {
    let state = lock(&STATE);
    let mut ready = !state.is_empty();
    let mut report = String::new();
    for (stage, checks) in state.iter() {
        for check in Check::ALL {
            let passed = checks.get(&check).copied().unwrap_or(false);
            ready &= passed;
            let status = if passed { "ok" } else { "waiting" };
            report.push_str(&format!("{stage} {} {status}\n", check.as_str()));
        }
    }
    if state.is_empty() {
        report.push_str("no stage yet\n");
    }
    (ready, report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stage_is_ready_only_once_every_check_passed() {
        // Other tests of this binary may register stages too: use a name of our own and read only
        // its lines.
        let stage = "health-test";
        expect(stage);
        let line = |check: &str| {
            readiness()
                .1
                .lines()
                .find(|l| l.starts_with(&format!("{stage} {check} ")))
                .map(str::to_string)
        };
        assert_eq!(
            line("started").as_deref(),
            Some("health-test started waiting")
        );
        assert!(!readiness().0);
        set(stage, Check::Started, true);
        assert!(!readiness().0, "not joined yet");
        set(stage, Check::Joined, true);
        assert_eq!(line("joined").as_deref(), Some("health-test joined ok"));
        let ready_gauge = crate::metrics::render()
            .lines()
            .any(|l| l == "altflow_ready{stage=\"health-test\"} 1");
        assert!(ready_gauge);
        // A member that loses its group is not ready again until it rejoins.
        set(stage, Check::Joined, false);
        assert_eq!(
            line("joined").as_deref(),
            Some("health-test joined waiting")
        );
    }
}
