"""``python -m explorer doctor``: JSON lines, exit codes, error lines, folders, the summary
table, --jobs ordering, a Dask LocalCluster run and hostile templates in a batch."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from doctor_templates import LOSSY, MISREAD, PARSER_LOSSY, SOUND, SYNTAX_ERROR

from explorer.cli import main
from explorer.doctor.batch import expand_specs, run_batch
from oracle_data import HOSTILE_DIR

pytestmark = pytest.mark.timeout(600)


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    (tmp_path / "b_lossy.jinja").write_text(PARSER_LOSSY, encoding="utf-8")
    (tmp_path / "a_sound.jinja").write_text(SOUND, encoding="utf-8")
    (tmp_path / "c_misread.jinja").write_text(MISREAD, encoding="utf-8")
    return tmp_path


def _doctor(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["doctor", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_json_lines_have_the_reports_shape(capsys: pytest.CaptureFixture[str], folder: Path) -> None:
    code, out, _ = _doctor(capsys, str(folder / "b_lossy.jinja"), "--json", "--no-fixes")
    [line] = _lines(out)
    assert code == 0
    assert line["template"] == str(folder / "b_lossy.jinja")
    assert line["handler"] == "autoparser" and line["verdict"] == "losses"
    assert line["roundtrip"] == {"equal": 10, "total": 18,
                                 "unit": "assistant messages given back equal, over enable_thinking false and true"}
    findings = line["findings"]
    assert isinstance(findings, list) and findings
    for f in findings:
        assert {"check", "severity", "summary", "field", "probe", "template_line"} <= set(f)
    assert line["fixes"] == []


@pytest.mark.parametrize(("template", "fail_on", "code"), [
    (SOUND, "cause", 0), (MISREAD, "cause", 1), (PARSER_LOSSY, "cause", 0), (PARSER_LOSSY, "warning", 1),
    (MISREAD, "warning", 1), (LOSSY, "warning", 0),  # LOSSY loses only by design: nothing of its own to gate
])
def test_fail_on_sets_the_exit_code(capsys: pytest.CaptureFixture[str], tmp_path: Path, template: str,
                                    fail_on: str, code: int) -> None:
    path = tmp_path / "t.jinja"
    path.write_text(template, encoding="utf-8")
    assert _doctor(capsys, str(path), "--json", "--no-fixes", "--fail-on", fail_on)[0] == code


def test_without_fail_on_a_broken_template_still_exits_zero(capsys: pytest.CaptureFixture[str], folder: Path) -> None:
    assert _doctor(capsys, str(folder / "c_misread.jinja"), "--json", "--no-fixes")[0] == 0


def test_an_erroring_template_is_its_own_line_and_the_batch_goes_on(capsys: pytest.CaptureFixture[str],
                                                                    folder: Path) -> None:
    bad = folder / "z_bad.jinja"
    bad.write_text(SYNTAX_ERROR, encoding="utf-8")
    code, out, _ = _doctor(capsys, str(bad), str(folder / "a_sound.jinja"), str(folder / "missing.jinja"),
                           "--json", "--no-fixes")
    lines = _lines(out)
    assert code == 2
    assert [line["template"] for line in lines] == [str(bad), str(folder / "a_sound.jinja"),
                                                  str(folder / "missing.jinja")]
    error = lines[0]["error"]
    assert isinstance(error, dict) and error["kind"] == "syntax" and error["line"] == 2
    assert lines[1]["verdict"] == "full"
    assert isinstance(lines[2]["error"], dict) and lines[2]["error"]["kind"] == "source"


def test_a_folder_means_every_template_file_inside_sorted(tmp_path: Path, folder: Path) -> None:
    (folder / "notes.txt").write_text("not a template", encoding="utf-8")
    (folder / "model").mkdir()
    (folder / "model" / "tokenizer_config.json").write_text(json.dumps({"chat_template": SOUND}), encoding="utf-8")
    (folder / "model" / "chat_template.json").write_text(json.dumps({"chat_template": PARSER_LOSSY}),
                                                         encoding="utf-8")
    names = [Path(p).relative_to(folder).as_posix() for p in expand_specs([str(folder)])]
    assert names == ["a_sound.jinja", "b_lossy.jinja", "c_misread.jinja", "model/chat_template.json",
                     "model/tokenizer_config.json"]
    lines = list(run_batch([str(folder)], fixes=False))
    assert [line["verdict"] for line in lines] == ["full", "losses", "broken", "losses", "full"]


def test_an_empty_folder_is_an_error_line(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    [line] = list(run_batch([str(tmp_path / "empty")]))
    assert isinstance(line["error"], dict) and "no template files" in str(line["error"]["message"])


def test_one_template_gets_a_readable_report(capsys: pytest.CaptureFixture[str], folder: Path) -> None:
    code, out, _ = _doctor(capsys, str(folder / "b_lossy.jinja"), "--no-fixes")
    assert code == 0
    assert "verdict: losses" in out and "route: autoparser" in out
    assert "round trip: 10/18" in out
    assert "[parser-loses · llama.cpp, template line 4] the parser rejected the reply" in out
    assert "[by-design · template, template line 4] the template drops reasoning_content" in out


def test_many_templates_get_a_summary_table(capsys: pytest.CaptureFixture[str], folder: Path) -> None:
    code, out, _ = _doctor(capsys, str(folder), "--no-fixes")
    assert code == 0
    header, *rows = out.splitlines()
    assert header.split() == ["template", "handler", "verdict", "round", "trip", "causes", "warnings", "fixes", "no", "fix"]
    assert rows[0].split()[:4] == [str(folder / "a_sound.jinja"), "autoparser", "full", "18/18"]
    assert rows[2].split()[2] == "broken"
    assert "3 template(s): broken 1, full 1, losses 1" in out


def test_jobs_keep_the_input_order_and_the_same_lines(folder: Path) -> None:
    specs = [str(folder / n) for n in ("c_misread.jinja", "a_sound.jinja", "b_lossy.jinja")]
    one = list(run_batch(specs, fixes=False, jobs=1))
    two = list(run_batch(specs, fixes=False, jobs=2))
    assert [line["template"] for line in two] == specs
    assert two == one


def test_the_same_text_twice_is_doctored_once_and_written_under_each_name(folder: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.jinja"
    copy.write_text(SOUND, encoding="utf-8")
    lines = list(run_batch([str(folder / "a_sound.jinja"), str(copy)], fixes=False))
    assert [line["template"] for line in lines] == [str(folder / "a_sound.jinja"), str(copy)]
    assert {k: v for k, v in lines[0].items() if k != "template"} == {k: v for k, v in lines[1].items()
                                                                    if k != "template"}


def test_a_bad_set_is_a_usage_error_before_any_template_is_read(capsys: pytest.CaptureFixture[str],
                                                                folder: Path) -> None:
    code, out, err = _doctor(capsys, str(folder / "a_sound.jinja"), "--set", "no.such.field=1", "--fail-on", "cause")
    assert code == 2 and "unknown analysis field" in err and out == ""  # 2: usage; 1 is a --fail-on hit
    assert _doctor(capsys, str(folder / "a_sound.jinja"), "--jobs", "0")[0] == 2


def test_fixture_results_are_reported_and_never_gated_on(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A template whose family's fixtures fail (other models' outputs) but that loses
    nothing of its own passes --fail-on warning; the fixture findings are still in the line."""
    path = tmp_path / "t.jinja"
    path.write_text(LOSSY, encoding="utf-8")
    code, out, _ = _doctor(capsys, str(path), "--json", "--no-fixes", "--fail-on", "warning")
    [line] = _lines(out)
    assert code == 0 and line["gate"] == {"cause": 0, "warning": 0}
    findings = line["findings"]
    assert isinstance(findings, list)
    for f in findings:
        assert isinstance(f, dict) and (f["severity"] == "info" or not f["own"])


def test_an_empty_template_says_first_that_it_is_empty_and_names_no_line_of_chatml(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "empty.jinja"
    path.write_text("", encoding="utf-8")
    code, out, _ = _doctor(capsys, str(path), "--json", "--no-fixes")
    [line] = _lines(out)
    findings = line["findings"]
    assert code == 0 and isinstance(findings, list)
    assert findings[0]["check"] == "empty-template" and "ChatML" in findings[0]["summary"]
    assert all(f["template_line"] is None for f in findings)


def test_set_on_a_handler_route_says_the_override_changes_nothing(capsys: pytest.CaptureFixture[str],
                                                                  tmp_path: Path) -> None:
    path = tmp_path / "routed.jinja"
    path.write_text(SOUND + "{# <|channel|> #}", encoding="utf-8")  # gpt-oss's routing substring
    code, out, _ = _doctor(capsys, str(path), "--json", "--no-fixes", "--set", "reasoning.start=<r>",
                           "--fail-on", "warning")
    [line] = _lines(out)
    assert line["handler"] == "gpt-oss"
    [unused] = [f for f in line["findings"] if isinstance(f, dict) and f["check"] == "overrides-unused"]
    assert "parser is code" in unused["summary"] and "--set reasoning.start=" in unused["summary"]
    assert not unused["own"]


def test_set_overrides_reach_the_doctor(folder: Path) -> None:
    [plain] = run_batch([str(folder / "a_sound.jinja")], fixes=False)
    [overridden] = run_batch([str(folder / "a_sound.jinja")], fixes=False, sets=["tools.format.per_call_start=<x>"])
    assert plain["verdict"] == "full" and overridden["verdict"] != "full"


def test_a_dask_local_cluster_runs_the_same_batch(folder: Path) -> None:
    from dask.distributed import LocalCluster

    specs = [str(folder / n) for n in ("b_lossy.jinja", "missing.jinja", "a_sound.jinja", "c_misread.jinja")]
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster:
        lines = list(run_batch(specs, fixes=False, scheduler=cluster.scheduler_address))
    assert [line["template"] for line in lines] == specs
    assert [line.get("verdict") for line in lines] == ["losses", None, "full", "broken"]
    assert lines == list(run_batch(specs, fixes=False))


def test_a_task_that_raises_on_the_cluster_is_its_templates_error_line(folder: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from dask.distributed import LocalCluster

    import explorer.doctor.batch as batch

    real = batch.run_task

    def flaky(task: batch.DoctorTask) -> list[tuple[int, dict[str, object]]]:
        if "b_lossy" in task.positions[0][1]:
            raise RuntimeError("the worker fell over")
        return real(task)

    monkeypatch.setattr(batch, "run_task", flaky)
    specs = [str(folder / "b_lossy.jinja"), str(folder / "a_sound.jinja")]
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        lines = list(run_batch(specs, fixes=False, scheduler=cluster.scheduler_address))
    assert lines[0]["error"] == {"kind": "worker", "message": "RuntimeError: the worker fell over"}
    assert lines[1]["verdict"] == "full"


HOSTILE = ("raise_exception.jinja", "syntax_error.jinja", "concat_doubling.jinja", "memory_bomb.jinja",
           "huge_range.jinja", "subclasses_item.jinja", "recursive_loop.jinja")


def test_hostile_templates_in_a_jobs_2_batch_give_bounded_lines(capsys: pytest.CaptureFixture[str]) -> None:
    specs = [str(HOSTILE_DIR / n) for n in HOSTILE]
    started = time.monotonic()
    code, out, _ = _doctor(capsys, *specs, "--json", "--jobs", "2", "--no-fixes")
    elapsed = time.monotonic() - started
    lines = _lines(out)
    assert [line["template"] for line in lines] == specs
    assert code == 2  # the syntax errors are error lines
    for line in lines:
        assert "error" in line or line["verdict"] in ("full", "losses", "broken")
    assert elapsed < 240, f"{elapsed:.0f}s for {len(specs)} hostile templates"


def test_several_templates_say_how_to_see_each_report(capsys: pytest.CaptureFixture[str], folder: Path) -> None:
    code, out, err = _doctor(capsys, str(folder / "a_sound.jinja"), str(folder / "b_lossy.jinja"), "--no-fixes")
    assert code == 0 and err == ""
    last = out.strip().splitlines()[-1]
    assert last.startswith("Each template's whole report: python -m explorer doctor TEMPLATE") and "--json" in last


def test_an_error_is_said_once_in_words(capsys: pytest.CaptureFixture[str], folder: Path) -> None:
    """A template that cannot be doctored: one line on stderr (kind, message, no JSON), none on
    stdout for a single template; in a batch its table row names the kind."""
    bad = folder / "z_bad.jinja"
    bad.write_text(SYNTAX_ERROR, encoding="utf-8")
    code, out, err = _doctor(capsys, str(bad), "--no-fixes")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith(f"error: {bad} (syntax): ")
    assert "\"kind\"" not in err and "line 2" in err  # words, not the JSON error object
    code, out, err = _doctor(capsys, str(bad), str(folder / "a_sound.jinja"), "--no-fixes")
    assert code == 2 and len(err.strip().splitlines()) == 1
    row = next(line for line in out.splitlines() if line.startswith(str(bad)))
    assert row.split()[1:3] == ["-", "error:"] and row.split()[3] == "syntax"


def test_workers_that_cannot_import_the_explorer_are_one_error_saying_how_to_install_it() -> None:
    """The cluster check (explorer.doctor.cluster): on an in-process LocalCluster the workers
    import the explorer; asked for a module they lack, the check is one ClusterError that names
    the workers and says how to give them the package, before any template is sent."""
    from dask.distributed import Client, LocalCluster

    from explorer.doctor.cluster import HOW_TO, check_workers, require_explorer
    from explorer.errors import ClusterError

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster.scheduler_address) as client:
        check = check_workers(client)
        assert [w.ok for w in check.workers] == [True] and check.workers[0].file.endswith("__init__.py")
        assert not check.missing and not check.mismatched
        with pytest.raises(ClusterError) as raised:
            require_explorer(client, module="explorer_not_installed_here")
    message = str(raised.value)
    assert "1 of 1 Dask worker(s) cannot import explorer_not_installed_here" in message
    assert "ModuleNotFoundError" in message  # the worker's own answer
    assert HOW_TO in message and "pip install dist/template_explorer-" in message
