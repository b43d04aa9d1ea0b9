"""The template doctor: what breaks in a template, where in the template it comes from,
and fixes verified before they are shown.

Input: a ``TemplateSession`` (and, for the batch, template specs). Output: a doctor report
per template and verified ``Fix`` es. Modules: ``model`` (Fix, RoundTripCount, the
acceptance checks' results and the search's other types), ``losses`` (the round trip's
sentences classified: what the template does not render, what llama.cpp's parser loses,
and the rest), ``artifacts`` (stop-token artifacts), ``turns`` (the message set every fix
is held to, rendered in both dialects), ``blocks`` (the ``if`` branches around a line),
``intent`` (design choices and the lines that show them), ``reading`` (losses read again
for design choices and stop-token artifacts), ``classes`` (the failure classes of a
template's round trip and health), ``corpus`` (the workaround substring and its
uniqueness where the lambda lives), ``edits`` and ``closing`` (template edits),
``candidates`` (the candidate fixes per class), ``acceptance`` (the standard every fix
passes before it is shown: its checks as data and code), ``fixes`` (``propose_fixes``:
candidates, held to the standard), ``places`` (the template line of each finding and
round-trip loss, from render provenance), ``report`` (``doctor(session) ->
DoctorReport``), ``batch`` (many templates over processes or a Dask cluster, as JSON
lines) and ``text`` (a report or a summary table as text). Import them
from their modules: this package's top level holds only the shared types, so that the fix
search can import them without pulling in the report.
"""

from explorer.doctor.model import FIX_KINDS, FailureClass, Fix, FixKind, FixSearch, RoundTripCount, TriedFix

__all__ = ["FIX_KINDS", "FailureClass", "Fix", "FixKind", "FixSearch", "RoundTripCount", "TriedFix"]
