#!/usr/bin/env bash
# Offline checks of the Kubernetes manifests in k8s/, for CI: no cluster needed.
#
#   scripts/check-k8s.sh
#
# 1. Renders each overlay (k8s/overlays/cpu, k8s/overlays/gpu) with `kubectl kustomize`, and the CPU
#    overlay once more with the optional components (k8s/hpa-prometheus-adapter, k8s/components/seed)
#    added the way an operator adds them.
# 2. Validates every built-in object of each render against the Kubernetes OpenAPI schemas bundled
#    with kubernetes-validate (strict: unknown fields are errors), for the oldest and the newest
#    Kubernetes it knows of. It has no schema for custom resources (KEDA's ScaledObject) and would
#    only warn about them, so they are left out of this step and checked by step 3.
# 3. Checks what a schema cannot know, against k8s/base/pipeline.toml: each ScaledObject's group,
#    topic, brokers and limits; probes, grace period, security context, PDBs, GPU requests, and that
#    every reference to a ConfigMap, Secret or Deployment resolves inside the render.
#
# Needs kubectl (with its built-in kustomize) and Python 3.11 or later (tomllib); installs PyYAML and
# kubernetes-validate with pip when they are missing. With ALTFLOW=path/to/altflow it also runs
# `altflow validate` on the pipeline file. Exits non-zero naming the object and field of every
# problem found.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

die() {
  echo "check-k8s: $*" >&2
  exit 1
}

if ! command -v kubectl >/dev/null; then
  # These machines carry kubectl; a fresh one may only have its package available.
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq kubectl; } >/dev/null 2>&1 || true
fi
command -v kubectl >/dev/null || die "kubectl is required (its built-in kustomize renders k8s/)"
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
  die "python3 3.11 or later is required (tomllib reads the pipeline file)"
if ! python3 -c 'import yaml' 2>/dev/null; then
  python3 -m pip install --quiet 'pyyaml>=6'
fi
# Run as a module of this python3, so that a pip script directory missing from PATH does not matter.
if ! python3 -c 'import kubernetes_validate' 2>/dev/null; then
  python3 -m pip install --quiet 'kubernetes-validate>=1.30'
fi
python3 -c 'import kubernetes_validate' 2>/dev/null || die "kubernetes-validate did not install"

# The oldest Kubernetes the manifests promise to work on (autoscaling/v2 behaviour, policy/v1 PDBs
# and Job TTLs are all older), and kubernetes-validate's newest.
oldest_k8s=1.29.0
newest_k8s="$(python3 -c 'import kubernetes_validate.utils as u; print(u.latest_version())')"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# render NAME DIR: kubectl kustomize DIR into $tmp/NAME.yaml.
render() {
  local name="$1" dir="$2"
  if ! kubectl kustomize "$dir" >"$tmp/$name.yaml" 2>"$tmp/$name.err"; then
    cat "$tmp/$name.err" >&2
    die "$name: kubectl kustomize $dir failed"
  fi
  echo "rendered $name: $(grep -c '^kind:' "$tmp/$name.yaml") objects from $dir"
}

# with_components NAME OVERLAY COMPONENT…: a copy of OVERLAY with the components appended to its
# `components`, rendered as NAME. The copy lives under $tmp; kustomize refuses absolute paths, so
# its directory references are rewritten relative to it.
with_components() {
  local name="$1" overlay="$2"
  shift 2
  mkdir -p "$tmp/$name"
  cp -R "$overlay/." "$tmp/$name/"
  python3 - "$root/$overlay" "$tmp/$name" "$@" <<'PY'
import os, sys, yaml
source, copy, components = sys.argv[1], sys.argv[2], sys.argv[3:]
path = os.path.join(copy, "kustomization.yaml")
with open(path) as f:
    k = yaml.safe_load(f)
def moved(entry):
    target = os.path.normpath(os.path.join(source, entry))
    return os.path.relpath(target, copy) if os.path.isdir(target) else entry
for key in ("resources", "components"):
    k[key] = [moved(e) for e in k.get(key, [])]
k["components"] += [os.path.relpath(os.path.join(os.getcwd(), c), copy) for c in components]
with open(path, "w") as f:
    yaml.safe_dump(k, f, sort_keys=False)
PY
  render "$name" "$tmp/$name"
}

render cpu k8s/overlays/cpu
render gpu k8s/overlays/gpu
with_components hpa k8s/overlays/cpu k8s/hpa-prometheus-adapter
with_components seed k8s/overlays/cpu k8s/components/seed

# Built-in objects (core and *.k8s.io groups, and the unqualified apps, batch, policy, autoscaling)
# go through kubernetes-validate; custom resources are counted and left to the checks below.
for name in cpu gpu hpa seed; do
  python3 - "$tmp/$name.yaml" "$tmp/$name.builtin.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
def builtin(d):
    group = d["apiVersion"].rpartition("/")[0]
    return "." not in group or group.endswith(".k8s.io")
yaml.safe_dump_all([d for d in docs if builtin(d)], open(sys.argv[2], "w"), sort_keys=False)
custom = sorted({f'{d["kind"]} ({d["apiVersion"]})' for d in docs if not builtin(d)})
name = sys.argv[1].rpartition("/")[2].removesuffix(".yaml")
print(f"{name}: custom resources, checked below instead of by schema: {', '.join(custom) or 'none'}")
PY
done
# The adapter's rule is applied apart from the overlays, into the adapter's namespace.
cp k8s/hpa-prometheus-adapter/prometheus-adapter-rules.yaml "$tmp/adapter.builtin.yaml"

for name in cpu gpu hpa seed adapter; do
  for version in "$oldest_k8s" "$newest_k8s"; do
    # Any output is a problem: an error, or a warning that a built-in kind has no schema (a
    # misspelt kind or apiVersion).
    if ! out="$(python3 -m kubernetes_validate --strict --quiet -k "$version" "$tmp/$name.builtin.yaml" 2>&1)" ||
      [ -n "$out" ]; then
      echo "$out" >&2
      die "$name: kubernetes-validate --strict against Kubernetes $version failed"
    fi
  done
  echo "validated $name: $(grep -c '^kind:' "$tmp/$name.builtin.yaml") built-in objects, strict schemas of Kubernetes $oldest_k8s and $newest_k8s"
done

# The pipeline file through altflow's own parser, when a binary is named (ALTFLOW=target/release/altflow):
# CI without a build relies on the Rust test that parses it.
if [ -n "${ALTFLOW:-}" ]; then
  "$ALTFLOW" validate k8s/base/pipeline.toml
fi

python3 - k8s/base/pipeline.toml "$tmp" <<'PY'
import re, sys, tomllib, yaml

pipeline_path, tmp = sys.argv[1], sys.argv[2]
with open(pipeline_path, "rb") as f:
    pipeline = tomllib.load(f)
problems = []

def fail(where, field, message):
    problems.append(f"{where}: {field}: {message}")

def seconds(text, key):
    """A humantime duration as altflow's pipeline files write them (500ms, 45s, 2m, 1h30m)."""
    units = {"ms": 0.001, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hr": 3600}
    parts = re.findall(r"(\d+)\s*([a-z]+)", text)
    if not parts or re.sub(r"\d+\s*[a-z]+|\s", "", text) or any(u not in units for _, u in parts):
        fail(pipeline_path, key, f"cannot read the duration {text!r}")
        return 0.0
    return sum(int(n) * units[u] for n, u in parts)

# What the pipeline file says the cluster must agree with.
bus = pipeline.get("bus", {})
stages = pipeline.get("stages", [])
partitions = bus.get("partitions", 4)
brokers = bus.get("brokers")
prefix = pipeline.get("topics", {}).get("prefix", "")
group_prefix = bus.get("group_prefix", "altflow")
drain = seconds(pipeline.get("runtime", {}).get("drain_timeout", "30s"), "runtime.drain_timeout")
flush = seconds(pipeline.get("write", {}).get("flush_after", "30s"), "write.flush_after")
listen = pipeline.get("metrics", {}).get("listen")
if bus.get("kind") != "kafka":
    fail(pipeline_path, "bus.kind", "must be \"kafka\": each stage runs in its own pod")
if not brokers:
    fail(pipeline_path, "bus.brokers", "is required on Kafka")
if "sample_site" in pipeline:
    fail(pipeline_path, "sample_site", "serves on loopback only; no place on a cluster")
if not listen or not listen.startswith("0.0.0.0:"):
    fail(pipeline_path, "metrics.listen", f"{listen!r}: must listen on 0.0.0.0 for the probes")
metrics_port = int(listen.rpartition(":")[2]) if listen else None

# Topics, as altflow names them (src/config.rs, Pipeline::input_topic): crawl reads the frontier,
# extract the archives, retry and failures their own topics, every other stage the output of the
# chain stage before it.
OUTPUT = {"crawl": "candidates", "extract": "candidates", "filter": "accepted", "fetch": "pairs", "score": "scored",
          "dedup": "unique", "qgen": "samples", "write": "shards"}
ORDER = list(OUTPUT) + ["retry", "failures"]
def input_topic(stage):
    fixed = {"crawl": "frontier", "extract": "archives", "retry": "retry", "failures": "rejects"}
    if stage in fixed:
        return prefix + fixed[stage]
    before = [s for s in stages[: stages.index(stage)] if s in OUTPUT]
    if not before:  # a chain fed by URL lists reads what the stage before it would write
        before = [s for s in ORDER[: ORDER.index(stage)] if s in OUTPUT]
    return prefix + OUTPUT[before[-1]]

def load(name):
    with open(f"{tmp}/{name}.yaml") as f:
        return [d for d in yaml.safe_load_all(f) if d]

def objects(docs, kind):
    return [d for d in docs if d["kind"] == kind]

def label(d, key):
    return d.get("metadata", {}).get("labels", {}).get(key)

def pod_checks(render, where, spec, container, deployment):
    """What every altflow pod needs, Deployment or Job."""
    psc, csc = spec.get("securityContext", {}), container.get("securityContext", {})
    if not (csc.get("runAsNonRoot", psc.get("runAsNonRoot")) is True):
        fail(where, "securityContext.runAsNonRoot", "must be true")
    if csc.get("readOnlyRootFilesystem") is not True:
        fail(where, "containers[altflow].securityContext.readOnlyRootFilesystem", "must be true")
    if csc.get("allowPrivilegeEscalation") is not False:
        fail(where, "containers[altflow].securityContext.allowPrivilegeEscalation", "must be false")
    if "ALL" not in csc.get("capabilities", {}).get("drop", []):
        fail(where, "containers[altflow].securityContext.capabilities.drop", "must contain ALL")
    mounts = {m["mountPath"]: m["name"] for m in container.get("volumeMounts", [])}
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    config = volumes.get(mounts.get("/etc/altflow"), {}).get("configMap", {}).get("name")
    if not config:
        fail(where, "volumeMounts", "needs the pipeline ConfigMap mounted at /etc/altflow")
    elif config not in render["ConfigMap"]:
        fail(where, "volumes.configMap.name", f"{config} is not in the render")
    elif render["ConfigMap"][config].get("data", {}).get("pipeline.toml") != pipeline_text:
        fail(where, "volumes.configMap", f"{config} does not hold {pipeline_path} as it is")
    if deployment and "emptyDir" not in volumes.get(mounts.get("/tmp"), {}):
        fail(where, "volumeMounts", "needs an emptyDir at /tmp (the root filesystem is read-only)")
    for source in container.get("envFrom", []):
        secret = source.get("secretRef", {}).get("name")
        if secret and secret not in render["Secret"]:
            fail(where, "envFrom.secretRef.name", f"{secret} is not in the render")
    for kind in ("requests", "limits"):
        for resource in ("cpu", "memory"):
            if resource not in container.get("resources", {}).get(kind, {}):
                fail(where, f"resources.{kind}.{resource}", "missing")

def check_render(name, docs, autoscaler):
    print(f"{name}:")
    render = {k: {d["metadata"]["name"]: d for d in objects(docs, k)} for k in
              ("ConfigMap", "Secret", "Deployment")}
    for d in docs:
        if d["kind"] != "Namespace" and d["metadata"].get("namespace") != "altflow":
            fail(f"{name} {d['kind']}/{d['metadata']['name']}", "metadata.namespace",
                 "must be altflow (the overlays set it)")

    # Deployments: one per stage, each running that stage.
    deployments = {}
    for d in objects(docs, "Deployment"):
        where = f"{name} Deployment/{d['metadata']['name']}"
        stage = label(d, "app.kubernetes.io/component")
        if stage not in stages:
            fail(where, "metadata.labels.app.kubernetes.io/component", f"{stage!r} is not a stage of {pipeline_path}")
            continue
        if stage in deployments:
            fail(where, "metadata.labels.app.kubernetes.io/component", f"second Deployment of stage {stage}")
        deployments[stage] = d
        spec = d["spec"]["template"]["spec"]
        template_labels = d["spec"]["template"]["metadata"].get("labels", {})
        if label(d, "app.kubernetes.io/name") != "altflow" or template_labels.get("app.kubernetes.io/component") != stage:
            fail(where, "labels", "needs app.kubernetes.io/name=altflow and component on the object and its pods")
        if "replicas" in d["spec"]:
            fail(where, "spec.replicas", "must be left out: the autoscaler owns it, an apply would reset it")
        containers = [c for c in spec["containers"] if c["name"] == "altflow"]
        if len(containers) != 1:
            fail(where, "spec.template.spec.containers", "needs exactly one container named altflow")
            continue
        c = containers[0]
        expected = ["stage", stage, "--pipeline", "/etc/altflow/pipeline.toml"]
        if c.get("args") != expected:
            fail(where, "containers[altflow].args", f"{c.get('args')} is not {expected}")
        ports = {p.get("name"): p["containerPort"] for p in c.get("ports", [])}
        if ports.get("metrics") != metrics_port:
            fail(where, "containers[altflow].ports", f"needs port `metrics` = {metrics_port} (metrics.listen)")
        annotations = d["spec"]["template"]["metadata"].get("annotations", {})
        if annotations.get("prometheus.io/port", str(metrics_port)) != str(metrics_port):
            fail(where, "template annotations prometheus.io/port", f"must be {metrics_port}")
        for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz"),
                            ("startupProbe", None)):
            get = c.get(probe, {}).get("httpGet")
            if not get:
                fail(where, f"containers[altflow].{probe}", "missing (needs an httpGet)")
                continue
            if path and get.get("path") != path:
                fail(where, f"containers[altflow].{probe}.httpGet.path", f"{get.get('path')!r}, expected {path}")
            if get.get("port") not in ("metrics", metrics_port):
                fail(where, f"containers[altflow].{probe}.httpGet.port", f"{get.get('port')!r} is not the metrics port")
        grace = spec.get("terminationGracePeriodSeconds", 30)
        if not grace > drain + flush:
            fail(where, "spec.template.spec.terminationGracePeriodSeconds",
                 f"{grace} must exceed runtime.drain_timeout + write.flush_after = {drain + flush:g} s")
        pod_checks(render, where, spec, c, deployment=True)
        gpu = c.get("resources", {}).get("limits", {}).get("nvidia.com/gpu")
        wants_gpu = name == "gpu" and stage in ("score", "qgen")
        if wants_gpu and not gpu:
            fail(where, "containers[altflow].resources.limits.nvidia.com/gpu", "missing in the GPU overlay")
        if wants_gpu and not any(t.get("key") == "nvidia.com/gpu" for t in spec.get("tolerations", [])):
            fail(where, "spec.template.spec.tolerations", "needs the nvidia.com/gpu toleration")
        if not wants_gpu and gpu:
            fail(where, "containers[altflow].resources.limits.nvidia.com/gpu", f"only score and qgen of the GPU overlay get a GPU")
    for stage in stages:
        if stage not in deployments:
            fail(name, "Deployment", f"none for stage {stage} (component={stage})")

    # A PodDisruptionBudget per Deployment, selecting its pods and no others.
    for stage, d in deployments.items():
        where = f"{name} Deployment/{d['metadata']['name']}"
        pods = d["spec"]["template"]["metadata"]["labels"]
        matching = [p for p in objects(docs, "PodDisruptionBudget")
                    if p["spec"]["selector"].get("matchLabels", {}).items() <= pods.items()]
        if len(matching) != 1:
            fail(where, "PodDisruptionBudget", f"{len(matching)} select its pods, expected 1")
            continue
        pdb = matching[0]
        others = [o for s, o in deployments.items() if s != stage and
                  pdb["spec"]["selector"]["matchLabels"].items() <= o["spec"]["template"]["metadata"]["labels"].items()]
        if others:
            fail(f"{name} PodDisruptionBudget/{pdb['metadata']['name']}", "spec.selector", "selects pods of other stages too")
        if pdb["spec"].get("maxUnavailable") != 1:
            fail(f"{name} PodDisruptionBudget/{pdb['metadata']['name']}", "spec.maxUnavailable", "must be 1")
    print(f"  {len(deployments)} Deployments: args, labels, metrics port, liveness /healthz, readiness /readyz,"
          f" startup probe, grace > {drain + flush:g} s, security context, /tmp, resources, config and secret refs;"
          f" one PodDisruptionBudget each (maxUnavailable 1)")
    gpus = sorted(s for s, d in deployments.items()
                  if "nvidia.com/gpu" in d["spec"]["template"]["spec"]["containers"][0].get("resources", {}).get("limits", {}))
    print(f"  GPU limits on: {', '.join(gpus) or 'none'}")

    # Jobs: topics create in every render.
    jobs = {label(j, "app.kubernetes.io/component"): j for j in objects(docs, "Job")}
    for component, args in (("topics", ["topics", "create", "--pipeline", "/etc/altflow/pipeline.toml"]),
                            ("seed", ["seed", "--pipeline", "/etc/altflow/pipeline.toml"])):
        if component not in jobs:
            if component == "topics" or name == "seed":
                fail(name, "Job", f"no Job with component={component}")
            continue
        j = jobs[component]
        where = f"{name} Job/{j['metadata']['name']}"
        c = j["spec"]["template"]["spec"]["containers"][0]
        if c.get("args") != args:
            fail(where, "containers[0].args", f"{c.get('args')} is not {args}")
        if "ttlSecondsAfterFinished" not in j["spec"]:
            fail(where, "spec.ttlSecondsAfterFinished", "needed: the pod template is immutable and changes with the ConfigMap")
        pod_checks(render, where, j["spec"]["template"]["spec"], c, deployment=False)
    print(f"  Jobs: {', '.join(sorted(jobs))}")

    scaled = objects(docs, "ScaledObject")
    hpas = objects(docs, "HorizontalPodAutoscaler")
    if autoscaler == "keda":
        check_scaledobjects(name, scaled, deployments)
        if hpas:
            fail(name, "HorizontalPodAutoscaler", "none expected beside the ScaledObjects (KEDA makes its own)")
    else:
        check_hpas(name, hpas, deployments)
        for s in scaled:
            fail(f"{name} ScaledObject/{s['metadata']['name']}", "kind", "left over beside the HPAs")

SCALEDOBJECT_SPEC = {"scaleTargetRef", "pollingInterval", "cooldownPeriod", "initialCooldownPeriod",
                     "idleReplicaCount", "minReplicaCount", "maxReplicaCount", "fallback", "advanced", "triggers"}
KAFKA_METADATA = {"bootstrapServers", "consumerGroup", "topic", "lagThreshold", "activationLagThreshold",
                  "offsetResetPolicy", "allowIdleConsumers", "excludePersistentLag", "limitToPartitionsWithLag",
                  "scaleToZeroOnInvalidOffset", "partitionLimitation", "version", "sasl", "tls"}
lag_targets = {}

def check_scaledobjects(name, scaled, deployments):
    seen = {}
    for s in scaled:
        where = f"{name} ScaledObject/{s['metadata']['name']}"
        spec = s.get("spec", {})
        if s["apiVersion"] != "keda.sh/v1alpha1":
            fail(where, "apiVersion", f"{s['apiVersion']!r}, expected keda.sh/v1alpha1")
        for key in sorted(set(spec) - SCALEDOBJECT_SPEC):
            fail(where, f"spec.{key}", "not a ScaledObject field (misspelt?)")
        ref = spec.get("scaleTargetRef", {})
        target = ref.get("name")
        stage = next((st for st, d in deployments.items() if d["metadata"]["name"] == target), None)
        if ref.get("kind", "Deployment") != "Deployment" or stage is None:
            fail(where, "spec.scaleTargetRef.name", f"{target!r} is not a Deployment of the render")
            continue
        if stage in seen:
            fail(where, "spec.scaleTargetRef.name", f"Deployment {target} is also scaled by {seen[stage]}")
        seen[stage] = s["metadata"]["name"]
        triggers = spec.get("triggers", [])
        if len(triggers) != 1 or triggers[0].get("type") != "kafka":
            fail(where, "spec.triggers", "needs exactly one trigger, of type kafka")
            continue
        meta = triggers[0].get("metadata", {})
        for key in sorted(set(meta) - KAFKA_METADATA):
            fail(where, f"spec.triggers[0].metadata.{key}", "not a kafka scaler parameter (misspelt?)")
        if meta.get("bootstrapServers") != brokers:
            fail(where, "spec.triggers[0].metadata.bootstrapServers", f"{meta.get('bootstrapServers')!r} is not bus.brokers {brokers!r}")
        group = f"{group_prefix}-{stage}"
        if meta.get("consumerGroup") != group:
            fail(where, "spec.triggers[0].metadata.consumerGroup", f"{meta.get('consumerGroup')!r}, the {stage} stage's group is {group!r}")
        if meta.get("topic") != input_topic(stage):
            fail(where, "spec.triggers[0].metadata.topic", f"{meta.get('topic')!r}, the {stage} stage reads {input_topic(stage)!r}")
        lag = meta.get("lagThreshold")
        if not (isinstance(lag, str) and lag.isdigit() and int(lag) > 0):
            fail(where, "spec.triggers[0].metadata.lagThreshold", f"{lag!r} must be a quoted string of digits, above 0")
        else:
            lag_targets[stage] = (int(lag), spec.get("maxReplicaCount"))
        if meta.get("offsetResetPolicy") != "earliest":
            fail(where, "spec.triggers[0].metadata.offsetResetPolicy", "must be earliest, as the stages' auto.offset.reset")
        low, high = spec.get("minReplicaCount", 0), spec.get("maxReplicaCount", 100)
        if not (isinstance(low, int) and low >= 1):
            fail(where, "spec.minReplicaCount", f"{low!r} must be at least 1: every group keeps a member")
        if not (isinstance(high, int) and low <= high <= partitions):
            fail(where, "spec.maxReplicaCount", f"{high!r} must be between minReplicaCount and bus.partitions ({partitions})")
        window = (spec.get("advanced", {}).get("horizontalPodAutoscalerConfig", {}).get("behavior", {})
                  .get("scaleDown", {}).get("stabilizationWindowSeconds"))
        if not (isinstance(window, int) and window >= 300):
            fail(where, "spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown.stabilizationWindowSeconds",
                 f"{window!r} must be at least 300: each scale step is a rebalance")
    for stage, d in deployments.items():
        if stage not in seen:
            fail(f"{name} Deployment/{d['metadata']['name']}", "ScaledObject", "none scales it")
    print(f"  {len(scaled)} ScaledObjects: keda.sh/v1alpha1, target Deployment, one kafka trigger on bus.brokers,"
          f" group {group_prefix}-<stage>, input topic, quoted lagThreshold, offsetResetPolicy earliest,"
          f" 1 <= min <= max <= {partitions}, scale-down window >= 300 s")
    for stage in stages if name == "cpu" else []:  # the same in every render
        if stage in lag_targets:
            print(f"    {stage:9} {input_topic(stage):20} lagThreshold {lag_targets[stage][0]:>6}  max {lag_targets[stage][1]}")

def check_hpas(name, hpas, deployments):
    seen = {}
    for h in hpas:
        where = f"{name} HorizontalPodAutoscaler/{h['metadata']['name']}"
        spec = h["spec"]
        ref = spec["scaleTargetRef"]
        stage = next((st for st, d in deployments.items() if d["metadata"]["name"] == ref.get("name")), None)
        if ref.get("kind") != "Deployment" or stage is None:
            fail(where, "spec.scaleTargetRef", f"{ref} is not a Deployment of the render")
            continue
        if stage in seen:
            fail(where, "spec.scaleTargetRef.name", f"Deployment {ref['name']} is also scaled by {seen[stage]}")
        seen[stage] = h["metadata"]["name"]
        if not 1 <= spec.get("minReplicas", 1) <= spec["maxReplicas"] <= partitions:
            fail(where, "spec.maxReplicas", f"must be between minReplicas (>= 1) and bus.partitions ({partitions})")
        metrics = spec.get("metrics", [])
        external = [m["external"] for m in metrics if m.get("type") == "External"]
        if len(metrics) != 1 or len(external) != 1:
            fail(where, "spec.metrics", "needs exactly one External metric")
            continue
        metric = external[0]["metric"]
        if metric.get("selector", {}).get("matchLabels", {}).get("stage") != stage:
            fail(where, "spec.metrics[0].external.metric.selector", f"must select stage={stage}")
        if metric["name"] not in adapter_metrics:
            fail(where, "spec.metrics[0].external.metric.name", f"{metric['name']!r} is not a metric of the adapter rules ({sorted(adapter_metrics)})")
        target = external[0]["target"]
        expected = lag_targets.get(stage)
        if target.get("type") != "AverageValue":
            fail(where, "spec.metrics[0].external.target.type", "must be AverageValue (lag per member)")
        elif expected and (str(target.get("averageValue")) != str(expected[0]) or spec["maxReplicas"] != expected[1]):
            fail(where, "spec", f"target {target.get('averageValue')} / max {spec['maxReplicas']} differ from the ScaledObject's {expected[0]} / {expected[1]}")
        window = spec.get("behavior", {}).get("scaleDown", {}).get("stabilizationWindowSeconds")
        if not (isinstance(window, int) and window >= 300):
            fail(where, "spec.behavior.scaleDown.stabilizationWindowSeconds", f"{window!r} must be at least 300")
    for stage, d in deployments.items():
        if stage not in seen:
            fail(f"{name} Deployment/{d['metadata']['name']}", "HorizontalPodAutoscaler", "none scales it")
    print(f"  {len(hpas)} HPAs: one per Deployment, External metric of the adapter rules selecting its stage,"
          f" same target and maximum as its ScaledObject, max <= {partitions}, scale-down window >= 300 s; no ScaledObject left")

with open(pipeline_path) as f:
    pipeline_text = f.read()
for stage in stages:
    if stage not in ORDER:
        fail(pipeline_path, "stages", f"unknown stage {stage!r}")
if problems:
    print("\n".join(f"FAIL {p}" for p in problems), file=sys.stderr)
    sys.exit(1)
print(f"{pipeline_path}: {len(stages)} stages, {partitions} partitions, brokers {brokers},"
      f" drain_timeout {drain:g} s + write.flush_after {flush:g} s, metrics on port {metrics_port}")

adapter = yaml.safe_load(open("k8s/hpa-prometheus-adapter/prometheus-adapter-rules.yaml"))
rules = yaml.safe_load(adapter["data"]["config.yaml"]).get("externalRules", [])
adapter_metrics = set()
for i, rule in enumerate(rules):
    where = f"prometheus-adapter-rules.yaml externalRules[{i}]"
    if "altflow_consumer_lag" not in rule.get("seriesQuery", ""):
        fail(where, "seriesQuery", "must select altflow_consumer_lag")
    if not re.search(r"sum by \(stage\)", rule.get("metricsQuery", "")) or "<<.LabelMatchers>>" not in rule.get("metricsQuery", ""):
        fail(where, "metricsQuery", "must sum by stage over <<.Series>>{<<.LabelMatchers>>}")
    adapter_metrics.add(rule.get("name", {}).get("as", ""))
print(f"prometheus-adapter rules: external metrics {sorted(adapter_metrics)}")

check_render("cpu", load("cpu"), "keda")
check_render("gpu", load("gpu"), "keda")
check_render("seed", load("seed"), "keda")
check_render("hpa", load("hpa"), "hpa")

if problems:
    print("\n".join(f"FAIL {p}" for p in problems), file=sys.stderr)
    print(f"check-k8s: {len(problems)} problem(s)", file=sys.stderr)
    sys.exit(1)
print("check-k8s: all checks passed")
PY
