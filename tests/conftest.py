"""Root pytest configuration (and the headline check every triage test gets).

The oracle helpers live in ``oracle_data`` (pytest.ini puts tests/ on the path); they are
re-exported here for modules that load this file by path. Import them from
``oracle_data``: with tests/app/browser/conftest.py present, the bare name ``conftest`` may
resolve to either file.
"""

import os

# Per-worker caches sized for the suite: each worker walks llama.cpp's 70 templates once per
# oracle-wide test, and memos sized for the app (64 compiled templates, 32 sessions) would
# evict every template before its next visit (explorer.memo). Set before explorer is imported.
os.environ.setdefault("TEMPLATE_EXPLORER_MEMO_SCALE", "16")
# The app's real-llama.cpp setting, when a developer's shell has it, is moved to the variable
# the differential tests read (tests/llama_cpp/conftest.py): the other tests draw the app as a
# user without a build configured sees it (the app's own tests set it where they need it).
if os.environ.get("TEMPLATE_EXPLORER_LLAMA_CPP_DRIVER"):
    os.environ.setdefault("TEMPLATE_EXPLORER_TEST_LLAMA_CPP_DRIVER", os.environ["TEMPLATE_EXPLORER_LLAMA_CPP_DRIVER"])
os.environ.pop("TEMPLATE_EXPLORER_LLAMA_CPP_DRIVER", None)

import pytest  # noqa: E402

from oracle_data import (  # noqa: E402, F401
    ORACLE,
    PROJECT_ROOT,
    SHARED,
    load_oracle_analysis,
    load_oracle_template,
    oracle_available,
    oracle_template_names,
    requires_oracle,
)


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden", action="store_true", default=False,
        help="rewrite the readable values in tests/data/golden/ from our output, only where its digest "
             "equals the reference's (the rest are refused, and the test fails)")


# the tests whose diagnoses have their headline checked, whatever else they assert
HEADLINE_CHECKED = ("tests/triage/", "tests/app/test_app_why.py", "tests/oracle/test_triage_oracle.py")


@pytest.fixture(autouse=True)
def every_headline_checked(request, monkeypatch):
    """Every diagnosis a triage test makes has its headline checked against its lead finding
    (``cases.check_headline``), beside what the test asserts of it itself."""
    path = str(request.node.fspath).replace("\\", "/")
    if not any(part in path for part in HEADLINE_CHECKED):
        yield
        return
    from cases import check_headline
    from explorer.triage.model import Diagnosis

    made = []
    original = Diagnosis.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(Diagnosis, "__init__", init)
    yield
    monkeypatch.setattr(Diagnosis, "__init__", original)
    for d in made:
        check_headline(d)
