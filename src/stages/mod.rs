//! The pipeline's stages, one module each. The writer lives in [`crate::writer`].

pub mod crawl;
pub mod fetch;
pub mod filter;
