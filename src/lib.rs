//! altflow: a streaming dataflow job that turns a web crawl into vision-language training data.
//!
//! Stages (crawl → filter → fetch → score → dedup → write) are independent consumers and producers on a [`bus`]:
//! in one process on the embedded bus, or as separate processes on a Kafka-protocol broker. The
//! [`writer`] produces WebDataset tar shards and Parquet indexes in object storage.
//!
//! Where to look: the stage trait and its runner in [`stage`], the bus interface and backends in
//! [`bus`], records in [`record`], the stages in [`stages`] and [`writer`], the scorers (CLIP,
//! GloVe quality, TF-IDF relatedness, NSFW) in [`score`], pipeline files in [`config`], how a run
//! is assembled in [`app`].

#![warn(missing_docs)]

pub mod app;
pub mod bounded;
pub mod bus;
pub mod checkpoint;
pub mod config;
pub mod filter;
pub mod health;
pub mod imaging;
pub mod metrics;
pub mod qgen;
#[cfg(feature = "sql")]
pub mod query;
pub mod reason;
pub mod record;
pub mod score;
pub mod sources;
pub mod stage;
pub mod stages;
mod sync;
pub mod web;
pub mod writer;
