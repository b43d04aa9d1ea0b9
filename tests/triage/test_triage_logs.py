"""Reading llama-server's log (explorer.triage.logs) on log texts we write ourselves.

The formats follow llama.cpp's source: 0c1e5709's common_chat_peg_parse warns "<func>:
unparsed <format> output: <text>" (generation prompt + output from result.end) and, at
debug verbosity, dumps generation prompt + output between "=== BEGIN ===" and "=== END ==="
lines; llama-server logs exceptions as "got exception: {json}"; common/log.cpp adds "W " /
"D " with --log-prefix, "M.ss.mmm.uuu " with --log-timestamps, colours, or one JSON object
per record with --log-jsonl. Older builds threw "Failed to parse input at pos N[: text]"
(N bytes of the output alone) and logged "Parsing input with format <f>: <output>" and
"Parsing chat message: <output so far>". Every expectation is worked out from how the
text was built (a stop at output character K), never read back from the module.
"""

from __future__ import annotations

import json

import pytest

from explorer.triage.logs import char_at_byte, locate, read_log

GP = "<|im_start|>assistant\n"
OUTPUT = 'Voilà — ünïcode\n<tool_call>\n{"name": "get_weather", "arguments": {city: "Paris"}}\n</tool_call>'
K = OUTPUT.index("<tool_call>")  # where the (made-up) parse stopped, in output characters
EFFECTIVE = GP + OUTPUT
TAIL = EFFECTIVE[len(GP) + K:]


def nbytes(text: str) -> int:
    return len(text.encode("utf-8"))


OFFSET = nbytes(GP + OUTPUT[:K])  # llama.cpp 0c1e5709's result.end
POS = nbytes(OUTPUT[:K])  # older builds' pos


def warning(tail: str = TAIL, prefix: str = "") -> str:
    return f"{prefix}common_chat_peg_parse: unparsed peg-native output: {tail}\n"


def dump(text: str = EFFECTIVE, prefix: str = "") -> str:
    return (f"{prefix}common_chat_peg_parse: full peg-native output triggering error:\n=== BEGIN ===\n{text}\n"
            "=== END ===\n")


EXCEPTION = ('srv    operator(): got exception: {"error":{"code":500,"message":"The model produced output that does '
             'not match the expected peg-native format","type":"server_error"}}\n')
SERVER_LINES = ("srv  params_from_: Chat format: peg-native\n"
                "slot launch_slot_: id  0 | task 12 | processing task\n")


def test_0c1e5709_warning_and_dump():
    log = read_log(SERVER_LINES + warning() + dump() + EXCEPTION + "srv  update_slots: all slots are idle\n")
    assert [f.kind for f in log.failures] == ["unparsed", "mismatch"]
    assert log.failure.tail == TAIL and log.failure.format == "peg-native"
    assert [d.kind for d in log.dumps] == ["begin-end"] and log.dumps[0].text == EFFECTIVE
    r = locate(log, GP)
    assert (r.output, r.output_from, r.prompt) == (OUTPUT, "log dump", GP)
    assert (r.offset, r.counts, r.char, r.in_prompt, r.exact) == (OFFSET, "prompt+output", K, False, True)


@pytest.mark.parametrize("prefix", ["W ", "0.12.345.678 W ", "\x1b[35mW ", "Jan 02 10:00:01 box llama-server[77]: "])
def test_log_prefixes_timestamps_colours_and_journal(prefix):
    text = SERVER_LINES + warning(prefix=prefix) + dump(prefix=prefix.replace("W ", "D ")) + EXCEPTION
    if prefix.startswith("Jan"):  # a journal prefixes every line, the continuation lines too
        text = "".join(prefix + line + "\n" for line in text.split("\n"))
    if prefix.startswith("\x1b"):
        text = text.replace("\n=== BEGIN", "\x1b[0m\n=== BEGIN")
    r = locate(read_log(text), GP)
    assert (r.output, r.char, r.offset) == (OUTPUT, K, OFFSET)


def test_jsonl_records():
    records = [{"type": "log", "time": 1, "level": "WARN", "msg": warning()},
               {"type": "log", "time": 2, "level": "DEBUG", "msg": dump()}]
    log = read_log("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n")
    assert log.jsonl and log.failure.tail == TAIL and log.dumps[0].text == EFFECTIVE
    assert locate(log, GP).char == K


def test_a_warning_alone_is_only_the_tail():
    r = locate(read_log(warning()), GP)
    assert r.output is None and "only the text from where the parse stopped" in r.problem
    assert "-lv 5" in r.problem
    # located in the output the user gives
    r = locate(read_log(warning()), GP, OUTPUT)
    assert (r.output_from, r.char, r.offset, r.counts) == ("given", K, OFFSET, "prompt+output")
    assert any("only the text from where the parse stopped" in n for n in r.notes)


def test_a_warning_that_runs_on_into_an_unrecognised_line_is_cut_to_fit():
    r = locate(read_log(warning() + "some other program: hello\n"), GP, OUTPUT)
    assert r.char == K and any("runs on" in n for n in r.notes)


def test_a_stop_in_the_generation_prompt_holds_the_whole_output():
    r = locate(read_log(warning(tail=EFFECTIVE)), GP)  # stopped at the generation prompt's first byte
    assert (r.output, r.output_from, r.char, r.in_prompt, r.offset) == (OUTPUT, "log tail", 0, True, 0)
    inside = EFFECTIVE[len("<|im_start|>"):]  # stopped inside the generation prompt
    r = locate(read_log(warning(tail=inside)), GP)
    assert (r.output, r.char, r.in_prompt) == (OUTPUT, 0, True)
    assert r.offset == nbytes("<|im_start|>")


def test_a_warning_about_another_output():
    r = locate(read_log(warning(tail="something else entirely")), GP, OUTPUT)
    assert r.char is None and any("another output" in n for n in r.notes)


def test_older_builds_pos_with_its_text_in_a_json_error():
    message = f"Failed to parse input at pos {POS}: {OUTPUT[K:]}"
    line = "srv    operator(): got exception: " + json.dumps(
        {"error": {"code": 500, "message": message, "type": "server_error"}}, ensure_ascii=False) + "\n"
    log = read_log(line)
    assert (log.failure.kind, log.failure.number, log.failure.tail) == ("failed-at-pos", POS, OUTPUT[K:])
    r = locate(log, GP, OUTPUT)
    assert (r.counts, r.char, r.offset, r.exact) == ("output", K, OFFSET, True)
    assert POS != K  # bytes, not characters: the output has multi-byte characters before the stop


def test_older_builds_pos_without_text_counts_the_output():
    r = locate(read_log(f"got exception: Failed to parse input at pos {POS}\n"), GP, OUTPUT)
    assert (r.counts, r.char) == ("output", K)
    assert any("output alone" in n for n in r.notes)


def test_older_builds_pos_over_several_lines_and_its_debug_dump():
    stream = "".join(f"srv  update_chat_: Parsing chat message: {OUTPUT[:n]}\n" for n in (5, 30, len(OUTPUT)))
    text = (stream + f"Parsing input with format peg-native: {OUTPUT}\n"
            f"slot update_slots: id  0 | task 3 | got exception: Failed to parse input at pos {POS}: {OUTPUT[K:]}\n"
            "srv  update_slots: all slots are idle\n")
    log = read_log(text)
    assert [d.kind for d in log.dumps] == ["parsing-chat-message"] * 3 + ["parsing-input"]
    assert log.dumps[-1].text == OUTPUT and log.failure.tail == OUTPUT[K:]
    r = locate(log, GP)
    assert (r.output, r.output_from, r.counts, r.char) == (OUTPUT, "log dump", "output", K)


def test_a_build_that_counted_pos_in_prompt_and_output():
    text = f"Failed to parse input at pos {OFFSET}: {TAIL}\n"
    r = locate(read_log(text), GP, OUTPUT)
    assert (r.counts, r.char, r.offset) == ("prompt+output", K, OFFSET)
    assert any("counted pos in generation prompt + output" in n for n in r.notes)


def test_pos_zero_holds_the_whole_output():
    r = locate(read_log(f"Failed to parse input at pos 0: {OUTPUT}\n"), GP)
    assert (r.output, r.output_from, r.char) == (OUTPUT, "log tail", 0)


def test_the_explorers_own_offset():
    line = f"The model produced output that does not match the expected peg-native format (offset {OFFSET})\n"
    log = read_log(line)
    assert (log.failure.kind, log.failure.number) == ("explorer-offset", OFFSET)
    r = locate(log, GP, OUTPUT)
    assert (r.counts, r.char) == ("prompt+output", K)


def test_a_bare_exception_says_no_place():
    r = locate(read_log(EXCEPTION), GP, OUTPUT)
    assert r.failure.kind == "mismatch" and r.char is None and any("not where" in n for n in r.notes)


def test_a_dump_with_another_generation_prompt():
    other = "<|im_start|>assistant\n<think>\n\n</think>\n\n"
    r = locate(read_log(warning(tail=(other + OUTPUT)[len(other) + K:]) + dump(other + OUTPUT)), GP, OUTPUT)
    assert (r.output, r.prompt, r.char) == (OUTPUT, other, K)
    assert r.offset == nbytes(other + OUTPUT[:K]) and any("not this request's" in n for n in r.notes)


def test_the_given_output_differs_from_the_dump():
    r = locate(read_log(warning() + dump()), GP, OUTPUT.replace("Paris", "Lyon"))
    assert r.output == OUTPUT and any("differs from the log's" in n for n in r.notes)


def test_no_failure_and_no_output():
    assert locate(read_log("srv  update_slots: all slots are idle\n"), GP).problem.startswith("The log holds no")
    r = locate(read_log(dump()), GP)
    assert r.output == OUTPUT and r.failure is None and "no parse failure" in r.notes[-1]


def test_the_last_of_several_failures_is_read():
    first = warning(tail=EFFECTIVE[len(GP):]) + dump()
    r = locate(read_log(first + SERVER_LINES + warning() + dump()), GP)
    assert r.char == K and any("2 parse failures" in n for n in r.notes)


def test_a_byte_inside_a_character():
    assert char_at_byte("aé b", 2) == (1, False)  # the second byte of "é"
    assert char_at_byte("aé b", 3) == (2, True)
    assert char_at_byte("aé b", 99) == (4, True)


def test_a_clients_python_error_and_a_crlf_log():
    body = {"error": {"code": 500, "message": f"Failed to parse input at pos {POS}: {OUTPUT[K:]}",
                      "type": "server_error"}}
    client = f"openai.InternalServerError: Error code: 500 - {body!r}\n"
    r = locate(read_log(client), GP, OUTPUT)
    assert (r.failure.tail, r.char, r.exact) == (OUTPUT[K:], K, True)
    crlf = (SERVER_LINES + warning() + dump()).replace("\n", "\r\n")
    r = locate(read_log(crlf), GP)
    assert (r.output, r.char) == (OUTPUT, K)
    # an output's own carriage return is kept in a log with LF line ends
    own = OUTPUT.replace("\n<tool_call>", "\r\n<tool_call>")
    r = locate(read_log(dump(GP + own)), GP)
    assert r.output == own
