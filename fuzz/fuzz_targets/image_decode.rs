//! The fetch stage's image path on arbitrary bytes: format sniffing, header checks, decoding with
//! allocation limits, resizing and re-encoding never panic, and an accepted image is a JPEG within
//! the configured size.
#![no_main]

use altflow::config::FetchConfig;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let config = FetchConfig {
        max_side: 64,
        // Small enough that the fuzzer cannot make the decoder allocate a lot through a valid header.
        max_pixels: 4_000_000,
        ..FetchConfig::default()
    };
    if let Ok(image) = altflow::stages::fetch::process_image(data, &config, &altflow::filter::ImageRules::default()) {
        assert!(image.width.max(image.height) <= 64);
        assert_eq!(&image.jpeg[..2], &[0xff, 0xd8]);
    }
});
