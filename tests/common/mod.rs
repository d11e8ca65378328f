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

struct Broker {
    address: String,
    // Held so that the watchdog shell kills the broker when this process exits (stdin closes).
    _watchdog: Mutex<Child>,
}

/// The address of a broker started for this test binary, or None (with a message) when tansu is not
/// installed. With `ALTFLOW_REQUIRE_KAFKA=1` (set by scripts/test.sh and CI) a missing broker fails
/// the test instead.
pub fn kafka_broker() -> Option<String> {
    static BROKER: OnceLock<Option<Broker>> = OnceLock::new();
    BROKER
        .get_or_init(|| {
            let required = std::env::var("ALTFLOW_REQUIRE_KAFKA").is_ok_and(|v| v == "1");
            let Some(binary) = tansu_binary() else {
                assert!(!required, "tansu not found: run scripts/install-broker.sh");
                eprintln!("SKIPPED: no tansu broker (run scripts/install-broker.sh)");
                return None;
            };
            let port = free_port();
            let url = format!("tcp://127.0.0.1:{port}");
            // The shell kills the broker when our end of its stdin closes, i.e. when the tests exit,
            // however they exit.
            let script = format!(
                "'{}' broker --listener-url {url} --advertised-listener-url {url} \
                 --storage-engine memory://tansu/ >/dev/null 2>&1 & pid=$!; read _; kill $pid",
                binary.display()
            );
            let child = Command::new("sh")
                .arg("-c")
                .arg(script)
                .stdin(Stdio::piped())
                .spawn()
                .expect("starting tansu");
            let address = format!("127.0.0.1:{port}");
            let deadline = Instant::now() + Duration::from_secs(30);
            while TcpStream::connect(&address).is_err() {
                assert!(
                    Instant::now() < deadline,
                    "tansu did not listen on {address}"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
            Some(Broker {
                address,
                _watchdog: Mutex::new(child),
            })
        })
        .as_ref()
        .map(|b| b.address.clone())
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
