//! Throughput of the spine's hot paths, each on one core:
//! - `record`: encoding and decoding a sample carrying a 40 KB JPEG;
//! - `embedded_bus`: producing and consuming 1 KiB messages through 4 partitions;
//! - `writer`: building a 100-sample shard (tar + Parquet index) into an in-memory object store;
//! - `resize`: the image crate's resizer against fast_image_resize (SIMD), side by side, and the
//!   perceptual hash;
//! - `fetch_image`: the JPEG encoders side by side (the image crate's, jpeg-encoder, and the build's
//!   own: libjpeg-turbo where build.rs found it), and the fetch stage's CPU work (decode, resize to
//!   512 px, re-encode, hash) on a 640x480 and a 1200x800 JPEG.
//! - `html`: candidate and link extraction from HTML, in bytes per second.
//! - `sitemap`: reading a protocol-maximum sitemap (50,000 URLs with `<lastmod>`, 6.7 MB), plain
//!   and gzip-compressed, in entries per second.
//! - `filter`: the text chains of the cc12m and alt200m presets over real alt texts (fetched by
//!   `scripts/fetch_captions.sh`; skipped without them);
//! - `cc_index`: a selection through a columnar index in Common Crawl's shape (400k rows, sorted
//!   by host as Common Crawl's is), on a sorted column (row groups pruned by their statistics)
//!   and on an unsorted one (every row read), in index rows per second.
//! - `dedup`: the dedup stage's near-duplicate search among 100k kept perceptual hashes.
//! - `relatedness`: seed 001's TF-IDF relatedness of one document to a downstream set of 1k and of
//!   100k texts, side by side (its cost must not grow with the set).
//!
//! Run: `cargo bench --bench pipeline`. Figures are quoted in docs/performance.md.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use altflow::bus::embedded::EmbeddedBus;
use altflow::bus::{Bus, OutMessage, TopicSpec};
use altflow::config::{FetchConfig, WriteConfig};
use altflow::record::{Candidate, Image, Record, Sample, sample_id};
use altflow::stage::{Emitter, Input, Stage};
use altflow::stages::fetch::process_image;
use altflow::writer::WriterStage;
use altflow::writer::store::Store;
use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn sample(n: usize, jpeg: &[u8]) -> Sample {
    let url = format!("https://example.com/images/{n}.jpg");
    let alt = format!("a red sailing boat on a calm blue lake at sunset, picture {n}");
    Sample {
        candidate: Some(Candidate {
            id: sample_id(&url, &alt),
            page_url: "https://example.com/gallery.html".into(),
            image_url: url,
            alt,
            page_title: "Gallery".into(),
            depth: 1,
            ..Default::default()
        }),
        image: Some(Image {
            jpeg: jpeg.to_vec(),
            width: 512,
            height: 384,
            original_width: 1200,
            original_height: 800,
            original_format: "jpeg".into(),
            original_bytes: 180_000,
            sha256: vec![7; 32],
            phash: 0x0123_4567_89ab_cdef,
        }),
        ..Default::default()
    }
}

fn record(c: &mut Criterion) {
    let s = sample(1, &vec![0xab; 40_000]);
    let bytes = s.to_bytes();
    let mut group = c.benchmark_group("record");
    group.throughput(Throughput::Elements(1));
    group.bench_function("encode_40KB_sample", |b| {
        b.iter(|| black_box(&s).to_bytes())
    });
    group.bench_function("decode_40KB_sample", |b| {
        b.iter(|| Sample::from_bytes(black_box(&bytes)).unwrap())
    });
    group.finish();
}

fn embedded_bus(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    const N: usize = 10_000;
    let mut group = c.benchmark_group("embedded_bus");
    group.throughput(Throughput::Elements(N as u64));
    group.bench_function("produce_consume_10k_1KiB", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let bus = EmbeddedBus::new(1024);
                bus.create_topics(&[TopicSpec {
                    name: "t".into(),
                    partitions: 4,
                }])
                .await
                .unwrap();
                let mut consumer = bus.consumer("g", &["t".into()]).await.unwrap();
                let producer = bus.producer().unwrap();
                let payload = Bytes::from(vec![1u8; 1024]);
                let topic: Arc<str> = Arc::from("t");
                let mut received = 0;
                for chunk in 0..N / 500 {
                    let batch = (0..500)
                        .map(|i| OutMessage {
                            topic: topic.clone(),
                            key: Bytes::from((chunk * 500 + i).to_string()),
                            payload: payload.clone(),
                        })
                        .collect();
                    producer.send_all(batch).await.unwrap();
                    while received < (chunk + 1) * 500 {
                        let got = consumer
                            .poll(1000, Duration::from_millis(10))
                            .await
                            .unwrap();
                        if let Some(last) = got.last() {
                            consumer
                                .store_offset("t", last.partition, last.offset + 1)
                                .unwrap();
                        }
                        received += got.len();
                    }
                }
                received
            })
        })
    });
    group.finish();
}

fn writer(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let jpeg = vec![0xab; 40_000];
    let samples: Vec<Input<Sample>> = (0..100)
        .map(|n| Input {
            record: sample(n, &jpeg),
            topic: Arc::from("pairs"),
            partition: 0,
            offset: n as i64,
        })
        .collect();
    let config = WriteConfig {
        output: "memory://".into(),
        store_options: Default::default(),
        max_records: 100,
        max_bytes: 1 << 30,
        flush_after: Duration::from_secs(3600),
        max_age: Duration::from_secs(3600),
        dedup_window: 100_000,
        fencing: false,
    };
    let mut group = c.benchmark_group("writer");
    group.throughput(Throughput::Elements(100));
    group.bench_function("shard_of_100_40KB_samples", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let store = Store::open("memory://", std::iter::empty()).unwrap();
                let mut stage = WriterStage::new(store, config.clone(), Arc::from("shards"));
                let mut out = Emitter::new(
                    "write",
                    Arc::from("rejects"),
                    Arc::from("retry"),
                    Arc::from("dead"),
                );
                stage.process(samples.clone(), &mut out).await.unwrap();
            })
        })
    });
    group.finish();
}

fn resize(c: &mut Criterion) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/site/img/sunset-sea.jpg"
    );
    let original = image::load_from_memory(&std::fs::read(path).unwrap())
        .unwrap()
        .into_rgb8();
    let mut group = c.benchmark_group("resize_1200x800_to_512");
    group.throughput(Throughput::Elements(1));
    group.bench_function("image_crate_triangle", |b| {
        b.iter(|| {
            image::imageops::resize(
                black_box(&original),
                512,
                341,
                image::imageops::FilterType::Triangle,
            )
        })
    });
    group.bench_function("fast_image_resize_bicubic", |b| {
        b.iter(|| altflow::imaging::resize(black_box(&original), 512, 341))
    });
    group.bench_function("perceptual_hash_of_512px", |b| {
        let small = altflow::imaging::resize(&original, 512, 341);
        b.iter(|| altflow::imaging::perceptual_hash(black_box(&small)))
    });
    group.finish();
}

fn fetch_image(c: &mut Criterion) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/site/img/sunset-sea.jpg"
    );
    let original = std::fs::read(path).unwrap();
    let decoded = image::load_from_memory(&original).unwrap().into_rgb8();
    // The size the issue's target is stated for: a 640x480 JPEG (quality 90).
    let vga = image::imageops::resize(&decoded, 640, 480, image::imageops::FilterType::Triangle);
    let vga_jpeg = altflow::imaging::encode_jpeg(&vga, 90).unwrap();
    let vga_rgba = image::DynamicImage::ImageRgb8(vga).into_rgba8();
    // The fetch stage works on opaque RGBA (see `imaging::Decoder`).
    let small = image::DynamicImage::ImageRgb8(altflow::imaging::resize(&decoded, 512, 341));
    let small_rgb = small.to_rgb8();
    let small_rgba = small.to_rgba8();
    let config = FetchConfig::default();
    let rules = altflow::filter::Rules::of(altflow::filter::Preset::Cc12m).image();
    let mut group = c.benchmark_group("fetch_image");
    group.throughput(Throughput::Elements(1));
    group.sample_size(20);
    group.bench_function("encode_512px_image_crate", |b| {
        b.iter(|| {
            let mut jpeg = Vec::new();
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 90)
                .encode_image(black_box(&small_rgb))
                .unwrap();
            jpeg
        })
    });
    group.bench_function("encode_512px_jpeg_encoder", |b| {
        b.iter(|| altflow::imaging::encode_jpeg_rust(black_box(&small_rgba), 90).unwrap())
    });
    // The encoder of this build: libjpeg-turbo, or jpeg-encoder again where it is missing.
    group.bench_function(
        format!("encode_512px_{}", altflow::imaging::JPEG_ENCODER),
        |b| b.iter(|| altflow::imaging::encode_jpeg(black_box(&small_rgba), 90).unwrap()),
    );
    group.bench_function("decode_640x480", |b| {
        b.iter(|| {
            altflow::imaging::Decoder::new(black_box(&vga_jpeg), image::ImageFormat::Jpeg)
                .unwrap()
                .decode_opaque(u64::MAX)
                .unwrap()
        })
    });
    group.bench_function("resize_640x480_to_512", |b| {
        b.iter(|| altflow::imaging::resize(black_box(&vga_rgba), 512, 384))
    });
    group.bench_function("decode_resize_encode_640x480_to_512", |b| {
        b.iter(|| process_image(black_box(&vga_jpeg), &config, &rules).unwrap())
    });
    group.bench_function("decode_resize_encode_1200x800_to_512", |b| {
        b.iter(|| process_image(black_box(&original), &config, &rules).unwrap())
    });
    group.finish();
}

fn html(c: &mut Criterion) {
    // The sample site's six pages, one after another in one document (16 KB).
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/site");
    let mut page = std::fs::read(format!("{dir}/index.html")).unwrap();
    let mut articles: Vec<_> = std::fs::read_dir(format!("{dir}/articles"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    articles.sort();
    for article in articles {
        page.extend(std::fs::read(article).unwrap());
    }
    let url = url::Url::parse("https://example.com/articles/page.html").unwrap();
    let extract = |page: &[u8]| {
        let extracted = altflow::web::html::extract(page, &url);
        let candidates: Vec<_> = extracted
            .images
            .iter()
            .map(|image| altflow::web::html::candidate(image, &extracted, &url, 1))
            .collect();
        (candidates, extracted.links.len())
    };
    let mut group = c.benchmark_group("html");
    // A 16 KB page, and the same content six times over (96 KB, nearer the median web page): the
    // fixed cost of setting up the parser weighs less on the larger one.
    for copies in [1, 6] {
        let document = page.repeat(copies);
        group.throughput(Throughput::Bytes(document.len() as u64));
        group.bench_function(format!("extract_{}KB", document.len() / 1000), |b| {
            b.iter(|| extract(black_box(&document)))
        });
    }
    group.throughput(Throughput::Elements(1));
    group.bench_function("extract_empty_page", |b| {
        b.iter(|| extract(black_box(b"<p>x</p>")))
    });
    group.finish();
}

fn sitemap(c: &mut Criterion) {
    use std::io::Write;
    let entries: String = (0..50_000)
        .map(|i| {
            format!(
                "<url><loc>https://www.example.com/news/2026/11/{i}/a-story-about-{i}.html</loc>\
                 <lastmod>2026-11-25T10:{:02}:00+00:00</lastmod></url>\n",
                i % 60
            )
        })
        .collect();
    let xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n{entries}</urlset>\n"
    );
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(xml.as_bytes()).unwrap();
    let gzip = gzip.finish().unwrap();
    let mut group = c.benchmark_group("sitemap");
    group.throughput(Throughput::Elements(50_000));
    group.sample_size(20);
    for (name, body) in [
        ("urlset_50k", xml.as_bytes()),
        ("urlset_50k_gzip", &gzip[..]),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let read = altflow::web::sitemap::parse(black_box(body), 50 << 20, 50_000);
                assert_eq!(read.pages.len(), 50_000);
            })
        });
    }
    group.finish();
}

/// A WAT file in Common Crawl's shape, in memory: `records` metadata records, each its own gzip
/// member, each page with 10 image links (alt text included) and 30 other links.
fn wat_file(records: usize) -> Vec<u8> {
    use std::io::Write;
    let mut file = Vec::new();
    for r in 0..records {
        let page = format!("https://news{}.example.com/2026/11/story-{r}.html", r % 97);
        let mut links: Vec<serde_json::Value> = (0..10)
            .map(|i| {
                serde_json::json!({"path": "IMG@/src", "url": format!("/images/{r}/{i}.jpg"),
                    "alt": format!("a photo of item {i} on page {r} with a few words")})
            })
            .collect();
        links.extend((0..30).map(|i| {
            serde_json::json!({"path": "A@/href", "url": format!("/section/{i}/{r}"),
                "text": format!("section {i}")})
        }));
        let json = serde_json::json!({"Envelope": {
            "WARC-Header-Metadata": {"WARC-Target-URI": page},
            "Payload-Metadata": {"HTTP-Response-Metadata": {"HTML-Metadata": {"Links": links}}}
        }})
        .to_string();
        let record = format!(
            "WARC/1.0\r\nWARC-Type: metadata\r\nWARC-Target-URI: {page}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{json}\r\n\r\n",
            json.len()
        );
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gzip.write_all(record.as_bytes()).unwrap();
        file.extend(gzip.finish().unwrap());
    }
    file
}

/// Reading a WAT file: inflating alone (the floor), the whole-file reader `altflow extract`
/// uses, and the extract stage's segment reader (member by member, so that each member's end is a
/// checkpoint), with the candidates made from every record.
fn archive(c: &mut Criterion) {
    use altflow::sources::ArchiveCandidates;
    use altflow::sources::archive::{MAX_RECORD_BYTES, read_segment};
    use std::io::Read;
    let records = 2_000;
    let file = wat_file(records);
    let mut group = c.benchmark_group("wat_2000_records");
    group.throughput(Throughput::Bytes(file.len() as u64));
    group.sample_size(20);
    group.bench_function("inflate_only", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            flate2::read::MultiGzDecoder::new(black_box(&file[..]))
                .read_to_end(&mut out)
                .unwrap();
            out.len()
        })
    });
    // The whole-file reader takes a `'static` input.
    let leaked: &'static [u8] = Box::leak(file.clone().into_boxed_slice());
    group.bench_function("whole_file_reader", |b| {
        let candidates = ArchiveCandidates::new(None);
        b.iter(|| {
            let reader = altflow::web::warc::reader(black_box(leaked), MAX_RECORD_BYTES);
            let mut found = 0;
            for record in reader.unwrap() {
                found += candidates.of_record(&record.unwrap()).len();
            }
            assert_eq!(found, records * 10);
        })
    });
    group.bench_function("segment_reader", |b| {
        let candidates = ArchiveCandidates::new(None);
        b.iter(|| {
            let mut found = 0;
            let read = read_segment(
                black_box(&file[..]),
                0,
                u64::MAX,
                MAX_RECORD_BYTES,
                |record| {
                    found += candidates.of_record(&record).len();
                    true
                },
            )
            .unwrap();
            assert_eq!((read.records, found), (records as u64, records * 10));
        })
    });
    group.finish();
}

/// Writes an index of `rows` rows in Common Crawl's columns and order (hosts sorted, so the TLD is
/// too; languages mixed) to `path`, in row groups of 20,000.
fn cc_index(path: &std::path::Path, rows: usize) {
    use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
    const TLDS: [&str; 10] = ["at", "br", "com", "de", "fr", "it", "jp", "nl", "org", "uk"];
    const LANGUAGES: [&str; 5] = ["deu", "eng", "fra", "jpn", "eng,deu"];
    let tld = |i: usize| TLDS[i * TLDS.len() / rows];
    let batch = RecordBatch::try_from_iter([
        (
            "url",
            Arc::new(StringArray::from_iter_values((0..rows).map(|i| {
                format!("https://www.site{}.{}/articles/{i}/page.html", i / 50, tld(i))
            }))) as ArrayRef,
        ),
        (
            "url_host_tld",
            Arc::new(StringArray::from_iter_values((0..rows).map(tld))),
        ),
        (
            "content_languages",
            Arc::new(StringArray::from_iter_values(
                (0..rows).map(|i| LANGUAGES[(i * 7 + i / 3) % LANGUAGES.len()]),
            )),
        ),
        (
            "warc_filename",
            Arc::new(StringArray::from_iter_values((0..rows).map(|i| {
                format!(
                    "crawl-data/CC-MAIN-2024-10/segments/1707947473347.0/warc/CC-MAIN-{:05}.warc.gz",
                    (i * 7919) % 1000
                )
            }))),
        ),
        (
            "warc_record_offset",
            Arc::new(Int32Array::from_iter_values(
                (0..rows).map(|i| (i as i32).wrapping_mul(40_503) & 0x3fff_ffff),
            )),
        ),
        (
            "warc_record_length",
            Arc::new(Int32Array::from_iter_values(
                (0..rows).map(|i| 20_000 + (i % 9_000) as i32),
            )),
        ),
    ])
    .unwrap();
    let properties = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(20_000))
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut writer =
        parquet::arrow::ArrowWriter::try_new(file, batch.schema(), Some(properties)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

fn index_selection(c: &mut Criterion) {
    use altflow::sources::index::Selection;
    let rows = 400_000;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("part-00000.c000.gz.parquet");
    cc_index(&path, rows);
    let index = vec![path.to_string_lossy().into_owned()];
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let mut group = c.benchmark_group("cc_index_400k_rows");
    group.throughput(Throughput::Elements(rows as u64));
    group.sample_size(10);
    for (name, condition) in [
        ("sorted_column_tld_de", "url_host_tld = 'de'"),
        ("unsorted_column_language_deu", "content_languages = 'deu'"),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                runtime.block_on(async {
                    let options = Default::default();
                    let mut selection =
                        Selection::open(&index, condition, "s3://commoncrawl/", &options, "bench")
                            .await
                            .unwrap();
                    let mut records = 0;
                    while let Some(groups) = selection.next().await.unwrap() {
                        records += groups.iter().map(|g| g.ranges.len() / 2).sum::<usize>();
                    }
                    // A tenth of the hosts, a fifth of the languages (every row's language is
                    // one of five, taken in turn).
                    assert!(records > rows / 20 && records < rows / 4, "{records}");
                    records
                })
            })
        });
    }
    group.finish();
}

fn filter(c: &mut Criterion) {
    use altflow::filter::{Preset, Rules, TextFilter};
    let mut group = c.benchmark_group("filter");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/.tools/captions/alts.txt");
    match std::fs::read_to_string(path) {
        Err(_) => {
            eprintln!("filter: no {path}; run scripts/fetch_captions.sh to bench the presets")
        }
        Ok(text) => {
            let captions: Vec<&str> = text.lines().collect();
            group.throughput(Throughput::Elements(captions.len() as u64));
            for preset in [Preset::Cc12m, Preset::Alt200m] {
                // One filter for all iterations: its sketches keep counting, as in a long stream.
                let mut filter = TextFilter::new(Rules::of(preset));
                group.bench_function(format!("{preset:?}_real_alt_texts").to_lowercase(), |b| {
                    b.iter(|| {
                        captions
                            .iter()
                            .filter(|alt| filter.check(black_box(alt)).accepted())
                            .count()
                    })
                });
            }
        }
    }
    group.finish();
}

fn dedup(c: &mut Criterion) {
    // 100k kept perceptual hashes, queries at distance 4: the dedup stage's lookup per image.
    let mut group = c.benchmark_group("dedup");
    let mut rng = fastrand::Rng::with_seed(3);
    let mut index = altflow::bounded::NearIndex::new(4, 100_000);
    for _ in 0..100_000 {
        index.insert(rng.u64(..));
    }
    let queries: Vec<u64> = (0..1000).map(|_| rng.u64(..)).collect();
    group.throughput(Throughput::Elements(queries.len() as u64));
    group.bench_function("near_duplicate_lookup_in_100k", |b| {
        b.iter(|| queries.iter().filter(|&&q| index.find(q).is_some()).count())
    });
    group.finish();
}

fn relatedness(c: &mut Criterion) {
    use altflow::score::relatedness::{IdfTable, Relatedness};
    // Synthetic text with a Zipf-like vocabulary of 20k words: 8–16 words a document.
    let mut rng = fastrand::Rng::with_seed(5);
    let text = |rng: &mut fastrand::Rng| -> String {
        (0..rng.usize(8..16))
            .map(|_| {
                let rank = (20_000f64.powf(rng.f64())) as usize;
                format!("w{rank}")
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut idf = IdfTable::default();
    for _ in 0..50_000 {
        idf.add_document(&text(&mut rng));
    }
    let documents: Vec<String> = (0..1000).map(|_| text(&mut rng)).collect();
    let mut group = c.benchmark_group("relatedness");
    group.throughput(Throughput::Elements(documents.len() as u64));
    for size in [1_000, 100_000] {
        let downstream: Vec<String> = (0..size).map(|_| text(&mut rng)).collect();
        let scorer = Relatedness::new(idf.clone(), downstream.iter().map(String::as_str));
        group.bench_function(format!("1000_documents_against_{size}_downstream"), |b| {
            b.iter(|| documents.iter().map(|d| scorer.score(d)).sum::<f32>())
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    record,
    embedded_bus,
    writer,
    resize,
    fetch_image,
    html,
    sitemap,
    archive,
    index_selection,
    filter,
    dedup,
    relatedness
);
criterion_main!(benches);
