"""What a headline leads with when the model's labels are audited (``--audit``; docs/conventions.md
section 25.7): the one decision every medium's headline follows (the site's first screen, the
terminal, summary.md, a pull request's comment), made here in the analysis and read by
:mod:`ragreport.output.site.headline`, the ``labels`` caveat and nothing else.

With an audit that corrects the primary metric's comparison, the headline reads the corrected
difference (its band and its verdict, adjusted over the family as the model's verdicts are); without
one it reads the model's labels, as it always did.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .audit import Audit, CorrectedComparison, UnderBoth


def leading(audit: Audit | None, run: str, metric: str) -> CorrectedComparison | None:
    """The corrected comparison a headline leads with (docs/conventions.md section 25.7): ``run``'s
    against the baseline on ``metric`` once corrected by the audit; None without an audit or when
    the audit holds none (the headline then reads the model's labels, as without an audit)."""
    if audit is None:
        return None
    return next((c for c in audit.comparisons if c.run == run and c.metric == metric), None)


def corrected_figure(audit: Audit | None, run: str, metric: str) -> UnderBoth | None:
    """``run``'s ``metric`` under both label sets and corrected, when the audit holds it."""
    if audit is None:
        return None
    return next((r for r in audit.runs if r.run == run and r.label == metric), None)
