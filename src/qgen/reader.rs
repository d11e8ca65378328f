//! The round trip without a QA model: a lexical reader answers a question on the caption, and the
//! answer is compared with the candidate by SQuAD's token F1 (seed 002 §3.3 keeps a pair at
//! F1 ≥ 0.54).
//!
//! The reader (written for this project, in the spirit of the sliding-window baselines of reading
//! comprehension, Richardson et al. 2013):
//! 1. The question's form decides the kind of answer: "is/are/does …" a yes/no, "how many" a
//!    number, "what color" a colour, "where" a place phrase, "who" a phrase naming people,
//!    "what … doing" an -ing verb with its object, other "what" a noun phrase.
//! 2. Yes/no: "yes" when every content word of the question is in the caption (by lemma, numbers as
//!    digits), else "no".
//! 3. How many: the number in the caption's phrase whose noun is the question's noun; "1" when the
//!    noun is there without a number; "0" when the caption never names it.
//! 4. What color: the colours of the caption's phrase whose noun is the question's.
//! 5. Otherwise, of the caption's phrases of the right kind that the question does not already
//!    contain, the one closest to the caption words the question repeats (each repeated word adds
//!    1 / (1 + distance)); ties go to the earlier phrase. A question ending in a preposition ("what
//!    is the cat sitting on?") takes only noun phrases of place phrases with that preposition,
//!    and the one right after the question's verb when there is one ("What does PERSON puff on?").
//!    "Who/What is in the picture?" has no anchors: the first phrase, the subject, answers it. A
//!    question whose second word is the caption's verb ("Who cheers …?", or "is/are" then its
//!    participle: "Who is cheering …?") takes a phrase before that verb, of no preposition but
//!    a picture's "of", and not an appositive.
//!
//! It shares the parse with the rules, so it mostly agrees with them; what it catches is a question
//! the caption does not answer with the candidate: another phrase of the same kind sits closer to
//! the question's words, or the question lost the words that pin its answer down.

use std::borrow::Cow;

use super::parse::{ChunkKind, Parse, Pos, as_digits, is_color};
use super::visible::is_clothing;
use super::words::{
    DEPICTING, LOCATIVE, META, lower_case, names_a_picture, participle_lemma, singular, verb_lemma,
};
use crate::filter::tokens::tokenize;

/// Lower case, punctuation and articles removed, whitespace collapsed: SQuAD's normalisation.
pub fn normalize(text: &str) -> Vec<String> {
    normalized_words(&normalized(text))
        .map(str::to_string)
        .collect()
}

/// The text in lower case with every character but letters, digits and whitespace made a space.
fn normalized(text: &str) -> String {
    // `str::to_lowercase`, not each char's: a final sigma is lowered as a word's last letter.
    text.to_lowercase()
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c.is_whitespace() {
                c
            } else {
                ' '
            }
        })
        .collect()
}

/// The words of a [`normalized`] text but its articles.
fn normalized_words(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace()
        .filter(|w| !matches!(*w, "a" | "an" | "the"))
}

/// SQuAD's token F1 between a predicted and a reference answer (both normalised; two empty answers
/// agree).
pub fn token_f1(prediction: &str, reference: &str) -> f32 {
    // The reader mostly gives back the candidate's own words.
    if prediction == reference {
        return 1.0;
    }
    let (p, r) = (normalized(prediction), normalized(reference));
    let p: Vec<&str> = normalized_words(&p).collect();
    let mut remaining: Vec<&str> = normalized_words(&r).collect();
    let reference_len = remaining.len();
    if p.is_empty() || remaining.is_empty() {
        return if p.len() == reference_len { 1.0 } else { 0.0 };
    }
    let mut common = 0usize;
    for w in &p {
        if let Some(i) = remaining.iter().position(|x| x == w) {
            remaining.swap_remove(i);
            common += 1;
        }
    }
    if common == 0 {
        return 0.0;
    }
    let precision = common as f32 / p.len() as f32;
    let recall = common as f32 / reference_len as f32;
    2.0 * precision * recall / (precision + recall)
}

/// A word's key for matching question and caption: numbers as digits, nouns singular, verbs by
/// lemma when known. `lower` is in lower case.
fn key(lower: &str) -> Cow<'_, str> {
    if let Some(d) = as_digits(lower) {
        return Cow::Owned(d);
    }
    if lower.ends_with("ing") {
        return Cow::Borrowed(lower);
    }
    let s = singular(lower);
    match verb_lemma(&s) {
        Some(l) if l.len() + 3 >= s.len() => Cow::Owned(l),
        _ => s,
    }
}

/// Words that carry no content in a question.
const FUNCTION: [&str; 24] = [
    "is", "are", "was", "were", "does", "do", "did", "the", "a", "an", "there", "what", "who",
    "where", "how", "many", "color", "doing", "have", "of", "to", "be", "this", "it",
];

/// The reader's answer to `question` on `caption` (already parsed), or `None` when it finds none.
pub fn answer(question: &str, caption: &Parse) -> Option<String> {
    let q: Vec<Cow<'_, str>> = tokenize(question)
        .iter()
        .filter(|t| t.is_word)
        .map(|t| lower_case(t.text))
        .collect();
    let first: &str = q.first()?;
    let content: Vec<Cow<'_, str>> = q
        .iter()
        .filter(|w| !FUNCTION.contains(&&***w))
        .map(|w| key(w))
        .collect();
    let words = &caption.words;
    let caption_keys = caption
        .keys
        .get_or_init(|| words.iter().map(|w| key(&w.lower).into_owned()).collect());
    let caption_has = |k: &str| caption_keys.iter().any(|x| x == k);
    let question_has = |k: &str| content.iter().any(|x| x == k);
    if matches!(first, "is" | "are" | "was" | "were" | "does" | "do" | "did") {
        // "Is PERSON standing?" of "PERSON stands": an -ing form matches its verb's other forms.
        // "Is there a person?" of "A 2012 image of wrestler Hulk Hogan": any name of a person
        // is one.
        let all = content.iter().all(|c| {
            caption_has(c)
                || participle_lemma(c).is_some_and(|l| caption_has(&l))
                || (c == "person" && words.iter().any(|w| w.names_a_person()))
        });
        return Some(if all { "yes" } else { "no" }.to_string());
    }
    if q.len() > 2 && first == "how" && q[1] == "many" {
        // The counted noun: the last word before the verb.
        let verb_at = q.iter().position(|w| matches!(&**w, "are" | "is"))?;
        let noun = singular(&q[verb_at - 1]);
        let np = caption
            .chunks
            .iter()
            .find(|c| c.kind == ChunkKind::Np && singular(&words[c.head].lower) == noun);
        return Some(match np {
            None => "0".to_string(),
            Some(np) => words[np.start..np.head]
                .iter()
                .find_map(|w| (w.pos == Pos::Num).then(|| as_digits(&w.lower)).flatten())
                .unwrap_or_else(|| "1".to_string()),
        });
    }
    if q.len() > 2 && first == "what" && q[1] == "color" {
        let noun = singular(q.last()?);
        let head_at = words.iter().position(|w| singular(&w.lower) == noun)?;
        // The colours before the noun, or the copula's after it ("the sky is blue").
        let np = caption
            .chunks
            .iter()
            .find(|c| c.kind == ChunkKind::Np && c.head == head_at)?;
        let colours: Vec<usize> = (np.start..np.head)
            .filter(|&i| is_color(&words[i].lower))
            .chain(
                (np.end..words.len())
                    .take_while(|&i| {
                        words[i].is_be() || is_color(&words[i].lower) || words[i].pos == Pos::Conj
                    })
                    .filter(|&i| is_color(&words[i].lower)),
            )
            .collect();
        let (s, e) = (*colours.first()?, *colours.last()? + 1);
        return Some(caption.text(s, e, true));
    }
    // "What is the man doing?" asks for an -ing verb, "What does the man do?" for a finite one.
    let doing = q.last().is_some_and(|w| w == "doing");
    let does = q.len() > 3 && q.last().is_some_and(|w| w == "do");
    let wearing = q.last().is_some_and(|w| w == "wearing");
    let stranded = q
        .last()
        .filter(|w| {
            caption
                .words
                .iter()
                .any(|x| x.lower == **w && x.pos == Pos::Adp)
                && !content.is_empty()
                // The rules strand a place phrase's preposition ("next to" ends in "to").
                && LOCATIVE
                    .iter()
                    .any(|p| p.rsplit(' ').next() == Some(&**w))
        })
        .cloned();
    // "What is in the picture?" of "an image of a dog" asks for the dog, not the image; its
    // words are no anchors ("in" would pull the answer towards "in Dayton, Tennessee"): it asks
    // for the caption's subject, the first phrase of the kind.
    let in_the_picture = matches!(
        &q[..],
        [wh, is, in_, the, kind] if (wh == "what" || wh == "who") && is == "is" && in_ == "in"
            && the == "the" && names_a_picture(kind)
    );
    // "Who attempts to block a jet?": a question whose second word is the caption's verb asks
    // for that verb's subject, a phrase before it and of no preposition's ("Supporters of
    // nominee PERSON cheer": not PERSON).
    let verb_of = |w: &Cow<'_, str>| {
        let k = key(w);
        (0..words.len()).find(|&i| words[i].pos == Pos::Verb && caption_keys[i] == k)
    };
    // So does "Who is waiting for business?": a form of "be" then one of the caption's verbs as
    // a participle ("Ho PERSON" of "Vietnamese merchants in Ho PERSON are waiting for business"
    // is no answer).
    let participle_of = |w: &Cow<'_, str>| {
        let lemma = participle_lemma(w)?;
        (0..words.len()).find(|&i| {
            words[i].pos == Pos::Verb && (words[i].lower == *w || caption_keys[i] == lemma)
        })
    };
    let subject_verb = match q.get(1).map(|w| &**w) {
        Some("is" | "are") if first == "who" || first == "what" => q.get(2).and_then(participle_of),
        _ => q
            .get(1)
            .filter(|w| !FUNCTION.contains(&&***w))
            .and_then(verb_of),
    };
    // "What does the shot show?" of "This shot of the cul-de-sac shows the house": a question
    // ending in a depicting verb of the caption, after "does"/"do"/"did", asks for what follows
    // that verb, not for the "of" phrase near its subject (what the picture shows).
    let object_verb = q
        .last()
        .filter(|w| {
            q.len() > 3 && matches!(&*q[1], "does" | "do" | "did") && DEPICTING.contains(&&***w)
        })
        .and_then(verb_of);
    // Spans of the kind the question asks for.
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for (k, c) in caption.chunks.iter().enumerate() {
        match (first, c.kind) {
            ("where", ChunkKind::Pp { .. }) if caption.is_location(c) => {
                spans.push((c.start, c.end));
            }
            ("who", ChunkKind::Np) => {
                let head = &words[c.head];
                if head.entity.is_some()
                    || caption.names_a_person(c.start, c.head)
                    || super::caption::is_unlisted_person(caption, c.head, c.end)
                {
                    // Who is in a picture are its people, not the things named with them.
                    let end = in_the_picture
                        .then(|| caption.people_end(c.start))
                        .flatten()
                        .unwrap_or_else(|| caption.coordination(k).1);
                    spans.push((c.start, end));
                }
            }
            ("what", ChunkKind::Verb)
                if (doing && words[c.head].tag == "VBG")
                    || (does && matches!(words[c.head].tag, "VBZ" | "VBP" | "VBD")) =>
            {
                let end = caption
                    .chunks
                    .get(k + 1)
                    .filter(|n| n.kind == ChunkKind::Np)
                    .map(|_| caption.coordination(k + 1).1)
                    // "waits to receive treatment": the infinitive is part of the activity, and
                    // so is a verb's governed phrase ("tends to a field") and what is looked at
                    // ("looking at a painting").
                    .or_else(|| caption.infinitive_after(c.end))
                    .or_else(|| caption.governed(c.end).map(|(_, np)| np.end))
                    .or_else(|| caption.looked_at(c.end))
                    .unwrap_or(c.end);
                spans.push((c.head, end));
            }
            ("what", ChunkKind::Np) if !doing && !does => {
                // "What is the cat sitting on?": a question ending in a preposition asks for the
                // noun phrase of a place phrase with that preposition; one that does not, for a
                // subject or object, never the noun phrase of a place phrase ("What do the
                // employees at the airport de-ice?" is not answered "the airport").
                let in_place = caption.chunks[..k]
                    .iter()
                    .rev()
                    .find(|p| matches!(p.kind, ChunkKind::Pp { np } if np == k));
                let wanted = match stranded.as_deref() {
                    Some(prep) => {
                        in_place.is_some_and(|pp| caption.preposition(pp).ends_with(prep))
                    }
                    // "What does the kitchen have?" and "a close up of a pizza" are the
                    // exceptions: "with" and "of" phrases hold things, not places; and "What is
                    // the man wearing?" of "a man in a suit": what one is in is worn.
                    None => in_place.is_none_or(|pp| match &*caption.preposition(pp) {
                        "with" | "of" => true,
                        "in" => wearing && is_clothing(&singular(&words[c.head].lower)),
                        _ => false,
                    }),
                };
                if wanted && !(in_the_picture && META.contains(&words[c.head].lower.as_str())) {
                    spans.push((c.start, caption.coordination(k).1));
                }
            }
            _ => {}
        }
    }
    // "What is PERSON wearing?" asks for clothes where the caption names some: not "this
    // morning" of "takes her son to school this morning and looked great in an olive sweater".
    let clothes =
        |&(s, e): &(usize, usize)| (s..e).any(|i| is_clothing(&singular(&words[i].lower)));
    if wearing && spans.iter().any(clothes) {
        spans.retain(clothes);
    }
    // "What does PERSON puff on? — another cigarette": the phrase of the stranded preposition
    // right after the question's verb is what it governs, wherever the other words point.
    if let Some(prep) = &stranded
        && let Some(np) = caption.chunks.iter().find_map(|c| match c.kind {
            ChunkKind::Pp { np }
                if c.start > 0
                    && words[c.start - 1].pos == Pos::Verb
                    && question_has(&caption_keys[c.start - 1])
                    && caption.preposition(c) == *prep =>
            {
                Some(np)
            }
            _ => None,
        })
        && let Some(&span) = spans.iter().find(|(s, _)| *s == caption.chunks[np].start)
    {
        spans = vec![span];
    }
    if let Some(verb) = subject_verb {
        // What a picture is of is its subject: "Photo of two people sitting on a couch".
        let of_a_picture = |pp: &super::parse::Chunk| {
            caption.preposition(pp) == "of"
                && pp.start > 0
                && names_a_picture(&words[pp.start - 1].lower)
        };
        spans.retain(|&(s, e)| {
            e <= verb
                && !caption.chunks.iter().any(|c| {
                    matches!(c.kind, ChunkKind::Pp { np } if caption.chunks[np].start == s)
                        && !of_a_picture(c)
                })
        });
        // "PERSON, the mayor of Boston, speaks": the subject is the phrase the appositive
        // (between commas, right after another phrase) describes, though the appositive sits
        // closer to the verb.
        let ends: Vec<usize> = spans.iter().map(|&(_, e)| e).collect();
        spans.retain(|&(s, e)| {
            let appositive = s > 0
                && words[s - 1].lower == ","
                && ends.contains(&(s - 1))
                && (e..verb).any(|i| words[i].lower == ",");
            !appositive
        });
    }
    if let Some(verb) = object_verb
        && spans.iter().any(|&(s, _)| s > verb)
    {
        spans.retain(|&(s, _)| s > verb);
    }
    let anchors: Vec<usize> = caption_keys
        .iter()
        .enumerate()
        // A stranded preposition chose the spans already; as an anchor it would pull towards
        // every other phrase it opens.
        .filter(|(_, k)| {
            !in_the_picture && question_has(k) && stranded.as_deref() != Some(k.as_str())
        })
        .map(|(i, _)| i)
        .collect();
    let mut best: Option<((usize, usize), f32)> = None;
    for (s, e) in spans {
        let inside = (s..e)
            .filter(|&i| words[i].pos.is_open() || words[i].pos == Pos::Num)
            .all(|i| question_has(&caption_keys[i]));
        if inside {
            continue;
        }
        let score: f32 = anchors
            .iter()
            .filter(|&&a| a < s || a >= e)
            .map(|&a| {
                let d = if a < s { s - a } else { a + 1 - e };
                1.0 / (1.0 + d as f32)
            })
            .sum();
        if best.is_none_or(|(_, b)| score > b) {
            best = Some(((s, e), score));
        }
    }
    best.map(|((s, e), _)| caption.text(s, e, true))
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::*;

    fn answer_text(question: &str, caption: &str) -> Option<String> {
        answer(question, &parse(caption))
    }

    #[test]
    fn squad_f1() {
        assert_eq!(token_f1("a horse", "the horse"), 1.0);
        assert_eq!(token_f1("dirt road", "a dirt road."), 1.0);
        assert!((token_f1("on a dirt road", "a dirt road") - 0.8).abs() < 1e-6);
        assert_eq!(token_f1("cat", "dog"), 0.0);
        assert_eq!(token_f1("", ""), 1.0);
    }

    #[test]
    fn reads_captions() {
        let c = "a man riding a horse on a dirt road";
        assert_eq!(
            answer_text("What is the man riding?", c).as_deref(),
            Some("a horse")
        );
        assert_eq!(
            answer_text("Who is riding a horse?", c).as_deref(),
            Some("a man")
        );
        assert_eq!(
            answer_text("Where is the man riding a horse?", c).as_deref(),
            Some("on a dirt road")
        );
        assert_eq!(
            answer_text("What is the man doing?", c).as_deref(),
            Some("riding a horse")
        );
        assert_eq!(
            answer_text("Is the man riding a horse?", c).as_deref(),
            Some("yes")
        );
        assert_eq!(
            answer_text("Is the man riding a camel?", c).as_deref(),
            Some("no")
        );
        assert_eq!(
            answer_text("How many dogs are there?", c).as_deref(),
            Some("0")
        );
        let c = "two dogs and a red ball in the snow";
        assert_eq!(
            answer_text("How many dogs are there?", c).as_deref(),
            Some("2")
        );
        assert_eq!(
            answer_text("What color is the ball?", c).as_deref(),
            Some("red")
        );
        assert_eq!(
            answer_text("What color is the sky?", "the sky is blue").as_deref(),
            Some("blue")
        );
    }

    #[test]
    fn reads_web_captions() {
        // "Who is in the picture?" asks for the subject; "in" is no anchor ("in Dayton,
        // Tennessee" was the answer).
        let c =
            "Spectators at the so-called Scopes monkey trial in Dayton, Tennessee, in July, 1925";
        assert_eq!(
            answer_text("Who is in the picture?", c).as_deref(),
            Some("spectators")
        );
        // A verb's subject is before it, and of no preposition ("nominee PERSON" is the
        // supporters').
        let c = "Supporters of Republican presidential nominee PERSON cheer during election night";
        assert_eq!(
            answer_text("Who cheers during election night?", c).as_deref(),
            Some("supporters")
        );
        // A star is a person.
        let c = "The Cougar Town star stopped by the Malibu Fish Grill for lunch.";
        assert_eq!(
            answer_text("Who stopped by the Malibu Fish Grill for lunch?", c).as_deref(),
            Some("the Cougar Town star")
        );
        // The stranded preposition's phrase right after the question's verb.
        let c = "PERSON continues to keep mum on pregnancy rumours as she puffs on another \
                 cigarette at the beach";
        assert_eq!(
            answer_text("What does PERSON puff on?", c).as_deref(),
            Some("another cigarette")
        );
        // A name the gazetteer misses is a person's when the sentence gives it "his" (it was read
        // as no one).
        let c = "Dorsett, photographed in his home, faces his old, battle-scarred helmet.";
        assert_eq!(
            answer_text("Who faces his old, battle-scarred helmet?", c).as_deref(),
            Some("Dorsett")
        );
        // So is a participle's after "is/are", and a subject's appositive is not the subject
        // though closer to the verb; what a picture is "of" is its subject.
        let c = "Supporters of nominee PERSON are cheering during election night";
        assert_eq!(
            answer_text("Who is cheering during election night?", c).as_deref(),
            Some("supporters")
        );
        let c = "Vietnamese merchants in Ho PERSON are waiting for business";
        assert_eq!(
            answer_text("Who is waiting for business?", c).as_deref(),
            Some("Vietnamese merchants")
        );
        let c =
            "PERSON, owner of Wilbur Vintage Designer Clothes in Queen Village, sits in his store";
        assert_eq!(
            answer_text("Who sits in his store?", c).as_deref(),
            Some("PERSON")
        );
        let c = "Black and white photo of two people sitting on a couch";
        assert_eq!(
            answer_text("Who is sitting on a couch?", c).as_deref(),
            Some("2 people")
        );
        // What a picture shows is after its depicting verb, not the "of" phrase of its subject.
        let c = "This shot of the cliff-top cul-de-sac shows the house at the end";
        assert_eq!(
            answer_text("What does the shot show?", c).as_deref(),
            Some("the house")
        );
    }
}
