//! Splitting a caption into words and punctuation, keeping where each token is so that a
//! transformation (PERSON substitution) can rewrite a span and leave the rest byte for byte.

/// One token of a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token<'a> {
    /// The token as written.
    pub text: &'a str,
    /// Byte offset of the token in the text.
    pub start: usize,
    /// A word (letters or digits) rather than a punctuation mark.
    pub is_word: bool,
}

impl Token<'_> {
    /// Byte offset just after the token.
    pub fn end(&self) -> usize {
        self.start + self.text.len()
    }

    /// Whether the token starts with an upper-case letter.
    pub fn is_capitalized(&self) -> bool {
        self.text.chars().next().is_some_and(char::is_uppercase)
    }

    /// Whether the token holds a digit.
    pub fn has_digit(&self) -> bool {
        self.text.bytes().any(|b| b.is_ascii_digit())
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

/// Characters that stay inside a word when a word character follows (don't, x-ray, U.S.A, 3.5).
fn joins_words(c: char) -> bool {
    matches!(c, '\'' | '’' | '-' | '.' | '&')
}

/// The tokens of `text`: words (runs of letters and digits, joined by an apostrophe, hyphen, dot or
/// ampersand between two of them) and single punctuation marks. A possessive `'s` is its own token,
/// as the tagger's lexicon expects.
pub fn tokenize(text: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::with_capacity(text.len() / 5 + 1);
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if !is_word_char(c) {
            tokens.push(Token {
                text: &text[start..start + c.len_utf8()],
                start,
                is_word: false,
            });
            continue;
        }
        let mut end = start + c.len_utf8();
        while let Some(&(i, c)) = chars.peek() {
            let joins = || {
                joins_words(c)
                    && text[i + c.len_utf8()..]
                        .chars()
                        .next()
                        .is_some_and(is_word_char)
            };
            if !is_word_char(c) && !joins() {
                break;
            }
            chars.next();
            end = i + c.len_utf8();
        }
        let word = &text[start..end];
        // "children's" → "children" + "'s", as the Penn Treebank (and so the lexicon) splits them.
        let possessive = ["'s", "’s"]
            .iter()
            .find(|s| word.len() > s.len() + 1 && word.ends_with(*s));
        match possessive {
            Some(s) => {
                let split = end - s.len();
                tokens.push(Token {
                    text: &text[start..split],
                    start,
                    is_word: true,
                });
                tokens.push(Token {
                    text: &text[split..end],
                    start: split,
                    is_word: true,
                });
            }
            None => tokens.push(Token {
                text: word,
                start,
                is_word: true,
            }),
        }
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str) -> Vec<&str> {
        tokenize(text).iter().map(|t| t.text).collect()
    }

    #[test]
    fn words_and_punctuation_are_split_with_their_offsets() {
        assert_eq!(
            texts("A dog's x-ray, in the U.S. (2019)!"),
            [
                "A", "dog", "'s", "x-ray", ",", "in", "the", "U.S", ".", "(", "2019", ")", "!"
            ]
        );
        let tokens = tokenize("  héllo  wörld");
        assert_eq!(tokens[1].start, 10);
        assert_eq!(&"  héllo  wörld"[tokens[1].start..tokens[1].end()], "wörld");
        assert!(tokenize("-- ...").iter().all(|t| !t.is_word));
        assert_eq!(texts("don't stop"), ["don't", "stop"]);
        assert!(tokenize("").is_empty());
    }
}
