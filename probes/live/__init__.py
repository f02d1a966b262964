"""Live probes: measure a running model through hooks (they import torch).

Each module owns one kind of quantity and returns plain data (numbers, lists, findings), never
tensors. ``monitor`` installs the hooks, dispatches each step to the probes, arms the costly ones
when a symptom calls for them and gathers their findings; ``watch`` is the user-facing context.
"""
