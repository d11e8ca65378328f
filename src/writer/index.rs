//! The Parquet index written next to each shard: one row per sample, everything but the image, so
//! that DataFusion or pyarrow can select samples without reading tars.

use std::sync::Arc;

use arrow_array::builder::{
    ArrayBuilder, Float32Builder, Int32Builder, Int64Builder, ListBuilder, StringBuilder,
    StructBuilder, UInt32Builder, UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use crate::record::{Candidate, Image, Sample};
use crate::score::SCORES;

/// The index schema. Columns are only ever added, never renamed, so old readers keep working.
pub fn schema() -> SchemaRef {
    let mut fields = vec![
        Field::new("key", DataType::Utf8, false),
        Field::new("caption", DataType::Utf8, false),
        Field::new("alt", DataType::Utf8, false),
        Field::new("page_url", DataType::Utf8, false),
        Field::new("image_url", DataType::Utf8, false),
        Field::new("page_title", DataType::Utf8, false),
        Field::new("width", DataType::UInt32, false),
        Field::new("height", DataType::UInt32, false),
        Field::new("original_width", DataType::UInt32, false),
        Field::new("original_height", DataType::UInt32, false),
        Field::new("original_format", DataType::Utf8, false),
        Field::new("original_bytes", DataType::UInt64, false),
        Field::new("sha256", DataType::Utf8, false),
        Field::new("phash", DataType::UInt64, false),
        Field::new("jpg_offset", DataType::UInt64, false),
        Field::new("jpg_bytes", DataType::UInt64, false),
        Field::new("source_partition", DataType::Int32, false),
        Field::new("source_offset", DataType::Int64, false),
    ];
    // One nullable column per score the scoring stage can attach (null: not scored), so that
    // selection by score is plain SQL over the index.
    fields.extend(
        SCORES
            .iter()
            .map(|name| Field::new(*name, DataType::Float32, true)),
    );
    fields.push(Field::new(
        "labels",
        DataType::List(Arc::new(Field::new_list_field(DataType::Utf8, true))),
        false,
    ));
    // The qgen stage's questions (empty without it): `SELECT … FROM index, unnest(qa)` selects
    // by answer type.
    fields.push(Field::new(
        "qa",
        DataType::List(Arc::new(Field::new_list_field(
            DataType::Struct(qa_fields()),
            true,
        ))),
        false,
    ));
    // The tar the row's sample is in (its name under the output), so that a query's rows locate
    // their images: `altflow query --select` and the trainers' reader need it.
    fields.push(Field::new("shard", DataType::Utf8, false));
    Arc::new(Schema::new(fields))
}

/// The fields of one question–answer pair in the index.
fn qa_fields() -> Fields {
    Fields::from(vec![
        Field::new("question", DataType::Utf8, false),
        Field::new("answer", DataType::Utf8, false),
        Field::new("answer_type", DataType::Utf8, false),
        Field::new("source", DataType::Utf8, false),
        Field::new("f1", DataType::Float32, false),
    ])
}

fn qa_builder() -> ListBuilder<StructBuilder> {
    let builders: Vec<Box<dyn ArrayBuilder>> = vec![
        Box::new(StringBuilder::new()),
        Box::new(StringBuilder::new()),
        Box::new(StringBuilder::new()),
        Box::new(StringBuilder::new()),
        Box::new(Float32Builder::new()),
    ];
    ListBuilder::new(StructBuilder::new(qa_fields(), builders))
}

/// Accumulates index rows for one shard.
pub struct IndexBuilder {
    key: StringBuilder,
    caption: StringBuilder,
    alt: StringBuilder,
    page_url: StringBuilder,
    image_url: StringBuilder,
    page_title: StringBuilder,
    width: UInt32Builder,
    height: UInt32Builder,
    original_width: UInt32Builder,
    original_height: UInt32Builder,
    original_format: StringBuilder,
    original_bytes: UInt64Builder,
    sha256: StringBuilder,
    phash: UInt64Builder,
    jpg_offset: UInt64Builder,
    jpg_bytes: UInt64Builder,
    source_partition: Int32Builder,
    source_offset: Int64Builder,
    scores: Vec<Float32Builder>,
    labels: ListBuilder<StringBuilder>,
    qa: ListBuilder<StructBuilder>,
}

impl Default for IndexBuilder {
    fn default() -> Self {
        Self {
            key: StringBuilder::new(),
            caption: StringBuilder::new(),
            alt: StringBuilder::new(),
            page_url: StringBuilder::new(),
            image_url: StringBuilder::new(),
            page_title: StringBuilder::new(),
            width: UInt32Builder::new(),
            height: UInt32Builder::new(),
            original_width: UInt32Builder::new(),
            original_height: UInt32Builder::new(),
            original_format: StringBuilder::new(),
            original_bytes: UInt64Builder::new(),
            sha256: StringBuilder::new(),
            phash: UInt64Builder::new(),
            jpg_offset: UInt64Builder::new(),
            jpg_bytes: UInt64Builder::new(),
            source_partition: Int32Builder::new(),
            source_offset: Int64Builder::new(),
            scores: SCORES.iter().map(|_| Float32Builder::new()).collect(),
            labels: ListBuilder::new(StringBuilder::new()),
            qa: qa_builder(),
        }
    }
}

/// Where a sample's image sits in the tar and where the sample came from.
pub struct Placement {
    /// Byte offset of the `.jpg` member's data in the tar.
    pub jpg_offset: u64,
    /// Input partition.
    pub partition: i32,
    /// Input offset.
    pub offset: i64,
}

impl IndexBuilder {
    /// Adds the row of `sample` (which must carry a candidate and an image).
    pub fn push(&mut self, sample: &Sample, placement: &Placement) {
        let empty = (Candidate::default(), Image::default());
        let candidate = sample.candidate.as_ref().unwrap_or(&empty.0);
        let image = sample.image.as_ref().unwrap_or(&empty.1);
        self.key.append_value(&candidate.id);
        self.caption.append_value(sample.caption());
        self.alt.append_value(&candidate.alt);
        self.page_url.append_value(&candidate.page_url);
        self.image_url.append_value(&candidate.image_url);
        self.page_title.append_value(&candidate.page_title);
        self.width.append_value(image.width);
        self.height.append_value(image.height);
        self.original_width.append_value(image.original_width);
        self.original_height.append_value(image.original_height);
        self.original_format.append_value(&image.original_format);
        self.original_bytes.append_value(image.original_bytes);
        self.sha256.append_value(hex::encode(&image.sha256));
        self.phash.append_value(image.phash);
        self.jpg_offset.append_value(placement.jpg_offset);
        self.jpg_bytes.append_value(image.jpeg.len() as u64);
        self.source_partition.append_value(placement.partition);
        self.source_offset.append_value(placement.offset);
        for (builder, name) in self.scores.iter_mut().zip(SCORES) {
            builder.append_option(sample.scores.get(name).copied());
        }
        for label in &sample.labels {
            self.labels.values().append_value(label);
        }
        self.labels.append(true);
        let pairs = self.qa.values();
        for qa in &sample.qa {
            for (i, text) in [&qa.question, &qa.answer, &qa.answer_type, &qa.source]
                .into_iter()
                .enumerate()
            {
                pairs
                    .field_builder::<StringBuilder>(i)
                    .expect("qa field i is a string")
                    .append_value(text);
            }
            pairs
                .field_builder::<Float32Builder>(4)
                .expect("qa field 4 is f1")
                .append_value(qa.f1);
            pairs.append(true);
        }
        self.qa.append(true);
    }

    /// Encodes the rows of the shard named `shard` (its tar's name) as a Parquet file.
    pub fn finish(mut self, shard: &str) -> Result<Vec<u8>, parquet::errors::ParquetError> {
        let rows = self.key.len();
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(self.key.finish()),
            Arc::new(self.caption.finish()),
            Arc::new(self.alt.finish()),
            Arc::new(self.page_url.finish()),
            Arc::new(self.image_url.finish()),
            Arc::new(self.page_title.finish()),
            Arc::new(self.width.finish()),
            Arc::new(self.height.finish()),
            Arc::new(self.original_width.finish()),
            Arc::new(self.original_height.finish()),
            Arc::new(self.original_format.finish()),
            Arc::new(self.original_bytes.finish()),
            Arc::new(self.sha256.finish()),
            Arc::new(self.phash.finish()),
            Arc::new(self.jpg_offset.finish()),
            Arc::new(self.jpg_bytes.finish()),
            Arc::new(self.source_partition.finish()),
            Arc::new(self.source_offset.finish()),
        ];
        for mut builder in self.scores {
            columns.push(Arc::new(builder.finish()));
        }
        columns.push(Arc::new(self.labels.finish()));
        columns.push(Arc::new(self.qa.finish()));
        columns.push(Arc::new(arrow_array::StringArray::from_iter_values(
            std::iter::repeat_n(shard, rows),
        )));
        encode_parquet(RecordBatch::try_new(schema(), columns)?)
    }
}

/// One record batch as a Snappy-compressed Parquet file.
pub fn encode_parquet(batch: RecordBatch) -> Result<Vec<u8>, parquet::errors::ParquetError> {
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(props))?;
    writer.write(&batch)?;
    writer.close()?;
    Ok(out)
}

/// What an adoption needs of an index file: its keys, in row order, and the last input offset it
/// holds.
#[derive(Debug, Default, PartialEq)]
pub struct Written {
    /// The `key` column.
    pub keys: Vec<String>,
    /// The largest `source_offset`; `None` for an index without rows.
    pub last_offset: Option<i64>,
}

/// Reads the `key` and `source_offset` columns of an index file.
pub fn read_written(parquet: bytes::Bytes) -> Result<Written, parquet::errors::ParquetError> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use parquet::arrow::ProjectionMask;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::errors::ParquetError;

    let builder = ParquetRecordBatchReaderBuilder::try_new(parquet)?;
    let mask = ProjectionMask::columns(builder.parquet_schema(), ["key", "source_offset"]);
    let reader = builder.with_projection(mask).build()?;
    let mut written = Written::default();
    for batch in reader {
        let batch = batch?;
        let column = |name: &str| {
            batch
                .column_by_name(name)
                .ok_or_else(|| ParquetError::General(format!("no `{name}` column")))
        };
        let keys = column("key")?
            .as_string_opt::<i32>()
            .ok_or_else(|| ParquetError::General("`key` is not a string column".into()))?;
        let offsets = column("source_offset")?
            .as_primitive_opt::<Int64Type>()
            .ok_or_else(|| {
                ParquetError::General("`source_offset` is not an int64 column".into())
            })?;
        written
            .keys
            .extend(keys.iter().map(|k| k.unwrap_or_default().to_string()));
        let last = offsets.iter().flatten().max();
        written.last_offset = written.last_offset.max(last);
    }
    Ok(written)
}
