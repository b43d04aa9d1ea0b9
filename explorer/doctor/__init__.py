"""The template doctor: what breaks in a template, where in the template it comes from,
and fixes verified before they are shown.

Input: a ``TemplateSession`` (and, for the batch, template specs). Output: a doctor report
per template and verified ``Fix`` es. Modules: ``model`` (Fix, RoundTripCount).
"""

from explorer.doctor.model import FIX_KINDS, Fix, FixKind, RoundTripCount

__all__ = ["FIX_KINDS", "Fix", "FixKind", "RoundTripCount"]
