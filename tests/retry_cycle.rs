//! The fetch ↔ retry cycle never deadlocks: fetch parks transient failures on the retry topic and
//! the retry stage sends them back to fetch's input, so if both waited on a full topic of the
//! other, neither would ever read again. Hosts that are down (connection refused) or whose
//! robots.txt answers 503 fail every record transiently, many times over. The retry stage's memory
//! budget is zero here, so every parked record waits on disk (its spill files) and comes back from
//! there.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Many more transiently failing URLs than the bus holds per partition, with short backoffs, so that
/// both sides of the cycle fill up many times over.
#[test]
fn a_run_on_hosts_that_are_down_finishes() {
    const URLS: usize = 3000;
    let dir = tempfile::tempdir().unwrap();
    // One host whose robots.txt answers 503 (overloaded), three that refuse connections (down).
    let port = common::serve(BTreeMap::from([(
        "/robots.txt",
        (503, vec![], b"busy".to_vec()),
    )]));
    let hosts = [
        "127.0.0.1".to_string(),
        "127.0.0.2".to_string(),
        "127.0.0.3".to_string(),
        "127.0.0.4".to_string(),
    ];
    let mut list = String::from("url,caption\n");
    for n in 0..URLS {
        let host = &hosts[n % hosts.len()];
        list += &format!("http://{host}:{port}/img/{n}.jpg,a red boat on a lake\n");
    }
    std::fs::write(dir.path().join("list.csv"), list).unwrap();
    let pipeline = dir.path().join("p.toml");
    std::fs::write(
        &pipeline,
        format!(
            r#"stages = ["filter", "fetch", "write", "retry"]
[bus]
kind = "embedded"
partitions = 2
capacity = 16
[http]
allow_networks = ["127.0.0.0/8"]
min_host_delay = "0ms"
[retry]
max_attempts = 4
base_delay = "5ms"
max_delay = "20ms"
memory_mb = 0
spill_dir = "spill"
[[url_lists]]
path = "list.csv"
url_column = "url"
caption_column = "caption"
[write]
output = {:?}
"#,
            dir.path().join("out").to_str().unwrap()
        ),
    )
    .unwrap();
    let log_file = std::fs::File::create(dir.path().join("run.log")).unwrap();
    let mut run = common::Proc {
        name: "run",
        child: std::process::Command::new(env!("CARGO_BIN_EXE_altflow"))
            .arg("run")
            .arg(&pipeline)
            .current_dir(dir.path())
            .stdout(std::process::Stdio::piped())
            .stderr(log_file)
            .spawn()
            .unwrap(),
    };
    let started = Instant::now();
    let limit = Duration::from_secs(240);
    let status = loop {
        if let Some(status) = run.child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let log = std::fs::read_to_string(dir.path().join("run.log")).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(20).collect();
            panic!(
                "altflow run did not finish in {limit:?} on {URLS} transiently failing URLs \
                 (a deadlocked cycle); log tail:\n{}",
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let log = std::fs::read_to_string(dir.path().join("run.log")).unwrap_or_default();
    assert!(status.success(), "altflow run failed: {log}");
    let mut funnel = String::new();
    std::io::Read::read_to_string(run.child.stdout.as_mut().unwrap(), &mut funnel).unwrap();
    // Every URL ends as a rejection of fetch once its attempts are spent, none is lost on the way.
    let fetch = common::funnel_row(&funnel, "fetch");
    assert_eq!(fetch[2..4], ["0", &URLS.to_string()], "{funnel}");
    // The spill files went with the run: their folder is empty.
    let spill: Vec<_> = std::fs::read_dir(dir.path().join("spill"))
        .expect("the retry stage checked its spill folder at start")
        .collect();
    assert!(spill.is_empty(), "left behind: {spill:?}");
}
