"""A stand-in for the driver process, for the client's tests (no llama.cpp needed).

Speaks the driver's protocol (JSON lines) as the real one does, and misbehaves on demand,
per ``FAKE_DRIVER_MODE``: ``ok`` answers every op (``parse`` with a C++ exception, ``bogus``
with the driver's own refusal), ``crash`` exits on the first request after printing to
stderr, ``hang`` never answers, ``garbage`` answers what is not JSON. Each start appends a
line to ``FAKE_DRIVER_STARTS`` when set.
"""

from __future__ import annotations

import json
import os
import sys
import time


def main() -> int:
    mode = os.environ.get("FAKE_DRIVER_MODE", "ok")
    starts = os.environ.get("FAKE_DRIVER_STARTS")
    if starts:
        with open(starts, "a", encoding="utf-8") as f:
            f.write("start\n")
    handles = 0
    for line in sys.stdin:
        request = json.loads(line)
        if mode == "crash":
            print("fake driver: boom", file=sys.stderr, flush=True)
            return 3
        if mode == "hang":
            time.sleep(60)
        if mode == "garbage":
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
            continue
        op = request["op"]
        reply: dict[str, object] = {"id": request["id"], "ok": True}
        if op == "hello":
            reply |= {"build_number": 7, "commit": "abcdef12", "analysis": False}
        elif op == "init":
            handles += 1
            reply |= {"handle": handles, "source": request["template"], "caps": {"supports_tools": True},
                      "supports_enable_thinking": True}
        elif op == "parse":
            reply = {"id": request["id"], "ok": False,
                     "error": {"type": "std::runtime_error", "message": "no match"}}
        elif op == "bogus":
            reply = {"id": request["id"], "ok": False, "error": {"type": "driver", "message": "unknown op: bogus"}}
        elif op == "quit":
            break
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
