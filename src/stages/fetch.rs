//! The fetch stage: downloads a candidate's image, checks it, and re-encodes it for training.
//!
//! Order of checks, cheapest first: size limit while downloading; format from the magic bytes (not the
//! Content-Type, which is often wrong); declared dimensions from the header, checked against the pixel
//! limit (decompression bombs are refused before any pixel buffer is allocated) and against the image
//! rules (minimum side, aspect ratio); then decode, resize to `fetch.max_side`, encode JPEG.

use std::sync::Arc;

use image::ImageFormat;
use sha2::{Digest, Sha256};

use crate::config::{FetchConfig, RetryConfig};
use crate::filter::ImageRules;
use crate::imaging;
use crate::reason::Reason;
use crate::record::{Candidate, Image, Pair};
use crate::stage::{Emitter, Failed, Input, Pipelined, StageError, Work, cpu};
use crate::stages::{host_key, pair_key, retry_or_reject};
use crate::web::Web;
use crate::web::http::FetchError;

/// Why an image was refused, with a detail for humans.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageRejection {
    /// Reason code.
    pub reason: Reason,
    /// Detail.
    pub detail: String,
}

fn refuse(reason: Reason, detail: impl Into<String>) -> ImageRejection {
    ImageRejection {
        reason,
        detail: detail.into(),
    }
}

/// The checks on an original's header: the decompression-bomb guard, then the preset's image rules.
pub fn check_header(
    format: &str,
    width: u32,
    height: u32,
    config: &FetchConfig,
    rules: &ImageRules,
) -> Result<(), ImageRejection> {
    if u64::from(width) * u64::from(height) > config.max_pixels {
        return Err(refuse(
            Reason::TooManyPixels,
            format!("{width}x{height} exceeds {} pixels", config.max_pixels),
        ));
    }
    match rules.check(format, width, height) {
        Some((reason, detail)) => Err(refuse(reason, detail)),
        None => Ok(()),
    }
}

/// Turns downloaded bytes into the training image, or says why not. CPU-bound: call off the executor.
pub fn process_image(
    bytes: &[u8],
    config: &FetchConfig,
    rules: &ImageRules,
) -> Result<Image, ImageRejection> {
    let format = image::guess_format(bytes)
        .map_err(|_| refuse(Reason::NotImage, "no known image signature"))?;
    let name = match format {
        ImageFormat::Jpeg => "jpeg",
        ImageFormat::Png => "png",
        ImageFormat::Gif => "gif",
        ImageFormat::WebP => "webp",
        other => {
            return Err(refuse(
                Reason::NotImage,
                format!("unsupported format {other:?}"),
            ));
        }
    };
    let decoder = imaging::Decoder::new(bytes, format)
        .map_err(|e| refuse(Reason::DecodeError, e.to_string()))?;
    let (width, height) = decoder.dimensions();
    check_header(name, width, height, config, rules)?;

    // Eight bytes per pixel (16-bit RGBA, the widest format decoded) plus slack: a decoder that
    // wants more than the header promised is refused.
    let max_alloc = u64::from(width) * u64::from(height) * 8 + (1 << 20);
    let upright = decoder
        .decode_opaque(max_alloc)
        .map_err(|e| refuse(Reason::DecodeError, e.to_string()))?;
    let (target_width, target_height) =
        imaging::fit_within(upright.width(), upright.height(), config.max_side);
    // Most web images need resizing; one that does not is used as decoded (no copy).
    let resized = if (target_width, target_height) == upright.dimensions() {
        upright
    } else {
        imaging::resize(&upright, target_width, target_height)
    };
    let jpeg = imaging::encode_jpeg(&resized, config.jpeg_quality)
        .map_err(|e| refuse(Reason::DecodeError, format!("re-encoding: {e}")))?;
    Ok(Image {
        width: resized.width(),
        height: resized.height(),
        jpeg,
        original_width: width,
        original_height: height,
        original_format: name.to_string(),
        original_bytes: bytes.len() as u64,
        sha256: Sha256::digest(bytes).to_vec(),
        phash: imaging::perceptual_hash(&resized),
    })
}

/// The fetch stage.
pub struct FetchStage {
    web: Arc<Web>,
    config: Arc<FetchConfig>,
    rules: Arc<ImageRules>,
    output: Arc<str>,
    retry: RetryConfig,
    by_content: bool,
}

impl FetchStage {
    /// A fetcher producing pairs to `output`. How many downloads run at once is the web's
    /// (`http.concurrency`); how many candidates wait for them is the runner's
    /// (`runtime.max_in_flight`).
    pub fn new(
        web: Arc<Web>,
        config: FetchConfig,
        rules: ImageRules,
        retry: RetryConfig,
        output: Arc<str>,
    ) -> Self {
        Self {
            retry,
            web,
            config: Arc::new(config),
            rules: Arc::new(rules),
            output,
            by_content: false,
        }
    }

    /// Keys pairs by the SHA-256 of the original image instead of the sample id, so that one dedup
    /// member sees every text of an image.
    pub fn keyed_by_content(mut self, yes: bool) -> Self {
        self.by_content = yes;
        self
    }
}

/// A candidate whose download and processing are over.
pub struct Downloaded {
    topic: Arc<str>,
    candidate: Candidate,
    result: Result<Image, FetchError>,
}

/// Downloads `candidate`'s image politely and turns it into the training image.
async fn fetch(
    web: Arc<Web>,
    config: Arc<FetchConfig>,
    rules: Arc<ImageRules>,
    topic: Arc<str>,
    candidate: Candidate,
) -> Downloaded {
    let result = match web.get(&candidate.image_url, config.max_image_bytes).await {
        Err(error) => Err(error),
        Ok(fetched) => cpu::run(move || process_image(&fetched.body, &config, &rules))
            .await
            .unwrap_or_else(|e| {
                Err(refuse(
                    Reason::DecodeError,
                    format!("decoder panicked: {e}"),
                ))
            })
            .map_err(FetchError::from),
    };
    Downloaded {
        topic,
        candidate,
        result,
    }
}

impl Pipelined for FetchStage {
    type Input = Candidate;
    type Done = Downloaded;

    fn admit(&mut self, input: Input<Candidate>, _out: &mut Emitter) -> Option<Work<Downloaded>> {
        let (web, config, rules) = (self.web.clone(), self.config.clone(), self.rules.clone());
        Some(Box::pin(fetch(
            web,
            config,
            rules,
            input.topic,
            input.record,
        )))
    }

    fn complete(&mut self, done: Downloaded, out: &mut Emitter) -> Result<(), StageError> {
        let Downloaded {
            topic,
            candidate,
            result,
        } = done;
        match result {
            Ok(image) => {
                let key = pair_key(&candidate.id, &image.sha256, self.by_content);
                let pair = Pair {
                    candidate: Some(candidate),
                    image: Some(image),
                };
                out.emit(&self.output, &key, &pair);
            }
            Err(error) => {
                let key = host_key(&candidate.image_url);
                let origin = Failed {
                    topic: &topic,
                    key: &key,
                    id: &candidate.id,
                    url: &candidate.image_url,
                };
                retry_or_reject(
                    out,
                    &self.retry,
                    error,
                    origin,
                    candidate.attempt,
                    |attempt| Candidate {
                        attempt,
                        ..candidate.clone()
                    },
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn config() -> FetchConfig {
        FetchConfig {
            max_side: 64,
            ..FetchConfig::default()
        }
    }

    fn rules() -> ImageRules {
        ImageRules {
            formats: Vec::new(),
            min_side: 10,
            min_longer_side: 0,
            max_aspect: 2.5,
        }
    }

    fn png(width: u32, height: u32) -> Vec<u8> {
        let img =
            image::RgbImage::from_fn(width, height, |x, y| image::Rgb([x as u8, y as u8, 128]));
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, ImageFormat::Png).unwrap();
        out.into_inner()
    }

    #[test]
    fn resizes_keeping_aspect_and_reencodes_jpeg() {
        let bytes = png(200, 100);
        let image = process_image(&bytes, &config(), &rules()).unwrap();
        assert_eq!((image.width, image.height), (64, 32));
        assert_eq!((image.original_width, image.original_height), (200, 100));
        assert_eq!(image.original_format, "png");
        assert_eq!(&image.jpeg[..3], &[0xff, 0xd8, 0xff]);
        assert_eq!(image.sha256, Sha256::digest(&bytes).to_vec());
        let back = image::load_from_memory(&image.jpeg).unwrap();
        assert_eq!((back.width(), back.height()), (64, 32));
    }

    #[test]
    fn small_images_are_not_enlarged() {
        let image = process_image(&png(40, 30), &config(), &rules()).unwrap();
        assert_eq!((image.width, image.height), (40, 30));
    }

    #[test]
    fn rules_reject_with_their_reason() {
        let reason = |bytes: &[u8]| {
            process_image(bytes, &config(), &rules())
                .unwrap_err()
                .reason
        };
        assert_eq!(reason(&png(8, 40)), Reason::TooSmall);
        assert_eq!(reason(&png(300, 100)), Reason::Aspect);
        assert_eq!(reason(b"<html>not an image</html>"), Reason::NotImage);
        let jpeg_only = ImageRules {
            formats: vec!["jpeg".into()],
            ..rules()
        };
        let refused = process_image(&png(40, 30), &config(), &jpeg_only).unwrap_err();
        assert_eq!(refused.reason, Reason::Format);
        let longer = ImageRules {
            min_longer_side: 201,
            ..rules()
        };
        let refused = process_image(&png(200, 150), &config(), &longer).unwrap_err();
        assert_eq!(refused.reason, Reason::TooSmall);
        assert!(process_image(&png(201, 150), &config(), &longer).is_ok());
        let mut truncated = png(50, 50);
        truncated.truncate(60);
        assert_eq!(reason(&truncated), Reason::DecodeError);
    }

    #[test]
    fn decompression_bomb_is_refused_from_its_header() {
        // A GIF whose header declares 65535 x 65535 pixels (4.3 gigapixels) around a 1x1 image: the
        // limit must trip on the header, before a pixel buffer is allocated.
        let img = image::RgbImage::from_pixel(1, 1, image::Rgb([1, 2, 3]));
        let mut gif = Cursor::new(Vec::new());
        img.write_to(&mut gif, ImageFormat::Gif).unwrap();
        let mut bomb = gif.into_inner();
        bomb[6..10].copy_from_slice(&[0xff, 0xff, 0xff, 0xff]);
        let err = process_image(&bomb, &config(), &rules()).unwrap_err();
        assert_eq!(err.reason, Reason::TooManyPixels, "{err:?}");
        assert_eq!(
            check_header("png", 10_000, 10_000, &config(), &rules())
                .unwrap_err()
                .reason,
            Reason::TooManyPixels
        );
    }
}
