"""traindx.engine: knowledge-base loading, inference, confidence, explanations, reports and the CLI.

Nothing in this package imports torch; the Q&A path stays light.
"""

__version__ = "0.1.0"
