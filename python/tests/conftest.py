"""Services for the reader's tests, started on 127.0.0.1 by the tests themselves: a Kafka-protocol
broker (tansu), an S3 server (moto), an image server (scripts/long_tail_web.py), and altflow itself
(ALTFLOW_BIN, else target/debug/altflow: `scripts/test.sh` builds it first)."""
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

S3_ENV = {
    "AWS_ACCESS_KEY_ID": "test",
    "AWS_SECRET_ACCESS_KEY": "test",
    "AWS_REGION": "us-east-1",
    "AWS_ALLOW_HTTP": "true",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on {port} in {seconds} s")


def stop(proc: subprocess.Popen, sig=signal.SIGTERM, seconds: float = 60) -> int:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(seconds)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def required(what: str, hint: str):
    if os.environ.get("ALTFLOW_REQUIRE_SERVICES"):
        pytest.fail(f"{what} not found: {hint}")
    pytest.skip(f"{what} not found: {hint}")


@pytest.fixture(scope="session")
def altflow_bin() -> str:
    binary = os.environ.get("ALTFLOW_BIN") or str(ROOT / "target/debug/altflow")
    if not Path(binary).exists():
        required("altflow", "cargo build (or set ALTFLOW_BIN)")
    return binary


@pytest.fixture(scope="session")
def broker():
    binary = os.environ.get("ALTFLOW_TANSU") or str(ROOT / ".tools/bin/tansu")
    if not Path(binary).exists():
        binary = shutil.which("tansu")
        if binary is None:
            required("tansu", "scripts/install-broker.sh")
    port = free_port()
    url = f"tcp://127.0.0.1:{port}"
    proc = subprocess.Popen([binary, "broker", "--listener-url", url, "--advertised-listener-url",
                             url, "--storage-engine", "memory://tansu/"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_port(port, proc, "tansu")
    yield f"127.0.0.1:{port}"
    stop(proc, signal.SIGKILL)


@pytest.fixture(scope="session")
def s3():
    """The endpoint of an S3 server with a fresh bucket; the AWS environment points at it."""
    if shutil.which("moto_server") is None:
        required("moto_server", "pip install 'moto[server]'")
    port = free_port()
    proc = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_port(port, proc, "moto_server")
    endpoint = f"http://127.0.0.1:{port}"
    bucket = f"b-{uuid.uuid4().hex[:12]}"
    import urllib.request

    urllib.request.urlopen(urllib.request.Request(f"{endpoint}/{bucket}", method="PUT"))
    saved = {k: os.environ.get(k) for k in list(S3_ENV) + ["AWS_ENDPOINT_URL", "AWS_ENDPOINT"]}
    os.environ.update(S3_ENV, AWS_ENDPOINT=endpoint)
    yield {"endpoint": endpoint, "bucket": bucket}
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    stop(proc)


class Web:
    """scripts/long_tail_web.py with every image fast: `images` distinct JPEG samples (640×480) for
    pipelines, in URL lists of any slice."""

    def __init__(self, directory: Path, images: int = 400):
        self.images = images
        self.dir = directory
        self.port = free_port()
        script = str(ROOT / "scripts/long_tail_web.py")
        subprocess.run([sys.executable, script, "plan", "--dir", str(directory), "--images",
                        str(self.images), "--hosts", "4", "--port", str(self.port), "--mix",
                        "fast"], check=True)
        self.lines = (directory / "list.csv").read_text().splitlines()
        self.proc = subprocess.Popen(
            [sys.executable, script, "serve", "--plan", str(directory / "plan.json"), "--hosts",
             "4", "--port", str(self.port), "--pictures", str(ROOT / "examples/site/img")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, self.proc, "the image server")

    def url_list(self, name: str, start: int, stop: int) -> Path:
        """A URL list of images start..stop under `name`.csv."""
        out = self.dir / f"{name}.csv"
        out.write_text("\n".join([self.lines[0]] + self.lines[1 + start:1 + stop]) + "\n")
        return out


@pytest.fixture(scope="session")
def web(tmp_path_factory):
    server = Web(tmp_path_factory.mktemp("web"))
    yield server
    stop(server.proc)


def pipeline(path: Path, url_list: Path, output: str, bus: str = "embedded",
             extra: str = "", max_side: int = 256, max_records: int = 10) -> Path:
    """A filter → fetch → write pipeline over `url_list` into `output`."""
    path.write_text(f"""stages = ["filter", "fetch", "write"]
[bus]
kind = "{bus}"
partitions = 2
{extra}
[http]
allow_networks = ["127.0.0.0/8"]
min_host_delay = "0ms"
per_host_concurrency = 8
[filter]
preset = "cc12m"
min_side = 100
rare_word_min_count = 0
[fetch]
max_side = {max_side}
[write]
output = "{output}"
max_records = {max_records}
flush_after = "500ms"
[[url_lists]]
path = "{url_list}"
""")
    return path
