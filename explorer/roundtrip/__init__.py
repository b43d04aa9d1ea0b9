"""Round-trip self-test for any chat template (see ``report``).

Input: template text, thinking setting, assistant messages and tools. Output:
``RoundTripReport``: per message, what survives render -> cut -> parse, why not, and
whether the request's grammar accepts the rendered reply. With ``dialect="transformers"``
the replies are the text the model was trained on (``dialect``), still parsed by llama.cpp.
"""

from explorer.roundtrip.cases import DEFAULT_MESSAGES, DEFAULT_TOOLS, ORACLE_MESSAGES, ORACLE_TOOLS
from explorer.roundtrip.compare import Comparison, compare
from explorer.roundtrip.cut import Cut, EndMarker, Strip, cut_reply, probe_end_marker, strip_end
from explorer.roundtrip.dialect import (
    DialectComparison,
    TransformersCall,
    TransformersSetting,
    compare_dialects,
    transformers_cases,
)
from explorer.roundtrip.model import GrammarVerdict, RoundTripCase, RoundTripReport
from explorer.roundtrip.report import DIALECTS, roundtrip_report
from explorer.roundtrip.run import RequestChange

__all__ = [
    "DEFAULT_MESSAGES", "DEFAULT_TOOLS", "ORACLE_MESSAGES", "ORACLE_TOOLS",
    "Comparison", "compare", "Cut", "EndMarker", "Strip", "cut_reply", "probe_end_marker", "strip_end",
    "DIALECTS", "GrammarVerdict", "RequestChange", "RoundTripCase", "RoundTripReport", "roundtrip_report",
    "DialectComparison", "TransformersCall", "TransformersSetting", "compare_dialects", "transformers_cases",
]
