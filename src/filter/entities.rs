//! Finding names of people and places in a caption, for CC12M's PERSON substitution (seed 000 §2.2)
//! and ALT200M's PERSON and LOC tokens (seed 004 §3.1).
//!
//! The seeds used Google's Natural Language API and spaCy's NER; neither model can be had here, so
//! this is a gazetteer with capitalisation rules: a list of well-known people, places and
//! organisations (textblob's `en-entities.txt`), the 1990 US Census first and last names, and the
//! tagger's lexicon to tell a name from a capitalised common word. A span is a person when
//! - it is listed as one ("Albert Einstein"), or
//! - it is a run of two or more capitalised words (initials like "F." allowed inside) that starts with
//!   a census first name or a title ("Dr", "President", …) and ends with a census last name or a
//!   word the lexicon does not know as a common word, unless both its first and last words are
//!   common words ("Rose Garden", "Summer Dress"), or
//! - it is the caption's first word, no common English word, and followed by a verb of what people
//!   do ("Musk wearing a face mask": `lone_subject_at`).
//!
//! A place is a span listed as one. Known misses and false hits are in docs/stages.md ("PERSON / LOC").

use std::collections::{HashMap, HashSet};

use foldhash::fast::RandomState;

use super::pos::Tagger;
use super::tokens::Token;

/// What a found span names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entity {
    /// A person.
    Person,
    /// A place.
    Location,
}

/// A found name: tokens `start..end` of the caption.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// First token.
    pub start: usize,
    /// One past the last token.
    pub end: usize,
    /// What it names.
    pub entity: Entity,
}

/// Titles that open a person's name even when the name after them is a first name alone ("Pope
/// Francis", "Prince William"); a title followed by a common word ("Queen Village", "King
/// Cologne") names no one.
const TITLES: [&str; 21] = [
    "Mr",
    "Mrs",
    "Ms",
    "Miss",
    "Dr",
    "Prof",
    "Sir",
    "Dame",
    "Lady",
    "Lord",
    "President",
    "Senator",
    "Governor",
    "Mayor",
    "Pope",
    "King",
    "Queen",
    "Prince",
    "Princess",
    "Duke",
    "Duchess",
];

/// A listed entity: its words and kind.
type Listed = (Vec<Box<str>>, Entity);

/// The gazetteer.
pub struct Names {
    first: HashSet<Box<str>, RandomState>,
    last: HashSet<Box<str>, RandomState>,
    /// Listed entities by their first word: (all words, kind).
    listed: HashMap<Box<str>, Vec<Listed>, RandomState>,
}

impl Names {
    /// The lists compiled into altflow.
    pub fn english() -> &'static Names {
        static NAMES: std::sync::OnceLock<Names> = std::sync::OnceLock::new();
        NAMES.get_or_init(|| {
            Names::parse(
                include_str!("../../data/lexicon/first-names.txt"),
                include_str!("../../data/lexicon/last-names.txt"),
                include_str!("../../data/lexicon/en-entities.txt"),
            )
        })
    }

    /// Lists from one-name-per-line first and last names (any case) and "Words… KIND" entity lines
    /// (PERS and LOC are used; other kinds and comments are skipped).
    pub fn parse(first: &str, last: &str, entities: &str) -> Names {
        let set = |text: &str| {
            text.lines()
                .map(|l| l.trim().to_lowercase().into_boxed_str())
                .filter(|l| !l.is_empty())
                .collect::<HashSet<_, RandomState>>()
        };
        let mut listed: HashMap<Box<str>, Vec<Listed>, RandomState> = HashMap::default();
        for line in entities.lines().filter(|l| !l.starts_with(";;;")) {
            let mut words: Vec<&str> = line.split_whitespace().collect();
            let entity = match words.pop() {
                Some("PERS") => Entity::Person,
                Some("LOC") => Entity::Location,
                _ => continue,
            };
            if let Some(first) = words.first() {
                listed
                    .entry((*first).into())
                    .or_default()
                    .push((words.iter().map(|w| (*w).into()).collect(), entity));
            }
        }
        for spans in listed.values_mut() {
            // Longest first, so "New York City" wins over "New York".
            spans.sort_by_key(|(words, _)| std::cmp::Reverse(words.len()));
        }
        Names {
            first: set(first),
            last: set(last),
            listed,
        }
    }

    /// The names in `tokens`, left to right, not overlapping.
    pub fn find(&self, tokens: &[Token<'_>], tagger: &Tagger) -> Vec<Span> {
        let mut spans = Vec::new();
        let mut i = 0;
        while i < tokens.len() {
            if !tokens[i].is_capitalized() {
                i += 1;
                continue;
            }
            if let Some(span) = self
                .listed_at(tokens, i)
                .or_else(|| self.person_at(tokens, i, tagger))
                .or_else(|| lone_subject_at(tokens, i, tagger))
            {
                i = span.end;
                spans.push(span);
            } else {
                i += 1;
            }
        }
        spans
    }

    fn listed_at(&self, tokens: &[Token<'_>], i: usize) -> Option<Span> {
        let candidates = self.listed.get(tokens[i].text)?;
        candidates.iter().find_map(|(words, entity)| {
            let end = i + words.len();
            let matches = tokens
                .get(i..end)
                .is_some_and(|run| run.iter().zip(words).all(|(t, w)| t.text == &**w));
            matches.then_some(Span {
                start: i,
                end,
                entity: *entity,
            })
        })
    }

    fn person_at(&self, tokens: &[Token<'_>], i: usize, tagger: &Tagger) -> Option<Span> {
        let lower = |j: usize| tokens[j].text.to_lowercase();
        let common = |j: usize| {
            tagger
                .lookup(&lower(j))
                .is_some_and(|t| !matches!(tagger.name(t), "NNP" | "NNPS"))
        };
        let capital = |j: usize| {
            tokens
                .get(j)
                .is_some_and(|t| t.is_word && t.is_capitalized() && !acronym(t))
        };
        if !capital(i) {
            return None;
        }
        let titled = TITLES.contains(&tokens[i].text);
        if !titled && !self.first.contains(lower(i).as_str()) {
            return None;
        }
        // A name word after the first: a census name, or a word the lexicon does not know as a
        // common one. The run stops at the first other word, so a title-case headline ("Joe Biden
        // Joined TikTok Because…") yields the name, not the headline.
        let name_word = |j: usize| {
            self.last.contains(lower(j).as_str())
                || self.first.contains(lower(j).as_str())
                || !common(j)
        };
        let mut words = vec![i];
        let mut end = i + 1;
        while words.len() < MAX_NAME_WORDS {
            let initial = tokens[end - 1].text.chars().count() == 1;
            if initial && end > i + 1 && tokens.get(end).is_some_and(|t| t.text == ".") {
                end += 1;
            }
            let initial_next = tokens.get(end).is_some_and(|t| t.text.chars().count() == 1)
                && tokens.get(end + 1).is_some_and(|t| t.text == ".");
            if !capital(end) || !(initial_next || name_word(end)) {
                break;
            }
            words.push(end);
            end += 1;
        }
        let (&first, &last) = (words.first()?, words.last()?);
        if words.len() < 2 {
            return None;
        }
        let last_name = self.last.contains(lower(last).as_str()) || !common(last);
        let both_common = !titled && common(first) && common(last);
        (last_name && !both_common).then_some(Span {
            start: first,
            end: last + 1,
            entity: Entity::Person,
        })
    }
}

/// A caption that opens with a capitalised word and a verb of what people do ([`PEOPLE_VERBS`]) —
/// "Obama speaks to reporters", "Musk wearing a face mask" (news captions and Wikipedia's alt
/// texts name their subject so) — opens with a name when the word is no common English word
/// (unknown to the lexicon, or a noun too rare for the spelling corpus's word counts: "musk",
/// "trump") and no listed visible thing or person noun. "Dog running on the beach", "Man
/// standing at a podium", "Traffic moving slowly" keep theirs, and so do "Yahoo hacked" and
/// "Nissan is bringing …" (companies do other things). Only the caption's first word: further
/// in, a capitalised word is a title case's more often than a name.
fn lone_subject_at(tokens: &[Token<'_>], i: usize, tagger: &Tagger) -> Option<Span> {
    use crate::qgen::{visible::is_listed_thing, words::is_person_noun};
    static FREQUENT: std::sync::OnceLock<HashSet<&'static str, RandomState>> =
        std::sync::OnceLock::new();
    if i != 0 {
        return None;
    }
    let (word, next) = (&tokens[i], tokens.get(i + 1)?);
    // The verb first: it is the cheap test, and most captions fail it ("A man …").
    if !word.is_word
        || acronym(word)
        || !next.is_word
        || next.is_capitalized()
        || !PEOPLE_VERBS
            .iter()
            .any(|v| v.eq_ignore_ascii_case(next.text))
    {
        return None;
    }
    let lower = word.text.to_lowercase();
    if word.has_digit() || is_listed_thing(&lower) || is_person_noun(&lower) {
        return None;
    }
    let frequent = FREQUENT.get_or_init(|| {
        include_str!("../../data/lexicon/en-spelling.txt")
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect()
    });
    let uncommon = match tagger.lookup(&lower) {
        None => true,
        Some(t) => tagger.name(t) == "NN" && !frequent.contains(lower.as_str()),
    };
    uncommon.then_some(Span {
        start: i,
        end: i + 1,
        entity: Entity::Person,
    })
}

/// Forms of verbs of what people, not things, do, after a caption's first word.
const PEOPLE_VERBS: [&str; 60] = [
    "speaks",
    "speaking",
    "spoke",
    "talks",
    "talking",
    "converses",
    "conversing",
    "smiles",
    "smiling",
    "smiled",
    "poses",
    "posing",
    "posed",
    "wears",
    "wearing",
    "wore",
    "attends",
    "attending",
    "attended",
    "addresses",
    "addressing",
    "greets",
    "greeting",
    "greeted",
    "waves",
    "waving",
    "waved",
    "testifies",
    "testifying",
    "testified",
    "meets",
    "meeting",
    "met",
    "shakes",
    "shaking",
    "shook",
    "performs",
    "performing",
    "sings",
    "singing",
    "sang",
    "laughs",
    "laughing",
    "gestures",
    "gesturing",
    "stands",
    "standing",
    "stood",
    "examines",
    "examining",
    "celebrates",
    "celebrating",
    "visits",
    "visiting",
    "arrives",
    "arriving",
    "watches",
    "watching",
    "holds",
    "holding",
];

/// "DBX", "SUV", "AI": acronyms are not parts of a person's name.
fn acronym(token: &Token<'_>) -> bool {
    token.text.chars().count() >= 2 && !token.text.chars().any(char::is_lowercase)
}

/// Most words a person's name spans (title and initials included).
const MAX_NAME_WORDS: usize = 5;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::tokens::tokenize;

    fn people(text: &str) -> Vec<String> {
        let tokens = tokenize(text);
        Names::english()
            .find(&tokens, Tagger::english())
            .iter()
            .map(|s| {
                let kind = match s.entity {
                    Entity::Person => "PERSON",
                    Entity::Location => "LOC",
                };
                format!(
                    "{kind}:{}",
                    &text[tokens[s.start].start..tokens[s.end - 1].end()]
                )
            })
            .collect()
    }

    #[test]
    fn real_names_are_found() {
        assert_eq!(
            people("Harrison Ford at the premiere"),
            ["PERSON:Harrison Ford"]
        );
        assert_eq!(
            people("portrait of Emma Watson in Paris"),
            ["PERSON:Emma Watson", "LOC:Paris"]
        );
        assert_eq!(
            people("John F. Kennedy giving a speech"),
            ["PERSON:John F. Kennedy"]
        );
        // "Dr." ends the run at its dot; the name itself is still found.
        assert_eq!(
            people("Dr. Maria Gonzalez in her lab"),
            ["PERSON:Maria Gonzalez"]
        );
        assert_eq!(
            people("Dr Maria Gonzalez in her lab"),
            ["PERSON:Dr Maria Gonzalez"]
        );
        assert_eq!(people("Albert Einstein"), ["PERSON:Albert Einstein"]);
        // A royal or a pope by title and first name (htmlparser-benchmark's news pages).
        assert_eq!(
            people("Pope Francis waves during his general audience"),
            ["PERSON:Pope Francis"]
        );
        assert_eq!(
            people("Prince William holds a baby"),
            ["PERSON:Prince William"]
        );
        // Real news alt texts (newspaper4k's test pages): the name inside a title-case headline.
        assert_eq!(
            people("Joe Biden Joined TikTok Because He Had To"),
            ["PERSON:Joe Biden"]
        );
        assert_eq!(
            people("Kara Swisher Is Sick of Tech People, So She Wrote a Book About Them"),
            ["PERSON:Kara Swisher"]
        );
        assert_eq!(
            people("Donald Glover and Maya Erskine smiling while sitting on a park bench"),
            ["PERSON:Donald Glover", "PERSON:Maya Erskine"]
        );
    }

    /// A caption that opens with a name alone and a verb (Wikipedia's alt texts, news captions).
    #[test]
    fn a_caption_opening_with_a_lone_name_and_a_verb() {
        assert_eq!(people("Musk wearing a face mask"), ["PERSON:Musk"]);
        assert_eq!(
            people("Musk speaks to a crowd of journalists"),
            ["PERSON:Musk"]
        );
        assert_eq!(people("Obama speaks to reporters"), ["PERSON:Obama"]);
        // Common, listed or person nouns keep their place; so does a name further in.
        assert!(people("Dog running on the beach").is_empty());
        assert!(people("Man standing at a podium").is_empty());
        assert!(people("Traffic moving slowly on the highway").is_empty());
        assert!(people("Smartphone lying on a wooden table").is_empty());
        assert!(people("Kayaking on the lake").is_empty());
        assert!(people("a photo of Musk wearing a mask").is_empty());
    }

    #[test]
    fn capitalised_words_that_are_not_names_stay() {
        assert!(people("Rose Garden in the spring").is_empty());
        assert!(people("Summer Dress with Floral Print").is_empty());
        assert!(people("The Red Boat").is_empty());
        assert!(people("a photo of a dog").is_empty());
        // A single first name is not enough.
        assert!(people("Grace smiling").is_empty());
        // Real news alt texts: a headline in title case, product names with acronyms.
        assert!(
            people("Nigerian Lady Beaten And Disgraced For Allegedly Sleeping With Her Friend's Boyfriend")
                .is_empty()
        );
        assert!(people("Meet the Kia EV9 Electric SUV").is_empty());
        // A title before a common word, or before no capital, names no one.
        assert!(people("A shop in Queen Village").is_empty());
        assert!(people("Clothier to the King Cologne").is_empty());
        assert_eq!(
            people("The Queen wearing her New Zealand insignia"),
            ["LOC:New Zealand"]
        );
        assert!(people("AI Mixologist vs. Human Bartender").is_empty());
    }
}
