//! Questions from captions by transformation rules, no model needed.
//!
//! A caption is read as a clause over the shallow parse: a subject noun phrase, maybe a verb group
//! (progressive "is riding" or the caption fragment's bare "riding", passive "parked", simple
//! "catches", copula "is"), an object, and prepositional phrases. Each answer candidate then gets
//! the question that asks for its role, the way COCO-QA (Ren et al. 2015) and Heilman & Smith
//! (2010) turn declaratives into questions: the answer phrase is replaced by a wh-word chosen by its
//! type, the auxiliary is inverted (do-support for simple tenses, with the verb's lemma), and the
//! subject made definite. Rules written for this project:
//!
//! | answer | caption | question |
//! |---|---|---|
//! | object | a man riding a horse | What is the man riding? |
//! | subject | a man riding a horse | Who is riding a horse? |
//! | activity | a man riding a horse | What is the man doing? |
//! | location | a cat on a bed | Where is the cat? |
//! | noun in a place | a cat on a bed | What is the cat on? |
//! | colour | a red bus | What color is the bus? |
//! | count | two dogs playing | How many dogs are playing? |
//! | possession | a woman with a hat | What does the woman have? |
//! | yes | a red bus | Is the bus red? |
//! | no | a red bus | Is the bus blue? |
//!
//! A "no" always contradicts the caption: another colour, another count, or a noun swapped for
//! another of its kind in the same role. It never merely asserts that something is absent, which a
//! caption cannot vouch for.

use super::AnswerType;
use super::caption::is_a_named_thing_shown;
use super::parse::{
    APPROXIMATELY, CATENATIVE, COLORS, Chunk, ChunkKind, Parse, Pos, QUANTITY_NOUNS, RELATIONAL,
    SUBORDINATORS, VEHICLE_MOTIONS, Word, as_digits, gathers, is_color, parse,
};
use super::visible::{is_animal, is_vehicle};
use super::visible::{is_clothing, is_listed_thing, is_visible, is_visible_word};
use super::words::{
    DEPICTING, LOOKS, META, PICTURE_KINDS, PLACE_KINDS, STATES, TIMES, any_lemma, inflects,
    is_body_part, is_kin, is_occasion, is_person_noun, names_a_picture, participle_lemma, plural,
    singular, swap_noun, verb_lemma,
};
use crate::filter::entities::Entity;

/// A question the rules wrote, before the round trip.
#[derive(Clone, Debug, PartialEq)]
pub struct Proposal {
    /// The question, capitalised, ending in "?".
    pub question: String,
    /// The answer: a span of the caption (numbers as digits), or yes/no.
    pub answer: String,
    /// The answer's words in the caption, `start..end` (none for yes/no).
    pub span: Option<(usize, usize)>,
    /// What kind of answer it is.
    pub answer_type: AnswerType,
    /// For a count, the counted noun in the singular (the zero-count reservoir keeps it).
    pub counted: Option<String>,
}

impl Proposal {
    /// A question whose answer is the caption's words `span` (numbers as digits).
    fn of_span(p: &Parse, question: String, span: (usize, usize), answer_type: AnswerType) -> Self {
        Self {
            question,
            answer: p.text(span.0, span.1, true),
            span: Some(span),
            answer_type,
            counted: None,
        }
    }

    /// A question whose answer is no span of the caption: yes, no, or a borrowed count's 0.
    pub fn unspanned(question: String, answer: &str, answer_type: AnswerType) -> Self {
        Self {
            question,
            answer: answer.into(),
            span: None,
            answer_type,
            counted: None,
        }
    }
}

/// The verb group's form.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    /// "is riding", or a fragment's "riding".
    Progressive,
    /// "is parked", "parked".
    Passive,
    /// "catches", "sat": do-support.
    Simple,
    /// "is" + adjective, noun phrase or place.
    Copula,
}

/// Verbs never without an object: asked without one ("Who is wearing?", "Is the woman
/// holding?"), they ask nothing.
const NEEDS_OBJECT: [&str; 8] = [
    "wear", "hold", "carry", "feature", "contain", "grab", "wield", "hug",
];

/// Participles that work as prepositions ("leaves following a meeting"): no gerund complement.
const PREPOSITION_LIKE: [&str; 7] = [
    "following",
    "including",
    "regarding",
    "concerning",
    "excluding",
    "considering",
    "according",
];

/// A caption read as a clause.
struct Clause<'a> {
    p: &'a Parse,
    /// Subject words.
    subject: (usize, usize),
    /// The subject's head word.
    head: usize,
    plural: bool,
    /// The verb group chunk.
    verb: Option<(Chunk, Form)>,
    /// The object noun phrase (words) and its head.
    object: Option<(usize, usize, usize)>,
    /// Prepositional phrases of the predicate (or right after a verbless subject).
    places: Vec<Chunk>,
    /// The copula's adjective complement ("the sky is blue").
    complement: Option<(usize, usize)>,
    /// The caption's opening noun phrase when it names the kind of picture ("an animated line
    /// drawing of …", "a map of …"): its words and head.
    picture: Option<(usize, usize, usize)>,
    /// A participle with its object between the subject and the verb ("a protester holding a
    /// shield attempts …"): the participle's word and the object's words and head.
    described_by: Option<(usize, (usize, usize, usize))>,
}

impl<'a> Clause<'a> {
    fn read(p: &'a Parse) -> Option<Clause<'a>> {
        let chunks = &p.chunks;
        let mut k = 0;
        // Leading punctuation, adverbs and scene-setting phrases ("on a sunny day, …"); a phrase
        // with "of" after words that are no noun phrase ("a close up of a pizza") is the subject.
        while k < chunks.len() && chunks[k].kind != ChunkKind::Np {
            if let ChunkKind::Pp { np } = chunks[k].kind {
                if p.words[chunks[k].start].lower == "of"
                    && chunks[..k]
                        .iter()
                        .all(|c| matches!(c.kind, ChunkKind::Other | ChunkKind::Verb))
                {
                    k = np;
                    break;
                }
                k = np;
            }
            k += 1;
        }
        // "there are two dogs …"
        if k >= chunks.len() {
            return None;
        }
        let mut c = chunks[k];
        // "a close up view of a couple of Moscow mules": "close up" written apart is the view's
        // modifier, not a thing called "close".
        if p.words[c.head].lower == "close"
            && p.words.get(c.end).is_some_and(|w| w.lower == "up")
            && let Some(j) = (k + 1..chunks.len()).find(|&j| chunks[j].kind == ChunkKind::Np)
            && chunks[j].start <= c.end + 1
            && META.contains(&p.words[chunks[j].head].lower.as_str())
        {
            k = j;
            c = chunks[k];
        }
        // "A table showing the number of remaining bugs": a table that shows something right
        // after it is the picture's kind (one set for dinner is furniture).
        let shown_table = p.words[c.head].lower == "table"
            && chunks
                .get(k + 1)
                .is_some_and(|v| v.kind == ChunkKind::Verb && depicts(p, v));
        let artists_view = p.is_artists_view(c.start, c.head);
        let picture = (PICTURE_KINDS.contains(&p.words[c.head].lower.as_str())
            || shown_table
            || artists_view)
            .then_some((c.start, c.end, c.head));
        // "a photo of a dog …": the photo's subject is the subject; not when the sentence's
        // verb says what the picture shows ("This shot of the cul-de-sac shows the house").
        let shows = |from: usize| {
            chunks[from..]
                .iter()
                .find(|ch| ch.kind == ChunkKind::Verb)
                .is_some_and(|v| p.words[v.head].tag == "VBZ" && depicts(p, v))
        };
        // "An example of a rendered maze", "Two examples of diffraction patterns": a manual's
        // example is of its subject as a photo is.
        let head = p.words[c.head].lower.as_str();
        if (META.contains(&head) || matches!(head, "example" | "examples") || artists_view)
            && let Some(next) = chunks.get(k + 1)
            && let ChunkKind::Pp { np } = next.kind
            && p.words[next.start].lower == "of"
            && !shows(np)
        {
            k = np;
            c = chunks[k];
        }
        // "mid angle looking at a glass of margarita": a camera's angle or view that looks at
        // something shows it.
        if matches!(p.words[c.head].lower.as_str(), "angle" | "view" | "shot")
            && let Some(v) = chunks.get(k + 1)
            && v.kind == ChunkKind::Verb
            && p.words[v.head].lower == "looking"
            && let Some(at) = chunks.get(k + 2)
            && let ChunkKind::Pp { np } = at.kind
            && matches!(p.words[at.start].lower.as_str(), "at" | "on" | "into")
        {
            k = np;
            c = chunks[k];
        }
        if p.words[c.head].pos == Pos::Pron && p.words[c.head].lower != "it" {
            // "he", "they": a question about "he" reads badly without its referent.
            return None;
        }
        let (last, subject_end) = p.coordination(k);
        // "a group of people is": the quantity noun agrees, not the head.
        let first_noun = (c.start..c.end).find(|&i| p.words[i].pos == Pos::Noun);
        let agreeing = match first_noun {
            Some(i) if gathers(&p.words[i].lower) => i,
            _ => c.head,
        };
        let plural = last > k || p.words[agreeing].is_plural();
        let mut clause = Clause {
            p,
            subject: (c.start, subject_end),
            head: c.head,
            plural,
            verb: None,
            object: None,
            places: Vec::new(),
            complement: None,
            picture,
            described_by: None,
        };
        let mut k = last + 1;
        // "‘Amy’ is …": the quote that closes the subject.
        if chunks
            .get(k)
            .is_some_and(|c| c.kind == ChunkKind::Other && p.words[c.start].tag == "''")
        {
            k += 1;
        }
        // Phrases that modify the subject before the verb ("a man in a suit riding …") are skipped:
        // they describe it, they don't place it.
        let mut before_verb = Vec::new();
        while k < chunks.len() && matches!(chunks[k].kind, ChunkKind::Pp { .. }) {
            let ChunkKind::Pp { np } = chunks[k].kind else {
                unreachable!()
            };
            // "with a hat and a bag in a market"
            let (last, end) = p.coordination(np);
            // "The Duchess of Cornwall and the Prime Minister attend …": after the subject's
            // own "of" phrase, "and" joins a second subject when the verb agrees with two; or,
            // in the past, which shows no number ("attended"), when both name people and the
            // "of" phrase does not ("the wife of PERSON and PERSON" may be anyone's wife).
            let people = || {
                p.words[c.head].names_a_person()
                    && p.words[p.chunks[last].head].names_a_person()
                    && !p.words[p.chunks[np].head].names_a_person()
            };
            if before_verb.is_empty()
                && !clause.plural
                && last > np
                && p.words[chunks[k].start].lower == "of"
                && chunks.get(last + 1).is_some_and(|v| {
                    let tag = p.words[v.head].tag;
                    v.kind == ChunkKind::Verb && (tag == "VBP" || (tag == "VBD" && people()))
                })
            {
                clause.subject.1 = end;
                clause.plural = true;
                k = last + 1;
                break;
            }
            before_verb.push(chunks[k]);
            k = last + 1;
        }
        let plural = clause.plural;
        // "PERSON, skipper and co-owner of the vessel, stands near his boat": an apposition
        // between commas before the verb. Or a participle's aside, when a verb in the present
        // that agrees with the subject follows: "Dorsett, photographed in his home, faces his old
        // helmet" (in "A shield, flanked by two figures, topped with a crown" the participles
        // are a list).
        // A participle opening its chunk; alone in it, for an aside or a fragment's verb.
        let opens_participle = |c: &Chunk| {
            c.kind == ChunkKind::Verb
                && c.start == c.head
                && matches!(p.words[c.head].tag, "VBN" | "VBG")
        };
        let participle = |c: &Chunk| opens_participle(c) && c.end == c.head + 1;
        // A verb in the present that agrees with the subject.
        let agrees = |c: &Chunk| {
            c.kind == ChunkKind::Verb
                && match p.words[c.head].tag {
                    "VBZ" => !plural,
                    "VBP" => plural,
                    _ => false,
                }
        };
        if chunks.get(k).is_some_and(|c| p.words[c.start].text == ",")
            && let Some(close) = (k + 1..chunks.len().min(k + 10)).find(|&j| {
                chunks[j].kind == ChunkKind::Other && p.words[chunks[j].start].text == ","
            })
            && let Some(after) = chunks.get(close + 1).filter(|c| c.kind == ChunkKind::Verb)
            && close > k + 1
            && match chunks[k + 1..close].split_first() {
                Some((first, rest)) if participle(first) => {
                    agrees(after) && rest.iter().all(|c| c.kind != ChunkKind::Verb)
                }
                _ => chunks[k + 1..close]
                    .iter()
                    .all(|c| c.kind != ChunkKind::Verb),
            }
        {
            k = close + 1;
        }
        // "This image pulled from video broadcast on state TV shows PERSON", "a man wearing a
        // blue shirt points at a monitor": a participle with its object and phrases after the
        // subject describes it; the sentence's verb comes after them, agreeing with the subject.
        if let Some(participle) = chunks.get(k).filter(|c| opens_participle(c)) {
            let mut j = k + 1;
            let mut object = None;
            if p.words[participle.head].tag == "VBG"
                && let Some(o) = chunks.get(j).filter(|c| c.kind == ChunkKind::Np)
            {
                let (last, end) = p.coordination(j);
                object = Some((o.start, end, o.head));
                j = last + 1;
            }
            loop {
                match chunks.get(j) {
                    Some(Chunk {
                        kind: ChunkKind::Pp { np },
                        ..
                    }) => j = p.coordination(*np).0 + 1,
                    // "dressed in black": a preposition and a colour, no noun phrase.
                    Some(c)
                        if c.kind == ChunkKind::Other
                            && p.words[c.start..c.end]
                                .iter()
                                .all(|w| w.pos == Pos::Adp || is_color(&w.lower)) =>
                    {
                        j += 1
                    }
                    _ => break,
                }
            }
            if j > k + 1 && chunks.get(j).is_some_and(agrees) {
                k = j;
                clause.described_by = object.map(|o| (participle.head, o));
            }
        }
        // "Swartz with glasses, smiling with PERSON": a fragment's participle after a comma,
        // with no finite verb after it, is the subject's.
        if chunks
            .get(k)
            .is_some_and(|c| c.kind == ChunkKind::Other && p.words[c.start].text == ",")
            && chunks
                .get(k + 1)
                .is_some_and(|c| participle(c) && p.words[c.head].tag == "VBG")
            && !chunks[k + 2..]
                .iter()
                .any(|c| c.kind == ChunkKind::Verb && p.words[c.head].is_finite())
        {
            k += 1;
        }
        let Some(v) = chunks.get(k).filter(|c| c.kind == ChunkKind::Verb) else {
            // No verb: "a cat on a bed", "a red bus". A place in the frame after a "with" phrase
            // is the with-object's: "a large mountain with a lake in the foreground" (the lake
            // is); other places stay the subject's ("a pizza with cheese on a wooden table").
            if let Some(with) = before_verb
                .iter()
                .position(|pp| p.words[pp.start].lower == "with")
            {
                // "a man with limes in his moustache": a place of the subject's own body or
                // belongings ("his", "her") holds the with-object too.
                let own = |pp: &Chunk| match pp.kind {
                    ChunkKind::Pp { np } => p.words[p.chunks[np].start].tag == "PRP$",
                    _ => false,
                };
                let after = before_verb.split_off(with + 1);
                before_verb.extend(
                    after
                        .into_iter()
                        .filter(|pp| !in_the_frame(p, pp) && !own(pp)),
                );
            }
            clause.places = before_verb;
            return Some(clause);
        };
        // "looked tired", "appeared delighted": the chunker joins a verb of looking and the
        // participle that completes it, as it joins a passive; the participle is an adjective.
        let participle = (v.end == v.start + 2
            && p.words[v.head].tag == "VBN"
            && v.head == v.start + 1
            && looks_lemma(&p.words[v.start]))
        .then_some((v.head, v.end));
        let v = &match participle {
            Some(_) => Chunk {
                end: v.start + 1,
                head: v.start,
                ..*v
            },
            None => *v,
        };
        let head = &p.words[v.head];
        let has_be = p.words[v.start..v.end].iter().any(|w| w.is_be());
        let form = match head.tag {
            "VBG" => Form::Progressive,
            "VBN" => Form::Passive,
            _ if head.is_be() => Form::Copula,
            "VBZ" | "VBD" | "VBP" if !has_be => Form::Simple,
            _ => return Some(clause),
        };
        // The caption's verb group must be only auxiliaries, adverbs and the main verb; modal or
        // perfect forms ("can be seen", "has been") are left alone.
        if p.words[v.start..v.head]
            .iter()
            .any(|w| w.pos == Pos::Verb && !w.is_be())
        {
            return Some(clause);
        }
        let mut verb = *v;
        // "celebrates scoring the winning goal", "arrives wearing a suit": a gerund and its object
        // after a simple verb complete the verb. The gerund joins the verb group, so the object is
        // the gerund's ("What does PERSON celebrate scoring?") and the activity holds both.
        if form == Form::Simple
            && let Some(g) = chunks.get(k + 1).filter(|g| {
                g.kind == ChunkKind::Verb
                    && g.start == verb.end
                    && g.start == g.head
                    && g.end == g.head + 1
                    && p.words[g.head].tag == "VBG"
                    && !PREPOSITION_LIKE.contains(&p.words[g.head].lower.as_str())
            })
            && chunks.get(k + 2).is_some_and(|o| o.kind == ChunkKind::Np)
        {
            verb.end = g.end;
            k += 1;
        }
        // "Democratic presidential candidate and former New York City mayor PERSON speaks": the
        // titles joined before one name are one person, as the verb in the singular says.
        if clause.plural
            && p.words[verb.start].tag == "VBZ"
            && p.words[clause.subject.1 - 1].entity == Some(Entity::Person)
            && p.words[clause.subject.0..clause.subject.1]
                .iter()
                .filter(|w| w.entity == Some(Entity::Person))
                .count()
                == 1
        {
            clause.plural = false;
        }
        clause.verb = Some((verb, form));
        k += 1;
        // "sits writing at his desk": the participle describes the subject; the places after it
        // are the verb's.
        if chunks
            .get(k)
            .is_some_and(|c| c.kind == ChunkKind::Verb && p.words[c.head].tag == "VBG")
            && chunks
                .get(k + 1)
                .is_some_and(|c| matches!(c.kind, ChunkKind::Pp { .. }))
        {
            k += 1;
        }
        if let Some(complement) = participle {
            clause.complement = Some(complement);
            return Some(clause);
        }
        // "a humpback whale breaching nine miles west of Point Loma": a distance says where, as
        // no picture shows; nothing after the verb is asked.
        if chunks.get(k).is_some_and(|c| {
            c.kind == ChunkKind::Np
                && (c.start + 1..c.end).any(|i| {
                    p.words[i - 1].pos == Pos::Num
                        && matches!(
                            p.words[i].lower.as_str(),
                            "miles"
                                | "mile"
                                | "km"
                                | "kilometres"
                                | "kilometers"
                                | "metres"
                                | "meters"
                                | "yards"
                                | "feet"
                        )
                })
        }) {
            return Some(clause);
        }
        if let Some(o) = chunks.get(k).filter(|c| c.kind == ChunkKind::Np) {
            let (last, end) = p.coordination(k);
            clause.object = Some((o.start, end, o.head));
            k = last + 1;
        } else if (form == Form::Copula || (form == Form::Simple && looks(p, &verb)))
            && let Some(a) = chunks
                .get(k)
                .filter(|c| c.kind == ChunkKind::Other && p.words[c.start].pos == Pos::Adj)
        {
            let mut end = a.end;
            // "black and white"
            while end + 1 < p.words.len()
                && p.words[end].pos == Pos::Conj
                && p.words[end + 1].pos == Pos::Adj
            {
                end += 2;
            }
            clause.complement = Some((a.start, end));
            // A copula's places after its adjective are the subject's: "The boy is happy on the
            // beach" ("Where is the boy?"). After "looks", a place would be asked with the verb
            // alone ("Where does the boy look?"), which means another thing.
            // Not past an adverb: "is barely visible during a cloudy day" would ask "What is
            // barely during …?".
            if form != Form::Copula
                || p.words[verb.start..verb.end]
                    .iter()
                    .any(|w| w.pos == Pos::Adv)
            {
                return Some(clause);
            }
            k += 1;
        }
        while k < chunks.len() {
            // "smiles with her eyes closed": a "with" phrase of the subject's own pose ends the
            // verb's phrases.
            if let Some(kept) = absolute_with(p, chunks, k) {
                if kept {
                    clause.places.push(chunks[k]);
                }
                break;
            }
            match chunks[k].kind {
                // "holds up paper with Mandela's picture on the front": a part's phrase after
                // another phrase is the part of what that phrase names, not where the verb is.
                ChunkKind::Pp { np }
                    if !clause.places.is_empty()
                        && PARTS.contains(&p.words[chunks[np].head].lower.as_str())
                        && p.words.get(chunks[np].end).is_none_or(|w| w.lower != "of") =>
                {
                    break;
                }
                // "gestures at a microphone with the Hollywood sign in the background": what is
                // in the frame is the scene's, neither a place of the verb nor a thing had.
                _ if with_in_the_frame(p, &chunks[k]).is_some() => break,
                // "speaks on immigration reform at The White House": a speech's topic is no
                // place, nor a thing in the picture; nor is the phrase right after it that
                // belongs to it ("remarks on the attacks in Israel in the State Dining Room",
                // "talks about the win over Cardinals"), unless it sets the scene ("at a rally",
                // [`SETTING`]; "over" there is the topic's).
                ChunkKind::Pp { np } if clause.places.is_empty() && topic(p, &clause, k) => {
                    k = p.coordination(np).0 + 1;
                    let scene =
                        |w: &str| w == "at" || w == "from" || (w != "over" && SETTING.contains(&w));
                    if let Some(ChunkKind::Pp { np }) = chunks.get(k).map(|c| c.kind)
                        && !scene(&p.words[chunks[k].start].lower)
                    {
                        k = p.coordination(np).0 + 1;
                    }
                }
                ChunkKind::Pp { np } => {
                    clause.places.push(chunks[k]);
                    k = np + 1;
                }
                _ => break,
            }
        }
        Some(clause)
    }

    fn words(&self, start: usize, end: usize) -> String {
        self.p.text(start, end, false)
    }

    /// The subject made definite: "a man" → "the man", "two dogs" → "the dogs".
    fn definite(&self, start: usize, end: usize) -> String {
        let w = &self.p.words;
        let mut from = start;
        while from < end && matches!(w[from].pos, Pos::Det | Pos::Num) {
            if w[from].tag == "PRP$" {
                break;
            }
            from += 1;
        }
        let rest = self.words(from, end);
        // "Gov PERSON", "Associate Justice PERSON": a title before a name takes no article.
        let proper = w[start].entity.is_some()
            || w[start].tag == "PRP$"
            || w[start].pos == Pos::Pron
            || matches!(w[start].tag, "NNP" | "NNPS")
            || w[start..end]
                .iter()
                .any(|x| x.entity == Some(Entity::Person))
            // "daughter Matilde": a people noun before a name the gazetteer missed is a title.
            || (end >= start + 2 && w[end - 1].tag == "NNP" && w[end - 2].names_a_person());
        if proper { rest } else { format!("the {rest}") }
    }

    /// The subject made definite, each conjunct of a coordination on its own ("the bowl of soup
    /// and the sandwich").
    fn subject_definite(&self) -> String {
        let p = self.p;
        let mut parts = Vec::new();
        let mut start = self.subject.0;
        for i in self.subject.0..self.subject.1 {
            if p.words[i].pos == Pos::Conj && !self.is_inside_np(i) {
                parts.push(self.definite(start, i));
                parts.push(p.words[i].lower.clone());
                start = i + 1;
            }
        }
        parts.push(self.definite(start, self.subject.1));
        parts.join(" ")
    }

    /// Whether word `i` is inside a noun phrase chunk ("black and white" in "a black and white
    /// cat").
    fn is_inside_np(&self, i: usize) -> bool {
        self.p
            .chunks
            .iter()
            .any(|c| c.kind == ChunkKind::Np && c.start <= i && i < c.end)
    }

    /// "is" or "are", agreeing with the subject.
    fn be(&self) -> &'static str {
        if self.plural { "are" } else { "is" }
    }

    /// The verb as written after the auxiliary: "riding", "picking up", "being carried" (a
    /// fragment's "being" stays: it is no auxiliary to invert).
    fn verb_words(&self, v: &Chunk) -> String {
        let w = &self.p.words;
        let mut parts: Vec<&str> = Vec::new();
        for word in &w[v.start..v.end] {
            if !is_finite_be(word) {
                parts.push(&word.text);
            }
        }
        parts.join(" ")
    }

    /// Auxiliary and verb for an inverted question: ("is", "riding") or ("does", "catch").
    fn inverted(&self) -> Option<(String, String)> {
        let (v, form) = self.verb?;
        let w = &self.p.words;
        match form {
            Form::Progressive | Form::Passive | Form::Copula => {
                let aux = w[v.start..v.end]
                    .iter()
                    .find(|x| is_finite_be(x))
                    .map(|x| x.lower.clone())
                    .unwrap_or_else(|| self.be().to_string());
                Some((aux, self.verb_words(&v)))
            }
            Form::Simple => {
                let head = &w[v.head];
                let lemma = if head.tag == "VBP" {
                    head.lower.clone()
                } else {
                    verb_lemma(&head.lower)?
                };
                let aux = match head.tag {
                    "VBD" => "did",
                    _ if self.plural => "do",
                    _ => "does",
                };
                let particle = (v.end > v.head + 1).then(|| self.words(v.head + 1, v.end));
                let verb = match particle {
                    Some(p) => format!("{lemma} {p}"),
                    None => lemma,
                };
                Some((aux.to_string(), verb))
            }
        }
    }

    /// Whether the clause's place `k` puts the container of the place before it, not the subject
    /// ([`places_the_container`]: "sitting in a car | on a street").
    fn places_a_container(&self, k: usize) -> bool {
        k > 0 && places_the_container(self.p, &self.places[k - 1], &self.places[k])
    }

    /// The predicate after the verb, as written: object and places.
    fn rest(&self, with_object: bool, skip_place: Option<&Chunk>) -> String {
        let mut parts = Vec::new();
        if with_object && let Some((s, e, _)) = self.object {
            parts.push(self.words(s, e));
        }
        // A place by its name is left out when something else is left to ask about: "Who eats
        // at a cookie truck?", not "… in New York?", which no picture answers; but "What is
        // driving through Times Square?", not "What is driving?". An "of" phrase goes with the
        // phrase before it: "at the start of the Oktoberfest" stays, "in the Oval Office of the
        // White House" goes.
        let mut dropped = false;
        // "Who dunks during the first half of the team's NBA basketball game?": a "during"
        // phrase (and its "of" phrases) is a time, which no picture settles, left out even when
        // nothing else is left to ask.
        let mut during = false;
        // The place before, to leave out with a named container the place it puts that
        // container in ("in a Ford van on a road": not "Who is sitting on a road?").
        let mut before: Option<&Chunk> = None;
        let places: Vec<(&Chunk, bool, bool)> = self
            .places
            .iter()
            .filter(|&place| Some(place) != skip_place)
            .map(|place| {
                // People stay: "with President-elect PERSON".
                let people = self.p.words[place.start..place.end]
                    .iter()
                    .any(|w| w.text == "PERSON" || w.entity == Some(Entity::Person));
                // A day goes like a name: "Who sports sweat patches on a night out?", "… on
                // the 100th day of her stay?" ask what no picture settles. The light of a time
                // of day stays: "Who is walking on the beach at sunset?".
                let time = match place.kind {
                    ChunkKind::Pp { np } => {
                        TIMES.contains(&self.p.words[self.p.chunks[np].head].lower.as_str())
                            && self.p.words[place.start].lower != "at"
                    }
                    _ => false,
                };
                let of = self.p.words[place.start].lower == "of";
                let contained =
                    dropped && before.is_some_and(|b| places_the_container(self.p, b, place));
                dropped = if of {
                    dropped
                } else {
                    (self.p.is_named(place.start, place.end) && !people) || time || contained
                };
                before = Some(place);
                during = (of && during) || self.p.words[place.start].lower == "during";
                (place, dropped, during)
            })
            .collect();
        let keep_all = parts.is_empty() && places.iter().all(|&(_, named, _)| named);
        for (place, named, during) in places {
            if during {
                continue;
            }
            if keep_all || !named {
                parts.push(self.words(place.start, place.end));
            }
        }
        parts.join(" ")
    }

    /// Whether the clause's verb is one that needs an object ([`NEEDS_OBJECT`]) and has none:
    /// "a woman wearing green" read without its colour.
    fn lacks_its_object(&self) -> bool {
        self.object.is_none()
            && self.verb.is_some_and(|(v, _)| {
                let verb = &self.p.words[v.head].lower;
                NEEDS_OBJECT.contains(&verb.as_str())
                    || NEEDS_OBJECT.contains(&any_lemma(verb).as_str())
            })
    }

    /// Whether the subject names a person: a name or noun the lexicon and gazetteer know as one,
    /// or a name the rest of the sentence gives a person's possessive or clothes ("Dorsett …
    /// faces his old helmet", "Sienna Miller flashes her flat tummy"), as the description gate
    /// reads it ([`super::caption::is_unlisted_person`]).
    fn subject_is_person(&self) -> bool {
        self.p.names_a_person(self.subject.0, self.head)
            || super::caption::is_unlisted_person(self.p, self.head, self.subject.1)
    }

    /// Whether the subject acts or moves of itself: an animal, a vehicle, or a thing by its name
    /// that the sentence shows moving as vehicles move ("What does the Delta Airlines Embraer 175
    /// do? — lands"; not "An AMBER Alert went out to cellphones").
    fn moves(&self) -> bool {
        let head = singular(&self.p.words[self.head].lower);
        let motion = self.verb.is_some_and(|(v, _)| {
            verb_lemma(&self.p.words[v.head].lower)
                .is_some_and(|l| VEHICLE_MOTIONS.contains(&l.as_str()))
        });
        is_animal(&head)
            || is_vehicle(&head)
            || (motion
                && self.subject.0 == 0
                && (0..self.subject.1).any(|i| self.p.is_named(i, i + 1))
                && is_a_named_thing_shown(self.p, 0, self.subject.1))
    }

    /// Whether the subject is the picture itself, a kind of picture that fills the frame followed
    /// by what it is of ("Icon of a globe with a connected network symbol inside a rounded
    /// square", "Logo of a bird …"): a place after it is its content's. A map, a poster or a
    /// painting may hang somewhere in a photograph ("A map of Europe on the wall").
    fn is_a_picture_of(&self) -> bool {
        let head = singular(&self.p.words[self.head].lower);
        matches!(
            &*head,
            "icon"
                | "collage"
                | "logo"
                | "screenshot"
                | "diagram"
                | "chart"
                | "graph"
                | "plot"
                | "infographic"
                | "illustration"
                | "drawing"
                | "sketch"
                | "cartoon"
                | "rendering"
        ) && self
            .p
            .words
            .get(self.head + 1)
            .is_some_and(|w| w.lower == "of")
    }

    /// Whether the subject is what a picture is of, by a common noun: a kind of picture
    /// ("Exterior photo of Heatshield sun shade", which keeps the kind as [`Clause::picture`]) or
    /// any picture ("Concept image of a cloud question mark", read from its "of"). A caption that
    /// says it is a picture of a thing names what is in it, listed among things one sees or not.
    fn pictured(&self) -> bool {
        let p = self.p;
        let of_a_picture = self.subject.0 >= 2
            && p.words[self.subject.0 - 1].lower == "of"
            && names_a_picture(&p.words[self.subject.0 - 2].lower);
        // "Artist's impression of Nasutoceratops titusi": a lower-case word after a name, that
        // names nothing one could see, is the name's (a species' epithet), no thing.
        let epithet = self.head > 0
            && p.words[self.head - 1].tag == "NNP"
            && !is_visible(&singular(&p.words[self.head].lower));
        (self.picture.is_some() || of_a_picture)
            && matches!(p.words[self.head].tag, "NN" | "NNS")
            && !p.is_named(self.head, self.head + 1)
            && !epithet
    }
}

/// Verbs of speech, by lemma, whose "on" or "about" phrase is what is said ([`topic`]).
const SPEAKING: [&str; 7] = [
    "speak", "talk", "testify", "comment", "lecture", "remark", "report",
];

/// Nouns of speech a verb makes or gives ("delivers remarks on …", "gives a speech about …").
const SPEECHES: [&str; 9] = [
    "remark",
    "speech",
    "statement",
    "address",
    "testimony",
    "comment",
    "briefing",
    "lecture",
    "keynote",
];

/// Whether the "on" or "about" phrase at chunk `k`, right after the clause's verb or its object,
/// names what is said, not where: after a verb of speech without an object, or a speech as the
/// object; and of nothing one could see ("speaks on a phone" is where one speaks).
fn topic(p: &Parse, c: &Clause, k: usize) -> bool {
    let ChunkKind::Pp { np } = p.chunks[k].kind else {
        return false;
    };
    let Some((v, _)) = c.verb else {
        return false;
    };
    let speaks = match c.object {
        Some((_, end, h)) => {
            end == p.chunks[k].start && SPEECHES.contains(&&*singular(&p.words[h].lower))
        }
        None => {
            v.end == p.chunks[k].start
                && verb_lemma(&p.words[v.head].lower)
                    .is_some_and(|l| SPEAKING.contains(&l.as_str()))
        }
    };
    speaks
        && matches!(p.words[p.chunks[k].start].lower.as_str(), "on" | "about")
        && !is_visible_word(&p.words[p.chunks[np].head].lower)
}

/// Of the phrase at chunk `k` after a verb, whether it is a "with" phrase of the subject's own
/// pose, an absolute construction rather than what the verb is done with or where: its noun
/// phrase one's own body followed by a participle or an adjective ("smiles with her eyes
/// closed"), or followed by a participle whose object is a pronoun ("with green, blue and pink
/// surrounding him"), or by a place, when the with-object is one's own body ("smiles with her
/// hand below her chin": the hand is below the chin, the woman is not) or the place is ("poses
/// with tinsel in her hair"). `Some(true)` when the "with" phrase still says
/// what the verb is done with (tinsel is posed with; a hand is not smiled with), `None` for any
/// other phrase ("cuts a cake with a knife at a party", "walks with his dog in the park").
fn absolute_with(p: &Parse, chunks: &[Chunk], k: usize) -> Option<bool> {
    let ChunkKind::Pp { np } = chunks[k].kind else {
        return None;
    };
    if p.words[chunks[k].start].lower != "with" {
        return None;
    }
    let body = |c: &Chunk| is_body_part(&p.words[c.head].lower);
    let own = |c: &Chunk| p.words[c.start].tag == "PRP$" && body(c);
    let (last, end) = p.coordination(np);
    let next = chunks.get(last + 1).filter(|c| c.start == end)?;
    let first = &p.words[next.start];
    // A participle or an adjective of one's own body ("her eyes closed"), or a participle with
    // the subject as its object ("surrounding him"); not one that describes a thing held ("a
    // sign reading 'No war'", "a dog wearing a sweater").
    let of_the_subject = || {
        own(&chunks[np])
            || p.words.get(next.end).is_some_and(|w| {
                matches!(
                    w.lower.as_str(),
                    "him" | "her" | "them" | "it" | "me" | "us"
                ) && w.tag == "PRP"
            })
    };
    match next.kind {
        ChunkKind::Verb if matches!(p.words[next.head].tag, "VBG" | "VBN" | "VBD") => {
            of_the_subject().then_some(false)
        }
        ChunkKind::Other if first.pos == Pos::Adj || first.tag == "VBN" => {
            of_the_subject().then_some(false)
        }
        // "with one hand on her hip": a body part is no instrument, with or without "her".
        ChunkKind::Pp { np: place } if own(&chunks[np]) || own(&chunks[place]) => {
            Some(!body(&chunks[np]))
        }
        _ => None,
    }
}

/// Things besides vehicles that one sits, lies or stands inside, enclosed, and that stand on
/// something else: "a cat in a box on the floor", "a family in an RV on a road" ("rv" is no
/// vehicle of the count's kinds, which ask "How many … are there?"). Not an open seat: "a man in
/// a wheelchair on a basketball court" is on the court too.
const CONTAINERS: [&str; 18] = [
    "box",
    "basket",
    "crate",
    "tub",
    "bathtub",
    "bucket",
    "bowl",
    "cage",
    "carrier",
    "suitcase",
    "sink",
    "crib",
    "cradle",
    "tent",
    "rv",
    "camper",
    "motorhome",
    "minivan",
];

/// Whether place phrase `place`, right after the phrase `before`, places what `before` says the
/// subject is inside rather than the subject: "sitting in a car | on a street" (the car is on the
/// street; she sits in the car, not on the street), "a cat in a box | on the floor". Only "on"
/// and its like after "in" a vehicle or a container: "sitting in a room on a chair" sits on the
/// chair, "waits in a car at a gas station" waits at the station too.
fn places_the_container(p: &Parse, before: &Chunk, place: &Chunk) -> bool {
    let (ChunkKind::Pp { np: inside }, ChunkKind::Pp { .. }) = (before.kind, place.kind) else {
        return false;
    };
    before.end == place.start
        && matches!(p.words[before.start].lower.as_str(), "in" | "inside")
        && matches!(
            p.words[place.start].lower.as_str(),
            "on" | "upon" | "atop" | "along"
        )
        && {
            let container = singular(&p.words[p.chunks[inside].head].lower);
            is_vehicle(&container) || CONTAINERS.contains(&&*container)
        }
}

/// Whether verb group `v` is a verb of how one looks ("looks", "appeared", "seems"), which an
/// adjective completes as it does a copula ("The boy looks happy": not "Does the boy look?").
fn looks(p: &Parse, v: &Chunk) -> bool {
    v.end == v.head + 1 && looks_lemma(&p.words[v.head])
}

/// Whether `word` is a finite form of a verb of how one looks ([`LOOKS`]).
fn looks_lemma(word: &Word) -> bool {
    matches!(word.tag, "VBZ" | "VBD" | "VBP") && LOOKS.iter().any(|l| inflects(&word.lower, l))
}

/// The question word and answer type of an answer that names a person or people, or a thing.
fn who_or_what(person: bool) -> (&'static str, AnswerType) {
    if person {
        ("Who", AnswerType::Person)
    } else {
        ("What", AnswerType::Object)
    }
}

/// "Who is the man with? — his daughter" of "A man walks down the street with his daughter": a
/// person a person is with, named by a "with" phrase after other phrases (one right after the
/// verb is asked with the verb). Only when no phrase before it names a person, so that the "with"
/// is the subject's: in "A woman talks to a man with his daughter" the daughter is the man's.
fn company_after_places(c: &Clause, out: &mut Vec<Proposal>) {
    let p = c.p;
    if !c.subject_is_person() || c.object.is_some_and(|(s, _, h)| p.names_a_person(s, h)) {
        return;
    }
    let names_someone = |pp: &Chunk| match pp.kind {
        ChunkKind::Pp { np } => p.names_a_person(p.chunks[np].start, p.chunks[np].head),
        _ => false,
    };
    // The first "with", after another phrase (a first one is the verb's, asked with it).
    let Some(at) = c
        .places
        .iter()
        .position(|pp| p.words[pp.start].lower == "with")
        .filter(|&at| at > 0)
    else {
        return;
    };
    let with = &c.places[at];
    if c.places[..at].iter().any(names_someone) || !names_someone(with) {
        return;
    }
    let ChunkKind::Pp { np } = with.kind else {
        return;
    };
    let (_, end) = p.coordination(np);
    let q = question(&["Who", c.be(), &c.subject_definite(), "with"]);
    out.push(Proposal::of_span(
        p,
        q,
        (p.chunks[np].start, end),
        AnswerType::Person,
    ));
}

/// "What is the house made of? — wood" of "A house made of wood": what a thing is made, built
/// or carved of or from, named right after the participle. The material is what one sees, a
/// name's or not ("What is the life-size Volvo XC90 made of? — LEGOs"): asked after names of
/// places are left out ([`names_a_place`]).
fn material(c: &Clause, out: &mut Vec<Proposal>) {
    let p = c.p;
    let (Some((v, _)), Some((aux, _)), Some(np)) = (c.verb, c.inverted(), made_of(c)) else {
        return;
    };
    let preposition = p.words[v.end].lower.as_str();
    let (_, end) = p.coordination(np);
    let q = question(&[
        "What",
        &aux,
        &c.subject_definite(),
        &p.words[v.head].lower,
        preposition,
    ]);
    out.push(Proposal::of_span(
        p,
        q,
        (p.chunks[np].start, end),
        AnswerType::Object,
    ));
}

/// The chunk index of the material's noun phrase when the clause's verb is a participle of
/// making followed by "of" or "from" and no object: "made of | wood" ([`material`]).
fn made_of(c: &Clause) -> Option<usize> {
    let p = c.p;
    let (v, form) = c.verb?;
    if form != Form::Passive
        || c.object.is_some()
        || !MADE.contains(&p.words[v.head].lower.as_str())
    {
        return None;
    }
    let pp = c.places.first().filter(|pp| pp.start == v.end)?;
    let ChunkKind::Pp { np } = pp.kind else {
        return None;
    };
    (matches!(p.words[pp.start].lower.as_str(), "of" | "from")
        && p.words[p.chunks[np].head].entity.is_none())
    .then_some(np)
}

/// Participles of making whose "of" or "from" names the material ([`material`]).
const MADE: [&str; 5] = ["made", "built", "carved", "constructed", "woven"];

/// "What is the protester holding? — a shield" of "A protester holding a shield attempts to
/// block …": the participle that describes the subject before the sentence's verb says what the
/// picture shows as often as the verb does (a light verb's idiom, "making their way", asks nothing).
fn described_by(c: &Clause, out: &mut Vec<Proposal>) {
    let p = c.p;
    let Some((v, (s, e, h))) = c.described_by else {
        return;
    };
    // "their way home": the idiom's noun need not be the head.
    if (s..e).any(|i| IDIOM_OBJECTS.contains(&&*singular(&p.words[i].lower)))
        || TIMES.contains(&p.words[h].lower.as_str())
    {
        return;
    }
    let (wh, t) = who_or_what(p.words[h].names_a_person());
    let q = question(&[wh, c.be(), &c.subject_definite(), &p.words[v].lower]);
    out.push(Proposal::of_span(p, q, (s, e), t));
}

/// "What is barely visible? — the city's acropolis", "Who is happy? — the girl": the subject of
/// a copula and an adjective, of a person or a thing one could see. Not of an adjective that takes
/// a phrase of its own ("full of people", "close to the shore"), which the question would cut,
/// nor of a colour (asked by its own question).
fn in_a_state(c: &Clause, out: &mut Vec<Proposal>) {
    let p = c.p;
    let (Some((s, e)), Some((v, form)), Some((aux, _))) = (c.complement, c.verb, c.inverted())
    else {
        return;
    };
    let seen = c.subject_is_person() || visible_thing(p, c.head);
    // "barely visible during a cloudy day": a phrase of time or place after the adjective is
    // none of its own.
    let governs = p.words.get(e).is_some_and(|w| {
        (matches!(w.pos, Pos::Adp) && !SETTING.contains(&w.lower.as_str())) || w.tag == "TO"
    });
    if !seen || governs || all_colours(p, s, e) {
        return;
    }
    let (wh, t) = who_or_what(c.subject_is_person());
    // "Who looks happy? — the boy": a verb of looking in a simple tense takes no auxiliary, and
    // agrees with "who" in the third person singular.
    let verb = match (form, p.words[v.head].tag) {
        (Form::Simple, "VBP") => plural(&p.words[v.head].lower),
        (Form::Simple, _) => p.words[v.head].lower.clone(),
        _ => format!("{} {}", singular_be(&aux), c.verb_words(&v)),
    };
    let q = question(&[wh, &verb, &c.words(s, e)]);
    out.push(Proposal::of_span(p, q, c.subject, t));
}

/// "is" for "are", "was" for "were": the auxiliary of a question whose subject is "who" or
/// "what".
fn singular_be(aux: &str) -> &str {
    match aux {
        "are" => "is",
        "were" => "was",
        other => other,
    }
}

/// Whether words `s..e` are colours (and the conjunctions between them): "black and white".
fn all_colours(p: &Parse, s: usize, e: usize) -> bool {
    p.words[s..e]
        .iter()
        .all(|w| is_color(&w.lower) || w.pos == Pos::Conj)
}

/// Whether word `head` names a thing one could see: no name, person or star, and a visible noun.
fn visible_thing(p: &Parse, head: usize) -> bool {
    let word = &p.words[head];
    word.entity.is_none()
        && !p.is_named(head, head + 1)
        && !is_person_noun(&word.lower)
        && !p.is_star(head)
        && is_visible_word(&word.lower)
}

/// Prepositions that set a time or a place, which no adjective takes as its own phrase ("full
/// of", "close to" do).
const SETTING: [&str; 17] = [
    "during", "over", "under", "near", "behind", "across", "along", "beside", "above", "below",
    "after", "before", "inside", "outside", "through", "around", "amid",
];

/// Things that show pictures of their own where they stand: what they show is on them, and they
/// are in the picture.
const SCREENS: [&str; 9] = [
    "screen",
    "monitor",
    "television",
    "tv",
    "billboard",
    "display",
    "phone",
    "smartphone",
    "tablet",
];

/// Linking verbs: what follows them is a state of the subject, not something it does.
const LINKING: [&str; 5] = ["stay", "remain", "seem", "become", "appear"];

/// "What is the man wearing? — a suit" of "a man in a suit riding a horse", "PERSON looks great
/// in her summer dress": the first "in" phrase of clothes after a person subject, before any other
/// person is named (whose clothes they would be).
fn worn(c: &Clause, out: &mut Vec<Proposal>) {
    let p = c.p;
    if !c.subject_is_person() || out.iter().any(|q| q.question.ends_with("wearing?")) {
        return;
    }
    // Another person named first owns the clothes after them, even in a place phrase ("talks to
    // a woman in a red dress"); but not after "and" and a verb of the subject's own ("takes her
    // son PERSON to school and looked great in an olive sweater").
    let mut owned = false;
    for (k, ch) in p
        .chunks
        .iter()
        .enumerate()
        .filter(|(_, ch)| ch.start >= c.subject.1)
    {
        match ch.kind {
            ChunkKind::Pp { np } if p.words[ch.start].lower == "in" && !owned => {
                let head = &p.words[p.chunks[np].head];
                if is_clothing(&singular(&head.lower)) {
                    // "in red shirt, and technicians inspect …": the list goes on only over
                    // clothes.
                    let (last, end) = p.coordination(np);
                    let all_clothes = p.chunks[np..=last]
                        .iter()
                        .filter(|x| x.kind == ChunkKind::Np)
                        .all(|x| is_clothing(&singular(&p.words[x.head].lower)));
                    let end = if all_clothes { end } else { p.chunks[np].end };
                    let q = question(&["What", c.be(), &c.subject_definite(), "wearing"]);
                    out.push(Proposal::of_span(
                        p,
                        q,
                        (p.chunks[np].start, end),
                        AnswerType::Object,
                    ));
                    return;
                }
            }
            ChunkKind::Np if p.words[ch.head].names_a_person() => owned = true,
            ChunkKind::Other
                if p.words[ch.start].lower == "and"
                    && p.chunks
                        .get(k + 1)
                        .is_some_and(|n| n.kind == ChunkKind::Verb && n.start == ch.end) =>
            {
                owned = false;
            }
            _ => {}
        }
    }
}

/// Whether `w` is a form of "be" that a question inverts ("is", "were"), not "being" or "be".
fn is_finite_be(w: &Word) -> bool {
    w.is_be() && !matches!(w.lower.as_str(), "being" | "be" | "been")
}

/// Joins the non-empty parts with spaces, capitalises and adds "?".
fn question(parts: &[&str]) -> String {
    let mut q = String::with_capacity(parts.iter().map(|s| s.len() + 1).sum::<usize>() + 1);
    for word in parts.iter().flat_map(|s| s.split_whitespace()) {
        if !q.is_empty() {
            q.push(' ');
        }
        q.push_str(word);
    }
    // A first letter outside ASCII stays as it is (none of the rules' question words has one).
    if let Some(first) = q.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    q.push('?');
    q
}

/// Writes every question the rules can phrase for `parse`. `seed` picks swaps deterministically.
pub fn propose(p: &Parse, seed: u64) -> Vec<Proposal> {
    let mut out = Vec::new();
    let clause = Clause::read(p);
    colors_and_counts(p, clause.as_ref(), seed, &mut out);
    let Some(c) = clause else {
        return out;
    };
    let subject = c.subject_definite();
    let be = c.be();
    let ask = |out: &mut Vec<Proposal>, q: String, span: (usize, usize), t: AnswerType| {
        out.push(Proposal::of_span(p, q, span, t));
    };
    // Not of a light verb's idiom: "make their way", "take part", "pay its respects"; nor of a
    // verb's own ("cuts a sexy figure", where "flaunts her figure" shows one).
    let lemma = c.verb.and_then(|(v, _)| verb_lemma(&p.words[v.head].lower));
    let with_verb = |idioms: &[(&str, &str)], h: usize| {
        let noun = singular(&p.words[h].lower);
        if !idioms.iter().any(|&(_, n)| n == noun) {
            return false;
        }
        // (A participle's lemma too: "finding his legs", "holding a briefing".)
        let participle = || {
            c.verb
                .and_then(|(v, _)| participle_lemma(&p.words[v.head].lower))
        };
        lemma
            .clone()
            .or_else(participle)
            .is_some_and(|l| idioms.contains(&(l.as_str(), &*noun)))
    };
    let verb_idiom = |h: usize| with_verb(&VERB_IDIOMS, h);
    let idiom = |h: usize| IDIOM_OBJECTS.contains(&&*singular(&p.words[h].lower)) || verb_idiom(h);
    match (c.verb, c.inverted()) {
        // "A table showing the number of bugs", "an engraving depicting a crowd": the subject is a
        // picture; what it shows is the question, not what it is "doing". (A person who "shows
        // the strain" is asked as any subject.)
        (Some((v, _)), Some(_))
            if depicts(p, &v) && c.object.is_some() && !c.subject_is_person() =>
        {
            let (s, e, _) = c.object.expect("checked above");
            let aux = if c.plural { "do" } else { "does" };
            ask(
                &mut out,
                question(&["What", aux, &subject, "show"]),
                (s, e),
                AnswerType::Object,
            );
        }
        (Some((v, form)), Some((aux, verb))) => {
            // The subject: "Who is riding a horse on a dirt road?"
            let (wh, subject_type) = who_or_what(c.subject_is_person());
            let subject_aux = match form {
                Form::Simple => None,
                _ => Some(singular_be(&aux)),
            };
            // "Who adjusts a barricade?" of "police officers adjust a barricade": the subject
            // question's verb agrees with "who", in the third person singular.
            let verb_as_written = if form == Form::Simple && p.words[v.head].tag == "VBP" {
                let head = &p.words[v.head];
                let third = match head.lower.as_str() {
                    "have" => "has".to_string(),
                    "do" => "does".to_string(),
                    "go" => "goes".to_string(),
                    lemma => plural(lemma),
                };
                let particle = c.words(v.head + 1, v.end);
                format!("{third} {particle}")
            } else {
                c.verb_words(&v)
            };
            let agrees = form != Form::Copula || (c.object.is_none() && !c.places.is_empty());
            // Not "Who stands?" of "PERSON stands, arms crossed, …": a lone intransitive verb in a
            // simple tense asks too little to be answered from the picture.
            // An infinitive after a verb with nothing else is its rest: "Who works to pull
            // weeds?", "Who waits to receive treatment?".
            let rest = match (c.rest(true, None), c.object) {
                // Not "What seems to be?" of "A seal pup seems to be in deep thought": "to be"
                // says nothing without what follows it.
                (rest, None) if rest.is_empty() => p
                    .infinitive_after(v.end)
                    .filter(|&e| !p.words[e - 1].is_be())
                    .map(|e| c.words(v.end, e))
                    .unwrap_or_default(),
                (rest, _) => rest,
            };
            // Nor "What is connected?" of "a loop connected to a lower loop by a human" (the
            // phrases after a passive say what it is connected to).
            // Nor "Who is wearing?" of "a woman wearing green": a verb that needs an object the
            // reading did not find.
            let bare = (form == Form::Simple && c.object.is_none() && v.end == v.head + 1
                || form == Form::Passive
                || c.lacks_its_object())
                && rest.is_empty();
            // Nor "What is signifying?" of "US flag signifying that this is …": a verb whose
            // object is a clause asks nothing a picture shows.
            let clausal = p.words.get(v.end).is_some_and(|w| w.lower == "that");
            // Nor "Who makes an inspiring statement?": a figure of speech is not what one sees
            // anyone do ("Who makes their way to …?" is: the way is walked).
            let figurative = c.object.is_some_and(|(_, _, h)| verb_idiom(h));
            if agrees && !bare && !clausal && !figurative {
                let q = question(&[wh, subject_aux.unwrap_or(""), &verb_as_written, &rest]);
                ask(&mut out, q, c.subject, subject_type);
            }
            // The object: "What is the man riding?"
            // Not "What did the telescope produce? — this stunning image": the picture itself.
            let this_picture = |s: usize, h: usize| {
                matches!(p.words[s].lower.as_str(), "this" | "these")
                    && names_a_picture(&singular(&p.words[h].lower))
            };
            if let Some((s, e, h)) = c.object.filter(|&(s, _, h)| {
                form != Form::Copula
                    && !idiom(h)
                    && !with_verb(&SEEN_IDIOMS, h)
                    && !this_picture(s, h)
            }) {
                let person =
                    is_person_noun(&p.words[h].lower) || p.words[h].entity == Some(Entity::Person);
                let (wh, t) = who_or_what(person);
                let q = question(&[wh, &aux, &subject, &verb]);
                ask(&mut out, q, (s, e), t);
            }
            // The activity: "What is the man doing?" (not of "doing a trick", which would answer
            // with the question's own verb); in a simple tense, "What do the police officers
            // do? — adjust a barricade" (the verb is the seed's own kind of answer).
            // "What does PERSON do? — waits to receive treatment": an infinitive after the verb
            // is part of the answer, with its object.
            // The phrase a verb's preposition governs, when it places nothing (places are asked
            // below): only right after a verb without an object ([`Parse::governed`]).
            let governed = (c.object.is_none() && matches!(form, Form::Simple | Form::Progressive))
                .then(|| p.governed(v.end))
                .flatten();
            // The activity holds the governed phrase: "What does the laborer do? — tends to a
            // field", not "— tends".
            // What is looked at right after a verb without an object: "looking at | a painting".
            let looked_at = c.object.is_none().then(|| p.looked_at(v.end)).flatten();
            let end = match (c.object, governed) {
                (Some((_, e, _)), _) => e,
                (None, Some((_, np))) => np.end,
                // "What is the woman doing? — looking at a painting", not "— looking".
                (None, None) => p.infinitive_after(v.end).or(looked_at).unwrap_or(v.end),
            };
            // "PERSON and PERSON look on at a press conference": "on" before another
            // preposition, or last, is the verb's particle ("— look on", not "— look").
            let end = match p.words.get(end) {
                Some(w)
                    if end == v.end
                        && w.lower == "on"
                        && p.words.get(end + 1).is_none_or(|n| n.pos == Pos::Adp) =>
                {
                    end + 1
                }
                _ => end,
            };
            // Not "What does PERSON do? — looks" of "looks great", "— demonstrates" of
            // "demonstrates how to use …" nor "— continues" of "continues to keep mum": a verb
            // without its complement is no answer.
            // Nor "— pulls PERSON", "— supports her husband PERSON": a name is no activity.
            let after = |k: usize| p.words.get(v.end + k);
            let no_activity = c.object.is_none()
                && after(0).is_some_and(|n| {
                    n.tag == "WRB"
                        || n.lower == "that"
                        // "continues to keep mum": an infinitive too long to answer with.
                        || (n.tag == "TO"
                            && after(1).is_some_and(|w| w.tag == "VB")
                            && end == v.end)
                        // Not "next to", "close to": those open a place.
                        || (n.pos == Pos::Adj && after(1).is_none_or(|w| w.lower != "to"))
                })
                || p.words[v.head..end]
                    .iter()
                    .any(|w| w.entity == Some(Entity::Person))
                // "stays in tip-top shape", "remains in hospital": a linking verb is a state, no
                // activity; nor is "attempts to block a jet of water" (a verb taking an
                // infinitive says what is meant or begun, the picture only what is done).
                || verb_lemma(&p.words[v.head].lower).is_some_and(|l| {
                    LINKING.contains(&l.as_str()) || CATENATIVE.contains(&l.as_str())
                })
                // Nor "— looked" of "looked tired": an adjective completes the verb of looking.
                || c.complement.is_some()
                // Nor "— holds" of a verb that needs the object the reading did not find.
                || c.lacks_its_object()
                // Nor "What does the row of vehicles do? — sits", "What is the folded duvet
                // doing? — lying": a thing that stays put does nothing; its place is asked below.
                || (end == v.end
                    && !c.subject_is_person()
                    && !is_animal(&singular(&p.words[c.head].lower))
                    && !gathers(&singular(&p.words[c.head].lower))
                    && matches!(
                        any_lemma(&p.words[v.head].lower).as_str(),
                        "sit" | "stand" | "lie" | "rest" | "wait"
                    ))
                // Nor "— go" of "go to Rare Salon": going is to somewhere, asked as a place. Nor
                // "— gets" of "gets in his morning workout", "— looks" of "looks over a new
                // iPhone": a light verb, or one of looking, means what its phrase makes it
                // (with its particle it is an activity: "takes off", "looks away").
                || (end == v.end
                    && match lemma.as_deref().unwrap_or(&p.words[v.head].lower) {
                        "go" | "come" => true,
                        "get" | "put" | "take" | "make" | "have" | "give" | "look" => {
                            v.end == v.head + 1
                        }
                        _ => false,
                    });
            // (Nor "— finding his legs": a figure of speech is no activity one sees.)
            if !no_activity
                && form == Form::Progressive
                && p.words[v.head].lower != "doing"
                && c.object.is_none_or(|(_, _, h)| !verb_idiom(h))
            {
                let q = question(&["What", &aux, &subject, "doing"]);
                ask(&mut out, q, (v.head, end), AnswerType::Activity);
            } else if !no_activity
                && form == Form::Simple
                && (c.subject_is_person() || c.moves())
                && !matches!(p.words[v.head].lower.as_str(), "do" | "does" | "did")
                && c.object.is_none_or(|(_, _, h)| !idiom(h))
            {
                let q = question(&["What", &aux, &subject, "do"]);
                ask(&mut out, q, (v.head, end), AnswerType::Activity);
            }
            // "take part in a ballet course", "gets a look at bryophytes": what a light verb's
            // idiom is about is no place (but still what the question of its phrase asks).
            let idiomatic = c.object.is_some_and(|(_, _, h)| idiom(h));
            let object = c.object.map(|(s, e, _)| c.words(s, e)).unwrap_or_default();
            // "A sculpture made of ice on a table": the participle and its material describe the
            // subject, and the places after them are the subject's ("Where is the sculpture?",
            // "Is the sculpture on a table?"), not where it was made.
            let verb = if made_of(&c).is_some() {
                String::new()
            } else {
                verb
            };
            for (k, place) in c.places.iter().enumerate() {
                let ChunkKind::Pp { np } = place.kind else {
                    continue;
                };
                // Not "What is the woman sitting on? — a street" of "sitting in a car on a
                // street": the street is the car's place ([`places_the_container`]), though
                // still part of the sentence the other questions repeat.
                if !p.is_location(place) || c.places_a_container(k) {
                    continue;
                }
                // Nor "Where does the jogger get? — in his morning workout": "gets in" something
                // one cannot see fits it in ("gets in the car" is a place).
                if lemma.as_deref() == Some("get")
                    && place.start == v.end
                    && !visible_thing(p, p.chunks[np].head)
                {
                    continue;
                }
                // A passive's "by" names who or what does it, not where: "Who is PERSON flanked
                // by? — his father", not "Where is PERSON flanked? — by his father".
                if form == Form::Passive && p.words[place.start].lower == "by" {
                    let (wh, t) = who_or_what(p.words[p.chunks[np].head].names_a_person());
                    let (_, end) = p.coordination(np);
                    let q = question(&[wh, &aux, &subject, &verb, "by"]);
                    ask(&mut out, q, (p.chunks[np].start, end), t);
                    continue;
                }
                // Other places are left out: "Where is the man riding a horse?", not "… with a
                // hat at night?". A verb's governed phrase stays with it: "Where does PERSON puff
                // on a cigarette? — at the beach", not "Where does PERSON puff?".
                let object = match governed {
                    Some((pp, np)) if c.object.is_none() => c.words(pp.start, np.end),
                    _ => object.clone(),
                };
                if !idiomatic {
                    let q = question(&["Where", &aux, &subject, &verb, &object]);
                    ask(&mut out, q, (place.start, place.end), AnswerType::Location);
                }
                // "What is the man riding a horse on?" (not "What does PERSON puff on a
                // cigarette at?": two prepositions are one too many). Of an idiom, only its own
                // phrase, right after it: "gets a look at | bryophytes", not "takes his mind off
                // things | on pizza date".
                // Nor "What is the boy pointing in? — the sky" of "pointing at a plane in the
                // sky": after what is looked at, a place may be its own.
                let after_looked_at = looked_at.is_some() && place.start != v.end;
                if governed.is_some()
                    || after_looked_at
                    || (idiomatic && c.object.is_some_and(|(_, e, _)| place.start != e))
                {
                    continue;
                }
                // Nor "What does PERSON speak at? — a campaign event": an occasion is where one
                // speaks (the "Where" question above), not a thing one speaks at.
                if is_occasion(&p.words[p.chunks[np].head].lower) {
                    continue;
                }
                let q = question(&[
                    "What",
                    &aux,
                    &subject,
                    &verb,
                    &object,
                    &p.preposition(place),
                ]);
                let np = p.chunks[np];
                ask(&mut out, q, (np.start, np.end), AnswerType::Object);
            }
            // An idiom's own phrase that places nothing: "What do the holiday travelers make
            // their way to? — their car" (a thing or a person one could see).
            if let Some((_, e, _)) = c.object.filter(|_| idiomatic)
                && let Some(pp) = c.places.iter().find(|pp| pp.start == e)
                && !p.is_location(pp)
                && let ChunkKind::Pp { np } = pp.kind
            {
                let np = p.chunks[np];
                let head = &p.words[np.head];
                let (wh, t) = who_or_what(head.names_a_person());
                if head.pos == Pos::Noun
                    && !p.is_named(np.start, np.end)
                    && (wh == "Who" || is_visible(&singular(&head.lower)))
                {
                    let q = question(&[wh, &aux, &subject, &verb, &object, &p.preposition(pp)]);
                    ask(&mut out, q, (np.start, np.end), t);
                }
            }
            // What the verb's preposition governs: "What is the woman talking on? — the phone".
            if let Some((pp, np)) = governed {
                let (wh, t) = who_or_what(p.words[np.head].names_a_person());
                let q = question(&[wh, &aux, &subject, &verb, &p.preposition(&pp)]);
                ask(&mut out, q, (np.start, np.end), t);
            }
            // The company or the instrument: "Who does PERSON meet with? — President-elect
            // PERSON", "What is the man cutting a cake with? — a knife"; only of a "with" right
            // after the verb and its object ("stand near white vans with a barrier": the
            // barrier is with the vans). And the giver: "Who does PERSON receive the award
            // from? — chair PERSON" (a person only: "from an ambulance" is where, not who).
            if let Some(pp) = c.places.first()
                && let ChunkKind::Pp { np } = pp.kind
                && form != Form::Copula
            {
                let preposition = p.words[pp.start].lower.as_str();
                let person = p.words[p.chunks[np].head].names_a_person();
                if preposition == "with" || (preposition == "from" && person) {
                    let (_, end) = p.coordination(np);
                    let (wh, t) = who_or_what(person);
                    let q = question(&[wh, &aux, &subject, &verb, &object, preposition]);
                    ask(&mut out, q, (p.chunks[np].start, end), t);
                }
            }
            company_after_places(&c, &mut out);
            // "Is the girl very happy?": a copula's adjective completes it.
            let verb = match c.complement {
                Some((s, e)) => format!("{verb} {}", c.words(s, e)).trim().to_string(),
                _ => verb,
            };
            yes_no_clause(&c, seed, &aux, &verb, &mut out);
        }
        (None, _) => {
            // "PERSON and his daughter Paris": whom a person is with, when the other is named by
            // a people noun ("PERSON and PERSON" would answer with the question's own word), and
            // no "with" phrase names another.
            if !c.places.iter().any(|pp| p.words[pp.start].lower == "with")
                && let Some(k) = p
                    .chunks
                    .iter()
                    .position(|ch| ch.kind == ChunkKind::Np && ch.start == c.subject.0)
                && p.coordination(k).0 == k + 2
                && p.words[p.chunks[k].end].lower == "and"
                && p.names_a_person(c.subject.0, p.chunks[k].head)
                && let other = p.chunks[k + 2]
                && p.words[other.start..other.end]
                    .iter()
                    .any(|w| w.entity.is_none() && is_person_noun(&w.lower))
            {
                let first = p.text(c.subject.0, p.chunks[k].end, false);
                let q = question(&["Who is", &first, "with"]);
                ask(&mut out, q, (other.start, c.subject.1), AnswerType::Person);
            }
            // "a cat on a bed", "a woman with a hat"; not "What is the dog on? — a road" of "a
            // dog in a car on a road" ([`places_the_container`]).
            for (k, place) in c.places.iter().enumerate() {
                let ChunkKind::Pp { np } = place.kind else {
                    continue;
                };
                if c.places_a_container(k) {
                    continue;
                }
                let np_chunk = p.chunks[np];
                let prep = p.preposition(place);
                if prep == "with" && p.names_a_person(np_chunk.start, np_chunk.head) {
                    // "PERSON and his son with Kilkenny manager PERSON": company, not a thing
                    // one has.
                    let (_, end) = p.coordination(np);
                    let q = question(&["Who", be, &subject, "with"]);
                    ask(&mut out, q, (np_chunk.start, end), AnswerType::Person);
                } else if prep == "with"
                    // Nor "What does the landscape have? — bright colors": a colour is how it
                    // looks.
                    && !STATES.contains(&p.words[np_chunk.head].lower.as_str())
                    // Nor "What does the woman have? — her hands": her own body is not had ("A
                    // cat with green eyes" has them).
                    && !(p.words[np_chunk.start].tag == "PRP$"
                        && is_body_part(&p.words[np_chunk.head].lower))
                    && with_in_the_frame(p, place).is_none()
                    // Nor "What does Raw Quinoa have? — a scoop" of "Raw Quinoa in a glass
                    // canister with a scoop": after a thing's place ("in the middle of a
                    // field", "next to a lake"), "with" is the place's. A person's or an
                    // animal's is theirs ("A dog on the beach with a stick").
                    && (c.subject_is_person()
                        || is_animal(&singular(&p.words[c.head].lower))
                        || !c.places[..k]
                            .iter()
                            .rfind(|pp| p.preposition(pp) != "of")
                            .is_some_and(|pp| {
                                // A preposition of several words is a place's ("in front of").
                                p.is_location(pp) || p.preposition(pp).contains(' ')
                            }))
                {
                    // Not "What do the microphones have? — a EU flag" of "microphones with a EU
                    // flag in the background": that is the scene's ([`in_the_background`]).
                    let (_, end) = p.coordination(np);
                    let aux = if c.plural { "do" } else { "does" };
                    let q = question(&["What", aux, &subject, "have"]);
                    ask(&mut out, q, (np_chunk.start, end), AnswerType::Object);
                } else if p.is_location(place) && !c.is_a_picture_of() {
                    let q = question(&["Where", be, &subject]);
                    ask(&mut out, q, (place.start, place.end), AnswerType::Location);
                    let q = question(&["What", be, &subject, &prep]);
                    ask(
                        &mut out,
                        q,
                        (np_chunk.start, np_chunk.end),
                        AnswerType::Object,
                    );
                    // "What is in Cupertino?" asks what a picture cannot show: its place's name.
                    if p.is_named(place.start, place.end) {
                        continue;
                    }
                    let (wh, t) = who_or_what(c.subject_is_person());
                    let q = question(&[wh, "is", &p.text(place.start, place.end, false)]);
                    ask(&mut out, q, c.subject, t);
                }
            }
            yes_no_clause(&c, seed, be, "", &mut out);
        }
        _ => {}
    }
    in_a_state(&c, &mut out);
    picture_questions(&c, &mut out);
    described_by(&c, &mut out);
    worn(&c, &mut out);
    existence(&c, &mut out);
    in_the_background(p, &mut out);
    picture_kind(&c, seed, &mut out);
    if let Some((s, e)) = c.complement
        && all_colours(p, s, e)
    {
        // "the sky is blue"
        let q = question(&["What color", be, &subject]);
        ask(&mut out, q, (s, e), AnswerType::Color);
    }
    out.retain(|q| !answer_inside(q) && !names_a_place(p, q));
    material(&c, &mut out);
    subordinate_clause(&c, seed, &mut out);
    out
}

/// Of "PERSON continues to keep mum as she puffs on another cigarette at the beach": the clause
/// after "as" or "while" whose subject is a pronoun standing for the sentence's subject, a person
/// agreeing with it, is what the picture shows as much as the main clause. It is read as a
/// sentence of its own with the subject's words for the pronoun ("PERSON puffs on another
/// cigarette at the beach"), and its questions join the main clause's with their answers' spans
/// taken back to the caption's words; not its yes/no (a second pair would unbalance the
/// answers) nor a question the main clause already asks.
fn subordinate_clause(c: &Clause, seed: u64, out: &mut Vec<Proposal>) {
    let p = c.p;
    let w = &p.words;
    if !c.subject_is_person() {
        return;
    }
    let Some(at) = (c.subject.1..w.len().saturating_sub(2)).find(|&i| {
        matches!(w[i].lower.as_str(), "as" | "while")
            && match w[i + 1].lower.as_str() {
                "he" | "she" => !c.plural,
                "they" => c.plural,
                _ => false,
            }
            && matches!(w[i + 2].tag, "VBZ" | "VBD" | "VBP")
    }) else {
        return;
    };
    // The clause runs to the next subordinator or the sentence's end.
    let from = at + 2;
    let to = (from + 1..w.len())
        .find(|&i| SUBORDINATORS.contains(&w[i].lower.as_str()) || w[i].text == ".")
        .unwrap_or(w.len());
    let subject = p.text(c.subject.0, c.subject.1, false);
    let clause = p.text(from, to, false);
    let read = parse(&format!("{subject} {clause}"));
    // The subject's words come first, the clause's after them, as in the caption: else the
    // spans cannot be taken back, and nothing is asked.
    let lead = match read.words.len().checked_sub(to - from) {
        Some(lead) if lead > 0 => lead,
        _ => return,
    };
    if read.words[lead..]
        .iter()
        .zip(&w[from..to])
        .any(|(a, b)| a.lower != b.lower)
    {
        return;
    }
    for q in propose(&read, seed) {
        let Some((s, e)) = q.span else { continue };
        let span = if (s, e) == (0, lead) {
            c.subject
        } else if s >= lead {
            (s - lead + from, e - lead + from)
        } else {
            continue;
        };
        if out.iter().any(|o| o.question == q.question) {
            continue;
        }
        out.push(Proposal {
            counted: q.counted,
            ..Proposal::of_span(p, q.question, span, q.answer_type)
        });
    }
}

/// Of a caption that says what kind of picture it is, or names a verbless subject: "What kind of
/// picture is this? — an animated line drawing", "Who is in the photograph? — the author", "What
/// does the diagram show? — the engine", and "Who is in the picture? — PERSON" of "PERSON with
/// his handiwork" (only when no other question asks for the subject, and only of a person or a
/// visible thing: "the outside of a building" is no answer).
fn picture_questions(c: &Clause, out: &mut Vec<Proposal>) {
    let p = c.p;
    let subject_asked = out.iter().any(|q| q.span == Some(c.subject));
    let kind = c.picture.map(|(_, _, h)| p.words[h].lower.as_str());
    // "This file photo shows …", "A handout photo of …": where a picture came from is no kind
    // one could tell by looking at it.
    let provenance = c.picture.is_some_and(|(start, end, _)| {
        p.words[start..end].iter().any(|w| {
            matches!(
                w.lower.as_str(),
                "file" | "handout" | "archive" | "undated" | "courtesy"
            )
        })
    });
    if let Some((mut start, end, _)) = c.picture.filter(|_| !provenance) {
        // "This photo shows …": the answer is "photo", not "this photo".
        if matches!(p.words[start].lower.as_str(), "this" | "these") && start + 1 < end {
            start += 1;
        }
        let q = "What kind of picture is this?".to_string();
        out.push(Proposal::of_span(p, q, (start, end), AnswerType::Object));
    }
    let shown_by = match kind {
        // "a map of the hemisphere": the subject stayed the map; what it shows follows "of".
        Some(kind) if !META.contains(&kind) => {
            // The phrase right after the picture's kind, also when the clause took it for a
            // modifier of its subject ("a map of the hemisphere centred on New Zealand").
            let start = c.picture.map_or(0, |(_, end, _)| end);
            if let Some(of) = p.chunks.iter().find(|ch| ch.start == start)
                && p.words[of.start].lower == "of"
                && let ChunkKind::Pp { np } = of.kind
                // A logo is of its owner, whose name is no answer a picture gives.
                && kind != "logo"
            {
                let span = (p.chunks[np].start, p.coordination(np).1);
                // Not "— time" of "a scatter graph of time taken to modify a list": an abstract
                // noun with a participle after it is the start of what is shown, no answer ("the
                // hemisphere centred on New Zealand" is one).
                if p.words.get(span.1).is_some_and(|w| w.tag == "VBN")
                    && !is_visible_word(&p.words[p.chunks[np].head].lower)
                {
                    return;
                }
                let q = format!("What does the {kind} show?");
                out.push(Proposal::of_span(p, q, span, AnswerType::Object));
            }
            return;
        }
        Some(kind) => kind,
        None => "picture",
    };
    if subject_asked {
        return;
    }
    if c.verb.is_some() {
        // "Memphis Grizzlies guard PERSON drives to the": a person's sentence whose verb asks
        // nothing of its subject (a lone intransitive verb) still says who is in the picture,
        // when no one else is named (who would be in it too).
        let others = (0..p.words.len())
            .filter(|i| !(c.subject.0..c.subject.1).contains(i))
            .any(|i| p.words[i].names_a_person());
        if c.picture.is_none() && c.subject_is_person() && !others {
            let q = "Who is in the picture?".to_string();
            out.push(Proposal::of_span(p, q, c.subject, AnswerType::Person));
        }
        return;
    }
    // Only of a fragment: a caption with a finite verb that the clause reader did not take
    // ("Winds from the plateaus create …", "There is growing pressure …") is a sentence whose
    // subject is no thing in the picture more often than not.
    if p.words
        .iter()
        .any(|w| matches!(w.tag, "VBZ" | "VBD" | "VBP" | "VB" | "MD"))
    {
        return;
    }
    // The subject ends where the caption does, or a phrase or a clause of it starts: not "a
    // yellow fire" of a hydrant the tagger did not know.
    let next = c.places.first().filter(|pp| pp.start == c.subject.1);
    if next.is_none()
        && p.words
            .get(c.subject.1)
            .is_some_and(|w| w.pos != Pos::Punct)
    {
        return;
    }
    // "A bin of small whale bones" is in the picture, bones and all; "the outside of a large
    // apartment building" is a part of a thing, which says less than the caption.
    let of = next.filter(|pp| p.words[pp.start].lower == "of" && kind.is_none());
    if of.is_some() && PARTS.contains(&p.words[c.head].lower.as_str()) {
        return;
    }
    let answer = match of.map(|pp| pp.kind) {
        Some(ChunkKind::Pp { np }) => (c.subject.0, p.coordination(np).1),
        _ => c.subject,
    };
    // A phrase of people and things ("PERSON, PERSON, and a Lorenz attractor") is neither a
    // who nor a what as a whole; its people are asked below.
    let mixed = p
        .chunks
        .iter()
        .filter(|ch| ch.kind == ChunkKind::Np && ch.start >= answer.0 && ch.end <= answer.1)
        .any(|ch| {
            // "his son Finn": a people noun anywhere in the phrase names a person.
            p.words[ch.start..ch.end].iter().any(Word::names_a_person) != c.subject_is_person()
        });
    // "PERSON and the Audi Prologue concept": the people, not the car, are who is in it.
    let answer = match (mixed, p.people_end(answer.0)) {
        (false, _) => answer,
        (true, Some(end)) if c.subject_is_person() => (answer.0, end),
        _ => return,
    };
    let (wh, t) = if c.subject_is_person() {
        ("Who", AnswerType::Person)
    } else if is_visible(&singular(&p.words[c.head].lower)) || c.pictured() {
        ("What", AnswerType::Object)
    } else {
        return;
    };
    out.push(Proposal::of_span(
        p,
        format!("{wh} is in the {shown_by}?"),
        answer,
        t,
    ));
}

/// "Is there an ornate school building? — yes" of a caption whose subject is a visible thing and
/// that no other yes/no question asks about (seed 002 takes "yes" and "no" as candidates of every
/// caption); of a subject that is a person or a name, the object or the first place is asked
/// instead ("PERSON faces off with a heckler" → "Is there a heckler?"), and without one the
/// person ("Are there spectators?", "Is there a person?" of "image of PERSON"); of a picture
/// that is the subject, or that the subject is, what it shows ("Is there a house?" of "This shot …
/// shows the house", "Is there a girl?" of "‘Amy’ is a computer generated image of a girl"); of
/// a screen that shows something, the screen; of a name, the thing or person it is given to ("Is
/// there a tropical storm?", "Is there a wrestler?"). Its "no" is written by the generator, of a
/// thing another caption of the stream names ([`there_is`]), so that yes and no stay balanced.
fn existence(c: &Clause, out: &mut Vec<Proposal>) {
    let p = c.p;
    // "A table showing the number of bugs" is the picture, not a table in it; but in "Line
    // drawing of an ink pen" the subject is what the picture is of.
    let of_the_picture = c.picture.is_none_or(|(_, end, _)| c.subject.0 > end);
    // (A person who "shows the strain" is no picture.)
    let depicting = c.verb.is_some_and(|(v, _)| depicts(p, &v)) && !c.subject_is_person();
    // "This shot of the cliff-top cul-de-sac shows the house …", "This image pulled from video
    // … shows interim PERSON …": what a picture that is the subject shows is there. (Another
    // subject that shows something is a picture too, or a screen: "A table showing the number
    // of bugs" is no table in a room.)
    let head = p.words[c.head].lower.as_str();
    // "‘Amy’ is a computer generated image of a girl": what a subject is a picture of is there.
    let copula = c.verb.is_some_and(|(_, form)| form == Form::Copula);
    let shown = c
        .object
        .filter(|_| depicting && names_a_picture(head))
        .map(|(s, _, h)| (s, h))
        .or_else(|| {
            let (_, end, _) = c
                .object
                .filter(|&(_, _, h)| copula && names_a_picture(&p.words[h].lower))?;
            let of = p.chunks.iter().find(|ch| ch.start == end)?;
            match of.kind {
                ChunkKind::Pp { np } if p.words[of.start].lower == "of" => {
                    Some((p.chunks[np].start, p.chunks[np].head))
                }
                _ => None,
            }
        });
    // "A TV screen in a Hong Kong restaurant shows a news report": a screen that shows something
    // is a thing in the room, not the picture.
    let screen = depicting && SCREENS.contains(&head);
    // Not "Are there members?" of "the members of Potty Mouth playing a show".
    if out.iter().any(|q| q.answer_type == AnswerType::Boolean)
        || RELATIONAL.contains(&head)
        || (shown.is_none() && !screen && (!of_the_picture || depicting))
    {
        return;
    }
    // "The outside of a large apartment building": the building is the thing.
    let subject = match (shown, c.places.first()) {
        (Some(object), _) => object,
        (None, Some(pp)) if PARTS.contains(&p.words[c.head].lower.as_str()) => match pp.kind {
            ChunkKind::Pp { np } if pp.start == c.subject.1 && p.words[pp.start].lower == "of" => {
                (p.chunks[np].start, p.chunks[np].head)
            }
            _ => return,
        },
        // "Tropical storm Andrea in the Gulf", "image of wrestler Hulk Hogan": the thing or the
        // person a name is given to, written in lower case right before it.
        _ => (
            c.subject.0,
            given_a_name(p, c.subject.0, c.head).unwrap_or(c.head),
        ),
    };
    let fallback = || {
        let object = c.object.map(|(s, _, h)| (s, h));
        // "demonstrates how to use and operate a body camera": an infinitive's object right
        // after a verb that has none.
        let infinitive = c.verb.filter(|_| c.object.is_none()).and_then(|(v, _)| {
            let mut i = v.end + usize::from(p.words.get(v.end).is_some_and(|w| w.tag == "WRB"));
            p.words.get(i).filter(|w| w.tag == "TO")?;
            p.words.get(i + 1).filter(|w| w.tag == "VB")?;
            i += 2;
            // "use and operate"
            while p.words.get(i).is_some_and(|w| w.pos == Pos::Conj)
                && p.words.get(i + 1).is_some_and(|w| w.tag == "VB")
            {
                i += 2;
            }
            // Not "a jet | of water": the quantity's thing is what is there.
            let np = p.chunks.iter().find(|ch| {
                ch.start == i
                    && ch.kind == ChunkKind::Np
                    && p.words.get(ch.end).is_none_or(|w| w.lower != "of")
            })?;
            Some((np.start, np.head))
        });
        // Only places, and where a thing comes from or what is with it ("being carried from an
        // ambulance"): "during election night" asks of no thing.
        let places = c.places.iter().filter_map(|pp| match pp.kind {
            ChunkKind::Pp { np }
                if p.is_location(pp)
                    || matches!(p.words[pp.start].lower.as_str(), "from" | "with") =>
            {
                Some((p.chunks[np].start, p.chunks[np].head))
            }
            _ => None,
        });
        // Only listed things and scenes: WordNet's physical things take in "a site", "a front"
        // and "a wardrobe mishap", which a person's caption names more often than a subject.
        object
            .into_iter()
            .chain(infinitive)
            .chain(places)
            .find(|&(_, h)| visible_thing(p, h) && is_listed_thing(&singular(&p.words[h].lower)))
    };
    let person = p.words[subject.1].names_a_person();
    // A person named by a common noun ("Spectators at the …", "a woman smiling") is asked
    // itself when nothing else can be.
    let common = |w: &super::parse::Word| {
        matches!(w.tag, "NN" | "NNS")
            && w.entity.is_none()
            && w.text.starts_with(char::is_lowercase)
    };
    let chosen = if shown.is_some() && person {
        // The person shown is asked by a common noun ("Is there a girl?") or as a person ("Is
        // there a person?"), not by name.
        common(&p.words[subject.1]).then_some(subject)
    } else if visible_thing(p, subject.1) || (subject.1 == c.head && c.pictured()) {
        Some(subject)
    } else if person {
        fallback().or_else(|| common(&p.words[subject.1]).then_some(subject))
    } else {
        None
    };
    let Some((start, head)) = chosen else {
        // "image of PERSON", "PERSON and PERSON, as seen on …": whoever the name is, the picture
        // shows a person (or people).
        if person {
            let plural = if shown.is_some() {
                p.words[subject.1].is_plural()
            } else {
                c.plural
            };
            let (thing, plural) = if plural {
                ("people", true)
            } else {
                ("person", false)
            };
            out.push(Proposal::unspanned(
                there_is(thing, plural),
                "yes",
                AnswerType::Boolean,
            ));
        }
        return;
    };
    let word = &p.words[head];
    // The head with the common words right before it: "the Apple Vision Pro headset" →
    // "headset", "Beach chairs" → "beach chairs", "black and white engraving"; names, numbers and
    // possessors say what the picture may not show.
    let keeps = |i: usize| {
        let w = &p.words[i];
        // ("The slimmer bezels of the … MacBook Pro": "Are there bezels?", not "slimmer bezels",
        // a comparison with what the picture does not show; nor "a largest engine".)
        (matches!(w.pos, Pos::Adj | Pos::Noun) || w.tag == "VBN")
            && !matches!(w.tag, "JJR" | "JJS")
            && w.entity.is_none()
            && !matches!(w.tag, "NNP" | "NNPS")
            && p.words.get(i + 1).is_none_or(|n| n.tag != "POS")
            && !p.is_named(i, i + 1)
    };
    // "a plate of pasta": the quantity is the thing ("Is there a plate of pasta?").
    let quantity = (start..head).find(|&i| {
        QUANTITY_NOUNS.contains(&p.words[i].lower.as_str()) && p.words[i + 1].lower == "of"
    });
    let mut from = quantity.unwrap_or(head);
    while from > start {
        if keeps(from - 1) {
            from -= 1;
        } else if from - 1 > start && p.words[from - 1].pos == Pos::Conj && keeps(from - 2) {
            from -= 2;
        } else {
            break;
        }
    }
    let words: Vec<&str> = (from..=head).map(|i| p.words[i].text.as_str()).collect();
    // "Is there a couple of football fans?": the quantity agrees, not the head.
    let plural = quantity.map_or(word, |q| &p.words[q]).is_plural();
    out.push(Proposal::unspanned(
        there_is(&words.join(" "), plural),
        "yes",
        AnswerType::Boolean,
    ));
}

/// The common noun in lower case right before the name that ends the phrase `start..=head`,
/// when it names a thing one could see (a listed thing, before a name of more than one word) or a
/// person: "storm" of "Tropical storm Andrea", "wrestler" of "wrestler Hulk Hogan".
fn given_a_name(p: &Parse, start: usize, head: usize) -> Option<usize> {
    let name = (start..=head)
        .rev()
        .take_while(|&i| p.is_named(i, i + 1))
        .last()?;
    let noun = name.checked_sub(1).filter(|&i| i >= start)?;
    let w = &p.words[noun];
    // Before a longer name, only a listed thing: the lexicon's physical things take in words of
    // other languages ("il motore di ricerca …", "Sitzecke braun mit …").
    let thing = if name < head {
        is_listed_thing(&singular(&w.lower))
    } else {
        visible_thing(p, noun)
    };
    (w.tag == "NN"
        && w.text.starts_with(char::is_lowercase)
        && (thing || (is_person_noun(&w.lower) && !is_kin(&w.lower))))
    .then_some(noun)
}

/// "Is this a map? — yes" and "Is this a photograph? — no" of "Map of Cleveland showing …",
/// when no other yes/no question is asked: what kind of picture it is, for the kinds whose "no"
/// is sure (a map is no logo and no photograph). A portrait, a painting or a poster may be a
/// photograph too, so they are not asked; and the "no" never names a kind the picture could
/// also be (a diagram is not asked whether it is a drawing). The "no" is picked by `seed`.
fn picture_kind(c: &Clause, seed: u64, out: &mut Vec<Proposal>) {
    let Some((_, _, h)) = c.picture else {
        return;
    };
    // "Map of …", "A diagram showing …": the caption is of the picture itself. "The Yahoo logo
    // is shown at the company's headquarters" is a photograph of a logo.
    let of_itself = match c.verb {
        None => true,
        Some((v, form)) => depicts(c.p, &v) && matches!(form, Form::Simple | Form::Progressive),
    };
    if !of_itself || out.iter().any(|q| q.answer_type == AnswerType::Boolean) {
        return;
    }
    let kind = c.p.words[h].lower.as_str();
    let others: &[&str] = match kind {
        "map" => &["photograph", "logo"],
        "logo" => &["photograph", "map"],
        "chart" | "graph" | "diagram" | "plot" | "infographic" | "drawing" | "sketch"
        | "cartoon" | "illustration" | "table" => &["photograph", "map"],
        _ => return,
    };
    let other = others[(seed as usize) % others.len()];
    yes_no(
        out,
        question(&[&with_article("Is this a", kind)]),
        question(&[&with_article("Is this a", other)]),
    );
}

/// "Is there a horse?", "Are there beach chairs?", "Is there bread?" of `thing` (singular, or
/// plural when `plural`).
pub fn there_is(thing: &str, plural: bool) -> String {
    // The noun the article goes with: "plate" of "plate of pasta".
    let before_of = thing.split(" of ").next().unwrap_or(thing);
    let head = before_of.rsplit(' ').next().unwrap_or(thing).to_lowercase();
    if plural || PLURAL_ONLY.contains(&head.as_str()) {
        question(&["Are there", thing])
    } else if is_mass(&head) {
        question(&["Is there", thing])
    } else {
        question(&[&with_article("Is there a", thing)])
    }
}

/// Whether a singular lower-case noun is one of [`MASS_NOUNS`]: counted in no "how many".
pub fn is_mass(noun: &str) -> bool {
    MASS_NOUNS.contains(&noun)
}

/// Words that say which shade of the colour after them a thing is: "dark blue", "crimson red".
const SHADES: [&str; 12] = [
    "dark", "light", "bright", "pale", "deep", "crimson", "navy", "royal", "sky", "hot", "neon",
    "pastel",
];

/// Nouns of one thing in the plural's form: "Are there glasses?", not "Is there a glasses?".
const PLURAL_ONLY: [&str; 10] = [
    "glasses",
    "sunglasses",
    "eyeglasses",
    "scissors",
    "jeans",
    "trousers",
    "pants",
    "shorts",
    "binoculars",
    "tongs",
];

/// Nouns a caption uses without an article: "Is there bread?", not "Is there a bread?".
const MASS_NOUNS: [&str; 39] = [
    "food",
    "bread",
    "dough",
    "flour",
    "sugar",
    "butter",
    "honey",
    "yeast",
    "pork",
    "beef",
    "bacon",
    "soup",
    "pasta",
    "rice",
    "meat",
    "cheese",
    "sauce",
    "salad",
    "broccoli",
    "water",
    "grass",
    "snow",
    "sand",
    "ice",
    "smoke",
    "fog",
    "traffic",
    "coffee",
    "tea",
    "milk",
    "juice",
    "wine",
    "beer",
    "furniture",
    "luggage",
    "equipment",
    "paper",
    "hair",
    "baleen",
];

/// Nouns for a part or side of a thing: "the outside of a building" is no answer to "what is in
/// the picture?".
const PARTS: [&str; 14] = [
    "outside", "inside", "top", "bottom", "side", "front", "back", "edge", "end", "interior",
    "exterior", "part", "corner", "detail",
];

/// Nouns that place a thing in the picture's frame, not in the world: "in the foreground", "in
/// the top right corner".
const FRAME: [&str; 11] = [
    "foreground",
    "background",
    "corner",
    "distance",
    "left",
    "right",
    "middle",
    "center",
    "centre",
    "top",
    "bottom",
];

/// Of a prepositional phrase, a "with" phrase whose thing the next phrase places in the frame
/// ("with the Hollywood sign in the background", "with a lake in the foreground"): the chunk
/// indexes of the thing's noun phrase and of that place's phrase. The thing is the scene's, not
/// had by what comes before.
fn with_in_the_frame(p: &Parse, with: &Chunk) -> Option<(usize, usize)> {
    let ChunkKind::Pp { np } = with.kind else {
        return None;
    };
    if p.words[with.start].lower != "with" {
        return None;
    }
    let (last, _) = p.coordination(np);
    let frame = last + 1;
    let place = p.chunks.get(frame)?;
    (p.words[place.start].lower == "in" && in_the_frame(p, place)).then_some((np, frame))
}

/// "What is in the background? — a EU flag": a thing a "with" phrase places in the frame
/// ([`with_in_the_frame`]), asked by that place (not a definite name, "the Hollywood sign").
fn in_the_background(p: &Parse, out: &mut Vec<Proposal>) {
    for chunk in &p.chunks {
        let Some((np, frame)) = with_in_the_frame(p, chunk) else {
            continue;
        };
        let thing = p.chunks[np];
        let (_, end) = p.coordination(np);
        // "a EU flag" is a flag; "the Hollywood sign" is a name.
        let definite_name = p.words[thing.start].lower == "the" && p.is_named(thing.start, end);
        if !visible_thing(p, thing.head) || definite_name {
            continue;
        }
        let place = p.chunks[frame];
        let q = question(&["What is", &p.text(place.start, place.end, false)]);
        out.push(Proposal::of_span(
            p,
            q,
            (thing.start, end),
            AnswerType::Object,
        ));
    }
}

/// Whether the prepositional phrase `pp` places its thing in the frame ([`FRAME`]).
fn in_the_frame(p: &Parse, pp: &Chunk) -> bool {
    let ChunkKind::Pp { np } = pp.kind else {
        return false;
    };
    FRAME.contains(&p.words[p.chunks[np].head].lower.as_str())
}

/// Whether the verb group `v`'s verb is one of [`DEPICTING`], in any form ("showing", "depicts"),
/// without a particle ("shows off her curves" is what a person does).
fn depicts(p: &Parse, v: &Chunk) -> bool {
    let verb = p.words[v.head].lower.as_str();
    let particle = p.words.get(v.head + 1).is_some_and(|w| w.tag == "RP");
    !particle && DEPICTING.iter().any(|lemma| inflects(verb, lemma))
}

/// Whether a non-boolean answer is printed inside its own question.
fn answer_inside(q: &Proposal) -> bool {
    if q.answer_type == AnswerType::Boolean {
        return false;
    }
    let question = q.question.to_lowercase();
    let question = question.trim_end_matches('?');
    let answer = q.answer.to_lowercase();
    // Whole words only: "a man" inside "Who is talking to a man?" gives the answer away, "man"
    // inside "the woman" does not.
    // Every occurrence, overlapping ones too ("a a" in "ba a a").
    let bytes = question.as_bytes();
    let mut from = 0;
    while let Some(found) = question[from..].find(&answer) {
        let (at, end) = (from + found, from + found + answer.len());
        if (at == 0 || bytes[at - 1] == b' ') && (end == bytes.len() || bytes[end] == b' ') {
            return true;
        }
        match question[at..].chars().next() {
            Some(c) => from = at + c.len_utf8(),
            None => return false,
        }
    }
    false
}

/// The noun phrase containing word `i` (its chunk).
fn np_of(p: &Parse, i: usize) -> Option<&Chunk> {
    p.chunks
        .iter()
        .find(|c| c.kind == ChunkKind::Np && c.start <= i && i < c.end)
}

/// Colour and count questions, for every noun phrase with a colour or a number, and their yes/no
/// pairs.
fn colors_and_counts(p: &Parse, clause: Option<&Clause>, seed: u64, out: &mut Vec<Proposal>) {
    let w = &p.words;
    let mut i = 0;
    let mut yes_no_done = false;
    while i < w.len() {
        let Some(np) = np_of(p, i).copied() else {
            i += 1;
            continue;
        };
        // The colour run inside the phrase ("black and white"); not of a name ("the White
        // House", "Green Channel", "Navy Lt. PERSON" first in a caption).
        let capital = |k: usize| {
            w.get(k)
                .is_some_and(|x| x.text.starts_with(char::is_uppercase))
        };
        let named = capital(i) && (i > 0 || capital(i + 1));
        // "a white dwarf star", "a black hole": the colour word names a kind, not a colour.
        let kind = w
            .get(i + 1)
            .is_some_and(|n| COLOR_KINDS.contains(&&*singular(&n.lower)));
        // "a black person", "two white people": a person's colour is no question to ask of a
        // picture (clothes are: "a man in a blue shirt").
        let person = is_person_noun(&w[np.head].lower);
        if is_color(&w[i].lower) && i < np.head && !named && !kind && !person {
            let mut end = i + 1;
            while end + 1 < np.head && w[end].pos == Pos::Conj && is_color(&w[end + 1].lower) {
                end += 2;
            }
            // "crimson red", "dark blue": the shade is the colour's ("What color is the potted
            // crimson Bougainvillea? — red" left it in the thing).
            let start = if i > np.start && SHADES.contains(&w[i - 1].lower.as_str()) {
                i - 1
            } else {
                i
            };
            let plural = w[np.head].is_plural();
            let be = if plural { "are" } else { "is" };
            let thing = described(p, &np, (start, end));
            out.push(Proposal {
                question: question(&["What color", be, &thing]),
                answer: p.text(start, end, true),
                span: Some((start, end)),
                answer_type: AnswerType::Color,
                counted: None,
            });
            if !yes_no_done && end == i + 1 {
                let other = other_color(&w[i].lower, seed);
                let be_cap = if plural { "Are" } else { "Is" };
                let shade: Vec<&str> = w[start..end].iter().map(|x| x.lower.as_str()).collect();
                yes_no(
                    out,
                    question(&[be_cap, &thing, &shade.join(" ")]),
                    question(&[be_cap, &thing, other]),
                );
                yes_no_done = true;
            }
            i = end;
            continue;
        }
        if w[i].pos == Pos::Num
            && i < np.head
            && let Some(digits) = as_digits(&w[i].lower)
            && digits != "1"
            && is_counted(p, &np, i, &digits)
        {
            let noun_words = p.text(i + 1, np.head + 1, false);
            let noun = singular(&w[np.head].lower);
            // A subject count keeps its predicate: "How many dogs are playing in the snow?"
            let tail = clause.and_then(|c| count_predicate(c, &np));
            // "Four people are in conversation, while a woman looks out …": the picture has more
            // people than the count, when the caption names others; only its predicate's
            // count holds ("Two men and a woman": the woman is no man).
            let others = matches!(&*noun, "people" | "person" | "individual")
                && (0..w.len())
                    .filter(|&k| !(np.start..np.end).contains(&k))
                    .any(|k| w[k].names_a_person());
            if tail.is_none() && others {
                i += 1;
                continue;
            }
            // Nor "Are there four people?" of them, which asks of the whole picture too.
            yes_no_done |= others;
            let q = match tail {
                Some(t) => question(&["How many", &noun_words, "are", &t]),
                None => question(&["How many", &noun_words, "are there"]),
            };
            out.push(Proposal {
                question: q,
                answer: digits.clone(),
                span: Some((i, i + 1)),
                answer_type: AnswerType::Count,
                counted: Some(noun.into_owned()),
            });
            if !yes_no_done {
                let n: u32 = digits.parse().unwrap_or(2);
                let other = if seed.is_multiple_of(2) || n <= 2 {
                    n + 1
                } else {
                    n - 1
                };
                yes_no(
                    out,
                    question(&["Are there", &w[i].lower, &noun_words]),
                    question(&["Are there", &other.to_string(), &noun_words]),
                );
                yes_no_done = true;
            }
        }
        i += 1;
    }
}

/// Whether the number `digits` counts the things of `np`: not a year or model year
/// ("2020 Mitsubishi Mirage"), not beyond what one counts in a picture, and not of a name ("the
/// Worlds 2023 finals") or a unit of time or measure ("50 years").
fn is_counted(p: &Parse, np: &Chunk, at: usize, digits: &str) -> bool {
    let head = &p.words[np.head];
    let name = matches!(head.tag, "NNP" | "NNPS")
        || (np.head > 0 && head.text.starts_with(char::is_uppercase) && head.entity.is_none());
    // "sony playstation 4 white controller", "gate 4 passengers": a number right after a noun
    // is that thing's number or model, not a count of what follows.
    let numbered = at > 0 && p.words[at - 1].pos == Pos::Noun;
    // "the Forty Dean Street restaurant": a capitalised number before a capitalised word opens
    // a name.
    let in_name = at > 0
        && p.words[at].text.starts_with(char::is_uppercase)
        && p.words
            .get(at + 1)
            .is_some_and(|w| w.text.starts_with(char::is_uppercase));
    // "his 147 clearance": more than one of a singular noun after a possessor is no count ("five
    // sheep" is: a noun may be plural without an "-s").
    let possessed = at > 0 && matches!(p.words[at - 1].tag, "PRP$" | "POS");
    // "about 18 people", "more than 20 people", "at least 12 dead", "up to 30 boats": a rounded
    // number or a bound is no count to ask for, nor to deny by one.
    let rounded = at > 0
        && (APPROXIMATELY.contains(&p.words[at - 1].lower.as_str())
            || ROUNDERS.contains(&p.words[at - 1].lower.as_str())
            || (p.words[at - 1].lower == "to" && at >= 2 && p.words[at - 2].lower == "up"));
    // "100 mph wind gusts", "20 km of road": a unit after the number measures, it does not count.
    let measured = p
        .words
        .get(at + 1)
        .is_some_and(|u| at + 1 < np.head && UNITS.contains(&&*singular(&u.lower)));
    digits
        .parse::<u32>()
        .is_ok_and(|n| n < 1000 && (n <= 1 || head.is_plural() || !possessed))
        && !name
        && !numbered
        && !in_name
        && !rounded
        && !measured
        && !UNITS.contains(&&*singular(&head.lower))
}

/// Nouns after which a colour word names a kind of thing, not its colour: "a white dwarf", "a
/// black hole", "white wine". ("Red tape" stays: in a picture it is a red tape.)
const COLOR_KINDS: [&str; 7] = ["dwarf", "giant", "hole", "collar", "wine", "tea", "goods"];

/// Objects that make an idiom with their verb, not a thing acted on: "make their way", "take
/// part", "pay respects", "takes time out", "gets a look at", "shows the strain".
const IDIOM_OBJECTS: [&str; 17] = [
    "way",
    "part",
    "place",
    "turn",
    "respect",
    "attention",
    "advantage",
    "care",
    "note",
    "effect",
    "time",
    "look",
    "trend",
    "strain",
    "mind",
    "aim",
    "breath",
];

/// A verb and its object that make an idiom only together: "cuts a sexy figure" (but "flaunts
/// her figure" shows one), "strikes a pose", "pulls a face", "makes a statement" (in a dress),
/// "shows the strain", "finding his legs" (a player settling in).
const VERB_IDIOMS: [(&str, &str); 7] = [
    ("cut", "figure"),
    ("find", "leg"),
    ("find", "foot"),
    ("strike", "pose"),
    ("pull", "face"),
    ("make", "statement"),
    ("show", "strain"),
];

/// A verb and its object that make an idiom one can see done: "Who stands guard?", "Where does
/// the policeman stand guard?" are asked, "Who does the policeman stand? — guard" is not. So is
/// an occasion held: "Where does PERSON hold a cabinet meeting?", not "What does PERSON hold? — a
/// cabinet meeting" (nothing in the hands).
const SEEN_IDIOMS: [(&str, &str); 9] = [
    ("stand", "guard"),
    ("stand", "watch"),
    ("keep", "watch"),
    ("hold", "meeting"),
    ("hold", "conference"),
    ("hold", "briefing"),
    ("hold", "rally"),
    ("hold", "vigil"),
    ("hold", "talk"),
];

/// Words before a number that round it or bound it ("more than 20", "at least 12", "some 300"),
/// besides the prepositions that do ([`APPROXIMATELY`]).
const ROUNDERS: [&str; 6] = [
    "than",
    "least",
    "roughly",
    "approximately",
    "some",
    "estimated",
];

/// Nouns of time and measure, never counted in a picture.
const UNITS: [&str; 25] = [
    "year",
    "month",
    "week",
    "day",
    "hour",
    "minute",
    "second",
    "time",
    "percent",
    "mile",
    "kilometer",
    "km",
    "meter",
    "metre",
    "foot",
    "inch",
    "pound",
    "kilogram",
    "dollar",
    "euro",
    "degree",
    "point",
    "mph",
    "kph",
    "cm",
];

/// Whether a proposal's answer is a place or thing by its proper name ("at PERSON National
/// Airport", "Pittsburgh", "the Supreme Court"): a name a photograph cannot show. A thing's name
/// opening the sentence that shows it as a thing ([`is_a_named_thing_shown`]: "What is made of
/// LEGOs? — a life-size Volvo XC90") is what the picture is of, as "a Delta Airlines Embraer 175"
/// is; later in the sentence it may be a shop's or a prize's ("at a Verizon Communications Inc.
/// store").
fn names_a_place(p: &Parse, q: &Proposal) -> bool {
    let Some((start, end)) = q.span else {
        return false;
    };
    if !matches!(q.answer_type, AnswerType::Object | AnswerType::Location) || end == 0 {
        return false;
    }
    if q.answer_type == AnswerType::Object && start == 0 && is_a_named_thing_shown(p, start, end) {
        return false;
    }
    // "the Snoopy balloon" is a balloon; "Apple's headquarters" and "Pittsburgh" are names.
    let possessed =
        (start..end).any(|i| p.words[i].tag == "POS" && i > start && p.is_named(i - 1, i));
    // "Google headquarters", "Kandahar province", "Seminole circuit court": a proper noun before
    // a kind of place names which one, and the picture shows only the kind.
    let head = end - 1;
    let kind = &p.words[head].lower;
    let named_kind = (PLACE_KINDS.contains(&kind.as_str())
        || PLACE_KINDS.contains(&&*singular(kind)))
        && (start..head).any(|i| matches!(p.words[i].tag, "NNP" | "NNPS") && p.is_named(i, i + 1));
    p.is_named(end - 1, end) || possessed || named_kind
}

/// A colour that is not `color` nor a name of it ("gray" for "grey").
fn other_color(color: &str, seed: u64) -> &'static str {
    let same = |c: &str| {
        c == color
            || matches!(
                (c, color),
                ("gray", "grey") | ("grey", "gray") | ("gold", "golden") | ("golden", "gold")
            )
    };
    let options: Vec<&'static str> = COLORS.iter().copied().filter(|c| !same(c)).collect();
    options[(seed as usize) % options.len()]
}

/// "the bus" for "a red bus" with the colour at `skip`: the phrase made definite, the colour left
/// out.
fn described(p: &Parse, np: &Chunk, skip: (usize, usize)) -> String {
    let w = &p.words;
    let mut rest = String::new();
    for (j, word) in w.iter().enumerate().take(np.end).skip(np.start) {
        if (skip.0..skip.1).contains(&j) || (word.pos == Pos::Det && word.tag != "PRP$") {
            continue;
        }
        // A possessive's "'s" joins its owner, as [`Parse::text`] writes it ("Ava's backpack").
        if !rest.is_empty() && word.pos != Pos::Possessive {
            rest.push(' ');
        }
        rest.push_str(&word.text);
    }
    if w[np.start].tag == "PRP$" || w[np.head].entity.is_some() {
        rest
    } else {
        format!("the {rest}")
    }
}

/// For a counted subject with a progressive or place predicate, the predicate after "are".
fn count_predicate(c: &Clause, np: &Chunk) -> Option<String> {
    let p = c.p;
    if c.subject.0 != np.start || c.subject.1 != np.end {
        return None;
    }
    match c.verb {
        Some((v, Form::Progressive | Form::Passive)) => Some(
            format!("{} {}", c.verb_words(&v), c.rest(true, None))
                .trim()
                .to_string(),
        ),
        None if !c.places.is_empty() && c.places.iter().all(|pp| p.is_location(pp)) => {
            Some(c.rest(false, None))
        }
        _ => None,
    }
}

fn yes_no(out: &mut Vec<Proposal>, yes: String, no: String) {
    for (q, a) in [(yes, "yes"), (no, "no")] {
        out.push(Proposal::unspanned(q, a, AnswerType::Boolean));
    }
}

/// Whether the head noun `h` of a noun phrase starting at `start` can be swapped for another of
/// its kind and still name a thing: not inside a compound ("a top hat" → "a top shirt", "sand
/// bags" → "sand dresses", "a mobile phone" → "a mobile keyboard"). The word before it must be
/// a determiner, a number, a possessive, a colour or a plain adjective of size or age.
fn swappable(p: &Parse, start: usize, h: usize) -> bool {
    // "the America's Cup" is a name, not a cup to swap for a glass.
    if h > 0 && p.words[h].text.starts_with(char::is_uppercase) {
        return false;
    }
    if h == start {
        return true;
    }
    let before = &p.words[h - 1];
    matches!(before.pos, Pos::Det | Pos::Num)
        || matches!(before.tag, "PRP$" | "POS")
        || is_color(&before.lower)
        || PLAIN_ADJECTIVES.contains(&before.lower.as_str())
}

/// Adjectives that never make a compound with the noun after them.
const PLAIN_ADJECTIVES: [&str; 12] = [
    "big", "small", "large", "little", "young", "old", "tall", "long", "short", "wooden", "empty",
    "new",
];

/// A yes/no pair about the clause when colours and counts gave none: "Is the man riding a horse
/// on a dirt road?", and the same with a noun swapped for another of its kind: the object's, else
/// the subject's, else the place's.
fn yes_no_clause(c: &Clause, seed: u64, aux: &str, verb: &str, out: &mut Vec<Proposal>) {
    if out.iter().any(|q| q.answer_type == AnswerType::Boolean) {
        return;
    }
    let p = c.p;
    let avoid: Vec<String> = p
        .words
        .iter()
        .map(|w| singular(&w.lower).into_owned())
        .collect();
    let aux_cap = question(&[aux]).trim_end_matches('?').to_string();
    let subject = c.subject_definite();
    let object = c.object.map(|(s, e, _)| c.words(s, e)).unwrap_or_default();
    // Named places stay out of yes/no questions: "in New York City" is no more visible to a
    // yes than to a wh-question (and a swap would write "New York field"); so does the place of
    // a named container ("in a Ford van on a road": not "Is the family sitting on a road?").
    let named = |k: usize| p.is_named(c.places[k].start, c.places[k].end);
    let places: Vec<&Chunk> = c
        .places
        .iter()
        .enumerate()
        .filter(|&(k, pp)| {
            p.is_location(pp) && !named(k) && !(k > 0 && named(k - 1) && c.places_a_container(k))
        })
        .map(|(_, pp)| pp)
        .collect();
    let place_words = |swap: Option<(usize, &str)>| -> String {
        places
            .iter()
            .map(|pp| match swap {
                Some((h, other)) if pp.start <= h && h < pp.end => format!(
                    "{} {}",
                    with_article(&c.words(pp.start, h), other),
                    c.words(h + 1, pp.end)
                ),
                _ => c.words(pp.start, pp.end),
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    if object.is_empty() && places.is_empty() && (verb.is_empty() || c.lacks_its_object()) {
        return;
    }
    // "A life-size car made of LEGOs": "Is the life-size car made?" asks nothing without what
    // it is made of.
    if object.is_empty()
        && places.is_empty()
        && matches!(c.verb, Some((_, Form::Passive)))
        && matches!(verb.rsplit(' ').next(), Some("made" | "built" | "carved"))
    {
        return;
    }
    let yes = question(&[&aux_cap, &subject, verb, &object, &place_words(None)]);
    let inflect = |word: &crate::qgen::parse::Word, other: &str| {
        if word.is_plural() {
            plural(other)
        } else {
            other.to_string()
        }
    };
    // The object's noun.
    if let Some((s, e, h)) = c.object
        && h + 1 == e
        && swappable(p, s, h)
        && let Some(other) = swap_noun(&singular(&p.words[h].lower), &avoid, seed)
    {
        let swapped = with_article(&c.words(s, h), &inflect(&p.words[h], other));
        let no = question(&[&aux_cap, &subject, verb, &swapped, &place_words(None)]);
        return yes_no(out, yes, no);
    }
    // The subject's, when it is one noun ("the man", not "a man in a suit"), no name's ("Jeb
    // Bush" is no bush to swap for a rock) and not inside a compound: "the magnifying glass" is
    // no "magnifying mug", "the coconut cake" no "coconut salad" (an adjective stays: "the Hindu
    // women", "the Hindu men"). An "-ing" word before a thing names its kind ("a dining table");
    // before a person it says what they do ("the smiling woman", "the smiling man").
    let person = is_person_noun(&p.words[c.head].lower);
    let compound = c.head > c.subject.0
        && (p.words[c.head - 1].pos == Pos::Noun
            || (p.words[c.head - 1].lower.ends_with("ing") && !person));
    // Nor a person's sex when a pronoun tells it: "the Middle Eastern man in his twenties".
    let gendered = person
        && p.words
            .iter()
            .any(|w| matches!(w.lower.as_str(), "his" | "her" | "he" | "she" | "him"));
    if c.subject.1 == c.head + 1
        && p.words[c.head].entity.is_none()
        && !p.is_named(c.head, c.head + 1)
        && !compound
        && !gendered
        && let Some(other) = swap_noun(&singular(&p.words[c.head].lower), &avoid, seed)
    {
        // Only the head changes: "the bunch of bananas" → "the bunch of sandwiches", which keeps
        // the subject's agreement with the auxiliary.
        let other = format!(
            "{} {}",
            c.definite(c.subject.0, c.head)
                .trim_end_matches(" the")
                .trim(),
            inflect(&p.words[c.head], other)
        );
        let other = if other.starts_with("the ") {
            other
        } else {
            format!("the {other}")
        };
        let no = question(&[&aux_cap, &other, verb, &object, &place_words(None)]);
        return yes_no(out, yes, no);
    }
    // A place's.
    for pp in &places {
        let ChunkKind::Pp { np } = pp.kind else {
            continue;
        };
        let h = p.chunks[np].head;
        if p.chunks[np].end == h + 1
            && swappable(p, p.chunks[np].start, h)
            && let Some(other) = swap_noun(&singular(&p.words[h].lower), &avoid, seed)
        {
            let other = inflect(&p.words[h], other);
            let no = question(&[
                &aux_cap,
                &subject,
                verb,
                &object,
                &place_words(Some((h, &other))),
            ]);
            return yes_no(out, yes, no);
        }
    }
    // A person's or an animal's posture or motion, with its contrary: "Is PERSON standing? —
    // yes", "Is PERSON sitting? — no" of "PERSON stands, arms crossed" (VQA's most common yes/no
    // of people), when nothing else could be swapped.
    if let Some((v, form)) = c.verb
        && c.object.is_none()
        && v.end == v.head + 1
        && (c.subject_is_person() || is_animal(&singular(&p.words[c.head].lower)))
        && matches!(form, Form::Simple | Form::Progressive)
        && let Some(last) = verb.rsplit(' ').next()
        && let Some(&(_, ing, contrary)) = CONTRARIES
            .iter()
            .find(|(lemma, ing, _)| last == *lemma || last == *ing)
    {
        let past = p.words[v.start..v.end].iter().any(|w| w.tag == "VBD");
        let be = match (past, c.plural) {
            (false, false) => "Is",
            (false, true) => "Are",
            (true, false) => "Was",
            (true, true) => "Were",
        };
        // "Is PERSON leaving at a rally?", "Are the people sitting down a busy street?" read
        // wrong: a place goes only with a posture or an expression, not with a motion.
        let places = if matches!(ing, "arriving" | "walking" | "running") {
            String::new()
        } else {
            place_words(None)
        };
        let yes = question(&[be, &subject, ing, &places]);
        let no = question(&[be, &subject, contrary, &places]);
        yes_no(out, yes, no);
    }
}

/// Postures and motions (lemma, "-ing" form) and a contrary no picture shows at once.
const CONTRARIES: [(&str, &str, &str); 9] = [
    ("stand", "standing", "sitting"),
    ("sit", "sitting", "standing"),
    ("lie", "lying", "standing"),
    ("kneel", "kneeling", "standing"),
    ("walk", "walking", "sitting"),
    ("run", "running", "sitting"),
    ("smile", "smiling", "crying"),
    ("laugh", "laughing", "crying"),
    ("arrive", "arriving", "leaving"),
];

/// `before` and `noun` joined, the article at the end of `before` made to fit the noun after a
/// swap ("at a" + "office" → "at an office", "an" + "pear"... → "a pear").
fn with_article(before: &str, noun: &str) -> String {
    // By sound: "a uniform", "a one-way street", "an hour".
    let vowel = (noun.starts_with(['a', 'e', 'i', 'o', 'u'])
        && !["uni", "use", "usu", "uti", "eu", "one", "once"]
            .iter()
            .any(|p| noun.starts_with(p)))
        || ["hour", "honest", "heir"]
            .iter()
            .any(|p| noun.starts_with(p));
    let article = if vowel { "an" } else { "a" };
    match before.rsplit_once(' ') {
        Some((head, "a" | "an")) => format!("{head} {article} {noun}"),
        None if matches!(before, "a" | "an") => format!("{article} {noun}"),
        _ => format!("{before} {noun}").trim().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::*;

    fn qa(caption: &str) -> Vec<(String, String)> {
        propose(&parse(caption), 3)
            .into_iter()
            .map(|q| (q.question, q.answer))
            .collect()
    }

    fn has(caption: &str, question: &str, answer: &str) {
        let all = qa(caption);
        assert!(
            all.iter().any(|(q, a)| q == question && a == answer),
            "{caption}: no ({question}, {answer}) in {all:#?}"
        );
    }

    #[test]
    fn a_with_phrase_of_one_s_own_pose_is_no_place_nor_instrument() {
        // Each was asked by stop 70's rules.
        let caption = "A woman smiles with her hand below her chin.";
        not_asked(caption, &|(q, _)| q == "Where does the woman smile?");
        not_asked(caption, &|(q, _)| q == "What does the woman smile with?");
        has(caption, "What does the woman do?", "smiles");
        let caption = "PERSON poses with tinsel in her hair.";
        not_asked(caption, &|(_, a)| a.contains("her hair"));
        has(caption, "What does PERSON pose with?", "tinsel");
        let caption = "A man smiles with green, blue and pink surrounding him.";
        not_asked(caption, &|(q, _)| q == "What does the man smile with?");
        assert!(
            qa(caption).iter().all(|(q, _)| !q.contains(" , ")),
            "{:#?}",
            qa(caption)
        );
        not_asked(
            "A woman standing in front of an orange background with her eyes closed",
            &|(q, _)| q == "Who is standing in front of an orange background with her eyes?",
        );
        // "with one hand on her hip": no instrument, "her" or not.
        not_asked("A woman stands with one hand on her hip", &|(_, a)| {
            a.contains("hand")
        });
        // A thing done with, a companion, a held thing a participle describes: the phrases stay
        // the verb's.
        has(
            "A protester stands with a sign reading No war",
            "What does the protester stand with?",
            "a sign",
        );
        has(
            "A man cuts a cake with a knife at a party",
            "Where does the man cut a cake?",
            "at a party",
        );
        let caption = "A man walks with his dog in the park";
        has(caption, "Where does the man walk?", "in the park");
        has(caption, "What does the man walk with?", "his dog");
    }

    #[test]
    fn a_shape_people_stand_in_is_no_place() {
        // Stop 77's rules asked "Where is Dark Dark Dark standing? — in a group" and "What is
        // Dark Dark Dark standing in? — a group".
        let caption = "Musicians standing in a group and looking at the camera";
        not_asked(caption, &|(_, a)| a.contains("group"));
        not_asked("Shoppers wait in line outside the store", &|(_, a)| {
            a.contains("line")
        });
        // A group looked at is what is looked at; a line one stands at is a place.
        has(
            "Tourists look at a group of statues",
            "What do the tourists look at?",
            "a group of statues",
        );
        has(
            "Young relay runner at the starting line.",
            "Where is the young relay runner?",
            "at the starting line",
        );
    }

    #[test]
    fn a_shade_is_the_colour_s_and_a_grip_no_place() {
        // Stop 77 asked "What color is the potted crimson Bougainvillea? — red".
        let caption = "potted crimson red Bougainvillea at a Disney Resort";
        has(
            caption,
            "What color is the potted Bougainvillea?",
            "crimson red",
        );
        has(caption, "Is the potted Bougainvillea crimson red?", "yes");
        let shirt = "A man in a dark blue shirt sits by the window";
        has(shirt, "What color is the shirt?", "dark blue");
        // Stop 77 asked "Where does Fireman Coyle grab Sylvie? — by the scuff".
        let caption = "Fireman Coyle grabs Sylvie by the scruff of the neck";
        not_asked(caption, &|(_, a)| a.contains("scruff"));
        not_asked("A mother leads her son by the hand", &|(_, a)| {
            a.contains("hand")
        });
        // A window one sits by is a place.
        has(shirt, "Where does the man sit?", "by the window");
    }

    #[test]
    fn people_a_participle_describes_the_agencies_seen_and_figures_of_speech() {
        // Stop 78 asked nothing of "a group of smiling children sitting on a bench" (it read
        // "smiling" as the verb), and only "Is there a man?" of "A man is seen walking …".
        let caption = "a group of smiling children sitting on a bench";
        has(
            caption,
            "Who is sitting on a bench?",
            "a group of smiling children",
        );
        has(
            "two smiling children sitting on a bench",
            "How many smiling children are sitting on a bench?",
            "2",
        );
        // (The reading makes "A man is seen walking his dog in the park" this.)
        let caption = &crate::qgen::caption::read("A man is seen walking his dog in the park").text;
        has(caption, "What is the man walking?", "his dog");
        has(caption, "Where is the man walking his dog?", "in the park");
        // Stop 78 asked "What is Minnesotan PERSON finding? — his legs", "What does US PERSON
        // hold? — a cabinet meeting" and "Where does the jogger get? — in his morning workout".
        let caption = "Minnesotan PERSON finding his legs in Buffalo";
        not_asked(caption, &|(_, a)| a.contains("legs"));
        let caption = "US PERSON holds a cabinet meeting at the White House";
        not_asked(caption, &|(q, _)| q == "What does US PERSON hold?");
        has(caption, "Who holds a cabinet meeting?", "US PERSON");
        let caption = "A jogger gets in his morning workout along the river";
        not_asked(caption, &|(_, a)| {
            a.contains("workout") && !a.contains("jogger")
        });
        // A car one gets in is a place; a ball one holds is held.
        has(
            "A woman gets in the car outside the hotel",
            "Where does the woman get?",
            "in the car",
        );
        has("A boy holds a ball", "What does the boy hold?", "a ball");
        // Stop 78 asked "Are there slimmer bezels?": a comparison is not what one sees.
        has(
            "The slimmer bezels of the new laptop",
            "Are there bezels?",
            "yes",
        );
        not_asked("The slimmer bezels of the new laptop", &|(q, _)| {
            q.contains("slimmer")
        });
    }

    #[test]
    fn a_plural_thing_and_a_food_take_no_article() {
        // Stop 77 asked "Is there a glasses?", "Is there a honey?", "Is there a bread dough?".
        assert_eq!(there_is("glasses", false), "Are there glasses?");
        assert_eq!(there_is("honey", false), "Is there honey?");
        assert_eq!(there_is("bread dough", false), "Is there bread dough?");
        assert_eq!(there_is("dog", false), "Is there a dog?");
    }

    #[test]
    fn a_distance_is_no_object() {
        // Stop 70's code asked "What is the humpback whale breaching? — 9 miles west".
        let caption = "A humpback whale breaching nine miles west of Point Loma.";
        not_asked(caption, &|(q, _)| {
            q == "What is the humpback whale breaching?"
        });
        not_asked(caption, &|(q, a)| {
            q.contains("miles") || a.contains("miles")
        });
        has(caption, "What is the humpback whale doing?", "breaching");
        has(caption, "What is breaching?", "a humpback whale");
        // Feet and yards that are no distance stay objects.
        has(
            "A woman dips her feet in the pool",
            "Where does the woman dip her feet?",
            "in the pool",
        );
    }

    #[test]
    fn a_collage_is_where_its_figures_are_not() {
        let caption = "A collage of two figures in a standoff.";
        not_asked(caption, &|(q, _)| q == "Where is the collage?");
        has(caption, "What does the collage show?", "2 figures");
    }

    #[test]
    fn a_head_coach_is_no_verb() {
        let caption = "Commanders head coach PERSON walks to the field during training camp.";
        not_asked(caption, &|(q, _)| q == "Who heads coach PERSON?");
        not_asked(caption, &|(q, _)| q == "Who do the commanders head?");
        has(
            caption,
            "Who walks to the field?",
            "commanders head coach PERSON",
        );
    }

    #[test]
    fn titles_before_one_name_are_one_person() {
        // The verb in the singular says the joined titles are one person's.
        has(
            "Democratic presidential candidate and former New York City mayor PERSON speaks at a campaign event",
            "What does the democratic presidential candidate and former New York City mayor PERSON do?",
            "speaks",
        );
        // Two people stay two, and a dish of two things takes "do".
        has(
            "A man and a woman walk on a beach",
            "Who walks on a beach?",
            "a man and a woman",
        );
        has(
            "A man and a woman walk on a beach",
            "What do the man and the woman do?",
            "walk",
        );
        has(
            "Pie and mash comes with the traditional parsley liquor.",
            "What do the pie and the mash come with?",
            "the traditional parsley liquor",
        );
    }

    #[test]
    fn an_occasion_is_where_not_what() {
        let caption = "Republican presidential nominee PERSON speaks at a rally";
        has(
            caption,
            "Where does republican presidential nominee PERSON speak?",
            "at a rally",
        );
        let all = qa(caption);
        assert!(
            all.iter()
                .all(|(q, _)| !q.starts_with("What does") || !q.ends_with(" at?")),
            "{all:#?}"
        );
        // A thing one speaks at is still asked.
        has(
            "PERSON speaks at a microphone",
            "What does PERSON speak at?",
            "a microphone",
        );
    }

    #[test]
    fn one_s_own_body_is_not_had() {
        let all = qa("A woman with her hands on her abdomen");
        assert!(all.iter().all(|(q, _)| !q.ends_with("have?")), "{all:#?}");
        has(
            "A ewe with her two lambs",
            "What does the ewe have?",
            "her 2 lambs",
        );
        // Another's, or no one's, are had.
        has(
            "A cat with green eyes",
            "What does the cat have?",
            "green eyes",
        );
    }

    #[test]
    fn after_a_thing_s_place_with_is_the_place_s() {
        for caption in [
            "Raw Quinoa in a glass canister with a scoop",
            "An oil rig in the middle of a field with brown grass",
        ] {
            not_asked(caption, &|(q, _)| q.ends_with(" have?"));
        }
        not_asked("A bench next to a lake with ducks", &|(q, _)| {
            q.ends_with(" have?")
        });
        // A person's or an animal's is theirs, a thing's with no place before it the thing's,
        // and a time is no place.
        has(
            "A man on a bench with his dog",
            "What does the man have?",
            "his dog",
        );
        has(
            "A dog on the beach with a stick",
            "What does the dog have?",
            "a stick",
        );
        has(
            "A lake in the morning with a wooden pier",
            "What does the lake have?",
            "a wooden pier",
        );
        has(
            "A canister with a scoop on a shelf",
            "What does the canister have?",
            "a scoop",
        );
    }

    #[test]
    fn an_abstract_noun_before_a_participle_is_not_what_a_graph_shows() {
        let all = qa("Scatter graph of time taken to modify a list by map and for");
        assert!(
            all.iter().all(|(q, _)| q != "What does the graph show?"),
            "{all:#?}"
        );
        has(
            "A map of the hemisphere centred on New Zealand, using an orthographic projection.",
            "What does the map show?",
            "the hemisphere",
        );
    }

    #[test]
    fn a_prepared_dish_is_described_not_acting() {
        has(
            "Chocolate cake topped with berries on a white plate",
            "What is the chocolate cake topped with?",
            "berries",
        );
        let all = qa("Pork and prawn Jambalaya served in a cast iron pan");
        assert!(all.iter().all(|(q, _)| !q.contains(" did ")), "{all:#?}");
        has(
            "Pork and prawn Jambalaya served in a cast iron pan",
            "Where are the pork and prawn Jambalaya served?",
            "in a cast iron pan",
        );
        // Not a noun inside a phrase: the muffins are counted, not "sprinkled".
        has(
            "12 healthy apple muffins on wire cooling rack with coarse sugar sprinkled on top of each.",
            "How many healthy apple muffins are there?",
            "12",
        );
    }

    #[test]
    fn people_travel_after_what_they_wear() {
        has(
            "People wearing face masks travel on a train in Tokyo on Tuesday.",
            "What are the people wearing?",
            "face masks",
        );
        has(
            "People wearing face masks travel on a train in Tokyo on Tuesday.",
            "Where do the people travel?",
            "on a train",
        );
    }

    #[test]
    fn a_picture_of_something_and_a_conversation_are_no_places() {
        // The place after what an icon or a logo is of is its content's: the icon is the frame.
        for caption in [
            "Icon of a globe with a connected network symbol inside a rounded square",
            "Logo of a bird with a red circle inside a square",
        ] {
            not_asked(caption, &|(q, _)| {
                q.starts_with("Where is the") || q.ends_with(" inside?")
            });
        }
        has("A map on the wall", "Where is the map?", "on the wall");
        has(
            "A map of Europe on the wall",
            "Where is the map?",
            "on the wall",
        );
        // What people are in together is no place.
        let cafe = "Four people are in conversation outside a cafe.";
        not_asked(cafe, &|(_, a)| a.contains("conversation"));
        has(cafe, "Where are the people?", "outside a cafe");
    }

    #[test]
    fn people_counted_with_others_named_are_not_all_of_them() {
        let cafe = "Four people are in conversation outside a cafe, while a woman looks on.";
        not_asked(cafe, &|(q, _)| {
            q == "How many people are there?" || q.starts_with("Are there four")
        });
        // A count with its predicate holds; the bare yes/no does not.
        let bench = "Four people sitting on a bench as a woman walks past.";
        not_asked(bench, &|(q, _)| q.starts_with("Are there four"));
        // A woman is no man, and a count without others stands.
        has(
            "Two men and a woman sit on a bench.",
            "How many men are there?",
            "2",
        );
        has(
            "Three people wait at a bus stop.",
            "How many people are there?",
            "3",
        );
    }

    #[test]
    fn verbs_the_tagger_read_otherwise() {
        // A plural subject takes no "-s" verb: "shields" is the object of "carry" (it was read
        // "What shields past tourists? — riot police carry").
        let police = "Riot police carry shields past tourists in central Paris.";
        has(police, "Who carries shields past tourists?", "riot police");
        not_asked(police, &|(q, _)| q.starts_with("What shields"));
        // "past" before a bare plural is a preposition: the riot police carry no tourists.
        has(police, "What do the riot police carry?", "shields");
        not_asked(police, &|(q, a)| {
            q.starts_with("Who do the riot police carry") || a == "shields past tourists"
        });
        // People gone past are no place ("Where …? — past tourists" was labelled so).
        not_asked(police, &|(q, _)| q.starts_with("Where"));
        has(
            "A man walks past the house.",
            "Where does the man walk?",
            "past the house",
        );
        // But a singular subject's "-s" verb after a noun stays the verb.
        has(
            "A police officer holds an image of PERSON at a news conference.",
            "What does the police officer hold?",
            "an image",
        );
        // A people's name acts: "cheer" is its verb, not a compound's noun ("What is the
        // Canadians cheer at?").
        has(
            "Canadians cheer at the rink",
            "Who cheers at the rink?",
            "Canadians",
        );
        // "flicking off" is a verb and its particle.
        let off = "A woman flicking off photographers outside the courthouse.";
        has(
            off,
            "What is the woman doing?",
            "flicking off photographers",
        );
        not_asked(off, &|(_, a)| a == "flicking");
    }

    #[test]
    fn an_answer_inside_its_question_is_whole_words() {
        let inside = |question: &str, answer: &str| {
            answer_inside(&Proposal {
                question: question.into(),
                answer: answer.into(),
                span: Some((0, 1)),
                answer_type: AnswerType::Object,
                counted: None,
            })
        };
        assert!(inside("Who is talking to a man?", "a man"));
        assert!(inside("Who is talking to A Man?", "a man"));
        assert!(!inside("Who is talking to the woman?", "man"));
        assert!(!inside("Who is talking to a manager?", "a man"));
        // An occurrence overlapping one that is no whole word.
        assert!(inside("Is ba a a?", "a a"));
    }

    #[test]
    fn web_captions_of_the_sixth_and_seventh_sets() {
        // What a sign says is no part of the sign.
        let sign = "A man holds up a sign reading \"Protect women's sports\" outside the court.";
        has(sign, "What does the man hold up?", "a sign");
        not_asked(sign, &|(q, a)| {
            q.contains("reading") || a.contains("reading")
        });
        // A bound or a unit is no count.
        not_asked(
            "More than 20 people gather outside the court.",
            &|(_, a)| a == "20",
        );
        not_asked("A model forecasts 100 mph wind gusts.", &|(q, a)| {
            a == "100" || q.starts_with("Are there")
        });
        // What a "with" phrase places in the frame is the scene's, not had.
        let flag = "microphones with a EU flag in the background";
        has(flag, "What is in the background?", "a EU flag");
        not_asked(flag, &|(q, _)| q.contains("have"));
        not_asked(
            "PERSON gestures at a microphone with the Hollywood sign in the background.",
            &|(q, a)| q.contains("background") || a.contains("background"),
        );
        // A verb that takes an infinitive, without it; one that needs an object, without one.
        not_asked(
            "A seal pup seems to be in deep thought as it rests its chin on its paw.",
            &|(q, _)| q.starts_with("What seems"),
        );
        let green = "an illustration of a woman wearing green";
        not_asked(green, &|(q, _)| q.ends_with("wearing?"));
        // No swap inside a compound.
        not_asked(
            "A magnifying glass is held over a marijuana bud.",
            &|(q, a)| a == "no" && q.contains("magnifying") && !q.contains("magnifying glass"),
        );
        // "including" is no activity; an age and a colour are no places.
        not_asked(
            "a painting of a landscape with bright colors, including a red sky and yellow hills",
            &|(_, a)| a.starts_with("including"),
        );
        not_asked("An array of pencil crayons in rainbow hues", &|(_, a)| {
            a.contains("hues")
        });
        not_asked(
            "Abed, a Middle Eastern man in his twenties, looks startled.",
            &|(_, a)| a.contains("twenties"),
        );
        // "close up" written apart; modifiers coordinated before a compound; a member of a band.
        has(
            "a close up view of a couple of Moscow mules served in traditional copper mugs",
            "What is served in traditional copper mugs?",
            "a couple of Moscow mules",
        );
        has(
            "Coconut cake on a wood and marble cake stand",
            "Where is the coconut cake?",
            "on a wood and marble cake stand",
        );
        // A camera's angle looking at a thing shows the thing; a hyphenated garment closes the
        // participle's phrase before the sentence's verb.
        has(
            "mid angle looking at a glass of margarita garnished with lime slices",
            "What is the glass of margarita garnished with?",
            "lime slices",
        );
        has(
            "Four women dressed in athletic-wear stand on an outdoor basketball court.",
            "Who stands on an outdoor basketball court?",
            "4 women",
        );
        let band = "the members of Potty Mouth playing a show";
        has(band, "Who is playing a show?", "the members of Potty Mouth");
        not_asked(band, &|(q, _)| q == "Are there members?");
    }

    #[test]
    fn a_particles_object_a_named_companion_and_the_picture_itself() {
        // "off" before a participle's phrase is the verb's particle.
        let caption = "PERSON shows off matching ponytails";
        has(caption, "What does PERSON show off?", "matching ponytails");
        has(
            caption,
            "What does PERSON do?",
            "shows off matching ponytails",
        );
        not_asked(caption, &|(_, a)| a == "shows");
        // A name coordinated with a person is asked "who" of.
        has(
            "Ireland Baldwin and her cousin PERSON go to a salon",
            "Who goes to a salon?",
            "Ireland Baldwin and her cousin PERSON",
        );
        // Going is to somewhere: no "What do they do? — go". A light verb, or one of looking,
        // is what its phrase makes it.
        for caption in [
            "Ireland Baldwin and her cousin PERSON go to Rare Salon",
            "A jogger gets in his morning workout along Memorial Drive",
            "An Apple employee looks over a new iPhone 5 at a store",
        ] {
            not_asked(caption, &|(q, a)| q.ends_with(" do?") && !a.contains(' '));
        }
        // With its particle, a light verb is an activity.
        has("A plane takes off", "What does the plane do?", "takes off");
        // A name is no noun to swap.
        not_asked(
            "Former Fla Gov Jeb Bush speaks at the Hispanic Leadership Network conference, in \
             PERSON, Fla",
            &|(q, _)| q.contains("Jeb") && !q.contains("Bush"),
        );
        // A name after a person's title is a person's.
        has(
            "Sen Rand Paul speaks at a rally",
            "Who speaks at a rally?",
            "Sen Rand Paul",
        );
        // A person who shows the strain is no picture showing something: the person is there.
        has("PERSON shows the strain", "Is there a person?", "yes");
        // A participle's "off" is a particle too, and a quantity agrees with "there is".
        let fans = "A couple of football fans showing off their rings at the game";
        has(
            fans,
            "What is the couple of football fans showing off?",
            "their rings",
        );
        has(fans, "Is there a couple of football fans?", "yes");
        // An artist's view is a picture's kind; a name's epithet is no thing.
        let eagle = "An artist's rendition of a Haast's eagle attacking two moa";
        has(
            eagle,
            "What kind of picture is this?",
            "an artist's rendition",
        );
        has(eagle, "What is the Haast's eagle attacking?", "2 moa");
        not_asked("Artist's impression of Nasutoceratops titusi", &|(q, _)| {
            q.contains("titusi")
        });
        // "this image" is the picture, not what the telescope made.
        not_asked(
            "The telescope produced this stunning image of the Horsehead Nebula",
            &|(_, a)| a.contains("image"),
        );
        has(
            "The telescope produced a stunning image of the nebula",
            "What did the telescope produce?",
            "a stunning image",
        );
    }

    #[test]
    fn a_copulas_places_after_its_adjective_are_asked() {
        for (question, answer) in [
            ("Where is the boy?", "on the beach"),
            ("Who is on the beach?", "the boy"),
            ("Is the boy happy on the beach?", "yes"),
        ] {
            has("The boy is happy on the beach", question, answer);
        }
        // Not past an adverb, nor after a verb of looking.
        let all = qa("The city's acropolis is barely visible during a cloudy day on the plains");
        assert!(
            all.iter().all(|(q, _)| !q.contains("barely during")),
            "{all:#?}"
        );
        let all = qa("The woman looked delighted on the beach");
        assert!(all.iter().all(|(q, _)| !q.starts_with("Where")), "{all:#?}");
    }

    #[test]
    fn a_can_that_holds_things_is_a_thing() {
        has(
            "A cyclist carrying a watering can during a race",
            "What is the cyclist carrying?",
            "a watering can",
        );
        has(
            "A man holding a can of beer",
            "What is the man holding?",
            "a can",
        );
        // The modal stays a modal.
        let all = qa("A dog can jump over a fence");
        assert!(all.iter().all(|(_, a)| !a.contains("can")), "{all:#?}");
    }

    #[test]
    fn people_the_lexicon_reads_otherwise_are_people() {
        // People by a noun the lexicon reads as an adjective, or by a collective noun.
        has(
            "Stranded migrant reacts in front of a police cordon",
            "Who reacts in front of a police cordon?",
            "migrant",
        );
        has(
            "Iraqi security personnel inspect the site of a bomb attack",
            "Who inspects the site of a bomb attack?",
            "Iraqi security personnel",
        );
    }

    #[test]
    fn examples_places_before_the_clause_particles_and_things_made() {
        // The example's thing is asked of, as a photo's is.
        has(
            "An example of a rendered maze.",
            "Is there a rendered maze?",
            "yes",
        );
        has(
            "In a laboratory, the researchers work on a quantum computer.",
            "Who works on a quantum computer?",
            "the researchers",
        );
        // A particle before a preposition is the verb's.
        has(
            "Little Kai peered over at his newborn brother",
            "Who did Little Kai peer over at?",
            "his newborn brother",
        );
        // Not "Is the life-size car made? — yes": what it is made of is the question.
        let made = qa("A life-size car made of LEGOs.");
        assert!(
            made.iter().all(|(q, _)| !q.ends_with(" made?")),
            "{made:#?}"
        );
        has(
            "A life-size car made of LEGOs.",
            "What is made of LEGOs?",
            "a life-size car",
        );
    }

    /// Some question of `caption` has `answer`, whatever it asks.
    fn answered(caption: &str, answer: &str) {
        let all = qa(caption);
        assert!(
            all.iter().any(|(_, a)| a == answer),
            "{caption}: no answer {answer:?} in {all:#?}"
        );
    }

    /// No question and answer of `caption` is `what`.
    fn not_asked(caption: &str, what: &dyn Fn(&(String, String)) -> bool) {
        let all = qa(caption);
        assert!(!all.iter().any(what), "{caption}: {all:#?}");
    }

    #[test]
    fn vehicles_move_and_people_chat() {
        // The lexicon's plural noun after a vehicle is its motion, not part of its name: not
        // "Where are the plane lands?" nor "What is at an airport? — a plane lands".
        has(
            "A plane lands at an airport",
            "Where does the plane land?",
            "at an airport",
        );
        has(
            "A plane lands at an airport",
            "What does the plane do?",
            "lands",
        );
        not_asked("A plane lands at an airport", &|(q, a)| {
            q.contains("plane lands") || a.contains("plane lands")
        });
        has(
            "A Delta Airlines Embraer 175 lands at San Francisco International Airport",
            "What does the Delta Airlines Embraer 175 do?",
            "lands",
        );
        // A thing by its name that moves as no vehicle does is not asked what it does.
        not_asked(
            "An AMBER Alert went out to cellphones in New York",
            &|(q, _)| q.ends_with(" do?"),
        );
        // Places where cars park are no cars parking.
        not_asked("Car parks in London", &|(q, _)| q.contains("car park "));
        // "chat" doubles its consonant in the past ("chatted"); "converse" is a verb first.
        has(
            "Comedian Jerry Seinfeld chats with former Mets reliever John Franco",
            "Who does Comedian Jerry Seinfeld chat with?",
            "former Mets reliever John Franco",
        );
        has(
            "Musk converses with US Senator Dianne Feinstein beside a red Tesla",
            "Who does Musk converse with?",
            "US Senator Dianne Feinstein",
        );
    }

    #[test]
    fn police_are_many_a_son_is_a_person_and_a_title_names_a_logo() {
        // "police" takes a plural verb: "detain" is its verb, not a noun of the subject.
        let police = "Police detain protestors in central Moscow";
        has(police, "What do the police detain?", "protestors");
        has(police, "Are there police?", "yes");
        // A son by his name is company, not a thing one has.
        has(
            "Hannah and Des Smyth with their son Cooper",
            "Who are Hannah and Des Smyth with?",
            "their son Cooper",
        );
        // A capitalised preposition inside a title is the title's, not a phrase of its own.
        has("The Morning After logo", "Is this a logo?", "yes");
    }

    #[test]
    fn company_after_a_place_what_a_thing_is_made_of_and_how_one_looks() {
        let walk = "A man walks down the street with his daughter";
        has(walk, "Who is the man with?", "his daughter");
        // The daughter is the man's, not the woman's company.
        not_asked("A woman talks to a man with his daughter", &|(q, _)| {
            q == "Who is the woman with?"
        });
        // Of a person only: "What is the car with?" asks nothing.
        not_asked("A car parked on the street with a dog", &|(q, _)| {
            q.ends_with(" with?")
        });
        // In the clause after "as", whose pronoun is the subject.
        has(
            "Exhausted PERSON shows the strain as he takes his mind off things on pizza date \
             with his girlfriend",
            "Who is Exhausted PERSON with?",
            "his girlfriend",
        );
        has("A house made of wood", "What is the house made of?", "wood");
        // The places after the material are the thing's, not where it was made.
        let sculpture = "A sculpture made of ice on a table";
        has(sculpture, "What is the sculpture made of?", "ice");
        has(sculpture, "Where is the sculpture?", "on a table");
        has(sculpture, "Is the sculpture on a table?", "yes");
        not_asked(sculpture, &|(q, _)| q.contains(" made on"));
        // An adjective completes a verb of looking as it does a copula.
        let boy = "The boy looks happy on the beach";
        has(boy, "Does the boy look happy?", "yes");
        not_asked(boy, &|(q, _)| q == "Does the boy look?");
        has("The girls seem happy", "Who seems happy?", "the girls");
        // The participle the chunker joins to the verb is its adjective, and no activity.
        let players = "The players looked tired";
        has(players, "Who looked tired?", "the players");
        // "look" after a plural is the verb, which the tagger read as a noun.
        has("The players look tired", "Who looks tired?", "the players");
        not_asked(players, &|(_, a)| a == "looked");
        has("PERSON appeared relaxed", "Who appeared relaxed?", "PERSON");
        // What one looks or points at completes the activity, and is where one looks.
        let looks_at = "A woman looking at a painting in a museum";
        has(
            looks_at,
            "What is the woman doing?",
            "looking at a painting",
        );
        has(looks_at, "Where is the woman looking?", "at a painting");
        not_asked("A boy pointing at a plane in the sky", &|(q, _)| {
            q == "What is the boy pointing in?"
        });
        has(
            "A boy points at a plane",
            "What does the boy do?",
            "points at a plane",
        );
        // A material by its brand's name is what one sees.
        has(
            "A life-size Volvo XC90 made of LEGOs.",
            "What is the life-size Volvo XC90 made of?",
            "LEGOs",
        );
    }

    #[test]
    fn a_table_that_shows_and_a_picture_of_a_thing_are_the_picture() {
        let table = "A table showing the total number of remaining bugs for the MVP";
        has(table, "What kind of picture is this?", "a table");
        has(table, "Is this a table?", "yes");
        not_asked("A table set for dinner in a garden", &|(q, _)| {
            q == "What kind of picture is this?"
        });
        // A concept image's thing is in it, listed among things one sees or not.
        let concept = "Concept image of a cloud question mark";
        has(concept, "What is in the picture?", "a cloud question mark");
        has(concept, "Is there a cloud question mark?", "yes");
        // A thing by its name opening the sentence that makes it a thing is no place's name.
        has(
            "A life-size Volvo XC90 made of LEGOs.",
            "What is made of LEGOs?",
            "a life-size Volvo XC90",
        );
    }

    #[test]
    fn a_named_model_and_a_folder_are_asked_of() {
        has(
            "A Delta Airlines Embraer 175 lands at San Francisco International Airport",
            "What lands at San Francisco International Airport?",
            "a Delta Airlines Embraer 175",
        );
        has(
            "Illustrated folder with papers and a circle in it",
            "Is there an illustrated folder?",
            "yes",
        );
        has(
            "Samsung Electronics' Galaxy S4 and Apple's iPhone 5 are seen in this picture",
            "Where are Samsung Electronics' Galaxy S4 and Apple's iPhone 5 seen?",
            "in this picture",
        );
    }

    #[test]
    fn a_visible_subject_is_asked_whether_it_is_there() {
        has(
            "Beach chairs on the North Sea",
            "Are there beach chairs?",
            "yes",
        );
        has(
            "An ornate school building",
            "Is there an ornate school building?",
            "yes",
        );
        // Names and possessors are left out, conjoined colours kept, the article by sound.
        has(
            "The Apple Vision Pro headset on display",
            "Is there a headset?",
            "yes",
        );
        has(
            "Black and white engraving",
            "Is there a black and white engraving?",
            "yes",
        );
        has("A uniform", "Is there a uniform?", "yes");
        has(
            "A plate of pasta with tomato sauce",
            "Is there a plate of pasta?",
            "yes",
        );
        has("Fresh bread", "Is there fresh bread?", "yes");
        has(
            "The outside of a large apartment building",
            "Is there a large apartment building?",
            "yes",
        );
        // Of a person, the thing or place the caption names with them.
        has("PERSON on stage", "Is there a stage?", "yes");
        // Of a person with nothing else to ask, the person: by the common noun, else as a person
        // (these had one or two Q/A).
        has("image of PERSON", "Is there a person?", "yes");
        has("PERSON in a crowd of fans", "Is there a person?", "yes");
        has(
            "PERSON and PERSON, as seen on the front pages of local newspapers",
            "Are there people?",
            "yes",
        );
        has(
            "Spectators at the so-called Scopes monkey trial",
            "Are there spectators?",
            "yes",
        );
        // What a picture that is the subject shows, a person as a person; the thing a name is
        // given to (these had one or two Q/A).
        has(
            "This shot of the cliff-top cul-de-sac shows the house at the end",
            "Is there a house?",
            "yes",
        );
        has(
            "This image pulled from video broadcast on state TV shows interim PERSON making his \
             first address",
            "Is there a person?",
            "yes",
        );
        has(
            "Tropical storm Andrea in the Gulf",
            "Is there a tropical storm?",
            "yes",
        );
        // Stop 55 (each had two Q/A, one of them the zero count): the person a longer name is
        // given to, a screen that shows something, a thing barely visible during a day.
        has(
            "A 2012 image of wrestler Hulk Hogan",
            "Is there a wrestler?",
            "yes",
        );
        has(
            "A TV screen in a Hong Kong restaurant shows a news report on PERSON.",
            "Is there a screen?",
            "yes",
        );
        let acropolis =
            "The city’s acropolis is barely visible during a cloudy day on the Thessalian plains.";
        has(acropolis, "What is barely visible?", "the city’s acropolis");
        has(acropolis, "Is there an acropolis?", "yes");
        // What a subject in quotes is a picture of, a person by the common noun (had one Q/A:
        // the closing quote was taken for the subject's head).
        has(
            "‘Amy’ is a computer generated image of a girl made by RTE’s graphics design \
             department.",
            "Is there a girl?",
            "yes",
        );
        // Before a longer name, a word the lexicon knows only as some physical thing is no
        // thing named: the caption is in another language.
        not_asked("il motore di ricerca di Unito.it", &|(q, _)| {
            q == "Is there an il?"
        });
        // Kin say whose someone is, which the picture does not show.
        not_asked(
            "PERSON's daughter Anja wore a tiny tutu as the two arrived home",
            &|(q, _)| q == "Is there a daughter?",
        );
        // Not of a picture's kind, nor when another yes/no question is asked.
        for caption in [
            "A map of the hemisphere",
            "A table showing the number of bugs",
            "a man riding a horse on a dirt road",
        ] {
            assert!(
                !qa(caption)
                    .iter()
                    .any(|(q, _)| q.starts_with("Is there") || q.starts_with("Are there")),
                "{caption}: {:#?}",
                qa(caption)
            );
        }
    }

    #[test]
    fn standing_guard_stands_no_guard() {
        let all = qa("A policeman stands guard behind a barbed wire fence");
        assert!(
            all.iter().all(|(_, a)| a != "guard"),
            "the idiom's noun is no answer: {all:#?}"
        );
        has(
            "A policeman stands guard behind a barbed wire fence",
            "Who stands guard behind a barbed wire fence?",
            "a policeman",
        );
        has(
            "A policeman stands guard behind a barbed wire fence",
            "Where does the policeman stand guard?",
            "behind a barbed wire fence",
        );
    }

    #[test]
    fn people_by_their_trade_are_who_does_it() {
        // WordNet's person nouns (data/lexicon/en-person-nouns.txt): was "What carries water?".
        has(
            "A villager carries water from a well",
            "Who carries water?",
            "a villager",
        );
        has(
            "Gun control campaigners protest in a square",
            "Who protests in a square?",
            "gun control campaigners",
        );
        // A whale is no person, whatever WordNet's first sense ("a very large person") says.
        has(
            "A whale leaps out of the water",
            "What leaps out of the water?",
            "a whale",
        );
    }

    #[test]
    fn a_round_number_of_people_is_who_does_it() {
        // Was "What gathers for a rally? — thousands".
        has(
            "Thousands of protesters gather for a rally",
            "Who gathers for a rally?",
            "thousands of protesters",
        );
        has(
            "Hundreds of lanterns float on the river",
            "What floats on the river?",
            "hundreds of lanterns",
        );
    }

    #[test]
    fn fragments_with_a_participle() {
        let c = "a man riding a horse on a dirt road";
        has(c, "What is the man riding?", "a horse");
        has(c, "Who is riding a horse on a dirt road?", "a man");
        has(c, "What is the man doing?", "riding a horse");
        has(c, "Where is the man riding a horse?", "on a dirt road");
        has(c, "What is the man riding a horse on?", "a dirt road");
        has(c, "Is the man riding a horse on a dirt road?", "yes");
    }

    #[test]
    fn colours_counts_and_agreement() {
        has(
            "two dogs are playing in the snow",
            "How many dogs are playing in the snow?",
            "2",
        );
        has(
            "two dogs are playing in the snow",
            "Where are the dogs playing?",
            "in the snow",
        );
        has(
            "a red double decker bus parked on the street",
            "What color is the double decker bus?",
            "red",
        );
        has(
            "a black and white cat sleeping on a couch",
            "What color is the cat?",
            "black and white",
        );
        has(
            "three brown horses in a field",
            "How many brown horses are in a field?",
            "3",
        );
    }

    #[test]
    fn do_support_for_simple_tenses() {
        has(
            "a dog catches a frisbee in the park",
            "What does the dog catch?",
            "a frisbee",
        );
        has(
            "the cat sat on the mat",
            "Where did the cat sit?",
            "on the mat",
        );
        // Swaps keep the article right and the subject's agreement.
        let all = qa("PERSON and his wife at a restaurant");
        assert!(
            all.iter().any(|(q, a)| a == "no" && q.contains(" at an ")),
            "{all:#?}"
        );
        let all = qa("a bunch of bananas on a table");
        let no = all.iter().find(|(_, a)| a == "no").unwrap();
        assert!(no.0.starts_with("Is the bunch of "), "{no:?}");
        // "at a ball" is aimed at, not a place.
        let all = qa("a baseball player swings a bat at a ball");
        assert!(all.iter().all(|(q, _)| !q.starts_with("Where")), "{all:#?}");
        // Weather and occasions are no places either; the street still is.
        let all = qa("people walk in the rain through a square");
        assert!(all.iter().all(|(_, a)| a != "in the rain"), "{all:#?}");
        let all = qa("a man participates in an interview");
        assert!(all.iter().all(|(q, _)| !q.starts_with("Where")), "{all:#?}");
    }

    #[test]
    fn verbless_captions_and_people() {
        has("a cat on a bed", "Where is the cat?", "on a bed");
        has(
            "a woman with a hat and a bag",
            "What does the woman have?",
            "a hat and a bag",
        );
        has(
            "PERSON speaking at an event",
            "Who is speaking at an event?",
            "PERSON",
        );
        has(
            "a photo of a young woman holding an umbrella",
            "What is the young woman holding?",
            "an umbrella",
        );
    }

    /// Real alt texts of the second judged set (scripts/qgen_real.py): a colour word that names a
    /// kind, a measure read as a place, a model number read as a count, a bare intransitive verb.
    #[test]
    fn kinds_measures_model_numbers_and_bare_verbs_are_not_asked() {
        not_asked(
            "Accretion of a giant planet onto a white dwarf star",
            &|(q, _)| q.starts_with("What color") || q.contains("white?"),
        );
        not_asked("A long white tube about 10 feet in diameter", &|(_, a)| {
            a.contains("diameter")
        });
        has(
            "A long white tube about 10 feet in diameter",
            "What color is the long tube?",
            "white",
        );
        not_asked(
            "sony playstation 4 white controller and console in the background apple tv",
            &|(q, _)| q.starts_with("How many") || q.starts_with("Are there"),
        );
        has("two dogs catch a frisbee", "How many dogs are there?", "2");
        not_asked(
            "PERSON stands, arms crossed and grinning, before a Tesla Model S",
            &|(q, _)| q == "Who stands?",
        );
        not_asked(
            "Navy Lt. PERSON is flanked by his father and his coach",
            &|(q, _)| q.to_lowercase().contains("navy?"),
        );
        not_asked(
            "The shadow of a demonstrator is cast on a Brazilian flag",
            &|(q, a)| q.ends_with("doing?") && a == "cast",
        );
        not_asked(
            "An upper \"why\" loop connected to a lower “how” loop by a human and a robot.",
            &|(q, _)| q == "What is connected?",
        );
        has(
            "PERSON speaks to a crowd of journalists",
            "Who speaks to a crowd of journalists?",
            "PERSON",
        );
        has(
            "PERSON eats at a cookie truck in New York",
            "Who eats at a cookie truck?",
            "PERSON",
        );
        has(
            "PERSON meets with a senator in the Oval Office of the White House",
            "Who meets with a senator?",
            "PERSON",
        );
        // A count whose only place is a name is asked without one, not "How many … are?".
        not_asked("3 active court cases against the NSA", &|(q, _)| {
            q.ends_with(" are?")
        });
    }

    /// Web captions the lexicon misreads: verbs taken for nouns after people and coordinated
    /// names, a compound's noun taken for a verb, a fragment's "being" passive, a name's
    /// possessive, a passive's agent taken for a place, and a verb whose complement is cut off.
    #[test]
    fn what_a_verbs_preposition_governs_is_asked() {
        has(
            "PERSON participates in an interview with a reporter",
            "What does PERSON participate in?",
            "an interview",
        );
        has(
            "A woman talking on the phone",
            "What is the woman talking on?",
            "the phone",
        );
        has(
            "PERSON and PERSON pose for photographers",
            "Who do PERSON and PERSON pose for?",
            "photographers",
        );
        // A time, a name or a place asked as a place is no such object.
        not_asked("A man walks at night", &|(q, _)| q.ends_with("at?"));
        not_asked("PERSON speaks to Reuters", &|(q, _)| q.ends_with("to?"));
        // A place is asked once, as a place, not again as what the verb governs.
        let on = qa("A dog sleeps on a couch")
            .into_iter()
            .filter(|(q, _)| q.ends_with("on?"))
            .count();
        assert_eq!(on, 1);
        // The filter's person is nowhere to stand: "in the PERSON of the White House".
        not_asked(
            "PERSON speaks in the PERSON of the White House",
            &|(q, _)| q.starts_with("Where"),
        );
    }

    #[test]
    fn a_named_place_of_a_common_kind_is_no_answer() {
        for caption in [
            "Afghan men investigate the site in Kandahar province",
            "PERSON arrives in Seminole circuit court for a hearing",
            "A sign is seen at Google headquarters",
        ] {
            not_asked(caption, &|(q, _)| q.starts_with("Where"));
        }
        // A kind of place without a name stays.
        has(
            "PERSON arrives at the circuit court",
            "Where does PERSON arrive?",
            "at the circuit court",
        );
    }

    #[test]
    fn garments_and_stars_are_no_places_nor_things() {
        not_asked("PERSON shimmers in champagne frock", &|(q, _)| {
            q.starts_with("Where")
        });
        not_asked("The Cougar Town star stopped by the grill", &|(q, _)| {
            q == "Is there a star?"
        });
        has(
            "PERSON parades her legs in tiny cutoffs",
            "What is PERSON wearing?",
            "tiny cutoffs",
        );
    }

    #[test]
    fn a_posture_is_asked_with_its_contrary() {
        has(
            "PERSON stands, arms crossed, before a Tesla",
            "Is PERSON standing?",
            "yes",
        );
        has(
            "PERSON stands, arms crossed, before a Tesla",
            "Is PERSON sitting?",
            "no",
        );
        has("PERSON smiling at the camera", "Is PERSON crying?", "no");
        has("PERSON arrives at a rally", "Is PERSON leaving?", "no");
        has(
            "PERSON walking down a busy street",
            "Is PERSON sitting?",
            "no",
        );
        // Not of a verb with an object: "Is PERSON standing a…".
        not_asked("PERSON walks her dog", &|(q, _)| q.contains("sitting"));
    }

    #[test]
    fn a_particle_ending_the_caption_is_read() {
        // Each panicked once the particle check looked for a noun phrase past the last word.
        for caption in ["Thumbs up", "Thumbs down", "Scroll down"] {
            qa(caption);
        }
    }

    #[test]
    fn phrasal_verbs_and_company_are_read_whole() {
        has(
            "PERSON shows off her juggling skills",
            "What does PERSON do?",
            "shows off her juggling skills",
        );
        // "off" of a verb that takes no such particle is a preposition.
        not_asked("A boy jumps off the boat", &|(_, a)| {
            a.contains("jumps off")
        });
        has(
            "PERSON and his son with manager PERSON",
            "Who are PERSON and his son with?",
            "manager PERSON",
        );
        has(
            "Palestinian girls take part in a ballet course",
            "What do the Palestinian girls take part in?",
            "a ballet course",
        );
        not_asked(
            "Palestinian girls take part in a ballet course",
            &|(q, _)| q.starts_with("Where"),
        );
        not_asked("PERSON gets an up-close look at bryophytes", &|(q, _)| {
            q.starts_with("Where")
        });
        has(
            "A laborer tends to a field",
            "Who tends to a field?",
            "a laborer",
        );
        has(
            "A laborer tends to a field",
            "What does the laborer do?",
            "tends to a field",
        );
    }

    #[test]
    fn an_infinitive_is_the_rest_of_a_subjects_question() {
        has(
            "Volunteers work to pull weeds during the rodeo",
            "Who works to pull weeds?",
            "volunteers",
        );
    }

    #[test]
    fn a_time_is_no_part_of_a_subjects_question() {
        // Before, "Who sports some unsightly sweat patches on a night? — PERSON".
        has(
            "PERSON sports some unsightly sweat patches on a night out in Hollywood",
            "Who sports some unsightly sweat patches?",
            "PERSON",
        );
        has(
            "PERSON lies in her hospital bed on the 100th day of her stay",
            "Who lies in her hospital bed?",
            "PERSON",
        );
    }

    #[test]
    fn irregular_verbs_adverbs_and_linking_verbs() {
        // "hides" has no "hided" in the lexicon: it was read as a noun ("Are there hides?"), and
        // "his famously handsome face" was no phrase.
        has(
            "PERSON hides his famously handsome face in a grizzly beard",
            "What does PERSON hide?",
            "his famously handsome face",
        );
        not_asked(
            "One Tree Hill star PERSON hides his famously handsome face",
            &|(q, _)| q.contains("hides?"),
        );
        // "stays" is no activity: before, "What does PERSON do? — stays".
        not_asked("PERSON stays in tip-top shape by working out", &|(q, _)| {
            q.ends_with(" do?") || q.starts_with("Where")
        });
    }

    #[test]
    fn what_a_speech_is_about_is_no_place_nor_thing() {
        // Before: "Where does PERSON speak? — on immigration reform", "What does PERSON speak
        // on? — immigration reform".
        let speaks = "PERSON speaks on immigration reform at The White House";
        has(speaks, "Who speaks at The White House?", "PERSON");
        not_asked(speaks, &|(q, a)| {
            q.contains("speak on") || a.contains("immigration") || q.contains("immigration")
        });
        // A speech as the object, and the phrase that belongs to its topic.
        not_asked(
            "US PERSON delivers remarks on the Hamas terrorist attacks in Israel",
            &|(q, a)| q.starts_with("Where") || q.ends_with(" on?") || a.contains("Israel"),
        );
        not_asked(
            "Gase talks about Tannehill's injury and the win over Cardinals",
            &|(q, _)| q.contains("Cardinals") || q.contains("about?"),
        );
        // The scene after the topic stays; a thing one talks on is no topic.
        has(
            "A man speaks about climate change at a rally in Paris",
            "Where does the man speak?",
            "at a rally",
        );
        has(
            "A woman talks on the phone in a cafe",
            "What does the woman talk on?",
            "the phone",
        );
    }

    #[test]
    fn pieces_and_attacks_are_no_places() {
        // Before: "Where is Olive Focaccia Bread cut? — into quarters".
        let cut = "Olive Focaccia Bread cut into quarters on a bread board";
        has(
            cut,
            "Where is Olive Focaccia Bread cut?",
            "on a bread board",
        );
        not_asked(cut, &|(_, a)| a.contains("quarters"));
        // A city's quarter is a place.
        has(
            "Homeless man rests at the old quarter of Yemen's capital Sanaa",
            "Where does the homeless man rest?",
            "at the old quarter",
        );
        // Before: "Where are the children injured? — in an Israeli attack".
        not_asked(
            "Children injured in an Israeli attack are treated at a hospital",
            &|(_, a)| a.contains("attack"),
        );
    }

    #[test]
    fn a_degree_adverb_grades_an_adjective_inside_the_phrase() {
        // Only "-ly" adverbs were: "a very large dog" had lost its article and adverb ("What
        // sits on a bench? — large dog"), and "a pretty white girl" was no phrase at all.
        has(
            "a very large brown dog sits on a bench",
            "What sits on a bench?",
            "a very large brown dog",
        );
        has(
            "delirium cover, featuring a pretty white girl",
            "What does the delirium cover show?",
            "a pretty white girl",
        );
        // After a copula the adverb stays the verb's: `a_state_and_a_pictures_verb` asks "Is
        // the girl very happy?".
    }

    #[test]
    fn a_gerund_completes_its_verb() {
        has(
            "PERSON celebrates scoring the winning goal",
            "What does PERSON do?",
            "celebrates scoring the winning goal",
        );
        has(
            "PERSON celebrates scoring the winning goal",
            "What does PERSON celebrate scoring?",
            "the winning goal",
        );
        // "following" is a preposition here.
        not_asked("PERSON leaves following a meeting", &|(q, _)| {
            q.contains("following?")
        });
    }

    #[test]
    fn a_name_with_a_persons_possessive_is_asked_who() {
        // The filter's gazetteer misses "Dorsett" and "Chip": the rules asked "who" only of the
        // names it knows, though the gate took them for people by their "his".
        has(
            "Chip Kelly directs his team during NFL football practice",
            "Who directs his team?",
            "Chip Kelly",
        );
        has(
            "Sienna Miller flashes her flat tummy",
            "What does Sienna Miller do?",
            "flashes her flat tummy",
        );
        // A wire caption's aside between the name and its verb, a participle's phrase: no
        // clause was read through it.
        has(
            "Dorsett, photographed in his home, faces his old, battle-scarred helmet.",
            "Who faces his old, battle-scarred helmet?",
            "Dorsett",
        );
        has(
            "PERSON, photographed in his home, faces his old helmet.",
            "What does PERSON face?",
            "his old helmet",
        );
        // A company's "its" names no person.
        not_asked("Volvo unveils its new car in Stockholm", &|(q, _)| {
            q.starts_with("Who") || q.ends_with(" do?")
        });
        // Participles in a list are no aside before a verb.
        not_asked(
            "A quartered shield, flanked by two figures, topped with a crown.",
            &|(q, _)| q.contains("top"),
        );
        // A verb's idiom asks no activity: not "What does Sienna Miller do? — cuts a sexy
        // figure" (but "flaunts her figure" is asked).
        not_asked(
            "Sienna Miller cuts a sexy figure in a low-cut black dress",
            &|(q, _)| q.ends_with(" do?") || q.ends_with(" cut?"),
        );
        has(
            "Sienna Miller flaunts her curvaceous figure in a bikini",
            "What does Sienna Miller flaunt?",
            "her curvaceous figure",
        );
    }

    #[test]
    fn a_fragments_participle_after_a_comma_is_its_verb() {
        // No verb was read past the comma, and nothing but the subject was asked.
        has(
            "Swartz with glasses, smiling with PERSON",
            "Who is Swartz smiling with?",
            "PERSON",
        );
        // With a finite verb after it, the participle is an aside.
        has(
            "PERSON, smiling, poses with fans",
            "Who poses with fans?",
            "PERSON",
        );
    }

    #[test]
    fn an_infinitives_object_is_asked_whether_it_is_there() {
        // "how to use and operate" hid the camera from the question of what is there.
        has(
            "A police officer demonstrates how to use and operate a body camera during a press \
             conference",
            "Is there a body camera?",
            "yes",
        );
        // Not the quantity of "a jet of water" (a jet is a plane), nor a preposition's phrase.
        not_asked(
            "A protester attempts to block a jet of water from police",
            &|(q, _)| q == "Is there a jet?",
        );
    }

    #[test]
    fn clothes_after_the_subjects_own_second_verb_are_the_subjects() {
        // The son named first had taken the sweater.
        let c = "PERSON takes her son PERSON to school this morning and looked great in an olive \
                 V-neck sweater";
        has(c, "What is PERSON wearing?", "an olive V-neck sweater");
        assert_eq!(
            crate::qgen::reader::answer("What is PERSON wearing?", &parse(c)).as_deref(),
            Some("an olive V-neck sweater")
        );
        // Another person's clothes stay theirs.
        not_asked("PERSON talks to a woman in a red dress", &|(q, _)| {
            q.ends_with("wearing?")
        });
    }

    #[test]
    fn a_picture_of_a_kind_no_other_is_asked_its_kind() {
        // Only "What kind of picture is this?" and a zero count were asked of these.
        for (caption, kind) in [
            ("Logo of the Pacific Islands Forum", "logo"),
            ("Map of Cleveland showing location of last sightings", "map"),
        ] {
            has(caption, &format!("Is this a {kind}?"), "yes");
            let all = qa(caption);
            let no = all.iter().find(|(_, a)| a == "no").expect("a no");
            assert!(
                ["Is this a photograph?", "Is this a logo?", "Is this a map?"]
                    .contains(&no.0.as_str())
                    && no.0 != format!("Is this a {kind}?"),
                "{all:#?}"
            );
        }
        // A portrait may be a photograph: not asked; nor is a logo shown somewhere.
        not_asked("Portrait of a woman", &|(q, _)| q.starts_with("Is this"));
        not_asked(
            "The Yahoo logo is shown at the company's headquarters in Sunnyvale",
            &|(q, _)| q.starts_with("Is this"),
        );
        // What a drawing is of is asked instead, when it is a thing one could see.
        not_asked("Line drawing of an ink pen", &|(q, _)| {
            q.starts_with("Is this")
        });
    }

    #[test]
    fn what_a_drawing_is_of_is_asked_whether_it_is_there() {
        // The picture's kind stopped the question; what it is of is in it.
        has("Line drawing of an ink pen", "Is there an ink pen?", "yes");
        // But a table showing a number is the picture, not a table in it.
        not_asked(
            "A table showing the total number of remaining bugs",
            &|(q, _)| q.starts_with("Is there"),
        );
    }

    #[test]
    fn names_and_adverbs_as_written() {
        // A first word the parse lowered, that the tagger still reads as a name, keeps its
        // capital in the questions.
        has(
            "Chip Kelly directs his team during NFL football practice",
            "Who does Chip Kelly direct?",
            "his team",
        );
        // "home" after a verb says where to: no "What does PERSON arrive?".
        has(
            "Busy PERSON reads a book as he arrives home",
            "Who arrives home?",
            "Busy PERSON",
        );
        not_asked("Busy PERSON reads a book as he arrives home", &|(q, _)| {
            q.ends_with("arrive?")
        });
    }

    #[test]
    fn web_captions_read_as_their_writers_meant() {
        answered(
            "Attendees work on laptops during the conference",
            "attendees",
        );
        answered(
            "PERSON and girlfriend PERSON enjoy refreshing drinks in LA",
            "refreshing drinks",
        );
        has(
            "Volunteers place sand bags on a street in central Prague",
            "What do the volunteers place?",
            "sand bags",
        );
        not_asked(
            "Rescue workers at the poultry processing plant on 4 June",
            &|(_, a)| a == "plant",
        );
        has(
            "Children being carried from an ambulance",
            "Who is being carried from an ambulance?",
            "children",
        );
        has(
            "A girl with Down's syndrome using a computer",
            "What is the girl using?",
            "a computer",
        );
        not_asked(
            "A block of buildings fronted by a large statue.",
            &|(q, _)| q.starts_with("Where"),
        );
        not_asked("PERSON looks great in her summer dress", &|(_, a)| {
            a == "looks"
        });
        not_asked(
            "PERSON celebrates his 147 clearance at the UK Championship",
            &|(q, _)| q.starts_with("How many") || q.contains("146"),
        );
        not_asked(
            "PERSON is consoled outside the Forty Dean Street restaurant and bar",
            &|(q, _)| q.starts_with("How many") || q.contains("41"),
        );
        not_asked(
            "PERSON takes time out from her relationship dramas",
            &|(_, a)| a.starts_with("takes time"),
        );
        has(
            "PERSON waits to receive treatment after an injury",
            "What does PERSON do?",
            "waits to receive treatment",
        );
        not_asked("PERSON faces off with a heckler", &|(_, a)| a == "faces");

        has(
            "Three people sitting in a bright, modern office working on laptops.",
            "Where are the people sitting?",
            "in a bright, modern office",
        );
        // No colour of a person's skin; no swap inside a compound ("a top shirt").
        not_asked(
            "A black person in a blue shirt interacts with a tablet.",
            &|(q, _)| q.contains("person black") || q.contains("color is the person"),
        );
        not_asked(
            "A raccoon wearing a top hat and holding a pizza slice.",
            &|(q, _)| q.contains("top") && !q.contains("top hat"),
        );
        // A rounded number is no count; a clause is no object.
        not_asked(
            "A group of about 18 people smiling in front of a white building.",
            &|(q, _)| q.starts_with("How many people") || q.starts_with("Are there 17"),
        );
        answered(
            "A group of about 18 people smiling in front of a white building.",
            "a group of about 18 people",
        );
        not_asked(
            "US flag signifying that this is a United States Federal Government website",
            &|(_, a)| a == "signifying" || a == "US flag",
        );
        has(
            "Fans at Progressive Field in Cleveland stand for the anthem.",
            "Who stands for the anthem?",
            "fans",
        );
        // Who is in it are the people, not the attractor drawn with them.
        has(
            "Animated line drawing of PERSON, PERSON, and a Lorenz attractor",
            "Who is in the drawing?",
            "PERSON, PERSON",
        );
        has(
            "PERSON and the Audi Prologue concept",
            "Who is in the picture?",
            "PERSON",
        );
        not_asked("Man with limes in his moustache", &|(q, _)| {
            q.starts_with("Where") || q.contains("in his moustache?")
        });
        not_asked("PERSON lifts the America's Cup in 2010", &|(q, _)| {
            q.contains("America's") && !q.contains("Cup")
        });
        not_asked("PERSON pulls PERSON into a steamy embrace", &|(_, a)| {
            a.starts_with("pulls")
        });
        has(
            "A cocoa farmer cuts down a pod from a cocoa tree",
            "Who cuts down a pod from a cocoa tree?",
            "a cocoa farmer",
        );
        has(
            "A cocoa farmer cuts down a pod from a cocoa tree",
            "What does the cocoa farmer cut down?",
            "a pod",
        );
        not_asked(
            "A cocoa farmer cuts down a pod from a cocoa tree",
            &|(_, a)| a.starts_with("down"),
        );
        // What a person is in is what they wear, not where they are; another person's clothes
        // are not theirs.
        has(
            "PERSON looks great in her summer dress",
            "What is PERSON wearing?",
            "her summer dress",
        );
        has(
            "A man in a suit riding a horse",
            "What is the man wearing?",
            "a suit",
        );
        not_asked("PERSON talks to a woman in a red dress", &|(q, _)| {
            q.ends_with("wearing?")
        });
        // A list of names closed by "and" is one subject; an apposition after a name is not.
        has(
            "PERSON, PERSON and their crew arrive in lower Manhattan.",
            "Who arrives in lower Manhattan?",
            "PERSON, PERSON and their crew",
        );
        has(
            "PERSON, skipper and co-owner of the vessel Polaris, stands near his boat.",
            "Who stands near his boat?",
            "PERSON",
        );
        not_asked(
            "A protester holding a shield attempts to block a jet of water",
            &|(_, a)| a.contains("attempts"),
        );
    }

    #[test]
    fn no_answers_contradict_the_caption() {
        let all = qa("a red bus parked on the street");
        let no = all.iter().find(|(_, a)| a == "no").unwrap();
        assert!(
            no.0.starts_with("Is the bus ") && !no.0.contains("red"),
            "{no:?}"
        );
        let all = qa("a man riding a horse on a dirt road");
        let no = all.iter().find(|(_, a)| a == "no").unwrap();
        assert!(
            no.0.starts_with("Is the man riding a") && !no.0.contains("horse"),
            "{no:?}"
        );
    }

    #[test]
    fn what_kind_of_picture_and_what_it_shows() {
        let c = "Photograph of the author.";
        has(c, "What kind of picture is this?", "photograph");
        has(c, "Who is in the photograph?", "the author");
        has(
            "A diagram of the engine",
            "What does the diagram show?",
            "the engine",
        );
        has(
            "Logo of the Pacific Islands Forum",
            "What kind of picture is this?",
            "logo",
        );
        // A photograph of a thing says what is in it, listed or not.
        has(
            "Exterior photo of Heatshield sun shade for the rear window (#057)",
            "What is in the photo?",
            "Heatshield sun shade",
        );
        // A fragment's subject, when nothing else asks for it.
        has(
            "PERSON with his handiwork",
            "Who is in the picture?",
            "PERSON",
        );
        has(
            "A Romney ewe with her two lambs",
            "What is in the picture?",
            "a Romney ewe",
        );
        has(
            "A torn sheet of paper",
            "What is in the picture?",
            "a torn sheet of paper",
        );
        // Not of a part ("the outside"), nor of a sentence the clause reader did not take.
        let no_subject = |caption: &str| {
            let all = qa(caption);
            assert!(
                all.iter().all(|(q, _)| !q.ends_with("in the picture?")),
                "{caption}: {all:#?}"
            );
        };
        no_subject("The outside of a large apartment building, dotted with air conditioners.");
        no_subject("There is growing pressure to tackle waste");
    }

    #[test]
    fn a_picture_that_shows_is_asked_what_it_shows() {
        let all = qa("Black and white engraving depicting a crowd of people");
        assert!(
            all.contains(&(
                "What does the black and white engraving show?".into(),
                "a crowd of people".into()
            )),
            "{all:#?}"
        );
        assert!(
            all.iter()
                .all(|(q, _)| !q.contains("doing") && !q.contains("depicting")),
            "{all:#?}"
        );
    }

    #[test]
    fn who_or_what_a_verb_is_done_with() {
        has(
            "PERSON meets with President-elect PERSON in the Oval Office",
            "Who does PERSON meet with?",
            "President-elect PERSON",
        );
        has(
            "a man cutting a cake with a knife",
            "What is the man cutting a cake with?",
            "a knife",
        );
        // Not a "with" after a place: the barrier is with the vans.
        let all = qa("People in combat gear stand near white vans with a red tape barrier");
        assert!(all.iter().all(|(q, _)| !q.ends_with("with?")), "{all:#?}");
    }

    #[test]
    fn a_phrase_after_with_belongs_to_its_object() {
        let all = qa("A large mountain with a lake in the foreground");
        assert!(
            all.iter().all(|(_, a)| !a.contains("foreground")),
            "{all:#?}"
        );
    }

    #[test]
    fn no_question_names_a_place_or_a_state_as_where() {
        let all =
            qa("The Apple Vision Pro headset on display at Apple’s headquarters in Cupertino.");
        assert!(
            all.iter().all(|(q, a)| !q.contains("Cupertino")
                && !a.contains("headquarters")
                && a != "display"),
            "{all:#?}"
        );
    }

    #[test]
    fn a_past_form_is_read_as_the_sentence_makes_it() {
        // A verb of two words, not a passive: no "Who is held onto …?".
        let held = "PERSON held onto his pregnant wife's growing belly as they filmed Extra";
        has(
            held,
            "Who held onto his pregnant wife's growing belly?",
            "PERSON",
        );
        has(
            held,
            "What did PERSON hold onto?",
            "his pregnant wife's growing belly",
        );
        not_asked(held, &|(q, _)| {
            q.contains(" is held") || q.starts_with("Where")
        });
        // A visit, and a star named by a show is a person.
        let stopped = "The Cougar Town star stopped by the Malibu Fish Grill for lunch.";
        has(
            stopped,
            "Who stopped by the Malibu Fish Grill for lunch?",
            "the Cougar Town star",
        );
        not_asked(stopped, &|(q, _)| q.starts_with("What is stopped"));
        // A participle's phrase after the subject describes it; the verb comes after.
        has(
            "This image pulled from video broadcast on Egyptian state TV shows interim PERSON \
             making his first address",
            "What does the image show?",
            "interim PERSON",
        );
        has(
            "Workers dressed in orange suits carry boxes into a warehouse",
            "What do the workers carry?",
            "boxes",
        );
    }

    #[test]
    fn the_verb_after_a_participles_phrase_is_the_sentences() {
        // Not "Who is dressed in black walks down the street?" nor "What color are the walks?":
        // after the participle's phrase comes the verb, not a plural noun.
        let walks = "A man dressed in black walks down the street";
        has(walks, "Who walks down the street?", "a man");
        has(walks, "Where does the man walk?", "down the street");
        // Not "What is the man wearing? — a blue shirt points".
        let points = "A man wearing a blue shirt points at a large monitor";
        has(points, "What does the man point at?", "a large monitor");
        has(points, "What color is the shirt?", "blue");
        has(
            "Task lead PERSON, in red shirt, and technicians inspect the rocket injector",
            "What is task lead PERSON wearing?",
            "red shirt",
        );
        // A person's "strain" and "statement" are idioms, not things shown.
        not_asked(
            "PERSON shows the strain as she leaves the ward",
            &|(q, _)| q == "What does PERSON show?" || q == "Who shows the strain?",
        );
        not_asked(
            "PERSON makes an inspiring statement in white embossed dress",
            &|(q, _)| q.starts_with("What does PERSON make") || q.starts_with("Who makes"),
        );
        has(
            "PERSON carried his daughter Ava's pink backpack during their stroll",
            "What color is his daughter Ava's backpack?",
            "pink",
        );
        // A participle between an article and its noun modifies the noun ("a concentrated
        // face"), and "up" before a garment is part of its name.
        let face = "A black person with a concentrated face wearing a blue button up shirt \
                    points at a large monitor";
        has(face, "Who points at a large monitor?", "a black person");
        has(face, "What color is the button up shirt?", "blue");
    }

    #[test]
    fn a_parts_phrase_after_another_phrase_is_not_the_verbs_place() {
        let vendor = "Newspaper vendor holds up paper with Mandela's picture on the front";
        has(vendor, "What does the newspaper vendor hold up?", "paper");
        not_asked(vendor, &|(q, a)| q.contains("front") || a.contains("front"));
        // First after the verb, a part is where it happens.
        has(
            "A boy stands at the front with his sister",
            "Where does the boy stand?",
            "at the front",
        );
    }

    #[test]
    fn a_place_after_a_vehicle_one_is_in_is_the_vehicle_s() {
        // The street is where the car is: she sits in the car, not on the street.
        let car = "A woman sitting in a car on a street";
        has(car, "Where is the woman sitting?", "in a car");
        has(car, "What is the woman sitting in?", "a car");
        not_asked(car, &|(q, _)| q == "What is the woman sitting on?");
        not_asked(car, &|(_, a)| a == "a street" || a == "on a street");
        // "van" is the vehicle (not the "van" of "van Gogh"), and "RV", "SUV" in capitals are
        // kinds of vehicle, no names.
        // A brand before the vehicle: the van is still the vehicle, the road still its.
        for vehicle in ["a van", "an RV", "an SUV", "a Ford van"] {
            let caption = format!("A family sitting in {vehicle} on a road");
            has(
                &caption,
                "Where is the family sitting?",
                &format!("in {vehicle}"),
            );
            has(&caption, "What is the family sitting in?", vehicle);
            not_asked(&caption, &|(q, a)| {
                q == "What is the family sitting on?"
                    || a == "a road"
                    || a == "on a road"
                    || q == "Is the family sitting on a road?"
            });
            has(
                &caption,
                &format!("Who is sitting in {vehicle} on a road?"),
                "a family",
            );
        }
        has(
            "A family sitting in a van",
            "What is the family sitting in?",
            "a van",
        );
        // Not only a car: a boat on a lake, a box on the floor, and no verb.
        let boat = "A man fishing in a boat on a lake";
        has(boat, "Where is the man fishing?", "in a boat");
        not_asked(boat, &|(q, _)| q == "What is the man fishing on?");
        // A shop's name in capitals is no thing, whatever its lower case means.
        not_asked("Shoppers queue outside BOOTS", &|(_, a)| a == "BOOTS");
        // An open seat is no container: he is on the court too.
        has(
            "A man in a wheelchair on a basketball court",
            "What is the man on?",
            "a basketball court",
        );
        let box_ = "A cat sitting in a box on the floor";
        has(box_, "What is the cat sitting in?", "a box");
        not_asked(box_, &|(q, _)| q == "What is the cat sitting on?");
        let dog = "A dog in a car on a road";
        has(dog, "Where is the dog?", "in a car");
        not_asked(dog, &|(q, a)| q == "What is the dog on?" || a == "a road");
        // A place one is in that is no container, and places after another preposition, stay
        // the subject's.
        has(
            "A family sitting in a room on a chair",
            "What is the family sitting on?",
            "a chair",
        );
        has(
            "A dog sleeping on a couch in a living room",
            "What is the dog sleeping in?",
            "a living room",
        );
        has(
            "A man waits in a car at a gas station",
            "What does the man wait at?",
            "a gas station",
        );
    }

    #[test]
    fn a_gathering_of_many_is_who_they_are() {
        let line = "A long line of people form a chain to distribute cases of water";
        has(line, "Who forms a chain?", "a long line of people");
        has(line, "What does the long line of people form?", "a chain");
        // A compound's line is no gathering.
        answered(
            "A runner crosses the finish line of the marathon",
            "the finish line",
        );
    }

    #[test]
    fn a_name_after_a_persons_noun_is_a_person() {
        has(
            "A 2012 image of wrestler Hulk Hogan",
            "Who is in the picture?",
            "wrestler Hulk Hogan",
        );
    }

    #[test]
    fn a_no_never_swaps_a_noun_for_its_synonym() {
        // Every seed: the swap is picked by it.
        let p = parse("The sofa is people's favourite spot for reading");
        for seed in 0..16 {
            let couch = propose(&p, seed)
                .into_iter()
                .find(|q| q.question.contains("couch"));
            assert!(couch.is_none(), "seed {seed}: {couch:?}");
        }
    }

    #[test]
    fn a_clause_after_as_with_the_subjects_pronoun_is_asked() {
        // The main clause says what is meant ("takes time out … to focus on her craft"); the
        // clause after "as" says what the picture shows.
        let heads = "PERSON takes time out form her relationship dramas to focus on her craft as \
                     she heads into recording studio";
        has(heads, "Who heads into recording studio?", "PERSON");
        has(heads, "Where does PERSON head?", "into recording studio");
        // A verb's governed phrase stays with it, the place comes after: not "Where does PERSON
        // puff? — on another cigarette" nor "What does PERSON puff at? — the beach".
        let puffs = "Bikini-clad PERSON continues to keep mum on pregnancy rumours as she puffs \
                     on another cigarette at the beach";
        has(
            puffs,
            "What does Bikini-clad PERSON puff on?",
            "another cigarette",
        );
        has(
            puffs,
            "Where does Bikini-clad PERSON puff on another cigarette?",
            "at the beach",
        );
        not_asked(puffs, &|(q, _)| {
            q.ends_with("puff at?") || q.ends_with("puff?")
        });
        has(
            "A woman talking on the phone in a kitchen",
            "Where is the woman talking on the phone?",
            "in a kitchen",
        );
        // Not of another subject ("he" after a plural), nor of a thing's.
        not_asked(
            "Fans cheer as he scores a goal in the stadium",
            &|(q, _)| q.contains("score"),
        );
        // An idiom's question is of its own phrase only: not "What does PERSON take his mind on?
        // — pizza date".
        not_asked(
            "Exhausted PERSON takes his mind off things on pizza date with his girlfriend",
            &|(q, _)| q.ends_with("mind on?"),
        );
    }

    #[test]
    fn names_read_whole() {
        // "MLS Player | of the Year PERSON" was a player and a year.
        has(
            "MLS Player of the Year PERSON skips past Seattle Sounders' Zach Scott during the \
             Western Conference Final.",
            "Who skips past Seattle Sounders' Zach Scott?",
            "MLS Player of the Year PERSON",
        );
        // "The One Direction boys" are no "1 Direction boys"; "long lost" is no verb ("What
        // losts lunar samples?").
        let boys = "The One Direction boys were interviewed by PERSON on Thursday";
        has(
            boys,
            "Who was interviewed by PERSON?",
            "the One Direction boys",
        );
        not_asked(boys, &|(q, a)| q.contains(" 1 ") || a.contains(" 1 "));
        not_asked("Vial of the long lost lunar samples.", &|(q, _)| {
            q.contains("losts")
        });
        // The phrase after a picture's kind is what it shows, also when a participle follows it.
        has(
            "A map of the hemisphere centred on New Zealand, using an orthographic projection.",
            "What does the map show?",
            "the hemisphere",
        );
    }

    #[test]
    fn more_of_a_persons_caption_is_asked() {
        // Where a thing comes from is in the picture too: "Is there an ambulance?".
        has(
            "Children being carried from an ambulance",
            "Is there an ambulance?",
            "yes",
        );
        // An idiom's own phrase, when it is a thing one could see.
        has(
            "Holiday travelers make their way to their car on November 26",
            "What do the holiday travelers make their way to?",
            "their car",
        );
        // "warm up" after the subject is a verb, not an adjective and a preposition.
        has(
            "Players warm up before the game",
            "What do the players do?",
            "warm up",
        );
        // The giver, a person.
        has(
            "PERSON receives the 2015 Hines Award from chair PERSON.",
            "Who does PERSON receive the 2015 Hines Award from?",
            "chair PERSON",
        );
        // Whom a person is with, of a people noun; not when a "with" names another.
        has(
            "PERSON and his daughter Paris",
            "Who is PERSON with?",
            "his daughter Paris",
        );
        not_asked(
            "PERSON and his son with Kilkenny manager PERSON",
            &|(q, _)| q == "Who is PERSON with?",
        );
        not_asked("PERSON and PERSON at the premiere", &|(q, _)| {
            q == "Who is PERSON with?"
        });
    }

    #[test]
    fn a_persons_sentence_says_who_is_in_the_picture() {
        // A lone intransitive verb asks nothing of its subject; the picture still shows them.
        let guard = "Memphis Grizzlies guard PERSON drives to the";
        has(
            guard,
            "Who is in the picture?",
            "Memphis Grizzlies guard PERSON",
        );
        has(
            "PERSON onboard the ISS during the interview with CNN.",
            "Who is in the picture?",
            "PERSON",
        );
        // Not when someone else is named, who would be in it too.
        for other in [
            "PERSON takes her son PERSON to school this morning",
            "Exhausted PERSON shows the strain as he takes his mind off things with his girlfriend",
        ] {
            not_asked(other, &|(q, _)| q == "Who is in the picture?");
        }
        // "daughter Matilde" is a title and a name: no article.
        has(
            "Chelsea's manager PERSON, wife PERSON and daughter Matilde arrive for the show",
            "What do Chelsea's manager PERSON, wife PERSON and daughter Matilde do?",
            "arrive",
        );
    }

    #[test]
    fn what_describes_the_subject_before_its_verb_is_asked() {
        has(
            "A protester holding a shield attempts to block a jet of water",
            "What is the protester holding?",
            "a shield",
        );
        not_asked(
            "Holiday travelers making their way home wait at the gate",
            &|(q, _)| q.ends_with("making?"),
        );
        // An adverb before the verb opens its group; it is no part of the subject.
        let bread = "This bread still comes in its nostalgic green and yellow packaging.";
        has(
            bread,
            "What does the bread come in?",
            "its nostalgic green and yellow packaging",
        );
        let queen = "The Queen still smiled despite being forced to arrive without her husband";
        has(queen, "What did the Queen do?", "smiled");
        not_asked(queen, &|(q, a)| q.contains("still") || a.contains("still"));
    }

    #[test]
    fn a_subject_in_apposition_to_an_envoy_and_a_second_after_an_of_phrase() {
        // An envoy is a person, whose name between commas is no list.
        has(
            "Former US Special Envoy for Ukraine, PERSON, testifies during the hearing.",
            "What does the former US Special Envoy do?",
            "testifies",
        );
        // "and" after the subject's "of" phrase joins a second subject when the verb agrees
        // with two; a verb that agrees with one keeps it the "of" phrase's.
        let two = "The Duchess of Cornwall and the Prime Minister attend the festival.";
        has(
            two,
            "Who attends the festival?",
            "the Duchess of Cornwall and the Prime Minister",
        );
        not_asked(two, &|(q, _)| q == "What does the Duchess do?");
        has(
            "The Queen of England and Wales waves to the crowd.",
            "Who waves to the crowd?",
            "the Queen",
        );
        // A past tense shows no number: people on both sides join, a place after "of" does
        // not ("What did the Duchess do? — attended the festival", before).
        has(
            "The Duchess of Cornwall and the Prime Minister attended the festival.",
            "Who attended the festival?",
            "the Duchess of Cornwall and the Prime Minister",
        );
        has(
            "The Duke of Sussex and PERSON visited a school.",
            "What did the Duke of Sussex and PERSON visit?",
            "a school",
        );
        has(
            "The Queen of England and Wales waved to the crowd.",
            "Who waved to the crowd?",
            "the Queen",
        );
    }

    #[test]
    fn a_state_and_a_pictures_verb() {
        let girl = "The girl is very happy.";
        has(girl, "Who is very happy?", "the girl");
        has(girl, "Is the girl very happy?", "yes");
        not_asked(girl, &|(q, _)| q == "Is the girl very?");
        // An adjective with a phrase of its own is not cut ("Who is happy?" would cut "with her
        // gift").
        not_asked("The girl is happy with her gift", &|(q, _)| {
            q == "Who is happy?"
        });
        // The shot shows the house; the cul-de-sac shows nothing.
        not_asked(
            "This shot of the cliff-top cul-de-sac shows the house at the end",
            &|(q, _)| q.contains("cul-de-sac show"),
        );
        has(
            "A collage of diverse, smiling faces.",
            "What does the collage show?",
            "diverse, smiling faces",
        );
        has(
            "PERSON and PERSON look on at a press conference",
            "What do PERSON and PERSON do?",
            "look on",
        );
        // A demonstrative is no part of the picture's kind, and where a picture came from is
        // no kind.
        has(
            "This illustration shows a newfound reservoir of stellar fuel",
            "What kind of picture is this?",
            "illustration",
        );
        not_asked(
            "This file photo shows pills arranged for a photo at a pharmacy",
            &|(q, _)| q == "What kind of picture is this?",
        );
        // A time is no part of a subject's question, whatever else is left to ask.
        not_asked(
            "PERSON dunks during the first half of the team's basketball game",
            &|(q, _)| q.contains("during"),
        );
        // What a cloud is of goes with it.
        has(
            "Police in riot gear move through a cloud of smoke",
            "What do the police move through?",
            "a cloud of smoke",
        );
        // An adverb of place is no object.
        not_asked(
            "Disney's PERSON sitting onstage with PERSON at the conference",
            &|(_, a)| a == "onstage",
        );
        // A verb the lexicon knows first as a noun, after a subject and its phrase.
        has(
            "Demonstrators from the anarchist group Black Bloc clash with police during a protest",
            "Who clashes with police?",
            "demonstrators",
        );
        has(
            "Police in riot gear move through a cloud of smoke",
            "Who moves through a cloud of smoke?",
            "police",
        );
        has(
            "A giraffe is standing next to a tall tree.",
            "What is the giraffe doing?",
            "standing",
        );
        // A thing that stays put does nothing to ask about; where it stays is asked.
        let row = "A long row of unsold vehicles sits at a dealership";
        not_asked(row, &|(q, _)| q.ends_with(" do?"));
        has(
            row,
            "Where does the long row of unsold vehicles sit?",
            "at a dealership",
        );
        not_asked(
            "A folded duvet is lying on the dresser against the background of a blurred window.",
            &|(q, _)| q.ends_with(" doing?"),
        );
    }
}
