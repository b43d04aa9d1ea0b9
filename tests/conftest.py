"""Root pytest configuration.

The oracle helpers live in ``oracle_data`` (pytest.ini puts tests/ on the path); they are
re-exported here for modules that load this file by path. Import them from
``oracle_data``: with tests/app/browser/conftest.py present, the bare name ``conftest`` may
resolve to either file.
"""

from oracle_data import (  # noqa: F401
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
