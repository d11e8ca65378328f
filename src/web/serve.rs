//! Small HTTP servers of the process: the Prometheus endpoint and the bundled sample site.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

type Handler = Arc<
    dyn Fn(Request<Incoming>) -> futures::future::BoxFuture<'static, Response<Full<Bytes>>>
        + Send
        + Sync,
>;

/// Serves `handler` on `listen` in the background; returns the bound address.
async fn serve(listen: SocketAddr, handler: Handler) -> std::io::Result<SocketAddr> {
    let listener = TcpListener::bind(listen).await?;
    let local = listener.local_addr()?;
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let handler = handler.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request| {
                    let handler = handler.clone();
                    async move { Ok::<_, Infallible>(handler(request).await) }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok(local)
}

fn respond(
    status: StatusCode,
    content_type: &str,
    body: impl Into<Bytes>,
) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .header("content-type", content_type)
        .body(Full::new(body.into()))
        .expect("static response parts are valid")
}

/// Serves Prometheus metrics at `/metrics`, liveness at `/healthz` and readiness at `/readyz` (see
/// [`crate::health`]).
pub async fn serve_metrics(listen: SocketAddr) -> std::io::Result<SocketAddr> {
    serve(
        listen,
        Arc::new(|request: Request<Incoming>| {
            Box::pin(async move {
                match request.uri().path() {
                    "/metrics" => respond(
                        StatusCode::OK,
                        "text/plain; version=0.0.4",
                        crate::metrics::render(),
                    ),
                    "/healthz" => respond(StatusCode::OK, "text/plain", "ok\n"),
                    "/readyz" => {
                        let (ready, report) = crate::health::readiness();
                        let status = if ready {
                            StatusCode::OK
                        } else {
                            StatusCode::SERVICE_UNAVAILABLE
                        };
                        respond(status, "text/plain", report)
                    }
                    _ => respond(
                        StatusCode::NOT_FOUND,
                        "text/plain",
                        "try /metrics, /healthz or /readyz\n",
                    ),
                }
            })
        }),
    )
    .await
}

/// Serves the files under `dir` (the sample site). Paths that leave `dir` are refused.
pub async fn serve_dir(dir: PathBuf, listen: SocketAddr) -> std::io::Result<SocketAddr> {
    let dir = Arc::new(dir);
    serve(
        listen,
        Arc::new(move |request: Request<Incoming>| {
            let dir = dir.clone();
            Box::pin(async move {
                let Some(path) = file_path(&dir, request.uri().path()) else {
                    return respond(StatusCode::BAD_REQUEST, "text/plain", "bad path\n");
                };
                match tokio::fs::read(&path).await {
                    Ok(body) => respond(StatusCode::OK, content_type(&path), body),
                    Err(_) => respond(StatusCode::NOT_FOUND, "text/plain", "not found\n"),
                }
            })
        }),
    )
    .await
}

/// Maps a request path to a file under `dir`, refusing anything but plain path segments.
fn file_path(dir: &Path, request_path: &str) -> Option<PathBuf> {
    let relative = request_path.trim_start_matches('/');
    let relative = if relative.is_empty() || relative.ends_with('/') {
        format!("{relative}index.html")
    } else {
        relative.to_string()
    };
    let relative = Path::new(&relative);
    if !relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)))
    {
        return None;
    }
    Some(dir.join(relative))
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("png") => "image/png",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("css") => "text/css",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_directory() {
        let dir = Path::new("/site");
        assert_eq!(file_path(dir, "/"), Some(PathBuf::from("/site/index.html")));
        assert_eq!(
            file_path(dir, "/a/b.jpg"),
            Some(PathBuf::from("/site/a/b.jpg"))
        );
        assert_eq!(file_path(dir, "/a/../../etc/passwd"), None);
        assert_eq!(file_path(dir, "/./x"), None);
    }
}
