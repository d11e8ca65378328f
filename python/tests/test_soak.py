"""The soak's 5-minute version (scripts/soak.py; the 30-minute one is scripts/soak.sh): a Kafka
pipeline with two members per stage, fed continuously from a long-tail web while members are
SIGKILLed and SIGSTOPped and qgen is added in front of the writers, two ranks training from
`shards`. Nothing lost, nothing twice, no stall (a group tansu stranded would leave samples out
of the output when the settle runs out)."""
import json
import os
import subprocess
import sys

from conftest import ROOT


def test_a_short_soak_loses_nothing_and_trains_each_sample_once(altflow_bin, tmp_path):
    report = tmp_path / "report.json"
    # The work directory (members' logs with their group protocol's debug lines, the broker's
    # log, the output) stays in pytest's tmp_path for a failure to be read afterwards.
    work = tmp_path / "soak"
    seconds = os.environ.get("ALTFLOW_SOAK_SECONDS", "300")
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts/soak.py"), "--seconds", seconds, "--rate", "3",
         "--chaos", "20", "--settle", "240", "--reader-idle", "45", "--report", str(report),
         # The broker restart is the fault suite's (tests/faults.rs), which tells tansu's own
         # losses apart; here it would make the short soak depend on them.
         "--broker-restart-at", "0", "--work", str(work), "--consumer-debug", "cgrp"],
        env={**os.environ, "ALTFLOW_BIN": altflow_bin}, capture_output=True, text=True,
        timeout=900)
    assert run.returncode == 0, f"work directory {work}\n" + run.stdout[-4000:] + run.stderr[-12000:]
    result = json.loads(report.read_text())
    assert not any(result["problems"].values()), result["problems"]
    # The faults happened — members killed or paused, the stages changed — and the web's failures
    # were in the mix.
    events = result["events"]
    assert any("SIGKILL" in e or "SIGSTOP" in e for e in events), events
    assert any("stages changed" in e for e in events), events
    assert result["served"] < result["seeded"], "no 404 among the seeded URLs"
    assert result["trained"] == result["output_samples"] == result["served"]
    print(json.dumps({k: result[k] for k in ("seeded", "served", "trained", "memory")}))
