//! Candidate answers of a caption, by VQ2A's extraction kinds (seed 002 §3.1): noun phrases with
//! named entities and numbers, POS spans, parse-tree spans of at most three words, and yes/no (the
//! fifth, borrowed "how many" questions with the answer 0, is the generator's).
//!
//! Parse-tree spans come from the shallow parse ([`super::parse`]) instead of a dependency tree: a
//! noun phrase is its head's subtree, a prepositional phrase the preposition's, and an -ing verb
//! with its object the verb's when no prepositional phrase follows (which the dependency parse
//! would usually attach to the verb, making its subtree longer). Maximal spans only, as the seed.

use super::AnswerType;
use super::parse::{ChunkKind, Parse, Pos, is_color};
use super::words::{is_person_noun, singular};
use crate::filter::entities::Entity;

/// Which extraction found a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    /// A noun phrase, named entity or number.
    NounPhrase,
    /// Open-class words with only determiners, prepositions and conjunctions between.
    PosSpan,
    /// A parse subtree of at most three words.
    ParseSpan,
    /// A phrase of the shallow parse that none of the seed's extractions yields (a place phrase of
    /// more than three words, coordinated noun phrases).
    Phrase,
    /// "yes" or "no".
    Boolean,
    /// A "how many" question of another caption, answered 0.
    HowManyZero,
}

impl Source {
    /// The name used in records.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::NounPhrase => "noun_phrase",
            Source::PosSpan => "pos_span",
            Source::ParseSpan => "parse_span",
            Source::Phrase => "phrase",
            Source::Boolean => "boolean",
            Source::HowManyZero => "how_many_zero",
        }
    }
}

/// A candidate answer: words `start..end` of the caption.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// First word.
    pub start: usize,
    /// One past the last word.
    pub end: usize,
    /// The first extraction that found it.
    pub source: Source,
}

/// The longest POS span considered, in words (the seed gives none; longer spans are rarely answers).
const MAX_POS_SPAN: usize = 4;

/// Every span candidate of the caption, each once (under the first extraction that finds it, in
/// the order of [`Source`]).
pub fn extract(p: &Parse) -> Vec<Candidate> {
    let w = &p.words;
    let mut out: Vec<Candidate> = Vec::new();
    let mut add = |start: usize, end: usize, source: Source| {
        if end > start && !out.iter().any(|c| c.start == start && c.end == end) {
            out.push(Candidate { start, end, source });
        }
    };
    // Noun phrases, then entities and numbers.
    for c in &p.chunks {
        if c.kind == ChunkKind::Np {
            add(c.start, c.end, Source::NounPhrase);
        }
    }
    let mut i = 0;
    while i < w.len() {
        if let Some(e) = w[i].entity {
            let mut end = i + 1;
            while end < w.len() && w[end].entity == Some(e) {
                end += 1;
            }
            add(i, end, Source::NounPhrase);
            i = end;
            continue;
        }
        if w[i].pos == Pos::Num {
            add(i, i + 1, Source::NounPhrase);
        }
        i += 1;
    }
    // POS spans.
    for start in 0..w.len() {
        if !w[start].pos.is_open() {
            continue;
        }
        for end in start + 1..=(start + MAX_POS_SPAN).min(w.len()) {
            let last = &w[end - 1];
            let inner_ok = w[start..end].iter().all(|x| {
                x.pos.is_open() || matches!(x.pos, Pos::Det | Pos::Adp | Pos::Conj | Pos::Particle)
            });
            if !inner_ok {
                break;
            }
            if last.pos.is_open() || last.pos == Pos::Particle {
                add(start, end, Source::PosSpan);
            }
        }
    }
    // Parse-tree spans of at most three words with an open-class word; maximal only.
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for (k, c) in p.chunks.iter().enumerate() {
        match c.kind {
            ChunkKind::Np | ChunkKind::Pp { .. } => spans.push((c.start, c.end)),
            ChunkKind::Verb if w[c.head].tag == "VBG" => {
                let object = p.chunks.get(k + 1).filter(|n| n.kind == ChunkKind::Np);
                let followed_by_place = p
                    .chunks
                    .get(k + 2)
                    .is_some_and(|n| matches!(n.kind, ChunkKind::Pp { .. }));
                match object {
                    Some(o) if !followed_by_place => spans.push((c.head, o.end)),
                    Some(_) => {}
                    None => spans.push((c.head, c.end)),
                }
            }
            _ => {}
        }
    }
    spans.retain(|&(s, e)| e - s <= 3 && w[s..e].iter().any(|x| x.pos.is_open()));
    let maximal: Vec<(usize, usize)> = spans
        .iter()
        .copied()
        .filter(|&(s, e)| {
            !spans
                .iter()
                .any(|&(s2, e2)| (s2, e2) != (s, e) && s2 <= s && e <= e2)
        })
        .collect();
    for (s, e) in maximal {
        add(s, e, Source::ParseSpan);
    }
    out
}

/// The kind of answer the span `start..end` is, and for a number the counted noun (singular):
/// for candidates whose question a model writes.
pub fn classify(p: &Parse, start: usize, end: usize) -> (AnswerType, Option<String>) {
    let w = &p.words;
    let np = p
        .chunks
        .iter()
        .find(|c| c.kind == ChunkKind::Np && c.start <= start && end <= c.end);
    if end == start + 1 && w[start].pos == Pos::Num {
        let counted = np
            .filter(|c| c.head > start)
            .map(|c| singular(&w[c.head].lower).into_owned());
        return (AnswerType::Count, counted);
    }
    if w[start..end]
        .iter()
        .all(|x| is_color(&x.lower) || x.pos == Pos::Conj)
    {
        return (AnswerType::Color, None);
    }
    if p.chunks.iter().any(|c| {
        matches!(c.kind, ChunkKind::Pp { .. })
            && (c.start, c.end) == (start, end)
            && p.is_location(c)
    }) {
        return (AnswerType::Location, None);
    }
    if w[start].tag == "VBG" {
        return (AnswerType::Activity, None);
    }
    let head = np.map_or(end - 1, |c| c.head);
    if w[head].entity == Some(Entity::Person) || is_person_noun(&w[head].lower) {
        return (AnswerType::Person, None);
    }
    (AnswerType::Object, None)
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::*;

    fn texts(caption: &str, source: Source) -> Vec<String> {
        let p = parse(caption);
        extract(&p)
            .into_iter()
            .filter(|c| c.source == source)
            .map(|c| p.text(c.start, c.end, true))
            .collect()
    }

    #[test]
    fn the_seeds_extraction_kinds() {
        let c = "two men riding horses on a dirt road";
        assert_eq!(
            texts(c, Source::NounPhrase),
            ["2 men", "horses", "a dirt road", "2"]
        );
        let pos = texts(c, Source::PosSpan);
        assert!(pos.contains(&"riding horses".to_string()), "{pos:?}");
        assert!(pos.contains(&"dirt road".to_string()), "{pos:?}");
        assert!(pos.contains(&"horses on a dirt".to_string()), "{pos:?}");
        // "on a dirt road" has four words: no parse span; "a dirt road" inside it is not maximal
        // … but it is a noun phrase already.
        assert!(texts(c, Source::ParseSpan).is_empty());
        // "sleeping" is a subtree too, but found first as a POS span.
        assert_eq!(
            texts("a cat sleeping on the bed", Source::ParseSpan),
            ["on the bed"]
        );
    }
}
