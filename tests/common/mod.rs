//! Shared test support: a real Kafka-protocol broker (tansu) started once per test binary, and
//! random names.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
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

/// The tansu binary: `ALTFLOW_TANSU`, `.tools/bin/tansu`, or on the `PATH`.
pub fn tansu_binary() -> Option<PathBuf> {
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
pub fn services_required() -> bool {
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
        // altflow's default, which tansu needs (KafkaSettings::leave_group_on_close).
        leave_group_on_close: false,
        options: Default::default(),
        consumer_options: consumer
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        producer_options: Default::default(),
    }
}

/// The longest an `altflow run` of a test may take: far past any test's run, so that one that
/// hangs (stages waiting on each other) fails the test instead of the whole CI run.
const RUN_LIMIT: Duration = Duration::from_secs(300);

/// Runs `altflow run PIPELINE` to completion and returns its funnel (stdout); fails the test if the
/// run fails or has not ended within [`RUN_LIMIT`].
pub fn run_funnel(pipeline: &std::path::Path) -> String {
    use std::io::Read as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_altflow"))
        .arg("run")
        .arg(pipeline)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting altflow run");
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + RUN_LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            let log = stderr.join().unwrap_or_default();
            let tail = &log[log.floor_char_boundary(log.len().saturating_sub(4000))..];
            panic!("altflow run {pipeline:?} did not end in {RUN_LIMIT:?}:\n{tail}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let log = stderr.join().unwrap_or_default();
    assert!(status.success(), "altflow run {pipeline:?} failed: {log}");
    stdout.join().unwrap_or_default()
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

/// A canned response: status, extra headers, body.
pub type Response = (u16, Vec<(&'static str, &'static str)>, Vec<u8>);

/// Serves a fixed site, a thread per connection; returns its port. Paths starting with `/flaky/`
/// answer 500 the first time they are asked for; paths starting with `/slow/` answer after 3 s,
/// and those starting with `/paced/` after 100 ms (a stream that lasts long enough to be hit
/// mid-way).
pub fn serve(routes: BTreeMap<&'static str, Response>) -> u16 {
    serve_site(|_| routes)
}

/// [`serve`], with routes made once the server's address is known: `site` gets its base URL
/// (`http://127.0.0.1:PORT`), for bodies that hold absolute URLs of the site itself.
pub fn serve_site(site: impl FnOnce(&str) -> BTreeMap<&'static str, Response>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let routes = std::sync::Arc::new(site(&format!("http://127.0.0.1:{port}")));
    let failed_once = std::sync::Arc::new(std::sync::Mutex::new(
        std::collections::HashSet::<String>::new(),
    ));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let (routes, failed_once) = (routes.clone(), failed_once.clone());
            std::thread::spawn(move || {
                // Bytes, not text: a TLS ClientHello sent to this plain server gets an HTTP answer.
                let mut request_line = Vec::new();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                if reader.read_until(b'\n', &mut request_line).is_err() {
                    return;
                }
                // Drain the headers (a TLS record, starting with 0x16, has none to wait for).
                let mut line = Vec::new();
                while request_line.first() != Some(&0x16)
                    && reader.read_until(b'\n', &mut line).is_ok_and(|n| n > 2)
                {
                    line.clear();
                }
                let request_line = String::from_utf8_lossy(&request_line);
                let path = request_line
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or("/")
                    .to_string();
                if path.starts_with("/slow/") {
                    std::thread::sleep(std::time::Duration::from_secs(3));
                }
                if path.starts_with("/paced/") {
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                let (status, headers, body) = if path.starts_with("/flaky/")
                    && failed_once.lock().unwrap().insert(path.clone())
                {
                    (500, vec![], b"try again".to_vec())
                } else {
                    routes.get(path.as_str()).cloned().unwrap_or((
                        404,
                        vec![],
                        b"not found".to_vec(),
                    ))
                };
                let mut response = format!(
                    "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n",
                    body.len()
                );
                for (name, value) in headers {
                    response += &format!("{name}: {value}\r\n");
                }
                response += "\r\n";
                let _ = stream.write_all(response.as_bytes());
                let _ = stream.write_all(&body);
            });
        }
    });
    port
}

/// Writes a pipeline crawling the site served on `port` into `dir/out`: `stages` is the list's
/// content, `sections` the tables between `[crawl]`'s seeds and `[write]`, `write` more `[write]` keys.
pub fn site_pipeline(
    dir: &std::path::Path,
    port: u16,
    stages: &str,
    sections: &str,
    write: &str,
) -> std::path::PathBuf {
    let pipeline = dir.join("p.toml");
    let out = dir.join("out");
    std::fs::write(
        &pipeline,
        format!(
            "stages = [{stages}]\n[bus]\nkind = \"embedded\"\n[crawl]\n\
             seeds = [\"http://127.0.0.1:{port}/index.html\"]\n{sections}[write]\noutput = {:?}\n{write}",
            out.to_str().unwrap()
        ),
    )
    .unwrap();
    pipeline
}

/// A smooth gradient JPEG of the given size.
pub fn jpeg(width: u32, height: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(width, height, |x, y| image::Rgb([x as u8, y as u8, 99]));
    altflow::imaging::encode_jpeg(&img, 80).unwrap()
}

/// Every sample of every shard under `out` as `altflow inspect --json` prints it (`key`, `caption`,
/// `jpg_bytes`, `meta`).
pub fn shard_samples(out: &std::path::Path) -> Vec<serde_json::Value> {
    let mut samples = Vec::new();
    for entry in std::fs::read_dir(out).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "tar") {
            continue;
        }
        let printed = stdout_of(
            Command::new(env!("CARGO_BIN_EXE_altflow"))
                .arg("inspect")
                .arg(&path)
                .arg("--json"),
        );
        for line in String::from_utf8_lossy(&printed).lines() {
            samples.push(serde_json::from_str(line).unwrap());
        }
    }
    samples
}

/// A child process that is killed if the test panics.
pub struct Proc {
    /// Its name, for messages and its log file (`NAME.log`).
    pub name: &'static str,
    /// The process.
    pub child: Child,
}

impl Proc {
    /// Starts `altflow ARGS` in `dir`, its stderr into `dir/NAME.log`.
    pub fn spawn(name: &'static str, dir: &Path, args: &[&str]) -> Self {
        let log = std::fs::File::create(dir.join(format!("{name}.log"))).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_altflow"))
            .args(args)
            .current_dir(dir)
            .env("RUST_LOG", "info,rdkafka=warn")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        Self { name, child }
    }

    /// SIGTERM, then the exit status (within `limit`).
    pub fn terminate(&mut self, limit: Duration) -> std::process::ExitStatus {
        let status = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success());
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "{} did not stop after SIGTERM",
                self.name
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits (polling every 200 ms) until `done`, failing the test after `limit`.
pub fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Runs scripts/check_shards.py on `out`: the keys when every shard is well formed, else the error.
pub fn check_shards(out: &Path) -> Result<BTreeSet<String>, String> {
    let output = Command::new("python3")
        .arg(root().join("scripts/check_shards.py"))
        .arg(out)
        .output()
        .expect("python3 must be installed (scripts/test.sh installs pyarrow)");
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr));
    }
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    Ok(report["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap().to_string())
        .collect())
}

/// How many tar shards lie directly in `out` (0 while it does not exist).
pub fn tar_count(out: &Path) -> usize {
    std::fs::read_dir(out)
        .map(|d| {
            d.filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "tar")
            })
            .count()
        })
        .unwrap_or(0)
}

/// The `[bus]` table of a test pipeline: the embedded bus, or Kafka at `brokers` with a random
/// group prefix; `partitions` per topic.
pub fn bus_table(brokers: Option<&str>, partitions: u32) -> String {
    let kind = match brokers {
        Some(brokers) => format!(
            "kind = \"kafka\"\nbrokers = \"{brokers}\"\ngroup_prefix = \"{}\"\ncommit_interval = \"200ms\"",
            random_name("grp")
        ),
        None => "kind = \"embedded\"".to_string(),
    };
    format!("[bus]\n{kind}\npartitions = {partitions}\n")
}

/// Runs `stage` of `pipeline` alone on its bus: creates the topics, sends `inputs` (key, payload)
/// to the stage's input topic one message at a time (so that within a partition they keep the
/// list's order), and hands every message read from `outputs` to `take` until it says all have
/// come (90 s at most); then stops the stage and waits for it to drain.
pub async fn run_stage_alone(
    pipeline: &altflow::config::Pipeline,
    stage: altflow::config::StageName,
    inputs: Vec<(bytes::Bytes, bytes::Bytes)>,
    outputs: &[String],
    mut take: impl FnMut(&altflow::bus::Message) -> bool,
) {
    use altflow::{app, bus::OutMessage};
    let (bus, _) = app::open_bus(pipeline);
    app::create_topics(bus.as_ref(), pipeline).await.unwrap();
    let mut check = bus.consumer(&random_name("check"), outputs).await.unwrap();
    let producer = bus.producer().unwrap();
    let consumer = app::stage_consumer(bus.as_ref(), pipeline, stage)
        .await
        .unwrap();
    let (stop, shutdown) = tokio::sync::watch::channel(false);
    let task = app::spawn_stage(pipeline, stage, consumer, producer.clone(), shutdown).unwrap();
    let input: std::sync::Arc<str> = pipeline.input_topic(stage).unwrap().into();
    for (key, payload) in inputs {
        producer
            .send_all(vec![OutMessage {
                topic: input.clone(),
                key,
                payload,
            }])
            .await
            .unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut done = false;
    while !done {
        assert!(
            Instant::now() < deadline,
            "{stage}: not every output arrived in 90 s"
        );
        // Every message of the last poll is taken too, so that `take` sees any extra one.
        for message in check.poll(100, Duration::from_millis(200)).await.unwrap() {
            done = take(&message) || done;
        }
    }
    stop.send(true).unwrap();
    task.await.unwrap().unwrap();
    check.close().await.unwrap();
}
