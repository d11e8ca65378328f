//! The presets: the seeds' rule values, bundled per dataset, and where each value comes from.
//!
//! A pipeline file picks one (`[filter] preset = "cc12m"`) and may override any value by its key
//! (`[filter] max_aspect = 3.0`); an unknown key fails at start with its name.

use serde::{Deserialize, Serialize};

use super::ImageRules;

/// A named bundle of rule values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// Conceptual Captions 3M (seed 000, CC3M's rules as CC12M describes them).
    Cc3m,
    /// Conceptual 12M (seed 000 §2.2).
    Cc12m,
    /// ALT200M (seed 004 §3.1).
    Alt200m,
    /// LAIT (seed 003 §3.1).
    Lait,
}

impl Preset {
    /// Every preset, in the order `altflow presets` prints them.
    pub const ALL: [Preset; 4] = [Preset::Cc3m, Preset::Cc12m, Preset::Alt200m, Preset::Lait];

    /// The preset's name in pipeline files.
    pub fn as_str(self) -> &'static str {
        match self {
            Preset::Cc3m => "cc3m",
            Preset::Cc12m => "cc12m",
            Preset::Alt200m => "alt200m",
            Preset::Lait => "lait",
        }
    }
}

impl std::str::FromStr for Preset {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Preset::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| format!("unknown preset {s:?}; known: cc3m, cc12m, alt200m, lait"))
    }
}

/// Every rule value. A value that switches a rule off is said on its field.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    /// Accepted languages, ISO 639-3 codes ("eng"); empty: any language.
    pub languages: Vec<String>,
    /// Fewest words a caption may have.
    pub min_words: usize,
    /// Most words a caption may have.
    pub max_words: usize,
    /// Keep only the longest part of a caption split at sentence punctuation.
    pub split_sentences: bool,
    /// Drop captions without a noun.
    pub require_noun: bool,
    /// Drop captions without a determiner.
    pub require_determiner: bool,
    /// Drop captions without a preposition.
    pub require_preposition: bool,
    /// Largest fraction of words that repeat an earlier content word — function words ("a", "on",
    /// "the", …) repeat in ordinary captions and are not counted (1: off).
    pub max_repetition: f32,
    /// A word outside the vocabulary is rare until the stream has shown it this often; captions
    /// with a rare word are dropped (0: off).
    pub rare_word_min_count: u32,
    /// The same test under ALT200M's name: a word is in the vocabulary once seen this often (0: off).
    pub vocabulary_min_count: u32,
    /// Largest fraction of words outside the vocabulary (1: off).
    pub max_oov_ratio: f32,
    /// Phrases whose presence drops a caption (whole words, any case).
    pub unwanted_phrases: Vec<String>,
    /// Spam words whose presence drops a caption.
    pub spam_words: Vec<String>,
    /// Remove web addresses, file names, e-mail addresses, HTML entities, punctuation runs first.
    pub clean_noise: bool,
    /// Largest fraction of capitalised words (1: off).
    pub max_capitalized_ratio: f32,
    /// Boilerplate phrases: a caption containing one is dropped.
    pub boilerplate_phrases: Vec<String>,
    /// A caption (as words) seen more often than this in the stream is boilerplate (0: off).
    pub boilerplate_max_count: u32,
    /// Token replacing a person's name ("": no replacement).
    pub person_token: String,
    /// Token replacing a place's name ("": no replacement).
    pub location_token: String,
    /// Replace every digit with '#'.
    pub replace_digits: bool,
    /// Counters per row of each count-min sketch (words, sentences); memory is
    /// `2 × 4 × sketch_width × sketch_depth` bytes.
    pub sketch_width: usize,
    /// Rows of each sketch (1–8).
    pub sketch_depth: usize,
    /// Accepted image formats (jpeg, png, gif, webp); empty: all.
    pub formats: Vec<String>,
    /// Smallest shorter side of the original image, pixels.
    pub min_side: u32,
    /// Smallest longer side of the original image, pixels.
    pub min_longer_side: u32,
    /// Largest ratio of longer to shorter side (0: off).
    pub max_aspect: f32,
    /// Keep only the images the crawler took for their page's dominant ones (the candidate's
    /// `dominant` flag: declared size, placement, links, repetition across the site), applied by
    /// the filter stage before any download.
    pub dominant_only: bool,
}

impl Rules {
    /// The values of `preset`.
    pub fn of(preset: Preset) -> Rules {
        let strings = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cc = Rules {
            languages: strings(&["eng"]),
            min_words: 3,
            max_words: 256,
            split_sentences: false,
            require_noun: true,
            require_determiner: true,
            require_preposition: false,
            max_repetition: 0.2,
            rare_word_min_count: 20,
            vocabulary_min_count: 0,
            max_oov_ratio: 1.0,
            unwanted_phrases: strings(UNWANTED),
            spam_words: Vec::new(),
            clean_noise: false,
            max_capitalized_ratio: 1.0,
            boilerplate_phrases: Vec::new(),
            boilerplate_max_count: 0,
            person_token: "PERSON".into(),
            location_token: String::new(),
            replace_digits: false,
            sketch_width: 1 << 18,
            sketch_depth: 4,
            formats: strings(&["jpeg"]),
            min_side: 401,
            min_longer_side: 0,
            max_aspect: 2.5,
            dominant_only: false,
        };
        match preset {
            Preset::Cc12m => cc,
            Preset::Cc3m => Rules {
                require_preposition: true,
                rare_word_min_count: 5,
                max_capitalized_ratio: 0.5,
                person_token: "person".into(),
                location_token: "place".into(),
                replace_digits: true,
                max_aspect: 2.0,
                ..cc
            },
            Preset::Alt200m => Rules {
                languages: Vec::new(),
                min_words: 1,
                split_sentences: true,
                require_noun: false,
                require_determiner: false,
                max_repetition: 1.0,
                rare_word_min_count: 0,
                vocabulary_min_count: 5,
                unwanted_phrases: Vec::new(),
                boilerplate_phrases: strings(BOILERPLATE),
                boilerplate_max_count: 1000,
                person_token: "<PERSON>".into(),
                location_token: "<LOC>".into(),
                formats: Vec::new(),
                min_side: 1,
                min_longer_side: 201,
                max_aspect: 3.0,
                ..cc
            },
            Preset::Lait => Rules {
                max_words: 64,
                require_noun: false,
                require_determiner: false,
                max_repetition: 1.0,
                rare_word_min_count: 0,
                max_oov_ratio: 0.3,
                unwanted_phrases: Vec::new(),
                spam_words: strings(SPAM),
                clean_noise: true,
                person_token: String::new(),
                formats: Vec::new(),
                min_side: 301,
                max_aspect: 0.0,
                dominant_only: true,
                ..cc
            },
        }
    }

    /// The image part of the rules.
    pub fn image(&self) -> ImageRules {
        ImageRules {
            formats: self.formats.clone(),
            min_side: self.min_side,
            min_longer_side: self.min_longer_side,
            max_aspect: self.max_aspect,
        }
    }

    /// The values of `preset` with `overrides` (keys of [`Rules`]) applied. Errors name the key.
    pub fn resolve(preset: Preset, overrides: &toml::Table) -> Result<Rules, String> {
        let mut table = toml::Table::try_from(Rules::of(preset)).map_err(|e| e.to_string())?;
        for (key, value) in overrides {
            if !table.contains_key(key) {
                return Err(format!("unknown filter rule `{key}`"));
            }
            table.insert(key.clone(), value.clone());
        }
        let rules: Rules = table
            .try_into()
            .map_err(|e: toml::de::Error| e.to_string())?;
        rules.validate()?;
        Ok(rules)
    }

    fn validate(&self) -> Result<(), String> {
        let fraction = |name: &str, v: f32| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(format!("`{name}` must be within 0–1, not {v}"))
            }
        };
        fraction("max_repetition", self.max_repetition)?;
        fraction("max_oov_ratio", self.max_oov_ratio)?;
        fraction("max_capitalized_ratio", self.max_capitalized_ratio)?;
        if self.min_words > self.max_words {
            return Err("`min_words` is above `max_words`".into());
        }
        if !(1..=super::sketch::MAX_DEPTH).contains(&self.sketch_depth) {
            return Err(format!(
                "`sketch_depth` must be 1–{}",
                super::sketch::MAX_DEPTH
            ));
        }
        if !(16..=1 << 28).contains(&self.sketch_width) {
            return Err("`sketch_width` must be 16–268435456".into());
        }
        if self.max_aspect != 0.0 && self.max_aspect < 1.0 {
            return Err("`max_aspect` must be 0 (off) or at least 1".into());
        }
        for code in &self.languages {
            if whatlang::Lang::from_code(code).is_none() {
                return Err(format!("`languages`: unknown ISO 639-3 code {code:?}"));
            }
        }
        for format in &self.formats {
            if !["jpeg", "png", "gif", "webp"].contains(&format.as_str()) {
                return Err(format!("`formats`: unknown format {format:?}"));
            }
        }
        Ok(())
    }
}

/// Phrases CC3M/CC12M drop ("pre-defined unwanted phrases", seed 000 §2.2; the list itself is not
/// published, these are the common alt-text placeholders).
const UNWANTED: &[&str] = &[
    "click here",
    "click to enlarge",
    "image not found",
    "no image available",
    "image unavailable",
    "placeholder",
    "loading",
    "thumbnail",
    "untitled",
    "default image",
];

/// ALT200M's examples of too-generic sentences (seed 004 §3.1), and their kin.
const BOILERPLATE: &[&str] = &[
    "stock image",
    "stock photo",
    "stock photography",
    "stock illustration",
    "stock vector",
    "3d illustration",
    "3d render",
    "vector photo",
    "vector illustration",
    "royalty free",
    "image may contain",
];

/// Spam words LAIT removes ("noisy words (spam/pornography)", seed 003 §3.1).
const SPAM: &[&str] = &[
    "viagra", "cialis", "casino", "porn", "xxx", "sex", "nude", "escort", "bitcoin", "lottery",
    "payday", "replica",
];

/// Where each value of each preset comes from, per field: (cc3m, cc12m, alt200m, lait).
pub const SOURCES: &[(&str, [&str; 4])] = &[
    (
        "languages",
        [
            "000 §2.2 (language filter)",
            "000 §2.2 (kept)",
            "— (004 needs English words only via its vocabulary)",
            "003 §3.1 (English sentences)",
        ],
    ),
    (
        "min_words",
        [
            "000 §2.2 (CC12M's bound; CC3M's own is not given)",
            "000 §2.2: 3–256 words",
            "004 §3.1: captions of 2–3 unigrams kept",
            "003 §3.1: \"normal length\" (not given)",
        ],
    ),
    (
        "max_words",
        [
            "000 §2.2",
            "000 §2.2",
            "—",
            "altflow: 64 (mean 13 words, 003 §3)",
        ],
    ),
    (
        "split_sentences",
        [
            "—",
            "—",
            "004 §3.1: split at punctuation, keep the longest part",
            "—",
        ],
    ),
    (
        "require_noun",
        [
            "000 §2.2",
            "000 §2.2: noun and determiner required",
            "—",
            "—",
        ],
    ),
    ("require_determiner", ["000 §2.2", "000 §2.2", "—", "—"]),
    (
        "require_preposition",
        [
            "000 §2.2: CC3M required prepositions",
            "000 §2.2: permitted without",
            "—",
            "—",
        ],
    ),
    (
        "max_repetition",
        ["000 §2.2 (CC12M's value)", "000 §2.2: 0.2", "—", "—"],
    ),
    (
        "rare_word_min_count",
        [
            "000 §2.2: rare below 5",
            "000 §2.2: rare below 20",
            "—",
            "—",
        ],
    ),
    (
        "vocabulary_min_count",
        ["—", "—", "004 §3.1: unigrams seen < 5 times removed", "—"],
    ),
    (
        "max_oov_ratio",
        ["—", "—", "—", "003 §3.1: \"high ratio\" (altflow: 0.3)"],
    ),
    (
        "unwanted_phrases",
        [
            "000 §2.2: pre-defined unwanted phrases (list not published)",
            "000 §2.2",
            "—",
            "—",
        ],
    ),
    (
        "spam_words",
        ["—", "—", "—", "003 §3.1: spam/pornography words"],
    ),
    (
        "clean_noise",
        ["—", "—", "—", "003 §3.1: bad spans and noisy words"],
    ),
    (
        "max_capitalized_ratio",
        [
            "000 §2.2: CC3M's capitalisation heuristic (altflow: 0.5)",
            "000 §2.2: discarded",
            "—",
            "—",
        ],
    ),
    (
        "boilerplate_phrases",
        [
            "—",
            "—",
            "004 §3.1: stock image, 3D illustration, vector photo",
            "—",
        ],
    ),
    (
        "boilerplate_max_count",
        [
            "—",
            "—",
            "004 §3.1: too frequent sentences (altflow: 1000)",
            "—",
        ],
    ),
    (
        "person_token",
        [
            "000 §2.2: hypernymised (approximated by \"person\")",
            "000 §2.2: PERSON",
            "004 §3.1: <PERSON>",
            "—",
        ],
    ),
    (
        "location_token",
        [
            "000 §2.2: hypernymised (approximated by \"place\")",
            "—",
            "004 §3.1: <LOC>",
            "—",
        ],
    ),
    (
        "replace_digits",
        [
            "000 §2.2: digits replaced by #",
            "000 §2.2: not replaced",
            "—",
            "—",
        ],
    ),
    ("sketch_width", ["altflow", "altflow", "altflow", "altflow"]),
    ("sketch_depth", ["altflow", "altflow", "altflow", "altflow"]),
    (
        "formats",
        ["000 §2.2: JPEG only", "000 §2.2: JPEG only", "—", "—"],
    ),
    (
        "min_side",
        [
            "000 §2.2: > 400 px",
            "000 §2.2: > 400 px",
            "—",
            "003 §3.1: width and height > 300 px",
        ],
    ),
    (
        "min_longer_side",
        ["—", "—", "004 §3.1: longer side > 200 px", "—"],
    ),
    (
        "max_aspect",
        ["000 §2.2: 2", "000 §2.2: 2.5", "004 §3.1: < 3", "—"],
    ),
    (
        "dominant_only",
        [
            "—",
            "—",
            "—",
            "003 §3.1: dominant images by HTML tags and DOM features",
        ],
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_has_its_sources() {
        let table = toml::Table::try_from(Rules::of(Preset::Cc12m)).unwrap();
        let fields: Vec<&str> = table.keys().map(String::as_str).collect();
        let sourced: Vec<&str> = SOURCES.iter().map(|(f, _)| *f).collect();
        let mut a = fields.clone();
        let mut b = sourced.clone();
        a.sort();
        b.sort();
        assert_eq!(a, b);
        for preset in Preset::ALL {
            Rules::of(preset).validate().unwrap();
        }
    }

    #[test]
    fn overrides_apply_and_bad_keys_are_named() {
        let overrides: toml::Table = toml::from_str("max_aspect = 3.0\nmin_side = 200").unwrap();
        let rules = Rules::resolve(Preset::Cc12m, &overrides).unwrap();
        assert_eq!((rules.max_aspect, rules.min_side), (3.0, 200));
        assert_eq!(rules.max_repetition, 0.2);
        let bad: toml::Table = toml::from_str("max_aspec = 3.0").unwrap();
        assert!(
            Rules::resolve(Preset::Cc12m, &bad)
                .unwrap_err()
                .contains("max_aspec")
        );
        let bad: toml::Table = toml::from_str("max_repetition = 2.0").unwrap();
        assert!(
            Rules::resolve(Preset::Cc12m, &bad)
                .unwrap_err()
                .contains("max_repetition")
        );
        let bad: toml::Table = toml::from_str("min_words = \"three\"").unwrap();
        assert!(
            Rules::resolve(Preset::Cc12m, &bad)
                .unwrap_err()
                .contains("min_words")
        );
    }
}
