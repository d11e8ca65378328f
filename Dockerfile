# syntax=docker/dockerfile:1
# The altflow image the manifests in k8s/ run: one binary, every stage.
#
#   docker build -t ghcr.io/altflow/altflow:TAG .
#
# CPU-only: CLIP on a GPU needs `--features cuda` and the CUDA toolkit at build time, which this
# builder does not have.

FROM rust:1-bookworm AS builder
# libjpeg-turbo's headers: build.rs compiles the JPEG encoder shim against them (what
# scripts/install-libjpeg.sh installs as libjpeg-dev, Debian's name for the same package).
RUN apt-get update \
 && apt-get install -y --no-install-recommends libjpeg62-turbo-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# The registry and target directory are cache mounts, so a rebuild after a source change recompiles
# only altflow; the binary is copied out because the mount is gone after this step.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/usr/local/cargo/git \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked --features s3,gcs,azure \
 && install -D target/release/altflow /out/altflow
# Without libjpeg-turbo build.rs only warns and falls back to an encoder 2.5-3 times slower: fail
# the image build instead of shipping that.
RUN ldd /out/altflow | grep -q 'libjpeg\.so\.62' \
 || { echo "altflow was built without libjpeg-turbo" >&2; exit 1; }

FROM debian:bookworm-slim
# What the binary links beyond the base image (libc, libgcc_s, zlib): libjpeg-turbo's library,
# from the same source package as the builder's headers; and CA certificates, which rustls reads
# from the system store for the crawl, the fetch and the object store.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates libjpeg62-turbo \
 && rm -rf /var/lib/apt/lists/*
# A fixed non-root uid, the one the pods' securityContext asks for (runAsUser: 10001).
RUN groupadd --system --gid 10001 altflow \
 && useradd --system --uid 10001 --gid altflow --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin altflow
COPY --from=builder /out/altflow /usr/local/bin/altflow
# Numeric, so that the kubelet can verify runAsNonRoot without looking the name up.
USER 10001:10001
# The root filesystem is read-only on the cluster; /tmp is the writable emptyDir.
WORKDIR /tmp
# [metrics] listen: /metrics, /healthz, /readyz.
EXPOSE 9898
ENTRYPOINT ["altflow"]
CMD ["--help"]
