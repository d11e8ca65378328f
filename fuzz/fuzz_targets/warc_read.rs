//! The WARC reader (plain or gzip) on arbitrary bytes: never panics, never loops, and every HTTP
//! response and WAT metadata block it yields is parsed without panicking either.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(reader) = altflow::web::warc::reader(std::io::Cursor::new(data.to_vec()), 1 << 20) else {
        return;
    };
    // Each record consumes input, so the count is bounded by the input's length.
    for (count, record) in reader.enumerate() {
        assert!(count <= data.len() + 1, "the reader is not advancing");
        let Ok(record) = record else { continue };
        let _ = altflow::web::warc::parse_http_response(&record.block, 1 << 20);
        let _ = altflow::web::warc::wat_page(&record.block);
    }
});
