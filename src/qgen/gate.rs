//! A learned second opinion on whether a caption describes a picture.
//!
//! The hand rules of [`super::caption`] catch what has a mark of its own (a question, a title-case
//! headline, a call to action, a credit line), but on pages they were not written on they let
//! through much that is no description and has no such mark: shop items ("Disney The Muppet Show
//! Cuckoo Clock"), sentence-case headlines ("Scientists detect brain network that gives humans
//! superior reasoning skills"), forum buttons ("No new posts"), the story told about a photographed
//! person ("PERSON is feeling confident ahead of the trip"). Their words and the shape of their
//! parse tell them apart better than any one rule: a logistic regression over both scores each
//! caption the rules let through, and one scored under the model's threshold gets no questions
//! ([`super::caption::NotDescription::Unlikely`]). `scripts/train_gate.py` trains it on what it
//! judges, the hand-labelled captions of `data/qgen/descriptions.tsv` that the rules pass and the
//! COCO-style descriptions of `examples/qgen/captions.txt`, and at a tenth of the weight on the
//! labelled captions the rules veto: the ones they pass hold too few headlines to learn a new
//! site's from. A caption the rules find nothing visible in, their least precise veto, gets
//! questions after all when the model scores it at least its `overrule` line
//! ([`GateModel::overrules`]).
//!
//! The model is a table of feature weights (`data/qgen/gate_model.tsv`, compiled in): each
//! feature is a string ([`features`]), and a caption's score is the bias plus the weights of its
//! features, counted as often as they occur, through the logistic function.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;
use std::sync::OnceLock;

use foldhash::fast::RandomState;

use super::QgenError;
use super::parse::{Parse, Pos};
use super::visible::is_visible;
use super::words::{is_caption_verb, is_person_noun, singular, verb_lemma};
use crate::filter::entities::Entity;

/// The trained model, as `scripts/train_gate.py` writes it.
const MODEL: &str = include_str!("../../data/qgen/gate_model.tsv");

/// A logistic regression over caption features.
#[derive(Clone, Debug)]
pub struct GateModel {
    bias: f32,
    threshold: f32,
    /// The score at or over which the model overrules the rules' weakest veto
    /// ([`GateModel::overrules`]); none without an `overrule` line.
    overrule: Option<f32>,
    weights: HashMap<Box<str>, f32, RandomState>,
}

impl GateModel {
    /// The model compiled in, parsed once.
    pub fn trained() -> &'static GateModel {
        static MODEL_ONCE: OnceLock<GateModel> = OnceLock::new();
        MODEL_ONCE.get_or_init(|| GateModel::parse(MODEL).expect("data/qgen/gate_model.tsv parses"))
    }

    /// The model `qgen.gate_model` names, read from its file, or the one compiled in.
    pub fn configured(path: Option<&Path>) -> Result<Cow<'static, GateModel>, QgenError> {
        let Some(path) = path else {
            return Ok(Cow::Borrowed(GateModel::trained()));
        };
        let error = |reason: String| QgenError::GateModel {
            path: path.to_path_buf(),
            reason,
        };
        let table = std::fs::read_to_string(path).map_err(|e| error(e.to_string()))?;
        Ok(Cow::Owned(GateModel::parse(&table).map_err(error)?))
    }

    /// Parses the model's table: `#` comments, then `bias`, `threshold`, `overrule` (optional)
    /// and one `feature\tweight` per line.
    pub fn parse(table: &str) -> Result<GateModel, String> {
        let mut model = GateModel {
            bias: 0.0,
            threshold: 0.5,
            overrule: None,
            weights: HashMap::default(),
        };
        for (n, line) in table.lines().enumerate() {
            if line.starts_with('#') || line.is_empty() {
                continue;
            }
            let (name, weight) = line
                .rsplit_once('\t')
                .ok_or_else(|| format!("line {}: no tab in {line:?}", n + 1))?;
            let weight: f32 = weight
                .parse()
                .map_err(|e| format!("line {}: weight {weight:?}: {e}", n + 1))?;
            match name {
                "bias" => model.bias = weight,
                "threshold" => model.threshold = weight,
                "overrule" => model.overrule = Some(weight),
                _ => {
                    model.weights.insert(name.into(), weight);
                }
            }
        }
        Ok(model)
    }

    /// The probability that the caption describes a picture: `caption` as written, `parsed` the
    /// parse of the text the rules read from it.
    pub fn score(&self, caption: &str, parsed: &Parse) -> f32 {
        let mut sum = self.bias;
        each_feature(caption, parsed, |f| {
            sum += self.weights.get(f).copied().unwrap_or(0.0);
        });
        1.0 / (1.0 + (-sum).exp())
    }

    /// Whether the caption scores at least the model's threshold.
    pub fn describes(&self, caption: &str, parsed: &Parse) -> bool {
        self.score(caption, parsed) >= self.threshold
    }

    /// Whether the model may overrule a veto at all (its table has an `overrule` line).
    pub fn can_overrule(&self) -> bool {
        self.overrule.is_some()
    }

    /// Whether the caption scores at least the model's `overrule` line (and its threshold, should
    /// a table set the line under it): sure enough to let through a caption the rules found
    /// nothing visible in.
    pub fn overrules(&self, caption: &str, parsed: &Parse) -> bool {
        self.overrule
            .is_some_and(|line| self.score(caption, parsed) >= line.max(self.threshold))
    }
}

/// The features of a caption, in order, repeats included (for training and for `altflow qgen
/// --gate-features`).
pub fn features(caption: &str, parsed: &Parse) -> Vec<String> {
    let mut all = Vec::new();
    each_feature(caption, parsed, |f| all.push(f.to_string()));
    all
}

/// Calls `f` with each feature: the words (lower case; a name substituted by the filter as its
/// kind), the Penn tags and their pairs with the sentence's edges, the first word, how many words
/// there are and how many are capitalised, the marks of the written caption (its last character,
/// brackets, digits, a dash or bar between parts), and what the lexicons know of its words.
fn each_feature(caption: &str, parsed: &Parse, mut f: impl FnMut(&str)) {
    // One buffer for every feature: scoring allocates nothing per feature.
    let mut buf = String::with_capacity(32);
    fn emit(buf: &mut String, f: &mut impl FnMut(&str)) {
        f(buf);
        buf.clear();
    }
    let words = &parsed.words;
    let mut previous = "^";
    let mut capitals = 0;
    for (i, w) in words.iter().enumerate() {
        match w.entity {
            Some(Entity::Person) => buf.push_str("w:=PERSON"),
            Some(Entity::Location) => buf.push_str("w:=LOC"),
            None if w.pos == Pos::Num => buf.push_str("w:=NUM"),
            None => {
                let _ = write!(buf, "w:{}", w.lower);
            }
        }
        emit(&mut buf, &mut f);
        let _ = write!(buf, "t:{}", w.tag);
        emit(&mut buf, &mut f);
        let _ = write!(buf, "tt:{previous}_{}", w.tag);
        emit(&mut buf, &mut f);
        previous = w.tag;
        if i == 0 {
            let _ = write!(buf, "first:{}", w.lower);
            emit(&mut buf, &mut f);
        } else if w.text.starts_with(char::is_uppercase) && w.entity.is_none() {
            capitals += 1;
        }
    }
    let _ = write!(buf, "tt:{previous}_$");
    emit(&mut buf, &mut f);
    let n = words.len();
    let length = match n {
        0..=2 => "len:1-2",
        3..=4 => "len:3-4",
        5..=7 => "len:5-7",
        8..=12 => "len:8-12",
        _ => "len:13+",
    };
    f(length);
    let share = if n > 1 { capitals * 4 / (n - 1) } else { 0 };
    let _ = write!(buf, "capitals:{}", share.min(3));
    emit(&mut buf, &mut f);
    let trimmed = caption.trim_end();
    if let Some(last) = trimmed.chars().last().filter(|c| !c.is_alphanumeric()) {
        let _ = write!(buf, "end:{last}");
        emit(&mut buf, &mut f);
    }
    if caption.contains(['(', '[']) {
        f("mark:bracket");
    }
    if caption.contains(|c: char| c.is_ascii_digit()) {
        f("mark:digit");
    }
    if caption.contains(" - ") || caption.contains(" | ") {
        f("mark:dash");
    }
    if words.iter().any(|w| w.pos == Pos::Verb) {
        f("has:verb");
    }
    if words.iter().any(|w| w.pos == Pos::Det) {
        f("has:det");
    }
    // What the lexicons know: things one could see, people, the verbs captions use. These carry
    // over to words the labelled captions never had.
    let mut visible = 0;
    for w in words.iter().filter(|w| matches!(w.tag, "NN" | "NNS")) {
        let noun = singular(&w.lower);
        if is_person_noun(&noun) {
            f("has:people");
        }
        if is_visible(&noun) {
            visible += 1;
        }
    }
    let _ = write!(buf, "visible:{}", visible.min(3));
    emit(&mut buf, &mut f);
    if words
        .iter()
        .filter(|w| w.pos == Pos::Verb)
        .any(|w| verb_lemma(&w.lower).is_some_and(|l| is_caption_verb(&l)))
    {
        f("has:caption_verb");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qgen::parse::parse;

    #[test]
    fn features_name_words_tags_and_shape() {
        let caption = "PERSON walks a dog in the park.";
        let all = features(caption, &parse("PERSON walks a dog in the park"));
        for expected in [
            "w:=PERSON",
            "w:dog",
            "t:VBZ",
            "tt:^_NNP",
            "tt:NN_$",
            "first:person",
            "len:5-7",
            "end:.",
            "has:verb",
            "has:det",
        ] {
            assert!(
                all.iter().any(|f| f == expected),
                "{expected} not in {all:?}"
            );
        }
    }

    #[test]
    fn a_table_parses_and_scores_by_its_weights() {
        let model =
            GateModel::parse("# test\nbias\t0\nthreshold\t0.5\nw:dog\t3\nw:shop\t-3\n").unwrap();
        let dog = parse("a dog");
        let shop = parse("shop now");
        assert!(model.score("a dog", &dog) > 0.9);
        assert!(model.score("shop now", &shop) < 0.1);
        assert!(model.describes("a dog", &dog));
        assert!(!model.describes("shop now", &shop));
        // No `overrule` line: the model overrules no veto.
        assert!(!model.can_overrule() && !model.overrules("a dog", &dog));
        // A score of 0.92 overrules at 0.9, not at 0.95.
        let table = |overrule: &str| format!("bias\t0\noverrule\t{overrule}\nw:dog\t2.5\n");
        let sure = GateModel::parse(&table("0.95")).unwrap();
        assert!(
            !sure.overrules("a dog", &dog),
            "{}",
            sure.score("a dog", &dog)
        );
        assert!(
            GateModel::parse(&table("0.9"))
                .unwrap()
                .overrules("a dog", &dog)
        );
        // An overrule line under the threshold overrules nothing the threshold would veto.
        let under = GateModel::parse("bias\t0\nthreshold\t0.95\noverrule\t0.5\nw:dog\t2.5\n");
        assert!(!under.unwrap().overrules("a dog", &dog));
        let bad = GateModel::parse("w:dog\tthree\n").unwrap_err();
        assert!(bad.contains("line 1") && bad.contains("three"), "{bad}");
    }

    #[test]
    fn the_trained_model_tells_a_description_from_a_shop_button() {
        let model = GateModel::trained();
        let yes = "A man rides a horse on a dirt road";
        let no = "Shop All Home";
        assert!(
            model.describes(yes, &parse(yes)),
            "{}",
            model.score(yes, &parse(yes))
        );
        assert!(
            !model.describes(no, &parse(no)),
            "{}",
            model.score(no, &parse(no))
        );
    }
}
