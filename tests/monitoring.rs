//! The dashboard and the alert rules name only metrics that altflow exports.

mod common;

use std::collections::BTreeSet;

/// Every `altflow_…` metric name in `text`, histogram series suffixes taken off when the base name
/// is exported.
fn names_in(text: &str, exported: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("altflow_") {
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
            .unwrap_or(tail.len());
        let name = &tail[..end];
        let base = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|suffix| name.strip_suffix(suffix))
            .filter(|base| exported.contains(*base))
            .unwrap_or(name);
        found.insert(base.to_string());
        rest = &tail[end..];
    }
    found
}

#[test]
fn dashboards_and_alerts_name_only_exported_metrics() {
    let exported: BTreeSet<String> = altflow::metrics::names().into_iter().collect();
    assert!(exported.contains("altflow_consumer_lag"), "{exported:?}");
    let mut used = BTreeSet::new();
    for file in [
        "monitoring/grafana/altflow.json",
        "monitoring/prometheus/alerts.yml",
    ] {
        let text = std::fs::read_to_string(common::root().join(file)).unwrap();
        let names = names_in(&text, &exported);
        assert!(!names.is_empty(), "{file} names no altflow metric");
        let unknown: Vec<&String> = names.difference(&exported).collect();
        assert!(
            unknown.is_empty(),
            "{file} names metrics altflow does not export: {unknown:?}"
        );
        used.extend(names);
    }
    // The panels and rules cover what an operator watches first.
    for needed in [
        "altflow_consumer_lag",
        "altflow_records_in_total",
        "altflow_rejected_total",
        "altflow_last_shard_timestamp_seconds",
        "altflow_ready",
    ] {
        assert!(used.contains(needed), "nothing watches {needed}");
    }
}
