"""``app``: the Streamlit app (``streamlit run app.py``) from a checkout or an installed package.

Input: the options below. Output: runs ``python -m streamlit run <app.py>`` in the app's
folder (so its ``.streamlit/config.toml`` applies: headless, no usage statistics, no
Deploy button) until it is stopped, and returns its exit code; ``--dry-run`` prints the
command instead. The app is found beside the package: ``explorer/_app/`` in a wheel (the
build copies ``app.py``, ``app_state.py``, ``app_sections/``, ``pages/`` and
``.streamlit/`` there), else the checkout the package was imported from. Nothing here
imports Streamlit: it runs in its own process.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

from explorer.errors import SourceError

PACKAGED = "_app"  # the app's folder inside an installed ``explorer`` package
APP_FILES = ("app.py", "app_state.py", "pages", "app_sections")


def app_dir() -> Path:
    """The folder holding the app's ``app.py`` (raises SourceError when none is found)."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / PACKAGED, package.parent):
        if all((candidate / name).exists() for name in APP_FILES):
            return candidate
    raise SourceError(f"the app's files ({', '.join(APP_FILES)}) are neither in {package / PACKAGED} nor in "
                      f"{package.parent}: reinstall template-explorer, or run from a checkout")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "app", help="the web app (Streamlit) on http://localhost:PORT",
        description="Run the Template Explorer web app. It opens on a built-in example; the Template page "
                    "takes a paste, an upload or a Hub repository.")
    p.add_argument("--port", type=int, default=8501, help="the port to serve on (default 8501)")
    p.add_argument("--address", default=None, help="the address to listen on (default: Streamlit's, all)")
    p.add_argument("--example", default=None, metavar="NAME",
                   help="the built-in example the app opens on (default chatml-think-tools)")
    p.add_argument("--public-url", default=None, metavar="URL",
                   help="the app's public address: only then do bug reports carry a link to the view")
    p.add_argument("--llama-cpp", default=None, metavar="DRIVER",
                   help="a real llama.cpp build's driver (`llama-cpp build`): Try it and the Doctor show its answer "
                        "beside the port's (also $TEMPLATE_EXPLORER_LLAMA_CPP_DRIVER)")
    p.add_argument("--dry-run", action="store_true", help="print the command and the folder, do not run")
    p.set_defaults(run=run)


def command(args: argparse.Namespace, folder: Path) -> list[str]:
    """The streamlit command line; the app's own options go after ``--`` (app_state reads them)."""
    argv = [sys.executable, "-m", "streamlit", "run", str(folder / "app.py"), "--server.port", str(args.port)]
    if args.address:
        argv += ["--server.address", args.address]
    own = []
    if args.example:
        own += ["--example", args.example]
    if args.public_url:
        own += ["--public-url", args.public_url]
    if getattr(args, "llama_cpp", None):
        own += ["--llama-cpp", args.llama_cpp]
    return argv + (["--", *own] if own else [])


def run(args: argparse.Namespace) -> int:
    folder = app_dir()
    argv = command(args, folder)
    if args.dry_run:
        print(f"cd {shlex.quote(str(folder))} && {shlex.join(argv)}")
        return 0
    try:
        return subprocess.call(argv, cwd=folder)
    except KeyboardInterrupt:  # Ctrl-C reached streamlit too; it stops on its own
        return 130
