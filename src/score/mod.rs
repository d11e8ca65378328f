//! The scores of seed 001 and of the CLIP-style filters (issue 5), as pure functions over text and
//! images, for the scoring stage to attach to pairs.
//!
//! Built so far: [`relatedness`] (TF-IDF relatedness to a downstream text set, seed 001 eq. 1–2).
//! The scoring stage, GloVe quality, CLIP similarity and NSFW are not built yet.

pub mod relatedness;
