//! A shallow parse of a caption: words with their coarse part of speech, grouped into chunks (noun
//! phrases, prepositional phrases, verb groups), on top of the filter's Brill tagger and gazetteer.
//!
//! VQ2A (seed 002 §3.1) parses captions with spaCy's dependency parser. None is available here, so
//! the structure a question needs is recovered from chunks instead:
//! - a noun phrase is a maximal run of determiners, numbers, adjectives, participles and nouns that
//!   ends in a noun (or is a pronoun, or a PERSON/LOC token); "a cup of coffee" is joined into one
//!   phrase when the first noun is a quantity or container ("cup", "group", "pair");
//! - a prepositional phrase is a preposition and the noun phrase after it;
//! - a verb group is a run of auxiliaries, adverbs and verbs, with a particle after it ("picking up").
//!
//! What a dependency parse decides and this one does not: where a prepositional phrase attaches. A
//! phrase after a verb's object is taken to modify the verb ("riding a horse | on a road"), which is
//! right for most captions and wrong for "a man eating a slice of pizza with cheese".

use foldhash::fast::RandomState;
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::OnceLock;

use super::visible::{is_animal, is_clothing, is_scene, is_vehicle, is_visible};
use super::words::{
    GATHERINGS, GOVERNING, INVARIANT_PASTS, LOCATIVE, LOOKING_AT, LOOKS, NOT_PLACES, PIECES,
    STATES, TIMES, any_lemma, inflects, is_aimed_at, is_body_part, is_caption_verb, is_formation,
    is_irregular_verb, is_person_noun, is_person_title, is_worn_or_held, names_people, singular,
    verb_lemma,
};
use crate::filter::entities::{Entity, Names};
use crate::filter::pos::Tagger;
use crate::filter::tokens::tokenize;

/// Whether "can" before `next` is the modal. It is the container only where no verb could
/// follow: at the end, or before a preposition, a conjunction or an article ("a can of soda",
/// "carrying a watering can during one of the stages", "a watering can and a hose"); before any
/// other word it stays the modal ("can jump", where the lexicon knows "jump" first as a noun).
pub fn modal_can(next: Option<&str>) -> bool {
    let tagger = Tagger::english();
    next.is_some_and(|n| {
        n.starts_with(char::is_alphanumeric)
            && !tagger
                .lookup(n)
                .is_some_and(|t| matches!(tagger.name(t), "IN" | "CC" | "DT" | "TO"))
    })
}

/// The coarse part of speech of a word (Universal-Dependencies-like classes of the Penn tags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pos {
    /// Determiner or possessive pronoun: a, the, his, this.
    Det,
    /// Cardinal number, in words or digits.
    Num,
    /// Adjective.
    Adj,
    /// Common or proper noun.
    Noun,
    /// Personal pronoun.
    Pron,
    /// Verb, any form.
    Verb,
    /// Adverb.
    Adv,
    /// Verb particle: up, down, off.
    Particle,
    /// Preposition or subordinating conjunction, and "to".
    Adp,
    /// Coordinating conjunction.
    Conj,
    /// Possessive ending 's.
    Possessive,
    /// Punctuation.
    Punct,
    /// Anything else (wh-words, existential "there", symbols, interjections).
    Other,
}

impl Pos {
    /// Open-class parts of speech (nouns, verbs, adjectives, adverbs), as VQ2A's POS spans start with.
    pub fn is_open(self) -> bool {
        matches!(self, Pos::Noun | Pos::Verb | Pos::Adj | Pos::Adv)
    }
}

/// One word of a parsed caption.
#[derive(Clone, Debug)]
pub struct Word {
    /// As written.
    pub text: String,
    /// Lower case.
    pub lower: String,
    /// Penn Treebank tag.
    pub tag: &'static str,
    /// Coarse part of speech.
    pub pos: Pos,
    /// The named entity the word belongs to, if any (a name from the gazetteer or a PERSON/LOC
    /// token the filter substituted).
    pub entity: Option<Entity>,
}

impl Word {
    /// Whether the word is a plural noun (or a pronoun that takes "are", or a collective noun
    /// that does: "Police detain protestors").
    pub fn is_plural(&self) -> bool {
        matches!(self.tag, "NNS" | "NNPS")
            || matches!(
                self.lower.as_str(),
                "they" | "we" | "you" | "police" | "people" | "cattle" | "personnel"
            )
    }

    /// Whether the word names a person or people: a name found as a person's (or PERSON), a
    /// people noun, a demonym.
    pub fn names_a_person(&self) -> bool {
        self.entity == Some(Entity::Person) || names_people(&self.text)
    }

    /// Whether the word is a finite verb or a modal ("forces", "stood", "can"): a clause's own
    /// verb, not a participle or an infinitive.
    pub fn is_finite(&self) -> bool {
        matches!(self.tag, "VBZ" | "VBP" | "VBD" | "MD")
    }

    /// Whether the word is a form of "be".
    pub fn is_be(&self) -> bool {
        BE.contains(&self.lower.as_str())
    }
}

/// Forms of "be".
const BE: [&str; 8] = ["is", "are", "was", "were", "be", "been", "being", "am"];

/// What a chunk is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkKind {
    /// Noun phrase.
    Np,
    /// Preposition and its noun phrase (`np` is the phrase's index).
    Pp {
        /// Index of the noun phrase chunk inside.
        np: usize,
    },
    /// Auxiliaries, adverbs and verbs, and a particle.
    Verb,
    /// Anything else, one word at a time.
    Other,
}

/// A run of words `start..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// What it is.
    pub kind: ChunkKind,
    /// First word.
    pub start: usize,
    /// One past the last word.
    pub end: usize,
    /// The head word: a noun phrase's last noun, a verb group's main verb, a preposition.
    pub head: usize,
}

/// A parsed caption.
#[derive(Clone, Debug)]
pub struct Parse {
    /// The words.
    pub words: Vec<Word>,
    /// The chunks, in order, covering every word once. A prepositional phrase's noun phrase is
    /// listed right after it (and inside it).
    pub chunks: Vec<Chunk>,
    /// The words' matching keys (numbers as digits, nouns singular, verbs by lemma), made once by
    /// the lexical reader for all of a caption's questions.
    pub(crate) keys: std::cell::OnceCell<Vec<String>>,
}

/// Nouns that measure or hold what follows "of": "a cup of coffee" is one noun phrase.
pub const QUANTITY_NOUNS: [&str; 28] = [
    "bunch", "bowl", "box", "couple", "cup", "dozen", "flock", "glass", "group", "herd", "lot",
    "lots", "number", "pair", "piece", "pile", "plate", "row", "set", "slice", "stack", "team",
    "variety", "bottle", "crowd", "cloud", "plume", "puff",
];

/// Whether `noun` (singular, lower case) measures, holds or gathers what follows its "of": "a
/// cup of coffee", "rows of tulips", "a long line of people" ([`QUANTITY_NOUNS`], [`GATHERINGS`]).
pub fn gathers(noun: &str) -> bool {
    QUANTITY_NOUNS.contains(&noun) || GATHERINGS.contains(&noun)
}

/// Round numbers that head "of" phrases of what they count: "thousands of protesters" is one
/// noun phrase, headed by "protesters" (but "Are there thousands of balloons?" is asked of no
/// picture: they are no [`QUANTITY_NOUNS`]).
const MANY: [&str; 4] = ["dozens", "hundreds", "thousands", "millions"];

/// The value of a number word in any case ("Two" → 2), if it is one. A `match`, not a table
/// search: every word of every caption and question is asked.
fn number_word(word: &str) -> Option<u32> {
    let mut lower = [0u8; 8];
    let lower = lower.get_mut(..word.len())?;
    for (l, b) in lower.iter_mut().zip(word.bytes()) {
        *l = b.to_ascii_lowercase();
    }
    Some(match &*lower {
        b"one" => 1,
        b"two" => 2,
        b"three" => 3,
        b"four" => 4,
        b"five" => 5,
        b"six" => 6,
        b"seven" => 7,
        b"eight" => 8,
        b"nine" => 9,
        b"ten" => 10,
        b"eleven" => 11,
        b"twelve" => 12,
        b"thirteen" => 13,
        b"fourteen" => 14,
        b"fifteen" => 15,
        b"sixteen" => 16,
        b"twenty" => 20,
        b"thirty" => 30,
        b"forty" => 40,
        b"fifty" => 50,
        _ => return None,
    })
}

/// A number word or numeral as digits ("two" → "2"), if it is one.
pub fn as_digits(word: &str) -> Option<String> {
    if !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()) {
        return Some(word.to_string());
    }
    number_word(word).map(|n| n.to_string())
}

fn coarse(tag: &str) -> Pos {
    match tag {
        "DT" | "PDT" | "PRP$" => Pos::Det,
        "CD" => Pos::Num,
        "JJ" | "JJR" | "JJS" => Pos::Adj,
        "NN" | "NNS" | "NNP" | "NNPS" => Pos::Noun,
        "PRP" => Pos::Pron,
        "VB" | "VBD" | "VBG" | "VBN" | "VBP" | "VBZ" | "MD" => Pos::Verb,
        "RB" | "RBR" | "RBS" => Pos::Adv,
        "RP" => Pos::Particle,
        "IN" | "TO" => Pos::Adp,
        "CC" => Pos::Conj,
        "POS" => Pos::Possessive,
        "," | "." | ":" | "(" | ")" | "``" | "''" | "#" | "$" => Pos::Punct,
        _ => Pos::Other,
    }
}

/// Every tag name the tagger may give, interned so that words can hold `&'static str`.
fn intern(tag: &str) -> &'static str {
    static TAGS: OnceLock<HashSet<&'static str, RandomState>> = OnceLock::new();
    let tags = TAGS.get_or_init(|| {
        [
            "CC", "CD", "DT", "EX", "FW", "IN", "JJ", "JJR", "JJS", "LS", "MD", "NN", "NNS", "NNP",
            "NNPS", "PDT", "POS", "PRP", "PRP$", "RB", "RBR", "RBS", "RP", "SYM", "TO", "UH", "VB",
            "VBD", "VBG", "VBN", "VBP", "VBZ", "WDT", "WP", "WP$", "WRB", ",", ".", ":", "(", ")",
            "``", "''", "#", "$",
        ]
        .into_iter()
        .collect()
    });
    tags.get(tag).copied().unwrap_or("XX")
}

/// Words the lexicon tags by their most frequent use, which captions rarely mean.
fn retag(lower: &str, tag: &'static str, next: Option<&str>) -> &'static str {
    match lower {
        // "a man on a horse" — never a verb particle before a noun phrase in a caption.
        "on" | "in" | "down" | "up" | "over" | "off" | "out" | "around" | "through"
            if tag == "RP" && next.is_some_and(|n| matches!(n, "a" | "an" | "the")) =>
        {
            "IN"
        }
        // "walks past a tank", "onboard the ISS": a preposition before a noun phrase, whatever
        // the lexicon says.
        "past" | "onboard"
            if next.is_some_and(|n| matches!(n, "a" | "an" | "the" | "his" | "her" | "their")) =>
        {
            "IN"
        }
        // "a landscape with bright colors, including a red sky": a preposition, never what a
        // thing is doing.
        "including" | "excluding" => "IN",
        // "Trapped in southern Mexico, hundreds of African migrants protest …": a number's
        // plural before "of" counts, whatever the tagger made of it after a comma.
        _ if MANY.contains(&lower) && next == Some("of") => "NNS",
        // The possessive with a typographic apostrophe, as web text writes it ("Apple’s").
        "’s" => "POS",
        // Typographic quotes around a name ("‘Amy’ is a computer generated image …") are
        // punctuation, as the lexicon's ASCII quotes are, not words of the name.
        "‘" | "“" => "``",
        "”" => "''",
        // Colours are adjectives before a noun and in a predicate; the lexicon makes some nouns.
        _ if tag == "NN" && is_color(lower) => "JJ",
        _ => tag,
    }
}

/// Colour words.
pub const COLORS: [&str; 22] = [
    "white",
    "black",
    "red",
    "blue",
    "green",
    "yellow",
    "orange",
    "pink",
    "purple",
    "brown",
    "gray",
    "grey",
    "silver",
    "gold",
    "golden",
    "beige",
    "tan",
    "violet",
    "maroon",
    "navy",
    "teal",
    "turquoise",
];

/// Whether the capital of a caption's first word `first` (ASCII), before the text `rest`, is the
/// sentence's rather than a name's: the lexicon knows the word in lower case as no proper noun,
/// or — "Cloche placed on a saucer" — does not know it, and it names a visible thing followed by
/// a verb or a preposition ("Libyan rebels" is a people's name); not a colour before a capital
/// ("Navy Lt. PERSON", "White House dings …" open names), nor a word before a lone capital
/// letter ("Ice T").
fn sentence_capital(first: &str, rest: &str, tagger: &Tagger) -> bool {
    let lower = first.to_ascii_lowercase();
    if is_color(&lower) && rest.starts_with(|c: char| c.is_uppercase()) {
        return false;
    }
    // "Ice T's confident wife", "Malcolm X": a lone capital letter after the word ends a name.
    let next = rest.split([' ', '\'', '’']).next().unwrap_or("");
    if next.len() == 1 && next.starts_with(|c: char| c.is_ascii_uppercase()) && lower != "a" {
        return false;
    }
    match tagger.lookup(&lower) {
        Some(t) => !tagger.name(t).starts_with("NNP"),
        None => {
            let next = rest.split_whitespace().next().unwrap_or("");
            is_visible(&lower)
                && tagger.lookup(next).is_some_and(|t| {
                    let tag = tagger.name(t);
                    tag.starts_with("VB") || tag == "IN"
                })
        }
    }
}

/// Whether a caption opens with a verb's capital that begins a name: a word the lexicon knows
/// first as a bare verb, a capitalised word, and a participle in lower case ("Chop Suey served
/// in a plate", "Pad Thai topped with …"). Not an imperative before a thing's name in capitals
/// ("Download Free Animated Wallpapers") nor before a name that acts ("Meet PERSON …"). (A
/// recipe's step that capitalises its dish, "Serve Risotto topped with …", reads as a name too.)
pub fn names_then_done(caption: &str) -> bool {
    let tagger = Tagger::english();
    let mut words = caption.split_whitespace();
    let (Some(verb), Some(name), Some(done)) = (words.next(), words.next(), words.next()) else {
        return false;
    };
    let known = |w: &str| {
        tagger
            .lookup(&w.to_ascii_lowercase())
            .map(|t| tagger.name(t))
    };
    // (Runs on every caption twice, the parse's and the reading's: the lexicon is asked last.)
    verb.starts_with(|c: char| c.is_ascii_uppercase())
        && name.starts_with(|c: char| c.is_ascii_uppercase())
        && name.bytes().all(|b| b.is_ascii_alphabetic())
        && !matches!(name, "PERSON" | "LOC")
        && done.len() > 4
        && done.ends_with("ed")
        && done.bytes().all(|b| b.is_ascii_lowercase())
        && known(verb) == Some("VB")
}

/// Things written as abbreviations in capitals, in lower case: "an RV", "an SUV", "watching TV".
/// A list, not any capitals whose lower case is a noun: "BOOTS", "GAP", "SHELL" and "ICE" are a
/// shop's, a brand's and an agency's names.
const THING_ABBREVIATIONS: [&str; 6] = ["tv", "pc", "suv", "rv", "atv", "utv"];

/// Whether a token is one of [`THING_ABBREVIATIONS`] in capitals, perhaps plural ("SUVs").
fn is_thing_abbreviation(text: &str) -> bool {
    let letters = text.strip_suffix('s').unwrap_or(text);
    letters.len() > 1
        && letters.bytes().all(|b| b.is_ascii_uppercase())
        && THING_ABBREVIATIONS
            .iter()
            .any(|a| a.eq_ignore_ascii_case(letters))
}

/// Whether `lower` is a colour word.
pub fn is_color(lower: &str) -> bool {
    COLORS.contains(&lower)
}

/// Places one goes to that the lexicon also knows as verbs ("to school", "to bed").
const GONE_TO: [&str; 10] = [
    "school", "church", "bed", "class", "college", "hospital", "jail", "prison", "market", "camp",
];

/// Gerunds that make compound nouns with the noun after them: "living room", "parking lot".
const GERUND_COMPOUNDS: [&str; 14] = [
    "living", "dining", "swimming", "parking", "cutting", "waiting", "washing", "changing",
    "meeting", "shopping", "baking", "frying", "sleeping", "boarding",
];

/// Parses `caption`.
pub fn parse(caption: &str) -> Parse {
    let tagger = Tagger::english();
    let original = tokenize(caption);
    let names = Names::english().find(&original, tagger);
    // A capital at the start is the sentence's, not a name's ("Modern living room"), when the
    // lexicon knows the word in lower case as something other than a proper noun. Only ASCII
    // words are lowered, so the tokens keep their boundaries and the names found stay in place.
    let first_end = caption.find(char::is_whitespace).unwrap_or(caption.len());
    let first = &caption[..first_end];
    let rest = caption[first_end..].trim_start();
    // "Chop Suey served in a plate": the verb's capital opens a name, which keeps it.
    let verb_names = names_then_done(caption);
    let lowered;
    let mut first_lowered = false;
    let tokens = if first.is_ascii()
        && first.starts_with(|c: char| c.is_ascii_uppercase())
        && first != "PERSON"
        && first != "LOC"
        // "US flag", "UK police": a word in capitals is an abbreviation, not a capitalised
        // "us".
        && !(first.len() > 1 && first.bytes().all(|b| b.is_ascii_uppercase()))
        && names.first().is_none_or(|s| s.start > 0)
        // "Rep PERSON", "Associate Justice PERSON": a title before a name keeps its capital.
        && !rest.starts_with("PERSON")
        && !verb_names
        && sentence_capital(first, rest, tagger)
    {
        lowered = format!("{}{}", first.to_ascii_lowercase(), &caption[first_end..]);
        first_lowered = true;
        tokenize(&lowered)
    } else {
        original
    };
    let tags = tagger.tag_tokens(&tokens);
    let mut entity = vec![None; tokens.len()];
    for span in names {
        entity[span.start..span.end].fill(Some(span.entity));
    }
    let mut words: Vec<Word> = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        let lower = token.text.to_lowercase();
        let next = tokens.get(i + 1).map(|t| t.text.to_ascii_lowercase());
        let mut tag = retag(&lower, intern(tagger.name(tags[i])), next.as_deref());
        let known = tagger.lookup(&lower).map(|t| intern(tagger.name(t)));
        // The lexicon's first tag of the next word, for the few rules that look one word ahead
        // (looked up only when one asks).
        let next_known = || {
            next.as_deref()
                .and_then(|n| tagger.lookup(n))
                .map(|t| tagger.name(t))
        };
        // "The Queen still smiled": a contextual rule of the tagger carries a name on to the
        // lower-case word after it; a word the lexicon knows, written in lower case, is no name.
        if i > 0
            && tag.starts_with("NNP")
            && token.text.starts_with(|c: char| c.is_ascii_lowercase())
            && let Some(known) = known.filter(|k| !k.starts_with("NNP"))
        {
            tag = known;
        }
        // "sitting in a van", "a Ford van": a lower-case word tagged a proper noun (the lexicon
        // knows "van" first as the particle of "Vincent van Gogh") that names a thing one could
        // see is the thing, unless a name goes on after it ("van Gogh", "van der Rohe"). (Not
        // the first word, whose capital the parse may have lowered: "Trump taps …".)
        if i > 0
            && tag.starts_with("NNP")
            && token.text.starts_with(|c: char| c.is_ascii_lowercase())
            && is_visible(&singular(&lower))
            && tokens.get(i + 1).is_none_or(|n| {
                !n.text.starts_with(char::is_uppercase)
                    && !matches!(n.text, "der" | "den" | "de" | "het")
            })
        {
            tag = if tag == "NNPS" { "NNS" } else { "NN" };
        }
        // "Chop Suey served in a plate": a verb's capital opens a name ([`names_then_done`]),
        // and the word after it goes on with the name.
        if verb_names && i < 2 && matches!(tag, "VB" | "NN") {
            tag = "NNP";
        }
        // "an SUV": a thing's abbreviation the tagger guessed a proper noun is the thing.
        if tag.starts_with("NNP") && is_thing_abbreviation(token.text) {
            tag = if token.text.ends_with('s') {
                "NNS"
            } else {
                "NN"
            };
        }
        let finite_tag = |t: &str| matches!(t, "VBZ" | "VBD" | "VBP");
        let finite = |w: &Word| finite_tag(w.tag);
        let before_phrase = next
            .as_deref()
            .is_some_and(|n| matches!(n, "the" | "a" | "an" | "his" | "her" | "their" | "its"));
        // "This shot of the cliff-top cul-de-sac shows the house": a contextual rule made the
        // caption's first verb a plural noun after an adjective; before a determiner the
        // lexicon's verb stands.
        if tag == "NNS" && known == Some("VBZ") && before_phrase && !words.iter().any(finite) {
            tag = "VBZ";
        }
        // "sensors that measure the salinity": after a relative pronoun, a noun (or the
        // lexicon's guess of a participle without "-ing") before a determiner is the clause's
        // verb.
        if (matches!(tag, "NN" | "NNS") || (tag == "VBG" && !lower.ends_with("ing")))
            && before_phrase
            && words
                .last()
                .is_some_and(|w: &Word| matches!(w.lower.as_str(), "that" | "which" | "who"))
        {
            tag = if lower.ends_with('s') && !lower.ends_with("ss") {
                "VBZ"
            } else {
                "VBP"
            };
        }
        // "the house", "a face": after an article, a word the lexicon knows as a noun is one. So
        // it is after an article and an abbreviation in capitals: "the US flag flies" (the tagger
        // read "US" as "us", and the verb a pronoun takes after it); not after a name ("The Heat
        // host the Celtics").
        let article = |w: &Word| matches!(w.lower.as_str(), "the" | "a" | "an");
        let abbreviation =
            |w: &Word| w.text.len() > 1 && w.text.bytes().all(|b| b.is_ascii_uppercase());
        let after_article = match words.as_slice() {
            [.., last] if article(last) => true,
            [.., det, name] => article(det) && abbreviation(name),
            _ => false,
        };
        if matches!(tag, "VB" | "VBP")
            && after_article
            && let Some(noun) = known.filter(|k| matches!(*k, "NN" | "NNS"))
        {
            tag = noun;
        }
        // "A folded rolls duvet is lying on …": a word the lexicon does not know, right before
        // "be" or "have" and after a modifier, closes the subject; the tagger's bare verb would
        // leave the sentence two verbs ("Artists upcycle found objects" has its verb).
        if matches!(tag, "VB" | "VBP")
            && known.is_none()
            && words
                .last()
                .is_some_and(|w: &Word| matches!(w.pos, Pos::Noun | Pos::Adj))
            && next
                .as_deref()
                .is_some_and(|n| matches!(n, "is" | "are" | "was" | "were" | "has" | "have"))
        {
            tag = "NN";
        }
        // "as he arrives home": "home" right after a verb, before no noun, says where to; it is
        // no object to ask "What does he arrive?" of.
        // So are "onstage" and "indoors", which the lexicon knows as nouns ("sitting onstage
        // with …").
        if matches!(lower.as_str(), "home" | "onstage" | "indoors")
            && words.last().is_some_and(|w: &Word| w.pos == Pos::Verb)
            && tags
                .get(i + 1)
                .is_none_or(|t| !tagger.name(*t).starts_with("NN"))
        {
            tag = "RB";
        }
        // "Stranded migrant reacts …": a people noun the lexicon knows first as an adjective,
        // right before a finite verb, is the verb's subject.
        if tag == "JJ"
            && matches!(next_known(), Some("VBZ" | "VBD" | "VBP"))
            && is_person_noun(&lower)
        {
            tag = "NN";
        }
        // "a police cordon": a word the lexicon knows only in a foreign phrase ("cordon bleu"),
        // after a noun and closing the phrase, is the compound's head noun.
        if tag == "FW"
            && words.last().is_some_and(|w: &Word| w.pos == Pos::Noun)
            && next
                .as_deref()
                .is_none_or(|n| !n.starts_with(char::is_alphanumeric) || next_known() == Some("IN"))
        {
            tag = "NN";
        }
        // "carrying a watering can during …", "a can of soda": "can" after an article, an
        // adjective, a noun or a participle, with no verb after it, is the container.
        if lower == "can"
            && words.last().is_some_and(|w: &Word| {
                matches!(w.pos, Pos::Det | Pos::Adj | Pos::Noun) || w.tag == "VBG"
            })
            && !modal_can(next.as_deref())
        {
            tag = "NN";
        }
        // "takes her son to school": after "to", a place one goes to is no verb.
        if tag == "VB"
            && words.last().is_some_and(|w: &Word| w.lower == "to")
            && GONE_TO.contains(&lower.as_str())
        {
            tag = "NN";
        }
        // "Swartz with glasses": a plural by the tagger's guess, with no plural's "s" and unknown
        // to the lexicon, is a singular (a name, when capitalised).
        if tag == "NNS" && !lower.ends_with('s') && known.is_none() {
            tag = if token.text.starts_with(|c: char| c.is_uppercase()) {
                "NNP"
            } else {
                "NN"
            };
        }
        // "diverse, smiling faces.": a verb's -s form after a participle that follows a comma,
        // an adjective, an article or a preposition, at the end of the phrase, is the plural
        // noun the participle describes.
        if tag == "VBZ"
            && i >= 2
            && words[i - 1].tag == "VBG"
            && (words[i - 2].text == ","
                || matches!(words[i - 2].pos, Pos::Adj | Pos::Det | Pos::Adp))
            && next
                .as_deref()
                .is_none_or(|n| !n.starts_with(char::is_alphanumeric) || n == "and")
        {
            tag = "NNS";
        }
        // "a computer generated image", "a hand painted sign": a past form between an article's
        // noun and another noun is the compound adjective they make, not the clause's verb —
        // when the clause has a verb of its own and the noun before is no one who could act
        // ("A woman carried groceries home"). A fragment's participle before it is that verb
        // ("hand holding a chocolate covered halloween spider").
        let verb_or_modal = |t: &str| finite_tag(t) || t == "MD";
        if matches!(tag, "VBD" | "VBN")
            && lower.ends_with("ed")
            && i >= 2
            && words[i - 1].tag == "NN"
            && !is_person_noun(&words[i - 1].lower)
            && !is_animal(&words[i - 1].lower)
            && matches!(words[i - 2].lower.as_str(), "a" | "an" | "the")
            // (A noun in lower case the tagger took for a name is a noun: "halloween spider".)
            && tags.get(i + 1).is_some_and(|t| {
                matches!(tagger.name(*t), "NN" | "NNS")
                    || (tagger.name(*t) == "NNP"
                        && tokens[i + 1].text.starts_with(char::is_lowercase))
            })
            && (words.iter().any(|w: &Word| verb_or_modal(w.tag) || w.tag == "VBG")
                || tags[i + 1..].iter().any(|t| verb_or_modal(tagger.name(*t))))
        {
            tag = "JJ";
        }
        // "A Puerto Rico inspired Padres jersey hangs …", "a Star Wars themed party": a
        // participle that makes a style's adjective of the name or noun before it, before a
        // noun, is no verb of the clause when the clause has one.
        if matches!(lower.as_str(), "inspired" | "themed" | "shaped" | "branded")
            && words.last().is_some_and(|w: &Word| w.pos == Pos::Noun)
            && tags
                .get(i + 1)
                .is_some_and(|t| tagger.name(*t).starts_with("NN"))
            && tags[i + 1..].iter().any(|t| verb_or_modal(tagger.name(*t)))
        {
            tag = "JJ";
        }
        // "Illustrated folder with papers", "Abandoned house in the woods": a participle that
        // opens the caption right before a common noun has no subject to be the verb of; it
        // says what the thing is ("Pictured PERSON …" and "Taken from …" keep their verb).
        if i == 0
            && tag == "VBN"
            && tags
                .get(1)
                .is_some_and(|t| matches!(tagger.name(*t), "NN" | "NNS"))
        {
            tag = "JJ";
        }
        // "‘Amy’": a typographic apostrophe after an opening quote closes it (without one, it
        // is a plural's possessive: "the players’ bench").
        if lower == "’" {
            if words.iter().any(|w: &Word| w.text == "‘") {
                tag = "''";
            } else if words.last().is_some_and(|w: &Word| w.tag == "NNS") {
                tag = "POS";
            }
        }
        // The filter's substitution tokens, bare or in angle brackets as ALT200M writes them.
        let mut entity = entity[i];
        match token.text {
            "PERSON" => {
                entity = Some(Entity::Person);
                tag = "NNP";
            }
            "LOC" => {
                entity = Some(Entity::Location);
                tag = "NNP";
            }
            _ => {}
        }
        // "Musk converses with …": a capitalised word the gazetteer knows as a person's name is
        // one, whatever the lexicon makes of it in lower case ("musk", an adjective).
        if entity == Some(Entity::Person)
            && tag == "JJ"
            && token.text.starts_with(|c: char| c.is_uppercase())
        {
            tag = "NNP";
        }
        // "The Morning After logo": a capitalised preposition inside a name, between a name's
        // word and a lower-case noun, is part of the name (a title's).
        if tag == "IN"
            && i > 0
            && token.text.starts_with(|c: char| c.is_ascii_uppercase())
            && words.last().is_some_and(|w: &Word| w.tag == "NNP")
            && tokens.get(i + 1).is_some_and(|n| {
                n.text.starts_with(|c: char| c.is_ascii_lowercase())
                    && tagger
                        .lookup(n.text)
                        .is_some_and(|t| tagger.name(t).starts_with("NN"))
            })
        {
            tag = "NNP";
        }
        // "former US President": a word in capitals the lexicon knows in lower case as a pronoun
        // or function word is an abbreviated name.
        if token.text.len() > 1
            && token.text.bytes().all(|b| b.is_ascii_uppercase())
            && entity.is_none()
            && matches!(tag, "PRP" | "IN" | "DT" | "CC" | "TO" | "MD")
        {
            tag = "NNP";
        }
        // "faces off with a heckler", "looks on from the stands", "peered over at his brother":
        // a particle right after a verb, before a preposition or the end, belongs to the verb
        // ("out of" stays a preposition).
        if matches!(
            lower.as_str(),
            "off" | "up" | "down" | "out" | "away" | "back" | "on" | "over"
        ) && words.last().is_some_and(|w: &Word| w.pos == Pos::Verb)
            && next.as_deref().is_none_or(|n| {
                n != "of"
                    && (!n.starts_with(char::is_alphanumeric)
                        || tagger
                            .lookup(n)
                            .is_some_and(|t| matches!(tagger.name(t), "IN" | "TO")))
            })
        {
            tag = "RP";
        }
        // "a girl with Down's syndrome": a capitalised word inside the caption with a possessive
        // after it is a name, whatever the lexicon knows the word as in lower case; and the
        // "'s" after a noun is the possessive, not "is".
        let possessive = |t: &str| matches!(t, "'s" | "’s");
        let capitalised = |t: &str| t.starts_with(|c: char| c.is_ascii_uppercase());
        if i > 0
            && capitalised(token.text)
            && tokens.get(i + 1).is_some_and(|n| possessive(n.text))
            && !tag.starts_with("NN")
        {
            tag = "NNP";
        }
        if possessive(&lower) && words.last().is_some_and(|w: &Word| w.pos == Pos::Noun) {
            tag = "POS";
        }
        // "Fans at Progressive Field in Cleveland", "the 100th day of her stay": a contextual
        // rule of the tagger makes a preposition a wh-determiner; only wh-words are.
        if tag == "WDT"
            && !matches!(
                lower.as_str(),
                "which" | "that" | "what" | "whatever" | "whichever"
            )
        {
            tag = tagger
                .lookup(&lower)
                .map_or("IN", |t| intern(tagger.name(t)));
        }
        if as_digits(&lower).is_some() && tag != "CD" && lower != "one" {
            tag = "CD";
        }
        // "The One Direction boys", "Maroon Five": a number word written with a capital inside
        // the caption, next to another capitalised word, is part of a name, not a count.
        if i > 0
            && tag == "CD"
            && capitalised(token.text)
            && !token.text.bytes().all(|b| b.is_ascii_digit())
            && (tokens.get(i + 1).is_some_and(|n| capitalised(n.text))
                || words.last().is_some_and(|w: &Word| w.tag == "NNP"))
        {
            tag = "NNP";
        }
        // "sports car parked": a contextual rule made a lexicon noun a verb after a plural noun;
        // before a participle or a preposition it heads the noun phrase. Not a verb of captions
        // after people in the plural, who modify no compound: "hundreds of African migrants
        // protest for …".
        if tag.starts_with("VB")
            && tagger
                .lookup(&lower)
                .is_some_and(|t| matches!(tagger.name(t), "NN" | "NNS"))
            && words.last().is_some_and(|w: &Word| {
                matches!(w.pos, Pos::Noun | Pos::Adj)
                    && !(w.tag == "NNS"
                        && is_caption_verb(&lower)
                        && is_person_noun(&singular(&w.lower)))
            })
            && tags
                .get(i + 1)
                .is_none_or(|t| matches!(tagger.name(*t), "VBN" | "VBG" | "IN"))
        {
            tag = intern(tagger.name(tagger.lookup(&lower).expect("checked")));
        }
        // "Woman jogging on a trail": an -ing word the lexicon makes a noun, right after a noun and
        // before a preposition or determiner, is the fragment's participle; so is the "reading"
        // of an object, "holds a sign reading \"Protect women's sports\"", before what the sign
        // says (a subject's, "A sign reading \"Closed\" hangs …", is read whole).
        // So is one before an object pronoun, after anything: "with green, blue and pink
        // surrounding him".
        if tag == "NN"
            && lower.ends_with("ing")
            && matches!(next.as_deref(), Some("him" | "them" | "it" | "us" | "me"))
        {
            tag = "VBG";
        }
        if tag == "NN"
            && lower.ends_with("ing")
            && words.last().is_some_and(|w: &Word| w.pos == Pos::Noun)
            && (next.is_none()
                || matches!(next_known(), Some("IN" | "DT" | "TO"))
                || (matches!(lower.as_str(), "reading" | "saying")
                    && words.iter().any(|w| w.pos == Pos::Verb)
                    && next
                        .as_deref()
                        .is_some_and(|n| n.starts_with(['"', '“', '\'', '‘', ':']))))
        {
            tag = "VBG";
        }
        if tag == "VBG"
            && GERUND_COMPOUNDS.contains(&lower.as_str())
            && next.is_some()
            && tags
                .get(i + 1)
                .is_some_and(|t| tagger.name(*t).starts_with("NN"))
        {
            tag = "NN";
        }
        words.push(Word {
            text: token.text.to_string(),
            lower,
            tag,
            pos: coarse(tag),
            entity,
        });
    }
    // "<PERSON>": drop the brackets around substitution tokens so they read as one word.
    let mut i = 0;
    while i + 2 < words.len() {
        if words[i].text == "<" && words[i + 2].text == ">" && words[i + 1].entity.is_some() {
            words.remove(i + 2);
            words.remove(i);
        }
        i += 1;
    }
    nouns_and_participles(&mut words);
    verbs_read_as_nouns(&mut words);
    past_forms(&mut words);
    particles_before_objects(&mut words);
    past_after_a_phrase(&mut words);
    head_of_a_role(&mut words);
    // "Chip Kelly directs his team": a first word lowered as a common noun that the tagger still
    // reads as a name is written as it was.
    if first_lowered && words[0].tag.starts_with("NNP") {
        let mut text = words[0].text.clone();
        text[..1].make_ascii_uppercase();
        words[0].text = text;
    }
    let chunks = chunk(&words);
    Parse {
        words,
        chunks,
        keys: std::cell::OnceCell::new(),
    }
}

/// Sets word `i`'s tag (and its coarse part of speech).
fn set_tag(w: &mut Word, tag: &'static str) {
    w.tag = tag;
    w.pos = coarse(tag);
}

/// Whether the lexicon knows a past tense of `lemma` ("spray" → "sprayed", "slice" → "sliced",
/// "chat" → "chatted"): the word is a verb too, whatever its most frequent tag.
fn has_past_tense(lemma: &str) -> bool {
    let tagger = Tagger::english();
    let past = |form: &str| {
        tagger
            .lookup(form)
            .is_some_and(|t| matches!(tagger.name(t), "VBD" | "VBN"))
    };
    if lemma.ends_with('e') {
        return past(&format!("{lemma}d"));
    }
    // A short vowel before one final consonant doubles it: "chat", "jog", "stop".
    let b = lemma.as_bytes();
    let vowel = |c: u8| b"aeiou".contains(&c);
    let doubles = b.len() >= 3
        && !vowel(b[b.len() - 1])
        && !b"wxy".contains(&b[b.len() - 1])
        && vowel(b[b.len() - 2])
        && !vowel(b[b.len() - 3]);
    past(&format!("{lemma}ed"))
        || (doubles && past(&format!("{lemma}{}ed", char::from(b[b.len() - 1]))))
}

/// Whether a lower-case lemma can be a caption's verb: one of [`is_caption_verb`]'s, a word
/// with a past tense, regular or irregular, or one the lexicon reads as a verb first ("converse",
/// whose past tense it lacks).
fn can_be_verb(lemma: &str) -> bool {
    let tagger = Tagger::english();
    is_caption_verb(lemma)
        || has_past_tense(lemma)
        || is_irregular_verb(lemma)
        || tagger
            .lookup(lemma)
            .is_some_and(|t| matches!(tagger.name(t), "VB" | "VBP"))
}

/// Whether word `i` can act: a person or an animal, by noun or name; or a vehicle, which moves
/// ([`VEHICLE_MOTIONS`]: "A plane lands at an airport").
fn is_agent(w: &Word) -> bool {
    w.entity == Some(Entity::Person)
        || w.tag.starts_with("NNP")
        // A people's name too: "Canadians cheer on Team Canada".
        || names_people(&w.text)
        || is_animal(&singular(&w.lower))
        || is_vehicle(&singular(&w.lower))
}

/// Whether the verb at `i` follows the caption's subject, a thing's noun (not a person's nor an
/// animal's: "PERSON served in the Navy"), with no preposition before it ("muffins on a rack with
/// sugar sprinkled on top" is a noun in a phrase), and a preposition follows: where a past form
/// of [`PREPARED`] is the thing's participle ("cake topped with berries").
fn after_a_thing_before_its_place(words: &[Word], i: usize) -> bool {
    i > 0
        && words[i - 1].pos == Pos::Noun
        && !words[..i].iter().any(|w| w.pos == Pos::Adp)
        && words[i - 1].entity != Some(Entity::Person)
        && !names_people(&words[i - 1].text)
        && !is_animal(&singular(&words[i - 1].lower))
        && words.get(i + 1).is_some_and(|n| n.pos == Pos::Adp)
}

/// Verbs of preparing, placing and arranging things, whose past form after a thing's noun is its
/// participle in a photo's fragment ("cake topped with berries", "bread cut into quarters").
const PREPARED: [&str; 24] = [
    "serve", "top", "garnish", "bake", "cook", "place", "stack", "arrange", "display", "fill",
    "cover", "drizzle", "sprinkle", "decorate", "pile", "slice", "wrap", "stuff", "dust", "proof",
    "coat", "roast", "cut", "park",
];

/// What a vehicle does that a picture shows, the only verbs read after one: "A plane lands at an
/// airport", not "car parks in London" (the places), whose "parks" is no motion here.
pub const VEHICLE_MOTIONS: [&str; 12] = [
    "land", "fly", "sail", "float", "drive", "dock", "roll", "hover", "cross", "travel", "pass",
    "approach",
];

/// Words of a fragment the lexicon reads as another part of speech: "is cast on" (a participle
/// without "-ing"), "an ornate school building" (an -ing noun), "the baleen recovered from a whale" (an unknown noun, a passive participle),
/// "next to bulky medical equipment" (an adjective, not an infinitive). Before
/// [`verbs_read_as_nouns`], which looks for the subject's head among the nouns.
fn nouns_and_participles(words: &mut [Word]) {
    // "is cast on a flag", "a city street a silhouette", "Anchor the floating layer": the
    // lexicon's guess of a present participle for a word without "-ing" is a passive participle
    // after "be", an imperative's verb first, else a noun.
    for i in 0..words.len() {
        if words[i].tag == "VBG" && !words[i].lower.ends_with("ing") {
            let tag = match i {
                0 => "VB",
                _ if words[i - 1].is_be() => "VBN",
                _ => "NN",
            };
            set_tag(&mut words[i], tag);
        }
    }
    // "a group of smiling children sitting on a bench", "two cheering fans waving flags": a
    // participle before people or animals, after "of" or a number, with the clause's own verb
    // still to come, describes them (as the lexicon reads "a smiling woman"). A gerund takes
    // them as its object only with no verb after ("the joy of feeding children"). (First, it is
    // left to the clause: "Isolating students peer out …" asks "Are there students?".)
    for i in 1..words.len().saturating_sub(2) {
        if words[i].tag == "VBG"
            && (words[i - 1].lower == "of" || words[i - 1].tag == "CD")
            && matches!(words[i + 1].tag, "NN" | "NNS")
            && {
                let noun = singular(&words[i + 1].lower);
                is_person_noun(&noun) || is_animal(&noun)
            }
            && words[i + 2..]
                .iter()
                .any(|w| matches!(w.tag, "VBG" | "VBZ" | "VBD" | "VBP"))
        {
            set_tag(&mut words[i], "JJ");
        }
    }
    // "an ornate school building": an -ing noun after a noun of its phrase, with no object after
    // it, is the phrase's head ("a man building a fence" has one).
    for i in 1..words.len() {
        if words[i].tag == "VBG"
            && ING_NOUNS.contains(&words[i].lower.as_str())
            && matches!(words[i - 1].pos, Pos::Noun | Pos::Adj)
            && words
                .get(i + 1)
                .is_none_or(|n| matches!(n.pos, Pos::Adp | Pos::Punct))
        {
            set_tag(&mut words[i], "NN");
        }
    }
    // "An artist's rendering of the theme park", "The city's acropolis is …": after a
    // possessive comes the thing possessed — a noun, unless a participle modifies the noun after
    // it ("his wife's growing belly").
    for i in 1..words.len() {
        let modifies = words
            .get(i + 1)
            .is_some_and(|n| matches!(n.pos, Pos::Noun | Pos::Adj));
        if words[i - 1].pos == Pos::Possessive
            && (matches!(words[i].tag, "VB" | "VBP" | "VBZ" | "VBD")
                || (words[i].tag == "VBG" && !modifies))
        {
            set_tag(&mut words[i], "NN");
        }
    }
    // "The baleen recovered from …": a word the lexicon does not know as a verb's form, between
    // a determiner and a verb, is a noun.
    for i in 1..words.len().saturating_sub(1) {
        if matches!(words[i].tag, "VBN" | "VBD")
            && words[i - 1].pos == Pos::Det
            && words[i + 1].pos == Pos::Verb
            && verb_lemma(&words[i].lower).is_none()
        {
            set_tag(&mut words[i], "NN");
        }
    }
    // "a bright, modern office": a word between a determiner and a comma with an adjective after
    // it is an adjective of the same noun, whatever the lexicon reads it as.
    for i in 1..words.len().saturating_sub(2) {
        if words[i].tag == "NN"
            && words[i - 1].pos == Pos::Det
            && words[i + 1].text == ","
            && words[i + 2].pos == Pos::Adj
        {
            set_tag(&mut words[i], "JJ");
        }
    }
    // "next to bulky medical equipment": after "next to" or "close to" comes a noun phrase, not
    // an infinitive.
    for i in 2..words.len().saturating_sub(1) {
        if words[i].tag == "VB"
            && words[i - 1].lower == "to"
            && matches!(words[i - 2].lower.as_str(), "next" | "close")
            && matches!(words[i + 1].pos, Pos::Adj | Pos::Noun)
        {
            set_tag(&mut words[i], "JJ");
        }
    }
    // "Cloche placed on a terracotta saucer", "the baleen recovered from a whale": a verb that
    // takes an object, with none after it, is the passive participle of a fragment.
    for i in 1..words.len().saturating_sub(1) {
        if words[i].tag == "VBD"
            && words[i].lower.ends_with("ed")
            && words[i - 1].pos == Pos::Noun
            && words[i + 1].pos == Pos::Adp
            && verb_lemma(&words[i].lower).is_some_and(|l| OBJECT_VERBS.contains(&l.as_str()))
        {
            set_tag(&mut words[i], "VBN");
        }
    }
}

/// Verbs (lemmas) whose "by" is a visit's particle: "stopped by the grill", "dropped by the
/// studio".
const VISIT_VERBS: [&str; 4] = ["stop", "drop", "swing", "pop"];

/// Subordinators and relative words that open a clause of its own: a finite verb after one is
/// that clause's verb, not the sentence's.
const CLAUSE_OPENERS: [&str; 14] = [
    "as", "while", "when", "after", "before", "because", "since", "until", "and", "but", "who",
    "which", "that", "where",
];

/// The first verb's past form after the subject, read as what the rest of the sentence makes it.
/// "PERSON held onto his wife's belly", "The star stopped by the grill for lunch": a past form
/// the lexicon took for a passive participle is the verb's past when nothing passive follows
/// ("hold onto" and "stop by" are verbs of two words, "onto" and "by" their particles). And
/// "This image pulled from video broadcast … shows PERSON": a past tense before a preposition,
/// with the sentence's present-tense verb later and no clause opened in between, is a
/// participle of the subject's phrase.
fn past_forms(words: &mut [Word]) {
    let Some(i) = words.iter().position(|w| w.pos == Pos::Verb) else {
        return;
    };
    if i == 0 || words[i - 1].pos != Pos::Noun || i + 1 >= words.len() {
        return;
    }
    let lemma = verb_lemma(&words[i].lower).unwrap_or_default();
    let next = words[i + 1].lower.as_str();
    match words[i].tag {
        "VBN" if next == "onto" || (next == "by" && VISIT_VERBS.contains(&lemma.as_str())) => {
            set_tag(&mut words[i], "VBD");
            set_tag(&mut words[i + 1], "RP");
        }
        "VBD" if words[i + 1].pos == Pos::Adp => {
            let later = words[i + 1..].iter().position(|w| {
                matches!(w.tag, "VBZ" | "VBP")
                    || w.pos == Pos::Pron
                    || w.text == ","
                    || CLAUSE_OPENERS.contains(&w.lower.as_str())
            });
            if later.is_some_and(|j| matches!(words[i + 1 + j].tag, "VBZ" | "VBP")) {
                set_tag(&mut words[i], "VBN");
            }
        }
        _ => {}
    }
}

/// Verbs (lemmas) whose "off" is a particle before their object: "shows off her curves",
/// "fends off a tackle", "flicking off photographers", "police cordon off the street".
const OFF_VERBS: [&str; 16] = [
    "show", "fend", "ward", "fight", "shake", "kick", "pull", "flick", "brush", "cordon", "seal",
    "block", "rope", "set", "see", "tip",
];

/// The verb a caption's lexicon made a noun: "A pedestrian walks through snow", "People in combat
/// gear stand near white vans", "PERSON answers questions". Before the first verb, a word that is
/// a common caption verb ([`is_caption_verb`]) in the form agreeing with an acting subject (a
/// person or animal, or a vehicle that moves: [`is_agent`]), right after a noun, and followed by
/// what follows a verb (a preposition, a determiner, an adverb, a plural object or nothing) is
/// the verb. And "is partially inflated": an -ed adjective after a form of "be" is a passive
/// participle.
fn verbs_read_as_nouns(words: &mut [Word]) {
    // "the cliff-top cul-de-sac shows": a hyphenated word the tagger guessed an adjective, after
    // an article or an adjective and before no noun or adjective, is the phrase's noun.
    for i in 1..words.len() {
        if words[i].tag == "JJ"
            && words[i].lower.contains('-')
            && matches!(words[i - 1].pos, Pos::Det | Pos::Adj)
            && words
                .get(i + 1)
                .is_none_or(|n| !matches!(n.pos, Pos::Noun | Pos::Adj))
        {
            set_tag(&mut words[i], "NN");
        }
    }
    // "a blue button up shirt", "a zip up hoodie": "up" between a noun and a garment is part of
    // the garment's name, not a particle (nor the end of the noun phrase before the verb).
    for i in 1..words.len().saturating_sub(1) {
        if words[i].lower == "up"
            && words[i - 1].pos == Pos::Noun
            && is_clothing(&singular(&words[i + 1].lower))
        {
            set_tag(&mut words[i], "JJ");
        }
    }
    // "the long lost lunar samples", "a newly built bridge": a past form after a determiner
    // (and an adverb) and before a modifier or a noun modifies the noun.
    for i in 1..words.len().saturating_sub(1) {
        let det = |j: usize| words[j].pos == Pos::Det;
        let opened = det(i - 1)
            || (i > 1
                && det(i - 2)
                && (words[i - 1].pos == Pos::Adv || words[i - 1].lower == "long"));
        if opened
            && matches!(words[i].tag, "VBD" | "VBN" | "VBP")
            && matches!(words[i + 1].pos, Pos::Adj | Pos::Noun)
        {
            set_tag(&mut words[i], "JJ");
        }
    }
    // "Chocolate cake topped with berries", "Pork and prawn Jambalaya served in a cast iron pan":
    // a past form of preparing or placing, right after a thing's noun and before a preposition,
    // and the caption's only finite verb, is a participle describing the thing (a photo's
    // fragment), not what the thing did. A person or an animal does it ("PERSON served in the
    // Navy").
    // (Runs on every caption: the only finite verb is found without collecting the verbs.)
    let mut finite = (0..words.len()).filter(|&i| words[i].is_finite());
    if let (Some(i), None) = (finite.next(), finite.next())
        && words[i].tag == "VBD"
        && after_a_thing_before_its_place(words, i)
        && verb_lemma(&words[i].lower).is_some_and(|l| PREPARED.contains(&l.as_str()))
    {
        set_tag(&mut words[i], "VBN");
    }
    // "PERSON (7) and PERSON (9) warm up prior to the game": "warm" before "up" after the
    // subject (a noun, or the closing bracket of a player's number) is the verb, with its
    // particle, not an adjective — unless a noun follows ("warm up jackets").
    for i in 1..words.len().saturating_sub(1) {
        if words[i].lower == "warm"
            && words[i].pos == Pos::Adj
            && words[i + 1].lower == "up"
            && (words[i - 1].pos == Pos::Noun || words[i - 1].text == ")")
            && words.get(i + 2).is_none_or(|n| n.pos != Pos::Noun)
        {
            let tag = if words[i - 1].tag == "NNS" || words[..i].iter().any(|w| w.lower == "and") {
                "VBP"
            } else {
                "VB"
            };
            set_tag(&mut words[i], tag);
            set_tag(&mut words[i + 1], "RP");
        }
    }
    // "a pedestrian walks": a person noun the lexicon calls an adjective, before the verb.
    if let Some(i) = words
        .iter()
        .take(3)
        .position(|w| w.pos == Pos::Adj && is_person_noun(&w.lower))
        && words
            .get(i + 1)
            .is_some_and(|n| n.pos != Pos::Noun || is_caption_verb(&singular(&n.lower)))
    {
        set_tag(&mut words[i], "NN");
    }
    // "red-painted", "snow-capped": a hyphenated participle is an adjective before a noun.
    for i in 0..words.len() {
        let w = &words[i];
        let before_noun = words[i + 1..]
            .iter()
            .find(|n| n.text != "," && n.pos != Pos::Adj)
            .is_some_and(|n| n.pos == Pos::Noun);
        if w.lower.contains('-') && w.lower.ends_with("ed") && w.pos == Pos::Noun && before_noun {
            set_tag(&mut words[i], "JJ");
        }
    }
    // "Spanish Bread showing the buttery sugar filling.": a word in "-ing" that names a thing
    // one could see, closing the sentence and the object of a verb after its determiner and
    // modifiers, is the object's noun (a filling, a frosting), not a second participle ("showing
    // the error decreasing", "a window floating in a room"); not after a person or an animal.
    for i in 2..words.len() {
        if words[i].tag != "VBG"
            || words.get(i + 1).is_some_and(|n| n.text != ".")
            || !is_visible(&words[i].lower)
        {
            continue;
        }
        let opened = (0..i)
            .rev()
            .find(|&j| !matches!(words[j].pos, Pos::Adj | Pos::Noun))
            .filter(|&j| j + 1 < i && words[j].pos == Pos::Det && j > 0)
            .is_some_and(|j| words[j - 1].pos == Pos::Verb);
        if opened && !is_agent(&words[i - 1]) && !is_person_noun(&singular(&words[i - 1].lower)) {
            set_tag(&mut words[i], "NN");
        }
    }
    // "employees … de-ice a plane": a past tense the lexicon guessed for a word that has none.
    for w in words.iter_mut() {
        if w.tag == "VBD" && !w.lower.ends_with("ed") && verb_lemma(&w.lower).is_none() {
            set_tag(w, "VBP");
        }
    }
    // "Zimbabweans celebrate outside …": a bare verb right after the subject, before any other
    // verb, is the present tense.
    if let Some(i) = words.iter().position(|w| w.pos == Pos::Verb)
        && words[i].tag == "VB"
        && i > 0
        && words[i - 1].pos == Pos::Noun
    {
        // "Olive Focaccia Bread cut into quarters": a thing's singular name takes no bare
        // present; a verb of preparing whose past is its base form ("cut") is its participle.
        let prepared = !words[i - 1].is_plural()
            && after_a_thing_before_its_place(words, i)
            && PREPARED.contains(&words[i].lower.as_str())
            && INVARIANT_PASTS.contains(&words[i].lower.as_str());
        set_tag(&mut words[i], if prepared { "VBN" } else { "VBP" });
    }
    for i in 1..words.len() {
        if words[i].pos == Pos::Adj
            && words[i].lower.ends_with("ed")
            && (words[i - 1].is_be()
                || (words[i - 1].pos == Pos::Adv && i > 1 && words[i - 2].is_be()))
        {
            set_tag(&mut words[i], "VBN");
        }
    }
    // "A protester holding a shield attempts to block …": before any finite verb, a plural noun
    // that can be a verb, after a noun and before "to" and a bare verb, is the verb.
    if let Some(i) = (1..words.len().saturating_sub(2)).find(|&i| {
        words[i].tag == "NNS"
            && words[i - 1].pos == Pos::Noun
            && words[i + 1].tag == "TO"
            && words[i + 2].tag == "VB"
            && (is_caption_verb(&singular(&words[i].lower))
                || CATENATIVE.contains(&&*singular(&words[i].lower)))
    }) && !words[..i]
        .iter()
        .any(|w| matches!(w.tag, "VBZ" | "VBD" | "VBP"))
    {
        set_tag(&mut words[i], "VBZ");
    }
    // "In a laboratory in Shanghai, researchers work on …": a place put before the clause, closed
    // by its comma, holds no subject; the subject is sought after it.
    let after_place = match words.first() {
        Some(w) if w.pos == Pos::Adp => words
            .iter()
            .take(10)
            .take_while(|w| w.pos != Pos::Verb)
            .position(|w| w.text == ",")
            .map_or(0, |comma| comma + 1),
        _ => 0,
    };
    let Some(first) = words[after_place..]
        .iter()
        .position(|w| w.pos == Pos::Noun)
        .map(|i| i + after_place)
    else {
        return;
    };
    // The subject's head: the last of its nouns, not counting one that is already the verb
    // ("PERSON answers questions").
    let mut head = first;
    while let Some(next) = words.get(head + 1).filter(|w| w.pos == Pos::Noun) {
        let verb_next = match next.tag {
            "NNS" => !words[head].is_plural() && can_be_verb(&singular(&next.lower)),
            "NN" => words[head].is_plural() && can_be_verb(&next.lower),
            _ => false,
        };
        if is_agent(&words[head]) && verb_next {
            break;
        }
        head += 1;
    }
    if !is_agent(&words[head]) {
        return;
    }
    let subject_plural = words[head].is_plural();
    // "PERSON and girlfriend PERSON enjoy drinks": after "and", a verb of either number agrees
    // (the subject may be the pair, or the last of a list).
    let mut coordinated = false;
    // Past a preposition the noun before the word is no longer the subject: "people in combat
    // gear stand", but "rescue workers at the poultry processing plant".
    let mut in_phrase = false;
    // "A man dressed in black walks down the street", "a person wearing a blue shirt points at a
    // monitor": a participle after the subject opens a reduced relative, and the sentence's verb
    // comes after the participle's phrase (a caption verb, with something after it).
    let mut relative = false;
    for i in head + 1..words.len() {
        let w = &words[i];
        if w.pos == Pos::Verb {
            // "with a concentrated face wearing …": a participle before its noun modifies it.
            if premodifier(words, i) {
                continue;
            }
            if matches!(w.tag, "VBG" | "VBN") && !relative {
                relative = true;
                in_phrase = true;
                continue;
            }
            return;
        }
        coordinated |= w.lower == "and";
        in_phrase |= w.pos == Pos::Adp;
        let plural_object = |n: &Word| {
            subject_plural
                && !coordinated
                && n.tag == "VBZ"
                && !is_caption_verb(&singular(&n.lower))
        };
        let (form, lemma) = match w.tag {
            "NNS" if !subject_plural || coordinated => ("VBZ", singular(&w.lower)),
            "NN" if subject_plural || coordinated => ("VBP", Cow::Borrowed(w.lower.as_str())),
            _ => continue,
        };
        let follows = words.get(i + 1).is_none_or(|n| {
            matches!(n.pos, Pos::Adp | Pos::Det | Pos::Adv | Pos::Pron | Pos::Num | Pos::Adj)
                || n.tag == "NNS"
                || n.lower == "."
                // "Firefighters spray water": a noun object after a caption verb (not after any
                // word with a past tense: "people in combat gear stand" has "geared"), or after
                // any verb right after the subject ("volunteers place sand bags").
                || (n.pos == Pos::Noun && (is_caption_verb(&lemma) || i == head + 1))
                // "The players look tired": a participle completes a verb of looking.
                || (n.tag == "VBN" && LOOKS.contains(&&*lemma))
                // "Riot police carry shields": a plural subject takes no "-s" verb, so the
                // tagger's "shields" after a caption verb read as a noun is its object (not
                // "holds" of "A police officer holds").
                || (plural_object(n) && is_caption_verb(&lemma))
        });
        let verb = if in_phrase {
            is_caption_verb(&lemma)
        } else {
            can_be_verb(&lemma)
        } && (!is_vehicle(&singular(&words[head].lower))
            || VEHICLE_MOTIONS.contains(&&*lemma));
        // "A Delta Airlines Embraer 175 lands at …": a model's number closes its name.
        let model_number = words[i - 1].pos == Pos::Num && words[i - 2].tag.starts_with("NNP");
        // "Four women dressed in athletic-wear stand on …": a hyphenated word the tagger guessed
        // an adjective closes the participle's phrase as a noun would, and is that noun.
        let hyphenated = words[i - 1].pos == Pos::Adj && words[i - 1].lower.contains('-');
        let after_phrase = words[i - 1].pos == Pos::Noun
            || (relative && hyphenated)
            || model_number
            || (relative && is_color(&words[i - 1].lower) && words[i - 2].pos == Pos::Adp);
        if after_phrase && follows && verb && (!relative || i + 1 < words.len()) {
            set_tag(&mut words[i], form);
            if words.get(i + 1).is_some_and(plural_object) {
                set_tag(&mut words[i + 1], "NNS");
            }
            if hyphenated {
                set_tag(&mut words[i - 1], "NN");
            }
            return;
        }
    }
}

/// "cuts down a pod", "holds up a sign", "shows off her curves": after a verb (once the verbs
/// are known) and before a noun phrase, "down" or "up" before one that names no way to go along
/// ("walks down the street"), and "off" after a verb that takes it ([`OFF_VERBS`]; not "jumps off
/// the boat"), is the verb's particle.
fn particles_before_objects(words: &mut [Word]) {
    for i in 1..words.len() {
        let verb = &words[i - 1];
        if verb.pos != Pos::Verb || words[i].pos != Pos::Adp {
            continue;
        }
        let particle = match words[i].lower.as_str() {
            "down" | "up" => {
                noun_phrase(words, i + 1).is_some_and(|(_, h)| !is_way(&words[h].lower))
            }
            "off" => {
                // "showing off their rings" as "shows off her curves".
                OFF_VERBS.contains(&any_lemma(&verb.lower).as_str())
                    && noun_phrase(words, i + 1).is_some()
            }
            _ => false,
        };
        if particle {
            set_tag(&mut words[i], "RP");
        }
    }
}

/// "carry shields past tourists": "past" after a noun and before a noun phrase is a
/// preposition, where the lexicon reads an adjective ("the past decade" stays one). (After a
/// verb the clause reads "skips past Seattle Sounders' Zach Scott" as it is.)
fn past_after_a_phrase(words: &mut [Word]) {
    for i in 1..words.len().saturating_sub(1) {
        if words[i].lower == "past"
            && words[i].pos == Pos::Adj
            && words[i - 1].pos == Pos::Noun
            && matches!(words[i + 1].pos, Pos::Noun | Pos::Det | Pos::Adj | Pos::Num)
        {
            set_tag(&mut words[i], "IN");
        }
    }
}

/// "Commanders head coach PERSON walks": "head" before a role ("head coach", "head chef") is the
/// role's rank, no verb (the subject's verb was sought before, and took it).
fn head_of_a_role(words: &mut [Word]) {
    for i in 1..words.len() {
        if words[i - 1].lower == "head"
            && words[i - 1].pos == Pos::Verb
            && is_person_noun(&words[i].lower)
        {
            set_tag(&mut words[i - 1], "NN");
        }
    }
}

/// Verbs that take an infinitive: "attempts to block", "prepares to board".
pub(crate) const CATENATIVE: [&str; 10] = [
    "attempt", "try", "prepare", "struggle", "continue", "begin", "start", "want", "need", "hope",
];

/// Verbs that take an object, whose past form before a preposition is a passive participle:
/// "placed on a saucer", not "arrived at the airport".
const OBJECT_VERBS: [&str; 22] = [
    "place", "put", "recover", "display", "mount", "cover", "fill", "surround", "decorate",
    "paint", "frame", "stack", "arrange", "pile", "park", "locate", "plant", "install", "store",
    "abandon", "wrap", "escort",
];

/// Nouns ending in "-ing" that the lexicon tags as the verb's participle.
const ING_NOUNS: [&str; 14] = [
    "building", "painting", "drawing", "clothing", "ceiling", "wedding", "meeting", "evening",
    "morning", "railing", "landing", "crossing", "carving", "awning",
];

/// Adverbs of degree without "-ly" that grade an adjective inside a noun phrase: "a very large
/// dog", "a pretty white girl".
const DEGREE: [&str; 5] = ["very", "pretty", "quite", "rather", "fairly"];

/// Whether word `i` can be inside a noun phrase before its head.
fn premodifier(words: &[Word], i: usize) -> bool {
    let w = &words[i];
    match w.pos {
        Pos::Det | Pos::Num | Pos::Adj | Pos::Noun => true,
        // "a parked car", "a running dog", "his wife's growing belly", "diverse, smiling faces":
        // a participle between a determiner, adjective, possessive or an adjective's comma and a
        // noun.
        Pos::Verb => {
            // "shows off matching ponytails": after a verb's particle too.
            let after_particle = i > 1
                && (words[i - 1].pos == Pos::Particle
                    || (words[i - 1].lower == "off" && words[i - 2].pos == Pos::Verb));
            matches!(w.tag, "VBN" | "VBG")
                && i > 0
                && (matches!(words[i - 1].pos, Pos::Det | Pos::Adj | Pos::Possessive)
                    || after_particle
                    || (i > 1 && words[i - 1].text == "," && words[i - 2].pos == Pos::Adj))
                && words.get(i + 1).is_some_and(|n| n.pos == Pos::Noun)
        }
        // "a red-painted, book-lined room", "diverse, smiling faces": a comma between two
        // adjectives, or an adjective and a participle before the noun.
        Pos::Punct => {
            let participle = |k: usize| {
                words.get(k).is_some_and(|n| matches!(n.tag, "VBN" | "VBG"))
                    && words.get(k + 1).is_some_and(|n| n.pos == Pos::Noun)
            };
            w.text == ","
                && i > 0
                && words[i - 1].pos == Pos::Adj
                && (words.get(i + 1).is_some_and(|n| n.pos == Pos::Adj) || participle(i + 1))
        }
        // "black and white", between two colours.
        Pos::Conj => {
            i > 0
                && is_color(&words[i - 1].lower)
                && words.get(i + 1).is_some_and(|n| is_color(&n.lower))
        }
        // "the man's hat".
        Pos::Possessive => true,
        // "about 18 people"; "his famously handsome face", "a very large brown dog": an -ly or
        // a degree adverb between a determiner or an adjective and the adjectives before the
        // noun.
        Pos::Adp => rounds_a_number(words, i),
        Pos::Adv => {
            let adjectives = words[i + 1..]
                .iter()
                .take_while(|n| n.pos == Pos::Adj)
                .count();
            rounds_a_number(words, i)
                || ((w.lower.ends_with("ly") || DEGREE.contains(&w.lower.as_str()))
                    && i > 0
                    && matches!(words[i - 1].pos, Pos::Det | Pos::Adj)
                    && adjectives > 0
                    && words
                        .get(i + 1 + adjectives)
                        .is_some_and(|n| n.pos == Pos::Noun))
        }
        _ => false,
    }
}

/// The noun phrase starting at `i`, as `(end, head)`, if one does.
fn noun_phrase(words: &[Word], i: usize) -> Option<(usize, usize)> {
    if words.get(i)?.pos == Pos::Pron {
        return Some((i + 1, i));
    }
    let mut j = i;
    let mut head = None;
    while j < words.len() && premodifier(words, j) {
        // "to school this morning": a determiner after a noun opens the next phrase.
        if j > i && words[j].pos == Pos::Det && words[j - 1].pos == Pos::Noun {
            break;
        }
        // "pose in their lawyers' office PERSON to show …": the filter's PERSON after a place's
        // noun in lower case, in a phrase with a determiner, is no name of it (a credit, or an
        // apposition whose comma the page lost). A role names its holder ("cast member PERSON",
        // "the pop star PERSON"), and so may a pet or a boat ("the family's cat PERSON").
        let place = |w: &Word| {
            let noun = singular(&w.lower);
            is_scene(&noun) && !matches!(&*noun, "sky" | "cloud" | "sun" | "moon" | "star")
        };
        if j > i
            && words[j].text == "PERSON"
            && words[j - 1].pos == Pos::Noun
            && words[j - 1].text.starts_with(char::is_lowercase)
            && place(&words[j - 1])
            && words[i..j]
                .iter()
                .any(|w| matches!(w.pos, Pos::Det | Pos::Possessive))
        {
            break;
        }
        if words[j].pos == Pos::Noun {
            head = Some(j);
        }
        // A possessive closes the owner's phrase and starts the owned one.
        j += 1;
    }
    // The phrase ends at its last noun: "a red bus parked" stops before "parked"; adjectives after
    // the last noun ("the sky blue") are not part of it.
    let head = head?;
    let mut end = head + 1;
    // "a Delta Airlines Embraer 175 lands", "Apple's iPhone 5": a number after a name, before no
    // noun it would count, is the name's (a model's, a mission's).
    if words[head].tag.starts_with("NNP")
        && words.get(end).is_some_and(|w| w.tag == "CD")
        && words.get(end + 1).is_none_or(|w| w.pos != Pos::Noun)
    {
        end += 1;
    }
    // "a cup of coffee", "a group of people", "thousands of protesters", and a gathering of many,
    // "a long line of people" (not "the finish line of the race", a compound's): one phrase,
    // headed by the second noun.
    let quantity = words[head].lower.as_str();
    let gathering =
        GATHERINGS.contains(&quantity) && (head == i || words[head - 1].pos != Pos::Noun);
    if (QUANTITY_NOUNS.contains(&quantity) || MANY.contains(&quantity) || gathering)
        && words.get(end).is_some_and(|w| w.lower == "of")
        && end + 1 < words.len()
        && let Some((end2, head2)) = noun_phrase(words, end + 1)
        && (!gathering || words[head2].is_plural())
    {
        end = end2;
        return Some((end, head2));
    }
    // "US Secretary of State PERSON", "Minister of Defence PERSON": a person's office in
    // capitals, its "of" and the name of its holder are one phrase, headed by the name.
    // The office's name has a word of its own before the holder: "Supporters of PERSON rally"
    // are no office.
    if (head == 0 || words[head].text.starts_with(char::is_uppercase))
        && is_person_noun(&singular(quantity))
        && words.get(end).is_some_and(|w| w.lower == "of")
        && let Some((end2, head2)) = noun_phrase(words, end + 1)
        && words[head2].text == "PERSON"
        && end2 - (end + 1) >= 2
        && words[end + 1..end2]
            .iter()
            .all(|w| w.text.starts_with(char::is_uppercase))
    {
        return Some((end2, head2));
    }
    // "the members of Potty Mouth": a noun that is only what it is of keeps its "of" phrase, and
    // stays the head (the band is no person).
    if RELATIONAL.contains(&quantity)
        && words.get(end).is_some_and(|w| w.lower == "of")
        && let Some((end2, _)) = noun_phrase(words, end + 1)
    {
        return Some((end2, head));
    }
    Some((end, head))
}

/// Nouns that say nothing without what they are of: "the members of Potty Mouth", "the cast of
/// the film".
pub const RELATIONAL: [&str; 4] = ["member", "members", "cast", "crew"];

fn chunk(words: &[Word]) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        let preposition = preposition_len(words, i);
        if preposition == 0
            && let Some((end, head)) = noun_phrase(words, i)
        {
            let (end, head) = award_title(words, end, head).unwrap_or((end, head));
            let (end, head) = coordinated_modifier(words, i, end, head).unwrap_or((end, head));
            chunks.push(Chunk {
                kind: ChunkKind::Np,
                start: i,
                end,
                head,
            });
            i = end;
            continue;
        }
        if preposition > 0
            && i + preposition < words.len()
            && let Some((end, head)) = noun_phrase(words, i + preposition)
            && !opens_clause(words, i, end)
        {
            let (end, head) =
                coordinated_modifier(words, i + preposition, end, head).unwrap_or((end, head));
            chunks.push(Chunk {
                kind: ChunkKind::Pp {
                    np: chunks.len() + 1,
                },
                start: i,
                end,
                head: i,
            });
            chunks.push(Chunk {
                kind: ChunkKind::Np,
                start: i + preposition,
                end,
                head,
            });
            i = end;
            continue;
        }
        // "The Queen still smiled", "PERSON also attends": an adverb right before a finite verb
        // opens its group.
        let adverb_first = w.tag == "RB"
            && words
                .get(i + 1)
                .is_some_and(|n| matches!(n.tag, "VBZ" | "VBD" | "VBP"));
        if w.pos == Pos::Verb || adverb_first {
            let mut j = i;
            let mut head = i + usize::from(adverb_first);
            while j < words.len() && matches!(words[j].pos, Pos::Verb | Pos::Adv) {
                // "sits writing": a participle after a finite verb other than "be" starts a
                // group of its own, which describes the subject.
                let finite =
                    matches!(words[head].tag, "VBZ" | "VBP" | "VBD") && !words[head].is_be();
                if j > i && words[j].tag == "VBG" && finite {
                    break;
                }
                if words[j].pos == Pos::Verb {
                    head = j;
                }
                j += 1;
            }
            if j < words.len() && words[j].pos == Pos::Particle {
                j += 1;
            }
            chunks.push(Chunk {
                kind: ChunkKind::Verb,
                start: i,
                end: j,
                head,
            });
            i = j;
            continue;
        }
        chunks.push(Chunk {
            kind: ChunkKind::Other,
            start: i,
            end: i + 1,
            head: i,
        });
        i += 1;
    }
    chunks
}

/// The end and head of a noun phrase ending at `end` (head `head`) whose last noun is one of two
/// coordinated modifiers of the nouns after them: "a wood and marble cake stand" is one stand,
/// not "a wood" and a stand ("cheese and tomato sandwiches"). The second conjunct must be a
/// compound of common nouns, so "a cat and dog" stays two animals.
fn coordinated_modifier(
    words: &[Word],
    start: usize,
    end: usize,
    head: usize,
) -> Option<(usize, usize)> {
    let common = |w: &Word, tags: &[&str]| {
        tags.contains(&w.tag) && w.entity.is_none() && w.text.starts_with(char::is_lowercase)
    };
    // The first conjunct is one noun after its determiner ("a wood"), no colour ("red and black
    // face makeup" is coloured, not made of red).
    if head + 1 != end
        || !common(&words[head], &["NN"])
        || is_color(&words[head].lower)
        || words[start..head].iter().any(|w| w.pos != Pos::Det)
        || words.get(end).is_none_or(|w| w.lower != "and")
    {
        return None;
    }
    let (second_end, second_head) = noun_phrase(words, end + 1)?;
    ((end + 1..second_head).all(|k| common(&words[k], &["NN"]))
        && common(&words[second_head], &["NN", "NNS"])
        && second_head == second_end - 1
        && second_head > end + 1)
        .then_some((second_end, second_head))
}

/// The periods of an award's title: "Player of the Year", "Chef of the Day".
const TITLE_PERIODS: [&str; 6] = ["Year", "Season", "Month", "Week", "Day", "Game"];

/// The end and head of a noun phrase ending at `end` (head `head`) that an award's title
/// continues: "MLS Player | of the Year PERSON" is one phrase naming a person, not a player and a
/// year (its "of" is no thing the player is of). Only of a capitalised head, and with the name
/// that follows when there is one.
fn award_title(words: &[Word], end: usize, head: usize) -> Option<(usize, usize)> {
    let title = words.get(end..end + 3)?;
    if !(words[head].text.starts_with(char::is_uppercase)
        && title[0].lower == "of"
        && title[1].lower == "the"
        && TITLE_PERIODS.contains(&title[2].text.as_str()))
    {
        return None;
    }
    let after = end + 3;
    Some(match noun_phrase(words, after) {
        Some((e, h)) if words[after].tag == "NNP" => (e, h),
        _ => (after, after - 1),
    })
}

/// Words that are prepositions or conjunctions: "as people wait", "after his victory was called".
pub(crate) const SUBORDINATORS: [&str; 8] = [
    "as", "while", "when", "after", "before", "because", "since", "until",
];

/// Whether the preposition at `i`, its noun phrase ending at `end`, opens a clause ("as people
/// wait") rather than a prepositional phrase: a subordinator whose noun phrase is followed by a
/// verb. The clause's words then stay out of the main clause's places.
fn opens_clause(words: &[Word], i: usize, end: usize) -> bool {
    SUBORDINATORS.contains(&words[i].lower.as_str())
        && words.get(end).is_some_and(|w| w.pos == Pos::Verb)
}

/// Prepositions of several words, as word sequences.
const MULTIWORD_PREPOSITIONS: [&[&str]; 7] = [
    &["next", "to"],
    &["close", "to"],
    &["in", "front", "of"],
    &["on", "top", "of"],
    &["out", "of"],
    &["on", "the", "side", "of"],
    &["in", "the", "middle", "of"],
];

/// What one goes up or down: "down the street", "up a hill".
const WAYS: [&str; 24] = [
    "street",
    "road",
    "hill",
    "slope",
    "stair",
    "stairs",
    "step",
    "staircase",
    "path",
    "trail",
    "river",
    "mountain",
    "sidewalk",
    "lane",
    "track",
    "runway",
    "aisle",
    "ramp",
    "escalator",
    "alley",
    "avenue",
    "highway",
    "hallway",
    "hillside",
];

/// Whether a lower-case noun names a way one goes up or down ([`WAYS`]).
fn is_way(noun: &str) -> bool {
    WAYS.contains(&&*singular(noun))
}

/// Words that round the number after them: "about 18 people" is a noun phrase, not a place.
pub const APPROXIMATELY: [&str; 5] = ["about", "around", "nearly", "almost", "over"];

/// Whether word `i` rounds the number after it ("about 18 people"; not "a tube about 10 feet",
/// where after a noun it opens a measure).
fn rounds_a_number(words: &[Word], i: usize) -> bool {
    APPROXIMATELY.contains(&words[i].lower.as_str())
        && words.get(i + 1).is_some_and(|n| n.pos == Pos::Num)
        && (i == 0 || words[i - 1].pos != Pos::Noun)
}

/// The number of words of the preposition starting at `i`: several for "next to", one for a
/// preposition, none otherwise.
fn preposition_len(words: &[Word], i: usize) -> usize {
    if rounds_a_number(words, i) {
        return 0;
    }
    for p in MULTIWORD_PREPOSITIONS {
        if words.len() >= i + p.len()
            && words[i..i + p.len()]
                .iter()
                .zip(p)
                .all(|(w, p)| w.lower == *p)
        {
            return p.len();
        }
    }
    usize::from(words[i].pos == Pos::Adp)
}

impl Parse {
    /// The words `start..end` joined by spaces, as the caption wrote them (numbers as digits when
    /// `digits`).
    pub fn text(&self, start: usize, end: usize, digits: bool) -> String {
        let mut out = String::new();
        for w in &self.words[start..end] {
            if w.pos == Pos::Punct || w.pos == Pos::Possessive || w.text.starts_with('\'') {
                out.push_str(&w.text);
                continue;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            match digits.then(|| as_digits(&w.lower)).flatten() {
                Some(d) if w.pos == Pos::Num => out.push_str(&d),
                _ => out.push_str(&w.text),
            }
        }
        out
    }

    /// A place phrase's preposition in lower case (one or several words).
    pub fn preposition(&self, pp: &Chunk) -> Cow<'_, str> {
        let ChunkKind::Pp { np } = pp.kind else {
            return Cow::Borrowed("");
        };
        let end = self.chunks[np].start;
        // Most are one word, asked of many times per caption.
        if end == pp.start + 1 {
            return Cow::Borrowed(&self.words[pp.start].lower);
        }
        Cow::Owned(self.text(pp.start, end, false).to_lowercase())
    }

    /// The end of an infinitive right after word `end` ("waits | to receive treatment"): "to", a
    /// bare verb and the noun phrase after it; `None` when none follows, or when an adjective
    /// does (the phrase would be cut short).
    pub fn infinitive_after(&self, end: usize) -> Option<usize> {
        self.words.get(end).filter(|w| w.tag == "TO")?;
        self.words.get(end + 1).filter(|w| w.tag == "VB")?;
        // Not "continues to keep | mum": an infinitive cut from its adjective is no activity.
        if self.words.get(end + 2).is_some_and(|w| w.pos == Pos::Adj) {
            return None;
        }
        Some(
            self.chunks
                .iter()
                .position(|c| c.start == end + 2 && c.kind == ChunkKind::Np)
                .map_or(end + 2, |k| self.coordination(k).1),
        )
    }

    /// Whether words `start..end` name something by its proper name ("New York Supreme Court",
    /// "Apple's headquarters", "Manhattan's Chelsea neighborhood"): a proper noun or a
    /// capitalised word other than the caption's first. The filter's substitution tokens stand
    /// for any person or place, and people by name stay answers; a common noun's abbreviation
    /// heading its phrase ("in an RV", "an SUV", "watching TV") names no one thing.
    pub fn is_named(&self, start: usize, end: usize) -> bool {
        self.words[start..end].iter().enumerate().any(|(k, w)| {
            let i = start + k;
            // Not before another noun: "A TV screen" is a screen of a kind, as "NFL football" is.
            // (Asked only of a capitalised common noun: the list is no lookup for every word.)
            let common_abbreviation = || {
                matches!(w.tag, "NN" | "NNS")
                    && is_thing_abbreviation(&w.text)
                    && self.words.get(i + 1).is_none_or(|n| n.pos != Pos::Noun)
            };
            !matches!(w.text.as_str(), "PERSON" | "LOC")
                && w.entity != Some(Entity::Person)
                && (matches!(w.tag, "NNP" | "NNPS")
                    || (i > 0 && w.text.starts_with(char::is_uppercase) && !common_abbreviation()))
        })
    }

    /// Whether the noun phrase `start..=head` names a person or people: its head does (a name,
    /// PERSON, a people noun), or it is a star who is one ([`Parse::is_star`]), or a name after a
    /// person's noun ("wrestler Hulk Hogan").
    pub fn names_a_person(&self, start: usize, head: usize) -> bool {
        let w = &self.words;
        let titled = (start..head)
            .rev()
            .take_while(|&i| i + 1 == head || w[i + 1].tag == "NNP")
            .any(|i| is_person_noun(&w[i].lower) || is_person_title(&w[i].lower))
            && w[head].tag == "NNP";
        w[head].names_a_person() || self.is_star(head) || titled
    }

    /// Whether the noun phrase `start..=head` is an artist's view of something, which is a
    /// picture's kind as a rendering is: "Artist's interpretation of the Lizard King", "An
    /// artist's impression of …" (an impression or a depiction alone may be anything).
    pub fn is_artists_view(&self, start: usize, head: usize) -> bool {
        let artist = self.words[start..head]
            .iter()
            .rev()
            .find(|w| w.pos != Pos::Possessive)
            // (The tokenizer splits the possessive's "'s" off: "artist" "'s".)
            .is_some_and(|w| matches!(w.lower.as_str(), "artist" | "artists"));
        artist
            && matches!(
                self.words[head].lower.as_str(),
                "impression"
                    | "interpretation"
                    | "conception"
                    | "concept"
                    | "depiction"
                    | "rendition"
                    | "rendering"
            )
    }

    /// Whether word `i` is a star who is a person: "The Cougar Town star", "reality star" (not "a
    /// star in the night sky").
    pub fn is_star(&self, i: usize) -> bool {
        matches!(self.words[i].lower.as_str(), "star" | "stars")
            && i > 0
            && (self.is_named(i - 1, i)
                || matches!(
                    self.words[i - 1].lower.as_str(),
                    "tv" | "reality" | "film" | "movie" | "pop" | "rock" | "soap" | "screen"
                ))
    }

    /// The phrase a verb's preposition governs right after word `end`, when it places nothing:
    /// "talking on | the phone", "pose for | photographers", "participates in | an interview",
    /// "tends to | a field". Only of something one could see or an occasion: not a time ("at
    /// night"), a name, a pronoun or a measure. The place phrase and its noun phrase.
    pub fn governed(&self, end: usize) -> Option<(Chunk, Chunk)> {
        let pp = *self.chunks.iter().find(|c| c.start == end)?;
        let ChunkKind::Pp { np } = pp.kind else {
            return None;
        };
        if self.is_location(&pp) || !GOVERNING.contains(&&*self.preposition(&pp)) {
            return None;
        }
        let np = self.chunks[np];
        let head = &self.words[np.head];
        let noun = singular(&head.lower);
        let seen = head.names_a_person()
            || is_visible(&noun)
            || NOT_PLACES.contains(&&*noun)
            || PIECES.contains(&&*noun);
        (!self.is_named(np.start, np.end)
            && head.pos == Pos::Noun
            && !TIMES.contains(&&*noun)
            // "standing in | a group": a shape, which `is_location` does not take either.
            && !is_formation(&self.preposition(&pp), &noun)
            && seen)
            .then_some((pp, np))
    }

    /// The end of the phrase of what is looked or pointed at right after word `end`, a verb's
    /// ([`Parse::looks_at`]): "looking at | a painting |", part of the activity for the rules and
    /// the lexical reader alike.
    pub fn looked_at(&self, end: usize) -> Option<usize> {
        let pp = self.chunks.iter().find(|c| c.start == end)?;
        let ChunkKind::Pp { np } = pp.kind else {
            return None;
        };
        (self.words[end].lower == "at" && self.looks_at(end)).then_some(self.chunks[np].end)
    }

    /// Whether the "at" at word `at` follows a verb of looking or pointing (an adverb between):
    /// "looks at a painting", "pointing at a plane", "stares intently at". What is looked at
    /// completes the activity ("What is the woman doing? — looking at a painting"), and also
    /// answers where one looks ("Where is the woman looking? — at a painting").
    fn looks_at(&self, at: usize) -> bool {
        let verb = match at.checked_sub(1).map(|i| &self.words[i]) {
            Some(w) if w.tag == "RB" => at.checked_sub(2).map(|i| &self.words[i]),
            w => w,
        };
        verb.is_some_and(|w| {
            w.pos == Pos::Verb && LOOKING_AT.iter().any(|lemma| inflects(&w.lower, lemma))
        })
    }

    /// Whether a prepositional phrase says where something is: a locative preposition, and not a
    /// time ("at night"), weather, an occasion or a state ("in the rain", "in an interview", "in
    /// tip-top shape"), a pronoun or a person, something worn or held ("in a suit", "on the
    /// phone"), something aimed at ("at a ball"), or people gone past ("past tourists").
    pub fn is_location(&self, pp: &Chunk) -> bool {
        let ChunkKind::Pp { np } = pp.kind else {
            return false;
        };
        let head = &self.words[self.chunks[np].head];
        let preposition = self.preposition(pp);
        let noun = head.lower.as_str();
        let time_or_weather =
            TIMES.contains(&noun) || NOT_PLACES.contains(&noun) || STATES.contains(&noun);
        LOCATIVE.contains(&&*preposition)
            && !time_or_weather
            && head.pos != Pos::Pron
            // "in the PERSON of the White House": the filter's person is nowhere to stand.
            && head.entity != Some(Entity::Person)
            && !is_worn_or_held(&head.lower)
            && !(preposition == "at" && is_aimed_at(&head.lower))
            && !(preposition == "into" && PIECES.contains(&noun))
            && !is_formation(&preposition, noun)
            // "grabs Sylvie by the scruff of the neck", "leads her by the hand": the grip.
            && !(preposition == "by"
                && (is_body_part(noun) || matches!(noun, "scruff" | "scuff" | "collar")))
            // "carry shields past tourists": people are passed, not a place one is in.
            && !(preposition == "past" && head.names_a_person())
            // "down the street", "up a hill" go along a way; "cuts down a pod" does not.
            && (!matches!(&*preposition, "down" | "up") || is_way(noun))
    }

    /// Whether noun phrase chunk `b`, after a comma, describes noun phrase chunk `a` rather than
    /// adding to a list: a bare common noun after a name ("PERSON, skipper and co-owner of the
    /// vessel").
    fn apposition(&self, a: usize, b: usize) -> bool {
        let named = |w: &Word| w.entity.is_some() || w.tag.starts_with("NNP");
        let first = &self.words[self.chunks[b].start];
        named(&self.words[self.chunks[a].head])
            && matches!(first.tag, "NN" | "NNS" | "JJ")
            && !self.words[self.chunks[b].start..self.chunks[b].end]
                .iter()
                .any(named)
    }

    /// The chunk index of the noun phrase ending the coordination of noun phrases that starts at
    /// chunk `k` ("a cat and a dog", "PERSON, PERSON and their crew", "a cat, a dog, and a
    /// bird"), and the word after it. Commas join only a list that a conjunction closes:
    /// "PERSON, owner of the vineyard" is an apposition, "LONDON, ENGLAND" a place.
    pub fn coordination(&self, k: usize) -> (usize, usize) {
        let is = |j: usize, f: &dyn Fn(&Word) -> bool| {
            self.chunks
                .get(j)
                .is_some_and(|c| c.kind == ChunkKind::Other && f(&self.words[c.start]))
        };
        let conj = |w: &Word| w.pos == Pos::Conj && w.text != "/";
        let comma = |w: &Word| w.text == ",";
        let np = |j: usize| self.chunks.get(j).is_some_and(|c| c.kind == ChunkKind::Np);
        let (mut last, mut closed) = (k, k);
        loop {
            if is(last + 1, &conj) && np(last + 2) {
                last += 2;
            } else if is(last + 1, &comma) && is(last + 2, &conj) && np(last + 3) {
                last += 3;
            } else if is(last + 1, &comma) && np(last + 2) && !self.apposition(last, last + 2) {
                last += 2;
                continue;
            } else {
                break;
            }
            closed = last;
        }
        (closed, self.chunks[closed].end)
    }

    /// The word after the people that a coordination starting at the word `start` names before
    /// its first thing: "PERSON and the Audi Prologue concept" → after "PERSON"; "PERSON, PERSON,
    /// and a Lorenz attractor" → after the second "PERSON". `None` when no noun phrase starts
    /// there or its first phrase names no person.
    pub fn people_end(&self, start: usize) -> Option<usize> {
        let k = self
            .chunks
            .iter()
            .position(|c| c.kind == ChunkKind::Np && c.start == start)?;
        let (last, _) = self.coordination(k);
        let person = |c: &Chunk| self.words[c.start..c.end].iter().any(Word::names_a_person);
        self.chunks[k..=last]
            .iter()
            .filter(|c| c.kind == ChunkKind::Np)
            .take_while(|c| person(c))
            .last()
            .map(|c| c.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(caption: &str) -> Vec<String> {
        let p = parse(caption);
        p.chunks
            .iter()
            .filter(|c| {
                !matches!(c.kind, ChunkKind::Np) || {
                    // inner noun phrases of prepositional phrases are shown with them
                    !p.chunks.iter().any(|o| {
                        matches!(o.kind, ChunkKind::Pp { .. })
                            && o.start < c.start
                            && c.end == o.end
                    })
                }
            })
            .map(|c| {
                let kind = match c.kind {
                    ChunkKind::Np => "NP",
                    ChunkKind::Pp { .. } => "PP",
                    ChunkKind::Verb => "V",
                    ChunkKind::Other => "O",
                };
                format!("{kind}[{}]", p.text(c.start, c.end, true))
            })
            .collect()
    }

    #[test]
    fn chunks_captions() {
        assert_eq!(
            chunks("a man riding a horse on a dirt road"),
            [
                "NP[a man]",
                "V[riding]",
                "NP[a horse]",
                "PP[on a dirt road]"
            ]
        );
        assert_eq!(
            chunks("Two dogs are playing in the snow"),
            ["NP[2 dogs]", "V[are playing]", "PP[in the snow]"]
        );
        assert_eq!(
            chunks("a cup of coffee next to a laptop"),
            ["NP[a cup of coffee]", "PP[next to a laptop]"]
        );
        assert_eq!(
            chunks("Thousands of protesters gather for a rally"),
            [
                "NP[thousands of protesters]",
                "V[gather]",
                "PP[for a rally]"
            ]
        );
        assert_eq!(
            chunks("a black and white cat in front of the house"),
            ["NP[a black and white cat]", "PP[in front of the house]"]
        );
        assert_eq!(
            chunks("PERSON speaking at an event"),
            ["NP[PERSON]", "V[speaking]", "PP[at an event]"]
        );
    }

    #[test]
    fn a_models_number_closes_its_name() {
        // The number is the name's, and the plural after it the sentence's verb.
        assert_eq!(
            chunks("A Delta Airlines Embraer 175 lands at San Francisco International Airport"),
            [
                "NP[a Delta Airlines Embraer 175]",
                "V[lands]",
                "PP[at San Francisco International Airport]"
            ]
        );
        // A number before a noun still counts it.
        assert_eq!(
            chunks("PERSON and 2 dogs on a beach"),
            ["NP[PERSON]", "O[and]", "NP[2 dogs]", "PP[on a beach]"]
        );
    }

    #[test]
    fn compound_participles_and_home() {
        // A past form between an article's noun and a noun, with the clause's verb elsewhere,
        // is the compound's adjective; after a person, with no other verb, it is the verb.
        assert_eq!(
            chunks("Amy is a computer generated image of a girl"),
            [
                "NP[Amy]",
                "V[is]",
                "NP[a computer generated image]",
                "PP[of a girl]"
            ]
        );
        assert_eq!(
            chunks("A woman carried groceries"),
            ["NP[a woman]", "V[carried]", "NP[groceries]"]
        );
        // A fragment's participle is the clause's verb, and a noun in lower case the tagger
        // takes for a name is a noun (stop 77 read "covered" as a second verb).
        assert_eq!(
            chunks("hand holding a chocolate covered halloween spider"),
            [
                "NP[hand]",
                "V[holding]",
                "NP[a chocolate covered halloween spider]"
            ]
        );
        // A style's participle after a name ("What did the Puerto Rico inspire?" at stop 77).
        assert_eq!(
            chunks("A Puerto Rico inspired Padres jersey hangs inside the shop")[..2],
            ["NP[a Puerto Rico inspired Padres jersey]", "V[hangs]"]
        );
        assert_eq!(
            chunks("Fans inspired players"),
            ["NP[fans]", "V[inspired]", "NP[players]"]
        );
        // A participle opening a caption before a noun says what the thing is (was the
        // caption's verb, with no subject).
        assert_eq!(
            chunks("Illustrated folder with papers and a circle in it")[..2],
            ["NP[illustrated folder]", "PP[with papers]"]
        );
        assert_eq!(chunks("Taken from the roof of the hotel")[0], "V[taken]");
        // Typographic quotes are punctuation; an apostrophe without an opening quote is a
        // plural's possessive.
        assert_eq!(
            chunks("‘Amy’ is a computer generated image")[..4],
            ["O[‘]", "NP[Amy]", "O[’]", "V[is]"]
        );
        let p = parse("the players’ bench");
        assert_eq!(p.words[2].tag, "POS");
        // "home" after a verb is where to, no object.
        let p = parse("Busy PERSON reads a book as he arrives home");
        assert_eq!(p.words.last().map(|w| w.tag), Some("RB"));
    }

    #[test]
    fn a_place_before_the_clause_holds_no_subject() {
        // "work" is the verb of the subject after the place's comma, not a noun after
        // "laboratory".
        let p = parse("In a laboratory in Shanghai, researchers work on a quantum computer.");
        let work = p.words.iter().find(|w| w.lower == "work").unwrap();
        assert_eq!(work.pos, Pos::Verb, "{}", work.tag);
    }

    #[test]
    fn a_name_s_particle_that_names_a_thing_is_the_thing() {
        // The lexicon knows "van" first as a name's ("van Gogh"): after an article it is the
        // vehicle, before a name's capital still the name's.
        let van = parse("A family sitting in a van on a road");
        assert_eq!(van.words[5].tag, "NN");
        let white = parse("A family sitting in a white van");
        assert_eq!(white.words[6].tag, "NN");
        let gogh = parse("A painting by Vincent van Gogh");
        assert_eq!(gogh.words[4].tag, "NNP");
    }

    #[test]
    fn a_person_s_office_and_its_holder_are_one_phrase() {
        let first = |caption: &str| {
            let p = parse(caption);
            let c = p.chunks[0];
            (p.text(c.start, c.end, false), p.words[c.head].text.clone())
        };
        assert_eq!(
            first("US Secretary of State PERSON at an event with PERSON"),
            (
                "US Secretary of State PERSON".to_string(),
                "PERSON".to_string()
            )
        );
        assert_eq!(
            first("Minister of Defence PERSON inspects the troops"),
            (
                "minister of Defence PERSON".to_string(),
                "PERSON".to_string()
            )
        );
        // An office with no holder named, or a holder of no office, keeps its "of" apart.
        assert_eq!(
            first("The Duchess of Cornwall at the festival"),
            ("the Duchess".to_string(), "Duchess".to_string())
        );
        assert_eq!(
            first("Supporters of PERSON rally outside the courthouse"),
            ("supporters".to_string(), "supporters".to_string())
        );
    }

    #[test]
    fn a_noun_the_tagger_took_for_a_verb_and_a_past_for_a_present() {
        let tags = |caption: &str| -> Vec<String> {
            parse(caption)
                .words
                .iter()
                .map(|w| format!("{}/{}", w.text, w.tag))
                .collect()
        };
        let tagged = |caption: &str, word: &str| -> String {
            let all = tags(caption);
            all.iter()
                .find(|t| t.starts_with(&format!("{word}/")))
                .cloned()
                .unwrap_or_else(|| panic!("{word} not in {all:?}"))
        };
        // After an article and a name: "the US flag" (the tagger read "us").
        assert_eq!(
            tagged("The US flag flies over the embassy", "flag"),
            "flag/NN"
        );
        assert_eq!(
            tagged("The US flag flies over the embassy", "flies"),
            "flies/VBZ"
        );
        // A word the lexicon lacks, before the finite verb, closes the subject.
        assert_eq!(
            tagged("A folded rolls duvet is lying on the dresser", "duvet"),
            "duvet/NN"
        );
        // An irregular past after a name, not a present ("stucks").
        assert_eq!(
            tagged("The lead of Evil Dead stuck in a tree", "stuck"),
            "stuck/VBD"
        );
        // A dish's name takes no bare present: "cut" is its participle.
        assert_eq!(
            tagged(
                "Olive Focaccia Bread cut into quarters on a bread board",
                "cut"
            ),
            "cut/VBN"
        );
        // A verb's capital before a capitalised word and a participle opens a dish's name.
        assert_eq!(tagged("Chop Suey served in a plate.", "Chop"), "Chop/NNP");
        assert_eq!(tagged("Chop Suey served in a plate.", "Suey"), "Suey/NNP");
        // Not before a thing's name in capitals.
        assert!(tags("Buy Custom Printed T-Shirts")[0].starts_with("buy/"));
        // A thing's noun in "-ing" closing the object.
        assert_eq!(
            tagged(
                "Spanish Bread showing the buttery sugar filling.",
                "filling"
            ),
            "filling/NN"
        );
        // Guards: a plural name's present, participles after the object, a person's verb.
        assert_eq!(tagged("The Beatles play at the Cavern", "play"), "play/VBP");
        assert_eq!(
            tagged(
                "Line graph showing the cumulative neural network error decreasing",
                "decreasing"
            ),
            "decreasing/VBG"
        );
        assert_eq!(
            tagged(
                "The Vision Pro displaying a window floating in a room.",
                "floating"
            ),
            "floating/VBG"
        );
        assert_eq!(
            tagged("A woman watching the children swimming.", "swimming"),
            "swimming/VBG"
        );
        assert_eq!(tagged("Firefighters cut into the roof", "cut"), "cut/VBP");
        assert_ne!(tagged("A chef cut into the cake", "cut"), "cut/VBN");
        assert_ne!(
            tagged("Artists upcycle found objects", "upcycle"),
            "upcycle/NN"
        );
        assert_ne!(
            tagged("Tourists watching the sun setting, a boat", "setting"),
            "setting/NN"
        );
    }

    #[test]
    fn web_captions_tagged_as_written() {
        // A place one goes to, then a time: two phrases.
        assert_eq!(
            chunks("PERSON takes her son PERSON to school this morning"),
            [
                "NP[PERSON]",
                "V[takes]",
                "NP[her son PERSON]",
                "PP[to school]",
                "NP[this morning]"
            ]
        );
        // The first verb after an adjective, a hyphenated noun, a relative clause's verb.
        assert_eq!(
            chunks("This shot of the cliff-top cul-de-sac shows the house"),
            [
                "NP[this shot]",
                "PP[of the cliff-top cul-de-sac]",
                "V[shows]",
                "NP[the house]"
            ]
        );
        assert_eq!(
            chunks("sensors that measure the salinity"),
            ["NP[sensors]", "O[that]", "V[measure]", "NP[the salinity]"]
        );
        // A participle after a comma and an adjective; a name the tagger guessed plural.
        assert_eq!(
            chunks("A collage of diverse, smiling faces"),
            ["NP[a collage]", "PP[of diverse, smiling faces]"]
        );
        let swartz = parse("Swartz with glasses");
        assert_eq!(swartz.words[0].tag, "NNP");
        // An adverb opens the verb's group, and no name carries on to it.
        assert_eq!(
            chunks("The Queen still smiled"),
            ["NP[the Queen]", "V[still smiled]"]
        );
    }

    #[test]
    fn a_number_s_plural_and_the_verb_of_people_in_the_plural() {
        let tag = |caption: &str, word: &str| {
            parse(caption)
                .words
                .iter()
                .find(|w| w.lower == word)
                .map(|w| w.tag)
        };
        // After an opening participle's comma, "hundreds of" counts, and the people's verb is
        // theirs; a plural thing before a noun still makes a compound.
        let migrants = "Trapped in southern Mexico, hundreds of African migrants protest for right";
        assert_eq!(tag(migrants, "hundreds"), Some("NNS"));
        assert_eq!(tag(migrants, "protest"), Some("VBP"));
        assert_eq!(
            tag(
                "Hundreds of migrants protest for the right to stay",
                "protest"
            ),
            Some("VBP")
        );
        assert_eq!(tag("Sports car parked on the street", "car"), Some("NN"));
        assert_eq!(
            tag("The workers union protest in the square", "protest"),
            Some("NN")
        );
    }

    #[test]
    fn a_name_after_a_things_noun_is_none_of_it() {
        // The filter's PERSON after a room's noun (a credit whose comma the page lost) is a
        // phrase of its own.
        assert_eq!(
            chunks("Two women pose in their lawyers' office PERSON to show the markers")[..4],
            [
                "NP[2 women]",
                "V[pose]",
                "PP[in their lawyers' office]",
                "NP[PERSON]"
            ]
        );
        // A role's noun names its holder, with a determiner or without; so does a pet's noun:
        // only a place's is no name's.
        for (caption, phrase) in [
            (
                "The band's drummer PERSON plays on stage",
                "NP[the band's drummer PERSON]",
            ),
            (
                "The pop star PERSON performs on stage",
                "NP[the pop star PERSON]",
            ),
            (
                "The family's cat PERSON sleeps on the sofa",
                "NP[the family's cat PERSON]",
            ),
            ("Cast member PERSON poses", "NP[cast member PERSON]"),
            (
                "One Tree Hill star PERSON hides his face",
                "NP[1 Tree Hill star PERSON]",
            ),
        ] {
            assert_eq!(chunks(caption)[0], phrase, "{caption}");
        }
    }
}
