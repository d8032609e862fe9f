"""seqmi: mutual information scaling and the expressive power of sequence models.

The shared package of the executable book. Subpackages:

- :mod:`seqmi.info`: entropy and mutual-information estimators.
- :mod:`seqmi.data`: generators of sequences with known statistics.
- :mod:`seqmi.theory`: exact (closed-form or symbolic) results to check against.
- :mod:`seqmi.models`: neural sequence models.
- :mod:`seqmi.train`: the one training loop; :mod:`seqmi.family`: models trained together.
- :mod:`seqmi.report`: chapter results, claims tables and reference runs.
- :mod:`seqmi.book`: the command line that executes and builds the book.
"""

__version__ = "0.1.0"
