//! Shared test support: a real Kafka-protocol broker (tansu) started once per test binary, and
//! random names.

#![allow(dead_code)]

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// A random lowercase name with a prefix, for topics and groups.
pub fn random_name(prefix: &str) -> String {
    let suffix: String = (0..10)
        .map(|_| fastrand::alphanumeric().to_ascii_lowercase())
        .collect();
    format!("{prefix}-{suffix}")
}

/// A free TCP port on 127.0.0.1.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn tansu_binary() -> Option<PathBuf> {
    if let Ok(path) = std::env::var("ALTFLOW_TANSU") {
        return Some(PathBuf::from(path));
    }
    let local = root().join(".tools/bin/tansu");
    if local.exists() {
        return Some(local);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("tansu"))
            .find(|p| p.exists())
    })
}

/// A server process that dies with the tests: a shell runs it in the background and kills it when
/// its stdin (held open by us) closes, which happens when this process exits, however it exits.
struct Service {
    address: String,
    _watchdog: Mutex<Child>,
}

fn start_service(command: &str, port: u16) -> Service {
    let script = format!("{command} >/dev/null 2>&1 & pid=$!; read _; kill $pid");
    let child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .stdin(Stdio::piped())
        .spawn()
        .expect("starting sh");
    let address = format!("127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(&address).is_err() {
        assert!(
            Instant::now() < deadline,
            "`{command}` did not listen on {address}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Service {
        address,
        _watchdog: Mutex::new(child),
    }
}

/// Whether tests that need a service must fail, rather than skip, when it is missing
/// (`ALTFLOW_REQUIRE_SERVICES=1`, set by scripts/test.sh and CI).
fn services_required() -> bool {
    std::env::var("ALTFLOW_REQUIRE_SERVICES").is_ok_and(|v| v == "1")
}

/// The address of a Kafka-protocol broker (tansu) started for this test binary, or None when tansu is
/// not installed and services are not required.
pub fn kafka_broker() -> Option<String> {
    static BROKER: OnceLock<Option<Service>> = OnceLock::new();
    BROKER
        .get_or_init(|| {
            let Some(binary) = tansu_binary() else {
                assert!(
                    !services_required(),
                    "tansu not found: run scripts/install-broker.sh"
                );
                eprintln!("SKIPPED: no tansu broker (run scripts/install-broker.sh)");
                return None;
            };
            let port = free_port();
            let url = format!("tcp://127.0.0.1:{port}");
            Some(start_service(
                &format!(
                    "'{}' broker --listener-url {url} --advertised-listener-url {url} \
                     --storage-engine memory://tansu/",
                    binary.display()
                ),
                port,
            ))
        })
        .as_ref()
        .map(|b| b.address.clone())
}

/// The endpoint of an S3-API server (moto, from PyPI) started for this test binary, or None when it
/// is not installed and services are not required.
pub fn s3_endpoint() -> Option<String> {
    static S3: OnceLock<Option<Service>> = OnceLock::new();
    S3.get_or_init(|| {
        let installed = Command::new("moto_server")
            .arg("--help")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !installed {
            assert!(
                !services_required(),
                "moto_server not found: pip install 'moto[server]'"
            );
            eprintln!("SKIPPED: no S3 server (pip install 'moto[server]')");
            return None;
        }
        let port = free_port();
        Some(start_service(
            &format!("moto_server -H 127.0.0.1 -p {port}"),
            port,
        ))
    })
    .as_ref()
    .map(|s| format!("http://{}", s.address))
}

/// Creates `bucket` on the S3 server at `endpoint` (creating buckets is not object_store's business:
/// a plain S3 CreateBucket call).
pub fn create_bucket(endpoint: &str, bucket: &str) {
    let created = Command::new("python3")
        .args([
            "-c",
            "import sys, urllib.request as u; u.urlopen(u.Request(sys.argv[1], method='PUT'))",
        ])
        .arg(format!("{endpoint}/{bucket}"))
        .status()
        .unwrap();
    assert!(created.success(), "creating bucket {bucket}");
}

/// object_store options for the test S3 server at `endpoint`.
pub fn s3_options(endpoint: &str) -> Vec<(String, String)> {
    [
        ("aws_endpoint", endpoint),
        ("aws_allow_http", "true"),
        ("aws_region", "us-east-1"),
        ("aws_access_key_id", "test"),
        ("aws_secret_access_key", "test"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// librdkafka settings that make tests against a local broker quick to notice changes.
pub fn kafka_settings(brokers: &str) -> altflow::bus::kafka::KafkaSettings {
    let consumer = [
        ("session.timeout.ms", "6000"),
        ("heartbeat.interval.ms", "1000"),
        ("fetch.wait.max.ms", "100"),
    ];
    altflow::bus::kafka::KafkaSettings {
        brokers: brokers.to_string(),
        replication_factor: 1,
        commit_interval: Duration::from_millis(500),
        options: Default::default(),
        consumer_options: consumer
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        producer_options: Default::default(),
    }
}

/// Runs `altflow run PIPELINE` to completion and returns its funnel (stdout); fails the test if the
/// run fails.
pub fn run_funnel(pipeline: &std::path::Path) -> String {
    let stdout = stdout_of(
        Command::new(env!("CARGO_BIN_EXE_altflow"))
            .arg("run")
            .arg(pipeline),
    );
    String::from_utf8_lossy(&stdout).into_owned()
}

/// The words of `stage`'s row of a funnel: name, in, out, rejected, then `reason=count` entries.
pub fn funnel_row(funnel: &str, stage: &str) -> Vec<String> {
    funnel
        .lines()
        .find(|l| l.trim_start().starts_with(stage))
        .unwrap_or_else(|| panic!("no {stage} row in\n{funnel}"))
        .split_whitespace()
        .map(String::from)
        .collect()
}

/// Runs `command`, fails the test with its stderr unless it succeeds, and returns its stdout.
pub fn stdout_of(command: &mut Command) -> Vec<u8> {
    let output = command.output().expect("starting a command");
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}
