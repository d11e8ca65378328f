//! The scores of seed 001 and of the CLIP-style filters (issue 5), as pure functions over text and
//! images, for the scoring stage to attach to pairs.
//!
//! Built so far: [`relatedness`] (TF-IDF relatedness to a downstream text set, seed 001 eq. 1–2)
//! and [`glove`] (GloVe vectors and the quality score, eq. 3, from given object labels). The
//! scoring stage, CLIP similarity (and with it zero-shot labels) and NSFW are not built yet.

pub mod glove;
pub mod relatedness;
