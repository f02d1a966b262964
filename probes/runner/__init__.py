"""The ``--script`` runner: a user's unmodified training script in an instrumented child process.

``supervise`` starts and supervises the child (pipe of JSON events, time limits, stopping once the
evidence decides); ``child`` is the child's entry point, which patches torch's global hooks and runs
the script; ``setup_call`` runs a ``--setup MODULE:FUNCTION`` instead of a script.
"""
