//! End to end: the real binary crawling the bundled site over HTTP on 127.0.0.1, writing real files
//! that an independent reader (Python's tarfile and pyarrow, scripts/check_shards.py) checks.
//!
//! - the quickstart pipeline (README) (embedded bus) writes readable shards;
//! - pipelines/scored.toml scores every pair, selects the top share and writes the scores into the
//!   shards' JSON and the Parquet index;
//! - the same stages as separate `altflow stage` processes on a real broker yield the same sample ids,
//!   even when the writer is SIGKILLed mid-run and started again (no id lost, none twice).

mod common;

use std::collections::BTreeSet;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Samples the bundled site yields under pipelines/local.toml (CC12M's rules, see
/// examples/site/README.md): 16 JPEGs with a caption that passes, one of them on two pages with the
/// same alt.
const SITE_SAMPLES: usize = 15;

fn altflow() -> Command {
    Command::new(env!("CARGO_BIN_EXE_altflow"))
}

/// pipelines/local.toml, adapted to write into `dir` and serve the site on `site_port`.
fn local_pipeline(dir: &Path, site_port: u16) -> PathBuf {
    adapted_pipeline("local.toml", dir, site_port)
}

/// A pipeline of pipelines/, adapted to write into `dir` and serve the site on `site_port`.
fn adapted_pipeline(name: &str, dir: &Path, site_port: u16) -> PathBuf {
    let text = std::fs::read_to_string(common::root().join("pipelines").join(name)).unwrap();
    let site = common::root().join("examples/site");
    let text = text
        .replace(
            "dir = \"examples/site\"",
            &format!("dir = {:?}", site.to_str().unwrap()),
        )
        .replace(
            "listen = \"127.0.0.1:0\"",
            &format!("listen = \"127.0.0.1:{site_port}\""),
        )
        .replace(
            "output = \"file://./out\"",
            &format!("output = {:?}", dir.join("out").to_str().unwrap()),
        )
        .replace("listen = \"127.0.0.1:9898\"", "listen = \"127.0.0.1:0\"")
        .replace("listen = \"127.0.0.1:9897\"", "listen = \"127.0.0.1:0\"");
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn run_embedded(dir: &Path, site_port: u16) -> (String, BTreeSet<String>) {
    let pipeline = local_pipeline(dir, site_port);
    let funnel = common::stdout_of(altflow().arg("run").arg(&pipeline).current_dir(dir));
    let keys =
        common::check_shards(&dir.join("out")).unwrap_or_else(|e| panic!("shards unreadable: {e}"));
    (String::from_utf8_lossy(&funnel).into_owned(), keys)
}

#[test]
fn vqa_pipeline_writes_questions_that_webdataset_reads() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = adapted_pipeline("vqa.toml", dir.path(), common::free_port());
    let funnel = common::stdout_of(altflow().arg("run").arg(&pipeline).current_dir(dir.path()));
    let funnel = String::from_utf8_lossy(&funnel);
    let out = dir.path().join("out");
    // check_shards.py checks every KEY.qa.json and that the index's qa column matches it.
    let keys = common::check_shards(&out).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(keys.len(), SITE_SAMPLES);
    assert!(
        funnel.contains("questions:"),
        "no questions in the funnel:\n{funnel}"
    );
    // Python webdataset, as a trainer reads the shards: every sample has its questions.
    let script = r#"
import glob, json, sys, webdataset as wds
shards = sorted(glob.glob(sys.argv[1] + "/*.tar"))
n = q = 0
types = set()
for sample in wds.WebDataset(shards, shardshuffle=False).decode():
    qa = sample["qa.json"]
    assert all(p["question"].endswith("?") for p in qa), qa
    n += 1
    q += len(qa)
    types.update(p["answer_type"] for p in qa)
print(json.dumps({"samples": n, "qa": q, "types": sorted(types)}))
"#;
    let output = Command::new("python3")
        .args(["-c", script, out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "webdataset failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let read: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(read["samples"].as_u64().unwrap() as usize, SITE_SAMPLES);
    assert!(
        read["qa"].as_u64().unwrap() >= 3 * SITE_SAMPLES as u64,
        "{read}"
    );
    assert!(read["types"].as_array().unwrap().len() >= 4, "{read}");
}

#[test]
fn quickstart_pipeline_writes_shards_that_python_reads() {
    let dir = tempfile::tempdir().unwrap();
    let (funnel, keys) = run_embedded(dir.path(), common::free_port());
    assert_eq!(keys.len(), SITE_SAMPLES);
    // The site's planted failures each show up under their reason code.
    for reason in [
        "too_few_words=1",
        "http_4xx=1",
        "not_image=1",
        "aspect=1",
        "too_small=",
    ] {
        assert!(funnel.contains(reason), "funnel lacks {reason}:\n{funnel}");
    }
    // Two pages show the same image with the same text: the dedup stage drops the second as the
    // same sample when both arrive in one window, as an image already kept when they do not.
    assert!(
        funnel.contains("duplicate=1") || funnel.contains("duplicate_image=1"),
        "no duplicate dropped:\n{funnel}"
    );
    // max_records = 8 with 15 samples over 4 partitions: several shards.
    let tars = common::tar_count(&dir.path().join("out"));
    assert!(tars >= 2, "expected several shards, got {tars}");
    let inspected = altflow()
        .arg("inspect")
        .arg(
            dir.path().join("out").join(
                std::fs::read_dir(dir.path().join("out"))
                    .unwrap()
                    .find_map(|e| {
                        let name = e.unwrap().file_name().into_string().unwrap();
                        name.ends_with(".tar").then_some(name)
                    })
                    .unwrap(),
            ),
        )
        .arg("--json")
        .output()
        .unwrap();
    assert!(inspected.status.success());
    let first: serde_json::Value = serde_json::from_str(
        String::from_utf8_lossy(&inspected.stdout)
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert!(keys.contains(first["key"].as_str().unwrap()));
    assert!(first["jpg_bytes"].as_u64().unwrap() > 1000);
}

#[test]
fn scored_pipeline_writes_scores_into_shards_and_index() {
    use arrow_array::{Array, Float32Array, ListArray};

    let dir = tempfile::tempdir().unwrap();
    let root = common::root();
    // GloVe vectors for the test, so that it needs no download: a vector per COCO name and per
    // word of the site's captions, random but fixed.
    let mut rng = fastrand::Rng::with_seed(5);
    let mut words: BTreeSet<String> = altflow::score::COCO_LABELS
        .iter()
        .flat_map(|l| l.split(' '))
        .map(String::from)
        .collect();
    for page in [
        "index.html",
        "articles/sea-and-boats.html",
        "articles/countryside.html",
    ] {
        let html = std::fs::read_to_string(root.join("examples/site").join(page)).unwrap();
        words.extend(
            html.split(|c: char| !c.is_ascii_alphabetic())
                .map(str::to_lowercase),
        );
    }
    let glove: String = words
        .iter()
        .filter(|w| !w.is_empty())
        .map(|w| format!("{w} {} {} {}\n", rng.f32(), rng.f32(), rng.f32()))
        .collect();
    std::fs::write(dir.path().join("glove.txt"), glove).unwrap();

    let text = std::fs::read_to_string(root.join("pipelines/scored.toml")).unwrap();
    let at = |relative: &str| format!("{:?}", root.join(relative).to_str().unwrap());
    let text = text
        .replace(
            "dir = \"examples/site\"",
            &format!("dir = {}", at("examples/site")),
        )
        .replace(
            "listen = \"127.0.0.1:0\"",
            &format!("listen = \"127.0.0.1:{}\"", common::free_port()),
        )
        .replace(
            "output = \"file://./out\"",
            &format!("output = {:?}", dir.path().join("out").to_str().unwrap()),
        )
        .replace("listen = \"127.0.0.1:9899\"", "listen = \"127.0.0.1:0\"")
        .replace("\"../.tools/glove/glove_6B_50d_emb.npy\"", "\"glove.txt\"")
        // Every other path of the file is relative to pipelines/, the file now lives elsewhere.
        .replace("\"../", &format!("\"{}/", root.display()));
    // The NSFW model and ONNX Runtime come from wheels scripts/test.sh unpacks; without them (and
    // outside CI) the pipeline runs without the score.
    let nsfw = root.join(".tools/nsfw/open-nsfw.onnx").exists()
        && root
            .join(".tools/onnxruntime/libonnxruntime.so.1.31.1")
            .exists();
    assert!(nsfw || !common::services_required(), "run scripts/test.sh");
    let text = if nsfw {
        text
    } else {
        text.lines()
            .filter(|l| !l.starts_with("nsfw_model") && !l.starts_with("onnxruntime"))
            .map(|l| l.replace(", \"nsfw\"]", "]") + "\n")
            .collect()
    };
    let pipeline = dir.path().join("scored.toml");
    std::fs::write(&pipeline, text).unwrap();

    let funnel = String::from_utf8_lossy(&common::stdout_of(
        altflow().arg("run").arg(&pipeline).current_dir(dir.path()),
    ))
    .into_owned();
    let keys = common::check_shards(&dir.path().join("out")).unwrap_or_else(|e| panic!("{e}"));
    // The score stage saw every fetched pair and kept about 70 % of them by CLIP similarity.
    let row = common::funnel_row(&funnel, "score");
    let (seen, kept): (usize, usize) = (row[1].parse().unwrap(), row[2].parse().unwrap());
    assert_eq!(seen, SITE_SAMPLES + 1, "{funnel}");
    assert!(kept < seen && kept * 10 >= seen * 5, "{funnel}");
    assert!(funnel.contains("low_score="), "{funnel}");
    assert!(!keys.is_empty() && keys.len() <= kept);

    // Every index row carries the three scores and its zero-shot labels.
    let mut rows = 0;
    for entry in std::fs::read_dir(dir.path().join("out")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "parquet") {
            continue;
        }
        let file = std::fs::File::open(&path).unwrap();
        let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap();
        for batch in reader {
            let batch = batch.unwrap();
            rows += batch.num_rows();
            for name in altflow::score::SCORES {
                if name == "nsfw" && !nsfw {
                    continue;
                }
                let column = batch.column_by_name(name).unwrap();
                let values = column.as_any().downcast_ref::<Float32Array>().unwrap();
                assert_eq!(values.null_count(), 0, "{name} has nulls in {path:?}");
            }
            let clip = batch.column_by_name("clip_similarity").unwrap();
            let clip = clip.as_any().downcast_ref::<Float32Array>().unwrap();
            assert!(clip.iter().flatten().all(|s| (-1.0..=1.0).contains(&s)));
            let labels = batch.column_by_name("labels").unwrap();
            let labels = labels.as_any().downcast_ref::<ListArray>().unwrap();
            assert!((0..labels.len()).all(|i| !labels.value(i).is_empty()));
        }
    }
    assert_eq!(rows, keys.len());
    // The shards' JSON has the same scores, and each sample its CLIP embedding as KEY.npy.
    let inspected = altflow()
        .arg("inspect")
        .arg(
            std::fs::read_dir(dir.path().join("out"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| p.extension().is_some_and(|e| e == "tar"))
                .unwrap(),
        )
        .arg("--json")
        .output()
        .unwrap();
    assert!(inspected.status.success());
    let tar_listing = String::from_utf8_lossy(&inspected.stdout);
    assert!(tar_listing.contains("clip_similarity"), "{tar_listing}");
}

#[test]
fn validate_names_the_bad_key_and_file() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = local_pipeline(dir.path(), 1);
    let text = std::fs::read_to_string(&pipeline)
        .unwrap()
        .replace("max_records = 8", "max_record = 8");
    std::fs::write(&pipeline, text).unwrap();
    let output = altflow().arg("validate").arg(&pipeline).output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("max_record") && stderr.contains("local.toml"),
        "{stderr}"
    );

    // The shipped Kafka pipelines: the local one, Common Crawl's and the cluster's (k8s/).
    for shipped in [
        "pipelines/kafka.toml",
        "pipelines/common-crawl.toml",
        "pipelines/common-crawl-selection.toml",
        "k8s/base/pipeline.toml",
    ] {
        common::stdout_of(altflow().arg("validate").arg(common::root().join(shipped)));
    }
}

fn kafka_pipeline(dir: &Path, brokers: &str, site_port: u16) -> PathBuf {
    let text = std::fs::read_to_string(common::root().join("pipelines/kafka.toml")).unwrap();
    let site = common::root().join("examples/site");
    let text = text
        .replace(
            "brokers = \"127.0.0.1:9092\"",
            &format!("brokers = \"{brokers}\""),
        )
        .replace(
            "prefix = \"altflow.\"",
            &format!("prefix = \"{}.\"", common::random_name("e2e")),
        )
        .replace(
            "commit_interval = \"1s\"",
            &format!(
                "commit_interval = \"1s\"\ngroup_prefix = \"{}\"",
                common::random_name("grp")
            ),
        )
        .replace(
            "dir = \"examples/site\"",
            &format!("dir = {:?}", site.to_str().unwrap()),
        )
        .replace(
            "listen = \"127.0.0.1:8700\"",
            &format!("listen = \"127.0.0.1:{site_port}\""),
        )
        .replace(
            "output = \"file://./out-kafka\"",
            &format!("output = {:?}", dir.join("out").to_str().unwrap()),
        )
        // Small shards, so the writer is killed with some shards written and others open.
        .replace("max_records = 8", "max_records = 2");
    let path = dir.join("kafka.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn logs(dir: &Path) -> String {
    let mut all = String::new();
    for name in ["crawl", "filter", "fetch", "dedup", "write", "write-again"] {
        if let Ok(text) = std::fs::read_to_string(dir.join(format!("{name}.log"))) {
            let tail: Vec<&str> = text.lines().rev().take(15).collect();
            all += &format!(
                "--- {name}\n{}\n",
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            );
        }
    }
    all
}

#[test]
fn stage_processes_on_kafka_match_the_embedded_run_across_a_writer_kill() {
    let Some(brokers) = common::kafka_broker() else {
        return;
    };
    // Image URLs include the site's address, and sample ids hash the image URL: both runs use the
    // same port, one after the other.
    let site_port = common::free_port();
    let reference_dir = tempfile::tempdir().unwrap();
    let (_, reference) = run_embedded(reference_dir.path(), site_port);
    assert_eq!(reference.len(), SITE_SAMPLES);

    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let pipeline = kafka_pipeline(dir, &brokers, site_port);
    let pipeline = pipeline.to_str().unwrap();
    let out = dir.join("out");

    let _site = common::Proc::spawn("site", dir, &["serve-site", "--pipeline", pipeline]);
    common::wait_for("the sample site", Duration::from_secs(20), || {
        TcpStream::connect(("127.0.0.1", site_port)).is_ok()
    });
    common::stdout_of(altflow().args(["topics", "create", "--pipeline", pipeline]));

    let mut stages = [
        common::Proc::spawn("crawl", dir, &["stage", "crawl", "--pipeline", pipeline]),
        common::Proc::spawn("filter", dir, &["stage", "filter", "--pipeline", pipeline]),
        common::Proc::spawn("fetch", dir, &["stage", "fetch", "--pipeline", pipeline]),
        common::Proc::spawn("dedup", dir, &["stage", "dedup", "--pipeline", pipeline]),
    ];
    let mut writer = common::Proc::spawn("write", dir, &["stage", "write", "--pipeline", pipeline]);
    common::stdout_of(altflow().args(["seed", "--pipeline", pipeline]));

    // Kill the writer as soon as it has written its first shard.
    let deadline = Instant::now() + Duration::from_secs(120);
    while common::tar_count(&out) == 0 {
        assert!(
            Instant::now() < deadline,
            "no shard written:\n{}",
            logs(dir)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    writer.child.kill().unwrap(); // SIGKILL
    writer.child.wait().unwrap();
    let written_before_kill = common::tar_count(&out);
    let mut writer = common::Proc::spawn(
        "write-again",
        dir,
        &["stage", "write", "--pipeline", pipeline],
    );

    let deadline = Instant::now() + Duration::from_secs(180);
    let mut last = Err(String::new());
    while last.as_ref() != Ok(&reference) {
        assert!(
            Instant::now() < deadline,
            "kafka run never matched the embedded run (had {written_before_kill} shard(s) at the kill); last check: {last:?}\n{}",
            logs(dir)
        );
        std::thread::sleep(Duration::from_millis(500));
        last = common::check_shards(&out);
    }

    // Every stage drains and exits 0 on SIGTERM.
    for proc in stages.iter_mut().chain(std::iter::once(&mut writer)) {
        let status = proc.terminate(Duration::from_secs(60));
        assert!(
            status.success(),
            "{} exited with {status}:\n{}",
            proc.name,
            logs(dir)
        );
    }
    // And after the drain the output is still exactly the reference: nothing lost, nothing twice.
    assert_eq!(common::check_shards(&out).unwrap(), reference);
    let kept = std::fs::read_to_string(dir.join("write-again.log"))
        .unwrap()
        .matches("keeping a shard landed but not committed")
        .count();
    eprintln!(
        "writer killed with {written_before_kill} shard(s) written; after restart it kept {kept} uncommitted shard(s)"
    );
}

#[test]
fn follow_mode_keeps_streaming_and_stops_cleanly_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = local_pipeline(dir.path(), common::free_port());
    let stdout = std::fs::File::create(dir.path().join("stdout")).unwrap();
    let child = altflow()
        .arg("run")
        .arg(&pipeline)
        .arg("--follow")
        .current_dir(dir.path())
        .stdout(stdout)
        .stderr(std::fs::File::create(dir.path().join("run.log")).unwrap())
        .spawn()
        .unwrap();
    let mut run = common::Proc { name: "run", child };
    // Shards appear through the idle flush (write.flush_after) while the run keeps going.
    let out = dir.path().join("out");
    common::wait_for("all samples in shards", Duration::from_secs(60), || {
        common::check_shards(&out).is_ok_and(|keys| keys.len() == SITE_SAMPLES)
    });
    assert!(
        run.child.try_wait().unwrap().is_none(),
        "--follow must not exit by itself"
    );
    let status = run.terminate(Duration::from_secs(30));
    assert!(status.success(), "exit status {status}");
    let printed = std::fs::read_to_string(dir.path().join("stdout")).unwrap();
    assert!(
        printed.contains("funnel") && printed.contains("write"),
        "{printed}"
    );
}

#[test]
fn quickstart_pipeline_writes_to_s3() {
    let Some(endpoint) = common::s3_endpoint() else {
        return;
    };
    let bucket = common::random_name("shards");
    common::create_bucket(&endpoint, &bucket);

    let dir = tempfile::tempdir().unwrap();
    let pipeline = local_pipeline(dir.path(), common::free_port());
    let local_out = format!("output = {:?}", dir.path().join("out").to_str().unwrap());
    let text = std::fs::read_to_string(&pipeline).unwrap().replace(
        &local_out,
        &format!(
            "output = \"s3://{bucket}/crawl-1\"\nstore_options = {{ aws_endpoint = \"{endpoint}\", \
             aws_allow_http = \"true\", aws_region = \"us-east-1\", aws_access_key_id = \"test\", \
             aws_secret_access_key = \"test\" }}"
        ),
    );
    std::fs::write(&pipeline, text).unwrap();
    let run = altflow()
        .arg("run")
        .arg(&pipeline)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        stdout.contains(&format!("in s3://{bucket}/crawl-1")),
        "{stdout}"
    );
    assert!(!dir.path().join("out").exists(), "nothing written locally");

    // List the bucket, then read every shard back with `altflow inspect`, credentials from the
    // environment.
    let options = common::s3_options(&endpoint);
    let store = altflow::writer::store::Store::open(
        &format!("s3://{bucket}/crawl-1"),
        options.iter().map(|(k, v)| (k, v)),
    )
    .unwrap();
    let listed: Vec<object_store::ObjectMeta> = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(futures::TryStreamExt::try_collect(
            store.inner.list(Some(&store.prefix)),
        ))
        .unwrap();
    let shards: Vec<String> = listed
        .iter()
        .map(|m| format!("s3://{bucket}/{}", m.location))
        .filter(|url| url.ends_with(".tar"))
        .collect();
    let (failures, shard_objects): (Vec<_>, Vec<_>) = listed
        .iter()
        .partition(|m| m.location.as_ref().contains("/failures/"));
    assert_eq!(
        shard_objects.len(),
        2 * shards.len(),
        "a Parquet index per tar"
    );
    // The sample site's planted failures were kept in the bucket too.
    assert!(!failures.is_empty(), "no failures files in {listed:?}");
    let mut keys = BTreeSet::new();
    for shard in &shards {
        let inspected = altflow()
            .args(["inspect", shard, "--json"])
            .env("AWS_ENDPOINT", &endpoint)
            .env("AWS_ALLOW_HTTP", "true")
            .env("AWS_REGION", "us-east-1")
            .env("AWS_ACCESS_KEY_ID", "test")
            .env("AWS_SECRET_ACCESS_KEY", "test")
            .output()
            .unwrap();
        assert!(
            inspected.status.success(),
            "{}",
            String::from_utf8_lossy(&inspected.stderr)
        );
        for line in String::from_utf8_lossy(&inspected.stdout).lines() {
            let sample: serde_json::Value = serde_json::from_str(line).unwrap();
            keys.insert(sample["key"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(keys.len(), SITE_SAMPLES);
}
