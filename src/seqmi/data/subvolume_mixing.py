"""The mixing matrix of L2M's sub-volume Gaussian families (App. B, eq. B.19).

It lives apart from :mod:`seqmi.data.subvolume` so that the layer recursions of
:mod:`seqmi.data.subvolume_prefix` and :mod:`seqmi.data.subvolume_cca`, which that module
calls, need not import it back.
"""

import numpy as np

G_COEF = np.sqrt(5.0) / 4.0
R_COEF = 0.25
MIXING = np.array([
    [G_COEF, G_COEF, G_COEF, R_COEF],
    [-G_COEF, G_COEF, -G_COEF, R_COEF],
    [-G_COEF, -G_COEF, G_COEF, R_COEF],
    [G_COEF, -G_COEF, -G_COEF, R_COEF],
])
"""The 4x4 change-of-coordinates matrix of eq. (B.19), ``g = sqrt(5)/4``, ``r = 1/4``."""
