//! Image operations of the fetch stage: decoding with EXIF orientation applied, SIMD bicubic resizing
//! (fast_image_resize), SIMD JPEG encoding (jpeg-encoder), and a 64-bit perceptual hash for
//! near-duplicate detection.

use fast_image_resize::{FilterType, ResizeAlg, ResizeOptions, Resizer};
use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits, RgbImage};

/// Decodes `bytes` (of a known `format`) within `limits`, and turns the image upright as its EXIF
/// orientation says (phone photos are often stored sideways).
pub fn decode_upright(
    bytes: &[u8],
    format: ImageFormat,
    limits: Limits,
) -> image::ImageResult<DynamicImage> {
    let mut reader = ImageReader::with_format(std::io::Cursor::new(bytes), format);
    reader.limits(limits);
    let mut decoder = reader.into_decoder()?;
    let orientation = decoder.orientation()?;
    let mut image = DynamicImage::from_decoder(decoder)?;
    image.apply_orientation(orientation);
    Ok(image)
}

/// The image as RGB, transparent parts laid on white (as a browser shows them on a white page; simply
/// dropping alpha would expose whatever colour the transparent pixels happen to store).
pub fn flatten_on_white(image: DynamicImage) -> RgbImage {
    if !image.color().has_alpha() {
        return image.into_rgb8();
    }
    let rgba = image.into_rgba8();
    RgbImage::from_fn(rgba.width(), rgba.height(), |x, y| {
        let [r, g, b, a] = rgba.get_pixel(x, y).0;
        let blend =
            |c: u8| ((u16::from(c) * u16::from(a) + 255 * (255 - u16::from(a)) + 127) / 255) as u8;
        image::Rgb([blend(r), blend(g), blend(b)])
    })
}

/// The size that fits `width × height` within `max_side × max_side` keeping the aspect ratio
/// (never enlarging, never below one pixel).
pub fn fit_within(width: u32, height: u32, max_side: u32) -> (u32, u32) {
    let longer = width.max(height);
    if longer <= max_side {
        return (width, height);
    }
    let scale = f64::from(max_side) / f64::from(longer);
    let scaled = |side: u32| ((f64::from(side) * scale).round() as u32).clamp(1, max_side);
    (scaled(width), scaled(height))
}

/// Resizes with a bicubic (Catmull-Rom) convolution, the filter CLIP-style preprocessing uses, with
/// the CPU's SIMD extensions. The filter's support scales with the reduction, so downscaling
/// averages every source pixel (no aliasing).
pub fn resize(image: &RgbImage, width: u32, height: u32) -> RgbImage {
    resize_with(image, width, height, FilterType::CatmullRom)
}

/// Resizes with the convolution `filter` (SIMD, support scaled with the reduction as Pillow does).
pub fn resize_with(image: &RgbImage, width: u32, height: u32, filter: FilterType) -> RgbImage {
    if (width, height) == image.dimensions() {
        return image.clone();
    }
    // One resizer per thread: it keeps its scratch buffers between images.
    thread_local! {
        static RESIZER: std::cell::RefCell<Resizer> = std::cell::RefCell::new(Resizer::new());
    }
    let mut target = RgbImage::new(width, height);
    let options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(filter));
    RESIZER.with_borrow_mut(|resizer| {
        resizer
            .resize(image, &mut target, &options)
            .expect("both images are RGB8 of non-zero size")
    });
    target
}

/// Why an image could not be encoded as JPEG.
#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    /// JPEG stores each side in 16 bits.
    #[error("{width}x{height} exceeds JPEG's limit of 65535 pixels per side")]
    TooLarge {
        /// Width of the image.
        width: u32,
        /// Height of the image.
        height: u32,
    },
    /// The encoder failed.
    #[error(transparent)]
    Jpeg(#[from] jpeg_encoder::EncodingError),
}

/// Encodes an RGB image as a baseline JPEG at `quality` (1–100), with the AVX2 forward DCT and colour
/// conversion where the CPU has them (see `benches/pipeline.rs` for its speed against the image
/// crate's encoder).
pub fn encode_jpeg(image: &RgbImage, quality: u8) -> Result<Vec<u8>, EncodeError> {
    let (width, height) = image.dimensions();
    let (Ok(w), Ok(h)) = (u16::try_from(width), u16::try_from(height)) else {
        return Err(EncodeError::TooLarge { width, height });
    };
    let mut jpeg = Vec::with_capacity(image.as_raw().len() / 8);
    let mut encoder = jpeg_encoder::Encoder::new(&mut jpeg, quality);
    // Chroma at half resolution both ways (4:2:0), as libjpeg, Pillow and OpenCV write by default;
    // the encoder would switch to full-resolution chroma at quality 90 and above, which costs a
    // third more time and bytes for a difference a training image does not need.
    encoder.set_sampling_factor(jpeg_encoder::SamplingFactor::R_4_2_0);
    encoder.encode(image.as_raw(), w, h, jpeg_encoder::ColorType::Rgb)?;
    Ok(jpeg)
}

/// Side of the grayscale square the hash is computed on.
const HASH_SIDE: usize = 32;
/// Side of the block of low frequencies kept.
const HASH_BLOCK: usize = 8;

/// A 64-bit perceptual hash (the DCT "pHash"): the image shrunk to 32×32 gray, its 2-D DCT, and one
/// bit per coefficient of the 8×8 lowest frequencies telling whether it is above their median.
/// Visually similar images differ in few bits; compare with [`hamming`].
pub fn perceptual_hash(image: &RgbImage) -> u64 {
    // A triangle filter: smooth enough that the shrunken image hardly depends on the source's size
    // (which the hash's stability under resizing rests on; a box filter flipped 12 of 64 bits in the
    // test below), with a third of Lanczos3's taps (at 512 → 32 px Lanczos3 weighed 96 pixels per
    // output and cost as much as the main resize).
    let small = resize_with(
        image,
        HASH_SIDE as u32,
        HASH_SIDE as u32,
        FilterType::Bilinear,
    );
    let gray: Vec<f64> = small
        .pixels()
        .map(|p| 0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2]))
        .collect();
    // Separable DCT-II: rows, then columns, keeping only the low frequencies needed.
    let basis: Vec<Vec<f64>> = (0..HASH_BLOCK)
        .map(|k| {
            (0..HASH_SIDE)
                .map(|n| {
                    (std::f64::consts::PI / HASH_SIDE as f64 * (n as f64 + 0.5) * k as f64).cos()
                })
                .collect()
        })
        .collect();
    let mut rows = vec![[0.0f64; HASH_BLOCK]; HASH_SIDE];
    for (y, row) in rows.iter_mut().enumerate() {
        for (k, value) in row.iter_mut().enumerate() {
            *value = (0..HASH_SIDE)
                .map(|x| gray[y * HASH_SIDE + x] * basis[k][x])
                .sum();
        }
    }
    let mut coefficients = [0.0f64; HASH_BLOCK * HASH_BLOCK];
    for v in 0..HASH_BLOCK {
        for u in 0..HASH_BLOCK {
            coefficients[v * HASH_BLOCK + u] =
                (0..HASH_SIDE).map(|y| rows[y][u] * basis[v][y]).sum();
        }
    }
    // The DC term measures brightness, not structure: leave it out of the median.
    let mut sorted = coefficients[1..].to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    coefficients.iter().enumerate().fold(
        0u64,
        |hash, (i, c)| if *c > median { hash | (1 << i) } else { hash },
    )
}

/// Number of differing bits between two perceptual hashes.
pub fn hamming(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene(width: u32, height: u32, shift: u8) -> RgbImage {
        RgbImage::from_fn(width, height, |x, y| {
            let sky = y < height / 2;
            let sun = (x as i64 - width as i64 / 3).pow(2) + (y as i64 - height as i64 / 4).pow(2)
                < (width as i64 / 10).pow(2);
            match (sun, sky) {
                (true, _) => image::Rgb([250, 200u8.saturating_add(shift), 40]),
                (false, true) => image::Rgb([90, 140, 220u8.saturating_sub(shift)]),
                (false, false) => image::Rgb([30u8.saturating_add(shift), 120, 60]),
            }
        })
    }

    #[test]
    fn transparent_pixels_become_white() {
        let mut rgba = image::RgbaImage::from_pixel(2, 1, image::Rgba([0, 0, 0, 0]));
        rgba.put_pixel(1, 0, image::Rgba([10, 20, 30, 255]));
        let flat = flatten_on_white(DynamicImage::ImageRgba8(rgba));
        assert_eq!(flat.get_pixel(0, 0).0, [255, 255, 255]);
        assert_eq!(flat.get_pixel(1, 0).0, [10, 20, 30]);
    }

    #[test]
    fn fit_keeps_aspect_and_never_enlarges() {
        assert_eq!(fit_within(1200, 800, 512), (512, 341));
        assert_eq!(fit_within(800, 1200, 512), (341, 512));
        assert_eq!(fit_within(300, 200, 512), (300, 200));
        assert_eq!(fit_within(10_000, 1, 512), (512, 1));
    }

    #[test]
    fn resize_produces_the_requested_size() {
        let out = resize(&scene(640, 480, 0), 320, 240);
        assert_eq!(out.dimensions(), (320, 240));
        // The sky stays blue-ish after filtering.
        let p = out.get_pixel(300, 10);
        assert!(p[2] > p[0], "{p:?}");
    }

    #[test]
    fn perceptual_hash_is_stable_under_resizing_and_small_changes() {
        let original = scene(800, 600, 0);
        let hash = perceptual_hash(&original);
        let smaller = perceptual_hash(&resize(&original, 400, 300));
        let tinted = perceptual_hash(&scene(800, 600, 12));
        assert!(hamming(hash, smaller) <= 4, "{}", hamming(hash, smaller));
        assert!(hamming(hash, tinted) <= 8, "{}", hamming(hash, tinted));
        // A different picture: the scene upside down.
        let mut flipped = original.clone();
        image::imageops::flip_vertical_in_place(&mut flipped);
        assert!(hamming(hash, perceptual_hash(&flipped)) >= 16);
    }

    #[test]
    fn exif_orientation_is_applied() {
        // A 4x2 JPEG with an EXIF APP1 segment saying "rotate 90° clockwise" (orientation 6).
        let mut jpeg = Vec::new();
        image::codecs::jpeg::JpegEncoder::new(&mut jpeg)
            .encode_image(&DynamicImage::ImageRgb8(RgbImage::new(4, 2)))
            .unwrap();
        let exif: Vec<u8> = [
            b"Exif\0\0".as_slice(),
            b"MM\0\x2a\0\0\0\x08", // big-endian TIFF header, IFD at 8
            b"\0\x01",             // one entry
            b"\x01\x12\0\x03\0\0\0\x01\0\x06\0\0", // Orientation, SHORT, 1, value 6
            b"\0\0\0\0",           // no next IFD
        ]
        .concat();
        let mut segment = vec![0xff, 0xe1];
        segment.extend_from_slice(&((exif.len() + 2) as u16).to_be_bytes());
        segment.extend_from_slice(&exif);
        jpeg.splice(2..2, segment);
        let image = decode_upright(&jpeg, ImageFormat::Jpeg, Limits::default()).unwrap();
        assert_eq!((image.width(), image.height()), (2, 4));
    }
}
