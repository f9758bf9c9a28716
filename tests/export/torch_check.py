#!/usr/bin/env python3
"""The exported matmul as a PyTorch operator, on the GPU machine (PyTorch installed there).

    cudaburg export examples/matmul.loop -D M=2048 -D N=2048 -D K=2048 --db tests/data/matmul2048.db --torch -o DIR
    python3 tests/export/torch_check.py DIR

Checks torch.ops.cudaburg.matmul against the exact product (in float64) within the bound the export
states, next to torch.matmul's own error; checks that bad inputs are refused; swaps a model's linear
layer for the operator and compares outputs; and times the operator and torch.matmul (CUDA events,
100 calls each). Exits 1 when a check fails.
"""
import importlib.util
import json
import os
import sys

import torch


def load(folder):
    spec = importlib.util.spec_from_file_location("exported", os.path.join(folder, "torch", "matmul.py"))
    spec.loader.exec_module(importlib.util.module_from_spec(spec))


def time100(call):
    for _ in range(10):
        call()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(100):
        call()
    stop.record()
    torch.cuda.synchronize()
    return start.elapsed_time(stop) / 100


def relative_error(out, exact):
    return ((out.double() - exact).norm() / exact.norm()).item()


def main():
    folder = sys.argv[1]
    with open(os.path.join(folder, "cudaburg-export.json")) as f:
        kernel = json.load(f)["functions"][0]["kernels"][0]
    load(folder)
    op = torch.ops.cudaburg.matmul
    failures = []
    torch.backends.cuda.matmul.allow_tf32 = False
    a = torch.rand(2048, 2048, device="cuda") * 2 - 1
    b = torch.rand(2048, 2048, device="cuda") * 2 - 1
    exact = a.double() @ b.double()
    ours, theirs = relative_error(op(a, b), exact), relative_error(torch.matmul(a, b), exact)
    print(f"relative error: cudaburg::matmul {ours:.3e} (bound {kernel['bound']:.3e}), torch.matmul {theirs:.3e}")
    if not ours <= kernel["bound"]:
        failures.append("the operator's error is above the bound")

    for bad, why in [(lambda: op(a.cpu(), b), "device"), (lambda: op(a.half(), b), "dtype"),
                     (lambda: op(a.t(), b), "contiguous"), (lambda: op(a[:1024], b), "shape")]:
        try:
            bad()
            failures.append(f"a bad {why} is not refused")
        except RuntimeError as e:
            print(f"refused ({why}): {str(e).splitlines()[0]}")

    # A model whose layer is swapped for the operator gives the same outputs.
    layer = torch.nn.Linear(2048, 2048, bias=False).cuda()
    with torch.no_grad():
        expected = layer(a)
        swapped = op(a, layer.weight.t().contiguous())
    model_error = relative_error(swapped, expected.double())
    print(f"swapped layer against nn.Linear: relative error {model_error:.3e}")
    if not model_error <= 2 * kernel["bound"]:
        failures.append("the swapped layer's outputs differ")

    ours_ms, theirs_ms = time100(lambda: op(a, b)), time100(lambda: torch.matmul(a, b))
    print(f"cudaburg::matmul {ours_ms:.4f} ms, torch.matmul {theirs_ms:.4f} ms: ratio {theirs_ms / ours_ms:.3f}; "
          f"the search measured {kernel['ms']:.4f} ms on {kernel['gpu']}")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
