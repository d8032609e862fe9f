"""Chapter 04's rules, every claim group decided on the numbers a results record holds."""

from __future__ import annotations

from seqmi.claims import Claim
from seqmi.claims.ch04_bipartite_mi_l2m._gaussian import _exact_claims, _state_claims
from seqmi.claims.ch04_bipartite_mi_l2m._text import _generated_claim, _text_claims, _two_point_claim
from seqmi.claims.ch04_bipartite_mi_l2m._trained import _bound_claims, _fig4_claims, _fig5_claim
from seqmi.results.ch04_bipartite_mi_l2m import Results


def rules(r: Results) -> list[Claim]:
    """The chapter's claims from its results record.

    Each group of claims is decided when its numbers are present: a whole run has them
    all, a recording begun with one section (:func:`seqmi.book.record_section`) only
    that section's, and the scoreboard reads the others from the next largest run.
    """
    groups = ((r.lengths, _exact_claims), (r.l2m_exact, _state_claims), (r.l2m_runs, _fig4_claims),
              (r.bound_runs, _bound_claims), (r.text_two_point, lambda x: [_two_point_claim(x)]),
              (r.generated_two_point, lambda x: [_generated_claim(x)]), (r.text_bipartite, _text_claims),
              (r.figure5, lambda x: [_fig5_claim(x)]))
    return [claim for section, group in groups if section is not None for claim in group(r)]
