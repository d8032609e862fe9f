"""``python -m seqmi.book``: the command line of :mod:`seqmi.book`."""

import sys

from seqmi.book import main

if __name__ == "__main__":  # importing the module (a walk over the package) runs nothing
    sys.exit(main())
