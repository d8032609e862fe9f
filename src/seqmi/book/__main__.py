"""``python -m seqmi.book``: the command line of :mod:`seqmi.book`."""

import sys

from seqmi.book import main

sys.exit(main())
