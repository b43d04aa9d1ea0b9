"""What the app was started with, and how its header names a template's origin.

Input: the options after ``--`` on streamlit's command line (``template-explorer app``
passes ``--example NAME`` and ``--public-url URL``; ``$TEMPLATE_EXPLORER_PUBLIC_URL`` sets the
URL too), and a template's ``SourceRequest`` and ``TemplateSource``. Output: ``AppOptions``
(the example the app opens on; the public address, when the app has one: only then do bug
reports link to the app; the real llama.cpp build to show beside the port, ``--llama-cpp
DRIVER`` or ``$TEMPLATE_EXPLORER_LLAMA_CPP_DRIVER``) and ``origin_label`` (the kind of source, in words, so the header
names the template once).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

from explorer.llama_cpp.driver import DRIVER_ENV
from explorer.sources.model import TemplateSource
from explorer.ui_support.links import SourceRequest

DEFAULT_EXAMPLE = "chatml-think-tools"  # the example the app opens on (``--example`` picks another)
PUBLIC_URL_ENV = "TEMPLATE_EXPLORER_PUBLIC_URL"


@dataclass(frozen=True)
class AppOptions:
    """What ``template-explorer app`` (or ``streamlit run app.py -- ...``) was started with."""

    example: str = DEFAULT_EXAMPLE
    public_url: str | None = None  # set: the app is public, and bug reports may link to it
    llama_cpp: str | None = None  # a real build's driver: Try it and the Doctor show its answer too


def app_options(argv: list[str] | None = None) -> AppOptions:
    """The options after ``--`` (``sys.argv[1:]`` inside a Streamlit script); anything else
    is ignored."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--example", default=DEFAULT_EXAMPLE)
    parser.add_argument("--public-url", default=None)
    parser.add_argument("--llama-cpp", default=None)
    known, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    public = (known.public_url or os.environ.get(PUBLIC_URL_ENV) or "").strip() or None
    driver = (known.llama_cpp or os.environ.get(DRIVER_ENV) or "").strip() or None
    return AppOptions(known.example, public.rstrip("/") if public else None, driver)


KIND_LABELS = {"example": "a built-in example", "text": "pasted", "upload": "an uploaded file",
               "hub": "Hugging Face Hub"}


def origin_label(request: SourceRequest | None, source: TemplateSource) -> str:
    """Where the template came from, without its name again (the header names it once)."""
    label = KIND_LABELS.get(request.kind, "") if request is not None else ""
    return label or source.origin


__all__ = ["DEFAULT_EXAMPLE", "KIND_LABELS", "PUBLIC_URL_ENV", "AppOptions", "app_options", "origin_label"]
