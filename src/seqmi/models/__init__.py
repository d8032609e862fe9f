"""Neural sequence models."""

from seqmi._optional import require

require("torch")  # every module here needs it: a missing torch fails naming its extra
