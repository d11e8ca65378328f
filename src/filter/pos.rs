//! A Brill part-of-speech tagger (Brill 1992/1995): every word gets its most likely tag from a lexicon,
//! unknown words get one from their shape and suffix rules, and then contextual transformation rules
//! correct tags from their neighbours. Lexicon and rules are Brill's own (v1.14, trained on the Brown
//! corpus and the Penn Treebank), as packaged by textblob (`data/lexicon/`).
//!
//! The filter only asks coarse questions (is there a noun, a determiner, a preposition), for which a
//! transformation tagger is accurate (Brill reports 96–97 % per token) and two orders of magnitude
//! cheaper than a neural model.

use std::collections::HashMap;

use foldhash::fast::RandomState;

use super::tokens::Token;

/// A Penn Treebank tag, as an index into the tagger's tag table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tag(u8);

/// The tag of positions before the first and after the last token, as Brill's rules name it.
const BOUNDARY: &str = "STAART";

#[derive(Debug)]
enum Affix {
    Suffix,
    Prefix,
}

/// How an unknown word's tag may be changed (Brill's "lexical rules").
#[derive(Debug)]
enum Shape {
    /// The word contains this text.
    Contains(Box<str>),
    /// The word has this suffix or prefix.
    Has(Affix, Box<str>),
    /// Removing this suffix or prefix leaves a known word.
    Delete(Affix, Box<str>),
    /// Adding this suffix or prefix makes a known word.
    Add(Affix, Box<str>),
    /// The next word is this one.
    NextWord(Box<str>),
    /// The previous word is this one.
    PreviousWord(Box<str>),
}

#[derive(Debug)]
struct MorphologyRule {
    /// Applies only to words currently tagged so; `None`: to any.
    from: Option<Tag>,
    shape: Shape,
    to: Tag,
}

/// What the neighbourhood of a token must look like for a contextual rule to fire. Offsets are
/// relative to the token.
#[derive(Debug)]
enum Context {
    /// One of the tags at these offsets is this tag.
    TagAt(&'static [isize], Tag),
    /// Both tags at these two offsets.
    Tags([isize; 2], [Tag; 2]),
    /// One of the words at these offsets is this word.
    WordAt(&'static [isize], Box<str>),
    /// The word at each offset.
    Words([isize; 2], [Box<str>; 2]),
    /// A word at one offset and a tag at another.
    WordAndTag(isize, Box<str>, isize, Tag),
}

#[derive(Debug)]
struct ContextRule {
    from: Tag,
    to: Tag,
    context: Context,
}

/// Why the tagger's data could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{file} line {line}: {message}")]
pub struct DataError {
    file: &'static str,
    line: usize,
    message: String,
}

/// The tagger: lexicon, suffix rules and contextual rules.
pub struct Tagger {
    lexicon: HashMap<Box<str>, Tag, RandomState>,
    morphology: Vec<MorphologyRule>,
    context: Vec<ContextRule>,
    names: Vec<Box<str>>,
    boundary: Tag,
    nn: Tag,
    nnp: Tag,
    cd: Tag,
}

impl Tagger {
    /// The tagger with the lexicon and rules compiled into altflow.
    pub fn english() -> &'static Tagger {
        static TAGGER: std::sync::OnceLock<Tagger> = std::sync::OnceLock::new();
        TAGGER.get_or_init(|| {
            Tagger::parse(
                include_str!("../../data/lexicon/en-lexicon.txt"),
                include_str!("../../data/lexicon/en-morphology.txt"),
                include_str!("../../data/lexicon/en-context.txt"),
            )
            .expect("the compiled-in lexicon parses (tested)")
        })
    }

    /// A tagger from the text of a Brill lexicon ("word TAG" lines), lexical rules and contextual
    /// rules; `;;;` lines are comments.
    pub fn parse(lexicon: &str, morphology: &str, context: &str) -> Result<Tagger, DataError> {
        let mut tagger = Tagger {
            lexicon: HashMap::with_capacity_and_hasher(100_000, RandomState::default()),
            morphology: Vec::new(),
            context: Vec::new(),
            names: Vec::new(),
            boundary: Tag(0),
            nn: Tag(0),
            nnp: Tag(0),
            cd: Tag(0),
        };
        tagger.boundary = tagger.intern(BOUNDARY);
        tagger.nn = tagger.intern("NN");
        tagger.nnp = tagger.intern("NNP");
        tagger.cd = tagger.intern("CD");
        for (line, fields) in lines(lexicon) {
            let [word, tag] = fields[..] else {
                return Err(error("en-lexicon.txt", line, "expected a word and a tag"));
            };
            let tag = tagger.intern(tag);
            tagger.lexicon.insert(word.into(), tag);
        }
        for (line, fields) in lines(morphology) {
            let rule = tagger
                .morphology_rule(&fields)
                .ok_or_else(|| error("en-morphology.txt", line, "unknown rule"))?;
            tagger.morphology.push(rule);
        }
        for (line, fields) in lines(context) {
            let rule = tagger
                .context_rule(&fields)
                .ok_or_else(|| error("en-context.txt", line, "unknown rule"))?;
            tagger.context.push(rule);
        }
        Ok(tagger)
    }

    fn intern(&mut self, name: &str) -> Tag {
        if let Some(i) = self.names.iter().position(|n| &**n == name) {
            return Tag(i as u8);
        }
        assert!(self.names.len() < 255, "more than 255 tags");
        self.names.push(name.into());
        Tag((self.names.len() - 1) as u8)
    }

    /// The tag called `name`, if the data has it.
    pub fn tag(&self, name: &str) -> Option<Tag> {
        self.names
            .iter()
            .position(|n| &**n == name)
            .map(|i| Tag(i as u8))
    }

    /// The name of `tag` ("NN", "DT", …).
    pub fn name(&self, tag: Tag) -> &str {
        &self.names[usize::from(tag.0)]
    }

    /// The name of the lexicon's tag of `word` ([`Tagger::lookup`]): "NN", "VBZ", ….
    pub fn lexicon_tag(&self, word: &str) -> Option<&str> {
        self.lookup(word).map(|t| self.name(t))
    }

    /// The lexicon's tag of `word` as written, else of its lower-case form.
    pub fn lookup(&self, word: &str) -> Option<Tag> {
        self.lexicon.get(word).copied().or_else(|| {
            if word.chars().any(char::is_uppercase) {
                self.lexicon.get(word.to_lowercase().as_str()).copied()
            } else {
                None
            }
        })
    }

    fn morphology_rule(&mut self, f: &[&str]) -> Option<MorphologyRule> {
        const COMMANDS: [&str; 9] = [
            "char",
            "hassuf",
            "deletesuf",
            "addsuf",
            "haspref",
            "deletepref",
            "addpref",
            "goodleft",
            "goodright",
        ];
        // "ly hassuf 2 RB x" applies to any word; "NN s fhassuf 1 NNS x" only to words tagged NN.
        let (from, rest) = if COMMANDS.contains(f.get(1)?) {
            (None, f)
        } else {
            (Some(self.intern(f.first()?)), &f[1..])
        };
        let (affix, command) = (*rest.first()?, rest.get(1)?.trim_start_matches('f'));
        let takes_length = command.ends_with("suf") || command.ends_with("pref");
        let to = self.intern(rest.get(if takes_length { 3 } else { 2 })?);
        let affix: Box<str> = affix.into();
        let shape = match command {
            "char" => Shape::Contains(affix),
            "hassuf" => Shape::Has(Affix::Suffix, affix),
            "haspref" => Shape::Has(Affix::Prefix, affix),
            "deletesuf" => Shape::Delete(Affix::Suffix, affix),
            "deletepref" => Shape::Delete(Affix::Prefix, affix),
            "addsuf" => Shape::Add(Affix::Suffix, affix),
            "addpref" => Shape::Add(Affix::Prefix, affix),
            // Brill: the word is a good left neighbour of X, i.e. X follows it.
            "goodleft" => Shape::NextWord(affix),
            "goodright" => Shape::PreviousWord(affix),
            _ => return None,
        };
        Some(MorphologyRule { from, shape, to })
    }

    fn context_rule(&mut self, f: &[&str]) -> Option<ContextRule> {
        let (from, to, command) = (self.intern(f.first()?), self.intern(f.get(1)?), *f.get(2)?);
        let a = *f.get(3)?;
        let b = f.get(4).copied().unwrap_or("");
        let context = match command {
            "PREVTAG" => Context::TagAt(&[-1], self.intern(a)),
            "NEXTTAG" => Context::TagAt(&[1], self.intern(a)),
            "PREV2TAG" => Context::TagAt(&[-2], self.intern(a)),
            "NEXT2TAG" => Context::TagAt(&[2], self.intern(a)),
            "PREV1OR2TAG" => Context::TagAt(&[-1, -2], self.intern(a)),
            "NEXT1OR2TAG" => Context::TagAt(&[1, 2], self.intern(a)),
            "PREV1OR2OR3TAG" => Context::TagAt(&[-1, -2, -3], self.intern(a)),
            "NEXT1OR2OR3TAG" => Context::TagAt(&[1, 2, 3], self.intern(a)),
            "SURROUNDTAG" => Context::Tags([-1, 1], [self.intern(a), self.intern(b)]),
            "PREVBIGRAM" => Context::Tags([-2, -1], [self.intern(a), self.intern(b)]),
            "NEXTBIGRAM" => Context::Tags([1, 2], [self.intern(a), self.intern(b)]),
            "PREVWD" => Context::WordAt(&[-1], a.into()),
            "NEXTWD" => Context::WordAt(&[1], a.into()),
            "PREV2WD" => Context::WordAt(&[-2], a.into()),
            "NEXT2WD" => Context::WordAt(&[2], a.into()),
            "PREV1OR2WD" => Context::WordAt(&[-1, -2], a.into()),
            "NEXT1OR2WD" => Context::WordAt(&[1, 2], a.into()),
            "CURWD" => Context::WordAt(&[0], a.into()),
            "LBIGRAM" => Context::Words([-1, 0], [a.into(), b.into()]),
            "RBIGRAM" => Context::Words([0, 1], [a.into(), b.into()]),
            "WDAND2AFT" => Context::Words([0, 2], [a.into(), b.into()]),
            "WDPREVTAG" => Context::WordAndTag(0, b.into(), -1, self.intern(a)),
            "WDNEXTTAG" => Context::WordAndTag(0, a.into(), 1, self.intern(b)),
            "WDAND2TAGAFT" => Context::WordAndTag(0, a.into(), 2, self.intern(b)),
            "WDAND2TAGBFR" => Context::WordAndTag(0, b.into(), -2, self.intern(a)),
            _ => return None,
        };
        Some(ContextRule { from, to, context })
    }

    /// The tags of `tokens`, one per token (punctuation included: the rules look at it).
    pub fn tag_tokens(&self, tokens: &[Token<'_>]) -> Vec<Tag> {
        let mut tags: Vec<Tag> = tokens
            .iter()
            .enumerate()
            .map(|(i, token)| {
                self.lookup(token.text)
                    .unwrap_or_else(|| self.guess(tokens, i))
            })
            .collect();
        self.apply_context(tokens, &mut tags);
        tags
    }

    /// The tag of an unknown word: its shape first (a number, a capitalised name, else a noun), then
    /// the lexical rules in order.
    fn guess(&self, tokens: &[Token<'_>], i: usize) -> Tag {
        let word = tokens[i].text;
        let mut tag = if word.parse::<f64>().is_ok() || word.bytes().all(|b| b.is_ascii_digit()) {
            self.cd
        } else if tokens[i].is_capitalized() {
            self.nnp
        } else {
            self.nn
        };
        let known = |w: &str| self.lexicon.contains_key(w);
        let neighbour = |offset: isize| {
            i.checked_add_signed(offset)
                .and_then(|j| tokens.get(j))
                .map(|t| t.text)
        };
        for rule in &self.morphology {
            if rule.from.is_some_and(|from| from != tag) {
                continue;
            }
            let fires = match &rule.shape {
                // Most of these rules look for one character ("-", "."): a byte search, not a
                // substring searcher built per word.
                Shape::Contains(x) if x.len() == 1 => word.as_bytes().contains(&x.as_bytes()[0]),
                Shape::Contains(x) => word.contains(&**x),
                Shape::Has(Affix::Suffix, x) => word.ends_with(&**x) && word.len() > x.len(),
                Shape::Has(Affix::Prefix, x) => word.starts_with(&**x) && word.len() > x.len(),
                Shape::Delete(Affix::Suffix, x) => word.strip_suffix(&**x).is_some_and(known),
                Shape::Delete(Affix::Prefix, x) => word.strip_prefix(&**x).is_some_and(known),
                Shape::Add(Affix::Suffix, x) => known(&format!("{word}{x}")),
                Shape::Add(Affix::Prefix, x) => known(&format!("{x}{word}")),
                Shape::NextWord(x) => neighbour(1) == Some(&**x),
                Shape::PreviousWord(x) => neighbour(-1) == Some(&**x),
            };
            if fires {
                tag = rule.to;
            }
        }
        tag
    }

    /// Brill's contextual transformations, each applied in order over the whole sentence.
    fn apply_context(&self, tokens: &[Token<'_>], tags: &mut [Tag]) {
        // Where each tag occurs, a bit per position: a rule visits only the positions of its
        // `from` tag, and most of the ~300 rules none at all (the scan of every position for
        // every rule was a tenth of question generation's time).
        let n = tags.len();
        let blocks = n.div_ceil(64);
        let mut at_tag = vec![0u64; self.names.len() * blocks];
        let bit = |t: Tag, i: usize| (usize::from(t.0) * blocks + i / 64, 1u64 << (i % 64));
        for (i, &t) in tags.iter().enumerate() {
            let (block, mask) = bit(t, i);
            at_tag[block] |= mask;
        }
        for rule in &self.context {
            let from = usize::from(rule.from.0) * blocks;
            for b in 0..blocks {
                // A snapshot: a position of another tag cannot take this rule's `from` while it
                // runs, and each position changes only when it is visited, left to right.
                let mut positions = at_tag[from + b];
                while positions != 0 {
                    let i = b * 64 + positions.trailing_zeros() as usize;
                    positions &= positions - 1;
                    let at = |offset: isize| i.checked_add_signed(offset).filter(|&j| j < n);
                    let tag_at = |offset: isize| at(offset).map_or(self.boundary, |j| tags[j]);
                    let word_at = |offset: isize| at(offset).map(|j| tokens[j].text);
                    let fires = match &rule.context {
                        Context::TagAt(offsets, t) => offsets.iter().any(|&o| tag_at(o) == *t),
                        Context::Tags([o1, o2], [t1, t2]) => {
                            tag_at(*o1) == *t1 && tag_at(*o2) == *t2
                        }
                        Context::WordAt(offsets, w) => {
                            offsets.iter().any(|&o| word_at(o) == Some(&**w))
                        }
                        Context::Words([o1, o2], [w1, w2]) => {
                            word_at(*o1) == Some(&**w1) && word_at(*o2) == Some(&**w2)
                        }
                        Context::WordAndTag(wo, w, to, t) => {
                            word_at(*wo) == Some(&**w) && tag_at(*to) == *t
                        }
                    };
                    if fires {
                        tags[i] = rule.to;
                        let (old_block, mask) = bit(rule.from, i);
                        at_tag[old_block] &= !mask;
                        let (new_block, mask) = bit(rule.to, i);
                        at_tag[new_block] |= mask;
                    }
                }
            }
        }
    }
}

fn lines(text: &str) -> impl Iterator<Item = (usize, Vec<&str>)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with(";;;") && !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l.split_whitespace().collect()))
}

fn error(file: &'static str, line: usize, message: &str) -> DataError {
    DataError {
        file,
        line,
        message: message.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::tokens::tokenize;

    fn tags(text: &str) -> Vec<String> {
        let tagger = Tagger::english();
        let tokens = tokenize(text);
        tagger
            .tag_tokens(&tokens)
            .into_iter()
            .map(|t| tagger.name(t).to_string())
            .collect()
    }

    #[test]
    fn the_compiled_in_data_loads() {
        let tagger = Tagger::english();
        assert!(tagger.lexicon.len() > 90_000);
        assert!(tagger.morphology.len() > 100);
        assert!(tagger.context.len() > 250);
    }

    #[test]
    fn tags_common_captions() {
        assert_eq!(
            tags("a red boat on the lake"),
            ["DT", "JJ", "NN", "IN", "DT", "NN"]
        );
        // Unknown words: a plural by its suffix, a name by its capital, a number.
        assert_eq!(tags("the zorblaxes")[1], "NNS");
        assert_eq!(tags("photo of Zorblax")[2], "NNP");
        assert_eq!(tags("3 dogs")[0], "CD");
    }

    #[test]
    fn contextual_rules_fix_lexicon_tags() {
        // "run" is a noun in the lexicon; after "to" a contextual rule makes it a verb.
        assert_eq!(tags("I want to run")[3], "VB");
        assert_eq!(tags("a long run")[2], "NN");
    }

    #[test]
    fn contextual_rules_reach_past_the_64th_token() {
        // The rules visit positions by tag, 64 to a block: a copy of a sentence far into a long
        // text is tagged as the first copy.
        let one = "I want to run and a long run .";
        let copies = 12;
        let long = tags(&vec![one; copies].join(" "));
        let first = tags(one);
        assert_eq!(long.len(), first.len() * copies);
        assert!(long.len() > 64);
        for copy in long.chunks(first.len()) {
            assert_eq!(copy, &first[..]);
        }
        assert_eq!(first[3], "VB");
        assert_eq!(first[7], "NN");
    }

    #[test]
    fn malformed_data_is_refused_with_its_line() {
        let error = Tagger::parse("a DT\nbad\n", "", "").err().unwrap();
        assert_eq!(
            error.to_string(),
            "en-lexicon.txt line 2: expected a word and a tag"
        );
        let error = Tagger::parse("", "", "NN VB SOMETHING X\n").err().unwrap();
        assert!(error.to_string().starts_with("en-context.txt line 1"));
    }
}
