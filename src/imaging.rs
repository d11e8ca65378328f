//! Image operations of the fetch stage: decoding to opaque RGBA with EXIF orientation applied, SIMD
//! bicubic resizing (fast_image_resize), SIMD JPEG encoding (libjpeg-turbo, or the jpeg-encoder
//! crate where it is missing), and a 64-bit perceptual hash for near-duplicate detection.

use fast_image_resize::{
    FilterType, IntoImageView, IntoImageViewMut, ResizeAlg, ResizeOptions, Resizer,
};
use image::metadata::Orientation;
use image::{
    DynamicImage, ImageBuffer, ImageDecoder, ImageError, ImageFormat, ImageReader, ImageResult,
    Pixel, Rgb, RgbImage, Rgba, RgbaImage,
};
use zune_core::bytestream::ZCursor;
use zune_core::colorspace::ColorSpace;
use zune_core::options::DecoderOptions;

/// An image whose header has been read but none of its pixels: its size is known first, so that a
/// decompression bomb is refused before any pixel buffer is allocated.
pub struct Decoder<'a> {
    inner: Inner<'a>,
    width: u32,
    height: u32,
}

enum Inner<'a> {
    /// JPEG, nearly every web image, goes straight to zune-jpeg (the decoder the image crate wraps):
    /// its header is parsed once instead of three times, the input is not copied, and the pixels
    /// come out as RGBA, which the resizer and the encoders take faster than RGB (docs/performance.md,
    /// "Fetching from a server").
    Jpeg(Box<zune_jpeg::JpegDecoder<ZCursor<&'a [u8]>>>),
    /// The other formats, through the image crate.
    Other(Box<dyn ImageDecoder + 'a>),
}

impl<'a> Decoder<'a> {
    /// Reads the header of `bytes`, an image in `format`.
    pub fn new(bytes: &'a [u8], format: ImageFormat) -> ImageResult<Self> {
        if format == ImageFormat::Jpeg {
            // Not strict: slightly malformed JPEGs are common on the web and decode fine. Any
            // side JPEG can store is let through (zune's default stops at 16384): the caller
            // judges the size from `dimensions` before decoding.
            let options = DecoderOptions::default()
                .set_strict_mode(false)
                .set_max_width(usize::from(u16::MAX))
                .set_max_height(usize::from(u16::MAX));
            // The colour conversion is chosen while the header is parsed, so the output layout
            // must be set before: RGBA, which zune converts to from YCbCr and grey (nearly every
            // JPEG). The rest (CMYK, YCCK, RGB: zune leaves the alpha byte of CMYK undefined) comes
            // out as RGB, through a second parse.
            let header = |output: ColorSpace| {
                let options = options.jpeg_set_out_colorspace(output);
                let mut decoder =
                    zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(bytes), options);
                decoder
                    .decode_headers()
                    .map_err(jpeg_error)
                    .map(|()| decoder)
            };
            let mut decoder = header(ColorSpace::RGBA)?;
            let input = decoder
                .input_colorspace()
                .expect("the headers were decoded");
            if !matches!(input, ColorSpace::YCbCr | ColorSpace::Luma) {
                decoder = header(ColorSpace::RGB)?;
            }
            let (width, height) = decoder.dimensions().expect("the headers were decoded");
            return Ok(Self {
                inner: Inner::Jpeg(Box::new(decoder)),
                width: width as u32,
                height: height as u32,
            });
        }
        let decoder =
            ImageReader::with_format(std::io::Cursor::new(bytes), format).into_decoder()?;
        let (width, height) = decoder.dimensions();
        Ok(Self {
            inner: Inner::Other(Box::new(decoder)),
            width,
            height,
        })
    }

    /// Width and height as the header declares them (before any EXIF rotation).
    pub fn dimensions(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Decodes the pixels as opaque RGBA (transparent parts laid on white, as a browser shows them
    /// on a white page: simply dropping alpha would expose whatever colour the transparent pixels
    /// happen to store), turned upright as the EXIF orientation says (phone photos are often
    /// stored sideways). A decoder that would need more than `max_alloc` bytes is refused.
    pub fn decode_opaque(self, max_alloc: u64) -> ImageResult<RgbaImage> {
        let limit_error = || {
            ImageError::Limits(image::error::LimitError::from_kind(
                image::error::LimitErrorKind::InsufficientMemory,
            ))
        };
        match self.inner {
            Inner::Jpeg(mut decoder) => {
                let rgba = decoder.output_colorspace() == Some(ColorSpace::RGBA);
                let needed = u64::from(self.width) * u64::from(self.height) * 4;
                if needed > max_alloc {
                    return Err(limit_error());
                }
                let pixels = decoder.decode().map_err(jpeg_error)?;
                let orientation = decoder
                    .exif()
                    .and_then(|exif| Orientation::from_exif_chunk(exif))
                    .unwrap_or(Orientation::NoTransforms);
                let mut image = if rgba {
                    RgbaImage::from_raw(self.width, self.height, pixels).map(DynamicImage::from)
                } else {
                    RgbImage::from_raw(self.width, self.height, pixels).map(DynamicImage::from)
                }
                .ok_or_else(|| {
                    jpeg_error(zune_jpeg::errors::DecodeErrors::Format(
                        "decoded fewer pixels than the header declares".into(),
                    ))
                })?;
                image.apply_orientation(orientation);
                Ok(image.into_rgba8())
            }
            Inner::Other(mut decoder) => {
                if decoder.total_bytes() > max_alloc {
                    return Err(limit_error());
                }
                let mut limits = image::Limits::default();
                limits.max_image_width = Some(self.width);
                limits.max_image_height = Some(self.height);
                limits.max_alloc = Some(max_alloc);
                decoder.set_limits(limits)?;
                let orientation = decoder.orientation()?;
                let mut image = DynamicImage::from_decoder(decoder)?;
                image.apply_orientation(orientation);
                let has_alpha = image.color().has_alpha();
                let mut rgba = image.into_rgba8();
                if has_alpha {
                    for pixel in rgba.pixels_mut() {
                        let [r, g, b, a] = pixel.0;
                        let blend = |c: u8| {
                            ((u16::from(c) * u16::from(a) + 255 * (255 - u16::from(a)) + 127) / 255)
                                as u8
                        };
                        *pixel = Rgba([blend(r), blend(g), blend(b), 255]);
                    }
                }
                Ok(rgba)
            }
        }
    }
}

fn jpeg_error(error: zune_jpeg::errors::DecodeErrors) -> ImageError {
    ImageError::Decoding(image::error::DecodingError::new(
        ImageFormat::Jpeg.into(),
        error,
    ))
}

/// 8-bit colour pixels that the resizer and the JPEG encoder take: RGB, and RGBA whose alpha is
/// ignored (the fetch stage works on opaque RGBA, see [`Decoder`]).
pub trait Color: Pixel<Subpixel = u8> {
    /// The layout as the JPEG encoder names it.
    const JPEG: jpeg_encoder::ColorType;
}

impl Color for Rgb<u8> {
    const JPEG: jpeg_encoder::ColorType = jpeg_encoder::ColorType::Rgb;
}

impl Color for Rgba<u8> {
    const JPEG: jpeg_encoder::ColorType = jpeg_encoder::ColorType::Rgba;
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
pub fn resize<P: Color>(
    image: &ImageBuffer<P, Vec<u8>>,
    width: u32,
    height: u32,
) -> ImageBuffer<P, Vec<u8>>
where
    ImageBuffer<P, Vec<u8>>: IntoImageView + IntoImageViewMut,
{
    resize_with(image, width, height, FilterType::CatmullRom)
}

/// Resizes with the convolution `filter` (SIMD, support scaled with the reduction as Pillow does).
/// An alpha channel is resized as any other: [`Decoder`]'s images are opaque.
pub fn resize_with<P: Color>(
    image: &ImageBuffer<P, Vec<u8>>,
    width: u32,
    height: u32,
    filter: FilterType,
) -> ImageBuffer<P, Vec<u8>>
where
    ImageBuffer<P, Vec<u8>>: IntoImageView + IntoImageViewMut,
{
    if (width, height) == image.dimensions() {
        return image.clone();
    }
    // One resizer per thread: it keeps its scratch buffers between images.
    thread_local! {
        static RESIZER: std::cell::RefCell<Resizer> = std::cell::RefCell::new(Resizer::new());
    }
    let mut target = ImageBuffer::new(width, height);
    let options = ResizeOptions::new()
        .resize_alg(ResizeAlg::Convolution(filter))
        .use_alpha(false);
    RESIZER.with_borrow_mut(|resizer| {
        resizer
            .resize(image, &mut target, &options)
            .expect("both images have the same 8-bit layout and a non-zero size")
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
    /// The pure-Rust encoder failed.
    #[error(transparent)]
    Jpeg(#[from] jpeg_encoder::EncodingError),
    /// libjpeg-turbo failed, with its message.
    #[error("libjpeg-turbo: {0}")]
    Libjpeg(String),
}

/// The JPEG encoder of this build: `libjpeg-turbo` (SIMD, 2.5–3 times faster), or
/// `jpeg-encoder` where build.rs found no libjpeg-turbo headers.
pub const JPEG_ENCODER: &str = if cfg!(libjpeg) {
    "libjpeg-turbo"
} else {
    "jpeg-encoder"
};

/// Encodes an RGB(A) image as a baseline JPEG at `quality` (1–100) with 4:2:0 chroma, through
/// [`JPEG_ENCODER`].
pub fn encode_jpeg<P: Color>(
    image: &ImageBuffer<P, Vec<u8>>,
    quality: u8,
) -> Result<Vec<u8>, EncodeError> {
    #[cfg(libjpeg)]
    {
        let (width, height) = jpeg_size(image)?;
        libjpeg::encode(image.as_raw(), width, height, P::CHANNEL_COUNT, quality)
            .map_err(EncodeError::Libjpeg)
    }
    #[cfg(not(libjpeg))]
    encode_jpeg_rust(image, quality)
}

/// Encodes as [`encode_jpeg`] does, with the pure-Rust jpeg-encoder crate (AVX2 forward DCT and
/// colour conversion where the CPU has them): the encoder of builds without libjpeg-turbo.
pub fn encode_jpeg_rust<P: Color>(
    image: &ImageBuffer<P, Vec<u8>>,
    quality: u8,
) -> Result<Vec<u8>, EncodeError> {
    let (width, height) = jpeg_size(image)?;
    let mut jpeg = Vec::with_capacity(image.as_raw().len() / 8);
    let mut encoder = jpeg_encoder::Encoder::new(&mut jpeg, quality);
    // Chroma at half resolution both ways (4:2:0), as libjpeg, Pillow and OpenCV write by default;
    // the encoder would switch to full-resolution chroma at quality 90 and above, which costs a
    // third more time and bytes for a difference a training image does not need.
    encoder.set_sampling_factor(jpeg_encoder::SamplingFactor::R_4_2_0);
    encoder.encode(image.as_raw(), width, height, P::JPEG)?;
    Ok(jpeg)
}

/// The image's sides, if JPEG can store them.
fn jpeg_size<P: Color>(image: &ImageBuffer<P, Vec<u8>>) -> Result<(u16, u16), EncodeError> {
    let (width, height) = image.dimensions();
    match (u16::try_from(width), u16::try_from(height)) {
        (Ok(w), Ok(h)) => Ok((w, h)),
        _ => Err(EncodeError::TooLarge { width, height }),
    }
}

/// The libjpeg-turbo encoder, through `native/jpeg.c`.
#[cfg(libjpeg)]
mod libjpeg {
    use std::ffi::{c_char, c_int, c_uint};

    unsafe extern "C" {
        fn altflow_jpeg_encode(
            pixels: *const u8,
            width: c_uint,
            height: c_uint,
            channels: c_int,
            quality: c_int,
            out: *mut *mut u8,
            out_size: *mut usize,
            message: *mut c_char,
            message_size: usize,
        ) -> c_int;
        fn altflow_jpeg_free(data: *mut u8);
    }

    /// Encodes `pixels`, `height` rows of `width` pixels of `channels` (3 or 4) bytes.
    pub fn encode(
        pixels: &[u8],
        width: u16,
        height: u16,
        channels: u8,
        quality: u8,
    ) -> Result<Vec<u8>, String> {
        assert!(matches!(channels, 3 | 4));
        // An image buffer's container may be longer than its pixels; the shim reads only these.
        let pixels = &pixels[..usize::from(width) * usize::from(height) * usize::from(channels)];
        let mut out: *mut u8 = std::ptr::null_mut();
        let mut out_size = 0usize;
        let mut message = [0 as c_char; 256];
        // SAFETY: `pixels` holds the `height` rows of `width * channels` bytes the shim reads
        // (sliced above); the shim writes at most `message.len()` bytes, NUL included, into
        // `message`, and on success hands over a malloc'd buffer of `out_size` bytes that is
        // copied, then freed with the shim's own free.
        unsafe {
            let status = altflow_jpeg_encode(
                pixels.as_ptr(),
                c_uint::from(width),
                c_uint::from(height),
                c_int::from(channels),
                c_int::from(quality),
                &mut out,
                &mut out_size,
                message.as_mut_ptr(),
                message.len(),
            );
            if status != 0 {
                return Err(std::ffi::CStr::from_ptr(message.as_ptr())
                    .to_string_lossy()
                    .into_owned());
            }
            let jpeg = std::slice::from_raw_parts(out, out_size).to_vec();
            altflow_jpeg_free(out);
            Ok(jpeg)
        }
    }
}

/// Side of the grayscale square the hash is computed on.
const HASH_SIDE: usize = 32;
/// Side of the block of low frequencies kept.
const HASH_BLOCK: usize = 8;

/// A 64-bit perceptual hash (the DCT "pHash"): the image shrunk to 32×32 gray, its 2-D DCT, and one
/// bit per coefficient of the 8×8 lowest frequencies telling whether it is above their median.
/// Visually similar images differ in few bits; compare with [`hamming`].
pub fn perceptual_hash<P: Color>(image: &ImageBuffer<P, Vec<u8>>) -> u64
where
    ImageBuffer<P, Vec<u8>>: IntoImageView + IntoImageViewMut,
{
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
        .map(|p| {
            let c = p.channels();
            0.299 * f64::from(c[0]) + 0.587 * f64::from(c[1]) + 0.114 * f64::from(c[2])
        })
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
        let mut rgba = RgbaImage::from_pixel(2, 1, Rgba([0, 0, 0, 0]));
        rgba.put_pixel(1, 0, Rgba([10, 20, 30, 255]));
        let mut png = Vec::new();
        DynamicImage::ImageRgba8(rgba)
            .write_to(&mut std::io::Cursor::new(&mut png), ImageFormat::Png)
            .unwrap();
        let flat = Decoder::new(&png, ImageFormat::Png)
            .unwrap()
            .decode_opaque(u64::MAX)
            .unwrap();
        assert_eq!(flat.get_pixel(0, 0).0, [255, 255, 255, 255]);
        assert_eq!(flat.get_pixel(1, 0).0, [10, 20, 30, 255]);
    }

    /// Every colour layout a JPEG may store decodes to the same pixels as through the image crate
    /// (the reference), whether zune converts it to RGBA itself (YCbCr, grey) or to RGB (CMYK, RGB).
    #[test]
    fn jpeg_layouts_decode_to_opaque_rgba_as_the_image_crate_does() {
        let picture = scene(64, 48, 0);
        let encode = |color: jpeg_encoder::ColorType, data: &[u8]| {
            let mut jpeg = Vec::new();
            jpeg_encoder::Encoder::new(&mut jpeg, 95)
                .encode(data, 64, 48, color)
                .unwrap();
            jpeg
        };
        let gray = DynamicImage::ImageRgb8(picture.clone()).into_luma8();
        let cmyk: Vec<u8> = picture
            .pixels()
            .flat_map(|p| [255 - p[0], 255 - p[1], 255 - p[2], 0])
            .collect();
        // The same scans declared RGB by an Adobe segment with transform 0.
        let mut rgb = encode(jpeg_encoder::ColorType::Rgb, picture.as_raw());
        let adobe = [
            b"\xff\xee\x00\x0eAdobe".as_slice(),
            &[0, 100, 0, 0, 0, 0, 0],
        ]
        .concat();
        rgb.splice(2..2, adobe);
        for (name, jpeg) in [
            (
                "ycbcr",
                encode(jpeg_encoder::ColorType::Rgb, picture.as_raw()),
            ),
            ("gray", encode(jpeg_encoder::ColorType::Luma, gray.as_raw())),
            ("cmyk", encode(jpeg_encoder::ColorType::Cmyk, &cmyk)),
            ("rgb", rgb),
        ] {
            let reference = image::load_from_memory(&jpeg).unwrap().into_rgb8();
            let decoder = Decoder::new(&jpeg, ImageFormat::Jpeg).unwrap();
            assert_eq!(decoder.dimensions(), (64, 48), "{name}");
            let decoded = decoder.decode_opaque(u64::MAX).unwrap();
            for (d, r) in decoded.pixels().zip(reference.pixels()) {
                assert_eq!(d.0, [r[0], r[1], r[2], 255], "{name}");
            }
        }
    }

    /// Mean absolute difference per channel between an RGB picture and a decoded JPEG of it.
    fn mean_error(picture: &RgbImage, jpeg: &[u8]) -> f64 {
        let decoded = Decoder::new(jpeg, ImageFormat::Jpeg)
            .unwrap()
            .decode_opaque(u64::MAX)
            .unwrap();
        assert_eq!(decoded.dimensions(), picture.dimensions());
        let total: u64 = decoded
            .pixels()
            .zip(picture.pixels())
            .flat_map(|(d, p)| (0..3).map(move |c| u64::from(d[c].abs_diff(p[c]))))
            .sum();
        total as f64 / (3 * picture.width() * picture.height()) as f64
    }

    #[test]
    fn encoders_write_jpegs_close_to_the_picture_from_rgb_and_rgba() {
        // Odd sides: the last MCU row and column are partial.
        let picture = scene(333, 201, 0);
        let rgba = DynamicImage::ImageRgb8(picture.clone()).into_rgba8();
        for (name, jpeg) in [
            ("default rgb", encode_jpeg(&picture, 90).unwrap()),
            ("default rgba", encode_jpeg(&rgba, 90).unwrap()),
            ("rust rgb", encode_jpeg_rust(&picture, 90).unwrap()),
            ("rust rgba", encode_jpeg_rust(&rgba, 90).unwrap()),
        ] {
            assert!(
                jpeg.starts_with(&[0xff, 0xd8]) && jpeg.ends_with(&[0xff, 0xd9]),
                "{name}"
            );
            let error = mean_error(&picture, &jpeg);
            assert!(error < 3.0, "{name}: mean error {error}");
        }
        // Lower quality, fewer bytes.
        assert!(
            encode_jpeg(&picture, 30).unwrap().len() < encode_jpeg(&picture, 90).unwrap().len()
        );
        // Grey noise hardly compresses: more than the half byte per pixel the libjpeg shim starts
        // its buffer with, so the buffer grows. (Grey, so that 4:2:0 chroma loses nothing.)
        let mut state = 0x9e37_79b9_u32;
        let noise = RgbImage::from_fn(256, 256, |_, _| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let v = state as u8;
            Rgb([v, v, v])
        });
        let jpeg = encode_jpeg(&noise, 100).unwrap();
        assert!(jpeg.len() > 256 * 256 / 2 + 16384, "{}", jpeg.len());
        assert!(jpeg.ends_with(&[0xff, 0xd9]));
        assert!(mean_error(&noise, &jpeg) < 3.0);
    }

    /// A libjpeg error comes back as its message (through the shim's longjmp), not as an abort.
    #[cfg(libjpeg)]
    #[test]
    fn libjpeg_errors_come_back_as_messages() {
        let empty = RgbImage::new(0, 8);
        match encode_jpeg(&empty, 90) {
            Err(EncodeError::Libjpeg(message)) => assert!(message.contains("Empty"), "{message}"),
            other => panic!("{other:?}"),
        }
        // The encoder is still usable afterwards.
        assert!(encode_jpeg(&scene(16, 16, 0), 90).is_ok());
    }

    /// CI builds with libjpeg-turbo (scripts/test.sh installs its headers where missing), so the
    /// faster encoder is the one tested and measured.
    #[test]
    fn required_builds_use_libjpeg_turbo() {
        if std::env::var("ALTFLOW_REQUIRE_SERVICES").is_ok_and(|v| v == "1") {
            assert_eq!(JPEG_ENCODER, "libjpeg-turbo");
        }
    }

    #[test]
    fn allocation_limit_is_enforced_before_decoding() {
        let jpeg = encode_jpeg(&scene(64, 48, 0), 90).unwrap();
        let decoder = Decoder::new(&jpeg, ImageFormat::Jpeg).unwrap();
        assert!(matches!(
            decoder.decode_opaque(64 * 48 * 4 - 1),
            Err(ImageError::Limits(_))
        ));
        let png = {
            let mut png = Vec::new();
            DynamicImage::ImageRgb8(scene(64, 48, 0))
                .write_to(&mut std::io::Cursor::new(&mut png), ImageFormat::Png)
                .unwrap();
            png
        };
        let decoder = Decoder::new(&png, ImageFormat::Png).unwrap();
        assert!(matches!(
            decoder.decode_opaque(64 * 48 * 3 - 1),
            Err(ImageError::Limits(_))
        ));
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
        let decoder = Decoder::new(&jpeg, ImageFormat::Jpeg).unwrap();
        assert_eq!(decoder.dimensions(), (4, 2));
        let image = decoder.decode_opaque(u64::MAX).unwrap();
        assert_eq!((image.width(), image.height()), (2, 4));
    }
}
