//! The fetch stage on a web of several hosts (127.0.0.x), where records finish out of order: a host
//! that throttles is left alone for its `Retry-After` while requests to the others go on, and on
//! Kafka a fetch member and a writer killed with SIGKILL mid-stream lose and duplicate nothing.

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{Ipv4Addr, TcpListener};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// When each image path was asked for, by host address.
type Arrivals = Arc<Mutex<BTreeMap<(Ipv4Addr, String), Vec<Instant>>>>;

/// Serves `image` on every `/img/N.jpg` path of `hosts` (127.0.0.x, one port), after `latency`
/// plus, when `spread`, (N × 37 mod 7) × 60 ms; a path under `/throttled/` answers its first request
/// with 429 and `Retry-After: 30`. Returns the port.
fn serve(
    hosts: &[Ipv4Addr],
    image: Vec<u8>,
    latency: Duration,
    spread: bool,
    arrivals: Arrivals,
) -> u16 {
    let mut port = 0;
    let image = Arc::new(image);
    for host in hosts {
        let listener = TcpListener::bind((*host, port)).unwrap();
        port = listener.local_addr().unwrap().port();
        let (host, image, arrivals) = (*host, image.clone(), arrivals.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let (image, arrivals) = (image.clone(), arrivals.clone());
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut line = String::new();
                    if reader.read_line(&mut line).is_err() {
                        return;
                    }
                    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
                    let mut header = String::new();
                    while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                        header.clear();
                    }
                    let first = {
                        let mut seen = arrivals.lock().unwrap();
                        let times = seen.entry((host, path.clone())).or_default();
                        times.push(Instant::now());
                        times.len() == 1
                    };
                    let (status, extra, body): (u16, &str, &[u8]) =
                        if path.starts_with("/throttled/") && first {
                            (429, "retry-after: 30\r\n", b"")
                        } else if path.contains("/img/") {
                            let n: u64 = path
                                .rsplit('/')
                                .next()
                                .and_then(|f| f.strip_suffix(".jpg"))
                                .and_then(|n| n.parse().ok())
                                .unwrap_or(0);
                            let extra = if spread { n * 37 % 7 * 60 } else { 0 };
                            std::thread::sleep(latency + Duration::from_millis(extra));
                            (200, "content-type: image/jpeg\r\n", &image)
                        } else {
                            (404, "", b"not found")
                        };
                    let head = format!(
                        "HTTP/1.1 {status} X\r\n{extra}content-length: {}\r\nconnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = stream.write_all(head.as_bytes());
                    let _ = stream.write_all(body);
                });
            }
        });
    }
    port
}

#[test]
fn a_host_answering_429_is_left_alone_for_its_retry_after_while_the_others_go_on() {
    let throttled = Ipv4Addr::new(127, 0, 0, 2);
    let others: Vec<Ipv4Addr> = (3..7).map(|i| Ipv4Addr::new(127, 0, 0, i)).collect();
    let hosts: Vec<Ipv4Addr> = std::iter::once(throttled).chain(others.clone()).collect();
    let arrivals: Arrivals = Arc::default();
    let port = serve(
        &hosts,
        common::jpeg(640, 480),
        Duration::from_millis(100),
        false,
        arrivals.clone(),
    );

    let dir = tempfile::tempdir().unwrap();
    let mut list = String::from("url,caption\n");
    // The throttled host's first image is asked for first; its other two wait behind the pause.
    list += &format!(
        "http://{throttled}:{port}/throttled/img/0.jpg,a picture of the long tail number 0\n"
    );
    for k in 1..3 {
        list += &format!(
            "http://{throttled}:{port}/img/{k}.jpg,a picture of the long tail number {k}\n"
        );
    }
    let mut k = 3;
    for _ in 0..5 {
        for host in &others {
            list += &format!(
                "http://{host}:{port}/img/{k}.jpg,a picture of the long tail number {k}\n"
            );
            k += 1;
        }
    }
    let images = k;
    std::fs::write(dir.path().join("list.csv"), list).unwrap();
    let pipeline = dir.path().join("p.toml");
    std::fs::write(
        &pipeline,
        format!(
            "stages = [\"filter\", \"fetch\", \"write\"]\n[bus]\nkind = \"embedded\"\n\
             [http]\nallow_networks = [\"127.0.0.0/8\"]\nper_host_concurrency = 1\n\
             min_host_delay = \"100ms\"\n[write]\noutput = {:?}\n\
             [[url_lists]]\npath = {:?}\n",
            dir.path().join("out").to_str().unwrap(),
            dir.path().join("list.csv").to_str().unwrap(),
        ),
    )
    .unwrap();

    let started = Instant::now();
    let funnel = common::run_funnel(&pipeline);
    let written: usize = common::funnel_row(&funnel, "write")[2].parse().unwrap();
    assert_eq!(written, images, "every image written:\n{funnel}");

    let arrivals = arrivals.lock().unwrap();
    let throttled_at = arrivals[&(throttled, "/throttled/img/0.jpg".to_string())].clone();
    assert_eq!(throttled_at.len(), 2, "one 429, then the retry");
    let pause = throttled_at[1] - throttled_at[0];
    // The server's clock: Retry-After is whole seconds, so the pause is at least 30 s.
    assert!(pause >= Duration::from_secs(30), "retried after {pause:?}");
    // Nothing reached the throttled host during the pause (its other images may have come before
    // the 429: the list's candidates are spread over partitions).
    for ((host, path), times) in arrivals.iter() {
        for at in times.iter().filter(|_| *host == throttled) {
            let inside = *at > throttled_at[0] && *at < throttled_at[0] + Duration::from_secs(30);
            assert!(
                !inside,
                "{path} reached the throttled host {:?} into its pause",
                *at - throttled_at[0]
            );
        }
    }
    // The other hosts were served while the throttled one waited: 5 images each, 100 ms apart.
    let last_other = arrivals
        .iter()
        .filter(|((host, _), _)| *host != throttled)
        .flat_map(|(_, times)| times.iter().copied())
        .max()
        .unwrap();
    assert!(
        last_other < throttled_at[0] + Duration::from_secs(10),
        "the other hosts' last request came {:?} after the 429",
        last_other - throttled_at[0]
    );
    eprintln!(
        "throttled host retried after {pause:?}; other hosts done {:?} after the 429; run took {:?}",
        last_other - throttled_at[0],
        started.elapsed()
    );
}

/// Writes a URL list of `images` images spread over `hosts`.
fn url_list(path: &std::path::Path, hosts: &[Ipv4Addr], port: u16, images: usize) {
    let mut list = String::from("url,caption\n");
    for k in 0..images {
        let host = hosts[k % hosts.len()];
        list +=
            &format!("http://{host}:{port}/img/{k}.jpg,a picture of the long tail number {k}\n");
    }
    std::fs::write(path, list).unwrap();
}

#[test]
fn killing_a_fetch_member_and_a_writer_on_kafka_loses_and_duplicates_nothing() {
    let Some(brokers) = common::kafka_broker() else {
        return;
    };
    let hosts: Vec<Ipv4Addr> = (10..14).map(|i| Ipv4Addr::new(127, 0, 0, i)).collect();
    // Latencies of 0–360 ms by image: with 24 in flight, records finish far out of order.
    let port = serve(
        &hosts,
        common::jpeg(640, 480),
        Duration::from_millis(20),
        true,
        Arrivals::default(),
    );
    let images = 240;
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    url_list(&dir.join("list.csv"), &hosts, port, images);
    let common_tables = format!(
        "[http]\nallow_networks = [\"127.0.0.0/8\"]\nconcurrency = 8\nper_host_concurrency = 4\n\
         min_host_delay = \"0ms\"\n[runtime]\nmax_in_flight = 24\n[[url_lists]]\npath = {:?}\n",
        dir.join("list.csv").to_str().unwrap()
    );

    // The reference: the same list on the embedded bus.
    let reference_pipeline = dir.join("embedded.toml");
    std::fs::write(
        &reference_pipeline,
        format!(
            "stages = [\"filter\", \"fetch\", \"write\"]\n[bus]\nkind = \"embedded\"\n\
             [write]\noutput = {:?}\n{common_tables}",
            dir.join("reference").to_str().unwrap()
        ),
    )
    .unwrap();
    common::run_funnel(&reference_pipeline);
    let reference = common::check_shards(&dir.join("reference")).unwrap();
    assert_eq!(reference.len(), images);

    let out = dir.join("out");
    let pipeline = dir.join("kafka.toml");
    std::fs::write(
        &pipeline,
        format!(
            "stages = [\"filter\", \"fetch\", \"write\"]\n[bus]\nkind = \"kafka\"\n\
             brokers = \"{brokers}\"\npartitions = 4\ncommit_interval = \"500ms\"\n\
             group_prefix = \"{}\"\n[bus.consumer_options]\n\"session.timeout.ms\" = \"6000\"\n\
             \"heartbeat.interval.ms\" = \"1000\"\n[topics]\nprefix = \"{}.\"\n\
             [write]\noutput = {:?}\nmax_records = 4\nflush_after = \"1s\"\n{common_tables}",
            common::random_name("grp"),
            common::random_name("tail"),
            out.to_str().unwrap()
        ),
    )
    .unwrap();
    let pipeline = pipeline.to_str().unwrap();
    common::stdout_of(
        std::process::Command::new(env!("CARGO_BIN_EXE_altflow")).args([
            "topics",
            "create",
            "--pipeline",
            pipeline,
        ]),
    );
    let stage = |name: &'static str, kind: &str| {
        common::Proc::spawn(name, dir, &["stage", kind, "--pipeline", pipeline])
    };
    let mut procs = vec![
        stage("filter", "filter"),
        stage("fetch-1", "fetch"),
        stage("write-1", "write"),
    ];
    let mut fetch = stage("fetch-2", "fetch");
    let mut writer = stage("write-2", "write");
    common::stdout_of(
        std::process::Command::new(env!("CARGO_BIN_EXE_altflow")).args([
            "seed",
            "--pipeline",
            pipeline,
        ]),
    );

    // Mid-stream: a few shards written, most images still to come.
    common::wait_for("the first shards", Duration::from_secs(120), || {
        common::tar_count(&out) >= 6
    });
    fetch.child.kill().unwrap(); // SIGKILL
    writer.child.kill().unwrap();
    fetch.child.wait().unwrap();
    writer.child.wait().unwrap();
    let at_kill = common::tar_count(&out);
    assert!(at_kill * 4 < images, "killed too late: {at_kill} shards");

    let deadline = Instant::now() + Duration::from_secs(180);
    let mut last = Err(String::new());
    while last.as_ref() != Ok(&reference) {
        assert!(
            Instant::now() < deadline,
            "the survivors never wrote the reference's samples; last check: {:?}",
            last.map(|keys| format!("{} of {} keys", keys.len(), reference.len()))
        );
        std::thread::sleep(Duration::from_millis(500));
        last = common::check_shards(&out);
    }
    for proc in &mut procs {
        let status = proc.terminate(Duration::from_secs(60));
        assert!(status.success(), "{} exited with {status}", proc.name);
    }
    // check_shards fails on a key in two shards: after the drain, still each sample exactly once.
    assert_eq!(common::check_shards(&out).unwrap(), reference);
    eprintln!(
        "killed a fetch member and a writer with {at_kill} shards written; {} of {images} samples, none twice",
        reference.len()
    );
}
