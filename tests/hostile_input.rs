//! The parsers that read untrusted bytes survive hostile input: random bytes and mutations of valid
//! inputs never panic, and malformed input is an error or an empty result, never a crash.
//! (Seeded, so a failure reproduces; coverage-guided fuzzing of the crawler's parsers comes with it.)

use std::io::Cursor;

use altflow::config::FetchConfig;
use altflow::filter::ImageRules;
use altflow::record::{Record, Sample};
use altflow::stages::fetch::process_image;
use altflow::writer::tar;
use url::Url;

const ROUNDS: usize = 3000;

fn mutate(rng: &mut fastrand::Rng, valid: &[u8]) -> Vec<u8> {
    let mut bytes = valid.to_vec();
    match rng.u8(0..4) {
        0 => bytes.truncate(rng.usize(0..=bytes.len())),
        1 => {
            for _ in 0..rng.usize(1..8) {
                let i = rng.usize(0..bytes.len().max(1));
                if let Some(b) = bytes.get_mut(i) {
                    *b = rng.u8(..);
                }
            }
        }
        2 => {
            let at = rng.usize(0..=bytes.len());
            let junk: Vec<u8> = (0..rng.usize(1..64)).map(|_| rng.u8(..)).collect();
            bytes.splice(at..at, junk);
        }
        _ => bytes = (0..rng.usize(0..512)).map(|_| rng.u8(..)).collect(),
    }
    bytes
}

fn encoded(format: image::ImageFormat) -> Vec<u8> {
    let img = image::RgbImage::from_fn(48, 32, |x, y| image::Rgb([x as u8 * 5, y as u8 * 7, 99]));
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, format).unwrap();
    out.into_inner()
}

#[test]
fn image_pipeline_survives_corrupt_images() {
    let mut rng = fastrand::Rng::with_seed(7);
    let config = FetchConfig {
        max_side: 32,
        ..FetchConfig::default()
    };
    let valid = [
        encoded(image::ImageFormat::Jpeg),
        encoded(image::ImageFormat::Png),
        encoded(image::ImageFormat::Gif),
        encoded(image::ImageFormat::WebP),
    ];
    for v in &valid {
        assert!(process_image(v, &config, &ImageRules::default()).is_ok());
    }
    for round in 0..ROUNDS {
        let input = mutate(&mut rng, &valid[round % valid.len()]);
        // Either outcome is fine; a panic is not.
        if let Ok(image) = process_image(&input, &config, &ImageRules::default()) {
            assert!(image.width <= 32 && image.height <= 32);
        }
    }
}

#[test]
fn html_extraction_survives_garbage() {
    let mut rng = fastrand::Rng::with_seed(11);
    let page = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/site/index.html"
    ))
    .unwrap();
    let base = Url::parse("http://127.0.0.1:1/index.html").unwrap();
    assert!(!altflow::web::html::extract(&page, &base).images.is_empty());
    for _ in 0..ROUNDS {
        let input = mutate(&mut rng, &page);
        let found = altflow::web::html::extract(&input, &base);
        assert!(found.images.iter().all(|i| !i.alt.is_empty()));
    }
}

#[test]
fn record_and_tar_readers_survive_garbage() {
    let mut rng = fastrand::Rng::with_seed(13);
    let sample = Sample {
        caption: "a caption".into(),
        image: Some(altflow::record::Image {
            jpeg: vec![0xff, 0xd8, 0xff, 1, 2, 3],
            ..Default::default()
        }),
        ..Default::default()
    }
    .to_bytes();
    let mut builder = tar::TarBuilder::new();
    builder.append("k.txt", b"hello");
    builder.append("k.jpg", &[0xffu8; 700]);
    let archive = builder.finish();
    for _ in 0..ROUNDS {
        let _ = Sample::from_bytes(&mutate(&mut rng, &sample));
        let _ = tar::read_members(&mutate(&mut rng, &archive));
    }
}

#[test]
fn sitemap_reader_survives_garbage() {
    use std::io::Write;

    let mut rng = fastrand::Rng::with_seed(17);
    let xml: String = (0..40)
        .map(|i| format!("<url><loc>https://e.com/{i}?a=1&amp;b=2</loc><lastmod>2026-11-{i:02}</lastmod></url>"))
        .collect();
    let xml = format!(
        "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{xml}</urlset>"
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(xml.as_bytes()).unwrap();
    let valid = [xml.into_bytes(), gz.finish().unwrap()];
    for v in &valid {
        assert_eq!(
            altflow::web::sitemap::parse(v, 1 << 20, 1000).pages.len(),
            40
        );
    }
    for round in 0..ROUNDS {
        let input = mutate(&mut rng, &valid[round % valid.len()]);
        // What comes out stays within the limits, whatever goes in.
        let read = altflow::web::sitemap::parse(&input, 64 << 10, 100);
        assert!(read.pages.len() + read.sitemaps.len() <= 100);
        assert!(read.pages.iter().all(|e| e.url.len() <= 8 << 10));
    }
}
