"""Chapter 06's rules, every claim group decided on the numbers a results dict holds."""

from __future__ import annotations

from typing import Any

from seqmi.claims import Claim
from seqmi.claims.ch06_attention_gradients._exact import _exact_claims
from seqmi.claims.ch06_attention_gradients._fig3 import _fig3_claim
from seqmi.claims.ch06_attention_gradients._recall_seeds import _fig4_claim, _rellstm_claim
from seqmi.claims.ch06_attention_gradients._table4 import _rl_claims, _table4_claims
from seqmi.claims.ch06_attention_gradients._tasks import _task_claims


def rules(r: dict[str, Any]) -> list[Claim]:
    """The chapter's claims from its results dict.

    Each group of claims is decided when its numbers are present: a whole run has them
    all, a recording begun with the Fig. 3 section (:func:`seqmi.book.record_section`)
    only that section's. A whole run (its ``settings``) without the MiniGrid sweep still
    lists Table 4's claims, as not run; so with the transfer, RelLSTM and Fig. 4 runs, whose
    rows a recording of their section alone also gets.
    """
    groups = ((("decomposition_max_rel_error",), _exact_claims), (("copy_run",), _task_claims),
              (("settings", "rellstm_copy"), lambda x: [_rellstm_claim(x)]),
              (("settings", "denoise_fig4"), lambda x: [_fig4_claim(x)]),
              (("gradient_profiles",), lambda x: [_fig3_claim(x)]), (("settings", "rl_transfer"), _rl_claims),
              (("settings",), _table4_claims))
    return [claim for keys, group in groups if any(k in r for k in keys) for claim in group(r)]
