//! Runs the cc12m text chain over the alt texts of `scripts/fetch_captions.sh` `REPS` times and
//! prints how many passed. Made for counting instructions, which this noisy machine's timings
//! cannot compare reliably (the same binary's criterion figure moves by ±15 %):
//!
//! ```sh
//! cargo build --release --example filter_captions
//! for r in 1 5; do REPS=$r valgrind --tool=callgrind --callgrind-out-file=cg.$r \
//!   target/release/examples/filter_captions; done
//! ```
//!
//! (instructions of 5 passes − 1 pass) / 4 is the cost of one pass over the captions, without the
//! start-up (loading the lexicon and vocabulary).

use altflow::filter::{Preset, Rules, TextFilter};

fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/.tools/captions/alts.txt");
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{path}: {e} (run scripts/fetch_captions.sh)"));
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(1);
    let mut filter = TextFilter::new(Rules::of(Preset::Cc12m));
    let mut accepted = 0;
    for _ in 0..reps {
        for alt in text.lines() {
            if filter.check(alt).accepted() {
                accepted += 1;
            }
        }
    }
    println!("{reps} pass(es), {accepted} captions accepted");
}
