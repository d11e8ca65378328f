//! URL lists as a source: files of image URLs with captions (the img2dataset input shape) turned into
//! candidates, streamed so that a list of any size is read in bounded memory.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::config::UrlListConfig;
use crate::record::{Candidate, sample_id};
use crate::sources::{Sink, SourceError, drive};

/// A candidate for one list row; rows without a URL or caption give none.
fn candidate(url: &str, caption: &str, source: &Path) -> Option<Candidate> {
    let url = url.trim();
    let caption = crate::web::html::collapse(caption);
    if url.is_empty() || caption.is_empty() {
        return None;
    }
    Some(Candidate {
        id: sample_id(url, &caption),
        image_url: url.to_string(),
        alt: caption,
        page_url: format!("file://{}", source.display()),
        ..Default::default()
    })
}

/// Reads `list` and calls `each` with candidates in chunks of at most `chunk` (so the caller can send
/// them on with backpressure); returns how many candidates there were.
pub async fn read_url_list<F, Fut>(
    list: &UrlListConfig,
    chunk: usize,
    each: F,
) -> Result<u64, SourceError>
where
    F: FnMut(Vec<Candidate>) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let list = list.clone();
    drive(chunk, move |sink| read_list(&list, sink), each).await
}

fn read_list(list: &UrlListConfig, sink: &mut Sink) -> Result<(), SourceError> {
    let path = &list.path;
    let location = path.display().to_string();
    let io = |source| SourceError::Io {
        location: location.clone(),
        source,
    };
    let row_error = |row: u64, reason: String| SourceError::Row {
        location: location.clone(),
        row,
        reason,
    };
    let missing = |column: &str| SourceError::MissingColumn {
        location: location.clone(),
        column: column.to_string(),
    };
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    macro_rules! push {
        ($candidate:expr) => {
            if let Some(c) = $candidate {
                if !sink.push(c) {
                    return Ok(());
                }
            }
        };
    }
    match extension.as_str() {
        "csv" | "tsv" => {
            let mut reader = csv::ReaderBuilder::new()
                .delimiter(if extension == "tsv" { b'\t' } else { b',' })
                .from_reader(File::open(path).map_err(io)?);
            let headers = reader
                .headers()
                .map_err(|e| row_error(0, e.to_string()))?
                .clone();
            let column = |name: &str| {
                headers
                    .iter()
                    .position(|h| h == name)
                    .ok_or_else(|| missing(name))
            };
            let (url, caption) = (column(&list.url_column)?, column(&list.caption_column)?);
            for (row, record) in reader.records().enumerate() {
                let record = record.map_err(|e| row_error(row as u64 + 1, e.to_string()))?;
                push!(candidate(
                    record.get(url).unwrap_or(""),
                    record.get(caption).unwrap_or(""),
                    path
                ));
            }
        }
        "jsonl" | "json" | "ndjson" => {
            let reader = BufReader::new(File::open(path).map_err(io)?);
            for (row, line) in reader.lines().enumerate() {
                let line = line.map_err(io)?;
                if line.trim().is_empty() {
                    continue;
                }
                let value: serde_json::Value = serde_json::from_str(&line)
                    .map_err(|e| row_error(row as u64 + 1, e.to_string()))?;
                push!(candidate(
                    value[&list.url_column].as_str().unwrap_or(""),
                    value[&list.caption_column].as_str().unwrap_or(""),
                    path
                ));
            }
        }
        "parquet" => {
            use arrow_array::{Array, StringArray};
            use parquet::arrow::ProjectionMask;
            use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

            let parquet_error = |e: parquet::errors::ParquetError| row_error(0, e.to_string());
            let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).map_err(io)?)
                .map_err(parquet_error)?;
            let schema = builder.schema().clone();
            for name in [&list.url_column, &list.caption_column] {
                if schema.field_with_name(name).is_err() {
                    return Err(missing(name));
                }
            }
            let mask = ProjectionMask::columns(
                builder.parquet_schema(),
                [list.url_column.as_str(), list.caption_column.as_str()],
            );
            // Record batches of 8192 rows: memory stays bounded whatever the file size.
            let reader = builder
                .with_projection(mask)
                .with_batch_size(8192)
                .build()
                .map_err(parquet_error)?;
            let mut rows = 0u64;
            for batch_result in reader {
                let record_batch = batch_result.map_err(|e| row_error(rows + 1, e.to_string()))?;
                let text = |name: &str| -> Result<StringArray, SourceError> {
                    let column = record_batch.column_by_name(name).expect("projected above");
                    arrow_cast_utf8(column)
                        .ok_or_else(|| row_error(rows + 1, format!("column `{name}` is not text")))
                };
                let (urls, captions) = (text(&list.url_column)?, text(&list.caption_column)?);
                rows += urls.len() as u64;
                for i in 0..urls.len() {
                    if urls.is_null(i) || captions.is_null(i) {
                        continue;
                    }
                    push!(candidate(urls.value(i), captions.value(i), path));
                }
            }
        }
        _ => return Err(SourceError::Format(location)),
    }
    Ok(())
}

/// A UTF-8 view of a string column (plain or large).
fn arrow_cast_utf8(column: &arrow_array::ArrayRef) -> Option<arrow_array::StringArray> {
    use arrow_array::Array;
    if let Some(strings) = column.as_any().downcast_ref::<arrow_array::StringArray>() {
        return Some(strings.clone());
    }
    column
        .as_any()
        .downcast_ref::<arrow_array::LargeStringArray>()
        .map(|large| large.iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn read(path: &Path, url: &str, caption: &str) -> Result<Vec<Candidate>, SourceError> {
        let list = UrlListConfig {
            path: path.to_path_buf(),
            url_column: url.into(),
            caption_column: caption.into(),
        };
        let mut all = Vec::new();
        read_url_list(&list, 2, |chunk| {
            assert!(chunk.len() <= 2);
            all.extend(chunk);
            async {}
        })
        .await?;
        Ok(all)
    }

    #[tokio::test]
    async fn csv_and_jsonl_lists() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("list.csv");
        std::fs::write(
            &csv,
            "url,caption,extra\nhttp://a/1.jpg,\"a red boat, at sea\",x\nhttp://a/2.jpg,,y\nhttp://a/3.jpg,a  cat,z\n",
        )
        .unwrap();
        let rows = read(&csv, "url", "caption").await.unwrap();
        let got: Vec<(&str, &str)> = rows
            .iter()
            .map(|c| (c.image_url.as_str(), c.alt.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("http://a/1.jpg", "a red boat, at sea"),
                ("http://a/3.jpg", "a cat")
            ]
        );
        assert_eq!(
            rows[0].id,
            sample_id("http://a/1.jpg", "a red boat, at sea")
        );
        let err = read(&csv, "image", "caption")
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains("`image`"), "{err}");

        let jsonl = dir.path().join("list.jsonl");
        std::fs::write(
            &jsonl,
            "{\"u\":\"http://a/1.jpg\",\"t\":\"one two three\"}\n\n{broken\n",
        )
        .unwrap();
        let err = read(&jsonl, "u", "t").await.unwrap_err().to_string();
        assert!(err.contains("row 3"), "{err}");
        let unknown = dir.path().join("list.xml");
        std::fs::write(&unknown, "<x/>").unwrap();
        assert!(matches!(
            read(&unknown, "u", "t").await,
            Err(SourceError::Format(_))
        ));
    }
}
