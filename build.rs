//! Builds the libjpeg-turbo encoder shim (`native/jpeg.c`) when libjpeg-turbo's headers are there
//! (Debian and Ubuntu: `libjpeg-dev`; macOS: `brew install jpeg-turbo`), and tells the crate so
//! through `cfg(libjpeg)`. Without them altflow still builds, and encodes JPEG with the pure-Rust
//! jpeg-encoder crate, 2.5–3 times slower (docs/performance.md). `ALTFLOW_NO_LIBJPEG=1` builds
//! that way on purpose.

use std::path::PathBuf;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(libjpeg)");
    println!("cargo::rerun-if-changed=native/jpeg.c");
    println!("cargo::rerun-if-env-changed=ALTFLOW_NO_LIBJPEG");
    if std::env::var_os("ALTFLOW_NO_LIBJPEG").is_some_and(|v| !v.is_empty() && v != "0") {
        return;
    }
    // Whether the headers are there is asked apart from building the shim, so that a mistake in
    // the shim fails the build instead of silently choosing the slower encoder.
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let probe = out.join("libjpeg_probe.c");
    std::fs::write(
        &probe,
        "#include <stdio.h>\n#include <jpeglib.h>\n#ifndef JCS_EXTENSIONS\n#error not libjpeg-turbo\n#endif\n",
    )
    .expect("OUT_DIR is writable");
    let found = cc::Build::new()
        .file(&probe)
        .cargo_warnings(false)
        .try_compile_intermediates();
    if let Err(error) = found {
        println!(
            "cargo::warning=libjpeg-turbo's headers not found ({error}): JPEG encoding falls back \
             to the jpeg-encoder crate, 2.5–3 times slower. Install them (Debian/Ubuntu: \
             libjpeg-dev) and rebuild."
        );
        return;
    }
    cc::Build::new()
        .file("native/jpeg.c")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .compile("altflow_jpeg");
    println!("cargo::rustc-link-lib=jpeg");
    println!("cargo::rustc-cfg=libjpeg");
}
