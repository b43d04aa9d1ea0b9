"""The template doctor: what breaks in a template, where in the template it comes from,
and fixes verified before they are shown.

Input: a ``TemplateSession`` (and, for the batch, template specs). Output: a doctor report
per template and verified ``Fix`` es. Modules: ``model`` (Fix, RoundTripCount and the
search's other types), ``classes`` (the failure classes of a template's round trip and
health), ``corpus`` (the workaround substring and its uniqueness), ``edits`` (template
edits), ``candidates`` (the candidate fixes per class) and ``fixes`` (``propose_fixes``:
candidates, verified).
"""

from explorer.doctor.model import FIX_KINDS, FailureClass, Fix, FixKind, FixSearch, RoundTripCount, TriedFix

__all__ = ["FIX_KINDS", "FailureClass", "Fix", "FixKind", "FixSearch", "RoundTripCount", "TriedFix"]
