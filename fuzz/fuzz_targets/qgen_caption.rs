//! Question generation (parse, candidates, rules, lexical round trip) on arbitrary text: never
//! panics, and every question it keeps ends with "?".
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let caption = String::from_utf8_lossy(data).into_owned();
    let mut generator = altflow::qgen::Generator::new(altflow::qgen::Settings::default());
    let outcomes = generator
        .generate_batch(&[caption.clone(), caption])
        .expect("the rules cannot fail");
    for qa in outcomes.iter().flat_map(|o| &o.qa) {
        assert!(qa.question.ends_with('?'));
    }
});
