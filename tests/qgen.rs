//! The rule-based question generator over the judged captions (examples/qgen/captions.txt: COCO-like,
//! alt-text-like, PERSON/LOC-substituted, fragments), checked for what issue 14 asks of every
//! question; over the web's styles of alt text (examples/qgen/web_style.txt: wire captions with
//! datelines, credits and dates, and headlines, teasers, calls to action and screenshots that
//! describe no picture), checked for what issue 29 asks; over clean descriptions the learned gate
//! never trained on (examples/qgen/unseen_descriptions.txt); and over hostile text.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use altflow::qgen::{Generator, Settings};

const QUESTION_STARTS: [&str; 11] = [
    "what", "who", "where", "how", "is", "are", "does", "do", "did", "was", "were",
];

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
        .filter(|w| !w.is_empty())
        .map(|w| {
            let w = w.to_lowercase();
            // Numbers as the generator writes them.
            match w.as_str() {
                "one" => "1".into(),
                "two" => "2".into(),
                "three" => "3".into(),
                "four" => "4".into(),
                "five" => "5".into(),
                _ => w,
            }
        })
        .collect()
}

fn contains(haystack: &[String], needle: &[String]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

/// The lines of an `examples/qgen` file, without blank lines and `#` comments.
fn example_lines(name: &str) -> Vec<String> {
    std::fs::read_to_string(common::root().join("examples/qgen").join(name))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_caption_style_gets_well_formed_questions() {
    let captions = example_lines("captions.txt");
    assert!(captions.len() >= 100);
    let mut generator = Generator::new(Settings::default());
    let outcomes = generator.generate_batch(&captions).unwrap();
    let mut types: BTreeMap<String, usize> = BTreeMap::new();
    let mut answers: BTreeMap<String, usize> = BTreeMap::new();
    let mut sources = BTreeSet::new();
    let mut total = 0;
    for (caption, outcome) in captions.iter().zip(&outcomes) {
        assert!(!outcome.qa.is_empty(), "no question for {caption:?}");
        let caption_words = words(caption);
        for qa in &outcome.qa {
            total += 1;
            *types.entry(qa.answer_type.clone()).or_default() += 1;
            *answers.entry(qa.answer.clone()).or_default() += 1;
            sources.insert(qa.source.clone());
            let q = words(&qa.question);
            assert!(qa.question.ends_with('?'), "{qa:?}");
            assert!(QUESTION_STARTS.contains(&q[0].as_str()), "{qa:?}");
            assert!(qa.f1 >= 0.54, "{qa:?}");
            if qa.answer_type != "boolean" && qa.source != "how_many_zero" {
                let a = words(&qa.answer);
                assert!(
                    contains(&caption_words, &a),
                    "{caption:?}: {qa:?} not a span"
                );
                assert!(
                    !contains(&q, &a),
                    "{caption:?}: {qa:?} answer inside the question"
                );
            }
        }
    }
    let per_caption = total as f64 / captions.len() as f64;
    let proposed: usize = outcomes.iter().map(|o| o.proposed).sum();
    let failed: usize = outcomes.iter().map(|o| o.round_trip_failed).sum();
    let over: usize = outcomes.iter().map(|o| o.over_limit).sum();
    eprintln!(
        "{total} Q/A of {proposed} written ({failed} failed the round trip, {over} over the \
         limit), {per_caption:.2} per caption, types {types:?}"
    );
    assert!(per_caption >= 3.0, "{per_caption}");
    for t in [
        "object", "person", "activity", "location", "color", "count", "boolean",
    ] {
        assert!(
            types.get(t).copied().unwrap_or(0) >= 10,
            "few {t}: {types:?}"
        );
    }
    assert!(sources.contains("how_many_zero") && answers.get("0").copied().unwrap_or(0) >= 10);
    assert_eq!(answers.get("yes"), answers.get("no"), "yes/no unbalanced");
}

/// Clean descriptions the learned gate never trained on are all let through, with questions: the
/// gate may not buy its precision on the web's alt text with COCO-style captions.
#[test]
fn clean_descriptions_the_gate_never_saw_get_questions() {
    let captions = example_lines("unseen_descriptions.txt");
    assert!(captions.len() >= 50);
    let mut generator = Generator::new(Settings::default());
    for (caption, outcome) in captions
        .iter()
        .zip(generator.generate_batch(&captions).unwrap())
    {
        assert_eq!(outcome.not_description, None, "{caption:?}");
        assert!(!outcome.qa.is_empty(), "{caption:?}");
    }
}

#[test]
fn the_webs_alt_text_is_read_as_a_description_or_not_at_all() {
    let lines: Vec<(String, String)> = example_lines("web_style.txt")
        .iter()
        .map(|l| {
            let (label, caption) = l.split_once('\t').expect("label TAB caption");
            (label.to_string(), caption.to_string())
        })
        .collect();
    let captions: Vec<String> = lines.iter().map(|(_, c)| c.clone()).collect();
    let mut generator = Generator::new(Settings::default());
    let outcomes = generator.generate_batch(&captions).unwrap();
    let (mut others, mut caught) = (0, 0);
    for ((label, caption), outcome) in lines.iter().zip(&outcomes) {
        if *label != "describes" {
            others += 1;
            if outcome.not_description.is_some() {
                caught += 1;
                assert!(outcome.qa.is_empty(), "{caption:?}: {outcome:?}");
            } else {
                eprintln!("read as a description: {caption:?}");
            }
            continue;
        }
        // Every description keeps its questions: at least three, none about its dates, credits or
        // the sentences of context after the first.
        assert_eq!(outcome.not_description, None, "{caption:?}");
        assert!(outcome.qa.len() >= 3, "{caption:?}: {:#?}", outcome.qa);
        let first_sentence = words(caption.split(". ").next().unwrap());
        for qa in &outcome.qa {
            for word in words(&qa.question).iter().chain(&words(&qa.answer)) {
                assert!(
                    !matches!(
                        word.as_str(),
                        "photo"
                            | "getty"
                            | "images"
                            | "monday"
                            | "tuesday"
                            | "wednesday"
                            | "2024"
                            | "2023"
                            | "2019"
                            | "2022"
                            | "january"
                            | "march"
                            | "july"
                            | "oct"
                    ),
                    "{caption:?}: {qa:?} asks about a date or credit"
                );
            }
            if qa.answer_type != "boolean" && qa.source != "how_many_zero" {
                assert!(
                    contains(&first_sentence, &words(&qa.answer))
                        || contains(&words(caption), &words(&qa.answer)),
                    "{caption:?}: {qa:?} not a span"
                );
            }
        }
    }
    // Non-descriptions: nearly all caught (the file notes the kinds; one in ten may pass).
    assert!(caught * 10 >= others * 9, "{caught} of {others} caught");
}

#[test]
fn hostile_text_gets_no_panic() {
    let mut rng = fastrand::Rng::with_seed(14);
    let pieces = [
        "a",
        "the",
        "PERSON",
        "LOC",
        "<",
        ">",
        "and",
        "of",
        "on",
        "in front of",
        "next",
        "to",
        "two",
        "red",
        "is",
        "riding",
        "dog",
        "dogs",
        "'s",
        "?",
        ",",
        ".",
        "Ünïcødé",
        "日本",
        "🐕",
        "-",
        "'",
        "\u{200b}",
        "  ",
        "3.5",
        "with",
        "how many",
        "black and",
        "was",
        "being",
    ];
    let mut generator = Generator::new(Settings {
        zero_reservoir: 16,
        ..Settings::default()
    });
    for _ in 0..5000 {
        let n = rng.usize(0..24);
        let caption: String = (0..n)
            .map(|_| pieces[rng.usize(..pieces.len())])
            .collect::<Vec<_>>()
            .join(if rng.bool() { " " } else { "" });
        let outcome = generator
            .generate_batch(std::slice::from_ref(&caption))
            .unwrap();
        for qa in &outcome[0].qa {
            assert!(qa.question.ends_with('?'), "{caption:?}: {qa:?}");
        }
    }
    // Random bytes as text.
    for _ in 0..2000 {
        let bytes: Vec<u8> = (0..rng.usize(0..64)).map(|_| rng.u8(..)).collect();
        let caption = String::from_utf8_lossy(&bytes).into_owned();
        generator.generate_batch(&[caption]).unwrap();
    }
}

#[test]
fn the_command_answers_every_line_in_order() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_altflow"))
        .arg("qgen")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            b"{\"text\": \"two dogs playing in the snow\"}\n{\"caption\": \"x\"}\nnot json\n\
              {\"text\": \"a red bus parked on the street\"}\n",
        )
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert!(
        lines[0]["qa"]
            .as_array()
            .unwrap()
            .iter()
            .any(|q| q["answer"] == "2")
    );
    assert_eq!(lines[1]["line"], 2);
    assert!(lines[1]["error"].as_str().unwrap().contains("`text`"));
    assert_eq!(lines[2]["line"], 3);
    let colour = lines[3]["qa"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["answer_type"] == "color")
        .unwrap();
    assert_eq!(colour["question"], "What color is the bus?");
    assert_eq!(colour["answer"], "red");
}
