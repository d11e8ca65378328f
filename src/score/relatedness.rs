//! TF-IDF relatedness of a text to the downstream texts S (seed 001 §3.1, eq. 1–2):
//!
//! ```text
//! K_d,w = freq_d(w) · log(|D| / freq_D(w))          relatedness(d) = Σ_{d′ ∈ S} K_d·Q_d′ / (‖K_d‖ ‖Q_d′‖)
//! ```
//!
//! D is the pretraining text, whose document frequencies come from an [`IdfTable`]; Q_d′ encodes a
//! downstream text in the same space. The sum of cosines is the cosine-weighted dot product of
//! K_d/‖K_d‖ with Σ Q_d′/‖Q_d′‖, a vector computed once: scoring a document costs one look-up per
//! distinct word, whatever the size of S. Words not in D have no coordinate (the seed's W is D's
//! vocabulary) and are left out of both sides.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use foldhash::fast::RandomState;

use crate::filter::tokens::tokenize;

/// An IDF table could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum IdfError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A line is not `word<TAB>count`.
    #[error("{path}, line {line}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// The lower-case words of a text, as both D and S are counted.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    tokenize(text)
        .into_iter()
        .filter(|t| t.is_word)
        .map(|t| t.text.to_lowercase())
}

/// Document frequencies over the pretraining text D: in how many documents each word appears.
#[derive(Debug, Default, Clone)]
pub struct IdfTable {
    documents: u64,
    frequencies: HashMap<Box<str>, u64, RandomState>,
}

impl IdfTable {
    /// Counts one more document of D.
    pub fn add_document(&mut self, text: &str) {
        self.documents += 1;
        let mut seen: Vec<String> = words(text).collect();
        seen.sort_unstable();
        seen.dedup();
        for word in seen {
            *self.frequencies.entry(word.into_boxed_str()).or_default() += 1;
        }
    }

    /// A table from a corpus file, one document per line.
    pub fn from_corpus(path: &Path) -> Result<Self, IdfError> {
        let io = |source| IdfError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        let mut table = Self::default();
        for line in std::io::BufReader::new(file).lines() {
            table.add_document(&line.map_err(io)?);
        }
        Ok(table)
    }

    /// Drops words seen in fewer than `min` documents (bounds the table; such words weigh most
    /// but say least about a corpus).
    pub fn prune(&mut self, min: u64) {
        self.frequencies.retain(|_, n| *n >= min);
    }

    /// Number of documents counted.
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// Number of words with a frequency.
    pub fn len(&self) -> usize {
        self.frequencies.len()
    }

    /// Whether no word has a frequency.
    pub fn is_empty(&self) -> bool {
        self.frequencies.is_empty()
    }

    /// `log(|D| / freq_D(w))`, or `None` for a word D does not have.
    pub fn idf(&self, word: &str) -> Option<f32> {
        let n = *self.frequencies.get(word)?;
        Some((self.documents as f64 / n as f64).ln() as f32)
    }

    /// Writes the table: a first line `#documents N`, then `word<TAB>frequency` lines, most
    /// frequent first.
    pub fn save(&self, path: &Path) -> Result<(), IdfError> {
        let io = |source| IdfError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut rows: Vec<(&str, u64)> = self.frequencies.iter().map(|(w, n)| (&**w, *n)).collect();
        rows.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let mut out = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
        writeln!(out, "#documents {}", self.documents).map_err(io)?;
        for (word, n) in rows {
            writeln!(out, "{word}\t{n}").map_err(io)?;
        }
        out.flush().map_err(io)
    }

    /// Reads a table written by [`IdfTable::save`] (`altflow idf build`).
    pub fn load(path: &Path) -> Result<Self, IdfError> {
        let text = std::fs::read_to_string(path).map_err(|source| IdfError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let bad = |line: usize, message: &str| IdfError::Format {
            path: path.to_path_buf(),
            line,
            message: message.into(),
        };
        let mut lines = text.lines().enumerate();
        let documents = lines
            .next()
            .and_then(|(_, l)| l.strip_prefix("#documents "))
            .and_then(|n| n.trim().parse().ok())
            .ok_or_else(|| bad(1, "expected `#documents N`"))?;
        let mut frequencies = HashMap::default();
        for (i, line) in lines {
            let (word, n) = line
                .split_once('\t')
                .ok_or_else(|| bad(i + 1, "expected `word<TAB>frequency`"))?;
            let n: u64 = n
                .trim()
                .parse()
                .map_err(|_| bad(i + 1, "the frequency is not a whole number"))?;
            if n == 0 || n > documents {
                return Err(bad(i + 1, "the frequency must be between 1 and #documents"));
            }
            frequencies.insert(word.into(), n);
        }
        Ok(Self {
            documents,
            frequencies,
        })
    }

    /// The TF-IDF vector of `text` (eq. 1), by word; words D lacks are left out.
    pub fn vector(&self, text: &str) -> HashMap<Box<str>, f32, RandomState> {
        let mut counts: HashMap<Box<str>, f32, RandomState> = HashMap::default();
        for word in words(text) {
            *counts.entry(word.into_boxed_str()).or_default() += 1.0;
        }
        counts.retain(|word, count| match self.idf(word) {
            Some(idf) => {
                *count *= idf;
                *count != 0.0
            }
            None => false,
        });
        counts
    }
}

/// Relatedness to a fixed downstream set S.
pub struct Relatedness {
    idf: IdfTable,
    /// Σ over S of Q_d′ / ‖Q_d′‖.
    direction: HashMap<Box<str>, f32, RandomState>,
    downstream: usize,
}

impl Relatedness {
    /// Relatedness to the texts `downstream` (S), weighted by `idf` (D).
    pub fn new<'a>(idf: IdfTable, downstream: impl IntoIterator<Item = &'a str>) -> Self {
        let mut direction: HashMap<Box<str>, f32, RandomState> = HashMap::default();
        let mut count = 0;
        for text in downstream {
            count += 1;
            let vector = idf.vector(text);
            let norm = vector.values().map(|v| v * v).sum::<f32>().sqrt();
            if norm == 0.0 {
                continue;
            }
            for (word, value) in vector {
                *direction.entry(word).or_default() += value / norm;
            }
        }
        Self {
            idf,
            direction,
            downstream: count,
        }
    }

    /// Relatedness to the texts of a file, one per line.
    pub fn from_file(idf: IdfTable, path: &Path) -> Result<Self, IdfError> {
        let text = std::fs::read_to_string(path).map_err(|source| IdfError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(Self::new(idf, text.lines()))
    }

    /// Number of downstream texts.
    pub fn downstream(&self) -> usize {
        self.downstream
    }

    /// relatedness(d) (eq. 2): the sum over S of the cosines between `text`'s TF-IDF vector and
    /// each downstream text's; between 0 and |S|. A text with no word of D scores 0.
    pub fn score(&self, text: &str) -> f32 {
        let vector = self.idf.vector(text);
        let norm = vector.values().map(|v| v * v).sum::<f32>().sqrt();
        if norm == 0.0 {
            return 0.0;
        }
        let dot: f32 = vector
            .iter()
            .filter_map(|(word, value)| self.direction.get(word).map(|d| value * d))
            .sum();
        dot / norm
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eq. 2 as printed: a cosine per (d, d′) pair over dense vectors of D's vocabulary.
    fn naive(idf: &IdfTable, d: &str, downstream: &[&str]) -> f64 {
        let mut vocabulary: Vec<&str> = idf.frequencies.keys().map(|w| &**w).collect();
        vocabulary.sort_unstable();
        let dense = |text: &str| -> Vec<f64> {
            let counts: Vec<String> = words(text).collect();
            vocabulary
                .iter()
                .map(|w| {
                    let tf = counts.iter().filter(|c| c == w).count() as f64;
                    let df = idf.frequencies[*w] as f64;
                    tf * (idf.documents as f64 / df).ln()
                })
                .collect()
        };
        let k = dense(d);
        let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        downstream
            .iter()
            .map(|q| {
                let q = dense(q);
                let (nk, nq) = (norm(&k), norm(&q));
                if nk == 0.0 || nq == 0.0 {
                    0.0
                } else {
                    k.iter().zip(&q).map(|(a, b)| a * b).sum::<f64>() / (nk * nq)
                }
            })
            .sum()
    }

    fn corpus(rng: &mut fastrand::Rng, documents: usize) -> Vec<String> {
        const WORDS: [&str; 24] = [
            "a", "dog", "cat", "runs", "on", "the", "beach", "red", "boat", "sea", "sunset",
            "over", "city", "street", "at", "night", "green", "field", "with", "flowers", "two",
            "people", "riding", "bikes",
        ];
        (0..documents)
            .map(|_| {
                (0..rng.usize(1..12))
                    .map(|_| WORDS[rng.usize(..WORDS.len())])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    #[test]
    fn relatedness_equals_the_sum_of_cosines_of_eq_2() {
        let mut rng = fastrand::Rng::with_seed(11);
        let pretraining = corpus(&mut rng, 300);
        let mut idf = IdfTable::default();
        for d in &pretraining {
            idf.add_document(d);
        }
        let downstream = corpus(&mut rng, 40);
        let downstream: Vec<&str> = downstream.iter().map(String::as_str).collect();
        let relatedness = Relatedness::new(idf.clone(), downstream.iter().copied());
        for d in pretraining.iter().take(50).map(String::as_str).chain([
            "a dog on the beach",
            "Dog, DOG and dog!",
            "words the corpus never had",
            "",
        ]) {
            let expected = naive(&idf, d, &downstream);
            let got = relatedness.score(d);
            assert!(
                (got as f64 - expected).abs() < 1e-4 * expected.max(1.0),
                "{d:?}: {got} vs {expected}"
            );
        }
        // A downstream text scores about 1 against itself alone.
        let one = Relatedness::new(idf, ["red boat at sunset"]);
        assert!((one.score("red boat at sunset") - 1.0).abs() < 1e-5);
    }

    #[test]
    fn tables_survive_a_round_trip_and_bad_lines_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = dir.path().join("corpus.txt");
        std::fs::write(&corpus, "a red boat\na blue boat\nthe sea\n").unwrap();
        let mut table = IdfTable::from_corpus(&corpus).unwrap();
        assert_eq!(table.documents(), 3);
        assert_eq!(table.idf("boat"), Some((3.0f64 / 2.0).ln() as f32));
        assert_eq!(table.idf("whale"), None);
        let saved = dir.path().join("idf.tsv");
        table.save(&saved).unwrap();
        let loaded = IdfTable::load(&saved).unwrap();
        assert_eq!(loaded.idf("sea"), table.idf("sea"));
        assert_eq!(loaded.len(), table.len());
        table.prune(2);
        assert_eq!(table.len(), 2, "only `a` and `boat` are in two documents");

        std::fs::write(&saved, "#documents 3\nboat\t7\n").unwrap();
        let error = IdfTable::load(&saved).unwrap_err().to_string();
        assert!(error.contains("line 2"), "{error}");
    }
}
