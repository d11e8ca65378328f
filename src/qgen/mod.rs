//! Visual question–answer pairs from captions: VQ2A (seed 002 §3).
//!
//! For each caption: candidate answers are extracted ([`candidates`]), a question is written for
//! each (by transformation rules, [`rules`], or by a T5 question-generation model), and the round
//! trip keeps a pair only when answering the question on the caption gives the candidate back with
//! token F1 ≥ `min_f1` (a T5 QA model, or the lexical [`reader`]). "Yes" and "no" are candidates
//! of every caption, and a "how many" question borrowed from another caption of the stream is asked
//! with the answer 0.

pub mod candidates;
pub mod caption;
pub mod gate;
pub mod neural;
pub mod parse;
pub mod reader;
pub mod rules;
pub mod t5;
pub mod visible;
pub mod words;

use std::borrow::Cow;
use std::collections::HashSet;

use foldhash::fast::RandomState;

use crate::record::Qa;
use candidates::{Source, extract};
use caption::NotDescription;
use parse::{Parse, parse};
use rules::Proposal;

/// What kind of answer a question asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AnswerType {
    /// A thing: "a horse".
    Object,
    /// People: "a man", "PERSON".
    Person,
    /// What someone is doing: "riding a horse".
    Activity,
    /// A place phrase: "on a dirt road".
    Location,
    /// A colour: "black and white".
    Color,
    /// A number, as digits.
    Count,
    /// "yes" or "no".
    Boolean,
}

impl AnswerType {
    /// Every type, in the order questions are picked.
    pub const ALL: [AnswerType; 7] = [
        AnswerType::Object,
        AnswerType::Person,
        AnswerType::Activity,
        AnswerType::Location,
        AnswerType::Color,
        AnswerType::Count,
        AnswerType::Boolean,
    ];

    /// The type `as_str` names `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// The name used in records, metrics and the index.
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerType::Object => "object",
            AnswerType::Person => "person",
            AnswerType::Activity => "activity",
            AnswerType::Location => "location",
            AnswerType::Color => "color",
            AnswerType::Count => "count",
            AnswerType::Boolean => "boolean",
        }
    }
}

/// How the generator works; see `[qgen]` in the configuration.
#[derive(Clone, Debug)]
pub struct Settings {
    /// At most this many Q/A per caption.
    pub max_questions: usize,
    /// The round trip's token F1 threshold.
    pub min_f1: f32,
    /// Answers allowed (normalised as SQuAD normalises); all when `None`.
    pub answer_vocabulary: Option<HashSet<String, RandomState>>,
    /// How many "how many" questions of earlier captions are kept to borrow for zero counts.
    pub zero_reservoir: usize,
    /// Whether captions that describe no picture (headlines, teasers, calls to action) get no
    /// questions.
    pub descriptions_only: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            max_questions: 8,
            min_f1: 0.54,
            answer_vocabulary: None,
            zero_reservoir: 1000,
            descriptions_only: true,
        }
    }
}

/// Why the generator could not start or run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum QgenError {
    /// A model (its weights, configuration or tokenizer) could not be loaded or run.
    #[error("T5 checkpoint {dir}: {source}")]
    Model {
        /// The checkpoint directory.
        dir: std::path::PathBuf,
        /// Why.
        source: Box<crate::checkpoint::CheckpointError>,
    },
    /// The answer vocabulary could not be read.
    #[error("qgen.answer_vocabulary {path}: {source}")]
    Vocabulary {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The description gate's model could not be read or parsed.
    #[error("qgen.gate_model {path}: {reason}")]
    GateModel {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        reason: String,
    },
}

impl From<QgenError> for crate::stage::StageError {
    fn from(e: QgenError) -> Self {
        crate::stage::StageError::failed(e)
    }
}

/// What happened to one caption's candidates, for the funnel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// The pairs kept.
    pub qa: Vec<Qa>,
    /// Questions written.
    pub proposed: usize,
    /// Questions whose round trip gave another answer.
    pub round_trip_failed: usize,
    /// Answers outside the answer vocabulary.
    pub off_vocabulary: usize,
    /// Kept pairs left out by `max_questions`.
    pub over_limit: usize,
    /// Why the caption got no questions, when it describes no picture.
    pub not_description: Option<NotDescription>,
}

/// "How many" questions of earlier captions, to ask of a later one with the answer 0: a bounded
/// uniform sample of the stream (reservoir sampling, Vitter's algorithm R, with a seeded generator
/// so that a run is reproducible).
struct Reservoir {
    /// The counted nouns, singular; their questions are written when lent.
    items: Vec<String>,
    capacity: usize,
    seen: u64,
    rng: u64,
}

impl Reservoir {
    fn new(capacity: usize) -> Self {
        Self {
            items: Vec::new(),
            capacity,
            seen: 0,
            rng: 0x9E37_79B9_7F4A_7C15,
        }
    }

    fn next(&mut self) -> u64 {
        // xorshift64*
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Offers the question counting `noun`.
    fn offer(&mut self, noun: String) {
        if self.capacity == 0 {
            return;
        }
        self.seen += 1;
        if self.items.len() < self.capacity {
            self.items.push(noun);
        } else {
            let j = self.next() % self.seen;
            if (j as usize) < self.capacity {
                self.items[j as usize] = noun;
            }
        }
    }

    /// A kept question whose noun the caption does not name, under that word, a synonym, its kind
    /// or a member of it (the caption's nouns, singular, are `names`).
    ///
    /// A caption naming anyone (a person noun or PERSON) borrows no question counting people,
    /// clothing or what is around people at events and in public places: "how many men" of
    /// "PERSON in a black suit" is no zero, nor "how many dresses" of "Spectators at the trial",
    /// nor "how many cameras" of a meeting in the Oval Office.
    ///
    /// `pick` chooses where the search starts; `None` draws it from the reservoir's generator.
    fn borrow(
        &mut self,
        names: &[Cow<'_, str>],
        has_people: bool,
        pick: Option<u64>,
    ) -> Option<(String, String)> {
        if self.items.is_empty() {
            return None;
        }
        let pick = pick.unwrap_or_else(|| self.next());
        let start = (pick % self.items.len() as u64) as usize;
        (0..self.items.len().min(8))
            .map(|k| &self.items[(start + k) % self.items.len()])
            .find(|noun| may_borrow(noun, names, has_people))
            .map(|noun| (zero_count_question(noun), noun.clone()))
    }
}

/// Whether a caption naming `names` (and people, when `has_people`) may be asked a zero count of
/// `noun` ([`Reservoir::borrow`]).
fn may_borrow(noun: &str, names: &[Cow<'_, str>], has_people: bool) -> bool {
    let goes_with_people = has_people
        && (words::is_person_noun(noun)
            || visible::is_clothing(noun)
            || visible::is_around_people(noun));
    !names.iter().any(|n| visible::overlaps(noun, n)) && !goes_with_people
}

/// A zero count of a thing from the fixed vocabulary ([`visible::things`]), where the reservoir
/// has none to lend: at the start of a stream, before it has offered a noun, or when every
/// candidate names what the caption names. Without it a short stream's first captions got no
/// zero count and lost the "no" that keeps their "yes". Under the rules of a borrowed one;
/// `pick` (a caption's hash) chooses where the search starts.
fn fixed_count(names: &[Cow<'_, str>], has_people: bool, pick: u64) -> Option<(String, String)> {
    let things = visible::things();
    let start = (pick % things.len() as u64) as usize;
    (0..things.len())
        .map(|k| things[(start + k) % things.len()])
        .find(|noun| zero_countable(noun) && may_borrow(noun, names, has_people))
        .map(|noun| (zero_count_question(noun), noun.to_string()))
}

/// "How many NOUNS are there?" of a singular noun.
fn zero_count_question(noun: &str) -> String {
    format!("How many {} are there?", words::plural(noun))
}

/// Whether a zero count may ask about the singular noun `noun` a caption names: a thing a
/// photograph could show ("How many mirages?" of a car's name is no question), not in the
/// background of most photographs whether a caption names it or not, and not a mass noun ("How
/// many foods are there?").
fn zero_countable(noun: &str) -> bool {
    visible::is_countable(noun) && !visible::is_background(noun) && !rules::is_mass(noun)
}

/// Whether a caption names people (PERSON or a people noun): it borrows no zero count of people,
/// clothing or what is around people ([`Reservoir::borrow`]).
fn mentions_people(parsed: &Parse) -> bool {
    parsed.words.iter().any(|w| {
        w.entity == Some(crate::filter::entities::Entity::Person)
            || (w.pos == parse::Pos::Noun && words::is_person_noun(&w.lower))
    })
}

/// One question on its way through a batch.
struct Item {
    /// Index of its caption in the batch.
    caption: usize,
    proposal: Proposal,
    source: Source,
    /// The QA model's answer, when one answered.
    read: Option<String>,
}

/// The prompts "KEY: VALUE context: CAPTION" of the items `todo`, as the seed's T5 models were
/// fine-tuned on SQuAD.
fn prompts(
    items: &[Item],
    todo: &[usize],
    captions: &[String],
    key: &str,
    value: impl Fn(&Proposal) -> &str,
) -> Vec<String> {
    todo.iter()
        .map(|&i| {
            let item = &items[i];
            format!(
                "{key}: {} context: {}",
                value(&item.proposal),
                captions[item.caption]
            )
        })
        .collect()
}

/// Writes questions and answers for captions, keeping the stream state the seed's zero counts
/// need.
pub struct Generator {
    settings: Settings,
    reservoir: Reservoir,
    /// The question-generation model; the rules write questions without one.
    qg: Option<neural::Seq2Seq>,
    /// The round trip's QA model; the lexical reader answers without one.
    qa: Option<neural::Seq2Seq>,
    /// The description gate's model: the one compiled in, or `qgen.gate_model`'s.
    gate: std::borrow::Cow<'static, gate::GateModel>,
}

impl Generator {
    /// A generator with the rules and the lexical reader.
    pub fn new(settings: Settings) -> Self {
        let reservoir = Reservoir::new(settings.zero_reservoir);
        Self {
            settings,
            reservoir,
            qg: None,
            qa: None,
            gate: std::borrow::Cow::Borrowed(gate::GateModel::trained()),
        }
    }

    /// A generator as `[qgen]` configures it.
    pub fn from_config(config: &crate::config::QgenConfig) -> Result<Self, QgenError> {
        let answer_vocabulary = match &config.answer_vocabulary {
            None => None,
            Some(path) => {
                let text =
                    std::fs::read_to_string(path).map_err(|source| QgenError::Vocabulary {
                        path: path.clone(),
                        source,
                    })?;
                Some(
                    text.lines()
                        .map(|l| reader::normalize(l).join(" "))
                        .filter(|l| !l.is_empty())
                        .collect(),
                )
            }
        };
        let mut generator = Self::new(Settings {
            max_questions: config.max_questions,
            min_f1: config.min_f1,
            answer_vocabulary,
            zero_reservoir: config.zero_reservoir,
            descriptions_only: config.descriptions_only,
        });
        let generation = t5::Generation {
            max_new_tokens: config.max_new_tokens,
            num_beams: config.num_beams,
        };
        let load = |dir: &Option<std::path::PathBuf>| {
            dir.as_deref()
                .map(|d| neural::Seq2Seq::load(d, generation.clone(), config.batch_size))
                .transpose()
        };
        generator.gate = gate::GateModel::configured(config.gate_model.as_deref())?;
        generator.qg = load(&config.qg_model)?;
        generator.qa = load(&config.qa_model)?;
        Ok(generator)
    }

    /// The Q/A of each caption, in order. Each caption is read first ([`caption::read`]: its first
    /// sentence without credits and dates); one that describes no picture gets none. The captions'
    /// prompts go through the models together (in batches of `qgen.batch_size`).
    pub fn generate_batch(&mut self, captions: &[String]) -> Result<Vec<Outcome>, QgenError> {
        let (texts, mut verdicts): (Vec<String>, Vec<Option<NotDescription>>) = captions
            .iter()
            .map(|c| {
                let reading = caption::read(c);
                (reading.text, reading.not_description)
            })
            .unzip();
        let only = self.settings.descriptions_only;
        // A caption the reading found nothing visible in is parsed too where the model may
        // overrule that veto: its score needs the parse.
        let overrulable = self.gate.can_overrule();
        let parsed: Vec<Parse> = texts
            .iter()
            .zip(&verdicts)
            .map(|(t, v)| {
                let skipped =
                    v.is_some() && !(overrulable && *v == Some(NotDescription::NothingVisible));
                parse(if only && skipped { "" } else { t })
            })
            .collect();
        // The parse's verdict: a description's subject is something one could see; and what
        // passes every rule is scored by the learned model.
        for ((v, p), c) in verdicts.iter_mut().zip(&parsed).zip(captions) {
            *v = caption::rules_verdict(*v, p);
            if *v == Some(NotDescription::NothingVisible) && self.gate.overrules(c, p) {
                *v = None;
            } else if v.is_none() && !self.gate.describes(c, p) {
                *v = Some(NotDescription::Unlikely);
            }
        }
        let mut outcomes = vec![Outcome::default(); captions.len()];
        let mut items: Vec<Item> = Vec::new();
        for (i, (text, p)) in texts.iter().zip(&parsed).enumerate() {
            if only && verdicts[i].is_some() {
                outcomes[i].not_description = verdicts[i];
                continue;
            }
            // The caption's hash seeds the rules' choices and picks its fixed-vocabulary counts.
            let hash = crate::bus::stable_hash(text.as_bytes());
            let mut proposals = self.propose(p, hash);
            // Things the caption counts or names (heads of its noun phrases), to ask of later
            // captions with the answer 0.
            let mut counted: Vec<String> = proposals
                .iter()
                .filter_map(|(q, _)| q.counted.clone())
                .collect();
            counted.extend(
                p.chunks
                    .iter()
                    .filter(|c| c.kind == parse::ChunkKind::Np)
                    .map(|c| &p.words[c.head])
                    .filter(|w| matches!(w.tag, "NN" | "NNS"))
                    .map(|w| words::singular(&w.lower).into_owned()),
            );
            counted.sort_unstable();
            counted.dedup();
            // A borrowed "how many" question, answered 0 (the seed found 4.5 % of its borrowed
            // questions wrong for the image; the caption's own nouns, singular, rule out the
            // ones it contradicts).
            let mut names: Vec<Cow<'_, str>> =
                p.words.iter().map(|w| words::singular(&w.lower)).collect();
            let mut people = mentions_people(p);
            // What the reading left out is in the picture too: "a vertical painting. … She wears
            // glasses …" asks no "How many glasses? — 0", nor one of people or what they wear
            // when a later sentence names them.
            if text != &captions[i] {
                let before = names.len();
                names.extend(
                    captions[i]
                        .split(|c: char| !c.is_alphanumeric() && c != '-')
                        .filter(|w| w.contains(char::is_alphanumeric))
                        .map(|w| Cow::Owned(words::singular(&w.to_lowercase()).into_owned())),
                );
                people |= names[before..].iter().any(|n| words::is_person_noun(n));
                names.sort_unstable();
                names.dedup();
            }
            if let Some((question, noun)) = self
                .reservoir
                .borrow(&names, people, None)
                .or_else(|| fixed_count(&names, people, hash))
            {
                names.push(Cow::Owned(noun));
                let zero = Proposal::unspanned(question, "0", AnswerType::Count);
                proposals.push((zero, Source::HowManyZero));
            }
            // A lone "yes" (the rules' "Is there …?") gets its "no" of a thing another caption
            // names, or goes: yes and no stay balanced. Picked by the caption's hash, so that
            // the zero counts of later captions do not change with it.
            let booleans = proposals
                .iter()
                .filter(|(q, _)| q.answer_type == AnswerType::Boolean)
                .count();
            if booleans == 1 {
                // The fixed vocabulary's search starts elsewhere than the zero count's.
                let fixed = || fixed_count(&names, people, hash.rotate_left(32));
                match self
                    .reservoir
                    .borrow(&names, people, Some(hash))
                    .or_else(fixed)
                {
                    Some((_, noun)) => {
                        let no = rules::there_is(&noun, false);
                        let no = Proposal::unspanned(no, "no", AnswerType::Boolean);
                        proposals.push((no, Source::Boolean));
                    }
                    None => proposals.retain(|(q, _)| q.answer_type != AnswerType::Boolean),
                }
            }
            outcomes[i].proposed = proposals.len();
            items.extend(proposals.into_iter().map(|(proposal, source)| Item {
                caption: i,
                proposal,
                source,
                read: None,
            }));
            // Offered after borrowing, so that no caption is asked its own count.
            for noun in counted.into_iter().filter(|n| zero_countable(n)) {
                self.reservoir.offer(noun);
            }
        }
        if let Some(qg) = &self.qg {
            let todo: Vec<usize> = (0..items.len())
                .filter(|&i| items[i].proposal.question.is_empty())
                .collect();
            let prompts = prompts(&items, &todo, &texts, "answer", |p| &p.answer);
            for (i, question) in todo.into_iter().zip(qg.run(&prompts)?) {
                items[i].proposal.question = question;
            }
        }
        // The round trip: the QA model where there is one; zero counts, whose answer is not in the
        // caption by construction, are read lexically (0 when the caption never names the noun).
        if let Some(qa) = &self.qa {
            let todo: Vec<usize> = (0..items.len())
                .filter(|&i| items[i].source != Source::HowManyZero)
                .collect();
            let prompts = prompts(&items, &todo, &texts, "question", |p| &p.question);
            for (i, answer) in todo.into_iter().zip(qa.run(&prompts)?) {
                items[i].read = Some(answer);
            }
        }
        let mut kept: Vec<Vec<Qa>> = vec![Vec::new(); captions.len()];
        for item in items {
            let read = item.read.unwrap_or_else(|| {
                reader::answer(&item.proposal.question, &parsed[item.caption]).unwrap_or_default()
            });
            let outcome = &mut outcomes[item.caption];
            if let Some(qa) = self.check(&read, item.proposal, item.source, outcome) {
                kept[item.caption].push(qa);
            }
        }
        for (outcome, kept) in outcomes.iter_mut().zip(kept) {
            outcome.qa = self.select(kept, &mut outcome.over_limit);
        }
        Ok(outcomes)
    }

    /// The questions to check for one caption: the rules' when no question model is loaded, else
    /// every span candidate (the first `2 × max_questions`, in the order of [`Source`]) and yes and
    /// no, with the question left for the model. `hash` is the caption's, the rules' seed.
    fn propose(&self, parsed: &Parse, hash: u64) -> Vec<(Proposal, Source)> {
        let candidates = extract(parsed);
        if self.qg.is_none() {
            return rules::propose(parsed, hash)
                .into_iter()
                .map(|p| {
                    let source = match p.span {
                        None => Source::Boolean,
                        Some(span) => candidates
                            .iter()
                            .find(|c| (c.start, c.end) == span)
                            .map_or(Source::Phrase, |c| c.source),
                    };
                    (p, source)
                })
                .collect();
        }
        let mut out: Vec<(Proposal, Source)> = candidates
            .iter()
            .take(2 * self.settings.max_questions)
            .map(|c| {
                let (answer_type, counted) = candidates::classify(parsed, c.start, c.end);
                let proposal = Proposal {
                    question: String::new(),
                    answer: parsed.text(c.start, c.end, true),
                    span: Some((c.start, c.end)),
                    answer_type,
                    counted,
                };
                (proposal, c.source)
            })
            .collect();
        for answer in ["yes", "no"] {
            let proposal = Proposal::unspanned(String::new(), answer, AnswerType::Boolean);
            out.push((proposal, Source::Boolean));
        }
        out
    }

    /// The round trip's verdict on `read` (the answer the QA side gave) and the answer vocabulary.
    fn check(&self, read: &str, p: Proposal, source: Source, outcome: &mut Outcome) -> Option<Qa> {
        let f1 = reader::token_f1(read, &p.answer);
        if p.question.is_empty() || f1 < self.settings.min_f1 {
            outcome.round_trip_failed += 1;
            return None;
        }
        if let Some(vocabulary) = &self.settings.answer_vocabulary
            && !vocabulary.contains(&reader::normalize(&p.answer).join(" "))
        {
            outcome.off_vocabulary += 1;
            return None;
        }
        Some(Qa {
            question: p.question,
            answer: p.answer,
            answer_type: p.answer_type.as_str().into(),
            source: source.as_str().into(),
            f1,
        })
    }

    /// At most `max_questions`, spread over the answer types: one of each type in turn, a yes/no
    /// pair taken together so that yes and no stay balanced.
    fn select(&self, kept: Vec<Qa>, over_limit: &mut usize) -> Vec<Qa> {
        let max = self.settings.max_questions;
        let total = kept.len();
        let mut by_type: Vec<Vec<Qa>> = vec![Vec::new(); AnswerType::ALL.len()];
        let mut booleans = Vec::new();
        for qa in kept {
            if qa.answer_type == AnswerType::Boolean.as_str() {
                booleans.push(qa);
            } else {
                let t = AnswerType::from_name(&qa.answer_type).expect("written by check");
                by_type[t as usize].push(qa);
            }
        }
        let mut out = Vec::with_capacity(max.min(total));
        // A yes without its no (or the reverse) would skew the answers: both or neither.
        let pair = booleans.len() == 2 && max >= 2 + usize::from(max > 2);
        let budget = max - if pair { 2 } else { 0 };
        let mut queues: Vec<std::collections::VecDeque<Qa>> =
            by_type.into_iter().map(Into::into).collect();
        while out.len() < budget && queues.iter().any(|q| !q.is_empty()) {
            for q in queues.iter_mut() {
                if out.len() < budget
                    && let Some(qa) = q.pop_front()
                {
                    out.push(qa);
                }
            }
        }
        if pair {
            out.extend(booleans);
        }
        *over_limit = total - out.len();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Generator {
        /// The Q/A of one caption.
        fn generate(&mut self, caption: &str) -> Result<Outcome, QgenError> {
            Ok(self.generate_batch(&[caption.to_string()])?.remove(0))
        }
    }

    #[test]
    fn a_configured_gate_model_vetoes_what_it_scores_low_and_a_bad_one_fails_at_start() {
        let dir = std::env::temp_dir().join(format!("altflow-gate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("gate.tsv");
        // A model that scores every caption naming a horse under its threshold.
        std::fs::write(&path, "bias\t2\nthreshold\t0.5\nw:horse\t-5\n").unwrap();
        let config = crate::config::QgenConfig {
            gate_model: Some(path.clone()),
            ..Default::default()
        };
        let mut g = Generator::from_config(&config).unwrap();
        let horse = g
            .generate("A man is riding a horse on a dirt road.")
            .unwrap();
        assert_eq!(horse.not_description, Some(NotDescription::Unlikely));
        assert!(horse.qa.is_empty(), "{:#?}", horse.qa);
        let dog = g.generate("A dog is sleeping on a couch.").unwrap();
        assert_eq!(dog.not_description, None);
        assert!(!dog.qa.is_empty());

        std::fs::write(&path, "w:horse\tminus five\n").unwrap();
        let error = Generator::from_config(&config).err().unwrap().to_string();
        assert!(
            error.contains("qgen.gate_model") && error.contains("line 1"),
            "{error}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_model_sure_enough_overrules_the_nothing_visible_veto_and_no_other() {
        let dir = std::env::temp_dir().join(format!("altflow-overrule-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("gate.tsv");
        // "Figures" is no thing the lexicon knows one could see: the parse finds no visible
        // subject. Nor does the reading find one in "The demolition in progress" (the caption is
        // parsed for its score all the same).
        let figures = "Figures gathered around a campfire outdoors at night";
        let demolition = "The demolition in progress";
        assert_eq!(
            caption::read(demolition).not_description,
            Some(NotDescription::NothingVisible)
        );
        let headline = "Obama's Plans To Stump For Clinton Near A Campfire";
        let config = crate::config::QgenConfig {
            gate_model: Some(path.clone()),
            ..Default::default()
        };
        let mut outcomes = Vec::new();
        for overrule in ["", "overrule\t0.95\n"] {
            std::fs::write(
                &path,
                format!("bias\t0\nthreshold\t0.5\n{overrule}w:campfire\t5\nw:demolition\t5\n"),
            )
            .unwrap();
            let mut g = Generator::from_config(&config).unwrap();
            outcomes.push([figures, headline, demolition].map(|c| g.generate(c).unwrap()));
        }
        let [[vetoed, _, _], [overruled, headline, demolition]] = &outcomes[..] else {
            unreachable!()
        };
        assert_eq!(demolition.not_description, None);
        assert_eq!(vetoed.not_description, Some(NotDescription::NothingVisible));
        assert!(vetoed.qa.is_empty());
        assert_eq!(overruled.not_description, None);
        assert!(
            overruled
                .qa
                .iter()
                .any(|qa| qa.question == "Where did the figures gather?"
                    && qa.answer == "around a campfire"),
            "{:#?}",
            overruled.qa
        );
        // A headline's veto stands, however high the score.
        assert_eq!(headline.not_description, Some(NotDescription::Headline));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_lone_yes_gets_a_no_of_a_thing_the_stream_or_the_vocabulary_names() {
        let mut g = Generator::new(Settings::default());
        // Nothing to borrow yet: the "no" is of a thing of the fixed vocabulary (there had been
        // no "no", and so no "yes" either). Deck chairs, not a beach's: a beach shows a ball
        // unnamed, and the "no" below is to be of the stream's ball or dog.
        let first = g.generate("Deck chairs on the North Sea").unwrap();
        let booleans: Vec<&Qa> = first
            .qa
            .iter()
            .filter(|q| q.answer_type == "boolean")
            .collect();
        assert_eq!(booleans.len(), 2, "{:#?}", first.qa);
        assert_eq!(booleans[0].question, "Are there deck chairs?");
        assert!(
            visible::things()
                .iter()
                .any(|t| booleans[1].question == rules::there_is(t, false)),
            "{:#?}",
            booleans
        );
        g.generate("two dogs playing with a ball in the snow")
            .unwrap();
        let out = g.generate("Deck chairs on the North Sea").unwrap();
        let yes: Vec<&Qa> = out.qa.iter().filter(|q| q.answer == "yes").collect();
        let no: Vec<&Qa> = out.qa.iter().filter(|q| q.answer == "no").collect();
        assert_eq!(yes.len(), 1, "{:#?}", out.qa);
        assert_eq!(yes[0].question, "Are there deck chairs?");
        assert_eq!(no.len(), 1, "{:#?}", out.qa);
        assert!(
            ["Is there a dog?", "Is there a ball?"].contains(&no[0].question.as_str()),
            "{:#?}",
            no
        );
        assert!(out.qa.len() >= 3, "{:#?}", out.qa);
    }

    #[test]
    fn a_caption_gets_questions_of_many_types() {
        let mut g = Generator::new(Settings::default());
        let first = g
            .generate("two dogs playing with a ball in the snow")
            .unwrap();
        assert!(
            first
                .qa
                .iter()
                .any(|q| q.answer == "2" && q.answer_type == "count")
        );
        let out = g.generate("a man riding a horse on a dirt road").unwrap();
        let types: HashSet<&str> = out.qa.iter().map(|q| q.answer_type.as_str()).collect();
        for t in [
            "object", "person", "activity", "location", "boolean", "count",
        ] {
            assert!(types.contains(t), "no {t} in {:#?}", out.qa);
        }
        // The zero count was borrowed from the first caption (what it counts or names).
        let zero = out.qa.iter().find(|q| q.answer == "0").unwrap();
        assert!(
            ["How many dogs are there?", "How many balls are there?"]
                .contains(&zero.question.as_str()),
            "{zero:?}"
        );
        assert_eq!(zero.source, "how_many_zero");
        let yes = out.qa.iter().filter(|q| q.answer == "yes").count();
        let no = out.qa.iter().filter(|q| q.answer == "no").count();
        assert_eq!((yes, no), (1, 1));
        assert!(
            out.qa
                .iter()
                .all(|q| q.f1 >= 0.54 && q.question.ends_with('?'))
        );
    }

    /// The zero count `g` asks of `caption`.
    fn zero_count(g: &mut Generator, caption: &str) -> Qa {
        let out = g.generate(caption).unwrap();
        out.qa
            .into_iter()
            .find(|q| q.answer == "0")
            .expect("a zero count")
    }

    #[test]
    fn no_zero_count_asks_about_the_background() {
        let mut g = Generator::new(Settings::default());
        g.generate("a tall tree next to a red building with two flags")
            .unwrap();
        // Nothing but the background offered: the zero count is the fixed vocabulary's.
        let zero = zero_count(&mut g, "a man riding a horse on a dirt road");
        let background = ["trees", "buildings", "flags"];
        assert!(
            !background.iter().any(|b| zero.question.contains(b)),
            "{zero:?}"
        );
        // A thing of the foreground is borrowed.
        g.generate("two dogs playing with a ball").unwrap();
        let zero = zero_count(&mut g, "a man riding a horse on a dirt road");
        assert!(
            ["How many dogs are there?", "How many balls are there?"]
                .contains(&zero.question.as_str()),
            "{zero:?}"
        );
    }

    #[test]
    fn a_streams_first_caption_gets_a_zero_count_of_the_fixed_vocabulary() {
        // Before, the reservoir was empty and the caption got no zero count at all.
        let caption = "a man riding a horse on a dirt road";
        let first = zero_count(&mut Generator::new(Settings::default()), caption);
        assert_eq!(first.source, "how_many_zero");
        // Of a thing the vocabulary lists, not the horse nor its kind, and the same in every run.
        assert!(
            visible::things()
                .iter()
                .any(|t| first.question == format!("How many {} are there?", words::plural(t))),
            "{first:?}"
        );
        assert!(!first.question.contains("horse") && !first.question.contains("animal"));
        assert_eq!(
            zero_count(&mut Generator::new(Settings::default()), caption),
            first
        );
    }

    #[test]
    fn no_zero_count_of_what_the_rest_of_the_caption_names() {
        // The reading keeps the first sentence; the glasses of the third are in the picture all
        // the same. Offered only glasses, the zero count is the fixed vocabulary's.
        let mut g = Generator::new(Settings::default());
        g.generate("a man wearing glasses").unwrap();
        let zero = zero_count(
            &mut g,
            "a vertical painting. The top square features a woman. She wears glasses.",
        );
        assert!(!zero.question.contains("glasses"), "{zero:?}");
        // Without the sentence, the glasses are borrowed; not where a person is, who may wear
        // them (stop 70's code asked it of "PERSON speaks at a campaign event").
        let zero = zero_count(&mut g, "a vertical painting of a lake");
        assert_eq!(zero.question, "How many glasses are there?");
        let zero = zero_count(&mut g, "a vertical painting of a woman");
        assert!(!zero.question.contains("glasses"), "{zero:?}");
    }

    #[test]
    fn no_zero_count_of_a_mass_noun() {
        // "How many foods are there?" asks what no one counts.
        assert!(!zero_countable("food") && !zero_countable("bread"));
        assert!(zero_countable("knife") && zero_countable("dog"));
        assert!(!zero_countable("tree"));
    }

    #[test]
    fn answer_types_index_their_list() {
        for (i, t) in AnswerType::ALL.into_iter().enumerate() {
            assert_eq!(t as usize, i);
            assert_eq!(AnswerType::from_name(t.as_str()), Some(t));
        }
        assert_eq!(AnswerType::from_name("colour"), None);
    }

    #[test]
    fn limits_and_vocabulary() {
        let mut g = Generator::new(Settings {
            max_questions: 3,
            ..Settings::default()
        });
        let out = g.generate("a man riding a horse on a dirt road").unwrap();
        assert_eq!(out.qa.len(), 3);
        assert!(out.over_limit > 0);
        let vocabulary: HashSet<String, RandomState> =
            ["horse".to_string(), "yes".into(), "no".into()]
                .into_iter()
                .collect();
        let mut g = Generator::new(Settings {
            answer_vocabulary: Some(vocabulary),
            ..Settings::default()
        });
        let out = g.generate("a man riding a horse on a dirt road").unwrap();
        let answers: Vec<&str> = out.qa.iter().map(|q| q.answer.as_str()).collect();
        assert!(
            answers.contains(&"a horse") && out.off_vocabulary > 0,
            "{answers:?}"
        );
        assert!(
            answers
                .iter()
                .all(|a| matches!(*a, "a horse" | "yes" | "no"))
        );
    }
}
