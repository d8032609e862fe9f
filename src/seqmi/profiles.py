"""The profiles a chapter runs at, named once.

A profile is a set of parameter values per chapter (``notebooks/profiles.yml``), picked
when a chapter is executed (``python -m seqmi.book execute --profile NAME``) and passed to
it as its ``profile`` parameter; the rules and the pages read it from the results.
"""

#: The profiles a chapter is executed at, smallest first. ``quick`` holds the parameters
#: cells' values (CI and laptops), ``reference`` is sized to decide the trained-model
#: claims on 2 CPU cores, and ``full`` is the papers' scale, on one GPU.
PROFILES = ("quick", "reference", "full")
#: The recorded scales, largest first. The chapters show every one present, and the
#: scoreboard decides from the first (quick is never recorded).
RECORDED_PROFILES = tuple(p for p in reversed(PROFILES) if p != "quick")
#: Profiles sized for CPUs (the others for one GPU, until a recorded run shows otherwise).
CPU_PROFILES = tuple(p for p in PROFILES if p != "full")
#: The profile of a chapter run outside the executor (opened by hand, or by plain
#: papermill), and so the default of every chapter's ``profile`` parameter.
DEFAULT_PROFILE = "interactive"
