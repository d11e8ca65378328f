#!/usr/bin/env python3
"""Soak: a Kafka pipeline under continuous input and continuous faults, with trainers reading.

Starts tansu, a synthetic long-tail web (scripts/long_tail_web.py: slow hosts, 404s, 429s), two
members of each of filter, fetch, write and retry as `altflow stage` processes, and two reader
ranks (python/tests/reader_proc.py) following the `shards` topic. Every FEED seconds it seeds a new
slice of the web's URLs; every CHAOS seconds it SIGKILLs a random member (restarted at once) or
SIGSTOPs one past its session timeout (then SIGCONT). At CHANGE_AT seconds the pipeline's stages
change: `qgen` goes in front of the writers — writers of the new pipeline start and join, the old
ones stop, then two qgen members start (qgen's group takes `pairs` over where the writers' group
stopped). At BROKER_RESTART_AT seconds the broker is SIGKILLed and started again on its storage
(tansu's S3 engine on a local moto S3 server). After SECONDS it stops seeding, waits for the output to hold every image the web serves,
stops the members and waits for the readers.

It fails (exit 1) unless: every served image is in exactly one shard, no 404 is, and the two ranks
trained on every sample of the output exactly once, and no member exited on its own (one that
exits on a fatal error the broker answered — tansu's S3 engine desynchronises an idempotent
producer's sequence now and then, which librdkafka makes fatal — is restarted and reported apart,
as a cluster would restart it). One exception, reported apart: tansu's S3 engine
can lose records it had acknowledged when it is killed (its high watermarks go back; see
docs/architecture.md), and images that went with them may be missing, never more of them than
records it lost. It prints a JSON report with the members'
memory: resident set size over time of each member that was never killed, and its slope after the
first third of the run (MiB per minute).

    scripts/soak.py --seconds 1800            # the full soak (scripts/soak.sh)
    scripts/soak.py --seconds 300 --chaos 20 --broker-restart-at 0  # what python/tests/test_soak.py runs

Needs: the altflow binary (ALTFLOW_BIN, default target/debug/altflow), tansu (.tools/bin/tansu:
scripts/install-broker.sh), the reader (pip install ./python[kafka]), pyarrow, and for the broker
restart moto's server (pip install 'moto[server]').
"""
import argparse
import collections
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STAGES = ["filter", "fetch", "write", "retry"]
SESSION_TIMEOUT_S = 6
PARTITIONS = 4


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, proc, what, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"{what} exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"{what} did not listen on {port} within {seconds} s")


def rss_mib(pid):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def slope(points):
    """Least-squares slope of (t seconds, MiB) points, in MiB per minute."""
    if len(points) < 3:
        return None
    n = len(points)
    mt = sum(t for t, _ in points) / n
    mv = sum(v for _, v in points) / n
    var = sum((t - mt) ** 2 for t, _ in points)
    if var == 0:
        return None
    return 60 * sum((t - mt) * (v - mv) for t, v in points) / var


def output_rows(out):
    """(key, image_url) of every index row in the output directory."""
    import pyarrow.parquet as pq

    rows = []
    for index in sorted(Path(out).glob("shard-*.parquet")):
        table = pq.read_table(index, columns=["key", "image_url"])
        rows += zip(table["key"].to_pylist(), table["image_url"].to_pylist())
    return rows


class Soak:
    def __init__(self, args, work):
        self.args, self.work = args, work
        self.bin = os.environ.get("ALTFLOW_BIN", str(ROOT / "target/debug/altflow"))
        self.run = uuid.uuid4().hex[:8]
        self.out = work / "out"
        self.events = []
        self.crashes = []
        self.broker_exits = []
        self.members = {}  # name -> (stage, Popen, killed before?)
        self.memory = collections.defaultdict(list)  # name -> [(t, MiB)]
        self.started = time.monotonic()
        self.procs = []
        self.stages = list(STAGES)
        self.broker_lost = 0
        self.before_restart = {}

    def log(self, event):
        t = time.monotonic() - self.started
        self.events.append(f"{t:.0f}s {event}")
        print(f"[soak {t:6.0f}s] {event}", flush=True)

    def start_broker(self):
        """tansu in memory, or on S3 storage (a local moto server) when it will be restarted."""
        self.broker_port = free_port()
        self.broker_env, storage = None, "memory://tansu/"
        if self.args.broker_restart_at:
            s3_port = free_port()
            moto = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(s3_port)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.procs.append(moto)
            wait_for_port(s3_port, moto, "moto's S3 server")
            endpoint = f"http://127.0.0.1:{s3_port}"
            bucket = f"tansu-{self.run}"
            import boto3
            boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                         aws_access_key_id="test",
                         aws_secret_access_key="test").create_bucket(Bucket=bucket)
            self.broker_env = {**os.environ, "AWS_ENDPOINT": endpoint, "AWS_ACCESS_KEY_ID": "test",
                               "AWS_SECRET_ACCESS_KEY": "test", "AWS_REGION": "us-east-1",
                               "AWS_DEFAULT_REGION": "us-east-1", "AWS_ALLOW_HTTP": "true"}
            storage = f"s3://{bucket}/"
        self.broker_storage = storage
        self.run_broker()

    def run_broker(self):
        url = f"tcp://127.0.0.1:{self.broker_port}"
        self.broker = subprocess.Popen(
            [str(ROOT / ".tools/bin/tansu"), "broker", "--listener-url", url,
             "--advertised-listener-url", url, "--storage-engine", self.broker_storage],
            stdout=open(self.work / "broker.txt", "a"), stderr=subprocess.STDOUT,
            env=self.broker_env)
        self.procs.append(self.broker)
        wait_for_port(self.broker_port, self.broker, "tansu")

    def watermarks(self):
        """The broker's high watermark of every partition of this run's topics."""
        from confluent_kafka import Consumer, TopicPartition
        client = Consumer({"bootstrap.servers": f"127.0.0.1:{self.broker_port}",
                           "group.id": f"inspect-{uuid.uuid4().hex[:8]}"})
        try:
            topics = client.list_topics(timeout=30).topics
            marks = {}
            for name, topic in topics.items():
                if not name.startswith(f"t{self.run}."):
                    continue
                for partition in topic.partitions:
                    _, high = client.get_watermark_offsets(TopicPartition(name, partition),
                                                           timeout=30)
                    marks[f"{name}[{partition}]"] = high
            return marks
        finally:
            client.close()

    def restart_broker(self):
        """SIGKILL and start again on the same storage; counts the acknowledged records the
        broker no longer has (watermarks that went back)."""
        before = self.before_restart = self.watermarks()
        self.broker.send_signal(signal.SIGKILL)
        self.broker.wait()
        time.sleep(2)
        self.run_broker()
        after = self.watermarks()
        went_back = {k: (v, after.get(k, 0)) for k, v in before.items() if after.get(k, 0) < v}
        self.broker_lost += sum(v - now for v, now in went_back.values())
        self.log(f"SIGKILL the broker, restarted; watermarks that went back: {went_back or 'none'}")

    def change_stages(self):
        """`qgen` in front of the writers: writers of the new pipeline start, the old ones stop
        (and drain; the group never empties, which tansu can strand), then qgen's members start."""
        writers = [n for n, (stage, _, _) in self.members.items() if stage == "write"]
        self.stages = STAGES[:2] + ["qgen"] + STAGES[2:]
        self.member_pipeline = self.pipeline("member-changed", self.work / "none.csv")
        subprocess.run([self.bin, "topics", "create", "--pipeline", str(self.member_pipeline)],
                       cwd=self.work, check=True, stdout=subprocess.DEVNULL)
        for member in "cd":
            self.start_member(f"write-{member}", "write")
        for member in "cd":
            # Only once the new writers are in the group may the old ones leave it.
            if not self.wait_for_log(f"write-{member}", "joined the consumer group", 60):
                self.crashes.append(f"write-{member} did not join its group in 60 s")
        for name in writers:
            _, proc, _ = self.members[name]
            proc.send_signal(signal.SIGCONT)  # a writer paused by the chaos still drains
            proc.send_signal(signal.SIGTERM)
        for name in writers:
            _, proc, _ = self.members[name]
            try:
                proc.wait(timeout=90)
            except subprocess.TimeoutExpired:
                proc.kill()
                self.crashes.append(f"{name} did not drain in 90 s for the change")
        for name in writers:
            self.members.pop(name)
        for member in "ab":
            self.start_member(f"qgen-{member}", "qgen")
        self.log(f"stages changed to {self.stages}")

    def start_web(self):
        images = self.args.rate * self.args.seconds
        self.web_port = free_port()
        script = str(ROOT / "scripts/long_tail_web.py")
        web = self.work / "web"
        subprocess.run([sys.executable, script, "plan", "--dir", str(web), "--images",
                        str(images), "--hosts", "4", "--port", str(self.web_port), "--mix",
                        "long-tail"], check=True)
        self.lines = (web / "list.csv").read_text().splitlines()
        self.plan = json.loads((web / "plan.json").read_text())
        proc = subprocess.Popen(
            [sys.executable, script, "serve", "--plan", str(web / "plan.json"), "--hosts", "4",
             "--port", str(self.web_port), "--pictures", str(ROOT / "examples/site/img")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.procs.append(proc)
        wait_for_port(self.web_port, proc, "the long-tail web")

    def pipeline(self, name, url_list):
        path = self.work / f"{name}.toml"
        path.write_text(f"""stages = {json.dumps(self.stages)}
[bus]
kind = "kafka"
brokers = "127.0.0.1:{self.broker_port}"
partitions = {PARTITIONS}
group_prefix = "g{self.run}."
commit_interval = "200ms"
[bus.consumer_options]
"session.timeout.ms" = "{SESSION_TIMEOUT_S * 1000}"
"heartbeat.interval.ms" = "500"
{f'"debug" = "{self.args.consumer_debug}"' if self.args.consumer_debug else ""}
[topics]
prefix = "t{self.run}."
[http]
allow_networks = ["127.0.0.0/8"]
min_host_delay = "0ms"
per_host_concurrency = 8
timeout = "10s"
[filter]
preset = "cc12m"
min_side = 100
rare_word_min_count = 0
[fetch]
max_side = 256
[write]
output = "{self.out}"
max_records = 20
flush_after = "1s"
[[url_lists]]
path = "{url_list}"
""")
        return path

    def start_member(self, name, stage):
        log = open(self.work / f"{name}.log", "a")
        # librdkafka's debug lines reach the log through the `log` crate at debug level.
        env = ({**os.environ, "RUST_LOG": "info,librdkafka=debug,rdkafka=debug"}
               if self.args.consumer_debug else None)
        proc = subprocess.Popen([self.bin, "stage", stage, "--pipeline", str(self.member_pipeline)],
                                cwd=self.work, stdout=log, stderr=subprocess.STDOUT, env=env)
        killed = name in self.members and self.members[name][2]
        self.members[name] = (stage, proc, killed)

    def wait_for_log(self, name, text, seconds):
        """Whether member `name`'s log says `text` within `seconds`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if text in (self.work / f"{name}.log").read_text(errors="replace"):
                return True
            time.sleep(0.2)
        return False

    def seed(self, start, stop):
        """Seeds URLs `start`..`stop`; again when the broker's fatal error stopped the seeding
        (what was already sent comes twice, and the writer drops the second copy by its id)."""
        url_list = self.work / f"seed-{start}.csv"
        url_list.write_text("\n".join([self.lines[0]] + self.lines[1 + start:1 + stop]) + "\n")
        for attempt in range(3):
            run = subprocess.run(
                [self.bin, "seed", "--pipeline", str(self.pipeline("seed", url_list))],
                cwd=self.work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if run.returncode == 0:
                return
            errors = [line for line in run.stderr.splitlines() if line.startswith("Error:")]
            if not (errors and "(Broker: " in errors[-1]) or attempt == 2:
                raise RuntimeError(f"altflow seed failed: {run.stderr[-3000:]}")
            self.broker_exits.append(f"seed: {errors[-1]}")
            self.log(f"seeding stopped on the broker's fatal error; seeded again: {errors[-1]}")

    def chaos(self, rng):
        name = rng.choice(sorted(self.members))
        stage, proc, _ = self.members[name]
        if rng.random() < 0.5:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            self.members[name] = (stage, proc, True)
            self.start_member(name, stage)
            self.log(f"SIGKILL {name}, restarted")
        else:
            proc.send_signal(signal.SIGSTOP)
            self.log(f"SIGSTOP {name} for {SESSION_TIMEOUT_S + 3} s")
            time.sleep(SESSION_TIMEOUT_S + 3)
            proc.send_signal(signal.SIGCONT)

    def broker_error(self, name):
        """The broker's error that stopped member `name`, if its last words name one: a fatal
        error the broker answered (tansu's S3 engine loses an idempotent producer's sequence
        now and then, which librdkafka makes fatal); the member exits so that it is restarted."""
        with open(self.work / f"{name}.log", "rb") as log:
            log.seek(0, os.SEEK_END)
            log.seek(max(0, log.tell() - 8192))
            tail = log.read().decode("utf-8", "replace")
        errors = [line for line in tail.splitlines() if line.startswith("Error: stage")]
        return errors[-1] if errors and "(Broker: " in errors[-1] else None

    def restart_exited(self):
        """Restarts a member that exited without being killed: a crash, counted as a problem,
        unless the broker's fatal error made it exit (counted apart)."""
        for name, (stage, proc, _) in sorted(self.members.items()):
            if proc.poll() is not None:
                error = self.broker_error(name)
                if error:
                    self.broker_exits.append(f"{name}: {error}")
                    self.log(f"{name} exited on the broker's fatal error; restarted: {error}")
                else:
                    self.crashes.append(f"{name} exited with {proc.returncode}")
                    self.log(f"{name} exited on its own with {proc.returncode}; restarted")
                self.members[name] = (stage, proc, True)
                self.start_member(name, stage)

    def sample_memory(self):
        t = time.monotonic() - self.started
        for name, (_, proc, killed) in self.members.items():
            if not killed and proc.poll() is None:
                mib = rss_mib(proc.pid)
                if mib is not None:
                    self.memory[name].append((t, mib))

    def reader(self, rank):
        checkpoint = self.work / f"rank{rank}.json"
        proc = subprocess.Popen(
            [sys.executable, str(ROOT / "python/tests/reader_proc.py"), str(checkpoint),
             "--rank", str(rank), "--world-size", "2", "--output", str(self.out), "--brokers",
             f"127.0.0.1:{self.broker_port}", "--topic", f"t{self.run}.shards",
             "--idle-timeout", str(self.args.reader_idle), "--step", "0.005"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return proc, checkpoint

    def main(self):
        args = self.args
        self.start_broker()
        self.start_web()
        self.out.mkdir()
        # Members never seed; their pipeline names an empty list. Written once: a member starting
        # while it is rewritten would read a truncated file.
        (self.work / "none.csv").write_text(self.lines[0] + "\n")
        self.member_pipeline = self.pipeline("member", self.work / "none.csv")
        subprocess.run([self.bin, "topics", "create", "--pipeline", str(self.member_pipeline)],
                       cwd=self.work, check=True, stdout=subprocess.DEVNULL)
        for stage in STAGES:
            for member in "ab":
                self.start_member(f"{stage}-{member}", stage)
        readers = [self.reader(rank) for rank in (0, 1)]
        rng = random.Random(args.seed)
        seeded = 0
        next_feed = next_chaos = begin = time.monotonic()
        next_chaos += args.chaos
        end = begin + args.seconds
        # One-off events: (when, what), each done once when its time comes.
        once = [(args.change_at, self.change_stages),
                (args.broker_restart_at, self.restart_broker)]
        once = sorted((begin + at, what) for at, what in once if at)
        while time.monotonic() < end:
            now = time.monotonic()
            if once and now >= once[0][0]:
                once.pop(0)[1]()
            if now >= next_feed:
                count = args.rate * args.feed
                self.seed(seeded, seeded + count)
                seeded += count
                next_feed += args.feed
            if now >= next_chaos:
                self.chaos(rng)
                next_chaos += args.chaos
            self.restart_exited()
            self.sample_memory()
            time.sleep(1)
        self.log(f"seeding stopped after {seeded} URLs")

        served = {f"http://127.0.0.{row['host']}:{self.web_port}{row['path']}"
                  for row in self.plan[:seeded] if row["status"] != 404}
        deadline = time.monotonic() + args.settle
        while True:
            rows = output_rows(self.out)
            if {url for _, url in rows} >= served or time.monotonic() > deadline:
                break
            self.restart_exited()
            self.sample_memory()
            time.sleep(2)
        for name, (_, proc, _) in sorted(self.members.items()):
            proc.send_signal(signal.SIGTERM)
        for name, (_, proc, _) in sorted(self.members.items()):
            try:
                proc.wait(timeout=90)
            except subprocess.TimeoutExpired:
                proc.kill()
                self.log(f"{name} did not drain in 90 s")
        rows = output_rows(self.out)
        trained = []
        for proc, checkpoint in readers:
            _, err = proc.communicate(timeout=args.reader_idle + 300)
            if proc.returncode != 0:
                self.log(f"reader failed: {err.decode()[-2000:]}")
            if checkpoint.exists():
                trained += json.loads(checkpoint.read_text())["keys"]

        # tansu's watermarks can go back minutes after its restart: look again at the end.
        if self.before_restart:
            now = self.watermarks()
            later = sum(max(0, v - now.get(k, 0)) for k, v in self.before_restart.items())
            if later > self.broker_lost:
                self.log(f"watermarks below those before the broker's restart at the end: "
                         f"{later} records")
                self.broker_lost = later
        keys = collections.Counter(k for k, _ in rows)
        urls = {url for _, url in rows}
        counts = collections.Counter(trained)
        missing = len(served - urls)
        # What went with the records the broker lost is not the pipeline's to deliver.
        lost_with_broker = min(missing, self.broker_lost)
        problems = {
            "samples in two shards": sum(1 for n in keys.values() if n > 1),
            "served images missing from the output": missing - lost_with_broker,
            "output images the web does not serve": len(urls - served),
            "samples trained twice": sum(1 for n in counts.values() if n > 1),
            "output samples never trained": len(set(keys) - set(counts)),
            "trained samples not in the output": len(set(counts) - set(keys)),
            "members that exited on their own": len(self.crashes),
        }
        warm = args.seconds / 3
        memory = {name: {"samples": len(points), "last_mib": round(points[-1][1], 1),
                         "slope_mib_per_min": (lambda s: None if s is None else round(s, 2))(
                             slope([p for p in points if p[0] >= warm]))}
                  for name, points in sorted(self.memory.items()) if points}
        report = {"seconds": args.seconds, "seeded": seeded, "served": len(served),
                  "broker_lost_records": self.broker_lost,
                  "missing_with_the_brokers_lost_records": lost_with_broker,
                  "output_samples": len(keys), "trained": len(trained), "problems": problems,
                  "memory": memory, "crashes": self.crashes,
                  "exits_on_broker_errors": self.broker_exits, "events": self.events}
        print(json.dumps(report, indent=1))
        if self.args.report:
            Path(self.args.report).write_text(json.dumps(report))
        if any(problems.values()):
            self.print_log_excerpts()
            self.print_offsets()
            return 1
        return 0

    def print_offsets(self):
        """For a failed run, each group's committed offset against the end of each partition it
        reads: records left unread tell a stall from a loss."""
        from confluent_kafka import Consumer, TopicPartition
        marks = self.watermarks()
        inputs = {"filter": ["candidates"], "fetch": ["accepted"], "qgen": ["pairs"],
                  "write": ["pairs", "samples"], "retry": ["retry"]}
        for stage, topics in inputs.items():
            client = Consumer({"bootstrap.servers": f"127.0.0.1:{self.broker_port}",
                               "group.id": f"g{self.run}.-{stage}"})
            try:
                wanted = [TopicPartition(f"t{self.run}.{t}", p) for t in topics
                          for p in range(PARTITIONS)]
                for tp in client.committed(wanted, timeout=30):
                    end = marks.get(f"{tp.topic}[{tp.partition}]")
                    committed = tp.offset if tp.offset >= 0 else "none"
                    print(f"offsets: {stage} on {tp.topic}[{tp.partition}]: committed "
                          f"{committed}, end {end}", file=sys.stderr)
            except Exception as error:  # a diagnosis must not hide the failure it explains
                print(f"offsets of {stage}: {error}", file=sys.stderr)
            finally:
                client.close()

    def print_log_excerpts(self, per_member=12):
        """For a failed run, each member's warnings, errors and group changes (the last ones),
        on stderr: a CI run keeps no work directory."""
        wanted = (" WARN ", " ERROR ", "joined the consumer group", "partitions assigned",
                  "partitions revoked", "took the partition", "panicked", "stage started",
                  "draining", "stage stopped")
        for log in sorted(self.work.glob("*-[a-z].log")):
            lines = [line.rstrip() for line in log.read_text(errors="replace").splitlines()
                     if any(w in line for w in wanted)]
            print(f"--- {log.stem}: {len(lines)} such lines, the last {per_member}",
                  file=sys.stderr)
            for line in lines[-per_member:]:
                print(line[:300], file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=1800, help="how long to seed and break")
    parser.add_argument("--rate", type=int, default=4, help="URLs seeded per second")
    parser.add_argument("--feed", type=int, default=10, help="seconds between seeds")
    parser.add_argument("--chaos", type=int, default=60, help="seconds between faults")
    parser.add_argument("--settle", type=int, default=300,
                        help="seconds to wait, after seeding, for the output to be complete")
    parser.add_argument("--reader-idle", type=int, default=60,
                        help="a reader ends its epoch after this long without a new shard")
    parser.add_argument("--change-at", type=int,
                        help="second at which qgen goes in front of the writers (default: half "
                             "of --seconds; 0: never)")
    parser.add_argument("--broker-restart-at", type=int,
                        help="second at which the broker is killed and restarted (default: three "
                             "quarters of --seconds; 0: never)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--consumer-debug", metavar="CONTEXTS",
                        help="librdkafka debug contexts for every member's consumer, e.g. cgrp "
                             "(group joins, heartbeats, commits: in the members' logs)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--work", help="work directory to use (created; kept, as with --keep)")
    parser.add_argument("--report", help="also write the JSON report to this file")
    args = parser.parse_args()
    if args.change_at is None:
        args.change_at = args.seconds // 2
    if args.broker_restart_at is None:
        args.broker_restart_at = args.seconds * 3 // 4
    if args.work:
        work = Path(args.work)
        work.mkdir(parents=True)
        args.keep = True
    else:
        work = Path(tempfile.mkdtemp(prefix="altflow-soak-"))
    soak = Soak(args, work)
    try:
        code = soak.main()
    finally:
        for name, (_, proc, _) in soak.members.items():
            if proc.poll() is None:
                proc.kill()
        for proc in soak.procs:
            proc.kill()
        print(f"work directory: {work}" if args.keep else "", file=sys.stderr)
        if not args.keep:
            subprocess.run(["rm", "-rf", str(work)])
    sys.exit(code)


if __name__ == "__main__":
    main()
