#!/usr/bin/env python3
"""Times weft, TensorFlow and ONNX Runtime on the same graphs and inputs.

Run it through bench/compare/run.sh, which builds the weft worker and makes
the Python environment; see that file for the command line.

For every graph (a tests/models/testdata .model sidecar at each batch size,
an executor stress chain "chain:N", a chain of N AddV2 nodes on [1]
floats "addchain:N", a loop of N iterations "while:N", a
Keras recurrent model "lstm:UNITS" or "gru:UNITS" at each batch size
(":lowered" after either picks TF1's lowered loop over TF2's functional
While; see workers.write_while and workers.write_rnn), or a SavedModel
directory at each batch size, for which a fourth process runs weft on the
signature frozen into a GraphDef: see workers.saved_model_entries):

1. each engine gets a process of its own (bench/compare/weft_worker.cc for
   weft, workers.py for the others) and loads the graph: the load time is
   reading the file to a session ready to run; the first run is shown apart
   (with --load-repeats N, each engine loads N times in fresh processes,
   taking turns, and the table gives the median load);
2. each engine runs once and saves its outputs, and the outputs of weft and
   ONNX Runtime are checked against TensorFlow's (ONNX Runtime's without
   TensorFlow in --engines) with the bound of the model tests,
   |a - b| <= 1e-4 |b| + 5e-5 max|B| (times --tolerance-scale); an engine
   that fails to load or disagrees is reported and not timed;
3. after --warmup untimed runs each, the engines take turns, one run each
   per round (weft, TF, ORT, weft, TF, ORT, ...), for --runs rounds, so that
   a change in the machine's load touches all three alike; each turn starts
   after --gap-ms of idle time, so that the previous engine's spinning
   worker threads do not compete with it, then runs the engine untimed for
   --warm-ms (at least once), since the cores come back from idle slowly,
   and then times one run;
4. the table gives the median latency, weft/TF and weft/ORT, the load time,
   the first run and the peak resident memory (VmHWM) of each process, and
   for the stress chains the per-node cost as the slope between the
   shortest and the longest chain, and for the loops the per-iteration
   cost as the slope between the fewest and the most iterations (each
   with the intercept as the fixed cost of a run).
"""

import argparse
import glob
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

import workers

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ENGINES = ("weft", "tf", "ort")
# A SavedModel directory adds weft on the signature frozen into a GraphDef.
SAVED_MODEL_ENGINES = ("weft", "weft_pb", "tf", "ort")
LABELS = {"weft": "weft", "weft_pb": "weft (frozen .pb)", "tf": "TensorFlow",
          "ort": "ONNX Runtime"}


def entry_engines(entry):
    return SAVED_MODEL_ENGINES if entry["kind"] == "saved_model" else ENGINES


def wanted(engine, args):
    return (engine if engine != "weft_pb" else "weft") in args.engines

# The model tests' bound (tests/models/models_test.cc).
RTOL = 1e-4
ATOL_SCALE = 5e-5


class Worker:
    """One engine's process and its line protocol."""

    def __init__(self, engine, command, log_path, settings=None):
        """`settings`: environment variables set for this process only."""
        self.engine = engine
        self.log = open(log_path, "w")
        env = dict(os.environ)
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        env.update(settings or {})
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            bufsize=1,
            env=env,
        )
        self.error = None
        self.ready = self._read()

    def _read(self):
        # Libraries may print to stdout too: skip lines that are not JSON.
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(
                    "%s worker exited (code %s); its log: %s"
                    % (self.engine, self.proc.poll(), self.log.name)
                )
            line = line.strip()
            if line.startswith("{"):
                try:
                    return json.loads(line)
                except ValueError:
                    pass

    def ask(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        answer = self._read()
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer

    def close(self):
        try:
            if self.proc.poll() is None:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def worker_command(engine, entry, args):
    if entry["kind"] == "saved_model":
        return saved_model_worker_command(engine, entry, args)
    io = ["--input", "%s=%s" % (entry["input"], entry["input_file"])]
    for out in entry["outputs"]:
        io += ["--output", out]
    threads = ["--threads", str(args.threads)]
    no_opt = ["--no-optimize"] if entry["no_optimize"] else []
    workers_py = os.path.join(HERE, "workers.py")
    if engine == "weft":
        return [args.weft_worker, "--graph", entry["graph"]] + io + threads
    if engine == "tf":
        return [sys.executable, workers_py, "tf", "--graph", entry["graph"]] + io + threads + no_opt
    return [sys.executable, workers_py, "ort", "--model", entry["onnx"]] + io + threads + no_opt


def saved_model_worker_command(engine, entry, args):
    """weft and TensorFlow load the directory by signature key; weft_pb is
    weft on the frozen signature; ONNX Runtime runs tf2onnx's conversion."""
    threads = ["--threads", str(args.threads)]
    signature = ["--signature", entry["signature"], "--tag", entry["tag"]]
    names = {"weft": (entry["input"], entry["outputs"]),
             "tf": (entry["input"], entry["outputs"]),
             "weft_pb": (entry["frozen_input"], entry["frozen_outputs"]),
             "ort": (entry["onnx_input"], entry["onnx_outputs"])}[engine]
    io = ["--input", "%s=%s" % (names[0], entry["input_file"])]
    for out in names[1]:
        io += ["--output", out]
    workers_py = os.path.join(HERE, "workers.py")
    if engine == "weft":
        return [args.weft_worker, "--graph", entry["saved_model"]] + signature + io + threads
    if engine == "weft_pb":
        return [args.weft_worker, "--graph", entry["graph"]] + io + threads
    if engine == "tf":
        return ([sys.executable, workers_py, "tf", "--saved-model", entry["saved_model"]]
                + signature + io + threads)
    return [sys.executable, workers_py, "ort", "--model", entry["onnx"]] + io + threads


def bound_use(value, reference):
    """The largest |value - reference| / bound; inf for a shape mismatch."""
    value = np.asarray(value, dtype=np.float64)
    reference = np.asarray(reference, dtype=np.float64)
    if value.shape != reference.shape:
        return float("inf")
    if reference.size == 0:
        return 0.0
    scale = float(np.max(np.abs(reference)))
    bound = RTOL * np.abs(reference) + ATOL_SCALE * scale
    diff = np.abs(value - reference)
    with np.errstate(divide="ignore", invalid="ignore"):
        use = np.where(bound > 0, diff / bound, np.where(diff == 0, 0.0, np.inf))
    use = np.where(np.isnan(use), np.inf, use)
    return float(np.max(use))


def median(values):
    return statistics.median(values) if values else float("nan")


def run_entry(entry, args, log_dir):
    """Loads, checks and times one graph on the three engines."""
    tag = "%s_b%d_t%d" % (entry.get("work_name", entry["name"]), entry["batch"], args.threads)
    result = {"name": entry["name"], "kind": entry["kind"], "batch": entry["batch"],
              "threads": args.threads, "engines": {}}
    if entry["kind"] == "stress":
        result["nodes"] = entry["nodes"]
        result["family"] = entry.get("family", "chain")
    result["onnx_notes"] = entry.get("onnx_notes", [])
    workers = {}
    engines = entry_engines(entry)
    try:
        for engine in engines:
            info = {}
            result["engines"][engine] = info
            if not wanted(engine, args):
                continue
            if engine == "ort" and not entry.get("onnx"):
                info["error"] = entry.get("onnx_error") or "no ONNX model"
                continue
            try:
                w = Worker(engine, worker_command(engine, entry, args),
                           os.path.join(log_dir, "%s_%s.log" % (tag, engine)))
                workers[engine] = w
                info["start_rss_kb"] = w.ready.get("rss_kb")
                info["load_s"] = w.ask("load")["load_s"]
                out_dir = os.path.join(log_dir, "outputs", tag, engine)
                os.makedirs(out_dir, exist_ok=True)
                saved = w.ask("save " + out_dir)
                info["first_run_s"] = saved["run_s"]
                info["outputs"] = [os.path.join(out_dir, "%d.npy" % i)
                                   for i in range(saved["saved"])]
            except RuntimeError as e:
                info["error"] = str(e)
                workers.pop(engine, None)

        # Agreement, TensorFlow's outputs as the reference (ONNX Runtime's
        # when TensorFlow is not among --engines).
        ref_engine = "tf" if "tf" in args.engines else "ort"
        ref = result["engines"][ref_engine]
        for engine in engines:
            info = result["engines"][engine]
            if engine == ref_engine or "outputs" not in info or "outputs" not in ref:
                continue
            uses = [bound_use(np.load(a), np.load(b))
                    for a, b in zip(info["outputs"], ref["outputs"])]
            info["bound_use"] = max(uses) if uses else 0.0
            if len(info["outputs"]) != len(ref["outputs"]):
                info["bound_use"] = float("inf")
            if not info["bound_use"] <= args.tolerance_scale:
                info["error"] = ("outputs disagree with %s: |diff| reaches %.3g x the "
                                 "bound" % (LABELS[ref_engine], info["bound_use"]))
                workers.pop(engine).close()

        timed = [e for e in engines if e in workers]
        for engine in list(timed):
            try:
                workers[engine].ask("run %d" % args.warmup)
            except RuntimeError as e:
                result["engines"][engine]["error"] = "warm-up run failed: %s" % e
                workers.pop(engine).close()
                timed.remove(engine)
                continue
            result["engines"][engine]["times"] = []
        deadline = time.monotonic() + args.max_seconds
        for k in range(args.runs):
            for engine in list(timed):
                # Engines keep their worker threads spinning for a while after
                # a run: ONNX Runtime's intra-op pool spins for 20 to 30 ms
                # here, and with as many threads as cores it then takes a core
                # from the next engine's run (measured: weft's ResNet50 at 2
                # threads ran 35% slower right after an ONNX Runtime run with
                # a 20 ms gap, and as fast as alone with 50 ms or more).
                time.sleep(args.gap_ms / 1e3)
                try:
                    # After the idle gap the cores run slow for a few
                    # milliseconds (here a 440 us weft run took 1.8 ms right
                    # after 10 ms of idle, 580 us after that, and 440 us from
                    # 4 ms of running on): untimed runs for --warm-ms first.
                    workers[engine].ask("warm %g" % args.warm_ms)
                    t = workers[engine].ask("run 1")["times"][0]
                except RuntimeError as e:
                    result["engines"][engine]["error"] = "timed run failed: %s" % e
                    workers.pop(engine).close()
                    timed.remove(engine)
                    break
                result["engines"][engine]["times"].append(t)
            if time.monotonic() > deadline and k + 1 >= args.min_runs:
                break
        for engine in timed:
            if not result["engines"][engine]["times"]:
                continue
            rss = workers[engine].ask("rss")
            result["engines"][engine]["peak_rss_kb"] = rss["peak_rss_kb"]
            result["engines"][engine]["median_s"] = median(result["engines"][engine]["times"])
    finally:
        for w in workers.values():
            w.close()
    repeat_loads(result, engines, entry, args, log_dir, tag)
    return result


def repeat_loads(result, engines, entry, args, log_dir, tag):
    """One load in a fresh process is a noisy figure (on a VM, 90 to 140 ms
    for the same model): with --load-repeats N, N - 1 more fresh workers per
    engine load the graph, taking turns across engines, and load_s becomes
    the median of the N. Engines that failed are left alone."""
    loaded = [e for e in engines if "load_s" in result["engines"][e]
              and "error" not in result["engines"][e]]
    for engine in loaded:
        result["engines"][engine]["load_s_all"] = [result["engines"][engine]["load_s"]]
    for r in range(1, args.load_repeats):
        for engine in loaded:
            info = result["engines"][engine]
            w = Worker(engine, worker_command(engine, entry, args),
                       os.path.join(log_dir, "%s_%s_load%d.log" % (tag, engine, r)))
            try:
                info["load_s_all"].append(w.ask("load")["load_s"])
            except RuntimeError:
                pass  # the first load succeeded: keep what was measured
            finally:
                w.close()
    for engine in loaded:
        info = result["engines"][engine]
        info["load_s"] = median(info["load_s_all"])


# ---- report -----------------------------------------------------------------


def fmt_ms(s):
    if s is None or s != s:
        return "-"
    ms = s * 1e3
    if ms >= 100:
        return "%.0f" % ms
    if ms >= 10:
        return "%.1f" % ms
    if ms >= 1:
        return "%.2f" % ms
    return "%.3f" % ms


def fmt_ratio(a, b):
    if a is None or b is None or a != a or b != b or b == 0:
        return "-"
    return "%.2f" % (a / b)


def fmt_mb(kb):
    return "-" if kb is None else "%.0f" % (kb / 1024.0)


def cell(info, key, fmt):
    if "error" in info and key not in info:
        return "n/a"
    return fmt(info.get(key))


def model_table(results):
    lines = [
        "| model | batch | weft ms | TF ms | ORT ms | weft/TF | weft/ORT | "
        "load ms weft / TF / ORT | first run ms weft / TF / ORT | "
        "peak RSS MB weft / TF / ORT | agreement (x bound) weft / ORT |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|---|---|",
    ]
    notes = []
    for r in results:
        if r["kind"] != "model":
            continue
        e = r["engines"]
        med = {k: e[k].get("median_s") for k in ENGINES}
        lines.append(
            "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |"
            % (
                r["name"], r["batch"],
                fmt_ms(med["weft"]), fmt_ms(med["tf"]), fmt_ms(med["ort"]),
                fmt_ratio(med["weft"], med["tf"]), fmt_ratio(med["weft"], med["ort"]),
                " / ".join(cell(e[k], "load_s", fmt_ms) for k in ENGINES),
                " / ".join(cell(e[k], "first_run_s", fmt_ms) for k in ENGINES),
                " / ".join(cell(e[k], "peak_rss_kb", fmt_mb) for k in ENGINES),
                " / ".join(cell(e[k], "bound_use", lambda v: "-" if v is None else "%.2g" % v)
                           for k in ("weft", "ort")),
            )
        )
        for note in r.get("onnx_notes", []):
            notes.append("%s batch %d, ONNX model: %s" % (r["name"], r["batch"], note))
        for k in ENGINES:
            if "error" in e[k]:
                notes.append("%s batch %d, %s: %s" % (r["name"], r["batch"], LABELS[k],
                                                      e[k]["error"].splitlines()[0][:300]))
    return lines, notes


def saved_model_table(results):
    """SavedModel directories: weft (loading the directory), weft on the
    frozen signature, TensorFlow (tf.saved_model.load) and ONNX Runtime
    (tf2onnx's conversion of the directory)."""
    order = SAVED_MODEL_ENGINES
    lines = [
        "| SavedModel | batch | weft ms | weft .pb ms | TF ms | ORT ms | weft/.pb | "
        "weft/TF | weft/ORT | load ms weft / .pb / TF / ORT | "
        "first run ms weft / .pb / TF / ORT | peak RSS MB weft / .pb / TF / ORT | "
        "agreement (x bound) weft / .pb / ORT |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|",
    ]
    notes = []
    for r in results:
        if r["kind"] != "saved_model":
            continue
        e = r["engines"]
        med = {k: e[k].get("median_s") for k in order}
        lines.append(
            "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |"
            % (
                r["name"], r["batch"],
                fmt_ms(med["weft"]), fmt_ms(med["weft_pb"]), fmt_ms(med["tf"]),
                fmt_ms(med["ort"]), fmt_ratio(med["weft"], med["weft_pb"]),
                fmt_ratio(med["weft"], med["tf"]), fmt_ratio(med["weft"], med["ort"]),
                " / ".join(cell(e[k], "load_s", fmt_ms) for k in order),
                " / ".join(cell(e[k], "first_run_s", fmt_ms) for k in order),
                " / ".join(cell(e[k], "peak_rss_kb", fmt_mb) for k in order),
                " / ".join(cell(e[k], "bound_use", lambda v: "-" if v is None else "%.2g" % v)
                           for k in ("weft", "weft_pb", "ort")),
            )
        )
        for note in r.get("onnx_notes", []):
            notes.append("%s batch %d, ONNX model: %s" % (r["name"], r["batch"], note))
        for k in order:
            if "error" in e[k]:
                notes.append("%s batch %d, %s: %s" % (r["name"], r["batch"], LABELS[k],
                                                      e[k]["error"].splitlines()[0][:300]))
    return lines, notes


# Stress families: (title, size column, slope row, unit) for the report.
STRESS_FAMILIES = {
    "chain": ("Executor stress: chains of Identity nodes, batch 1",
              "chain nodes", "per-node cost", "node"),
    "addchain": ("Small kernels: chains of AddV2 nodes on [1] floats "
                 "(x + c, c a constant), batch 1",
                 "chain nodes", "per-node cost", "node"),
    "while": ("Loops: one functional While (TF2 form) of N iterations of "
              "(i + 1, x * a + b) on a [1] float, batch 1",
              "iterations", "per-iteration cost", "iteration"),
    "while_lowered": ("Loops: one lowered loop (TF1 form: Enter/Merge/Switch/"
                      "NextIteration/Exit) of N iterations of (i + 1, x * a + b) "
                      "on a [1] float, batch 1",
                      "iterations", "per-iteration cost", "iteration"),
}


def stress_tables(results):
    """(title, lines) per stress family present, in STRESS_FAMILIES order."""
    out = []
    for family, (title, column, slope_name, unit) in STRESS_FAMILIES.items():
        lines = stress_table([r for r in results if r["kind"] == "stress"
                              and r.get("family", "chain") == family],
                             column, slope_name, unit)
        if lines:
            out.append((title, lines))
    return out


def stress_table(results, column="chain nodes", slope_name="per-node cost",
                 unit="node"):
    chains = sorted(results, key=lambda r: r["nodes"])
    if not chains:
        return []
    lines = [
        "| %s | weft us | TF us | ORT us | weft/TF | weft/ORT |" % column,
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for r in chains:
        med = {k: r["engines"][k].get("median_s") for k in ENGINES}
        us = lambda s: "-" if s is None else "%.1f" % (s * 1e6)
        lines.append("| %d | %s | %s | %s | %s | %s |" % (
            r["nodes"], us(med["weft"]), us(med["tf"]), us(med["ort"]),
            fmt_ratio(med["weft"], med["tf"]), fmt_ratio(med["weft"], med["ort"])))
    slope = []
    if len(chains) >= 2:
        lo, hi = chains[0], chains[-1]
        slope.append("")
        slope.append("| %s (slope %d..%d %ss) | weft | TF | ORT |"
                     % (slope_name, lo["nodes"], hi["nodes"], unit))
        slope.append("|---|---:|---:|---:|")
        cells = []
        fixed = []
        for k in ENGINES:
            a, b = lo["engines"][k].get("median_s"), hi["engines"][k].get("median_s")
            if a is None or b is None:
                cells.append("-")
                fixed.append("-")
                continue
            per_node = (b - a) / (hi["nodes"] - lo["nodes"])
            cells.append("%.0f ns" % (per_node * 1e9))
            fixed.append("%.1f us" % ((a - per_node * lo["nodes"]) * 1e6))
        slope.append("| ns per %s | %s |" % (unit, " | ".join(cells)))
        slope.append("| fixed cost per run (intercept) | %s |" % " | ".join(fixed))
        if len(chains) >= 3:
            # The longest runs (10 to 40 ms for 10,000 loop iterations) are
            # the likeliest to lose the core to another process on a busy
            # machine; the slope without them is a check on the one with.
            mid = chains[-2]
            cells = []
            for k in ENGINES:
                a, b = lo["engines"][k].get("median_s"), mid["engines"][k].get("median_s")
                cells.append("-" if a is None or b is None else "%.0f ns" % (
                    (b - a) / (mid["nodes"] - lo["nodes"]) * 1e9))
            slope.append("| ns per %s, slope %d..%d only | %s |"
                         % (unit, lo["nodes"], mid["nodes"], " | ".join(cells)))
    return lines + slope


def machine_line():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = os.getloadavg()
    return "%s, %d CPUs, load average %.2f %.2f %.2f, Python %s" % (
        model, os.cpu_count() or 0, load[0], load[1], load[2], platform.python_version())


def versions():
    out = subprocess.run(
        [sys.executable, "-c",
         "import tensorflow as tf, onnxruntime as ort, tf2onnx, numpy as np;"
         "print('TensorFlow %s, ONNX Runtime %s, tf2onnx %s, NumPy %s' % "
         "(tf.__version__, ort.__version__, tf2onnx.__version__, np.__version__))"],
        capture_output=True, text=True, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    return out.stdout.strip() or "versions unknown: " + out.stderr.strip()[-200:]


# ---- main -------------------------------------------------------------------


def resolve_specs(items):
    """Sidecar paths for model names, chain:N kept as is."""
    testdata = os.path.join(REPO, "tests", "models", "testdata")
    if not items:
        items = sorted(glob.glob(os.path.join(testdata, "*.model")))
        items += ["chain:10", "chain:1000", "chain:10000"]
    specs = []
    for item in items:
        head = item.split(":", 1)[0]
        if head in ("while", "lstm", "gru"):
            if workers.parse_loop_spec(item) is None:
                sys.exit("compare: %r: expected %s:N with N >= 1, optionally followed "
                         "by :lowered" % (item, head))
            specs.append(item)
        elif head in ("chain", "addchain"):
            if not item.split(":", 1)[1].isdigit() or int(item.split(":", 1)[1]) < 1:
                sys.exit("compare: %r: expected %s:N with N >= 1" % (item, head))
            specs.append(item)
        elif os.path.isdir(item) and any(
                os.path.exists(os.path.join(item, f))
                for f in ("saved_model.pb", "saved_model.pbtxt")):
            specs.append(os.path.abspath(item))
        elif item.endswith(".model") and os.path.exists(item):
            specs.append(os.path.abspath(item))
        elif os.path.exists(os.path.join(testdata, item + ".model")):
            specs.append(os.path.join(testdata, item + ".model"))
        else:
            sys.exit("compare: %r is neither a .model sidecar, a model in %s, "
                     "a SavedModel directory, chain:N, addchain:N, while:N, lstm:UNITS nor "
                     "gru:UNITS" % (item, testdata))
    return specs


def main():
    parser = argparse.ArgumentParser(
        description="weft vs TensorFlow vs ONNX Runtime on the same graphs")
    parser.add_argument("graphs", nargs="*",
                        help="model names (mlp, cnn, ...), .model sidecars, SavedModel "
                             "directories, chain:N, addchain:N, while:N, lstm:UNITS or gru:UNITS "
                             "(the last three optionally with :lowered); "
                             "default: every model in tests/models/testdata and "
                             "chain:10, chain:1000, chain:10000")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch", default="1,8", help="comma-separated batch sizes")
    parser.add_argument("--runs", type=int, default=50, help="timed rounds (default 50)")
    parser.add_argument("--min-runs", type=int, default=10,
                        help="rounds always done even past --max-seconds")
    parser.add_argument("--max-seconds", type=float, default=60,
                        help="stop a graph's rounds after this long (default 60)")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--load-repeats", type=int, default=1,
                        help="loads per engine, each in a fresh process, taking "
                        "turns; the table gives their median (default 1)")
    parser.add_argument("--gap-ms", type=float, default=100,
                        help="idle time before each timed run, so that the previous "
                             "engine's spinning threads have gone to sleep (default 100)")
    parser.add_argument("--warm-ms", type=float, default=10,
                        help="untimed runs for this long (at least one) right before "
                             "each timed run (default 10)")
    parser.add_argument("--engines", default="weft,tf,ort",
                        help="which engines to run, comma-separated (default weft,tf,ort)")
    parser.add_argument("--signature", default="serving_default",
                        help="signature key of SavedModel directories (default "
                             "serving_default)")
    parser.add_argument("--tag", default="serve",
                        help="tag set of SavedModel directories, comma-separated "
                             "(default serve)")
    parser.add_argument("--tolerance-scale", type=float, default=1.0,
                        help="multiplies the agreement bound (default 1)")
    parser.add_argument("--work", required=True, help="folder for converted models, "
                        "inputs, logs and outputs")
    parser.add_argument("--weft-worker", required=True)
    parser.add_argument("--json", help="also write every measurement here")
    args = parser.parse_args()
    args.engines = [e for e in args.engines.split(",") if e]
    if not args.engines or any(e not in ENGINES for e in args.engines):
        sys.exit("compare: --engines takes a comma-separated subset of weft,tf,ort")
    if args.threads < 1:
        sys.exit("compare: --threads must be at least 1 (TensorFlow reads 0 as 'all cores')")

    specs = resolve_specs(args.graphs)
    os.makedirs(args.work, exist_ok=True)
    manifest = os.path.join(args.work, "manifest.json")
    log_dir = os.path.join(args.work, "logs")
    os.makedirs(log_dir, exist_ok=True)
    prepare_log = os.path.join(log_dir, "prepare.log")
    with open(prepare_log, "w") as log:
        done = subprocess.run(
            [sys.executable, os.path.join(HERE, "workers.py"), "prepare", "--work", args.work,
             "--manifest", manifest, "--batch", args.batch, "--signature", args.signature,
             "--tag", args.tag] + specs,
            stdout=sys.stderr, stderr=log, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    if done.returncode != 0:
        with open(prepare_log) as log:
            sys.stderr.write(log.read()[-3000:])
        sys.exit("compare: preparing the graphs failed (log: %s)" % prepare_log)
    with open(manifest) as f:
        entries = json.load(f)

    header = ["machine: " + machine_line(), "engines: " + versions(),
              "threads: %d; %d timed rounds at most (%d s per graph), %d warmup runs, "
              "each timed run after %g ms idle and %g ms of untimed runs"
              % (args.threads, args.runs, args.max_seconds, args.warmup, args.gap_ms,
                 args.warm_ms)]
    results = []
    for entry in entries:
        sys.stderr.write("compare: %s batch %d ...\n" % (entry["name"], entry["batch"]))
        results.append(run_entry(entry, args, log_dir))
        results[-1]["load_average"] = os.getloadavg()
    header.append("load average at the end: %.2f %.2f %.2f" % os.getloadavg())

    print("\n".join(header))
    lines, notes = model_table(results)
    if len(lines) > 2:
        print("\nReal models (median latency of interleaved runs)\n")
        print("\n".join(lines))
    lines, more_notes = saved_model_table(results)
    notes += more_notes
    if len(lines) > 2:
        print("\nSavedModel directories (median latency of interleaved runs; .pb: "
              "weft on the signature frozen into a GraphDef)\n")
        print("\n".join(lines))
    for r in results:
        if r["kind"] == "stress":
            for note in r.get("onnx_notes", []):
                notes.append("%s, ONNX model: %s" % (r["name"], note))
            for k in ENGINES:
                if "error" in r["engines"][k]:
                    notes.append("%s, %s: %s" % (r["name"], LABELS[k],
                                                 r["engines"][k]["error"].splitlines()[0][:300]))
    for title, lines in stress_tables(results):
        print("\n%s\n" % title)
        print("\n".join(lines))
    if notes:
        print("\nNotes (an engine named here was not timed for that row, "
              "except for ONNX model rewrites):\n")
        for n in notes:
            print("- " + n)
    if args.json:
        for r in results:
            for info in r["engines"].values():
                info.pop("outputs", None)
        with open(args.json, "w") as f:
            json.dump({"header": header, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
