//! The dedup stage in a real run: a site on 127.0.0.1 shows one image under two texts, a re-encoded
//! copy of it, a test-set image and one text on three different images; the pipeline crawls,
//! filters, fetches, dedups and writes, and the shards hold exactly what seeds 003 and 004 keep.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// A picture of 8×6 coloured blocks drawn from `seed`: strong low-frequency structure, so a
/// re-encoded copy keeps its perceptual hash within a few bits while another seed lands far away.
fn blocks(seed: u64, quality: u8) -> Vec<u8> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let colours: Vec<[u8; 3]> = (0..48)
        .map(|_| [rng.u8(..), rng.u8(..), rng.u8(..)])
        .collect();
    let img = image::RgbImage::from_fn(640, 480, |x, y| {
        image::Rgb(colours[(y / 80 * 8 + x / 80) as usize])
    });
    altflow::imaging::encode_jpeg(&img, quality).unwrap()
}

#[test]
fn texts_are_aggregated_per_image_and_duplicates_and_test_images_dropped() {
    let boat = blocks(1, 90);
    let boat_copy = blocks(1, 60);
    assert_ne!(boat, boat_copy, "the copy has other bytes");
    let test_image = blocks(2, 90);
    let lighthouse = blocks(3, 90);
    let gardens: Vec<Vec<u8>> = (10..13).map(|s| blocks(s, 90)).collect();

    let img = |alt: &str, src: &str| {
        format!("<img src=\"{src}\" alt=\"{alt}\" width=\"640\" height=\"480\">\n")
    };
    let page = format!(
        "<html lang=\"en\"><head><title>Boats</title></head><body><main>\n{}{}{}{}{}{}{}</main>\n\
         <footer>{}</footer></body></html>",
        img("a red boat on the calm blue lake", "/boat.jpg"),
        img("the boat in a small harbour at noon", "/boat-copy.jpg"),
        img("a green field under a grey sky", "/test.jpg"),
        img("a tall lighthouse by the sea", "/lighthouse.jpg"),
        img("a view of the garden", "/garden-1.jpg"),
        img("a view of the garden", "/garden-2.jpg"),
        img("a view of the garden", "/garden-3.jpg"),
        // The same image as boat.jpg under another URL and a shorter text, in the footer: a lower
        // dominance score, so the main text wins.
        img("a boat on the lake", "/same-boat.jpg"),
    );
    let jpeg = |bytes: &Vec<u8>| (200, vec![("content-type", "image/jpeg")], bytes.clone());
    let routes = BTreeMap::from([
        (
            "/index.html",
            (200, vec![("content-type", "text/html")], page.into_bytes()),
        ),
        ("/boat.jpg", jpeg(&boat)),
        ("/same-boat.jpg", jpeg(&boat)),
        ("/boat-copy.jpg", jpeg(&boat_copy)),
        ("/test.jpg", jpeg(&test_image)),
        ("/lighthouse.jpg", jpeg(&lighthouse)),
        ("/garden-1.jpg", jpeg(&gardens[0])),
        ("/garden-2.jpg", jpeg(&gardens[1])),
        ("/garden-3.jpg", jpeg(&gardens[2])),
    ]);
    let port = common::serve(routes);

    // The test set, written by `altflow hash` from the image file.
    let dir = tempfile::tempdir().unwrap();
    let test_file = dir.path().join("test.jpg");
    std::fs::write(&test_file, &test_image).unwrap();
    let hashes = common::stdout_of(
        Command::new(env!("CARGO_BIN_EXE_altflow"))
            .arg("hash")
            .arg(&test_file),
    );
    std::fs::write(dir.path().join("test-set.txt"), &hashes).unwrap();

    let pipeline = common::site_pipeline(
        dir.path(),
        port,
        r#""crawl", "filter", "fetch", "dedup", "write""#,
        "[http]\nallow_networks = [\"127.0.0.1/32\"]\nmin_host_delay = \"0ms\"\n\
         [filter]\npreset = \"cc12m\"\nrare_word_min_count = 0\n\
         [dedup]\nflush_after = \"1s\"\nmax_images_per_text = 2\ntest_sets = [\"test-set.txt\"]\n",
        "",
    );
    // One partition and an idle flush well above the time between two fetched images, so that all
    // eight pairs meet in one window. (Pairs are partitioned by image hash and each partition decides
    // its own window: with four, whether the three garden images met depended on their bytes' hashes,
    // and the expected counts held for one encoder's bytes only.)
    let toml = std::fs::read_to_string(&pipeline).unwrap();
    let toml = toml.replacen(
        "kind = \"embedded\"",
        "kind = \"embedded\"\npartitions = 1",
        1,
    );
    std::fs::write(&pipeline, toml).unwrap();
    let funnel = common::run_funnel(&pipeline);
    let row = common::funnel_row(&funnel, "dedup");
    let reasons: BTreeSet<&str> = row[4..].iter().map(String::as_str).collect();
    assert_eq!(
        (row[1].as_str(), row[2].as_str(), row[3].as_str()),
        ("8", "2", "6"),
        "{funnel}"
    );
    assert_eq!(
        reasons,
        BTreeSet::from([
            "better_text=1",
            "near_duplicate=1",
            "shared_text=3",
            "test_set=1"
        ]),
        "{funnel}"
    );

    let captions: BTreeSet<String> = common::shard_samples(&dir.path().join("out"))
        .iter()
        .map(|s| s["caption"].as_str().unwrap().to_string())
        .collect();
    assert!(
        captions.contains("a tall lighthouse by the sea"),
        "{captions:?}"
    );
    // One of the boat's two images is kept (the other is its near duplicate), never with the
    // footer's worse text.
    assert_eq!(captions.len(), 2, "{captions:?}");
    assert!(
        captions.contains("a red boat on the calm blue lake")
            || captions.contains("the boat in a small harbour at noon"),
        "{captions:?}"
    );
}

#[test]
fn a_missing_test_set_fails_the_run_at_start_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = dir.path().join("p.toml");
    std::fs::write(
        &pipeline,
        format!(
            "stages = [\"dedup\", \"write\"]\n[bus]\nkind = \"embedded\"\n\
             [dedup]\ntest_sets = [\"no-such-file.txt\"]\n[write]\noutput = {:?}\n",
            dir.path().join("out").to_str().unwrap()
        ),
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_altflow"))
        .arg("run")
        .arg(&pipeline)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("dedup.test_sets") && stderr.contains("no-such-file.txt"),
        "{stderr}"
    );
}
