"""Chapter 06's rules, every claim group decided on the numbers a results record holds."""

from __future__ import annotations

from seqmi.claims import Claim
from seqmi.claims.ch06_attention_gradients._exact import _exact_claims
from seqmi.claims.ch06_attention_gradients._fig3 import _fig3_claim
from seqmi.claims.ch06_attention_gradients._recall_seeds import _fig4_claim, _rellstm_claim
from seqmi.claims.ch06_attention_gradients._table4 import _rl_claims, _table4_claims
from seqmi.claims.ch06_attention_gradients._tasks import _task_claims
from seqmi.results.ch06_attention_gradients import Results


def rules(r: Results) -> list[Claim]:
    """The chapter's claims from its results record.

    Each group of claims is decided when its numbers are present: a whole run has them
    all, a recording begun with the Fig. 3 section (:func:`seqmi.book.record_section`)
    only that section's. A whole run (its ``settings``) without the MiniGrid sweep still
    lists Table 4's claims, as not run; so with the transfer, RelLSTM and Fig. 4 runs, whose
    rows a recording of their section alone also gets.
    """
    whole = r.settings is not None
    groups = ((r.decomposition_max_rel_error is not None, _exact_claims), (r.copy_run is not None, _task_claims),
              (whole or r.rellstm_copy is not None, lambda x: [_rellstm_claim(x)]),
              (whole or r.denoise_fig4 is not None, lambda x: [_fig4_claim(x)]),
              (r.gradient_profiles is not None, lambda x: [_fig3_claim(x)]),
              (whole or r.rl_transfer is not None, _rl_claims), (whole, _table4_claims))
    return [claim for present, group in groups if present for claim in group(r)]
