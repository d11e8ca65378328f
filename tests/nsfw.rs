//! The open_nsfw scorer against Python's ONNX Runtime: the same outputs from the same inputs
//! (`scripts/make_nsfw_reference.py` wrote both), and nearly the same from the pictures through
//! altflow's own preprocessing. The model and the runtime library come from PyPI wheels that
//! scripts/test.sh unpacks into .tools/.

mod common;

use altflow::score::nsfw::{Nsfw, SIDE};
use candle_core::{DType, Device};

fn tools() -> Option<(std::path::PathBuf, std::path::PathBuf)> {
    let root = common::root().join(".tools");
    let model = root.join("nsfw/open-nsfw.onnx");
    let library = root.join("onnxruntime/libonnxruntime.so.1.31.1");
    if model.exists() && library.exists() {
        return Some((model, library));
    }
    assert!(
        !common::services_required(),
        "{} or {} is missing: run scripts/test.sh",
        model.display(),
        library.display()
    );
    eprintln!("skipped: the NSFW model or ONNX Runtime is not in .tools (scripts/test.sh)");
    None
}

fn reference() -> (Vec<f32>, Vec<Vec<f32>>) {
    let path = common::root().join("tests/fixtures/nsfw/reference.safetensors");
    let tensors = candle_core::safetensors::load(path, &Device::Cpu).unwrap();
    let inputs = tensors["inputs"]
        .to_dtype(DType::F32)
        .unwrap()
        .flatten_all()
        .unwrap()
        .to_vec1()
        .unwrap();
    (inputs, tensors["outputs"].to_vec2().unwrap())
}

#[test]
fn outputs_equal_python_onnxruntime() {
    let Some((model, library)) = tools() else {
        return;
    };
    let nsfw = Nsfw::load(&model, Some(&library)).unwrap();
    let (inputs, expected) = reference();
    let n = expected.len();
    assert_eq!(inputs.len(), n * (SIDE * SIDE * 3) as usize);
    let probabilities = nsfw.run(inputs, n).unwrap();
    for (p, row) in probabilities.iter().zip(&expected) {
        // Relative to the value: the probabilities of safe pictures are small.
        assert!(
            (p - row[1]).abs() <= 1e-4 * row[1] + 1e-7,
            "nsfw {p} vs onnxruntime's {}",
            row[1]
        );
    }

    // From the pictures themselves, through altflow's preprocessing (another resizer, JPEG
    // encoder and decoder than Pillow's): inputs within a few grey levels on average (1.5 on the
    // photo, 3.9 on the sharp-edged balloons, out of 255), probabilities within 1e-2.
    let (inputs, _) = reference();
    let plane = (SIDE * SIDE * 3) as usize;
    for (i, picture) in [
        "tests/fixtures/clip/photo.jpg",
        "examples/site/img/balloons.jpg",
    ]
    .iter()
    .enumerate()
    {
        let image = image::open(common::root().join(picture)).unwrap().to_rgb8();
        let ours = Nsfw::preprocess(&image);
        let theirs = &inputs[i * plane..(i + 1) * plane];
        let mean = ours
            .iter()
            .zip(theirs)
            .map(|(a, b)| (a - b).abs())
            .sum::<f32>()
            / plane as f32;
        let p = nsfw.probabilities(&[&image]).unwrap()[0];
        eprintln!(
            "{picture}: inputs differ by {mean} grey levels on average; nsfw {p} vs {}",
            expected[i][1]
        );
        assert!(mean < 5.0, "{picture}: inputs differ by {mean} on average");
        assert!(
            (p - expected[i][1]).abs() < 1e-2,
            "{picture}: {p} vs {}",
            expected[i][1]
        );
    }
}

#[test]
fn a_missing_model_is_named() {
    let Some((_, library)) = tools() else {
        return;
    };
    let error = Nsfw::load(
        std::path::Path::new("/nonexistent/open-nsfw.onnx"),
        Some(&library),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(error.contains("/nonexistent/open-nsfw.onnx"), "{error}");
}
