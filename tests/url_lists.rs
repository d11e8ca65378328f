//! URL lists (CSV, JSONL, Parquet, configurable columns) feed a pipeline without a crawl stage.

mod common;

use std::process::Command;

#[test]
fn url_lists_in_three_formats_feed_filter_fetch_write() {
    let dir = tempfile::tempdir().unwrap();
    let port = common::free_port();
    let base = format!("http://127.0.0.1:{port}/img");
    std::fs::write(
        dir.path().join("list.csv"),
        format!(
            "image,text\n{base}/sunset-sea.jpg,\"an orange sun, setting over the sea\"\n{base}/missing.jpg,a picture that is not there\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("list.jsonl"),
        format!(
            "{{\"image\":\"{base}/red-boat.jpg\",\"text\":\"a red boat on a lake\"}}\n{{\"image\":\"{base}/snowman.jpg\",\"text\":\"snowman\"}}\n"
        ),
    )
    .unwrap();
    let parquet = dir.path().join("list.parquet");
    let made = Command::new("python3")
        .args([
            "-c",
            "import sys, pyarrow as pa, pyarrow.parquet as pq; \
             pq.write_table(pa.table({'image': [sys.argv[2] + '/rainbow.jpg', sys.argv[2] + '/lighthouse.jpg'], \
             'text': ['a rainbow over green fields', 'a striped lighthouse on the coast']}), sys.argv[1])",
            parquet.to_str().unwrap(),
            &base,
        ])
        .status()
        .unwrap();
    assert!(
        made.success(),
        "pyarrow is needed (scripts/test.sh installs it)"
    );

    let pipeline = dir.path().join("p.toml");
    let lists: String = ["list.csv", "list.jsonl", "list.parquet"]
        .iter()
        .map(|f| {
            format!(
                "[[url_lists]]\npath = \"{f}\"\nurl_column = \"image\"\ncaption_column = \"text\"\n"
            )
        })
        .collect();
    std::fs::write(
        &pipeline,
        format!(
            r#"stages = ["filter", "fetch", "write"]
[bus]
kind = "embedded"
[sample_site]
dir = {:?}
listen = "127.0.0.1:{port}"
[http]
allow_networks = ["127.0.0.0/8"]
min_host_delay = "0ms"
[write]
output = {:?}
{lists}"#,
            common::root().join("examples/site").to_str().unwrap(),
            dir.path().join("out").to_str().unwrap(),
        ),
    )
    .unwrap();
    let funnel = common::run_funnel(&pipeline);
    let row = |stage: &str| common::funnel_row(&funnel, stage);
    // 6 rows in: one caption too short, one image missing, four written.
    assert_eq!(row("filter")[1..3], ["6", "5"], "{funnel}");
    assert!(
        row("filter").iter().any(|r| r == "too_few_words=1"),
        "{funnel}"
    );
    assert!(row("fetch").iter().any(|r| r == "http_4xx=1"), "{funnel}");
    assert_eq!(row("write")[2], "4", "{funnel}");
}
