"""Time reading a GGUF header (and the remote range-read path) on a realistic vocabulary.

Usage: python benchmarks/bench_gguf_header.py [--tokens N] [--repeat N]

Writes a GGUF with the gguf package's writer: N vocabulary strings, as many merges,
an 8 KB chat template and 16 MiB of tensor data. Times ``read_gguf_header_from_file``
(local file or upload) and ``from_hub`` against the local Hub stand-in of the tests
(HTTP range requests on 127.0.0.1), and prints the bytes fetched. Not part of the
test run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from explorer.sources import from_hub  # noqa: E402
from explorer.sources.gguf_header import read_gguf_header_from_file  # noqa: E402
from hubserver import FakeHub, build_gguf  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", type=int, default=152_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        built = build_gguf(
            Path(tmp) / "bench.gguf",
            templates="{{ messages }}" * 600,
            n_tokens=args.tokens,
            tensor_elements=4 << 20,
            extra_kv=lambda w: w.add_token_merges([f"a{i} b{i}" for i in range(args.tokens)]),
        )
        print(f"file {built.size / 1e6:.1f} MB, key-value section {built.kv_end / 1e6:.2f} MB")
        local = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            read_gguf_header_from_file(built.path)
            local.append((time.perf_counter() - start) * 1000)
        print(f"local file: median {statistics.median(local):.1f} ms, max {max(local):.1f} ms")
        with FakeHub() as hub:
            hub.add_repo("bench/model-GGUF", {"model.gguf": built.path.read_bytes()})
            remote = []
            for _ in range(args.repeat):
                hub.bytes_served.clear()
                start = time.perf_counter()
                from_hub("bench/model-GGUF", endpoint=hub.url)
                remote.append((time.perf_counter() - start) * 1000)
            fetched = sum(hub.bytes_served.values())
            print(
                f"hub (127.0.0.1, range reads): median {statistics.median(remote):.1f} ms, "
                f"max {max(remote):.1f} ms, {fetched / 1e6:.2f} MB fetched of {built.size / 1e6:.1f} MB"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
