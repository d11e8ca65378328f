//! The fault suite: a filter → fetch → write pipeline on a real Kafka-protocol broker (tansu), each
//! stage member a process of its own, hit mid-stream by the faults a cluster sees. Every test ends
//! with every input sample in exactly one shard (checked by scripts/check_shards.py, which knows
//! nothing of altflow), and prints its counts.
//!
//! - a member of each stage SIGKILLed while another member of the same stage runs on;
//! - members added and removed (SIGTERM, as a scale-down does) mid-stream;
//! - the broker killed and restarted mid-stream, on a storage engine that persists (tansu's S3
//!   engine on a local S3 server: tansu offers `memory://`, which loses everything, `s3://` and
//!   `postgres://`);
//! - a poison message in the middle of the input, which goes to the dead-letter topic.
//!
//! scripts/test.sh runs these with `--nocapture`, so that their counts are in the test output.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use altflow::bus::kafka::KafkaBus;
use altflow::bus::{Bus, OutMessage};
use altflow::record::{DeadLetter, Record, sample_id};

/// The input of a run.
#[derive(Clone, Copy)]
struct Workload {
    /// Image URLs in the list.
    samples: usize,
    /// Size of the JPEG behind every URL (each answered after 100 ms).
    width: u32,
    height: u32,
    /// `http.per_host_concurrency`: requests in flight per member to the one image host.
    per_host_concurrency: usize,
}

/// The fault tests' input: with 100 ms per image and two requests in flight per member, the stream
/// lasts long enough (about 15 s with two fetch members) to be hit in the middle.
const FAULTS: Workload = Workload {
    samples: 600,
    width: 256,
    height: 192,
    per_host_concurrency: 2,
};

/// A pipeline run whose members are processes.
struct Cluster {
    dir: tempfile::TempDir,
    brokers: String,
    topic_prefix: String,
    group_prefix: String,
    members: BTreeMap<&'static str, common::Proc>,
    /// Each member's metrics port.
    ports: BTreeMap<&'static str, u16>,
    expected: BTreeSet<String>,
    /// Each expected sample's URL path (`/paced/N.jpg`), by sample id: what to look for in the
    /// topics when a sample is missing.
    paths: BTreeMap<String, String>,
    /// Processes started, killed and stopped, for the report.
    events: Vec<String>,
    workload: Workload,
    /// The pipeline's `stages`, as members started from now on see them.
    stages: Vec<&'static str>,
    /// Where the input is when it is web archives rather than a URL list.
    archives: Option<Archives>,
}

/// The input as WAT files in an S3 bucket, named by a manifest there.
struct Archives {
    /// The manifest's URL.
    manifest: String,
    /// object_store options for the bucket.
    options: Vec<(String, String)>,
    /// The S3 endpoint of a proxy that cuts responses short, for members named `*-flaky`.
    flaky_endpoint: String,
    /// Connections the proxy cut.
    cuts: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Cluster {
    /// A run of the fault tests' workload against `brokers`, its topics created; no member
    /// started yet.
    fn new(brokers: &str) -> Self {
        Self::with(brokers, FAULTS)
    }

    fn with(brokers: &str, workload: Workload) -> Self {
        let dir = tempfile::tempdir().unwrap();
        // One JPEG behind every URL; the captions differ.
        let jpeg = common::jpeg(workload.width, workload.height);
        let mut routes = BTreeMap::new();
        let mut list = String::new();
        let mut expected = BTreeSet::new();
        let mut ids = BTreeMap::new();
        let adjectives = [
            "red", "blue", "green", "small", "large", "old", "young", "wooden", "bright", "quiet",
        ];
        let nouns = [
            "dog", "cat", "horse", "boat", "house", "bicycle", "tree", "bird", "car", "chair",
        ];
        let places = [
            "river", "garden", "beach", "mountain", "street", "forest", "field", "lake",
        ];
        let mut paths = Vec::new();
        for n in 0..workload.samples {
            let path: &'static str = Box::leak(format!("/paced/{n}.jpg").into_boxed_str());
            routes.insert(
                path,
                (200, vec![("content-type", "image/jpeg")], jpeg.clone()),
            );
            let caption = format!(
                "{} {} near the {}",
                adjectives[n % adjectives.len()],
                nouns[(n / adjectives.len()) % nouns.len()],
                places[(n / 100) % places.len()]
            );
            paths.push((path, caption));
        }
        let port = common::serve(routes);
        let image_base = format!("http://127.0.0.1:{port}");
        for (path, caption) in paths {
            let url = format!("{image_base}{path}");
            expected.insert(sample_id(&url, &caption));
            ids.insert(sample_id(&url, &caption), path.to_string());
            list += &serde_json::json!({"image": url, "text": caption}).to_string();
            list.push('\n');
        }
        std::fs::write(dir.path().join("list.jsonl"), list).unwrap();
        let cluster = Self {
            dir,
            brokers: brokers.to_string(),
            topic_prefix: common::random_name("fault"),
            group_prefix: common::random_name("grp"),
            members: BTreeMap::new(),
            ports: BTreeMap::new(),
            expected,
            paths: ids,
            events: Vec::new(),
            workload,
            stages: vec!["filter", "fetch", "write"],
            archives: None,
        };
        cluster.create_topics();
        cluster
    }

    /// Creates the topics of the pipeline as `stages` says now.
    fn create_topics(&self) {
        let admin = self.pipeline("admin", 0);
        common::stdout_of(
            altflow()
                .args(["topics", "create", "--pipeline"])
                .arg(&admin),
        );
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    /// The pipeline file of one member: all the same but for the metrics port.
    fn pipeline(&self, member: &str, metrics_port: u16) -> PathBuf {
        let metrics = if metrics_port == 0 {
            String::new()
        } else {
            format!("[metrics]\nlisten = \"127.0.0.1:{metrics_port}\"\n")
        };
        let text = format!(
            r#"stages = {stages:?}
[bus]
kind = "kafka"
brokers = "{brokers}"
partitions = 4
group_prefix = "{groups}"
commit_interval = "200ms"
[bus.consumer_options]
# Notice a killed member within seconds.
"session.timeout.ms" = "6000"
"heartbeat.interval.ms" = "500"
[topics]
prefix = "{topics}."
{metrics}[http]
allow_networks = ["127.0.0.0/8"]
min_host_delay = "0ms"
per_host_concurrency = {concurrency}
timeout = "10s"
[filter]
preset = "cc12m"
min_side = 100
rare_word_min_count = 0
[write]
output = {out:?}
max_records = 10
flush_after = "1s"
{source}"#,
            source = self.source(member),
            stages = self.stages,
            brokers = self.brokers,
            groups = self.group_prefix,
            topics = self.topic_prefix,
            out = self.out().to_str().unwrap(),
            concurrency = self.workload.per_host_concurrency,
        );
        let path = self.dir.path().join(format!("{member}.toml"));
        std::fs::write(&path, text).unwrap();
        path
    }

    /// The pipeline's input: the URL list, or the archives (through the cutting proxy for a
    /// member whose name ends in `-flaky`).
    fn source(&self, member: &str) -> String {
        let Some(archives) = &self.archives else {
            return "[[url_lists]]\npath = \"list.jsonl\"\nurl_column = \"image\"\n\
                    caption_column = \"text\"\n"
                .into();
        };
        let options: Vec<String> = archives
            .options
            .iter()
            .map(|(k, v)| match k.as_str() {
                "aws_endpoint" if member.ends_with("-flaky") => {
                    format!("{k} = {:?}", archives.flaky_endpoint)
                }
                _ => format!("{k} = {v:?}"),
            })
            .collect();
        format!(
            "[extract]\n# Small segments: every file has several, so a kill lands mid-file.\n\
             segment_bytes = 700\nfiles_at_once = 2\n\
             [[archives]]\nmanifest = {:?}\nstore_options = {{ {} }}\n",
            archives.manifest,
            options.join(", ")
        )
    }

    /// The fault tests' workload as 200 WAT files in a bucket of the S3 server at `endpoint`,
    /// three images each (records padded so that a file has several segments), named by a gzip
    /// manifest of relative paths as Common Crawl's `wat.paths.gz`; the stages read them through
    /// an `extract` stage.
    fn with_archives(brokers: &str, endpoint: &str) -> Self {
        let mut cluster = Self::with(brokers, FAULTS);
        let bucket = common::random_name("crawl");
        common::create_bucket(endpoint, &bucket);
        let options = common::s3_options(endpoint);
        let list = std::fs::read_to_string(cluster.dir.path().join("list.jsonl")).unwrap();
        let pairs: Vec<serde_json::Value> = list
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let files = 200;
        let mut manifest = String::new();
        let mut objects = Vec::new();
        for (f, chunk) in pairs.chunks(pairs.len().div_ceil(files)).enumerate() {
            let mut wat = Vec::new();
            for (k, pair) in chunk.iter().enumerate() {
                let page = format!("https://news.example/{f}/{k}.html");
                wat.extend(wat_member(
                    &page,
                    pair["image"].as_str().unwrap(),
                    pair["text"].as_str().unwrap(),
                ));
                wat.extend(wat_member(
                    &format!("{page}?pad"),
                    "",
                    &noise(f * 10 + k, 900),
                ));
            }
            let name = format!("segments/{f:05}/wat/part-{f:05}.warc.wat.gz");
            manifest += &format!("crawl-data/TEST/{name}\n");
            objects.push((format!("crawl-data/TEST/{name}"), wat));
        }
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(manifest.as_bytes()).unwrap();
        objects.push(("crawl-data/TEST/wat.paths.gz".into(), gz.finish().unwrap()));
        let runtime = tokio::runtime::Runtime::new().unwrap();
        for (name, bytes) in objects {
            let url = format!("s3://{bucket}/{name}");
            let (store, path) =
                altflow::writer::store::Store::open_object(&url, options.clone()).unwrap();
            runtime
                .block_on(object_store::ObjectStoreExt::put(
                    store.inner.as_ref(),
                    &path,
                    bytes.into(),
                ))
                .unwrap();
        }
        let upstream = endpoint.trim_start_matches("http://").to_string();
        let (proxy, cuts) = cutting_proxy(upstream);
        cluster.archives = Some(Archives {
            manifest: format!("s3://{bucket}/crawl-data/TEST/wat.paths.gz"),
            options,
            flaky_endpoint: format!("http://{proxy}"),
            cuts,
        });
        cluster.stages = vec!["extract", "filter", "fetch", "write"];
        cluster.create_topics();
        cluster
    }

    /// Starts member `name` of `stage` and waits until its `/readyz` says it is ready.
    fn start(&mut self, stage: &str, name: &'static str) {
        let port = common::free_port();
        let pipeline = self.pipeline(name, port);
        let proc = common::Proc::spawn(
            name,
            self.dir.path(),
            &["stage", stage, "--pipeline", pipeline.to_str().unwrap()],
        );
        self.members.insert(name, proc);
        self.ports.insert(name, port);
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            if readyz(port) == Some(200) {
                break;
            }
            let exited = self.members[name].child.id();
            assert!(
                Instant::now() < deadline,
                "{name} (pid {exited}) not ready in 90 s:\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        self.events.push(format!("started {name}"));
    }

    /// One member of each stage: `filter-a`, `fetch-a`, `write-a`.
    fn start_one_each(&mut self) {
        self.start("filter", "filter-a");
        self.start("fetch", "fetch-a");
        self.start("write", "write-a");
    }

    /// SIGKILL: no drain, no commit, no leaving the group.
    fn kill(&mut self, name: &'static str) {
        let mut proc = self.members.remove(name).unwrap();
        proc.child.kill().unwrap();
        proc.child.wait().unwrap();
        self.events.push(format!("SIGKILLed {name}"));
    }

    /// Sends `signal` (`STOP`, `CONT`) to member `name`.
    fn signal(&mut self, name: &'static str, signal: &str) {
        let pid = self.members[name].child.id().to_string();
        let sent = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(pid)
            .status()
            .unwrap();
        assert!(sent.success());
        self.events.push(format!("SIG{signal} to {name}"));
    }

    /// SIGTERM, as a scale-down does: the member drains and leaves.
    fn stop(&mut self, name: &'static str) {
        let mut proc = self.members.remove(name).unwrap();
        let status = proc.terminate(Duration::from_secs(60));
        if !status.success() {
            self.keep_logs(name);
        }
        assert!(
            status.success(),
            "{name} exited with {status}:\n{}",
            self.logs()
        );
        self.events.push(format!("stopped {name}"));
    }

    fn seed(&self) {
        let admin = self.pipeline("admin", 0);
        common::stdout_of(
            altflow()
                .args(["seed", "--pipeline"])
                .arg(&admin)
                .current_dir(self.dir.path()),
        );
    }

    /// Waits until at least `shards` shards are on disk.
    fn wait_for_shards(&self, shards: usize) {
        let deadline = Instant::now() + Duration::from_secs(120);
        while common::tar_count(&self.out()) < shards {
            assert!(
                Instant::now() < deadline,
                "fewer than {shards} shards in 120 s:\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until the shards hold every sample exactly once.
    fn wait_for_all(&self, label: &str) {
        if let Err(problem) = self.try_wait_for_all(Duration::from_secs(240)) {
            self.keep_logs(label);
            panic!(
                "{label}: the shards never held every sample once; last check: {problem}\n{}",
                self.logs()
            );
        }
    }

    /// Waits up to `limit` until the shards hold every sample exactly once; else what the last
    /// check found.
    fn try_wait_for_all(&self, limit: Duration) -> Result<(), String> {
        let deadline = Instant::now() + limit;
        loop {
            let problem = match common::check_shards(&self.out()) {
                Ok(keys) if keys == self.expected => return Ok(()),
                Ok(keys) => format!(
                    "{} of {} samples, {} unexpected",
                    keys.intersection(&self.expected).count(),
                    self.expected.len(),
                    keys.difference(&self.expected).count()
                ),
                Err(e) => e.chars().take(2000).collect(),
            };
            if Instant::now() >= deadline {
                return Err(problem);
            }
            std::thread::sleep(Duration::from_millis(1000));
        }
    }

    /// Copies every member's whole log to `$ALTFLOW_FAULT_LOGS/<label>/` when that is set: a
    /// failure's message shows only the notable lines, and the run's directory is deleted.
    fn keep_logs(&self, label: &str) {
        let Some(root) = std::env::var_os("ALTFLOW_FAULT_LOGS") else {
            return;
        };
        let dir = PathBuf::from(root).join(label.replace(' ', "-"));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in self.member_logs() {
            std::fs::write(dir.join(name), text).unwrap();
        }
        eprintln!("member logs kept in {}", dir.display());
    }

    /// The expected samples that no shard holds (empty if the shards cannot be read).
    fn missing(&self) -> Vec<String> {
        let keys = common::check_shards(&self.out()).unwrap_or_default();
        self.expected.difference(&keys).cloned().collect()
    }

    /// Waits until the shards hold every sample exactly once, stops every member, checks again,
    /// and prints the run's counts.
    fn finish(mut self, label: &str) {
        self.wait_for_all(label);
        let names: Vec<&'static str> = self.members.keys().copied().collect();
        for name in names {
            self.stop(name);
        }
        // After every drain: still every sample, each once (check_shards fails on a key in two
        // shards, and on a tar without its index).
        let keys = common::check_shards(&self.out()).unwrap();
        assert_eq!(keys, self.expected, "{label}: after the drain");
        let shards = common::tar_count(&self.out());
        let logs = self.all_logs();
        let kept = logs
            .matches("keeping a shard landed but not committed")
            .count();
        let deleted = logs.matches("deleting an unfinished shard").count()
            + logs.matches("next owner disowned").count();
        let fenced = logs.matches("shard taken back").count();
        let left = logs
            .matches("partition taken over meanwhile: its new owner")
            .count();
        let withdrawn = logs.matches("revoked meanwhile: giving it back").count();
        eprintln!(
            "fault suite, {label}: {} of {} samples in {shards} shards, 0 lost, 0 duplicate; \
             {kept} uncommitted shard(s) kept and {deleted} deleted on adoption, {fenced} shard(s) \
             taken back by fencing and {left} left to the new owner, {withdrawn} generation(s) \
             withdrawn; {}",
            keys.len(),
            self.expected.len(),
            self.events.join(", ")
        );
    }

    /// Every member's log, in name order: (file name, text).
    fn member_logs(&self) -> Vec<(String, String)> {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(self.dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "log"))
            .collect();
        paths.sort();
        paths
            .into_iter()
            .map(|path| {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read_to_string(&path).unwrap_or_default())
            })
            .collect()
    }

    fn all_logs(&self) -> String {
        self.member_logs()
            .into_iter()
            .map(|(_, text)| text)
            .collect()
    }

    /// The last lines of every member's log, for failure messages, each log's warnings, errors and
    /// panic messages first: a backtrace fills a short tail and would hide why a member died.
    fn logs(&self) -> String {
        let mut all = String::new();
        for (name, text) in self.member_logs() {
            let lines: Vec<&str> = text.lines().collect();
            let mut notable = Vec::new();
            for (i, line) in lines.iter().enumerate() {
                if line.contains(" WARN ") || line.contains(" ERROR ") {
                    notable.push(*line);
                } else if line.contains("panicked at") || line.starts_with("Error: ") {
                    // The message and, for an error, its causes (anyhow's report of `main`).
                    notable.extend(
                        lines[i..]
                            .iter()
                            .take(12)
                            .take_while(|l| !l.contains("backtrace:")),
                    );
                }
            }
            let first = notable.len().saturating_sub(30);
            let tail = &lines[lines.len().saturating_sub(12)..];
            all += &format!(
                "--- {name}\n{}\n(last lines)\n{}\n",
                notable[first..].join("\n"),
                tail.join("\n")
            );
        }
        all
    }
}

/// One WAT metadata record, its own gzip member: a page with one image link (none when `image`
/// is empty; `alt` then pads the record).
fn wat_member(page: &str, image: &str, alt: &str) -> Vec<u8> {
    let links = if image.is_empty() {
        serde_json::json!([{"path": "A@/href", "url": "/", "text": alt}])
    } else {
        serde_json::json!([{"path": "IMG@/src", "url": image, "alt": alt}])
    };
    let json = serde_json::json!({"Envelope": {
        "WARC-Header-Metadata": {"WARC-Target-URI": page},
        "Payload-Metadata": {"HTTP-Response-Metadata": {"HTML-Metadata": {"Links": links}}}
    }})
    .to_string();
    let text = format!(
        "WARC/1.0\r\nWARC-Type: metadata\r\nWARC-Target-URI: {page}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{json}\r\n\r\n",
        json.len()
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    gz.finish().unwrap()
}

/// `len` hex digits that gzip cannot shrink much (a xorshift sequence from `seed`).
fn noise(seed: usize, len: usize) -> String {
    let mut x = (seed as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from_digit((x % 16) as u32, 16).unwrap()
        })
        .collect()
}

/// A TCP proxy to `upstream` that cuts every other connection after 2,000 bytes of its answers
/// (a long read breaking mid-object, as S3 and HTTPS do on large objects); returns its address and
/// the number of connections it cut with bytes left to send.
fn cutting_proxy(upstream: String) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let cuts = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = cuts.clone();
    std::thread::spawn(move || {
        for (n, client) in listener.incoming().enumerate() {
            let Ok(client) = client else { continue };
            let Ok(server) = TcpStream::connect(&upstream) else {
                continue;
            };
            let (mut client_in, mut server_out) =
                (client.try_clone().unwrap(), server.try_clone().unwrap());
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut client_in, &mut server_out);
                let _ = server_out.shutdown(std::net::Shutdown::Write);
            });
            let (mut server_in, mut client_out) = (server, client);
            let counted = counted.clone();
            std::thread::spawn(move || {
                if n % 2 == 1 {
                    let mut first = vec![0u8; 2000];
                    let mut got = 0;
                    while got < first.len() {
                        match server_in.read(&mut first[got..]) {
                            Ok(0) | Err(_) => break,
                            Ok(k) => got += k,
                        }
                    }
                    let _ = client_out.write_all(&first[..got]);
                    if got == first.len() {
                        counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                    let _ = client_out.shutdown(std::net::Shutdown::Both);
                    let _ = server_in.shutdown(std::net::Shutdown::Both);
                } else {
                    let _ = std::io::copy(&mut server_in, &mut client_out);
                    let _ = client_out.shutdown(std::net::Shutdown::Write);
                }
            });
        }
    });
    (address, cuts)
}

fn altflow() -> Command {
    Command::new(env!("CARGO_BIN_EXE_altflow"))
}

/// `GET path` on `port`: the status and the body, if it answers.
fn get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    let request = format!("GET {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let status = response.split_whitespace().nth(1)?.parse().ok()?;
    let body = response.split_once("\r\n\r\n")?.1.to_string();
    Some((status, body))
}

/// The status of `GET /readyz` on `port`, if it answers.
fn readyz(port: u16) -> Option<u16> {
    get(port, "/readyz").map(|(status, _)| status)
}

/// The value of `series` (name and labels, as exposed) on `port`'s `/metrics`.
fn metric(port: u16, series: &str) -> Option<f64> {
    let (_, body) = get(port, "/metrics")?;
    body.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

#[test]
fn fault_a_member_of_each_stage_killed_mid_stream() {
    let Some(brokers) = common::kafka_broker() else {
        return;
    };
    let mut cluster = Cluster::new(&brokers);
    for (stage, a, b) in [
        ("filter", "filter-a", "filter-b"),
        ("fetch", "fetch-a", "fetch-b"),
        ("write", "write-a", "write-b"),
    ] {
        cluster.start(stage, a);
        cluster.start(stage, b);
    }
    cluster.seed();
    // One kind after another, each while the stream runs, each member restarted at once.
    cluster.wait_for_shards(3);
    cluster.kill("write-a");
    cluster.start("write", "write-a2");
    cluster.wait_for_shards(12);
    cluster.kill("fetch-a");
    cluster.start("fetch", "fetch-a2");
    cluster.wait_for_shards(24);
    cluster.kill("filter-a");
    cluster.start("filter", "filter-a2");
    cluster.finish("a member of each stage SIGKILLed");
}

#[test]
fn fault_archives_shared_by_extract_members_one_killed_one_cut_mid_file() {
    let Some(brokers) = common::kafka_broker() else {
        return;
    };
    let Some(endpoint) = common::s3_endpoint() else {
        return;
    };
    let mut cluster = Cluster::with_archives(&brokers, &endpoint);
    cluster.start("extract", "extract-a");
    cluster.start("extract", "extract-b");
    cluster.start("extract", "extract-flaky");
    cluster.start_one_each();
    cluster.seed();
    // Mid-stream, so mid-file: a file's segments queue behind other files' on the partition, so a
    // member has many files begun and not finished at any time.
    let log = cluster.dir.path().join("extract-a.log");
    let finished = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .matches("read an archive to its end")
            .count()
    };
    common::wait_for("extract-a's fifth file", Duration::from_secs(120), || {
        finished() >= 5
    });
    cluster.kill("extract-a");
    let killed_after = finished();
    assert!(
        killed_after < 60,
        "extract-a had read its share: {killed_after} files"
    );
    cluster.wait_for_shards(20);
    let cuts = cluster
        .archives
        .as_ref()
        .unwrap()
        .cuts
        .load(std::sync::atomic::Ordering::SeqCst);
    assert!(cuts >= 1, "the flaky member's reads were never cut");
    eprintln!("extract-a SIGKILLed after {killed_after} files read to their end; {cuts} reads cut");
    cluster.finish("archives read by 3 extract members, one SIGKILLed, one's reads cut");
}

#[test]
fn fault_members_added_and_removed_mid_stream() {
    let Some(brokers) = common::kafka_broker() else {
        return;
    };
    let mut cluster = Cluster::new(&brokers);
    cluster.start_one_each();
    cluster.seed();
    cluster.wait_for_shards(3);
    // Scale up every stage…
    cluster.start("fetch", "fetch-b");
    cluster.start("write", "write-b");
    cluster.start("filter", "filter-b");
    cluster.wait_for_shards(15);
    // …and down again, the original members leaving.
    cluster.stop("write-a");
    cluster.stop("fetch-a");
    cluster.finish("members added and removed");
}

#[test]
fn fault_a_stage_added_in_front_of_the_writer_mid_stream() {
    let Some(brokers) = common::kafka_broker() else {
        return;
    };
    let mut cluster = Cluster::new(&brokers);
    cluster.start_one_each();
    cluster.seed();
    cluster.wait_for_shards(15);
    // The pipeline changes: `qgen` goes between fetch and write, so the writer now reads qgen's
    // output and qgen's new group reads `pairs`, which the writer's group had read up to some
    // offset. Stopped before qgen starts (it drains and commits), the old writer hands `pairs`
    // over there; read from its beginning instead, every sample written so far would be written
    // again.
    // The writer of the new pipeline joins first, so that the writers' group never empties
    // (tansu can strand the next member of a group that every member left).
    cluster.stages = vec!["filter", "fetch", "qgen", "write"];
    cluster.create_topics();
    cluster.start("write", "write-b");
    cluster.stop("write-a");
    cluster.start("qgen", "qgen-a");
    cluster.wait_for_all("a stage added in front of the writer");
    assert!(
        cluster
            .all_logs()
            .contains("starting where the topic's last reader stopped"),
        "qgen took no offsets over:\n{}",
        cluster.logs()
    );
    cluster.finish("a stage added in front of the writer");
}

#[test]
fn fault_a_poison_message_goes_to_dead_letters() {
    let Some(brokers) = common::kafka_broker() else {
        return;
    };
    let mut cluster = Cluster::new(&brokers);
    cluster.start_one_each();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let bus = KafkaBus::new(common::kafka_settings(&brokers));
    let candidates = format!("{}.candidates", cluster.topic_prefix);
    let dead_letters = format!("{}.dead_letter", cluster.topic_prefix);
    let mut dead = runtime
        .block_on(bus.consumer(&common::random_name("dead"), &[dead_letters]))
        .unwrap();
    cluster.seed();
    cluster.wait_for_shards(3);
    // Bytes that are no record, sent mid-stream to the filter's input.
    let poison = b"\xff\xfe not a protobuf record".to_vec();
    runtime
        .block_on(bus.producer().unwrap().send_all(vec![OutMessage {
            topic: candidates.into(),
            key: "poison".into(),
            payload: poison.clone().into(),
        }]))
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut found = false;
    while !found {
        assert!(Instant::now() < deadline, "no dead letter in 60 s");
        for message in runtime
            .block_on(dead.poll(10, Duration::from_millis(500)))
            .unwrap()
        {
            let letter = DeadLetter::from_bytes(&message.payload).unwrap();
            found |= letter.payload == poison && letter.stage == "filter";
        }
    }
    runtime.block_on(dead.close()).unwrap();
    cluster.events.push("a poison message dead-lettered".into());
    cluster.finish("a poison message");
}

#[test]
fn fault_a_paused_writer_comes_back_after_the_takeover() {
    let Some(brokers) = common::kafka_broker() else {
        return;
    };
    let mut cluster = Cluster::new(&brokers);
    cluster.start("filter", "filter-a");
    cluster.start("fetch", "fetch-a");
    cluster.start("fetch", "fetch-b");
    cluster.start("write", "write-a");
    cluster.start("write", "write-b");
    cluster.seed();
    cluster.wait_for_shards(5);
    // Paused past its session timeout (6 s) with shards open: the group gives its partitions to
    // write-b, which takes their next generation and cleans up. When write-a wakes, whatever it
    // flushes before it hears of the rebalance is fenced off (the known hole: without fencing
    // such a shard would land after the clean-up, its samples written twice).
    cluster.signal("write-a", "STOP");
    std::thread::sleep(Duration::from_secs(12));
    cluster.signal("write-a", "CONT");
    cluster.finish("a paused writer woken after the takeover");
}

/// A tansu broker on its S3 storage engine, which keeps topics, offsets and groups across restarts.
struct PersistentBroker {
    port: u16,
    s3: String,
    bucket: String,
    log: PathBuf,
    child: Option<Child>,
}

impl PersistentBroker {
    /// A broker whose standard output and error are appended to `log`.
    fn start(s3: &str, log: &std::path::Path) -> Self {
        let bucket = common::random_name("tansu");
        common::create_bucket(s3, &bucket);
        let mut broker = Self {
            port: common::free_port(),
            s3: s3.to_string(),
            bucket,
            log: log.to_path_buf(),
            child: None,
        };
        broker.restart();
        broker
    }

    fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Starts the broker (again) on the same port and storage.
    fn restart(&mut self) {
        let url = format!("tcp://{}", self.address());
        let child = Command::new(common::tansu_binary().unwrap())
            .args([
                "broker",
                "--listener-url",
                &url,
                "--advertised-listener-url",
                &url,
            ])
            .arg("--storage-engine")
            .arg(format!("s3://{}/", self.bucket))
            .env("AWS_ENDPOINT", &self.s3)
            .env("AWS_ACCESS_KEY_ID", "test")
            .env("AWS_SECRET_ACCESS_KEY", "test")
            .env("AWS_REGION", "us-east-1")
            .env("AWS_DEFAULT_REGION", "us-east-1")
            .env("AWS_ALLOW_HTTP", "true")
            .stdout(Stdio::from(self.append_log()))
            .stderr(Stdio::from(self.append_log()))
            .spawn()
            .unwrap();
        self.child = Some(child);
        common::wait_for("the broker", Duration::from_secs(30), || {
            TcpStream::connect(self.address()).is_ok()
        });
    }

    fn append_log(&self) -> std::fs::File {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap()
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }
}

impl Drop for PersistentBroker {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The broker is killed mid-stream and restarted on its storage. Two outcomes are told apart:
/// every sample arrives exactly once; or the broker itself lost records it had acknowledged
/// (a partition's high watermark, right after the restart or at the end, is below the one just
/// before the kill: tansu 0.6's S3 engine does this, seen 2026-11-26 with `candidates[0]` going
/// from 164 to 1 and `pairs[2]` from 136 to 29, the missing sample in no topic at all; in another
/// run the watermarks were intact right after the restart and had gone back by the end). In the second case no altflow process could deliver
/// what the broker forgot; the test then checks what is still ours: no sample twice, nothing
/// unexpected, and no more samples missing than records the broker lost. Anything else fails
/// with where the missing samples are (every topic dumped, the groups' committed offsets).
#[test]
fn fault_the_broker_restarted_mid_stream() {
    let (Some(_), Some(s3)) = (common::kafka_broker(), common::s3_endpoint()) else {
        return;
    };
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut broker = PersistentBroker::start(&s3, log.path());
    let mut cluster = Cluster::new(&broker.address());
    cluster.start_one_each();
    cluster.seed();
    cluster.wait_for_shards(3);
    let before = high_watermarks(&cluster);
    broker.kill();
    cluster.events.push("SIGKILLed the broker".into());
    std::thread::sleep(Duration::from_secs(2));
    broker.restart();
    cluster.events.push("restarted the broker".into());
    let after = high_watermarks(&cluster);
    // Records the broker acknowledged before its restart and no longer has: watermarks that went
    // back, right after the restart or later (tansu's went back minutes after it, in one run).
    let went_back = |now: &BTreeMap<(String, i32), i64>| -> Regressions {
        before
            .iter()
            .filter_map(|(key, was)| {
                let is = now.get(key).copied().unwrap_or(0);
                (is < *was).then(|| (key.clone(), (*was, is)))
            })
            .collect()
    };
    let outcome = cluster.try_wait_for_all(Duration::from_secs(150));
    let mut regressions = went_back(&after);
    let mut merge = |found: Regressions| {
        for (key, (was, is)) in found {
            let entry = regressions.entry(key).or_insert((was, is));
            *entry = (entry.0.max(was), entry.1.min(is));
        }
    };
    merge(went_back(&high_watermarks(&cluster)));
    let Err(problem) = outcome else {
        let lost = describe(&regressions);
        eprintln!(
            "broker restart: every sample arrived{}",
            if lost.is_empty() {
                String::new()
            } else {
                format!(" (though the broker's watermarks went back: {lost})")
            }
        );
        cluster.finish("the broker restarted");
        return;
    };
    let missing = cluster.missing();
    let (dump, served_then_forgotten) = locate(&cluster, &missing);
    merge(served_then_forgotten);
    let forgotten: i64 = regressions.values().map(|(was, is)| was - is).sum();
    let lost = describe(&regressions);
    if regressions.is_empty() {
        let broker_log = std::fs::read_to_string(log.path()).unwrap_or_default();
        let tail: Vec<&str> = broker_log.lines().rev().take(40).collect();
        panic!(
            "the broker restarted, kept every record it had acknowledged, and still the shards \
             never held every sample once: {problem}\nwhere the missing samples are:\n{dump}\n\
             the broker's log (last lines):\n{}\n{}",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
            cluster.logs()
        );
    }
    // The broker forgot records it had acknowledged: what is still ours to get right is that
    // nothing is twice or unexpected, and that no more is missing than it forgot.
    let keys = common::check_shards(&cluster.out())
        .unwrap_or_else(|e| panic!("the broker restarted: {e}\n{}", cluster.logs()));
    assert!(
        keys.is_subset(&cluster.expected) && (missing.len() as i64) <= forgotten,
        "the broker restarted and lost {forgotten} acknowledged records ({lost}); the output has \
         {problem}\n{dump}"
    );
    eprintln!(
        "broker restart: the broker lost {forgotten} acknowledged records ({lost}); {} of {} \
         samples arrived, each once, {} missing with them",
        keys.len(),
        cluster.expected.len(),
        missing.len()
    );
}

/// Partitions whose records the broker forgot: (topic, partition) → (offset it had reached, offset
/// it went back to).
type Regressions = BTreeMap<(String, i32), (i64, i64)>;

/// `topic[partition] was -> is, …`
fn describe(regressions: &Regressions) -> String {
    regressions
        .iter()
        .map(|((topic, partition), (was, is))| format!("{topic}[{partition}] {was} -> {is}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A client of the run's broker outside any group.
fn inspector(cluster: &Cluster, group: &str) -> rdkafka::consumer::BaseConsumer {
    rdkafka::ClientConfig::new()
        .set("bootstrap.servers", &cluster.brokers)
        .set("group.id", group)
        .set("enable.auto.commit", "false")
        .create()
        .unwrap()
}

/// Every partition of the run's topics, in order.
fn run_partitions(cluster: &Cluster) -> Vec<(String, i32)> {
    use rdkafka::consumer::Consumer;
    let client = inspector(cluster, &common::random_name("inspect"));
    let metadata = client
        .fetch_metadata(None, Duration::from_secs(30))
        .unwrap();
    let mut partitions: Vec<(String, i32)> = metadata
        .topics()
        .iter()
        .filter(|t| t.name().starts_with(&cluster.topic_prefix))
        .flat_map(|t| {
            t.partitions()
                .iter()
                .map(|p| (t.name().to_string(), p.id()))
        })
        .collect();
    partitions.sort();
    partitions
}

/// The high watermark of every partition of the run's topics, as the broker states it.
fn high_watermarks(cluster: &Cluster) -> BTreeMap<(String, i32), i64> {
    use rdkafka::consumer::Consumer;
    let client = inspector(cluster, &common::random_name("inspect"));
    run_partitions(cluster)
        .into_iter()
        .map(|(topic, partition)| {
            let (_, high) = client
                .fetch_watermarks(&topic, partition, Duration::from_secs(30))
                .unwrap();
            ((topic, partition), high)
        })
        .collect()
}

/// Where the `missing` samples are, for a failure message: every topic of the run read from
/// offset 0 to its high watermark, the offsets of the messages naming each sample's URL, each
/// partition's watermarks, and every stage group's committed offsets. Also the partitions where a
/// group has committed past the high watermark — records the broker served and no longer has — as
/// (committed, high watermark).
#[allow(clippy::type_complexity)]
fn locate(cluster: &Cluster, missing: &[String]) -> (String, BTreeMap<(String, i32), (i64, i64)>) {
    use rdkafka::consumer::Consumer;
    use rdkafka::{Message, Offset, TopicPartitionList};
    let timeout = Duration::from_secs(10);
    let reader = inspector(cluster, &common::random_name("locate"));
    let mut report = String::new();
    let needles: Vec<(&String, String)> = missing
        .iter()
        .map(|id| (id, cluster.paths[id].clone()))
        .collect();
    let partitions = run_partitions(cluster);
    let mut highs = BTreeMap::new();
    let mut forgotten = BTreeMap::new();
    for (topic, partition) in &partitions {
        let (low, high) = reader
            .fetch_watermarks(topic, *partition, timeout)
            .unwrap_or((-1, -1));
        highs.insert((topic.clone(), *partition), high);
        let mut assignment = TopicPartitionList::new();
        assignment
            .add_partition_offset(topic, *partition, Offset::Beginning)
            .unwrap();
        reader.assign(&assignment).unwrap();
        let (mut read, mut last, mut hits) = (0, -1, Vec::new());
        let deadline = Instant::now() + Duration::from_secs(20);
        while last + 1 < high && Instant::now() < deadline {
            let Some(Ok(message)) = reader.poll(Duration::from_millis(500)) else {
                continue;
            };
            read += 1;
            last = message.offset();
            let payload = message.payload().unwrap_or_default();
            for (id, needle) in &needles {
                if payload
                    .windows(needle.len())
                    .any(|w| w == needle.as_bytes())
                {
                    hits.push(format!("{id} at {last}"));
                }
            }
        }
        report += &format!(
            "  {topic}[{partition}]: watermarks {low}..{high}, read {read} up to {last}; {}\n",
            if hits.is_empty() {
                "no missing sample".to_string()
            } else {
                hits.join(", ")
            }
        );
    }
    for stage in ["filter", "fetch", "write"] {
        let group = format!("{}-{stage}", cluster.group_prefix);
        let mut wanted = TopicPartitionList::new();
        for (topic, partition) in &partitions {
            wanted.add_partition(topic, *partition);
        }
        let committed = inspector(cluster, &group).committed_offsets(wanted, timeout);
        let offsets: Vec<String> = committed
            .map(|list| {
                list.elements()
                    .iter()
                    .filter_map(|e| match e.offset() {
                        Offset::Offset(o) => {
                            let key = (e.topic().to_string(), e.partition());
                            match highs.get(&key) {
                                Some(&high) if high >= 0 && o > high => {
                                    forgotten.insert(key, (o, high));
                                }
                                _ => {}
                            }
                            Some(format!("{}[{}]={o}", e.topic(), e.partition()))
                        }
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_else(|e| vec![format!("unreadable: {e}")]);
        report += &format!("  group {group} committed: {}\n", offsets.join(" "));
    }
    for (id, needle) in &needles {
        report += &format!("  missing {id}: {needle}\n");
    }
    (report, forgotten)
}

/// Throughput of 1, 2 and 3 fetch members (one filter, one writer) on this machine, printed:
///
///   cargo test --release --test faults -- --ignored --nocapture fetch_members
///
/// Each image is a 1600×1200 JPEG answered after 100 ms (decoded, resized to 512 px and encoded
/// again by the fetch stage), 64 requests in flight per member: the work is the CPU's, as on a
/// real crawl once enough requests are in flight.
#[test]
#[ignore = "a measurement, minutes long; run on its own"]
fn fetch_members_throughput() {
    let Some(brokers) = common::kafka_broker() else {
        return;
    };
    let workload = Workload {
        samples: 1200,
        width: 1600,
        height: 1200,
        per_host_concurrency: 64,
    };
    let names = ["fetch-a", "fetch-b", "fetch-c"];
    for members in 1..=3 {
        let mut cluster = Cluster::with(&brokers, workload);
        cluster.start("filter", "filter-a");
        cluster.start("write", "write-a");
        for name in &names[..members] {
            cluster.start("fetch", name);
        }
        let started = Instant::now();
        let before = machine_ticks();
        cluster.seed();
        // Done when the writer made every sample durable: read from its /metrics, which costs
        // the machine nothing next to a check of every shard (finish() does that afterwards).
        let writer = cluster.ports["write-a"];
        common::wait_for("every sample written", Duration::from_secs(300), || {
            metric(writer, "altflow_records_out_total{stage=\"write\"}")
                .is_some_and(|n| n >= workload.samples as f64)
        });
        let elapsed = started.elapsed().as_secs_f64();
        let fetch_cpu: f64 = names[..members]
            .iter()
            .map(|name| cpu_seconds(cluster.members[name].child.id()))
            .sum();
        eprintln!(
            "{members} fetch member(s): {} samples in {elapsed:.1} s = {:.0} samples/s; fetch used \
             {fetch_cpu:.1} CPU-s ({:.1} ms per sample), the machine {:.2} of its cores",
            workload.samples,
            workload.samples as f64 / elapsed,
            fetch_cpu * 1000.0 / workload.samples as f64,
            machine_busy(&before)
        );
        cluster.finish(&format!("{members} fetch member(s)"));
    }
}

/// CPU time (user and system) process `pid` has used, from `/proc` (clock ticks of 10 ms).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat.rsplit_once(") ").unwrap().1.split(' ').collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / 100.0
}

/// The machine's busy and total clock ticks so far (`/proc/stat`).
fn machine_ticks() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap();
    let values: Vec<u64> = stat
        .lines()
        .next()
        .unwrap()
        .split_whitespace()
        .skip(1)
        .map(|v| v.parse().unwrap())
        .collect();
    let idle = values[3] + values[4];
    let total: u64 = values.iter().sum();
    (total - idle, total)
}

/// How many cores were busy on average since `before`.
fn machine_busy(before: &(u64, u64)) -> f64 {
    let now = machine_ticks();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    (now.0 - before.0) as f64 / (now.1 - before.1).max(1) as f64 * cores
}
