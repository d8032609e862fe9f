"""The profiles a chapter runs at, named once.

A profile is a set of parameter values per chapter (``notebooks/profiles.yml``), picked
when a chapter is executed (``python -m seqmi.book execute --profile NAME``) and passed to
it as its ``profile`` parameter; the rules and the pages read it from the results.
"""

#: The profiles a chapter is executed at: quick, the parameters cells, for CI and laptops;
#: reference, sized to decide the trained-model claims on 2 CPU cores; full, the papers'
#: scale, on one GPU.
PROFILES = ("quick", "reference", "full")
#: Recorded scales, largest first: the chapters show every one present, the scoreboard
#: decides from the first (quick is never recorded).
RECORDED_PROFILES = tuple(p for p in reversed(PROFILES) if p != "quick")
#: Profiles sized for CPUs (the others for one GPU, until a recorded run shows otherwise).
CPU_PROFILES = tuple(p for p in PROFILES if p != "full")
#: The profile of a chapter run outside the executor (opened by hand, or plain papermill):
#: the default of every chapter's ``profile`` parameter.
DEFAULT_PROFILE = "interactive"
