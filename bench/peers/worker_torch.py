"""PyTorch worker of the peer benchmark: export.py's GPT2 module (plain PyTorch, explicit KV cache) on one CPU
thread, loaded from the same model.safetensors, answering bench/peers/protocol.mjs requests (one JSON object per
stdin/stdout line). run.mjs starts it with OpenBLAS on LD_LIBRARY_PATH (Debian's reference BLAS is ~20x slower).
  /usr/bin/python3 bench/peers/worker_torch.py MODEL_DIR
"""

import ctypes
import json
import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from export import load_model  # noqa: E402


def ms_since(t0):
    return (time.perf_counter() - t0) * 1e3


def cpu_ms_since(c0):
    """CPU time of this process (all threads) since c0 = time.process_time(), in ms."""
    return (time.process_time() - c0) * 1e3


def memory():
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out["rss" if key == "VmRSS" else "peak_rss"] = int(value.split()[0]) * 1024
    return out


def blas():
    """The OpenBLAS configuration string if OpenBLAS is loaded, else what BLAS the process mapped."""
    torch.randn(8, 8) @ torch.randn(8, 8)
    with open("/proc/self/maps") as f:
        libs = sorted({line.split()[-1] for line in f if "blas" in line.lower() and "/" in line})
    for path in libs:
        try:
            lib = ctypes.CDLL(path)
            lib.openblas_get_config.restype = ctypes.c_char_p
            return lib.openblas_get_config().decode().split(" MAX_THREADS")[0]
        except (OSError, AttributeError):
            continue
    return "reference BLAS (slow)" if libs else "no BLAS mapped"


class Worker:
    def __init__(self, model_dir):
        self.dir = model_dir
        self.model = None

    def load(self, req):
        t0 = time.perf_counter()
        self.model = load_model(self.dir)
        return {"ms": ms_since(t0), "parameters": sum(p.numel() for p in self.model.parameters()),
                "runtime": f"PyTorch {torch.__version__}, 1 thread, {blas()}"}

    def forward(self, req):
        V, T = self.model.cfg["vocab_size"], req["T"]
        ids = torch.tensor([[(t * 7919) % V for t in range(T)]])
        t0, c0 = time.perf_counter(), time.process_time()
        self.model(ids)
        return {"ms": ms_since(t0), "cpu_ms": cpu_ms_since(c0)}

    def check(self, req):
        logits = self.model(torch.tensor([req["ids"]]))[0][0].reshape(-1)
        with open(req["reference"], "rb") as f:
            ref = torch.frombuffer(bytearray(f.read()), dtype=torch.float32)
        assert ref.numel() == logits.numel(), f"reference has {ref.numel()} floats, logits {logits.numel()}"
        d = float((logits - ref).abs().max())
        return {"max_abs_diff": d if d == d else "NaN"}

    def decode(self, req):
        """n greedy tokens: a prefill of the prompt, then n - 1 single-token steps through the KV cache."""
        n, tokens = req["n"], []
        t0 = time.perf_counter()
        out = self.model(torch.tensor([req["prompt"]]))
        prefill_ms = 0.0
        while True:
            tokens.append(int(out[0][0, -1].argmax()))
            if len(tokens) == 1:
                prefill_ms = ms_since(t0)
                t0, c0 = time.perf_counter(), time.process_time()
            if len(tokens) == n:
                break
            out = self.model(torch.tensor([[tokens[-1]]]), *out[1:])
        return {"tokens": tokens, "prefill_ms": prefill_ms, "decode_ms": ms_since(t0), "decode_cpu_ms": cpu_ms_since(c0),
                "steps": n - 1}

    def memory(self, req):
        return memory()


def main():
    torch.set_num_threads(1)
    torch.set_grad_enabled(False)
    worker = Worker(sys.argv[1])
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            if req["op"] == "quit":
                break
            reply = getattr(worker, req["op"])(req)
        except Exception as e:  # noqa: BLE001  (every failure goes back to the runner as a reply)
            reply = {"error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
