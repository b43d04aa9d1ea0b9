"""Count module hops on a call path (sys.setprofile)."""
from __future__ import annotations

import functools
import os
import sys
from collections import Counter

ROOT = os.path.abspath(".")
WATCH = {"load_arena", "dumps", "detect_caps_trace", "analyze_template", "patch_source", "to_oracle_json",
         "from_oracle_json", "compile_template", "route_source", "apply_request"}

def module_of(code):
    f = code.co_filename
    if not f.startswith(ROOT):
        return None
    rel = os.path.relpath(f, ROOT)
    if not rel.startswith(("explorer", "pages", "app_state", "app_sections")):
        return None
    return rel[:-3].replace(os.sep, ".")

def measure(fn):
    watched = Counter()
    edges = Counter()
    modules = set()
    caches = set()
    stack = []
    def prof(frame, event, arg):
        if event == "call":
            mod = module_of(frame.f_code)
            if frame.f_code.co_name == "<module>":
                mod = None
            if mod is not None and frame.f_code.co_name in WATCH:
                watched[frame.f_code.co_name] += 1
            caller = next((m for m in reversed(stack) if m is not None), None)
            if mod is not None:
                modules.add(mod)
                if caller is not None and caller != mod:
                    edges[(caller, mod)] += 1
                if frame.f_code.co_name == "get" and mod == "explorer.memo":
                    caches.add(("Memo", id(frame.f_locals.get("self"))))
            co = frame.f_code
            if "streamlit/runtime/caching" in co.co_filename and co.co_name == "__call__":
                inner = frame.f_locals.get("self")
                info = getattr(inner, "_info", None)
                fname = getattr(getattr(info, "func", None), "__qualname__", None)
                if fname:
                    caches.add(("st.cache", fname))
            stack.append(mod)
        elif event == "return":
            if stack:
                stack.pop()
        elif event == "c_call":
            if isinstance(arg, functools._lru_cache_wrapper):
                caches.add(("lru_cache", getattr(arg, "__qualname__", repr(arg))))
    sys.setprofile(prof)
    try:
        out = fn()
    finally:
        sys.setprofile(None)
    return out, edges, modules, caches, watched

def report(edges, modules, caches, watched=None):
    print('watched calls:', dict(sorted((watched or {}).items())))
    print(f"module-boundary edges (distinct): {len(edges)}")
    print(f"modules entered: {len(modules)}")
    print(f"cache layers hit: {len(caches)}")
    for c in sorted(caches, key=str):
        print("  cache", c)

def stage_of(mod):
    parts = mod.split(".")
    if parts[0] in ("pages", "app_state", "app_sections"):
        return mod
    if len(parts) >= 3 or (len(parts) == 2 and parts[1] in ("ui_support",)):
        return ".".join(parts[:2])
    return mod.removesuffix(".__init__")

def stage_report(edges):
    st = set()
    for (a, b) in edges:
        sa, sb = stage_of(a), stage_of(b)
        if sa != sb:
            st.add((sa, sb))
    stages = {s for e in st for s in e}
    print(f"stage-level hops (distinct edges between stages): {len(st)} through {len(stages)} stages")
    for a, b in sorted(st):
        print(f"  {a} -> {b}")
